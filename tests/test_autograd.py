import numpy as np
import pytest

import mxcompat as mx
from mxcompat import autograd
from mxcompat.base import MXNetError


def test_simple_gradient():
    x = mx.nd.array([1., 2., 3.])
    x.attach_grad()
    with autograd.record():
        y = (x * x * 2).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [4, 8, 12]


def test_grad_req_write_overwrites_and_add_accumulates():
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    g = x.grad
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward()
    assert x.grad.asnumpy().tolist() == [3, 3] and g.asnumpy().tolist() == [3, 3]
    x.attach_grad(grad_req='add')
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward()
    assert x.grad.asnumpy().tolist() == [6, 6]
    x.attach_grad(grad_req='null')
    assert x.grad is None


def test_backward_outside_record_raises():
    x = mx.nd.ones((2,))
    x.attach_grad()
    y = x * 2
    with pytest.raises(MXNetError, match='not in a computational graph'):
        y.backward()


def test_pause_and_modes():
    assert not autograd.is_recording() and not autograd.is_training()
    x = mx.nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
            z = x * 5
        y = x * 2 + z
        with autograd.predict_mode():
            assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()
    y.backward()
    assert x.grad.asnumpy().tolist() == [2, 2]
    prev = autograd.set_recording(True)
    assert prev is False and autograd.set_recording(False) is True


def test_head_grads_and_retain_graph():
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward(mx.nd.array([10., 1.]), retain_graph=True)
    assert x.grad.asnumpy().tolist() == [20, 4]
    autograd.backward([y], [mx.nd.array([1., 1.])])
    assert x.grad.asnumpy().tolist() == [2, 4]


def test_autograd_grad_leaves_grad_buffers_alone_and_higher_order():
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = x ** 3
        grads = autograd.grad(y, x, create_graph=True)  # a list even for one variable (MXNet 1.9.1)
        assert isinstance(grads, list) and len(grads) == 1
        dx = grads[0]
        z = dx.sum()
    assert np.allclose(dx.asnumpy(), [3, 12])
    z.backward()
    assert np.allclose(x.grad.asnumpy(), [6, 12])


def test_mark_variables_and_detach():
    x = mx.nd.array([1., 2.])
    g = mx.nd.zeros((2,))
    autograd.mark_variables([x], [g])
    with autograd.record():
        y = (x * 4).sum() + (x.detach() * 100).sum()
    y.backward()
    assert g.asnumpy().tolist() == [4, 4]


def test_function():
    class Sigmoid(autograd.Function):
        def forward(self, x):
            y = 1 / (1 + mx.nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)

    x = mx.nd.array([0., 1.])
    x.attach_grad()
    with autograd.record():
        y = Sigmoid()(x)
    y.backward()
    s = 1 / (1 + np.exp(-np.array([0., 1.])))
    assert np.allclose(x.grad.asnumpy(), s * (1 - s))


def test_inplace_write_to_variable_outside_record():
    x = mx.nd.ones((3,))
    x.attach_grad()
    x[:] = 5
    x += 1
    assert x.asnumpy().tolist() == [6, 6, 6]


def test_fresh_grad_and_second_backward_without_retain():
    x = mx.nd.ones((2,))
    x.attach_grad()
    assert x._fresh_grad is False
    with autograd.record():
        y = x * 2
    y.backward()
    assert x._fresh_grad is True
    x._fresh_grad = False
    with pytest.raises(MXNetError, match='retain_graph'):
        y.backward()


def test_star_import_gives_ndarray_and_symbol():
    ns = {}
    exec('from mxcompat.autograd import *', ns)  # noqa: S102 -- MXNet scripts do this
    assert ns['NDArray'] is mx.nd.NDArray and ns['Symbol'] is mx.sym.Symbol and 'record' in ns


@pytest.mark.parametrize('f', [mx.nd.radians, mx.nd.abs, lambda x: mx.nd.clip(x, 0.2, 0.5)])
def test_second_order_of_a_constant_gradient_is_zero(f):
    # MXNet keeps a gradient that no longer depends on x in the graph: differentiating it again gives zeros
    x = mx.nd.array([0.1, 0.3, 0.7])
    x.attach_grad()
    with autograd.record():
        g = autograd.grad(f(x), x, head_grads=mx.nd.ones(3), create_graph=True, retain_graph=True)[0]
        g2 = autograd.grad(g, x, head_grads=mx.nd.ones(3), create_graph=True, retain_graph=True)[0]
    assert g2.asnumpy().tolist() == [0, 0, 0]
    g.backward()
    assert x.grad.asnumpy().tolist() == [0, 0, 0]


