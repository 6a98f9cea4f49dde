"""The C library's math functions where MXNet 1.9.1's CPU samplers call them (``logf``, ``log``, ``pow``, ``powf``,
``expf``, ``tanf``, ``lgammaf``): ``log``/``pow`` through Python's ``math`` (which calls the C library's), the
float ones through ctypes; ``logf``, the one of the float normal sampler, is computed in double precision and only
the values that lie near a rounding boundary are asked of the C library. Used by ``_mxrandom``.
"""
import ctypes
import ctypes.util
import math

import numpy as np

from ._mt19937 import _F32, _F64


# ---- the C library's functions ---------------------------------------------------------------------------------
class _LibM:
    """The C library's math functions MXNet's samplers call, or None each where it cannot be loaded."""

    def __init__(self):
        self.fns = {}
        try:
            lib = ctypes.CDLL(ctypes.util.find_library('m') or ctypes.util.find_library('c'))
        except (OSError, TypeError):
            return
        for name in ('logf', 'expf', 'tanf', 'lgammaf'):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
                self.fns[name] = fn
        fn = getattr(lib, 'powf', None)
        if fn is not None:
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
            self.fns['powf'] = fn

    def vector(self, name, x):
        """The float function ``name`` applied elementwise to ``x`` (float32 in and out)."""
        x = np.asarray(x, dtype=_F32)
        fn = self.fns.get(name)
        if fn is None:  # (no C library found: numpy's functions, in double; not always MXNet's last bit)
            with np.errstate(all='ignore'):
                return _FALLBACK[name](x.astype(_F64)).astype(_F32)
        return np.fromiter(map(fn, x.ravel().tolist()), _F32, x.size).reshape(x.shape)


_FALLBACK = {'logf': np.log, 'expf': np.exp, 'tanf': np.tan, 'lgammaf': np.frompyfunc(math.lgamma, 1, 1)}
_LIBM = []


def libm():
    if not _LIBM:
        _LIBM.append(_LibM())
    return _LIBM[0]


def _pow(x, y):
    """The C library's double ``pow``, elementwise (through Python's ``math.pow``, which calls it)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=_F64), np.asarray(y, dtype=_F64))
    if x.size and (y == 2.0).all() and (x.astype(_F32) == x).all():
        # (a float's square is exact in double, and pow is within 0.54 units in the last place of the exact value:
        # it returns that value; the gamma sampler's shape 0.5 in float raises its uniform numbers to 2)
        return x * x
    return np.fromiter(map(math.pow, x.ravel().tolist(), y.ravel().tolist()), _F64, x.size).reshape(x.shape)


def powf(x, y):
    """The C library's ``powf``, elementwise on float32 arrays ``x`` and ``y`` (of one shape)."""
    x, y = np.asarray(x, dtype=_F32), np.asarray(y, dtype=_F32)
    fn = libm().fns.get('powf')
    if fn is None or not x.size:
        with np.errstate(all='ignore'):
            return np.power(x.astype(_F64), y.astype(_F64)).astype(_F32)
    return np.frompyfunc(fn, 2, 1)(x, y).astype(_F32)


def log(x):
    """The C library's double ``log``, elementwise (Python's ``math.log`` calls it for positive finite numbers)."""
    x = np.asarray(x, dtype=_F64)
    flat = x.ravel()
    ok = flat > 0
    if ok.all():
        return np.fromiter(map(math.log, flat.tolist()), _F64, len(flat)).reshape(x.shape)
    with np.errstate(divide='ignore', invalid='ignore'):
        out = np.log(flat)
    out[ok] = np.fromiter(map(math.log, flat[ok].tolist()), _F64, int(ok.sum()))
    return out.reshape(x.shape)


