"""The C library's math functions where MXNet 1.9.1's CPU samplers call them (``logf``, ``log``, ``pow``, ``powf``,
``expf``, ``tanf``, ``lgammaf``): ``log``/``pow`` through Python's ``math`` (which calls the C library's), the
float ones through ctypes; ``logf``, the one of the float normal sampler, is glibc's algorithm vectorized in
double precision, and only the values whose result lies too near a rounding boundary to be sure of (about one in a
million) are asked of the C library (``tools/logf_check.py`` compares it with the C library over every positive
float). Used by MXNet's samplers (``operator._mxrandom``, ``operator._np_samplers``) and its own softmax loop
(``cpu.mxnet_softmax``).
"""
import ctypes
import ctypes.util
import math

import numpy as np

_F32, _F64 = np.float32, np.float64


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


# glibc's powf (the one since 2.28) computes x**y in double before its one rounding to float, within a relative
# error of |y log2 x| * ln 2 * 1.83 * 2**-33 (its log2) + 1.69 * 2**-34 (its exp2) of the exact value: where the
# exact value lies farther than that from a rounding boundary between two floats, powf returns it rounded correctly
_POWF_LOG2_ERR = math.log(2) * 1.83 * 2.0 ** -33
_POWF_EXP2_ERR = 1.69 * 2.0 ** -34


def powf(x, y):
    """The C library's ``powf``, elementwise on float32 arrays ``x`` and ``y`` (of one shape): ``x ** y`` in double
    rounded to float, the C library asked only where that rounding is in doubt (within twice glibc's error bound
    of a boundary between two floats: about one value in 500), and for x <= 0 and special values."""
    x, y = np.asarray(x, dtype=_F32), np.asarray(y, dtype=_F32)
    fn = libm().fns.get('powf')
    if fn is None or not x.size:
        with np.errstate(all='ignore'):
            return np.power(x.astype(_F64), y.astype(_F64)).astype(_F32)
    x64, y64 = x.astype(_F64), y.astype(_F64)
    with np.errstate(all='ignore'):
        wide = np.power(x64, y64)
        rel = np.abs(y64 * np.log2(x64)) * _POWF_LOG2_ERR + _POWF_EXP2_ERR + 2.0 ** -50
        err = np.abs(wide) * rel * 2
        out = wide.astype(_F32)
        ask = (wide - err).astype(_F32) != (wide + err).astype(_F32)
    ask |= ~(np.isfinite(wide) & np.isfinite(rel) & (x64 > 0) & np.isfinite(y64))
    if ask.any():
        out[ask] = np.frompyfunc(fn, 2, 1)(x[ask], y[ask]).astype(_F32)
    return out


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


# glibc's logf (since 2.28): x = 2**k * z with z in [OFF, 2 * OFF), log x = log1p(z / c - 1) + log c + k * ln 2 for
# the c of z's sixteenth of that range, log1p by a cubic, in double precision, rounded once to float. Its table
# (1 / c, log c), ln 2 and the cubic's coefficients, as e_logf_data.c has them:
_LOGF_OFF = 0x3f330000
_LOGF_INVC = np.array([float.fromhex(h) for h in (
    '0x1.661ec79f8f3bep+0', '0x1.571ed4aaf883dp+0', '0x1.49539f0f010bp+0', '0x1.3c995b0b80385p+0',
    '0x1.30d190c8864a5p+0', '0x1.25e227b0b8eap+0', '0x1.1bb4a4a1a343fp+0', '0x1.12358f08ae5bap+0',
    '0x1.0953f419900a7p+0', '0x1p+0', '0x1.e608cfd9a47acp-1', '0x1.ca4b31f026aap-1', '0x1.b2036576afce6p-1',
    '0x1.9c2d163a1aa2dp-1', '0x1.886e6037841edp-1', '0x1.767dcf5534862p-1')])
