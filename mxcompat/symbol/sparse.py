"""``mx.sym.sparse``: operators filed under this namespace (filled from the registry by ``op.py``)."""
from . import _internal

# The names of MXNet's mx.sym.sparse that the registry has (the same ops; the graph computes on dense values)
def _fill(ops):
    """Bind the mx.sym.sparse names found in ``ops`` (the namespace of ``symbol/op.py``, which calls this)."""
    for _n in ('ElementWiseSum Embedding FullyConnected LinearRegressionOutput LogisticRegressionOutput '
               'MAERegressionOutput abs adagrad_update adam_update add_n arccos arccosh arcsin arcsinh arctan arctanh '
               'broadcast_add broadcast_div broadcast_minus broadcast_mul broadcast_plus broadcast_sub cast_storage '
               'cbrt ceil clip concat cos cosh degrees dot elemwise_add elemwise_div elemwise_mul elemwise_sub exp '
               'expm1 fix floor ftrl_update gamma gammaln log log10 log1p log2 make_loss mean negative norm radians '
               'relu rint round rsqrt sgd_mom_update sgd_update sigmoid sign sin sinh slice sqrt square stop_gradient '
               'sum tan tanh trunc where zeros_like').split():
        if _n in ops:
            globals().setdefault(_n, ops[_n])
    globals().setdefault('retain', getattr(_internal, '_sparse_retain', None))
