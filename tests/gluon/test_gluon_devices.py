"""Gluon training on each device: the same script on gpu(0) gives the CPU's losses and parameters.
Parameters start from fixed arrays (initializers draw from each device's own generator); data comes from numpy."""
import numpy as np
import pytest

import mxcompat as mx
from tests.conftest import same_on_devices
from mxcompat import autograd, gluon
from mxcompat.gluon import nn, rnn


def _fix_params(net, ctx, seed=0):
    rs = np.random.RandomState(seed)
    for name, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rs.uniform(-0.2, 0.2, p.shape)))
    assert all(p.list_ctx() == [ctx] for p in net.collect_params().values())


def _train(net, ctx, x, y, steps, optimizer, opt_args, hybridize, backend=None):
    net.initialize(ctx=ctx)
    net(mx.nd.array(x[:2], ctx=ctx))  # deferred shapes
    _fix_params(net, ctx)
    if hybridize:
        net.hybridize(static_alloc=True, static_shape=True, backend=backend)
    trainer = gluon.Trainer(net.collect_params(), optimizer, opt_args)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for step in range(steps):
        b = slice(8 * (step % 2), 8 * (step % 2 + 1))
        data, label = gluon.utils.split_and_load(mx.nd.array(x[b]), [ctx])[0], mx.nd.array(y[b], ctx=ctx)
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(8)
        losses.append(loss.mean().asscalar())
    out = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
    out['losses'] = np.array(losses)
    return out


def _data(shape, classes=3, seed=1):
    rs = np.random.RandomState(seed)
    return rs.randn(*shape).astype(np.float32), rs.randint(0, classes, shape[0]).astype(np.float32)


@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
def test_mlp(ctx, hybridize):
    x, y = _data((16, 10))

    def run(c):
        with mx.name.Prefix('mlp_'):
            net = nn.HybridSequential()
            net.add(nn.Dense(32, activation='relu'), nn.Dense(3))
        return _train(net, c, x, y, 6, 'sgd', {'learning_rate': 0.2, 'momentum': 0.9}, hybridize)
    res = same_on_devices(run, ctx)
    assert res['losses'][-1] < res['losses'][0]


@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
def test_cnn_with_batchnorm(ctx, hybridize):
    x, y = _data((16, 3, 8, 8))

    def run(c):
        with mx.name.Prefix('cnn_'):
            net = nn.HybridSequential()
            # (no bias before BatchNorm: its gradient is rounding noise, which Adam scales up to full steps)
            net.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2),
                    nn.Conv2D(16, 3), nn.GlobalAvgPool2D(), nn.Dense(3))
        return _train(net, c, x, y, 4, 'adam', {'learning_rate': 0.01}, hybridize)
    res = same_on_devices(run, ctx, rtol=1e-3, atol=1e-4)
    assert np.isfinite(res['losses']).all()


class _Tagger(gluon.HybridBlock):
    def __init__(self, cell, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.rnn = cell
            self.out = nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.rnn(x)).mean(axis=0)


@pytest.mark.parametrize('kind', ['lstm', 'gru', 'rnn_tanh', 'lstm_bi', 'lstmp'])
@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
def test_fused_rnn_layers(ctx, kind, hybridize):
    x, y = _data((5, 8, 4))  # TNC
    y = np.random.RandomState(4).randint(0, 3, 8).astype(np.float32)

    def run(c):
        layer = {'lstm': lambda: rnn.LSTM(6, 2), 'gru': lambda: rnn.GRU(6), 'rnn_tanh': lambda: rnn.RNN(6),
                 'lstm_bi': lambda: rnn.LSTM(6, bidirectional=True), 'lstmp': lambda: rnn.LSTM(6, projection_size=4)}
        with mx.name.Prefix('tagger_'):
            net = _Tagger(layer[kind]())
        net.initialize(ctx=c)
        net(mx.nd.array(x[:, :2], ctx=c))
        _fix_params(net, c)
        if hybridize:
            net.hybridize()
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        losses = []
        for _ in range(3):
            with autograd.record():
                loss = loss_fn(net(mx.nd.array(x, ctx=c)), mx.nd.array(y, ctx=c))
            loss.backward()
            trainer.step(8)
            losses.append(loss.mean().asscalar())
        # a gradient through the layer in predict mode (MXNet allows it; cuDNN needs its training kernel)
        inp = mx.nd.array(x, ctx=c)
        inp.attach_grad()
        with autograd.record(train_mode=False):
            out = net(inp)
        out.backward()
        out = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
        out['losses'] = np.array(losses)
        out['input_grad'] = inp.grad.asnumpy()
        return out
    res = same_on_devices(run, ctx, rtol=1e-3, atol=1e-5)
    assert res['losses'][-1] < res['losses'][0]


def test_rnn_layer_begin_state_and_sequence_length(ctx):
    x, _ = _data((6, 3, 4))

    def run(c):
        layer = rnn.LSTM(5, 2, bidirectional=True, use_sequence_length=True)
        layer.initialize(ctx=c)
        layer(mx.nd.array(x[:, :1], ctx=c), layer.begin_state(1, ctx=c), mx.nd.array([1], ctx=c))
        _fix_params(layer, c)
        states = layer.begin_state(3, ctx=c)
        inp = mx.nd.array(x, ctx=c)
        inp.attach_grad()
        with autograd.record():
            out, new = layer(inp, states, mx.nd.array([6, 2, 4], ctx=c))
        out.backward()
        assert out.context == c and all(s.context == c for s in new)
        return {'out': out.asnumpy(), 'h': new[0].asnumpy(), 'grad': inp.grad.asnumpy()}
    same_on_devices(run, ctx, rtol=1e-4, atol=1e-5)


@pytest.mark.gpu
def test_inductor_backend_trains_a_residual_cnn_on_the_gpu():
    # hybridize(backend='inductor') on CUDA, with what the model zoo's ResNets hold (convolutions, BatchNorm in
    # training mode with its moving statistics, max pooling, a residual addition, global pooling): the losses and
    # parameters of the plain graph
    pytest.importorskip('torch._inductor')

    class Residual(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.conv, self.bn = nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm()

        def hybrid_forward(self, F, x):
            return F.relu(self.bn(self.conv(x)) + x)

    x, y = _data((16, 3, 8, 8))
    results = []
    for backend in (None, 'inductor'):
        with mx.name.Prefix('res_'):
            net = nn.HybridSequential()
            net.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation('relu'),
                    nn.MaxPool2D(2), Residual(), nn.GlobalAvgPool2D(), nn.Dense(3))
        results.append(_train(net, mx.gpu(0), x, y, 3, 'sgd', {'learning_rate': 0.1}, True, backend))
    for k in results[0]:
        np.testing.assert_allclose(results[1][k], results[0][k], rtol=1e-3, atol=1e-4, err_msg=k)
