"""Edge cases of the NN operators behind upstream test_operator.py failures (issue 3), against goldens recorded
from MXNet 1.9.1 (tests/fixtures/nn/gen_nn_edge.py): InstanceNorm with one spatial element, 1-D 'same' pooling,
Dropout with p=1, CTCLoss with NaN past the sequence lengths, PReLU with a full gamma, BatchNorm with float64,
other axes and accumulated gradients. Plus the errors and the symbolic paths."""
import importlib.util
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward

_spec = importlib.util.spec_from_file_location(
    'nn_replay', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'nn', 'nn_replay.py'))
nn_replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nn_replay)
CASES = nn_replay.EDGE_CASES


@pytest.mark.parametrize('c', CASES, ids=[c['name'] for c in CASES])
def test_against_mxnet(c):
    nn_replay.replay(c, nn_replay.EDGE_GOLD)


# ---- InstanceNorm -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('shape', [(1, 1, 1), (2, 1, 2), (2, 3, 1, 1)])
def test_instance_norm_symbolic_numeric_gradient(shape):
    rs = np.random.RandomState(0)
    sym = mx.sym.InstanceNorm(mx.sym.var('x'), mx.sym.var('g'), mx.sym.var('b'), eps=1e-3)
    assert sym.infer_shape(x=shape)[0][1:] == [(shape[1],), (shape[1],)]
    loc = {'x': rs.randn(*shape), 'g': rs.randn(shape[1]), 'b': rs.randn(shape[1])}
    check_numeric_gradient(sym, loc, numeric_eps=1e-2, rtol=1e-2, atol=1e-2)


def test_instance_norm_single_element_is_beta():
    x = mx.nd.array([[[5.0]], [[-3.0]]])
    out = mx.nd.InstanceNorm(x, mx.nd.array([2.0]), mx.nd.array([0.25]))
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 1, 1), 0.25, np.float32))


def test_instance_norm_of_any_rank(ctx):
    # MXNet's test_instance_normalization binds a 7-d input; torch's kernels (cuDNN batch norm under instance_norm)
    # take at most 5 dims. Values and gradients from MXNet 1.9.1 (x = sin(arange(16)), head gradient cos(arange(16)))
    shape = (2, 2, 2, 1, 2, 1, 1)
    x = mx.nd.array(np.sin(np.arange(16)).reshape(shape), ctx=ctx)
    g, b = mx.nd.array([1.5, -0.5], ctx=ctx), mx.nd.array([0.1, 0.2], ctx=ctx)
    want = [-1.6413, 1.4567, 1.7064, -1.1217, 0.5383, 0.7002, 0.1558, -0.5943, 2.0671, 0.9593, -0.8757, -1.7508,
            1.0075, 0.1656, -0.3363, -0.0368]
    np.testing.assert_allclose(mx.nd.InstanceNorm(x, g, b, eps=1e-3).asnumpy().ravel(), want, atol=1e-4)
    exe = mx.sym.InstanceNorm(mx.sym.var('x'), name='in', eps=1e-3).simple_bind(ctx, x=shape)
    exe.forward(is_train=True, x=x, in_gamma=g, in_beta=b)
    np.testing.assert_allclose(exe.outputs[0].asnumpy().ravel(), want, atol=1e-4)
    exe.backward(mx.nd.array(np.cos(np.arange(16)).reshape(shape), ctx=ctx))
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy().ravel(), [
        3.2253, 2.125, -1.3485, -4.0018, 0.5976, -0.2467, -0.4745, 0.1236, 0.7367, -0.7938, -0.7567, 0.8138, 0.0434,
        -0.5731, -0.2292, 0.7589], atol=1e-3)
    np.testing.assert_allclose(exe.grad_dict['in_gamma'].asnumpy(), [-0.484, -0.0728], atol=1e-3)
    np.testing.assert_allclose(exe.grad_dict['in_beta'].asnumpy(), [-1.7571, 2.4724], atol=1e-3)


