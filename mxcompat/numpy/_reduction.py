"""The reductions of ``mx.np`` (sum, prod, mean, var, std, max, min, argmax, argmin, all, any, cumsum,
average) on torch tensors with MXNet 1.9.1's dtype rules, and the ``ndarray`` methods that call them. Inputs must
be mx.np arrays (MXNet asserts it); an axis out of range raises MXNetIndexError."""
import builtins
import numbers

import numpy as _np
import torch

from .. import autograd as _ag
from ..base import MXNetValueError, MXNetTypeError, MXNetIndexError, to_torch_dtype, unsupported
from ..operator.extra_ops import cumsum_along
from ..operator.reduce import extremum_with_ties
from .._recording import track_recorded as _track_recorded
from .multiarray import ndarray, _np_wrap, _array_input, _default_float, promote
from ._fastcall import fast as _fast
from ._op import _finish, _new, _STATE, _WIDE_FLOATS

__all__ = ['sum', 'prod', 'product', 'mean', 'var', 'std', 'max', 'amax', 'min', 'amin', 'argmax', 'argmin', 'all',
           'any', 'sometrue', 'cumsum', 'average']


def _norm_axes(name, axis, ndim, scalar_axis=False):
    """``axis`` (None, an int or a tuple) as a sorted tuple of non-negative axes, or None for all of them.
    ``scalar_axis``: a 0-d array takes axis 0 or -1 (reducing nothing), as MXNet's sum, mean, argmax... do."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    if ndim == 0 and scalar_axis and builtins.all(int(a) in (0, -1) for a in axes):
        return ()
    out = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise MXNetIndexError('Operator %s: axis %d is out of bounds for an array of dimension %d'
                                  % (name, ax, ndim))
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise MXNetValueError('Operator %s: duplicate value in axis %r' % (name, axis))
    return tuple(sorted(out))


def _check_unsupported(name, initial=None):
    if initial is not None:
        raise unsupported('mx.np.%s' % name, 'initial=', 'MXNet 1.9.1 refuses it too')


def _each_axis(fn, t, axes, keepdims, **kw):
    """``fn(t, dim=d, keepdim=...)`` over every axis of ``axes`` (torch functions taking one dim)."""
    for d in reversed(axes):
        t = fn(t, dim=d, keepdim=keepdims, **kw)
    return t


def _reduce(fn, t, axes, keepdims, **kw):
    """``fn`` (sum, mean, amax ... taking a tuple of dims) over ``axes`` (None: all)."""
    if axes is None:
        axes = tuple(range(t.dim()))
        if not keepdims:
            return fn(t, **kw)
    if not axes:  # (no axis reduced: the elements themselves, in the dtype asked for)
        return t.to(kw['dtype'], copy=True) if 'dtype' in kw else t.clone()
    return fn(t, dim=axes, keepdim=keepdims, **kw)


def _sum_dtype(t, dtype):
    """The result dtype of sum/prod/cumsum: ``dtype``, else the input's (bool gives int64, as in MXNet)."""
    if dtype is not None:
        return to_torch_dtype(dtype)
    return torch.int64 if t.dtype is torch.bool else t.dtype


def sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):  # noqa: A001 (MXNet's order)
    """Sum over ``axis``; integer arrays keep their dtype and bool gives int64, as in MXNet 1.9.1 (NumPy widens
    to int64); a float array summed to an integer ``dtype`` is summed in its dtype and the result cast."""
    if type(a) is ndarray:
        t = a._t
        d = a._dt
        if d is None:
            d = a._dt = t.dtype
    else:
        t = _array_input('sum', a)
        d = t.dtype
    if dtype is None and out is None and not keepdims and initial is None and d in _WIDE_FLOATS:
        if axis is None:  # the common cases
            r = torch.sum(t)
        elif type(axis) is int and -t.dim() <= axis < t.dim():
            r = torch.sum(t, axis)
        else:
            r = None
        if r is not None:
            w = _new(ndarray)
            if r.requires_grad:
                if _STATE.recording:
                    _track_recorded(w)
                else:
                    r = r.detach()
            w._t = r
            w._ctx = a._ctx
            w._dt = d
            return w
    if initial is not None:
        _check_unsupported('sum', initial)
    td = _sum_dtype(t, dtype)
    axes = _norm_axes('sum', axis, t.dim(), True) if axis is not None else None
    if t.is_floating_point() and not td.is_floating_point:
        r = _reduce(torch.sum, t, axes, keepdims).to(td)
    elif td is torch.float16:  # (MXNet accumulates float16 in float32)
        r = _reduce(torch.sum, t, axes, keepdims, dtype=torch.float32).to(td)
    else:
        r = _reduce(torch.sum, t, axes, keepdims, dtype=td)
    if out is None:
        return _np_wrap(r, a._ctx)
    return _finish(r, a._ctx, out)


