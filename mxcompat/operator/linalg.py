"""Linear algebra operators: dot, batch_dot, khatri_rao and the ``_linalg_*`` family (``mx.nd.linalg``).

Batched ops work on the trailing two axes, as in MXNet; triangular inputs read only the triangle that ``lower``
selects. Differs from MXNet: ``det``/``slogdet`` of a singular matrix pass torch's gradient instead of zero;
``forward_stype`` only sets the storage of ``mx.nd.dot``'s result (``mx.nd.sparse.dot``); in symbol graphs, which
compute densely, and for ``batch_dot`` (as in MXNet), results are dense.
"""
import torch

from ..base import MXNetError, MXNetTypeError, dtype_name
from .registry import defop, check_same_dtype
from .shape_ops import op_error

_A = ('A',)
_AB = ('A', 'B')
_FLOATS = (torch.float32, torch.float64)


def _shape_str(t):
    return '[%s]' % ','.join(str(s) for s in t.shape)


def _check_float(op, *ts):
    """The ``_linalg_*`` ops run in float32/float64 only, as MXNet's LAPACK-backed kernels."""
    for t in ts:
        if t.dtype not in _FLOATS:
            raise op_error(op, 'This operation only supports 32-bit and 64-bit floating point, got %s'
                           % dtype_name(t.dtype), MXNetTypeError)
    check_same_dtype(op, ts)


def _check_matrices(op, A, what='Input A', square=True):
    if A.dim() < 2:
        raise op_error(op, '%s must be a tensor of matrices (ndim >= 2), got shape %s' % (what, tuple(A.shape)))
    if square and A.shape[-1] != A.shape[-2]:
        raise op_error(op, "%s's last two dimensions must be equal (square matrices), got shape %s"
                       % (what, tuple(A.shape)))


def _check_pair(op, A, B, axis=-2):
    """Both inputs: same ndim >= 2, equal on every axis but the row axis and the last."""
    if A.dim() < 2 or A.dim() != B.dim():
        raise op_error(op, 'inferring shapes failed: inputs must have the same ndim >= 2, got shapes %s and %s'
                       % (tuple(A.shape), tuple(B.shape)))
    nd = A.dim()
    ax = axis + nd if axis < 0 else axis
    if not 0 <= ax < nd - 1:
        raise op_error(op, 'Invalid row axis (%d) for inputs of ndim %d' % (axis, nd))
    for i in range(nd - 1):
        if i != ax and A.shape[i] != B.shape[i]:
            raise op_error(op, 'Shapes of inputs 0, 1 must be the same, except on row/col axis: %s vs %s'
                           % (tuple(A.shape), tuple(B.shape)))
    return ax


# ---- dot / batch_dot ------------------------------------------------------------------------------------------------
def _check_dot_dtype(op, t):
    # MXNet's CPU kernels do float32/float64; float16 only on GPU (meta tensors: shape inference, allow it).
    if t.dtype in _FLOATS or (t.dtype is torch.float16 and t.device.type != 'cpu'):
        return
    raise op_error(op, 'dot only supports float32/float64 for CPU, and float16/float32/float64 for GPU; got %s'
                   % dtype_name(t.dtype), MXNetTypeError)


def _dot(lhs, rhs, transpose_a, transpose_b, forward_stype):
    # N-d lhs/rhs: contract the last axis of lhs (first with transpose_a) with the first axis of rhs
    # (last with transpose_b); the other axes keep their order, lhs's first.
    check_same_dtype('dot', (lhs, rhs))
    _check_dot_dtype('dot', lhs)
    if lhs.dim() == 0 or rhs.dim() == 0:
        raise op_error('dot', 'scalar tensor is not supported by this operator')
    if lhs.dim() == 1 and rhs.dim() == 1:
        if transpose_a or transpose_b:
            raise op_error('dot', 'Cannot transpose vectors')
        if lhs.shape[0] != rhs.shape[0]:
            raise op_error('dot', 'dot shape error: %s X %s' % (_shape_str(lhs), _shape_str(rhs)))
        return torch.dot(lhs, rhs).reshape(1)
    ls, rs = tuple(lhs.shape), tuple(rhs.shape)
    # (2-D inputs go to mm as they are: mm on reshape views of the same tensors ran measurably slower)
    if transpose_a:
        k, lout, lmat = ls[0], ls[1:], (lhs if len(ls) == 2 else lhs.reshape(ls[0], -1)).t()
    else:
        k, lout, lmat = ls[-1], ls[:-1], lhs if len(ls) == 2 else lhs.reshape(-1, ls[-1])
    if transpose_b:
        k2, rout, rmat = rs[-1], rs[:-1], (rhs if len(rs) == 2 else rhs.reshape(-1, rs[-1])).t()
    else:
        k2, rout, rmat = rs[0], rs[1:], rhs if len(rs) == 2 else rhs.reshape(rs[0], -1)
    if k != k2:
        raise op_error('dot', 'dot shape error: %s X %s' % (_shape_str(lhs), _shape_str(rhs)))
    out = torch.mm(lmat, rmat)
    shape = (lout if lhs.dim() > 1 else ()) + (rout if rhs.dim() > 1 else ())
    return out if out.shape == shape else out.reshape(shape)


