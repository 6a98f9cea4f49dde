"""MXNet 1.9.1's ``mx.np.random`` samplers built on uniform draws (``src/operator/numpy/random``: exponential,
rayleigh, power, weibull, pareto, logistic, gumbel), bit for bit: each kernel's formula in the C types it is
written in. Their ``log``/``exp``/``sqrt`` are the C library's double functions (a float argument promoted), each
result rounded to float where the kernel stores it in a float, except a ``-log(x)`` stored straight into a float,
which MXNet's build computes as ``-logf(x)``; ``powf`` is the float one; a parameter given as a number is a C
``float``, one given as an array computes in the array's type (``IType``).

The double expressions are computed with numpy; where numpy's value lies too near a float rounding boundary to be
sure of the C library's rounding (about one value in 10**7), the expression is computed again with Python's
``math``, which calls the C library. Inputs: ``u``, the flat float32 uniform draws of MXNet's single engine, and
each parameter either a number (the kernel's ``float``) or a flat array as long as ``u`` (broadcast already).
"""
import math

import numpy as np

from ..kernels._libm import logf, powf

_F32, _F64 = np.float32, np.float64
_ERR = 2.0 ** -46  # (relative bound on numpy's error in these few double operations, with a wide margin)


def _stored(wide, err, exact):
    """A double expression stored in a float: ``wide`` (numpy's values, each within ``err`` of the C library's)
    rounded to float32; where ``wide - err`` and ``wide + err`` round apart, ``exact(i)`` (the C library's double
    value at index i) decides."""
    out = wide.astype(_F32)
    with np.errstate(invalid='ignore', over='ignore'):
        doubt = ((wide - err).astype(_F32) != (wide + err).astype(_F32)) & np.isfinite(wide)
    for i in np.flatnonzero(doubt).tolist():
        out[i] = _F32(exact(i))
    return out


def _itype(p):
    """The C type an array parameter computes in (float16 through float, as mshadow's half_t)."""
    return _F64 if p.dtype == _F64 else _F32


def _param(p, like=None):
    """A parameter as the kernel holds it: a number as float32 (in ``like``'s type when the other parameter is an
    array: the kernel's ``IType`` locals), an array in its computing type."""
    if isinstance(p, np.ndarray):
        return p.astype(_itype(p), copy=False)
    return _itype(like)(_F32(p)) if isinstance(like, np.ndarray) else _F32(p)


def _log(u):
    with np.errstate(divide='ignore'):
        return np.log(u.astype(_F64))


def _neg_log_f(u):
    """``-log(u)`` stored in a float: the build narrows a double function whose result goes straight into a float
    (through a negation) to the float one, ``-logf(u)`` (measured: 0 of 600 values differ from MXNet's this way,
    5-6 the double way; where the result takes more arithmetic in double first, the double function stays)."""
    return -logf(u)


def _times(p, x):
    """``p * x`` for a float ``x``, in p's type (a number: float), rounded to float32."""
    return (p * x.astype(np.result_type(p, _F32))).astype(_F32)


def exponential(u, scale):
    if isinstance(scale, np.ndarray):  # the log stored, then times the scale
        return _times(_param(scale), _neg_log_f(u))
    s, L = _F64(_F32(scale)), _log(u)  # out = -scale * log(u): in double
    return _stored(-s * L, np.abs(s * L) * _ERR, lambda i: -s * math.log(u[i]))


def rayleigh(u, scale):
    L = _log(u)
    with np.errstate(invalid='ignore'):
        r = _stored(np.sqrt(-2 * L), np.sqrt(np.abs(L)) * 2 * _ERR, lambda i: math.sqrt(-2 * math.log(u[i])))
    return _times(_param(scale), r)


def _inverse(a):
    """``DType(1.0 / a)`` / ``IType(1.0 / a)``: the reciprocal in double, stored in float."""
    a = _param(a)
    return (1.0 / np.asarray(a, _F64)).astype(_F32)


def power(u, a):
    base = _F32(1) - u
    return powf(base, np.broadcast_to(_inverse(a), base.shape))


def weibull(u, a):
    base = _neg_log_f(u)  # (a float: the scalar kernel passes -log(u) to powf; the other stores it)
    return powf(base, np.broadcast_to(_inverse(a), base.shape))


def pareto(u, a):
    if not isinstance(a, np.ndarray):  # exp(-log(u) / a) - 1: in double
        d = _F64(_F32(a))
        t = -_log(u) / d
        with np.errstate(over='ignore'):
            e = np.exp(t)
        return _stored(e - 1.0, np.abs(e) * (np.abs(t) + 1) * _ERR, lambda i: math.exp(-math.log(u[i]) / d) - 1.0)
    q = (_neg_log_f(u).astype(_itype(a)) / _param(a)).astype(_itype(a))  # (noise / a in IType)
    with np.errstate(over='ignore'):
        e = np.exp(q.astype(_F64))
    return _stored(e - 1.0, np.abs(e) * _ERR, lambda i: math.exp(float(q[i])) - 1.0)


def _location_scale(noise, loc, scale):
    """``loc + noise * scale`` in the kernel's types: floats for two numbers, else the array's type."""
    like = loc if isinstance(loc, np.ndarray) else scale
    lv, sv = _param(loc, like), _param(scale, like)
    t = np.result_type(lv, sv, _F32)
    return (lv + (noise.astype(t) * sv).astype(t)).astype(_F32)


def logistic(u, loc, scale):
    L = _log(u)
    rest = _F32(1) - u  # (1 - u in float)
    L2 = _log(rest)
    noise = _stored(L - L2, (np.abs(L) + np.abs(L2)) * _ERR, lambda i: math.log(u[i]) - math.log(rest[i]))
    return _location_scale(noise, loc, scale)


def gumbel(u, loc, scale):
    L = _log(u)
    with np.errstate(divide='ignore', invalid='ignore'):
        wide = -np.log(-L)
    noise = _stored(wide, (np.abs(wide) + 1) * _ERR, lambda i: -math.log(-math.log(u[i])))
    return _location_scale(noise, loc, scale)
