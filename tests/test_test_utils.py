"""mx.test_utils: numbers against numpy and against goldens from MXNet 1.9.1 (tests/fixtures/test_utils)."""
import bz2
import contextlib
import gzip
import io
import json
import os
import struct
import sys
import types
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import test_utils as tu
from mxcompat.base import MXNetError, MXNetNotImplementedError

GOLD = json.load(open(os.path.join(os.path.dirname(__file__), 'fixtures', 'test_utils', 'test_utils.json')))

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


# ---- assert_almost_equal and friends: MXNet's exact text -------------------------------------------------------------

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
            assert tu._allclose(x, y, 1e-5, 1e-6, equal_nan, chunk=4096) == want
    nan = np.full((3, 5000), np.nan)
    assert tu._allclose(nan, nan.copy(), 1e-5, 1e-6, equal_nan, chunk=4096) == equal_nan


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


def test_get_tols_match_mxnet():
    dts = ['float16', 'float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'bool']
    for x in dts:
        for y in dts:
            assert list(tu.get_tols(np.zeros(2, x), np.zeros(2, y), None, None)) == GOLD['tols']['%s,%s' % (x, y)]
    assert list(tu.get_tols(mx.nd.zeros((2,)), 3, None, None)) == GOLD['tols']['nd_f32,3']
    assert list(tu.get_tols(1, 2.0, None, None)) == GOLD['tols']['1,2.0']
    assert list(tu.get_tols(np.zeros(2, 'float16'), np.zeros(2), 0.5,
                            {np.dtype(np.float16): 0.25})) == GOLD['tols']['given']
    assert tu.get_tols(np.zeros(2, 'int16'), np.zeros(2, 'int16'), None, None) == (0, 0)  # MXNet: KeyError


def test_default_tolerances_match_mxnet():
    m = GOLD['misc']
    assert {str(k): v for k, v in tu.default_rtols().items()} == m['default_rtols']
    assert {str(k): v for k, v in tu.default_atols().items()} == m['default_atols']
    assert {str(k): v for k, v in tu.default_numeric_eps().items()} == m['default_numeric_eps']
    assert [tu.get_rtol(), tu.get_atol(), tu.get_etol(), tu.get_rtol(None, np.dtype(np.float16))] == \
        m['get_rtol_atol_etol']
    assert [tu.get_rtol(0.3), tu.get_atol(0.2), tu.get_etol(0.1)] == [0.3, 0.2, 0.1]
    assert tu.effective_dtype(mx.nd.zeros((1,), dtype='float16')) == np.float16
    assert tu.effective_dtype(np.zeros(1)) == np.float64
    assert tu.get_tolerance(np.zeros(1, np.float32), 0.7, tu.default_rtols()) == 0.7
    assert tu.default_dtype() is np.float32


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


# ---- random data: same numpy streams as MXNet ------------------------------------------------------------------------

def test_random_helpers_match_mxnet():
    g = GOLD['rng']
    np.random.seed(7)
    assert tu.random_sample(list(range(20)), 5) == g['random_sample']
    assert list(tu.rand_shape_2d()) == g['rand_shape_2d']
    assert list(tu.rand_shape_3d(3, 4, 5, allow_zero_size=True)) == g['rand_shape_3d']
    shape = tu.rand_shape_nd(4, 6)
    assert list(shape) == g['rand_shape_nd'] and all(type(s) is int for s in shape)
    assert [int(s) for s in tu.rand_coord_2d(0, 10, 5, 9)] == g['rand_coord_2d']
    arrs = tu.random_arrays((2, 3), ())
    assert [a.tolist() for a in arrs] == g['random_arrays'] and arrs[1].shape == () and arrs[0].dtype == np.float32
    unif = tu.random_uniform_arrays((3,), (2, 2), low=-2, high=3, dtype=np.float64)
    assert [a.tolist() for a in unif] == g['random_uniform_arrays']
    nd = tu.rand_ndarray((2, 2))
    assert nd.dtype == np.float32 and nd.asnumpy().tolist() == g['rand_ndarray']
    for key, fn, arg in [('real_eig_2d', tu.new_matrix_with_real_eigvals_2d, 3),
                         ('real_eig_nd', tu.new_matrix_with_real_eigvals_nd, (2, 2, 2)),
                         ('orthonormal_2d', tu.new_orthonormal_matrix_2d, 3),
                         ('sym_eig_2d', tu.new_sym_matrix_with_real_eigvals_2d, 3),
                         ('sym_eig_nd', tu.new_sym_matrix_with_real_eigvals_nd, (2, 1, 3, 3))]:
        np.testing.assert_allclose(fn(arg), np.array(g[key]), rtol=1e-10, atol=1e-12, err_msg=key)


def test_generated_matrices_properties():
    np.random.seed(1)
    m = tu.new_matrix_with_real_eigvals_nd((2, 4, 4))
    assert m.shape == (2, 4, 4)
    for x in m:
        ev = np.linalg.eigvals(x)
        assert np.allclose(ev.imag, 0) and np.all(np.abs(ev.real) < 10)
    q = tu.new_orthonormal_matrix_2d(5)
    np.testing.assert_allclose(q.T @ q, np.eye(5), atol=1e-10)
    s = tu.new_sym_matrix_with_real_eigvals_nd((3, 4, 4))
    np.testing.assert_allclose(s, np.swapaxes(s, -1, -2), atol=1e-10)


def test_rand_ndarray_dtype_ctx_and_sparse():
    x = tu.rand_ndarray((3, 4), dtype='float64', ctx=mx.cpu(0))
    assert x.shape == (3, 4) and x.dtype == np.float64 and x.context == mx.cpu(0)
    for stype, make in [('csr', lambda: tu.rand_ndarray((3, 4), 'csr', density=0.5)),
                        ('row_sparse', lambda: tu.rand_sparse_ndarray((3, 4), 'row_sparse', density=0.5)[0]),
                        ('csr', lambda: tu.create_sparse_array((3, 4), 'csr', density=0.5)),
                        ('row_sparse', lambda: tu.create_sparse_array_zd((3, 4), 'row_sparse', 0.5))]:
        a = make()
        assert a.stype == stype and a.shape == (3, 4)
    with pytest.raises(AssertionError, match='Unknown storage type'):
        tu.create_sparse_array((3, 4), 'bogus')


def test_shuffle_csr_column_indices_keeps_rows():
    csr = types.SimpleNamespace(indptr=np.array([0, 3, 3, 7]), indices=np.arange(7))
    np.random.seed(0)
    tu.shuffle_csr_column_indices(csr)
    assert sorted(csr.indices[:3]) == [0, 1, 2] and sorted(csr.indices[3:]) == [3, 4, 5, 6]
    assert csr.indices.tolist() != list(range(7))


def test_misc_numpy_helpers_match_mxnet():
    m = GOLD['misc']
    x = np.arange(24.).reshape(2, 3, 4)
    assert tu.collapse_sum_like(x, (3, 1)).tolist() == m['collapse_sum_like']
    np.testing.assert_array_equal(tu.collapse_sum_like(x, (3, 1)), x.sum(axis=(0, 2)).reshape(3, 1))
    assert tu.collapse_sum_like(np.zeros((0, 2)), (2,)).shape == (2,)
    assert tu.np_reduce(x, (0, 2), True, np.sum).tolist() == m['np_reduce']
    np.testing.assert_array_equal(tu.np_reduce(x, 1, False, np.max), x.max(axis=1))
    np.testing.assert_array_equal(tu.np_reduce(x, None, False, np.sum), x.sum())
    out = tu.assign_each(np.array([[1, 2], [3, 4]]), lambda v: v * 1.5)
    assert out.tolist() == m['assign_each'] and out.dtype == np.float64
    assert tu.assign_each2(np.array([1., 2.]), np.array([3., 4.]), lambda p, q: p - q).tolist() == m['assign_each2']
    assert tu.assign_each(np.array([1, 2]), None).tolist() == [1, 2]
    assert tu.assign_each2(np.array([1, 2]), np.array([3, 4]), None).tolist() == [1, 2]


def test_ndarray_constructors_match_mxnet():
    m = GOLD['misc']
    t = tu.create_2d_tensor(3, 2)
    assert [t.asnumpy().tolist(), str(t.dtype)] == m['create_2d_tensor']
    v = tu.create_vector(4)
    assert [v.asnumpy().tolist(), str(v.dtype)] == m['create_vector']
    b = tu.get_identity_mat_batch(3)
    assert [list(b.shape), str(b.dtype)] == m['identity_batch']
    np.testing.assert_array_equal(b.asnumpy()[1], np.eye(3))
    i = tu.get_identity_mat(4)
    assert i.dtype == np.float32 and np.array_equal(i.asnumpy(), np.eye(4))


def test_same_array():
    x = mx.nd.array([1., 2., 3.])
    assert tu.same_array(x, x)
    assert tu.same_array(x, x[:])
    assert not tu.same_array(x, x.copy())
    assert x.asnumpy().tolist() == [1., 2., 3.]


# ---- statistics ------------------------------------------------------------------------------------------------------

def test_statistics_match_mxnet():
    s = GOLD['stats']
    from statistics import NormalDist
    buckets, probs = tu.gen_buckets_probs_with_ppf(
        lambda p: {0.0: -np.inf, 1.0: np.inf}.get(p) or NormalDist().inv_cdf(p), 5)
    np.testing.assert_allclose(np.array(buckets)[1:-1], np.array(s['buckets'])[1:-1], rtol=1e-9)
    assert probs == s['probs']

    def gen(n):
        return np.random.normal(0, 1.0, size=n)

    np.random.seed(3)
    p, obs, exp = tu.chi_square_check(gen, [tuple(b) for b in s['buckets']], s['probs'], nsamples=2000)
    assert obs.tolist() == s['chi2_cont'][1] and exp.tolist() == s['chi2_cont'][2]
    assert p == pytest.approx(s['chi2_cont'][0], rel=1e-9)
    np.random.seed(3)
    p, obs, exp = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2], [0.3, 0.3, 0.4], 1000)
    assert [obs.tolist(), exp.tolist()] == s['chi2_disc'][1:]
    assert p == pytest.approx(s['chi2_disc'][0], rel=1e-6)
    np.random.seed(3)
    got = [tu.mean_check(gen, 0, 1.0, nsamples=1000), tu.mean_check(gen, 0.5, 1.0, nsamples=1000),
           tu.var_check(gen, 1.0, nsamples=1000), tu.var_check(gen, 2.0, nsamples=1000)]
    assert [bool(g) for g in got] == [s['mean_check'], s['mean_check_bad'], s['var_check'], s['var_check_bad']]


