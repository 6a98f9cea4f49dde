"""Reductions with MXNet's ``axis`` / ``keepdims`` / ``exclude`` semantics."""
import torch

from ..base import MXNetValueError
from .registry import defop

_X = ('data',)
_RED = [('axis', 'axis', None), ('keepdims', 'bool', False), ('exclude', 'bool', False)]


def norm_axes(op, axis, ndim, exclude=False):
    """MXNet axis argument (None, int or tuple, negatives allowed) -> sorted tuple of axes."""
    if axis is None or axis == ():
        axes = tuple(range(ndim))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        out = []
        for a in axes:
            if not -ndim <= a < ndim:
                raise MXNetValueError('Operator %s: axis %d is out of range for an array of ndim %d'
                                      % (op, a, ndim))
            out.append(a % ndim)
        if len(set(out)) != len(out):
            raise MXNetValueError('Operator %s: duplicate axes in %s' % (op, axes))
        axes = tuple(sorted(out))
    if exclude:
        axes = tuple(a for a in range(ndim) if a not in axes)
    return axes


def _reduce(name, fn):
    def impl(data, axis, keepdims, exclude):
        axes = norm_axes(name, axis, data.dim(), exclude)
        if not axes:
            return data.clone()
        out = fn(data, axes, keepdims)
        if out.dim() == 0:
            out = out.reshape(1)  # MXNet has no 0-d arrays: a full reduction gives shape (1,)
        return out
    return impl


def _amax(x, axes, keep):
    return torch.amax(x, dim=axes, keepdim=keep)


def _amin(x, axes, keep):
    return torch.amin(x, dim=axes, keepdim=keep)


def _sum(x, axes, keep):
    return torch.sum(x, dim=axes, keepdim=keep, dtype=x.dtype)


def _mean(x, axes, keep):
    if x.is_floating_point():
        return torch.mean(x, dim=axes, keepdim=keep)
    return torch.div(torch.sum(x, dim=axes, keepdim=keep), _count(x, axes), rounding_mode='trunc').to(x.dtype)


def _count(x, axes):
    n = 1
    for a in axes:
        n *= x.shape[a]
    return n


def _prod(x, axes, keep):
    out = x
    for a in sorted(axes, reverse=True):
        out = torch.prod(out, dim=a, keepdim=keep, dtype=x.dtype)
    return out


def _nansum(x, axes, keep):
    return torch.nansum(x, dim=axes, keepdim=keep)


def _nanprod(x, axes, keep):
    return _prod(torch.where(torch.isnan(x), torch.ones_like(x), x), axes, keep)


for _name, _fn, _aliases in [('sum', _sum, ('sum_axis',)), ('mean', _mean, ()), ('prod', _prod, ()),
                             ('max', _amax, ('max_axis',)), ('min', _amin, ('min_axis',)),
                             ('nansum', _nansum, ()), ('nanprod', _nanprod, ())]:
    defop(_name, _X, _RED, _reduce(_name, _fn), aliases=_aliases,
          doc='%s over ``axis`` (all axes by default; ``exclude`` inverts the set).' % _name)


def _arg(name, fn):
    def impl(data, axis, keepdims):
        if axis is None:
            out = fn(data.reshape(-1), 0)
            out = out.reshape((1,) * data.dim()) if keepdims else out.reshape(1)
        else:
            if not -data.dim() <= axis < data.dim():
                raise MXNetValueError('Operator %s: axis %d out of range for ndim %d' % (name, axis, data.dim()))
            out = fn(data, axis)
            if keepdims:
                out = out.unsqueeze(axis)
            elif out.dim() == 0:
                out = out.reshape(1)
        return out.to(torch.float32) if data.dtype is not torch.float64 else out.to(data.dtype)
    return impl


# MXNet's argmax/argmin return the index as a float array of the input's float type.
defop('argmax', _X, [('axis', 'int?', None), ('keepdims', 'bool', False)], _arg('argmax', torch.argmax))
defop('argmin', _X, [('axis', 'int?', None), ('keepdims', 'bool', False)], _arg('argmin', torch.argmin))
defop('argmax_channel', _X, (), lambda data: torch.argmax(data, dim=-1).to(torch.float32))
