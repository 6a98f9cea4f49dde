"""``npx.save`` / ``npx.load``: MXNet's NDArray file format (its np-shape V3 records) for ``mx.np`` arrays;
files are readable both ways with MXNet 1.9.1. Differs from MXNet: writes are atomic (as ``mx.nd.save``)."""
from ..base import MXNetTypeError, MXNetValueError
from ..ndarray import _codec
from ..numpy.multiarray import ndarray, _np_wrap
from ..context import cpu
from ..util import is_np_array, is_np_shape, _np_shape_level

__all__ = ['save', 'load']


def _check_semantics(verb):
    if not (is_np_shape() and is_np_array()):
        raise MXNetValueError('npx.%s: mx.np arrays are saved and loaded under NumPy semantics only; call '
                              'npx.set_np() first' % verb)


def save(file, arr):  # noqa: A002 (MXNet's name)
    """Save an ``mx.np.ndarray``, a list of them or a str-keyed dict of them to ``file`` (NumPy semantics
    required, as in MXNet)."""
    _check_semantics('save')
    if isinstance(arr, ndarray):
        arr = [arr]
    if isinstance(arr, dict):
        if any(not isinstance(k, str) for k in arr) or any(not isinstance(v, ndarray) for v in arr.values()):
            raise MXNetTypeError('npx.save: a dict must map str to mx.np.ndarray')
        records = {k: v._t.detach() for k, v in arr.items()}
    elif isinstance(arr, list):
        if any(not isinstance(v, ndarray) for v in arr):
            raise MXNetTypeError('npx.save: a list must hold mx.np.ndarray only')
        records = [v._t.detach() for v in arr]
    else:
        raise MXNetValueError('npx.save: arr must be an mx.np.ndarray, a list of them or a dict of str to them, '
                              'got %s' % type(arr).__name__)
    _codec.save_file(file, records, np_shape=True)


def load(file):  # noqa: A002
    """The list or dict of ``mx.np.ndarray`` saved in ``file`` (by ``npx.save`` here or in MXNet); NumPy
    semantics required, as in MXNet."""
    _check_semantics('load')
    if not isinstance(file, str):
        raise MXNetTypeError('npx.load: file must be a str, got %s' % type(file).__name__)
    loaded = _codec.load_file(file, np_shape=_np_shape_level())
    ctx = cpu(0)
    if isinstance(loaded, dict):
        return {k: _np_wrap(_dense(v), ctx) for k, v in loaded.items()}
    return [_np_wrap(_dense(v), ctx) for v in loaded]


def _dense(r):
    if not hasattr(r, 'dim'):
        raise MXNetTypeError('npx.load: the file holds a sparse or empty array record, which mx.np cannot load')
    return r
