"""mxcompat.kernels: the switch (config, policy, MXCOMPAT_CPU_FAST_PATHS), the CPU rules off giving torch's own ops,
the kept weights (clear, forget_kept), standard_layout, and the layer's imports."""
import ast
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import kernels
from mxcompat.kernels import cpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONV = dict(kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)


def _is_channels_last(t):
    return t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous()


def test_config_fields_and_checks():
    fields = kernels.config.as_dict()
    assert fields['channels_last_min_channels'] == 64 and fields['gemm_conv_max_positions'] == 0
    assert fields['packed_conv'] is True and fields['strided_max_pool'] is True
    assert 'channels_last_min_channels=64' in repr(kernels.config)
    assert all('``%s``' % name in kernels.Config.__doc__ for name in fields)  # each field is documented
    with pytest.raises(AttributeError, match='no field .*packed_convs.*its fields are'):
        kernels.config.packed_convs = False
    with pytest.raises(TypeError, match='packed_conv takes True or False'):
        kernels.config.packed_conv = 'no'
    with pytest.raises(TypeError, match='takes an integer'):
        kernels.config.gemm_conv_max_positions = 1.5
    with pytest.raises(ValueError, match='channels_last_training_divisor takes an integer >= 1, got 0'):
        kernels.config.channels_last_training_divisor = 0
    assert kernels.config.as_dict() == fields


def test_policy_sets_fields_for_the_block_only():
    before = kernels.config.as_dict()
    with kernels.policy(cpu_fast_paths=False, gemm_conv_max_positions=0) as cfg:
        assert cfg is kernels.config and not cfg.cpu_fast_paths and cfg.gemm_conv_max_positions == 0
    assert kernels.config.as_dict() == before
    with pytest.raises(RuntimeError):
        with kernels.policy(strided_max_pool=False):
            raise RuntimeError
    assert kernels.config.as_dict() == before
    # a bad field changes nothing, not even the good ones given with it
    with pytest.raises(AttributeError):
        with kernels.policy(packed_conv=False, no_such_field=1):
            pass
    assert kernels.config.as_dict() == before


def test_cpu_fast_paths_off_gives_torch_own_ops():
    rs = np.random.RandomState(0)
    x, w = rs.randn(2, 64, 8, 8).astype(np.float32), rs.randn(64, 64, 3, 3).astype(np.float32)
    data, weight = mx.nd.array(x), mx.nd.array(w)
    assert _is_channels_last(mx.nd.Convolution(data, weight, **CONV)._t)
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    pooled = torch.max_pool2d(want, (2, 2), (2, 2))
    fresh = mx.nd.array(w)
    with kernels.policy(cpu_fast_paths=False):
        assert not kernels.onednn_fusion()
        y = mx.nd.Convolution(data, fresh, **CONV)
        p = mx.nd.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type='max')
    assert y._t.is_contiguous() and fresh._t not in cpu._REORDERED
    assert torch.equal(y._t, want) and torch.equal(p._t, pooled)  # torch's own kernels, to the bit


def test_environment_turns_the_cpu_fast_paths_off():
    code = ('import mxcompat as mx\n'
            'y = mx.nd.Convolution(mx.nd.ones((1, 64, 8, 8)), mx.nd.ones((64, 64, 3, 3)), kernel=(3, 3), pad=(1, 1),'
            ' num_filter=64, no_bias=True)\n'
            'print(mx.kernels.config.cpu_fast_paths, y.to_torch(internal=True).is_contiguous())\n')
    for value, want in (('0', 'False True'), ('1', 'True False')):
        env = dict(os.environ, MXCOMPAT_CPU_FAST_PATHS=value, PYTHONPATH=ROOT)
        out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == want.split()


def test_meta_tensors_take_torch_ops():
    # shape inference runs the ops on meta tensors: no CPU rule applies there
    x, w = torch.empty(2, 64, 8, 8, device='meta'), torch.empty(64, 64, 3, 3, device='meta')
    y = kernels.conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1, recording=False)
    assert y.device.type == 'meta' and y.shape == (2, 64, 8, 8) and y.is_contiguous()
    assert kernels.max_pool2d(y, (2, 2), (2, 2), (0, 0), False).shape == (2, 64, 4, 4)


