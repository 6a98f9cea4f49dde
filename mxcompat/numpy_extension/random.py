"""``npx.random``: ``seed`` (``mx.random.seed``), ``bernoulli`` and the batched ``uniform_n`` / ``normal_n``,
drawing as ``mx.np.random`` does."""
import torch

from .. import random as _mxrandom
from ..base import MXNetValueError, to_torch_dtype
from ..numpy import random as _nprandom
from ..numpy.multiarray import _np_wrap, _write

__all__ = ['seed', 'bernoulli', 'uniform_n', 'normal_n']


def seed(seed, ctx='all'):  # noqa: A002 (MXNet's name)
    """``mx.random.seed``: seeds the generators ``mx.np.random`` and ``mx.nd.random`` draw from."""
    _mxrandom.seed(seed, ctx)


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0: exactly one of the two, a number in [0, 1]
    or an ``mx.np`` array; float32 unless ``dtype`` (which may be bool)."""
    if (prob is None) == (logit is None):
        raise MXNetValueError('npx.random.bernoulli: give exactly one of prob and logit (got prob=%r, logit=%r)'
                              % (prob, logit))
    name, value = ('prob', prob) if prob is not None else ('logit', logit)
    p = _nprandom._param('bernoulli', name, value)
    if prob is not None:
        bad = bool(((p < 0) | (p > 1)).any()) if isinstance(p, torch.Tensor) else not 0 <= p <= 1
        if bad:
            raise MXNetValueError('npx.random.bernoulli: expect probs >= 0 && probs <= 1')
    elif isinstance(p, torch.Tensor):
        p = torch.sigmoid(p)
    else:
        p = 1.0 / (1.0 + 2.718281828459045 ** -p)
    ctx = _nprandom._context(ctx, [value])
    shape = _nprandom._out_shape([p], size)
    t = (_nprandom._uniform01(shape, ctx) < p).to(torch.float32 if dtype is None else to_torch_dtype(dtype))
    return _write(out, t) if out is not None else _np_wrap(t, ctx)


def _batched(sampler, a, b, batch_shape, dtype, ctx):
    params = [_nprandom._param(sampler.__name__ + '_n', 'parameter', v) for v in (a, b)]
    bshape = _nprandom._out_shape(params, None)
    batch = _nprandom._size(batch_shape) or ()
    return sampler(a, b, size=batch + bshape, dtype=dtype, ctx=ctx)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """``np.random.uniform`` with output shape ``batch_shape + broadcast(low, high).shape``."""
    return _batched(_nprandom.uniform, low, high, batch_shape, dtype, ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """``np.random.normal`` with output shape ``batch_shape + broadcast(loc, scale).shape``."""
    return _batched(_nprandom.normal, loc, scale, batch_shape, dtype, ctx)
