"""The int32 sums of MXNet's quantized oneDNN operators (``_sg_mkldnn_conv``, ``_sg_mkldnn_fully_connected``): a
convolution or matrix product of 8-bit data and an int8 weight, summed exactly in integers and converted to float32
(rounded to nearest even, as oneDNN's ``vcvtdq2ps``), which is what their requantization starts from.

- CPU, where torch has oneDNN's int8 operators and a probe finds that they sum exactly: ``torch.ops.onednn``'s
  ``qconv_pointwise`` / ``qlinear_pointwise`` with unit scales and a float32 output, on a weight prepacked once and
  kept with the caller's quantized weight. int8 data goes in as uint8 with zero point 128 (``x ^ 0x80``), whose
  compensation oneDNN sums in int32. On processors without VNNI oneDNN's int8 kernels add pairs of products in 16
  bits with saturation (``vpmaddubsw``); the probe finds that and the float64 form below is taken. Sums that could
  pass int32 (more than 65,792 products of 255 x 128) take it too. ResNet-50 v1's 53 quantized convolutions at
  1x3x224x224, one thread: 0.225 s in float64, ~0.02 s here (a 512->512 3x3 layer on 7x7: 8.4 ms, 0.5 ms).
- elsewhere, or with ``config.cpu_fast_paths`` or ``config.packed_conv`` off, or under tracing: the products in
  float64 (every sum exact below 2**53), converted to float32.

``kept_quantized`` keeps what an operator computes from a float weight (the int8 weight, int32 bias, scales) for
the weight tensor while the version counters of the arrays it came from are unchanged, as MXNet's oneDNN operators
keep theirs per weight version (table ``cpu._QUANTIZED``: ``forget_kept``/``clear`` drop it).
"""
import functools

import torch
import torch.nn.functional as F

from . import cpu
from ._policy import config
from ._tracing import untraced

__all__ = ['conv_sums', 'linear_sums', 'kept_quantized', 'onednn_sums_exactly']

_MAX_PRODUCTS = (2 ** 31 - 1) // (255 * 128)  # products per sum that cannot pass int32
_MAX_GEOMETRIES = 8  # prepacked forms kept per weight
_CONV = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}
_LAYOUT = {4: torch.channels_last, 5: torch.channels_last_3d}
ONEDNN_INT8 = torch.backends.mkldnn.is_available() and all(
    hasattr(torch.ops.onednn, name) for name in ('qconv_prepack', 'qconv_pointwise', 'qlinear_prepack',
                                                  'qlinear_pointwise'))


def kept_quantized(weight, sources, params, make):
    """``make()``, kept for ``weight`` while its version counter, the identities and version counters of the
    ``sources`` tensors (None skipped) and ``params`` are unchanged (and no write ``forget_kept`` was told of came
    between); computed without autograd. Under tracing, ``make()`` each time."""
    if not untraced(weight):
        return make()
    key = (weight._version, tuple(None if t is None else (id(t), t._version) for t in sources),
           cpu._UNSEEN_WRITES[0], params)
    with torch.no_grad():
        return cpu._kept(cpu._QUANTIZED, weight, key, make)


def _uint8(x):
    """(uint8 data, zero point): int8 data shifted by 128."""
    if x.dtype is torch.uint8:
        return x, 0
    return torch.bitwise_xor(x.view(torch.uint8), 128), 128


def _onednn_applies(x, w):
    return (x.is_cpu and config.cpu_fast_paths and config.packed_conv and ONEDNN_INT8 and x.numel() > 0 and
            w.numel() > 0 and w[0].numel() <= _MAX_PRODUCTS and untraced(x) and onednn_sums_exactly())


def _kernel_fits(x, w, pad, dilate):
    # (where it does not, torch's convolution raises and oneDNN's returns an empty output)
    return all(x.shape[i + 2] + 2 * pad[i] >= dilate[i] * (w.shape[i + 2] - 1) + 1 for i in range(x.dim() - 2))


def conv_sums(x, w, stride, pad, dilate, groups, kept=None):
    """The convolution of int8/uint8 data ``x`` (N, C, *spatial) with the int8 weight ``w``: exact int32 sums as
    float32. ``kept``: a dict kept with ``w`` (see ``kept_quantized``) where a prepacked form of it is kept."""
    if _onednn_applies(x, w) and _kernel_fits(x, w, pad, dilate):
        return _onednn_conv(x, w, stride, pad, dilate, groups, {} if kept is None else kept)
    return _CONV[x.dim()](x.to(torch.float64), w.to(torch.float64), None, stride, pad, dilate, groups).to(
        torch.float32)


