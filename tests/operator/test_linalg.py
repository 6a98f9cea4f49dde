"""dot, batch_dot, khatri_rao and the _linalg_* operators: numpy references, MXNet 1.9.1 goldens (values and
gradients, tests/fixtures/linalg/gen_linalg.py), finite-difference gradients, names/aliases and errors."""
import json
import os

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.operator import registry

nd = mx.nd
FIX = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'linalg')
with open(os.path.join(FIX, 'cases.json')) as _f:
    CASES = json.load(_f)
GOLD = dict(np.load(os.path.join(FIX, 'linalg.npz')))


def resolve(path):
    obj = nd
    for p in path.split('.'):
        obj = getattr(obj, p)
    return obj


def rnd(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape)


def arr(x, dtype='float32'):
    return nd.array(x, dtype=dtype)


# ---- goldens from MXNet 1.9.1: forward values and input gradients ------------------------------------------------
@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_matches_mxnet_golden(case):
    name, dtype = case['name'], case['dtype']
    xs = [arr(GOLD['%s/in%d' % (name, i)], dtype) for i in range(case['n_in'])]
    if case['grad']:
        for x in xs:
            x.attach_grad()
    with mx.autograd.record():
        out = resolve(case['op'])(*xs, **case['kwargs'])
    outs = out if isinstance(out, list) else [out]
    assert len(outs) == case['n_out']
    tol = 2e-4 if dtype == 'float32' else 1e-10
    for j, o in enumerate(outs):
        want = GOLD['%s/out%d' % (name, j)]
        assert o.shape == want.shape and o.dtype == want.dtype, (j, o.shape, want.shape, o.dtype)
        np.testing.assert_allclose(o.asnumpy(), want, rtol=tol, atol=tol)
    if case['grad']:
        hgs = [arr(GOLD['%s/hg%d' % (name, j)], dtype) for j in range(case['n_out'])]
        mx.autograd.backward(outs, hgs)
        for i, x in enumerate(xs):
            np.testing.assert_allclose(x.grad.asnumpy(), GOLD['%s/grad%d' % (name, i)], rtol=5 * tol, atol=5 * tol)


# ---- numpy references ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize('ls,rs,ta,tb', [
    ((2, 3, 4), (4, 5), False, False), ((2, 3, 4), (4, 2, 5), False, False), ((4, 2, 3), (4, 5), True, False),
    ((2, 3, 4), (5, 2, 4), False, True), ((4, 2, 3), (5, 6, 4), True, True), ((4,), (4, 3), False, False),
    ((3, 4), (4,), False, False), ((4,), (3, 4), False, True), ((4,), (4,), False, False)])
def test_dot_nd_contracts_last_axis_of_lhs_with_first_of_rhs(ls, rs, ta, tb):
    a, b = rnd(*ls), rnd(*rs, seed=1)
    out = nd.dot(arr(a, 'float64'), arr(b, 'float64'), transpose_a=ta, transpose_b=tb)
    la = np.moveaxis(a, 0, -1) if ta else a  # transpose_a: contract the first axis instead of the last
    rb = np.moveaxis(b, -1, 0) if tb else b  # transpose_b: contract the last axis instead of the first
    want = np.tensordot(la, rb, axes=([-1], [0]))
    want = want.reshape(1) if want.ndim == 0 else want
    assert out.dtype == np.float64 and out.shape == want.shape
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)


def test_dot_float32_and_method_form():
    a, b = rnd(3, 4), rnd(4, 2, seed=1)
    out = nd.dot(arr(a), arr(b))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nd.dot(arr(a), arr(b), forward_stype='default').asnumpy(), a @ b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('ta,tb', [(False, False), (True, False), (False, True), (True, True)])
def test_batch_dot_numpy(ta, tb):
    a = rnd(2, 3, 4, 5)
    b = rnd(2, 3, 5, 6, seed=1)
    a_in = np.swapaxes(a, -1, -2) if ta else a
    b_in = np.swapaxes(b, -1, -2) if tb else b
    out = nd.batch_dot(arr(a_in, 'float64'), arr(b_in, 'float64'), transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.asnumpy(), a @ b, rtol=1e-12)


