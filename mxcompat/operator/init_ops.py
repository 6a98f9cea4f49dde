"""Array-creating operators with no inputs: _zeros, _ones, _full, _arange, _eye, _linspace."""
import math

import numpy as np
import torch

from ..base import MXNetValueError
from ..context import Context
from .registry import defop


def _ctx(v):
    if v is None or isinstance(v, Context):
        return v
    s = str(v)
    if s in ('', 'None'):
        return None
    name, _, rest = s.partition('(')
    return Context(name, int(rest.rstrip(')') or 0))


def _dev(ctx):
    from ..context import current_context
    return (ctx if ctx is not None else current_context()).torch_device


_CREATE = [('shape', 'shape', ()), ('ctx', _ctx, None), ('dtype', 'dtype', torch.float32)]

defop('_zeros', (), _CREATE, lambda shape, ctx, dtype: torch.zeros(shape, dtype=dtype, device=_dev(ctx)))
defop('_ones', (), _CREATE, lambda shape, ctx, dtype: torch.ones(shape, dtype=dtype, device=_dev(ctx)))
defop('_empty', (), _CREATE, lambda shape, ctx, dtype: torch.empty(shape, dtype=dtype, device=_dev(ctx)))
defop('_full', (), _CREATE + [('value', 'float', 0.0)],
      lambda shape, ctx, dtype, value: torch.full(shape, value if dtype.is_floating_point else int(value),
                                                  dtype=dtype, device=_dev(ctx)))


def arange_values(start, stop, step, repeat, dtype, device):
    """MXNet's arange: computed in float64 like MXNet, then each value repeated ``repeat`` times."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise MXNetValueError('arange: step must not be 0')
    n = int(math.ceil((stop - start) / step))
    if n <= 0:
        raise MXNetValueError('arange: invalid range start=%s stop=%s step=%s' % (start, stop, step))
    vals = torch.arange(n, dtype=torch.float64, device=device) * step + start
    if repeat != 1:
        vals = vals.repeat_interleave(int(repeat))
    return vals.to(dtype)


defop('_arange', (), [('start', 'float', 0.0), ('stop', 'float?', None), ('step', 'float', 1.0),
                      ('repeat', 'int', 1), ('infer_range', 'bool', False), ('ctx', _ctx, None),
                      ('dtype', 'dtype', torch.float32)],
      lambda start, stop, step, repeat, infer_range, ctx, dtype: arange_values(start, stop, step, repeat, dtype,
                                                                               _dev(ctx)))


def eye_values(N, M, k, dtype, device):
    """Ones on the k-th diagonal of an N x M (M=0: N x N) matrix."""
    N, M, k = int(N), int(M) or int(N), int(k)
    out = torch.zeros((N, M), dtype=dtype, device=device)
    if -N < k < M:
        out.diagonal(k).fill_(1)
    return out


defop('_eye', (), [('N', 'int', 0), ('M', 'int', 0), ('k', 'int', 0), ('ctx', _ctx, None),
                   ('dtype', 'dtype', torch.float32)],
      lambda N, M, k, ctx, dtype: eye_values(N, M, k, dtype, _dev(ctx)))


def linspace_values(start, stop, num, endpoint, dtype, device):
    """``num`` values from start to stop (computed in float64, as numpy does)."""
    num = int(num)
    if endpoint:
        vals = np.linspace(start, stop, num, endpoint=True)
    else:
        vals = np.linspace(start, stop, num, endpoint=False)
    return torch.from_numpy(vals).to(device=device, dtype=dtype)


defop('_linspace', (), [('start', 'float', 0.0), ('stop', 'float', 1.0), ('num', 'int', 50),
                        ('endpoint', 'bool', True), ('ctx', _ctx, None), ('dtype', 'dtype', torch.float32)],
      lambda start, stop, num, endpoint, ctx, dtype: linspace_values(start, stop, num, endpoint, dtype, _dev(ctx)))
