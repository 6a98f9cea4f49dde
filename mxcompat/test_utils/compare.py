"""Comparisons: ``assert_almost_equal`` with MXNet's failure text, and the other equality checks."""
import numpy as np

import mxcompat as mx
from .tolerances import get_atol, get_etol, get_rtol, get_tols

__all__ = ['same', 'checkShapes', 'almost_equal', 'locationError', 'assert_almost_equal', 'assert_allclose',
           'assert_almost_equal_with_err', 'assert_almost_equal_ignore_nan', 'assert_exception', 'retry',
           'compare_ndarray_tuple', 'same_array']


def _host(x):
    """A numpy view of an NDArray (``asnumpy``), numpy array, scalar or nested list."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, 'asnumpy'):
        return x.asnumpy()
    return np.asarray(x)


def _find_max_violation(a, b, rtol, atol):
    """(index, value) of the largest |a-b| / (atol + rtol*|b|); equal values (also infinities) count 0."""
    absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
    violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    index = tuple(int(i) for i in np.unravel_index(np.argmax(violation), violation.shape))
    return index, np.max(violation)


def same(a, b):
    """Whether two arrays (numpy or NDArray) have the same shape and elements."""
    return np.array_equal(_host(a), _host(b))


def _err_msg(a, b, err_msg):
    import numpy.testing as npt  # reason: 70 ms to import, wanted only when an assertion fails
    options = dict(threshold=4, suppress=True)
    if np.lib.NumpyVersion(np.__version__) >= '2.0.0':
        options['legacy'] = '1.25'  # the array text of numpy 1.x, as with MXNet 1.9 (no 'shape=' in reprs)
    with np.printoptions(**options):
        return npt.build_err_msg([a, b], err_msg=err_msg)


def checkShapes(a, b):
    """Raise AssertionError unless ``a.shape == b.shape``."""
    if a.shape != b.shape:
        raise AssertionError(_err_msg(a, b, 'a.shape = {} and b.shape = {} are not equal'
                                            .format(str(a.shape), str(b.shape))))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """``np.allclose`` with MXNet's float64 default tolerances (rtol 1e-5, atol 1e-20)."""
    if not use_broadcast:
        checkShapes(a, b)
    return _allclose(_host(a), _host(b), get_rtol(rtol), get_atol(atol), equal_nan)


def locationError(a, b, index, names, maxError=False):
    """The 'Location of error: (i, j), a=..., b=...' line of a mismatch report."""
    maximum = 'maximum ' if maxError else ''
    return 'Location of %serror: %s, %s=%.8f, %s=%.8f' % (maximum, str(index), names[0], a[index], names[1], b[index])


def _mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches):
    """MXNet's failure text: the worst violation, the share of mismatching elements, the arrays. Like MXNet it
    also prints the ``mismatches[0]`` worst elements, and counts at most ``mismatches[1]`` (0: all)."""
    index, rel = _find_max_violation(a, b, rtol, atol)
    if index == ():
        return _err_msg(a, b, 'Error %f exceeds tolerance rtol=%e, atol=%e.\n' % (rel, rtol, atol))
    a, b = np.broadcast_arrays(a, b)
    print('\n*** Maximum errors for vector of size {}:  rtol={}, atol={}\n'.format(a.size, rtol, atol))
    worst_index, worst = index, rel
    a_tmp, b_tmp = a.copy(), b.copy()
    count = 1
    while count <= a.size:
        if count <= mismatches[0]:
            print('%3d: Error %f  %s' % (count, rel, locationError(a, b, index, names)))
        a_tmp[index] = b_tmp[index] = 0
        if np.allclose(a_tmp, b_tmp, rtol=rtol, atol=atol, equal_nan=equal_nan):
            break
        count += 1
        if count > mismatches[1] > 0:
            break
        index, rel = _find_max_violation(a_tmp, b_tmp, rtol, atol)
    degree = 'at least ' if count > mismatches[1] > 0 else ''
    return _err_msg(a, b, 'Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %s%f%%).\n%s'
                    % (worst, rtol, atol, degree, 100 * count / a.size,
                       locationError(a, b, worst_index, names, maxError=True)))


def _allclose(a, b, rtol, atol, equal_nan, chunk=1 << 20):
    """``np.allclose``, a million elements at a time when the shapes match: the temporaries then stay in cache
    (134M float32 elements: ~0.65 s instead of ~1.6 s)."""
    if np.shape(a) != np.shape(b) or np.size(a) <= chunk:
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    a, b = np.reshape(a, -1), np.reshape(b, -1)
    return all(np.allclose(a[i:i + chunk], b[i:i + chunk], rtol=rtol, atol=atol, equal_nan=equal_nan)
               for i in range(0, a.size, chunk))


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError (MXNet's text: worst error, its location and values) unless
    ``|a - b| <= atol + rtol * |b|`` elementwise. Tolerances default by dtype (see ``get_tols``)."""
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if _allclose(a, b, rtol, atol, equal_nan):
        return
    raise AssertionError(_mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """``assert_almost_equal`` with numpy's ``assert_allclose`` defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=('a', 'b'), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like ``assert_almost_equal`` but passes while the share of mismatching elements is at most ``etol``."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    close = np.isclose(a, b, rtol=rtol, atol=atol)
    if 1 - np.count_nonzero(close) / close.size > etol:
        raise AssertionError(_mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=('a', 'b')):
    """``assert_almost_equal`` after zeroing the positions where either array is NaN."""
    lhs, rhs = np.array(_host(a)), np.array(_host(b))
    either_nan = np.isnan(lhs) | np.isnan(rhs)
    lhs[either_nan], rhs[either_nan] = 0, 0
    assert_almost_equal(lhs, rhs, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    raised = False
    try:
        f(*args, **kwargs)
    except exception_type:
        raised = True
    if not raised:
        raise AssertionError('%s did not raise %s' % (getattr(f, '__name__', f), exception_type))


def retry(n):
    """Decorator: run a stochastic test up to ``n`` times, until it raises no AssertionError."""
    assert n > 0

    def decorate(f):
        def wrapper(*args, **kwargs):
            for attempts_left in range(n - 1, -1, -1):
                try:
                    f(*args, **kwargs)
                except AssertionError:
                    if attempts_left == 0:
                        raise  # the last attempt failed too
                    mx.nd.waitall()  # let pending work finish before trying again
                else:
                    break
        return wrapper
    return decorate


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """``assert_almost_equal`` over two (nested) tuples of arrays; None on either side is skipped."""
    if t1 is None or t2 is None:
        return
    if not isinstance(t1, tuple):
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)
        return
    for pair in zip(t1, t2):
        compare_ndarray_tuple(*pair, rtol=rtol, atol=atol)


def same_array(array1, array2):
    """Whether two NDArrays share memory (adds 1 to ``array1`` and looks at ``array2``, then restores)."""
    array1[:] += 1
    try:
        followed = same(array1.asnumpy(), array2.asnumpy())
    finally:
        array1[:] -= 1
    return followed and same(array1.asnumpy(), array2.asnumpy())