def test_gemm_axis_equals_swapaxes_form():
    a, b, c = rnd(2, 3, 4, 5), rnd(2, 5, 4, 6, seed=1), rnd(2, 3, 4, 6, seed=2)
    out = nd.linalg.gemm(arr(a), arr(b), arr(c), axis=1, alpha=0.5, beta=-2.0)
    sw = lambda x: np.swapaxes(x, 1, 2)  # noqa: E731
    want = sw(0.5 * sw(a) @ sw(b) - 2.0 * sw(c))
    assert out.shape == (2, 3, 4, 6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)
    out2 = nd.linalg.gemm2(arr(a), arr(b), axis=-3)
    np.testing.assert_allclose(out2.asnumpy(), sw(sw(a) @ sw(b)), rtol=1e-5, atol=1e-5)
    assert out2.to_torch().is_contiguous()


def test_cholesky_family_numpy():
    a = rnd(3, 4, 4)
    s = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    low = nd.linalg.potrf(arr(s, 'float64')).asnumpy()
    np.testing.assert_allclose(low, np.linalg.cholesky(s), rtol=1e-10)
    up = nd.linalg.potrf(arr(s, 'float64'), lower=False).asnumpy()
    np.testing.assert_allclose(up, np.swapaxes(np.linalg.cholesky(s), -1, -2), rtol=1e-10)
    np.testing.assert_allclose(nd.linalg.potri(arr(low, 'float64')).asnumpy(), np.linalg.inv(s), rtol=1e-8)
    np.testing.assert_allclose(nd.linalg.potri(arr(up, 'float64'), lower=False).asnumpy(), np.linalg.inv(s),
                               rtol=1e-8)
    np.testing.assert_allclose(nd.linalg.sumlogdiag(arr(low, 'float64')).asnumpy(),
                               0.5 * np.linalg.slogdet(s)[1], rtol=1e-10)


@pytest.mark.parametrize('transpose', [False, True])
@pytest.mark.parametrize('rightside', [False, True])
@pytest.mark.parametrize('lower', [False, True])
def test_trmm_trsm_numpy(transpose, rightside, lower):
    a = rnd(2, 3, 3) + 3 * np.eye(3)  # the other triangle holds noise that must be ignored
    t = np.tril(a) if lower else np.triu(a)
    op_t = np.swapaxes(t, -1, -2) if transpose else t
    b = rnd(2, 4, 3, seed=1) if rightside else rnd(2, 3, 4, seed=1)
    kw = dict(transpose=transpose, rightside=rightside, lower=lower, alpha=1.5)
    mm = nd.linalg.trmm(arr(a, 'float64'), arr(b, 'float64'), **kw).asnumpy()
    np.testing.assert_allclose(mm, 1.5 * (b @ op_t if rightside else op_t @ b), rtol=1e-12)
    sm = nd.linalg.trsm(arr(a, 'float64'), arr(b, 'float64'), **kw)
    assert sm.to_torch().is_contiguous()
    back = sm.asnumpy() @ op_t if rightside else op_t @ sm.asnumpy()
    np.testing.assert_allclose(back, 1.5 * b, rtol=1e-10, atol=1e-12)


