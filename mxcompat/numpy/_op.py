"""The functions of ``mx.np`` that MXNet computes natively: element-wise math, reductions, shape and joining
functions, sorting and searching, linear algebra products. Each runs on the arrays' torch tensors (so autograd
records it) with MXNet 1.9.1's dtype rules (see ``multiarray``), and binds the matching ``ndarray`` operators and
methods, so that ``a + b`` and ``np.add(a, b)`` are one definition."""
import builtins
import math
import numbers
import operator

import numpy as _np
import torch

from .. import autograd as _ag
from ..base import MXNetValueError, MXNetTypeError, to_torch_dtype
from ..context import current_context
from ..ndarray.ndarray import NDArray, _broadcast_error
from ..util import _check_ufunc_kwargs
from .multiarray import (ndarray, _np_wrap, _operand, _legacy_error, _cast_scalar, _scalar_dtype,
                         _default_float, _write, promote)

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


def _axes(axis, ndim):
    """``axis`` (None, int or tuple) as torch's ``dim``: None for all axes."""
    if axis is None:
        return None
    if isinstance(axis, numbers.Integral):
        return int(axis)
    return tuple(int(a) for a in axis)


# ---- element-wise binary functions --------------------------------------------------------------------------------
# kind: 'arith' promotes mixed dtypes; 'div' too, and gives float32 for integers; 'same' (comparisons, maximum,
# minimum) needs one dtype for two arrays, as MXNet 1.9.1 does.
def _rsub(b, a):
    return torch.sub(a, b)