@pytest.mark.parametrize('train', [False, True])
def test_batch_norm_of_six_dims(ctx, train):
    # MXNet 1.9.1 (x = sin(arange(24)) shaped (2, 3, 2, 1, 2, 1), fix_gamma=False): moving statistics in inference,
    # the batch's in training
    x = mx.nd.array(np.sin(np.arange(24)).reshape(2, 3, 2, 1, 2, 1), ctx=ctx)
    params = [mx.nd.array(v, ctx=ctx) for v in ([1, 2, 3], [0, .5, 1], [.1, .2, .3], [1, 2, 4])]
    with mx.autograd.record(train_mode=train):
        out = mx.nd.BatchNorm(x, *params, fix_gamma=False)
    want = {False: [-0.1, 0.7411, 0.8089, 0.0411, -0.8528, -1.1386, -0.1778, 1.1461, 2.0339, 1.1682, -0.2659, -0.9497,
                    -0.6363, 0.32, 0.8902, 0.55, -0.1898, -1.1421, -0.8446, 0.4291, 1.9193, 1.8049, 0.5368, -0.7191],
            True: [-0.86, 0.8346, 0.9712, -0.5758, -0.8268, -1.5754, 0.9413, 4.4095, 4.5302, 2.2543, -1.5156, -3.3134,
                   -1.9406, -0.0139, 1.135, 0.4496, 0.9099, -1.5846, -0.8053, 2.5313, 4.2289, 3.9281, 0.5945, -2.7071]}
    assert out.shape == x.shape
    np.testing.assert_allclose(out.asnumpy().ravel(), want[train], atol=1e-3)


# ---- Pooling 'same' -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize('kw, msg', [
    ({'pad': (0,)}, 'pad parameter'),
    ({}, 'pad parameter'),                   # MXNet reads pad[1] and pad[2] of the default 1-D pad
    ({'pad': (1, 0, 0)}, 'pad parameter'),
    ({'pad': (2,)}, 'pad parameter'),
])
def test_same_pooling_needs_zero_pad_of_three(kw, msg):
    with pytest.raises(MXNetError, match='Pooling.*' + msg):
        mx.nd.Pooling(mx.nd.ones((1, 1, 10)), kernel=(2,), stride=(2,), pooling_convention='same', **kw)


def test_same_pooling_is_1d_only():
    with pytest.raises(MXNetError, match="Pooling.*'same' supports 3D data"):
        mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(2, 2), stride=(2, 2), pad=(0, 0, 0),
                      pooling_convention='same')


def test_same_pooling_shape_is_ceil_of_size_over_stride():
    sym = mx.sym.Pooling(mx.sym.var('d'), kernel=(3,), stride=(2,), pad=(0, 0, 0), pooling_convention='same',
                         pool_type='avg')
    assert sym.infer_shape(d=(2, 3, 11)) == ([(2, 3, 11)], [(2, 3, 6)], [])
    x = np.arange(1, 11, dtype=np.float32).reshape(1, 1, 10)
    out = mx.nd.Pooling(mx.nd.array(x), kernel=(2,), stride=(2,), pad=(0, 0, 0), pooling_convention='same')
    np.testing.assert_array_equal(out.asnumpy(), x[..., 1::2])


# ---- max pooling of plain data without a gradient (kernels.cpu._strided_max_pool2d) ----------------------------------
@pytest.mark.parametrize('shape', [(2, 3, 7, 9), (4, 6, 24, 24), (1, 1, 5, 5)])
@pytest.mark.parametrize('kernel,stride', [((1, 1), (1, 1)), ((2, 2), (2, 2)), ((3, 3), (2, 2)), ((2, 3), (1, 2)),
                                           ((3, 2), (3, 1))])
@pytest.mark.parametrize('convention', ['valid', 'full'])
def test_max_pooling_without_gradient_equals_torch_kernel(monkeypatch, shape, kernel, stride, convention):
    # outside recording, an unpadded 2-D max pooling of plain data is the maximum of strided views: the same values
    # as torch's kernel, ties and NaN included; recorded calls (and windows past the data) keep torch's kernel
    from mxcompat.kernels import cpu
    rs = np.random.RandomState(sum(shape) + kernel[0] * 7 + stride[1])
    x = rs.randn(*shape).astype(np.float32)
    x[x < 0.3] = 0  # ties, as after relu
    x.flat[rs.randint(x.size)] = np.nan
    data = mx.nd.array(x)
    args = dict(kernel=kernel, stride=stride, pool_type='max', pooling_convention=convention)
    calls, fast = [], cpu._strided_max_pool2d
    monkeypatch.setattr(cpu, '_strided_max_pool2d', lambda *a: calls.append(1) or fast(*a))
    ours = mx.nd.Pooling(data, **args).asnumpy()
    with mx.kernels.policy(strided_max_pool=False):
        theirs = mx.nd.Pooling(data, **args).asnumpy()
    np.testing.assert_array_equal(ours, theirs)
    fits = all((o - 1) * s + k <= n for o, s, k, n in zip(ours.shape[2:], stride, kernel, shape[2:]))
    assert bool(calls) == fits
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(data, **args)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), theirs)
    assert len(calls) == int(fits)