def test_syrk_inverse_det_slogdet_numpy():
    a = rnd(2, 3, 4)
    np.testing.assert_allclose(nd.linalg.syrk(arr(a, 'float64'), alpha=2.0).asnumpy(),
                               2 * a @ np.swapaxes(a, -1, -2), rtol=1e-12)
    np.testing.assert_allclose(nd.linalg.syrk(arr(a, 'float64'), transpose=True).asnumpy(),
                               np.swapaxes(a, -1, -2) @ a, rtol=1e-12)
    m = rnd(3, 4, 4, seed=3) + 2 * np.eye(4)
    m[1] *= -1
    inv = nd.linalg.inverse(arr(m, 'float64'))
    assert inv.to_torch().is_contiguous()
    np.testing.assert_allclose(inv.asnumpy(), np.linalg.inv(m), rtol=1e-10)
    np.testing.assert_allclose(nd.linalg.det(arr(m, 'float64')).asnumpy(), np.linalg.det(m), rtol=1e-10)
    sign, logabs = nd.linalg.slogdet(arr(m, 'float64'))
    ws, wl = np.linalg.slogdet(m)
    np.testing.assert_allclose(sign.asnumpy(), ws)
    np.testing.assert_allclose(logabs.asnumpy(), wl, rtol=1e-10)
    # a single matrix reduces to shape (1,), as in MXNet
    assert nd.linalg.det(arr(m[0])).shape == (1,)
    assert [x.shape for x in nd.linalg.slogdet(arr(m[0]))] == [(1,), (1,)]
    assert nd.linalg.sumlogdiag(arr(np.eye(3))).shape == (1,)


def test_singular_matrices():
    s = arr([[1., 2.], [2., 4.]])
    assert nd.linalg.det(s).asnumpy().tolist() == [0.0]
    sign, logabs = nd.linalg.slogdet(s)
    assert sign.asnumpy().tolist() == [0.0] and logabs.asnumpy().tolist() == [-np.inf]
    x = nd.linalg.trsm(arr([[0., 0.], [1., 1.]]), nd.ones((2, 2)))  # no error: LAPACK's trsm divides by zero
    assert np.isinf(x.asnumpy()).all()


def test_gelqf_and_syevd_properties():
    a = rnd(2, 3, 5)
    q, l = nd.linalg.gelqf(arr(a, 'float64'))
    q, l = q.asnumpy(), l.asnumpy()
    assert q.shape == (2, 3, 5) and l.shape == (2, 3, 3)
    np.testing.assert_allclose(l @ q, a, atol=1e-12)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)
    assert np.allclose(np.triu(l, 1), 0)
    s = rnd(2, 4, 4, seed=2)
    s = s + np.swapaxes(s, -1, -2)
    u, lam = nd.linalg.syevd(arr(s, 'float64'))
    u, lam = u.asnumpy(), lam.asnumpy()
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(s), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(u @ s, lam[..., :, None] * u, atol=1e-10)  # U A = diag(L) U
    pivots = np.take_along_axis(u, np.abs(u).argmax(-1)[..., None], -1)
    assert (pivots > 0).all()  # MXNet's deterministic eigenvector signs


def test_diag_and_trian_roundtrips():
    a = rnd(2, 5, 5)
    for off in (-2, 0, 3):
        d = nd.linalg.extractdiag(arr(a), offset=off)
        np.testing.assert_allclose(d.asnumpy(), np.diagonal(a, off, -2, -1), rtol=1e-6)
        assert d.to_torch().is_contiguous()
        m = nd.linalg.makediag(d, offset=off).asnumpy()
        assert m.shape == (2, 5, 5)
        np.testing.assert_allclose(np.diagonal(m, off, -2, -1), np.diagonal(a, off, -2, -1), rtol=1e-6)
    for off, lower in [(0, True), (0, False), (1, True), (-2, False), (2, False)]:
        v = nd.linalg.extracttrian(arr(a), offset=off, lower=lower)
        k = 5 - abs(off)
        assert v.shape == (2, k * (k + 1) // 2)
        back = nd.linalg.maketrian(v, offset=off, lower=lower).asnumpy()
        mask = np.tril(np.ones((5, 5)), off) if (off < 0 or (off == 0 and lower)) else np.triu(np.ones((5, 5)), off)
        np.testing.assert_allclose(back, a * mask, rtol=1e-6)
    # row-major packing for the lower triangle, column-major for the upper one
    m = nd.arange(1, 10).reshape((3, 3))
    assert nd.linalg.extracttrian(m).asnumpy().tolist() == [1, 4, 5, 7, 8, 9]
    assert nd.linalg.extracttrian(m, lower=False).asnumpy().tolist() == [1, 2, 5, 3, 6, 9]


def test_khatri_rao_numpy():
    mats = [rnd(2, 3), rnd(4, 3, seed=1), rnd(3, 3, seed=2)]
    out = nd.khatri_rao(*[arr(m, 'float64') for m in mats])
    want = np.einsum('ik,jk,lk->ijlk', *mats).reshape(-1, 3)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)
    one = nd.khatri_rao(arr(mats[0]))
    np.testing.assert_allclose(one.asnumpy(), mats[0], rtol=1e-6)


