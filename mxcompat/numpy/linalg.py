"""``mx.np.linalg``: MXNet 1.9.1's linear algebra on ``torch.linalg`` (so autograd records it and it runs on the
arrays' device), with MXNet's conventions: ``svd`` returns ``(ut, l, v)`` with ``a = ut @ diag(l) @ v``,
``slogdet`` a list ``[sign, logabsdet]``, ``eig``/``eigvals`` real results only, ``pinv(hermitian=True)`` raises;
inputs are ``mx.np`` arrays (MXNet takes no lists here). Failures (singular or non-square matrices, integer
dtypes) raise ``MXNetError``. ``cond``, ``lstsq``, ``matrix_power``, ``matrix_rank``, ``multi_dot`` and ``qr``
(official NumPy's in MXNet) are in ``fallback_linalg``.
"""
import numbers

import numpy as _onp
import torch

from ..base import MXNetError, MXNetValueError
from ..ndarray.ndarray import NDArray
from . import fallback_linalg  # noqa: F401
from .fallback_linalg import *  # noqa: F401,F403
from .fallback_linalg import array_arg, run, wrap, __all__ as _fallback_names

__all__ = ['norm', 'svd', 'cholesky', 'inv', 'det', 'slogdet', 'solve', 'tensorinv', 'tensorsolve', 'pinv',
           'eigvals', 'eig', 'eigvalsh', 'eigh'] + _fallback_names

_VECTOR_ORDS = (None, 'fro')
_ORD_NAMES = {'inf': _onp.inf, '-inf': -_onp.inf}
_MATRIX_ORDS = ('fro', 'nuc', 1, -1, 2, -2, _onp.inf, -_onp.inf)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """A vector or matrix norm, NumPy's, with MXNet's extensions: ``ord`` with ``axis=None`` on an array of more
    than two axes is the matrix norm of its last two, and ``'fro'`` over one axis is the 2-norm. Integer arrays
    give their dtype (the norm computed in float64, then cast) as MXNet does. Differs from MXNet: the vector
    ±inf norms are computed (MXNet raises), and a matrix ``ord`` outside NumPy's set raises ValueError."""
    t, ctx = array_arg('linalg.norm', x)
    work = t if t.is_floating_point() else t.to(torch.float64)
    ord = _ORD_NAMES.get(ord, ord) if isinstance(ord, str) else ord  # noqa: A001 (MXNet takes 'inf', '-inf')
    if isinstance(axis, (numbers.Integral, _onp.integer)):
        axis = (int(axis),)
    elif axis is not None:
        axis = tuple(int(a) for a in axis)
    if axis is None:
        if ord is None:
            r = torch.linalg.vector_norm(work, 2, dim=None, keepdim=bool(keepdims))
            if keepdims:
                r = r.reshape((1,) * t.dim())
            return wrap(r.to(t.dtype), ctx)
        if t.dim() == 0:
            raise MXNetValueError('linalg.norm: an order needs at least one axis, got a 0-d array')
        axis = (0,) if t.dim() == 1 else (t.dim() - 2, t.dim() - 1)
    if len(axis) == 1:
        if ord == 'nuc' or isinstance(ord, str) and ord != 'fro':
            raise MXNetValueError('linalg.norm: invalid norm order %r for vectors' % (ord,))
        p = 2 if ord in _VECTOR_ORDS else float(ord)
        r = run('linalg.norm', torch.linalg.vector_norm, work, p, dim=axis, keepdim=bool(keepdims))
    elif len(axis) == 2:
        if ord is None:
            ord = 'fro'  # noqa: A001
        if ord not in _MATRIX_ORDS:
            raise MXNetValueError('linalg.norm: invalid norm order %r for matrices' % (ord,))
        r = run('linalg.norm', torch.linalg.matrix_norm, work, ord, dim=axis, keepdim=bool(keepdims))
    else:
        raise MXNetValueError('linalg.norm: improper number of axes %s' % (axis,))
    return wrap(r.to(t.dtype), ctx)


def svd(a):
    """The singular value decomposition ``(ut, l, v)``, ``a = ut @ diag(l) @ v`` (``ut``: (..., M, K), ``l``:
    (..., K), ``v``: (..., K, N), K = min(M, N)). Differs from MXNet: M > N is computed (MXNet raises)."""
    t, ctx = array_arg('linalg.svd', a)
    u, s, vh = run('linalg.svd', torch.linalg.svd, t, full_matrices=False)
    return wrap(u, ctx), wrap(s, ctx), wrap(vh, ctx)


def cholesky(a):
    """The lower Cholesky factor of the symmetric positive-definite ``a`` (MXNetError otherwise)."""
    t, ctx = array_arg('linalg.cholesky', a)
    return wrap(run('linalg.cholesky', torch.linalg.cholesky, t), ctx)


def inv(a):
    """The inverse of the square matrix (or matrices) ``a`` (MXNetError when singular)."""
    t, ctx = array_arg('linalg.inv', a)
    return wrap(run('linalg.inv', torch.linalg.inv, t), ctx)


def det(a):
    """The determinant of the square matrix (or matrices) ``a`` (0-d for one matrix)."""
    t, ctx = array_arg('linalg.det', a)
    return wrap(run('linalg.det', torch.linalg.det, t), ctx)


def slogdet(a):
    """``[sign, logabsdet]`` of ``a``'s determinant (a list, as MXNet returns it)."""
    t, ctx = array_arg('linalg.slogdet', a)
    sign, logabs = run('linalg.slogdet', torch.linalg.slogdet, t)
    return [wrap(sign, ctx), wrap(logabs, ctx)]


