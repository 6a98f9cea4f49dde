"""mxcompat/operator/extra_ops.py, contrib_ops.py and detection_ops.py against MXNet 1.9.1 goldens
(tests/fixtures/ops_extra: values, dtypes, shapes, gradients and in-place state updates), plus numpy checks of
the behaviours the goldens cannot hold (MXNet-side failures, errors, CPU-only extensions)."""
import importlib.util
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetValueError, MXNetTypeError

HERE = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'ops_extra')
_spec = importlib.util.spec_from_file_location('cases_ops_extra', os.path.join(HERE, 'cases_ops_extra.py'))
cases_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases_mod)
CASES = cases_mod.cases()
GOLD = np.load(os.path.join(HERE, 'ops_extra.npz'))
nd = mx.nd


def _tol(dtype):
    return (2e-3, 2e-3) if dtype == np.float16 else (1e-4, 1e-5)


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_against_mxnet(case):
    key = case[0]
    want = {k.split('/', 1)[1]: GOLD[k] for k in GOLD.files if k.split('/', 1)[0] == key}
    assert want, 'no golden for %s' % key
    assert 'error' not in want, str(want['error'])
    got = cases_mod.run(mx, case)
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    for name, w in want.items():
        g = got[name]
        assert g.shape == w.shape, (name, g.shape, w.shape)
        assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
        rtol, atol = _tol(w.dtype)
        np.testing.assert_allclose(g.astype('float64'), w.astype('float64'), rtol=rtol, atol=atol, err_msg=name)


# ---- behaviours checked against the oracle by hand (MXNet fails on them or they are Python-level) ----------------
def test_histogram_function():
    x = nd.array([0.1, 0.5, 1, 2, 3, 3.5, 10])
    h, e = nd.histogram(x, bins=3)  # numpy's result when range is not given, as MXNet
    np.testing.assert_array_equal(h.asnumpy(), [5, 1, 1])
    np.testing.assert_allclose(e.asnumpy(), [0.1, 3.4, 6.7, 10], rtol=1e-6)
    h, e = nd.histogram(x, bins=3, range=(0, 4))
    np.testing.assert_array_equal(h.asnumpy(), [3, 1, 2])
    assert h.dtype == np.int64
    h, _ = nd.histogram(x, bins=nd.array([0, 1, 2, 5]))
    np.testing.assert_array_equal(h.asnumpy(), [2, 1, 3])
    with pytest.raises(MXNetValueError):
        nd.histogram(x, bins=2.5)
    with pytest.raises(MXNetError, match='_histogram.*range'):
        nd.histogram(x, bins=3, range=(4, 0))
    with pytest.raises(MXNetError, match='_histogram.*both or neither'):
        nd._internal._histogram(x, bin_cnt=3)


def test_amp_multicast_dtypes():
    f16, f32, f64 = nd.ones(2, dtype='float16'), nd.ones(2), nd.ones(1, dtype='float64')
    assert [o.dtype for o in nd.amp_multicast(f16, f32, f64, num_outputs=3)] == [np.float32, np.float32, np.float64]
    assert [o.dtype for o in nd.amp_multicast(f16, f32, num_outputs=2, cast_narrow=True)] == [np.float16] * 2
    i32 = nd.ones(2, dtype='int32')
    assert [o.dtype for o in nd.amp_multicast(i32, f32, num_outputs=2)] == [np.int32, np.float32]
    with pytest.raises(MXNetError, match='amp_multicast'):
        nd.amp_multicast(f16, f32, num_outputs=3)


def test_reset_arrays_zeroes_in_place():
    a, b = nd.ones((2, 2)), nd.ones(3)
    assert nd.reset_arrays(a, b, num_arrays=2) == []
    assert a.asnumpy().sum() == 0 and b.asnumpy().sum() == 0


