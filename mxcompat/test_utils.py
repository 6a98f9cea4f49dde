"""``mx.test_utils``: the helpers MXNet users' own tests call."""
import contextlib
import os
import random as _pyrandom

import numpy as np

from .base import MXNetError
from .context import Context, cpu, current_context

_default_ctx = [None]


def default_context():
    """The context tests run on (``set_default_context`` or the current one)."""
    return _default_ctx[0] if _default_ctx[0] is not None else current_context()


def set_default_context(ctx):
    _default_ctx[0] = ctx


def default_dtype():
    return np.float32


def _as_np(a):
    from .ndarray.ndarray import NDArray
    if isinstance(a, NDArray):
        return a.asnumpy()
    return np.asarray(a)


_TOLS = {np.dtype(np.float16): (1e-2, 1e-4), np.dtype(np.float32): (1e-4, 1e-6), np.dtype(np.float64): (1e-7, 1e-9)}


def get_rtol(rtol=None, dtype=np.float32):
    return _TOLS.get(np.dtype(dtype), (1e-5, 1e-20))[0] if rtol is None else rtol


def get_atol(atol=None, dtype=np.float32):
    return _TOLS.get(np.dtype(dtype), (1e-5, 1e-20))[1] if atol is None else atol


def _tols(a, b, rtol, atol):
    dt = np.result_type(a.dtype, b.dtype) if a.dtype.kind == 'f' and b.dtype.kind == 'f' else np.dtype(np.float64)
    if rtol is None:
        rtol = _TOLS.get(np.dtype(a.dtype), (1e-5, 1e-20))[0] if a.dtype.kind == 'f' else 1e-5
        rtol = max(rtol, _TOLS.get(np.dtype(b.dtype), (rtol, 0))[0]) if b.dtype.kind == 'f' else rtol
    if atol is None:
        atol = _TOLS.get(np.dtype(dt), (0, 1e-20))[1]
    return rtol, atol


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether a and b (NDArrays or array-likes) are equal within tolerances."""
    a, b = _as_np(a), _as_np(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    rtol, atol = _tols(a, b, rtol, atol)
    return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError (with the worst mismatch) unless a and b are equal within tolerances."""
    a, b = _as_np(a), _as_np(b)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError('Shape mismatch: %s %s vs %s %s' % (names[0], a.shape, names[1], b.shape))
    rtol, atol = _tols(a, b, rtol, atol)
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    af, bf = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    err = np.abs(af - bf) / (atol + rtol * np.abs(bf))
    err[np.isnan(err)] = np.inf if not equal_nan else 0
    idx = np.unravel_index(np.argmax(err), err.shape) if err.size else ()
    raise AssertionError('Items are not equal:\nError %f exceeds tolerance rtol=%e, atol=%e. Location of maximum '
                         'error: %s, %s=%s, %s=%s\n %s: %s\n %s: %s'
                         % (err.max() if err.size else 0, rtol, atol, idx, names[0],
                            af[idx] if err.size else None, names[1], bf[idx] if err.size else None,
                            names[0], a, names[1], b))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=('a', 'b')):
    a, b = np.copy(_as_np(a)), np.copy(_as_np(b))
    nan = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError('%s did not raise %s' % (getattr(f, '__name__', f), exception_type))


def same(a, b):
    """Exact equality of two arrays (NDArrays or numpy)."""
    return np.array_equal(_as_np(a), _as_np(b))


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return _pyrandom.randint(low, dim0 + 1), _pyrandom.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return (_pyrandom.randint(low, dim0 + 1), _pyrandom.randint(low, dim1 + 1), _pyrandom.randint(low, dim2 + 1))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim).tolist())


def rand_coord_2d(x_low, x_high, y_low, y_high):
    return _pyrandom.randint(x_low, x_high), _pyrandom.randint(y_low, y_high)


def random_arrays(*shapes):
    """Random float32 numpy arrays (a single one if one shape is given)."""
    arrays = [np.array(np.random.randn(), dtype=np.float32) if len(s) == 0
              else np.random.randn(*s).astype(np.float32) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None, shuffle_csr_indices=False,
                 distribution=None, ctx=None):
    """A random dense NDArray (sparse storage types are not supported yet)."""
    from .ndarray import array
    if stype != 'default':
        from .base import unsupported
        raise unsupported('mx.test_utils.rand_ndarray', 'stype=%r' % stype, 'sparse storage is not implemented yet')
    data = np.random.uniform(-1, 1, size=shape)
    if modifier_func is not None:
        data = modifier_func(data)
    return array(data, ctx=ctx or default_context(), dtype=dtype or np.float32)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` with a numpy function over MXNet-style axes."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        keepdims_shape = list(dat.shape)
        for i in axis:
            keepdims_shape[i] = 1
        ret = ret.reshape(tuple(keepdims_shape))
    return ret


@contextlib.contextmanager
def environment(*args):
    """Temporarily set environment variables: ``environment('NAME', 'value')`` or ``environment({...})``."""
    if len(args) == 2:
        env = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        env = args[0]
    else:
        raise MXNetError('environment: expected (name, value) or a dict')
    saved = {k: os.environ.get(k) for k in env}
    try:
        for k, v in env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def list_gpus():
    from .context import num_gpus
    return list(range(num_gpus()))


def is_cd_run():
    return os.environ.get('CD_JOB', 0) == '1'


__all__ = ['default_context', 'set_default_context', 'almost_equal', 'assert_almost_equal', 'same',
           'assert_exception', 'rand_shape_2d', 'rand_shape_3d', 'rand_shape_nd', 'rand_ndarray', 'environment',
           'random_arrays', 'np_reduce', 'get_rtol', 'get_atol', 'list_gpus', 'Context', 'cpu']