sum = _fast('UNARY', sum, torch.sum, direct=_WIDE_FLOATS)  # noqa: A001 (np.sum(a) compiled: see _fastcall)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):  # (MXNet's order)
    """Product over ``axis`` (integer arrays keep their dtype, bool gives int64, as in MXNet 1.9.1)."""
    t = _array_input('prod', a)
    _check_unsupported('prod', initial)
    td = _sum_dtype(t, dtype)
    axes = _norm_axes('prod', axis, t.dim(), True)
    if axes is None:
        r = torch.prod(t, dtype=td)
        if keepdims:
            r = r.reshape((1,) * t.dim())
    elif not axes:
        r = t.to(td, copy=True)
    else:
        r = _each_axis(torch.prod, t, axes, keepdims, dtype=td)
    return _finish(r.to(td), a._ctx, out)


product = prod


def _fast(fn, a, axis, result_dtype=None):
    """``fn(t)`` or ``fn(t, axis)`` for a float32 or float64 ``mx.np`` array ``a`` and a valid int or None ``axis``,
    as a new array (its dtype ``result_dtype``, else ``a``'s); None where the general path must run."""
    if type(a) is not ndarray:
        return None
    t = a._t
    d = a._dt
    if d is None:
        d = a._dt = t.dtype
    if d not in _WIDE_FLOATS:
        return None
    try:  # (an empty axis and the like: the general path raises MXNet's error)
        if axis is None:
            r = fn(t)
        elif type(axis) is int and -t.dim() <= axis < t.dim():
            r = fn(t, axis)
        else:
            return None
    except (RuntimeError, IndexError):
        return None
    w = _np_wrap(r, a._ctx)
    w._dt = result_dtype or d
    return w


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean over ``axis``; integer and bool arrays give float32 (float64 with NumPy default dtypes); an integer
    ``dtype`` sums in that dtype (wrapping around, as NumPy and MXNet do) and truncates the quotient."""
    if dtype is None and out is None and not keepdims:  # the common case
        w = _fast(torch.mean, a, axis)
        if w is not None:
            return w
    t = _array_input('mean', a)
    td = to_torch_dtype(dtype) if dtype is not None else (t.dtype if t.is_floating_point() else _default_float())
    axes = _norm_axes('mean', axis, t.dim(), True)
    # computed in the input's float dtype and cast to ``dtype`` (the gradient in the input's precision, as MXNet's);
    # float16 accumulates in float32, integers in float64
    work = t.to(torch.float64 if not t.is_floating_point() else torch.float32 if t.dtype is torch.float16
                else t.dtype)
    r = _reduce(torch.mean, work, axes, keepdims)
    if not td.is_floating_point:
        n = t.numel() // builtins.max(r.numel(), 1) if t.numel() else 0
        total = _reduce(torch.sum, t.detach(), axes, keepdims, dtype=td)
        quotient = torch.trunc(total.to(torch.float64) / builtins.max(n, 1)).to(td)
        # (backward from the integer mean goes through the float one, as in MXNet)
        return _finish(_ag.keep_in_graph(quotient, surrogate=r), a._ctx, out)
    return _finish(r.to(td), a._ctx, out)


def _moment(name, root):
    def f(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        t = _array_input(name, a)
        if t.dtype is torch.bool:
            raise MXNetTypeError('Operator %s: bool arrays are not supported (as in MXNet 1.9.1)' % name)
        td = to_torch_dtype(dtype) if dtype is not None else t.dtype
        axes = _norm_axes(name, axis, t.dim())
        dims = tuple(range(t.dim())) if axes is None else axes
        if not dims:  # each element its own sample
            r = torch.zeros_like(t, dtype=torch.float64) / (1 - ddof)
        elif t.is_floating_point():
            work = t.to(td) if td.is_floating_point else t
            r = torch.var(work.float() if work.dtype is torch.float16 else work, dim=dims, correction=ddof,
                          keepdim=keepdims)
        else:
            # MXNet takes the mean in the integer dtype (truncated), then the squared deviations in float64
            n = int(_np.prod([t.shape[d] for d in dims]))
            centre = torch.div(t.sum(dim=dims, keepdim=True), builtins.max(n, 1), rounding_mode='trunc')
            dev = t.to(torch.float64) - centre.to(torch.float64)
            r = (dev * dev).sum(dim=dims, keepdim=keepdims) / (n - ddof)
        if root:
            r = torch.sqrt(r)
        return _finish(r.to(td), a._ctx, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = ('NumPy\'s ``%s`` (``ddof`` as NumPy); integer arrays keep their dtype and use MXNet 1.9.1\'s '
                 'integer mean (truncated), so the result matches MXNet\'s, not NumPy\'s.' % name)
    return f


var = _moment('var', False)
std = _moment('std', True)


def _check_nonempty(name, t, axes):
    if t.numel() == 0 and (axes is None or builtins.any(t.shape[d] == 0 for d in axes)):
        raise MXNetValueError('Operator %s: zero-size array to reduction operation which has no identity' % name)


def _extreme(name, fn, fast_fn):
    def f(a, axis=None, keepdims=False, out=None, initial=None):  # (MXNet's order)
        if out is None and not keepdims and initial is None:  # the common case
            w = _fast(fast_fn, a, axis)
            if w is not None:
                return w
        t = _array_input(name, a)
        _check_unsupported(name, initial)
        axes = _norm_axes(name, axis, t.dim())
        _check_nonempty(name, t, axes)
        r = _reduce(fn, t, axes, keepdims)
        return _finish(r, a._ctx, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (NaN propagates).' % name
    return f


def _tied(fn):
    """``fn`` (torch.amax or amin) over ``dim`` (None: all), the gradient to every tied element as in MXNet."""
    def f(t, dim=None, keepdim=False):
        return extremum_with_ties(fn, t, tuple(range(t.dim())) if dim is None else dim, keepdim)
    return f


_amax, _amin = _tied(torch.amax), _tied(torch.amin)


def _max(t, axis=None):
    if t.requires_grad:
        return _amax(t, None if axis is None else (axis,))
    return torch.max(t) if axis is None else torch.amax(t, axis)  # (torch.max of all elements is the cheaper)


def _min(t, axis=None):
    if t.requires_grad:
        return _amin(t, None if axis is None else (axis,))
    return torch.min(t) if axis is None else torch.amin(t, axis)


max = _extreme('max', _amax, _max)  # noqa: A001
amax = max
min = _extreme('min', _amin, _min)  # noqa: A001
amin = min


def _arg(name, fn):
    def f(a, axis=None, out=None):
        if out is None:  # the common case
            w = _fast(fn, a, axis, torch.int64)
            if w is not None:
                return w
        t = _array_input(name, a)
        if t.dtype is torch.bool:
            raise MXNetTypeError('Operator %s: bool arrays are not supported (as in MXNet 1.9.1)' % name)
        axes = _norm_axes(name, axis, t.dim(), True)
        _check_nonempty(name, t, axes)
        if axes == ():  # (a 0-d array along axis 0)
            r = torch.zeros((), dtype=torch.int64, device=t.device)
        else:
            r = fn(t.reshape(-1)) if axes is None else fn(t, dim=axes[0])
        return _finish(r, a._ctx, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (int64 indices; a NaN counts as the extreme, as in NumPy).' % name
    return f


argmax = _arg('argmax', torch.argmax)
argmin = _arg('argmin', torch.argmin)


def _logical_reduce(name, fn):
    def f(a, axis=None, keepdims=False, out=None):
        t = _array_input(name, a)
        axes = _norm_axes(name, axis, t.dim())
        b = t if t.dtype is torch.bool else t != 0
        if axes is None:
            r = fn(b)
            if keepdims:
                r = r.reshape((1,) * t.dim())
        else:
            r = _each_axis(fn, b, axes, keepdims)
        return _finish(r, a._ctx, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (a bool result).' % name
    return f


all = _logical_reduce('all', torch.all)  # noqa: A001
any = _logical_reduce('any', torch.any)  # noqa: A001
sometrue = _logical_reduce('sometrue', torch.any)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum (over the flattened array when ``axis`` is None); integer arrays keep their dtype, bool
    gives int64; float16 rounds every partial sum, as MXNet's kernel does."""
    t = _array_input('cumsum', a)
    td = _sum_dtype(t, dtype)
    src, dim = (t.reshape(-1), 0) if axis is None else (t, _norm_axes('cumsum', axis, t.dim())[0])
    return _finish(cumsum_along(src, dim, td), a._ctx, out)


