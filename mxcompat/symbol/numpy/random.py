"""``mx.sym.np.random``: ``mx.np.random``'s samplers on NumPy symbols (``F.np.random`` of a hybridized block in
NumPy mode), making the nodes MXNet 1.9.1's functions make: ``_npi_uniform``, ``_npi_normal``, ``_npi_gamma`` ...
with a number parameter as an attribute and a symbol parameter as an input (its attribute ``None``), ``size``,
``ctx`` (the current context's name when not given) and ``dtype`` attributes; ``randint`` the legacy
``_random_randint``; ``lognormal``, ``beta``, ``chisquare`` and ``choice`` of a symbol built of several nodes, and
``multivariate_normal`` a ``Custom`` node of MXNet's ``mvn_fallback`` operator. The operators run the ``mx.np.random``
functions, so a seeded hybridized block draws what the eager block draws (as in MXNet, where both take the same
generator). ``mx.np.random``'s ``randn`` and ``multinomial``, which MXNet's symbols lack, raise
``MXNetNotImplementedError``.
"""
from ...base import MXNetValueError, missing_attribute
from ...context import current_context  # noqa: F401  (MXNet's module has it)
from ..symbol import Symbol
from . import _Symbol, _call, _sym, _ctx, as_np
from . import _random_ops  # noqa: F401  (registers the samplers)

__all__ = ['randint', 'uniform', 'normal', 'multivariate_normal', 'logistic', 'gumbel', 'rayleigh', 'rand', 'shuffle',
           'gamma', 'beta', 'chisquare', 'exponential', 'lognormal', 'weibull', 'pareto', 'power']


def _size(size):
    return None if size == () else size


def _node(op_name, names, values, **attrs):
    """A sampler node: each ``_Symbol`` parameter an input (its attribute None), each other one an attribute."""
    inputs = [v for v in values if isinstance(v, _Symbol)]
    for name, v in zip(names, values):
        attrs[name] = None if isinstance(v, _Symbol) else v
    return _call(op_name, *inputs, **attrs)


def _size_of_out(out, size):
    # (MXNet's uniform and gamma take ``size`` from ``out``; a symbol has no shape)
    if out is None:
        return size
    if isinstance(out, Symbol):
        raise AttributeError("'_Symbol' object has no attribute 'shape'")
    return out.shape


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):  # noqa: ARG001
    """A ``_random_randint`` node (integers of ``[low, high)``, int64 by default); ``low``/``high`` integers."""
    if high is None:
        low, high = 0, low
    for name, v in (('low', low), ('high', high)):
        if isinstance(v, Symbol):
            raise MXNetValueError("Invalid Parameter format for %s expect long but value='%r', in operator "
                                  "_random_randint" % (name, v))
    return as_np(_sym('_random_randint', 'random_randint')(low=low, high=high, shape=() if size is None else size,
                                                          dtype='int64' if dtype is None else dtype, ctx=_ctx(ctx)))


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    return _node('_npi_uniform', ('low', 'high'), (low, high), size=_size(_size_of_out(out, size)), ctx=_ctx(ctx),
                 dtype='float32' if dtype is None else dtype)


def rand(*size, **kwargs):
    """``uniform(0, 1, size)``."""
    return uniform(0, 1, size=tuple(size), **kwargs)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):  # noqa: ARG001
    return _node('_npi_normal', ('loc', 'scale'), (loc, scale), size=_size(size), ctx=_ctx(ctx),
                 dtype='float32' if dtype is None else dtype)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """``exp`` of a ``normal`` node."""
    return _call('_npi_exp', normal(mean, sigma, size=size, dtype=dtype, ctx=ctx, out=out))


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None):  # noqa: ARG001
    return _node('_npi_logistic', ('loc', 'scale'), (loc, scale), size=_size(size), ctx=_ctx(ctx))


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None):  # noqa: ARG001
    return _node('_npi_gumbel', ('loc', 'scale'), (loc, scale), size=_size(size), ctx=_ctx(ctx))


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    return _node('_npi_gamma', ('shape', 'scale'), (shape, scale), size=_size(_size_of_out(out, size)),
                 ctx=_ctx(ctx), dtype='float32' if dtype is None else dtype)


def beta(a, b, size=None, dtype=None, ctx=None):
    """``X / (X + Y)`` of two float64 ``gamma`` nodes, cast to ``dtype``, as MXNet builds it."""
    x = gamma(a, 1, size=size, dtype='float64', ctx=ctx)
    y = gamma(b, 1, size=size, dtype='float64', ctx=ctx)
    return (x / (x + y)).astype('float32' if dtype is None else dtype)


def chisquare(df, size=None, dtype=None, ctx=None):
    """MXNet 1.9.1's ``gamma(df / 2, 1 / 2)`` (its mean ``df / 4``, as MXNet's)."""
    return gamma(df / 2, 1 / 2, size=size, dtype=dtype, ctx=ctx)


def exponential(scale=1.0, size=None, ctx=None, out=None):  # noqa: ARG001
    return _node('_npi_exponential', ('scale',), (scale,), size=_size(size), ctx=_ctx(ctx))


def rayleigh(scale=0.0, size=None, ctx=None, out=None):  # noqa: ARG001 (MXNet's default scale, 0.0)
    return _node('_npi_rayleigh', ('scale',), (scale,), size=_size(size), ctx=_ctx(ctx))


def weibull(a, size=None, ctx=None, out=None):  # noqa: ARG001
    return _node('_npi_weibull', ('a',), (a,), size=_size(size), ctx=_ctx(ctx))


def pareto(a, size=None, ctx=None, out=None):  # noqa: ARG001
    return _node('_npi_pareto', ('a',), (a,), size=_size(size), ctx=_ctx(ctx))


def power(a, size=None):
    """A ``_npi_powerd`` node (no ``ctx`` attribute, as MXNet's)."""
    return _node('_npi_powerd', ('a',), (a,), size=_size(size))


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):  # noqa: ARG001
    """A ``_npi_choice`` node of indices; for a symbol ``a`` its elements at them (a ``take`` node, the choice
    node's ``ctx`` None), as MXNet builds it."""
    size = _size(size)
    weights = [] if p is None else [p]
    if isinstance(a, _Symbol):
        idx = _call('_npi_choice', a, *weights, a=None, size=size, replace=replace, ctx=None, weighted=p is not None)
        return _call('take', a, idx)
    return _call('_npi_choice', *weights, a=a, size=size, replace=replace, ctx=_ctx(ctx), weighted=p is not None)


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """A ``Custom`` node of MXNet's ``mvn_fallback`` operator (``mx.np.random.multivariate_normal`` on the
    tensors); ``check_valid`` and ``tol`` raise NotImplementedError, as in MXNet."""
    if check_valid is not None:
        raise NotImplementedError('Parameter `check_valid` is not supported')
    if tol is not None:
        raise NotImplementedError('Parameter `tol` is not supported')
    return as_np(_sym('Custom', 'custom')(mean, cov, op_type='mvn_fallback', size=size))


def shuffle(x):
    """Returns None, as MXNet's symbol function does: the ``shuffle`` node it makes is not part of any graph
    (shuffle eagerly, or with ``mx.np.random.shuffle``)."""
    _sym('_shuffle', 'shuffle')(x)


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise missing_attribute('mx.sym.np.random.' + name, 'this sampler of NumPy-compatible symbols',
                      'MXNet 1.9.1 has no symbol for it either')