@pytest.mark.parametrize('geometry', [dict(kernel=(7, 7), stride=(2, 2), pad=(3, 3), cin=3, hw=32),
                                      dict(kernel=(1, 1), stride=(2, 2), pad=(0, 0), cin=64, hw=16),
                                      dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), cin=128, hw=8),
                                      dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), cin=64, hw=9)],
                         ids=['stem', '1x1-stride2', '3x3', '3x3-stride2'])
@pytest.mark.parametrize('batch', [1, 3])
def test_first_inference_call_keeps_no_reordered_weight(geometry, batch):
    # The first inference call with a weight version uses its reordered weight once and keeps nothing; the second
    # keeps it: the same bits (a network's first forward, which deferred initialization runs, holds no reordered
    # copies)
    rs = np.random.RandomState(batch)
    g = dict(geometry)
    cin, hw = g.pop('cin'), g.pop('hw')
    x = mx.nd.array(rs.randn(batch, cin, hw, hw))
    for bias in (None, mx.nd.array(rs.randn(64))):
        w = mx.nd.array(rs.randn(64, cin, *g['kernel']))
        args = dict(g, num_filter=64, no_bias=bias is None)
        conv = lambda: mx.nd.Convolution(*[a for a in (x, w, bias) if a is not None], **args).asnumpy()  # noqa: E731
        first = conv()
        assert w._t not in cpu._REORDERED
        second = conv()
        assert (w._t in cpu._REORDERED) == cpu.ONEDNN_CONV
        np.testing.assert_array_equal(first, second)
        np.testing.assert_array_equal(conv(), second)
        with kernels.policy(packed_conv=False):
            want = conv()
        np.testing.assert_allclose(first, want, rtol=0, atol=1e-5 * np.abs(want).max())


def test_clear_and_forget_kept(monkeypatch):
    monkeypatch.setattr(kernels.config, 'gemm_conv_max_positions', 16)  # (the patch-product rule on; off by default)
    rs = np.random.RandomState(1)
    x = mx.nd.array(rs.randn(1, 64, 9, 9))
    weights = [mx.nd.array(rs.randn(64, 64, 3, 3)) for _ in range(2)]
    small = mx.nd.array(rs.randn(1, 64, 4, 4))  # the patch-product path keeps a channels-last weight
    want = [mx.nd.Convolution(x, w, **CONV).asnumpy() for w in weights]
    for w, y in zip(weights, want):  # (a reordered weight is kept from the second call on, same values)
        np.testing.assert_array_equal(mx.nd.Convolution(x, w, **CONV).asnumpy(), y)
    mx.nd.Convolution(small, weights[0], **CONV).wait_to_read()
    if cpu.ONEDNN_CONV:
        assert all(w._t in cpu._REORDERED for w in weights)
    assert weights[0]._t in cpu._CHANNELS_LAST
    kernels.forget_kept(weights[0]._t)
    assert weights[0]._t not in cpu._REORDERED and weights[0]._t not in cpu._CHANNELS_LAST
    assert weights[1]._t in cpu._REORDERED or not cpu.ONEDNN_CONV
    kernels.clear()
    assert not len(cpu._REORDERED) and not len(cpu._CHANNELS_LAST) and not len(cpu._FOLDED)
    for w, y in zip(weights, want):  # kept again on the next call, same values
        np.testing.assert_array_equal(mx.nd.Convolution(x, w, **CONV).asnumpy(), y)


def test_standard_layout():
    t = torch.arange(24.).reshape(1, 2, 3, 4)
    assert kernels.standard_layout(t) is t
    cl = t.contiguous(memory_format=torch.channels_last)
    out = kernels.standard_layout(cl)
    assert out.is_contiguous() and torch.equal(out, t) and out.view(-1).shape == (24,)


def test_the_layer_imports_only_torch_and_itself():
    # kernels/ sits under operator/: torch, numpy and the standard library, and its own modules; never ndarray,
    # symbol, gluon or operator
    folder = os.path.join(ROOT, 'mxcompat', 'kernels')
    for name in sorted(os.listdir(folder)):
        if not name.endswith('.py'):
            continue
        with open(os.path.join(folder, name)) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.level <= 1 or node.module == 'base', (name, node.module)
                assert node.level or node.module.split('.')[0] in ('torch', 'numpy'), (name, node.module)
            elif isinstance(node, ast.Import):
                assert all(a.name.split('.')[0] in sys.stdlib_module_names | {'torch', 'numpy'}
                           for a in node.names), name


