"""The functions of ``mx.np`` that MXNet computes natively: element-wise math and linear algebra products (the
reductions are in ``_reduction``; shape, joining, sorting and searching in ``_manip``). Each runs on the arrays'
torch tensors (so autograd records it) with MXNet 1.9.1's dtype rules (see ``multiarray``), and binds the matching
``ndarray`` operators and methods, so that ``a + b`` and ``np.add(a, b)`` are one definition."""
import numbers

import numpy as _np
import torch

from .. import autograd as _ag
from ..base import MXNetValueError, MXNetTypeError
from ..context import current_context
from ..ndarray.ndarray import NDArray, _broadcast_error, _check_recorded_write
from ..util import _check_ufunc_kwargs
from .._recording import track_recorded as _track_recorded
from ._fastcall import fast as _fast
from .multiarray import (ndarray, _dtypes_differ, _dtype_name, _np_wrap, _operand, _legacy_error, _scalar_as,
                         _array_input, _default_float, _write, promote)

_SCALARS = (numbers.Number, _np.generic)


def _ctx_of(*xs):
    for x in xs:
        if isinstance(x, NDArray):
            return x._ctx
    return current_context()


def _finish(r, ctx, out):
    if out is None:
        return _np_wrap(r, ctx)
    if isinstance(out, ndarray) and out._t.dtype is not r.dtype:
        # MXNet infers the output's dtype and refuses an out= array of another one
        raise MXNetTypeError('out= array of dtype %s given for a result of dtype %s'
                             % (out.dtype, _np.dtype(str(r.dtype)[6:])))
    return _write(out, r)


def _tensor(name, x):
    """The tensor of input ``x`` of ``mx.np.<name>`` (array-likes are converted as ``np.array`` does)."""
    if type(x) is ndarray:
        return x._t
    return _operand(name, x)


# ---- element-wise binary functions --------------------------------------------------------------------------------
# How MXNet 1.9.1 pairs the dtypes of two arrays, by kind of function (measured: tests/fixtures/np_ops):
#   'arith'  add, multiply, power: the promoted dtype (``promote``); uint8 with int8 is refused
#   'sub'    subtract, mod: one dtype (not bool), or a float with anything: the promoted dtype
#   'div'    true_divide: one dtype (integers and bool give float32), or an integer with a float: the float
#   'same'   maximum, minimum, copysign, ldexp: one non-bool dtype;  'cmp' comparisons: one dtype (bool too)
#   'int'    bitwise_and/or/xor, lcm: one integer or bool dtype
#   'float'  arctan2, hypot: one floating dtype
# With a Python scalar the array's dtype decides (the scalar is cast to it: int32 * 2.5 multiplies by 2), except
# that bool arrays give int64 (comparisons and 'int' functions: bool), integers under true_divide give float32,
# 'int' functions refuse float arrays and 'float' functions compute integers in float64 and truncate back.
# Lists and host NumPy arrays are refused (TypeError), as MXNet's functions do.
def _pair_dtype(name, kind, da, db):
    """The dtype ``kind``'s function computes arrays of dtypes ``da`` and ``db`` in (MXNetTypeError if MXNet
    refuses the pair)."""
    fa, fb = da.is_floating_point, db.is_floating_point
    if da is db:
        if kind == 'div' and not fa:
            return _default_float()
        ok = {'sub': da is not torch.bool, 'same': da is not torch.bool, 'int': not fa, 'float': fa}.get(kind, True)
        if ok:
            return da
    elif kind == 'arith' and {da, db} != {torch.uint8, torch.int8}:
        return promote(da, db)
    elif kind == 'sub' and (fa or fb):
        return promote(da, db)
    elif kind == 'div' and fa != fb:
        return da if fa else db
    raise MXNetTypeError('Operator %s: MXNet does not take arrays of dtypes %s and %s together here'
                         % (name, _dtype_name(da), _dtype_name(db)))


def _scalar_dtypes(name, kind, d):
    """(compute dtype, result dtype) of ``kind``'s function on an array of dtype ``d`` and a Python scalar."""
    if d is torch.bool:
        if kind == 'cmp' or kind == 'int' and name != 'lcm':
            return d, d
        if kind == 'div':
            return _default_float(), _default_float()
        if kind == 'int':
            raise MXNetTypeError('Operator %s: bool arrays are not supported' % name)
        d = torch.int64
    if d.is_floating_point:
        if kind == 'int':
            raise MXNetTypeError('Operator %s: arrays of dtype %s are not supported' % (name, _dtype_name(d)))
        return d, d
    if kind == 'div':
        return _default_float(), _default_float()
    if kind == 'float':
        return torch.float64, d
    return d, d


def _rules(name, kind):
    """The dtype rules of one function, cached by dtype (they are looked up on every call)."""
    pairs, scalars = {}, {}

    def pair(da, db):
        try:
            return pairs[(da, db)]
        except KeyError:
            pairs[(da, db)] = dt = _pair_dtype(name, kind, da, db)
            return dt

    def scalar(d):
        try:
            return scalars[d]
        except KeyError:
            scalars[d] = r = _scalar_dtypes(name, kind, d)
            return r
    return pair, scalar


