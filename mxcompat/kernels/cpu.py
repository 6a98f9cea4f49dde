"""CPU rules: which kernel computes an operator on CPU tensors, each with what was measured for it.

- 2-D float32 convolutions with enough channels compute channels-last (``channels_last_pays``); those with few
  output positions run as matrix products over the input patches (``_GemmConv2d``); inference ones run on a weight
  reordered once for oneDNN and kept (``_packed_conv``), and oneDNN subgraph chains fold BatchNorm into that weight
  (``fused_conv``);
- unpadded 2-D max pooling without a gradient is the maximum of strided views, other 2-D max pooling of plain data
  with enough channels runs torch's channels-last kernel (``max_pool2d``);
- SGD with momentum (no decay, no clipping) runs torch's one-pass kernel (``fused_sgd_mom_step``); other SGD, Adam
  and RMSProp updates run MXNet's roundings as numpy passes over cache-sized chunks (``chunked_update``); a sparse
  gradient's rows sort in numpy (``stable_argsort``).

The functions here take CPU tensors with ``config.cpu_fast_paths`` on: ``mxcompat.kernels`` checks both and calls
them. Every rule leaves values as torch's own kernel gives them, up to floating-point rounding. The forms of a
weight kept for inference live in tables keyed weakly by the weight tensor: ``clear()`` empties them all,
``forget_kept(weight)`` one weight's.
"""
import decimal
import math
import threading

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.weak import WeakTensorKeyDictionary

from . import _libm
from ._policy import config
from ._tracing import recorded, untraced

__all__ = ['ONEDNN_CONV', 'channels_last_pays', 'conv2d', 'conv_out_hw', 'fused_conv', 'fused_conv_applies',
           'max_pool2d', 'fused_sgd_applies', 'fused_sgd_mom_step', 'stable_argsort', 'forget_kept', 'clear']

# whether this torch build has oneDNN's reordered-weight and fused (pointwise post-op) convolutions
ONEDNN_CONV = hasattr(torch.ops.mkldnn, '_convolution_pointwise') and torch.backends.mkldnn.is_available()


def _gradient_wanted(recording, data, *params):
    """Whether a gradient of this convolution (of ``data`` or ``params``, Nones skipped) is being recorded:
    ``recording`` says whether autograd records this call at all (mxcompat's record(), or torch's autograd for an
    Executor or GluonModule; mxcompat's eager calls outside ``record()`` run with torch's grad mode on, but their
    results are cut from torch's graph)."""
    return (recording and torch.is_grad_enabled()
            and (data.requires_grad or any(p is not None and p.requires_grad for p in params)))


def _no_gradient(recording, data, *params):
    """Whether no gradient of this convolution is wanted (``_gradient_wanted``) and no tracer runs."""
    return not _gradient_wanted(recording, data, *params) and untraced(data)


