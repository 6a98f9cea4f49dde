"""``mx.sym.npx.image``: MXNet's image operators on NumPy symbols (``to_tensor``, ``normalize``, ``resize``, ``crop``,
the flips and random colour jitters), each one node of the ``_image_<name>`` operator named ``<name>N``, as
MXNet's."""
from ...operator import registry as _registry
from ..numpy import as_np, _sym

_NAMES = sorted(n[len('_image_'):] for n in _registry.REGISTRY if n.startswith('_image_'))
__all__ = list(_NAMES)


def _image_symbol(name):
    make = _sym('_image_' + name, name)

    def fn(*args, **kwargs):
        return as_np(make(*args, **kwargs))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = 'mx.npx.image.%s on symbols: an _image_%s node.' % (name, name)
    return fn


globals().update({_n: _image_symbol(_n) for _n in _NAMES})
