"""Matrix products with sparse inputs (``dot``), with MXNet's output storage types, over torch's sparse kernels."""
import torch

from ...base import MXNetValueError, incompatible_attr, dtype_name
from ...operator._sparse import _csr_rows
from ..ndarray import _wrap
from .storage import (CSRNDArray, RowSparseNDArray, _from_dense_tensor, over_dense, _sp, _dense_of,
                      _to_out, _op)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None, name=None):  # noqa: ARG001
    """Matrix product with sparse inputs, with MXNet's output storage: csr x dense (or row_sparse) gives a dense
    array, csr.T x dense a row_sparse one, dense x csr (or csr.T) a csr one; other combinations are dense.
    ``forward_stype`` asks for the result's storage (a csr result must be 2-D: MXNet makes N-D ones it cannot
    read back)."""
    if forward_stype not in (None, 'default', 'csr', 'row_sparse'):
        raise MXNetValueError("Operator dot: forward_stype must be one of None, 'default', 'csr', 'row_sparse', "
                              "got %r" % (forward_stype,))
    res = _dot_sparse(lhs, rhs, transpose_a, transpose_b)
    if res is NotImplemented:
        if forward_stype in (None, 'default'):
            return _op('dot')(_dense_of(lhs), _dense_of(rhs), transpose_a=transpose_a, transpose_b=transpose_b,
                              out=out)
        res = _op('dot')(_dense_of(lhs), _dense_of(rhs), transpose_a=transpose_a, transpose_b=transpose_b)
    if forward_stype in (None, res.stype):
        return _to_out(res, out)
    if forward_stype == 'default':
        return _to_out(res.tostype('default'), out)
    if forward_stype == 'csr' and res.ndim != 2:
        raise MXNetValueError("Operator dot: forward_stype='csr' needs a 2-D result, got shape %s" % (res.shape,))
    # over the dense values (csr and row_sparse do not convert into each other directly); over a dense result,
    # a recorded product keeps its gradient, as in MXNet
    return _to_out(over_dense(res._t, forward_stype, res._ctx), out)


def _check_dot(l_t, r_t):
    if l_t.dtype != r_t.dtype:
        raise incompatible_attr('dot', 1, dtype_name(l_t.dtype), dtype_name(r_t.dtype))


def _dot_sparse(lhs, rhs, ta, tb):
    # csr.T x rhs.T takes the dense path, as in MXNet (a dense result)
    if isinstance(lhs, CSRNDArray) and not isinstance(rhs, CSRNDArray) and rhs.ndim == 2 and not (ta and tb):
        data, cols, indptr = lhs._cmp()
        rows = _csr_rows(indptr)
        r = rhs._t.t() if tb else rhs._t
        _check_dot(data, r)
        n_in = lhs.shape[0] if ta else lhs.shape[1]
        if r.shape[0] != n_in:
            raise MXNetValueError('Operator dot: shapes %s%s and %s%s do not match'
                                  % (lhs.shape, '.T' if ta else '', rhs.shape, '.T' if tb else ''))
        if ta and isinstance(rhs, RowSparseNDArray):  # only the stored rows of rhs contribute (and are listed)
            hit = torch.isin(rows, rhs._cmp()[1])
            data, cols, rows = data[hit], cols[hit], rows[hit]
        src, dst = (cols, rows) if not ta else (rows, cols)
        n_out = lhs.shape[1] if ta else lhs.shape[0]
        out = _spmm(data, dst, src, (n_out, r.shape[0]), r)
        if not ta:
            return _wrap(out, lhs._ctx)
        keep = torch.unique(cols)
        return RowSparseNDArray._new((out[keep], keep), out.shape, lhs._ctx)
    if isinstance(rhs, CSRNDArray) and not _sp(lhs) and lhs.ndim == 2:
        data, cols, indptr = rhs._cmp()
        rows = _csr_rows(indptr)
        left = lhs._t.t() if ta else lhs._t
        _check_dot(data, left)
        src, dst = (rows, cols) if not tb else (cols, rows)
        n_in = rhs.shape[1] if tb else rhs.shape[0]
        if left.shape[1] != n_in:
            raise MXNetValueError('Operator dot: shapes %s%s and %s%s do not match'
                                  % (lhs.shape, '.T' if ta else '', rhs.shape, '.T' if tb else ''))
        n_out = rhs.shape[0] if tb else rhs.shape[1]
        out = _spmm(data, dst, src, (n_out, left.shape[1]), left.t()).t()
        return _from_dense_tensor(out, 'csr', lhs._ctx)  # MXNet gives csr here
    return NotImplemented


_HALF_TYPES = (torch.float16, torch.bfloat16)


def _spmm_in_float32(dense):
    """Whether a sparse product with ``dense`` runs in float32: torch's CUDA sparse kernel has no float16/bfloat16
    (its CPU kernel has)."""
    return dense.dtype in _HALF_TYPES and dense.is_cuda


def _spmm(data, rows, cols, shape, dense):
    """``S @ dense`` for the sparse matrix S of ``shape`` holding ``data`` at (rows, cols); differentiable in
    ``dense``."""
    if dense.is_floating_point():
        if _spmm_in_float32(dense):
            # products and sums in float32, the result cast back (a differentiable round trip: the gradient reaches
            # ``dense`` in its own dtype)
            return _spmm(data.float(), rows, cols, shape, dense.float()).to(dense.dtype)
        coo = torch.sparse_coo_tensor(torch.stack([rows, cols]), data, shape, check_invariants=False)
        return torch.sparse.mm(coo, dense)
    out = torch.zeros((shape[0], dense.shape[1]), dtype=dense.dtype, device=dense.device)
    return out.index_add(0, rows, dense[cols] * data.unsqueeze(1))

