"""mxcompat/operator/optimizer_updates.py: the one-pass path of sgd_mom_update (torch's fused CPU SGD kernel)
against MXNet's formula computed term by term in numpy float32, and the cases that must keep the per-term path."""
import numpy as np
import pytest
import torch
from torch.profiler import profile, ProfilerActivity

from mxcompat.kernels import cpu
from mxcompat.operator import optimizer_updates as _ops

SHAPES = [(37, 29), (13,), (8, 8), (1,)]  # tails that are not a multiple of the vector width


def _mxnet_sgd_mom(w, g, m, lr, momentum, wd, rescale):
    # MXNet 1.9.1's SGDMomKernel, in float32: mom = momentum*mom - lr*wd*w - lr*rescale*g; w += mom
    f = np.float32
    m[:] = f(momentum) * m - (f(lr) * f(wd)) * w - (f(lr) * f(rescale)) * g
    w += m


def _kernels(fn):
    with profile(activities=[ProfilerActivity.CPU]) as p:
        fn()
    return {e.name for e in p.events()}


def _run(dtype=torch.float32, wd=0.0, contiguous=True, mom_contiguous=True, steps=5):
    rs = np.random.RandomState(3)
    w_np = [rs.uniform(-1, 1, s).astype(np.float32) for s in SHAPES]
    m_np = [np.zeros(s, np.float32) for s in SHAPES]
    ws = [torch.tensor(w, dtype=dtype) for w in w_np]
    ms = [torch.zeros(s, dtype=dtype) if mom_contiguous or len(s) < 2 else torch.zeros(s[::-1], dtype=dtype).T
          for s in SHAPES]
    names = set()
    for _ in range(steps):
        g_np = [rs.uniform(-3, 3, s).astype(np.float32) for s in SHAPES]
        gs = [torch.tensor(g, dtype=dtype) if contiguous or g.ndim < 2 else torch.tensor(g.T.copy(), dtype=dtype).T
              for g in g_np]
        with torch.no_grad():
            names |= _kernels(lambda: _ops.sgd_update(ws, gs, ms, [0.05] * 4, [wd] * 4, momentum=0.9,
                                                      rescale_grad=1 / 64))
        for w, g, m in zip(w_np, g_np, m_np):
            _mxnet_sgd_mom(w, g, m, 0.05, 0.9, wd, 1 / 64)
    return ws, ms, w_np, m_np, names


