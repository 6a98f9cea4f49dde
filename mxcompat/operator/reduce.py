"""Reductions with MXNet's ``axis`` / ``keepdims`` / ``exclude`` semantics: sum, mean, prod, max, min, nansum,
nanprod, argmax, argmin, argmax_channel, norm, moments.

As in MXNet (legacy shape mode): a full reduction gives shape (1,), never 0-d; ``axis=()`` means all axes (and then
``exclude`` is ignored); integer arrays reduce in their own dtype (wrapping on overflow, truncating means).
The gradient of max/min goes in full to every element equal to the result, as in MXNet (torch splits it).
Differs from MXNet: ``norm(out_dtype=...)`` casts the result (MXNet 1.9.1 fails at run time on CPU); ord=2 on
integer arrays is not supported (MXNet's result there is an artifact of integer arithmetic in its scaled reducer).
"""

import torch

from ..base import unsupported
from .registry import defop
from .shape_ops import check_axis, op_error

_X = ('data',)
_RED = [('axis', 'axis', None), ('keepdims', 'bool', False), ('exclude', 'bool', False)]


def norm_axes(op, axis, ndim, exclude=False):
    """MXNet axis argument (None, int or tuple, negatives allowed) -> sorted tuple of the axes to reduce.

    None and () mean every axis, whatever ``exclude`` says (MXNet ignores it then).
    """
    if axis is None or axis == ():
        return tuple(range(ndim))
    if type(axis) is int and not exclude and -ndim <= axis < ndim:
        return (axis + ndim if axis < 0 else axis,)  # the common case, without sorting or set building
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = sorted(a + ndim if a < 0 else a for a in axes)
    if len(set(out)) != len(out):
        raise op_error(op, 'Reduction axes have duplicates %s' % (axes,))
    if out[-1] >= ndim or out[0] < 0:
        raise op_error(op, 'Reduction axis %s exceeds the input dimensions (ndim %d)' % (axes, ndim))
    if exclude:
        return tuple(a for a in range(ndim) if a not in out)
    return tuple(out)


def _legacy(out):
    return out.reshape(1) if out.dim() == 0 else out  # MXNet has no 0-d arrays: a full reduction gives (1,)


def _least_axes(axis):
    """How many axes an input needs for ``axis`` to be in range (torch takes negative axes as MXNet does) and the
    reduction to leave an axis: at least 2."""
    return max(2, axis + 1 if axis >= 0 else -axis)


def _reduce(name, fn, direct=None):
    """The op over MXNet's axis arguments, and its ``bind``. ``direct(x, dims, keepdim)`` (a torch reduction
    that keeps a float input's dtype) serves one in-range int axis of a float array of 2 or more axes without
    the general checks."""
    def general(data, axis, keepdims, exclude):
        axes = norm_axes(name, axis, data.dim(), exclude)
        if not axes:
            return data.clone()
        return _legacy(fn(data, axes, keepdims))

    def one_axis(axis, keepdims, data):
        if data.ndim >= _least_axes(axis) and data.is_floating_point():
            return direct(data, (axis,), keepdims)
        return general(data, axis, keepdims, False)

    def bind(attrs):
        axis = attrs['axis']
        if direct is None or type(axis) is not int or attrs['exclude']:
            return None
        dims, keep, least = (axis,), attrs['keepdims'], _least_axes(axis)

        def run(data):  # one_axis with the attributes fixed
            if data.ndim >= least and data.is_floating_point():
                return direct(data, dims, keep)
            return general(data, axis, keep, False)
        return run

    def impl(data, axis, keepdims, exclude):
        if direct is not None and type(axis) is int and not exclude:
            return one_axis(axis, keepdims, data)
        return general(data, axis, keepdims, exclude)
    return impl, bind


class _ExtremumGrad(torch.autograd.Function):
    """max/min whose gradient goes to every element equal to the result (MXNet's rule for ties)."""

    @staticmethod
    def forward(ctx, x, out_keep):
        ctx.save_for_backward(x, out_keep)
        return out_keep.clone()

    @staticmethod
    def backward(ctx, grad):
        x, out_keep = ctx.saved_tensors
        return grad * (x == out_keep).to(grad.dtype), None


def extremum_with_ties(fn, x, axes, keep):
    """``fn`` (torch.amax or amin) of ``x`` over ``axes`` whose gradient goes to every element equal to the result,
    in full (MXNet's rule for ties, mx.nd's and mx.np's alike; torch splits it among them)."""
    out = fn(x, dim=axes, keepdim=True)
    if x.requires_grad and torch.is_grad_enabled():
        out = _ExtremumGrad.apply(x, out.detach())
    return out if keep else out.squeeze(axes)


def _extremum(fn):
    return lambda x, axes, keep: extremum_with_ties(fn, x, axes, keep)


def _sum(x, axes, keep):
    if x.is_floating_point():
        return torch.sum(x, axes, keep)  # floats keep their dtype; the dtype keyword only costs time
    return torch.sum(x, dim=axes, keepdim=keep, dtype=x.dtype)


