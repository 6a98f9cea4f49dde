"""One optimizer step over a ResNet-18-sized parameter set (62 tensors, 11.7M floats): mxcompat's Updater (as
gluon's Trainer calls it, all indices in one call) beside torch.optim with the same rule (foreach=True).

    python -m pytest benchmarks/bench_optimizer.py --benchmark-json=/tmp/o.json
    python benchmarks/ratios.py /tmp/o.json
    python benchmarks/bench_optimizer.py    # alternates the two sides step by step: steadier on a busy machine
Target (issue "autograd, initializers, optimizers ..."): at most 1.1x torch.optim.
"""
import statistics
import sys
import time
import warnings

import pytest
import torch

import mxcompat as mx


def resnet18_shapes():
    """The 62 parameter shapes of torchvision's resnet18 (conv weights, batch-norm gamma/beta, fc)."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for block in range(2):
            shapes += [(cout, cin, 3, 3), (cout,), (cout,), (cout, cout, 3, 3), (cout,), (cout,)]
            if block == 0 and (stride != 1 or cin != cout):
                shapes += [(cout, cin, 1, 1), (cout,), (cout,)]
            cin = cout
    return shapes + [(1000, 512), (1000,)]


SHAPES = resnet18_shapes()
assert len(SHAPES) == 62

# (mxcompat optimizer, torch.optim twin); both apply wd as an L2 term on the gradient before momentum/moments
RULES = {
    'sgd_momentum': (lambda: mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-4),
                     lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-4, foreach=True)),
    'adam': (lambda: mx.optimizer.Adam(learning_rate=1e-3, wd=1e-4),
             lambda ps: torch.optim.Adam(ps, lr=1e-3, weight_decay=1e-4, foreach=True)),
}


def _tensors():
    gen = torch.Generator().manual_seed(0)
    return [torch.randn(s, generator=gen) * 0.1 for s in SHAPES], [torch.randn(s, generator=gen) for s in SHAPES]


def mxcompat_step(rule):
    weights, grads = _tensors()
    ws = [mx.nd.from_torch(w) for w in weights]
    gs = [mx.nd.from_torch(g) for g in grads]
    upd = mx.optimizer.get_updater(RULES[rule][0]())
    idx = list(range(len(ws)))
    upd(idx, gs, ws)  # creates the states, as the first step of training does
    return lambda: upd(idx, gs, ws)


def torch_step(rule):
    weights, grads = _tensors()
    params = [torch.nn.Parameter(w) for w in weights]
    for p, g in zip(params, grads):
        p.grad = g
    opt = RULES[rule][1](params)
    opt.step()
    return opt.step


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('rule', sorted(RULES))
def test_resnet18_step(benchmark, rule, side):
    benchmark.group = 'optimizer:' + rule
    benchmark.extra_info['side'] = side
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        step = mxcompat_step(rule) if side == 'mxcompat' else torch_step(rule)
    benchmark.pedantic(step, rounds=15, iterations=1, warmup_rounds=2)


def interleaved(rounds=20):
    """Median seconds per step of each side, timing them alternately; returns {rule: (mxcompat, torch)}."""
    out = {}
    for rule in sorted(RULES):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            steps = (mxcompat_step(rule), torch_step(rule))
        times = ([], [])
        for _ in range(rounds):
            for step, acc in zip(steps, times):
                t0 = time.perf_counter()
                step()
                acc.append(time.perf_counter() - t0)
        out[rule] = tuple(statistics.median(t) for t in times)
    return out


if __name__ == '__main__':
    torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    print('%-16s %14s %12s %7s' % ('rule', 'mxcompat ms', 'torch ms', 'ratio'))
    for rule, (m, t) in interleaved().items():
        print('%-16s %14.1f %12.1f %7.2f' % (rule, m * 1e3, t * 1e3, m / t))
