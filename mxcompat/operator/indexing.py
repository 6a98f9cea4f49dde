"""Indexing, slicing and ordering operators: slice, slice_axis, slice_like, take, batch_take, gather_nd, scatter_nd,
one_hot, pick, sort, argsort, topk, SequenceMask, SequenceLast, SequenceReverse.

Differs from MXNet, only where MXNet 1.9.1 reads or writes out of bounds: SequenceLast/SequenceReverse clip
``sequence_length`` to [1, T] / [0, T]; scatter_nd wraps negative indices; batch_take accepts only 2-D data. Ties in
sort/argsort/topk keep their input order (a stable sort).
"""
import torch
from torch.utils.weak import WeakTensorKeyDictionary

from .. import engine
from ..base import MXNetIndexError, MXNetTypeError, dtype_name, to_torch_dtype, unsupported
from ..kernels import recorded, untraced
from .registry import defop, REQUIRED
from .shape_ops import check_axis, op_error

_X = ('data',)


def _is_real(t):
    """Data-dependent checks (out-of-range indices) only run on real tensors, not during meta shape inference."""
    return t.device.type != 'meta'


# ---- slicing -------------------------------------------------------------------------------------------------------
def _slice_bounds(n, b, e, s):
    """MXNet's begin/end/step for one axis of size n -> (start, count) of the selected elements."""
    if n == 0:
        return 0, 0
    given_e = e is not None
    b = b if b is not None else (n - 1 if s < 0 else 0)
    e = e if e is not None else (-1 if s < 0 else n)
    if b < 0:
        b += n
    if e < 0 and given_e:
        e += n
    if b < 0 and s > 0:
        b = 0
    if b > n - 1 and s < 0:
        b = n - 1
    if b < 0 or b > n - 1:
        return 0, 0
    e = min(max(e, -1), n)
    if s > 0:
        return b, (e - b - 1) // s + 1 if e > b else 0
    return b, (b - e - 1) // (-s) + 1 if e < b else 0


def _slice(data, begin, end, step):
    nd = data.dim()
    if nd == 0:
        raise op_error('slice', 'slice only works for ndim > 0')
    if len(begin) > nd or len(end) > nd:
        raise op_error('slice', 'Slicing axis exceeds data dimensions: begin=%s, end=%s for shape %s'
                       % (tuple(begin), tuple(end), tuple(data.shape)))
    if len(begin) != len(end):
        raise op_error('slice', 'begin %s and end %s must have the same length' % (tuple(begin), tuple(end)))
    if step and len(step) != len(begin):
        raise op_error('slice', 'step %s and begin %s must have the same length' % (tuple(step), tuple(begin)))
    key, flips = [], []
    for i in range(len(begin)):
        s = step[i] if step and step[i] is not None else 1
        if s == 0:
            raise op_error('slice', 'slice op step[%d] cannot be 0' % i)
        b, cnt = _slice_bounds(data.shape[i], begin[i], end[i], s)
        if cnt == 0:
            key.append(slice(0, 0))
        elif s > 0:
            key.append(slice(b, b + (cnt - 1) * s + 1, s))
        else:
            key.append(slice(b + (cnt - 1) * s, b + 1, -s))
            flips.append(i)
    key = tuple(key)
    if recorded(data) and sum((k.start, k.stop, k.step) != (0, n, 1) for n, k in zip(data.shape, key)) + len(flips) > 1:
        return _SliceRegion.apply(data, key, tuple(flips))
    out = data[key]
    return torch.flip(out, flips) if flips else out


class _SliceRegion(torch.autograd.Function):
    """A copy of ``data[key]`` (flipped on ``flips``) whose gradient is one zero-filled array with the incoming
    gradient written into the region. Slicing several axes with torch's indexing records one slice per axis, and
    each one's backward fills a zero array as big as its input (1 GB of fills for a 4-axis slice of a 537 MB
    array)."""

    @staticmethod
    def forward(ctx, data, key, flips):
        ctx.shape, ctx.key, ctx.flips = data.shape, key, flips
        out = data[key]
        return torch.flip(out, flips) if flips else out.clone()

    @staticmethod
    def backward(ctx, grad):
        full = grad.new_zeros(ctx.shape)
        full[ctx.key] = torch.flip(grad, ctx.flips) if ctx.flips else grad
        return full, None, None


