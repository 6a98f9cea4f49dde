"""``mx.sym.random``: sampling symbols. Numeric parameters make ``_random_<dist>`` nodes, Symbol parameters make
``_sample_<dist>`` nodes (output shape ``param.shape + shape``), as MXNet's ``mx.sym.random`` does."""
from numbers import Number

from ..base import MXNetTypeError, MXNetValueError
from . import _internal
from .symbol import Symbol

__all__ = ['uniform', 'normal', 'randn', 'poisson', 'exponential', 'gamma', 'multinomial', 'negative_binomial',
           'generalized_negative_binomial', 'shuffle', 'randint']


def _helper(dist, params, shape, dtype, kwargs):
    # shape and dtype are left out when not given, as MXNet leaves them out of the node's attributes (an unknown
    # shape, which symbol inference fills in)
    if shape is not None:
        kwargs['shape'] = shape
    if dtype is not None:
        kwargs['dtype'] = dtype
    if isinstance(params[0], Symbol):
        if not all(isinstance(p, Symbol) for p in params):
            raise MXNetTypeError('Distribution parameters must all have the same type')
        return getattr(_internal, '_sample_' + dist)(*params, **kwargs)
    if isinstance(params[0], Number):
        if not all(isinstance(p, Number) for p in params):
            raise MXNetTypeError('Distribution parameters must all have the same type')
        return getattr(_internal, '_random_' + dist)(*params, **kwargs)
    raise MXNetValueError('Distribution parameters must be either Symbol or numbers, but got %s.'
                          % type(params[0]))


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    return _helper('uniform', [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    return _helper('normal', [loc, scale], shape, dtype, kwargs)


def randn(*shape, **kwargs):
    return normal(kwargs.pop('loc', 0), kwargs.pop('scale', 1), shape, **kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    return _helper('poisson', [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    return _helper('exponential', [1.0 / scale], shape, dtype, kwargs)  # the op takes the rate


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    return _helper('gamma', [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    return _helper('negative_binomial', [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    return _helper('generalized_negative_binomial', [mu, alpha], shape, dtype, kwargs)


def multinomial(data, shape=None, get_prob=True, dtype='int32', **kwargs):
    """As MXNet's: on Symbols ``get_prob`` defaults to True (two outputs, the samples and their log-probabilities),
    unlike ``mx.nd.random.multinomial``."""
    if shape is not None:
        kwargs['shape'] = shape
    return _internal._sample_multinomial(data, get_prob=get_prob, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    return _internal._shuffle(data, **kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    if shape is not None:
        kwargs['shape'] = shape
    if dtype is not None:
        kwargs['dtype'] = dtype
    return _internal._random_randint(low=low, high=high, **kwargs)
