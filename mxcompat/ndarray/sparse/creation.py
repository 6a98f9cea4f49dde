"""Creating sparse arrays: ``csr_matrix``, ``row_sparse_array``, ``array``, ``zeros``/``empty``, ``cast_storage``."""
import numpy as np
import torch

from ...base import MXNetValueError, MXNetTypeError, to_torch_dtype, unsupported, from_host
from ..ndarray import NDArray, _wrap, zeros as _dense_zeros
from .._creation import _device_ctx
from .storage import (BaseSparseNDArray, CSRNDArray, RowSparseNDArray, _CLASSES, _I64, _integer_types, _empty_comps,
                      _from_dense_tensor, _to_out)


def _shape_of(shape):
    return tuple(int(s) for s in shape)


def _td(dtype, default=None):
    if dtype is None:
        return default if default is not None else torch.float32
    return to_torch_dtype(dtype)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage ``stype`` ('default', 'row_sparse' or 'csr')."""
    if stype == 'default':
        return _dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in _CLASSES:
        raise MXNetValueError("unknown storage type %r: expected 'default', 'row_sparse' or 'csr'" % (stype,))
    out = kwargs.pop('out', None)
    if kwargs:
        raise MXNetTypeError('sparse.zeros: unknown arguments %s' % ', '.join(sorted(kwargs)))
    shape = _shape_of((shape,) if isinstance(shape, _integer_types) else shape)
    if stype == 'csr' and len(shape) != 2:
        raise MXNetValueError('csr storage needs a 2-D shape, got %s' % (shape,))
    ctx, dev = _device_ctx(ctx)
    res = _CLASSES[stype]._new(_empty_comps(stype, shape, _td(dtype), dev), shape, ctx)
    if out is not None:
        out[:] = res
        return out
    return res


def empty(stype, shape, ctx=None, dtype=None):
    """Same as ``zeros`` (a sparse array has no uninitialised values)."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def _as_tensor(x, td, dev):
    if isinstance(x, NDArray):
        t = x._t.detach()
    elif isinstance(x, torch.Tensor):
        t = x.detach()
    else:
        t = from_host(np.asarray(x))
    return t.to(device=dev, dtype=td if td is not None else t.dtype)


def _default_dtype(src, dtype):
    if dtype is not None:
        return to_torch_dtype(dtype)
    if isinstance(src, NDArray):
        return src._tdtype if isinstance(src, BaseSparseNDArray) else src._t.dtype
    if isinstance(src, (np.ndarray, torch.Tensor)) or _is_scipy(src):
        return to_torch_dtype(src.dtype) if not isinstance(src, torch.Tensor) else src.dtype
    return torch.float32


def _is_scipy(x):
    mod = type(x).__module__
    return mod.startswith('scipy.sparse')


def _check_shape(given, inferred):
    if given is not None and _shape_of(given) != tuple(inferred):
        raise MXNetValueError('shape mismatch: the given shape %s differs from the data shape %s'
                              % (_shape_of(given), tuple(inferred)))