@pytest.mark.parametrize('stype', ['row_sparse', 'csr'])
def test_gradient_flows_through_a_sparse_variable(stype):
    x = mx.nd.ones((3, 3)).tostype(stype)
    x.attach_grad()
    with autograd.record():
        y = 2 * x + x / 2 - 1 + mx.nd.exp(x)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((3, 3), 2.5 + np.e), rtol=1e-6)


@pytest.mark.parametrize('engine', ['direct', 'public'])
def test_backward_through_the_engine_or_torch_backward(engine, monkeypatch):
    # backward without head gradients hands its own ones straight to torch's engine (a private API); without that
    # API it calls torch.autograd.backward. Same gradients, 'write' and 'add', retained or not.
    if engine == 'public':
        monkeypatch.setattr(autograd, '_engine_run_backward', None)
    x = mx.nd.array([1., 2., 3.])
    x.attach_grad()
    w = mx.nd.array([0.5, -1., 2.])
    w.attach_grad(grad_req='add')
    for _ in range(2):
        with autograd.record():
            y = x * x * w
            z = (x * 3).sum()
        autograd.backward([y, z], retain_graph=True)
        y.backward()
    assert x.grad.asnumpy().tolist() == [1., -4., 12.]
    assert w.grad.asnumpy().tolist() == [4., 16., 36.]
    assert x._fresh_grad is True
    with pytest.raises(MXNetError, match='retain_graph'):
        y.backward()


@pytest.mark.parametrize('setter', ['private', 'public'])
def test_scopes_set_and_restore_torch_grad_mode(setter, monkeypatch):
    # record()/pause() switch torch's grad mode through torch._C._set_grad_enabled, or torch.set_grad_enabled
    # without it; either way it is restored on exit, also after an exception
    import torch
    if setter == 'public':
        monkeypatch.setattr(autograd, '_set_grad_mode', torch.set_grad_enabled)
    start = torch.is_grad_enabled()
    with autograd.record():
        assert torch.is_grad_enabled() and autograd.is_recording()
        with autograd.pause():
            assert not torch.is_grad_enabled() and not autograd.is_recording()
        assert torch.is_grad_enabled()
    assert torch.is_grad_enabled() == start
    with pytest.raises(ValueError):
        with autograd.record():
            raise ValueError
    assert torch.is_grad_enabled() == start and not autograd.is_recording()


def test_arrays_of_a_freed_graph_become_constants():
    # MXNet's backward (without retain_graph) clears the graph it went through: an array recorded in it is a constant
    # when a later recording uses it (D2L 0.17.6's train_epoch_ch8 carries an RNN state across batches so); an array
    # of another recorded graph keeps its gradient. Values of MXNet 1.9.1.
    x = mx.np.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        a = x * 2
        l1 = a.sum()
        b = mx.np.sin(x)
        b.sum()
    l1.backward()
    assert x.grad.tolist() == [2., 2.]
    with autograd.record():
        l3 = (b * x).sum() + (a * x).sum()
    l3.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.3817732334136963, 4.077003479003906], rtol=1e-6)
    y = mx.nd.array([0.5, 1.5])
    y.attach_grad()
    with autograd.record():
        h = mx.nd.tanh(y * 3)
        l = (h * h).sum()
    l.backward()
    np.testing.assert_allclose(y.grad.asnumpy(), [0.9813977479934692, 0.002960070502012968], rtol=1e-5)
    with autograd.record():
        l = (mx.nd.exp(h) * y).sum()
    l.backward()
    np.testing.assert_allclose(y.grad.asnumpy(), [2.4722983837127686, 2.717611074447632], rtol=1e-6)
    with pytest.raises(MXNetError, match='retain_graph'):
        l.backward()


def test_a_recurrent_state_carried_across_backward_passes():
    # a gluon GRU's final state (several torch nodes, some shared with its output) fed to the next batch
    mx.npx.set_np()
    try:
        mx.random.seed(0)
        layer = mx.gluon.rnn.GRU(3)
        layer.initialize()
        state = layer.begin_state(batch_size=2)
        X = mx.np.arange(12).reshape((2, 2, 3)) / 10
        losses = []
        for _ in range(3):
            for s in state:
                s.detach()  # (returns a new array: the book's no-op)
            with autograd.record():
                Y, state = layer(X, state)
                l = (Y * Y).sum()
            l.backward()
            losses.append(float(l))
        np.testing.assert_allclose(losses, [0.0032845772802829742, 0.006638107821345329, 0.007790095172822475],
                                   rtol=1e-5)
        np.testing.assert_allclose(layer.l0_h2h_weight.grad().sum().item(), 0.0015388771425932646, rtol=1e-4)
    finally:
        mx.npx.reset_np()