def _not_an_operand(name, x):
    if isinstance(x, NDArray):
        return _legacy_error(name, x)
    return TypeError('Operator `%s`: an operand must be an mx.np.ndarray or a Python scalar, got %s.%s'
                     % (name, type(x).__module__, type(x).__name__))


# the dtypes mx.np arrays have
_DTYPES = (torch.bool, torch.int8, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64)
# torch functions that take a Python number as their second operand (the others get a 0-d tensor)
_TAKE_NUMBER = (torch.add, torch.sub, torch.mul, torch.true_divide, torch.pow, torch.eq, torch.ne, torch.gt,
                torch.ge, torch.lt, torch.le, torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor,
                torch.remainder, torch.fmod, torch.clamp_min, torch.clamp_max)
# functions whose torch form takes tensors only: the torch function taking a Python number instead
_NUMBER_FN = {'power': torch.pow, 'maximum': torch.clamp_min, 'minimum': torch.clamp_max}
_FLOATS = frozenset((torch.float16, torch.float32, torch.float64))
_WIDE_FLOATS = frozenset((torch.float32, torch.float64))
_new = object.__new__
_STATE = _ag.STATE
_NO_DTYPE = object()


def _binary_fast(name, fn, direct, float_direct, number_fn, general):  # noqa: C901 (fast paths written out inline)
    """(function, operator method) computing ``fn`` straight on the tensors in the common cases (two arrays of one
    dtype of ``direct``, or a float array of ``float_direct`` and a Python number), else ``general``. Written out
    for each kind of result (see _binary_fast_cmp): every check here is on the per-call budget."""
    array, new, state, track = ndarray, _new, _STATE, _track_recorded  # (closure cells: faster than globals)
    f32 = torch.float32 if torch.float32 in direct else _NO_DTYPE  # (never an array's _dt, None included)

    def f(x1, x2, out=None, **kwargs):
        if type(x1) is array and out is None and not kwargs:
            da = x1._dt
            if type(x2) is array:
                if da is x2._dt and (da is f32 or da in direct):
                    try:
                        r = fn(x1._t, x2._t)
                    except RuntimeError as e:
                        raise _broadcast_error(name, x1._t, x2._t, e) from None
                    w = new(array)
                    if r.requires_grad:  # (variables used outside autograd.record())
                        if state.recording:
                            track(w)
                        else:
                            r = r.detach()
                    w._t = r
                    w._ctx = x1._ctx
                    w._dt = da
                    return w
            elif (type(x2) is float or type(x2) is int) and da in float_direct:
                r = number_fn(x1._t, x2)
                w = new(array)
                if r.requires_grad:
                    if state.recording:
                        track(w)
                    else:
                        r = r.detach()
                w._t = r
                w._ctx = x1._ctx
                w._dt = da
                return w
        return general(x1, x2, out, kwargs)

    def method(self, other):
        # ``self (op) other``: f's fast path for two arrays (an operator's per-call cost is the budget)
        if type(other) is array:
            da = self._dt
            if da is other._dt and (da is f32 or da in direct):
                try:
                    r = fn(self._t, other._t)
                except RuntimeError as e:
                    raise _broadcast_error(name, self._t, other._t, e) from None
                w = new(array)
                if r.requires_grad:
                    if state.recording:
                        track(w)
                    else:
                        r = r.detach()
                w._t = r
                w._ctx = self._ctx
                w._dt = da
                return w
        return f(self, other)
    return f, method


def _binary_fast_cmp(name, fn, direct, float_direct, number_fn, general):
    """_binary_fast for comparisons: a bool result, and the fast path only outside record() (torch's autograd
    cannot carry a bool result in the graph: the general path keeps it there)."""
    array, new, state, bool_ = ndarray, _new, _STATE, torch.bool

    def f(x1, x2, out=None, **kwargs):
        if type(x1) is array and out is None and not kwargs and not state.recording:
            da = x1._dt
            if type(x2) is array:
                if da is x2._dt and da in direct:
                    try:
                        r = fn(x1._t, x2._t)
                    except RuntimeError as e:
                        raise _broadcast_error(name, x1._t, x2._t, e) from None
                    w = new(array)
                    w._t = r
                    w._ctx = x1._ctx
                    w._dt = bool_
                    return w
            elif (type(x2) is float or type(x2) is int) and da in float_direct:
                w = new(array)
                w._t = number_fn(x1._t, x2)  # (torch compares in the array's dtype: the number cast first, as MXNet)
                w._ctx = x1._ctx
                w._dt = bool_
                return w
        return general(x1, x2, out, kwargs)

    def method(self, other):
        if type(other) is array and not state.recording:
            da = self._dt
            if da is other._dt and da in direct:
                try:
                    r = fn(self._t, other._t)
                except RuntimeError as e:
                    raise _broadcast_error(name, self._t, other._t, e) from None
                w = new(array)
                w._t = r
                w._ctx = self._ctx
                w._dt = bool_
                return w
        return f(self, other)
    return f, method


