"""mx.np's shape, joining and indexing functions against official NumPy where MXNet 1.9.1 equals NumPy (insert,
delete, pad, the boolean-mask assignment of mx.nd.np._internal, memory overlap), and MXNet's own extensions."""
import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np

A = onp.arange(12.).reshape(3, 4)


@pytest.mark.parametrize('obj, values, axis', [
    (1, 9., None), (1, [7., 8., 9., 10.], 0), (2, [[7.], [8.], [9.]], 1), (-1, 5., 1), (slice(0, 2), [7., 8.], None),
    (slice(3, 0, -2), 5., 1), ([0, 2], [7., 8.], None), ([1, 1, 1], [3., 4., 5.], 1), ([1], [[7., 8., 9., 10.]], 0),
    (4, 1., 1), (0, [[1.], [2.], [3.]], 1),
])
def test_insert_equals_numpy(obj, values, axis):
    expected = onp.insert(A, obj, values, axis=axis)
    mx_obj = np.array(obj, dtype='int64') if isinstance(obj, list) else obj
    mx_values = np.array(values, dtype='float64') if isinstance(values, list) else values
    r = np.insert(np.array(A, dtype='float64'), mx_obj, mx_values, axis=axis)
    assert r.shape == expected.shape
    onp.testing.assert_array_equal(r.asnumpy(), expected)


@pytest.mark.parametrize('obj, axis', [(1, 0), (-1, 1), (slice(None, None, 2), 1), (slice(3, 0, -2), None),
                                       ([0, 2], 1)])
def test_delete_equals_numpy(obj, axis):
    expected = onp.delete(A, obj, axis=axis)
    mx_obj = np.array(obj, dtype='int64') if isinstance(obj, list) else obj
    onp.testing.assert_array_equal(np.delete(np.array(A), mx_obj, axis=axis).asnumpy(), expected)


def test_delete_ignores_index_entries_outside_the_axis_as_mxnet():
    r = np.delete(np.array(A), np.array([-1, 1, 9], dtype='int64'), axis=1)
    onp.testing.assert_array_equal(r.asnumpy(), onp.delete(A, [1], axis=1))


@pytest.mark.parametrize('mode, kw', [('constant', {}), ('constant', {'constant_values': 2}), ('edge', {}),
                                      ('reflect', {}), ('symmetric', {}), ('maximum', {}), ('minimum', {}),
                                      ('mean', {}), ('wrap', {})])
def test_pad_equals_numpy(mode, kw):
    width = ((1, 2), (3, 0))
    expected = onp.pad(A, width, mode=mode, **kw)
    onp.testing.assert_allclose(np.pad(np.array(A, dtype='float64'), width, mode=mode, **kw).asnumpy(), expected)


def test_pad_refuses_what_mxnet_refuses():
    with pytest.raises(TypeError):
        np.pad(np.array(A), [[1, 1], [1, 1]])  # MXNet wants a tuple
    with pytest.raises(ValueError):
        np.pad(np.array(A), ((1, 1), (1, 1)), mode='edge', constant_values=1)


@pytest.mark.parametrize('dshape, mshape, start_axis', [((3, 4), (3, 4), 0), ((2, 3, 4, 5), (3, 4), 1),
                                                        ((2, 3, 4), (2,), 0), ((), (), 0)])
def test_boolean_mask_assign(dshape, mshape, start_axis):
    rs = onp.random.RandomState(0)
    data = rs.uniform(size=dshape).astype('float32')
    mask = rs.uniform(size=mshape) > 0.4
    key = (slice(None),) * start_axis + (mask,)
    expected = data.copy()
    expected[key] = 42.
    a = np.array(data)
    r = np._internal.boolean_mask_assign_scalar(a, np.array(mask), 42., start_axis=start_axis, out=a)
    assert r is a
    onp.testing.assert_array_equal(a.asnumpy(), expected)
    values = rs.uniform(size=expected[key].shape).astype('float32')
    expected[key] = values
    r = np._internal.boolean_mask_assign_tensor(np.array(data), np.array(mask), np.array(values),
                                                start_axis=start_axis)
    onp.testing.assert_array_equal(r.asnumpy(), expected)


def test_memory_overlap():
    a = np.ones((4, 4))
    assert np.shares_memory(a, a[1]) and np.may_share_memory(a, a[1])
    assert not np.shares_memory(a[0], a[1]) and not np.may_share_memory(a[0], a[1])
    assert not np.shares_memory(a, a.copy()) and not np.shares_memory(a, np.ones((5, 0)))


def test_broadcast_to_minus_two_keeps_the_input_size():
    # MXNet's extension: -2 copies the input's size (aligned from the right)
    assert np.broadcast_to(np.ones(5), (3, 4, -2)).shape == (3, 4, 5)
    assert np.broadcast_to(np.ones((3, 4)), (1, 0, -2, 4)).shape == (1, 0, 3, 4)


def test_zero_d_arrays_take_axis_zero_as_mxnet():
    x = np.array(3.)
    assert np.squeeze(x, 0).shape == () and float(np.sum(x, axis=0)) == 3.
    assert int(np.argmax(x, axis=0)) == 0 and int(np.argmin(x, axis=-1)) == 0


def test_nan_to_num_gradient():
    x = np.array([1., onp.nan, onp.inf])
    x.attach_grad()
    with mx.autograd.record():
        y = np.nan_to_num(x)
    y.backward()
    onp.testing.assert_array_equal(x.grad.asnumpy(), [1., 0., 0.])


@pytest.mark.parametrize('shape', [(2, -1), (5, 5), (2, 3)])
def test_reshape_size_mismatch_raises_mxnet_error(shape):
    # MXNet 1.9.1's np reshape fails its shape check with MXNetError (a RuntimeError), not NumPy's ValueError:
    # 'Check failed: ... : Cannot reshape array of size 21 into shape [2,-1]'
    x = mx.np.ones((7, 3))
    for call in (lambda: x.reshape(*shape), lambda: mx.np.reshape(x, shape)):
        with pytest.raises(mx.base.MXNetError, match=r'Cannot reshape array of size 21 into shape \[%s\]'
                           % ','.join(str(s) for s in shape)) as info:
            call()
        assert not isinstance(info.value, ValueError)
