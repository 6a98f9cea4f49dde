"""Random numbers from MXNet's CPU streams: initializing model_zoo's resnet50_v1 (25.6M parameters, Xavier) beside
the same network's default initialization in native torch (kaiming_uniform_ from torch's generator), and drawing one
million uniform / normal numbers with ``mx.nd.random`` beside ``torch.rand`` / ``torch.randn``.

    resnet50_v1-init    construction, initialize(mx.init.Xavier()) and one forward on a 32x32 image (which
                        finishes the deferred initialization) | constructing the torch network
    resnet50_v1-first-output  the same | constructing the torch network and one forward (eval, no_grad) on the same
                        image: the time to a first result on each side
    resnet50_v1-reinit  initialize(mx.init.Xavier(), force_reinit=True) once the shapes are known | every module's
                        reset_parameters()
    resnet50_v1-reinit-normal  the same with mx.init.MSRAPrelu() (normal values, as GluonCV's training scripts
                        initialize) | kaiming_normal_ on every convolution and Dense weight, reset_parameters() on the
                        rest

    python -m pytest benchmarks/bench_random.py --benchmark-json=/tmp/r.json && python benchmarks/ratios.py /tmp/r.json
    python benchmarks/bench_random.py      # alternates the sides: steadier on a busy machine; also shows
                                           # mxcompat with set_streams('torch'), what the streams themselves cost
    python benchmarks/bench_random.py --breakdown   # CPU time of each phase of the initialization, and of the
                                                    # samplers of MXNet's streams within it
Target (issue 37): the resnet50_v1 initialization (Xavier) at most 1.5x torch's.

Each round starts after a garbage collection, outside the timing, on both sides: Gluon blocks hold reference cycles
(a block and its name scope, as MXNet's), so a dropped network waits for Python's cycle collector, which would
otherwise run at random inside some later round (and free the memory the next network reuses only then).
"""
import gc
import statistics
import sys
import time

import pytest
import torch

import mxcompat as mx
from mxcompat.gluon.model_zoo import vision


class _TorchBottleneck(torch.nn.Module):
    def __init__(self, body, short):
        super().__init__()
        self.body, self.short = body, short

    def forward(self, x):
        return torch.relu(self.body(x) + (x if self.short is None else self.short(x)))


def torch_resnet50_v1(nn=torch.nn):
    """model_zoo's resnet50_v1 in native torch: a 7x7 stem, BottleneckV1 stages [3, 4, 6, 3] (the stride on the
    first 1x1 convolution, a 1x1 convolution + BN shortcut on each stage's first block) and a 1000-way Dense."""
    def block(cin, cout, stride, down):
        mid = cout // 4
        body = nn.Sequential(nn.Conv2d(cin, mid, 1, stride, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                             nn.Conv2d(mid, mid, 3, 1, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                             nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
        short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)) if down else None
        return _TorchBottleneck(body, short)

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, n, stride in ((256, 3, 1), (512, 4, 2), (1024, 6, 2), (2048, 3, 2)):
        for i in range(n):
            layers.append(block(cin, cout, stride if i == 0 else 1, i == 0))
            cin = cout
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000))


def mxcompat_init():
    x = mx.nd.zeros((1, 3, 32, 32))

    def run():
        net = vision.resnet50_v1()
        net.initialize(mx.init.Xavier())
        net(x).wait_to_read()
    return run


def torch_init():
    return torch_resnet50_v1


def torch_first_output():
    x = torch.zeros(1, 3, 32, 32)

    def run():
        net = torch_resnet50_v1().eval()
        with torch.no_grad():
            net(x)
    return run


def mxcompat_reinit(initializer=mx.init.Xavier):
    net = vision.resnet50_v1()
    net.initialize(initializer())
    net(mx.nd.zeros((1, 3, 32, 32)))
    return lambda: net.initialize(initializer(), force_reinit=True)


def torch_reinit(weight_init=None):
    """Every module's reset_parameters(), or ``weight_init`` on the convolution and Dense weights instead."""
    modules = [m for m in torch_resnet50_v1().modules() if hasattr(m, 'reset_parameters')]

    def run():
        for m in modules:
            if weight_init is not None and isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                weight_init(m.weight)
            else:
                m.reset_parameters()
    return run


def _collect():
    gc.collect()  # (returns nothing: pytest-benchmark passes what setup returns to the timed call)


INITS = {'resnet50_v1-init': (mxcompat_init, torch_init),
         'resnet50_v1-first-output': (mxcompat_init, torch_first_output),
         'resnet50_v1-reinit': (mxcompat_reinit, torch_reinit),
         'resnet50_v1-reinit-normal': (lambda: mxcompat_reinit(mx.init.MSRAPrelu),
                                       lambda: torch_reinit(torch.nn.init.kaiming_normal_))}