# ---- Dropout ------------------------------------------------------------------------------------------------------
def test_dropout_p1_symbolic_is_nan():
    exe = mx.sym.Dropout(mx.sym.var('data'), p=1.0, cudnn_off=True).simple_bind(mx.cpu(), data=(10, 10))
    exe.arg_arrays[0][:] = 1
    exe.forward(is_train=True)
    assert np.isnan(exe.outputs[0].asnumpy()).all()
    exe.forward(is_train=False)
    assert (exe.outputs[0].asnumpy() == 1).all()


def test_dropout_mask_scaling_and_gradient():
    exe = mx.sym.Dropout(mx.sym.var('data'), p=0.75).simple_bind(mx.cpu(), data=(100, 100))
    exe.arg_arrays[0][:] = 1
    exe.forward(is_train=True)
    out = exe.outputs[0].asnumpy()
    assert set(np.unique(out)) == {0.0, 4.0}
    exe.backward([mx.nd.ones((100, 100))])
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), out)


# ---- CTCLoss ------------------------------------------------------------------------------------------------------
def test_ctc_steps_past_length_get_zero_gradient():
    rs = np.random.RandomState(1)
    d = rs.randn(6, 1, 4).astype(np.float32)
    d[4:] = np.nan
    data = mx.nd.array(d)
    data.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(data, mx.nd.array([[1, 2]]), mx.nd.array([4]), use_data_lengths=True)
    loss.backward()
    assert np.isfinite(loss.asnumpy()).all()
    grad = data.grad.asnumpy()
    assert np.isfinite(grad).all() and (grad[4:] == 0).all() and (grad[:4] != 0).any()


# ---- PReLU through the symbol path ----------------------------------------------------------------------------------
def _prelu_ref(x, gamma):
    g = gamma.reshape(gamma.shape + (1,) * (x.ndim - gamma.ndim)) if gamma.ndim > 1 else \
        gamma.reshape((1, -1) + (1,) * (x.ndim - 2))
    return np.where(x > 0, x, x * g), np.where(x > 0, 1.0, g)


@pytest.mark.parametrize('shape, gshape', [((3, 4), (4,)), ((3, 4, 2, 2), (4,))])
def test_prelu_symbolic(shape, gshape):
    rs = np.random.RandomState(2)
    x = rs.uniform(-1, 1, shape)
    x[abs(x) < 1e-2] = 0.5  # away from the kink, for finite differences
    gamma = rs.uniform(0.1, 0.4, gshape)
    sym = mx.sym.LeakyReLU(mx.sym.var('x'), mx.sym.var('gamma'), act_type='prelu')
    out, dx = _prelu_ref(x, gamma)
    dgamma = np.where(x > 0, 0.0, x).sum(axis=tuple(i for i in range(x.ndim) if i != 1))
    check_symbolic_forward(sym, [x, gamma], [out], rtol=1e-5, atol=1e-6, dtype=np.float64)
    check_symbolic_backward(sym, [x, gamma], [np.ones(shape)], [dx, dgamma.reshape(gshape)], rtol=1e-5, atol=1e-6,
                            dtype=np.float64)
    check_numeric_gradient(sym, [x, gamma], numeric_eps=1e-4, rtol=1e-2, atol=1e-3, dtype=np.float64)