def average(a, axis=None, weights=None, returned=False, out=None):
    """Weighted average over ``axis``; integer arrays keep their dtype (the average truncated), as in MXNet
    1.9.1; ``returned`` gives ``[average, sum of weights]`` (a list, as MXNet)."""
    t = _array_input('average', a)
    if t.dtype is torch.bool:
        raise MXNetTypeError('Operator average: bool arrays are not supported (as in MXNet 1.9.1)')
    axes = _norm_axes('average', axis, t.dim())
    dims = tuple(range(t.dim())) if axes is None else axes
    if weights is None:
        td = t.dtype
        work = t if t.is_floating_point() else t.to(torch.float64)
        avg = work.mean(dim=dims) if dims else work.clone()
        # (MXNet gives the count as one 0-d array, not one per result)
        scl = torch.tensor(float(int(_np.prod([t.shape[d] for d in dims]))), dtype=work.dtype, device=t.device)
    else:
        w = _array_input('average', weights)
        td = promote(t.dtype, w.dtype)
        wd = td if td.is_floating_point else torch.float64
        work, w = t.to(wd), w.to(wd)
        if w.shape != t.shape:
            if axes is None or len(axes) != 1 or w.dim() != 1 or w.shape[0] != t.shape[axes[0]]:
                raise MXNetValueError('average: weights of shape %s do not fit a of shape %s along axis %s'
                                      % (tuple(w.shape), tuple(t.shape), axis))
            shape = [1] * t.dim()
            shape[axes[0]] = -1
            w = w.reshape(shape)
        w = w.expand(t.shape)
        scl = w.sum(dim=dims)
        avg = (work * w).sum(dim=dims) / scl
    r = _finish(avg.to(td), a._ctx, out)
    return [r, _np_wrap(scl.to(td), a._ctx)] if returned else r