def test_chi2_p_value_against_closed_form():
    # with 2 degrees of freedom the survival function is exp(-x/2)
    for x in (0.1, 1.0, 5.0, 20.0):
        assert tu._chi2_sf(x, 2) == pytest.approx(np.exp(-x / 2), rel=1e-12)


def test_verify_generator():
    buckets = [(-np.inf, 0.0), (0.0, np.inf)]
    np.random.seed(0)
    ps = tu.verify_generator(lambda n: np.random.normal(size=n), buckets, [0.5, 0.5], nsamples=2000, nrepeat=3)
    assert len(ps) == 3
    with pytest.raises(AssertionError, match='Generator test fails'):
        tu.verify_generator(lambda n: np.random.normal(1.0, size=n), buckets, [0.5, 0.5], nsamples=2000, nrepeat=3)


# ---- contexts, environment, platform ---------------------------------------------------------------------------------

def test_default_context_follows_current_context():
    assert tu.default_context() == mx.current_context()
    with mx.cpu(3):
        assert tu.default_context() == mx.cpu(3)
    old = mx.current_context()
    try:
        tu.set_default_context(mx.cpu(1))
        assert tu.default_context() == mx.cpu(1) and mx.current_context() == mx.cpu(1)
    finally:
        tu.set_default_context(old)