def test_empty_batches():
    # zero-size arrays are MXNet's under NumPy shape semantics (1.9.1 gives these shapes there)
    with mx.np_shape(True):
        assert nd.linalg.potrf(nd.zeros((0, 2, 2))).shape == (0, 2, 2)
        assert nd.linalg.det(nd.zeros((0, 3, 3))).shape == (0,)
        assert nd.linalg.gemm2(nd.zeros((0, 2, 3)), nd.zeros((0, 3, 4))).shape == (0, 2, 4)


# ---- gradients against central finite differences (float64) ---------------------------------------------------------
def _numeric_grad(f, xs, i, eps=1e-6):
    base = [x.asnumpy() for x in xs]
    g = np.zeros_like(base[i])
    for idx in np.ndindex(*base[i].shape):
        vals = []
        for s in (eps, -eps):
            cur = [b.copy() for b in base]
            cur[i][idx] += s
            vals.append(float(f(*[arr(c, 'float64') for c in cur]).asnumpy().sum()))
        g[idx] = (vals[0] - vals[1]) / (2 * eps)
    return g


def _weighted(fn, weights):
    def f(*xs):
        out = fn(*xs)
        out = out[-1] if isinstance(out, list) else out
        return out * weights
    return f


def _spd(n, seed):
    a = rnd(n, n, seed=seed)
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize('name,fn,inputs', [
    ('gemm', lambda a, b, c: nd.linalg.gemm(a, b, c, transpose_a=True, alpha=0.7, beta=-1.3),
     [rnd(4, 3), rnd(4, 2, seed=1), rnd(3, 2, seed=2)]),
    ('gemm2', lambda a, b: nd.linalg.gemm2(a, b, transpose_b=True, alpha=2.0), [rnd(2, 3, 4), rnd(2, 2, 4, seed=1)]),
    ('potrf', lambda a: nd.linalg.potrf(a), [_spd(3, 4)]),
    ('potrf_upper', lambda a: nd.linalg.potrf(a, lower=False), [_spd(3, 5)]),
    ('trsm', lambda a, b: nd.linalg.trsm(a, b, transpose=True, alpha=0.5),
     [np.tril(rnd(3, 3, seed=6)) + 2 * np.eye(3), rnd(3, 2, seed=7)]),
    ('trsm_right_upper', lambda a, b: nd.linalg.trsm(a, b, rightside=True, lower=False),
     [np.triu(rnd(3, 3, seed=8)) + 2 * np.eye(3), rnd(2, 3, seed=9)]),
    ('inverse', lambda a: nd.linalg.inverse(a), [rnd(2, 3, 3, seed=10) + 2 * np.eye(3)]),
    ('det', lambda a: nd.linalg.det(a), [rnd(2, 3, 3, seed=11) + 2 * np.eye(3)]),
    ('slogdet', lambda a: nd.linalg.slogdet(a), [rnd(3, 3, seed=12) - 2 * np.eye(3)]),
    ('dot', lambda a, b: nd.dot(a, b, transpose_a=True), [rnd(3, 2, 2, seed=13), rnd(3, 2, seed=14)]),
    ('batch_dot', lambda a, b: nd.batch_dot(a, b, transpose_b=True), [rnd(2, 2, 3, seed=15), rnd(2, 4, 3, seed=16)]),
])
def test_gradient_matches_finite_differences(name, fn, inputs):
    xs = [arr(x, 'float64') for x in inputs]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        probe = fn(*xs)
    probe = probe[-1] if isinstance(probe, list) else probe
    weights = arr(rnd(*probe.shape, seed=99), 'float64')
    f = _weighted(fn, weights)
    with mx.autograd.record():
        y = f(*xs)
    y.backward()
    if name.startswith('potrf'):
        # potrf reads one triangle of a symmetric input; perturb symmetrically (both triangles at once)
        base = inputs[0]
        num = np.zeros_like(base)
        for i, j in np.ndindex(*base.shape):
            e = np.zeros_like(base)
            e[i, j] += 1e-6
            e[j, i] += 1e-6 if i != j else 0
            hi = float(f(arr(base + e, 'float64')).asnumpy().sum())
            lo = float(f(arr(base - e, 'float64')).asnumpy().sum())
            num[i, j] = (hi - lo) / 2e-6
        g = xs[0].grad.asnumpy()
        sym_grad = g + g.T - np.diag(np.diag(g))  # d/dA_ij of the symmetric perturbation
        np.testing.assert_allclose(sym_grad, num, rtol=1e-5, atol=1e-7)
        return
    for i in range(len(xs)):
        np.testing.assert_allclose(xs[i].grad.asnumpy(), _numeric_grad(f, xs, i), rtol=1e-5, atol=1e-7)


