"""mxcompat.kernels.cpu: a 2-D convolution's layout is the rules' choice, not what the strides of the data's size-1
dimensions suggest to torch. MXNet's arrays have one layout, so the same values give the same result however the
batch was built (transposed from NHWC grey images, or stacked from CHW ones, as a DataLoader does)."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import autograd, gluon, nd
from mxcompat.kernels.cpu import _in_layout


def _two_layouts(nhwc):
    """The NCHW batch of ``nhwc`` twice: transposed (its size-1 dimensions carry channels-last strides) and
    built in the standard layout; the test needs their strides to differ."""
    moved = nd.transpose(nd.array(nhwc), (0, 3, 1, 2))
    plain = nd.array(nhwc.transpose(0, 3, 1, 2).copy())  # (copy: standard strides; ascontiguousarray keeps them)
    assert moved.to_torch(internal=True).stride() != plain.to_torch(internal=True).stride()
    assert np.array_equal(moved.asnumpy(), plain.asnumpy())
    return moved, plain


def _bits(a):
    return a.asnumpy().view(np.uint32)


# (NHWC data shape, num_filter, kernel): a grey stem (channels-last when a gradient is wanted, plain without), one
# wide enough to compute channels-last either way, and 1x1 maps (a squeeze-excitation block's convolutions) wide and
# narrow
CASES = [((8, 28, 28, 1), 20, (5, 5)), ((2, 12, 12, 1), 64, (3, 3)), ((4, 1, 1, 64), 64, (1, 1)),
         ((4, 1, 1, 16), 8, (1, 1))]


@pytest.mark.parametrize('train', [True, False])
@pytest.mark.parametrize('shape, num_filter, kernel', CASES)
def test_convolution_does_not_depend_on_size1_strides(shape, num_filter, kernel, train):
    rs = np.random.RandomState(0)
    moved, plain = _two_layouts(rs.rand(*shape).astype(np.float32))
    w = rs.randn(num_filter, shape[3], *kernel).astype(np.float32) * 0.3
    b = rs.randn(num_filter).astype(np.float32)
    results = []
    for data in (moved, plain):
        weight, bias = nd.array(w), nd.array(b)
        if not train:
            results.append([nd.Convolution(data, weight, bias, kernel=kernel, num_filter=num_filter)])
            continue
        for t in (data, weight, bias):
            t.attach_grad()
        with autograd.record():
            out = nd.Convolution(data, weight, bias, kernel=kernel, num_filter=num_filter)
        out.backward(nd.array(np.cos(np.arange(out.size, dtype=np.float32)).reshape(out.shape)))
        results.append([out, data.grad, weight.grad, bias.grad])
    for a, b in zip(*results):
        assert np.array_equal(_bits(a), _bits(b))


def _straight_dope_bn_cnn():
    # The Straight Dope's BatchNorm CNN (chapter04 cnn-batch-norm-gluon)
    net = gluon.nn.Sequential()
    for channels in (20, 50):
        net.add(gluon.nn.Conv2D(channels=channels, kernel_size=5), gluon.nn.BatchNorm(axis=1, center=True, scale=True),
                gluon.nn.Activation('relu'), gluon.nn.MaxPool2D(pool_size=2, strides=2))
    net.add(gluon.nn.Flatten(), gluon.nn.Dense(64), gluon.nn.BatchNorm(axis=1, center=True, scale=True),
            gluon.nn.Activation('relu'), gluon.nn.Dense(10))
    return net


def test_training_step_does_not_depend_on_how_the_batch_was_built():
    rs = np.random.RandomState(1)
    images = (rs.rand(16, 28, 28, 1) * 256).astype(np.uint8)
    labels = rs.randint(0, 10, 16).astype(np.float32)

    def transform(data, label):
        return nd.transpose(data.astype(np.float32), (2, 0, 1)) / 255, label

    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(nd.array(images, dtype=np.uint8), labels).transform(
        transform), 16, shuffle=False)
    stacked, y = next(iter(loader))
    moved = nd.transpose(nd.array(images, dtype=np.uint8).astype('float32'), (0, 3, 1, 2)) / 255
    assert moved.to_torch(internal=True).stride() != stacked.to_torch(internal=True).stride()
    grads = []
    for data in (moved, stacked):
        mx.random.seed(1)
        net = _straight_dope_bn_cnn()
        net.initialize(mx.init.Xavier(magnitude=2.24))
        with autograd.record():
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(data), y)
        loss.backward()
        grads.append([p.grad() for p in net.collect_params().values() if p.grad_req != 'null'])
    assert len(grads[0]) == 14
    for a, b in zip(*grads):
        assert np.array_equal(_bits(a), _bits(b))


def test_in_layout_gives_standard_strides_as_a_view():
    x = torch.rand(4, 1, 6, 6)
    moved = x.as_strided(x.shape, (36, 1, 6, 1))  # the same elements, read as channels-last
    plain = _in_layout(moved, False)
    assert plain.stride() == (36, 36, 6, 1) and plain.data_ptr() == moved.data_ptr()
    assert _in_layout(x, True).stride() == (36, 1, 6, 1) and torch.equal(_in_layout(x, True), x)
    wide = torch.rand(2, 3, 4, 5)  # no size-1 dimension: itself either way
    assert _in_layout(wide, True) is wide and _in_layout(wide, False) is wide
    nhwc = wide.contiguous(memory_format=torch.channels_last)
    assert _in_layout(nhwc, False) is nhwc