# ---- max pooling of plain data through channels-last (kernels.cpu.max_pool2d, config.channels_last_max_pool) ------
def _pool_input(shape, dtype, kind, rs):
    x = rs.randn(*shape)
    if kind == 'ties':  # equal maxima in a window: both kernels take the first
        x = rs.randint(0, 3, shape).astype(np.float64)
    elif kind == 'equal':
        x = np.ones(shape)
    elif kind == 'nan':
        x[x > 1.2] = np.nan
    return torch.tensor(x, dtype=dtype)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('shape', [(8, 16, 20, 20), (1, 64, 32, 32), (4, 4, 64, 64)])
@pytest.mark.parametrize('kernel,stride,pad,ceil', [((2, 2), (2, 2), (0, 0), False), ((3, 3), (2, 2), (1, 1), False),
                                                    ((3, 3), (2, 2), (0, 0), True), ((2, 3), (1, 2), (1, 1), True),
                                                    ((3, 3), (1, 1), (0, 0), False)])
@pytest.mark.parametrize('kind', ['random', 'ties', 'equal', 'nan'])
def test_channels_last_max_pool_equals_torch_kernel(monkeypatch, dtype, shape, kernel, stride, pad, ceil, kind):
    # values and gradients bit for bit those of torch's NCHW kernel, with the rule on and off, plain results
    x = _pool_input(shape, dtype, kind, np.random.RandomState(sum(shape) + kernel[1] + pad[0]))
    want = torch.max_pool2d(x, kernel, stride, pad, 1, ceil)
    leaf = x.clone().requires_grad_()
    torch.max_pool2d(leaf, kernel, stride, pad, 1, ceil).backward(torch.arange(want.numel(), dtype=dtype)
                                                                  .view(want.shape))
    calls, fast = [], cpu._ChannelsLastMaxPool2d.apply
    monkeypatch.setattr(cpu._ChannelsLastMaxPool2d, 'apply', lambda *a: calls.append(1) or fast(*a))
    for on in (True, False):
        with kernels.policy(channels_last_max_pool=on):
            y = kernels.max_pool2d(x, kernel, stride, pad, ceil)
            ours = x.clone().requires_grad_()
            g = kernels.max_pool2d(ours, kernel, stride, pad, ceil)
        g.backward(torch.arange(want.numel(), dtype=dtype).view(want.shape))
        assert y.is_contiguous() and g.is_contiguous() and ours.grad.is_contiguous()
        assert torch.equal(y.isnan(), want.isnan()) and torch.equal(y.nan_to_num(7.5), want.nan_to_num(7.5))
        assert torch.equal(g.detach().nan_to_num(7.5), want.nan_to_num(7.5))
        assert torch.equal(ours.grad, leaf.grad)
        assert len(calls) == 1  # recorded: the rule's own backward with the rule on only


def test_channels_last_max_pool_applies_where_it_pays(monkeypatch):
    seen = []
    real = torch.Tensor.contiguous

    def contiguous(t, **kw):
        seen.append(kw.get('memory_format'))
        return real(t, **kw)

    monkeypatch.setattr(torch.Tensor, 'contiguous', contiguous)

    def through_channels_last(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1)):
        seen.clear()
        y = kernels.max_pool2d(x, kernel, stride, pad, False)
        assert y.is_contiguous() or not x.is_contiguous()
        return torch.channels_last in seen

    assert through_channels_last(torch.randn(16, 32, 32, 32))
    assert through_channels_last(torch.randn(1, 64, 56, 56))  # batch 1 inference
    assert through_channels_last(torch.randn(16, 32, 32, 32, dtype=torch.float64))
    assert not through_channels_last(torch.randn(8, 3, 64, 64))  # 3 channels: torch's NCHW kernel is faster
    assert not through_channels_last(torch.randn(4, 8, 32, 32))  # small: torch's NCHW kernel is as fast
    assert not through_channels_last(torch.randn(16, 32, 32, 32, dtype=torch.float16))
    # unpadded without a gradient: 2x2 windows (and fewer than 8 channels) take the strided views instead
    assert not through_channels_last(torch.randn(64, 6, 24, 24), (2, 2), (2, 2), (0, 0))
    assert not through_channels_last(torch.randn(64, 6, 24, 24), (3, 3), (2, 2), (0, 0))
    assert through_channels_last(torch.randn(64, 16, 12, 12), (3, 3), (2, 2), (0, 0))
    assert through_channels_last(torch.randn(64, 6, 24, 24, requires_grad=True), (2, 2), (2, 2), (0, 0))
    cl = torch.randn(16, 32, 32, 32).contiguous(memory_format=torch.channels_last)  # already channels-last: as before
    assert not through_channels_last(cl) and kernels.max_pool2d(cl, (3, 3), (2, 2), (1, 1), False).is_contiguous(
        memory_format=torch.channels_last)
    for off in (dict(channels_last_max_pool=False), dict(cpu_fast_paths=False)):
        with kernels.policy(**off):
            assert not through_channels_last(torch.randn(16, 32, 32, 32))