# ---- names, aliases, inputs and parameters as MXNet registers them --------------------------------------------------
SIGNATURES = {
    '_linalg_gemm': (('A', 'B', 'C'), ['transpose_a', 'transpose_b', 'alpha', 'beta', 'axis']),
    '_linalg_gemm2': (('A', 'B'), ['transpose_a', 'transpose_b', 'alpha', 'axis']),
    '_linalg_potrf': (('A',), ['lower']), '_linalg_potri': (('A',), ['lower']),
    '_linalg_trmm': (('A', 'B'), ['transpose', 'rightside', 'lower', 'alpha']),
    '_linalg_trsm': (('A', 'B'), ['transpose', 'rightside', 'lower', 'alpha']),
    '_linalg_syrk': (('A',), ['transpose', 'alpha']), '_linalg_sumlogdiag': (('A',), []),
    '_linalg_extractdiag': (('A',), ['offset']), '_linalg_makediag': (('A',), ['offset']),
    '_linalg_extracttrian': (('A',), ['offset', 'lower']), '_linalg_maketrian': (('A',), ['offset', 'lower']),
    '_linalg_gelqf': (('A',), []), '_linalg_syevd': (('A',), []), '_linalg_inverse': (('A',), []),
    '_linalg_det': (('A',), []), '_linalg_slogdet': (('A',), []),
    'dot': (('lhs', 'rhs'), ['transpose_a', 'transpose_b', 'forward_stype']),
    'batch_dot': (('lhs', 'rhs'), ['transpose_a', 'transpose_b', 'forward_stype']),
}


@pytest.mark.parametrize('name', sorted(SIGNATURES))
def test_registered_names_and_signatures(name):
    op = registry.get(name)
    inputs, params = SIGNATURES[name]
    assert op.inputs == inputs and op.param_names == params
    if name.startswith('_linalg_'):
        short = name[len('_linalg_'):]
        assert getattr(nd.linalg, short)._op is op
        assert getattr(nd._internal, name)._op is op
        if short != 'syevd':  # MXNet registers no linalg_syevd alias
            assert getattr(nd, 'linalg_' + short)._op is op
    else:
        assert getattr(nd, name)._op is op


def test_defaults_and_khatri_rao_variadic():
    assert registry.get('_linalg_gemm').defaults == {'transpose_a': False, 'transpose_b': False, 'alpha': 1.0,
                                                     'beta': 1.0, 'axis': -2}
    assert registry.get('_linalg_trsm').defaults == {'transpose': False, 'rightside': False, 'lower': True,
                                                     'alpha': 1.0}
    assert registry.get('_linalg_extracttrian').defaults == {'offset': 0, 'lower': True}
    kr = registry.get('khatri_rao')
    assert kr.variadic and kr.input_names({'num_args': 3}) == ['arg0', 'arg1', 'arg2']
    assert not hasattr(nd, 'linalg_syevd')