# ---- binding to the array class -------------------------------------------------------------------------------------
def _method(fn, names):
    """``fn`` as a method taking MXNet's method parameters ``names`` (NumPy's order: ``a.sum(axis, dtype, out,
    keepdims)``; the function takes MXNet's operator order)."""
    def m(self, *args, **kwargs):
        if args:
            if len(args) > len(names):
                raise TypeError('%s() takes at most %d positional arguments' % (fn.__name__, len(names) + 1))
            kwargs.update(zip(names, args))
        return fn(self, **kwargs)
    m.__name__ = m.__qualname__ = fn.__name__
    m.__doc__ = fn.__doc__
    return m


def _sum_method(self, axis=None, dtype=None, out=None, keepdims=False):
    """``mx.np.sum`` of this array (NumPy's parameter order)."""
    return sum(self, axis, dtype, keepdims, None, out)


def _max_method(self, axis=None, out=None, keepdims=False):
    """``mx.np.max`` of this array (NumPy's parameter order)."""
    return max(self, axis, keepdims, out)


def _min_method(self, axis=None, out=None, keepdims=False):
    """``mx.np.min`` of this array (NumPy's parameter order)."""
    return min(self, axis, keepdims, out)


ndarray.sum = _sum_method
ndarray.max = _max_method
ndarray.min = _min_method
for _fn, _params in ((prod, ('axis', 'dtype', 'out', 'keepdims')),
                     (all, ('axis', 'out', 'keepdims')), (any, ('axis', 'out', 'keepdims'))):
    setattr(ndarray, _fn.__name__, _method(_fn, _params))
for _name, _fn in (('mean', mean), ('std', std), ('var', var), ('argmax', argmax), ('argmin', argmin),
                   ('cumsum', cumsum)):
    setattr(ndarray, _name, _fn)
del _name, _fn, _params
