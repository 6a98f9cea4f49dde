"""The shape, joining, splitting, indexing, sorting and searching functions of ``mx.np``."""
import builtins
import functools
import numbers

import numpy as _np
import torch

from ..base import MXNetError, MXNetValueError, MXNetIndexError
from ..ndarray.ndarray import NDArray
from .multiarray import ndarray, _dtypes_differ, _np_wrap, _operand, _reshape, _ctx, _perm, _copy, array
from ._op import _tensor, _ctx_of, _finish

__all__ = ['reshape', 'ravel', 'transpose', 'swapaxes', 'moveaxis', 'expand_dims', 'squeeze', 'broadcast_to',
           'broadcast_arrays', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'concatenate', 'stack', 'hstack', 'vstack',
           'dstack', 'column_stack', 'row_stack', 'append', 'split', 'array_split', 'hsplit', 'vsplit', 'dsplit',
           'tile', 'repeat', 'flip', 'fliplr', 'flipud', 'roll', 'rot90', 'diag', 'diagonal', 'diagflat', 'trace',
           'tril', 'triu', 'where', 'nonzero', 'argwhere', 'flatnonzero', 'take', 'sort', 'argsort', 'unique',
           'copy', 'shape', 'ndim', 'size', 'resize', 'delete', 'insert', 'unravel_index', 'diag_indices_from',
           'shares_memory', 'may_share_memory', 'genfromtxt']


def _ts(name, arrays):
    """The tensors of a sequence of arrays, which must have one dtype (MXNet's type inference refuses mixed
    dtypes in the joining functions)."""
    if isinstance(arrays, NDArray):
        arrays = list(arrays)
    ts = [_tensor(name, a) for a in arrays]
    if not ts:
        raise MXNetValueError('%s: need at least one array' % name)
    dt = ts[0].dtype
    for t in ts[1:]:
        if t.dtype is not dt:
            raise _dtypes_differ(name, 'the arrays', dt, t.dtype)
    return ts


def reshape(a, newshape, order='C', out=None):
    """NumPy's ``reshape`` (``order='C'`` only; MXNet silently takes 'F' as 'C'): a new array, as MXNet's (NumPy
    gives a view where the data allow one)."""
    if type(a) is ndarray and out is None and order == 'C':
        return a.reshape(newshape)
    if order != 'C':
        raise NotImplementedError('mx.np.reshape: order=%r is not supported (MXNet: only C)' % order)
    a = a if isinstance(a, ndarray) else _np_wrap(_tensor('reshape', a), _ctx_of(a))
    r = _reshape(a, (newshape,) if isinstance(newshape, numbers.Integral) else newshape)
    return r if out is None else _finish(r._t, r._ctx, out)


def ravel(x, order='C'):
    """The flattened array (a new array, as MXNet's; NumPy gives a view where it can)."""
    if order != 'C':
        raise NotImplementedError('mx.np.ravel: order=%r is not supported (MXNet: only C)' % order)
    return _np_wrap(_copy(_tensor('ravel', x).reshape(-1)), _ctx_of(x))


def transpose(a, axes=None):
    """Permute the axes (reversed when ``axes`` is None); a new array, as MXNet's (NumPy gives a view)."""
    t = _tensor('transpose', a)
    perm = tuple(range(t.dim() - 1, -1, -1)) if axes is None else _perm('transpose', axes, t.dim())
    return _np_wrap(_copy(t.permute(perm)), _ctx_of(a))


def swapaxes(a, axis1, axis2):
    """Interchange two axes (a new array, as MXNet's; NumPy gives a view)."""
    return _np_wrap(_copy(_tensor('swapaxes', a).transpose(axis1, axis2)), _ctx_of(a))


def moveaxis(a, source, destination):
    """Move axes to new positions (a new array, as MXNet's; NumPy gives a view)."""
    return _np_wrap(_copy(torch.movedim(_tensor('moveaxis', a), source, destination)), _ctx_of(a))