defop('slice', _X, [('begin', 'shape', REQUIRED), ('end', 'shape', REQUIRED), ('step', 'shape', ())], _slice,
      aliases=('crop',), view=True, doc='Slice with per-axis begin/end/step (None entries and negative steps allowed).')


def _slice_axis(data, axis, begin, end):
    a = check_axis('slice_axis', axis, data.dim())
    n = data.shape[a]
    b = begin + n if begin < 0 else begin
    if n == 0:
        return data.narrow(a, 0, 0)
    e = n if end is None else (end + n if end < 0 else end)
    if not 0 <= b < e <= n:
        raise op_error('slice_axis', 'Invalid begin, end, get begin=%s, end=%s for axis size %d' % (begin, end, n))
    return data.narrow(a, b, e - b)


defop('slice_axis', _X, [('axis', 'int', REQUIRED), ('begin', 'int', REQUIRED), ('end', 'int?', REQUIRED)],
      _slice_axis, view=True, doc='Slice [begin, end) along one axis (``end=None`` runs to the end).')


def _slice_like(data, shape_like, axes):
    nd = data.dim()
    if not axes:
        if shape_like.dim() != nd:
            raise op_error('slice_like', 'By default slice_like slices all axes, but the ndims differ: %d vs. %d'
                           % (nd, shape_like.dim()))
        axes = range(nd)
    key = [slice(None)] * nd
    for ax in axes:
        a = ax + nd if ax < 0 else ax
        if not 0 <= a < nd or a >= shape_like.dim():
            raise op_error('slice_like', 'Slice axis %d is out of range for shapes %s and %s'
                           % (ax, tuple(data.shape), tuple(shape_like.shape)))
        if shape_like.shape[a] > data.shape[a]:
            raise op_error('slice_like', 'Slice axis %d with size %d exceeds limit of input with size %d'
                           % (a, shape_like.shape[a], data.shape[a]))
        key[a] = slice(0, shape_like.shape[a])
    return data[tuple(key)]


defop('slice_like', ('data', 'shape_like'), [('axes', 'shape', ())], _slice_like, view=True,
      doc="Slice ``data`` to the shape of ``shape_like`` (on all axes or on ``axes``).")


# ---- take / pick / gather ------------------------------------------------------------------------------------------
def _as_index(t):
    # MXNet casts float indices to integers by truncation
    return t if t.dtype is torch.int64 else t.to(torch.int64)


def _take(a, indices, axis, mode):
    nd = a.dim()
    if not -nd <= axis < nd:
        raise op_error('take', 'Axis should be in the range of [-r, r-1] where r is the rank of input tensor '
                       '(axis=%d, r=%d)' % (axis, nd))
    ax = axis % nd
    n = a.shape[ax]
    idx = _as_index(indices).reshape(-1)
    shape = tuple(a.shape[:ax]) + tuple(indices.shape) + tuple(a.shape[ax + 1:])
    if mode == 'clip':
        idx = idx.clamp(0, max(n - 1, 0))
    else:
        if mode == 'raise' and _is_real(idx) and idx.numel() and bool(((idx < 0) | (idx >= n)).any()):
            # MXNet checks the indices in its kernel: the error surfaces when the result is read (engine.fail); the
            # placeholder takes the clipped indices, so that a recorded graph through it stays whole
            exc = op_error('take', 'take operator contains indices out of bound (axis size %d)' % n, MXNetIndexError)
            out = torch.index_select(a, ax, idx.clamp(0, n - 1)).reshape(shape) if n else a.new_zeros(shape)
            return engine.fail(out, exc)
        idx = idx.remainder(n) if n else idx
    return torch.index_select(a, ax, idx).reshape(shape)


defop('take', ('a', 'indices'), [('axis', 'int', 0), ('mode', 'str', 'clip')], _take,
      choices={'mode': ('clip', 'raise', 'wrap')}, doc='Take slices of ``a`` along ``axis`` at ``indices``.')


def _batch_take(a, indices):
    if a.dim() < 2:
        raise op_error('batch_take', 'Data array must have at least 2 dimensions, got shape %s' % (tuple(a.shape),))
    if a.dim() > 2:
        raise unsupported('batch_take', 'data with more than 2 dimensions', 'MXNet reads out of bounds there')
    if indices.dtype is not torch.int32:
        raise op_error('batch_take', 'indices must be int32, got %s' % dtype_name(indices.dtype), MXNetTypeError)
    if indices.numel() != a.shape[0]:
        raise op_error('batch_take', "Index array's size %d must be the same as data array's size excluding the "
                       "last dimension (%d)" % (indices.numel(), a.shape[0]))
    idx = _as_index(indices).reshape(-1, 1).clamp(0, a.shape[1] - 1)
    return torch.gather(a, 1, idx).reshape(indices.shape)


