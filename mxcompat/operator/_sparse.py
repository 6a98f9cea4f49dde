"""Sparse storage on plain tensors: csr and row_sparse components <-> dense tensors, and the elementwise operators
that map 0 to 0 (a sparse rule may apply them to the stored values only). Shared by the sparse arrays
(``ndarray/sparse/``) and the csr values of a lowered graph (``symbol/passes/storage.py``), so that neither needs the
other.

csr components: ``data (nnz,)``, ``indices (nnz,)`` int64 columns, ``indptr (rows+1,)`` int64; row_sparse
components: ``data (k,) + shape[1:]`` and sorted unique int64 row ``indices``.
"""
import torch

# unary operators with f(0) = 0, for which MXNet's csr and row_sparse kernels keep the sparsity pattern
_ZERO_PRESERVING = frozenset(
    'relu negative abs sign round rint ceil floor trunc fix sin tan arcsin arctan degrees radians sinh tanh '
    'arcsinh arctanh log1p expm1 square sqrt cbrt _copy'.split())


def _dense_to_csr(t):
    nz = t != 0
    rows, cols = nz.nonzero(as_tuple=True)
    indptr = torch.zeros(t.shape[0] + 1, dtype=torch.int64, device=t.device)
    torch.cumsum(nz.sum(1), 0, out=indptr[1:])
    return t[rows, cols], cols.to(torch.int64), indptr


def _dense_to_rsp(t):
    rows = (t != 0).reshape(t.shape[0], -1).any(1).nonzero().reshape(-1)
    return t[rows], rows.to(torch.int64)


def _csr_rows(indptr):
    n = indptr.numel() - 1
    return torch.repeat_interleave(torch.arange(n, device=indptr.device), indptr.diff())


def _csr_to_dense(data, indices, indptr, shape):
    out = torch.zeros(shape, dtype=data.dtype, device=data.device)
    if data.numel():
        out.index_put_((_csr_rows(indptr), indices), data, accumulate=True)  # duplicates add up, as in scipy
    return out


def _rsp_to_dense(data, indices, shape):
    out = torch.zeros(shape, dtype=data.dtype, device=data.device)
    if indices.numel():
        out[indices] = data
    return out