def test_sgd_mom_without_wd_runs_one_fused_pass_with_mxnet_numbers():
    ws, ms, w_np, m_np, names = _run()
    assert 'aten::_fused_sgd_' in names and 'aten::_foreach_mul_' not in names
    for w, m, w_ref, m_ref in zip(ws, ms, w_np, m_np):
        np.testing.assert_allclose(m.numpy(), m_ref, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(w.numpy(), w_ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('case', [dict(wd=1e-3), dict(contiguous=False), dict(mom_contiguous=False),
                                  dict(dtype=torch.float16)])
def test_sgd_mom_keeps_the_per_term_path(case):
    # weight decay would change the order of MXNet's terms; the fused kernel walks weights, gradients and states
    # as flat arrays, so all must be contiguous; float16 computes in float16 term by term, as MXNet's kernel does.
    # float32 gives MXNet's bits: numpy passes over chunks (contiguous tensors of kernels.cpu.CHUNKED_MIN values and
    # more) or unfused multi-tensor passes
    ws, ms, w_np, m_np, names = _run(**case)
    assert 'aten::_fused_sgd_' not in names
    if case.get('dtype') == torch.float16:
        for w, w_ref in zip(ws, w_np):
            np.testing.assert_allclose(w.float().numpy(), w_ref, rtol=2e-3, atol=2e-3)
        return
    for w, m, w_ref, m_ref in zip(ws, ms, w_np, m_np):
        np.testing.assert_array_equal(m.numpy(), m_ref)
        np.testing.assert_array_equal(w.numpy(), w_ref)


@pytest.mark.parametrize('single', [False, True])
@pytest.mark.parametrize('clip', [-1.0, 0.02])
@pytest.mark.parametrize('n', [13, 70001])  # (one chunk; past the chunk size with a ragged end)
def test_sgd_without_momentum_gives_mxnets_bits(n, clip, single):
    # multi_sgd_update (MultiSGDKernel: w + ((0 - (lr * wd) * w) - lr * clip(rescale * g))) and sgd_update
    # (SGDKernel: (1 - lr * wd) * w - lr * clip(rescale * g)) in float32, in their order; the chunked numpy path and
    # the multi-tensor torch path alike
    from mxcompat import kernels
    r = np.random.RandomState(n)
    w0, g0 = r.randn(n).astype(np.float32), r.randn(n).astype(np.float32)
    f = np.float32
    lr, wd, rescale = f(0.05), f(1e-2), f(0.5)
    step = lr * np.clip(rescale * g0, -f(clip), f(clip)) if clip >= 0 else (lr * rescale) * g0
    want = (f(1) - lr * wd) * w0 - step if single else w0 + ((f(0) - (lr * wd) * w0) - step)
    for chunks in (True, False):
        w = torch.from_numpy(w0.copy())
        with kernels.policy(chunked_updates=chunks):
            _ops.sgd_update([w], [torch.from_numpy(g0)], None, [0.05], [1e-2], rescale_grad=0.5, clip_gradient=clip,
                            single=single)
        np.testing.assert_array_equal(w.numpy(), want)


def test_fusable_rejects_a_coefficient_the_kernel_cannot_carry_exactly():
    t = [torch.zeros(3)]
    assert cpu.fused_sgd_applies(t, t, t, np.float32(-0.05 / 64))
    assert not cpu.fused_sgd_applies(t, t, t, -0.05 / 64)  # a float64 coefficient that 1 - (1 - c) would round
    h = [torch.zeros(3, dtype=torch.float16)]
    assert not cpu.fused_sgd_applies(h, h, h, -0.5)


def test_ftrl_update_gives_mxnets_bits():
    # MXNet 1.9.1's FtrlUpdateKernel evaluated in float32 in its own order (this emulation equals MXNet's
    # ftrl_update bit for bit on these 1,000 values: weight, z and n)
    r = np.random.RandomState(0)
    w0, g0 = r.randn(1000).astype(np.float32), r.randn(1000).astype(np.float32)
    z0, n0 = r.randn(1000).astype(np.float32) * 0.1, r.rand(1000).astype(np.float32)
    f = np.float32
    g = g0 * f(0.02)
    z = z0 + (g - (np.sqrt(n0 + g * g) - np.sqrt(n0)) * w0 / f(0.01))
    n = n0 + g * g
    w = (np.sign(z) * f(0.01) - z) / ((f(1) + np.sqrt(n)) / f(0.01) + f(0.001)) * (np.abs(z) > f(0.01))
    weight, zz, nn = (torch.from_numpy(a.copy()) for a in (w0, z0, n0))
    _ops.ftrl_update(weight, torch.from_numpy(g0), zz, nn, 0.01, lamda1=0.01, beta=1.0, wd=0.001, rescale_grad=0.02)
    np.testing.assert_array_equal(zz.numpy(), z)
    np.testing.assert_array_equal(nn.numpy(), n)
    np.testing.assert_array_equal(weight.numpy(), w.astype(np.float32))


@pytest.mark.parametrize('clip', [-1.0, 0.05])
def test_adam_update_gives_mxnets_bits(clip):
    # MXNet 1.9.1's AdamUpdateKernel in float32, term by term in its order (5 steps of mx.optimizer.Adam, dense and
    # row_sparse, equal MXNet's weights bit for bit with this order)
    r = np.random.RandomState(1)
    w0, g0 = r.randn(1000).astype(np.float32), r.randn(1000).astype(np.float32)
    m0, v0 = r.randn(1000).astype(np.float32) * 0.1, r.rand(1000).astype(np.float32) * 0.01
    f = np.float32
    g = g0 * f(0.5) + w0 * f(0.01)
    if clip >= 0:
        g = np.clip(g, -f(clip), f(clip))
    m = f(0.9) * m0 + (f(1) - f(0.9)) * g
    v = f(0.999) * v0 + (f(1) - f(0.999)) * g * g
    w = w0 - f(0.003) * m / (np.sqrt(v) + f(1e-8))
    weight, mean, var = (torch.from_numpy(a.copy()) for a in (w0, m0, v0))
    _ops.adam_update(weight, torch.from_numpy(g0), mean, var, 0.003, wd=0.01, rescale_grad=0.5, clip_gradient=clip)
    np.testing.assert_array_equal(mean.numpy(), m)
    np.testing.assert_array_equal(var.numpy(), v)
    np.testing.assert_array_equal(weight.numpy(), w)


def test_rmsprop_update_gives_mxnets_bits():
    # MXNet 1.9.1's RMSPropUpdateKernel in float32 in its order (5 steps of mx.optimizer.RMSProp equal MXNet's)
    r = np.random.RandomState(2)
    w0, g0, n0 = r.randn(1000).astype(np.float32), r.randn(1000).astype(np.float32), r.rand(1000).astype(np.float32)
    f = np.float32
    g = g0 * f(0.5) + w0 * f(0.01)
    n = (f(1) - f(0.9)) * (g * g) + f(0.9) * n0
    w = w0 - f(0.01) * (g / np.sqrt(n + f(1e-8)))
    weight, nn = torch.from_numpy(w0.copy()), torch.from_numpy(n0.copy())
    _ops.rmsprop_update(weight, torch.from_numpy(g0), nn, 0.01, gamma1=0.9, wd=0.01, rescale_grad=0.5)
    np.testing.assert_array_equal(nn.numpy(), n)
    np.testing.assert_array_equal(weight.numpy(), w)


# mx.optimizer configurations of tests/fixtures/optimizer/gen_optimizer.py whose five steps (weights and every
# state) equal real MXNet 1.9.1's to the last bit; the others agree to float32 rounding (test_optimizer_golden.py).
# SGD with momentum and no decay runs torch's fused kernel (kernels.config.fused_sgd), whose fused products move the
# last bits: with it off those configurations (sgd_sched, sgd_single, ccsgd, LARS's with undecayed biases) give
# MXNet's bits too
BIT_EXACT = ['adadelta', 'adadelta_wd_clip', 'adagrad', 'adagrad_wd_clip', 'adam', 'adam_f64', 'adam_mp', 'adam_sched',
             'adam_single', 'adam_wd_clip', 'adamax', 'adamax_wd_clip', 'dcasgd', 'ftml', 'ftml_wd_clip',
             'ftrl', 'ftrl_sched', 'ftrl_wd_clip', 'groupadagrad', 'lamb', 'lamb_mp', 'lamb_mp_direct',
             'lamb_nobias', 'lamb_single', 'lars_mp', 'lars_sched', 'lbsgd', 'lbsgd_power2', 'nadam',
             'nadam_wd_clip', 'nag_mom', 'nag_mom_clip', 'nag_mp', 'nag_mp_nomom', 'nag_nomom_clip',
             'rmsprop', 'rmsprop_centered', 'rmsprop_centered_clip', 'rmsprop_clip', 'rmsprop_mp',
             'sgd_clip_rescale', 'sgd_direct', 'sgd_f64', 'sgd_fp16', 'sgd_mom_wd', 'sgd_mp',
             'sgd_mp_nomom', 'sgd_plain', 'signsgd', 'signum', 'signum_clip', 'test']


@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('chunks', [True, False])  # (float32 CPU updates as numpy chunks, or torch passes)
@pytest.mark.parametrize('key', BIT_EXACT)
def test_optimizer_steps_give_mxnets_bits(key, chunks):
    import mxcompat as mx
    from mxcompat import kernels
    from tests.optimizer.golden import gen, ARRAYS
    with kernels.policy(chunked_updates=chunks):
        got = gen.pack(gen.run_config(mx, gen.CONFIGS[key]))
    np.testing.assert_array_equal(got, ARRAYS[key])


@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('key', ['ccsgd', 'lars', 'lars_nocorr', 'lars_sched_chunks', 'sgd_chunks', 'sgd_mults',
                                 'sgd_sched', 'sgd_single'])
def test_sgd_momentum_steps_give_mxnets_bits_without_the_fused_kernel(key):
    import mxcompat as mx
    from mxcompat import kernels
    from tests.optimizer.golden import gen, ARRAYS
    with kernels.policy(fused_sgd=False):
        got = gen.pack(gen.run_config(mx, gen.CONFIGS[key]))
    np.testing.assert_array_equal(got, ARRAYS[key])


def test_multi_sum_sq_adds_squares_in_order_as_mxnets_cpu_loop():
    # MXNet 1.9.1's CPU multi_sum_sq: float32 running sum in element order (float16 squares in float16); values
    # from the oracle (the exact sum of the float32 case is 199209.03)
    rs = np.random.RandomState(0)
    a = torch.from_numpy(rs.randn(200000).astype(np.float32))
    b = torch.from_numpy((rs.randn(5000) * 3).astype(np.float16))
    got = _ops.multi_sum_sq([a, b])
    assert got.dtype == torch.float32
    np.testing.assert_array_equal(got.numpy(), np.array([199196.86, 44928.406], np.float32))
