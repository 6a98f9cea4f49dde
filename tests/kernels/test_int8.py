"""mxcompat.kernels.int8: exact int32 sums of 8-bit convolutions and matrix products (oneDNN's int8 operators where
they sum exactly, float64 elsewhere) on extreme values, and the quantized weights the fused oneDNN operators keep per
weight version (_sg_mkldnn_conv, _sg_mkldnn_fully_connected)."""
import gc
import pathlib
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mxcompat as mx
from mxcompat import kernels
from mxcompat.kernels import cpu, int8

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'contrib' / 'sg_mkldnn'
sys.path.insert(0, str(FIX))
import sg_graphs  # noqa: E402

sys.path.remove(str(FIX))
GOLD = np.load(FIX / 'cases.npz')
CONV = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}


def _onednn():
    if not (int8.ONEDNN_INT8 and int8.onednn_sums_exactly()):
        pytest.skip("torch's oneDNN int8 operators are missing or do not sum exactly on this processor")


def _extreme(shape, dtype, kind, rs):
    """Data at its extremes: all highest, all lowest, or 90% extreme and 10% random (sums past 2**24 that are not
    round numbers)."""
    lo, hi = (0, 255) if dtype is torch.uint8 else (-128, 127)
    if kind == 'high':
        return torch.full(shape, hi, dtype=dtype)
    if kind == 'low':
        return torch.full(shape, lo, dtype=dtype)
    pick = torch.from_numpy(rs.rand(*shape) < 0.9)
    ends = torch.from_numpy(rs.choice([lo, hi], size=shape))
    return torch.where(pick, ends, torch.from_numpy(rs.randint(lo, hi + 1, size=shape))).to(dtype)


# (data shape, weight shape, stride, pad, dilate, groups): the models' largest sums (512 x 3 x 3, 2048 x 1 x 1),
# grouped, depthwise, strided and dilated, 1-D and 3-D
GEOMETRIES = [((1, 512, 7, 7), (8, 512, 3, 3), 1, 1, 1, 1), ((2, 2048, 3, 3), (16, 2048, 1, 1), 1, 0, 1, 1),
              ((1, 64, 9, 9), (64, 1, 3, 3), 2, 1, 1, 64), ((1, 64, 10, 10), (32, 16, 3, 3), 1, 2, 2, 4),
              ((1, 256, 11), (8, 256, 5), 2, 2, 1, 1), ((1, 96, 5, 5, 5), (4, 96, 3, 3, 3), 1, 1, 1, 1)]


@pytest.mark.parametrize('dtype', [torch.uint8, torch.int8])
@pytest.mark.parametrize('geometry', GEOMETRIES)
def test_conv_sums_are_exact_at_the_extremes(dtype, geometry):
    _onednn()
    xs, ws, stride, pad, dilate, groups = geometry
    nd = len(xs) - 2
    rs = np.random.RandomState(0)
    for xk, wk in (('high', 'high'), ('high', 'low'), ('low', 'low'), ('low', 'high'), ('mixed', 'mixed')):
        x, w = _extreme(xs, dtype, xk, rs), _extreme(ws, torch.int8, wk, rs)
        args = ((stride,) * nd, (pad,) * nd, (dilate,) * nd, groups)
        want = CONV[x.dim()](x.double(), w.double(), None, *args).to(torch.float32)
        got = int8.conv_sums(x, w, *args)
        assert got.dtype == torch.float32 and torch.equal(got, want), (xk, wk)
        with kernels.policy(cpu_fast_paths=False):  # the float64 form
            assert torch.equal(int8.conv_sums(x, w, *args), want)


@pytest.mark.parametrize('dtype', [torch.uint8, torch.int8])
def test_linear_sums_are_exact_at_the_extremes(dtype):
    _onednn()
    rs = np.random.RandomState(1)
    for xk, wk in (('high', 'high'), ('high', 'low'), ('low', 'low'), ('mixed', 'mixed')):
        x, w = _extreme((3, 4608), dtype, xk, rs), _extreme((1000, 4608), torch.int8, wk, rs)
        want = (x.double() @ w.double().t()).to(torch.float32)
        assert torch.equal(int8.linear_sums(x, w), want), (xk, wk)


