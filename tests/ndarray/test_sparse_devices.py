"""Sparse arrays on every device (the ``ctx`` fixture: cpu(0), and gpu(0) where CUDA exists): values assigned or
copied into a sparse array stay on its context's device, sparse operators give results on that device, and the
storage type of a result is the same on every device (MXNet's storage inference does not look at the device)."""
import pickle

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.ndarray import sparse as sp
from mxcompat.ndarray.sparse import spmm

X = np.array([[0, 1.5, 0, 2], [0, 0, 0, 0], [3, 0, -1, 0]], dtype=np.float64)
W = np.arange(12, dtype=np.float32).reshape(4, 3)


def _assert_on(a, ctx):
    """``a`` is labelled ``ctx`` and every tensor it holds (components, dense view) is on ctx's device."""
    assert a.context == ctx
    want = ctx.torch_device
    tensors = list(a._cmp()) + [a._t] if isinstance(a, sp.BaseSparseNDArray) else [a._t]
    assert all(t.device == want for t in tensors), [t.device for t in tensors]


# ---- values written into a sparse array keep its device -------------------------------------------------------------
@pytest.mark.parametrize('stype', ['row_sparse', 'csr'])
@pytest.mark.parametrize('source', ['numpy', 'list', 'cpu NDArray'])
def test_assignment_keeps_the_device(ctx, stype, source):
    a = mx.nd.sparse.zeros(stype, X.shape, ctx=ctx)
    value = {'numpy': X, 'list': X.tolist(), 'cpu NDArray': mx.nd.array(X, ctx=mx.cpu())}[source]
    a[:] = value  # (the upstream test_sparse_storage_fallback's label: l[:] = np_softmax(l.asnumpy()))
    _assert_on(a, ctx)
    assert a.stype == stype and a.dtype == np.float32
    np.testing.assert_array_equal(a.asnumpy(), X.astype(np.float32))
    np.testing.assert_array_equal(a.indices.asnumpy(), [0, 2] if stype == 'row_sparse' else [1, 3, 0, 2])


def test_scalar_assignment_keeps_the_device(ctx):
    a = mx.nd.sparse.zeros('row_sparse', (3, 2), ctx=ctx)
    a[:] = 2
    _assert_on(a, ctx)
    np.testing.assert_array_equal(a.asnumpy(), np.full((3, 2), 2, np.float32))


@pytest.mark.parametrize('stype', ['row_sparse', 'csr'])
def test_copy_from_the_host_lands_on_the_destination(ctx, stype):
    src = mx.nd.array(X, ctx=mx.cpu()).tostype(stype)
    dst = mx.nd.sparse.zeros(stype, X.shape, ctx=ctx)
    assert src.copyto(dst) is dst
    _assert_on(dst, ctx)
    np.testing.assert_array_equal(dst.asnumpy(), X.astype(np.float32))
    dst2 = mx.nd.sparse.zeros(stype, X.shape, ctx=ctx)
    dst2[:] = src
    _assert_on(dst2, ctx)
    _assert_on(src, mx.cpu())  # (the source is untouched)


@pytest.mark.parametrize('stype', ['row_sparse', 'csr'])
def test_pickle_roundtrip_keeps_the_device(ctx, stype):
    a = mx.nd.array(X, ctx=ctx).tostype(stype)
    b = pickle.loads(pickle.dumps(a))
    assert b.stype == stype
    _assert_on(b, ctx)
    np.testing.assert_array_equal(b.asnumpy(), X.astype(np.float32))


# ---- results live on the inputs' device ---------------------------------------------------------------------------
@pytest.mark.parametrize('fn', [mx.nd.contrib.getnnz, mx.nd.sparse.getnnz])
def test_getnnz_on_the_device(ctx, fn):
    c = mx.nd.array(X, ctx=ctx).tostype('csr')
    n = fn(c)
    _assert_on(n, ctx)
    assert n.dtype == np.int64 and n.asnumpy().tolist() == [4]
    rows = fn(c, axis=1)
    _assert_on(rows, ctx)
    assert rows.asnumpy().tolist() == [2, 0, 2]


def test_summed_rows_match_coalesce(ctx):
    g = torch.Generator().manual_seed(0)
    rows = torch.randint(0, 7, (40,), generator=g)
    values = torch.randn(40, 3, generator=g)
    coo = torch.sparse_coo_tensor(rows.unsqueeze(0), values, (7, 3), check_invariants=True).to(ctx.torch_device)
    got_rows, got_values = sp.summed_rows(coo)
    want = coo.coalesce()
    assert got_rows.device == coo.device and got_values.device == coo.device
    assert got_rows.tolist() == want.indices()[0].tolist()
    torch.testing.assert_close(got_values.cpu(), want.values().cpu())


# ---- float16 sparse products (torch's CUDA sparse kernel has no float16: float32 inside) -------------------------
@pytest.fixture(params=['device policy', 'float32 inside'])
def spmm_policy(request, monkeypatch):
    """The device's own kernel choice, and the float32 round trip forced for half types (so CPU runs the path
    that CUDA takes)."""
    if request.param == 'float32 inside':
        monkeypatch.setattr(spmm, '_spmm_in_float32', lambda t: t.dtype in spmm._HALF_TYPES)
    return request.param