@pytest.mark.parametrize('gshape', [(3, 4), (1,)])
def test_prelu_symbolic_other_gamma_shapes(gshape):
    rs = np.random.RandomState(3)
    x, gamma = rs.uniform(-1, 1, (3, 4, 2)), rs.uniform(0.1, 0.4, gshape)
    x[abs(x) < 1e-2] = 0.5
    sym = mx.sym.LeakyReLU(mx.sym.var('x'), mx.sym.var('gamma'), act_type='prelu')
    assert sym.infer_shape(x=(3, 4, 2), gamma=gshape)[0][1] == gshape
    check_numeric_gradient(sym, [x, gamma], numeric_eps=1e-4, rtol=1e-2, atol=1e-3, dtype=np.float64)


def test_backward_ignores_extra_out_grads():
    sym = mx.sym.LeakyReLU(mx.sym.var('x'), mx.sym.var('gamma'), act_type='prelu')
    x, gamma = np.array([[-1.0, 2.0]]), np.array([0.5, 0.25])
    check_symbolic_backward(sym, [x, gamma], [np.ones((1, 2)), np.ones(2)], [[[0.5, 1.0]], [-1.0, 0.0]])


def test_softmax_length_gradient_is_zero():
    sym = mx.sym.softmax(mx.sym.var('data'), mx.sym.var('length'), use_length=True, axis=1)
    args = {'data': mx.nd.array(np.random.RandomState(4).randn(2, 3, 2)),
            'length': mx.nd.array([[1, 3], [2, 2]], dtype='int32')}
    grads = {'data': mx.nd.ones((2, 3, 2)) * 5, 'length': mx.nd.ones((2, 2), dtype='int32') * 7}
    exe = sym.bind(mx.cpu(), args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3, 2))])
    np.testing.assert_allclose(grads['data'].asnumpy(), 0, atol=1e-6)
    assert grads['length'].dtype == np.int32 and (grads['length'].asnumpy() == 0).all()


def test_softmax_float_length_binds_and_fails_when_run():
    # MXNet binds a float32 length (its type inference does not check it) and refuses it in the forward pass
    # (upstream test_op_all_names_monitor relies on the monitor seeing the inputs first)
    data = mx.sym.Variable('data', shape=(10, 3, 10, 10))
    length = mx.sym.Variable('length', shape=(10, 10, 10))
    sym = mx.sym.softmax(data, length, axis=1, use_length=True, name='softmax')
    assert sym.infer_shape()[1] == [(10, 3, 10, 10)]
    exe = sym.simple_bind(mx.cpu(), grad_req='null')
    assert [a.dtype for a in exe.arg_arrays] == [np.float32, np.float32]
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    with pytest.raises(MXNetError) as err:
        exe.forward()
    # the monitored executor runs node by node: the message is the operator's alone (no fx node dump appended)
    assert str(err.value) == 'Operator softmax: This operation only support integer types, not float32'
    # MXNet 1.9.1 also reports 'softmax_output' (never written) after the failure; the inputs come first on both
    assert seen == ['data', 'softmax_data', 'length', 'softmax_length']


# ---- channels-last average pooling with padding (kernels.avg_pool; torch's CUDA NHWC backward got it wrong) -------
@pytest.mark.parametrize('layout,shape,kernel,pad,stride', [
    ('NWC', (3, 10, 2), (4,), (2,), (2,)),
    ('NHWC', (2, 7, 9, 3), (3, 3), (1, 1), (2, 1)),
    ('NDHWC', (2, 5, 6, 4, 3), (2, 3, 3), (1, 1, 1), (1, 2, 2))])
@pytest.mark.parametrize('pool_type,include_pad', [('avg', True), ('avg', False), ('sum', True)])
def test_channels_last_average_pooling_gradient_equals_channels_first(ctx, layout, shape, kernel, pad, stride,
                                                                      pool_type, include_pad):
    x = np.random.RandomState(len(shape)).randn(*shape)
    head = None
    grads = []
    for last in (True, False):
        data = mx.nd.array(x if last else np.moveaxis(x, -1, 1), ctx=ctx, dtype='float64')
        data.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Pooling(data, kernel=kernel, pad=pad, stride=stride, pool_type=pool_type,
                              count_include_pad=include_pad, layout=layout if last else None)
        if head is None:
            head = np.random.RandomState(1).randn(*y.shape)
        y.backward(mx.nd.array(head if last else np.moveaxis(head, -1, 1), ctx=ctx, dtype='float64'))
        grads.append(data.grad.asnumpy() if last else np.moveaxis(data.grad.asnumpy(), 1, -1))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('pool_type', ['avg', 'sum', 'lp'])
