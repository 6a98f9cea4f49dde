"""Every registry operator as an ``mx.nd`` function (see ``register.py``)."""
from . import register as _register
from . import _functions  # noqa: F401  (fills register's table of written-out functions)
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

_dense_dot = dot  # noqa: F821 (generated above)
_Null = _register._UNSET


def dot(lhs=None, rhs=None, transpose_a=_Null, transpose_b=_Null, forward_stype=_Null, out=None, name=None,
        **kwargs):
    """The registry's dot; a ``forward_stype`` of 'csr' or 'row_sparse' gives a result of that storage
    (``mx.nd.sparse.dot``)."""
    if forward_stype in ('csr', 'row_sparse'):
        flags = _dense_dot._op.parse_attrs({k: v for k, v in (('transpose_a', transpose_a),
                                                              ('transpose_b', transpose_b)) if v is not _Null})
        return _sparse.dot(lhs, rhs, flags['transpose_a'], flags['transpose_b'], forward_stype, out)
    return _dense_dot(lhs, rhs, transpose_a, transpose_b, forward_stype, out=out, name=name, **kwargs)


dot._op = _dense_dot._op

_register.attach_methods(__import__('mxcompat.ndarray.ndarray', fromlist=['NDArray']).NDArray, globals())