def test_environment():
    name = 'MXCOMPAT_TEST_ENV_VAR'
    os.environ.pop(name, None)
    with tu.environment(name, 'one'):
        assert os.environ[name] == 'one'
        with tu.environment({name: None, name + '2': 'two'}):
            assert name not in os.environ and os.environ[name + '2'] == 'two'
        assert os.environ[name] == 'one' and name + '2' not in os.environ
    assert name not in os.environ
    with pytest.raises(KeyError):
        with tu.environment(name, 'x'):
            raise KeyError('boom')
    assert name not in os.environ
    with pytest.raises(AssertionError, match=GOLD['errors']['environment_bad'][1]):
        tu.environment('A', 'b', 'c').__enter__()


def test_discard_stderr(capfd):
    with tu.discard_stderr():
        os.write(sys.stderr.fileno(), b'hidden at the descriptor\n')
        print('hidden', file=sys.stderr, flush=True)
    print('visible', file=sys.stderr, flush=True)
    err = capfd.readouterr().err
    assert 'visible' in err and 'hidden' not in err


def test_platform_helpers():
    assert list(tu.list_gpus()) == list(range(mx.num_gpus()))
    assert isinstance(tu.list_gpus(), range)
    assert tu.has_tvm_ops() is False and tu.is_op_runnable() is True
    with tu.environment('CD_JOB', '1'):
        assert tu.is_cd_run()
    with tu.environment('CD_JOB', None):
        assert not tu.is_cd_run()
    assert tu.is_aarch64_run() == (os.uname().machine == 'aarch64')


