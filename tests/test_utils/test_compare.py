"""mx.test_utils comparisons: assert_almost_equal's text and verdicts against MXNet 1.9.1 (golden:
tests/fixtures/test_utils)."""
import contextlib
import io
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import test_utils as tu

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'test_utils',
                               'test_utils.json')))


A = np.array([[1., 2., 3.], [4., 5., 6.]], dtype=np.float32)
B = A.copy()
B[0, 1], B[1, 2] = 2.5, 7.0
C = np.arange(12, dtype=np.float64).reshape(3, 4)
D = C.copy()
D[0, 0], D[1, 1], D[2, 3] = 0.5, 5.001, 20.0
E = np.array([1., np.nan, 3.], dtype=np.float32)
F = np.array([1., np.nan, 4.], dtype=np.float32)


def failure(fn):
    """[assertion text, printed text] of a failing comparison, None if it passes."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            fn()
        except AssertionError as e:
            return [str(e), buf.getvalue()]
    return None


CASES = {
    'f32_2d': lambda: tu.assert_almost_equal(A, B, names=('x', 'y')),
    'f32_2d_nd': lambda: tu.assert_almost_equal(mx.nd.array(A), mx.nd.array(B), names=('x', 'y')),
    'scalar': lambda: tu.assert_almost_equal(np.array(1.0), np.array(2.0)),
    'mismatch_1_1': lambda: tu.assert_almost_equal(A, B, mismatches=(1, 1)),
    'f64_rtol': lambda: tu.assert_almost_equal(C, D, rtol=1e-3, atol=1e-4),
    'f64_unlimited': lambda: tu.assert_almost_equal(C, D, rtol=1e-3, atol=1e-4, mismatches=(2, 0)),
    'nan_equal': lambda: tu.assert_almost_equal(E, F, equal_nan=True),
    'int': lambda: tu.assert_almost_equal(np.array([1, 2, 3]), np.array([1, 2, 4])),
    'shapes': lambda: tu.assert_almost_equal(np.zeros((2, 3)), np.zeros((3,)), use_broadcast=False),
    'with_err': lambda: tu.assert_almost_equal_with_err(C, D, rtol=1e-3, atol=1e-4, etol=0.1),
    'allclose': lambda: tu.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0000001])),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_assert_almost_equal_text_matches_mxnet(case):
    assert failure(CASES[case]) == GOLD['msgs'][case]


def test_passing_comparisons_match_mxnet():
    assert failure(lambda: tu.assert_almost_equal(E, E, equal_nan=True)) is None
    assert failure(lambda: tu.assert_almost_equal_with_err(C, D, rtol=1e-3, atol=1e-4, etol=0.3)) is None
    assert failure(lambda: tu.assert_almost_equal_ignore_nan(np.array([1., np.nan]), np.array([np.nan, 2.]))) is None
    assert set(GOLD['passes'].values()) == {None}


@pytest.mark.parametrize('where', [0, 4095, 8191, 9999])
@pytest.mark.parametrize('value', [1e-3, np.nan, np.inf])
@pytest.mark.parametrize('equal_nan', [False, True])
def test_chunked_allclose_agrees_with_numpy(where, value, equal_nan):
    # assert_almost_equal compares big arrays a chunk at a time; the verdict is np.allclose's on the whole
    rs = np.random.RandomState(where)
    a = rs.rand(10, 1000).astype(np.float32)
    b = a + np.float32(1e-7)
    for bad in (a.copy(), b.copy()):
        bad.reshape(-1)[where] += value
        for x, y in ((bad, b), (a, bad), (bad[:, ::-1], b[:, ::-1]), (bad, b[:1])):
            want = np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=equal_nan)
            assert tu.compare._allclose(x, y, 1e-5, 1e-6, equal_nan, chunk=4096) == want
    nan = np.full((3, 5000), np.nan)
    assert tu.compare._allclose(nan, nan.copy(), 1e-5, 1e-6, equal_nan, chunk=4096) == equal_nan


def test_assert_almost_equal_names_location_and_values():
    a = mx.nd.array([[0., 1.], [2., 3.]])
    b = a.asnumpy().copy()
    b[1, 0] = 2.5
    with pytest.raises(AssertionError) as e:
        tu.assert_almost_equal(a, b, names=('mine', 'ref'))
    assert 'Location of maximum error: (1, 0), mine=2.00000000, ref=2.50000000' in str(e.value)
    assert 'rtol=1.000000e-04, atol=1.000000e-03' in str(e.value)


def test_assert_almost_equal_broadcasts():
    tu.assert_almost_equal(np.array([1., 2.]), np.array([[1., 2.], [1., 2.]]))
    with pytest.raises(AssertionError, match=r'Location of maximum error: \(1, 1\), a=2.00000000, b=3.00000000'):
        tu.assert_almost_equal(np.array([1., 2.]), np.array([[1., 2.], [1., 3.]]))
    with pytest.raises(AssertionError, match='a.shape = \\(2,\\) and b.shape = \\(2, 2\\) are not equal'):
        tu.assert_almost_equal(np.array([1., 2.]), np.array([[1., 2.], [1., 2.]]), use_broadcast=False)


def test_assert_almost_equal_bool_and_tolerances():
    tu.assert_almost_equal(np.array([True, False]), mx.nd.array([1, 0]).asnumpy().astype(bool))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([True, False]), np.array([True, True]))
    tu.assert_almost_equal(np.float32(1.0), 1.00001)  # scalars: float32's rtol
    tu.assert_almost_equal(A, A + 5e-4)  # float32 default atol 1e-3
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(A.astype(np.float64), A.astype(np.float64) + 5e-4)
    tu.assert_almost_equal(A, A + 0.5, rtol={np.dtype(np.float32): 0.5})  # a dict of dtype -> tol
    tu.assert_almost_equal(A, A + 0.5, atol=0.6)
    np.set_printoptions(threshold=1000)
    failure(lambda: tu.assert_almost_equal(A, B))
    assert np.get_printoptions()['threshold'] == 1000  # the message's print options are not left behind


def test_almost_equal_and_same():
    assert [tu.almost_equal(np.array([1.0]), np.array([1.00001])),
            tu.almost_equal(np.array([1.0]), np.array([1.0001]))] == GOLD['misc']['almost_equal']
    assert tu.almost_equal(mx.nd.array([1, 2]), np.array([1, 2]))
    assert tu.almost_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True)
    assert not tu.almost_equal(np.array([np.nan]), np.array([np.nan]))
    assert tu.same(mx.nd.array([1, 2]), np.array([1., 2.]))
    assert not tu.same(np.array([1, 2]), np.array([1, 2, 3]))
    with pytest.raises(AssertionError, match='are not equal'):
        tu.checkShapes(np.zeros(2), np.zeros(3))
    assert tu.locationError(C, D, (0, 0), ('p', 'q'), maxError=True) == \
        'Location of maximum error: (0, 0), p=0.00000000, q=0.50000000'


def test_assert_almost_equal_with_err_and_ignore_nan():
    tu.assert_almost_equal_with_err(C, D, rtol=1e-3, atol=1e-4, etol=0.3)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(C, D, rtol=1e-3, atol=1e-4)  # etol 0: a plain comparison
    tu.assert_almost_equal_ignore_nan(mx.nd.array([1., float('nan')]), np.array([np.nan, 5.]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(np.array([1., np.nan]), np.array([2., 5.]))


def test_compare_ndarray_tuple():
    x = mx.nd.array([1., 2.])
    tu.compare_ndarray_tuple((x, (x, None)), (x.asnumpy(), (x, x)))
    tu.compare_ndarray_tuple(None, x)
    with pytest.raises(AssertionError):
        tu.compare_ndarray_tuple((x, (x,)), (x, (x + 1,)))


def test_assert_exception_and_retry():
    tu.assert_exception(int, ValueError, 'x')
    with pytest.raises(AssertionError):
        tu.assert_exception(int, ValueError, '1')
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2

    @tu.retry(2)
    def always():
        calls.append(1)
        assert False, 'never'

    with pytest.raises(AssertionError, match='never'):
        always()


def test_same_array():
    x = mx.nd.array([1., 2., 3.])
    assert tu.same_array(x, x)
    assert tu.same_array(x, x[:])
    assert not tu.same_array(x, x.copy())
    assert x.asnumpy().tolist() == [1., 2., 3.]