def _binary(name, fn, kind, scalar_fn, out_bool=False):
    def f(x1, x2, out=None, **kwargs):
        if kwargs:
            _check_ufunc_kwargs(kwargs, name, False)
        if type(x1) is ndarray and type(x2) is ndarray:
            a, b = x1._t, x2._t
            ctx = x1._ctx
        else:
            s1, s2 = isinstance(x1, _SCALARS), isinstance(x2, _SCALARS)
            if s1 and s2:
                return scalar_fn(x1, x2)
            ctx = _ctx_of(x1, x2)
            if s1 or s2:
                t = _tensor(name, x2 if s1 else x1)
                return _finish(_scalar_op(name, fn, kind, t, x1 if s1 else x2, s1), ctx, out)
            a = _tensor(name, x1)
            b = _operand(name, x2, like=a)
        if a.dtype is not b.dtype:
            if kind == 'same':
                raise TypeError('Operator %s: the two arrays have different dtypes (%s, %s); MXNet requires one '
                                'dtype here' % (name, _np.dtype(str(a.dtype)[6:]), _np.dtype(str(b.dtype)[6:])))
            dt = promote(a.dtype, b.dtype)
            a, b = a.to(dt), b.to(dt)
        if kind == 'div' and not a.dtype.is_floating_point:
            a, b = a.to(_default_float()), b.to(_default_float())
        try:
            r = fn(a, b)
        except RuntimeError as e:
            raise _broadcast_error(name, a, b, e) from None
        if (a.requires_grad or b.requires_grad) and not r.requires_grad:  # (a comparison's bool result)
            _ag.keep_in_graph(r, a, b)
        return _finish(r, ctx, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` with MXNet 1.9.1\'s dtype rules (see ``mx.np.ndarray``).' % name
    return f


def _scalar_op(name, fn, kind, t, s, scalar_first):
    dt = _scalar_dtype(t)
    if kind == 'div' and not dt.is_floating_point:
        dt = _default_float()
    if kind != 'same' and t.dtype is not dt:
        t = t.to(dt)
    v = torch.tensor(_cast_scalar(s, t.dtype), dtype=t.dtype, device=t.device)
    r = fn(v, t) if scalar_first else fn(t, v)
    if t.requires_grad and not r.requires_grad:
        _ag.keep_in_graph(r, t)
    return r


def _fmod(a, b):
    return torch.remainder(a, b)


def _floor_divide(a, b):
    return torch.div(a, b, rounding_mode='floor')


def _scalar_div(a, b):
    return a / b


add = _binary('add', torch.add, 'arith', operator.add)
subtract = _binary('subtract', torch.sub, 'arith', operator.sub)
multiply = _binary('multiply', torch.mul, 'arith', operator.mul)
true_divide = _binary('true_divide', torch.true_divide, 'div', _scalar_div)
divide = true_divide
mod = _binary('mod', _fmod, 'arith', operator.mod)
remainder = mod
floor_divide = _binary('floor_divide', _floor_divide, 'arith', operator.floordiv)
power = _binary('power', torch.pow, 'arith', operator.pow)
maximum = _binary('maximum', torch.maximum, 'same', builtins.max)
minimum = _binary('minimum', torch.minimum, 'same', builtins.min)
equal = _binary('equal', torch.eq, 'same', operator.eq)
not_equal = _binary('not_equal', torch.ne, 'same', operator.ne)
greater = _binary('greater', torch.gt, 'same', operator.gt)
greater_equal = _binary('greater_equal', torch.ge, 'same', operator.ge)
less = _binary('less', torch.lt, 'same', operator.lt)
less_equal = _binary('less_equal', torch.le, 'same', operator.le)
logical_and = _binary('logical_and', torch.logical_and, 'same', lambda a, b: bool(a) and bool(b))
logical_or = _binary('logical_or', torch.logical_or, 'same', lambda a, b: bool(a) or bool(b))
logical_xor = _binary('logical_xor', torch.logical_xor, 'same', lambda a, b: bool(a) != bool(b))
bitwise_and = _binary('bitwise_and', torch.bitwise_and, 'arith', operator.and_)
bitwise_or = _binary('bitwise_or', torch.bitwise_or, 'arith', operator.or_)
bitwise_xor = _binary('bitwise_xor', torch.bitwise_xor, 'arith', operator.xor)
arctan2 = _binary('arctan2', torch.atan2, 'div', math.atan2)
hypot = _binary('hypot', torch.hypot, 'div', math.hypot)
copysign = _binary('copysign', torch.copysign, 'div', math.copysign)
ldexp = _binary('ldexp', lambda a, b: a * torch.pow(2.0, b), 'div', math.ldexp)
lcm = _binary('lcm', torch.lcm, 'arith', math.lcm)
fmax = _binary('fmax', torch.fmax, 'same', builtins.max)
fmin = _binary('fmin', torch.fmin, 'same', builtins.min)
fmod = _binary('fmod', torch.fmod, 'arith', math.fmod)


# ---- element-wise unary functions ---------------------------------------------------------------------------------
def _unary(name, fn, scalar_fn, float_out=False):
    """``float_out``: integer inputs give float32 (MXNet 1.9.1 keeps the input dtype for most functions: the
    result of ``sqrt`` of an int32 array is int32)."""
    def f(x, out=None, **kwargs):
        if kwargs:
            _check_ufunc_kwargs(kwargs, name, True)
        if type(x) is ndarray:
            t, ctx = x._t, x._ctx
        elif isinstance(x, _SCALARS):
            return scalar_fn(x)
        else:
            t, ctx = _tensor(name, x), _ctx_of(x)
        r = fn(t)
        if r.dtype is not t.dtype and not (float_out and not t.dtype.is_floating_point) and r.dtype is not torch.bool:
            r = r.to(t.dtype)
        elif float_out and not r.dtype.is_floating_point:
            r = r.to(_default_float())
        return _finish(r, ctx, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (integer inputs keep their dtype, as in MXNet 1.9.1).' % name
    return f


def _as_float(fn):
    def g(t):
        return fn(t if t.is_floating_point() else t.to(_default_float()))
    return g


def _sign(t):
    return torch.sign(t) if t.dtype is not torch.bool else t.clone()


def _logical_not(t):
    return torch.logical_not(t)


abs = _unary('abs', torch.abs, builtins.abs)  # noqa: A001 (NumPy's name)
absolute = abs
fabs = _unary('fabs', torch.abs, math.fabs)
negative = _unary('negative', torch.neg, operator.neg)
positive = _unary('positive', torch.clone, operator.pos)
sign = _unary('sign', _sign, lambda x: (x > 0) - (x < 0))
sqrt = _unary('sqrt', _as_float(torch.sqrt), math.sqrt)
cbrt = _unary('cbrt', _as_float(lambda t: torch.sign(t) * torch.abs(t).pow(1.0 / 3)), _np.cbrt)
square = _unary('square', torch.square, lambda x: x * x)
reciprocal = _unary('reciprocal', _as_float(torch.reciprocal), lambda x: 1.0 / x)
exp = _unary('exp', _as_float(torch.exp), math.exp)
expm1 = _unary('expm1', _as_float(torch.expm1), math.expm1)
log = _unary('log', _as_float(torch.log), _np.log)
log2 = _unary('log2', _as_float(torch.log2), _np.log2)
log10 = _unary('log10', _as_float(torch.log10), _np.log10)
log1p = _unary('log1p', _as_float(torch.log1p), _np.log1p)
sin = _unary('sin', _as_float(torch.sin), math.sin)
cos = _unary('cos', _as_float(torch.cos), math.cos)
tan = _unary('tan', _as_float(torch.tan), math.tan)
arcsin = _unary('arcsin', _as_float(torch.asin), _np.arcsin)
arccos = _unary('arccos', _as_float(torch.acos), _np.arccos)
arctan = _unary('arctan', _as_float(torch.atan), math.atan)
sinh = _unary('sinh', _as_float(torch.sinh), math.sinh)
cosh = _unary('cosh', _as_float(torch.cosh), math.cosh)
tanh = _unary('tanh', _as_float(torch.tanh), math.tanh)
arcsinh = _unary('arcsinh', _as_float(torch.asinh), math.asinh)
arccosh = _unary('arccosh', _as_float(torch.acosh), _np.arccosh)
arctanh = _unary('arctanh', _as_float(torch.atanh), _np.arctanh)
degrees = _unary('degrees', _as_float(torch.rad2deg), math.degrees)
rad2deg = _unary('rad2deg', _as_float(torch.rad2deg), math.degrees)
radians = _unary('radians', _as_float(torch.deg2rad), math.radians)
deg2rad = _unary('deg2rad', _as_float(torch.deg2rad), math.radians)
floor = _unary('floor', torch.floor, math.floor)
ceil = _unary('ceil', torch.ceil, math.ceil)
trunc = _unary('trunc', torch.trunc, math.trunc)
fix = _unary('fix', torch.trunc, math.trunc)
rint = _unary('rint', torch.round, _np.rint)
logical_not = _unary('logical_not', _logical_not, operator.not_)
bitwise_not = _unary('bitwise_not', torch.bitwise_not, operator.invert)
invert = bitwise_not
isnan = _unary('isnan', torch.isnan, math.isnan)
isinf = _unary('isinf', torch.isinf, math.isinf)
isfinite = _unary('isfinite', torch.isfinite, math.isfinite)
isposinf = _unary('isposinf', torch.isposinf, lambda x: x == math.inf)
isneginf = _unary('isneginf', torch.isneginf, lambda x: x == -math.inf)


def around(x, decimals=0, out=None, **kwargs):
    """Round to ``decimals`` places, halves to even (NumPy's rule)."""
    if kwargs:
        _check_ufunc_kwargs(kwargs, 'around', True)
    if isinstance(x, _SCALARS):
        return _np.around(x, decimals)
    t = _tensor('around', x)
    if t.is_floating_point():
        r = torch.round(t, decimals=decimals) if decimals else torch.round(t)
    elif decimals >= 0 or t.dtype is torch.bool:
        r = t.clone()
    else:  # integers to a power of ten: MXNet rounds halves toward zero (25 -> 20, 35 -> 30, -25 -> -20)
        unit = 10 ** (-decimals)
        q = torch.div(t, unit, rounding_mode='trunc')
        rem = t - q * unit
        q = q + torch.where(rem.abs() * 2 > unit, torch.sign(rem), torch.zeros_like(rem))
        r = q * unit
    return _finish(r, _ctx_of(x), out)


round = around  # noqa: A001
round_ = around


def clip(a, a_min, a_max, out=None):
    """Limit values to ``[a_min, a_max]`` (either may be None; bounds cast to the array's dtype)."""
    if a_min is None and a_max is None:
        raise MXNetValueError('array_clip: must set either max or min')
    t = _tensor('clip', a)
    lo = None if a_min is None else _cast_scalar(a_min, t.dtype)
    hi = None if a_max is None else _cast_scalar(a_max, t.dtype)
    return _finish(torch.clamp(t, lo, hi), _ctx_of(a), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN and infinities (``copy=False`` writes into ``x``)."""
    t = _tensor('nan_to_num', x)
    if not t.is_floating_point():
        return x if not copy else _np_wrap(t.clone(), _ctx_of(x))
    r = torch.nan_to_num(t, nan=nan, posinf=posinf, neginf=neginf)
    if not copy and isinstance(x, ndarray):
        with torch.no_grad():
            t.copy_(r)
        return x
    return _np_wrap(r, _ctx_of(x))


# ---- reductions -----------------------------------------------------------------------------------------------------
def _reduced(name, t, axis):
    if t.numel() == 0 and (axis is None or any(t.shape[a] == 0 for a in ((axis,) if isinstance(axis, int)
                                                                         else axis))):
        raise MXNetValueError('zero-size array to reduction operation %s which has no identity' % name)


def _check_where(name, where, initial=None):
    if where is not None and where is not True:
        raise NotImplementedError('mx.np.%s: where= is not supported (MXNet 1.9.1 has no where)' % name)
    if initial is not None:
        raise NotImplementedError('mx.np.%s: initial= is not supported (MXNet 1.9.1 has no initial)' % name)


def _acc_dtype(t):
    """The result dtype of ``sum``/``prod``/``cumsum`` without ``dtype=``: the input's, bool gives float32."""
    return _default_float() if t.dtype is torch.bool else t.dtype


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Sum over ``axis``; integer arrays keep their dtype and bool gives float32, as in MXNet 1.9.1 (NumPy
    gives int64 for both)."""
    _check_where('sum', where, initial)
    t = _tensor('sum', a)
    dim = _axes(axis, t.dim())
    td = to_torch_dtype(dtype) if dtype is not None else _acc_dtype(t)
    if dim == ():
        r = t.to(td, copy=True)
    elif dim is None and not keepdims:
        r = torch.sum(t, dtype=td)
    else:
        r = torch.sum(t, dim=dim if dim is not None else tuple(range(t.dim())), keepdim=keepdims, dtype=td)
    return _finish(r, _ctx_of(a), out)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product over ``axis`` (integer arrays keep their dtype, bool gives float32, as in MXNet 1.9.1)."""
    _check_where('prod', where, initial)
    t = _tensor('prod', a)
    dim = _axes(axis, t.dim())
    td = to_torch_dtype(dtype) if dtype is not None else _acc_dtype(t)
    r = t.to(td)
    if dim is None:
        r = torch.prod(r)
        if keepdims:
            r = r.reshape((1,) * t.dim())
    else:
        for d in sorted((dim,) if isinstance(dim, int) else dim, key=lambda d: d % builtins.max(t.dim(), 1),
                        reverse=True):
            r = torch.prod(r, dim=d, keepdim=keepdims)
    return _finish(r, _ctx_of(a), out)


product = prod


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean over ``axis``; integer and bool arrays give float32 (float64 with NumPy default dtypes)."""
    t = _tensor('mean', a)
    td = to_torch_dtype(dtype) if dtype is not None else (t.dtype if t.is_floating_point() else _default_float())
    dim = _axes(axis, t.dim())
    r = t.to(td)
    if dim == ():
        r = r.clone()
    elif dim is None and not keepdims:
        r = torch.mean(r)
    else:
        r = torch.mean(r, dim=dim if dim is not None else tuple(range(t.dim())), keepdim=keepdims)
    return _finish(r, _ctx_of(a), out)


def _moment(name, fn):
    def f(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        t = _tensor(name, a)
        td = to_torch_dtype(dtype) if dtype is not None else t.dtype
        dim = _axes(axis, t.dim())
        # integers are computed in float64 and the result truncated to the dtype, as MXNet does
        work = t.to(td if td.is_floating_point else torch.float64)
        if dim == ():
            r = torch.zeros_like(work)
        else:
            r = fn(work, dim=dim, correction=ddof, keepdim=keepdims)
        return _finish(r.to(td), _ctx_of(a), out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = ('NumPy\'s ``%s`` (``ddof`` as NumPy); integer arrays keep their dtype (the result truncated), as '
                 'in MXNet 1.9.1.' % name)
    return f


std = _moment('std', torch.std)
var = _moment('var', torch.var)


def _extreme(name, fn):
    def f(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        _check_where(name, where, initial)
        t = _tensor(name, a)
        dim = _axes(axis, t.dim())
        _reduced(name, t, dim)
        if dim is None:
            r = fn(t)
            if keepdims:
                r = r.reshape((1,) * t.dim())
        elif dim == ():
            r = t.clone()
        else:
            r = (torch.amax if fn is torch.max else torch.amin)(t, dim=dim, keepdim=keepdims)
        return _finish(r, _ctx_of(a), out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s``.' % name
    return f


max = _extreme('max', torch.max)  # noqa: A001
amax = max
min = _extreme('min', torch.min)  # noqa: A001
amin = min


def _arg(name, fn):
    def f(a, axis=None, out=None):
        t = _tensor(name, a)
        _reduced('arg' + name[3:], t, axis)
        r = fn(t.reshape(-1)) if axis is None else fn(t, dim=int(axis))
        return _finish(r, _ctx_of(a), out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (int64 indices).' % name
    return f


argmax = _arg('argmax', torch.argmax)
argmin = _arg('argmin', torch.argmin)


def _logical_reduce(name, fn):
    def f(a, axis=None, out=None, keepdims=False):
        t = _tensor(name, a)
        dim = _axes(axis, t.dim())
        b = t.bool() if t.dtype is not torch.bool else t
        if dim is None:
            r = fn(b)
            if keepdims:
                r = r.reshape((1,) * t.dim())
        else:
            r = b
            for d in sorted((dim,) if isinstance(dim, int) else dim, key=lambda d: d % builtins.max(t.dim(), 1),
                            reverse=True):
                r = fn(r, dim=d, keepdim=keepdims)
        return _finish(r, _ctx_of(a), out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (a bool result).' % name
    return f


all = _logical_reduce('all', torch.all)  # noqa: A001
any = _logical_reduce('any', torch.any)  # noqa: A001
sometrue = _logical_reduce('sometrue', torch.any)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum (over the flattened array when ``axis`` is None); integer arrays keep their dtype."""
    t = _tensor('cumsum', a)
    td = to_torch_dtype(dtype) if dtype is not None else _acc_dtype(t)
    src, dim = (t.reshape(-1), 0) if axis is None else (t, int(axis))
    if td is torch.float16 and src.shape[dim] > 1:
        # MXNet (and NumPy) round every partial sum to float16; torch accumulates in float32
        steps = src.to(td).unbind(dim)
        acc = [steps[0]]
        for x in steps[1:]:
            acc.append(acc[-1] + x)
        r = torch.stack(acc, dim)
    else:
        r = torch.cumsum(src, dim=dim, dtype=td)
    return _finish(r, _ctx_of(a), out)


def average(a, axis=None, weights=None, returned=False, out=None):
    """Weighted average over ``axis``."""
    t = _tensor('average', a)
    if not t.is_floating_point():
        t = t.to(_default_float())
    dim = _axes(axis, t.dim())
    if weights is None:
        avg = t.mean() if dim is None else t.mean(dim=dim)
        scl = torch.tensor(float(t.numel() // builtins.max(avg.numel(), 1)), dtype=t.dtype, device=t.device)
        scl = scl.expand(avg.shape)
    else:
        w = _operand('average', weights, like=t).to(t.dtype)
        if w.shape != t.shape:
            if axis is None or w.dim() != 1 or w.shape[0] != t.shape[int(axis)]:
                raise MXNetValueError('average: weights of shape %s do not fit a of shape %s'
                                      % (tuple(w.shape), tuple(t.shape)))
            shape = [1] * t.dim()
            shape[int(axis)] = -1
            w = w.reshape(shape).expand(t.shape)
        scl = w.sum() if dim is None else w.sum(dim=dim)
        avg = ((t * w).sum() if dim is None else (t * w).sum(dim=dim)) / scl
    r = _finish(avg, _ctx_of(a), out)
    return (r, _np_wrap(scl.contiguous(), _ctx_of(a))) if returned else r


# ---- products --------------------------------------------------------------------------------------------------------
def dot(a, b, out=None):
    """NumPy's ``dot``: scalars multiply, 1-D with 1-D is the inner product, N-D with 1-D contracts the last
    axis, N-D with M-D the last axis of ``a`` with the second-to-last of ``b``."""
    ta, tb = _tensor('dot', a), _operand('dot', b, like=_tensor('dot', a))
    if ta.dtype is not tb.dtype:
        dt = promote(ta.dtype, tb.dtype)
        ta, tb = ta.to(dt), tb.to(dt)
    if ta.dim() == 0 or tb.dim() == 0:
        r = ta * tb
    elif tb.dim() == 1 or ta.dim() <= 2 and tb.dim() <= 2:
        r = torch.matmul(ta, tb)
    else:
        r = torch.tensordot(ta, tb, dims=([ta.dim() - 1], [tb.dim() - 2]))
    return _finish(r, _ctx_of(a, b), out)


def matmul(a, b, out=None, **kwargs):
    """NumPy's ``matmul`` (broadcast batches; scalars are refused, as NumPy does)."""
    if kwargs:
        _check_ufunc_kwargs(kwargs, 'matmul', False)
    ta = _tensor('matmul', a)
    tb = _operand('matmul', b, like=ta)
    if ta.dim() == 0 or tb.dim() == 0:
        raise MXNetValueError('matmul: Input operand does not have enough dimensions')
    if ta.dtype is not tb.dtype:
        dt = promote(ta.dtype, tb.dtype)
        ta, tb = ta.to(dt), tb.to(dt)
    try:
        r = torch.matmul(ta, tb)
    except RuntimeError as e:
        raise MXNetValueError('matmul: shapes %s and %s do not fit (%s)' % (tuple(ta.shape), tuple(tb.shape),
                                                                         str(e).splitlines()[0])) from None
    return _finish(r, _ctx_of(a, b), out)


def tensordot(a, b, axes=2):
    """NumPy's ``tensordot``."""
    ta = _tensor('tensordot', a)
    tb = _operand('tensordot', b, like=ta)
    if isinstance(axes, numbers.Integral):
        dims = int(axes)
    else:
        x, y = axes
        dims = ([x] if isinstance(x, numbers.Integral) else list(x), [y] if isinstance(y, numbers.Integral)
                else list(y))
    return _np_wrap(torch.tensordot(ta, tb, dims=dims), _ctx_of(a, b))


def inner(a, b):
    """NumPy's ``inner``: contracts the last axes."""
    ta = _tensor('inner', a)
    tb = _operand('inner', b, like=ta)
    if ta.dim() == 0 or tb.dim() == 0:
        return _np_wrap(ta * tb, _ctx_of(a, b))
    return _np_wrap(torch.tensordot(ta, tb, dims=([ta.dim() - 1], [tb.dim() - 1])), _ctx_of(a, b))


def outer(a, b):
    """NumPy's ``outer`` of the flattened inputs."""
    ta = _tensor('outer', a)
    tb = _operand('outer', b, like=ta)
    return _np_wrap(torch.outer(ta.reshape(-1), tb.reshape(-1)), _ctx_of(a, b))


def vdot(a, b):
    """NumPy's ``vdot`` of the flattened inputs."""
    ta = _tensor('vdot', a)
    tb = _operand('vdot', b, like=ta)
    return _np_wrap(torch.dot(ta.reshape(-1), tb.reshape(-1)), _ctx_of(a, b))


def einsum(*operands, **kwargs):
    """NumPy's ``einsum`` (``optimize`` is accepted and ignored: torch chooses the contraction order)."""
    out = kwargs.pop('out', None)
    kwargs.pop('optimize', None)
    if kwargs:
        raise TypeError('einsum() got unexpected keyword argument(s) %s' % sorted(kwargs))
    subscripts, arrays = operands[0], operands[1:]
    ts = [_tensor('einsum', x) for x in arrays]
    return _finish(torch.einsum(subscripts, *ts), _ctx_of(*arrays), out)


# ---- binding to the array class -------------------------------------------------------------------------------------
def _reflected(fn):
    def r(self, other):
        return fn(other, self)
    return r


def _inplace(fn):
    def i(self, other):
        return fn(self, other, out=self)
    return i


for _name, _fn in (('add', add), ('sub', subtract), ('mul', multiply), ('truediv', true_divide),
                   ('mod', mod), ('pow', power), ('floordiv', floor_divide), ('and', bitwise_and),
                   ('or', bitwise_or), ('xor', bitwise_xor)):
    setattr(ndarray, '__%s__' % _name, _fn)
    setattr(ndarray, '__r%s__' % _name, _reflected(_fn))
    setattr(ndarray, '__i%s__' % _name, _inplace(_fn))
for _name, _fn in (('eq', equal), ('ne', not_equal), ('gt', greater), ('ge', greater_equal), ('lt', less),
                   ('le', less_equal)):
    setattr(ndarray, '__%s__' % _name, _fn)
ndarray.__matmul__ = matmul
ndarray.__rmatmul__ = _reflected(matmul)
ndarray.__neg__ = negative
ndarray.__pos__ = positive
ndarray.__abs__ = abs
ndarray.__invert__ = bitwise_not
ndarray.__hash__ = None
for _fn in (sum, prod, mean, std, var, max, min, argmax, argmin, all, any, cumsum, clip, round, dot):
    setattr(ndarray, _fn.__name__, _fn)
ndarray.round = around
del _name, _fn


def _eq_method(fn):
    def m(self, other):
        if isinstance(other, NDArray) and not isinstance(other, ndarray):
            raise _legacy_error(fn.__name__, other)
        if other is None:
            return False
        return fn(self, other)
    return m


ndarray.__eq__ = _eq_method(equal)
ndarray.__ne__ = _eq_method(not_equal)
__all__ = [n for n in dir() if not n.startswith('_') and n not in ('builtins', 'math', 'numbers', 'operator',
                                                                      'torch', 'MXNetError', 'MXNetValueError',
                                                                      'to_torch_dtype', 'current_context',
                                                                      'NDArray', 'ndarray', 'promote', 'array')]
