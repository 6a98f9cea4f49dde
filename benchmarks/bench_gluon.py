"""One Gluon training step (forward, backward, Trainer.step with SGD + momentum; batch 64) for an MLP and a LeNet,
imperative and hybridized, beside the same model and step in native torch (nn.Module + torch.optim.SGD).

    python -m pytest benchmarks/bench_gluon.py --benchmark-json=/tmp/g.json && python benchmarks/ratios.py /tmp/g.json
    python benchmarks/bench_gluon.py      # alternates the sides step by step: steadier on a busy machine
Targets (issue "Gluon"): imperative at most 1.1x torch, hybridized at most 1.0x torch.
"""
import statistics
import sys
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mxcompat as mx
from mxcompat import autograd, gluon, nd
from mxcompat.gluon import nn

BATCH = 64
MODELS = {
    'mlp': (BATCH, 784),
    'lenet': (BATCH, 1, 28, 28),
}


def _data(model):
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, MODELS[model]).astype(np.float32)
    y = rs.randint(0, 10, BATCH).astype(np.float32)
    return x, y


def gluon_net(model):
    net = nn.HybridSequential()
    with net.name_scope():
        if model == 'mlp':
            net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(10))
        else:
            net.add(nn.Conv2D(6, 5, activation='relu'), nn.MaxPool2D(), nn.Conv2D(16, 5, activation='relu'),
                    nn.MaxPool2D(), nn.Flatten(), nn.Dense(120, activation='relu'), nn.Dense(84, activation='relu'),
                    nn.Dense(10))
    return net


def torch_net(model):
    if model == 'mlp':
        return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
                                   torch.nn.ReLU(), torch.nn.Linear(128, 10))
    return torch.nn.Sequential(torch.nn.Conv2d(1, 6, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                               torch.nn.Linear(256, 120), torch.nn.ReLU(), torch.nn.Linear(120, 84), torch.nn.ReLU(),
                               torch.nn.Linear(84, 10))


def mxcompat_step(model, hybridize):
    x, y = _data(model)
    net = gluon_net(model)
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9})
    data, label = nd.array(x), nd.array(y)

    def step():
        with autograd.record():
            loss = -nd.pick(nd.log_softmax(net(data)), label)
        loss.backward()
        trainer.step(BATCH)
    step()
    return step


def torch_step(model):
    x, y = _data(model)
    net = torch_net(model)
    opt = torch.optim.SGD(net.parameters(), lr=0.05 / BATCH, momentum=0.9, foreach=True)
    data, label = torch.from_numpy(x), torch.from_numpy(y).long()

    def step():
        opt.zero_grad()
        loss = -F.log_softmax(net(data), 1).gather(1, label[:, None]).squeeze(1)
        loss.backward(torch.ones_like(loss))
        opt.step()
    step()
    return step


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
