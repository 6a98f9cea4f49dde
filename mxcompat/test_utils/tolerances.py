"""Default dtype and context of the tests, and the comparison tolerances per dtype."""
import numbers
import os

import numpy as np

from ..context import Context, current_context
from ..util import get_cuda_compute_capability

__all__ = ['default_dtype', 'set_default_context', 'default_context', 'default_rtols', 'default_atols',
           'default_numeric_eps', 'effective_dtype', 'get_tolerance', 'get_tols', 'get_atol', 'get_rtol', 'get_etol']


def default_dtype():
    """The dtype tests use by default (float32)."""
    return np.float32


def set_default_context(ctx):
    """Make ``ctx`` the current (default) context of this thread."""
    Context._default_ctx.value = ctx


def default_context():
    """The context tests run on: the current context (``set_default_context`` changes it)."""
    return current_context()


def _by_dtype(f16, f32, f64):
    tols = {np.dtype(np.float16): f16, np.dtype(np.float32): f32, np.dtype(np.float64): f64}
    for t in (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64):
        tols[np.dtype(t)] = 0
    return tols


def default_rtols():
    """Default relative tolerance per dtype."""
    return _by_dtype(1e-2, 1e-4, 1e-5)


def default_atols():
    """Default absolute tolerance per dtype."""
    return _by_dtype(1e-1, 1e-3, 1e-20)


def default_numeric_eps():
    """Default finite-difference step per dtype (powers of two)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype that decides the tolerance for ``dat``: float16 for float32 data on a GPU that uses TF32
    (compute capability >= 80, unless ``NVIDIA_TF32_OVERRIDE=0``), else ``dat.dtype``."""
    dtype = np.dtype(dat.dtype)
    ctx = getattr(dat, 'ctx', None)
    if dtype == np.float32 and ctx is not None and getattr(ctx, 'device_type', None) == 'gpu':
        try:
            tf32 = get_cuda_compute_capability(ctx) >= 80 and os.environ.get('NVIDIA_TF32_OVERRIDE') != '0'
        except Exception:  # no usable GPU: no TF32
            tf32 = False
        if tf32:
            return np.dtype(np.float16)
    return dtype


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number, else ``tol[dtype]`` or ``default_tol[dtype]`` for ``dat``'s effective dtype.

    Differs from MXNet: an integer dtype missing from the dicts gets 0 (MXNet raises KeyError)."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    if dtype in tol:
        return tol[dtype]
    if dtype not in default_tol and dtype.kind in 'biu':
        return 0
    return default_tol[dtype]


def _with_dtype(x):
    if isinstance(x, numbers.Number) or not hasattr(x, 'dtype'):
        return np.asarray(x)
    return x


def get_tols(x, y, rtol, atol):
    """(rtol, atol) to compare ``x`` with ``y``: the given ones, else the larger default of the two dtypes."""
    x, y = _with_dtype(x), _with_dtype(y)
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype`` (float64 unless given)."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype`` (float64 unless given)."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """``etol``, or 0."""
    return 0 if etol is None else etol