def _batch_dot(lhs, rhs, transpose_a, transpose_b, forward_stype):
    check_same_dtype('batch_dot', (lhs, rhs))
    _check_dot_dtype('batch_dot', lhs)
    nd = lhs.dim()
    if nd < 3 or rhs.dim() != nd:
        raise op_error('batch_dot', 'batch_dot currently only support N-D*N-D array (N >= 3), got %s v.s. %s'
                       % (_shape_str(lhs), _shape_str(rhs)))
    flags = (_shape_str(lhs), _shape_str(rhs), int(transpose_a), int(transpose_b))
    if lhs.shape[:-2] != rhs.shape[:-2]:
        raise op_error('batch_dot', 'batch_dot shape error (the leading batch dimensions must be equal): '
                       '%s X %s trans_a=%d trans_b=%d' % flags)
    a = lhs.mT if transpose_a else lhs
    b = rhs.mT if transpose_b else rhs
    if a.shape[-1] != b.shape[-2]:
        raise op_error('batch_dot', 'batch_dot shape error (shape mismatch): %s X %s trans_a=%d trans_b=%d' % flags)
    return torch.matmul(a, b)


def _parse_stype(v):
    return None if v is None or v in ('None', '') else str(v)


_DOT_PARAMS = [('transpose_a', 'bool', False), ('transpose_b', 'bool', False), ('forward_stype', _parse_stype, None)]
_STYPES = {'forward_stype': (None, 'default', 'row_sparse', 'csr')}
defop('dot', ('lhs', 'rhs'), _DOT_PARAMS, _dot, choices=_STYPES,
      doc="Dot product; N-d inputs contract lhs's last axis with rhs's first. Dense output only.")
defop('batch_dot', ('lhs', 'rhs'), _DOT_PARAMS, _batch_dot, choices=_STYPES,
      doc='Batched matrix product over the leading axes of two N-d (N >= 3) arrays.')


def _khatri_rao(*args, num_args):
    if not args:
        raise op_error('khatri_rao', 'needs at least one input matrix')
    check_same_dtype('khatri_rao', args)
    if args[0].dtype not in _FLOATS:
        raise op_error('khatri_rao', 'not implemented for %s (float32/float64 only)' % dtype_name(args[0].dtype),
                       MXNetTypeError)
    ncol = None
    for i, a in enumerate(args):
        if a.dim() != 2:
            raise op_error('khatri_rao', 'input %d must be a matrix, got shape %s' % (i, tuple(a.shape)))
        if ncol is not None and a.shape[1] != ncol:
            raise op_error('khatri_rao', 'all inputs must have the same number of columns, got %s'
                           % [tuple(x.shape) for x in args])
        ncol = a.shape[1]
    out = args[0]
    for a in args[1:]:  # column-wise Kronecker product: rows of the earlier inputs vary slowest
        out = (out[:, None, :] * a[None, :, :]).reshape(-1, ncol)
    return out if len(args) > 1 else out.clone()


defop('khatri_rao', ('*args',), (), _khatri_rao, doc='Column-wise Khatri-Rao product of matrices.')


# ---- matrix multiply: gemm, gemm2, trmm, trsm, syrk ------------------------------------------------------------------
def _gemm_core(op, A, B, transpose_a, transpose_b, alpha, axis):
    """alpha * op(A) @ op(B) with rows on ``axis``; returns (result, row axis)."""
    ax = _check_pair(op, A, B, axis)
    nd = A.dim()
    if ax != nd - 2:  # rows on another axis: same as swapaxes(axis, -2) around the product
        A, B = A.transpose(ax, nd - 2), B.transpose(ax, nd - 2)
    a = A.mT if transpose_a else A
    b = B.mT if transpose_b else B
    if a.shape[-1] != b.shape[-2]:
        raise op_error(op, 'Incompatible matrix dimensions for multiplication: %s x %s (transpose_a=%s, '
                       'transpose_b=%s)' % (tuple(A.shape), tuple(B.shape), transpose_a, transpose_b))
    out = torch.matmul(a, b)
    if alpha != 1.0:
        out = out * alpha
    return out, ax


