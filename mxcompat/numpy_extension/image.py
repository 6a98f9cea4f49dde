"""``npx.image``: ``mx.image``'s names plus MXNet's image operators (``to_tensor``, ``normalize``, ``resize``,
``crop``, the flips and random colour jitters) on ``mx.np`` arrays, from the same registry definitions as
``mx.nd.image``."""
from ..image import *  # noqa: F401,F403
from ..operator import registry as _registry
from ._op import make_npx_function as _make

# the registry's ``_npx__image_<name>`` aliases, MXNet's own list
_OPS = {n[len('_npx__image_'):]: op for n, op in _registry.REGISTRY.items() if n.startswith('_npx__image_')}
globals().update({n: _make(op, n, 'mx.npx.image') for n, op in _OPS.items()})