def solve(a, b):
    """The solution of ``a @ x = b``; ``b`` is a (batch of) vector(s) when it has one axis fewer than ``a``."""
    ta, ctx = array_arg('linalg.solve', a)
    tb, _ = array_arg('linalg.solve', b)
    ta, tb = _float(ta, tb)
    if tb.dim() == ta.dim() - 1:
        return wrap(run('linalg.solve', torch.linalg.solve, ta, tb.unsqueeze(-1)).squeeze(-1), ctx)
    return wrap(run('linalg.solve', torch.linalg.solve, ta, tb), ctx)


def tensorinv(a, ind=2):
    """The inverse of ``a`` for ``tensordot`` over its first ``ind`` axes (result shape
    ``a.shape[ind:] + a.shape[:ind]``)."""
    t, ctx = array_arg('linalg.tensorinv', a)
    if ind <= 0:
        raise MXNetValueError('linalg.tensorinv: invalid ind argument %r' % (ind,))
    shape = tuple(t.shape)
    rows = 1
    for s in shape[ind:]:
        rows *= s
    r = run('linalg.tensorinv', torch.linalg.inv, t.reshape(rows, -1))
    return wrap(r.reshape(shape[ind:] + shape[:ind]), ctx)


def tensorsolve(a, b, axes=None):
    """The ``x`` with ``tensordot(a, x, axes=x.ndim) == b`` (``axes``: axes of ``a`` moved to the end first)."""
    ta, ctx = array_arg('linalg.tensorsolve', a)
    tb, _ = array_arg('linalg.tensorsolve', b)
    ta, tb = _float(ta, tb)
    if axes is not None:
        order = [k for k in range(ta.dim()) if k not in [x % ta.dim() for x in axes]]
        ta = ta.permute(order + [x % ta.dim() for x in axes])
    # x's shape: a's last a.ndim - b.ndim axes (with Python's slice of a negative count, as MXNet: all of them
    # when the two have as many axes); a must hold n * n elements and b n
    xshape = tuple(ta.shape)[-(ta.dim() - tb.dim()):]
    n = 1
    for s in xshape:
        n *= s
    if n * n != ta.numel() or n != tb.numel():
        raise MXNetError('mx.np.linalg.tensorsolve: a of shape %s does not match b of shape %s'
                         % (tuple(ta.shape), tuple(tb.shape)))
    r = run('linalg.tensorsolve', torch.linalg.solve, ta.reshape(n, n), tb.reshape(n, 1))
    return wrap(r.reshape(xshape), ctx)


def pinv(a, rcond=1e-15, hermitian=False):
    """The Moore-Penrose pseudo-inverse (singular values below ``rcond`` times the largest count as zero;
    ``rcond`` a number or an array broadcasting against the batch). ``hermitian=True`` raises, as in MXNet."""
    if hermitian:
        raise NotImplementedError('mx.np.linalg.pinv: hermitian=True is not supported (as in MXNet 1.9.1)')
    t, ctx = array_arg('linalg.pinv', a)
    rtol = rcond._t.to(t.dtype) if isinstance(rcond, NDArray) else float(rcond)  # (broadcast over the batch)
    return wrap(run('linalg.pinv', torch.linalg.pinv, t, rtol=rtol), ctx)


def _float(*ts):
    """Inputs of solve, tensorsolve and the eigen-functions: integer arrays are computed (and returned) in float64,
    as MXNet 1.9.1 does; mixed floating dtypes in the wider."""
    ts = [t if t.is_floating_point() else t.to(torch.float64) for t in ts]
    dt = torch.float64 if any(t.dtype is torch.float64 for t in ts) else ts[0].dtype
    return [t.to(dt) for t in ts]


def _real(name, w):
    """The real part of torch's complex eigen-results; MXNet supports real eigenvalues only."""
    if bool((w.imag.abs() > 0).any()):
        raise MXNetError('mx.np.%s: the matrix has complex eigenvalues, which MXNet does not support' % name)
    return w.real


def eigvals(a):
    """The (real) eigenvalues of the square matrix (or matrices) ``a``; complex ones raise MXNetError."""
    t, ctx = array_arg('linalg.eigvals', a)
    t, = _float(t)
    return wrap(_real('linalg.eigvals', run('linalg.eigvals', torch.linalg.eigvals, t)).to(t.dtype), ctx)


def eig(a):
    """``(w, v)``: the (real) eigenvalues and right eigenvectors (columns) of ``a``; complex ones raise."""
    t, ctx = array_arg('linalg.eig', a)
    t, = _float(t)
    w, v = run('linalg.eig', torch.linalg.eig, t)
    w = _real('linalg.eig', w)
    return wrap(w.to(t.dtype), ctx), wrap(v.real.to(t.dtype), ctx)


def eigvalsh(a, UPLO='L'):  # noqa: N803 (NumPy's name)
    """The ascending eigenvalues of the symmetric ``a``, read from its lower (``'L'``) or upper triangle."""
    t, ctx = array_arg('linalg.eigvalsh', a)
    t, = _float(t)
    return wrap(run('linalg.eigvalsh', torch.linalg.eigvalsh, t, UPLO=UPLO), ctx)


def eigh(a, UPLO='L'):  # noqa: N803
    """``(w, v)``: ascending eigenvalues and eigenvectors (columns) of the symmetric ``a``."""
    t, ctx = array_arg('linalg.eigh', a)
    t, = _float(t)
    w, v = run('linalg.eigh', torch.linalg.eigh, t, UPLO=UPLO)
    return wrap(w, ctx), wrap(v, ctx)
