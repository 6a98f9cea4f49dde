"""``mx.nd.np._internal``: the two internal operators MXNet's own code and tests call for boolean-mask assignment
(``a[mask] = value``); MXNet generates this module from its ``_npi_*`` registry entries, whose other members are
behind the public functions here."""
import numbers

import torch

from .multiarray import _array_input, _np_wrap, _write

__all__ = ['boolean_mask_assign_scalar', 'boolean_mask_assign_tensor']


def _assign(name, data, mask, value, start_axis, out):
    t = _array_input(name, data)
    m = _array_input(name, mask)
    if m.dtype is not torch.bool:
        m = m != 0
    r = t.clone()
    key = (slice(None),) * int(start_axis) + (m,)
    r[key] = value.to(t.dtype) if isinstance(value, torch.Tensor) else value  # (torch broadcasts as MXNet)
    return _write(out, r) if out is not None else _np_wrap(r, data._ctx)


def boolean_mask_assign_scalar(data, mask, value=0.0, start_axis=0, out=None):
    """``data`` with ``value`` where ``mask`` (over the axes from ``start_axis``) is true (into ``out``)."""
    if not isinstance(value, numbers.Number):
        raise TypeError('boolean_mask_assign_scalar: value must be a number, got %s' % type(value).__name__)
    return _assign('boolean_mask_assign_scalar', data, mask, value, start_axis, out)


def boolean_mask_assign_tensor(data, mask, value, start_axis=0, out=None):
    """``data`` with the array ``value`` (one value per selected element, or broadcast) where ``mask`` is true."""
    return _assign('boolean_mask_assign_tensor', data, mask, _array_input('boolean_mask_assign_tensor', value),
                   start_axis, out)