@pytest.mark.parametrize('ndim', [1, 2, 3])
def test_float16_pooling_is_float32_pooling_rounded(ctx, pool_type, ndim):
    # MXNet pools float16 data in float32 (its AccType) on every device; torch's CPU avg_pool3d has no float16 kernel
    x = np.random.RandomState(ndim).uniform(0.1, 1, (2, 3) + (7,) * ndim).astype(np.float16)
    args = dict(kernel=(3,) * ndim, stride=(2,) * ndim, pad=(1,) * ndim, pool_type=pool_type, p_value=2)
    grads = []
    for dtype in ('float16', 'float32'):
        data = mx.nd.array(x, ctx=ctx, dtype=dtype)
        data.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Pooling(data, **args)
        y.backward(mx.nd.ones(y.shape, ctx=ctx, dtype=dtype))
        grads.append((y.asnumpy(), data.grad.asnumpy()))
    (y16, g16), (y32, g32) = grads
    assert y16.dtype == g16.dtype == np.float16
    np.testing.assert_array_equal(y16, y32.astype(np.float16))
    np.testing.assert_allclose(g16, g32, rtol=2e-3, atol=2e-3)


# ---- global max pooling: ties ---------------------------------------------------------------------------------------
# MXNet 1.9.1 (CPU, float32) sends each channel's gradient to its first maximum in row-major order, where torch.amax
# would split it among the tied elements (D2L's TextCNN pools windows of all-zero GloVe rows: ties are common)
GLOBAL_MAX_TIES = [  # data, kernel, MXNet's output and gradient for the head 1, 2, 3, ...
    ([[[1, 3, 3, 2], [5, 5, 5, 5]], [[0, 0, -1, 0], [2, 7, 1, 7]]], (1,), [3, 5, 0, 7],
     [0, 1, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0]),
    ([[[[1, 3, 2], [3, 2, 3]], [[4, 4, 4], [4, 4, 4]]]], (1, 1), [3, 4], [0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]),
    ([[[[[1, 2], [2, 0]], [[2, 1], [2, 2]]]]], (1, 1, 1), [2], [0, 1, 0, 0, 0, 0, 0, 0])]


@pytest.mark.parametrize('data,kernel,out,grad', GLOBAL_MAX_TIES, ids=['1d', '2d', '3d'])
@pytest.mark.parametrize('channels_last', [False, True])
def test_global_max_pooling_gradient_goes_to_first_maximum(ctx, data, kernel, out, grad, channels_last):
    x = np.array(data, dtype=np.float32)
    layout = {1: 'NWC', 2: 'NHWC', 3: 'NDHWC'}[len(kernel)] if channels_last else None
    data = mx.nd.array(np.moveaxis(x, 1, -1) if channels_last else x, ctx=ctx)
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(data, kernel=kernel, global_pool=True, pool_type='max', layout=layout)
    head = np.arange(1, y.size + 1, dtype=np.float32).reshape(x.shape[:2] + (1,) * len(kernel))
    y.backward(mx.nd.array(np.moveaxis(head, 1, -1) if channels_last else head, ctx=ctx))
    g = data.grad.asnumpy()
    np.testing.assert_array_equal(y.asnumpy().ravel(), out)
    np.testing.assert_array_equal((np.moveaxis(g, -1, 1) if channels_last else g).ravel(), grad)


def test_gluon_global_max_pool_hybridized_gradient_goes_to_first_maximum():
    x = np.array([[[1, 3, 3, 2], [5, 5, 5, 5]], [[0, 0, -1, 0], [2, 7, 1, 7]]], dtype=np.float32)
    for hybrid in (False, True):
        pool = mx.gluon.nn.GlobalMaxPool1D()
        if hybrid:
            pool.hybridize()
        data = mx.nd.array(x)
        data.attach_grad()
        with mx.autograd.record():
            y = pool(data)
        y.backward(mx.nd.arange(1, 5).reshape((2, 2, 1)))
        np.testing.assert_array_equal(data.grad.asnumpy().ravel(), GLOBAL_MAX_TIES[0][3])
