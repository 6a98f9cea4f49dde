"""mx.npx: golden results from MXNet 1.9.1 (tests/fixtures/npx), and each registry-backed operator against the
legacy mx.nd operator on the same data."""
import json
import os

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np, npx
from tests._fixtures import FIXTURES, load_generator
from tests.numpy._golden import check_record, check_signature, signatures

CASES = load_generator('npx', 'npx_cases.py')
GOLD = json.load(open(os.path.join(FIXTURES, 'npx', 'npx.json')))
OURS = {}


def _ours():
    if not OURS:
        OURS.update(CASES.record_all(mx))
    return OURS


# Known differences from MXNet 1.9.1, each with what mxcompat does instead.
KNOWN = {
    # MXNet's legacy shape rule wants index shape (1,) for 1-D data; the registry's pick takes a 0-d index too
    'pick_1d_scalar_index': {'outputs': [{'shape': [1], 'dtype': 'float32', 'type': 'ndarray', 'values': [2.0]}],
                             'single': True},
}


@pytest.mark.parametrize('name', sorted(KNOWN))
def test_known_differences(name):
    assert _ours()[name] == KNOWN[name]


@pytest.mark.parametrize('name', sorted(set(GOLD) - set(KNOWN)))
def test_golden(name):
    check_record(GOLD[name], _ours()[name])


def test_every_case_recorded():
    assert set(GOLD) == set(CASES.CASES)


def test_names_match_mxnet():
    names = ('activation arange_like batch_dot batch_flatten batch_norm cast constraint_check convolution cpu '
             'cpu_pinned current_context deconvolution dropout embedding erf erfinv fully_connected gamma gammaln '
             'gather_nd get_cuda_compute_capability gpu gpu_memory_info image is_np_array is_np_shape layer_norm '
             'leaky_relu load log_softmax multibox_detection multibox_prior multibox_target nonzero num_gpus '
             'one_hot pick pooling random relu reset_np reshape reshape_like rnn roi_pooling save sequence_mask '
             'set_np shape_array sigmoid slice smooth_l1 softmax topk utils waitall Context').split()
    missing = [n for n in names if not hasattr(npx, n)]
    assert not missing


# each npx operator equals the legacy operator it is an alias of
_R = onp.random.RandomState(0)
_DATA = _R.randn(2, 3, 4, 4).astype('float32')
_SAME_AS_ND = [
    ('activation', 'Activation', [_DATA], {'act_type': 'softrelu'}),
    ('batch_flatten', 'Flatten', [_DATA], {}),
    ('convolution', 'Convolution', [_DATA, _R.randn(2, 3, 3, 3).astype('float32'), onp.ones(2, 'float32')],
     {'kernel': (3, 3), 'num_filter': 2, 'stride': (1, 1)}),
    ('pooling', 'Pooling', [_DATA], {'kernel': (2, 2), 'pool_type': 'avg', 'pooling_convention': 'full'}),
    ('fully_connected', 'FullyConnected', [_DATA, _R.randn(5, 48).astype('float32'), onp.zeros(5, 'float32')],
     {'num_hidden': 5}),
    ('layer_norm', 'LayerNorm', [_DATA, onp.ones(4, 'float32'), onp.zeros(4, 'float32')], {'axis': -1}),
    ('softmax', 'softmax', [_DATA], {'axis': 1, 'temperature': 0.5}),
    ('log_softmax', 'log_softmax', [_DATA], {}),
    ('leaky_relu', 'LeakyReLU', [_DATA], {'act_type': 'elu', 'slope': 0.3}),
    ('smooth_l1', 'smooth_l1', [_DATA], {'scalar': 2.0}),
    ('topk', 'topk', [_DATA], {'k': 2, 'ret_typ': 'both', 'axis': 1}),
    ('one_hot', 'one_hot', [onp.array([0, 3, 1], 'float32')], {'depth': 4}),
    ('batch_dot', 'batch_dot', [_DATA[0], _DATA[1]], {'transpose_a': True}),
    ('erf', 'erf', [_DATA], {}),
    ('gammaln', 'gammaln', [onp.abs(_DATA) + 0.1], {}),
    ('shape_array', 'shape_array', [_DATA], {}),
]


