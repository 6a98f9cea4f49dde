"""Loss heads on every device (the ``ctx`` fixture: cpu(0), and gpu(0) where CUDA exists): the same outputs and
gradients as on the CPU, with inputs of any storage type (a sparse label is read through its dense values)."""
import numpy as np
import pytest

import mxcompat as mx


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize('data_stype', ['default', 'csr', 'row_sparse'])
@pytest.mark.parametrize('label_stype', ['default', 'csr', 'row_sparse'])
@pytest.mark.parametrize('preserve_shape', [False, True])
def test_softmax_output_with_probability_labels(ctx, data_stype, label_stype, preserve_shape):
    # the upstream test_sparse_storage_fallback's check_softmax_with_shape: the label's values are assigned from
    # numpy into a (sparse) array of ctx, then a bound SoftmaxOutput runs forward and backward on ctx
    rng = np.random.RandomState(0)
    shape = (4, 5)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    x[1] = 0
    data = mx.nd.array(x, ctx=ctx).tostype(data_stype)
    label = mx.nd.array(rng.uniform(0, 1, shape), ctx=ctx).tostype(label_stype)
    label[:] = _softmax(label.asnumpy())
    assert label.context == ctx and label.to_torch().device == ctx.torch_device
    y = mx.sym.SoftmaxOutput(data=mx.sym.Variable('X', stype=data_stype),
                             label=mx.sym.Variable('L', stype=label_stype), preserve_shape=preserve_shape)
    grad = mx.nd.empty(shape, ctx=ctx)
    exe = y.bind(ctx, args=[data, label], args_grad={'X': grad})
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), _softmax(x), rtol=1e-5, atol=1e-7)
    exe.backward()
    assert grad.to_torch().device == ctx.torch_device
    np.testing.assert_allclose(grad.asnumpy(), _softmax(x) - label.asnumpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize('attrs', [{}, {'use_ignore': True, 'ignore_label': 1, 'normalization': 'valid'},
                                   {'smooth_alpha': 0.1, 'normalization': 'batch'}, {'multi_output': True}],
                         ids=['plain', 'ignore-valid', 'smooth-batch', 'multi_output'])
def test_softmax_output_gradient_matches_the_cpu(ctx, attrs):
    # labels outside [0, k) included: the CPU's one-kernel path and the masked path give the same gradient
    rng = np.random.RandomState(1)
    shape = (6, 4, 3) if attrs.get('multi_output') else (6, 4)
    x = rng.uniform(-2, 2, shape).astype(np.float32)
    lab = np.array([0, 3, 1, 7, -1, 1], np.float32)
    if attrs.get('multi_output'):
        lab = np.stack([lab, lab[::-1], lab], 1)

    def grad_on(c):
        d = mx.nd.array(x, ctx=c)
        d.attach_grad()
        with mx.autograd.record():
            out = mx.nd.SoftmaxOutput(d, mx.nd.array(lab, ctx=c), **attrs)
        out.backward()
        assert d.grad.context == c and d.grad.to_torch().device == c.torch_device
        return out.asnumpy(), d.grad.asnumpy()

    (out, g), (out_cpu, g_cpu) = grad_on(ctx), grad_on(mx.cpu())
    np.testing.assert_allclose(out, out_cpu, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, g_cpu, rtol=1e-5, atol=1e-7)


def test_ctc_loss_with_data_lengths_matches_the_cpu(ctx):
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, (6, 2, 4)).astype(np.float32)
    x[4:, 0] = np.nan  # past the first sequence's length: takes no part
    label = np.array([[1, 2, 0], [3, 3, 1]], np.float32)
    lengths = np.array([4, 6], np.float32)

    def run(c):
        d = mx.nd.array(x, ctx=c)
        d.attach_grad()
        with mx.autograd.record():
            loss = mx.nd.CTCLoss(d, mx.nd.array(label, ctx=c), mx.nd.array(lengths, ctx=c), use_data_lengths=True)
        loss.backward()
        assert loss.context == c and loss.to_torch().device == c.torch_device
        return loss.asnumpy(), d.grad.asnumpy()

    (loss, g), (loss_cpu, g_cpu) = run(ctx), run(mx.cpu())
    assert np.isfinite(loss).all()
    np.testing.assert_allclose(loss, loss_cpu, rtol=1e-4)
    np.testing.assert_allclose(np.nan_to_num(g), np.nan_to_num(g_cpu), rtol=1e-4, atol=1e-5)