_LOGF_LOGC = np.array([float.fromhex(h) for h in (
    '-0x1.57bf7808caadep-2', '-0x1.2bef0a7c06ddbp-2', '-0x1.01eae7f513a67p-2', '-0x1.b31d8a68224e9p-3',
    '-0x1.6574f0ac07758p-3', '-0x1.1aa2bc79c81p-3', '-0x1.a4e76ce8c0e5ep-4', '-0x1.1973c5a611cccp-4',
    '-0x1.252f438e10c1ep-5', '0x0p+0', '0x1.aa5aa5df25984p-5', '0x1.c5e53aa362eb4p-4', '0x1.526e57720db08p-3',
    '0x1.bc2860d22477p-3', '0x1.1058bc8a07ee1p-2', '0x1.4043057b6ee09p-2')])
_LOGF_LN2 = float.fromhex('0x1.62e42fefa39efp-1')
_LOGF_A = [float.fromhex(h) for h in ('-0x1.00ea348b88334p-2', '0x1.5575b0be00b6ap-2', '-0x1.ffffef20a4123p-2')]
# 1 / c split in two, the first with 26 significant bits: z (24 bits) times either part is exact in double
_LOGF_INVC_HI = (_LOGF_INVC.view(np.uint64) & np.uint64(~((1 << 27) - 1) & (2 ** 64 - 1))).view(_F64)
_LOGF_INVC_LO = _LOGF_INVC - _LOGF_INVC_HI


def _logf_wide(x):
    """glibc's logf of the positive normal or subnormal floats ``x`` (not 1) before its last rounding: (the double
    result, how many of its units in the last place it may lie from glibc's own). z / c - 1 is computed exactly
    (what glibc's variant with fused multiply-adds rounds once); the other steps round where that variant fuses,
    which the tolerance covers, as it covers the variant without them."""
    ix = x.view(np.uint32)
    sub = ix < 0x00800000
    if sub.any():  # (normalized as glibc does: scaled by 2**23, exactly)
        ix = ix.copy()
        ix[sub] = (x[sub] * _F32(2.0 ** 23)).view(np.uint32) - np.uint32(23 << 23)
    tmp = ix - np.uint32(_LOGF_OFF)
    i = ((tmp >> np.uint32(19)) & np.uint32(15)).astype(np.intp)
    k = (tmp.view(np.int32) >> 23).astype(_F64)
    z = (ix - (tmp & np.uint32(0xff800000))).view(_F32).astype(_F64)
    r = z * np.take(_LOGF_INVC_HI, i)
    r -= 1.0  # (exact: within a factor 2 of 1)
    z *= np.take(_LOGF_INVC_LO, i)
    r += z
    k *= _LOGF_LN2
    y0 = np.take(_LOGF_LOGC, i)
    y0 += k
    # roundings where glibc fuses (of k * ln 2, A1 * r, A0 * r2, y * r2) and, without fused operations, of z / c:
    # 2**-53 of the magnitudes involved; z near 1 (i = 9) has c = 1, log c = 0 and an exact z / c - 1
    ulps = np.abs(y0)
    ulps += np.abs(r)
    ulps += np.take(_LOGF_SLACK, i)
    r2 = r * r
    y = _LOGF_A[1] * r
    y += _LOGF_A[2]
    k = np.multiply(r2, _LOGF_A[0], out=k)
    y += k
    y *= r2
    y0 += r
    y += y0
    ulps *= 8
    ulps /= np.abs(y)
    ulps += 8
    return y, ulps


_LOGF_SLACK = np.where(np.arange(16) == 9, 0.0, 2.0 ** -3)


def _near_boundary(wide, ulps):
    """Where the double ``wide`` lies within ``ulps`` of its units in the last place of a boundary between two
    floats (its 29 bits past a float's precision read 2**28 there; results in the normal float range)."""
    bits = wide.view(np.uint64)
    past = (bits & np.uint64((1 << 29) - 1)).view(np.int64) - (1 << 28)
    return np.abs(past) <= ulps


_LOGF_CHUNK = 1 << 15