defop('batch_take', ('a', 'indices'), (), _batch_take,
      doc='``a[i, indices[i]]`` for each row i (indices clipped; int32 indices, as in MXNet).')


# Recorded 2-D log_softmax outputs and their logits (with the output's version when marked), held by a table keyed
# weakly by the output tensor's identity: nothing is attached to the tensor, so pickling or torch.save of it
# carries no logits, and an entry dies with its output.
_LOG_SOFTMAX_OF = WeakTensorKeyDictionary()


def remember_log_softmax(out, logits):
    """Mark ``out = log_softmax(logits, axis=1)`` (2-D, recorded) so that a ``pick`` of it can differentiate
    straight to ``logits`` (_PickLogSoftmax). The mark keeps ``logits`` alive while ``out`` lives."""
    _LOG_SOFTMAX_OF[out] = (logits, out._version)


class _PickLogSoftmax(torch.autograd.Function):
    """``gather(logp, 1, idx)`` where ``logp = log_softmax(logits, 1)``, with the gradient going to ``logits`` in
    one pass: ``g * (onehot - exp(logp))``, which is log_softmax's backward of gather's one-hot gradient without
    building that dense one-hot gradient (a zero-filled matrix, a scatter, then a second pass). ``logp`` comes in
    as an input only to be saved: no gradient goes back through it (it gets None), so a second-order gradient
    (create_graph) differentiates ``exp(logp)`` through log_softmax's own node."""

    @staticmethod
    def forward(ctx, logits, logp, idx):
        ctx.save_for_backward(logp, idx)
        return torch.gather(logp, 1, idx)

    @staticmethod
    def backward(ctx, grad):
        logp, idx = ctx.saved_tensors
        prob = torch.exp(logp)
        # in place unless this backward is itself recorded (create_graph): exp's node then saves prob
        neg = prob * -grad if torch.is_grad_enabled() else prob.mul_(-grad)
        return neg.scatter_add_(1, idx, grad), None, None


def _gather_rows(data, idx):
    """``gather(data, 1, idx)`` of 2-D data, differentiated in one pass when data is a recorded log_softmax."""
    source = _LOG_SOFTMAX_OF.get(data) if torch.is_grad_enabled() and untraced(data) else None
    if source is not None and source[1] == data._version:
        return _PickLogSoftmax.apply(source[0], data, idx)
    return torch.gather(data, 1, idx)


def _pick_rows(data, index, keepdims):
    """pick's common case, clipped on CPU along axis 1 of 2-D data with a 1-D index of one entry per row (a
    classifier's ``pick(log_softmax(out), label)``), or None to take the general path. Same ops and results as
    that path, with fewer Python steps."""
    if index.dim() != 1 or index.shape[0] != data.shape[0]:
        return None
    try:
        out = _gather_rows(data, _as_index(index).unsqueeze(1))
    except RuntimeError:  # an index out of range: the general path clips it
        return None
    return out if keepdims else out.squeeze(1)


def _pick(data, index, axis, keepdims, mode):
    if mode == 'clip' and (axis == -1 or axis == 1) and data.dim() == 2 and data.is_cpu:
        out = _pick_rows(data, index, keepdims)
        if out is not None:
            return out
    if axis is None:
        raise op_error('pick', 'axis=None is not supported by pick yet. Must specify an axis.')
    nd = data.dim()
    ax = check_axis('pick', axis, nd)
    kshape = list(data.shape)
    kshape[ax] = 1
    rshape = kshape[:ax] + kshape[ax + 1:]
    ishape = list(index.shape)
    if ishape != (kshape if index.dim() == nd else rshape):
        raise op_error('pick', 'index shape %s is inconsistent with data shape %s and axis %d'
                       % (tuple(index.shape), tuple(data.shape), axis))
    n = data.shape[ax]
    idx = _as_index(index)
    gather = _gather_rows if nd == 2 and ax == 1 else (lambda d, i: torch.gather(d, ax, i))
    out = None
    if mode == 'clip' and data.device.type == 'cpu':
        # in-range indices need no clipping; torch's CPU gather raises (no device assert) on any other
        try:
            out = gather(data, idx.reshape(kshape))
        except RuntimeError:
            pass
    if out is None:
        idx = idx.clamp(0, n - 1) if mode == 'clip' else idx.remainder(n)
        out = gather(data, idx.reshape(kshape))
    if keepdims:
        return out
    return out.reshape(rshape or (1,))