def expand_dims(a, axis):
    """Insert a length-1 axis at ``axis`` (an int or a tuple of ints); a new array, as MXNet's (NumPy gives a
    view)."""
    t = _tensor('expand_dims', a)
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    nd = t.dim() + len(axes)
    if builtins.any(not -nd <= x < nd for x in axes):
        raise MXNetIndexError('expand_dims: axis %s is out of bounds for the result of %d dimensions' % (axis, nd))
    for ax in sorted(x % nd for x in axes):
        t = t.unsqueeze(ax)
    return _np_wrap(_copy(t), _ctx_of(a))


def squeeze(a, axis=None, out=None):
    """Remove length-1 axes (``axis``: only those, which must have length 1; a 0-d array takes axis 0 or -1, as
    in MXNet)."""
    a = a if isinstance(a, ndarray) else _np_wrap(_tensor('squeeze', a), _ctx_of(a))
    if a._t.dim() == 0 and axis is not None and tuple(axis if isinstance(axis, tuple) else (axis,)) in (
            (0,), (-1,)):
        axis = None
    r = a.squeeze(axis)
    return r if out is None else _finish(r._t, r._ctx, out)


def broadcast_to(array, shape):  # noqa: A002
    """``array`` broadcast to ``shape`` (a copy: a written-to broadcast view would alias); a -2 in ``shape`` keeps
    the input's size there (MXNet's extension, aligned from the right)."""
    t = _tensor('broadcast_to', array)
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    if -2 in shape:
        lead = len(shape) - t.dim()
        shape = tuple(t.shape[i - lead] if s == -2 and i >= lead else s for i, s in enumerate(shape))
    try:
        return _np_wrap(_copy(t.expand(shape)), _ctx_of(array))
    except RuntimeError:
        raise MXNetValueError('operands could not be broadcast together with remapped shapes [original->remapped]: '
                              '%s and requested shape %s' % (tuple(t.shape), shape)) from None


def broadcast_arrays(*args):
    """The arrays broadcast against each other."""
    ts = [_tensor('broadcast_arrays', a) for a in args]
    return [_np_wrap(t.contiguous(), _ctx_of(a)) for t, a in zip(torch.broadcast_tensors(*ts), args)]


