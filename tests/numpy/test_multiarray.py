"""mx.np.ndarray: the array class, its dtype rules, printing, indexing and the np/nd boundary."""
import json
import os

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np
from tests._fixtures import FIXTURES, load_generator
from tests.numpy._golden import check_same


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


# ---- golden behaviour from MXNet 1.9.1 (tests/fixtures/np_array, with generator) ---------------------------------
CASES = load_generator('np_array', 'np_array_cases.py')
GOLD = json.load(open(os.path.join(FIXTURES, 'np_array', 'np_array.json')))
OURS = {}
# Known differences from MXNet 1.9.1, with what mxcompat gives instead.
KNOWN = {}


def _ours():
    if not OURS:
        OURS.update(CASES.record_all(mx))
    return OURS


@pytest.mark.parametrize('section, name', sorted((s, n) for s in ('cases', 'dtype') for n in GOLD[s]
                                                  if (s, n) not in KNOWN))
def test_golden(section, name):
    check_same(GOLD[section][name], _ours()[section][name])


@pytest.mark.parametrize('key', sorted(KNOWN))
def test_known_differences(key):
    assert _ours()[key[0]][key[1]] == KNOWN[key]


def test_every_mxnet_method_and_property_exists():
    # (mxcompat has a few more: to_torch, itemsize, nbytes, strides ...)
    assert [n for n in GOLD['methods'] if not hasattr(np.ndarray, n)] == []


def test_every_case_recorded():
    assert set(GOLD['cases']) == set(CASES.CASES) and set(GOLD['dtype']) == set(CASES.DTYPE)


def test_numpy_default_dtypes_follow_numpy():
    # mxcompat's set_np(dtype=True) (MXNet 2.0's switch; MXNet 1.9.1 has none): creation defaults as NumPy's
    scope = {'mx': mx, 'np': np, 'npx': mx.npx, 'onp': onp}
    mx.npx.set_np(dtype=True)
    try:
        for src in ('np.array([1.5, 2.])', 'np.array([1, 2])', 'np.array([True])', 'np.array(3)', 'np.zeros(2)',
                    'np.ones(2)', 'np.full(2, 3.5)', 'np.arange(5)', 'np.arange(0.5, 2, 0.5)', 'np.linspace(0, 1, 3)',
                    'np.eye(2)', 'np.identity(2)', 'np.array(onp.array([1], dtype="int32"))'):
            ours = eval(src, scope)  # noqa: S307
            want = eval(src.replace('np.', 'onp.').replace('oonp.', 'onp.'), scope)  # noqa: S307
            assert ours.dtype == want.dtype, src
            onp.testing.assert_array_equal(ours.asnumpy(), want)
    finally:
        mx.npx.reset_np()
    assert np.array([1, 2]).dtype == onp.float32
    mx.npx.set_np(dtype=True)
    try:
        assert np.empty(2).dtype == onp.float64
    finally:
        mx.npx.reset_np()


def test_mxnet_written_file_and_bytes(tmp_path):
    # npx_dict.nd was written by MXNet 1.9.1's npx.save (tests/fixtures/ndarray_files)
    src = os.path.join(FIXTURES, 'ndarray_files', 'npx_dict.nd')
    mx.npx.set_np()
    try:
        d = mx.npx.load(src)
        assert d['a'].tolist() == [[1., 2.], [3., 4.]] and d['b'].shape == () and d['b'].dtype == onp.int64
        assert type(d['a']) is np.ndarray
        mx.npx.save(str(tmp_path / 'x.nd'), d)
        assert (tmp_path / 'x.nd').read_bytes() == open(src, 'rb').read()
    finally:
        mx.npx.reset_np()


def test_printing_names_a_gpu_context():
    # (MXNet's form; the tensor stays on the CPU here, only the context the array reports is a GPU's)
    from mxcompat.numpy.multiarray import _np_wrap
    import torch
    a = _np_wrap(torch.tensor([1., 2.]), mx.gpu(1))
    assert repr(a) == 'array([1., 2.], ctx=gpu(1))' and str(a) == '[1. 2.] @gpu(1)'
    b = _np_wrap(torch.tensor([1, 2], dtype=torch.int32), mx.gpu(0))
    assert repr(b) == 'array([1, 2], dtype=int32, ctx=gpu(0))'
    assert str(_np_wrap(torch.tensor(2.5), mx.gpu(0))) == '2.5'


def test_host_arrays_with_a_negative_stride_on_a_length_1_axis():
    # NumPy calls these contiguous (x[:, ::-1] of a column: TensorLy's partial_svd hands such arrays to np.array);
    # torch.from_numpy refuses any negative stride. MXNet 1.9.1 reads them as the values they show.
    col = onp.arange(3.).reshape(3, 1)[:, ::-1]
    row = onp.arange(3.).reshape(1, 3)[::-1]
    for host in (col, row):
        assert host.flags.c_contiguous and min(host.strides) < 0
        for a in (np.array(host), np.array(host, dtype='float64'), mx.nd.array(host),
                  mx.nd.array(host, dtype='float64')):
            onp.testing.assert_array_equal(a.asnumpy(), host)
        z = np.zeros(host.shape, dtype='float64')
        z[:] = host
        onp.testing.assert_array_equal(z.asnumpy(), host)
        w = mx.nd.zeros(host.shape, dtype='float64')
        w[:] = host
        onp.testing.assert_array_equal(w.asnumpy(), host)
        shared = host.copy()[:, ::-1] if host is col else host.copy()[::-1]
        s = mx.nd.from_numpy(shared)  # (zero_copy: the same memory)
        onp.testing.assert_array_equal(s.asnumpy(), host)
        s[:] = 7
        onp.testing.assert_array_equal(shared, 7)
    idx = onp.array([[2], [0]])[:, ::-1]
    onp.testing.assert_array_equal(np.arange(4.)[idx].asnumpy(), [[2.], [0.]])
    onp.testing.assert_array_equal(mx.nd.arange(4)[idx].asnumpy(), [[2.], [0.]])


def test_array_from_host_copies_and_keeps_dtype():
    for host in (onp.arange(6, dtype='int32').reshape(2, 3), onp.arange(6.).reshape(2, 3).T, onp.array(2.5),
                 onp.array([True, False]), onp.zeros((0, 3), dtype='uint8')):
        ro = host.copy()
        ro.flags.writeable = False
        for src in (host, ro):
            a = np.array(src)
            assert a.dtype == src.dtype and a.shape == src.shape
            onp.testing.assert_array_equal(a.asnumpy(), src)
            if host.size and src.flags.writeable:
                before = a.asnumpy().copy()
                src[...] = 7
                onp.testing.assert_array_equal(a.asnumpy(), before)  # (a copy, not the host buffer)
    with pytest.raises(TypeError):
        np.array(onp.array(['a']))


def test_array_of_a_host_object_array_with_a_dtype():
    # D2L's kaggle-house-price: d2l.tensor(frame.values, dtype=float32), the frame mixing float and bool columns
    # (MXNet 1.9.1 lets NumPy convert: [[1.5, 1.], [2., 0.]] float32; no dtype: an error; strings: NumPy's error)
    obj = onp.array([[1.5, True], [2, False]], dtype=object)
    for dtype in (onp.float32, 'float64'):
        a = np.array(obj, dtype=dtype)
        assert a.dtype == onp.dtype(dtype)
        onp.testing.assert_array_equal(a.asnumpy(), [[1.5, 1.], [2., 0.]])
    with pytest.raises(TypeError, match='could not convert string to float'):
        np.array(onp.array(['a', 'b']), dtype='float32')
