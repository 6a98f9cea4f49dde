"""Neural-network operators against goldens recorded from MXNet 1.9.1 (tests/fixtures/nn/gen_nn.py), plus shape
inference, errors and the behaviours that cannot be compared value by value (random ops, layouts MXNet's CPU build
cannot run)."""
import importlib.util
import os

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError, MXNetValueError
from mxcompat import kernels
from mxcompat.kernels import cpu as kernels_cpu
from mxcompat.operator import registry
from tests._fixtures import FIXTURES, load_generator

_spec = importlib.util.spec_from_file_location(
    'nn_replay', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'nn', 'nn_replay.py'))
nn_replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nn_replay)
OUTPUT_OPS = ('SoftmaxOutput', 'Softmax', 'LinearRegressionOutput', 'LogisticRegressionOutput',
              'MAERegressionOutput', 'SVMOutput', 'MakeLoss', 'CTCLoss')  # tested in test_nn_output.py
CASES = nn_replay.cases(OUTPUT_OPS, include=False)


@pytest.mark.parametrize('c', CASES, ids=[c['name'] for c in CASES])
def test_against_mxnet(c):
    nn_replay.replay(c)


# ---- registry metadata ------------------------------------------------------------------------------------------
@pytest.mark.parametrize('op, attrs, names', [
    ('FullyConnected', {'num_hidden': 3}, ['data', 'weight', 'bias']),
    ('FullyConnected', {'num_hidden': 3, 'no_bias': True}, ['data', 'weight']),
    ('Convolution', {'kernel': (3, 3), 'num_filter': 2, 'no_bias': 'True'}, ['data', 'weight']),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 2}, ['data', 'weight']),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 2, 'no_bias': False}, ['data', 'weight', 'bias']),
    ('BatchNorm', {}, ['data', 'gamma', 'beta', 'moving_mean', 'moving_var']),
    ('LeakyReLU', {}, ['data']),
    ('LeakyReLU', {'act_type': 'prelu'}, ['data', 'gamma']),
    ('softmax', {}, ['data']),
    ('softmax', {'use_length': True}, ['data', 'length']),
    ('SoftmaxOutput', {}, ['data', 'label']),
    ('CTCLoss', {'use_label_lengths': True}, ['data', 'label', 'label_lengths']),
])
def test_input_names(op, attrs, names):
    o = registry.get(op)
    assert o.input_names(o.parse_attrs(attrs)) == names


def test_aliases_and_aux():
    assert registry.get('Softmax') is registry.get('SoftmaxOutput')
    assert registry.get('_npx_convolution') is registry.get('Convolution')
    assert registry.get('ctc_loss') is registry.get('CTCLoss')
    assert registry.get('BatchNorm').aux == ('moving_mean', 'moving_var')
    assert mx.nd.contrib.CTCLoss is not None


def test_defaults_match_mxnet():
    bn = registry.get('BatchNorm').parse_attrs({})
    assert bn['fix_gamma'] is True and bn['eps'] == 1e-3 and bn['momentum'] == np.float32(0.9) and bn['axis'] == 1
    assert registry.get('Deconvolution').parse_attrs({'kernel': (2, 2), 'num_filter': 1})['no_bias'] is True
    assert registry.get('Convolution').parse_attrs({'kernel': (2, 2), 'num_filter': 1})['workspace'] == 1024
    assert registry.get('LeakyReLU').parse_attrs({})['upper_bound'] == pytest.approx(0.334)


# ---- shape inference ----------------------------------------------------------------------------------------------
F32 = torch.float32


def _infer(op, shapes, **attrs):
    o = registry.get(op)
    a = o.parse_attrs(attrs)
    return o.infer(shapes, [F32] * len(shapes), a)


def test_infer_shapes():
    assert _infer('FullyConnected', [(2, 3, 4), (5, 12), (5,)], num_hidden=5)[0] == [(2, 5)]
    assert _infer('FullyConnected', [(2, 3, 4), (5, 4), None], num_hidden=5, flatten=False, no_bias=True)[0] \
        == [(2, 3, 5)]
    assert _infer('Convolution', [(2, 3, 9, 9), (8, 3, 3, 3), (8,)], kernel=(3, 3), num_filter=8,
                  stride=(2, 2), pad=(1, 1))[0] == [(2, 8, 5, 5)]
    assert _infer('Deconvolution', [(2, 3, 4, 4), (3, 5, 3, 3), None], kernel=(3, 3), num_filter=5,
                  stride=(2, 2), adj=(1, 1))[0] == [(2, 5, 10, 10)]
    assert _infer('Pooling', [(1, 2, 5, 5)], kernel=(2, 2), stride=(2, 2), pooling_convention='full')[0] \
        == [(1, 2, 3, 3)]
    assert _infer('Pooling', [(1, 2, 5, 5)], kernel=(2, 2), stride=(2, 2))[0] == [(1, 2, 2, 2)]
    assert _infer('BatchNorm', [(4, 3, 2, 2), (3,), (3,), (3,), (3,)], output_mean_var=True)[0] \
        == [(4, 3, 2, 2), (3,), (3,)]
    assert _infer('GroupNorm', [(2, 4, 3), (2,), (2,)], num_groups=2, output_mean_var=True)[0] \
        == [(2, 4, 3), (2, 2), (2, 2)]
    assert _infer('Embedding', [(2, 3), (10, 4)], input_dim=10, output_dim=4)[0] == [(2, 3, 4)]
    assert _infer('ROIPooling', [(1, 3, 8, 8), (5, 5)], pooled_size=(2, 3), spatial_scale=0.5)[0] == [(5, 3, 2, 3)]
    assert _infer('GridGenerator', [(2, 6)], transform_type='affine', target_shape=(3, 4))[0] == [(2, 2, 3, 4)]