def test_get_im2rec_path(tmp_path):
    with tu.environment('MXNET_HOME', str(tmp_path)):
        with pytest.raises(MXNetNotImplementedError, match='im2rec'):
            tu.get_im2rec_path()
        (tmp_path / 'tools').mkdir()
        (tmp_path / 'tools' / 'im2rec.py').write_text('')
        assert tu.get_im2rec_path() == str(tmp_path / 'tools' / 'im2rec.py')


def test_random_uniform_arrays_rejects_unknown_keywords():
    with pytest.raises(TypeError, match=r"Got unexpected argument/s : dict_keys\(\['foo'\]\)"):
        tu.random_uniform_arrays((2,), foo=1)


# ---- downloads: local files only -------------------------------------------------------------------------------------

def test_download_uses_existing_files_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetError, match='download.*http://example.invalid/a.txt.*network'):
        tu.download('http://example.invalid/a.txt')
    (tmp_path / 'a.txt').write_text('x')
    assert tu.download('http://example.invalid/a.txt') == 'a.txt'
    with pytest.raises(MXNetError):
        tu.download('http://example.invalid/a.txt', overwrite=True)
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'b.bin').write_text('y')
    assert tu.download('http://x/b.bin', dirname='sub') == os.path.join('sub', 'b.bin')
    with pytest.raises(MXNetError):
        tu.download('http://x/c.bin', dirname='new_dir')
    assert (tmp_path / 'new_dir').is_dir()  # created, as MXNet does before downloading


def test_download_model(tmp_path):
    assert tu.download_model('no-such-model', dst_dir=str(tmp_path)) == (None, 0)
    with pytest.raises(MXNetError, match='resnet-18-symbol.json'):
        tu.download_model('imagenet1k-resnet-18', dst_dir=str(tmp_path))
    for suffix in ('-symbol.json', '-0000.params'):
        (tmp_path / ('imagenet1k-resnet-18' + suffix)).write_text('{}')
    assert tu.download_model('imagenet1k-resnet-18', dst_dir=str(tmp_path)) == \
        (os.path.join(str(tmp_path), 'imagenet1k-resnet-18'), 0)


def _write_idx(path, labels, images):
    with gzip.open(path[0], 'wb') as f:
        f.write(struct.pack('>II', 2049, len(labels)) + np.array(labels, np.int8).tobytes())
    with gzip.open(path[1], 'wb') as f:
        f.write(struct.pack('>IIII', 2051, len(labels), 28, 28) + images.astype(np.uint8).tobytes())


def test_get_mnist_from_local_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetError, match='train-labels-idx1-ubyte.gz'):
        tu.get_mnist()
    imgs = np.arange(2 * 28 * 28).reshape(2, 28, 28) % 256
    _write_idx(('train-labels-idx1-ubyte.gz', 'train-images-idx3-ubyte.gz'), [3, 7], imgs)
    _write_idx(('t10k-labels-idx1-ubyte.gz', 't10k-images-idx3-ubyte.gz'), [1], imgs[:1])
    d = tu.get_mnist()
    assert d['train_data'].shape == (2, 1, 28, 28) and d['train_data'].dtype == np.float32
    np.testing.assert_allclose(d['train_data'][1, 0], imgs[1] / 255.0, rtol=1e-6)
    assert d['train_label'].tolist() == [3, 7] and d['test_label'].tolist() == [1]
    assert d['test_data'].shape == (1, 1, 28, 28)


