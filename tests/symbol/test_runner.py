"""The one graph runner (mxcompat/symbol/runner.py) behind bound executors, hybridized blocks and mx.nd.CachedOp:
the three return the same arrays, with MXNet 1.9.1's aliasing (values checked against it in comments)."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat import gluon
from mxcompat.symbol import runner

X = [[1., 2., 3.], [4., 5., 6.]]


def _views():
    x = mx.sym.var('x')
    return {'reshape': mx.sym.reshape(x, shape=(-1,)), 'transpose': mx.sym.transpose(x),
            'slice': mx.sym.slice_axis(x, axis=1, begin=1, end=3)}


def _run_executor(sym, x):
    exe = sym.bind(mx.cpu(), {'x': x})
    exe.forward()
    return exe.outputs[0]


def _run_cached_op(sym, x):
    return mx.nd.CachedOp(sym)(x)


def _run_block(sym, x):
    net = gluon.SymbolBlock(sym, mx.sym.var('x'))
    return net(x)


RUNS = {'executor': _run_executor, 'cached_op': _run_cached_op, 'block': _run_block}


@pytest.mark.parametrize('how', sorted(RUNS))
@pytest.mark.parametrize('view', sorted(_views()))
def test_view_outputs_do_not_share_the_inputs_memory(how, view):
    # MXNet 1.9.1: the output of a view operator is a fresh array in the executor and the cached op (writing the
    # input afterwards leaves it unchanged); before the runner mx.nd.CachedOp and the executor returned views
    sym = _views()[view]
    x = mx.nd.array(X)
    y = RUNS[how](sym, x)
    before = y.asnumpy().copy()
    x[:] = 0
    np.testing.assert_array_equal(y.asnumpy(), before)
    assert y.to_torch().is_contiguous()


@pytest.mark.parametrize('how', ['executor', 'cached_op'])
def test_an_output_that_is_the_input_is_that_input(how):
    # MXNet 1.9.1: a symbol that is its input variable returns the input array itself (writing zeros into the input
    # shows in the output) from the executor and the cached op
    x = mx.nd.array(X)
    y = RUNS[how](mx.sym.var('x'), x)
    x[:] = 0
    np.testing.assert_array_equal(y.asnumpy(), np.zeros((2, 3)))


class _Both(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x, x.reshape((-1,))


def test_hybridized_block_returning_its_input_returns_that_array():
    # MXNet 1.9.1: after net(x), writing zeros into x shows in the first output (x itself), not in the second
    # (a reshape, computed into a fresh array)
    net = _Both()
    net.hybridize()
    x = mx.nd.array(X)
    same, flat = net(x)
    x[:] = 0
    np.testing.assert_array_equal(same.asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(flat.asnumpy(), np.arange(1, 7))


def test_cached_op_completes_creation_shapes_from_the_inputs():
    # MXNet 1.9.1: [[1, 1, 1], [1, 1, 1]], then shape (4, 3): the zeros' unknown (0) dimension follows the input
    # (mx.nd.CachedOp raised an incompatible-shape error before it ran on the runner)
    s = mx.sym.elemwise_add(mx.sym.zeros(shape=(0, 3)), mx.sym.var('x'))
    op = mx.nd.CachedOp(s)
    np.testing.assert_array_equal(op(mx.nd.ones((2, 3))).asnumpy(), np.ones((2, 3)))
    assert op(mx.nd.ones((4, 3))).shape == (4, 3)


def _mixed():
    x, w = mx.sym.var('x'), mx.sym.var('w')
    h = mx.sym.FullyConnected(mx.sym.transpose(x), w, no_bias=True, num_hidden=5)
    h = mx.sym.Activation(h, act_type='relu')
    return mx.sym.Group([mx.sym.slice_axis(h, axis=1, begin=1, end=4), mx.sym.sum(h, axis=0)])


def test_executor_cached_op_and_block_give_the_same_bits_as_eager():
    rng = np.random.RandomState(0)
    x, w = mx.nd.array(rng.randn(6, 4)), mx.nd.array(rng.randn(5, 6))
    h = mx.nd.relu(mx.nd.FullyConnected(mx.nd.transpose(x), w, no_bias=True, num_hidden=5))
    want = [mx.nd.slice_axis(h, axis=1, begin=1, end=4).asnumpy(), mx.nd.sum(h, axis=0).asnumpy()]
    sym = _mixed()
    exe = sym.bind(mx.cpu(), {'x': x, 'w': w})
    got = {'executor': [o.asnumpy() for o in exe.forward()]}
    names = sym.list_inputs()
    got['cached_op'] = [o.asnumpy() for o in mx.nd.CachedOp(sym)(*[{'x': x, 'w': w}[n] for n in names])]
    net = gluon.SymbolBlock(sym, mx.sym.var('x'))
    net.initialize()
    net.collect_params()['w'].set_data(w)
    got['block'] = [o.asnumpy() for o in net(x)]
    for how, outs in got.items():
        for o, ref in zip(outs, want):
            np.testing.assert_array_equal(o, ref, err_msg=how)


def test_common_expressions_merge_as_mxnet_eliminate_common_expr_says(monkeypatch):
    x = mx.sym.var('x')
    sym = mx.sym.Group([mx.sym.exp(x, name='e1'), mx.sym.exp(x, name='e2')])
    # MXNet's cached op and graph executor read the same switch (on by default): repeated outputs become copies
    assert runner.compile(sym).symbol.list_outputs() == ['e1_output', 'e1_0_copy_output']
    monkeypatch.setenv('MXNET_ELIMINATE_COMMON_EXPR', '0')
    assert runner.compile(sym).symbol.list_outputs() == ['e1_output', 'e2_output']


def test_runner_options_choose_the_passes():
    data = mx.sym.var('data')
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, no_bias=True, name='c')
    sym = mx.sym.Activation(mx.sym.elemwise_add(conv, conv * 1), act_type='relu')
    plain = runner.compile(sym, inplace=False)
    assert plain.fn is plain.graph_module
    inplace = runner.compile(sym)
    assert inplace.fn is not inplace.graph_module
    with pytest.raises(ValueError, match='backend'):
        runner.compile(sym, backend='TensorRT')
