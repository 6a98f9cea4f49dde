"""In-place activations and additions in hybridized graphs (mxcompat/symbol/passes/inplace.py): which nodes are
rewritten, and that values, gradients and BatchNorm's moving statistics are bit for bit those of the plain graph."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import gluon
from mxcompat.base import MXNetError
from mxcompat.gluon import nn
from mxcompat.symbol.passes import inplace


class Residual(gluon.HybridBlock):
    """conv-BN-relu-conv-BN, plus the block's input, then relu (model_zoo's BasicBlockV1)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(4, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation('relu'),
                          nn.Conv2D(4, 3, padding=1, use_bias=False), nn.BatchNorm())

    def hybrid_forward(self, F, x):
        return F.Activation(self.body(x) + x, act_type='relu')


def _net():
    mx.random.seed(3)
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, padding=1), Residual(), Residual(), nn.Dense(5, activation='tanh'))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    return net


def _rewritten(net):
    gm = net._cached_op.fn
    return sorted(n.target._mx_op for n in gm.graph.nodes
                  if n.op == 'call_function' and n.target.__module__ == inplace.__name__)


def _train(net, x, steps=2):
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    for _ in range(steps):
        with mx.autograd.record():
            y = net(x)
        y.backward()
        trainer.step(x.shape[0])
    return y.asnumpy(), [(k, p.data().asnumpy()) for k, p in net._collect_params_with_prefix().items()]


def test_residual_blocks_rewritten():
    net = _net()
    net(mx.nd.ones((2, 3, 6, 6)))
    # per block: the relu after BN, the residual addition, the relu after it; the Dense's tanh
    assert _rewritten(net) == ['Activation'] * 5 + ['elemwise_add'] * 2


def test_same_bits_as_the_plain_graph(monkeypatch):
    x = mx.nd.random.uniform(-1, 1, shape=(4, 3, 6, 6))
    monkeypatch.setattr(inplace, 'plan_inplace', lambda gm: gm)
    plain = _net()
    want_y, want = _train(plain, x)
    assert not _rewritten(plain)
    monkeypatch.undo()
    net = _net()
    got_y, got = _train(net, x)
    assert _rewritten(net)
    np.testing.assert_array_equal(got_y, want_y)
    assert [k for k, _ in got] == [k for k, _ in want]
    for (k, g), (_, w) in zip(got, want):  # weights after two SGD steps, BN moving statistics included
        np.testing.assert_array_equal(g, w, err_msg=k)


def test_matches_imperative():
    x = mx.nd.random.uniform(-1, 1, shape=(4, 3, 6, 6))
    eager = _net()
    eager.hybridize(False)
    want_y, want = _train(eager, x)
    got_y, got = _train(_net(), x)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    for (k, g), (_, w) in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=k)


class Shared(gluon.HybridBlock):
    def hybrid_forward(self, F, x, w):
        fc = F.FullyConnected(x, w, num_hidden=3, no_bias=True)
        twice = F.relu(F.relu(fc))      # the outer relu's input is a relu result, which relu's backward keeps
        return twice, F.sigmoid(x), F.tanh(fc)  # x is an input; fc has three readers


def test_unsafe_inputs_not_rewritten():
    net = Shared()
    net.hybridize()
    x, w = mx.nd.array([[1.0, -2.0]]), mx.nd.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    outs = net(x, w)
    assert _rewritten(net) == []
    assert net._cached_op.fn is net._cached_op.graph_module
    np.testing.assert_allclose(outs[1].asnumpy(), 1 / (1 + np.exp(-x.asnumpy())), rtol=1e-6)
    np.testing.assert_array_equal(x.asnumpy(), [[1.0, -2.0]])


def test_addition_errors_stay_the_operators():
    class Mismatch(gluon.HybridBlock):
        def hybrid_forward(self, F, x, w1, w2):
            a = F.FullyConnected(x, w1, num_hidden=3, no_bias=True)
            b = F.FullyConnected(x, w2, num_hidden=2, no_bias=True)
            return F.elemwise_add(a, b)
    net = Mismatch()
    net.hybridize()
    x = mx.nd.ones((1, 2))
    with pytest.raises(MXNetError, match=r'elemwise_add.*\(1, 3\).*\(1, 2\)|elemwise_add.*\(1, 2\).*\(1, 3\)'):
        net(x, mx.nd.ones((3, 2)), mx.nd.ones((2, 2)))


