"""One Gluon training step (forward, backward, Trainer.step with SGD + momentum; batch 64) for an MLP, a LeNet, a
CIFAR-sized ResNet-18 (model_zoo resnet18_v1, thumbnail) and a 1-layer LSTM language model (35 steps, 128 -> 256,
vocabulary 1000), imperative and hybridized, beside the same model and step in native torch (nn.Module +
torch.optim.SGD).

    python -m pytest benchmarks/bench_gluon.py --benchmark-json=/tmp/g.json && python benchmarks/ratios.py /tmp/g.json
    python benchmarks/bench_gluon.py      # alternates the sides step by step: steadier on a busy machine
Targets (issue "Gluon"): imperative at most 1.1x torch, hybridized at most 1.0x torch. The models and steps are
``benchmarks/workloads_gluon.py``'s, which ``python -m benchmarks --areas gluon`` also runs on real MXNet.
"""
import statistics
import sys
import time

import pytest
import torch

import mxcompat as mx
from benchmarks import workloads_gluon as W

MODELS = W.MODELS


def mxcompat_step(model, hybridize):
    return W.gluon_step(mx, model, 'small', hybridize)


def torch_step(model):
    return W.torch_step(torch, model, 'small')


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('mode', ['imperative', 'hybridized'])
@pytest.mark.parametrize('model', sorted(MODELS))
def test_train_step(benchmark, model, mode, side):
    benchmark.group = 'gluon:%s-%s' % (model, mode)
    benchmark.extra_info['side'] = side
    step = mxcompat_step(model, mode == 'hybridized') if side == 'mxcompat' else torch_step(model)
    benchmark.pedantic(step, rounds=50, iterations=1, warmup_rounds=5)


def interleaved(rounds=200):
    """Median seconds per step, the sides timed alternately: {(model, mode): (mxcompat, torch)}."""
    out = {}
    for model in sorted(MODELS):
        for mode in ('imperative', 'hybridized'):
            steps = (mxcompat_step(model, mode == 'hybridized'), torch_step(model))
            times = ([], [])
            for _ in range(rounds):
                for step, acc in zip(steps, times):
                    t0 = time.perf_counter()
                    step()
                    acc.append(time.perf_counter() - t0)
            out[(model, mode)] = tuple(statistics.median(t) for t in times)
    return out


if __name__ == '__main__':
    torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    print('%-22s %14s %12s %7s' % ('workload', 'mxcompat us', 'torch us', 'ratio'))
    for (model, mode), (m, t) in interleaved().items():
        print('%-22s %14.1f %12.1f %7.2f' % ('%s-%s' % (model, mode), m * 1e6, t * 1e6, m / t))
