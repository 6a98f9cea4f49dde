"""Every registry operator as an ``mx.nd`` function (generated; see ``register.py``)."""
from . import register as _register
from . import _internal, contrib, linalg, image  # noqa: F401
from . import sparse as _sparse
from . import random as _random

_subs = {}
_register.populate(globals(), _internal.__dict__, _subs)
for _name, _mod in (('contrib', contrib), ('linalg', linalg), ('image', image), ('sparse', _sparse),
                    ('random', _random)):
    for _k, _v in _subs.get(_name, {}).items():
        _mod.__dict__.setdefault(_k, _v)

__all__ = [k for k in list(globals()) if not k.startswith('_') and callable(globals()[k])
           and getattr(globals()[k], '_op', None) is not None]

_register.attach_methods(__import__('mxcompat.ndarray.ndarray', fromlist=['NDArray']).NDArray, globals())