# How far the exact logarithm of a float may lie from a rounding boundary that glibc's logf (the one since 2.28)
# still crosses, by the exponent e of the result (|log x| in [2**(e-1), 2**e)): twice the largest distance measured
# over every positive float by tools/logf_bounds.py; 0 where it always rounds correctly.
_LOGF_DOUBT_FROM = -23
_LOGF_DOUBT = np.array([0, 1.2e-21, 0, 2.5e-19, 0, 0, 0, 0, 0, 0, 0, 1.4e-14, 5.6e-14, 4.1e-13, 3.0e-12, 2.2e-11,
                        1.3e-10, 6.0e-10, 1.2e-9, 7.6e-10, 4.8e-9, 2.0e-9, 7.6e-10, 4.6e-9, 4.8e-9, 4.8e-9, 4.8e-9,
                        4.8e-9, 4.8e-9, 4.8e-9, 4.8e-9])  # e = -23 .. 7


def _doubt_ulps():
    """By the 11 exponent bits of a double: how many of its units in the last place the measured error of
    ``_LOGF_DOUBT`` spans (at least 9.01: numpy's own error in double precision, 1e-15 of the value, far below a
    float's rounding), -1 where no value is doubtful (zero, infinities, NaN), 2**29 where the table says nothing."""
    biased = np.arange(2048)
    e = biased - 1022 - _LOGF_DOUBT_FROM  # (frexp's exponent, from the table's first)
    known = (e >= 0) & (e < len(_LOGF_DOUBT))
    ulps = np.ldexp(_LOGF_DOUBT[np.clip(e, 0, len(_LOGF_DOUBT) - 1)], 1075 - biased)
    out = np.where(known, np.maximum(ulps, 9.01), 2.0 ** 29)
    out[[0, 2047]] = -1
    return out


_DOUBT_ULPS = _doubt_ulps()


def _logf_doubtful(wide, near=None):
    """Where the C library's logf may differ from the double logarithm ``wide`` rounded to float: the exact value
    lies within the measured error of a rounding boundary. In a double, the boundaries between floats are where its
    29 bits past a float's precision read 2**28, so the distance in units of the double's last place is read off
    its bits."""
    bits = np.ascontiguousarray(wide, dtype=_F64).view(np.uint64)
    past = (bits & np.uint64((1 << 29) - 1)).view(np.int64)
    past -= 1 << 28
    np.abs(past, out=past)
    return past <= _DOUBT_ULPS[(bits >> np.uint64(52)) & np.uint64(0x7FF)]


def logf(x):
    """The C library's ``logf``, elementwise on float32 ``x``: log in double precision rounded to float, except
    where that may differ from the C library's (near a rounding boundary, see ``_LOGF_DOUBT``: a few percent of
    the values of the normal sampler), which the C library computes."""
    x = np.asarray(x, dtype=_F32)
    fn = libm().fns.get('logf')
    with np.errstate(divide='ignore', invalid='ignore'):
        wide = np.log(x.astype(_F64))
    near = wide.astype(_F32)
    if fn is None:
        return near
    if not _logf_checked():
        return libm().vector('logf', x)
    doubt = _logf_doubtful(wide, near)
    if doubt.any():
        near[doubt] = libm().vector('logf', x[doubt])
    return near


_LOGF_CHECK = []


def _logf_checked():
    """Whether the C library's logf keeps within ``_LOGF_DOUBT`` on a sample (another logf, as glibc's before 2.28
    or another C library's, may not: then every value is asked of it)."""
    if not _LOGF_CHECK:
        rs = np.random.RandomState(12345)
        probe = np.concatenate([rs.random_sample(20000), 1 - rs.random_sample(5000) * 0.1,
                                rs.random_sample(2000) * 1e-3, rs.random_sample(2000) * 1e6]).astype(_F32)
        probe = probe[probe > 0]
        wide = np.log(probe.astype(_F64))
        near = wide.astype(_F32)
        sure = ~_logf_doubtful(wide, near)
        _LOGF_CHECK.append(bool(np.all(libm().vector('logf', probe[sure]) == near[sure])))
    return _LOGF_CHECK[0]
