"""mx.test_utils random data: the same numpy streams and values as MXNet 1.9.1 (golden: tests/fixtures/test_utils)."""
import json
import os
import types

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import test_utils as tu

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'test_utils',
                               'test_utils.json')))


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


def test_random_uniform_arrays_rejects_unknown_keywords():
    with pytest.raises(TypeError, match=r"Got unexpected argument/s : dict_keys\(\['foo'\]\)"):
        tu.random_uniform_arrays((2,), foo=1)


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
