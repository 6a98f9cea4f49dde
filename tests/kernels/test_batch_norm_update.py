"""BatchNorm's moving statistics, updated as MXNet does when the gradient reaches the layer: on CUDA all layers'
updates of a backward pass wait for its end and run together (kernels.batch_norm_moving_update). Here the deferred
path also runs on the CPU (forced), against the CPU's exact per-layer update."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat import autograd, gluon, kernels
from mxcompat.gluon import nn


def _net(ctx):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=3, use_bias=False), nn.BatchNorm(in_channels=4, momentum=0.8),
            nn.Activation('relu'), nn.Conv2D(6, 3, in_channels=4), nn.BatchNorm(in_channels=6, epsilon=1e-3),
            nn.GlobalAvgPool2D(), nn.Dense(3, in_units=6), nn.BatchNorm(in_channels=3))
    net.initialize(ctx=ctx)
    rs = np.random.RandomState(0)
    for p in net.collect_params().values():  # (in the order of the layers: names count up across nets)
        p.set_data(mx.nd.array(rs.uniform(0.5, 1.5, p.shape) if p.name.endswith(('var', 'gamma'))
                               else rs.uniform(-0.3, 0.3, p.shape), ctx=ctx))
    return net


def _train(ctx, hybridize, steps=3):
    net = _net(ctx)
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    rs = np.random.RandomState(1)
    for _ in range(steps):
        x = mx.nd.array(rs.randn(5, 3, 8, 8), ctx=ctx)
        with autograd.record():
            loss = net(x).square().sum()
        loss.backward()
        trainer.step(5)
    return [p.data().asnumpy() for k, p in net.collect_params().items() if 'running' in k]


@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
def test_deferred_updates_equal_the_per_layer_updates(ctx, hybridize, monkeypatch):
    want = _train(mx.cpu(), hybridize)
    if ctx.device_type == 'cpu':
        monkeypatch.setattr(kernels, '_defers_bn_update', lambda t: True)
    got = _train(ctx, hybridize)
    assert not kernels._BN_PENDING
    assert len(got) == len(want) == 6
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=str(i))


def test_each_backward_updates_once_and_a_forward_alone_not_at_all(ctx, monkeypatch):
    monkeypatch.setattr(kernels, '_defers_bn_update', lambda t: True)
    net = nn.BatchNorm(in_channels=2, momentum=0.5)
    net.initialize(ctx=ctx)
    x = mx.nd.array(np.array([[1., 2.], [3., 6.]]), ctx=ctx)
    with autograd.record():
        y = net(x)
    np.testing.assert_array_equal(net.running_mean.data().asnumpy(), [0, 0])  # (not before the backward pass)
    y.backward()
    np.testing.assert_allclose(net.running_mean.data().asnumpy(), [1, 2])
    np.testing.assert_allclose(net.running_var.data().asnumpy(), [0.5 + 0.5 * 1, 0.5 + 0.5 * 4], rtol=1e-4)
    with autograd.record():
        y = net(x)
    y.backward()
    np.testing.assert_allclose(net.running_mean.data().asnumpy(), [1.5, 3])
    assert not kernels._BN_PENDING
