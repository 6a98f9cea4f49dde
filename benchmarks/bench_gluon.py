"""One Gluon training step (forward, backward, Trainer.step with SGD + momentum; batch 64) for an MLP, a LeNet, a
CIFAR-sized ResNet-18 (model_zoo resnet18_v1, thumbnail) and a 1-layer LSTM language model (35 steps, 128 -> 256,
vocabulary 1000), imperative and hybridized, beside the same model and step in native torch (nn.Module +
torch.optim.SGD).

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
SEQ, VOCAB, EMBED, HIDDEN = 35, 1000, 128, 256
MODELS = {
    'mlp': (BATCH, 784),
    'lenet': (BATCH, 1, 28, 28),
    'resnet18': (BATCH, 3, 32, 32),
    'lstm': (SEQ, BATCH),  # token ids, TNC layout
}


def _data(model):
    rs = np.random.RandomState(0)
    if model == 'lstm':
        x = rs.randint(0, VOCAB, MODELS[model]).astype(np.float32)
        return x, rs.randint(0, VOCAB, SEQ * BATCH).astype(np.float32)
    x = rs.uniform(-1, 1, MODELS[model]).astype(np.float32)
    y = rs.randint(0, 10, BATCH).astype(np.float32)
    return x, y


class _GluonLSTM(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(VOCAB, EMBED)
            self.rnn = gluon.rnn.LSTM(HIDDEN, input_size=EMBED)
            self.out = nn.Dense(VOCAB, in_units=HIDDEN, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.rnn(self.embed(x))).reshape((-1, VOCAB))


class _TorchLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, EMBED)
        self.rnn = torch.nn.LSTM(EMBED, HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, VOCAB)

    def forward(self, x):
        return self.out(self.rnn(self.embed(x))[0]).reshape(-1, VOCAB)


class _TorchBasicBlock(torch.nn.Module):
    """ResNet v1 basic block as model_zoo's BasicBlockV1 (conv-BN-relu-conv-BN, 1x1 conv-BN shortcut)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        nn_ = torch.nn
        self.body = nn_.Sequential(nn_.Conv2d(cin, cout, 3, stride, 1, bias=False), nn_.BatchNorm2d(cout), nn_.ReLU(),
                                   nn_.Conv2d(cout, cout, 3, 1, 1, bias=False), nn_.BatchNorm2d(cout))
        self.down = None if stride == 1 and cin == cout else nn_.Sequential(
            nn_.Conv2d(cin, cout, 1, stride, bias=False), nn_.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))


def _torch_resnet18():
    nn_ = torch.nn
    layers = [nn_.Conv2d(3, 64, 3, 1, 1, bias=False), nn_.BatchNorm2d(64), nn_.ReLU()]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [_TorchBasicBlock(cin, cout, stride), _TorchBasicBlock(cout, cout, 1)]
        cin = cout
    return nn_.Sequential(*layers, nn_.AdaptiveAvgPool2d(1), nn_.Flatten(), nn_.Linear(512, 10))


def gluon_net(model):
    if model == 'resnet18':
        return gluon.model_zoo.vision.resnet18_v1(classes=10, thumbnail=True)
    if model == 'lstm':
        return _GluonLSTM()
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
    if model == 'resnet18':
        return _torch_resnet18()
    if model == 'lstm':
        return _TorchLSTM()
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
    if model == 'lstm':
        data = data.long()

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
