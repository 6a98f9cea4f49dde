"""CUDA graphs of static hybridized blocks (``MXNET_ENABLE_CUDA_GRAPHS=1``, kernels/cuda_graphs.py): the same losses,
parameters, moving statistics and outputs as the block run without graphs, on each device (on the CPU no graph is
captured and the results must be those of the plain graph)."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import autograd, gluon
from mxcompat.gluon import nn


def _net(dropout=0.0, batchnorm=True):
    net = nn.HybridSequential()
    net.add(nn.Dense(32, in_units=16))
    if batchnorm:
        net.add(nn.BatchNorm(in_channels=32))
    net.add(nn.Activation('relu'))
    if dropout:
        net.add(nn.Dropout(dropout))
    net.add(nn.Dense(10, in_units=32))
    return net


def _fixed(net, ctx, seed=0):
    net.initialize(ctx=ctx)
    rs = np.random.RandomState(seed)
    for _, p in sorted(net.collect_params().items()):
        if p.name.endswith(('running_var', 'gamma')):
            p.set_data(mx.nd.array(rs.uniform(0.5, 1.5, p.shape), ctx=ctx))
        else:
            p.set_data(mx.nd.array(rs.uniform(-0.3, 0.3, p.shape), ctx=ctx))
    return net


def _hybridized(ctx, graphs, monkeypatch, **kwargs):
    """A fixed-weight net hybridized with static_alloc and static_shape, with CUDA graphs asked for or not."""
    monkeypatch.setenv('MXNET_ENABLE_CUDA_GRAPHS', '1' if graphs else '0')
    net = _fixed(_net(**kwargs), ctx)
    net.hybridize(static_alloc=True, static_shape=True)
    return net


def _captures(net):
    graphs = net._cached_op.graphs
    return None if graphs is None else graphs.captures


def _batches(n, batch=8, seed=1):
    rs = np.random.RandomState(seed)
    return [(rs.randn(batch, 16).astype(np.float32), rs.randint(0, 10, batch).astype(np.float32)) for _ in range(n)]


def _train(net, ctx, batches):
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for x, y in batches:
        x, y = mx.nd.array(x, ctx=ctx), mx.nd.array(y, ctx=ctx)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
        losses.append(loss.asnumpy())
    return np.array(losses), [(k[len(net.prefix):], p.data().asnumpy()) for k, p in net.collect_params().items()]


@pytest.fixture(autouse=True)
def _tf32_off():
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        yield
        torch.backends.cuda.matmul.allow_tf32 = prev


def test_training_steps_give_the_plain_graphs_losses_parameters_and_statistics(ctx, monkeypatch):
    batches = _batches(6)
    graphed = _hybridized(ctx, True, monkeypatch)
    plain = _hybridized(ctx, False, monkeypatch)
    got_loss, got = _train(graphed, ctx, batches)
    want_loss, want = _train(plain, ctx, batches)
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5, atol=1e-6)
    for (k, g), (_, w) in zip(got, want):  # (BatchNorm's moving statistics too: updated once a step, no warm-up)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=k)
    assert _captures(plain) is None
    assert _captures(graphed) == (1 if ctx.device_type == 'gpu' else 0)


def test_outputs_are_new_arrays_at_every_call(ctx, monkeypatch):
    net = _hybridized(ctx, True, monkeypatch)
    plain = _hybridized(ctx, False, monkeypatch)
    xs = [mx.nd.array(x, ctx=ctx) for x, _ in _batches(4)]
    outs = [net(x) for x in xs]  # (predict mode: the forward graph alone, replayed from the third call)
    for x, out in zip(xs, outs):
        np.testing.assert_allclose(out.asnumpy(), plain(x).asnumpy(), rtol=1e-5, atol=1e-6)
    assert _captures(net) == (1 if ctx.device_type == 'gpu' else 0)


def test_writes_to_parameters_are_seen_and_new_arrays_recaptured(ctx, monkeypatch):
    net = _hybridized(ctx, True, monkeypatch)
    x = mx.nd.array(_batches(1)[0][0], ctx=ctx)
    for _ in range(3):
        net(x)
    weight = net[0].weight
    weight.set_data(weight.data() * 2)  # (in place: the graph reads the new values)
    plain = _hybridized(ctx, False, monkeypatch)
    plain[0].weight.set_data(plain[0].weight.data() * 2)
    np.testing.assert_allclose(net(x).asnumpy(), plain(x).asnumpy(), rtol=1e-5, atol=1e-6)
    net.initialize(mx.init.Xavier(), ctx=ctx, force_reinit=True)  # (new arrays: that graph is dropped)
    plain.initialize(mx.init.Xavier(), ctx=ctx, force_reinit=True)
    for p, q in zip(net.collect_params().values(), plain.collect_params().values()):
        q.set_data(p.data())
    for _ in range(3):
        np.testing.assert_allclose(net(x).asnumpy(), plain(x).asnumpy(), rtol=1e-5, atol=1e-6)
    assert _captures(net) == (2 if ctx.device_type == 'gpu' else 0)


def test_each_signature_is_captured_once(ctx, monkeypatch):
    net = _hybridized(ctx, True, monkeypatch, batchnorm=False)
    for batch in (4, 8, 4, 8, 4, 8):
        net(mx.nd.ones((batch, 16), ctx=ctx))
    with autograd.record():  # (train mode and recording: another signature)
        for _ in range(3):
            net(mx.nd.ones((4, 16), ctx=ctx)).backward()
    assert _captures(net) == (3 if ctx.device_type == 'gpu' else 0)


def test_dropout_draws_new_masks_at_every_replay(ctx, monkeypatch):
    net = _hybridized(ctx, True, monkeypatch, dropout=0.5)
    x = mx.nd.ones((64, 16), ctx=ctx)
    with autograd.record():
        outs = [net(x).asnumpy() for _ in range(4)]
    assert all(not np.array_equal(outs[i], outs[i + 1]) for i in range(3))


class _HostRead(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd.array(in_data[0].asnumpy() * 2, ctx=in_data[0].context))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 2)


@mx.operator.register('cuda_graphs_host_read')
class _HostReadProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ['data']

    def infer_shape(self, in_shape):
        return in_shape, in_shape, []

    def create_operator(self, ctx, shapes, dtypes):
        return _HostRead()


class _Doubled(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Custom(x, op_type='cuda_graphs_host_read') + 1


@pytest.mark.gpu
def test_a_graph_that_cannot_be_captured_runs_as_usual_with_one_warning(monkeypatch):
    monkeypatch.setenv('MXNET_ENABLE_CUDA_GRAPHS', '1')
    net = _Doubled()
    net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.ones((2, 3), ctx=mx.gpu(0))
    net(x)
    with pytest.warns(UserWarning, match='cannot be captured as a CUDA graph'):
        out = net(x)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 3, np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), np.full((2, 3), 3, np.float32))
    assert net._cached_op.graphs.captures == 0


def _module_fit(ctx, graphs, monkeypatch):
    """Module.fit of an MLP from fixed weights, then predict; with CUDA graphs asked for or not."""
    monkeypatch.setenv('MXNET_ENABLE_CUDA_GRAPHS', '1' if graphs else '0')
    data = mx.sym.var('data')
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name='fc1'), act_type='relu')
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=4, name='fc2'), name='softmax')
    rs = np.random.RandomState(0)
    params = {k: mx.nd.array(rs.uniform(-0.3, 0.3, s)) for k, s in
              (('fc1_weight', (16, 8)), ('fc1_bias', (16,)), ('fc2_weight', (4, 16)), ('fc2_bias', (4,)))}
    x = rs.randn(64, 8).astype(np.float32)
    y = np.abs(x[:, :4]).argmax(1).astype(np.float32)
    mod = mx.mod.Module(sym, context=ctx)
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=16, label_name='softmax_label'), num_epoch=2, arg_params=params,
            optimizer='sgd', optimizer_params={'learning_rate': 0.5, 'momentum': 0.9})
    arg, _ = mod.get_params()
    out = {k: v.asnumpy() for k, v in arg.items()}
    out['predict'] = mod.predict(mx.io.NDArrayIter(x, batch_size=16)).asnumpy()
    graphs = mod._exec_group.execs[0]._runner.graphs
    return out, None if graphs is None else graphs.captures


def test_a_bound_executor_trains_and_predicts_as_without_graphs(ctx, monkeypatch):
    got, captures = _module_fit(ctx, True, monkeypatch)
    want, none = _module_fit(ctx, False, monkeypatch)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert none is None
    assert captures == (2 if ctx.device_type == 'gpu' else None)  # (the training step and the prediction)