def test_zip_and_bz2_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetError, match='mnist.zip'):
        tu.get_mnist_ubyte()
    with zipfile.ZipFile('data/mnist.zip', 'w') as zf:
        for n in ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
                  't10k-labels-idx1-ubyte'):
            zf.writestr(n, 'x')
    tu.get_mnist_ubyte()
    assert (tmp_path / 'data' / 't10k-labels-idx1-ubyte').exists()
    with pytest.raises(MXNetError, match='cifar10.zip'):
        tu.get_cifar10()
    with pytest.raises(MXNetError, match='mnist.pkl.gz'):
        tu.get_mnist_pkl()
    (tmp_path / 'z').mkdir()
    with zipfile.ZipFile('z/arch.zip', 'w') as zf:
        zf.writestr('inner.txt', 'hello')
    tu.get_zip_data('z', 'http://x/arch.zip', 'arch.zip')  # the archive exists: nothing to do, as MXNet
    assert not (tmp_path / 'z' / 'inner.txt').exists()
    with pytest.raises(MXNetError):
        tu.get_zip_data('z2', 'http://x/other.zip', 'other.zip')
    with bz2.open('z/data.bz2', 'wb') as f:
        f.write(b'line1\nline2\n')
    tu.get_bz2_data('z', 'data.txt', 'http://x/data.bz2', 'data.bz2')
    assert (tmp_path / 'z' / 'data.txt').read_bytes() == b'line1\nline2\n'
    assert not (tmp_path / 'z' / 'data.bz2').exists()


# ---- star import -----------------------------------------------------------------------------------------------------

def test_star_import_gives_mxnet_module_names():
    ns = {}
    exec('from mxcompat.test_utils import *', ns)
    for name in ('assert_almost_equal', 'np', 'mx', 'rnd', 'npt', 'Context', 'current_context', 'array', 'use_np',
                 'getenv', 'setenv', 'Features', 'OrderedDict', 'contextmanager', 'random_sample', 'ss', 'os', 'sys',
                 'time', 'json', 'logging', 'struct', 'numbers', 'platform', 'traceback', 'bz2'):
        assert name in ns, name
    assert ns['array'] is mx.nd.array and ns['mx'] is mx and ns['npt'] is np.testing
    assert not any(k.startswith('_') for k in ns if k != '__builtins__')


# ---- Symbol-based checkers against a minimal stand-in for mx.sym's Executor API --------------------------------------

class FakeSymbol:
    """Just enough of MXNet's Symbol/Executor API for the checkers: a torch function of named inputs."""

    def __init__(self, fn, args, name, op):
        self.fn, self.args, self.name, self.op = fn, list(args), name, op

    def list_arguments(self):
        return list(self.args)

    def list_outputs(self):
        return [self.name + '_output']

    def list_auxiliary_states(self):
        return []

    def infer_shape(self, **shapes):
        out = self.fn({k: torch.zeros(shapes[k], dtype=torch.float64) for k in self.args})
        return [shapes[k] for k in self.args], [tuple(out.shape)], []

    def __mul__(self, other):
        args = self.args + [a for a in other.args if a not in self.args]
        return FakeSymbol(lambda t: self.fn(t) * other.fn(t), args, '_mul0', '_mul')

    def tojson(self):
        return json.dumps({'nodes': [{'op': 'null', 'name': a} for a in self.args] + [{'op': self.op}]})

    def bind(self, ctx, args, args_grad=None, grad_req='write', aux_states=None):
        if isinstance(args, (list, tuple)):
            args = dict(zip(self.args, args))
        return FakeExecutor(self, ctx, args, args_grad or {}, grad_req)

    def simple_bind(self, ctx, grad_req='write', type_dict=None, **shapes):
        type_dict = type_dict or {}
        args = {k: mx.nd.zeros(shapes[k], ctx=ctx, dtype=type_dict.get(k, np.float32)) for k in self.args}
        grads = {k: mx.nd.zeros(shapes[k], ctx=ctx, dtype=type_dict.get(k, np.float32)) for k in self.args}
        return FakeExecutor(self, ctx, args, grads, grad_req)