def test_sums_that_could_pass_int32_take_float64():
    # 70,000 products of 255 x 127: past 2**31, where oneDNN's int32 sums would wrap
    x, w = torch.full((1, 70000, 1, 1), 255, dtype=torch.uint8), torch.full((2, 70000, 1, 1), 127, dtype=torch.int8)
    got = int8.conv_sums(x, w, (1, 1), (0, 0), (1, 1), 1)
    assert torch.equal(got, torch.full((1, 2, 1, 1), float(70000 * 255 * 127)))
    xl, wl = x.reshape(1, -1), w.reshape(2, -1)
    assert torch.equal(int8.linear_sums(xl, wl), torch.full((1, 2), float(70000 * 255 * 127)))


def _bind(name):
    sym = mx.sym.load_json(sg_graphs.graph_json(name))
    feed = sg_graphs.graph_inputs(name)
    args = {n: mx.nd.array(feed[n], dtype=feed[n].dtype) for n in sym.list_arguments()}
    aux = {n: mx.nd.array(feed[n]) for n in sym.list_auxiliary_states()}
    return sym, feed, sym.bind(mx.cpu(), args, aux_states=aux, grad_req='null')


def _fresh(sym, exe):
    """The outputs of a new executor over copies of ``exe``'s arrays (nothing kept for them)."""
    args = {n: a.copy() for n, a in exe.arg_dict.items()}
    aux = {n: a.copy() for n, a in exe.aux_dict.items()}
    return [o.asnumpy() for o in sym.bind(mx.cpu(), args, aux_states=aux, grad_req='null').forward()]


def _weight(exe):
    return next(a for n, a in exe.arg_dict.items() if n.endswith('weight'))


@pytest.mark.parametrize('name', ['q_u8_bn_sum_s8_post', 'q_s8_bias_int32', 'q_u8_strided_dilated',
                                  'fcq_channel_u8_relu_calib', 'fcq_channel_s8_calib'])
def test_quantized_weights_are_kept_per_weight_version(name):
    sym, feed, exe = _bind(name)
    first = [o.asnumpy() for o in exe.forward()]
    weight = _weight(exe)
    assert weight._t in cpu._QUANTIZED
    kept = cpu._QUANTIZED[weight._t]
    again = [o.asnumpy() for o in exe.forward()]
    assert cpu._QUANTIZED[weight._t] is kept  # the same entry: nothing computed again
    for i, (a, b) in enumerate(zip(first, again)):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, GOLD['%s/%d' % (name, i)])
    # an in-place write bumps the weight's version counter: quantized again, as a new executor computes it
    if weight.dtype == np.int8:
        weight[:] = mx.nd.array(-feed[[n for n in feed if n.endswith('weight')][0]], dtype='int8')
    else:
        weight[:] = weight * 0.5
    changed = [o.asnumpy() for o in exe.forward()]
    assert cpu._QUANTIZED[weight._t] is not kept
    assert not np.array_equal(changed[0], first[0])
    for a, b in zip(changed, _fresh(sym, exe)):
        np.testing.assert_array_equal(a, b)


def test_a_batchnorm_write_and_forget_kept_quantize_again():
    sym, feed, exe = _bind('q_u8_bn_relu_calib')
    first = exe.forward()[0].asnumpy()
    weight = _weight(exe)
    gamma = next(a for n, a in exe.arg_dict.items() if n.endswith('gamma'))
    gamma[:] = gamma * 3.0  # (a BatchNorm array: its version counter is in the key)
    scaled = exe.forward()[0].asnumpy()
    assert not np.array_equal(scaled, first)
    np.testing.assert_array_equal(scaled, _fresh(sym, exe)[0])
    # a write the version counters do not see (as Parameter.set_data's through DLPack), then forget_kept
    kept = cpu._QUANTIZED[weight._t]
    gamma._t.data.div_(3.0)
    kernels.forget_kept(gamma._t)  # (told of a write to another array: every quantized weight is made again)
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), first)
    assert cpu._QUANTIZED[weight._t] is not kept
    kernels.clear()
    assert not len(cpu._QUANTIZED)
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), first)


