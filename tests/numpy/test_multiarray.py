"""mx.np.ndarray: the array class, its dtype rules, printing, indexing and the np/nd boundary."""
import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np


def test_np_is_mx_numpy_and_ndarray_subclasses_ndarray():
    assert mx.np is mx.numpy and mx.npx is mx.numpy_extension
    assert issubclass(np.ndarray, mx.nd.NDArray)
    assert not isinstance(mx.nd.ones((2,)), np.ndarray)


def test_defaults_and_zero_d():
    a = np.array([[1, 2], [3, 4]])
    assert a.dtype == onp.float32 and isinstance(a, np.ndarray)
    assert a.sum().shape == () and a[0, 1].shape == () and a[0].shape == (2,)
    assert repr(a) == 'array([[1., 2.],\n       [3., 4.]])'
    assert repr(np.array([1, 2], dtype='int32')) == 'array([1, 2], dtype=int32)'
    assert repr(np.zeros((0, 3))) == 'array([], shape=(0, 3))'


def test_mixing_np_and_nd_raises_type_error():
    a = np.ones((2,))
    with pytest.raises(TypeError):
        a + mx.nd.ones((2,))
    with pytest.raises(TypeError):
        mx.nd.ones((2,)) + a


def test_as_nd_and_as_np_share_memory():
    a = np.zeros((2,))
    b = a.as_nd_ndarray()
    b[:] = 3
    assert a.tolist() == [3.0, 3.0] and type(b) is mx.nd.NDArray
    c = b.as_np_ndarray()
    c[0] = 5
    assert b.asnumpy().tolist() == [5.0, 3.0] and isinstance(c, np.ndarray)


def test_autograd_through_np():
    x = np.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.tolist() == [2., 4., 6.]


def test_format_copy_astype_rules():
    a = np.array([onp.pi])
    assert '{}'.format(a) == str(a.asnumpy()) and '{:0.3g}'.format(np.array(onp.pi)) == '3.14'
    with pytest.raises(TypeError):
        '{:30}'.format(a)
    with pytest.raises(NotImplementedError):
        a.copy(order='F')
    for kwargs in ({'order': 'F'}, {'casting': 'same_kind'}, {'subok': False}):
        with pytest.raises(ValueError):
            a.astype('float64', **kwargs)
    assert a.astype('float32', copy=False) is a


def test_backward_from_a_comparison_gives_zero_gradients():
    # MXNet records comparisons with a zero gradient; torch cannot carry a bool result
    x, y = np.array([1., 2.]), np.array([2., 1.])
    x.attach_grad()
    y.attach_grad()
    x.grad[:] = 7
    for f in (lambda: x > y, lambda: x <= 1.5, lambda: 2 == x):
        with mx.autograd.record():
            r = f()
        r.backward()
        assert x.grad.tolist() == [0., 0.]


def test_indexing_negative_steps_with_advanced_indices_and_leading_one_values():
    h = onp.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype('float32')
    a = np.array(h)
    for key in [(1, [2], onp.array([[3]]), slice(None, None, -1)), (slice(None, None, -1), 2, slice(1, 5), 1),
                (slice(1, 2, 1), slice(3, 0, -2), [0, 1]), (Ellipsis, slice(None, None, -2)), slice(None, None, -1),
                (np.array(1, dtype='int32'), range(2)), ([1, 0], (2, 1)), (onp.int64(1), slice(onp.int32(1), None))]:
        onp.testing.assert_array_equal(a[key].asnumpy(), h[key])
        b, g = np.array(h), h.copy()
        v = onp.arange(g[key].size, dtype='float32').reshape(g[key].shape) + 1000
        b[key] = np.array(v)
        g[key] = v
        onp.testing.assert_array_equal(b.asnumpy(), g)
    b = np.array(h)
    b[1, 2, 3] = np.ones((1, 1, 5)) * 7  # MXNet drops the leading size-1 axes of a value
    assert (b.asnumpy()[1, 2, 3] == 7).all()
    with pytest.raises(IndexError):
        a[1.5]