defop('pick', ('data', 'index'), [('axis', 'int?', -1), ('keepdims', 'bool', False), ('mode', 'str', 'clip')],
      _pick, aliases=('choose_element_0index',), choices={'mode': ('clip', 'wrap')},
      doc='Pick one element along ``axis`` per position, at ``index``.')


def _nd_index(op, indices, nlead):
    if indices.dim() < 2:
        raise op_error(op, '%s requires index tensor to have at least 2 dimensions' % op)
    m = indices.shape[0]
    if m > nlead:
        raise op_error(op, 'Number of indices %d exceeds the data dimension %d' % (m, nlead))
    return _as_index(indices), m


def _gather_nd(data, indices):
    idx, m = _nd_index('gather_nd', indices, data.dim())
    if _is_real(idx):
        for j in range(m):
            n = data.shape[j]
            bad = (idx[j] < -n) | (idx[j] >= n)
            if bool(bad.any()):
                raise op_error('gather_nd', 'IndexError: index %d is out of bounds for axis %d with size %d'
                               % (int(idx[j][bad].reshape(-1)[-1]), j, n), MXNetIndexError)
    return data[tuple(idx[j] for j in range(m))]


defop('gather_nd', ('data', 'indices'), (), _gather_nd,
      doc='``out[y...] = data[indices[0, y...], ..., indices[M-1, y...]]`` (negative indices count from the end).')


def _scatter_nd(data, indices, shape):
    idx, m = _nd_index('scatter_nd', indices, len(shape))
    want = tuple(indices.shape[1:]) + tuple(shape[m:])
    if tuple(data.shape) != want:
        raise op_error('scatter_nd', 'Invalid data, indices, and output shape combination: %s, %s, %s'
                       % (tuple(data.shape), tuple(indices.shape), tuple(shape)))
    out = data.new_zeros(tuple(shape))
    return out.index_put(tuple(idx[j] for j in range(m)), data)


defop('scatter_nd', ('data', 'indices'), [('shape', 'shape', REQUIRED)], _scatter_nd,
      doc='Zeros of ``shape`` with ``data`` written at ``indices`` (the inverse of gather_nd).')


_ONE_HOT_DTYPES = tuple(to_torch_dtype(d) for d in ('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64',
                                                    'int8', 'uint8'))


def _one_hot(indices, depth, on_value, off_value, dtype):
    if depth < 0:
        raise op_error('one_hot', 'Dimension size, depth, must be a non-negative integer (got %d)' % depth)
    hit = _as_index(indices).unsqueeze(-1) == torch.arange(depth, device=indices.device)
    on = torch.tensor(on_value, dtype=torch.float64).to(dtype)
    off = torch.tensor(off_value, dtype=torch.float64).to(dtype)
    return torch.where(hit, on.to(indices.device), off.to(indices.device))


defop('one_hot', ('indices',), [('depth', 'int', REQUIRED), ('on_value', 'float', 1.0), ('off_value', 'float', 0.0),
                                ('dtype', 'dtype', torch.float32)], _one_hot,
      choices={'dtype': _ONE_HOT_DTYPES},
      doc='One-hot rows of length ``depth`` (out-of-range indices give all ``off_value``).')


# ---- ordering ------------------------------------------------------------------------------------------------------
_INDEX_DTYPES = tuple(to_torch_dtype(d) for d in ('float16', 'float32', 'float64', 'int32', 'int64', 'uint8'))


def _sort_axis(op, data, axis):
    if data.dtype is torch.float16 and op != 'topk':
        raise op_error(op, 'This operation does not support float16', MXNetTypeError)  # as in MXNet (topk does)
    if axis is None:
        return data.reshape(-1), 0
    return data, check_axis(op, axis, data.dim())


def _sort(data, axis, is_ascend):
    x, ax = _sort_axis('sort', data, axis)
    return torch.sort(x, dim=ax, descending=not is_ascend, stable=True)[0]


