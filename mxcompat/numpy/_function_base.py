"""Differences, statistics, histograms, polynomials, windows and padding of ``mx.np``, on torch tensors with
MXNet 1.9.1's dtype rules (integer inputs keep their dtype where MXNet keeps it; floats default to float32)."""
import numbers

import numpy as _np
import torch

from ..base import MXNetValueError, MXNetTypeError, to_torch_dtype
from ..ndarray.ndarray import NDArray
from .multiarray import ndarray, _np_wrap, _operand, _array_input, _default_float, _ctx, promote
from ._op import _tensor, _ctx_of, _finish

__all__ = ['diff', 'ediff1d', 'percentile', 'quantile', 'histogram', 'bincount', 'polyval', 'hanning', 'hamming',
           'blackman', 'pad']

_SCALARS = (numbers.Number, _np.generic)


# ---- differences --------------------------------------------------------------------------------------------------
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis`` (integer arrays keep their dtype; bool arrays are refused,
    as in MXNet). ``prepend``/``append`` are supported (MXNet 1.9.1 refuses them)."""
    t = _tensor('diff', a)
    if n < 0:
        raise MXNetValueError('diff: order must be non-negative but got %d' % n)
    if t.dim() == 0:
        raise MXNetValueError('diff requires input that is at least one dimensional')
    ax = int(axis) % t.dim()
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        e = _operand('diff', extra, like=t).to(t.dtype)
        if e.dim() == 0:
            shape = list(t.shape)
            shape[ax] = 1
            e = e.expand(shape)
        parts.append(e)
    t = torch.cat([p for p in (parts[0], t, parts[1]) if p is not None], dim=ax)
    if t.dtype is torch.bool:
        raise MXNetTypeError('Operator diff: bool arrays are not supported (as in MXNet 1.9.1)')
    for _ in range(int(n)):
        m = builtins_max(t.shape[ax] - 1, 0)
        t = t.narrow(ax, 1, m) - t.narrow(ax, 0, m) if m else t.narrow(ax, 0, 0)
    return _np_wrap(t if n else t.clone(), _ctx_of(a))


builtins_max = max


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with ``to_begin``/``to_end`` (scalars or
    arrays, cast to its dtype) around them."""
    t = _tensor('ediff1d', ary).reshape(-1)
    d = t[1:] - t[:-1] if t.numel() else t
    parts = [d]
    for extra, first in ((to_begin, True), (to_end, False)):
        if extra is None:
            continue
        if isinstance(extra, _SCALARS):
            e = torch.tensor([_cast(extra, t.dtype)], dtype=t.dtype, device=t.device)
        else:
            e = _operand('ediff1d', extra, like=t).to(t.dtype).reshape(-1)
        parts.insert(0, e) if first else parts.append(e)
    return _np_wrap(torch.cat(parts) if len(parts) > 1 else d.clone(), _ctx_of(ary))


def _cast(s, dtype):
    if isinstance(s, _np.generic):
        s = s.item()
    return float(s) if dtype.is_floating_point else (bool(s) if dtype is torch.bool else int(s))


# ---- order statistics -----------------------------------------------------------------------------------------------
_INTERPOLATIONS = ('linear', 'lower', 'higher', 'midpoint', 'nearest')