def test_parameter_set_data_quantizes_again(tmp_path):
    # Parameter.set_data writes past the version counter and calls kernels.forget_kept
    name = 'q_u8_bn_relu_calib'
    sym, feed, exe = _bind(name)
    given = sg_graphs.quantized_inputs(name)
    net = mx.gluon.SymbolBlock(sym, [mx.sym.var(n) for n in given])
    mx.nd.save(str(tmp_path / 'p.params'), {n: mx.nd.array(v, dtype=v.dtype) for n, v in feed.items()
                                            if n not in given})
    params = net.collect_params()
    params.load(str(tmp_path / 'p.params'), ctx=mx.cpu())
    inputs = [mx.nd.array(feed[n], dtype=feed[n].dtype) for n in given]
    first = net(*inputs)[0].asnumpy()
    np.testing.assert_array_equal(first, GOLD['q_u8_bn_relu_calib/0'])
    w = next(p for n, p in params.items() if n.endswith('weight'))
    w.set_data(w.data() * -1.0)
    flipped = net(*inputs)[0].asnumpy()
    exe.arg_dict[w.name][:] = w.data()
    np.testing.assert_array_equal(flipped, _fresh(sym, exe)[0])
    assert not np.array_equal(flipped, first)


def test_empty_data_and_a_kernel_past_the_data_as_torch():
    w = torch.ones((3, 4, 3, 3), dtype=torch.int8)
    empty = torch.zeros((2, 4, 0, 5), dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        int8.conv_sums(torch.zeros((1, 4, 2, 2), dtype=torch.uint8), w, (1, 1), (0, 0), (1, 1), 1)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        int8.conv_sums(empty, w, (1, 1), (1, 1), (1, 1), 1)
    none = torch.zeros((0, 4, 1, 5), dtype=torch.uint8)
    assert int8.conv_sums(none, w, (1, 1), (1, 1), (1, 1), 1).shape == (0, 3, 1, 5)


def test_prepacked_forms_kept_for_a_few_shapes():
    _onednn()
    w, kept = torch.ones((4, 8, 3, 3), dtype=torch.int8), {}
    for n in range(1, 30):
        x = torch.full((n, 8, 5, 5), 2, dtype=torch.uint8)
        assert torch.equal(int8.conv_sums(x, w, (1, 1), (1, 1), (1, 1), 1, kept),
                           F.conv2d(x.float(), w.float(), None, 1, 1))
        assert len(kept) <= int8._MAX_GEOMETRIES + 2


@pytest.mark.parametrize('name', ['q_u8_bn_sum_s8_post', 'q_s8_3d_bn_calib', 'fcq_channel_s8_calib'])
def test_without_exact_onednn_sums_float64_gives_the_same_bits(name, monkeypatch):
    # a processor where the probe finds oneDNN saturating (no VNNI): the float64 products
    monkeypatch.setattr(int8, 'onednn_sums_exactly', lambda: False)
    monkeypatch.setattr(int8, '_onednn_conv', None)  # (never reached)
    monkeypatch.setattr(int8, '_onednn_linear', None)
    kernels.clear()
    _, _, exe = _bind(name)
    for i, out in enumerate(exe.forward()):
        np.testing.assert_array_equal(out.asnumpy(), GOLD['%s/%d' % (name, i)])


def test_nothing_kept_outlives_its_weight():
    # (a kept value that held its own weight would keep the weak table's entry alive for ever)
    kernels.clear()
    for name in sg_graphs.ALL:
        if 'fp32' not in name:
            _bind(name)[2].forward()
    gc.collect()
    assert not len(cpu._QUANTIZED)