def _gemm(A, B, C, transpose_a, transpose_b, alpha, beta, axis):
    _check_float('_linalg_gemm', A, B, C)
    out, ax = _gemm_core('_linalg_gemm', A, B, transpose_a, transpose_b, alpha, axis)
    if ax != A.dim() - 2:
        out = out.transpose(ax, A.dim() - 2)
    if C.shape != out.shape:
        raise op_error('_linalg_gemm', 'Shape inconsistent: C has shape %s, the product has shape %s'
                       % (tuple(C.shape), tuple(out.shape)))
    return out + C * beta if beta != 1.0 else out + C


def _gemm2(A, B, transpose_a, transpose_b, alpha, axis):
    _check_float('_linalg_gemm2', A, B)
    out, ax = _gemm_core('_linalg_gemm2', A, B, transpose_a, transpose_b, alpha, axis)
    return out.transpose(ax, A.dim() - 2) if ax != A.dim() - 2 else out


_MM = [('transpose_a', 'bool', False), ('transpose_b', 'bool', False), ('alpha', 'float', 1.0)]
defop('_linalg_gemm', ('A', 'B', 'C'), _MM + [('beta', 'float', 1.0), ('axis', 'int', -2)], _gemm,
      aliases=('linalg_gemm',), doc='alpha * op(A) @ op(B) + beta * C, batched; rows on ``axis``.')
defop('_linalg_gemm2', _AB, _MM + [('axis', 'int', -2)], _gemm2, aliases=('linalg_gemm2',),
      doc='alpha * op(A) @ op(B), batched; rows on ``axis``.', view=True)


def _triangle(A, lower):
    return A.tril() if lower else A.triu()


def _check_trian_pair(op, A, B, rightside):
    _check_float(op, A, B)
    if A.dim() < 2 or A.dim() != B.dim():
        raise op_error(op, 'inferring shapes failed: inputs must have the same ndim >= 2, got shapes %s and %s'
                       % (tuple(A.shape), tuple(B.shape)))
    if A.shape[-1] != A.shape[-2]:
        raise op_error(op, 'First operand must be a tensor of square matrices, got shape %s' % (tuple(A.shape),))
    if A.shape[:-2] != B.shape[:-2]:
        raise op_error(op, 'Shapes of inputs 0, 1 must be the same, except on last two dimensions: %s vs %s'
                       % (tuple(A.shape), tuple(B.shape)))
    if B.shape[-1 if rightside else -2] != A.shape[-1]:
        raise op_error(op, 'Incompatible matrix dimensions for multiplication: %s and %s (rightside=%s)'
                       % (tuple(A.shape), tuple(B.shape), rightside))


def _trmm(A, B, transpose, rightside, lower, alpha):
    _check_trian_pair('_linalg_trmm', A, B, rightside)
    t = _triangle(A, lower)
    if transpose:
        t = t.mT
    out = torch.matmul(B, t) if rightside else torch.matmul(t, B)
    return out * alpha if alpha != 1.0 else out


def _trsm(A, B, transpose, rightside, lower, alpha):
    _check_trian_pair('_linalg_trsm', A, B, rightside)
    t = A.mT if transpose else A
    rhs = B * alpha if alpha != 1.0 else B
    # solve_triangular reads only the named triangle; transposing swaps which one that is
    return torch.linalg.solve_triangular(t, rhs, upper=(lower == transpose), left=not rightside)


_TRIANG = [('transpose', 'bool', False), ('rightside', 'bool', False), ('lower', 'bool', True),
           ('alpha', 'float', 1.0)]
defop('_linalg_trmm', _AB, _TRIANG, _trmm, aliases=('linalg_trmm',),
      doc='alpha * op(tri(A)) @ B (or B @ op(tri(A)) with rightside), batched.')
defop('_linalg_trsm', _AB, _TRIANG, _trsm, aliases=('linalg_trsm',),
      doc='Solves op(tri(A)) @ X = alpha * B (or X @ op(tri(A)) = alpha * B), batched.', view=True)


