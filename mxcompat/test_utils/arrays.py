"""Random test data: numpy and NDArray arrays (dense and sparse), shapes, coordinates, and small numpy helpers."""
import numpy as np
import numpy.random as rnd

import mxcompat as mx
from .tolerances import default_context, default_dtype

__all__ = ['random_arrays', 'random_uniform_arrays', 'random_sample', 'shuffle_csr_column_indices', 'assign_each',
           'assign_each2', 'create_2d_tensor', 'create_vector', 'get_identity_mat', 'get_identity_mat_batch',
           'rand_sparse_ndarray', 'rand_ndarray', 'create_sparse_array', 'create_sparse_array_zd', 'rand_shape_2d',
           'rand_shape_3d', 'rand_shape_nd', 'rand_coord_2d', 'np_reduce', 'collapse_sum_like']


def random_arrays(*shapes):
    """Standard-normal float32 numpy arrays, one per shape (a single array if one shape is given)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, **kwargs):
    """A list of uniform numpy arrays, one per shape; keywords ``low`` (0), ``high`` (1), ``dtype`` (float32)."""
    low = kwargs.pop('low', 0.0)
    high = kwargs.pop('high', 1.0)
    dtype = kwargs.pop('dtype', default_dtype())
    if kwargs:
        raise TypeError('Got unexpected argument/s : ' + str(kwargs.keys()))
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` elements of the sequence ``population`` in random order (numpy's global generator)."""
    assert 0 <= k <= len(population)
    order = np.random.permutation(len(population))[:k]
    return [population[int(pos)] for pos in order]


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a CSR matrix in place (``csr.indptr``/``csr.indices``)."""
    indptr, indices = csr.indptr, csr.indices
    for row in range(len(indptr) - 1):
        start, end = indptr[row], indptr[row + 1]
        part = np.array(indices[start:end])
        np.random.shuffle(part)
        indices[start:end] = part


def assign_each(the_input, function):
    """A float64 array of ``function(x)`` for each element x of ``the_input`` (a copy if ``function`` is None)."""
    if function is None:
        return np.array(the_input)
    src = np.asarray(the_input)
    out = np.zeros(src.shape)
    flat = out.reshape(-1)
    for i, v in enumerate(src.reshape(-1)):
        flat[i] = function(v)
    return out


def assign_each2(input1, input2, function):
    """A float64 array of ``function(x, y)`` over the elements of two same-shape arrays."""
    if function is None:
        return np.array(input1)
    a, b = np.asarray(input1), np.asarray(input2)
    assert a.shape == b.shape
    out = np.zeros(a.shape)
    flat = out.reshape(-1)
    for i, (x, y) in enumerate(zip(a.reshape(-1), b.reshape(-1))):
        flat[i] = function(x, y)
    return out


def create_2d_tensor(rows, columns, dtype=np.int64):
    """An NDArray of shape (rows, columns) whose row i is filled with i."""
    a = mx.nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return mx.nd.broadcast_to(a, shape=(a.shape[0], columns))


def create_vector(size, dtype=np.int64):
    """``mx.nd.arange(0, size)``."""
    return mx.nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """A float32 identity matrix NDArray."""
    return mx.nd.array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """Two stacked float32 identity matrices, shape (2, size, size)."""
    eye = np.eye(size, dtype=np.float32)
    return mx.nd.array(np.stack([eye, eye]))


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """A random sparse NDArray and its parts (see ``mx.nd.sparse._rand_sparse_ndarray``)."""
    return mx.nd.sparse._rand_sparse_ndarray(shape, stype, density, dtype, distribution, data_init, rsp_indices,
                                             modifier_func, shuffle_csr_indices, ctx or default_context())


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None, shuffle_csr_indices=False,
                 distribution=None, ctx=None):
    """A standard-normal NDArray (float32 unless ``dtype``), or for a sparse ``stype`` the array of
    ``rand_sparse_ndarray``."""
    ctx = ctx if ctx else default_context()
    if stype != 'default':
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, distribution=distribution,
                                   modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)[0]
    return mx.nd.array(random_arrays(shape), dtype=dtype, ctx=ctx)


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """A random sparse array (see ``mx.nd.sparse._create_sparse_array``)."""
    return mx.nd.sparse._create_sparse_array(shape, stype, data_init, rsp_indices, dtype, modifier_func, density,
                                             shuffle_csr_indices)


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                           shuffle_csr_indices=False):
    """A random sparse array, row_sparse with density 0 (see ``mx.nd.sparse._create_sparse_array_zd``)."""
    return mx.nd.sparse._create_sparse_array_zd(shape, stype, density, data_init, rsp_indices, dtype, modifier_func,
                                                shuffle_csr_indices)


def _draw_sides(limits, allow_zero_size):
    """One random side per upper limit, drawn in order, each in [1 (0 if allowed), limit]."""
    smallest = 0 if allow_zero_size else 1
    return tuple(rnd.randint(smallest, limit + 1) for limit in limits)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sides in [1 (0 if allowed), dim]."""
    return _draw_sides((dim0, dim1), allow_zero_size)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sides in [1 (0 if allowed), dim]."""
    return _draw_sides((dim0, dim1, dim2), allow_zero_size)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random ``num_dim``-d shape with sides in [1 (0 if allowed), dim] (Python ints; MXNet gives np.int64)."""
    low = 0 if allow_zero_size else 1
    return tuple(int(s) for s in rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random (x, y) with x in [x_low, x_high) and y in [y_low, y_high)."""
    return tuple(np.random.randint(lo, hi, dtype=np.int64) for lo, hi in ((x_low, x_high), (y_low, y_high)))


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce numpy array ``dat`` with ``numpy_reduce_func`` over an int, a list of ints or None (all axes)."""
    if axis is None:
        axes = list(range(dat.ndim))
    elif isinstance(axis, int):
        axes = [axis]
    else:
        axes = list(axis)
    # reduce the highest axis first so the lower axis numbers stay valid
    out = dat
    for ax in sorted(axes, reverse=True):
        out = numpy_reduce_func(out, axis=ax)
    if not keepdims:
        return out
    reduced = {ax % dat.ndim for ax in axes}
    return out.reshape(tuple(1 if d in reduced else size for d, size in enumerate(dat.shape)))


def collapse_sum_like(a, shape):
    """Sum numpy array ``a`` over the axes that ``shape`` broadcasts along, giving an array of ``shape``."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    ndim_diff = len(a.shape) - len(shape)
    axes = list(range(ndim_diff))
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1
            axes.append(i + ndim_diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)