SAMPLERS = {
    'uniform': (lambda: mx.nd.random.uniform(shape=(1000000,)).wait_to_read(), lambda: torch.rand(1000000)),
    'normal': (lambda: mx.nd.random.normal(shape=(1000000,)).wait_to_read(), lambda: torch.randn(1000000)),
}


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('work', sorted(INITS))
def test_resnet50_init(benchmark, work, side):
    benchmark.group = 'random:' + work
    benchmark.extra_info['side'] = side
    run = INITS[work][0 if side == 'mxcompat' else 1]()
    benchmark.pedantic(run, setup=_collect, rounds=5, iterations=1, warmup_rounds=1)


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('dist', sorted(SAMPLERS))
def test_draw_million(benchmark, dist, side):
    benchmark.group = 'random:%s-1M' % dist
    benchmark.extra_info['side'] = side
    run = SAMPLERS[dist][0 if side == 'mxcompat' else 1]
    benchmark.pedantic(run, rounds=20, iterations=1, warmup_rounds=2)


def _median_alternating(fns, rounds):
    for fn in fns:  # warm up (the streams' buffers are made on first use)
        fn()
    times = [[] for _ in fns]
    for _ in range(rounds):
        for fn, acc in zip(fns, times):
            gc.collect()
            t0 = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def _on_torch_streams(fn):
    def run():
        prev = mx.random.set_streams('torch')
        try:
            fn()
        finally:
            mx.random.set_streams(prev)
    return run


def interleaved(rounds=7):
    """Median seconds of each side, timed alternately: {workload: (mxcompat, torch, mxcompat on torch's
    streams)}."""
    out = {}
    for name, (ours, theirs) in INITS.items():
        mine = ours()
        out[name] = tuple(_median_alternating([mine, theirs(), _on_torch_streams(mine)], rounds))
    for dist, (ours, theirs) in sorted(SAMPLERS.items()):
        out['%s-1M' % dist] = tuple(_median_alternating([ours, theirs, _on_torch_streams(ours)], 5 * rounds))
    return out


def _cpu_median(fn, rounds):
    times = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def breakdown(rounds=5):
    """Where resnet50_v1's initialization spends its CPU time (process time, so other processes' load counts less):
    {phase: median ms} for construction, initialize(), the first forward (deferred initialization), the samplers of
    MXNet's streams inside them, the same run on torch's generators, and the torch network's construction."""
    from mxcompat.operator import _mxrandom, random_ops
    x = mx.nd.zeros((1, 3, 32, 32))
    spent = [0.0]
    originals = dict(random_ops.MX_SAMPLERS)

    def timed(sampler):
        def run(*args):
            t0 = time.process_time()
            try:
                return sampler(*args)
            finally:
                spent[0] += time.process_time() - t0
        return run

    phases = {k: [] for k in ('construct', 'initialize', 'first forward', "MXNet streams' samplers", 'total',
                              "total on torch's streams")}
    random_ops.MX_SAMPLERS.update({k: timed(v) for k, v in originals.items()})
    try:
        for r in range(rounds + 1):
            gc.collect()
            spent[0] = 0.0
            t0 = time.process_time()
            net = vision.resnet50_v1()
            t1 = time.process_time()
            net.initialize(mx.init.Xavier())
            t2 = time.process_time()
            net(x).wait_to_read()
            t3 = time.process_time()
            if r:  # (the first round warms up)
                for k, v in zip(phases, (t1 - t0, t2 - t1, t3 - t2, spent[0], t3 - t0)):
                    phases[k].append(v)
    finally:
        random_ops.MX_SAMPLERS.update(originals)
    ours = mxcompat_init()
    prev = _mxrandom.set_streams('torch')
    try:
        phases["total on torch's streams"] = [_cpu_median(ours, rounds)]
    finally:
        _mxrandom.set_streams(prev)
    out = {k: statistics.median(v) * 1e3 for k, v in phases.items()}
    out['torch construction'] = _cpu_median(torch_resnet50_v1, rounds) * 1e3
    return out


if __name__ == '__main__':
    torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1)
    if '--breakdown' in sys.argv:
        for name, ms in breakdown().items():
            print('%-28s %8.1f ms CPU' % (name, ms))
        sys.exit(0)
    print('%-20s %12s %10s %7s %22s' % ('workload', 'mxcompat ms', 'torch ms', 'ratio', "on torch's streams ms"))
    for name, (m, t, mt) in interleaved().items():
        print('%-20s %12.1f %10.1f %7.2f %22.1f' % (name, m * 1e3, t * 1e3, m / t, mt * 1e3))
