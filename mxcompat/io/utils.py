"""Helpers of ``mx.io``: the canonical (name, array) form of iterator inputs, shuffling and batch-axis slicing."""
from collections import OrderedDict

import numpy as np

from .. import ndarray as _nd
from ..ndarray import NDArray, array, sparse


def _is_h5py_dataset(v):
    return type(v).__module__.startswith('h5py') and type(v).__name__ == 'Dataset'


def _init_data(data, allow_empty, default_name):
    """Turn an array, a list of arrays or a dict of them into a list of (name, NDArray or h5py.Dataset) sorted by
    name; a single array is named ``default_name``, list items ``_<i>_<default_name>``. Other array-likes are
    converted with ``mx.nd.array`` (so numpy data becomes float32, as in MXNet)."""
    assert (data is not None) or allow_empty
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)) or _is_h5py_dataset(data):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert len(data) > 0
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([('_%d_%s' % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError('Input must be NDArray, numpy.ndarray, h5py.Dataset a list of them or dict with them as values')
    out = OrderedDict()
    for k, v in data.items():
        if isinstance(v, NDArray) or _is_h5py_dataset(v):
            out[k] = v
            continue
        try:
            out[k] = array(v)
        except Exception:  # noqa: BLE001
            raise TypeError(("Invalid type '%s' for %s, " % (type(v), k))
                            + 'should be NDArray, numpy.ndarray or h5py.Dataset') from None
    return list(sorted(out.items()))


def _has_instance(data, dtype):
    """Whether any array of a canonical (name, array) list is a ``dtype``."""
    return any(isinstance(arr, dtype) for _, arr in data)


def _getdata_by_idx(data, idx):
    """Reorder every array by ``idx`` (h5py datasets stay as they are). As in MXNet the result is float32."""
    out = []
    for k, v in data:
        if isinstance(v, sparse.CSRNDArray):  # rows taken in csr storage (no scipy needed)
            v = _nd.take(v, array(np.asarray(idx), v.context, dtype='int64'))
        elif not _is_h5py_dataset(v):
            v = array(v.asnumpy()[idx], v.context)
        out.append((k, v))
    return out


def _slice_along_batch_axis(data, s, batch_axis):
    """``data[s]`` along ``batch_axis``, a new array (as MXNet's ``slice_axis``)."""
    t = getattr(data, '_t', None) if type(data) is NDArray else None
    if t is not None and 0 <= s.start <= s.stop <= t.shape[batch_axis]:
        part = t[s] if batch_axis == 0 else t.narrow(batch_axis, s.start, s.stop - s.start)  # (indexing is quicker)
        return NDArray._from_tensor(part.clone(), data._ctx)
    return data.slice_axis(axis=batch_axis, begin=s.start, end=s.stop)