def _argsort(data, axis, is_ascend, dtype):
    x, ax = _sort_axis('argsort', data, axis)
    return torch.sort(x, dim=ax, descending=not is_ascend, stable=True)[1].to(dtype)


def _topk(data, axis, k, ret_typ, is_ascend, dtype):
    x, ax = _sort_axis('topk', data, axis)
    n = x.shape[ax]
    if k <= 0:
        k = n
    if k > n:
        raise op_error('topk', 'k must be smaller than %d, get k = %d' % (n, k))
    if k * 8 <= n:  # few of many: a partial selection (MXNet's CPU kernel switches to partial_sort there too)
        vals, idx = torch.topk(x, k, dim=ax, largest=not is_ascend, sorted=True)
    else:
        vals, idx = torch.sort(x, dim=ax, descending=not is_ascend, stable=True)
        vals, idx = vals.narrow(ax, 0, k), idx.narrow(ax, 0, k)
    if ret_typ == 'value':
        return vals
    if ret_typ == 'indices':
        return idx.to(dtype)
    if ret_typ == 'both':
        return vals, idx.to(dtype)
    mask = torch.zeros_like(x).scatter(ax, idx, 1)
    return mask.reshape(data.shape)


_ORDER = [('axis', 'int?', -1), ('is_ascend', 'bool', True)]
defop('sort', _X, _ORDER, _sort, doc='Sorted values along ``axis`` (flattened if None).')
defop('argsort', _X, _ORDER + [('dtype', 'dtype', torch.float32)], _argsort,
      choices={'dtype': _INDEX_DTYPES},
      doc='Indices that sort ``data`` along ``axis``, as ``dtype`` (float32 by default, as in MXNet).')
defop('topk', _X, [('axis', 'int?', -1), ('k', 'int', 1), ('ret_typ', 'str', 'indices'), ('is_ascend', 'bool', False),
                   ('dtype', 'dtype', torch.float32)], _topk,
      num_outputs=lambda attrs: 2 if attrs['ret_typ'] == 'both' else 1,
      choices={'ret_typ': ('both', 'indices', 'mask', 'value'),
               'dtype': _INDEX_DTYPES},
      doc='The k largest (or smallest) entries along ``axis``: values, indices, both, or a 0/1 mask.')


# ---- sequence ops: data is (T, B, ...) for axis=0, (B, T, ...) for axis=1 ------------------------------------------
def _seq_setup(op, data, sequence_length, use_sequence_length, axis, axes=(0, 1)):
    if axis not in axes:
        raise op_error(op, 'Current implementation expects axis to be %s, got %d'
                       % (' or '.join(str(a) for a in axes), axis))
    if data.dim() < 2:
        raise op_error(op, 'The data array must be of rank 2 or greater, got shape %s' % (tuple(data.shape),))
    if not use_sequence_length:
        if sequence_length is not None:
            raise op_error(op, 'sequence_length is given but use_sequence_length is False')
        return None
    if sequence_length is None:
        raise op_error(op, 'use_sequence_length=True needs the sequence_length input')
    b = data.shape[1 - axis]
    if tuple(sequence_length.shape) != (b,):
        raise op_error(op, 'sequence_length must have shape (%d,), got %s' % (b, tuple(sequence_length.shape)))
    return _as_index(sequence_length)


def _time_first(data, axis):
    return data if axis == 0 else data.transpose(0, 1)


def _sequence_mask(data, sequence_length=None, *, use_sequence_length, value, axis):
    lens = _seq_setup('SequenceMask', data, sequence_length, use_sequence_length, axis)
    if lens is None:
        return data.clone()
    t = data.shape[axis]
    keep = torch.arange(t, device=data.device).unsqueeze(1) < lens.unsqueeze(0)  # (T, B)
    if axis == 1:
        keep = keep.t()
    keep = keep.reshape(tuple(keep.shape) + (1,) * (data.dim() - 2))
    # (the value rounded to the data's dtype on the host, then filled on the data's device: no copy to wait for)
    fill = torch.tensor(value, dtype=torch.float64).to(data.dtype).item()
    return torch.where(keep, data, torch.full((), fill, dtype=data.dtype, device=data.device))


def _sequence_last(data, sequence_length=None, *, use_sequence_length, axis):
    lens = _seq_setup('SequenceLast', data, sequence_length, use_sequence_length, axis)
    if lens is None:
        return data.select(axis, -1)
    x = _time_first(data, axis)
    last = (lens - 1).clamp(0, x.shape[0] - 1)
    return x[last, torch.arange(x.shape[1], device=data.device)]