def test_channels_last_max_pool_twice_differentiable():
    x = torch.randn(2, 8, 9, 9, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda z: cpu._ChannelsLastMaxPool2d.apply(z, (3, 3), (2, 2), (1, 1), True),
                                        (x,))


def test_float32_sqrt_is_correctly_rounded():
    # MXNet's kernels call C's sqrtf (correctly rounded); torch's vectorized float32 sqrt is 1 ulp off on ~17%
    x = np.random.RandomState(0).rand(100000).astype(np.float32) * 3
    t = torch.from_numpy(x)
    np.testing.assert_array_equal(kernels.sqrt(t).numpy(), np.sqrt(x))
    np.testing.assert_array_equal(kernels.sqrt_(t.clone()).numpy(), np.sqrt(x))
    d = torch.from_numpy(x.astype(np.float64))
    assert kernels.sqrt(d).dtype == torch.float64 and torch.equal(kernels.sqrt(d), torch.sqrt(d))


def test_float32_sqrt_paths_agree_and_stay_quiet():
    """The numpy root (no gradient wanted), the float64 root (recorded) and strided, 0-d and negative inputs: the
    same correctly rounded values, NaN for negatives without a warning, as torch's kernel gives them."""
    import warnings
    x = torch.from_numpy(np.random.RandomState(1).rand(4, 6).astype(np.float32) * 5)
    x[0, 0] = -1.0
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        plain = kernels.sqrt(x)
        strided = kernels.sqrt(x.t())
        scalar = kernels.sqrt(torch.tensor(2.0))
    want = np.sqrt(np.where(x.numpy() < 0, np.nan, x.numpy()).astype(np.float32))
    np.testing.assert_array_equal(plain.numpy(), want)
    np.testing.assert_array_equal(strided.numpy(), want.T)
    assert scalar.shape == () and scalar.item() == np.sqrt(np.float32(2.0))
    leaf = x.abs().requires_grad_()
    with torch.enable_grad():
        r = kernels.sqrt(leaf)
        r.sum().backward()
    np.testing.assert_array_equal(r.detach().numpy(), np.sqrt(np.abs(x.numpy())))
    assert leaf.grad is not None
    y = x.abs()
    v = y._version
    kernels.sqrt_(y)
    assert y._version > v  # (written through numpy: autograd is told)


@pytest.mark.parametrize('wd,clip,rescale', [(0.0, -1.0, 1.0), (1e-4, -1.0, 0.5), (1e-3, 0.01, 2.0)])
@pytest.mark.parametrize('n', [5, 40000, 70001])  # (one chunk, and past the chunk size with a ragged end)
def test_chunked_adam_gives_the_term_by_term_bits(n, wd, clip, rescale):
    """kernels.adam_step (numpy over chunks) and the torch path of adam_update compute the same roundings."""
    from mxcompat.operator import optimizer_updates as upd
    rs = np.random.RandomState(n)
    arrays = [rs.randn(n).astype(np.float32), rs.randn(n).astype(np.float32),
              rs.randn(n).astype(np.float32) * 0.1, rs.rand(n).astype(np.float32) * 0.01]
    fast = [torch.from_numpy(a.copy()) for a in arrays]
    slow = [torch.from_numpy(a.copy()) for a in arrays]
    with kernels.policy(chunked_updates=False):
        for _ in range(3):
            upd.adam_update(*slow, lr=0.001, wd=wd, rescale_grad=rescale, clip_gradient=clip)
    version = fast[0]._version
    for _ in range(3):
        upd.adam_update(*fast, lr=0.001, wd=wd, rescale_grad=rescale, clip_gradient=clip)
    assert fast[0]._version > version
    for a, b in zip(fast, slow):
        assert torch.equal(a, b)


