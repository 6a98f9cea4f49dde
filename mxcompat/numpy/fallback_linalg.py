"""The ``mx.np.linalg`` functions MXNet 1.9.1 hands to official NumPy (``cond``, ``lstsq``, ``matrix_power``,
``matrix_rank``, ``multi_dot``, ``qr``). Here they compute on torch (so they run on the array's device and autograd
records them) and return what MXNet's fallback returns: ``mx.np`` arrays, except that a 0-d result is a NumPy
scalar (``cond``, ``matrix_rank``, ``multi_dot`` of two vectors, ``lstsq``'s rank), as NumPy gives it."""
import numbers

import numpy as _onp
import torch

from ..base import MXNetError, MXNetValueError
from .multiarray import _array_input, _np_wrap as wrap

__all__ = ['cond', 'lstsq', 'matrix_power', 'matrix_rank', 'multi_dot', 'qr']


# ---- helpers of mx.np.linalg ------------------------------------------------------------------------------------
def array_arg(name, a):
    """``(tensor, context)`` of input ``a`` of ``mx.np.<name>`` (an ``mx.np`` array, as MXNet requires)."""
    return _array_input(name, a), a._ctx


def run(name, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, its failures (singular or non-square matrices, integer dtypes ...) raised as
    ``MXNetError`` naming ``mx.np.<name>``, as MXNet's operators raise them."""
    try:
        return fn(*args, **kwargs)
    except (RuntimeError, ValueError) as e:
        raise MXNetError('mx.np.%s: %s' % (name, str(e).splitlines()[0])) from None


def _scalar_or_array(t, ctx):
    """A 0-d result as NumPy's scalar of its dtype (what MXNet's NumPy fallback hands back), else an array."""
    if t.dim() == 0:
        return _onp.dtype(str(t.dtype)[6:]).type(t.item())
    return wrap(t, ctx)


def cond(x, p=None):
    """The condition number of ``x`` in norm ``p`` (None: 2-norm, ``'fro'``, ``'nuc'``, ±1, ±2, ±inf)."""
    t, ctx = array_arg('linalg.cond', x)
    return _scalar_or_array(run('linalg.cond', torch.linalg.cond, t, p), ctx)


def lstsq(a, b, rcond='warn'):
    """The least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)`` as NumPy (``rcond='warn'`` and
    ``-1``: machine precision, None: machine precision times ``max(M, N)``); ``rank`` is a NumPy int32."""
    ta, ctx = array_arg('linalg.lstsq', a)
    tb, _ = array_arg('linalg.lstsq', b)
    if ta.dim() != 2 or tb.dim() not in (1, 2) or tb.shape[0] != ta.shape[0]:
        raise MXNetValueError('linalg.lstsq: a must be (M, N) and b (M,) or (M, K), got %s and %s'
                              % (tuple(ta.shape), tuple(tb.shape)))
    m, n = ta.shape
    eps = torch.finfo(ta.dtype).eps
    cut = eps * max(m, n) if rcond is None else (eps if rcond == 'warn' or rcond < 0 else float(rcond))
    u, s, vh = run('linalg.lstsq', torch.linalg.svd, ta, full_matrices=False)
    keep = s > cut * (s[0] if s.numel() else 0)
    rank = int(keep.sum())
    s_inv = torch.where(keep, 1 / torch.where(keep, s, torch.ones_like(s)), torch.zeros_like(s))
    b2 = tb.reshape(m, -1).to(ta.dtype)
    x = vh.transpose(-1, -2) @ (s_inv[:, None] * (u.transpose(-1, -2) @ b2))
    if rank == n and m > n:
        resid = ((b2 - ta @ x) ** 2).sum(0)
    else:
        resid = ta.new_empty((0,))
    x = x.reshape((n,) + tuple(tb.shape[1:]))
    return wrap(x, ctx), wrap(resid, ctx), _onp.int32(rank), wrap(s, ctx)


def matrix_power(a, n):
    """``a`` raised to the integer power ``n`` (negative: of the inverse)."""
    if not isinstance(n, (numbers.Integral, _onp.integer)):
        raise TypeError('linalg.matrix_power: exponent must be an integer, got %r' % (n,))
    t, ctx = array_arg('linalg.matrix_power', a)
    return wrap(run('linalg.matrix_power', torch.linalg.matrix_power, t, int(n)), ctx)


def matrix_rank(A, tol=None, hermitian=False):  # noqa: N803 (NumPy's name)
    """The number of singular values above ``tol`` (default: ``S.max() * max(M, N) * eps``)."""
    t, ctx = array_arg('linalg.matrix_rank', A)
    if t.dim() < 2:
        return _onp.int64(int(bool((t != 0).any())))
    kw = {'hermitian': bool(hermitian)}
    if tol is not None:
        kw.update(atol=float(tol), rtol=0.0)
    return _scalar_or_array(run('linalg.matrix_rank', torch.linalg.matrix_rank, t, **kw).to(torch.int64), ctx)


def multi_dot(arrays, out=None):
    """The chained matrix product of ``arrays`` (the first and last may be vectors)."""
    if out is not None:
        raise NotImplementedError('mx.np.linalg.multi_dot: out= is not supported')
    ts = [array_arg('linalg.multi_dot', a)[0] for a in arrays]
    ctx = arrays[0]._ctx
    return _scalar_or_array(run('linalg.multi_dot', torch.linalg.multi_dot, ts), ctx)


def qr(a, mode='reduced'):
    """The QR decomposition ``(q, r)`` (``mode`` 'reduced' or 'complete'; 'r': ``r`` only)."""
    t, ctx = array_arg('linalg.qr', a)
    if mode not in ('reduced', 'complete', 'r'):
        raise NotImplementedError('mx.np.linalg.qr: mode=%r is not supported (reduced, complete, r)' % (mode,))
    q, r = run('linalg.qr', torch.linalg.qr, t, 'complete' if mode == 'complete' else 'reduced')
    if mode == 'r':
        return wrap(r, ctx)
    return wrap(q, ctx), wrap(r, ctx)