def test_integer_and_mismatched_inputs_take_the_operators_path():
    sig = inplace._unary_fn(torch.sigmoid, torch.sigmoid_)
    ints = torch.tensor([0, 1])
    assert sig(ints).dtype == torch.float32 and ints.tolist() == [0, 1]
    floats = torch.tensor([0.0])
    assert sig(floats) is floats and floats.item() == 0.5
    add = inplace._add_fn(torch.add, 1)
    lhs, rhs = torch.ones(2), torch.ones(2)
    assert add(lhs, rhs) is rhs and lhs.tolist() == [1, 1] and rhs.tolist() == [2, 2]
    wide = torch.ones(2, dtype=torch.float64)
    assert add(torch.ones(2), wide) is not wide and wide.tolist() == [1, 1]


def test_op_hooks_see_inputs_before_the_activation():
    net = _net()
    x = mx.nd.random.uniform(-1, 1, shape=(2, 3, 6, 6))
    net(x)
    seen = {}

    def hook(name, op, arr):
        seen[name.decode()] = arr.asnumpy().copy()
    net.register_op_hook(hook, monitor_all=True)
    net(x)
    bn_out = [v for k, v in seen.items() if k.endswith('relu0_fwd_input0')]
    assert bn_out and (bn_out[0] < 0).any()  # the BatchNorm result, negative entries kept


def _executor_grads():
    data = mx.sym.var('data')
    conv = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=4, name='conv')
    bn = mx.sym.BatchNorm(conv, fix_gamma=False, name='bn')
    short = mx.sym.FullyConnected(data, num_hidden=4 * 5 * 5, name='fc').reshape((0, 4, 5, 5))
    out = mx.sym.Activation(bn + short, act_type='relu', name='out')
    rs = np.random.RandomState(0)
    args = {n: mx.nd.array(rs.uniform(-1, 1, s)) for n, s in zip(out.list_arguments(),
                                                                   out.infer_shape(data=(2, 3, 5, 5))[0])}
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    aux = {'bn_moving_mean': mx.nd.zeros(4), 'bn_moving_var': mx.nd.ones(4)}
    exe = out.bind(mx.cpu(), args, args_grad=grads, aux_states=aux)
    y = exe.forward(is_train=True)[0].asnumpy()
    exe.backward(mx.nd.array(rs.uniform(-1, 1, y.shape)))
    return exe, [y] + [grads[n].asnumpy() for n in sorted(grads)] + [aux[n].asnumpy() for n in sorted(aux)]


def test_executor_same_bits_as_the_plain_graph(monkeypatch):
    exe, got = _executor_grads()
    assert [n.target._mx_op for n in exe._runner.fn.graph.nodes
            if n.op == 'call_function' and n.target.__module__ == inplace.__name__] == ['elemwise_add', 'Activation']
    monkeypatch.setattr(inplace, 'plan_inplace', lambda gm: gm)
    _, want = _executor_grads()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


class _Recurrent(gluon.HybridBlock):
    """A 2-layer bidirectional LSTM (projected) and a GRU: each layer's RNN reads an _rnn_param_concat."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.lstm = gluon.rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=4, input_size=3)
            self.gru = gluon.rnn.GRU(5, input_size=8)

    def hybrid_forward(self, F, x):
        return self.gru(self.lstm(x))


def test_rnn_layers_take_their_parameters_without_the_concatenation(monkeypatch):
    x = mx.nd.random.uniform(-1, 1, shape=(4, 2, 3))

    def build(hybridize):
        mx.random.seed(5)
        net = _Recurrent()
        net.initialize(mx.init.Xavier())
        net.hybridize(hybridize)
        return net
    eager_y, eager = _train(build(False), x)
    net = build(True)
    got_y, got = _train(net, x)
    ops = [getattr(n.target, '_mx_op', None) for n in net._cached_op.fn.graph.nodes]
    assert ops.count('RNN') == 2 and '_rnn_param_concat' not in ops
    assert '_rnn_param_concat' in [getattr(n.target, '_mx_op', None) for n in net._cached_op.graph_module.graph.nodes]
    np.testing.assert_array_equal(got_y, eager_y)
    for (k, g), (_, w) in zip(got, eager):
        np.testing.assert_array_equal(g, w, err_msg=k)


def test_rnn_pieces_that_do_not_line_up_are_joined():
    # pieces cut elsewhere than at the weight boundaries (a tuple comes only from the rewrite, but the RNN operator
    # still joins pieces that do not match torch's layout)
    from mxcompat.operator.registry import get
    from mxcompat.operator.rnn_op import rnn_param_size
    op = get('RNN')
    attrs = op.parse_attrs({'mode': 'gru', 'state_size': 3, 'num_layers': 1})
    n = rnn_param_size('gru', 1, 2, 3, False)
    flat, data, state = torch.randn(n), torch.randn(5, 2, 2), torch.zeros(1, 2, 3)
    want = op.impl(data, flat, state, **attrs)
    got = op.impl(data, tuple(flat.split([10, 40, n - 50])), state, **attrs)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