def _quantile(name, a, q, axis, out, overwrite_input, interpolation, keepdims, scale):
    if overwrite_input is not None:
        raise NotImplementedError('mx.np.%s: overwrite_input is not supported (as in MXNet 1.9.1)' % name)
    if interpolation not in _INTERPOLATIONS:
        raise MXNetValueError("%s: interpolation must be one of %s, got %r" % (name, _INTERPOLATIONS, interpolation))
    t = _array_input(name, a)
    if t.dtype is torch.bool:
        raise MXNetTypeError('Operator %s: bool arrays are not supported (as in MXNet 1.9.1)' % name)
    td = torch.float64 if t.dtype is torch.float64 else _default_float()  # (float16 gives float32, as MXNet)
    work = t.to(torch.float64 if td is torch.float64 else torch.float32)
    qt = torch.tensor(float(q), dtype=work.dtype, device=t.device) if isinstance(q, _SCALARS) else \
        _array_input(name, q).to(work.dtype)
    qt = qt / scale
    if bool(((qt < 0) | (qt > 1)).any()):
        raise MXNetValueError('%s: q must be in the range [0, %s]' % (name, '100' if scale == 100 else '1'))
    nd = work.dim()
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(int(x) % builtins_max(nd, 1) for x in ((axis,) if isinstance(axis, numbers.Integral) else axis))
    keep = [d for d in range(nd) if d not in axes]
    flat = work.permute(keep + list(axes)).reshape([work.shape[d] for d in keep] + [-1])
    r = torch.quantile(flat, qt.reshape(-1), dim=-1, interpolation=interpolation)  # (q, kept axes...)
    if keepdims:
        r = r.reshape((-1,) + tuple(1 if d in axes else work.shape[d] for d in range(nd)))
    r = r.reshape(tuple(qt.shape) + tuple(r.shape[1:]))
    return _finish(r.to(td), _ctx_of(a), out)


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation='linear', keepdims=False):
    """The ``q``-th percentiles along ``axis`` (integer arrays give float32; ``q`` may also be a list)."""
    return _quantile('percentile', a, q, axis, out, overwrite_input, interpolation, keepdims, 100.0)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation='linear', keepdims=False):
    """The ``q``-th quantiles along ``axis`` (integer arrays give float32; ``q`` may also be a list)."""
    return _quantile('quantile', a, q, axis, out, overwrite_input, interpolation, keepdims, 1.0)