class FakeExecutor:
    def __init__(self, sym, ctx, args, grads, grad_req):
        self._sym, self._ctx = sym, ctx
        self.arg_dict = OrderedDict((k, args[k]) for k in sym.args)
        self.grad_dict = OrderedDict((k, grads.get(k)) for k in sym.args)
        self.aux_dict = {}
        self._req = {k: grad_req for k in sym.args} if isinstance(grad_req, str) else dict(grad_req)
        shape = sym.infer_shape(**{k: v.shape for k, v in self.arg_dict.items()})[1][0]
        self.outputs = [mx.nd.zeros(shape, ctx=ctx, dtype=next(iter(self.arg_dict.values())).dtype)]

    arg_arrays = property(lambda self: list(self.arg_dict.values()))
    grad_arrays = property(lambda self: list(self.grad_dict.values()))
    output_dict = property(lambda self: dict(zip(self._sym.list_outputs(), self.outputs)))

    def forward(self, is_train=False):
        self._inputs = {k: torch.tensor(v.asnumpy(), requires_grad=is_train) for k, v in self.arg_dict.items()}
        self._out = self._sym.fn(self._inputs)
        self.outputs[0][:] = self._out.detach().numpy()  # outputs are the executor's own buffers, as in MXNet

    def backward(self, out_grads=None):
        if out_grads is None:
            head = torch.ones_like(self._out)
        else:
            if isinstance(out_grads, dict):
                out_grads = [out_grads[k] for k in self._sym.list_outputs()]
            g = out_grads[0] if isinstance(out_grads, (list, tuple)) else out_grads
            head = torch.tensor(g.asnumpy(), dtype=self._out.dtype)
        names = [k for k in self._sym.args if self._req.get(k, 'null') != 'null']
        grads = torch.autograd.grad(self._out, [self._inputs[k] for k in names], head, allow_unused=True)
        for k, g in zip(names, grads):
            g = np.zeros(self.arg_dict[k].shape) if g is None else g.numpy()
            if self._req[k] == 'add':
                g = self.grad_dict[k].asnumpy() + g
            self.grad_dict[k][:] = g


def _variable(name, **kwargs):
    return FakeSymbol(lambda t: t[name], [name], name, 'null')


def _make_loss(s):
    return FakeSymbol(s.fn, s.args, 'makeloss0', 'MakeLoss')


@pytest.fixture
def fake_sym(monkeypatch):
    module = types.SimpleNamespace(Variable=_variable, make_loss=_make_loss, Symbol=FakeSymbol)
    monkeypatch.setattr(tu.checkers, '_symbol', lambda: module)
    return module


class _WrongGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x  # should be 2 * x


def _f(t):
    return torch.sin(t['x']) * t['y'] + t['x'] ** 2


def _sym_f():
    return FakeSymbol(_f, ['x', 'y'], 'f', 'f')


def test_check_numeric_gradient(fake_sym):
    np.random.seed(0)
    loc = [np.random.uniform(-1, 1, (2, 3)), np.random.uniform(-1, 1, (2, 3))]
    tu.check_numeric_gradient(_sym_f(), loc, rtol=1e-2, atol=1e-3)
    tu.check_numeric_gradient(_sym_f(), {'x': loc[0], 'y': loc[1]}, grad_nodes={'x': 'write', 'y': 'add'},
                              rtol=1e-2, atol=1e-3)
    tu.check_numeric_gradient(_sym_f(), loc, grad_nodes=['x'], rtol=1e-2, atol=1e-3, dtype=np.float64,
                              numeric_eps=1e-5)
    wrong = FakeSymbol(lambda t: _WrongGrad.apply(t['x']), ['x'], 'w', 'w')
    with pytest.raises(AssertionError, match='Location of maximum error: .*NUMERICAL_x=.*BACKWARD_x='):
        tu.check_numeric_gradient(wrong, [loc[0]], rtol=1e-2, atol=1e-3)
    with pytest.raises(ValueError, match='do not match'):
        tu.check_numeric_gradient(_sym_f(), {'x': loc[0]})


def test_numeric_grad_is_central_difference(fake_sym):
    exe = _sym_f().bind(mx.cpu(), args={'x': mx.nd.zeros((3,), dtype='float64'),
                                        'y': mx.nd.zeros((3,), dtype='float64')})
    x, y = np.array([0.1, 0.5, -0.3]), np.array([2.0, -1.0, 0.5])
    g = tu.numeric_grad(exe, {'x': x.copy(), 'y': y.copy()}, eps=1e-6, dtype=np.float64)
    np.testing.assert_allclose(g['x'], np.cos(x) * y + 2 * x, rtol=1e-6)
    np.testing.assert_allclose(g['y'], np.sin(x), rtol=1e-6)
    assert exe.arg_dict['x'].asnumpy().tolist() == x.tolist()  # restored