def _count(x, axes):
    n = 1
    for a in axes:
        n *= x.shape[a]
    return n


def _mean(x, axes, keep):
    if x.is_floating_point():
        return torch.mean(x, dim=axes, keepdim=keep)
    return torch.div(_sum(x, axes, keep), _count(x, axes), rounding_mode='trunc').to(x.dtype)


def _prod(x, axes, keep):
    out = x
    for a in sorted(axes, reverse=True):
        out = torch.prod(out, dim=a, keepdim=keep, dtype=x.dtype)
    return out


def _nansum(x, axes, keep):
    if not x.is_floating_point():
        return _sum(x, axes, keep)
    return torch.nansum(x, dim=axes, keepdim=keep)


def _nanprod(x, axes, keep):
    if not x.is_floating_point():
        return _prod(x, axes, keep)
    return _prod(torch.where(torch.isnan(x), torch.ones_like(x), x), axes, keep)


for _name, _fn, _direct, _aliases in [('sum', _sum, torch.sum, ('sum_axis',)), ('mean', _mean, torch.mean, ()),
                                      ('prod', _prod, None, ()),
                                      ('max', _extremum(torch.amax), None, ('max_axis',)),
                                      ('min', _extremum(torch.amin), None, ('min_axis',)),
                                      ('nansum', _nansum, torch.nansum, ()), ('nanprod', _nanprod, None, ())]:
    _impl, _bind = _reduce(_name, _fn, _direct)
    defop(_name, _X, _RED, _impl, bind=_bind, aliases=_aliases,
          doc='%s over ``axis`` (all axes by default; ``exclude`` inverts the set).' % _name)


def _arg(name, fn):
    def impl(data, axis, keepdims):
        if axis is None or data.dim() == 1:
            if axis is not None:
                check_axis(name, axis, 1)
            out = fn(data.reshape(-1), 0)
            out = out.reshape((1,) * data.dim() if keepdims else (1,))
        else:
            ax = check_axis(name, axis, data.dim())
            out = _legacy(fn(data, ax, keepdim=keepdims))
        return out.to(data.dtype)  # MXNet returns the index in the input's dtype
    return impl


defop('argmax', _X, [('axis', 'int?', None), ('keepdims', 'bool', False)], _arg('argmax', torch.argmax),
      doc="Index of the maximum along ``axis`` (flattened if None), in the input's dtype as in MXNet.")
defop('argmin', _X, [('axis', 'int?', None), ('keepdims', 'bool', False)], _arg('argmin', torch.argmin),
      doc="Index of the minimum along ``axis`` (flattened if None), in the input's dtype as in MXNet.")
defop('argmax_channel', _X, (), lambda data: _arg('argmax_channel', torch.argmax)(data, 1, False),
      doc="Index of the maximum along axis 1 (the channel axis), in the input's dtype.")


def _norm(data, ord, axis, out_dtype, keepdims):
    if ord not in (1, 2):
        raise op_error('norm', 'ord must be 1 or 2, got %d' % ord)
    axes = norm_axes('norm', axis, data.dim())
    if ord == 1:
        out = torch.sum(torch.abs(data), dim=axes, keepdim=keepdims, dtype=data.dtype)
    else:
        if not data.is_floating_point():
            raise unsupported('norm', 'ord=2 on %s data' % str(data.dtype).replace('torch.', ''),
                              "MXNet's integer L2 norm is an artifact of integer division in its scaled reducer")
        x = data.float() if data.dtype in (torch.float16, torch.bfloat16) else data
        out = torch.linalg.vector_norm(x, 2, dim=axes, keepdim=keepdims).to(data.dtype)
    out = _legacy(out)
    return out if out_dtype is None else out.to(out_dtype)


_NORM_DTYPES = (None, torch.float16, torch.float32, torch.float64, torch.int32, torch.int64, torch.int8)
defop('norm', _X, [('ord', 'int', 2), ('axis', 'axis', None), ('out_dtype', 'dtype?', None),
                   ('keepdims', 'bool', False)], _norm, choices={'out_dtype': _NORM_DTYPES},
      doc='L1 or L2 norm over ``axis`` (all axes by default; several axes are flattened together).')


def _moments(data, axes, keepdims):
    if axes is None or axes == ():
        raise op_error('moments', 'Empty axes is not supported, if you would like to do global moments, please pass '
                       'all axes to axes argument')
    red = norm_axes('moments', axes, data.dim())
    mean = _mean(data, red, True)
    dev = data - mean
    var = _mean(dev * dev, red, True)
    if not keepdims:
        mean, var = mean.squeeze(red), var.squeeze(red)
    return _legacy(mean), _legacy(var)


defop('moments', _X, [('axes', 'axis', None), ('keepdims', 'bool', False)], _moments, num_outputs=2,
      doc='Mean and (biased) variance over ``axes``.')