def _sequence_reverse(data, sequence_length=None, *, use_sequence_length, axis):
    lens = _seq_setup('SequenceReverse', data, sequence_length, use_sequence_length, axis, axes=(0,))
    if lens is None:
        return torch.flip(data, (0,))
    t = data.shape[0]
    pos = torch.arange(t, device=data.device).unsqueeze(1)  # (T, 1)
    lens = lens.clamp(0, t).unsqueeze(0)  # (1, B)
    src = torch.where(pos < lens, lens - 1 - pos, pos)  # (T, B): the step each output step reads
    return data[src, torch.arange(data.shape[1], device=data.device).unsqueeze(0)]


def _seq_inputs(attrs):
    return ('data', 'sequence_length') if attrs['use_sequence_length'] else ('data',)


_SEQ_IN = ('data', 'sequence_length')
_SEQ = [('use_sequence_length', 'bool', False)]
defop('SequenceMask', _SEQ_IN, _SEQ + [('value', 'float', 0.0), ('axis', 'int', 0)], _sequence_mask,
      optional=('sequence_length',), input_names=_seq_inputs,
      doc='Set steps at or beyond each sequence length to ``value``.')
defop('SequenceLast', _SEQ_IN, _SEQ + [('axis', 'int', 0)], _sequence_last, optional=('sequence_length',),
      input_names=_seq_inputs, view=True, doc='The last valid step of each sequence.')
defop('SequenceReverse', _SEQ_IN, _SEQ + [('axis', 'int', 0)], _sequence_reverse, optional=('sequence_length',),
      input_names=_seq_inputs, doc='Reverse the first sequence_length steps of each sequence (axis 0 only).')


# ---- writing into a slice (_slice_assign / _crop_assign) and one element per row -------------------------------
def _slice_index(data, begin, end, step):
    """A torch index for MXNet's begin/end/step (None entries allowed; negative steps as index tensors)."""
    key = []
    for i in range(len(begin)):
        s = step[i] if step and i < len(step) and step[i] is not None else 1
        idx = range(*slice(begin[i], end[i], s).indices(data.shape[i]))
        key.append(slice(idx.start, idx.stop, s) if s > 0 else torch.tensor(list(idx), dtype=torch.long,
                                                                              device=data.device))
    if any(isinstance(k, torch.Tensor) for k in key):
        # several index tensors must broadcast as an outer product (np.ix_ style)
        n = len(key)
        key = [k if not isinstance(k, torch.Tensor) else k.reshape((-1,) + (1,) * (n - i - 1))
               for i, k in enumerate(key)]
        key = [torch.arange(data.shape[i], device=data.device).reshape((-1,) + (1,) * (n - i - 1))[k]
               if isinstance(k, slice) else k for i, k in enumerate(key)]
    return tuple(key)


def _slice_assign(lhs, rhs, begin, end, step):
    out = lhs.clone()
    out[_slice_index(lhs, begin, end, step)] = rhs
    return out


def _slice_assign_scalar(data, scalar, begin, end, step):
    out = data.clone()
    out[_slice_index(data, begin, end, step)] = scalar if data.is_floating_point() else int(scalar)
    return out


_SLICE = [('begin', 'shape', REQUIRED), ('end', 'shape', REQUIRED), ('step', 'shape', ())]
defop('_slice_assign', ('lhs', 'rhs'), _SLICE, _slice_assign, aliases=('_crop_assign',),
      doc='A copy of lhs with the slice begin:end:step replaced by rhs.')
defop('_slice_assign_scalar', _X, [('scalar', 'float', 0.0)] + _SLICE, _slice_assign_scalar,
      aliases=('_crop_assign_scalar',), doc='A copy of data with the slice begin:end:step set to scalar.')


def _fill_element_0index(lhs, mhs, rhs):
    out = lhs.clone()
    rows = torch.arange(lhs.shape[0], device=lhs.device)
    out[rows, rhs.long()] = mhs.to(lhs.dtype)
    return out


defop('fill_element_0index', ('lhs', 'mhs', 'rhs'), (), _fill_element_0index,
      doc='A copy of lhs with lhs[i, rhs[i]] = mhs[i] for every row i.')