def test_check_symbolic_forward_backward(fake_sym):
    x, y = np.array([[0.1, 0.5]]), np.array([[2.0, -1.0]])
    outs = tu.check_symbolic_forward(_sym_f(), [x, y], [np.sin(x) * y + x ** 2])
    assert outs[0].shape == (1, 2)
    tu.check_symbolic_forward(_sym_f(), {'x': x, 'y': y}, {'f_output': np.sin(x) * y + x ** 2}, dtype='asnumpy')
    with pytest.raises(AssertionError, match='EXPECTED_f_output'):
        tu.check_symbolic_forward(_sym_f(), [x, y], [np.sin(x) * y])
    og = np.array([[1.0, 2.0]])
    gx, gy = og * (np.cos(x) * y + 2 * x), og * np.sin(x)
    tu.check_symbolic_backward(_sym_f(), [x, y], [og], [gx, gy])
    tu.check_symbolic_backward(_sym_f(), [x, y], [og], {'x': gx, 'y': gy}, grad_req='add')
    tu.check_symbolic_backward(_sym_f(), [x, y], {'f_output': og}, {'x': gx, 'y': gy},
                               grad_req={'x': 'write', 'y': 'null'})
    with pytest.raises(AssertionError, match='BACKWARD_y'):
        tu.check_symbolic_backward(_sym_f(), [x, y], [og], [gx, gy + 1])
    tu.check_symbolic_backward(_sym_f(), [x, y], [og], [gx, gy], grad_stypes={'x': 'row_sparse'})


def test_simple_forward_check_speed_structure(fake_sym):
    out = tu.simple_forward(_sym_f(), x=np.array([0.5]), y=np.array([2.0]))
    np.testing.assert_allclose(out, np.sin(0.5) * 2 + 0.25, rtol=1e-6)
    assert tu.check_speed(_sym_f(), N=2, x=(2, 2), y=(2, 2)) > 0
    assert tu.check_speed(_sym_f(), location={'x': np.ones((2, 2)), 'y': np.ones((2, 2))}, N=2, typ='forward') > 0
    with pytest.raises(ValueError, match='typ'):
        tu.check_speed(_sym_f(), N=1, typ='bad', x=(1,), y=(1,))
    assert tu.same_symbol_structure(_sym_f(), _sym_f())
    assert not tu.same_symbol_structure(_sym_f(), _sym_f() * _variable('z'))