@pytest.mark.parametrize('dtype', ['float16', 'float32'])
def test_half_csr_dot_dense(ctx, dtype, spmm_policy):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (5, 7)).astype(np.float32)
    x[rng.rand(5, 7) > 0.4] = 0
    w = rng.uniform(-1, 1, (7, 3)).astype(np.float32)
    c = mx.nd.array(x, ctx=ctx).tostype('csr').astype(dtype)
    wd = mx.nd.array(w, ctx=ctx, dtype=dtype)
    xq, wq = x.astype(dtype).astype(np.float64), w.astype(dtype).astype(np.float64)  # the values the arrays hold
    cases = [(mx.nd.sparse.dot(c, wd), xq @ wq, 'default'),
             (mx.nd.sparse.dot(c, mx.nd.array(x[:, :3], ctx=ctx, dtype=dtype), transpose_a=True),
              xq.T @ x[:, :3].astype(dtype).astype(np.float64), 'row_sparse'),
             (mx.nd.sparse.dot(mx.nd.array(w.T, ctx=ctx, dtype=dtype),
                               mx.nd.array(x.T, ctx=ctx).tostype('csr').astype(dtype)), wq.T @ xq.T, 'csr'),
             (mx.nd.dot(c, wd), xq @ wq, 'default')]
    for out, want, stype in cases:
        assert out.stype == stype and out.dtype == np.dtype(dtype)
        _assert_on(out, ctx)
        np.testing.assert_allclose(out.asnumpy().astype(np.float64), want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_half_csr_dot_gradient(ctx, dtype, spmm_policy):
    x = np.array([[0, 2.0, 0], [1.0, 0, -3.0]], dtype=np.float32)
    c = mx.nd.array(x, ctx=ctx).tostype('csr').astype(dtype)
    w = mx.nd.array(np.ones((3, 4)), ctx=ctx, dtype=dtype)
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sparse.dot(c, w)
    y.backward()
    assert w.grad.to_torch().dtype == getattr(torch, dtype) and y.to_torch().dtype == getattr(torch, dtype)
    _assert_on(w.grad, ctx)
    np.testing.assert_array_equal(y.asnumpy(), x.sum(1, keepdims=True).repeat(4, axis=1))
    np.testing.assert_array_equal(w.grad.asnumpy(), np.repeat(x.sum(0, keepdims=True).T, 4, axis=1))


def test_fp16_spmm_wide(ctx, spmm_policy):
    # the upstream test_fp16_spmm: one entry of a 151 x 100001 csr matrix times a float16 weight
    c = mx.nd.sparse.csr_matrix(([2.0], [100000], [0] * 151 + [1]), shape=(151, 100001), ctx=ctx)
    c = c.astype('float16', copy=False)
    rng = np.random.RandomState(1)
    w = rng.randn(100001, 151).astype(np.float16)
    out = mx.nd.sparse.dot(c, mx.nd.array(w, ctx=ctx, dtype='float16'))
    want = np.zeros((151, 151), np.float32)
    want[150] = 2 * w[100000].astype(np.float32)
    assert out.dtype == np.float16
    _assert_on(out, ctx)
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want, rtol=1e-3, atol=1e-5)


# ---- the storage type of a result does not depend on the device ------------------------------------------------
# (expression, MXNet 1.9.1's storage type of its result, on CPU)
STYPES = [
    ('-r', 'row_sparse'), ('mx.nd.negative(r)', 'row_sparse'), ('mx.nd.relu(r)', 'row_sparse'),
    ('mx.nd.sparse.relu(r)', 'row_sparse'), ('mx.nd.abs(c)', 'csr'), ('r * 2', 'row_sparse'), ('r + 1', 'default'),
    ('c * 2', 'csr'), ('c + 1', 'default'), ('r + r', 'row_sparse'), ('r * r', 'row_sparse'), ('r - r', 'row_sparse'),
    ('mx.nd.sparse.elemwise_add(r, r)', 'row_sparse'), ('mx.nd.sparse.elemwise_add(d, r)', 'default'),
    ('mx.nd.sparse.elemwise_mul(d, r)', 'row_sparse'), ('mx.nd.sparse.dot(c, w)', 'default'),
    ('mx.nd.sparse.dot(c, d, transpose_a=True)', 'row_sparse'), ('mx.nd.sparse.dot(w, c)', 'csr'),
    ('mx.nd.sparse.retain(r, mx.nd.array([0, 1], ctx=ctx))', 'row_sparse'), ('mx.nd.sparse.add_n(r, r)', 'row_sparse'),
    ('mx.nd.sparse.zeros_like(r)', 'row_sparse'), ('mx.nd.sparse.clip(r, -1, 1)', 'row_sparse'),
    ('mx.nd.sqrt(mx.nd.abs(c))', 'csr'), ('mx.nd.exp(r)', 'default'), ('mx.nd.sparse.square(r)', 'row_sparse'),
]


@pytest.mark.parametrize('expr,stype', STYPES, ids=[e for e, _ in STYPES])
def test_result_storage_is_the_same_on_every_device(ctx, expr, stype):
    d = mx.nd.array(X, ctx=ctx)
    env = dict(mx=mx, ctx=ctx, d=d, r=d.tostype('row_sparse'), c=d.tostype('csr'), w=mx.nd.array(W, ctx=ctx))
    got = eval(expr, env)
    assert got.stype == stype
    _assert_on(got, ctx)
    host = dict(mx=mx, ctx=mx.cpu(), d=mx.nd.array(X), r=mx.nd.array(X).tostype('row_sparse'),
                c=mx.nd.array(X).tostype('csr'), w=mx.nd.array(W))
    np.testing.assert_allclose(got.asnumpy(), eval(expr, host).asnumpy(), rtol=1e-6)
