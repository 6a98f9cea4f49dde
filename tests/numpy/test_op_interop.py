"""NEP 18 / NEP 13 dispatch of official NumPy calls on mx.np arrays, and the functions MXNet hands to official NumPy
(mxcompat/numpy/fallback.py): results as MXNet 1.9.1 gives them, checked against official NumPy."""
import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np
from mxcompat.base import MXNetNotImplementedError
from mxcompat.numpy import fallback
from mxcompat.numpy_dispatch_protocol import _NUMPY_ARRAY_FUNCTION_LIST, _NUMPY_ARRAY_UFUNC_LIST


def test_array_function_dispatches_to_mx_np():
    a = np.array([[1., 2.], [3., 4.]])
    for fn, args in ((onp.sum, ()), (onp.mean, ()), (onp.transpose, ()), (onp.concatenate, None),
                     (onp.reshape, ((4,),)), (onp.diff, ())):
        r = fn([a, a]) if args is None else fn(a, *args)
        assert isinstance(r, np.ndarray), fn
        expected = fn([a.asnumpy()] * 2) if args is None else fn(a.asnumpy(), *args)
        onp.testing.assert_allclose(r.asnumpy(), expected)
    # an mx.np result keeps MXNet's dtype rules: a float32 sum stays float32
    assert onp.sum(a).dtype == onp.float32


def test_array_function_records_autograd():
    a = np.array([1., 2., 3.])
    a.attach_grad()
    with mx.autograd.record():
        y = onp.sum(a * a)
    y.backward()
    onp.testing.assert_allclose(a.grad.asnumpy(), [2., 4., 6.])


def test_array_function_falls_back_to_numpy_on_the_host():
    a = np.array([[1., 2.], [3., 4.]])
    r = onp.cov(a)  # not in MXNet's dispatch list: NumPy on a host copy, the result an mx.np array
    assert isinstance(r, np.ndarray) and r.dtype == onp.float64
    onp.testing.assert_allclose(r.asnumpy(), onp.cov(a.asnumpy()))
    assert onp.allclose(a, a) is True


def test_fallback_under_autograd_raises_value_error():
    a = np.array([1., 2.])
    with mx.autograd.record():
        with pytest.raises(ValueError, match='cov'):
            onp.cov(a)
        with pytest.raises(ValueError, match='cov'):
            np.cov(a)


def test_array_ufunc_dispatch():
    a = np.array([1., 4.])
    for uf in (onp.sqrt, onp.exp, onp.negative):
        r = uf(a)
        assert isinstance(r, np.ndarray) and r.dtype == onp.float32
        onp.testing.assert_allclose(r.asnumpy(), uf(a.asnumpy()), rtol=1e-6)
    r = onp.add(a, a)
    assert isinstance(r, np.ndarray)
    out = np.zeros(2)
    assert onp.multiply(a, 2, out=out) is out
    onp.testing.assert_allclose(out.asnumpy(), [2., 8.])
    # a ufunc MXNet does not list runs in NumPy; reduce() is refused, as MXNet does
    r = onp.logaddexp(a, a)
    assert isinstance(r, np.ndarray)
    with pytest.raises(TypeError):
        onp.add.reduce(a)
    # a NumPy scalar on the left goes through the same protocol; a host array is refused, as MXNet does
    assert isinstance(onp.float32(2) * a, np.ndarray)
    with pytest.raises(TypeError):
        onp.ones(2) + a
    # a comparison hands NumPy's scalar over as a 0-d array: taken as the scalar (a documented difference: MXNet
    # raises TypeError for the left-hand form only); Python's max() of the two then works as in MXNet
    m = np.array(2.0)
    for r, want in ((onp.float32(3) > m, True), (onp.float64(1) >= m, False), (onp.array(2.0) == m, True)):
        assert isinstance(r, np.ndarray) and r.dtype == onp.bool_ and r.item() is want
    assert max(m, onp.float32(3)) == 3 and max(onp.float32(1), m) is m