def _syrk(A, transpose, alpha):
    _check_float('_linalg_syrk', A)
    _check_matrices('_linalg_syrk', A, square=False)
    out = torch.matmul(A.mT, A) if transpose else torch.matmul(A, A.mT)
    return out * alpha if alpha != 1.0 else out


defop('_linalg_syrk', _A, [('transpose', 'bool', False), ('alpha', 'float', 1.0)], _syrk, aliases=('linalg_syrk',),
      doc='alpha * A @ A.T (or A.T @ A with transpose), batched.')


# ---- factorizations and inverses -------------------------------------------------------------------------------------
def _linalg_failed(op, why):
    def deco(fn):
        def impl(*args, **kw):
            try:
                return fn(*args, **kw)
            except torch.linalg.LinAlgError as e:
                raise MXNetError('Operator %s: %s (%s)' % (op, why, str(e).splitlines()[0])) from None
        impl.__doc__ = fn.__doc__
        return impl
    return deco


@_linalg_failed('_linalg_potrf', 'Cholesky factorization failed; the input matrix is either not symmetric or not '
                                 'positive definite')
def _potrf(A, lower):
    """Cholesky factor of a symmetric positive-definite A (reads the triangle ``lower`` selects), batched."""
    _check_float('_linalg_potrf', A)
    _check_matrices('_linalg_potrf', A)
    if lower:
        return torch.linalg.cholesky(A)
    return torch.linalg.cholesky(A.mT).mT


def _potri(A, lower):
    """Inverse of B from its Cholesky factor A (B = A A^T for lower, A^T A for upper), batched."""
    _check_float('_linalg_potri', A)
    _check_matrices('_linalg_potri', A)
    return torch.cholesky_inverse(_triangle(A, lower), upper=not lower)


defop('_linalg_potrf', _A, [('lower', 'bool', True)], _potrf, aliases=('linalg_potrf',), view=True)
defop('_linalg_potri', _A, [('lower', 'bool', True)], _potri, aliases=('linalg_potri',), view=True)


def _gelqf(A):
    """LQ factorization A = L @ Q of row-wide matrices (rows <= columns), batched; returns (Q, L)."""
    _check_float('_linalg_gelqf', A)
    _check_matrices('_linalg_gelqf', A, square=False)
    if A.shape[-2] > A.shape[-1]:
        raise op_error('_linalg_gelqf', 'Input A shape wrong: Last dimension must be >= than second to last, '
                       'got shape %s' % (tuple(A.shape),))
    q, r = torch.linalg.qr(A.mT)  # A^T = QR  <=>  A = R^T Q^T; LAPACK's sign convention matches MXNet's gelqf
    return q.mT, r.mT


defop('_linalg_gelqf', _A, (), _gelqf, aliases=('linalg_gelqf',), num_outputs=2)


def _syevd(A):
    """Eigendecomposition of symmetric A (reads the lower triangle): U (eigenvectors as rows) and ascending L.

    Each row of U is signed so that its largest-magnitude entry (the first such, on ties) is positive, as MXNet.
    """
    _check_float('_linalg_syevd', A)
    _check_matrices('_linalg_syevd', A)
    lam, v = torch.linalg.eigh(A)
    u = v.mT
    pivot = torch.gather(u, -1, u.abs().argmax(-1, keepdim=True))
    return u * torch.where(pivot < 0, -1.0, 1.0).to(u.dtype), lam


defop('_linalg_syevd', _A, (), _syevd, num_outputs=2)


@_linalg_failed('_linalg_inverse', 'the input matrix is non-convertible (singular)')
def _inverse(A):
    """Matrix inverse, batched."""
    _check_float('_linalg_inverse', A)
    _check_matrices('_linalg_inverse', A)
    return torch.linalg.inv(A)


def _det_shape(A, out):
    return out.reshape(1) if A.dim() == 2 else out  # a single matrix gives shape (1,)


def _det(A):
    """Determinant, batched (a single matrix gives shape (1,))."""
    _check_float('_linalg_det', A)
    _check_matrices('_linalg_det', A)
    return _det_shape(A, torch.linalg.det(A))


def _slogdet(A):
    """(sign, log|det|), batched; the sign passes no gradient."""
    _check_float('_linalg_slogdet', A)
    _check_matrices('_linalg_slogdet', A)
    sign, logabs = torch.linalg.slogdet(A)
    return _det_shape(A, sign), _det_shape(A, logabs)  # torch gives real signs no gradient, like MXNet