@pytest.mark.parametrize('npx_name, nd_name, inputs, kwargs', _SAME_AS_ND, ids=[c[0] for c in _SAME_AS_ND])
def test_same_as_nd(npx_name, nd_name, inputs, kwargs):
    ours = getattr(npx, npx_name)(*[np.array(a, dtype=a.dtype) for a in inputs], **kwargs)
    legacy = getattr(mx.nd, nd_name)(*[mx.nd.array(a, dtype=a.dtype) for a in inputs], **kwargs)
    ours = ours if isinstance(ours, list) else [ours]
    legacy = legacy if isinstance(legacy, list) else [legacy]
    for o, g in zip(ours, legacy):
        assert type(o) is np.ndarray
        assert o.dtype == g.dtype and o.shape == g.shape
        onp.testing.assert_allclose(o.asnumpy(), g.asnumpy(), rtol=1e-6, atol=1e-6)


def test_autograd_through_npx():
    x = np.array(_DATA)
    w = np.array(_R.randn(5, 48).astype('float32'))
    x.attach_grad()
    with mx.autograd.record():
        y = npx.relu(npx.fully_connected(x, w, None, num_hidden=5, no_bias=True)).sum()
    y.backward()
    assert type(x.grad) is np.ndarray and x.grad.shape == x.shape
    xd, wd = mx.nd.array(_DATA), mx.nd.array(w.asnumpy())
    xd.attach_grad()
    with mx.autograd.record():
        yd = mx.nd.relu(mx.nd.FullyConnected(xd, wd, num_hidden=5, no_bias=True)).sum()
    yd.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), xd.grad.asnumpy(), rtol=1e-6)


def test_batch_norm_updates_moving_stats_in_training():
    # (as mx.nd.BatchNorm: the moving statistics are updated when the gradient is computed)
    data = np.array(_DATA[:, :, 0, 0].reshape(2, 3))
    data.attach_grad()
    mean, var = np.zeros(3), np.ones(3)
    with mx.autograd.record():
        y = npx.batch_norm(data, np.ones(3), np.zeros(3), mean, var, momentum=0.5)
    y.backward()
    onp.testing.assert_allclose(mean.asnumpy(), 0.5 * _DATA[:, :, 0, 0].mean(0), rtol=1e-5)


def test_out_and_dropout_training():
    x = np.ones((100, 10))
    with mx.autograd.train_mode():
        y = npx.dropout(x, p=0.5)
    kept = y.asnumpy()
    assert set(onp.unique(kept)) <= {0.0, 2.0} and 0.2 < (kept == 0).mean() < 0.8
    out = np.zeros((2,))
    r = npx.relu(np.array([-1., 3.]), out=out)
    assert r is out and out.tolist() == [0.0, 3.0]


def test_attribute_cache_is_per_call_values():
    x = np.array([[1., 2., 3.]])
    a = npx.softmax(x, axis=-1)
    b = npx.softmax(x, axis=-1, temperature=2.0)
    assert not onp.allclose(a.asnumpy(), b.asnumpy())
    assert onp.allclose(npx.softmax(x, axis=-1).asnumpy(), a.asnumpy())


def test_image_ops():
    img = np.array(onp.arange(48, dtype='uint8').reshape(4, 4, 3))
    t = npx.image.to_tensor(img)
    assert type(t) is np.ndarray and t.shape == (3, 4, 4) and t.dtype == onp.float32
    onp.testing.assert_allclose(t.asnumpy(), mx.nd.image.to_tensor(img.as_nd_ndarray()).asnumpy())
    assert npx.image.flip_left_right(img).asnumpy()[0, 0].tolist() == img.asnumpy()[0, -1].tolist()
    assert callable(npx.image.CreateAugmenter)


def test_save_load_roundtrip(tmp_path):
    f = str(tmp_path / 'a.npz')
    npx.set_np()
    try:
        npx.save(f, {'a': np.arange(6).reshape(2, 3), 's': np.array(3.0)})
        back = npx.load(f)
        assert type(back['a']) is np.ndarray and back['s'].shape == ()
        npx.save(f, np.ones((2,)))
        assert [a.shape for a in npx.load(f)] == [(2,)]
        with pytest.raises(TypeError):
            npx.save(f, [mx.nd.ones((2,))])
    finally:
        npx.reset_np()
    with pytest.raises(ValueError):
        npx.save(f, np.ones((2,)))


# npx.set_np also takes mxcompat's dtype= (NumPy default dtypes, MXNet 2.0's switch)
@pytest.mark.parametrize('name, params', sorted((n, p) for n, p in signatures('npx').items() if n != 'set_np'))
def test_signature_is_mxnets(name, params):
    check_signature(npx, name, params)