@pytest.mark.parametrize('op, shapes, attrs', [
    ('FullyConnected', [(2, 12), (5, 11), (5,)], {'num_hidden': 5}),
    ('Convolution', [(2, 3, 9, 9), (8, 2, 3, 3), (8,)], {'kernel': (3, 3), 'num_filter': 8}),
    ('Convolution', [(2, 3, 9), (8, 3, 3, 3), (8,)], {'kernel': (3, 3), 'num_filter': 8}),
    ('Deconvolution', [(2, 3, 4, 4), (4, 5, 3, 3), None], {'kernel': (3, 3), 'num_filter': 5}),
    ('Pooling', [(1, 2, 3, 3)], {'kernel': (5, 5)}),
    ('Pooling', [(2, 3)], {'kernel': (2,)}),
    ('BatchNorm', [(4, 3, 2), (2,), (3,), (3,), (3,)], {}),
    ('GroupNorm', [(2, 5, 3), (2,), (2,)], {'num_groups': 2}),
    ('LayerNorm', [(2, 5), (4,), (4,)], {}),
    ('Embedding', [(2, 3), (10, 3)], {'input_dim': 10, 'output_dim': 4}),
    ('softmax', [(2, 3)], {'axis': 2}),
])
def test_bad_shapes_name_the_op(op, shapes, attrs):
    with pytest.raises(MXNetError, match=op):
        _infer(op, shapes, **attrs)


def test_eager_errors_name_the_op():
    with pytest.raises(MXNetValueError, match='FullyConnected'):
        mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 2)), mx.nd.ones(4), num_hidden=4)
    with pytest.raises(MXNetValueError, match='Activation'):
        mx.nd.Activation(mx.nd.ones(3), act_type='swish')
    with pytest.raises(MXNetValueError, match='Convolution'):
        mx.nd.Convolution(mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((3, 1, 3, 3)), mx.nd.ones(3), num_filter=3,
                          kernel=(3, 3))
    with pytest.raises(MXNetError, match='FullyConnected.*num_hidden'):
        mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.ones(4))


def test_fully_connected_takes_a_column_bias():
    # MXNet's shape inference takes a (num_hidden, 1) bias as well as (num_hidden,), and its kernel without oneDNN
    # adds it per hidden unit (upstream test_sparse_fc; values from MXNet 1.9.1 with MXNET_MKLDNN_ENABLED=0)
    d, w, b = mx.nd.array(np.arange(10).reshape(2, 5)), mx.nd.ones((3, 5)), mx.nd.array([[1], [2], [3]])
    for flatten in (True, False):
        np.testing.assert_array_equal(mx.nd.FullyConnected(d, w, b, num_hidden=3, flatten=flatten).asnumpy(),
                                      [[11, 12, 13], [36, 37, 38]])
    fc = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3, name='fc')
    assert fc.infer_shape(x=(2, 5), fc_bias=(3, 1)) == ([(2, 5), (3, 5), (3, 1)], [(2, 3)], [])
    assert _infer('FullyConnected', [(2, 5), (3, 5), (3, 1)], num_hidden=3)[0] == [(2, 3)]
    b.attach_grad()  # MXNet's backward fails on this shape (a tuple check); here the gradient keeps the bias's shape
    with mx.autograd.record():
        y = mx.nd.FullyConnected(d, w, b, num_hidden=3)
    y.backward()
    np.testing.assert_array_equal(b.grad.asnumpy(), [[2], [2], [2]])
    for shape in ((1, 3), (3, 1, 1)):
        with pytest.raises(MXNetValueError, match=r'FullyConnected: bias shape \(%s\)' % ', '.join(map(str, shape))):
            mx.nd.FullyConnected(d, w, mx.nd.ones(shape), num_hidden=3)
        with pytest.raises(MXNetError, match='fc_bias'):
            fc.infer_shape(x=(2, 5), fc_bias=shape)


def test_known_gaps_raise():
    with pytest.raises(MXNetNotImplementedError, match='log_softmax.*use_length'):
        mx.nd.log_softmax(mx.nd.ones((2, 3)), use_length=True)
    with pytest.raises(MXNetNotImplementedError, match='Deconvolution.*layout'):
        mx.nd.Deconvolution(mx.nd.ones((1, 4, 4, 2)), mx.nd.ones((2, 3, 3, 3)), kernel=(3, 3), num_filter=3,
                            layout='NHWC')


