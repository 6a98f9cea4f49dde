"""Shape operators: Reshape (with MXNet's special codes), transpose, SwapAxis, expand_dims, squeeze, Flatten, Concat,
stack, SliceChannel/_split_v2, tile, repeat, Pad, reverse, broadcast_to/axis/like, reshape_like, diag,
depth_to_space, space_to_depth.

Differs from MXNet: ``Reshape`` to a shape of another size raises (MXNet 1.9.1 silently returns a window of the
data); ``transpose`` accepts any number of axes (MXNet stops at 6).
"""
import torch
import torch.nn.functional as F

from ..base import MXNetValueError, MXNetTypeError, dtype_name
from .registry import defop, REQUIRED
from ..util import is_np_shape

_X = ('data',)


def op_error(op, msg, cls=MXNetValueError):
    """An error naming the operator, as MXNet's shape checks do."""
    return cls('Operator %s: %s' % (op, msg))


def check_axis(op, axis, ndim, what='axis'):
    """An axis in [-ndim, ndim) -> its non-negative value; raise naming the op otherwise."""
    if not -ndim <= axis < ndim:
        raise op_error(op, '%s %d is out of bounds for an array of ndim %d' % (what, axis, ndim))
    return axis % ndim


def check_same_dtypes(op, tensors):
    d0 = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not d0:
            raise op_error(op, 'Non-uniform data type: expected %s, got %s for input %d'
                           % (dtype_name(d0), dtype_name(t.dtype), i), MXNetTypeError)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ---- Reshape ----------------------------------------------------------------------------------------------------
def infer_reshape(dshape, shape, reverse=False, exact=True):  # noqa: C901 (one branch per special code of MXNet's Reshape (0, -1..-4))
    """MXNet's reshape codes: 0 copies a dim, -1 infers one, -2 copies the rest, -3 merges two, -4 splits one.
    ``exact=False``: the target of NDArray.reshape (MXNDArrayReshape64), whose -1 is the size floor-divided by the
    other dims and whose size is not checked here (the caller compares it)."""
    src = list(dshape)
    spec = list(shape)
    if reverse:
        src.reverse()
        spec.reverse()
    out = []
    si = 0
    inf = -1
    i = 0
    n = len(spec)
    while i < n:
        d = spec[i]
        if d == 0:
            if si >= len(src):
                raise _reshape_error(dshape, shape, 'code 0 has no source dimension to copy')
            out.append(src[si])
            si += 1
        elif d == -1:
            if inf >= 0:
                raise _reshape_error(dshape, shape, 'One and only one dim can be inferred')
            inf = len(out)
            out.append(1)
            si += 1
        elif d == -2:
            out.extend(src[si:])
            si = len(src)
        elif d == -3:
            if si + 1 >= len(src):
                raise _reshape_error(dshape, shape, 'code -3 needs two source dimensions')
            out.append(src[si] * src[si + 1])
            si += 2
        elif d == -4:
            if i + 2 >= n or si >= len(src):
                raise _reshape_error(dshape, shape, 'code -4 needs two following values')
            d0 = src[si]
            si += 1
            d1, d2 = spec[i + 1], spec[i + 2]
            i += 2
            if d1 == -1 and d2 == -1:
                raise _reshape_error(dshape, shape, 'Split dims cannot both be -1.')
            if d1 == -1:
                d1 = d0 // d2
            if d2 == -1:
                d2 = d0 // d1
            if d1 * d2 != d0:
                raise _reshape_error(dshape, shape, 'Split dims %d, %d do not divide original dim %d' % (d1, d2, d0))
            out.extend((d1, d2))
        elif d > 0:
            out.append(d)
            si += 1
        else:
            raise _reshape_error(dshape, shape, 'shape dim size must be >= -4, while received %d' % d)
        i += 1
    size = _numel(dshape)
    if inf >= 0:
        rest = _numel(out)
        if rest == 0 or (exact and size % rest):
            raise _reshape_error(dshape, shape, 'cannot infer the -1 dimension')
        out[inf] = size // rest
    if reverse:
        out.reverse()
    if exact and _numel(out) != size:
        raise _reshape_error(dshape, shape, 'Target shape size is different to source (%d vs. %d)'
                             % (_numel(out), size))
    return tuple(out)