def test_all_finite_init_output_false_is_a_known_gap():
    with pytest.raises(MXNetError, match='init_output'):
        nd.all_finite(nd.ones(2), init_output=False)
    with pytest.raises(MXNetError, match='init_output'):
        nd.multi_all_finite(nd.ones(2), num_arrays=1, init_output=False)


def test_multi_sum_sq_needs_one_dtype():
    with pytest.raises(MXNetTypeError, match='multi_sum_sq'):
        nd.multi_sum_sq(nd.ones(2), nd.ones(2, dtype='float16'), num_arrays=2)


def test_amp_and_count_errors_name_the_op():
    with pytest.raises(MXNetError, match='multi_sum_sq'):
        nd.multi_sum_sq(nd.ones(2), num_arrays=2)
    with pytest.raises(MXNetError, match='multi_sgd_update'):
        nd.multi_sgd_update(nd.ones(2), nd.ones(2), lrs=(0.1, 0.1), wds=(0, 0), num_weights=2)


def test_im2col_other_ranks_are_the_adjoint_of_col2im():
    # MXNet 1.9.1 fails on 1D/3D kernels; here they work: check im2col against a direct loop and col2im as adjoint
    x = np.random.RandomState(0).uniform(size=(1, 2, 7)).astype('float32')
    cols = nd.im2col(nd.array(x), kernel=(3,), stride=(2,), pad=(1,)).asnumpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    ref = np.stack([xp[0, :, s:s + 3].reshape(-1) for s in range(0, 7, 2)], 1)[None]
    np.testing.assert_allclose(cols, ref)
    y = np.random.RandomState(1).uniform(size=cols.shape).astype('float32')
    back = nd.col2im(nd.array(y), output_size=(7,), kernel=(3,), stride=(2,), pad=(1,)).asnumpy()
    np.testing.assert_allclose((cols * y).sum(), (x * back).sum(), rtol=1e-5)
    v = nd.im2col(nd.ones((1, 1, 3, 4, 4)), kernel=(2, 2, 2))
    assert v.shape == (1, 8, 18)


def test_cumsum_errors_and_symbol():
    with pytest.raises(MXNetError, match='cumsum'):
        nd.cumsum(nd.ones((2, 3)), axis=2)
    s = mx.sym.cumsum(mx.sym.var('a'), axis=1)
    assert s.infer_shape(a=(2, 3))[1] == [(2, 3)]


def test_random_pdf_shape_errors():
    with pytest.raises(MXNetError, match='random_pdf_normal'):
        nd.random_pdf_normal(nd.ones((2, 3)), nd.ones(3), nd.ones(3))
    with pytest.raises(MXNetError, match='random_pdf_normal'):
        nd.random_pdf_normal(nd.ones((2, 3)), nd.ones(2), nd.ones(3))


def test_legacy_imdecode_is_unsupported():
    with pytest.raises(MXNetError, match='imdecode'):
        nd.imdecode(b'\x89PNG')


def test_crop_errors():
    with pytest.raises(MXNetError, match='Crop'):
        nd.Crop(nd.ones((1, 1, 4, 4)), h_w=(5, 2), num_args=1)


def test_kl_sparse_reg_symbol_arguments():
    s = mx.sym.IdentityAttachKLSparseReg(mx.sym.var('d'), name='r')
    assert s.list_arguments() == ['d']
    assert s.list_auxiliary_states() == ['r_moving_avg']
    s = mx.sym.BatchNorm_v1(mx.sym.var('d'), name='bn')
    assert s.list_arguments() == ['d', 'bn_gamma', 'bn_beta']
    assert s.list_auxiliary_states() == ['bn_moving_mean', 'bn_moving_var']


# ---- contrib ---------------------------------------------------------------------------------------------------
C = nd.contrib