defop('_linalg_inverse', _A, (), _inverse, aliases=('linalg_inverse',), view=True)
defop('_linalg_det', _A, (), _det, aliases=('linalg_det',))
defop('_linalg_slogdet', _A, (), _slogdet, aliases=('linalg_slogdet',), num_outputs=2)


def _sumlogdiag(A):
    """Sum of the logs of the diagonal, batched (a single matrix gives shape (1,))."""
    _check_float('_linalg_sumlogdiag', A)
    _check_matrices('_linalg_sumlogdiag', A)
    return _det_shape(A, torch.log(torch.diagonal(A, 0, -2, -1)).sum(-1))


defop('_linalg_sumlogdiag', _A, (), _sumlogdiag, aliases=('linalg_sumlogdiag',))


# ---- diagonals and triangles -----------------------------------------------------------------------------------------
def _check_extract(op, A, offset):
    _check_float(op, A)
    if A.dim() < 2:
        raise op_error(op, 'Input operand must be a tensor of matrices, got shape %s' % (tuple(A.shape),))
    if A.shape[-1] != A.shape[-2]:
        raise op_error(op, 'Input operand must be a tensor of square matrices, got shape %s' % (tuple(A.shape),))
    m = A.shape[-1] - abs(offset)
    if m <= 0:
        raise op_error(op, 'Illegal offset %d for diag/trian extraction of matrices of size %d'
                       % (offset, A.shape[-1]))
    return m


def _extractdiag(A, offset):
    """The ``offset`` diagonal of each matrix, batched."""
    _check_extract('_linalg_extractdiag', A, offset)
    return torch.diagonal(A, offset, -2, -1)


def _makediag(A, offset):
    """Square matrices with the last axis of A on their ``offset`` diagonal, zero elsewhere."""
    _check_float('_linalg_makediag', A)
    if A.dim() < 1:
        raise op_error('_linalg_makediag', 'input must have at least one axis')
    return torch.diag_embed(A, offset, -2, -1)


_TRIAN_INDEX = {}


def _trian_index(n, offset, lower, device):
    """(rows, cols) of the triangle's entries in MXNet's packing order.

    The lower triangle (offset < 0, or offset 0 with lower) is packed row by row; the upper one (offset > 0, or
    offset 0 with not lower) column by column, i.e. as the lower triangle of the transpose.
    """
    key = (n, offset, lower, str(device))
    idx = _TRIAN_INDEX.get(key)
    if idx is None:
        k = abs(offset)
        r, c = torch.tril_indices(n - k, n - k, device=device)
        idx = (r + k, c) if (offset < 0 or (offset == 0 and lower)) else (c, r + k)
        if device.type != 'meta':
            _TRIAN_INDEX[key] = idx
    return idx


def _extracttrian(A, offset, lower):
    """The triangle of each matrix (see ``lower``/``offset``) packed into a vector, batched."""
    _check_extract('_linalg_extracttrian', A, offset)
    rows, cols = _trian_index(A.shape[-1], offset, lower, A.device)
    return A[..., rows, cols]


def _maketrian(A, offset, lower):
    """Inverse of extracttrian: unpacks the last axis into triangular matrices, zero elsewhere."""
    _check_float('_linalg_maketrian', A)
    if A.dim() < 1:
        raise op_error('_linalg_maketrian', 'input must have at least one axis')
    n = A.shape[-1]
    m = int((((8 * n + 1) ** 0.5) - 1) / 2 + 0.5)
    if m * (m + 1) // 2 != n:
        raise op_error('_linalg_maketrian', 'Input tensor of maketrian has an invalid dimension for the last axis '
                       '(%d is not a triangular number)' % n)
    size = m + abs(offset)
    rows, cols = _trian_index(size, offset, lower, A.device)
    out = A.new_zeros(tuple(A.shape[:-1]) + (size, size))
    out[..., rows, cols] = A
    return out


_DIAG = [('offset', 'int', 0)]
_TRIAN = [('offset', 'int', 0), ('lower', 'bool', True)]
defop('_linalg_extractdiag', _A, _DIAG, _extractdiag, aliases=('linalg_extractdiag',), view=True)
defop('_linalg_makediag', _A, _DIAG, _makediag, aliases=('linalg_makediag',))
defop('_linalg_extracttrian', _A, _TRIAN, _extracttrian, aliases=('linalg_extracttrian',))
defop('_linalg_maketrian', _A, _TRIAN, _maketrian, aliases=('linalg_maketrian',))
