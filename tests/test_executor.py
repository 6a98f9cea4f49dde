"""Executor gradient arrays: written in place as MXNet writes them, whatever shortcut the executor takes."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError


def _fc_executor(grad_req='write'):
    x = mx.sym.var('x')
    net = mx.sym.FullyConnected(x, num_hidden=2, name='fc')
    ex = net.simple_bind(mx.cpu(), grad_req={'x': 'null', 'fc_weight': grad_req, 'fc_bias': grad_req}, x=(4, 3))
    ex.arg_dict['fc_weight'][:] = np.arange(6, dtype=np.float32).reshape(2, 3)
    ex.arg_dict['fc_bias'][:] = 0
    return ex


def _step(ex, x, head):
    ex.forward(is_train=True, x=mx.nd.array(x))
    ex.backward(mx.nd.array(head))


def test_write_gives_the_gradient_in_the_same_arrays():
    ex = _fc_executor()
    g_w, g_b = ex.grad_dict['fc_weight'], ex.grad_dict['fc_bias']
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    for scale in (1.0, 2.0):
        head = np.full((4, 2), scale, np.float32)
        _step(ex, x, head)
        assert ex.grad_dict['fc_weight'] is g_w and ex.grad_arrays[1] is g_w
        np.testing.assert_allclose(g_w.asnumpy(), head.T @ x)
        np.testing.assert_allclose(g_b.asnumpy(), head.sum(0))


def test_add_accumulates():
    ex = _fc_executor('add')
    x = np.ones((4, 3), np.float32)
    for _ in range(3):
        _step(ex, x, np.ones((4, 2), np.float32))
    np.testing.assert_allclose(ex.grad_dict['fc_weight'].asnumpy(), np.full((2, 3), 12.0))


def test_a_view_taken_before_backward_sees_the_new_gradient():
    ex = _fc_executor()
    row = ex.grad_dict['fc_weight'][1]  # shares memory with the gradient array, as in MXNet
    held = ex.grad_dict['fc_bias'].asnumpy()  # a copy: must keep the old values
    _step(ex, np.ones((4, 3), np.float32), np.ones((4, 2), np.float32))
    np.testing.assert_allclose(row.asnumpy(), [4, 4, 4])
    np.testing.assert_allclose(held, [0, 0])


def test_gradient_never_aliases_the_callers_head_gradient():
    x = mx.sym.var('x')
    ex = mx.sym.identity(x).simple_bind(mx.cpu(), x=(3,))
    ex.forward(is_train=True, x=mx.nd.ones(3))
    head = mx.nd.array([1, 2, 3])
    ex.backward(head)
    head[:] = 7
    np.testing.assert_allclose(ex.grad_dict['x'].asnumpy(), [1, 2, 3])


def test_one_gradient_for_two_inputs_is_written_to_both():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    ex = (a + b).simple_bind(mx.cpu(), a=(2,), b=(2,))
    ex.forward(is_train=True, a=mx.nd.ones(2), b=mx.nd.ones(2))
    ex.backward(mx.nd.array([3, 4]))
    ex.grad_dict['a'][:] = 0
    np.testing.assert_allclose(ex.grad_dict['b'].asnumpy(), [3, 4])


def test_several_backward_passes_after_one_forward():
    ex = _fc_executor('add')
    ex.forward(is_train=True, x=mx.nd.ones((4, 3)))
    ex.backward(mx.nd.ones((4, 2)))
    ex.backward(mx.nd.ones((4, 2)) * 2)
    np.testing.assert_allclose(ex.grad_dict['fc_weight'].asnumpy(), np.full((2, 3), 12.0))  # MXNet 1.9.1: 12


def test_parameters_changed_between_steps_reach_the_next_forward():
    # in place (as optimizers write) and by replacing the array's storage (as executor groups share parameters)
    ex = _fc_executor()
    x = np.ones((4, 3), np.float32)
    outs = []
    for change in (None, 'inplace', 'replace'):
        if change == 'inplace':
            ex.arg_dict['fc_weight'][:] = 1
        elif change == 'replace':
            ex.arg_dict['fc_weight']._t = ex.arg_dict['fc_weight']._t * 2
        _step(ex, x, np.ones((4, 2), np.float32))
        outs.append((ex.outputs[0].asnumpy()[0].tolist(), ex.grad_dict['fc_weight'].asnumpy().tolist()))
    assert [o for o, _ in outs] == [[3.0, 12.0], [3.0, 3.0], [6.0, 6.0]]
    assert all(g == [[4.0] * 3] * 2 for _, g in outs)


def test_backward_before_any_forward_runs_the_forward():
    """MXNet differentiates with unset output buffers: right where the gradient reads only the inputs (checked on
    MXNet 1.9.1: FullyConnected's weight gradient here), garbage where it reads the outputs (tanh). mxcompat runs
    the forward first, so both are right."""
    ex = _fc_executor()
    ex.arg_dict['x'][:] = 1
    ex.backward(mx.nd.ones((4, 2)))
    assert ex.grad_dict['fc_weight'].asnumpy().tolist() == [[4.0] * 3] * 2
    x = mx.sym.var('x')
    ex = mx.sym.tanh(x).bind(mx.cpu(), {'x': mx.nd.array([0.5, 1.0])}, args_grad={'x': mx.nd.zeros((2,))})
    ex.backward(mx.nd.ones((2,)))
    np.testing.assert_allclose(ex.grad_dict['x'].asnumpy(), 1 - np.tanh([0.5, 1.0]) ** 2, rtol=1e-6)


# ---- behaviours checked against MXNet 1.9.1 (its tests test_symbol.py / test_executor.py) ---------------------
def _total_mb(exe):
    import re
    return int(re.search(r'Total (\d+) MB allocated', exe.debug_str()).group(1))


def test_debug_str_memory_total_follows_gradient_needs():
    data = mx.sym.Variable('data')
    for _ in range(10):
        data = data * data
    shape = (4, 1, 512, 512)  # 4 MB per value
    big = _total_mb(data.simple_bind(mx.cpu(), data=shape))
    small1 = _total_mb(data.simple_bind(mx.cpu(), data=shape, grad_req='null'))
    blocked = mx.sym.stop_gradient(data)
    exe = blocked.simple_bind(mx.cpu(), data=shape)
    small2 = _total_mb(exe)
    assert big > small2 and small1 == small2  # as in MXNet (its figures: 90 / 15 / 15 MB at 4x the size)
    exe.arg_dict['data'][:] = 1
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_array_equal(exe.grad_dict['data'].asnumpy(), np.zeros(shape, np.float32))


def test_simple_bind_type_dict_integer_input_and_non_differentiable_op():
    x, idx = mx.sym.Variable('x'), mx.sym.Variable('idx')
    y = mx.sym.batch_take(x, idx)
    types = {'x': np.float32, 'idx': np.int32}
    exe = mx.sym.stop_gradient(y).simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types)
    assert exe.arg_dict['idx'].dtype == np.int32
    exe.arg_dict['x'][:] = mx.nd.array(np.arange(100).reshape(10, 10))
    exe.arg_dict['idx'][:] = mx.nd.array(np.arange(10) % 3, dtype='int32')
    out = exe.forward()[0].asnumpy()
    np.testing.assert_array_equal(out, np.arange(10) * 10 + np.arange(10) % 3)
    exe.backward()
    with pytest.raises(MXNetError, match='batch_take is non-differentiable'):
        y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types)
    with pytest.raises(MXNetError, match='batch_take is non-differentiable'):
        (y * 2).simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types, grad_req={'x': 'write'})
    y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types, grad_req='null')


@pytest.mark.parametrize('make,savings', [
    (lambda a, b: (a + 1) + (a + 2), 0),
    (lambda a, b: (a + b) + (a + b), 1),
    (lambda a, b: (lambda d: mx.sym.Group([a * d, a * d]))(a + 1), 0),  # merged, then a copy output
    (lambda a, b: (lambda d: mx.sym.Group([a * d + b, a * d + b]))(a + 1), 1),
    (lambda a, b: mx.sym.Dropout(a) + mx.sym.Dropout(a), 0),
])
def test_get_optimized_symbol_eliminates_common_expressions(make, savings, monkeypatch):
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    sym = make(a, b)
    shapes = {n: (2, 3) for n in sym.list_inputs()}
    monkeypatch.setenv('MXNET_ELIMINATE_COMMON_EXPR', '0')
    orig = sym.simple_bind(mx.cpu(), **shapes)
    monkeypatch.setenv('MXNET_ELIMINATE_COMMON_EXPR', '1')
    cse = sym.simple_bind(mx.cpu(), **shapes)
    n_orig = len(orig.get_optimized_symbol().get_internals())
    assert len(cse.get_optimized_symbol().get_internals()) + savings == n_orig
    vals = {n: mx.nd.array(np.random.rand(2, 3)) for n in shapes}
    for e in (orig, cse):
        e.forward(is_train=True, **vals)
        e.backward([mx.nd.ones((2, 3))] * len(e.outputs))
    assert list(cse.output_dict) == sym.list_outputs()
    if 'Dropout' not in sym.tojson():
        for o, c in zip(orig.outputs + orig.grad_arrays, cse.outputs + cse.grad_arrays):
            np.testing.assert_allclose(o.asnumpy(), c.asnumpy(), rtol=1e-6)


def test_get_optimized_symbol_copies_repeated_outputs():
    with mx.name.NameManager():
        a = mx.sym.var('a')
        d = a + 1
        exe = mx.sym.Group([a * d, a * d]).simple_bind(mx.cpu(), a=(2, 2))
    opt = exe.get_optimized_symbol()  # MXNet 1.9.1: ['_mul0_output', '_mul0_0_copy_output'], 4 internals
    assert opt.list_outputs() == ['_mul0_output', '_mul0_0_copy_output']
    assert len(opt.get_internals()) == 4


def test_reshape_shares_memory():
    x = mx.sym.Variable('x')
    y = mx.sym.FullyConnected(x, num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req='null')
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    new_exe = exe.reshape(x=(3, 4))
    new_exe.forward(is_train=False)
    assert np.all(new_exe.outputs[0].asnumpy() == 4)
    assert np.all(exe.outputs[0].asnumpy()[:3] == 4)  # the smaller executor writes into the larger's outputs
    exe.forward(is_train=False)
    assert np.all(exe.outputs[0].asnumpy() == 4)
    new_exe = exe.reshape(allow_up_sizing=True, x=(6, 4))
    new_exe.arg_arrays[0][:] = 0
    assert np.all(exe.arg_arrays[0].asnumpy() == 1)
    assert np.all(new_exe.arg_arrays[1].asnumpy() == 1)


def test_blocked_input_gets_zero_gradient_beside_a_live_one():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    exe = (mx.sym.stop_gradient(a * 3) + b * 2).simple_bind(mx.cpu(), a=(2,), b=(2,))
    exe.grad_dict['a'][:] = 7  # 'write' overwrites it with the zero gradient, as MXNet does
    exe.forward(is_train=True, a=mx.nd.ones((2,)), b=mx.nd.ones((2,)))
    exe.backward(mx.nd.ones((2,)))  # (MXNet 1.9.1: a.grad [0, 0], b.grad [2, 2], output [5, 5])
    np.testing.assert_array_equal(exe.grad_dict['a'].asnumpy(), [0, 0])
    np.testing.assert_array_equal(exe.grad_dict['b'].asnumpy(), [2, 2])
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [5, 5])


# -- loss heads: the executor seeds MXNet's head gradient at the head's input (no Python autograd.Function) -------
def _softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _head_net(extra=None):
    x, y = mx.sym.var('x'), mx.sym.var('y')
    fc = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
    head = mx.sym.SoftmaxOutput(fc, y, name='sm')
    return (head if extra is None else extra(head, fc)), fc


def _bind_heads(sym, x, y):
    ex = sym.simple_bind(mx.cpu(), grad_req={'x': 'write', 'y': 'null', 'fc_weight': 'write', 'fc_bias': 'write'},
                         x=x.shape, y=y.shape)
    ex.arg_dict['fc_weight'][:] = np.arange(6, dtype=np.float32).reshape(3, 2) / 10
    ex.arg_dict['fc_bias'][:] = [0.1, -0.2, 0.3]
    ex.arg_dict['x'][:] = x
    ex.arg_dict['y'][:] = y
    return ex


_X = np.array([[1, 2], [0, -1], [3, 1], [-2, 0.5]], np.float32)
_Y = np.array([0, 2, 1, 5], np.float32)  # 5 is out of range: MXNet subtracts nothing in that row


def _expected_softmax_grads():
    w = np.arange(6, dtype=np.float32).reshape(3, 2) / 10
    p = _softmax(_X @ w.T + np.array([0.1, -0.2, 0.3], np.float32))
    g = p.copy()
    for i, lab in enumerate(_Y.astype(int)):
        if lab < 3:
            g[i, lab] -= 1
    return p, g, g.T @ _X, g.sum(0), g @ w


@pytest.mark.parametrize('head', [None, 'ignored'])
def test_softmax_output_head_gradient_ignores_the_head_gradient(head):
    sym, _ = _head_net()
    ex = _bind_heads(sym, _X, _Y)
    assert ex._lowered.heads  # the split path is the one under test
    ex.forward(is_train=True)
    ex.backward(None if head is None else mx.nd.full((4, 3), 7.0))
    p, _, gw, gb, gx = _expected_softmax_grads()
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), p, rtol=1e-5)
    np.testing.assert_allclose(ex.grad_dict['fc_weight'].asnumpy(), gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict['fc_bias'].asnumpy(), gb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict['x'].asnumpy(), gx, rtol=1e-5, atol=1e-6)


def test_head_grouped_with_another_output_takes_that_outputs_head_gradient():
    sym, _ = _head_net(lambda head, fc: mx.sym.Group([head, mx.sym.sum(fc, name='s')]))
    ex = _bind_heads(sym, _X, _Y)
    ex.forward(is_train=True)
    ex.backward([mx.nd.ones((4, 3)), mx.nd.array([2.0])])
    _, g, _, _, _ = _expected_softmax_grads()
    g = g + 2.0  # d(2 * sum(fc)) / d fc
    np.testing.assert_allclose(ex.grad_dict['fc_bias'].asnumpy(), g.sum(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict['fc_weight'].asnumpy(), g.T @ _X, rtol=1e-5, atol=1e-6)


def test_head_used_inside_the_graph_keeps_its_own_backward():
    # a head whose output feeds another op is not split: the gradient flows through it, and it still ignores
    # the gradient arriving from above (MXNet's loss-head rule)
    sym, _ = _head_net(lambda head, fc: mx.sym.sum(head * 3, name='s'))
    ex = _bind_heads(sym, _X, _Y)
    assert not ex._lowered.heads
    ex.forward(is_train=True)
    ex.backward()
    _, _, gw, gb, _ = _expected_softmax_grads()
    np.testing.assert_allclose(ex.grad_dict['fc_weight'].asnumpy(), gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict['fc_bias'].asnumpy(), gb, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('make, grad', [
    (lambda d, y: mx.sym.LinearRegressionOutput(d, y, grad_scale=2.0), lambda d, y: 2.0 * (d - y) / 3),
    (lambda d, y: mx.sym.MAERegressionOutput(d, y), lambda d, y: np.sign(d - y) / 3),
    (lambda d, y: mx.sym.LogisticRegressionOutput(d, y), lambda d, y: (1 / (1 + np.exp(-d)) - y) / 3),
    (lambda d, y: mx.sym.MakeLoss(d * 1, normalization='batch', grad_scale=3.0), lambda d, y: np.full(d.shape, 0.75)),
])
def test_other_loss_heads_split_and_eager_agree(make, grad):
    d, y = mx.sym.var('d'), mx.sym.var('y')
    sym = make(d, y)
    dv = np.array([[0.5, -1, 2], [1, 0, -0.5], [0.2, 0.3, 0.4], [-1, -2, 3]], np.float32)
    yv = np.array([[1, 0, 2], [0, 0, 0], [1, 1, 1], [0, -1, 3]], np.float32)
    shapes = {n: (4, 3) for n in sym.list_arguments()}
    ex = sym.simple_bind(mx.cpu(), **shapes)
    assert ex._lowered.heads
    feed = {'d': dv, 'y': yv}
    ex.forward(is_train=True, **{n: mx.nd.array(feed[n]) for n in sym.list_arguments()})
    ex.backward()
    np.testing.assert_allclose(ex.grad_dict['d'].asnumpy(), grad(dv, yv), rtol=1e-5, atol=1e-6)
    # the same op eagerly, under autograd (the autograd.Function path)
    x = mx.nd.array(dv)
    x.attach_grad()
    with mx.autograd.record():
        eager = {'LinearRegressionOutput': lambda: mx.nd.LinearRegressionOutput(x, mx.nd.array(yv), grad_scale=2.0),
                 'MAERegressionOutput': lambda: mx.nd.MAERegressionOutput(x, mx.nd.array(yv)),
                 'LogisticRegressionOutput': lambda: mx.nd.LogisticRegressionOutput(x, mx.nd.array(yv)),
                 'MakeLoss': lambda: mx.nd.MakeLoss(x * 1, normalization='batch', grad_scale=3.0)}
        out = eager[sym._outputs[0][0].op.name]()
    out.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), ex.grad_dict['d'].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), ex.outputs[0].asnumpy(), rtol=1e-6)


def test_graph_module_is_the_plain_graph():
    sym, _ = _head_net()
    ex = _bind_heads(sym, _X, _Y)
    gm = ex.graph_module
    outs = gm(*[a._t for a in ex.arg_arrays])
    assert len(outs) == 1
    np.testing.assert_allclose(outs[0].detach().numpy(), _expected_softmax_grads()[0], rtol=1e-5)


def _big_fc_executor():
    # a weight of 300 x 256 elements: large enough that the array takes over the new gradient's memory
    # (executor._adopt) instead of copying it
    data = mx.sym.var('x')
    net = mx.sym.FullyConnected(data, num_hidden=300, name='fc')
    return net.simple_bind(mx.cpu(), x=(4, 256))


def test_large_gradients_land_in_the_same_arrays_and_views_still_see_them():
    ex = _big_fc_executor()
    g_w = ex.grad_dict['fc_weight']
    x = np.random.RandomState(0).uniform(-1, 1, (4, 256)).astype(np.float32)
    for scale in (1.0, 2.0):
        head = np.full((4, 300), scale, np.float32)
        held = g_w.asnumpy()  # a copy: keeps the previous values
        _step(ex, x, head)
        assert ex.grad_dict['fc_weight'] is g_w and g_w.shape == (300, 256)
        np.testing.assert_allclose(g_w.asnumpy(), head.T @ x, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(held, np.zeros((300, 256)) if scale == 1.0 else (head / 2).T @ x,
                                   rtol=1e-5, atol=1e-5)
    row = g_w[1]  # a view of the gradient array: the memory is kept and written in place
    _step(ex, x, np.ones((4, 300), np.float32))
    np.testing.assert_allclose(row.asnumpy(), x.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g_w.asnumpy(), np.ones((300, 4), np.float32) @ x, rtol=1e-5, atol=1e-5)


def test_large_gradient_never_aliases_the_callers_head_gradient():
    x = mx.sym.var('x')
    ex = mx.sym.identity(x).simple_bind(mx.cpu(), x=(70000,))
    ex.forward(is_train=True, x=mx.nd.ones(70000))
    head = mx.nd.arange(70000)
    ex.backward(head)
    head[:] = 7
    np.testing.assert_array_equal(ex.grad_dict['x'].asnumpy(), np.arange(70000, dtype=np.float32))


def test_a_head_gradient_of_the_wrong_shape_is_refused():
    ex = _fc_executor()
    ex.forward(is_train=True, x=mx.nd.ones((4, 3)))
    with pytest.raises(MXNetError, match=r'out_grads\[0\] has shape \(4, 1\), the output \(4, 2\)'):
        ex.backward(mx.nd.ones((4, 1)))  # MXNet 1.9.1: MXNetError, operands shape mismatch



def test_a_head_gradient_an_output_does_not_use_is_not_checked():
    # MXNet 1.9.1 (test_operator.test_order): argmin has no gradient, its head gradient's shape is never looked at
    a = mx.sym.var('a')
    ex = mx.sym.argmin(a, axis=1, keepdims=True).simple_bind(mx.cpu(), a=(2, 3))
    ex.forward(is_train=True, a=mx.nd.array([[3, 1, 2], [0, 5, 4]]))
    ex.backward(mx.nd.ones((2, 3)))
    np.testing.assert_array_equal(ex.grad_dict['a'].asnumpy(), np.zeros((2, 3)))


def test_a_head_gradient_of_a_zero_gradient_operator_is_not_checked():
    # MXNet 1.9.1 (test_operator.test_multi_proposal_op): MultiProposal's backward writes zeros without reading its
    # head gradient, so a head of another shape (one image's rows for a batch of two) is accepted; zeros come out
    rs = np.random.RandomState(2)
    names = ('cls_prob', 'bbox_pred', 'im_info')
    sym = mx.sym.contrib.MultiProposal(*(mx.sym.var(n) for n in names), feature_stride=4, scales=(2.0,),
                                       ratios=(1.0,), rpn_pre_nms_top_n=8, rpn_post_nms_top_n=4, rpn_min_size=1)
    args = {'cls_prob': mx.nd.array(rs.rand(2, 2, 4, 4)), 'bbox_pred': mx.nd.array(rs.rand(2, 4, 4, 4)),
            'im_info': mx.nd.array([[16, 16, 1], [16, 16, 1]])}
    grads = {n: mx.nd.ones(args[n].shape) for n in names}
    ex = sym.bind(mx.cpu(), args, args_grad=grads)
    assert ex.forward(is_train=True)[0].shape == (8, 5)
    ex.backward(mx.nd.ones((4, 5)))
    for n in names:
        assert (grads[n].asnumpy() == 0).all()


def test_grad_dict_has_none_for_null_requests():
    # MXNet 1.9.1: grad_dict lists every argument, None where grad_req is 'null'
    ex = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2, name='fc').simple_bind(
        mx.cpu(), x=(3, 4), grad_req={'x': 'null', 'fc_weight': 'write', 'fc_bias': 'write'})
    assert sorted(ex.grad_dict) == ['fc_bias', 'fc_weight', 'x'] and ex.grad_dict['x'] is None
    assert [g is None for g in ex.grad_arrays] == [True, False, False]


def test_reshape_keeps_the_monitor_callback():
    # MXNet 1.9.1: the executor reshape returns keeps calling the monitor (Module.forward with a new data shape
    # reshapes its executors: upstream test_operator.test_monitor_with_variable_input_shape); names as MXNet printed
    sym = mx.sym.Convolution(mx.sym.var('data'), kernel=(1, 1), num_filter=1, name='conv')
    ex = sym.simple_bind(mx.cpu(), data=(1, 3, 10, 10))
    seen = []
    ex.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    ex.reshape(allow_up_sizing=True, data=(1, 3, 10, 14)).forward(data=mx.nd.ones((1, 3, 10, 14)))
    assert seen == ['data', 'conv_data', 'conv_weight', 'conv_weight', 'conv_bias', 'conv_bias', 'conv_output']


def test_integer_arguments_take_gradients_cast_to_their_dtype():
    # oracle-checked (MXNet 1.9.1): an int32 argument's gradient is computed through the operators' backward and
    # cast (truncated) to int32; 'add' accumulates; the float argument's gradient is the usual one
    x, w = mx.sym.var('x', dtype='int32'), mx.sym.var('w')
    y = mx.sym.Cast(x, dtype='float32') * w
    for req, want_x, want_w in (('write', [0, 3, -7], [1.0, 4.0, -9.0]), ('add', [0, 6, -14], [2.0, 8.0, -18.0])):
        exe = y.simple_bind(mx.cpu(), x=(3,), w=(3,), type_dict={'x': 'int32', 'w': 'float32'}, grad_req=req)
        exe.arg_dict['x'][:] = np.array([1, 2, -3])
        exe.arg_dict['w'][:] = np.array([0.5, 1.5, -2.5])
        for _ in range(1 if req == 'write' else 2):
            exe.forward(is_train=True)
            exe.backward(mx.nd.array([1.0, 2.0, 3.0]))
        assert exe.outputs[0].asnumpy().tolist() == [0.5, 3.0, 7.5]
        assert type(exe.outputs[0]._t) is torch.Tensor  # (no stand-in leaks out)
        assert exe.grad_dict['x'].dtype == np.int32
        assert exe.grad_dict['x'].asnumpy().tolist() == want_x
        assert exe.grad_dict['w'].asnumpy().tolist() == want_w


@pytest.mark.parametrize('dst', [np.float32, np.int32, np.float16])
def test_cast_of_an_integer_argument_passes_the_gradient_back(dst):
    # MXNet's test_cast, int32 rows: the gradient is the head cast back to int32
    x = mx.sym.Variable('x', dtype=np.int32)
    exe = mx.sym.Cast(x, dtype=dst).simple_bind(ctx=mx.cpu(), x=(4, 5))
    X = np.random.RandomState(2).uniform(-10, 10, size=(4, 5))
    exe.arg_arrays[0][:] = X
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(X, dtype=dst))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), X.astype(np.int32).astype(dst))
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), X.astype(dst).astype(np.int32))


def test_output_written_between_forward_and_backward():
    # An executor's output array is the memory its backward reads: a relu's gradient then comes from the values
    # written there (MXNet 1.9.1 gives ones where the input was -1); torch's version check does not object.
    ex = mx.sym.Activation(mx.sym.Variable('x'), act_type='relu').simple_bind(mx.cpu(), x=(3,))
    ex.arg_dict['x'][:] = mx.nd.array([-1, 0.5, 2])
    ex.forward(is_train=True)
    y = ex.outputs[0]
    y += 1
    ex.backward(mx.nd.ones((3,)))
    np.testing.assert_array_equal(y.asnumpy(), [1, 1.5, 3])
    np.testing.assert_array_equal(ex.grad_dict['x'].asnumpy(), [1, 1, 1])


def test_row_sparse_grad_keeps_the_csr_rows_with_zero_values():
    # a factorization machine's factor gradient (example/sparse/factorization_machine): dot(csr, v) and
    # _square_sum(v) both read v, so the summed gradient is computed dense; MXNet 1.9.1 still stores every
    # column the csr batch names (rows 1 and 4 come from one-feature samples, whose gradient is exactly zero),
    # and the lazy optimizers then update those rows too
    x = mx.sym.var('data', stype='csr')
    v = mx.sym.var('v', stype='row_sparse')
    w2 = mx.sym.dot(x, v)
    bd = mx.sym.dot(x.square(), mx.sym._internal._square_sum(data=v, axis=1, keepdims=True))
    fm = mx.sym.MakeLoss(mx.sym.sum(0.5 * mx.sym.square(w2), axis=1, keepdims=True) - 0.5 * bd)
    xv = mx.nd.sparse.csr_matrix(np.array([[0, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0], [0, 0, 0, 0, 2, 0]], np.float32))
    vals = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
    for stored in ([0, 1, 2, 4], [0, 1, 2, 3, 4, 5]):
        ex = fm.simple_bind(mx.cpu(), data=(3, 6), v=(6, 2), stype_dict={'data': 'csr', 'v': 'row_sparse'})
        ex.arg_dict['data'][:] = xv
        ex.arg_dict['v'][:] = mx.nd.sparse.row_sparse_array((vals[stored], stored), shape=(6, 2))
        ex.forward(is_train=True)
        ex.backward()
        g = ex.grad_dict['v']
        assert g.stype == 'row_sparse'
        assert g.indices.asnumpy().tolist() == [0, 1, 2, 4]
        np.testing.assert_allclose(g.data.asnumpy(), [[0.4, 0.5], [0, 0], [0, 0.1], [0, 0]], rtol=1e-6)