def test_dispatch_lists_name_mx_np_functions():
    for name in _NUMPY_ARRAY_UFUNC_LIST:
        assert callable(getattr(np, name)), name
    assert len(_NUMPY_ARRAY_FUNCTION_LIST) == len(set(_NUMPY_ARRAY_FUNCTION_LIST))


@pytest.mark.parametrize('name, args', [
    ('allclose', ([1., 2.], [1., 2.000001])), ('isclose', ([1., 2.], [1., 3.])),
    ('count_nonzero', ([[0., 1.], [2., 0.]],)), ('searchsorted', ([1., 2., 3.], [2.5])),
    ('lexsort', ([[1., 2., 1.], [3., 1., 2.]],)), ('intersect1d', ([1., 2., 3.], [2., 3., 4.])),
    ('divmod', ([5., 7.], [2., 3.])), ('modf', ([1.5, -2.25],)), ('nanmax', ([1., onp.nan, 3.],)),
    ('take_along_axis', ([[10., 30., 20.]], onp.array([[0, 2, 1]]), 1)), ('ptp', ([[1., 5.], [2., 9.]],)),
    ('polyfit', ([0., 1., 2.], [1., 3., 5.], 1)), ('vander', ([1., 2., 3.],)), ('signbit', ([-1., 2.],)),
])
def test_fallback_functions(name, args):
    mx_args = [np.array(a) if isinstance(a, list) else a for a in args]
    host_args = [a.asnumpy() if isinstance(a, np.ndarray) else a for a in mx_args]
    r = getattr(np, name)(*mx_args)
    expected = getattr(onp, name)(*host_args)
    if isinstance(expected, tuple):
        assert type(r) is tuple
        for x, e in zip(r, expected):
            assert isinstance(x, np.ndarray) and x.dtype == e.dtype
            onp.testing.assert_allclose(x.asnumpy(), e)
    elif isinstance(expected, onp.ndarray):
        assert isinstance(r, np.ndarray) and r.dtype == expected.dtype and r.shape == expected.shape
        onp.testing.assert_allclose(r.asnumpy(), expected, rtol=1e-6)
    else:
        assert r == expected


def test_fallback_without_mx_arrays_is_numpy_itself():
    r = np.cov([[1., 2.], [3., 5.]])
    assert isinstance(r, onp.ndarray)


def test_fallback_legacy_array_raises_type_error():
    with pytest.raises(TypeError):
        np.cov(mx.nd.ones((2, 2)))


def test_fallback_names_numpy_removed():
    assert np.alltrue(np.array([1., 1.])) == True  # noqa: E712 (a NumPy bool)
    onp.testing.assert_array_equal(np.in1d(np.array([[1., 2.], [3., 4.]]), [2., 3.]).asnumpy(),
                                   [False, True, True, False])
    onp.testing.assert_array_equal(np.msort(np.array([[3., 1.], [1., 2.]])).asnumpy(), [[1., 1.], [3., 2.]])
    assert float(np.trapz(np.array([1., 2., 3.]))) == 4.0
    for name in fallback.FINANCIAL:
        with pytest.raises(MXNetNotImplementedError, match='mx.np.%s' % name):
            getattr(np, name)(0.1, [1., 2.])


def test_fallback_result_on_the_input_context():
    a = np.array([3., 1., 2.], ctx=mx.cpu(0))
    r = np.partition(a, 1)
    assert r.ctx == a.ctx and isinstance(r, np.ndarray)


def test_array_function_gives_numpys_result_type():
    # NumPy 2's eig/eigh give named tuples; dispatched to mx.np, the result is of that type too (MXNet's own
    # interoperability test compares the types)
    a = np.array([[2., 0.], [0., 3.]])
    for fn in (onp.linalg.eig, onp.linalg.eigh):
        r, want = fn(a), fn(a.asnumpy())
        assert type(r) is type(want)
        assert isinstance(r[0], np.ndarray) and isinstance(r[1], np.ndarray)
        onp.testing.assert_allclose(onp.sort(r[0].asnumpy()), onp.sort(want[0]))