def test_fft_ifft_roundtrip_on_cpu():
    x = np.random.RandomState(2).uniform(size=(3, 8)).astype('float32')
    f = C.fft(nd.array(x)).asnumpy()
    ref = np.fft.fft(x, axis=-1)
    np.testing.assert_allclose(f[:, 0::2], ref.real, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(f[:, 1::2], ref.imag, rtol=1e-4, atol=1e-5)
    back = C.ifft(nd.array(f)).asnumpy()
    np.testing.assert_allclose(back / 8, x, rtol=1e-4, atol=1e-5)  # unnormalised, as MXNet's test expects


def test_count_sketch():
    x = np.random.RandomState(3).uniform(size=(2, 5)).astype('float32')
    h, s = np.array([0, 2, 1, 2, 0]), np.array([1, -1, 1, 1, -1])
    out = C.count_sketch(nd.array(x), nd.array(h[None]), nd.array(s[None]), out_dim=3).asnumpy()
    ref = np.zeros((2, 3))
    for i in range(5):
        ref[:, h[i]] += s[i] * x[:, i]
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_group_adagrad_dense():
    w = np.random.RandomState(4).uniform(size=(3, 4)).astype('float32')
    g = np.random.RandomState(5).uniform(-1, 1, size=(3, 4)).astype('float32')
    hist = nd.ones((3, 1)) * 0.5
    out = C.group_adagrad_update(nd.array(w), nd.array(g), hist, lr=0.1, rescale_grad=2.0)
    h = 0.5 + ((2 * g) ** 2).mean(1, keepdims=True)
    np.testing.assert_allclose(hist.asnumpy(), h, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), w - 0.1 * 2 * g / np.sqrt(h + 1e-5), rtol=1e-5)


def test_edge_id_dense():
    out = C.edge_id(nd.array([[0, 1], [2, 0]]), nd.array([0, 1, 1]), nd.array([1, 0, 1]))
    np.testing.assert_array_equal(out.asnumpy(), [1, 2, -1])


def test_boolean_mask_errors_and_symbol_inference():
    with pytest.raises(MXNetError, match='boolean_mask'):
        C.boolean_mask(nd.ones((3, 2)), nd.ones(2))
    s = mx.sym.contrib.boolean_mask(mx.sym.var('d'), mx.sym.var('i'))
    with pytest.raises(MXNetError):
        s.infer_shape(d=(3, 2), i=(3,))


def test_syncbatchnorm_ndev_is_a_known_gap():
    a = [nd.ones((2, 3)), nd.ones(3), nd.zeros(3), nd.zeros(3), nd.ones(3)]
    with pytest.raises(MXNetError, match='ndev'):
        C.SyncBatchNorm(*a, key='k', ndev=2)


def test_bilinear_resize_mode_like_needs_like():
    with pytest.raises(MXNetError, match='BilinearResize2D'):
        C.BilinearResize2D(nd.ones((1, 1, 4, 4)), mode='like')
    with pytest.raises(MXNetValueError):
        C.BilinearResize2D(nd.ones((1, 1, 4, 4)), mode='bogus')


def test_adamw_wrappers_update_state_in_place():
    w, g, m, v = nd.ones(3), nd.ones(3), nd.zeros(3), nd.zeros(3)
    C.adamw_update(w, g, m, v, rescale_grad=1.0, lr=0.1, eta=1.0, out=w)
    np.testing.assert_allclose(m.asnumpy(), 0.1, rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), 0.001, rtol=1e-5)
    assert w.asnumpy()[0] < 1
    ws = [nd.ones(2), nd.ones(3)]
    C.multi_lamb_update(ws, [nd.ones(2), nd.ones(3)], [nd.zeros(2), nd.zeros(3)], [nd.zeros(2), nd.zeros(3)],
                        step_count=[1, 1], lrs=[0.1, 0.1], wds=[0.0, 0.0], out=ws)
    assert ws[0].asnumpy()[0] < 1 and ws[1].asnumpy()[0] < 1