def _dense_source(arg1, shape, ctx, dtype, stype):
    ctx, dev = _device_ctx(ctx)
    td = _default_dtype(arg1, dtype)
    if isinstance(arg1, BaseSparseNDArray):
        if arg1.stype != stype:
            raise MXNetValueError('expected a %s source, got %s' % (stype, arg1.stype))
        _check_shape(shape, arg1.shape)
        comps = arg1._cmp()
        return arg1._like([comps[0].to(dev, td, copy=True)] + [c.to(dev, copy=True) for c in comps[1:]], ctx)
    t = _as_tensor(arg1, td, dev)
    _check_shape(shape, t.shape)
    return _from_dense_tensor(t.contiguous(), stype, ctx)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, ``(data, (row, col))``, a shape ``(M, N)`` (all zeros), a
    scipy sparse matrix, a CSRNDArray, or a dense array-like."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
            return _csr_from_coo(arg1[0], arg1[1][0], arg1[1][1], shape, ctx, dtype)
        if len(arg1) == 2 and all(isinstance(s, _integer_types) for s in arg1):
            _check_shape(shape, _shape_of(arg1))
            return zeros('csr', arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_definition(arg1[0], arg1[1], arg1[2], shape, ctx, dtype)
        raise MXNetValueError('csr_matrix: unexpected tuple of length %d' % len(arg1))
    if _is_scipy(arg1):
        if arg1.format != 'csr':
            raise MXNetValueError('csr_matrix: unexpected scipy.sparse format %r (csr only)' % arg1.format)
        csr = arg1.copy()
        csr.sum_duplicates()
        csr.sort_indices()
        _check_shape(shape, csr.shape)
        return _csr_from_definition(csr.data, csr.indices, csr.indptr, csr.shape, ctx,
                                    dtype if dtype is not None else csr.dtype)
    return _dense_source(arg1, shape, ctx, dtype, 'csr')


def _csr_from_definition(data, indices, indptr, shape, ctx, dtype):
    ctx, dev = _device_ctx(ctx)
    td = _default_dtype(data, dtype)
    data = _as_tensor(data, td, dev).reshape(-1)
    indices = _as_tensor(indices, _I64, dev).reshape(-1)
    indptr = _as_tensor(indptr, _I64, dev).reshape(-1)
    if data.numel() != indices.numel():
        raise MXNetValueError('csr_matrix: data (%d) and indices (%d) differ in length' % (data.numel(),
                                                                                          indices.numel()))
    if shape is None:
        if indices.numel() == 0:
            raise MXNetValueError('csr_matrix: cannot infer the shape from empty indices; give shape')
        shape = (indptr.numel() - 1, int(indices.max()) + 1)
    shape = _shape_of(shape)
    if len(shape) != 2:
        raise MXNetValueError('csr_matrix: shape must be 2-D, got %s' % (shape,))
    return CSRNDArray._new((data, indices, indptr), shape, ctx)


def _csr_from_coo(data, row, col, shape, ctx, dtype):
    ctx, dev = _device_ctx(ctx)
    if dtype is None and not isinstance(data, (NDArray, np.ndarray, torch.Tensor)):
        dtype = np.asarray(data).dtype  # MXNet goes through scipy here: lists keep numpy's dtype
    td = _default_dtype(data, dtype)
    data = _as_tensor(data, td, dev).reshape(-1)
    row = _as_tensor(row, _I64, dev).reshape(-1)
    col = _as_tensor(col, _I64, dev).reshape(-1)
    if shape is None:
        shape = (int(row.max()) + 1 if row.numel() else 0, int(col.max()) + 1 if col.numel() else 0)
    shape = _shape_of(shape)
    coo = torch.sparse_coo_tensor(torch.stack([row, col]), data, shape, check_invariants=True)
    coo = coo.coalesce()  # sorted, duplicates summed
    r, c = coo.indices()
    indptr = torch.zeros(shape[0] + 1, dtype=_I64, device=dev)
    torch.cumsum(torch.bincount(r, minlength=shape[0]), 0, out=indptr[1:])
    return CSRNDArray._new((coo.values(), c.contiguous(), indptr), shape, ctx)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)``, a shape (all zeros), a RowSparseNDArray, or a dense
    array-like."""
    if isinstance(arg1, tuple):
        if all(isinstance(s, _integer_types) for s in arg1):
            _check_shape(shape, _shape_of(arg1))
            return zeros('row_sparse', arg1, ctx=ctx, dtype=dtype)
        if len(arg1) != 2:
            raise MXNetValueError('row_sparse_array: expected (data, indices), got a tuple of length %d' % len(arg1))
        return _rsp_from_definition(arg1[0], arg1[1], shape, ctx, dtype)
    return _dense_source(arg1, shape, ctx, dtype, 'row_sparse')


def _rsp_from_definition(data, indices, shape, ctx, dtype):
    ctx, dev = _device_ctx(ctx)
    td = _default_dtype(data, dtype)
    data = _as_tensor(data, td, dev)
    indices = _as_tensor(indices, _I64, dev).reshape(-1)
    if data.dim() == 0 or data.shape[0] != indices.numel():
        raise MXNetValueError('row_sparse_array: data has %s rows but there are %d indices'
                              % (tuple(data.shape)[:1], indices.numel()))
    if shape is None:
        if indices.numel() == 0:
            raise MXNetValueError('row_sparse_array: cannot infer the shape from empty indices; give shape')
        shape = (int(indices.max()) + 1,) + tuple(data.shape[1:])
    shape = _shape_of(shape)
    if tuple(data.shape[1:]) != shape[1:]:
        raise MXNetValueError('row_sparse_array: data shape %s does not fit shape %s' % (tuple(data.shape), shape))
    return RowSparseNDArray._new((data, indices), shape, ctx)


def array(source_array, ctx=None, dtype=None):
    """A sparse array copied from a CSRNDArray/RowSparseNDArray or a scipy sparse matrix."""
    if isinstance(source_array, BaseSparseNDArray):
        ctx = source_array.context if ctx is None else ctx
        f = csr_matrix if source_array.stype == 'csr' else row_sparse_array
        return f(source_array, ctx=ctx, dtype=dtype)
    if _is_scipy(source_array) and source_array.format == 'csr':
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise MXNetValueError('sparse.array: expected a sparse NDArray or a scipy.sparse matrix, got %s'
                          % type(source_array).__name__)


def cast_storage(data, stype, out=None, name=None):  # noqa: ARG001
    """``data`` converted to storage ``stype`` (a new array)."""
    if out is not None:
        return _to_out(cast_storage(data, stype), out)
    if stype not in ('default', 'row_sparse', 'csr'):
        raise MXNetValueError("cast_storage: invalid stype %r; valid values are 'default', 'row_sparse', 'csr'"
                              % (stype,))
    if isinstance(data, BaseSparseNDArray):
        return data.tostype(stype)
    if not isinstance(data, NDArray):
        raise MXNetTypeError('cast_storage: data must be an NDArray, got %s' % type(data).__name__)
    if stype == 'default':
        return _wrap(data._t.clone(), data._ctx)
    return _from_dense_tensor(data._t.detach(), stype, data._ctx)


def _ndarray_cls(handle, writable=True, stype='default'):
    raise unsupported('mx.nd.sparse._ndarray_cls', 'NDArray handles', 'mxcompat arrays have no C handles')