def _binary_general(name, fn, kind, pair, scalar, host_fn, number_ok):
    """The binary function of _binary for every operand kind: arrays of any dtypes (promoted by ``pair``), Python
    numbers (``scalar``'s rules; two numbers: NumPy's ``host_fn``), ``out=`` and NumPy's keywords."""
    def general(x1, x2, out, kwargs):
        if kwargs:
            _check_ufunc_kwargs(kwargs, name, False)
        for x in (x1, x2):
            if type(x) is ndarray and x._dt is None:
                x._dt = x._t.dtype  # (the dtype the fast path compares, known from now on)
        if type(x1) is not ndarray or type(x2) is not ndarray:
            s1, s2 = isinstance(x1, _SCALARS), isinstance(x2, _SCALARS)
            if s1 or s2:
                return _with_number(name, fn, scalar, host_fn, number_ok, x1, x2, s1, s2, out)
            for x in (x1, x2):
                if not isinstance(x, ndarray):
                    raise _not_an_operand(name, x)
        a, b = x1._t, x2._t
        ctx = x1._ctx
        da, db = a.dtype, b.dtype
        dt = pair(da, db)
        if da is not dt:
            a = _promote(a, dt)
        if db is not dt:
            b = _promote(b, dt)
        try:
            r = fn(a, b)
        except RuntimeError as e:
            raise _broadcast_error(name, a, b, e) from None
        if r.dtype is not dt and kind != 'cmp':  # (torch computed integers in float: cast back)
            r = r.to(dt)
        if (a.requires_grad or b.requires_grad) and not r.requires_grad:  # (a comparison's bool result)
            _ag.keep_in_graph(r, a, b)
        if out is None:
            return _np_wrap(r, ctx)
        return _finish(r, ctx, out)
    return general


def _with_number(name, fn, scalar, host_fn, number_ok, x1, x2, s1, s2, out):
    """A binary function with a Python number as operand ``x1`` (``s1``) or ``x2`` (``s2``), or both."""
    if s1 and s2:  # MXNet hands two scalars to official NumPy
        return host_fn(x1, x2)
    arr = x2 if s1 else x1
    if not isinstance(arr, ndarray):
        raise _not_an_operand(name, arr)
    r = _scalar_op(fn, scalar, arr._t, x1 if s1 else x2, s1, number_ok)
    return _np_wrap(r, arr._ctx) if out is None else _finish(r, arr._ctx, out)