def test_control_flow():
    outs, st = C.foreach(lambda x, s: (x * 2, s + x), nd.arange(6).reshape((3, 2)), nd.zeros(2))
    np.testing.assert_array_equal(outs.asnumpy(), np.arange(6).reshape(3, 2) * 2)
    np.testing.assert_array_equal(st.asnumpy(), [6, 9])
    outs, st = C.foreach(lambda xs, s: ([xs[0] + xs[1]], [s[0] * 2]), [nd.ones((2, 1)), nd.ones((2, 1))],
                         [nd.ones(1)])
    assert outs[0].shape == (2, 1) and st[0].asnumpy()[0] == 4
    out, vs = C.while_loop(lambda i, s: i < 3, lambda i, s: ([i * 2], [i + 1, s + i]),
                           [nd.array([0]), nd.array([0])], max_iterations=5)
    np.testing.assert_array_equal(out[0].asnumpy().ravel(), [0, 2, 4, 0, 0])
    assert vs[0].asnumpy()[0] == 3 and vs[1].asnumpy()[0] == 3
    with pytest.raises(MXNetValueError):
        C.while_loop(lambda i: i < 3, lambda i: (None, [i + 1]), [nd.array([0])])
    assert C.cond(nd.array([0]), lambda: nd.ones(1), lambda: nd.zeros(1)).asnumpy()[0] == 0


def test_control_flow_is_differentiable():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        outs, st = C.foreach(lambda d, s: (d * s, s * 2), nd.ones((3, 2)) * x, nd.ones(2))
        loss = outs.sum() + st.sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [7, 7])


def test_rand_zipfian():
    mx.random.seed(3)
    s, et, es = C.rand_zipfian(nd.array([1, 3]), 50, 5)
    assert s.dtype == np.int64 and s.shape == (50,) and s.asnumpy().max() < 5
    np.testing.assert_allclose(et.asnumpy(), np.log([3 / 2, 5 / 4]) / np.log(6) * 50, rtol=1e-6)
    np.testing.assert_allclose(es.asnumpy(), np.log((s.asnumpy() + 2) / (s.asnumpy() + 1)) / np.log(6) * 50,
                               rtol=1e-6)


def test_roi_align_numeric_gradient():
    rng = np.random.RandomState(5)
    x = rng.uniform(size=(1, 1, 5, 5))
    rois = nd.array([[0, 0.7, 0.4, 3.6, 4.1]], dtype='float64')
    a = nd.array(x, dtype='float64')
    a.attach_grad()
    head = rng.uniform(size=(1, 1, 2, 2))
    with mx.autograd.record():
        y = C.ROIAlign(a, rois, pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=2)
    y.backward(nd.array(head, dtype='float64'))
    num = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        for sgn in (1, -1):
            xp = x.copy()
            xp[idx] += sgn * 1e-6
            v = C.ROIAlign(nd.array(xp, dtype='float64'), rois, pooled_size=(2, 2), spatial_scale=1.0,
                           sample_ratio=2).asnumpy()
            num[idx] += sgn * (v * head).sum() / 2e-6
    np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_detection_symbols_infer_shapes():
    s = mx.sym.contrib.box_nms(mx.sym.var('d'))
    assert s.infer_shape(d=(2, 8, 6))[1] == [(2, 8, 6)]
    s = mx.sym.contrib.MultiBoxDetection(mx.sym.var('c'), mx.sym.var('l'), mx.sym.var('a'))
    assert s.infer_shape(c=(2, 4, 12), l=(2, 48), a=(1, 12, 4))[1] == [(2, 12, 6)]
    s = mx.sym.contrib.ROIAlign(mx.sym.var('d'), mx.sym.var('r'), pooled_size=(2, 3), spatial_scale=1.0)
    assert s.infer_shape(d=(1, 4, 8, 8), r=(5, 5))[1] == [(5, 4, 2, 3)]