# ---- behaviours checked without goldens ---------------------------------------------------------------------------
def test_convolution_channels_last_equals_channels_first():
    # MXNet's CPU build infers NHWC shapes but cannot run them; mxcompat computes them by transposing.
    rs = np.random.RandomState(1)
    x, w, b = rs.randn(2, 5, 6, 3), rs.randn(4, 3, 2, 3), rs.randn(4)
    nhwc = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), kernel=(3, 2), num_filter=4,
                             layout='NHWC')
    nchw = mx.nd.Convolution(mx.nd.array(x.transpose(0, 3, 1, 2)), mx.nd.array(w.transpose(0, 3, 1, 2)),
                             mx.nd.array(b), kernel=(3, 2), num_filter=4)
    np.testing.assert_allclose(nhwc.asnumpy(), nchw.asnumpy().transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('fast', [True, False], ids=['channels_last_weight', 'contiguous'])
def test_convolution_cpu_channels_last_fast_path(monkeypatch, tmp_path, fast):
    # With enough channels in and out a CPU 2-D convolution computes on a channels-last weight
    # (kernels.config.channels_last_min_channels; 0 turns it off). Same values and gradients either way; what users
    # see stays C-ordered.
    monkeypatch.setattr(kernels.config, 'channels_last_min_channels', 3 if fast else 0)
    rs = np.random.RandomState(3)
    x, w, b = rs.randn(2, 3, 7, 6), rs.randn(8, 3, 3, 3), rs.randn(8)
    w2 = rs.randn(8, 8, 1, 1)
    data, weight, bias, weight2 = (mx.nd.array(a) for a in (x, w, b, w2))
    for a in (data, weight, bias, weight2):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(data, weight, bias, kernel=(3, 3), pad=(1, 1), num_filter=8)
        z = mx.nd.Convolution(mx.nd.relu(y), weight2, kernel=(1, 1), num_filter=8, no_bias=True)
        loss = (z * z).sum()
    loss.backward()
    assert (y._t.is_contiguous(memory_format=torch.channels_last) and not y._t.is_contiguous()) == fast
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), padding=1)
    np.testing.assert_allclose(y.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    for a in (y, z, data.grad, weight.grad, bias.grad, weight2.grad):
        assert a.asnumpy().flags['C_CONTIGUOUS']
    tx, tw, tb, tw2 = (torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in (x, w, b, w2))
    tz = torch.nn.functional.conv2d(torch.relu(torch.nn.functional.conv2d(tx, tw, tb, padding=1)), tw2)
    (tz * tz).sum().backward()
    np.testing.assert_allclose(z.asnumpy(), tz.detach().numpy(), rtol=1e-4, atol=1e-4)
    for ours, theirs in ((data, tx), (weight, tw), (bias, tb), (weight2, tw2)):
        np.testing.assert_allclose(ours.grad.asnumpy(), theirs.grad.numpy(), rtol=1e-4, atol=1e-3)
    # ops that reshape or view keep working and give C-ordered values; saved bytes are those of the values
    np.testing.assert_array_equal(y.reshape((2, -1)).asnumpy(), y.asnumpy().reshape(2, -1))
    np.testing.assert_array_equal(mx.nd.flatten(y).asnumpy(), y.asnumpy().reshape(2, -1))
    np.testing.assert_array_equal(y[1].asnumpy(), y.asnumpy()[1])
    np.testing.assert_array_equal(y.expand_dims(0).squeeze(axis=0, inplace=True).asnumpy(), y.asnumpy())
    mx.nd.save(str(tmp_path / 'a'), {'y': y})
    mx.nd.save(str(tmp_path / 'b'), {'y': mx.nd.array(y.asnumpy())})
    assert (tmp_path / 'a').read_bytes() == (tmp_path / 'b').read_bytes()


@pytest.mark.parametrize('in_c,out_c,dtype,cl', [(3, 64, 'float32', True), (4, 64, 'float32', True),
                                                 (64, 64, 'float32', True), (64, 128, 'float32', True),
                                                 (32, 64, 'float32', True), (31, 64, 'float32', False),
                                                 (5, 64, 'float32', False), (3, 32, 'float32', True),
                                                 (4, 32, 'float32', True), (3, 16, 'float32', False),
                                                 (64, 32, 'float32', False), (128, 32, 'float32', False),
                                                 (3, 64, 'float64', False)])
def test_convolution_channels_last_choice(in_c, out_c, dtype, cl):
    # which CPU convolutions compute channels-last (kernels.cpu.channels_last_pays): 64+ outputs from 32+ inputs, or
    # an image stem of at most 4 channels into 32+; the values are torch's conv2d either way
    rs = np.random.RandomState(5)
    x, w = rs.randn(2, in_c, 6, 5).astype(dtype), rs.randn(out_c, in_c, 3, 3).astype(dtype)
    y = mx.nd.Convolution(mx.nd.array(x, dtype=dtype), mx.nd.array(w, dtype=dtype), kernel=(3, 3), pad=(1, 1),
                          num_filter=out_c, no_bias=True)
    assert (y._t.is_contiguous(memory_format=torch.channels_last) and not y._t.is_contiguous()) == cl
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    np.testing.assert_allclose(y.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('in_c,out_c,training_cl', [(16, 32, True), (3, 16, True), (15, 32, False),
                                                    (16, 31, False), (3, 15, False), (32, 64, True)])
def test_convolution_channels_last_choice_training(in_c, out_c, training_cl):
    # where a gradient is wanted the bound is halved (kernels.config.channels_last_training_divisor): 32+ outputs
    # from 16+ inputs, or a stem into 16+; the same convolution without a gradient keeps the inference bound (64
    # from 32)
    rs = np.random.RandomState(6)
    x, w = rs.randn(2, in_c, 6, 5).astype(np.float32), rs.randn(out_c, in_c, 3, 3).astype(np.float32)
    args = dict(kernel=(3, 3), pad=(1, 1), num_filter=out_c, no_bias=True)
    data, weight = mx.nd.array(x), mx.nd.array(w)

    def is_cl(y):
        return y._t.is_contiguous(memory_format=torch.channels_last) and not y._t.is_contiguous()
    assert is_cl(mx.nd.Convolution(data, weight, **args)) == (out_c >= 64 and in_c >= 32)
    weight.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(data, weight, **args)
    assert is_cl(y) == training_cl
    y.backward()
    tw = torch.tensor(w, requires_grad=True)
    want = torch.nn.functional.conv2d(torch.tensor(x), tw, padding=1)
    want.backward(torch.ones_like(want))
    np.testing.assert_allclose(y.asnumpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(weight.grad.asnumpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-3)


@pytest.fixture
def gemm_on(monkeypatch):
    """The patch-product convolution rule on (kernels.config.gemm_conv_max_positions; off by default)."""
    monkeypatch.setattr(kernels.config, 'gemm_conv_max_positions', 16)


@pytest.mark.parametrize('in_c,out_c,gemm', [(64, 64, True), (32, 64, False), (3, 32, False)])
def test_convolution_gemm_needs_wide_channels(monkeypatch, gemm_on, in_c, out_c, gemm):
    # the patch-matrix path (kernels.cpu._gemm_conv_pays) takes channels-last convolutions with at most 16 output
    # positions only when both channel counts reach kernels.config.channels_last_min_channels; narrower ones
    # (channels-last from 32 channels) stay on oneDNN, which is faster there
    used, forward = [], kernels_cpu._GemmConv2d.forward
    monkeypatch.setattr(kernels_cpu._GemmConv2d, 'forward',
                        staticmethod(lambda ctx, *a: used.append('forward') or forward(ctx, *a)))
    rs = np.random.RandomState(3)
    x, w = rs.randn(2, in_c, 4, 4).astype(np.float32), rs.randn(out_c, in_c, 3, 3).astype(np.float32)
    y = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), kernel=(3, 3), pad=(1, 1), num_filter=out_c, no_bias=True)
    assert bool(used) == gemm and y._t.is_contiguous(memory_format=torch.channels_last)
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    np.testing.assert_allclose(y.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('fast', [True, False], ids=['gemm', 'onednn'])
@pytest.mark.parametrize('shape,kernel,stride,pad,no_bias', [
    ((2, 6, 4, 4), (3, 3), (1, 1), (1, 1), True),    # ResNet-18's last stage in small
    ((2, 6, 8, 7), (3, 3), (2, 2), (1, 1), False),   # stride 2 to 4x4
    ((3, 5, 6, 5), (3, 2), (2, 1), (0, 1), False),   # non-square kernel, stride and pad
    ((2, 6, 7, 7), (1, 1), (2, 2), (0, 0), True),    # 1x1 shortcut, stride 2
    ((1, 4, 2, 2), (3, 3), (1, 1), (1, 1), False),   # more kernel than map
])
def test_convolution_gemm(monkeypatch, fast, shape, kernel, stride, pad, no_bias):
    # A channels-last CPU convolution with at most 16 output positions runs as matrix products over the input
    # patches (kernels.config.gemm_conv_max_positions; 0 turns it off). Values (with and without autograd), all
    # gradients, grad_req='add' and second-order gradients equal torch's conv2d in float64.
    monkeypatch.setattr(kernels.config, 'channels_last_min_channels', 3)
    monkeypatch.setattr(kernels.config, 'gemm_conv_max_positions', 16 if fast else 0)
    used, forward, backward = [], kernels_cpu._GemmConv2d.forward, kernels_cpu._GemmConv2d.backward
    monkeypatch.setattr(kernels_cpu._GemmConv2d, 'forward',
                        staticmethod(lambda ctx, *a: used.append('forward') or forward(ctx, *a)))
    monkeypatch.setattr(kernels_cpu._GemmConv2d, 'backward',
                        staticmethod(lambda ctx, g: used.append('backward') or backward(ctx, g)))
    rs = np.random.RandomState(7)
    k = 8
    x, w, b, head = rs.randn(*shape), rs.randn(k, shape[1], *kernel), rs.randn(k), None
    args = dict(kernel=kernel, stride=stride, pad=pad, num_filter=k, no_bias=no_bias)
    data, weight, bias = (mx.nd.array(a) for a in (x, w, b))
    inference = mx.nd.Convolution(data, weight, *([] if no_bias else [bias]), **args)
    assert used == (['forward'] if fast else [])
    for a in (data, weight, bias):
        a.attach_grad(grad_req='add')
    for _ in range(2):  # the second pass adds to the first's gradients
        with mx.autograd.record():
            y = mx.nd.Convolution(data, weight, *([] if no_bias else [bias]), **args)
            head = mx.nd.array(rs.randn(*y.shape)) if head is None else head
            loss = (y * head).sum()
        loss.backward()
    assert (y.shape[2] * y.shape[3] <= 16) and ('backward' in used) == fast
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv2d(tx, tw, None if no_bias else tb, stride, pad)
    (ty * torch.tensor(head.asnumpy(), dtype=torch.float64)).sum().backward()
    for out in (inference, y):
        np.testing.assert_allclose(out.asnumpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-4)
    for ours, theirs in ((data, tx), (weight, tw)) + (() if no_bias else ((bias, tb),)):
        np.testing.assert_allclose(ours.grad.asnumpy(), 2 * theirs.grad.numpy(), rtol=1e-4, atol=1e-4)
    # the weight gradient's own gradient (create_graph): d/dx of sum(dW * c)
    c = rs.randn(*w.shape)
    data2, weight2 = mx.nd.array(x), mx.nd.array(w)
    for a in (data2, weight2):
        a.attach_grad()
    with mx.autograd.record():
        y2 = mx.nd.Convolution(data2, weight2, *([] if no_bias else [mx.nd.array(b)]), **args)
        (dw,) = mx.autograd.grad((y2 * y2).sum(), [weight2], create_graph=True)
        second = (dw * mx.nd.array(c)).sum()
    second.backward()
    tx2, tw2 = (torch.tensor(a, requires_grad=True) for a in (x, w))
    ty2 = torch.nn.functional.conv2d(tx2, tw2, None if no_bias else torch.tensor(b), stride, pad)
    (tdw,) = torch.autograd.grad((ty2 * ty2).sum(), [tw2], create_graph=True)
    (tdw * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(dw.asnumpy(), tdw.detach().numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(data2.grad.asnumpy(), tx2.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_convolution_gemm_keeps_aten_convolution_under_tracing(gemm_on):
    # mx.to_torch (make_fx, fake tensors) exports aten's convolution, not the patch products
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(64, 3, padding=1, in_channels=64), mx.gluon.nn.Conv2D(64, 1, strides=2, in_channels=64))
    net.initialize()
    x = mx.nd.random.uniform(shape=(2, 64, 4, 4))
    net.hybridize()
    want = net(x)
    module = mx.to_torch(net, [x])
    code = module.code
    assert code.count('aten.convolution.default') == 2 and 'addmm' not in code and 'as_strided' not in code
    assert 'mkldnn' not in code
    np.testing.assert_allclose(module(x.to_torch()).detach().numpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


def test_convolution_gemm_result_takes_an_inplace_residual_add(gemm_on):
    # The patch-product convolution returns a tensor of its own, not a view of the product: a hybridized graph adds
    # a residual into it in place (ResNet v2's blocks end in conv + shortcut), which autograd refuses on a view a
    # Function returned. Eager and hybridized values and gradients agree.
    class Residual(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.conv = mx.gluon.nn.Conv2D(64, 3, padding=1, in_channels=64, use_bias=False)

        def hybrid_forward(self, F, x):
            return F.relu(self.conv(x) + x)

    x = mx.nd.array(np.random.RandomState(2).randn(2, 64, 4, 4))
    y = mx.nd.Convolution(x, mx.nd.ones((64, 64, 3, 3)), kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
    assert y._t._base is None and y._t.is_contiguous(memory_format=torch.channels_last)
    results = []
    for hybridize in (False, True):
        net = Residual()
        net.initialize(mx.init.Constant(0.01))
        if hybridize:
            net.hybridize()
        with mx.autograd.record():
            out = net(x)
        out.backward()
        results.append((out.asnumpy(), net.conv.weight.grad().asnumpy()))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def _recorded_conv_keeps_nothing(x, w0, args, table):
    """A recorded convolution (padding 1) leaves nothing kept in ``table`` and its weight gradient is torch's."""
    fresh = mx.nd.array(w0)
    fresh.attach_grad()
    with mx.autograd.record():
        z = mx.nd.Convolution(x, fresh, **args)
    z.backward()
    assert fresh._t not in table
    tw = torch.tensor(w0, dtype=torch.float32, requires_grad=True)
    torch.nn.functional.conv2d(x.to_torch(), tw, padding=1).sum().backward()
    np.testing.assert_allclose(fresh.grad.asnumpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_convolution_inference_reuses_the_reordered_weight():
    # Outside autograd recording, a channels-last CPU convolution runs on a weight oneDNN reordered once and kept on
    # the weight tensor while its version counter and the call's geometry are unchanged; results are those of the
    # plain path (to the last bits). The first call with a weight version uses its reordered weight once and keeps
    # nothing (the same values); the second keeps it. Any in-place write (assignment, set_data, a Trainer step) makes
    # the next calls reorder again; recorded calls (and their gradients) take the plain path.
    rs = np.random.RandomState(11)
    x, w0 = mx.nd.array(rs.randn(2, 64, 9, 9)), rs.randn(64, 64, 3, 3)
    weight = mx.nd.array(w0)
    args = dict(kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)

    def plain():
        with kernels.policy(packed_conv=False):
            return mx.nd.Convolution(x, weight, **args).asnumpy()

    def close(a, b):  # oneDNN may pick another algorithm for a reordered weight: the last bits may differ
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-6 * np.abs(b).max())

    first = mx.nd.Convolution(x, weight, **args)
    assert first._t.is_contiguous(memory_format=torch.channels_last) and weight._t not in kernels_cpu._REORDERED
    y = mx.nd.Convolution(x, weight, **args)
    np.testing.assert_array_equal(y.asnumpy(), first.asnumpy())
    assert y._t.is_contiguous(memory_format=torch.channels_last)
    packed = kernels_cpu._REORDERED[weight._t][1]
    # nothing is attached to the weight tensor: it still pickles, saves and deep-copies (an opaque oneDNN tensor
    # would not)
    import copy
    import io
    import pickle
    copy.deepcopy(weight._t)
    torch.save(weight._t, io.BytesIO())
    assert torch.equal(pickle.loads(pickle.dumps(weight._t)), weight._t)
    close(y.asnumpy(), plain())
    np.testing.assert_array_equal(mx.nd.Convolution(x, weight, **args).asnumpy(), y.asnumpy())
    assert kernels_cpu._REORDERED[weight._t][1] is packed  # reused
    weight[:] = weight * 0.5
    halved = mx.nd.Convolution(x, weight, **args).asnumpy()
    assert weight._t not in kernels_cpu._REORDERED  # (the stale one dropped, the new one from the next call)
    np.testing.assert_array_equal(mx.nd.Convolution(x, weight, **args).asnumpy(), halved)
    assert kernels_cpu._REORDERED[weight._t][1] is not packed
    close(halved, plain())
    np.testing.assert_allclose(halved, 0.5 * y.asnumpy(), rtol=1e-5, atol=1e-5)
    # a recorded call computes the gradient on the plain path and leaves no reordered weight behind
    _recorded_conv_keeps_nothing(x, w0, args, kernels_cpu._REORDERED)
    # a Gluon layer between Trainer steps: inference sees each step's weight
    net = mx.gluon.nn.Conv2D(64, 3, padding=1, in_channels=64)
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    for _ in range(2):
        before = net(x).asnumpy()
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(1)
        after = net(x).asnumpy()
        assert not np.array_equal(before, after)
        with kernels.policy(packed_conv=False):
            close(after, net(x).asnumpy())
        tensors = [a.to_torch().detach().double() for a in (x, net.weight.data(), net.bias.data())]
        want = torch.nn.functional.conv2d(*tensors, padding=1).numpy()
        np.testing.assert_allclose(after, want, rtol=0, atol=1e-5 * np.abs(want).max())


def test_convolution_inference_path_keeps_gradients_torch_needs():
    # Eager calls outside record() take the reordered weight (their results are cut from torch's graph anyway);
    # an Executor bound with gradients and a Gluon block run as a torch module differentiate with torch's
    # autograd while mxcompat is not recording, so their convolutions keep the plain path and the gradients.
    rs = np.random.RandomState(12)
    x, w = rs.randn(2, 64, 9, 9).astype(np.float32), rs.randn(64, 64, 3, 3).astype(np.float32)
    tw = torch.tensor(w, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    (torch.nn.functional.conv2d(tx, tw, padding=1) ** 2).sum().backward()
    net = mx.gluon.nn.Conv2D(64, 3, padding=1, in_channels=64, use_bias=False)
    net.initialize()
    net.weight.set_data(mx.nd.array(w))
    net(mx.nd.array(x))  # eager, outside record() (the second call keeps the reordered weight)
    net(mx.nd.array(x))
    assert net.weight.data()._t in kernels_cpu._REORDERED
    module = net.as_torch_module(mx.nd.array(x))
    (module(torch.tensor(x)) ** 2).sum().backward()
    np.testing.assert_allclose(next(module.parameters()).grad.numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-2)
    data = mx.sym.var('data')
    out = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True, name='conv')
    exe = out.simple_bind(mx.cpu(), data=x.shape)
    exe.arg_dict['data'][:] = x
    exe.arg_dict['conv_weight'][:] = w
    exe.forward(is_train=True)
    exe.backward(exe.outputs[0] * 2)
    np.testing.assert_allclose(exe.grad_dict['conv_weight'].asnumpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(exe.grad_dict['data'].asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize('geometry', [dict(kernel=(1, 1), stride=(2, 2), pad=(1, 1), dilate=(2, 2)),
                                      dict(kernel=(3, 3), pad=(3, 3)), dict(kernel=(5, 5), pad=(2, 2))],
                         ids=['dilated', 'pad-over-kernel', 'kernel-over-map'])
def test_convolution_inference_odd_geometries_and_empty_batch(geometry):
    # Geometries the reordered-weight path leaves to the plain one (with a 1x1 kernel, stride 2, padding 1 and
    # dilation 2, oneDNN's reordered-weight kernel with a bias corrupted the heap), and an empty batch (the
    # patch-product path too): values as torch's conv2d.
    rs = np.random.RandomState(13)
    w, b = rs.randn(64, 64, *geometry['kernel']), rs.randn(64)
    for n, hw in ((2, (6, 1) if 'dilate' in geometry else (4, 4)), (0, (4, 4))):
        x = rs.randn(n, 64, *hw)
        y = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), num_filter=64, **geometry)
        want = torch.nn.functional.conv2d(*(torch.tensor(a) for a in (x, w, b)), stride=geometry.get('stride', 1),
                                          padding=geometry['pad'], dilation=geometry.get('dilate', 1))
        assert y.shape == tuple(want.shape)
        np.testing.assert_allclose(y.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-3)


def _inference_keeps_the_channels_last_weight(x, w0):
    """A 3x3 convolution (padding 1) of ``x`` through weight ``w0``, outside recording: torch's values, its
    channels-last weight copy kept while the weight is unchanged and made anew after a write; a recorded call keeps
    nothing. Returns the weight array."""
    weight = mx.nd.array(w0)
    args = dict(kernel=(3, 3), pad=(1, 1), num_filter=w0.shape[0], no_bias=True)
    want = torch.nn.functional.conv2d(x.to_torch(), torch.tensor(w0, dtype=torch.float32), padding=1).numpy()
    y = mx.nd.Convolution(x, weight, **args)
    kept = kernels_cpu._CHANNELS_LAST[weight._t][1]
    np.testing.assert_allclose(mx.nd.Convolution(x, weight, **args).asnumpy(), y.asnumpy(), rtol=0, atol=0)
    assert kernels_cpu._CHANNELS_LAST[weight._t][1] is kept
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-3)
    weight[:] = -weight
    np.testing.assert_allclose(mx.nd.Convolution(x, weight, **args).asnumpy(), -want, rtol=1e-4, atol=1e-3)
    assert kernels_cpu._CHANNELS_LAST[weight._t][1] is not kept
    _recorded_conv_keeps_nothing(x, w0, args, kernels_cpu._CHANNELS_LAST)
    return weight


def test_convolution_gemm_inference_keeps_the_channels_last_weight(gemm_on):
    # The patch-product path's channels-last copy of the weight is kept, outside recording, while the weight's
    # version counter is unchanged (batch-1 inference spent longer copying it than multiplying); a write makes a
    # new copy, and recorded calls differentiate through their own copy.
    rs = np.random.RandomState(14)
    _inference_keeps_the_channels_last_weight(mx.nd.array(rs.randn(1, 64, 4, 4)), rs.randn(64, 64, 3, 3))


def test_convolution_first_call_on_channels_last_data_gives_the_kept_weights_bits():
    # the first call on a weight version takes the plain weight where the data is channels-last (torch's convolution
    # then copies it as the kept copy is made): the first, second and third calls give the same bits
    rs = np.random.RandomState(16)
    for hw, c in ((2, 64), (4, 64), (2, 512), (8, 32)):
        x = mx.nd.array(rs.randn(1, c, hw, hw))
        x._t = x._t.contiguous(memory_format=torch.channels_last)
        weight = mx.nd.array(rs.randn(c, c, 3, 3))
        args = dict(kernel=(3, 3), pad=(1, 1), num_filter=c, no_bias=True)
        first, second, third = [mx.nd.Convolution(x, weight, **args).asnumpy() for _ in range(3)]
        np.testing.assert_array_equal(first, second)
        np.testing.assert_array_equal(first, third)


def test_convolution_inference_on_a_map_smaller_than_the_kernel_keeps_the_channels_last_weight():
    # A 3x3 convolution of a 1x1 or 2x2 map (ResNet's last stages on thumbnails) is not one the reordered-weight
    # path takes; it computes channels-last through torch's kernel, and its channels-last copy of the weight is
    # kept outside recording from the second call with an unchanged weight on (copying it each call took longer
    # than the convolution; a first forward, as deferred initialization runs, holds no copies)
    rs = np.random.RandomState(15)
    for hw in (1, 2):
        x, w0 = mx.nd.array(rs.randn(1, 64, hw, hw)), rs.randn(64, 64, 3, 3)
        weight = mx.nd.array(w0)
        args = dict(kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
        want = torch.nn.functional.conv2d(x.to_torch(), torch.tensor(w0, dtype=torch.float32), padding=1).numpy()
        for write in range(2):
            first = mx.nd.Convolution(x, weight, **args).asnumpy()
            assert weight._t not in kernels_cpu._CHANNELS_LAST
            second = mx.nd.Convolution(x, weight, **args).asnumpy()
            kept = kernels_cpu._CHANNELS_LAST[weight._t][1]
            third = mx.nd.Convolution(x, weight, **args).asnumpy()
            assert kernels_cpu._CHANNELS_LAST[weight._t][1] is kept and weight._t not in kernels_cpu._REORDERED
            np.testing.assert_array_equal(first, second)
            np.testing.assert_array_equal(first, third)
            np.testing.assert_allclose(first, want * (-1) ** write, rtol=1e-4, atol=1e-3)
            weight[:] = -weight
        _recorded_conv_keeps_nothing(x, w0, args, kernels_cpu._CHANNELS_LAST)


def test_convolution_gemm_from_threads(gemm_on):
    # the patch matrices live in a per-thread scratch buffer: threads convolving at once do not share it
    from concurrent.futures import ThreadPoolExecutor
    rs = np.random.RandomState(3)
    cases = [(rs.randn(4, 64, 4, 4), rs.randn(64, 64, 3, 3)), (rs.randn(2, 64, 3, 5), rs.randn(64, 64, 3, 3))]

    def run(case):
        x, w = case
        data, weight = mx.nd.array(x), mx.nd.array(w)
        weight.attach_grad()
        outs = []
        for _ in range(20):
            with mx.autograd.record():
                y = mx.nd.Convolution(data, weight, kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
            y.backward()
            outs.append((y.asnumpy(), weight.grad.asnumpy()))
        return outs

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, cases * 2))
    for (x, w), outs in zip(cases * 2, results):
        tw = torch.tensor(w, requires_grad=True)
        ty = torch.nn.functional.conv2d(torch.tensor(x), tw, padding=1)
        ty.sum().backward()
        for y, g in outs:
            np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-4, atol=1e-3)
            np.testing.assert_allclose(g, tw.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_convolution_gemm_scratch_is_bounded(monkeypatch, gemm_on):
    # patch matrices over kernels.config.scratch_max_bytes are allocated for the call only, not kept in the thread's
    # buffer
    import threading
    monkeypatch.setattr(kernels.config, 'scratch_max_bytes', 1024)
    rs = np.random.RandomState(5)
    x, w = rs.randn(2, 64, 4, 4), rs.randn(64, 64, 3, 3)
    seen = {}

    def run():
        y = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
        seen['y'], seen['kept'] = y.asnumpy(), kernels_cpu._SCRATCH.buf
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen['kept'] is None
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    np.testing.assert_allclose(seen['y'], want.numpy(), rtol=1e-4, atol=1e-3)


def test_dropout():
    x = mx.nd.ones((200, 50))
    assert (mx.nd.Dropout(x, p=0.5).asnumpy() == 1).all()  # inference: identity
    with mx.autograd.train_mode():
        y = mx.nd.Dropout(x, p=0.4).asnumpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.6)}
    assert abs((y == 0).mean() - 0.4) < 0.03
    y = mx.nd.Dropout(x, p=0.5, mode='always', axes=(1,)).asnumpy()
    assert ((y == y[:, :1]).all())  # one mask value per row
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Dropout(x, p=0.5)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), y.asnumpy())  # grad = mask / (1 - p) = output here


def test_rrelu_training_slopes_in_bounds():
    x = -mx.nd.ones((1000,))
    with mx.autograd.train_mode():
        y, slopes = mx.nd.LeakyReLU(x, act_type='rrelu', lower_bound=0.1, upper_bound=0.3)
    y, slopes = y.asnumpy(), slopes.asnumpy()
    assert ((-y >= 0.1) & (-y <= 0.3)).all() and y.std() > 0.01
    np.testing.assert_allclose(-y, slopes)


def test_batchnorm_train_forward_only_leaves_moving_stats():
    # MXNet updates the moving statistics in the backward pass: a forward alone changes nothing.
    x, g, b = mx.nd.ones((4, 3)) * 2, mx.nd.ones(3), mx.nd.zeros(3)
    mm, mv = mx.nd.zeros(3), mx.nd.ones(3)
    with mx.autograd.train_mode():
        mx.nd.BatchNorm(x, g, b, mm, mv)
    assert (mm.asnumpy() == 0).all() and (mv.asnumpy() == 1).all()


def test_impls_take_switched_off_inputs_as_absent():
    # Symbols call impls with only the inputs the attributes keep (no trailing bias with no_bias=True).
    x, w = torch.ones(2, 3), torch.ones(4, 3)
    fc = registry.get('FullyConnected')
    assert fc.impl(x, w, **fc.parse_attrs({'num_hidden': 4, 'no_bias': True})).shape == (2, 4)
    conv = registry.get('Convolution')
    a = conv.parse_attrs({'kernel': (1,), 'num_filter': 4, 'no_bias': True})
    assert conv.impl(torch.ones(1, 3, 5), torch.ones(4, 3, 1), **a).shape == (1, 4, 5)
    lr = registry.get('LeakyReLU')
    assert lr.impl(x, **lr.parse_attrs({})).shape == (2, 3)


def test_bound_activation_and_required_attributes():
    x = mx.nd.array(np.random.RandomState(0).uniform(-2, 2, (2, 3)).astype(np.float32))
    for act in ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'):
        np.testing.assert_array_equal(mx.nd.Activation(x, act_type=act).asnumpy(),
                                      registry.get('Activation').impl(x._t, act_type=act).numpy())
    with pytest.raises(MXNetValueError, match="required argument 'act_type'"):
        mx.nd.Activation(x)
    with pytest.raises(MXNetValueError, match='act_type'):
        mx.nd.Activation(x, act_type='gelu')


def test_batchnorm_momentum_is_a_float32_parameter():
    """MXNet's BatchNorm ``momentum`` is a C++ float: the moving statistics update with 0.9f and 1 - 0.9f even for
    float64 data (2.4e-8 relative off 0.9/0.1). Values: MXNet 1.9.1, tests/fixtures/nn/gen_batchnorm_momentum.py."""
    x = (np.arange(24, dtype=np.float64).reshape(4, 3, 2) % 7) * 0.5 + 0.25
    for kw in ({}, {'momentum': 0.9}, {'momentum': '0.9'}):
        xa = mx.nd.array(x, dtype='float64')
        xa.attach_grad()
        mm, mv = mx.nd.array([1., -2., 0.5], dtype='float64'), mx.nd.array([1., 2., 3.], dtype='float64')
        g, b = mx.nd.ones(3, dtype='float64'), mx.nd.zeros(3, dtype='float64')
        with mx.autograd.record():
            y = mx.nd.BatchNorm(xa, g, b, mm, mv, **kw)
        y.backward()
        assert mm.asnumpy().tolist() == [1.0937500223517418, -1.681249924004078, 0.6250000298023224], kw
        assert mv.asnumpy().tolist() == [1.0496093868277967, 1.8839843473397195, 2.737499937415123], kw


# ---- softmax family: MXNet 1.9.1's bits where it runs its own loop ------------------------------------------------
_SOFTMAX_BITS = load_generator('nn', 'gen_softmax_bits.py')
nd = mx.nd


@pytest.fixture(scope='module')
def softmax_bits():
    with np.load(os.path.join(FIXTURES, 'nn', 'softmax_bits.npz')) as f:
        return dict(f)


def test_softmax_family_equals_mxnet_bits_where_mxnet_runs_its_own_loop(softmax_bits):
    # softmin, a temperature (1 included), another axis, dtype, use_length, 5-D, SoftmaxActivation, SoftmaxOutput
    # while training or multi_output (config.mxnet_softmax_output), forward and gradient: every value equal to MXNet
    # 1.9.1's (NaN where it has NaN)
    with kernels.policy(mxnet_softmax_output=True):
        got = _SOFTMAX_BITS.record(mx)
    own = [k for k in softmax_bits if not k.startswith('onednn')
           and not (k.endswith(':grad') and _SOFTMAX_BITS.CASES[k.split(':')[0]][2].get('dtype'))
           and k != 'act_instance_3d:grad']
    assert len(own) == 39
    for key in own:
        assert got[key].dtype == softmax_bits[key].dtype, key
        np.testing.assert_array_equal(got[key], softmax_bits[key], err_msg=key)
    # the rest: oneDNN in MXNet (torch's kernel here), a dtype argument's gradient (MXNet's sums mix the two
    # dtypes), 3-D SoftmaxActivation's gradient (over axis 1, by a separate function): float32 roundings apart
    for key in sorted(set(softmax_bits) - set(own)):
        tol = 1e-3 if 'f16' in key else 2e-5  # (float16 head gradient)
        np.testing.assert_allclose(got[key], softmax_bits[key], rtol=tol, atol=tol, err_msg=key)


def test_softmax_output_takes_the_own_loop_when_switched_on(softmax_bits):
    # off (the default): torch's softmax, MXNet's values to float32 rounding
    x, label = (nd.array(a) for a in _SOFTMAX_BITS.inputs('output_train_wide'))
    want = softmax_bits['output_train_wide:out']
    with mx.autograd.record(train_mode=True):
        out = nd.SoftmaxOutput(x, label).asnumpy()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-8)
    assert not np.array_equal(out, want)


def test_softmax_own_loop_is_bounded_and_switchable(softmax_bits):
    # above config.mxnet_softmax_max_elements (and with it 0) torch's kernel computes the same values to rounding
    x = nd.array(_SOFTMAX_BITS.inputs('softmin')[0])
    want = softmax_bits['softmin:out']
    with kernels.policy(mxnet_softmax_max_elements=0):
        other = nd.softmin(x).asnumpy()
    assert not np.array_equal(other, want)
    np.testing.assert_allclose(other, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(nd.softmin(x).asnumpy(), want)


def test_softmax_own_loop_second_order_and_graphs():
    # gradients stay torch's under create_graph, in a bound executor and in a hybridized block
    a = np.random.RandomState(0).randn(5, 7).astype(np.float32)
    x = nd.array(a)
    x.attach_grad()
    with mx.autograd.record():
        y = nd.softmax(x, temperature=2.0)
        (gx,) = mx.autograd.grad((y * y).sum(), [x], create_graph=True)
        z = (gx * gx).sum()
    z.backward()
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    ty = torch.softmax(t / 2.0, 1)
    (tg,) = torch.autograd.grad((ty * ty).sum(), [t], create_graph=True)
    (tg * tg).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tg.detach().numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(x.grad.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-6)
    sym = mx.sym.softmin(mx.sym.var('data'), axis=0)
    exe = sym.simple_bind(mx.cpu(), data=a.shape)
    exe.arg_dict['data'][:] = a
    head = np.random.RandomState(1).randn(*a.shape).astype(np.float32)
    exe.forward(is_train=True)
    exe.backward(nd.array(head))
    out, grad = _recorded(lambda v: nd.softmin(v, axis=0), a, head)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), out)
    np.testing.assert_array_equal(exe.grad_dict['data'].asnumpy(), grad)

    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, v):
            return F.log_softmax(v, axis=0)
    net = Net()
    net.hybridize()
    for got, want in zip(_recorded(net, a, head), _recorded(lambda v: nd.log_softmax(v, axis=0), a, head)):
        np.testing.assert_array_equal(got, want)


def _recorded(f, a, head):
    x = nd.array(a)
    x.attach_grad()
    with mx.autograd.record():
        out = f(x)
    out.backward(nd.array(head))
    return out.asnumpy(), x.grad.asnumpy()
