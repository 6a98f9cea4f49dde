"""Every registry operator as an ``mx.nd`` function (see ``register.py``), and MXNet's Python-level ``histogram``
and legacy ``imdecode``."""
import numpy as _np

from ..base import MXNetValueError as _MXNetValueError, unsupported as _unsupported
from .ndarray import NDArray as _NDArray, array as _array
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

_register.attach_methods(_NDArray, globals())


def histogram(a, bins=10, range=None):  # noqa: A002 (MXNet's name)
    """Histogram of ``a``: (counts, bin_edges). ``bins`` is a count (then ``range`` defaults to numpy's result on
    the data, as MXNet does) or an NDArray of edges."""
    if isinstance(bins, _NDArray):
        return _internal._histogram(data=a, bins=bins)
    if isinstance(bins, (int, _np.integer)):
        if range is None:
            res, edges = _np.histogram(a.asnumpy().astype(_np.float64), bins=bins)  # float64 edges, as MXNet
            return _array(res, ctx=a.context), _array(edges, ctx=a.context)
        return _internal._histogram(data=a, bin_cnt=bins, range=range)
    raise _MXNetValueError('bins argument should be either an integer or an NDArray')


def imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """Legacy ``mx.nd.imdecode``: not supported, as in MXNet 1.9.1 itself (its ``_imdecode`` fails for every
    input there). Use ``mx.image.imdecode``."""
    raise _unsupported('mx.nd.imdecode', 'the legacy decoder',
                       'it fails for every input in MXNet 1.9.1; use mx.image.imdecode instead')
