"""Executor gradient arrays: written in place as MXNet writes them, whatever shortcut the executor takes."""
import numpy as np
import pytest

import mxcompat as mx


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


def test_backward_before_any_forward_raises():
    """Known difference: MXNet runs it on unset internal buffers (giving zeros); we refuse."""
    ex = _fc_executor()
    with pytest.raises(mx.base.MXNetError, match='forward'):
        ex.backward(mx.nd.ones((4, 2)))
