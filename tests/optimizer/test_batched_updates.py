"""A Trainer step's dense Adam updates on CUDA run together as multi-tensor kernels at the end of the Updater's
batch (operator.optimizer_updates.batched/queue_adam): the same operations in the same order as one weight at a
time. The batched path is forced on the CPU here and compared with the per-weight generic path bit for bit."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat import autograd, gluon, kernels
from mxcompat.gluon import nn
from mxcompat.operator import optimizer_updates as ops


def _train(ctx, optimizer, opt_args, dtype='float32', steps=3):
    net = nn.HybridSequential()
    net.add(nn.Dense(8, in_units=5, activation='relu'), nn.Dense(4, in_units=8))
    net.initialize(ctx=ctx)
    net.cast(dtype)
    rs = np.random.RandomState(0)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, p.shape), ctx=ctx, dtype=dtype))
    net.collect_params().setattr('lr_mult', 1.0)
    net[1].weight.lr_mult = 0.5
    net[0].bias.wd_mult = 0.0
    trainer = gluon.Trainer(net.collect_params(), optimizer, opt_args)
    for _ in range(steps):
        x = mx.nd.array(rs.randn(6, 5), ctx=ctx, dtype=dtype)
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(6)
    return [p.data().asnumpy() for p in net.collect_params().values()]


@pytest.mark.parametrize('opt_args', [{'learning_rate': 0.01}, {'learning_rate': 0.01, 'wd': 0.1},
                                      {'learning_rate': 0.05, 'wd': 0.01, 'clip_gradient': 0.5,
                                       'rescale_grad': 0.5}])
def test_batched_adam_equals_per_weight_adam(ctx, opt_args, monkeypatch):
    with kernels.policy(cpu_fast_paths=False):  # (the per-weight generic path, which the batch reorders nothing of)
        want = _train(ctx, 'adam', opt_args)
        calls = []
        monkeypatch.setattr(ops, '_batches', lambda t: True)
        real = ops._adam_group
        monkeypatch.setattr(ops, '_adam_group', lambda key, items: calls.append(len(items)) or real(key, items))
        got = _train(ctx, 'adam', opt_args)
    assert calls and max(calls) >= 2  # (weights grouped)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_multi_precision_and_subclasses_see_their_updates(ctx, monkeypatch):
    monkeypatch.setattr(ops, '_batches', lambda t: True)
    with kernels.policy(cpu_fast_paths=False):
        got = _train(ctx, 'adam', {'learning_rate': 0.01, 'multi_precision': True}, dtype='float16')
        monkeypatch.setattr(ops, '_batches', lambda t: False)
        want = _train(ctx, 'adam', {'learning_rate': 0.01, 'multi_precision': True}, dtype='float16')
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)

    class Clipped(mx.optimizer.Adam):  # (reads the weight right after the update: not batched)
        def update(self, index, weight, grad, state):
            super().update(index, weight, grad, state)
            weight[:] = mx.nd.clip(weight, -0.1, 0.1)
    monkeypatch.setattr(ops, '_batches', lambda t: True)
    opt = Clipped(learning_rate=0.5)
    assert all(np.abs(p).max() <= 0.1 + 1e-7 for p in _train(ctx, opt, None))