@pytest.mark.parametrize('wd,clip,rescale,clip_w', [(0.0, -1.0, 1.0, -1.0), (1e-4, -1.0, 0.5, -1.0),
                                                   (1e-3, 0.01, 2.0, 0.9)])
@pytest.mark.parametrize('n', [5, 40000, 70001])  # (one chunk, and past the chunk size with a ragged end)
def test_chunked_rmsprop_gives_the_term_by_term_bits(n, wd, clip, rescale, clip_w):
    """kernels.rmsprop_step (numpy over chunks) and the torch path of rmsprop_update compute the same roundings."""
    from mxcompat.operator import optimizer_updates as upd
    rs = np.random.RandomState(n)
    arrays = [rs.randn(n).astype(np.float32), rs.randn(n).astype(np.float32), rs.rand(n).astype(np.float32) * 0.01]
    fast = [torch.from_numpy(a.copy()) for a in arrays]
    slow = [torch.from_numpy(a.copy()) for a in arrays]
    kw = dict(lr=0.001, gamma1=0.9, wd=wd, rescale_grad=rescale, clip_gradient=clip, clip_weights=clip_w)
    with kernels.policy(chunked_updates=False):
        for _ in range(3):
            upd.rmsprop_update(*slow, **kw)
    version = fast[0]._version
    for _ in range(3):
        upd.rmsprop_update(*fast, **kw)
    assert fast[0]._version > version and fast[2]._version > version
    for a, b in zip(fast, slow):
        assert torch.equal(a, b)


@pytest.mark.parametrize('opt,kwargs', [('adagrad', dict(learning_rate=0.1, wd=1e-3, clip_gradient=0.5)),
                                        ('adagrad', dict(learning_rate=0.1, rescale_grad=2.0)),
                                        ('adadelta', dict(rho=0.8, wd=1e-2, clip_gradient=0.5, rescale_grad=2.0)),
                                        ('adadelta', dict()),
                                        ('nadam', dict(learning_rate=0.01, wd=1e-2, clip_gradient=0.5)),
                                        ('nadam', dict(learning_rate=0.01, rescale_grad=0.5))])
def test_chunked_python_level_rules_give_the_torch_bits(opt, kwargs):
    """kernels.adagrad_step / adadelta_step / nadam_step (numpy over chunks) and the optimizers' torch arithmetic
    (MXNet's NDArray operations) give the same weights, states and gradients over 3 steps, past a chunk's size."""
    import mxcompat as mx
    rs = np.random.RandomState(0)
    w0 = rs.randn(70001).astype(np.float32)
    grads = [rs.randn(70001).astype(np.float32) for _ in range(3)]
    out = []
    for chunks in (True, False):
        o = mx.optimizer.create(opt, **kwargs)
        w = mx.nd.array(w0)
        state = o.create_state(0, w)
        gs = [mx.nd.array(g) for g in grads]
        with kernels.policy(chunked_updates=chunks):
            for g in gs:
                o.update(0, w, g, state)
        states = state if isinstance(state, tuple) else (state,)
        out.append([w.asnumpy()] + [s.asnumpy() for s in states] + [g.asnumpy() for g in gs])
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('op,kwargs', [('nag_mom_update', dict(lr=0.1, momentum=0.9, wd=1e-2)),
                                       ('nag_mom_update', dict(lr=0.1, momentum=0.8, rescale_grad=2.0,
                                                               clip_gradient=0.5)),
                                       ('signum_update', dict(lr=0.01, momentum=0.9, wd=1e-2, wd_lh=0.1)),
                                       ('signum_update', dict(lr=0.01, momentum=0.5, rescale_grad=0.5,
                                                              clip_gradient=0.5))])
def test_chunked_nag_and_signum_give_the_torch_bits(op, kwargs):
    """kernels.nag_mom_step / signum_mom_step (numpy over chunks) and the torch path of the update compute the same
    roundings over 3 steps, past a chunk's size."""
    from mxcompat.operator import optimizer_updates as upd
    rs = np.random.RandomState(5)
    w0, m0 = rs.randn(70001).astype(np.float32), rs.randn(70001).astype(np.float32) * 0.1
    grads = [torch.from_numpy(rs.randn(70001).astype(np.float32)) for _ in range(3)]
    out = []
    for chunks in (True, False):
        w, m = torch.from_numpy(w0.copy()), torch.from_numpy(m0.copy())
        with kernels.policy(chunked_updates=chunks):
            for g in grads:
                getattr(upd, op)(w, g, m, **kwargs)
        out.append((w, m))
    for a, b in zip(*out):
        assert torch.equal(a, b)