def test_string_attributes_as_in_symbol_json():
    a, b = rnd(3, 4), rnd(5, 4, seed=1)
    out = nd.linalg.gemm2(arr(a), arr(b), transpose_b='True', alpha='2.0')
    np.testing.assert_allclose(out.asnumpy(), 2 * a @ b.T, rtol=1e-5, atol=1e-6)
    out = nd.dot(arr(a), arr(b), transpose_b='1', forward_stype='None')
    np.testing.assert_allclose(out.asnumpy(), a @ b.T, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name,shapes,attrs,want', [
    ('_linalg_gemm2', [(2, 3, 4), (2, 4, 5)], {}, [(2, 3, 5)]),
    ('_linalg_gemm', [(2, 4, 3), (2, 4, 6), (3, 4, 6)], {'transpose_a': True, 'axis': 0}, [(3, 4, 6)]),
    ('_linalg_det', [(4, 3, 3)], {}, [(4,)]),
    ('_linalg_slogdet', [(3, 3)], {}, [(1,), (1,)]),
    ('_linalg_gelqf', [(2, 3, 5)], {}, [(2, 3, 5), (2, 3, 3)]),
    ('_linalg_syevd', [(4, 4)], {}, [(4, 4), (4,)]),
    ('_linalg_maketrian', [(2, 6)], {'offset': 1}, [(2, 4, 4)]),
    ('_linalg_extracttrian', [(5, 5)], {'offset': -1}, [(10,)]),
    ('dot', [(2, 3, 4), (4, 5, 6)], {}, [(2, 3, 5, 6)]),
])
def test_meta_shape_inference(name, shapes, attrs, want):
    op = registry.get(name)
    out_shapes, out_dtypes = op.infer(shapes, [torch.float32] * len(shapes), op.parse_attrs(attrs))
    assert out_shapes == want and all(d is torch.float32 for d in out_dtypes)