def _binary(name, fn, kind):
    """``fn`` (on tensors of one dtype) as MXNet's function ``name`` with the dtype rules of ``kind``."""
    pair, scalar = _rules(name, kind)
    host_fn = getattr(_np, name, None)
    # two arrays of one of these dtypes compute directly, the result in that dtype and in the graph where the
    # inputs are (bitwise functions take the general path; comparisons, whose bool results torch's autograd cannot
    # carry, only outside record())
    direct = frozenset(d for d in _DTYPES if kind != 'int' and fn not in (_copysign, _ldexp)
                       and _pair_ok(name, kind, d))
    number_ok = fn in _TAKE_NUMBER
    # a float array with a Python number: torch keeps the array's dtype, as MXNet does (``number_fn``: the torch
    # function taking the number, where ``fn`` takes tensors only)
    number_fn = _NUMBER_FN.get(name, fn)
    float_direct = direct & {torch.float16, torch.float32, torch.float64} if number_fn in _TAKE_NUMBER else frozenset()

    general = _binary_general(name, fn, kind, pair, scalar, host_fn, number_ok)
    if kind == 'cmp':
        f, method = _binary_fast_cmp(name, fn, direct, float_direct, number_fn, general)
    else:
        f, method = _binary_fast(name, fn, direct, float_direct, number_fn, general)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` with MXNet 1.9.1\'s dtype rules (see ``_op``\'s notes).' % name
    mode = 'COMPARE' if kind == 'cmp' else 'BINARY'
    f.method = _fast(mode, method, fn, number_fn, None, direct, float_direct)
    return _fast(mode, f, fn, number_fn, None, direct, float_direct)


def _promote(t, dt):
    """``t`` cast to a binary operator's dtype ``dt``. An integer variable made float this way enters as a constant:
    MXNet's mixed-precision operators send their integer input no gradient (a cast by ``astype`` passes it)."""
    if isinstance(t, _ag._IntGradTensor) and dt.is_floating_point and not t.is_floating_point():
        t = t.as_subclass(torch.Tensor)
    return t.to(dt)


def _pair_ok(name, kind, d):
    try:
        return _pair_dtype(name, kind, d, d) is d  # (for a comparison: the dtype it compares in)
    except MXNetTypeError:
        return False


def _scalar_op(fn, scalar, t, s, scalar_first, number_ok):
    compute, result = scalar(t.dtype)
    v = _scalar_as(s, result)
    if result is torch.uint8 and not 0 <= v < 256:  # (cast as C casts: -3 is 253)
        v %= 256
    if t.dtype is not compute:
        t = t.to(compute)
    if scalar_first or not number_ok:
        v = torch.tensor(v, dtype=compute, device=t.device)
    r = fn(v, t) if scalar_first else fn(t, v)
    if r.dtype is not result and r.dtype is not torch.bool:
        r = r.to(result)
    if t.requires_grad and not r.requires_grad:
        _ag.keep_in_graph(r, t)
    return r


def _power(a, b):
    if a.dtype is torch.bool:  # (torch has no bool pow): x ** y is x or not y
        return a | ~b
    return torch.pow(a, b)


def _lcm(a, b):
    if a.dtype is torch.bool:
        return a & b
    return torch.lcm(a, b)


def _copysign(a, b):
    return torch.copysign(a, b)


def _ldexp(a, b):
    return a * torch.pow(2.0, b)  # (integers: in float, truncated back)


def _mod(a, b):
    # MXNet's kernel gives 0 where the divisor is 0 (floats and integers alike)
    zero = b == 0
    if not zero.any():
        return torch.remainder(a, b)
    return torch.where(zero, torch.zeros_like(a), torch.remainder(a, torch.where(zero, torch.ones_like(b), b)))


def _floor_divide(a, b):
    return torch.div(a, b, rounding_mode='floor')


add = _binary('add', torch.add, 'arith')
subtract = _binary('subtract', torch.sub, 'sub')
multiply = _binary('multiply', torch.mul, 'arith')
true_divide = _binary('true_divide', torch.true_divide, 'div')
divide = true_divide
mod = _binary('mod', _mod, 'sub')
remainder = mod
power = _binary('power', _power, 'arith')
maximum = _binary('maximum', torch.maximum, 'same')
minimum = _binary('minimum', torch.minimum, 'same')
equal = _binary('equal', torch.eq, 'cmp')
not_equal = _binary('not_equal', torch.ne, 'cmp')
greater = _binary('greater', torch.gt, 'cmp')
greater_equal = _binary('greater_equal', torch.ge, 'cmp')
less = _binary('less', torch.lt, 'cmp')
less_equal = _binary('less_equal', torch.le, 'cmp')
bitwise_and = _binary('bitwise_and', torch.bitwise_and, 'int')
bitwise_or = _binary('bitwise_or', torch.bitwise_or, 'int')
bitwise_xor = _binary('bitwise_xor', torch.bitwise_xor, 'int')
lcm = _binary('lcm', _lcm, 'int')
arctan2 = _binary('arctan2', torch.atan2, 'float')
hypot = _binary('hypot', torch.hypot, 'float')
copysign = _binary('copysign', _copysign, 'same')
ldexp = _binary('ldexp', _ldexp, 'same')
# not in MXNet 1.9.1's mx.np (NumPy's, with the rules of their kind)
floor_divide = _binary('floor_divide', _floor_divide, 'sub')
logical_and = _binary('logical_and', torch.logical_and, 'cmp')
logical_or = _binary('logical_or', torch.logical_or, 'cmp')
logical_xor = _binary('logical_xor', torch.logical_xor, 'cmp')
fmax = _binary('fmax', torch.fmax, 'same')
fmin = _binary('fmin', torch.fmin, 'same')
fmod = _binary('fmod', torch.fmod, 'sub')


# ---- element-wise unary functions ---------------------------------------------------------------------------------
# Integer inputs keep their dtype (MXNet 1.9.1: sqrt of an int32 array is int32); bool inputs are refused except
# by the logical, bitwise and is* functions; Python scalars go to official NumPy, as in MXNet; lists are refused.
_BOOL_OK = ('logical_not', 'bitwise_not', 'invert', 'isnan', 'isinf', 'isfinite', 'isposinf', 'isneginf')


def _unary_general(name, fn, host_fn, bool_ok, float_only):
    """The unary function of _unary for every operand: Python numbers (NumPy's ``host_fn``), integer and bool
    arrays, ``out=`` and NumPy's keywords."""
    def general(x, out, kwargs):
        if isinstance(x, _SCALARS):
            return host_fn(x)
        if not isinstance(x, ndarray):
            raise _not_an_operand(name, x)
        if kwargs:
            _check_ufunc_kwargs(kwargs, name, True)
        t, ctx = x._t, x._ctx
        x._dt = t.dtype  # (the dtype the fast path looks at, known from now on)
        if t.dtype is torch.bool and not bool_ok:
            raise MXNetTypeError('Operator %s: bool arrays are not supported (as in MXNet 1.9.1)' % name)
        r = fn(t if not float_only or t.is_floating_point() else t.to(torch.float64))
        if r.dtype is not t.dtype and r.dtype is not torch.bool:
            r = r.to(t.dtype)
        if out is None:
            return _np_wrap(r, ctx)
        return _finish(r, ctx, out)
    return general


def _unary(name, fn, host_name=None, float_only=False):
    """``fn`` as MXNet's unary function ``name``. ``float_only``: ``fn`` is a torch function of floats; integer
    inputs are computed in float64 and the result cast back to their dtype."""
    host_fn = getattr(_np, host_name or name)
    bool_ok = name in _BOOL_OK
    direct = frozenset((torch.float16, torch.float32, torch.float64) if float_only else
                       [d for d in _DTYPES if d is not torch.bool or bool_ok])
    array, new, state, track = ndarray, _new, _STATE, _track_recorded  # (closure cells: faster than globals)
    general = _unary_general(name, fn, host_fn, bool_ok, float_only)
    f32 = torch.float32 if torch.float32 in direct else _NO_DTYPE

    def f(x, out=None, **kwargs):
        if type(x) is array and out is None and not kwargs:
            d = x._dt
            if d is f32 or d in direct:  # the common case: a float array, nothing to convert
                r = fn(x._t)
                w = new(array)
                if r.requires_grad:
                    if state.recording:
                        track(w)
                    else:
                        r = r.detach()
                w._t = r
                w._ctx = x._ctx
                w._dt = None if bool_ok else d  # (isnan and the like give bool)
                return w
        return general(x, out, kwargs)

    def method(self):
        # ``op self`` (``-a``, ``abs(a)``): f's fast path without its keywords
        t = self._t
        d = self._dt
        if d is None:
            d = self._dt = t.dtype
        if d in direct:
            r = fn(t)
            w = new(array)
            if r.requires_grad:
                if state.recording:
                    track(w)
                else:
                    r = r.detach()
            w._t = r
            w._ctx = self._ctx
            w._dt = None if bool_ok else d
            return w
        if d is torch.bool and name == 'negative':  # (MXNet negates by multiplying with -1: int64)
            return multiply(self, -1)
        return f(self)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (integer inputs keep their dtype, as in MXNet 1.9.1).' % name
    result_dt = None if bool_ok else ...
    f.method = _fast('UNARY', method, fn, direct=direct, result_dt=result_dt)
    return _fast('UNARY', f, fn, direct=direct, result_dt=result_dt)


def _bitwise_not(t):
    if not t.numel():
        return t.clone()
    if t.is_floating_point():
        raise MXNetTypeError('Operator bitwise_not: arrays of dtype %s are not supported' % _dtype_name(t.dtype))
    return torch.bitwise_not(t)


def _rint(t):
    # MXNet rounds halves away from zero (NumPy's rint: to even)
    return torch.sign(t) * torch.floor(torch.abs(t) + 0.5) if t.is_floating_point() else t.clone()


def _cbrt(t):
    return torch.sign(t) * torch.abs(t).pow(1.0 / 3)


abs = _unary('abs', torch.abs)  # noqa: A001 (NumPy's name)
absolute = abs
fabs = _unary('fabs', torch.abs)
negative = _unary('negative', torch.neg)
positive = _unary('positive', torch.clone)
sign = _unary('sign', torch.sign)
sqrt = _unary('sqrt', torch.sqrt, float_only=True)
cbrt = _unary('cbrt', _cbrt, float_only=True)
square = _unary('square', torch.square)
reciprocal = _unary('reciprocal', torch.reciprocal, float_only=True)
exp = _unary('exp', torch.exp, float_only=True)
expm1 = _unary('expm1', torch.expm1, float_only=True)
log = _unary('log', torch.log, float_only=True)
log2 = _unary('log2', torch.log2, float_only=True)
log10 = _unary('log10', torch.log10, float_only=True)
log1p = _unary('log1p', torch.log1p, float_only=True)
sin = _unary('sin', torch.sin, float_only=True)
cos = _unary('cos', torch.cos, float_only=True)
tan = _unary('tan', torch.tan, float_only=True)
arcsin = _unary('arcsin', torch.asin, float_only=True)
arccos = _unary('arccos', torch.acos, float_only=True)
arctan = _unary('arctan', torch.atan, float_only=True)
sinh = _unary('sinh', torch.sinh, float_only=True)
cosh = _unary('cosh', torch.cosh, float_only=True)
tanh = _unary('tanh', torch.tanh, float_only=True)
arcsinh = _unary('arcsinh', torch.asinh, float_only=True)
arccosh = _unary('arccosh', torch.acosh, float_only=True)
arctanh = _unary('arctanh', torch.atanh, float_only=True)
degrees = _unary('degrees', torch.rad2deg, float_only=True)
radians = _unary('radians', torch.deg2rad, float_only=True)
floor = _unary('floor', torch.floor)
ceil = _unary('ceil', torch.ceil)
trunc = _unary('trunc', torch.trunc)
fix = _unary('fix', torch.trunc)
rint = _unary('rint', _rint)
logical_not = _unary('logical_not', torch.logical_not)
bitwise_not = _unary('bitwise_not', _bitwise_not)
invert = bitwise_not
isnan = _unary('isnan', torch.isnan)
isinf = _unary('isinf', torch.isinf)
isfinite = _unary('isfinite', torch.isfinite)
isposinf = _unary('isposinf', torch.isposinf)
isneginf = _unary('isneginf', torch.isneginf)
# not in MXNet 1.9.1's mx.np (NumPy's names for degrees/radians)
rad2deg = _unary('rad2deg', torch.rad2deg, float_only=True)
deg2rad = _unary('deg2rad', torch.deg2rad, float_only=True)


def around(x, decimals=0, out=None, **kwargs):
    """Round to ``decimals`` places, halves to even (NumPy's rule); integers to negative ``decimals`` are
    truncated (MXNet 1.9.1: 25 -> 20, -16 -> -10); bool arrays are refused, as in MXNet."""
    if kwargs:
        _check_ufunc_kwargs(kwargs, 'around', True)
    if isinstance(x, _SCALARS):
        return _np.around(x, decimals)
    t = _array_input('around', x)
    if t.dtype is torch.bool:
        raise MXNetTypeError('Operator around: bool arrays are not supported (as in MXNet 1.9.1)')
    if t.is_floating_point():
        r = torch.round(t, decimals=decimals) if decimals else torch.round(t)
    elif decimals >= 0:
        r = t.clone()
    else:
        unit = 10 ** (-decimals)
        r = torch.div(t, unit, rounding_mode='trunc') * unit
    return _finish(r, x._ctx, out)


round = around  # noqa: A001
round_ = around


def _bound(name, v, dtype):
    """A clip bound as a Python number, or None where it cannot bind an array of ``dtype`` (an integer array
    compares with the bound as a number: -120 does not bind uint8)."""
    if v is None:
        return None
    if isinstance(v, (ndarray, _np.ndarray)) and v.ndim == 0:  # MXNet takes a 0-d array's value (np.max(x))
        v = v.item()
    if not isinstance(v, _SCALARS):
        raise MXNetTypeError('Operator %s: the bounds must be scalars or 0-d arrays, got %s of shape %s'
                             % (name, type(v).__name__, getattr(v, 'shape', ())))
    if dtype.is_floating_point:
        return float(v)
    info = torch.iinfo(dtype)
    if v < info.min or v > info.max:
        return None
    return int(_np.floor(v)) if v > 0 else int(_np.ceil(v))


def clip(a, a_min, a_max, out=None):
    """Limit values to ``[a_min, a_max]`` (either may be None); with ``a_min > a_max`` the result is ``a_min``
    below ``a_min`` and ``a_max`` elsewhere, as MXNet's kernel gives; bool arrays are refused, as in MXNet."""
    if type(a) is ndarray and out is None and type(a_min) is float and type(a_max) is float and a_min <= a_max:
        d = a._dt  # the common case: a float array between two float bounds
        if d is None:
            d = a._dt = a._t.dtype
        if d in _FLOATS:
            return _np_wrap(torch.clamp(a._t, a_min, a_max), a._ctx)
    if a_min is None and a_max is None:
        raise MXNetValueError('array_clip: must set either max or min')
    if isinstance(a, _SCALARS):  # MXNet hands a scalar to official NumPy
        return _np.clip(a, a_min, a_max)
    t = _array_input('clip', a)
    if t.dtype is torch.bool:
        raise MXNetTypeError('Operator clip: bool arrays are not supported (as in MXNet 1.9.1)')
    lo, hi = _bound('clip', a_min, t.dtype), _bound('clip', a_max, t.dtype)
    if lo is not None and hi is not None and lo > hi:
        r = torch.where(t > hi, torch.full_like(t, hi), torch.where(t < lo, torch.full_like(t, lo), t))
    elif lo is None and hi is None:
        r = t.clone()
    else:
        r = torch.clamp(t, lo, hi)
    return _finish(r, a._ctx, out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN and infinities (``copy=False`` writes into ``x``)."""
    t = _array_input('nan_to_num', x)
    if not t.is_floating_point():
        return x if not copy else _np_wrap(t.clone(), x._ctx)
    # (the gradient is 1 where x is finite and 0 at what was replaced, as MXNet's)
    r = torch.where(torch.isfinite(t), t, torch.nan_to_num(t.detach(), nan=nan, posinf=posinf, neginf=neginf))
    if not copy:
        with torch.no_grad():
            t.copy_(r)
        if not (r.requires_grad and _STATE.recording):
            return x
        # recorded: x keeps its place in the graph (a variable's gradient is still x.grad); the result carries it
    return _np_wrap(r, x._ctx)


# ---- products --------------------------------------------------------------------------------------------------------
# The operands must be mx.np arrays of one dtype (MXNet's type inference refuses mixed dtypes). Integer, bool and
# float16 operands are computed (MXNet 1.9.1's BLAS kernels refuse them) in their dtype.
def _two_arrays(name, a, b):
    ta = a._t if type(a) is ndarray else _array_input(name, a)
    tb = b._t if type(b) is ndarray else _array_input(name, b)
    if ta.dtype is not tb.dtype:
        raise _dtypes_differ(name, 'the operands', ta.dtype, tb.dtype)
    return ta, tb


def _product(name, fn, ta, tb, *args):
    """``fn(ta, tb, *args)`` with torch's shape errors as MXNet's and integer results in the operands' dtype."""
    if ta.dtype is torch.bool:
        r = fn(ta.to(torch.int64), tb.to(torch.int64), *args) != 0
    else:
        try:
            r = fn(ta, tb, *args)
        except RuntimeError as e:
            raise MXNetValueError('Operator %s: shapes %s and %s do not fit (%s)' % (
                name, tuple(ta.shape), tuple(tb.shape), str(e).splitlines()[0])) from None
    return r if r.dtype is ta.dtype else r.to(ta.dtype)


def _dot(ta, tb):
    if ta.dim() == 0 or tb.dim() == 0:
        return ta * tb
    if tb.dim() == 1 or ta.dim() <= 2 and tb.dim() <= 2:
        return torch.matmul(ta, tb)
    return torch.tensordot(ta, tb, dims=([ta.dim() - 1], [tb.dim() - 2]))


def dot(a, b, out=None):
    """NumPy's ``dot``: 0-d operands multiply, 1-D with 1-D is the inner product, N-D with 1-D contracts the
    last axis, N-D with M-D the last axis of ``a`` with the second-to-last of ``b``."""
    if type(a) is ndarray and type(b) is ndarray and out is None:  # the common cases: a matrix or a vector b
        ta, tb = a._t, b._t
        nb = tb.dim()
        if nb == 2 or nb == 1:
            try:  # (torch refuses an ``a`` of other dimensions, two dtypes, and dtypes it has no kernel for: the
                # general path then)
                r = torch.mm(ta, tb) if nb == 2 else torch.mv(ta, tb) if ta.dim() == 2 else torch.matmul(ta, tb)
            except RuntimeError:
                pass
            else:
                w = _new(ndarray)
                if r.requires_grad:
                    if _STATE.recording:
                        _track_recorded(w)
                    else:
                        r = r.detach()
                w._t = r
                w._ctx = a._ctx
                w._dt = a._dt  # (the operands' one dtype)
                return w
    ta, tb = _two_arrays('dot', a, b)
    return _finish(_product('dot', _dot, ta, tb), a._ctx, out)


dot = _fast('DOT', dot, torch.mm, torch.mv, torch.matmul)


def matmul(a, b, out=None, **kwargs):
    """NumPy's ``matmul`` (broadcast batches; 0-d operands are refused, as NumPy does)."""
    if type(a) is ndarray and type(b) is ndarray and out is None and not kwargs:  # the common case
        try:  # (0-d operands, two dtypes, a dtype without a kernel: the general path raises or computes)
            r = torch.matmul(a._t, b._t)
        except RuntimeError:
            pass
        else:
            return _np_wrap(r, a._ctx)
    if kwargs:
        _check_ufunc_kwargs(kwargs, 'matmul', False)
    ta, tb = _two_arrays('matmul', a, b)
    if ta.dim() == 0 or tb.dim() == 0:
        raise MXNetValueError('matmul: Input operand does not have enough dimensions')
    return _finish(_product('matmul', torch.matmul, ta, tb), a._ctx, out)


def _tensordot_dims(axes, ta, tb):
    if isinstance(axes, numbers.Integral):
        return int(axes)
    x, y = axes
    return ([x] if isinstance(x, numbers.Integral) else list(x), [y] if isinstance(y, numbers.Integral)
            else list(y))


def tensordot(a, b, axes=2):
    """NumPy's ``tensordot``."""
    ta, tb = _two_arrays('tensordot', a, b)
    return _np_wrap(_product('tensordot', torch.tensordot, ta, tb, _tensordot_dims(axes, ta, tb)), a._ctx)


def _inner(ta, tb):
    if ta.dim() == 0 or tb.dim() == 0:
        return ta * tb
    return torch.tensordot(ta, tb, dims=([ta.dim() - 1], [tb.dim() - 1]))


def inner(a, b):
    """NumPy's ``inner``: contracts the last axes."""
    ta, tb = _two_arrays('inner', a, b)
    return _np_wrap(_product('inner', _inner, ta, tb), a._ctx)


def _outer(ta, tb):
    return torch.outer(ta.reshape(-1), tb.reshape(-1))


def outer(a, b):
    """NumPy's ``outer`` of the flattened inputs."""
    ta, tb = _two_arrays('outer', a, b)
    return _np_wrap(_product('outer', _outer, ta, tb), a._ctx)


def _vdot(ta, tb):
    return torch.dot(ta.reshape(-1), tb.reshape(-1))


def vdot(a, b):
    """NumPy's ``vdot`` of the flattened inputs."""
    ta, tb = _two_arrays('vdot', a, b)
    return _np_wrap(_product('vdot', _vdot, ta, tb), a._ctx)


def einsum(*operands, **kwargs):
    """NumPy's ``einsum`` (``optimize`` is accepted and has no effect: torch chooses the contraction order);
    integer operands keep their dtype."""
    out = kwargs.pop('out', None)
    kwargs.pop('optimize', None)
    if kwargs:
        raise TypeError('einsum() got unexpected keyword argument(s) %s' % sorted(kwargs))
    subscripts, arrays = operands[0], operands[1:]
    ts = [_array_input('einsum', x) for x in arrays]
    try:
        r = torch.einsum(subscripts, *ts)
    except RuntimeError as e:
        raise MXNetValueError('Operator einsum: %s' % str(e).splitlines()[0]) from None
    if ts and r.dtype is not ts[0].dtype:
        r = r.to(ts[0].dtype)
    return _finish(r, arrays[0]._ctx if arrays else current_context(), out)


# ---- binding to the array class -------------------------------------------------------------------------------------
def _reflected(fn):
    def r(self, other):
        return fn(other, self)
    return r


def _inplace(fn):
    def i(self, other):
        if _STATE.recording:  # (MXNet's refusals of in-place writes under record())
            _check_recorded_write(self._t, other._t if isinstance(other, NDArray) else other, None, reads=True)
        return fn(self, other, out=self)
    return i


# the operators; MXNet 1.9.1's mx.np.ndarray has no reflected bitwise operators (2 & a raises TypeError)
for _name, _fn in (('add', add), ('sub', subtract), ('mul', multiply), ('truediv', true_divide), ('mod', mod),
                   ('pow', power), ('floordiv', floor_divide)):
    setattr(ndarray, '__%s__' % _name, _fn.method)
    setattr(ndarray, '__r%s__' % _name, _reflected(_fn))
    setattr(ndarray, '__i%s__' % _name, _inplace(_fn))
for _name, _fn in (('and', bitwise_and), ('or', bitwise_or), ('xor', bitwise_xor)):
    setattr(ndarray, '__%s__' % _name, _fn.method)
    setattr(ndarray, '__r%s__' % _name, None)
    setattr(ndarray, '__i%s__' % _name, _inplace(_fn))
for _name, _fn in (('gt', greater), ('ge', greater_equal), ('lt', less), ('le', less_equal)):
    setattr(ndarray, '__%s__' % _name, _fn.method)
ndarray.__matmul__ = matmul
ndarray.__rmatmul__ = _reflected(matmul)
ndarray.__pos__ = None  # (MXNet 1.9.1's mx.np.ndarray has no unary +: ``+a`` raises TypeError)
ndarray.__abs__ = abs.method
ndarray.__invert__ = bitwise_not.method
ndarray.__neg__ = negative.method
ndarray.__imatmul__ = _inplace(matmul)
ndarray.__floor__, ndarray.__ceil__, ndarray.__trunc__ = floor, ceil, trunc  # (math.floor(a): an array, as MXNet)
ndarray.__round__ = lambda self, ndigits=0: around(self, ndigits)  # noqa: E731


def _clip_method(self, min=None, max=None, out=None):  # noqa: A002 (MXNet's names)
    """``clip(self, min, max)``."""
    return clip(self, min, max, out=out)


def _legacy_only(name):
    def m(self, *args, **kwargs):
        raise AttributeError('mxnet.numpy.ndarray object has no attribute %s (a legacy mx.nd.NDArray method; use '
                             'the mx.np or mx.npx function)' % name)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = 'Not a method of ``mx.np.ndarray`` in MXNet 1.9.1: raises AttributeError.'
    return m


ndarray.__eq__ = equal.method  # (``a == None`` raises TypeError, as in MXNet)
# the common cases of a[3] and a.reshape(4, 16) compiled too (see _fastcall)
ndarray.__getitem__ = _fast('GETITEM', ndarray.__getitem__)
ndarray.reshape = _fast('RESHAPE', ndarray.reshape)
ndarray.__ne__ = not_equal.method
# the methods MXNet's mx.np.ndarray has that are functions of mx.np
for _name, _fn in (('round', around), ('dot', dot), ('clip', _clip_method)):
    setattr(ndarray, _name, _fn)
# legacy NDArray methods MXNet's mx.np.ndarray refuses with AttributeError
for _name in ('reshape_like', 'zeros_like', 'ones_like', 'broadcast_axes', 'broadcast_like', 'pad', 'split',
              'split_v2', 'slice', 'slice_axis', 'slice_like', 'one_hot', 'pick', 'topk', 'argmax_channel', 'abs',
              'sign', 'shape_array', 'size_array', 'expand_dims', 'tile', 'flip', 'depth_to_space', 'space_to_depth',
              'diag', 'nansum', 'nanprod', 'norm', 'rint', 'fix', 'floor', 'ceil', 'trunc', 'sin', 'cos', 'tan',
              'arcsin', 'arccos', 'arctan', 'degrees', 'radians', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh',
              'arctanh', 'exp', 'expm1', 'log', 'log10', 'log2', 'log1p', 'sqrt', 'rsqrt', 'cbrt', 'rcbrt', 'square',
              'reciprocal', 'relu', 'sigmoid', 'softmax', 'log_softmax', 'softmin'):
    setattr(ndarray, _name, _legacy_only(_name))
del _name, _fn

__all__ = [n for n in dir() if not n.startswith('_') and n not in ('numbers', 'torch', 'MXNetValueError',
                                                                      'MXNetTypeError', 'current_context', 'NDArray',
                                                                      'ndarray', 'promote')]