def test_check_consistency(fake_sym):
    ctx_list = [{'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float64, 'y': np.float64}},
                {'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float32, 'y': np.float32}}]
    np.random.seed(0)
    gt = tu.check_consistency(_sym_f(), ctx_list)
    assert set(gt) == {'f_output', 'x', 'y'}
    bad = FakeSymbol(lambda t: _f(t) + (0.1 if t['x'].dtype == torch.float32 else 0.0), ['x', 'y'], 'f', 'f')
    with pytest.raises(AssertionError):
        tu.check_consistency([_sym_f(), bad], ctx_list)
    tu.check_consistency([_sym_f(), bad], ctx_list, raise_on_err=False)


# ---- optimizer and gluon comparisons with stand-ins ------------------------------------------------------------------

class _SGD:
    def __init__(self, lr, scale=1.0):
        self.lr, self.scale = lr, scale

    def create_state_multi_precision(self, index, weight):
        return mx.nd.zeros(weight.shape, dtype=weight.dtype)

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, list):
            for w, g, s in zip(weight, grad, state):
                self.update_multi_precision(0, w, g, s)
            return
        state[:] = grad * self.scale
        weight[:] = weight - self.lr * state


def test_compare_optimizer():
    tu.compare_optimizer(_SGD(0.1), _SGD(0.1), (3, 4), np.float32)
    tu.compare_optimizer(_SGD(0.1), _SGD(0.1), [(3,), (2, 2)], np.float32, ntensors=2)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(_SGD(0.1), _SGD(0.1, scale=2.0), (3, 4), np.float32)
    tu.compare_optimizer(_SGD(0.1), _SGD(0.1), (3, 4), np.float32, w_stype='row_sparse')


class _Param:
    def __init__(self, value):
        self._v = value

    def data(self):
        return self._v


class _ScaleNet:
    """A one-parameter 'HybridBlock': y = x * w; hybridize() must not change anything."""

    def __init__(self, prefix=''):
        self.w = mx.nd.zeros((3,))
        self.prefix = prefix

    def initialize(self, init=None):
        if init is None:
            self.w[:] = np.random.uniform(size=3)
        else:
            init._init_weight(self.prefix + 'w', self.w)

    def hybridize(self):
        pass

    def collect_params(self):
        return {self.prefix + 'w': _Param(self.w)}

    def __call__(self, x):
        return x * self.w


def test_check_gluon_hybridize_consistency():
    data = [mx.nd.array([1., 2., 3.])]
    nets = []

    def builder(prefix):
        nets.append(_ScaleNet(prefix))
        return nets[-1]

    np.random.seed(0)
    tu.check_gluon_hybridize_consistency(builder, data, numpy_func=lambda x: x * nets[0].w.asnumpy())
    assert len(nets) == 4
    assert all(np.array_equal(n.w.asnumpy(), nets[0].w.asnumpy()) for n in nets)  # all got the first's weights
    with pytest.raises(AssertionError):
        tu.check_gluon_hybridize_consistency(builder, data, numpy_func=lambda x: x)


def _real_sym():
    sym = getattr(mx, 'sym', None)
    if sym is None or not hasattr(sym, 'Variable') or not hasattr(sym, 'Symbol'):
        pytest.skip('mx.sym is not available')
    return sym


def test_checkers_with_real_mx_sym():
    sym = _real_sym()
    x, y = sym.Variable('x'), sym.Variable('y')
    s = sym.sin(x) * y + x * x
    np.random.seed(0)
    loc = [np.random.uniform(-1, 1, (2, 3)), np.random.uniform(-1, 1, (2, 3))]
    tu.check_numeric_gradient(s, loc, rtol=1e-2, atol=1e-3)
    tu.check_symbolic_forward(s, loc, [np.sin(loc[0]) * loc[1] + loc[0] ** 2])
    expected = [np.cos(loc[0]) * loc[1] + 2 * loc[0], np.sin(loc[0])]
    tu.check_symbolic_backward(s, loc, [np.ones((2, 3))], expected, grad_req='add')
    tu.check_symbolic_backward(s, loc, [np.ones((2, 3))], expected, grad_req={'x': 'write', 'y': 'null'})
    with pytest.raises(AssertionError, match='BACKWARD_x'):
        tu.check_symbolic_backward(s, loc, [np.ones((2, 3))], [expected[0] * 2, expected[1]])
    ctx_list = [{'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float64, 'y': np.float64}},
                {'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float32, 'y': np.float32}}]
    tu.check_consistency(s, ctx_list)
    assert tu.same_symbol_structure(s, s) and not tu.same_symbol_structure(s, sym.cos(x) * y + x * x)
    fc = sym.FullyConnected(sym.Variable('data'), num_hidden=4, name='fc')
    tu.check_numeric_gradient(fc, [np.random.rand(2, 3), np.random.rand(4, 3), np.random.rand(4)], rtol=1e-2,
                              atol=1e-2)


def test_symbolic_backward_gradient_arrays_take_the_asked_storage_type():
    """grad_stypes / grad_stype_dict give gradient arrays of that storage type, as MXNet's helpers do: a dot of a
    csr by a weight sends the weight a row_sparse gradient."""
    x, w = mx.sym.var('x', stype='csr'), mx.sym.var('w')
    sym = mx.sym.dot(x, w)
    xs = mx.nd.array([[0, 1, 0], [0, 0, 0]]).tostype('csr')
    ws = np.arange(6, dtype=np.float32).reshape((3, 2))
    head = np.ones((2, 2), dtype=np.float32)
    grad_w = np.array([[0, 0], [1, 1], [0, 0]], dtype=np.float32)
    grads = mx.test_utils.check_symbolic_backward(sym, {'x': xs, 'w': ws}, [head], {'w': grad_w},
                                                  grad_req={'x': 'null', 'w': 'write'},
                                                  grad_stypes={'w': 'row_sparse'})
    assert grads['w'].stype == 'row_sparse'
    assert grads['w'].asnumpy().tolist() == grad_w.tolist()


def test_symbol_functions_drop_out():
    """MXNet's generated symbol functions accept (and drop) ``out``, as the sparse operator tests pass it."""
    l, r = mx.sym.var('l'), mx.sym.var('r')
    s = mx.sym.sparse.elemwise_add(l, r, out=l)
    assert s.list_arguments() == ['l', 'r']