# ---- counting -------------------------------------------------------------------------------------------------------
def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002 (NumPy's name)
    """``[counts (int64), bin edges]`` as a list, as MXNet returns it. ``bins``: a count or an ``mx.np`` array of
    edges; without ``range`` the data's minimum and maximum are used (MXNet 1.9.1 needs ``range``); ``weights``
    and ``density`` are supported (MXNet refuses them); ``normed`` raises, as in MXNet."""
    if normed is True:
        raise NotImplementedError('mx.np.histogram: normed is not supported (deprecated by NumPy; use density)')
    t = _tensor('histogram', a).reshape(-1)
    ctx = _ctx_of(a)
    ft = t.dtype if t.is_floating_point() else _default_float()
    if isinstance(bins, numbers.Integral):
        if int(bins) < 1:
            raise MXNetValueError('histogram: bins must be positive, got %d' % bins)
        if range is None:
            lo, hi = (float(t.min()), float(t.max())) if t.numel() else (0.0, 1.0)
        else:
            lo, hi = float(range[0]), float(range[1])
        if lo > hi:
            raise MXNetValueError('histogram: max must be larger than min in range parameter.')
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = torch.linspace(lo, hi, int(bins) + 1, dtype=torch.float64, device=t.device).to(ft)
    elif isinstance(bins, str):
        raise NotImplementedError('mx.np.histogram: string bins are not supported (as in MXNet 1.9.1)')
    else:
        edges = _operand('histogram', bins, like=t)
        if not edges.is_floating_point():
            edges = edges.to(ft)
        if edges.dim() != 1 or bool((edges[1:] < edges[:-1]).any()):
            raise MXNetValueError('histogram: bins must increase monotonically')
    n = edges.shape[0] - 1
    x = t.to(edges.dtype)
    idx = torch.bucketize(x, edges, right=True) - 1
    idx = torch.where(x == edges[-1], torch.full_like(idx, n - 1), idx)  # the last bin is closed on the right
    inside = (idx >= 0) & (idx < n)
    if weights is None:
        counts = torch.zeros(n, dtype=torch.int64, device=t.device).index_add_(
            0, idx[inside], torch.ones_like(idx[inside]))
    else:
        w = _operand('histogram', weights, like=t).reshape(-1)
        counts = torch.zeros(n, dtype=w.dtype, device=t.device).index_add_(0, idx[inside], w[inside])
    if density:
        widths = (edges[1:] - edges[:-1]).to(torch.float64)
        counts = (counts.to(torch.float64) / widths / counts.sum()).to(ft)
    if isinstance(bins, numbers.Integral) and not t.is_floating_point():  # (MXNet: edges in the data's dtype)
        edges = edges.to(t.dtype)
    return [_np_wrap(counts, ctx), _np_wrap(edges.clone() if isinstance(bins, NDArray) else edges, ctx)]


def bincount(x, weights=None, minlength=0):
    """Occurrences of each value of the non-negative integer array ``x`` (its dtype; the ``weights``' dtype
    with weights)."""
    if not isinstance(x, NDArray):
        raise TypeError('mx.np.bincount: x must be an mx.np.ndarray, got %s' % type(x).__name__)
    t = _tensor('bincount', x)
    if t.is_floating_point() or t.dtype is torch.bool:
        raise MXNetTypeError('bincount: x must be of an integer dtype, got %s' % x.dtype)
    if minlength < 0:
        raise MXNetValueError('bincount: minlength must be non-negative, got %d' % minlength)
    t = t.reshape(-1)
    if t.numel() and int(t.min()) < 0:
        raise MXNetValueError('bincount: x must be non-negative')
    n = builtins_max(int(t.max()) + 1 if t.numel() else 0, int(minlength))
    if weights is None:
        r = torch.zeros(n, dtype=t.dtype, device=t.device).index_add_(0, t.long(), torch.ones_like(t))
    else:
        w = _operand('bincount', weights, like=t).reshape(-1)
        r = torch.zeros(n, dtype=w.dtype, device=t.device).index_add_(0, t.long(), w)
    return _np_wrap(r, _ctx_of(x))


# ---- polynomials ----------------------------------------------------------------------------------------------------
def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``; both ``mx.np`` arrays (the promoted
    dtype), or both host values (NumPy's result), as in MXNet."""
    p_mx, x_mx = isinstance(p, ndarray), isinstance(x, ndarray)
    if not p_mx and not x_mx:
        return _np.polyval(p, x)
    if not (p_mx and x_mx):
        raise TypeError('mx.np.polyval: p and x must both be mx.np.ndarray or both not, got %s and %s'
                        % (type(p).__name__, type(x).__name__))
    tp, tx = p._t, x._t
    dt = promote(tp.dtype, tx.dtype)
    tp, tx = tp.to(dt).reshape(-1), tx.to(dt)
    r = torch.zeros_like(tx)
    for i in range(tp.shape[0]):
        r = r * tx + tp[i]
    return _np_wrap(r, x._ctx)


# ---- windows --------------------------------------------------------------------------------------------------------
# MXNet's kernels: the angle 2*pi*n/(M-1) in double with pi as a float32 constant, then cos and the sums in dtype
_PI = float(_np.float32(_np.pi))


def _window(name, terms):
    def f(M, dtype=_np.float32, ctx=None):
        c = _ctx(ctx)
        td = to_torch_dtype(dtype)
        m = int(M)
        if m <= 0:
            return _np_wrap(torch.zeros(0, dtype=td, device=c.torch_device), c)
        if m == 1:
            return _np_wrap(torch.ones(1, dtype=td, device=c.torch_device), c)
        n = torch.arange(m, dtype=torch.float64, device=c.torch_device)
        r = torch.full((m,), terms[0], dtype=td, device=c.torch_device)
        for k, coef in enumerate(terms[1:], 1):
            r = r + torch.tensor(coef, dtype=td) * torch.cos((2 * k * _PI * n / (m - 1)).to(td))
        return _np_wrap(r, c)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` window (float32 by default, as in MXNet).' % name
    return f


hanning = _window('hanning', (0.5, -0.5))
hamming = _window('hamming', (0.54, -0.46))
blackman = _window('blackman', (0.42, -0.5, 0.08))


# ---- padding --------------------------------------------------------------------------------------------------------
_PAD_KWARGS = {'constant': ('constant_values',), 'edge': (), 'reflect': ('reflect_type',),
               'symmetric': ('reflect_type',), 'maximum': ('stat_length',), 'minimum': ('stat_length',),
               'mean': ('stat_length',), 'wrap': ()}


def _pad_index(n, before, after, mode, device):
    """Source positions along an axis of length ``n`` for the padded axis (edge, reflect, symmetric, wrap)."""
    i = torch.arange(-before, n + after, device=device)
    if mode == 'edge':
        return i.clamp(0, n - 1)
    if mode == 'wrap':
        return torch.remainder(i, n)
    if mode == 'reflect':
        if n == 1:
            return torch.zeros_like(i)
        period = 2 * (n - 1)
        j = torch.remainder(i, period)
        return torch.where(j >= n, period - j, j)
    period = 2 * n  # symmetric: the edge repeats
    j = torch.remainder(i, period)
    return torch.where(j >= n, period - 1 - j, j)


def pad(x, pad_width=None, mode='constant', **kwargs):
    """NumPy's ``pad`` for modes 'constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum' (as MXNet),
    and 'mean' and 'wrap' (MXNet refuses these two). ``pad_width`` must be a tuple, as MXNet requires;
    ``stat_length`` and ``reflect_type='odd'`` raise, as in MXNet."""
    t = _tensor('pad', x)
    if not isinstance(pad_width, tuple):
        raise TypeError('mx.np.pad: pad_width must be a tuple, got %s' % type(pad_width).__name__)
    if _np.asarray(pad_width).dtype.kind not in 'iu':
        raise TypeError('mx.np.pad: pad_width must be of an integral type, got %r' % (pad_width,))
    if callable(mode) or mode not in _PAD_KWARGS:
        raise MXNetValueError('mx.np.pad: mode %r is not supported (constant, edge, reflect, symmetric, maximum, '
                              'minimum, mean, wrap are)' % (mode,))
    extra = set(kwargs) - set(_PAD_KWARGS[mode])
    if extra:
        raise MXNetValueError("mx.np.pad: unsupported keyword arguments for mode '%s': %s" % (mode, sorted(extra)))
    if kwargs.get('reflect_type', 'even') not in ('even', None):
        raise MXNetValueError("mx.np.pad: reflect_type %r is not supported (only 'even')" % kwargs['reflect_type'])
    if kwargs.get('stat_length') is not None:
        raise MXNetValueError('mx.np.pad: stat_length is not supported')
    widths = _pairs(pad_width, t.dim())
    if (widths < 0).any():
        raise MXNetValueError("mx.np.pad: index can't contain negative values")
    value = kwargs.get('constant_values', 0)
    if isinstance(value, tuple):
        raise TypeError('mx.np.pad: a tuple constant_values is not supported (as in MXNet 1.9.1)')
    r = t
    for ax in range(t.dim()):
        before, after = int(widths[ax, 0]), int(widths[ax, 1])
        if not before and not after:
            continue
        n = r.shape[ax]
        if mode == 'constant':
            shape_b, shape_a = list(r.shape), list(r.shape)
            shape_b[ax], shape_a[ax] = before, after
            fill = _cast(value, r.dtype)
            r = torch.cat([torch.full(shape_b, fill, dtype=r.dtype, device=r.device), r,
                           torch.full(shape_a, fill, dtype=r.dtype, device=r.device)], dim=ax)
        elif mode in ('maximum', 'minimum', 'mean'):
            if n == 0:
                raise MXNetValueError('mx.np.pad: cannot take the %s of an empty axis' % mode)
            stat = (r.amax(dim=ax, keepdim=True) if mode == 'maximum' else r.amin(dim=ax, keepdim=True)
                    if mode == 'minimum' else _mean_keep(r, ax))
            r = torch.cat([stat.expand(*[before if d == ax else s for d, s in enumerate(r.shape)]), r,
                           stat.expand(*[after if d == ax else s for d, s in enumerate(r.shape)])], dim=ax)
        else:
            if n == 0:
                raise MXNetValueError("mx.np.pad: can't extend an empty axis %d using mode %r" % (ax, mode))
            r = torch.index_select(r, ax, _pad_index(n, before, after, mode, r.device))
    return _np_wrap(r if r is not t else t.clone(), _ctx_of(x))


def _pairs(width, ndim):
    """``pad_width`` as an (ndim, 2) array of (before, after), read as NumPy reads it."""
    w = _np.asarray(width, dtype=_np.int64)
    if w.ndim < 3 and w.size == 1:
        return _np.full((ndim, 2), w.ravel()[0])
    if w.size == 2 and w.shape != (2, 1):
        return _np.broadcast_to(w.ravel(), (ndim, 2))
    return _np.broadcast_to(w, (ndim, 2))


def _mean_keep(t, ax):
    if t.is_floating_point():
        return t.mean(dim=ax, keepdim=True)
    return torch.round(t.double().mean(dim=ax, keepdim=True)).to(t.dtype)

