"""``mx.sym.npx.random``: ``bernoulli`` and the batched ``uniform_n`` / ``normal_n`` on NumPy symbols, MXNet's
``_npi_bernoulli``, ``_npi_uniform_n`` and ``_npi_normal_n`` nodes (a number parameter an attribute, a symbol one
an input), drawing as ``mx.npx.random`` does."""
from ...base import MXNetValueError
from ...context import current_context  # noqa: F401  (MXNet's module has it)
from ..numpy import _Symbol, _call, _ctx
from ..numpy.random import _node, _size

__all__ = ['bernoulli', 'normal_n', 'uniform_n']


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):  # noqa: ARG001
    """A ``_npi_bernoulli`` node: exactly one of ``prob`` and ``logit`` (ValueError otherwise, as MXNet)."""
    if (prob is None) == (logit is None):
        raise MXNetValueError('Either `prob` or `logit` must be specified, but not both. Received prob={}, logit={}'
                              .format(prob, logit))
    attrs = dict(size=_size(size), ctx=_ctx(ctx), dtype='float32' if dtype is None else dtype,
                 is_logit=prob is None)
    value = logit if prob is None else prob
    if isinstance(value, _Symbol):
        return _call('_npi_bernoulli', value, prob=None, logit=None, **attrs)
    return _call('_npi_bernoulli', prob=prob, logit=logit, **attrs)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Samples of shape ``batch_shape + broadcast(low, high).shape``: a ``_npi_uniform_n`` node."""
    return _node('_npi_uniform_n', ('low', 'high'), (low, high), size=_size(batch_shape), ctx=_ctx(ctx),
                 dtype='float32' if dtype is None else dtype)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Samples of shape ``batch_shape + broadcast(loc, scale).shape``: a ``_npi_normal_n`` node."""
    return _node('_npi_normal_n', ('loc', 'scale'), (loc, scale), size=_size(batch_shape), ctx=_ctx(ctx),
                 dtype='float32' if dtype is None else dtype)
