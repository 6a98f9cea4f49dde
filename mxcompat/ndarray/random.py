"""``mx.nd.random``: sampling functions (torch's generator, seeded by ``mx.random.seed``).

Differs from MXNet: the random streams are torch's, so the same seed gives different numbers than MXNet.
"""
import torch

from ..base import MXNetValueError, to_torch_dtype
from .ndarray import NDArray, _wrap, _device_ctx

__all__ = ['uniform', 'normal', 'randn', 'randint', 'exponential', 'gamma', 'poisson', 'negative_binomial',
           'generalized_negative_binomial', 'multinomial', 'shuffle']


def _shape(shape):
    if shape is None or shape == ():
        return (1,)
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)


def _param(x, like_shape, dtype, device):
    if isinstance(x, NDArray):
        return x._t
    return torch.tensor(float(x), dtype=dtype, device=device)


def _sample(draw, params, shape, dtype, ctx, out):
    """Draw with scalar params into ``shape``, or per-element params (NDArrays) into params.shape + shape."""
    arr = [p for p in params if isinstance(p, NDArray)]
    if arr:
        ctx = arr[0]._ctx
        dev = arr[0]._t.device
        td = arr[0]._t.dtype if dtype is None else to_torch_dtype(dtype)
        base = arr[0]._t.shape
        extra = () if shape is None or shape == () else _shape(shape)
        ps = [(p._t if isinstance(p, NDArray) else torch.tensor(float(p), device=dev))
              .reshape(tuple(base) + (1,) * len(extra)).to(torch.float64) for p in params]
        t = draw(tuple(base) + extra, ps, dev).to(td)
    else:
        ctx, dev = _device_ctx(ctx)
        td = to_torch_dtype(dtype)
        ps = [torch.tensor(float(p), dtype=torch.float64, device=dev) for p in params]
        t = draw(_shape(shape), ps, dev).to(td)
    if out is not None:
        out[:] = NDArray._from_tensor(t, ctx)
        return out
    return _wrap(t, ctx)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high)."""
    _no_kwargs('uniform', kwargs)
    return _sample(lambda s, p, d: torch.rand(s, dtype=torch.float64, device=d) * (p[1] - p[0]) + p[0],
                   (low, high), shape, dtype, ctx, out)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale**2)."""
    _no_kwargs('normal', kwargs)
    return _sample(lambda s, p, d: torch.randn(s, dtype=torch.float64, device=d) * p[1] + p[0],
                   (loc, scale), shape, dtype, ctx, out)


def randn(*shape, **kwargs):
    """Normal samples with the shape given positionally."""
    loc = kwargs.pop('loc', 0)
    scale = kwargs.pop('scale', 1)
    return normal(loc, scale, shape, **kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers from [low, high) (int32 unless ``dtype``)."""
    _no_kwargs('randint', kwargs)
    if int(high) <= int(low):
        raise MXNetValueError('randint: high (%s) must be greater than low (%s)' % (high, low))
    ctx, dev = _device_ctx(ctx)
    td = to_torch_dtype(dtype, torch.int32)
    t = torch.randint(int(low), int(high), _shape(shape), dtype=td, device=dev)
    if out is not None:
        out[:] = NDArray._from_tensor(t, ctx)
        return out
    return _wrap(t, ctx)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from an exponential distribution with mean ``scale``."""
    _no_kwargs('exponential', kwargs)
    return _sample(lambda s, p, d: torch.empty(s, dtype=torch.float64, device=d).exponential_(1.0) * p[0],
                   (scale,), shape, dtype, ctx, out)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from Gamma(alpha, scale=beta)."""
    _no_kwargs('gamma', kwargs)
    return _sample(lambda s, p, d: torch._standard_gamma(p[0].expand(s).contiguous()) * p[1],
                   (alpha, beta), shape, dtype, ctx, out)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from Poisson(lam) (as floats, like MXNet)."""
    _no_kwargs('poisson', kwargs)
    return _sample(lambda s, p, d: torch.poisson(p[0].expand(s).contiguous()), (lam,), shape, dtype, ctx, out)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from NB(k, p): failures before the k-th success."""
    _no_kwargs('negative_binomial', kwargs)

    def draw(s, q, d):
        lam = torch._standard_gamma(q[0].expand(s).contiguous()) * (1 - q[1]) / q[1]
        return torch.poisson(lam)
    return _sample(draw, (k, p), shape, dtype, ctx, out)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the generalized negative binomial (mean mu, dispersion alpha)."""
    _no_kwargs('generalized_negative_binomial', kwargs)

    def draw(s, q, d):
        k = 1.0 / q[1]
        lam = torch._standard_gamma(k.expand(s).contiguous()) * q[0] * q[1]
        return torch.poisson(lam)
    return _sample(draw, (mu, alpha), shape, dtype, ctx, out)


def multinomial(data, shape=None, get_prob=False, out=None, dtype='int32', **kwargs):
    """Samples category indices from the probability rows of ``data``."""
    _no_kwargs('multinomial', kwargs)
    probs = data._t
    n = 1 if shape is None or shape == () else int(torch.tensor(_shape(shape)).prod())
    flat = probs.reshape(-1, probs.shape[-1])
    idx = torch.multinomial(flat.double(), n, replacement=True)
    extra = () if shape is None or shape == () else _shape(shape)
    idx = idx.reshape(tuple(probs.shape[:-1]) + extra)
    res = _wrap(idx.to(to_torch_dtype(dtype)), data._ctx)
    if get_prob:
        lp = torch.log(torch.gather(flat, 1, idx.reshape(flat.shape[0], -1))).reshape(idx.shape)
        return [res, _wrap(lp.to(probs.dtype), data._ctx)]
    return res


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    _no_kwargs('shuffle', kwargs)
    t = data._t
    return _wrap(t[torch.randperm(t.shape[0], device=t.device)], data._ctx)


def _no_kwargs(name, kwargs):
    if kwargs:
        from ..base import unsupported
        raise unsupported('mx.nd.random.' + name, 'argument(s) %s' % ', '.join(sorted(kwargs)))
