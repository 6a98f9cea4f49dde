"""Random sparse arrays for ``mx.test_utils`` (``rand_sparse_ndarray``, ``create_sparse_array`` and
``create_sparse_array_zd`` delegate here)."""
import numpy as np

from ...context import current_context
from .creation import zeros, csr_matrix, row_sparse_array, _shape_of


def _rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                         rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """``mx.test_utils.rand_sparse_ndarray``: (array, parts) with numpy's global random state.

    row_sparse: each row is kept with probability ``density`` (or the rows ``rsp_indices``), values U[0, 1);
    parts = (values, indices). csr 'uniform': round(density * size) distinct positions, values U[0, 1);
    csr 'powerlaw': the first column of every row, then rows with 1, 3, 7, ... more leading columns (each row
    about twice the previous one) until density * size values are placed; parts = (indptr, indices, data).
    """
    rnd = np.random
    ctx = ctx if ctx is not None else current_context()
    density = rnd.rand() if density is None else density
    dtype = np.float32 if dtype is None else dtype
    distribution = distribution or 'uniform'
    shape = _shape_of(shape)
    if stype == 'row_sparse':
        assert distribution == 'uniform', 'Distribution %s not supported for row_sparse' % distribution
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
            assert len(indices) <= shape[0]
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            return zeros('row_sparse', shape, ctx=ctx, dtype=dtype), (np.array([], dtype=dtype), np.array([]))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = np.vectorize(modifier_func, otypes=[np.float64])(val) if val.size else val.astype(np.float64)
        arr = row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype != 'csr':
        raise AssertionError('unknown storage type ' + str(stype))
    assert len(shape) == 2, 'csr arrays are 2-D'
    m, n = shape
    if distribution == 'uniform':
        if not 0 <= density <= 1:
            raise ValueError('density must be in [0, 1], got %s' % density)
        k = int(np.round(density * m * n))
        flat = np.sort(rnd.choice(m * n, k, replace=False)) if k else np.zeros(0, np.int64)
        data = rnd.rand(k).astype(dtype)
        if data_init is not None:
            data.fill(data_init)
        rows, cols = flat // n, flat % n
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))])
        if shuffle_csr_indices:
            for r in range(m):
                seg = slice(indptr[r], indptr[r + 1])
                cols[seg] = rnd.permutation(cols[seg])
        arr = csr_matrix((data, cols, indptr), shape=shape, dtype=dtype, ctx=ctx)
    elif distribution == 'powerlaw':
        arr = csr_matrix(_powerlaw_dense(m, n, density, dtype), dtype=dtype, ctx=ctx)
    else:
        raise AssertionError('Distribution not supported: %s' % distribution)
    return arr, (arr.indptr, arr.indices, arr.data)


def _powerlaw_dense(m, n, density, dtype):
    total = int(m * n * density)
    if total < 2 * m:
        raise ValueError('powerlaw needs density * size >= 2 * rows, got %d values for %d rows' % (total, m))
    out = np.zeros((m, n), dtype=dtype)
    out[:, 0] = 1 + np.random.uniform(0.001, 2, size=m)
    left = total - m
    width = 2
    for r in range(m):
        limit = min(n, width)
        if limit == n and left > limit:
            out[r] = 1 + np.random.uniform(0.001, 2)
            left -= limit - 1
            continue
        take = min(limit - 1, left)
        out[r, 1:1 + take] = 1 + np.random.uniform(0.001, 2, size=take)
        left -= take
        if left <= 0:
            return out
        width *= 2
    if left > 0:
        raise ValueError('powerlaw: density %s is too high for shape (%d, %d)' % (density, m, n))
    return out


def _create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                         density=.5, shuffle_csr_indices=False):
    """``mx.test_utils.create_sparse_array``: a random sparse array (row_sparse ``rsp_indices`` get sorted)."""
    if stype not in ('row_sparse', 'csr'):
        raise AssertionError('Unknown storage type: ' + stype)
    if stype == 'row_sparse' and rsp_indices is not None:
        rsp_indices = np.sort(np.asarray(rsp_indices))
    return _rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                                rsp_indices=rsp_indices, modifier_func=modifier_func,
                                shuffle_csr_indices=shuffle_csr_indices)[0]


def _create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                            modifier_func=None, shuffle_csr_indices=False):
    """``mx.test_utils.create_sparse_array_zd``: as ``_create_sparse_array``, row_sparse with density 0 (only
    ``rsp_indices`` rows, if given)."""
    if stype == 'row_sparse':
        density = 0.0
        assert rsp_indices is None or len(rsp_indices) <= shape[0]
    return _create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                                modifier_func=modifier_func, density=density,
                                shuffle_csr_indices=shuffle_csr_indices)