def _atleast(name, fn):
    def f(*arys):
        res = [_np_wrap(_copy(fn(t)), _ctx_of(a)) for t, a in zip(_ts(name, arys), arys)]  # (copies, as MXNet's)
        return res[0] if len(res) == 1 else res
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s`` (new arrays, as MXNet\'s; NumPy gives views).' % name
    return f


atleast_1d = _atleast('atleast_1d', torch.atleast_1d)
atleast_2d = _atleast('atleast_2d', torch.atleast_2d)
atleast_3d = _atleast('atleast_3d', torch.atleast_3d)


def _one_dtype(seq):
    """The tensors of a non-empty list or tuple of ``mx.np`` arrays of one dtype, else None (the general path)."""
    if type(seq) is not list and type(seq) is not tuple or not seq:
        return None
    ts, first = [], None
    for x in seq:
        if type(x) is not ndarray:
            return None
        d = x._dt
        if d is None:
            d = x._dt = x._t.dtype
        if first is None:
            first = d
        elif d is not first:
            return None
        ts.append(x._t)
    return ts


def _join_fast(fn, seq, axis):
    """``fn`` (torch.cat, torch.stack) of a list or tuple of arrays of one dtype along an int ``axis``, else None
    (the general path raises MXNet's errors)."""
    ts = _one_dtype(seq)
    if ts is None:
        return None
    try:
        return _np_wrap(fn(ts, axis), seq[0]._ctx)
    except (RuntimeError, IndexError):
        return None


def concatenate(seq, axis=0, out=None):
    """Join arrays along an existing axis (``axis=None``: flattened first)."""
    if out is None and type(axis) is int:  # the common case
        r = _join_fast(torch.cat, seq, axis)
        if r is not None:
            return r
    ts = _ts('concatenate', seq)
    if axis is None:
        ts, axis = [t.reshape(-1) for t in ts], 0
    try:
        r = torch.cat(ts, dim=int(axis))
    except (RuntimeError, IndexError) as e:
        raise MXNetValueError('concatenate: shapes %s do not fit along axis %s (%s)'
                              % ([tuple(t.shape) for t in ts], axis, str(e).splitlines()[0])) from None
    return _finish(r, _ctx_of(*seq), out)


def stack(arrays, axis=0, out=None):
    """Join arrays of one shape along a new axis."""
    if out is None and type(axis) is int:  # the common case
        r = _join_fast(torch.stack, arrays, axis)
        if r is not None:
            return r
    arrays = list(arrays)
    ts = _ts('stack', arrays)
    try:
        r = torch.stack(ts, dim=int(axis))
    except RuntimeError:
        raise MXNetValueError('stack: all input arrays must have the same shape, got %s'
                              % [tuple(t.shape) for t in ts]) from None
    return _finish(r, _ctx_of(*arrays), out)


def _joiner(name, prep, axis, with_out=False):
    def join(arrays, out=None):
        arrays = list(arrays)
        ts = [prep(t) for t in _ts(name, arrays)]
        return _finish(torch.cat(ts, dim=axis(ts)), _ctx_of(*arrays), out)

    def f(arrays):
        return join(arrays)

    def tup_form(tup):  # (column_stack's parameter, as MXNet names it)
        return join(tup)
    g = join if with_out else tup_form if name == 'column_stack' else f
    g.__name__ = g.__qualname__ = name
    g.__doc__ = 'NumPy\'s ``%s`` (the arrays must have one dtype, as in MXNet).' % name
    return g


hstack = _joiner('hstack', torch.atleast_1d, lambda ts: 0 if ts[0].dim() == 1 else 1)
vstack = _joiner('vstack', torch.atleast_2d, lambda ts: 0, with_out=True)
row_stack = _joiner('row_stack', torch.atleast_2d, lambda ts: 0)
dstack = _joiner('dstack', torch.atleast_3d, lambda ts: 2)
column_stack = _joiner('column_stack', lambda t: t.reshape(-1, 1) if t.dim() < 2 else t, lambda ts: 1)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (flattened when ``axis`` is None)."""
    return concatenate([arr, values], axis=axis)


def _split_points(n, indices_or_sections, name, even):
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise MXNetValueError('%s: number sections must be larger than 0.' % name)
        if even and n % k:
            raise MXNetValueError('array split does not result in an equal division')
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        pts, acc = [], 0
        for s in sizes[:-1]:
            acc += s
            pts.append(acc)
        return pts
    return [int(i) for i in indices_or_sections]


def _splitter(name, even, axis_of=None):
    def f(ary, indices_or_sections, axis=0):
        t = _tensor(name, ary)
        ax = axis_of(t) if axis_of is not None else int(axis)
        n = t.shape[ax]
        pts = _split_points(n, indices_or_sections, name, even)
        bounds = [0] + [builtins_min(builtins_max(p if p >= 0 else p + n, 0), n) for p in pts] + [n]
        ctx = _ctx_of(ary)
        return [_np_wrap(_copy(t.narrow(ax, lo, builtins_max(hi - lo, 0))), ctx)  # (copies, as MXNet's)
                for lo, hi in zip(bounds[:-1], bounds[1:])]
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'NumPy\'s ``%s``.' % name
    return f


builtins_min, builtins_max = min, max
split = _splitter('split', True)
array_split = _splitter('array_split', False)


def _need_dims(name, ary, n):
    t = _tensor(name, ary)
    if t.dim() < n:
        raise MXNetValueError('%s only works on arrays of %d or more dimensions, got %d' % (name, n, t.dim()))
    return t


def hsplit(ary, indices_or_sections):
    """Split along axis 1 (axis 0 for 1-D arrays)."""
    t = _need_dims('hsplit', ary, 1)
    return split(ary, indices_or_sections, axis=1 if t.dim() > 1 else 0)


def vsplit(ary, indices_or_sections):
    """Split along axis 0 (of an array of 2 or more dimensions)."""
    _need_dims('vsplit', ary, 2)
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """Split along axis 2 (of an array of 3 or more dimensions)."""
    _need_dims('dsplit', ary, 3)
    return split(ary, indices_or_sections, axis=2)


def tile(A, reps):
    """Repeat ``A`` by ``reps`` along each axis."""
    t = _tensor('tile', A)
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    return _np_wrap(torch.tile(t, reps), _ctx_of(A))


def repeat(a, repeats, axis=None):
    """Repeat elements (of the flattened array when ``axis`` is None)."""
    t = _tensor('repeat', a)
    if isinstance(repeats, NDArray):
        repeats = repeats._t
    elif not isinstance(repeats, numbers.Integral):
        repeats = torch.as_tensor(repeats, device=t.device)
    if axis is None:
        return _np_wrap(torch.repeat_interleave(t.reshape(-1), repeats), _ctx_of(a))
    return _np_wrap(torch.repeat_interleave(t, repeats, dim=int(axis)), _ctx_of(a))


def flip(m, axis=None, out=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    t = _tensor('flip', m)
    dims = tuple(range(t.dim())) if axis is None else ((axis,) if isinstance(axis, numbers.Integral) else axis)
    return _finish(torch.flip(t, dims), _ctx_of(m), out)


def fliplr(m):
    """Flip along axis 1."""
    return flip(m, 1)


def flipud(m):
    """Flip along axis 0."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Roll elements along ``axis`` (the flattened array when None)."""
    t = _tensor('roll', a)
    if axis is None:
        return _np_wrap(torch.roll(t.reshape(-1), shift).reshape(t.shape), _ctx_of(a))
    if not isinstance(axis, numbers.Integral) and isinstance(shift, numbers.Integral):
        shift = (shift,) * len(axis)  # (one shift for every axis, as NumPy broadcasts it)
    return _np_wrap(torch.roll(t, shift, axis), _ctx_of(a))


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``."""
    return _np_wrap(torch.rot90(_tensor('rot90', m), k, list(axes)), _ctx_of(m))


def diag(array, k=0):  # noqa: A002 (MXNet's name)
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with a 1-D ``array`` on it."""
    v = array
    t = _tensor('diag', v)
    if t.dim() not in (1, 2):
        raise MXNetValueError('diag: input must be 1- or 2-d, got shape %s' % (tuple(t.shape),))
    return _np_wrap(torch.diag(t, k), _ctx_of(v))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of the ``axis1``/``axis2`` planes (as the last axis)."""
    return _np_wrap(torch.diagonal(_tensor('diagonal', a), offset, axis1, axis2).contiguous(), _ctx_of(a))


def diagflat(array, k=0):  # noqa: A002 (MXNet's name)
    """A 2-D array with the flattened input on diagonal ``k``."""
    return _np_wrap(torch.diagflat(_tensor('diagflat', array), k), _ctx_of(array))


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    """The sum along a diagonal."""
    t = _tensor('trace', a)
    r = torch.diagonal(t, offset, axis1, axis2).sum(-1)
    return _finish(r.to(t.dtype) if t.dtype is not torch.bool else r, _ctx_of(a), out)


def _triangle(name, fn):
    def f(m, k=0):
        t = _tensor(name, m)
        if t.dim() == 0:
            raise MXNetValueError('%s: the input must have at least one axis' % name)
        if t.dim() == 1:  # NumPy's rule: a vector is the row of a square matrix
            t = t.expand(t.shape[0], t.shape[0])
        return _np_wrap(fn(t, int(k)), _ctx_of(m))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = ('The %s triangle of the last two axes, below/above diagonal ``k`` (a 1-D input is the row of a '
                 'square matrix, as in NumPy).' % ('lower' if name == 'tril' else 'upper'))
    return f


tril = _triangle('tril', torch.tril)
triu = _triangle('triu', torch.triu)


def where(condition, x=None, y=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y``; with only ``condition``, ``nonzero``."""
    if type(condition) is ndarray and type(x) is ndarray and type(y) is ndarray:  # the common case
        c, tx, ty = condition._t, x._t, y._t
        if c.dtype is torch.bool and tx.dtype is ty.dtype:
            try:
                return _np_wrap(torch.where(c, tx, ty), condition._ctx)
            except RuntimeError:
                pass  # (shapes that do not broadcast: torch's error below)
    if x is None and y is None:
        return nonzero(condition)
    c = _tensor('where', condition)
    tx = x._t if isinstance(x, NDArray) else None
    ty = y._t if isinstance(y, NDArray) else None
    if tx is None and ty is None:  # two scalars: a float32 result, as MXNet's
        tx = torch.tensor(x, dtype=torch.float32, device=c.device)
        ty = torch.tensor(y, dtype=torch.float32, device=c.device)
    elif tx is None:
        tx = _operand('where', x, like=ty) if not isinstance(x, numbers.Number) else \
            torch.tensor(x, dtype=ty.dtype, device=ty.device)
    elif ty is None:
        ty = _operand('where', y, like=tx) if not isinstance(y, numbers.Number) else \
            torch.tensor(y, dtype=tx.dtype, device=tx.device)
    if tx.dtype is not ty.dtype:
        raise _dtypes_differ('where', 'x and y', tx.dtype, ty.dtype)
    return _np_wrap(torch.where(c.bool() if c.dtype is not torch.bool else c, tx, ty), _ctx_of(condition, x, y))


def nonzero(a):
    """The indices of the nonzero elements, one int64 array per axis."""
    t = _tensor('nonzero', a)
    ctx = _ctx_of(a)
    return tuple(_np_wrap(i, ctx) for i in torch.nonzero(t if t.dim() else t.reshape(1), as_tuple=True))


def argwhere(a):
    """The indices of the nonzero elements, grouped by element (shape ``(N, a.ndim)``)."""
    return _np_wrap(torch.argwhere(_tensor('argwhere', a)), _ctx_of(a))


def flatnonzero(a):
    """The indices of the nonzero elements of the flattened array."""
    return _np_wrap(torch.nonzero(_tensor('flatnonzero', a).reshape(-1)).reshape(-1), _ctx_of(a))


def take(a, indices, axis=None, mode='raise', out=None):
    """Elements of ``a`` at ``indices`` (of the flattened array when ``axis`` is None); ``mode`` 'raise',
    'wrap' or 'clip'."""
    t = _tensor('take', a)
    idx = _operand('take', indices, like=t).long() if not isinstance(indices, numbers.Integral) else \
        torch.tensor(int(indices), device=t.device)
    src = t.reshape(-1) if axis is None else t
    ax = 0 if axis is None else int(axis) % builtins_max(t.dim(), 1)
    n = src.shape[ax]
    if mode == 'wrap':
        idx = torch.remainder(idx, n)
    elif mode == 'clip':
        idx = idx.clamp(0, n - 1)
    elif mode == 'raise':
        if idx.numel() and (bool((idx >= n).any()) or bool((idx < -n).any())):
            raise MXNetIndexError('take: index out of bounds for axis %d with size %d' % (ax, n))
        idx = torch.where(idx < 0, idx + n, idx)
    else:
        raise MXNetValueError("take: mode must be 'raise', 'wrap' or 'clip', got %r" % (mode,))
    r = torch.index_select(src, ax, idx.reshape(-1))
    r = r.reshape(src.shape[:ax] + idx.shape + src.shape[ax + 1:])
    return _finish(r, _ctx_of(a), out)


def sort(a, axis=-1, kind=None, order=None):
    """Sorted copy (``axis=None``: of the flattened array); stable."""
    if order is not None:
        raise NotImplementedError('mx.np.sort: order= is not supported')
    t = _tensor('sort', a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    return _np_wrap(torch.sort(t, dim=int(axis), stable=True).values, _ctx_of(a))


def argsort(a, axis=-1, kind=None, order=None):
    """Indices that sort ``a`` (int64; stable)."""
    if order is not None:
        raise NotImplementedError('mx.np.argsort: order= is not supported')
    t = _tensor('argsort', a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    return _np_wrap(torch.argsort(t, dim=int(axis), stable=True), _ctx_of(a))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted unique elements (of the flattened array, or along ``axis``), with indices, inverse and counts
    as asked."""
    t = _tensor('unique', ar)
    ctx = _ctx_of(ar)
    flat = t.reshape(-1) if axis is None else t
    dim = None if axis is None else int(axis)
    vals, inverse, counts = torch.unique(flat, sorted=True, return_inverse=True, return_counts=True, dim=dim)
    res = [_np_wrap(vals, ctx)]
    if return_index:
        # the first occurrence of each unique value: the smallest position mapped to it
        n = inverse.shape[0]
        pos = torch.arange(n, device=t.device)
        first = torch.full((vals.shape[0] if dim is None else vals.shape[dim],), n, dtype=torch.int64,
                           device=t.device)
        first = first.scatter_reduce(0, inverse, pos, reduce='amin')
        res.append(_np_wrap(first, ctx))
    if return_inverse:
        res.append(_np_wrap(inverse, ctx))
    if return_counts:
        res.append(_np_wrap(counts, ctx))
    return res[0] if len(res) == 1 else tuple(res)


def copy(a, out=None):
    """A copy of ``a``."""
    return _finish(_tensor('copy', a).clone(), _ctx_of(a), out)


def shape(a):
    """The shape of ``a``."""
    return tuple(a.shape) if isinstance(a, NDArray) else _np.shape(a)


def ndim(a):
    """The number of axes of ``a``."""
    return a.ndim if isinstance(a, NDArray) else _np.ndim(a)


def size(a, axis=None):
    """The number of elements (along ``axis``)."""
    if isinstance(a, NDArray):
        return a.size if axis is None else a.shape[axis]
    return _np.size(a, axis)


def resize(a, new_shape):
    """``a`` repeated or cut to ``new_shape`` (NumPy's ``resize``)."""
    t = _tensor('resize', a).reshape(-1)
    shape = (new_shape,) if isinstance(new_shape, numbers.Integral) else tuple(new_shape)
    n = int(_np.prod(shape))
    if t.numel() == 0:
        return _np_wrap(torch.zeros(shape, dtype=t.dtype, device=t.device), _ctx_of(a))
    reps = -(-n // t.numel())
    return _np_wrap(t.repeat(reps)[:n].reshape(shape), _ctx_of(a))


def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (an index, slice or index array) along ``axis``; an index array's
    entries outside ``[0, n)`` are ignored, as MXNet does (NumPy raises for them)."""
    t = _tensor('delete', arr)
    if axis is None:
        t, axis = t.reshape(-1), 0
    if not -t.dim() <= axis < t.dim():
        raise MXNetIndexError('delete: axis %d is out of bounds for an array of dimension %d' % (axis, t.dim()))
    axis %= t.dim()
    n = t.shape[axis]
    keep = torch.ones(n, dtype=torch.bool, device=t.device)
    if isinstance(obj, slice):
        keep[torch.tensor(range(*obj.indices(n)), dtype=torch.int64, device=t.device)] = False
    else:
        if isinstance(obj, numbers.Integral):
            if not -n <= int(obj) < n:
                raise MXNetIndexError('delete: index %d is out of bounds for axis %d with size %d' % (obj, axis, n))
            idx = torch.tensor([int(obj)], device=t.device)
        else:
            idx = _operand('delete', obj, like=t).long().reshape(-1)
            idx = idx[(idx >= 0) & (idx < n)]
        keep[idx] = False
    return _np_wrap(t[(slice(None),) * axis + (keep,)], _ctx_of(arr))


def insert(arr, obj, values, axis=None):
    """``values`` inserted before the index or indices ``obj`` (an int, a slice or an index array) along ``axis``
    (the flattened array when None), as NumPy's ``insert``; ``values`` are cast to ``arr``'s dtype."""
    t = _tensor('insert', arr)
    if axis is None:
        t, axis = t.reshape(-1), 0
    if t.dim() == 0:
        raise MXNetValueError('insert: the array must have at least one dimension')
    ax = int(axis)
    if not -t.dim() <= ax < t.dim():
        raise MXNetIndexError('insert: axis %d is out of bounds for an array of dimension %d' % (ax, t.dim()))
    ax %= t.dim()
    n = t.shape[ax]
    v = torch.tensor(values, dtype=t.dtype, device=t.device) if isinstance(values, (numbers.Number, _np.generic)) \
        else _operand('insert', values, like=t).to(t.dtype)
    v = v.reshape((1,) * builtins.max(t.dim() - v.dim(), 0) + tuple(v.shape))  # (NumPy's ndmin)
    moved = t.movedim(ax, 0)
    rest = tuple(moved.shape[1:])
    if isinstance(obj, numbers.Integral):  # one position: the values' first axis becomes the inserted one
        i = int(obj)
        if not -n <= i <= n:
            raise MXNetIndexError('insert: index %d is out of bounds for axis %d with size %d' % (i, ax, n))
        i = i + n if i < 0 else i
        block = v.expand((v.shape[0],) + rest)  # (NumPy moves the first axis to ``axis``: ours is axis 0)
        r = torch.cat([moved[:i], block, moved[i:]])
    else:
        idx = torch.tensor(range(*obj.indices(n)), dtype=torch.int64, device=t.device) if isinstance(obj, slice) \
            else _operand('insert', obj, like=t).long().reshape(-1)
        if idx.numel() == 1:  # NumPy's rule: one position takes all the values as a block along the axis
            i = int(idx[0])
            i = i + n if i < 0 else i
            block = v.movedim(ax, 0)
            return _np_wrap(torch.cat([moved[:i], block.expand((block.shape[0],) + rest), moved[i:]])
                            .movedim(0, ax).contiguous(), _ctx_of(arr))
        k = idx.shape[0]
        idx = torch.where(idx < 0, idx + n, idx)
        block = v.movedim(ax, 0).expand((k,) + rest)
        # NumPy's rule: each new item goes before its position, items for one position in the given order
        order = torch.argsort(idx, stable=True)
        new_pos = torch.empty_like(idx)
        new_pos[order] = idx[order] + torch.arange(k, device=t.device)
        r = torch.empty((n + k,) + rest, dtype=t.dtype, device=t.device)
        keep = torch.ones(n + k, dtype=torch.bool, device=t.device)
        keep[new_pos] = False
        r[keep] = moved
        r[new_pos] = block
    return _np_wrap(r.movedim(0, ax).contiguous(), _ctx_of(arr))


def unravel_index(indices, shape, order='C'):  # noqa: ARG001
    """The coordinates in an array of ``shape`` of the flat ``indices`` (a tuple of arrays of the indices' dtype;
    a Python integer gives NumPy's tuple of integers). ``order='F'`` raises, as in MXNet."""
    if order != 'C':
        raise NotImplementedError("mx.np.unravel_index: order=%r is not supported (MXNet: only 'C')" % (order,))
    if isinstance(indices, numbers.Integral):
        return _np.unravel_index(indices, shape)
    t = _tensor('unravel_index', indices)
    if t.is_floating_point() or t.dtype is torch.bool:
        raise TypeError('mx.np.unravel_index: indices must be integers, got %s' % indices.dtype)
    dims = (shape,) if isinstance(shape, numbers.Integral) else tuple(int(d) for d in shape)
    n = int(_np.prod(dims))
    if t.numel() and (int(t.min()) < 0 or int(t.max()) >= n):
        raise MXNetValueError('unravel_index: index out of bounds for an array of size %d' % n)
    out, rest = [], t
    for d in reversed(dims):
        out.append(torch.remainder(rest, d))
        rest = torch.div(rest, d, rounding_mode='floor')
    ctx = _ctx_of(indices)
    return tuple(_np_wrap(o, ctx) for o in reversed(out))


def diag_indices_from(arr):
    """The indices of the main diagonal of ``arr`` (all axes of one length): one int64 array per axis."""
    t = _tensor('diag_indices_from', arr)
    if t.dim() < 2:
        raise MXNetValueError('diag_indices_from: input array must be at least 2-d')
    if any(s != t.shape[0] for s in t.shape):
        raise MXNetValueError('diag_indices_from: all dimensions of input must be of equal length, got %s'
                              % (tuple(t.shape),))
    ctx = _ctx_of(arr)
    return tuple(_np_wrap(torch.arange(t.shape[0], device=t.device), ctx) for _ in range(t.dim()))


def _byte_span(t):
    """(storage address, first byte, one past the last byte) of the elements of ``t``."""
    size = t.element_size()
    lo = hi = t.storage_offset()
    for n, st in zip(t.shape, t.stride()):
        (lo, hi) = (lo + (n - 1) * st, hi) if st < 0 else (lo, hi + (n - 1) * st)
    return t.untyped_storage().data_ptr(), lo * size, (hi + 1) * size


def _overlap(a, b, exact):
    ta, tb = _tensor('shares_memory', a), _tensor('shares_memory', b)
    if ta.numel() == 0 or tb.numel() == 0 or ta.device != tb.device:
        return False
    pa, la, ha = _byte_span(ta)
    pb, lb, hb = _byte_span(tb)
    if pa != pb or ha <= lb or hb <= la:
        return False
    if not exact or ta.is_contiguous() and tb.is_contiguous():
        return True
    # strided views may interleave: compare the byte ranges of their elements
    def starts(t):
        off = torch.zeros((), dtype=torch.int64, device=t.device)
        for d, (n, st) in enumerate(zip(t.shape, t.stride())):
            shape = [1] * t.dim()
            shape[d] = n
            off = off + (torch.arange(n, device=t.device) * st).reshape(shape)
        return (off.reshape(-1) + t.storage_offset()) * t.element_size()
    sa, sb = starts(ta), starts(tb)
    ea, eb = ta.element_size(), tb.element_size()
    sb_sorted = torch.sort(sb).values
    # an element of a overlaps one of b when some b start lies in (start_a - eb, start_a + ea)
    i = torch.searchsorted(sb_sorted, sa - eb, right=True)
    hit = (i < sb_sorted.numel()) & (sb_sorted[i.clamp(max=sb_sorted.numel() - 1)] < sa + ea)
    return bool(hit.any())


def shares_memory(a, b, max_work=None):  # noqa: ARG001 (NumPy's)
    """Whether ``a`` and ``b`` have an element in common in memory (exact)."""
    return _overlap(a, b, True)


def may_share_memory(a, b, max_work=None):  # noqa: ARG001
    """Whether the memory spans of ``a`` and ``b`` overlap (NumPy's bounds check)."""
    return _overlap(a, b, False)


def genfromtxt(*args, **kwargs):
    """Official NumPy's ``genfromtxt``, the table as an ``mx.np`` array (keeping NumPy's dtype) on ``ctx``."""
    ctx = _ctx(kwargs.pop('ctx', None))
    ret = _np.genfromtxt(*args, **kwargs)
    return array(ret, dtype=ret.dtype, ctx=ctx)


def _mx_errors(name, fn):
    """``fn`` with torch's shape and index errors raised as MXNet's (MXNetValueError, MXNetIndexError)."""
    @functools.wraps(fn)
    def f(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (MXNetError, NotImplementedError):
            raise
        except IndexError as e:
            raise MXNetIndexError('Operator %s: %s' % (name, str(e).splitlines()[0])) from None
        except RuntimeError as e:
            raise MXNetValueError('Operator %s: %s' % (name, str(e).splitlines()[0])) from None
    return f


for _name in __all__:
    if _name not in ('shape', 'ndim', 'size', 'genfromtxt'):
        globals()[_name] = _mx_errors(_name, globals()[_name])
del _name


def _sort_method(self, axis=-1, kind=None, order=None):
    """Sort in place, as NumPy's ``ndarray.sort`` does."""
    r = sort(self, axis, kind, order)
    with torch.no_grad():
        self._t.copy_(r._t)


def _broadcast_to_method(self, shape):
    return broadcast_to(self, shape)


for _fn in (repeat, take, argsort, nonzero):
    setattr(ndarray, _fn.__name__, _fn)
ndarray.sort = _sort_method
ndarray.broadcast_to = _broadcast_to_method
del _fn