def logf(x):
    """The C library's ``logf``, elementwise on float32 ``x``: glibc's algorithm vectorized in double precision;
    the C library computes the values whose result lies too near a rounding boundary to be sure of (about one in
    a million), 0, negative numbers, infinities and NaN. Where the C library is not glibc's (a sample of its
    logf disagrees), the double logarithm rounded to float, except near a rounding boundary (``_LOGF_DOUBT``)."""
    x = np.ascontiguousarray(x, dtype=_F32)
    fn = libm().fns.get('logf')
    if fn is None or not _logf_checked():
        return _logf_by_doubt(x, fn)
    flat = x.ravel()
    out = np.zeros(flat.shape, _F32)  # (log 1 = 0)
    ix = flat.view(np.uint32)
    usual = (ix - np.uint32(1)) < np.uint32(0x7f7fffff)  # 0 < x < inf
    usual &= ix != 0x3f800000
    ask = ~usual
    ask[ix == 0x3f800000] = False
    if usual.all():
        for lo in range(0, len(flat), _LOGF_CHUNK):  # (chunks: the temporaries stay in the cache)
            wide, ulps = _logf_wide(flat[lo:lo + _LOGF_CHUNK])
            out[lo:lo + _LOGF_CHUNK] = wide
            ask[lo:lo + _LOGF_CHUNK] = _near_boundary(wide, ulps)
    elif usual.any():
        where = np.nonzero(usual)[0]
        for lo in range(0, len(where), _LOGF_CHUNK):
            at = where[lo:lo + _LOGF_CHUNK]
            wide, ulps = _logf_wide(flat[at])
            out[at] = wide
            ask[at[_near_boundary(wide, ulps)]] = True
    if ask.any():
        out[ask] = libm().vector('logf', flat[ask])
    return out.reshape(x.shape)


def _logf_by_doubt(x, fn):
    """logf as the double logarithm rounded to float, the C library asked only where that may differ from its
    result (see ``_LOGF_DOUBT``)."""
    with np.errstate(divide='ignore', invalid='ignore'):
        wide = np.log(x.astype(_F64))
    near = wide.astype(_F32)
    if fn is None:
        return near
    if not _logf_by_doubt_checked():
        return libm().vector('logf', x)
    doubt = _logf_doubtful(wide, near)
    if doubt.any():
        near[doubt] = libm().vector('logf', x[doubt])
    return near


_LOGF_CHECK = {}


def _logf_probe():
    rs = np.random.RandomState(12345)
    probe = np.concatenate([rs.random_sample(20000), 1 - rs.random_sample(5000) * 0.1,
                            rs.random_sample(2000) * 1e-3, rs.random_sample(2000) * 1e6,
                            rs.random_sample(2000) * 1e-40]).astype(_F32)
    return probe[probe > 0]


def _logf_checked():
    """Whether the C library's logf is glibc's (the one since 2.28) on a sample: _logf_wide rounded to float gives
    its results where they are sure."""
    if 'glibc' not in _LOGF_CHECK:
        probe = _logf_probe()
        probe = probe[probe != 1]
        wide, ulps = _logf_wide(probe)
        sure = ~_near_boundary(wide, ulps)
        _LOGF_CHECK['glibc'] = bool(np.all(libm().vector('logf', probe[sure]) == wide[sure].astype(_F32)))
    return _LOGF_CHECK['glibc']


def _logf_by_doubt_checked():
    """Whether the C library's logf keeps within ``_LOGF_DOUBT`` on a sample (another logf, as glibc's before 2.28
    or another C library's, may not: then every value is asked of it)."""
    if 'doubt' not in _LOGF_CHECK:
        probe = _logf_probe()
        wide = np.log(probe.astype(_F64))
        near = wide.astype(_F32)
        sure = ~_logf_doubtful(wide, near)
        _LOGF_CHECK['doubt'] = bool(np.all(libm().vector('logf', probe[sure]) == near[sure]))
    return _LOGF_CHECK['doubt']
