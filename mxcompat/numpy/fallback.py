"""The functions of ``mx.np`` that MXNet 1.9.1 hands to official NumPy.

As in MXNet, their ``mx.np.ndarray`` arguments (also inside lists, tuples and keyword arguments) are copied to host
NumPy arrays, NumPy computes, and NumPy arrays in the result (also inside tuples and lists) come back as
``mx.np.ndarray`` on the context of the first array argument; Python and NumPy scalars and other objects come back
as NumPy gives them. Called without any ``mx.np`` array the result is NumPy's own, as in MXNet (whose names are
NumPy's functions themselves). Autograd does not see these functions: under ``autograd.record()`` they raise
``ValueError``, as MXNet's do.

Names NumPy 2 removed are computed with their NumPy 2 replacement (``alltrue``: ``all``, ``in1d``: ``isin`` of the
flattened array, ``msort``: ``sort`` along axis 0, ``trapz``: ``trapezoid``); the financial functions NumPy 1.20
removed (``mirr``, ``npv``, ``ppmt``, ``pv``, ``rate``) raise ``MXNetNotImplementedError`` (see ``_gaps``).
"""
import functools

import numpy as _onp

from .. import autograd as _ag
from ..base import unsupported
from ..ndarray.ndarray import NDArray
from ._gaps import FINANCIAL, missing_in_numpy  # noqa: F401 (FINANCIAL: the names, for callers)
from .multiarray import ndarray, _legacy_error, _np_wrap, _host_tensor

# MXNet 1.9.1's list (mxnet/numpy/fallback.py), less the names computed natively here (argwhere, flatnonzero,
# ndim, positive, size: same results, on the array's device and recorded by autograd)
FALLBACK = (
    'allclose', 'alltrue', 'apply_along_axis', 'apply_over_axes', 'argpartition', 'array_equal', 'array_equiv',
    'choose', 'compress', 'corrcoef', 'correlate', 'count_nonzero', 'cov', 'digitize', 'divmod', 'extract',
    'float_power', 'frexp', 'heaviside', 'histogram2d', 'histogram_bin_edges', 'histogramdd', 'i0', 'in1d',
    'interp', 'intersect1d', 'isclose', 'isin', 'ix_', 'lexsort', 'min_scalar_type', 'mirr', 'modf', 'msort',
    'nanargmax', 'nanargmin', 'nancumprod', 'nancumsum', 'nanmax', 'nanmedian', 'nanmin', 'nanpercentile',
    'nanprod', 'nanquantile', 'npv', 'packbits', 'partition', 'piecewise', 'poly', 'polyadd', 'polydiv',
    'polyfit', 'polyint', 'polymul', 'polysub', 'ppmt', 'promote_types', 'ptp', 'pv', 'rate', 'real',
    'result_type', 'rollaxis', 'roots', 'searchsorted', 'select', 'setdiff1d', 'setxor1d', 'signbit', 'spacing',
    'take_along_axis', 'trapz', 'tril_indices_from', 'trim_zeros', 'triu_indices_from', 'union1d', 'unpackbits',
    'unwrap', 'vander')


def _in1d(ar1, ar2, assume_unique=False, invert=False):
    return _onp.isin(_onp.asarray(ar1).ravel(), ar2, assume_unique=assume_unique, invert=invert)


def _msort(a):
    return _onp.sort(a, axis=0)


# NumPy 2's replacement of a name it removed
_REPLACED = {'alltrue': lambda: _onp.all, 'in1d': lambda: _in1d, 'msort': lambda: _msort,
             'trapz': lambda: _onp.trapezoid}


def numpy_function(name):
    """The NumPy function computing ``mx.np.<name>`` with the installed NumPy, or None where it has none."""
    if missing_in_numpy(name, name in _REPLACED):
        return None
    fn = getattr(_onp, name, None)
    return _REPLACED[name]() if fn is None else fn


def _find_ctx(obj):
    """The context of the first ``mx.np`` array in ``obj`` (searching lists, tuples and dicts), else None."""
    if isinstance(obj, NDArray):
        return obj._ctx
    if isinstance(obj, (list, tuple)):
        for o in obj:
            c = _find_ctx(o)
            if c is not None:
                return c
    elif isinstance(obj, dict):
        return _find_ctx(list(obj.values()))
    return None


def to_host(name, obj):
    """``obj`` with its ``mx.np`` arrays as host NumPy arrays (a legacy ``mx.nd.NDArray``: TypeError)."""
    if isinstance(obj, NDArray):
        if not isinstance(obj, ndarray):
            raise _legacy_error(name, obj)
        return obj.asnumpy()
    if isinstance(obj, (list, tuple)) and not hasattr(obj, '_fields'):
        return type(obj)(to_host(name, o) for o in obj)
    return obj


def to_device(obj, ctx):
    """NumPy arrays in ``obj`` (a result) as ``mx.np`` arrays on ``ctx``; everything else unchanged."""
    if isinstance(obj, _onp.ndarray):
        if obj.dtype.kind not in 'biuf':
            return obj
        return _np_wrap(_host_tensor(obj, None, ctx.torch_device, copy=True), ctx)
    if isinstance(obj, (list, tuple)) and not hasattr(obj, '_fields'):
        return type(obj)(to_device(o, ctx) for o in obj)
    return obj


def call_numpy(name, fn, args, kwargs, ctx=None):
    """``fn(*args, **kwargs)`` on host copies, the result back on ``ctx`` (the first array's by default)."""
    if ctx is None:
        ctx = _find_ctx(args) or _find_ctx(kwargs)
    if ctx is None:
        return fn(*args, **kwargs)
    if _ag.is_recording():
        raise ValueError('mx.np.%s runs in official NumPy, which autograd cannot record; call it outside '
                         'autograd.record()' % name)
    out = kwargs.pop('out', None) if isinstance(kwargs.get('out'), NDArray) else None
    res = fn(*to_host(name, args), **{k: to_host(name, v) for k, v in kwargs.items()})
    res = to_device(res, ctx)
    if out is not None:
        out[...] = res
        return out
    return res


def _fallback(name):
    fn = numpy_function(name)
    if fn is None:
        why = missing_in_numpy(name, name in _REPLACED)

        def missing(*args, **kwargs):
            raise unsupported('mx.np.' + name, 'this function', why)
        missing.__name__ = missing.__qualname__ = name
        missing.__doc__ = 'Not available: %s.' % why
        return missing

    @functools.wraps(fn)
    def f(*args, **kwargs):
        return call_numpy(name, fn, args, kwargs)
    f.__name__ = f.__qualname__ = name
    f.__module__ = __name__
    f.__doc__ = ('Official NumPy\'s ``%s`` on host copies of the arrays, as in MXNet 1.9.1 (array results come '
                 'back on the first array\'s context).' % getattr(fn, '__name__', name))
    return f


for _name in FALLBACK:
    globals()[_name] = _fallback(_name)
del _name

__all__ = list(FALLBACK)
