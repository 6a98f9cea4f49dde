"""Array-creating operators with no inputs: _zeros, _ones, _full, _arange, _eye, _linspace."""
import math

import numpy as np
import torch

from ..base import MXNetValueError, unsupported
from ..context import Context, current_context
from .registry import defop
from ..util import is_np_shape


def _ctx(v):
    if v is None or isinstance(v, Context):
        return v
    s = str(v)
    if s in ('', 'None'):
        return None
    name, _, rest = s.partition('(')
    return Context(name, int(rest.rstrip(')') or 0))


def _dev(ctx):
    return (ctx if ctx is not None else current_context()).torch_device


_CREATE = [('shape', 'shape', ()), ('ctx', _ctx, None), ('dtype', 'dtype', torch.float32)]


def _create_infer(shapes, dtypes, attrs):
    # legacy shape semantics: a 0 or -1 in ``shape`` is a dimension for symbol inference to fill in
    shape = tuple(attrs['shape'])
    if not is_np_shape():
        shape = tuple(max(d, 0) for d in shape)
    elif any(d < 0 for d in shape):
        raise MXNetValueError('shape %s has a negative dimension' % (shape,))
    return [shape], [attrs['dtype']]


defop('_zeros', (), _CREATE, lambda shape, ctx, dtype: torch.zeros(shape, dtype=dtype, device=_dev(ctx)),
      infer=_create_infer)
defop('_ones', (), _CREATE, lambda shape, ctx, dtype: torch.ones(shape, dtype=dtype, device=_dev(ctx)),
      infer=_create_infer)
defop('_empty', (), _CREATE, lambda shape, ctx, dtype: torch.empty(shape, dtype=dtype, device=_dev(ctx)),
      infer=_create_infer)
defop('_full', (), _CREATE + [('value', 'float', 0.0)],
      lambda shape, ctx, dtype, value: torch.full(shape, value if dtype.is_floating_point else int(value),
                                                  dtype=dtype, device=_dev(ctx)), infer=_create_infer)


def arange_values(start, stop, step, repeat, dtype, device):
    """MXNet's arange: the length from float64 arithmetic, the values ``start + i * step`` in the output dtype
    with start and step cast to it first (integers truncate: arange(1.3, 5, 1.3, dtype=int32) is 1, 2, 3),
    then each value repeated ``repeat`` times."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise MXNetValueError('arange: step must not be 0')
    n = int(math.ceil((stop - start) / step))
    if n <= 0:
        raise MXNetValueError('arange: invalid range start=%s stop=%s step=%s' % (start, stop, step))
    if dtype.is_floating_point:
        work = torch.float32 if dtype.itemsize < 4 else dtype  # half types: computed in float32, as MXNet
        vals = torch.arange(n, dtype=work, device=device) * torch.tensor(step, dtype=work) + torch.tensor(
            start, dtype=work)
    else:  # integer wrap-around (uint8) as in C
        vals = torch.arange(n, dtype=torch.int64, device=device) * int(step) + int(start)
    if repeat != 1:
        vals = vals.repeat_interleave(int(repeat))
    return vals.to(dtype)


def _arange(start, stop, step, repeat, infer_range, ctx, dtype):
    if infer_range and stop is None:
        raise unsupported('mx.sym.arange', 'infer_range=True with stop=None',
                          'the length is not taken from the inferred output shape when running')
    return arange_values(start, stop, step, repeat, dtype, _dev(ctx))


def _arange_infer(shapes, dtypes, attrs):
    # infer_range without stop: the length is unknown here (legacy 0), to be learned from the consumers
    if attrs['infer_range'] and attrs['stop'] is None:
        return [(0,)], [attrs['dtype']]
    out = arange_values(attrs['start'], attrs['stop'], attrs['step'], attrs['repeat'], attrs['dtype'], 'meta')
    return [tuple(out.shape)], [out.dtype]


defop('_arange', (), [('start', 'float', 0.0), ('stop', 'float?', None), ('step', 'float', 1.0),
                      ('repeat', 'int', 1), ('infer_range', 'bool', False), ('ctx', _ctx, None),
                      ('dtype', 'dtype', torch.float32)], _arange, infer=_arange_infer)


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