def test_box_nms_drops_background_class_minus_one_by_default():
    # MXNet's own test (test_contrib_operator.py case9): id -1 is the default background class
    boxes = nd.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [0, 0.4, 0.1, 0.1, 0.2, 0.2],
                      [1, 0.3, 0.1, 0.1, 0.14, 0.14], [-1, 0.6, 0.5, 0.5, 0.7, 0.8]])
    out = C.box_nms(boxes, id_index=0, force_suppress=True)
    np.testing.assert_allclose(out.asnumpy(), [[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.3, 0.1, 0.1, 0.14, 0.14]] +
                               [[-1] * 6] * 2, rtol=1e-6)


def test_box_nms_validates_indices():
    with pytest.raises(MXNetError, match='box_nms'):
        C.box_nms(nd.ones((4, 6)), score_index=7)


def _symbol_result(case):
    """Forward the case's op through mx.sym (one-op graph, bound with the case's inputs): principle 7."""
    key, path, inputs, kwargs, grads, train = case
    kwargs = dict(kwargs)
    n_aux = kwargs.pop('_aux', 0)
    path = path[4:] if path.startswith('sym:') else path
    fn = cases_mod._resolve(mx.sym, path)
    n_arg = len(inputs) - n_aux
    names = ['in%d' % i for i in range(n_arg)]
    sym = fn(*[mx.sym.var(n) for n in names], name='op', **kwargs)
    arrs = [nd.array(a, dtype=a.dtype) for a in inputs]
    by_name = dict(zip(names, arrs))
    aux = [by_name[n] for n in sym.list_auxiliary_states() if n in by_name] + arrs[n_arg:]
    args = {n: by_name[n] for n in sym.list_arguments()}
    exe = sym.bind(mx.cpu(), args=args, aux_states=aux, grad_req='null')
    return [o.asnumpy() for o in exe.forward(is_train=train)]


_SYM_SKIP = {'reset'}  # no outputs
_SYM_CASES = [c for c in CASES if '_out' not in c[3] and c[0] not in _SYM_SKIP]


@pytest.mark.parametrize('case', _SYM_CASES, ids=[c[0] for c in _SYM_CASES])
def test_symbol_matches_eager(case):
    outs = _symbol_result(case)
    for k, o in enumerate(outs):
        w = GOLD['%s/out%d' % (case[0], k)]
        assert o.shape == w.shape and o.dtype == w.dtype, (k, o.shape, w.shape, o.dtype, w.dtype)
        rtol, atol = _tol(w.dtype)
        np.testing.assert_allclose(o.astype('float64'), w.astype('float64'), rtol=rtol, atol=atol)