def _reshape_error(dshape, shape, why):
    return MXNetValueError('Operator Reshape: cannot reshape %s with shape=%s: %s'
                           % (tuple(dshape), tuple(shape), why))


def _reshape(data, shape, reverse, target_shape, keep_highest):
    if shape:
        return data.reshape(infer_reshape(tuple(data.shape), tuple(shape), reverse))
    if not target_shape:
        raise op_error('Reshape', 'shape (or the deprecated target_shape) is required')
    # the deprecated target_shape: 0 marks the one inferred dim; keep_highest keeps dim 0
    out = list(target_shape)
    start = 1 if keep_highest else 0
    if keep_highest:
        out[0] = data.shape[0]
    zeros = [i for i in range(start, len(out)) if out[i] == 0]
    if len(zeros) == 1:
        out[zeros[0]] = 1
        out[zeros[0]] = data.numel() // _numel(out)
    if _numel(out) != data.numel():
        raise _reshape_error(data.shape, target_shape, 'target_shape size is different to source')
    return data.reshape(out)


def reshape_data_from_output(params, data, out):
    """Reshape's input shape completed from its output shape, as MXNet's shape pass does: a single unknown (0)
    input dimension is the output's size over the known input dimensions'. Shapes use 0 for unknown."""
    if not out or 0 in out or list(data).count(0) != 1:
        return data
    known = _numel(d for d in data if d)
    return tuple(d or _numel(out) // known for d in data)


defop('Reshape', _X, [('shape', 'shape', ()), ('reverse', 'bool', False), ('target_shape', 'shape', ()),
                      ('keep_highest', 'bool', False)], _reshape, aliases=('reshape',), view=True,
      doc="Reshape with MXNet's special codes 0, -1, -2, -3, -4; raises if the size changes.")


# ---- axis permutations ------------------------------------------------------------------------------------------
def _transpose(data, axes):
    nd = data.dim()
    if not axes:
        return data.permute(*range(nd - 1, -1, -1))
    if len(axes) != nd:
        raise op_error('transpose', 'axes %s do not match the input ndim %d' % (tuple(axes), nd))
    if sorted(axes) != list(range(nd)):
        raise op_error('transpose', 'axes %s are not a permutation of 0..%d' % (tuple(axes), nd - 1))
    return data.permute(*axes)


def transpose_data_from_output(params, data, out):
    """transpose's input shape completed from its output shape (0: unknown), as MXNet's shape pass does."""
    axes = params.get('axes') or tuple(range(len(data) - 1, -1, -1))
    if len(out) != len(data) or sorted(axes) != list(range(len(data))):
        return data
    res = list(data)
    for i, a in enumerate(axes):
        res[a] = res[a] or out[i]
    return tuple(res)


defop('transpose', _X, [('axes', 'shape', ())], _transpose, view=True, doc='Permute axes (reverse by default).')


def _swapaxes(data, dim1, dim2):
    nd = data.dim()
    return data.transpose(check_axis('SwapAxis', dim1, nd, 'dim1'), check_axis('SwapAxis', dim2, nd, 'dim2'))


defop('SwapAxis', _X, [('dim1', 'int', 0), ('dim2', 'int', 0)], _swapaxes, aliases=('swapaxes',), view=True,
      doc='Interchange two axes.')


def _expand_dims(data, axis):
    nd = data.dim()
    if not -nd - 1 <= axis <= nd:
        raise op_error('expand_dims', 'axis must be in the range [%d, %d] (%d provided)' % (-nd - 1, nd, axis))
    return data.unsqueeze(axis)


defop('expand_dims', _X, [('axis', 'int', REQUIRED)], _expand_dims, view=True, doc='Insert a size-1 axis.')


def _squeeze(data, axis):
    nd = data.dim()
    if axis is None:
        keep = [s for s in data.shape if s != 1]
    else:
        axes = [check_axis('squeeze', a, nd) for a in ((axis,) if isinstance(axis, int) else axis)]
        if len(set(axes)) != len(axes):
            raise op_error('squeeze', 'duplicate value in axis %s' % (axis,))
        for a in axes:
            if data.shape[a] != 1:
                raise op_error('squeeze', 'cannot select an axis to squeeze out which has size=%d not equal to one'
                               % data.shape[a])
        keep = [s for i, s in enumerate(data.shape) if i not in axes]
    return data.reshape(keep or (1,))  # MXNet has no 0-d arrays: squeezing everything leaves shape (1,)


defop('squeeze', _X, [('axis', 'axis', None)], _squeeze, view=True,
      doc='Remove size-1 axes (all of them, or those in ``axis``); never returns a 0-d array.')


def _flatten(data):
    if data.dim() == 0:
        return data.reshape(1, 1)
    return data.reshape(data.shape[0], _numel(data.shape[1:]))


defop('Flatten', _X, (), _flatten, aliases=('flatten',), view=True, doc='Collapse all axes but the first.')


# ---- joining and splitting -----------------------------------------------------------------------------------------
def _concat_as(name):
    def concat(*data, num_args, dim):
        ref = data[0]
        nd = ref.dim()
        d = check_axis(name, dim, nd, 'dim')
        check_same_dtypes(name, data)
        for i, t in enumerate(data[1:], 1):
            if t.dim() != nd or any(a != b for k, (a, b) in enumerate(zip(t.shape, ref.shape)) if k != d):
                raise op_error(name, 'Incompatible input shape: input %d has shape %s, input 0 has %s (dim=%d)'
                               % (i, tuple(t.shape), tuple(ref.shape), dim))
        return torch.cat(data, dim=d)
    return concat


defop('Concat', ('*data',), [('dim', 'int', 1)], _concat_as('Concat'), aliases=('concat',),
      doc='Join arrays along ``dim``.')
# what Gluon's RNN layers join their flattened weights with in MXNet's graphs (MXNet's version also infers an
# unknown input shape back from the RNN operator's parameter size; here the input shapes must be known)
defop('_rnn_param_concat', ('*data',), [('dim', 'int', 1)], _concat_as('_rnn_param_concat'),
      doc="Concat as MXNet's Gluon RNN layers use it for their flat parameter vector.")


def _stack(*data, axis, num_args):
    ref = data[0]
    a = check_axis('stack', axis, ref.dim() + 1)
    check_same_dtypes('stack', data)
    for i, t in enumerate(data[1:], 1):
        if t.shape != ref.shape:
            raise op_error('stack', 'input %d has shape %s, input 0 has %s'
                           % (i, tuple(t.shape), tuple(ref.shape)))
    return torch.stack(data, dim=a)


defop('stack', ('*data',), [('axis', 'int', 0)], _stack,
      doc='Join arrays along a new axis.')


def _pieces(data, axis, bounds, squeeze_axis, op):
    outs = []
    for b, e in bounds:
        if squeeze_axis:
            if e - b != 1:
                raise op_error(op, 'squeeze_axis needs pieces of size 1 on the axis, got %d' % (e - b))
            outs.append(data.select(axis, b))
        else:
            outs.append(data.narrow(axis, b, e - b))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _slice_channel(data, num_outputs, axis, squeeze_axis):
    nd = data.dim()
    a = check_axis('SliceChannel', axis, nd)
    size = data.shape[a]
    if num_outputs < 1:
        raise op_error('SliceChannel', 'num_outputs must be positive, got %d' % num_outputs)
    if squeeze_axis and size != num_outputs:
        raise op_error('SliceChannel', 'If squeeze axis is True, the size of the sliced axis must be the same as '
                       'num_outputs. Input shape=%s, axis=%d, num_outputs=%d.'
                       % (tuple(data.shape), axis, num_outputs))
    if size % num_outputs:
        raise op_error('SliceChannel', 'cannot split axis %d of shape %s into num_outputs=%d evenly sized chunks'
                       % (a, tuple(data.shape), num_outputs))
    step = size // num_outputs
    return _pieces(data, a, [(i * step, (i + 1) * step) for i in range(num_outputs)], squeeze_axis, 'SliceChannel')


defop('SliceChannel', _X, [('num_outputs', 'int', REQUIRED), ('axis', 'int', 1), ('squeeze_axis', 'bool', False)],
      _slice_channel, aliases=('split',), view=True, num_outputs=lambda attrs: attrs['num_outputs'],
      doc='Split into ``num_outputs`` equal parts along ``axis`` (one output: a single array, as in MXNet).')


def _split_v2(data, indices, axis, squeeze_axis, sections):
    a = check_axis('_split_v2', axis, data.dim())
    size = data.shape[a]
    if sections > 0:
        q, r = divmod(size, sections)
        starts = [i * q + min(i, r) for i in range(sections)]
    else:
        starts = list(indices)
    if size == 0:  # a zero-size axis splits into empty pieces wherever the indices are (as NumPy's split)
        starts = [0] * len(starts)
    bounds = []
    for i, b in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else size
        if not 0 <= b <= e <= size:
            raise op_error('_split_v2', 'invalid split indices %s for axis size %d' % (tuple(starts), size))
        bounds.append((b, e))
    return _pieces(data, a, bounds, squeeze_axis, '_split_v2')


defop('_split_v2', _X, [('indices', 'shape', REQUIRED), ('axis', 'int', 1), ('squeeze_axis', 'bool', False),
                        ('sections', 'int', 0)], _split_v2, aliases=('_npi_split',), view=True,
      num_outputs=lambda attrs: attrs['sections'] if attrs['sections'] > 0 else len(attrs['indices']),
      doc='Split at ``indices`` (starting offsets) or into ``sections`` near-equal parts (the op under split_v2).')


# ---- repetition ----------------------------------------------------------------------------------------------------
def _tile(data, reps):
    if not reps:
        return data.clone()
    if any(r < 0 for r in reps) or (not is_np_shape() and any(r == 0 for r in reps)):
        raise op_error('tile', 'reps %s must be positive (zero-size results need numpy shape semantics)'
                       % (tuple(reps),))
    return data.tile(tuple(reps))


defop('tile', _X, [('reps', 'shape', REQUIRED)], _tile, doc='Repeat the whole array ``reps`` times per axis.')


def _repeat(data, repeats, axis):
    if repeats < 0:
        raise op_error('repeat', 'repeats cannot be a negative number (%d)' % repeats)
    a = None if axis is None else check_axis('repeat', axis, data.dim())
    if repeats == 0:
        return data.new_empty((0,))  # MXNet: zero repeats give an empty 1-D array, whatever the axis
    if a is None:
        return data.reshape(-1).repeat_interleave(repeats)
    return data.repeat_interleave(repeats, dim=a)


defop('repeat', _X, [('repeats', 'int', REQUIRED), ('axis', 'int?', None)], _repeat,
      doc='Repeat each element ``repeats`` times along ``axis`` (of the flattened array by default).')


_PAD_MODES = {'constant': 'constant', 'edge': 'replicate', 'reflect': 'reflect'}


def _pad(data, mode, pad_width, constant_value):
    nd = data.dim()
    if nd not in (4, 5):
        raise op_error('Pad', 'Current implementation only supports 4-D or 5-D input, got shape %s'
                       % (tuple(data.shape),))
    if not data.is_floating_point():
        raise op_error('Pad', 'This operation only support floating point types, not %s'
                       % dtype_name(data.dtype), MXNetTypeError)
    if len(pad_width) != 2 * nd:
        raise op_error('Pad', 'Input shape vs padding spec mismatch: pad_width %s for ndim %d'
                       % (tuple(pad_width), nd))
    if any(pad_width[:4]):
        raise op_error('Pad', 'Current implementation expects padding on the first two axes to be zero.')
    if mode == 'reflect' and any(pad_width[2 * i + k] >= data.shape[i] for i in range(2, nd) for k in (0, 1)):
        raise op_error('Pad', 'reflection padding only supports padding sizes smaller than the input size.')
    tpad = []
    for i in range(nd - 1, 1, -1):  # torch lists the last axis first
        tpad += [pad_width[2 * i], pad_width[2 * i + 1]]
    if mode == 'constant':
        return F.pad(data, tpad, mode='constant', value=constant_value)
    return F.pad(data, tpad, mode=_PAD_MODES[mode])


defop('Pad', _X, [('mode', 'str', REQUIRED), ('pad_width', 'shape', REQUIRED), ('constant_value', 'float', 0.0)],
      _pad, aliases=('pad',), choices={'mode': tuple(_PAD_MODES)},
      doc='Pad the spatial axes of a 4-D/5-D float array (constant, edge or reflect).')


def _reverse(data, axis):
    nd = data.dim()
    for a in axis:
        if not 0 <= a < nd:
            raise op_error('reverse', 'axis %d is out of bounds for an array of ndim %d' % (a, nd))
    return torch.flip(data, tuple(axis))


defop('reverse', _X, [('axis', 'shape', REQUIRED)], _reverse, aliases=('flip',),
      doc='Reverse the order of elements along ``axis`` (non-negative axes only, as in MXNet).')


# ---- broadcasting --------------------------------------------------------------------------------------------------
def _expand(op, data, shape, zero_keeps):
    if len(shape) != data.dim():
        raise op_error(op, 'Operand of shape %s cannot be broadcasted to %s' % (tuple(data.shape), tuple(shape)))
    out = []
    for s, d in zip(shape, data.shape):
        if s == 0 and zero_keeps:
            s = d
        elif d != s and d != 1:
            raise op_error(op, 'Array cannot be broadcasted from %s to %s' % (tuple(data.shape), tuple(shape)))
        out.append(s)
    return data.expand(out)


def _broadcast_to(data, shape):
    return _expand('broadcast_to', data, shape, True)


defop('broadcast_to', _X, [('shape', 'shape', ())], _broadcast_to, view=True,
      doc='Broadcast to ``shape`` (0 keeps the input size).')


def _broadcast_axis(data, axis, size):
    if len(axis) != len(size):
        raise op_error('broadcast_axis', 'axis %s and size %s must have the same length' % (tuple(axis), tuple(size)))
    out = list(data.shape)
    for a, s in zip(axis, size):
        if not 0 <= a < data.dim():
            raise op_error('broadcast_axis', 'axis %d must be in range [0, %d)' % (a, data.dim()))
        if out[a] != 1:
            raise op_error('broadcast_axis', 'Broadcasting axis %d must have size 1, got %d' % (a, out[a]))
        out[a] = s
    return data.expand(out)


defop('broadcast_axis', _X, [('axis', 'shape', ()), ('size', 'shape', ())], _broadcast_axis,
      aliases=('broadcast_axes',), view=True, doc='Broadcast size-1 ``axis`` to ``size`` (non-negative axes only).')


def _broadcast_like(lhs, rhs, lhs_axes, rhs_axes):
    if lhs_axes is None or rhs_axes is None:
        return _expand('broadcast_like', lhs, tuple(rhs.shape), False)
    if len(lhs_axes) != len(rhs_axes):
        raise op_error('broadcast_like', 'lhs_axes and rhs_axes size does not match')
    if not lhs_axes:
        raise op_error('broadcast_like', 'Empty axes tuple is not allowed')
    out = list(lhs.shape)
    for la, ra in zip(lhs_axes, rhs_axes):
        la2 = check_axis('broadcast_like', la, lhs.dim(), 'lhs_axes entry')
        ra2 = check_axis('broadcast_like', ra, rhs.dim(), 'rhs_axes entry')
        if lhs.shape[la2] != 1:
            raise op_error('broadcast_like', 'Input axis %d of size %d cannot be broadcasted to %d'
                           % (la, lhs.shape[la2], rhs.shape[ra2]))
        out[la2] = rhs.shape[ra2]
    return lhs.expand(out)


defop('broadcast_like', ('lhs', 'rhs'), [('lhs_axes', 'shape', None), ('rhs_axes', 'shape', None)],
      _broadcast_like, view=True, doc="Broadcast ``lhs`` to ``rhs``'s shape (or only the given axes).")


def _range(op, side, ndim, begin, end):
    b = 0 if begin is None else begin + (ndim if begin < 0 else 0)
    e = ndim if end is None else end + (ndim if end < 0 else 0)
    if not 0 <= b < e <= ndim:
        raise op_error(op, 'Invalid %s_begin=%s, %s_end=%s for ndim %d' % (side, begin, side, end, ndim))
    return b, e


def _reshape_like(lhs, rhs, lhs_begin, lhs_end, rhs_begin, rhs_end):
    lb, le = _range('reshape_like', 'lhs', lhs.dim(), lhs_begin, lhs_end)
    rb, re = _range('reshape_like', 'rhs', rhs.dim(), rhs_begin, rhs_end)
    shape = tuple(lhs.shape[:lb]) + tuple(rhs.shape[rb:re]) + tuple(lhs.shape[le:])
    if _numel(shape) != lhs.numel():
        raise op_error('reshape_like', 'Cannot reshape lhs with shape %s to new shape %s because they have '
                       'different size.' % (tuple(lhs.shape), shape))
    return lhs.reshape(shape)


defop('reshape_like', ('lhs', 'rhs'), [('lhs_begin', 'int?', None), ('lhs_end', 'int?', None),
                                       ('rhs_begin', 'int?', None), ('rhs_end', 'int?', None)],
      _reshape_like, view=True, doc="Reshape ``lhs`` to (a range of) ``rhs``'s shape.")


# ---- diag, depth/space ---------------------------------------------------------------------------------------------
def _diag(data, k, axis1, axis2):
    nd = data.dim()
    if nd == 0:
        raise op_error('diag', 'the input must have at least one dimension')
    if nd == 1:
        return torch.diag(data, k)
    a1 = check_axis('diag', axis1, nd, 'axis1')
    a2 = check_axis('diag', axis2, nd, 'axis2')
    if a1 == a2:
        raise op_error('diag', 'axis1 and axis2 cannot refer to the same axis %d' % a1)
    h, w = data.shape[a1], data.shape[a2]
    if min(h + min(k, 0), w - max(k, 0)) < 0:
        raise op_error('diag', 'Diagonal does not exist (k=%d for sizes %d, %d).' % (k, h, w))
    return torch.diagonal(data, k, a1, a2)


defop('diag', _X, [('k', 'int', 0), ('axis1', 'int', 0), ('axis2', 'int', 1)], _diag, view=True,
      doc='Diagonal ``k`` of a matrix (or of axes ``axis1``/``axis2``); a 1-D input builds the diagonal matrix.')


def _block_check(op, data, block_size, spatial):
    if data.dim() != 4:
        raise op_error(op, 'requires exactly a 4-D tensor, got shape %s' % (tuple(data.shape),))
    if block_size <= 0:
        raise op_error(op, 'block_size must be a positive integer value, got %d' % block_size)
    n, c, h, w = data.shape
    if 0 in data.shape:
        raise op_error(op, 'dimensions cannot be 0, got shape %s' % (tuple(data.shape),))
    if spatial:
        if h % block_size or w % block_size:
            raise op_error(op, 'spatial dimensions %s must be multiples of block_size=%d'
                           % ((h, w), block_size))
    elif c % (block_size * block_size):
        raise op_error(op, "depth dimension %d must be a multiple of block_size^2=%d" % (c, block_size ** 2))
    return n, c, h, w


def _depth_to_space(data, block_size):
    n, c, h, w = _block_check('depth_to_space', data, block_size, False)
    b = block_size
    x = data.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2)
    return x.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth(data, block_size):
    n, c, h, w = _block_check('space_to_depth', data, block_size, True)
    b = block_size
    x = data.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4)
    return x.reshape(n, c * b * b, h // b, w // b)


defop('depth_to_space', _X, [('block_size', 'int', REQUIRED)], _depth_to_space,
      doc='Move depth blocks into space (DCR order, unlike torch.pixel_shuffle).')
defop('space_to_depth', _X, [('block_size', 'int', REQUIRED)], _space_to_depth,
      doc='Move spatial blocks into depth (inverse of depth_to_space).')



def _identity_like_rhs(lhs, rhs):
    if lhs.shape != rhs.shape:
        raise op_error('_identity_with_attr_like_rhs', 'lhs shape %s differs from rhs shape %s'
                       % (tuple(lhs.shape), tuple(rhs.shape)))
    return lhs


defop('_identity_with_attr_like_rhs', ('lhs', 'rhs'), (), _identity_like_rhs, view=True, same_shape='*',
      doc='``lhs`` unchanged, its shape tied to ``rhs`` (lets symbol shape inference run backwards); no gradient '
          'reaches ``rhs``.')