def test_glibc_expf_equals_the_c_librarys():
    # the float64 table-and-cubic form of glibc's expf gives the C library's float32 bits (where it is glibc's),
    # over underflow, subnormal results, ordinary values, overflow, infinities and NaN
    import ctypes
    import ctypes.util
    try:
        expf = ctypes.CDLL(ctypes.util.find_library('m') or 'libm.so.6').expf
    except (OSError, AttributeError):
        pytest.skip('no C library expf to compare with')
    expf.restype, expf.argtypes = ctypes.c_float, [ctypes.c_float]
    rs = np.random.RandomState(0)
    x = np.concatenate([rs.uniform(-110, 0, 40000), rs.uniform(-1, 0, 40000), rs.uniform(-20, 89, 20000),
                        -rs.exponential(1e-3, 10000),
                        [0, -0.0, -np.inf, np.inf, np.nan, -87.5, -103.9, -103.97208, -104.5, 88.72, 88.73]])
    x = x.astype(np.float32)
    want = np.array([expf(float(v)) for v in x], np.float32)
    got = cpu.glibc_expf(x)
    np.testing.assert_array_equal(got.view(np.uint32)[~np.isnan(x)], want.view(np.uint32)[~np.isnan(x)])
    assert np.isnan(got[np.isnan(x)]).all()


@pytest.mark.parametrize('op,n_states,kwargs', [
    ('rmspropalex_update', 3, dict(lr=0.01, gamma1=0.9, gamma2=0.9, wd=1e-2)),
    ('rmspropalex_update', 3, dict(lr=0.01, gamma1=0.8, gamma2=0.7, rescale_grad=0.5, clip_gradient=0.5,
                                   clip_weights=0.9)),
    ('ftml_update', 3, dict(lr=0.01, t=3, wd=1e-2)),
    ('ftml_update', 3, dict(lr=0.01, t=2, beta1=0.5, rescale_grad=0.5, clip_grad=0.5))])
def test_chunked_centered_rmsprop_and_ftml_give_the_torch_bits(op, n_states, kwargs):
    """kernels.rmspropalex_step / ftml_step (numpy over chunks) and the torch path of the update compute the same
    roundings over 3 steps, past a chunk's size."""
    from mxcompat.operator import optimizer_updates as upd
    rs = np.random.RandomState(6)
    w0 = rs.randn(70001).astype(np.float32)
    s0 = [rs.rand(70001).astype(np.float32) * 0.1 + (0.02 if i == 0 else 0.0) for i in range(n_states)]
    grads = [torch.from_numpy(rs.randn(70001).astype(np.float32)) for _ in range(3)]
    out = []
    for chunks in (True, False):
        w, states = torch.from_numpy(w0.copy()), [torch.from_numpy(a.copy()) for a in s0]
        with kernels.policy(chunked_updates=chunks):
            for g in grads:
                getattr(upd, op)(w, g, *states, **kwargs)
        out.append([w] + states)
    for a, b in zip(*out):
        assert torch.equal(a, b)


@pytest.mark.parametrize('kwargs', [dict(wd=1e-2), dict(wd=0.0, bias_correction=False, rescale_grad=0.5,
                                                         clip_gradient=0.5, lower_bound=0.5, upper_bound=1.5)])
def test_chunked_multi_lamb_gives_the_torch_bits(kwargs):
    """kernels.multi_lamb_direction (numpy over chunks, the float64 tail of the kernel) and the torch path of the
    multi-tensor lamb_update compute the same roundings over 3 steps, past a chunk's size."""
    from mxcompat.operator import optimizer_updates as upd
    rs = np.random.RandomState(7)
    w0, m0, v0 = rs.randn(70001).astype(np.float32), np.zeros(70001, np.float32), np.zeros(70001, np.float32)
    grads = [torch.from_numpy(rs.randn(70001).astype(np.float32)) for _ in range(3)]
    out = []
    for chunks in (True, False):
        w, m, v = (torch.from_numpy(a.copy()) for a in (w0, m0, v0))
        with kernels.policy(chunked_updates=chunks):
            for t, g in enumerate(grads, 1):
                upd.lamb_update(w, g, m, v, 0.01, t=t, **kwargs)
        out.append((w, m, v))
    for a, b in zip(*out):
        assert torch.equal(a, b)