def _numeric_grad_check(fn, arrays, head, idx, eps=1e-6):
    """d(sum(fn(*arrays) * head))/d(arrays[idx]) by central differences vs autograd (float64)."""
    xs = [nd.array(a, dtype='float64') for a in arrays]
    xs[idx].attach_grad()
    with mx.autograd.record():
        y = fn(*xs)
    y.backward(nd.array(head, dtype='float64'))
    num = np.zeros_like(arrays[idx])
    for pos in np.ndindex(arrays[idx].shape):
        for sgn in (1, -1):
            a = [x.copy() for x in arrays]
            a[idx][pos] += sgn * eps
            num[pos] += sgn * (fn(*[nd.array(v, dtype='float64') for v in a]).asnumpy() * head).sum() / (2 * eps)
    np.testing.assert_allclose(xs[idx].grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('idx', [0, 1, 2, 3, 4])
def test_modulated_deformable_conv_numeric_gradient(idx):
    # MXNet 1.9.1's backward for this op is GPU only: check against finite differences
    rng = np.random.RandomState(idx)
    arrays = [rng.uniform(-1, 1, (1, 2, 4, 4)), rng.uniform(-1.5, 1.5, (1, 8, 3, 3)), rng.uniform(0, 1, (1, 4, 3, 3)),
              rng.uniform(-1, 1, (2, 2, 2, 2)), rng.uniform(-1, 1, (2,))]
    # keep sample points away from integer coordinates, where bilinear interpolation has kinks
    arrays[1] = np.round(arrays[1]) + 0.3
    head = rng.uniform(-1, 1, (1, 2, 3, 3))
    _numeric_grad_check(lambda *a: C.ModulatedDeformableConvolution(*a, kernel=(2, 2), num_filter=2), arrays, head,
                        idx)


def test_sym_histogram_matches_numpy():
    x = np.random.RandomState(3).uniform(-3, 3, 50)
    data = mx.sym.var('data')
    counts = mx.sym.histogram(a=data, bins=7, range=(-2.5, 2.5)).bind(mx.cpu(), {'data': mx.nd.array(x)}).forward()
    np.testing.assert_array_equal(counts[0].asnumpy(), np.histogram(x.astype(np.float32), 7, range=(-2.5, 2.5))[0])
    edges = np.array([-1.0, 0.5, 2.0, 4.5])
    h = mx.sym.histogram(a=data, bins=mx.sym.var('bins'))
    got = h.bind(mx.cpu(), {'data': mx.nd.array(x), 'bins': mx.nd.array(edges)}).forward()
    np.testing.assert_array_equal(got[0].asnumpy(), np.histogram(x.astype(np.float32), edges)[0])
    with pytest.raises(MXNetValueError, match='null range'):
        mx.sym.histogram(a=data, bins=4)
    with pytest.raises(MXNetValueError, match='bins argument'):
        mx.sym.histogram(a=data, bins='x')


def test_sparse_embedding_parameters_are_mxnets():
    # SparseEmbeddingParam: input_dim, output_dim, dtype, deterministic (no sparse_grad)
    data, weight = nd.array([[0, 3], [2, 2]]), nd.array(np.arange(12).reshape(4, 3))
    for det in (False, True):
        out = nd.contrib.SparseEmbedding(data, weight, input_dim=4, output_dim=3, deterministic=det)
        np.testing.assert_array_equal(out.asnumpy(), np.arange(12).reshape(4, 3)[[[0, 3], [2, 2]]])
    with pytest.raises(MXNetError, match='sparse_grad'):
        nd.contrib.SparseEmbedding(data, weight, input_dim=4, output_dim=3, sparse_grad=True)


def test_rroi_align_is_forward_only_and_checks_its_rois():
    # MXNet's RROIAlign records a gradient node whose backward raises; the eager and the bound symbol both do here
    data = nd.array(np.arange(2 * 3 * 8 * 8, dtype='float32').reshape(2, 3, 8, 8))
    rois = nd.array([[0, 4, 4, 4, 2, 30], [1, 2, 5, 6, 3, -45]])
    data.attach_grad()
    with mx.autograd.record():
        out = nd.contrib.RROIAlign(data, rois, pooled_size=(2, 2), spatial_scale=1.0)
    assert out.shape == (2, 3, 2, 2)
    with pytest.raises(MXNetError, match='RROIAlign: Backward is not supported'):
        out.backward()
    sym = mx.sym.contrib.RROIAlign(mx.sym.var('data'), mx.sym.var('rois'), pooled_size=(2, 2), spatial_scale=1.0)
    ex = sym.bind(mx.cpu(), {'data': data.copy(), 'rois': rois}, args_grad={'data': nd.zeros(data.shape)},
                  grad_req={'data': 'write', 'rois': 'null'})
    np.testing.assert_array_equal(ex.forward(is_train=True)[0].asnumpy(), out.asnumpy())
    with pytest.raises(MXNetError, match='RROIAlign: Backward is not supported'):
        ex.backward([nd.ones(out.shape)])
    with pytest.raises(MXNetError, match=r'rois \(R, 6\)'):
        nd.contrib.RROIAlign(data, nd.ones((2, 5)), pooled_size=(2, 2), spatial_scale=1.0)
    with pytest.raises(MXNetError, match='batch index 2 is outside the 2 images'):
        nd.contrib.RROIAlign(data, nd.array([[2, 4, 4, 4, 2, 0]]), pooled_size=(2, 2), spatial_scale=1.0)
