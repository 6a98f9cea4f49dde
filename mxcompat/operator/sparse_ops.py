"""Operators that exist for sparse storage: ``cast_storage``, ``_sparse_retain``, ``_square_sum``, ``getnnz``.

These registry entries compute on dense tensors (the symbol/graph path and storage fallback); ``mx.nd`` calls with
CSRNDArray/RowSparseNDArray inputs are handled storage-aware in ``mxcompat.ndarray.sparse``. Differs from MXNet:
in a symbol graph every array is dense, so ``cast_storage`` is the identity there and ``_contrib_getnnz`` counts
non-zero values (MXNet counts stored entries, which can include explicit zeros).
"""
import torch

from ..base import MXNetError
from .reduce import norm_axes, _legacy
from .registry import defop

_STYPES = ('default', 'row_sparse', 'csr')


def _cast_storage(data, stype):
    if stype == 'csr' and data.dim() != 2:
        raise MXNetError('Operator cast_storage: csr storage needs a 2-D array, got shape %s' % (tuple(data.shape),))
    return data.clone()


defop('cast_storage', ('data',), [('stype', 'str', None)], _cast_storage, choices={'stype': _STYPES},
      doc='Convert storage type (dense tensors here: values pass unchanged; see mx.nd.sparse for sparse arrays).')


def _retain(data, indices):
    if data.dim() == 0:
        raise MXNetError('Operator _sparse_retain: data must have at least one axis')
    keep = torch.zeros(data.shape[0], dtype=torch.bool, device=data.device)
    keep[indices.long()] = True
    return data * keep.reshape((-1,) + (1,) * (data.dim() - 1)).to(data.dtype)


defop('_sparse_retain', ('data', 'indices'), (), _retain,
      doc='Keep the rows of ``data`` listed in ``indices``; the others become zero.')


def _square_sum(data, axis, keepdims, exclude):
    axes = norm_axes('_square_sum', axis, data.dim(), exclude)
    sq = data * data
    if not axes:
        return sq
    return _legacy(torch.sum(sq, axes, keepdims))


defop('_square_sum', ('data',), [('axis', 'axis', None), ('keepdims', 'bool', False), ('exclude', 'bool', False)],
      _square_sum, doc='Sum of squares over ``axis`` (MXNet registers it for row_sparse inputs).')


def _getnnz(data, axis):
    if data.dim() != 2:
        raise MXNetError('Operator _contrib_getnnz: expects a 2-D (csr) array, got shape %s' % (tuple(data.shape),))
    nz = data != 0
    if axis is None:
        return nz.sum().reshape(1).to(torch.int64)
    if axis not in (1, -1):
        raise MXNetError('Operator _contrib_getnnz: axis must be None or 1, got %d' % axis)
    return nz.sum(1).to(torch.int64)


defop('_contrib_getnnz', ('data',), [('axis', 'int?', None)], _getnnz,
      doc='Number of stored values of a csr array, in total or per row (axis 1).')