def linear_sums(x, w, kept=None):
    """``x @ w.t()`` of 2-D int8/uint8 data and an int8 weight (hidden, input): exact int32 sums as float32."""
    if _onednn_applies(x, w):
        return _onednn_linear(x, w, {} if kept is None else kept)
    return (x.to(torch.float64) @ w.to(torch.float64).t()).to(torch.float32)


def _packed(kept, geometry, make):
    """The weight prepacked for ``geometry`` (the data's shape among it), kept for the last few geometries."""
    packed = kept.get(geometry)
    if packed is None:
        if len(kept) > _MAX_GEOMETRIES:  # (data of ever new shapes: the oldest forms go)
            for old in [k for k in kept if k != 'unit'][:len(kept) // 2]:
                del kept[old]
        packed = kept[geometry] = make()
    return packed


def _unit_scales(w, kept):
    scales = kept.get('unit')
    if scales is None:
        scales = kept['unit'] = (torch.ones(w.shape[0], dtype=torch.float32),
                                 torch.zeros(w.shape[0], dtype=torch.int64))
    return scales


def _onednn_conv(x, w, stride, pad, dilate, groups, kept):
    u, zp = _uint8(x)
    ones, zeros = _unit_scales(w, kept)
    geometry = ('conv', zp, tuple(x.shape), stride, pad, dilate, groups)
    packed = _packed(kept, geometry, lambda: torch.ops.onednn.qconv_prepack(
        w, ones, 1.0, zp, list(stride), list(pad), list(dilate), groups, list(x.shape)))
    layout = _LAYOUT.get(u.dim())
    u = u.contiguous() if layout is None else u.contiguous(memory_format=layout)
    return torch.ops.onednn.qconv_pointwise(u, 1.0, zp, packed, ones, zeros, None, list(stride), list(pad),
                                            list(dilate), groups, 1.0, 0, torch.float32, 'none', [], '')


def _onednn_linear(x, w, kept):
    u, zp = _uint8(x)
    ones, zeros = _unit_scales(w, kept)
    packed = _packed(kept, ('linear', tuple(x.shape)), lambda: torch.ops.onednn.qlinear_prepack(w, list(x.shape)))
    return torch.ops.onednn.qlinear_pointwise(u.contiguous(), 1.0, zp, packed, ones, zeros, None, 1.0, 0,
                                              torch.float32, 'none', [], '')


@functools.cache
def onednn_sums_exactly():
    """Whether oneDNN's int8 convolutions and matrix products sum exactly on this processor: extreme products
    (255 x 127 and 255 x -128; for int8 data 127 and -128 by both) over 1x1, 3x3, grouped, depthwise, 1-D and 3-D
    convolutions and a matrix product, against the float64 sums. Without VNNI oneDNN saturates pairs of products
    in 16 bits. Checked once per process (~11 ms, one thread)."""
    cases = [((2, 64, 5, 5), (16, 64, 1, 1), 1, 0), ((1, 96, 6, 6), (8, 96, 3, 3), 1, 1),
             ((1, 32, 6, 6), (32, 8, 3, 3), 4, 1), ((1, 32, 6, 6), (32, 1, 3, 3), 32, 1),
             ((1, 16, 9), (4, 16, 3), 1, 1), ((1, 16, 4, 4, 4), (4, 16, 3, 3, 3), 1, 1), ((3, 1000), (6, 1000), 1, 0)]
    try:
        for dtype, values in ((torch.uint8, (255,)), (torch.int8, (127, -128))):
            for xs, ws, groups, pad in cases:
                nd = len(xs) - 2
                w = torch.full(ws, 127, dtype=torch.int8)
                w[1::2] = -128  # (the output channels alternate the two extremes)
                kept = {}
                for value in values:
                    x = torch.full(xs, value, dtype=dtype)
                    x.view(-1)[::7] = 3  # (not all equal: a kernel's vectors see different sums)
                    if nd:
                        got = _onednn_conv(x, w, (1,) * nd, (pad,) * nd, (1,) * nd, groups, kept)
                        want = _CONV[x.dim()](x.double(), w.double(), None, 1, pad, 1, groups)
                    else:
                        got, want = _onednn_linear(x, w, kept), x.double() @ w.double().t()
                    if not torch.equal(got, want.to(torch.float32)):
                        return False
    except RuntimeError:  # (an operator this build or processor lacks)
        return False
    return True
