"""``mx.nd.save`` / ``mx.nd.load``: MXNet's binary NDArray file format, byte-compatible with MXNet 1.9.1.

Differs from MXNet: writes are atomic (temp file + rename); remote paths (``s3://`` ...) go through fsspec.
"""
from ..base import MXNetTypeError
from ..context import cpu
from .ndarray import NDArray
from . import sparse, _codec
from ..util import _np_shape_level, is_np_shape

__all__ = ['save', 'load', 'load_frombuffer']


def _to_record(a, key):
    if not isinstance(a, NDArray):
        raise MXNetTypeError('save: only NDArrays can be saved, got %s for %s' % (type(a).__name__, key))
    if a.stype != 'default':
        return a._sparse_record()
    return a._t.detach()


def _records(data):
    if isinstance(data, NDArray):
        return [_to_record(data, 'the array')]
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if not isinstance(k, str):
                raise MXNetTypeError('save: dict keys must be str, got %s' % type(k).__name__)
            out[k] = _to_record(v, repr(k))
        return out
    if isinstance(data, (list, tuple)):
        return [_to_record(v, 'item %d' % i) for i, v in enumerate(data)]
    raise MXNetTypeError('save: data must be an NDArray, a list or a dict of NDArrays, got %s' % type(data))


def save(fname, data):
    """Save an NDArray, a list or a str-keyed dict of NDArrays to ``fname`` in MXNet's format (its np-shape V3
    records under ``mx.util.set_np_shape(True)``, as MXNet)."""
    _codec.save_file(fname, _records(data), np_shape=is_np_shape())


def _from_record(r):
    if r is None:  # a "none" array record (older MXNet writers): MXNet's Python load refuses it too
        raise MXNetTypeError('load: the file holds an empty (none) NDArray record, which MXNet cannot load')
    if isinstance(r, _codec.SparseRecord):
        return sparse._from_record(r)
    return NDArray._from_tensor(r, cpu(0))


def _wrap_all(loaded):
    if isinstance(loaded, dict):
        return {k: _from_record(v) for k, v in loaded.items()}
    return [_from_record(v) for v in loaded]


def load(fname):
    """Load a list or dict of NDArrays saved by ``save`` (here or in real MXNet). As in MXNet, files saved under
    NumPy shape semantics load only under them, and other files not while those are on for this thread only."""
    return _wrap_all(_codec.load_file(fname, np_shape=_np_shape_level()))


def load_frombuffer(buf):
    """Like ``load``, from the bytes of such a file."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise MXNetTypeError('load_frombuffer: buf must be bytes, got %s' % type(buf).__name__)
    return _wrap_all(_codec.loads(bytes(buf), np_shape=_np_shape_level()))
