"""``npx.random``: ``seed`` (``mx.random.seed``) and MXNet's NumPy-extension samplers."""
from .. import random as _mxrandom

__all__ = ['seed']


def seed(seed, ctx='all'):  # noqa: A002 (MXNet's name)
    """``mx.random.seed``: seeds the generators ``mx.np.random`` and ``mx.nd.random`` draw from."""
    _mxrandom.seed(seed, ctx)