# ---- errors ----------------------------------------------------------------------------------------------------------
ERRORS = [
    (lambda: nd.dot(nd.ones((2, 3)), nd.ones((4, 2))), MXNetValueError, 'dot shape error'),
    (lambda: nd.dot(nd.ones((2, 3)), nd.ones((3, 2), dtype='float64')), MXNetTypeError, 'dot'),
    (lambda: nd.dot(nd.ones((2, 3), dtype='int32'), nd.ones((3, 2), dtype='int32')), MXNetTypeError,
     'float32/float64'),
    (lambda: nd.dot(nd.ones(3), nd.ones(3), transpose_a=True), MXNetValueError, 'Cannot transpose vectors'),
    (lambda: nd.dot(nd.ones((2, 3, 1)), nd.ones((1, 2)), forward_stype='csr'), MXNetValueError,
     "forward_stype='csr' needs a 2-D result"),
    (lambda: nd.sparse.dot(nd.ones((2, 3)), nd.ones((3, 2)), forward_stype='dense'), MXNetValueError,
     'forward_stype'),
    (lambda: nd.dot(nd.ones((2, 3)), nd.ones((3, 2)), forward_stype='dense'), MXNetValueError, 'forward_stype'),
    (lambda: nd.batch_dot(nd.ones((3, 4)), nd.ones((4, 5))), MXNetValueError, 'N-D*N-D'),
    (lambda: nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((3, 4, 5))), MXNetValueError, 'leading batch dimensions'),
    (lambda: nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((2, 5, 5))), MXNetValueError, 'shape mismatch'),
    (lambda: nd.batch_dot(nd.ones((1, 2, 2), dtype='int32'), nd.ones((1, 2, 2), dtype='int32')), MXNetTypeError,
     'batch_dot'),
    (lambda: nd.linalg.gemm2(nd.ones((3, 2)), nd.ones((3, 2))), MXNetValueError, 'Incompatible matrix dimensions'),
    (lambda: nd.linalg.gemm2(nd.ones((3, 2)), nd.ones((1, 2, 2))), MXNetValueError, 'inferring shapes failed'),
    (lambda: nd.linalg.gemm2(nd.ones((2, 2, 2)), nd.ones((3, 2, 2))), MXNetValueError, 'must be the same'),
    (lambda: nd.linalg.gemm2(nd.ones((2, 2)), nd.ones((2, 2)), axis=1), MXNetValueError, 'Invalid row axis'),
    (lambda: nd.linalg.gemm2(nd.ones((2, 2), dtype='float16'), nd.ones((2, 2), dtype='float16')), MXNetTypeError,
     '32-bit and 64-bit'),
    (lambda: nd.linalg.gemm(nd.ones((3, 2)), nd.ones((2, 3)), nd.ones((3, 2))), MXNetValueError,
     'Shape inconsistent'),
    (lambda: nd.linalg.potrf(nd.array([[1., 2.], [2., 1.]])), MXNetError, 'not positive definite'),
    (lambda: nd.linalg.potrf(nd.ones((3, 2))), MXNetValueError, 'square'),
    (lambda: nd.linalg.potri(nd.ones((3,))), MXNetValueError, 'ndim >= 2'),
    (lambda: nd.linalg.trsm(nd.ones((3, 2)), nd.ones((3, 2))), MXNetValueError, 'square matrices'),
    (lambda: nd.linalg.trsm(nd.ones((3, 3)), nd.ones((2, 2))), MXNetValueError, 'Incompatible matrix dimensions'),
    (lambda: nd.linalg.trmm(nd.ones((2, 2, 2)), nd.ones((3, 2, 2))), MXNetValueError, 'except on last two'),
    (lambda: nd.linalg.syrk(nd.ones(3)), MXNetValueError, 'ndim >= 2'),
    (lambda: nd.linalg.sumlogdiag(nd.ones((3, 2))), MXNetValueError, 'square'),
    (lambda: nd.linalg.inverse(nd.array([[1., 2.], [2., 4.]])), MXNetError, 'non-convertible'),
    (lambda: nd.linalg.inverse(nd.ones((2, 2), dtype='int32')), MXNetTypeError, '32-bit and 64-bit'),
    (lambda: nd.linalg.det(nd.ones((3, 2))), MXNetValueError, 'square'),
    (lambda: nd.linalg.slogdet(nd.ones(3)), MXNetValueError, 'ndim >= 2'),
    (lambda: nd.linalg.extractdiag(nd.ones((3, 3)), offset=-3), MXNetValueError, 'Illegal offset'),
    (lambda: nd.linalg.extractdiag(nd.ones((3, 2))), MXNetValueError, 'square'),
    (lambda: nd.linalg.extracttrian(nd.ones(3)), MXNetValueError, 'tensor of matrices'),
    (lambda: nd.linalg.makediag(nd.ones(2, dtype='int32')), MXNetTypeError, '32-bit and 64-bit'),
    (lambda: nd.linalg.maketrian(nd.ones(5)), MXNetValueError, 'invalid dimension'),
    (lambda: nd.linalg.gelqf(nd.ones((3, 2))), MXNetValueError, 'Last dimension must be >='),
    (lambda: nd.linalg.syevd(nd.ones((2, 3))), MXNetValueError, 'square'),
    (lambda: nd.khatri_rao(nd.ones((2, 2)), nd.ones((2, 3))), MXNetValueError, 'same number of columns'),
    (lambda: nd.khatri_rao(nd.ones(2), nd.ones((2, 3))), MXNetValueError, 'must be a matrix'),
    (lambda: nd.khatri_rao(nd.ones((2, 2), dtype='int32'), nd.ones((2, 2), dtype='int32')), MXNetTypeError,
     'int32'),
    (lambda: nd.linalg.gemm2(nd.ones((2, 2)), nd.ones((2, 2)), foo=1), MXNetValueError, 'unknown argument'),
]


@pytest.mark.parametrize('call,exc,msg', ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_name_the_operator(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    text = str(info.value)
    assert msg in text
    assert 'Operator ' in text or 'dot:' in text
