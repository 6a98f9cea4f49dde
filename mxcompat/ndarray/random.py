"""``mx.nd.random``: sampling functions over the registry's ``_random_*`` / ``_sample_*`` operators.

Scalar parameters call ``_random_<dist>`` (shape defaults to ``(1,)``); NDArray parameters call ``_sample_<dist>``,
whose output shape is ``param.shape + shape``. Differs from MXNet: the random streams are torch's, so the same seed
gives different numbers than MXNet; mixing NDArray and scalar parameters raises ``MXNetTypeError`` (MXNet: an
``AssertionError``).
"""
from ..base import MXNetTypeError, MXNetValueError, numeric_types
from ..context import current_context
from . import _internal
from .ndarray import NDArray

__all__ = ['uniform', 'normal', 'randn', 'poisson', 'exponential', 'gamma', 'multinomial', 'negative_binomial',
           'generalized_negative_binomial', 'shuffle', 'randint']


def _op(name):
    # looked up at call time: mx.nd._internal is filled from the registry after this module is imported
    return getattr(_internal, name)


def _random_helper(dist, params, shape, dtype, ctx, out, kwargs):
    if isinstance(params[0], NDArray):
        for p in params[1:]:
            if not isinstance(p, NDArray):
                raise MXNetTypeError('Distribution parameters must all have the same type, but got both %s and %s.'
                                     % (type(params[0]), type(p)))
        if dtype is None and out is not None:
            dtype = out.dtype  # MXNet infers the sample dtype (not the shape) from ``out``
        return _op('_sample_' + dist)(*params, shape=shape if shape is not None else (), dtype=dtype, out=out,
                                      **kwargs)
    if isinstance(params[0], numeric_types):
        for p in params[1:]:
            if not isinstance(p, numeric_types):
                raise MXNetTypeError('Distribution parameters must all have the same type, but got both %s and %s.'
                                     % (type(params[0]), type(p)))
        if ctx is None:
            ctx = current_context()
        if shape is None:
            shape = out.shape if out is not None else 1
        if dtype is None and out is not None:
            dtype = out.dtype
        return _op('_random_' + dist)(*params, shape=shape, dtype=dtype, ctx=ctx, out=out, **kwargs)
    raise MXNetValueError('Distribution parameters must be either NDArray or numbers, but got %s.'
                          % type(params[0]))


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high); NDArray ``low``/``high`` give shape ``low.shape + shape``."""
    return _random_helper('uniform', [low, high], shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale**2); NDArray parameters give shape ``loc.shape + shape``."""
    return _random_helper('normal', [loc, scale], shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Normal samples with the shape given positionally (``loc``, ``scale``, ``dtype``, ``ctx``, ``out`` by
    keyword)."""
    loc = kwargs.pop('loc', 0)
    scale = kwargs.pop('scale', 1)
    dtype = kwargs.pop('dtype', None)
    ctx = kwargs.pop('ctx', None)
    out = kwargs.pop('out', None)
    if not isinstance(loc, (int, float, NDArray)) or not isinstance(scale, (int, float, NDArray)):
        raise MXNetTypeError('randn: loc and scale must be numbers or NDArrays')
    return _random_helper('normal', [loc, scale], shape, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from Poisson(lam), as floating point numbers."""
    return _random_helper('poisson', [lam], shape, dtype, ctx, out, kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution with mean ``scale`` (rate ``1/scale``)."""
    return _random_helper('exponential', [1.0 / scale], shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from Gamma(shape=alpha, scale=beta)."""
    return _random_helper('gamma', [alpha, beta], shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from NB(k, p): failures before the k-th success, ``p`` the success probability per trial."""
    return _random_helper('negative_binomial', [k, p], shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the negative binomial with mean ``mu`` and dispersion ``alpha`` (Poisson when alpha is 0)."""
    return _random_helper('generalized_negative_binomial', [mu, alpha], shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype='int32', **kwargs):
    """Category indices drawn from the last-axis distributions of ``data`` (``[indices, log_probs]`` with
    ``get_prob``)."""
    return _op('_sample_multinomial')(data, shape=shape if shape is not None else (), get_prob=get_prob, out=out,
                                      dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    return _op('_shuffle')(data, **kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 unless ``dtype='int64'``)."""
    if isinstance(low, NDArray) or isinstance(high, NDArray):
        raise MXNetTypeError('randint: low and high must be integers; MXNet has no per-element randint')
    return _random_helper('randint', [low, high], shape, dtype, ctx, out, kwargs)
