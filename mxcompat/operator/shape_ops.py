"""Shape operators: reshape (with MXNet's special codes), transpose, expand_dims, flatten, concat, stack,
broadcast_to ..."""
import torch

from ..base import MXNetError, MXNetValueError
from .registry import defop, REQUIRED

_X = ('data',)


def infer_reshape(dshape, shape, reverse=False):
    """MXNet's reshape codes: 0 copies a dim, -1 infers one, -2 copies the rest, -3 merges two, -4 splits one."""
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
            raise _reshape_error(dshape, shape, 'invalid code %d' % d)
        i += 1
    size = 1
    for s in dshape:
        size *= s
    if inf >= 0:
        rest = 1
        for s in out:
            rest *= s
        if rest == 0 or size % rest:
            raise _reshape_error(dshape, shape, 'cannot infer the -1 dimension')
        out[inf] = size // rest
    if reverse:
        out.reverse()
    total = 1
    for s in out:
        total *= s
    if total != size:
        raise MXNetValueError('Cannot reshape array of size %d into shape %s' % (size, tuple(shape)))
    return tuple(out)


def _reshape_error(dshape, shape, why):
    return MXNetValueError('Reshape: cannot reshape %s with shape=%s: %s' % (tuple(dshape), tuple(shape), why))


def _reshape(data, shape, reverse, target_shape, keep_highest):
    if not shape and target_shape:
        if keep_highest:
            shape = (data.shape[0],) + tuple(target_shape[1:])
        else:
            shape = tuple(target_shape)
        if 0 in shape:
            known = 1
            for s in shape:
                known *= s if s else 1
            shape = tuple(s if s else data.numel() // known for s in shape)
    return data.reshape(infer_reshape(tuple(data.shape), tuple(shape), reverse))


defop('Reshape', _X, [('shape', 'shape', ()), ('reverse', 'bool', False), ('target_shape', 'shape', ()),
                      ('keep_highest', 'bool', False)], _reshape, aliases=('reshape',), view=True,
      doc="Reshape with MXNet's special codes 0, -1, -2, -3, -4.")


def _transpose(data, axes):
    if not axes:
        axes = tuple(range(data.dim() - 1, -1, -1))
    if len(axes) != data.dim():
        raise MXNetValueError('Operator transpose: axes %s do not match input ndim %d' % (tuple(axes), data.dim()))
    return data.permute(*axes)


defop('transpose', _X, [('axes', 'shape', ())], _transpose, view=True, doc='Permute axes (reverse by default).')


def _expand_dims(data, axis):
    nd = data.dim()
    if not -nd - 1 <= axis <= nd:
        raise MXNetValueError('Operator expand_dims: axis %d out of range for ndim %d' % (axis, nd))
    return data.unsqueeze(axis)


defop('expand_dims', _X, [('axis', 'int', REQUIRED)], _expand_dims, view=True)


def _flatten(data):
    if data.dim() == 0:
        return data.reshape(1, 1)
    return data.reshape(data.shape[0], -1) if data.dim() != 1 else data.reshape(data.shape[0], 1)


defop('Flatten', _X, (), _flatten, aliases=('flatten',), view=True, doc='Collapse all axes but the first.')


def _concat(*data, num_args, dim):
    ref = data[0]
    for i, d in enumerate(data[1:], 1):
        if d.dim() != ref.dim() or any(a != b for k, (a, b) in enumerate(zip(d.shape, ref.shape))
                                       if k != dim % max(ref.dim(), 1)):
            raise MXNetValueError('Operator concat: input %d has shape %s, incompatible with %s along dim %d'
                                  % (i, tuple(d.shape), tuple(ref.shape), dim))
        if d.dtype is not ref.dtype:
            raise MXNetError('Operator concat: input %d has dtype %s, expected %s' % (i, d.dtype, ref.dtype))
    return torch.cat(data, dim=dim)


defop('Concat', ('*data',), [('dim', 'int', 1)], _concat, aliases=('concat',), doc='Join arrays along ``dim``.')


def _stack(*data, num_args, axis):
    return torch.stack(data, dim=axis)


defop('stack', ('*data',), [('axis', 'int', 0)], _stack, doc='Join arrays along a new axis.')


def _broadcast_to(data, shape):
    shape = tuple(d if s == 0 else s for s, d in zip(shape, data.shape)) + tuple(shape[data.dim():])
    if len(shape) != data.dim():
        raise MXNetValueError('Operator broadcast_to: shape %s must have ndim %d' % (shape, data.dim()))
    for s, d in zip(shape, data.shape):
        if d != 1 and s != d:
            raise MXNetValueError('Operator broadcast_to: cannot broadcast %s to %s' % (tuple(data.shape), shape))
    return data.expand(shape)


defop('broadcast_to', _X, [('shape', 'shape', ())], _broadcast_to, view=True)