# ---- 2-D convolution ----------------------------------------------------------------------------------------------
# On CPU, torch's oneDNN 2-D convolution trains faster on a channels-last (NHWC-strided) weight when the channel
# counts are large (ResNet-18's training step ~5-10% faster). Its output is then channels-last too; batch norm,
# activations, max pooling and additions keep that layout, so the next convolution's input already has it, and
# torch's NHWC batch norm and max pooling are much faster than its NCHW ones (a 32x32x32x32 max pooling: 0.5 ms
# against 6 ms, one thread). A convolution computes channels-last when it has at least
# config.channels_last_min_channels outputs and half that many inputs, or when it is an image stem (at most
# config.channels_last_stem_max_in input channels, as RGB(A) or grey) into at least half that many outputs. A layout
# mix costs copies: the executor CNN (3->32 and 32->64 convolutions with batch norm and max pooling, then Flatten)
# got ~20% slower when only its 32->64 convolution computed channels-last, and ~30% faster when both did.
# DenseNet's 128->32 convolutions, whose outputs are concatenated, stay plain for inference; in training they pass
# the halved bound below (batch 2 at 224: 0.91x; at batch 1 all channels-last made its step 1.23x slower). Measured
# for float32 only, so other dtypes keep the plain layout. Only strides differ: values and shapes are the same, and
# results still read as C-ordered data (asnumpy and save copy in logical order; view-like ops make their results
# contiguous). 0 turns it off.
# Where a gradient is wanted the bound is divided by config.channels_last_training_divisor: there batch norm and max
# pooling run backward too, and their NHWC kernels pay from fewer channels (CIFAR ResNet-20, 16-32-64 channels,
# hybridized training step at batch 64: ~0.75x with every convolution channels-last); for inference, where batch
# norm is one multiply-add and max pooling of plain data takes strided views (_strided_max_pool2d), the lower bound
# made SqueezeNet and MobileNet v2 at batch 1 slower. 1 uses one bound for both.
def channels_last_pays(data, weight, num_group, recording):
    """Whether this 2-D convolution of CPU data computes channels-last (see above)."""
    out_c, in_c = weight.shape[0], weight.shape[1]
    least = config.channels_last_min_channels
    if _gradient_wanted(recording, data, weight):
        least = -(-least // config.channels_last_training_divisor)
    return (0 < least and (out_c >= least and 2 * in_c >= least
                           or in_c <= config.channels_last_stem_max_in and 2 * out_c >= least)
            and weight.dim() == 4 and num_group == 1 and data.dtype is torch.float32)


# oneDNN's channels-last convolution is slow when the output has few positions (ResNet's last stage on CIFAR
# thumbnails). There all three products of a 2-D convolution run as plain matrix products over the gathered input
# patches (im2col, channels fastest). Batch 64, one thread, ResNet-18's 512->512 3x3 on 4x4 maps: forward 48 -> 34 ms,
# data gradient 46 -> 34 ms (the patch gradients summed back with one strided add per kernel tap), weight gradient
# 158 -> 78 ms; 256->512 with stride 2 to 4x4: 26 -> 18, 27 -> 19 and 56 -> 34 ms. At 8x8 outputs the forward and
# data products lose (256->256: 28 -> 50 ms) and from 16x16 up the gather costs more than it saves, hence the bound
# on output positions (config.gemm_conv_max_positions). With fewer channels oneDNN wins (32->64 at 4x4, forward and
# both gradients: 2.0 against 2.9 ms; a 3->32 stem 0.8 against 1.1 ms), so both channel counts must reach
# config.channels_last_min_channels. Measured on CPU float32 with channels-last data; 0 turns it off, the default:
# in a whole training step the rule loses (model_zoo resnet18_v1 on 32x32 thumbnails, benchmarks' gluon area, one
# thread, 2-vCPU EPYC: 1.03-1.06x torch's step with the bound at 16, 0.81x without it), the products' fresh patch
# matrices and their gradients costing more than the faster kernels save.
def _gemm_conv_pays(data, weight, stride, pad, dilate):
    # not under tracing (fake or functional tensors, a dispatch mode): graphs that mx.to_torch exports keep aten's
    # convolution
    if (weight.dim() != 4 or data.shape[0] == 0 or any(d != 1 for d in dilate) or not untraced(data)
            or min(weight.shape[0], weight.shape[1]) < config.channels_last_min_channels):
        return False
    ho, wo = conv_out_hw(data, weight, stride, pad)
    return 0 < ho * wo <= config.gemm_conv_max_positions


def conv_out_hw(data, weight, stride, pad):
    """The output height and width of an undilated 2-D convolution."""
    return tuple(1 + (data.shape[i] + 2 * pad[i - 2] - weight.shape[i]) // stride[i - 2] for i in (2, 3))


def fits_conv_output(other, data, weight, stride, pad):
    """Whether ``other`` has the shape, dtype and device of the undilated 2-D convolution's output: the addend
    ``fused_conv`` can take (else the unfused addition raises MXNet's error)."""
    out = (data.shape[0], weight.shape[0]) + conv_out_hw(data, weight, stride, pad)
    return tuple(other.shape) == out and other.dtype == data.dtype and other.device == data.device


# Inference with an unchanged weight (no gradient recorded): oneDNN reorders a plain weight into its own blocked
# layout at every call, after the channels-last copy above; at batch 1 that is most of the time of ResNet's wide
# layers (512->512 3x3 on 7x7: 13 ms, 1.5 ms with the weight reordered once). MXNet's oneDNN operators keep the
# reordered weight while the array is unchanged; here it is kept for the weight tensor (``_REORDERED``), keyed by
# its version counter (which every in-place write bumps: optimizers, set_data, out=, assignment) and the call's
# input shape, stride and padding, from the second call with those on: the first one uses its reordered weight
# once and drops it, so a network's first forward, which deferred initialization runs, holds none and each reorder
# reuses the memory of the one before (resnet50_v1's construction, initialization and first forward at 1x3x32x32,
# one thread: 249 -> 224 ms, median of 15 alternated; the 85 MB kept were fresh pages to map). Handing oneDNN the
# plain weight instead would spare the reorder but not the values: it may choose another kernel (mobilenetv2's
# 1280->1000 1x1 convolution of a 1x1 map differs in the last bits). As in MXNet, a write that bypasses the array
# (through DLPack) is not seen (``forget_kept`` is told of the ones mxcompat makes). config.packed_conv = False
# turns it off.
#
# The forms of a weight kept for inference, by weight tensor, held weakly and by identity: nothing is attached to
# the tensor itself, so pickling, saving or deep-copying it carries none of them (an opaque oneDNN tensor cannot be).
_REORDERED = WeakTensorKeyDictionary()
_CHANNELS_LAST = WeakTensorKeyDictionary()
_SEEN = WeakTensorKeyDictionary()  # weight -> the version a first call without a kept copy saw (see below)
_SEEN_PACKED = WeakTensorKeyDictionary()  # weight -> the key of a first call without a reordered weight
# folded and reordered weights of fused convolutions, by weight tensor (as _REORDERED), and the count of writes
# forget_kept was told of (folded weights made before one are not used after it)
_FOLDED = WeakTensorKeyDictionary()
_UNSEEN_WRITES = [0]
# what MXNet's quantized operators compute from a float weight (int8 weight, int32 bias, scales, prepacked forms),
# by weight tensor, while the version counters of the arrays it came from are unchanged (kernels.int8)
_QUANTIZED = WeakTensorKeyDictionary()


def _kept(table, weight, key, make):
    """``make()``, kept in ``table`` for ``weight`` while ``key`` (its version counter first) is unchanged."""
    hit = table.get(weight)
    if hit is None or hit[0] != key:
        hit = table[weight] = (key, make())
    return hit[1]


def _kept_again(table, seen, weight, key, make, transient):
    """As ``_kept``, from the second call with ``key`` on (``seen`` remembers the first): the first call gets
    ``transient()``, and a stale kept form goes then (the transient one may take its memory)."""
    hit = table.get(weight)
    if hit is not None and hit[0] == key:
        return hit[1]
    if seen.get(weight) != key:
        table.pop(weight, None)
        seen[weight] = key
        return transient()
    return _kept(table, weight, key, make)


def forget_kept(weight):
    """Drop what is kept for ``weight``: for a write its version counter does not see."""
    _REORDERED.pop(weight, None)
    _CHANNELS_LAST.pop(weight, None)
    _SEEN.pop(weight, None)
    _SEEN_PACKED.pop(weight, None)
    _FOLDED.pop(weight, None)
    _QUANTIZED.pop(weight, None)
    # a fused convolution's folded (or quantized) weight also depends on BatchNorm arrays, which this write may have
    # been to
    _UNSEEN_WRITES[0] += 1


def clear():
    """Drop every kept form of every weight, and the calling thread's scratch buffer (other threads keep theirs
    until their next call that needs a bigger one)."""
    _REORDERED.clear()
    _CHANNELS_LAST.clear()
    _SEEN.clear()
    _SEEN_PACKED.clear()
    _FOLDED.clear()
    _QUANTIZED.clear()
    _UNSEEN_WRITES[0] += 1
    _SCRATCH.buf = None


def _packed_geometry(data, weight, pad, dilate):
    """The layouts the reordered-weight path is used for: a nonempty batch, no dilation, padding smaller than the
    kernel and a map at least as big as the kernel. (With a 1x1 kernel, stride 2, padding 1 and dilation 2 on a
    6x1 map, oneDNN's kernel with a bias corrupted the heap: the process crashed at exit.)"""
    return data.shape[0] > 0 and all(d == 1 for d in dilate) and all(
        pad[i] < weight.shape[2 + i] <= data.shape[2 + i] for i in range(2))


def _channels_last_weight(data, weight, bias, recording, again=False):
    """``weight`` in channels-last strides; without a gradient wanted, the copy is kept (``_CHANNELS_LAST``) while
    the weight's version counter is unchanged (it took longer than the matrix products of a batch-1 inference).
    ``again``: kept from the second call with the same version on; the first call takes the weight as it is where
    the data is channels-last (a network's first forward, which deferred initialization runs, then makes no copies
    it would hold, nor one that torch's convolution makes again), else a transient copy."""
    if not _no_gradient(recording, data, weight, bias):
        return weight.contiguous(memory_format=torch.channels_last)

    def copy():
        return weight.detach().contiguous(memory_format=torch.channels_last)

    def as_is():  # (torch's convolution of channels-last data makes the same copy itself: the same bits)
        return weight.detach()
    if again:
        # (only data that is channels-last and not also plain makes torch choose channels-last whatever the weight)
        unambiguous = data.is_contiguous(memory_format=torch.channels_last) and not data.is_contiguous()
        return _kept_again(_CHANNELS_LAST, _SEEN, weight, weight._version, copy, as_is if unambiguous else copy)
    return _kept(_CHANNELS_LAST, weight, weight._version, copy)


def _packed_applies(data, weight, bias, pad, dilate, recording, *tensors):
    """Whether a weight reordered once can compute this convolution: torch has the operators, no gradient of it (or
    of ``tensors``) is wanted, and the geometry is one the packed path takes."""
    return (config.packed_conv and ONEDNN_CONV and _no_gradient(recording, data, weight, bias, *tensors)
            and _packed_geometry(data, weight, pad, dilate))


def _packed_conv(data, weight, bias, stride, pad, dilate, recording):
    """The convolution through ``weight`` reordered once for oneDNN (channels-last output; kept from the second
    call with a weight version and geometry on, see above), or None where that does not apply: a gradient is wanted
    (see _no_gradient), or torch lacks the operators."""
    if not _packed_applies(data, weight, bias, pad, dilate, recording):
        return None

    def reorder():  # (no dilation here)
        return torch.ops.mkldnn._reorder_convolution_weight(weight.detach(), list(pad), list(stride), list(dilate),
                                                            1, list(data.shape))
    reordered = _kept_again(_REORDERED, _SEEN_PACKED, weight, (weight._version, tuple(data.shape), stride, pad),
                            reorder, reorder)
    return torch.ops.mkldnn._convolution_pointwise(
        data.contiguous(memory_format=torch.channels_last), reordered, None if bias is None else bias.detach(),
        list(pad), list(stride), list(dilate), 1, 'none', [], '')


# torch's convolution picks its layout, and so its kernel and rounding, from the strides of the data as well as the
# weight's. Where a dimension has size 1 (a grey image's channel, a 1x1 map) the same values can carry either
# layout's strides: a batch of grey NHWC images transposed to NCHW reads as channels-last, the same batch stacked
# from CHW images as plain, and a training step differed by rounding (which near-tied maximum a max pooling took
# moved the first layers' gradients by percents). MXNet's arrays have one layout, so its result does not depend on
# how the batch was built; here the data takes the standard strides of the layout the rules chose (a view).
def _in_layout(data, channels_last):
    """``data`` with the standard strides of NCHW, or of channels-last, where its elements already lie in that
    order (only strides of size-1 dimensions differ); else ``data`` itself. (A size-1 batch does not sway torch.)"""
    if 1 not in data.shape[1:]:
        return data
    if channels_last:
        if data.is_contiguous(memory_format=torch.channels_last):
            nhwc = data.permute(0, 2, 3, 1)
            return nhwc.reshape(-1).view(nhwc.shape).permute(0, 3, 1, 2)
    elif data.is_contiguous():
        return data.view(-1).view(data.shape)
    return data


def conv2d(data, weight, bias, stride, pad, dilate, num_group, recording):
    """``F.conv2d`` of NCHW CPU data through the rules above: channels-last, patch products or a packed weight
    where they pay, else torch's kernel; the layout is the rules' choice whatever strides size-1 dimensions of
    ``data`` carry (``_in_layout``)."""
    cl = channels_last_pays(data, weight, num_group, recording)
    data = _in_layout(data, cl)
    if cl:
        if _gemm_conv_pays(data, weight, stride, pad, dilate):
            return _GemmConv2d.apply(data, _channels_last_weight(data, weight, bias, recording), bias, stride, pad)
        out = _packed_conv(data, weight, bias, stride, pad, dilate, recording)
        if out is not None:
            return out
        weight = _channels_last_weight(data, weight, bias, recording, again=True)
    return F.conv2d(data, weight, bias, stride, pad, dilate, num_group)


# ---- oneDNN convolution fusion (MXNet's _sg_mkldnn_conv) ------------------------------------------------------------
def _folded_weight(weight, bias, bn):
    """``weight`` and ``bias`` with the inference BatchNorm ``bn`` = (gamma, beta, mean, var, eps, fix_gamma) folded
    in, as MXNet's oneDNN convolution fusion folds them (per channel ``alpha = gamma / sqrt(var + eps)``, computed in
    double and rounded to float: ``weight * alpha``, ``beta + alpha * (bias - mean)``)."""
    weight = weight.detach()
    bias = None if bias is None else bias.detach()
    if bn is None:
        return weight, bias
    gamma, beta, mean, var, eps, fix_gamma = bn
    scale = torch.ones_like(var, dtype=torch.float64) if fix_gamma else gamma.detach().double()
    alpha = (scale / torch.sqrt(var.detach().double() + eps)).to(weight.dtype)
    shift = mean.detach() if bias is None else mean.detach() - bias
    return weight * alpha.view(-1, *[1] * (weight.dim() - 1)), beta.detach() - alpha * shift


def fused_conv_applies(data, weight, bias, stride, pad, dilate, num_group, tensors, recording):
    """Whether the fused convolution (``fused_conv``) computes this call: a 2-D convolution that ``conv2d`` would
    run through a reordered weight (``_packed_conv``), with no gradient wanted of it or of ``tensors``."""
    return (channels_last_pays(data, weight, num_group, recording)
            and not _gemm_conv_pays(data, weight, stride, pad, dilate)
            and _packed_applies(data, weight, bias, pad, dilate, recording, *tensors))


def fused_conv(data, weight, bias, stride, pad, dilate, bn=None, other=None, unary=None):
    """A convolution with the inference BatchNorm ``bn`` folded into its weight and bias (see _folded_weight), then
    ``+ other`` and the elementwise ``unary`` = (oneDNN post-op name, scalars, algorithm) applied by oneDNN on the
    output it writes, as MXNet's ``_sg_mkldnn_conv``. The folded weight is reordered once and kept while the
    version counters of the weight, bias and BatchNorm arrays are unchanged (MXNet watches the weight and bias only).
    Call only where ``fused_conv_applies``."""
    stats = () if bn is None else bn[:4]
    key = (weight._version, tuple(-1 if t is None else (id(t), t._version) for t in (bias,) + stats),
           tuple(data.shape), stride, pad, _UNSEEN_WRITES[0]) + (() if bn is None else bn[4:])
    folded_w, folded_b = _kept(_FOLDED, weight, key, lambda: _reordered_folded(weight, bias, bn, data, stride, pad,
                                                                                dilate))
    x = data.contiguous(memory_format=torch.channels_last)
    unary_attr, scalars, algorithm = unary or ('none', [], '')
    if other is None:
        return torch.ops.mkldnn._convolution_pointwise(x, folded_w, folded_b, list(pad), list(stride), list(dilate),
                                                       1, unary_attr, scalars, algorithm)
    return torch.ops.mkldnn._convolution_pointwise.binary(
        x, other.contiguous(memory_format=torch.channels_last), folded_w, folded_b, list(pad), list(stride),
        list(dilate), 1, 'add', None, None if unary is None else unary_attr, scalars, algorithm or None)


def _reordered_folded(weight, bias, bn, data, stride, pad, dilate):
    w, b = _folded_weight(weight, bias, bn)
    return (torch.ops.mkldnn._reorder_convolution_weight(w, list(pad), list(stride), list(dilate), 1,
                                                         list(data.shape)), b)


# ---- the patch-product (GEMM) convolution -----------------------------------------------------------------------
class _Scratch(threading.local):
    """One buffer per thread for a convolution's transient patch matrices, as MXNet's operators reuse the engine's
    temp-space resource. A fresh 19 MB matrix (512-channel 3x3 patches of a 4x4 map, batch 64) is mapped anew by
    malloc at each call, and its page faults took longer (~27 ms) than the gather itself. Matrices over
    config.scratch_max_bytes are allocated for the call only, so the buffer kept stays bounded."""
    buf = None


_SCRATCH = _Scratch()


def _scratch(shape, like):
    """An uninitialized tensor of ``shape`` in this thread's reused buffer, or a fresh one when the gradient graph
    is being recorded (create_graph) or it would be too big to keep."""
    numel = math.prod(shape)
    if torch.is_grad_enabled() or numel * like.element_size() > config.scratch_max_bytes:
        return like.new_empty(shape)
    buf = _SCRATCH.buf
    if buf is None or buf.numel() < numel or buf.dtype != like.dtype or buf.device != like.device:
        with torch.inference_mode(False):
            buf = _SCRATCH.buf = torch.empty(numel, dtype=like.dtype, device=like.device)
    return buf[:numel].view(shape)


def _patches(data, kh, kw, stride, pad, ho, wo):
    """The input patches under each output position, as a (N*ho*wo, kh*kw*C) matrix (channels fastest) in the
    thread's scratch buffer: use it before the next call."""
    x = F.pad(data.permute(0, 2, 3, 1), (0, 0, pad[1], pad[1], pad[0], pad[0]))
    sn, sh, sw, sc = x.stride()
    n, c = data.shape[0], data.shape[1]
    out = _scratch((n, ho, wo, kh, kw, c), data)
    out.copy_(x.as_strided((n, ho, wo, kh, kw, c), (sn, sh * stride[0], sw * stride[1], sh, sw, sc)))
    return out.view(n * ho * wo, kh * kw * c)


def _weight_rows(weight):
    """The weight as a (num_filter, kh*kw*C) matrix, channels fastest (a view of a channels-last weight)."""
    return weight.permute(0, 2, 3, 1).reshape(weight.shape[0], -1)


class _GemmConv2d(torch.autograd.Function):
    """A 2-D convolution (no dilation, one group) computed as matrix products over the input patches."""

    @staticmethod
    def forward(ctx, data, weight, bias, stride, pad):
        ctx.save_for_backward(data, weight)
        ctx.conv = (stride, pad, bias is not None)
        n, (kh, kw) = data.shape[0], weight.shape[2:]
        ho, wo = conv_out_hw(data, weight, stride, pad)
        cols = _patches(data, kh, kw, stride, pad, ho, wo)
        w_t = _weight_rows(weight).t()
        # a tensor of its own in channels-last strides, not a view of the product: a hybridized graph may write into
        # it in place (a residual addition), which autograd forbids on views a Function returns
        out = torch.empty((n, weight.shape[0], ho, wo), dtype=data.dtype, device=data.device,
                          memory_format=torch.channels_last)
        rows = out.permute(0, 2, 3, 1).view(n * ho * wo, -1)
        if bias is None:
            torch.mm(cols, w_t, out=rows)
        else:
            torch.addmm(bias, cols, w_t, out=rows)
        return out

    @staticmethod
    def backward(ctx, grad):
        data, weight = ctx.saved_tensors
        stride, pad, has_bias = ctx.conv
        need_data, need_weight, need_bias = ctx.needs_input_grad[:3]
        n, k, ho, wo = grad.shape
        c, kh, kw = weight.shape[1:]
        rows = grad.permute(0, 2, 3, 1).reshape(n * ho * wo, k)
        g_data = g_weight = g_bias = None
        if need_data:
            w_rows = _weight_rows(weight)
            taps = rows @ w_rows if torch.is_grad_enabled() else torch.mm(  # create_graph records it
                rows, w_rows, out=_scratch((n * ho * wo, kh * kw * c), grad))
            taps = taps.view(n, ho, wo, kh, kw, c)
            h, w = data.shape[2:]
            padded = grad.new_zeros(n, h + 2 * pad[0], w + 2 * pad[1], c)
            for i in range(kh):
                for j in range(kw):
                    padded[:, i:i + stride[0] * ho:stride[0], j:j + stride[1] * wo:stride[1]] += taps[:, :, :, i, j]
            g_data = padded[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w].permute(0, 3, 1, 2)
        if need_weight:
            g_weight = (rows.t() @ _patches(data, kh, kw, stride, pad, ho, wo)).view(k, kh, kw, c).permute(0, 3, 1, 2)
        if need_bias and has_bias:
            g_bias = rows.sum(0)
        return g_data, g_weight, g_bias, None, None


# ---- max pooling --------------------------------------------------------------------------------------------------
# torch's CPU max pooling of plain (NCHW) data takes one scalar pass per window with index bookkeeping: 6 ms for
# 32x32x32x32 in 2x2 windows, one thread, where its channels-last kernel takes 0.5. Without a gradient to record
# (inference), an unpadded 2-D max pooling is instead the elementwise maximum of its kernel's strided views of the
# input: 1.1 ms there, 0.25 against 1.1-1.4 ms for LeNet's 64x6x24x24. The same values (a maximum is exact, and NaN
# propagates as in torch's kernel). config.strided_max_pool = False turns it off.
#
# Otherwise plain float32/float64 data with at least _NHWC_POOL_MIN_CHANNELS channels and _NHWC_POOL_MIN_BYTES bytes
# is pooled by torch's channels-last kernel between a copy to channels-last and one back; recorded, it is
# differentiated by torch's plain backward with the same indices (_ChannelsLastMaxPool2d). Both kernels take the
# first maximum of a window (ties) and propagate NaN: values, indices and gradients are torch's NCHW kernel's bit
# for bit (tested, ties and NaN included). One thread, NCHW kernel / this rule in us, without a gradient and with
# one (forward + backward):
#   16x32x32x32 3/2/1: 2905 / 705, 3064 / 946        32x64x56x56 3/2/1: 34152 / 7274, 38649 / 12234
#   64x6x24x24 2/2/0 (LeNet): 846 / 521, 921 / 736   64x16x8x8 2/2/0 (LeNet): 202 / 52, 238 / 98
#   1x64x56x56 3/2/1 (batch 1): 1096 / 147, 1164 / 248   32x32x15x15 3/2/0 ceil: 1147 / 170, 1215 / 267
#   64x4x24x24 2/2/0: 546 / 260, 583 / 340   3x8x48x48 2/2/0: 139 / 50, 168 / 97   float64 64x6x24x24: 871 / 320,
#   942 / 403. It loses with 3 channels (8x3x64x64 2/2/0: 322 / 439, 365 / 491; 2x3x224x224 3/2/1: 1602 / 2486),
# and on inputs under ~200 kB, where torch's NCHW kernel is fast (4x4x48x48 2/2/0: 43 / 66; 4x8x32x32 3/2/1:
# 56 / 42 but 78 / 82 with a gradient; 1x6x28x28: 7 / 11). Where the strided views apply too, they win for windows
# of up to 4 elements (64x6x24x24: 97, 64x16x8x8: 40) and over fewer than 8 channels (64x6x24x24 3/2/0: 268 against
# 694), this rule for larger windows over 8 channels and more (64x16x12x12 3/2/0: 273 against 111, 64x16x8x8 3/1/0:
# 281 against 112, 64x8x16x16 3/2/0: 198 against 133). config.channels_last_max_pool = False turns it off.
_NHWC_POOL_MIN_CHANNELS = 4
_NHWC_POOL_MIN_BYTES = 200 << 10


def max_pool2d(x, kernel, stride, pad, ceil_mode):
    """``torch.max_pool2d(x, kernel, stride, pad, 1, ceil_mode)`` of CPU data, as strided views or through
    channels-last where that applies (see above); the result is NCHW-contiguous where ``x`` is."""
    nhwc = (config.channels_last_max_pool and x.dtype in (torch.float32, torch.float64) and x.dim() == 4
            and x.shape[1] >= _NHWC_POOL_MIN_CHANNELS and x.numel() * x.element_size() >= _NHWC_POOL_MIN_BYTES
            and x.is_contiguous() and untraced(x))
    if (config.strided_max_pool and x.is_floating_point() and not any(pad) and not recorded(x) and untraced(x)
            and x.is_contiguous() and x.numel() > 0
            and not (nhwc and kernel[0] * kernel[1] > 4 and x.shape[1] >= 8)):
        # torch's output size without padding (its ceil-mode rule drops a last window starting past the input: none
        # does where all windows fit)
        outs = [(x.shape[2 + i] - kernel[i] + (stride[i] - 1 if ceil_mode else 0)) // stride[i] + 1 for i in range(2)]
        if all((outs[i] - 1) * stride[i] + kernel[i] <= x.shape[2 + i] for i in range(2)):
            return _strided_max_pool2d(x, kernel, stride, outs)
    if nhwc:
        if recorded(x):
            return _ChannelsLastMaxPool2d.apply(x, kernel, stride, pad, ceil_mode)
        return torch.max_pool2d(x.contiguous(memory_format=torch.channels_last), kernel, stride, pad, 1,
                                ceil_mode).contiguous()
    return torch.max_pool2d(x, kernel, stride, pad, 1, ceil_mode)


class _ChannelsLastMaxPool2d(torch.autograd.Function):
    """Max pooling of plain data by torch's channels-last kernel, differentiated by torch's plain-layout backward
    with the window maxima's indices (flat per plane, the same in either layout): the gradient is plain, as its
    input, and the very one torch's NCHW kernel gives. Letting autograd differentiate the layout copies instead
    handed a channels-last gradient to the ops before the pooling (relu's backward over mixed layouts: 15x slower)
    and took longer (16x32x32x32 3/2/1 forward + backward: 2810 against 946 us). Twice differentiable (aten's
    backward is)."""

    @staticmethod
    def forward(ctx, x, kernel, stride, pad, ceil_mode):
        out, idx = torch.ops.aten.max_pool2d_with_indices(x.contiguous(memory_format=torch.channels_last), kernel,
                                                          stride, pad, (1, 1), ceil_mode)
        ctx.save_for_backward(x, idx.contiguous())
        ctx.pool = (kernel, stride, pad, ceil_mode)
        return out.contiguous()

    @staticmethod
    def backward(ctx, grad):
        x, idx = ctx.saved_tensors
        kernel, stride, pad, ceil_mode = ctx.pool
        return (torch.ops.aten.max_pool2d_with_indices_backward(grad, x, kernel, stride, pad, (1, 1), ceil_mode, idx),
                None, None, None, None)


def _strided_max_pool2d(x, k, s, outs):
    ho, wo = outs
    views = [x[:, :, i:i + (ho - 1) * s[0] + 1:s[0], j:j + (wo - 1) * s[1] + 1:s[1]]
             for i in range(k[0]) for j in range(k[1])]
    if len(views) == 1:
        return views[0].clone()
    out = torch.maximum(views[0], views[1])
    for v in views[2:]:
        torch.maximum(out, v, out=out)
    return out


# ---- optimizer and sparse helpers ---------------------------------------------------------------------------------
def fused_sgd_applies(ws, gs, ms, g_alpha):
    """Whether torch's one-pass CPU SGD kernel can run ``mom = momentum * mom + g_alpha * g; w += mom`` on these
    tensors: dense contiguous float32/float64 CPU tensors (the kernel walks all three as flat arrays), and
    ``g_alpha`` exact through the kernel's ``1 - dampening``."""
    c = float(g_alpha)
    if 1.0 - (1.0 - c) != c:
        return False
    dtype = ws[0].dtype
    return config.fused_sgd and dtype in (torch.float32, torch.float64) and all(
        t.device.type == 'cpu' and t.dtype == dtype and t.layout == torch.strided and t.is_contiguous()
        for t in (*ws, *gs, *ms))


def fused_sgd_mom_step(ws, gs, ms, momentum, g_alpha):
    """``mom = momentum * mom + g_alpha * g; w += mom`` where ``fused_sgd_applies``: torch's fused SGD computes
    ``buf = buf * momentum + g * (1 - dampening); w -= lr * buf``, which with dampening ``1 - g_alpha`` and lr -1 is
    that step term for term, in one pass over each tensor instead of three multi-tensor passes (a third of the
    memory traffic; an MLP's parameter set 150 -> 55-120 us per update)."""
    torch._fused_sgd_(ws, gs, ms, weight_decay=0.0, momentum=momentum, lr=-1.0, dampening=1.0 - g_alpha,
                      nesterov=False, maximize=False, is_first_step=False)


# MXNet's optimizer kernels (SGD's, AdamUpdateKernel, RMSPropUpdateKernel) round every product on its own, which torch
# reaches only through one unfused pass per term (its add with alpha and addcmul/addcdiv fuse products into sums):
# Adam took about twelve passes over ResNet-18's 11.7M parameters, 103 ms a step, 4.8x torch's own Adam step (one
# thread). The same arithmetic in numpy (whose ufuncs never fuse, and whose float32 sqrt is correctly rounded, as C's
# sqrtf) over chunks that stay in the cache reads and writes each array once: 18 ms, the same bits.
_CHUNK = 1 << 15  # (values per chunk: ResNet-18's Adam step 25 ms at 8K, 18 ms at 32K, 20 ms at 128K)
# the smallest tensor a multi-tensor update (SGD) hands to the chunks: below, a chunked call costs more than the
# tensor's share of torch's multi-tensor passes (one tensor, one thread, chunked / torch: 16K values 18 / 13 us,
# 256K 106 / 92 us, 1M 361 / 498 us; chunking every tensor took an MLP's Module.fit epoch from 18.9 to 25 ms)
CHUNKED_MIN = 1 << 18


def chunked_update_applies(*tensors):
    """Whether ``chunked_update`` runs on these tensors: plain contiguous float32 CPU tensors of one shape (not a
    tensor subclass: a failed array of ``mxcompat.engine`` keeps its error for the next read, not this update)."""
    shape = tensors[0].shape
    return config.chunked_updates and all(
        type(t) is torch.Tensor and t.dtype == torch.float32 and t.device.type == 'cpu' and t.layout == torch.strided
        and t.is_contiguous() and t.shape == shape for t in tensors)


def chunked_update(body, tensors, written, scalars, buffers=2):
    """Runs ``body(*chunks, *buffers, *scalars)`` over successive cache-sized chunks of the flat float32 ``tensors``
    (numpy views, written in place), with ``buffers`` float32 scratch arrays of the chunk's length and ``scalars``
    as 0-d float32 arrays; ``written`` (some of ``tensors``) get their autograd versions bumped."""
    f = np.float32
    scalars = tuple(np.array(x, f) for x in scalars)  # (0-d arrays: a ufunc takes them in half a numpy scalar's time)
    arrays = [t.detach().reshape(-1).numpy() for t in tensors]  # host: the chunked rules take CPU tensors
    n = arrays[0].size
    scratch = [np.empty(min(n, _CHUNK), f) for _ in range(buffers)]
    with _quiet():
        for s in range(0, n, _CHUNK):
            e = min(n, s + _CHUNK)
            body(*[a[s:e] for a in arrays], *[b[:e - s] for b in scratch], *scalars)
    for x in written:  # (written through numpy: autograd's version counters are told)
        torch.autograd.graph.increment_version(x)


def _grad_plus_wd(g, w, r, t, rescale_grad, wd, clip):
    # r = clip(rescale_grad * g + wd * w), each product rounded on its own; t is scratch
    np.multiply(g, rescale_grad, out=r)
    if wd:
        np.multiply(w, wd, out=t)
        r += t
    if clip >= 0:
        np.clip(r, -clip, clip, out=r)


def _moments(r, t, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2):
    # m = beta1 * m + one_minus_beta1 * r; v = beta2 * v + (one_minus_beta2 * r) * r; t is scratch
    m *= beta1
    np.multiply(r, one_minus_beta1, out=t)
    m += t
    v *= beta2
    np.multiply(r, one_minus_beta2, out=t)
    t *= r
    v += t


def adam_chunk(w, g, m, v, r, t, lr, beta1, one_minus_beta1, beta2, one_minus_beta2, epsilon, wd, rescale_grad,
               clip):
    """MXNet's AdamUpdateKernel on one chunk, for ``chunked_update(adam_chunk, (weight, grad, mean, var),
    (weight, mean, var), scalars)``: ``g = clip(rescale_grad * g + wd * w); mean = beta1 * mean + one_minus_beta1 * g;
    var = beta2 * var + (one_minus_beta2 * g) * g; w -= (lr * mean) / (sqrt(var) + epsilon)`` (``clip < 0``: no
    clipping)."""
    _grad_plus_wd(g, w, r, t, rescale_grad, wd, clip)
    _moments(r, t, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2)
    np.sqrt(v, out=t)
    t += epsilon
    np.multiply(m, lr, out=r)
    r /= t
    w -= r


def _lr_grad(g, r, lr, lr_rescale, rescale_grad, clip):
    # r = lr * clip(rescale_grad * g), or (lr * rescale_grad) * g without clipping, as MXNet's SGD kernels
    if clip >= 0:
        np.multiply(g, rescale_grad, out=r)
        np.clip(r, -clip, clip, out=r)
        r *= lr
    else:
        np.multiply(g, lr_rescale, out=r)


def sgd_mom_chunk(w, g, m, r, t, momentum, lr_wd, lr, lr_rescale, rescale_grad, clip):
    """MXNet's SGDMomKernel and MultiSGDKernel with momentum on one chunk (``chunked_update(sgd_mom_chunk, (weight,
    grad, mom), (weight, mom), scalars)``): ``mom = (momentum * mom - lr_wd * w) - lr * clip(rescale_grad * g);
    w += mom`` (``lr_wd = lr * wd`` and ``lr_rescale = lr * rescale_grad`` rounded first, as the kernels' left-to-right
    products)."""
    m *= momentum
    if lr_wd:
        np.multiply(w, lr_wd, out=t)
        m -= t
    _lr_grad(g, r, lr, lr_rescale, rescale_grad, clip)
    m -= r
    w += m


def sgd_chunk(w, g, r, t, keep, lr_wd, lr, lr_rescale, rescale_grad, clip):
    """MXNet's SGDKernel (sgd_update, one weight) on one chunk: ``w = keep * w - lr * clip(rescale_grad * g)`` with
    ``keep = 1 - lr * wd``."""
    _lr_grad(g, r, lr, lr_rescale, rescale_grad, clip)
    if keep != 1:
        w *= keep
    w -= r


def multi_sgd_chunk(w, g, r, t, keep, lr_wd, lr, lr_rescale, rescale_grad, clip):
    """MXNet's MultiSGDKernel without momentum (multi_sgd_update) on one chunk: ``w += (0 - lr_wd * w) - lr *
    clip(rescale_grad * g)`` (the momentum form with a zero momentum; ``keep`` is unused)."""
    _lr_grad(g, r, lr, lr_rescale, rescale_grad, clip)
    if lr_wd:
        np.multiply(w, lr_wd, out=t)
        np.negative(t, out=t)
        t -= r
        w += t
    else:
        w -= r


def rmsprop_chunk(w, g, n, r, t, lr, gamma1, one_minus_gamma1, epsilon, wd, rescale_grad, clip, clip_weights):
    """MXNet's RMSPropUpdateKernel on one chunk, for ``chunked_update(rmsprop_chunk, (weight, grad, n), (weight, n),
    scalars)``: ``g = clip(rescale_grad * g + wd * w); n = one_minus_gamma1 * (g * g) + gamma1 * n;
    w = clip_w(w - lr * (g / sqrt(n + epsilon)))`` (``clip``, ``clip_weights`` < 0: no clipping)."""
    _grad_plus_wd(g, w, r, t, rescale_grad, wd, clip)
    n *= gamma1
    np.multiply(r, r, out=t)
    t *= one_minus_gamma1
    n += t
    np.add(n, epsilon, out=t)
    np.sqrt(t, out=t)
    r /= t
    r *= lr
    w -= r
    if clip_weights >= 0:
        np.clip(w, -clip_weights, clip_weights, out=w)


def rmspropalex_chunk(w, g, n, g_avg, delta, r, t, u, rescale_grad, wd, clip, gamma1, one_minus_gamma1, gamma2, lr,
                      epsilon, clip_weights):
    """MXNet's RMSPropAlexUpdateKernel on one chunk: ``g = clip(rescale_grad * g + wd * w); n = (one_minus_gamma1 *
    g) * g + gamma1 * n; g_avg = one_minus_gamma1 * g + gamma1 * g_avg; delta = gamma2 * delta - (lr * g) /
    sqrt(n - g_avg * g_avg + epsilon); w = clip_w(w + delta)``."""
    _grad_plus_wd(g, w, r, t, rescale_grad, wd, clip)
    np.multiply(r, one_minus_gamma1, out=t)
    n *= gamma1
    np.multiply(t, r, out=u)
    n += u
    g_avg *= gamma1
    g_avg += t
    np.multiply(g_avg, g_avg, out=t)
    np.subtract(n, t, out=t)
    t += epsilon
    np.sqrt(t, out=t)
    r *= lr
    r /= t
    delta *= gamma2
    delta -= r
    w += delta
    if clip_weights >= 0:
        np.clip(w, -clip_weights, clip_weights, out=w)


def ftml_chunk(w, g, d, v, z, r, t, u, rescale_grad, wd, clip, beta2, one_minus_beta2, bias2, epsilon, bias1_over_lr,
               beta1, one_minus_beta1):
    """MXNet's FTMLKernel on one chunk: ``g = clip(rescale_grad * g + wd * w); v = beta2 * v + one_minus_beta2 *
    (g * g); d_t = bias1_over_lr * (sqrt(v / bias2) + epsilon); z = (beta1 * z + one_minus_beta1 * g) - (d_t - beta1
    * d) * w; d = d_t; w = -z / d_t`` (``bias1_over_lr = (1 - beta1^t) / lr``, ``bias2 = 1 - beta2^t``)."""
    _grad_plus_wd(g, w, r, t, rescale_grad, wd, clip)
    v *= beta2
    np.multiply(r, r, out=t)
    t *= one_minus_beta2
    v += t
    np.divide(v, bias2, out=u)
    np.sqrt(u, out=u)
    u += epsilon
    u *= bias1_over_lr
    z *= beta1
    r *= one_minus_beta1
    z += r
    np.multiply(d, beta1, out=t)
    np.subtract(u, t, out=t)
    t *= w
    z -= t
    d[...] = u
    np.divide(z, u, out=w)
    np.negative(w, out=w)


def multi_lamb_chunk(w, g, m, v, d, r, t, rescale_grad, clip, beta1, one_minus_beta1, beta2, one_minus_beta2, bias1,
                     bias2, epsilon, wd):
    """MXNet's MultiLAMBKernelStep1 on one chunk, the direction into ``d``: ``g = clip(rescale_grad * g); m = beta1 *
    m + one_minus_beta1 * g; v = beta2 * v + (one_minus_beta2 * g) * g; d = m / bias1 / (sqrt(v / bias2) +
    epsilon) + wd * w`` (``bias1``, ``bias2`` 1 without bias correction), the last line in float64 (the kernel's
    sqrt is C's double sqrt) and rounded once."""
    _rescale_clip(g, r, rescale_grad, clip)
    _moments(r, t, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2)
    np.divide(m, bias1, out=r)
    np.divide(v, bias2, out=t)
    den = np.sqrt(t, dtype=np.float64)
    den += epsilon
    num = np.divide(r, den, dtype=np.float64)
    if wd:
        np.multiply(w, wd, out=t)
        num += t
    d[...] = num


def nag_mom_chunk(w, g, m, r, t, rescale_grad, clip, momentum, momentum_plus_1, lr, wd):
    """MXNet's NAGMomKernel (in place) on one chunk: ``r = clip(rescale_grad * g); m *= momentum; w = (w - m) +
    momentum_plus_1 * (m - lr * (r + wd * w)); m -= lr * (r + wd * w_new)`` (the second decay term, which reads
    the updated weight as the in-place kernel does, is left out when ``wd`` is 0)."""
    np.multiply(g, rescale_grad, out=r)
    if clip >= 0:
        np.clip(r, -clip, clip, out=r)
    m *= momentum
    np.multiply(w, wd, out=t)
    t += r
    t *= lr
    np.subtract(m, t, out=t)
    t *= momentum_plus_1
    w -= m
    w += t
    if wd:
        np.multiply(w, wd, out=t)
        r += t
    r *= lr
    m -= r


def signum_mom_chunk(w, g, m, r, t, momentum, rest_wd, rest, rest_rescale, rescale_grad, clip):
    """The momentum of MXNet's SignumKernel on one chunk: ``m = (momentum * m - rest_wd * w) - rest *
    clip(rescale_grad * g)`` (``rest_rescale * g`` without clipping; ``rest = 1 - momentum``, ``rest_wd = rest *
    wd``, 0 leaving the term out). The weight's step (``keep * w + lr * sign(m)``) is torch's: numpy's float32 sign
    takes 8x its time."""
    m *= momentum
    if rest_wd:
        np.multiply(w, rest_wd, out=t)
        m -= t
    if clip >= 0:
        _rescale_clip(g, r, rescale_grad, clip)
        r *= rest
    else:
        np.multiply(g, rest_rescale, out=r)
    m -= r


# MXNet's AdaGrad (dense), AdaDelta and Nadam are Python NDArray arithmetic, one kernel (one rounding) per operation;
# the bodies below take the same operations in the same order on one chunk (scalars are the float32 values MXNet's
# scalar operators cast them to). ``clip < 0``: no clipping.
def _rescale_clip(g, r, rescale_grad, clip):
    np.multiply(g, rescale_grad, out=r)
    if clip >= 0:
        np.clip(r, -clip, clip, out=r)


def adagrad_chunk(w, g, h, r, t, rescale_grad, clip, epsilon, wd, neg_lr):
    """AdaGrad.update (dense): ``g = clip(g * rescale_grad); h += square(g); w += (g / sqrt(h + epsilon) + w * wd) *
    neg_lr``."""
    _rescale_clip(g, r, rescale_grad, clip)
    np.multiply(r, r, out=t)
    h += t
    np.add(h, epsilon, out=t)
    np.sqrt(t, out=t)
    r /= t
    np.multiply(w, wd, out=t)
    r += t
    r *= neg_lr
    w += r


def adadelta_chunk(w, g, acc_g, acc_delta, r, t, u, rescale_grad, clip, rho, one_minus_rho, epsilon, wd):
    """AdaDelta.update: ``g *= rescale_grad`` (the gradient itself, as MXNet's); ``r = clip(g)``; ``acc_g = acc_g *
    rho + (one_minus_rho * r) * r; delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * r; acc_delta =
    acc_delta * rho + (one_minus_rho * delta) * delta; w -= delta + wd * w``."""
    g *= rescale_grad
    if clip >= 0:
        np.clip(g, -clip, clip, out=r)
    else:
        r[...] = g
    acc_g *= rho
    np.multiply(r, one_minus_rho, out=t)
    t *= r
    acc_g += t
    np.add(acc_delta, epsilon, out=u)
    np.sqrt(u, out=u)
    np.add(acc_g, epsilon, out=t)
    np.sqrt(t, out=t)
    u /= t
    u *= r
    acc_delta *= rho
    np.multiply(u, one_minus_rho, out=t)
    t *= u
    acc_delta += t
    np.multiply(w, wd, out=t)
    u += t
    w -= u


def nadam_chunk(w, g, m, v, r, t, u, rescale_grad, wd, clip, beta1, one_minus_beta1, beta2, one_minus_beta2,
                one_minus_schedule, one_minus_schedule_next, one_minus_beta2_t, one_minus_momentum, momentum_next, lr,
                epsilon):
    """Nadam.update: ``g = clip(g * rescale_grad + wd * w); m = m * beta1 + one_minus_beta1 * g; v = v * beta2 +
    (one_minus_beta2 * g) * g; m_bar = one_minus_momentum * (g / one_minus_schedule) + momentum_next * (m /
    one_minus_schedule_next); w -= lr * m_bar / (sqrt(v / one_minus_beta2_t) + epsilon)``."""
    _grad_plus_wd(g, w, r, t, rescale_grad, wd, clip)
    _moments(r, t, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2)
    r /= one_minus_schedule
    r *= one_minus_momentum
    np.divide(m, one_minus_schedule_next, out=t)
    t *= momentum_next
    r += t
    r *= lr
    np.divide(v, one_minus_beta2_t, out=u)
    np.sqrt(u, out=u)
    u += epsilon
    r /= u
    w -= r


def sequential_sum_sq(t):
    """The sum of squares of a float32 or float16 CPU tensor as MXNet's CPU multi_sum_sq computes it: each square
    in the tensor's dtype, added one after another in element order into a float32 sum (a 200,000-value float32
    array: 199196.86 where the exact sum is 199209.03; torch's and numpy's pairwise sums land near the latter). A
    float32 numpy number. numpy's running sum over cache-sized chunks: ~3 ns a value, a strictly serial chain."""
    a = t.detach().reshape(-1).numpy()  # host: a CPU rule
    carry = np.float32(0)
    buf = np.empty(min(a.size, _CHUNK), np.float32)
    for s in range(0, a.size, _CHUNK):
        c = a[s:s + _CHUNK]
        b = buf[:c.size]
        np.multiply(c, c, out=b, casting='unsafe')  # (float16 squares round to float16 first, as MXNet's)
        b[0] += carry
        np.cumsum(b, out=b)
        carry = b[-1]
    return carry


def _quiet():
    return np.errstate(invalid='ignore', divide='ignore')  # (torch's kernels give NaN and inf without a word)


def exact_sqrt(t):
    """The correctly rounded square root of a float32 CPU tensor (numpy's, as C's ``sqrtf``), a new tensor."""
    a = t.detach().numpy()  # host: exact_sqrt takes CPU tensors only
    out = np.empty(a.shape, np.float32)
    with _quiet():
        np.sqrt(a, out=out)
    return torch.from_numpy(out)


def exact_sqrt_(t):
    """``exact_sqrt`` in place."""
    a = t.detach().numpy()  # host: as exact_sqrt
    with _quiet():
        np.sqrt(a, out=a)
    torch.autograd.graph.increment_version(t)
    return t


def stable_argsort(keys):
    """``torch.argsort(keys, stable=True)`` of a 1-D non-negative int64 CPU tensor. One key per entry (key, then
    position) makes numpy's unstable sort give the stable order; torch's CPU sort took ~4x numpy's (half of a sparse
    linear model's step). torch's sort where the packed keys would overflow int64."""
    n = keys.numel()
    if not config.numpy_argsort or not n or int(keys.max()) >= (1 << 62) // max(n, 1):
        return torch.argsort(keys, stable=True)
    packed = keys * n + torch.arange(n, device=keys.device)
    return torch.from_numpy(np.argsort(packed.numpy()))  # host: this function takes CPU tensors only


# ---- MXNet's own softmax loop -------------------------------------------------------------------------------------
# Where MXNet 1.9.1's CPU softmax does not run oneDNN (softmin, a temperature given, another axis than the last, a
# dtype or length argument, SoftmaxActivation, SoftmaxOutput while training), it runs a scalar loop per row: the
# maximum, std::exp of (x - max) [divided by the temperature] into a float sum taken in order, then exp / sum (or
# (x - max) - logf(sum)). Its exponentials are glibc's expf, which torch's and numpy's vectorized float32 exp do not
# reproduce (and the float64 exp rounded to float32 differs on ~0.07% of values). glibc's expf is a table of 2^(i/32)
# and a cubic in double precision: reproduced below with numpy's float64 operations, it equals the libm expf on
# every one of 800,000 test values. glibc's logf (not correctly rounded: the float64 log rounded to float32 differs on
# ~1 of 1,000 sums) is ``_libm.logf``: glibc's algorithm vectorized, the C library asked only near rounding boundaries.
_EXPF_BITS = 5
_EXPF_N = 1 << _EXPF_BITS
_EXPF_SHIFT = float.fromhex('0x1.8p+52')  # adding it rounds a double to an integer kept in the low mantissa bits
_EXPF_SCALE = float.fromhex('0x1.71547652b82fep+0') * _EXPF_N  # N / ln 2
_EXPF_POLY = (float.fromhex('0x1.c6af84b912394p-5') / _EXPF_N ** 3,  # the cubic in r / N, r in [-1/2, 1/2]
              float.fromhex('0x1.ebfce50fac4f3p-3') / _EXPF_N ** 2,
              float.fromhex('0x1.62e42ff0c52d6p-1') / _EXPF_N)
_EXPF_LOW = -150.0 * _EXPF_SCALE  # (exp(-150) and exp(89) round to 0 and inf in float32; the float64 steps do not
_EXPF_HIGH = 89.0 * _EXPF_SCALE   # overflow between them)


def _expf_table():
    with decimal.localcontext() as c:  # the 32 correctly rounded powers
        c.prec = 50
        two = decimal.Decimal(2)
        powers = np.array([float(two ** (decimal.Decimal(i) / _EXPF_N)) for i in range(_EXPF_N)])
    # each entry less its index's share of the exponent field, which the rounded integer adds back
    return powers.view(np.uint64) - (np.arange(_EXPF_N, dtype=np.uint64) << np.uint64(52 - _EXPF_BITS))


_EXPF_TABLE = _expf_table()


def glibc_expf(x):
    """glibc's ``expf`` of a float32 numpy array, bit for bit, as a new float32 array."""
    with np.errstate(invalid='ignore', over='ignore'):
        z = np.multiply(x, _EXPF_SCALE, dtype=np.float64)
        # below the underflow bound the result rounds to 0, above the overflow one to inf, as glibc's (NaN stays)
        np.clip(z, _EXPF_LOW, _EXPF_HIGH, out=z)
        kd = z + _EXPF_SHIFT
        ki = kd.view(np.uint64)
        z -= kd - _EXPF_SHIFT  # r: what is left of x * N / ln 2 after k (ki keeps kd's bits: no kd -= here)
        c0, c1, c2 = _EXPF_POLY
        s = _EXPF_TABLE[ki & np.uint64(_EXPF_N - 1)]  # (the table's index: k mod N)
        s += ki << np.uint64(52 - _EXPF_BITS)
        y = c0 * z
        y += c1
        y *= z * z
        z *= c2
        z += 1.0
        y += z
        y *= s.view(np.float64)
        return y.astype(np.float32)


def mxnet_softmax(a, axis, negate, temperature, log, length):
    """MXNet's own CPU softmax loop over ``axis`` of a float32 numpy array (see above), a new float32 array.
    ``temperature``: None or a number; ``length``: None or an int64 numpy array, ``a``'s shape without ``axis``
    (positions from it on give 0)."""
    with _quiet():
        if negate:
            a = -a
        if length is not None:
            pos = np.arange(a.shape[axis]).reshape((-1,) + (1,) * (a.ndim - axis - 1))
            keep = pos < np.expand_dims(length, axis)
            a = np.where(keep, a, np.float32(-np.inf))
        d = a - a.max(axis, keepdims=True)
        if temperature is not None and temperature != 1.0:
            d /= np.float32(temperature)
        e = glibc_expf(d)
        if length is not None:
            e[~keep] = 0.0
        total = np.cumsum(e, axis, dtype=np.float32)  # (in order, as the loop adds)
        if length is None:
            total = total.take([-1], axis)
        else:
            last = np.expand_dims(np.maximum(length, 1) - 1, axis)
            total = np.take_along_axis(total, last, axis)
        if log:
            return d - _libm.logf(total)
        e /= total
        if length is not None:
            e[~keep] = 0.0
        return e


def mxnet_softmax_grad(y, g, axis, negate, temperature, log, length):
    """The gradient MXNet's own CPU loop gives from softmax's (``log``: log_softmax's) float32 output ``y`` and head
    gradient ``g`` (numpy arrays; other arguments as ``mxnet_softmax``): per row a float sum in order of g * y
    (log: of g), then y * (g - sum) (log: g - expf(y) * sum), negated for softmin, divided by the temperature."""
    with _quiet():
        p = g if log else g * y
        if length is not None:
            pos = np.arange(y.shape[axis]).reshape((-1,) + (1,) * (y.ndim - axis - 1))
            keep = pos < np.expand_dims(length, axis)
            p = np.where(keep, p, np.float32(0))
            total = np.take_along_axis(np.cumsum(p, axis, dtype=np.float32),
                                       np.expand_dims(np.maximum(length, 1) - 1, axis), axis)
        else:
            total = np.cumsum(p, axis, dtype=np.float32).take([-1], axis)
        if log:
            r = glibc_expf(y)
            r *= total
            np.subtract(g, r, out=r)
        else:
            r = g - total
            r *= y
        if negate:
            np.negative(r, out=r)
        if temperature is not None and temperature != 1.0:
            r /= np.float32(temperature)
        if length is not None:
            r[~keep] = 0.0
        return r
