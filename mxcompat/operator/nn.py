"""Neural-network operators: activations, softmax family, FullyConnected, Convolution/Deconvolution, Pooling,
normalisations (BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization, LRN), Dropout, Embedding and
UpSampling, and the spatial-sampling ops (BilinearSampler, GridGenerator, SpatialTransformer, ROIPooling). The
loss heads with MXNet's own backward (SoftmaxOutput, *RegressionOutput, MakeLoss, CTCLoss ...)
in ``nn_output``.

Each op calls ``torch.nn.functional`` directly. Differences from MXNet are noted per op.
"""
import math
import threading

import torch
import torch.nn.functional as F
from torch.utils.weak import WeakTensorKeyDictionary

from .. import autograd as _ag
from .. import kernels
from ..base import MXNetError, MXNetValueError, parse_bool, unsupported
from .indexing import recorded, remember_log_softmax, untraced
from .registry import defop, REQUIRED

_STATE = _ag.STATE
_X = ('data',)


def _opt_bool(v):
    """MXNet's ``boolean or None`` attributes."""
    return None if v is None or (isinstance(v, str) and v.strip() in ('None', '')) else parse_bool(v)


def _err(op, msg):
    return MXNetValueError('Operator %s: %s' % (op, msg))


def _channel_view(t, ndim, axis=1):
    """A per-channel vector reshaped to broadcast along ``axis`` of an ``ndim``-d array."""
    shape = [1] * ndim
    shape[axis] = -1
    return t.reshape(shape)


# ---- activations ------------------------------------------------------------------------------------------------
_ACT = {'relu': torch.relu, 'sigmoid': torch.sigmoid, 'tanh': torch.tanh,
        'softrelu': lambda x: F.softplus(x, 1.0, 20.0),  # MXNet: x itself above 20, as torch's threshold
        'softsign': F.softsign}


def _activation(data, act_type):
    return _ACT[act_type](data)


defop('Activation', _X, [('act_type', 'str', REQUIRED)], _activation, bind=lambda a: _ACT[a['act_type']],
      aliases=('_npx_activation',),
      choices={'act_type': tuple(_ACT)}, doc='Elementwise activation: relu, sigmoid, tanh, softrelu or softsign.')


def _prelu_gamma(gamma, dshape):
    # MXNet aligns gamma's trailing dims with data's axes 0..1 from the right (so a (C,) gamma lands on axis 1).
    ndim = len(dshape)
    out = [1] * ndim
    s = gamma.dim() - 1
    for i in range(ndim - 1, -1, -1):
        if s >= 0 and i <= 1 and (dshape[i] == gamma.shape[s] or gamma.shape[s] == 1):
            out[i] = gamma.shape[s]
            s -= 1
    if s != -1:
        raise _err('LeakyReLU', 'Cannot broadcast gamma to data. gamma: %s, data: %s'
                   % (tuple(gamma.shape), tuple(dshape)))
    return gamma.reshape(out)


_SELU_ALPHA, _SELU_LAMBDA = 1.6732632423543772, 1.0507009873554805


def _selu_mx(x):
    # MXNet's selu gradient is lambda * (alpha + out) for x <= 0 (the exact one is out + lambda * alpha): keep
    # torch's forward and route MXNet's derivative through a detached factor.
    out = F.selu(x)
    if not out.requires_grad:
        return out
    d = _SELU_LAMBDA * torch.where(out > 0, torch.ones_like(out), _SELU_ALPHA + out)
    return out.detach() + (x - x.detach()) * d.detach()


def _leaky_relu(data, gamma=None, *, act_type, slope, lower_bound, upper_bound):
    if act_type == 'leaky':
        return F.leaky_relu(data, slope)
    if act_type == 'prelu':
        if gamma is None:
            raise MXNetError("Operator LeakyReLU: act_type='prelu' needs the input gamma")
        return torch.where(data > 0, data, data * _prelu_gamma(gamma, data.shape))
    if act_type == 'elu':
        return F.elu(data, slope)
    if act_type == 'selu':
        return _selu_mx(data)
    if act_type == 'gelu':
        return F.gelu(data)
    # rrelu: a random slope in [lower_bound, upper_bound) per element while training, their mean otherwise;
    # MXNet also returns the slopes as a second output (left uninitialised outside training: the mean here)
    if _STATE.training:
        mask = torch.empty_like(data).uniform_(lower_bound, upper_bound)
    else:
        mask = torch.full_like(data, (lower_bound + upper_bound) / 2.0)
    return torch.where(data > 0, data, data * mask), mask


defop('LeakyReLU', ('data', 'gamma'),
      [('act_type', 'str', 'leaky'), ('slope', 'float', 0.25), ('lower_bound', 'float', 0.125),
       ('upper_bound', 'float', 0.334)], _leaky_relu, optional=('gamma',), aliases=('_npx_leaky_relu',),
      choices={'act_type': ('rrelu', 'leaky', 'prelu', 'elu', 'selu', 'gelu')},
      num_outputs=lambda a: 2 if a['act_type'] == 'rrelu' else 1,
      input_names=lambda a: ['data', 'gamma'] if a['act_type'] == 'prelu' else ['data'],
      doc='Leaky/parametric/exponential ReLU family (leaky, prelu, elu, selu, gelu, rrelu).')


# ---- softmax family -----------------------------------------------------------------------------------------------
# A recorded 2-D log_softmax is marked for pick's one-pass gradient (indexing._PickLogSoftmax) from this many
# elements up. Below it torch's own gather and log_softmax backward take less time than the Python Function's
# overhead: -pick(log_softmax(x)) forward and backward, one thread, fused / native: 64x10 117 / 91 us, 256x100
# 245 / 200 us, 64x1000 346 / 336 us, 256x1000 993 / 1057 us, 700x1000 2418 / 2862 us (hybridized MLP step, batch
# 64 x 10 classes: 0.967 -> 0.928 of torch's in six alternating process pairs).
_FUSED_PICK_MIN = 1 << 17
_SOFTMAX_PARAMS = [('axis', 'int', -1), ('temperature', 'float?', None), ('dtype', 'dtype?', None),
                   ('use_length', 'bool', False)]
_SOFTMAX_DTYPES = (None, torch.float16, torch.float32, torch.float64)


def _softmax_common(op, data, axis, temperature, dtype):
    nd = data.dim()
    if not -nd <= axis < nd:
        raise _err(op, 'axis %d out of range for an array of ndim %d' % (axis, nd))
    if temperature is not None and temperature != 1.0:
        data = data / temperature
    if dtype is not None and dtype is not data.dtype:
        data = data.to(dtype)
    return data


def _length_mask(data, length, axis):
    """True where the position along ``axis`` is below ``length`` (shape of data without ``axis``)."""
    if length.is_floating_point() and length.device.type != 'meta':  # MXNet checks when it runs, not in inference
        raise MXNetError('Operator softmax: This operation only support integer types, not %s'
                         % str(length.dtype).replace('torch.', ''))
    axis = axis % data.dim()
    pos = torch.arange(data.shape[axis], device=data.device)
    pos = pos.reshape([-1] + [1] * (data.dim() - axis - 1))
    return pos < length.unsqueeze(axis)


def _softmax(data, length=None, *, axis, temperature, dtype, use_length):
    x = _softmax_common('softmax', data, axis, temperature, dtype)
    if not use_length:
        return torch.softmax(x, axis)
    if length is None:
        raise MXNetError('Operator softmax: use_length=True needs the input length')
    mask = _length_mask(x, length, axis)
    out = torch.softmax(x.masked_fill(~mask, float('-inf')), axis)
    return out.masked_fill(~mask, 0.0)


def _no_length(op):
    def impl(data, axis, temperature, dtype, use_length):
        if use_length:
            raise unsupported(op, 'use_length=True', 'MXNet %s takes no length input' % op)
        x = _softmax_common(op, data, axis, temperature, dtype)
        if op != 'log_softmax':
            return torch.softmax(-x, axis)
        out = torch.log_softmax(x, axis)
        if out.dim() == 2 and axis in (1, -1) and out.numel() >= _FUSED_PICK_MIN and recorded(out):
            remember_log_softmax(out, x)
        return out
    return impl


defop('softmax', ('data', 'length'), _SOFTMAX_PARAMS, _softmax, optional=('length',), aliases=('_npx_softmax',),
      choices={'dtype': _SOFTMAX_DTYPES},
      input_names=lambda a: ['data', 'length'] if a['use_length'] else ['data'],
      doc='Softmax along ``axis`` (with ``temperature``; ``use_length`` masks positions >= length to 0).')
defop('log_softmax', _X, _SOFTMAX_PARAMS, _no_length('log_softmax'), aliases=('_npx_log_softmax',),
      choices={'dtype': _SOFTMAX_DTYPES}, doc='Log of softmax along ``axis``.')
defop('softmin', _X, _SOFTMAX_PARAMS, _no_length('softmin'), choices={'dtype': _SOFTMAX_DTYPES},
      doc='Softmax of the negated input along ``axis``.')


class _SoftmaxLastChannelGrad(torch.autograd.Function):
    """Softmax over the last axis whose backward is the axis-1 softmax gradient, as MXNet's 'instance' mode."""

    @staticmethod
    def forward(ctx, x):
        y = torch.softmax(x, -1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return y * (g - (g * y).sum(1, keepdim=True))


def _softmax_activation(data, mode):
    if mode == 'channel':
        return torch.softmax(data, 1)
    # 'instance': MXNet's forward keeps only the last axis, its backward sums over axis 1 (same when 2-D)
    if data.dim() > 2 and torch.is_grad_enabled() and data.requires_grad:
        return _SoftmaxLastChannelGrad.apply(data)
    return torch.softmax(data, -1)


defop('SoftmaxActivation', _X, [('mode', 'str', 'instance')], _softmax_activation,
      choices={'mode': ('instance', 'channel')},
      doc="Softmax over the last axis ('instance') or over axis 1 ('channel').")


# ---- FullyConnected -----------------------------------------------------------------------------------------------
def _fully_connected(data, weight, bias=None, *, num_hidden, no_bias, flatten):
    if flatten and data.dim() != 2:
        data = data.reshape(data.shape[0], -1) if data.dim() else data.reshape(1, 1)
    in_units = data.shape[-1]
    if tuple(weight.shape) != (num_hidden, in_units):
        raise _err('FullyConnected', 'weight shape %s does not match the inferred shape %s for data shape %s'
                   % (tuple(weight.shape), (num_hidden, in_units), tuple(data.shape)))
    if no_bias:
        bias = None
    elif bias is None:
        raise MXNetError('Operator FullyConnected: input bias is missing (pass no_bias=True to omit it)')
    elif tuple(bias.shape) == (num_hidden, 1):  # MXNet's shape inference takes this shape too
        bias = bias.reshape(num_hidden)
    elif tuple(bias.shape) != (num_hidden,):
        raise _err('FullyConnected', 'bias shape %s does not match (%d,) or (%d, 1)'
                   % (tuple(bias.shape), num_hidden, num_hidden))
    return F.linear(data, weight, bias)


def _with_bias(a):
    return ['data', 'weight'] if a['no_bias'] else ['data', 'weight', 'bias']


defop('FullyConnected', ('data', 'weight', 'bias'),
      [('num_hidden', 'int', REQUIRED), ('no_bias', 'bool', False), ('flatten', 'bool', True)],
      _fully_connected, optional=('bias',), input_names=_with_bias, aliases=('_npx_fully_connected',),
      doc='``data @ weight.T + bias``; ``flatten`` collapses all but the first axis of data first. A bias of shape '
          '(num_hidden, 1) is taken as MXNet\'s shape inference and its kernel without oneDNN take it (its oneDNN '
          'kernel, the default for dense CPU arrays, raises).')


# ---- Convolution / Deconvolution ----------------------------------------------------------------------------------
_LAYOUTS = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}
_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_DECONV = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _spatial_args(op, kernel, nd_data, stride, dilate, pad, layout):
    """Check kernel/layout against the data rank; fill MXNet's empty-tuple defaults."""
    nd = len(kernel)
    if nd not in (1, 2, 3):
        raise _err(op, 'kernel must have 1, 2 or 3 dimensions, got %s' % (tuple(kernel),))
    if nd_data != nd + 2:
        raise _err(op, 'data must be %dD (batch, channel, %s) for a %dD kernel, got ndim %d'
                   % (nd + 2, ', '.join('dhw'[3 - nd:]), nd, nd_data))
    if layout is not None and layout not in _LAYOUTS[nd]:
        raise _err(op, 'layout %s does not match a %dD kernel' % (layout, nd))
    for name, v in (('stride', stride), ('dilate', dilate), ('pad', pad)):
        if v and len(v) != nd:
            raise _err(op, '%s %s must have %d elements like kernel' % (name, tuple(v), nd))
    return (tuple(stride) or (1,) * nd, tuple(dilate) or (1,) * nd, tuple(pad) or (0,) * nd,
            layout is not None and layout[-1] == 'C')


def _check_conv(op, data, weight, bias, kernel, num_filter, num_group, no_bias, transposed):
    """Check group/weight/bias shapes against MXNet's inferred ones; returns the bias to use (None if no_bias)."""
    c = data.shape[1]
    if num_group < 1 or c % num_group or num_filter % num_group:
        raise _err(op, 'num_group=%d must divide the input channels (%d) and num_filter (%d)'
                   % (num_group, c, num_filter))
    want = ((c, num_filter // num_group) if transposed else (num_filter, c // num_group)) + tuple(kernel)
    if tuple(weight.shape) != want:
        raise _err(op, 'weight shape %s does not match the inferred shape %s for data shape %s'
                   % (tuple(weight.shape), want, tuple(data.shape)))
    if no_bias:
        return None
    if bias is None:
        raise MXNetError('Operator %s: input bias is missing (pass no_bias=True to omit it)' % op)
    if tuple(bias.shape) != (num_filter,):
        raise _err(op, 'bias shape %s does not match (%d,)' % (tuple(bias.shape), num_filter))
    return bias


# On CPU, torch's oneDNN 2-D convolution trains faster on a channels-last (NHWC-strided) weight when the channel
# counts are large (ResNet-18's training step ~5-10% faster). Its output is then channels-last too; batch norm,
# activations, max pooling and additions keep that layout, so the next convolution's input already has it, and
# torch's NHWC batch norm and max pooling are much faster than its NCHW ones (a 32x32x32x32 max pooling: 0.5 ms
# against 6 ms, one thread). A convolution computes channels-last when it has at least _CHANNELS_LAST_MIN_CHANNELS
# outputs and half that many inputs, or when it is an image stem (at most 4 input channels, as RGB(A) or grey) into
# at least half that many outputs. A layout mix costs copies: the executor CNN (3->32 and 32->64 convolutions with
# batch norm and max pooling, then Flatten) got ~20% slower when only its 32->64 convolution computed channels-last,
# and ~30% faster when both did (session 22). DenseNet's 128->32 convolutions, whose outputs are concatenated,
# stay plain for inference; in training they pass the halved bound below (batch 2 at 224: 0.91x; at batch 1 all
# channels-last made its step 1.23x slower). Measured for float32 only, so other dtypes keep
# the plain layout. Only strides differ: values and shapes are the same, and results still read as C-ordered data
# (asnumpy and save copy in logical order; view-like ops make their results contiguous). 0 turns it off.
# Where a gradient is wanted the bound is divided by _CHANNELS_LAST_TRAINING_DIVISOR: there batch norm and max
# pooling run backward too, and their NHWC kernels pay from fewer channels (CIFAR ResNet-20, 16-32-64 channels,
# hybridized training step at batch 64: ~0.75x with every convolution channels-last); for inference, where batch
# norm is one multiply-add and max pooling of plain data takes strided views (_strided_max_pool2d), the lower bound
# made SqueezeNet and MobileNet v2 at batch 1 slower. 1 uses one bound for both.
_CHANNELS_LAST_MIN_CHANNELS = 64
_CHANNELS_LAST_STEM_MAX_IN = 4
_CHANNELS_LAST_TRAINING_DIVISOR = 2


def _channels_last_pays(data, weight, num_group):
    out_c, in_c = weight.shape[0], weight.shape[1]
    least = _CHANNELS_LAST_MIN_CHANNELS
    if _gradient_wanted(data, weight):
        least = -(-least // _CHANNELS_LAST_TRAINING_DIVISOR)
    return (0 < least and (out_c >= least and 2 * in_c >= least
                           or in_c <= _CHANNELS_LAST_STEM_MAX_IN and 2 * out_c >= least)
            and weight.dim() == 4 and num_group == 1 and data.dtype is torch.float32 and data.device.type == 'cpu')


# oneDNN's channels-last convolution is slow when the output has few positions (ResNet's last stage on CIFAR
# thumbnails). There all three products of a 2-D convolution run as plain matrix products over the gathered input
# patches (im2col, channels fastest). Batch 64, one thread, ResNet-18's 512->512 3x3 on 4x4 maps: forward 48 -> 34 ms,
# data gradient 46 -> 34 ms (the patch gradients summed back with one strided add per kernel tap), weight gradient
# 158 -> 78 ms; 256->512 with stride 2 to 4x4: 26 -> 18, 27 -> 19 and 56 -> 34 ms. At 8x8 outputs the forward and
# data products lose (256->256: 28 -> 50 ms) and from 16x16 up the gather costs more than it saves, hence the bound
# on output positions. With fewer channels oneDNN wins (32->64 at 4x4, forward and both gradients: 2.0 against
# 2.9 ms; a 3->32 stem 0.8 against 1.1 ms), so both channel counts must reach _CHANNELS_LAST_MIN_CHANNELS.
# Measured on CPU float32 with channels-last data; 0 turns it off.
_GEMM_CONV_MAX_POSITIONS = 16


def _gemm_conv_pays(data, weight, stride, pad, dilate):
    # not under tracing (fake or functional tensors, a dispatch mode): graphs that mx.to_torch exports keep aten's
    # convolution
    if (weight.dim() != 4 or data.shape[0] == 0 or any(d != 1 for d in dilate) or not untraced(data)
            or min(weight.shape[0], weight.shape[1]) < _CHANNELS_LAST_MIN_CHANNELS):
        return False
    ho, wo = _conv_out_hw(data, weight, stride, pad)
    return 0 < ho * wo <= _GEMM_CONV_MAX_POSITIONS


def _conv_out_hw(data, weight, stride, pad):
    return tuple(_pool_out_size(data.shape[i], weight.shape[i], stride[i - 2], pad[i - 2], 'valid') for i in (2, 3))


# Inference with an unchanged weight (no gradient recorded): oneDNN reorders a plain weight into its own blocked
# layout at every call, after the channels-last copy above; at batch 1 that is most of the time of ResNet's wide
# layers (512->512 3x3 on 7x7: 13 ms, 1.5 ms with the weight reordered once). MXNet's oneDNN operators keep the
# reordered weight while the array is unchanged; here it is kept for the weight tensor (``_REORDERED``), keyed by
# its version counter (which every in-place write bumps: optimizers, set_data, out=, assignment) and the call's
# input shape, stride and padding. As in MXNet, a write that bypasses the array (through DLPack) is not seen.
# False turns it off.
_PACKED_CONV = hasattr(torch.ops.mkldnn, '_convolution_pointwise') and torch.backends.mkldnn.is_available()
# The forms of a weight kept for inference, by weight tensor, held weakly and by identity: nothing is attached to
# the tensor itself, so pickling, saving or deep-copying it carries none of them (an opaque oneDNN tensor cannot be).
_REORDERED = WeakTensorKeyDictionary()
_CHANNELS_LAST = WeakTensorKeyDictionary()


def _kept(table, weight, key, make):
    """``make()``, kept in ``table`` for ``weight`` while ``key`` (its version counter first) is unchanged."""
    hit = table.get(weight)
    if hit is None or hit[0] != key:
        hit = table[weight] = (key, make())
    return hit[1]


def forget_kept(weight):
    """Drop what ``_kept`` holds for ``weight``: for a write its version counter does not see."""
    _REORDERED.pop(weight, None)
    _CHANNELS_LAST.pop(weight, None)
    _FOLDED.pop(weight, None)
    # a fused convolution's folded weight also depends on BatchNorm arrays, which this write may have been to
    _UNSEEN_WRITES[0] += 1


def _packed_geometry(data, weight, pad, dilate):
    """The layouts the reordered-weight path is used for: a nonempty batch, no dilation, padding smaller than the
    kernel and a map at least as big as the kernel. (With a 1x1 kernel, stride 2, padding 1 and dilation 2 on a
    6x1 map, oneDNN's kernel with a bias corrupted the heap: the process crashed at exit.)"""
    return data.shape[0] > 0 and all(d == 1 for d in dilate) and all(
        pad[i] < weight.shape[2 + i] <= data.shape[2 + i] for i in range(2))


def _gradient_wanted(data, *params):
    """Whether a gradient of this convolution (of ``data`` or ``params``, Nones skipped) is being recorded, by
    mxcompat or by torch for an Executor or GluonModule. (mxcompat's eager calls outside ``record()`` run with
    torch's grad mode on, but their results are cut from torch's graph.)"""
    return ((_STATE.recording or _STATE.torch_grads) and torch.is_grad_enabled()
            and (data.requires_grad or any(p is not None and p.requires_grad for p in params)))


def _no_gradient(data, *params):
    """Whether no gradient of this convolution is wanted (``_gradient_wanted``) and no tracer runs."""
    return not _gradient_wanted(data, *params) and untraced(data)


def _channels_last_weight(data, weight, bias):
    """``weight`` in channels-last strides; without a gradient wanted, the copy is kept (``_CHANNELS_LAST``) while
    the weight's version counter is unchanged (it took longer than the matrix products of a batch-1 inference)."""
    if not _no_gradient(data, weight, bias):
        return weight.contiguous(memory_format=torch.channels_last)
    return _kept(_CHANNELS_LAST, weight, weight._version,
                 lambda: weight.detach().contiguous(memory_format=torch.channels_last))


def _packed_applies(data, weight, bias, pad, dilate, *tensors):
    """Whether a weight reordered once can compute this convolution: torch has the operators, no gradient of it (or
    of ``tensors``) is wanted, and the geometry is one the packed path takes."""
    return _PACKED_CONV and _no_gradient(data, weight, bias, *tensors) and _packed_geometry(data, weight, pad, dilate)


def _packed_conv(data, weight, bias, stride, pad, dilate):
    """The convolution through ``weight`` reordered once for oneDNN (channels-last output), or None where that
    does not apply: a gradient is wanted (see _no_gradient), or torch lacks the operators."""
    if not _packed_applies(data, weight, bias, pad, dilate):
        return None
    reordered = _kept(_REORDERED, weight, (weight._version, tuple(data.shape), stride, pad),  # (no dilation here)
                      lambda: torch.ops.mkldnn._reorder_convolution_weight(
                          weight.detach(), list(pad), list(stride), list(dilate), 1, list(data.shape)))
    return torch.ops.mkldnn._convolution_pointwise(
        data.contiguous(memory_format=torch.channels_last), reordered, None if bias is None else bias.detach(),
        list(pad), list(stride), list(dilate), 1, 'none', [], '')


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


def fused_conv_applies(data, weight, bias, stride, pad, dilate, num_group, tensors):
    """Whether the fused convolution (``fused_conv``) computes this call: a 2-D convolution that ``_convolution``
    would run through a reordered weight (``_packed_conv``), with no gradient wanted of it or of ``tensors``."""
    return (_channels_last_pays(data, weight, num_group) and not _gemm_conv_pays(data, weight, stride, pad, dilate)
            and _packed_applies(data, weight, bias, pad, dilate, *tensors))


# folded and reordered weights of fused convolutions, by weight tensor (as _REORDERED), and the count of writes
# forget_kept was told of (folded weights made before one are not used after it)
_FOLDED = WeakTensorKeyDictionary()
_UNSEEN_WRITES = [0]


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


class _Scratch(threading.local):
    """One buffer per thread for a convolution's transient patch matrices, as MXNet's operators reuse the engine's
    temp-space resource. A fresh 19 MB matrix (512-channel 3x3 patches of a 4x4 map, batch 64) is mapped anew by
    malloc at each call, and its page faults took longer (~27 ms) than the gather itself. Matrices over
    _SCRATCH_MAX_BYTES are allocated for the call only, so the buffer kept stays bounded."""
    buf = None


_SCRATCH = _Scratch()
_SCRATCH_MAX_BYTES = 256 << 20


def _scratch(shape, like):
    """An uninitialized tensor of ``shape`` in this thread's reused buffer, or a fresh one when the gradient graph
    is being recorded (create_graph) or it would be too big to keep."""
    numel = math.prod(shape)
    if torch.is_grad_enabled() or numel * like.element_size() > _SCRATCH_MAX_BYTES:
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
        ho, wo = _conv_out_hw(data, weight, stride, pad)
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


def _convolution(data, weight, bias=None, *, kernel, stride, dilate, pad, num_filter, num_group, workspace, no_bias,
                 cudnn_tune, cudnn_off, layout):
    stride, dilate, pad, last = _spatial_args('Convolution', kernel, data.dim(), stride, dilate, pad, layout)
    if last:  # channels-last data and weight (num_filter, *kernel, C/group): compute in channels-first
        data = data.movedim(-1, 1)
        weight = weight.movedim(-1, 1)
    bias = _check_conv('Convolution', data, weight, bias, kernel, num_filter, num_group, no_bias, False)
    if not last and _channels_last_pays(data, weight, num_group):
        if _gemm_conv_pays(data, weight, stride, pad, dilate):
            return _GemmConv2d.apply(data, _channels_last_weight(data, weight, bias), bias, stride, pad)
        out = _packed_conv(data, weight, bias, stride, pad, dilate)
        if out is not None:
            return out
        weight = weight.contiguous(memory_format=torch.channels_last)
    out = _CONV[len(kernel)](data, weight, bias, stride, pad, dilate, num_group)
    return out.movedim(1, -1) if last else out


_CONV_PARAMS = [('kernel', 'shape', REQUIRED), ('stride', 'shape', ()), ('dilate', 'shape', ()), ('pad', 'shape', ()),
                ('num_filter', 'int', REQUIRED), ('num_group', 'int', 1), ('workspace', 'int', 1024),
                ('no_bias', 'bool', False), ('cudnn_tune', 'str', None), ('cudnn_off', 'bool', False),
                ('layout', 'str', None)]
_CONV_CHOICES = {'cudnn_tune': (None, 'off', 'limited_workspace', 'fastest'),
                 'layout': (None, 'NCW', 'NCHW', 'NCDHW', 'NHWC', 'NDHWC')}

defop('Convolution', ('data', 'weight', 'bias'), _CONV_PARAMS, _convolution, optional=('bias',),
      input_names=_with_bias, aliases=('_npx_convolution',), choices=_CONV_CHOICES,
      doc='1-3D convolution. ``workspace``/``cudnn_tune``/``cudnn_off`` only tune MXNet kernels: no effect here.')


def _deconv_pad(kernel, stride, dilate, pad, adj, target_shape, in_sizes):
    """MXNet's padding rule: a nonzero ``target_shape`` overrides ``pad`` and ``adj``."""
    if target_shape and any(target_shape):
        pads, adjs = [], []
        for i, k in enumerate(kernel):
            total = stride[i] * (in_sizes[i] - 1) + 1 + (k - 1) * dilate[i]
            if total < target_shape[i]:
                raise _err('Deconvolution', 'too big target shape %s' % (tuple(target_shape),))
            total -= target_shape[i]
            adjs.append(total % 2)
            pads.append((total + 1) // 2)
        return tuple(pads), tuple(adjs)
    return pad, tuple(adj) or (0,) * len(kernel)


def _deconvolution(data, weight, bias=None, *, kernel, stride, dilate, pad, adj, target_shape, num_filter, num_group,
                   workspace, no_bias, cudnn_tune, cudnn_off, layout):
    stride, dilate, pad, last = _spatial_args('Deconvolution', kernel, data.dim(), stride, dilate, pad, layout)
    if last:
        raise unsupported('Deconvolution', 'layout=%r' % layout, 'MXNet 1.9.1 has no channels-last deconvolution '
                          'on CPU either')
    bias = _check_conv('Deconvolution', data, weight, bias, kernel, num_filter, num_group, no_bias, True)
    pad, adj = _deconv_pad(kernel, stride, dilate, pad, adj, target_shape, data.shape[2:])
    return _DECONV[len(kernel)](data, weight, bias, stride, pad, adj, num_group, dilate)


defop('Deconvolution', ('data', 'weight', 'bias'),
      _CONV_PARAMS[:4] + [('adj', 'shape', ()), ('target_shape', 'shape', ()), ('num_filter', 'int', REQUIRED),
                          ('num_group', 'int', 1), ('workspace', 'int', 512), ('no_bias', 'bool', True),
                          ('cudnn_tune', 'str', None), ('cudnn_off', 'bool', False), ('layout', 'str', None)],
      _deconvolution, optional=('bias',), input_names=_with_bias, aliases=('_npx_deconvolution',),
      choices=_CONV_CHOICES, doc='Transposed convolution (MXNet defaults to no_bias=True here).')


# ---- Pooling ------------------------------------------------------------------------------------------------------
# torch's own max_poolNd, which F.max_poolNd call after argument handling we do not need (positional, no indices)
_MAXPOOL = {1: torch.max_pool1d, 2: torch.max_pool2d, 3: torch.max_pool3d}
_AVGPOOL = {2: F.avg_pool2d, 3: F.avg_pool3d}


def _pool_out_size(size, k, s, p, convention):
    if convention == 'valid':
        return 1 + (size + 2 * p - k) // s
    if convention == 'same':
        return -(-size // s)
    return 1 + int(math.ceil((size + 2 * p - k) / s))


def _check_same_convention(nd_data, pad):
    # MXNet reads pad[0..2] whatever the kernel rank, so a 1-D 'same' pooling needs pad=(0, 0, 0)
    if nd_data != 3:
        raise _err('Pooling', "pooling_convention='same' supports 3D data (batch, channel, x) only, got ndim %d"
                   % nd_data)
    if len(pad) < 3 or any(pad[:3]):
        raise _err('Pooling', "pooling_convention='same' disables the pad parameter: it must be (0, 0, 0), got %s"
                   % (tuple(pad),))


def _avg_pool(x, k, s, p, ceil_mode, include_pad, divisor=None):
    nd = x.dim() - 2
    if nd == 1:  # avg_pool1d has no divisor_override: pool a (N, C, 1, W) image instead
        return F.avg_pool2d(x.unsqueeze(2), (1,) + k, (1,) + s, (0,) + p, ceil_mode, include_pad,
                            divisor).squeeze(2)
    return _AVGPOOL[nd](x, k, s, p, ceil_mode, include_pad, divisor)


def _global_pool(x, pool_type, p_value):
    dims = tuple(range(2, x.dim()))
    if pool_type == 'max':
        return torch.amax(x, dims, keepdim=True)
    if pool_type == 'avg':
        return torch.mean(x, dims, keepdim=True)
    if pool_type == 'sum':
        return torch.sum(x, dims, keepdim=True)
    return _lp_root(torch.sum(x ** p_value, dims, keepdim=True), p_value)


def _lp_root(x, p):
    if p == 1:
        return x
    if p == 2:
        return torch.sqrt(x)
    return torch.sign(x) * torch.abs(x).pow(1.0 / 3)


def _pooling(data, kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride, pad, p_value,
             count_include_pad, layout):
    nd = data.dim() - 2
    if not 1 <= nd <= 3:
        raise _err('Pooling', 'data must be 3D (batch, channel, x), 4D (batch, channel, y, x) or 5D '
                   '(batch, channel, d, y, x), got shape %s' % (tuple(data.shape),))
    if pool_type == 'lp' and p_value not in (1, 2, 3):
        raise _err('Pooling', 'lp pooling needs p_value 1, 2 or 3, got %s' % (p_value,))
    last = layout is not None and layout[-1] == 'C'
    if layout is not None and layout not in _LAYOUTS[nd]:
        raise _err('Pooling', 'layout %s does not match %dD data' % (layout, data.dim()))
    x = data.movedim(-1, 1) if last else data
    if global_pool:
        out = _global_pool(x, pool_type, p_value)
    else:
        out = _window_pool(x, tuple(kernel), pool_type, pooling_convention, stride, pad, p_value,
                           True if count_include_pad is None else count_include_pad)
    return out.movedim(1, -1) if last else out


# torch's CPU max pooling of plain (NCHW) data takes one scalar pass per window with index bookkeeping: 6 ms for
# 32x32x32x32 in 2x2 windows, one thread, where its channels-last kernel takes 0.5. Without a gradient to record
# (inference), an unpadded 2-D max pooling is instead the elementwise maximum of its kernel's strided views of the
# input: 1.1 ms there, 0.25 against 1.1-1.4 ms for LeNet's 64x6x24x24. The same values (a maximum is exact, and NaN
# propagates as in torch's kernel). False turns it off.
_STRIDED_MAX_POOL = True


def _strided_max_applies(x, pad, outs, stride, kernel):
    return (_STRIDED_MAX_POOL and x.device.type == 'cpu' and x.is_floating_point() and not any(pad)
            and not recorded(x) and untraced(x) and x.is_contiguous() and x.numel() > 0
            and all((outs[i] - 1) * stride[i] + kernel[i] <= x.shape[2 + i] for i in range(2)))


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


def _window_pool(x, k, pool_type, convention, stride, pad, p_value, include_pad):
    nd = x.dim() - 2
    if len(k) != nd:
        raise _err('Pooling', 'kernel %s does not match %dD data of shape %s' % (k, x.dim(), tuple(x.shape)))
    s = tuple(stride) or (1,) * nd
    p = tuple(pad) or (0,) * nd
    sizes = x.shape[2:]
    if convention == 'same':
        _check_same_convention(x.dim(), tuple(pad))
        p = (0,)
    for i in range(nd):
        if k[i] > sizes[i] + 2 * p[i]:
            raise _err('Pooling', 'kernel size (%d) exceeds input (%d padded to %d)'
                       % (k[i], sizes[i], sizes[i] + 2 * p[i]))
    outs = [_pool_out_size(sizes[i], k[i], s[i], p[i], convention) for i in range(nd)]
    ceil = convention == 'full'
    # torch pools natively unless a pad exceeds half the kernel or (ceil mode) a last window starts in the pad;
    # 'same' windows start at i * stride with no left pad and are clipped to the data on the right
    native = convention != 'same' and all(2 * p[i] <= k[i] for i in range(nd)) and (
        not ceil or all((outs[i] - 1) * s[i] < sizes[i] + p[i] for i in range(nd)))
    if native:
        if pool_type == 'max':
            if nd == 2 and _strided_max_applies(x, p, outs, s, k):
                return _strided_max_pool2d(x, k, s, outs)
            return _MAXPOOL[nd](x, k, s, p, 1, ceil)
        if pool_type == 'avg':
            return _avg_pool(x, k, s, p, ceil, include_pad)
        if pool_type == 'sum':
            return _avg_pool(x, k, s, p, ceil, True, 1)
        return _lp_root(_avg_pool(x ** p_value, k, s, p, ceil, True, 1), p_value)
    # General path (windows reaching past torch's limits): pad explicitly, then pool without padding.
    extra = [max(0, (outs[i] - 1) * s[i] + k[i] - sizes[i] - 2 * p[i]) for i in range(nd)]
    spec = []
    for i in reversed(range(nd)):
        spec += [p[i], p[i] + extra[i]]
    zero = (0,) * nd
    if pool_type == 'max':
        # MXNet starts each window at the lowest finite value: a window wholly in the padding gives that value
        return _MAXPOOL[nd](F.pad(x, spec, value=torch.finfo(x.dtype).min), k, s, zero, 1, False)
    xp = F.pad(x ** p_value if pool_type == 'lp' else x, spec)
    total = _avg_pool(xp, k, s, zero, False, True, 1)
    if pool_type == 'lp':
        return _lp_root(total, p_value)
    if pool_type == 'sum':
        return total
    # avg: MXNet divides by the window clipped to the padded input (or to the data without count_include_pad)
    ones = torch.ones((1, 1) + tuple(sizes), dtype=x.dtype, device=x.device)
    if include_pad:
        ones = F.pad(ones, [e for i in reversed(range(nd)) for e in (p[i], p[i])], value=1.0)
        mask = F.pad(ones, [e for i in reversed(range(nd)) for e in (0, extra[i])])
    else:
        mask = F.pad(ones, spec)
    return total / _avg_pool(mask, k, s, zero, False, True, 1)


defop('Pooling', _X,
      [('kernel', 'shape', ()), ('pool_type', 'str', 'max'), ('global_pool', 'bool', False),
       ('cudnn_off', 'bool', False), ('pooling_convention', 'str', 'valid'), ('stride', 'shape', ()),
       ('pad', 'shape', ()), ('p_value', 'int?', None), ('count_include_pad', _opt_bool, None),
       ('layout', 'str', None)],
      _pooling, aliases=('_npx_pooling',),
      choices={'pool_type': ('max', 'avg', 'sum', 'lp'), 'pooling_convention': ('valid', 'full', 'same'),
               'layout': (None, 'NCW', 'NCHW', 'NCDHW', 'NWC', 'NHWC', 'NDHWC')},
      doc='1-3D max/avg/sum/lp pooling with MXNet\'s valid/full conventions; \'same\' (1-D only, pad=(0, 0, 0)) '
          'pools windows starting at i * stride clipped to the data (MXNet\'s own kernel; its MKLDNN float32 '
          'kernel refuses windows that pass the end).')


# ---- normalisation ------------------------------------------------------------------------------------------------
def _bn_update_hook(mean, invstd, eps, moving_mean, moving_var, momentum):
    # MXNet updates the moving statistics when the gradient reaches BatchNorm (not in the forward pass), with
    # the biased batch variance: run that update from a hook on the output. The variance is recovered from the
    # kernel's 1/sqrt(var + eps) instead of a second pass over the batch (kernels.batch_norm_moving_update).
    def hook(grad):
        kernels.batch_norm_moving_update(moving_mean, moving_var, mean, invstd, eps, momentum)
        return grad
    return hook


class _BNInference(torch.autograd.Function):
    """Inference-mode BatchNorm whose backward is MXNet's: the batch-statistics formula evaluated with the
    moving statistics (mean-subtraction terms included), unlike the plain affine gradient."""

    @staticmethod
    def forward(ctx, x, gamma, beta, mean, var, eps):
        out = F.batch_norm(x, mean, var, gamma, beta, False, 0.0, eps)
        ctx.save_for_backward(x, gamma, mean, var)
        ctx.eps = eps
        return out

    @staticmethod
    def backward(ctx, g):
        x, gamma, mean, var = ctx.saved_tensors
        nd = x.dim()
        dims = (0,) + tuple(range(2, nd))
        invstd = _channel_view(torch.rsqrt(var + ctx.eps), nd)
        xh = (x - _channel_view(mean, nd)) * invstd
        gx = g * xh
        dx = _channel_view(gamma, nd) * invstd * (g - g.mean(dims, keepdim=True) - xh * gx.mean(dims, keepdim=True))
        return dx, gx.sum(dims), g.sum(dims), None, None, None


def _batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, use_global_stats,
                output_mean_var, axis, cudnn_off, min_calib_range, max_calib_range):
    nd = data.dim()
    if not -nd <= axis < nd:
        raise _err('BatchNorm', 'axis %d out of range for data of ndim %d' % (axis, nd))
    axis %= nd
    c = data.shape[axis]
    for name, t in (('gamma', gamma), ('beta', beta), ('moving_mean', moving_mean), ('moving_var', moving_var)):
        if tuple(t.shape) != (c,):
            raise _err('BatchNorm', '%s shape %s does not match (%d,) for data shape %s'
                       % (name, tuple(t.shape), c, tuple(data.shape)))
    if fix_gamma:  # gamma acts as 1 and receives a zero gradient, as in MXNet
        gamma = gamma * 0 + 1 if gamma.requires_grad else torch.ones_like(gamma)
    x = data.movedim(axis, 1) if axis != 1 else data
    xshape = x.shape
    if nd > 5:  # MXNet takes any rank; torch's cuDNN batch norm at most 3 spatial axes: flatten them into one
        x = x.reshape(xshape[0], c, math.prod(xshape[2:]))
    if _STATE.training and not use_global_stats:
        out, mean, invstd = kernels.batch_norm_train(x, gamma, beta, eps)
        if out.requires_grad:
            out.register_hook(_bn_update_hook(mean.detach(), invstd.detach(), eps, moving_mean, moving_var,
                                              momentum))
    elif use_global_stats or not (torch.is_grad_enabled() and (x.requires_grad or gamma.requires_grad
                                                                or beta.requires_grad)):
        out = F.batch_norm(x, moving_mean, moving_var, gamma, beta, False, 0.0, eps)
    else:
        out = _BNInference.apply(x, gamma, beta, moving_mean, moving_var, eps)
    if output_mean_var and not (_STATE.training and not use_global_stats):
        mean, invstd = moving_mean.clone(), torch.rsqrt(moving_var + eps)
    if nd > 5:
        out = out.reshape(xshape)
    if axis != 1:
        out = out.movedim(1, axis)
    if output_mean_var:
        return out, mean, invstd  # MXNet's second statistic is 1/sqrt(var + eps), not the variance
    return out


def _batch_norm_infer(shapes, dtypes, attrs):
    """Shapes without running the kernel on meta tensors (torch routes meta batch_norm through its slow-to-load
    decompositions): the output is shaped like data; mean and 1/std (output_mean_var) like a channel vector."""
    data = shapes[0]
    nd = len(data)
    axis = attrs['axis']
    if not -nd <= axis < nd:
        raise _err('BatchNorm', 'axis %d out of range for data of ndim %d' % (axis, nd))
    c = data[axis % nd]
    for name, s in zip(('gamma', 'beta', 'moving_mean', 'moving_var'), shapes[1:]):
        if s is not None and tuple(s) != (c,):
            raise _err('BatchNorm', '%s shape %s does not match (%d,) for data shape %s'
                       % (name, tuple(s), c, tuple(data)))
    n_out = 3 if attrs['output_mean_var'] else 1
    return [tuple(data)] + [(c,)] * (n_out - 1), [dtypes[0]] * n_out


defop('BatchNorm', ('data', 'gamma', 'beta', 'moving_mean', 'moving_var'),
      [('eps', 'float', 1e-3), ('momentum', 'float', 0.9), ('fix_gamma', 'bool', True),
       ('use_global_stats', 'bool', False), ('output_mean_var', 'bool', False), ('axis', 'int', 1),
       ('cudnn_off', 'bool', False), ('min_calib_range', 'float?', None), ('max_calib_range', 'float?', None)],
      _batch_norm, aux=('moving_mean', 'moving_var'), aliases=('_npx_batch_norm',), infer=_batch_norm_infer,
      num_outputs=lambda a: 3 if a['output_mean_var'] else 1,
      doc='Batch normalisation. In training mode the moving statistics are updated in place when the gradient '
          'is computed (as MXNet does); ``min/max_calib_range`` only matter to quantized graphs, as in MXNet.')


def _layer_norm(data, gamma, beta, axis, eps, output_mean_var):
    nd = data.dim()
    if not -nd <= axis < nd:
        raise _err('LayerNorm', 'axis %d out of range for data of ndim %d' % (axis, nd))
    axis %= nd
    c = data.shape[axis]
    if tuple(gamma.shape) != (c,) or tuple(beta.shape) != (c,):
        raise _err('LayerNorm', 'gamma/beta shapes %s, %s do not match (%d,)'
                   % (tuple(gamma.shape), tuple(beta.shape), c))
    if axis == nd - 1 and not output_mean_var:
        return F.layer_norm(data, (c,), gamma, beta, eps)
    var, mean = torch.var_mean(data, axis, correction=0, keepdim=True)
    std = torch.sqrt(var + eps)
    out = (data - mean) / std * _channel_view(gamma, nd, axis) + _channel_view(beta, nd, axis)
    return (out, mean, std) if output_mean_var else out


defop('LayerNorm', ('data', 'gamma', 'beta'), [('axis', 'int', -1), ('eps', 'float', 1e-5),
                                                ('output_mean_var', 'bool', False)],
      _layer_norm, aliases=('_npx_layer_norm',), num_outputs=lambda a: 3 if a['output_mean_var'] else 1,
      doc='Layer normalisation along ``axis``; ``output_mean_var`` also returns the mean and the std.')


def _instance_norm(data, gamma, beta, eps):
    if data.dim() < 3:
        raise _err('InstanceNorm', 'data must have at least 3 dimensions, got shape %s' % (tuple(data.shape),))
    c = data.shape[1]
    if tuple(gamma.shape) != (c,) or tuple(beta.shape) != (c,):
        raise _err('InstanceNorm', 'gamma/beta shapes %s, %s do not match (%d,)'
                   % (tuple(gamma.shape), tuple(beta.shape), c))
    # MXNet takes any rank >= 3; torch's kernels (cuDNN's batch norm under instance_norm) take at most 3 spatial
    # axes, so the spatial axes are flattened into one: the statistics are over all of them either way
    x = data.reshape(data.shape[0], c, math.prod(data.shape[2:])) if data.dim() > 3 else data
    if x.shape[2] > 1:
        out = F.instance_norm(x, None, None, gamma, beta, True, 0.0, eps)
    else:
        # torch refuses a single spatial element (its variance is 0 here, so the output is beta, as in MXNet)
        var, mean = torch.var_mean(x, 2, correction=0, keepdim=True)
        out = (x - mean) * torch.rsqrt(var + eps) * _channel_view(gamma, 3) + _channel_view(beta, 3)
    return out.reshape(data.shape) if out.shape != data.shape else out


defop('InstanceNorm', ('data', 'gamma', 'beta'), [('eps', 'float', 1e-3)], _instance_norm,
      doc='Instance normalisation over the spatial axes of each (sample, channel). Also takes float16/float64 '
          'data (MXNet: float32 only).')


def _group_norm(data, gamma, beta, num_groups, eps, output_mean_var):
    if data.dim() < 3:
        raise _err('GroupNorm', 'data must have at least 3 dimensions, got shape %s' % (tuple(data.shape),))
    n, c = data.shape[0], data.shape[1]
    if c % num_groups:
        raise _err('GroupNorm', '# of channels (%d) must be divisible by # of groups (%d)' % (c, num_groups))
    if tuple(gamma.shape) != (num_groups,) or tuple(beta.shape) != (num_groups,):
        raise _err('GroupNorm', 'gamma/beta shapes %s, %s do not match (%d,) (MXNet 1.x: one per group)'
                   % (tuple(gamma.shape), tuple(beta.shape), num_groups))
    g = data.reshape(n, num_groups, -1)
    var, mean = torch.var_mean(g, 2, correction=0, keepdim=True)
    std = torch.sqrt(var + eps)
    out = ((g - mean) / std * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1)).reshape(data.shape)
    if output_mean_var:
        return out, mean.reshape(n, num_groups), std.reshape(n, num_groups)
    return out


defop('GroupNorm', ('data', 'gamma', 'beta'), [('num_groups', 'int', 1), ('eps', 'float', 1e-5),
                                                ('output_mean_var', 'bool', False)],
      _group_norm, num_outputs=lambda a: 3 if a['output_mean_var'] else 1,
      doc='Group normalisation; as in MXNet 1.x, gamma and beta have one value per group.')


def _l2_normalization(data, eps, mode):
    if mode == 'instance':
        dims = tuple(range(1, data.dim()))
    elif mode == 'channel':
        dims = (1,)
    else:
        dims = tuple(range(2, data.dim()))
    if data.dim() < (2 if mode != 'spatial' else 3):
        raise _err('L2Normalization', "mode '%s' needs more dimensions than shape %s" % (mode, tuple(data.shape)))
    return data / torch.sqrt(torch.sum(data * data, dims, keepdim=True) + eps)


defop('L2Normalization', _X, [('eps', 'float', 1e-10), ('mode', 'str', 'instance')], _l2_normalization,
      choices={'mode': ('instance', 'channel', 'spatial')}, doc='x / sqrt(sum(x^2) + eps) per instance/channel/'
                                                               'spatial position.')


def _lrn(data, alpha, beta, knorm, nsize):
    if data.dim() != 4:
        raise _err('LRN', 'data must be 4D (batch, channel, y, x), got shape %s' % (tuple(data.shape),))
    return F.local_response_norm(data, nsize, alpha, beta, knorm)


defop('LRN', _X, [('alpha', 'float', 1e-4), ('beta', 'float', 0.75), ('knorm', 'float', 2.0),
                  ('nsize', 'int', REQUIRED)], _lrn, doc='Local response normalisation across channels.')


# ---- Dropout / Embedding / UpSampling -----------------------------------------------------------------------------
def _dropout(data, p, mode, axes, cudnn_off):
    if p == 0 or (mode == 'training' and not _STATE.training):
        return data
    if p >= 1:  # MXNet scales the zero mask by 1/(1-p) = inf: every output (and gradient) is NaN
        return data * torch.tensor(float('nan'), dtype=data.dtype, device=data.device)
    if not axes:
        return F.dropout(data, p, True)
    shape = list(data.shape)
    for a in axes:
        shape[a] = 1
    keep = torch.empty(shape, dtype=data.dtype, device=data.device).bernoulli_(1.0 - p)
    return data * keep / (1.0 - p)


defop('Dropout', _X, [('p', 'float', 0.5), ('mode', 'str', 'training'), ('axes', 'shape', ()),
                      ('cudnn_off', _opt_bool, False)],
      _dropout, aliases=('_npx_dropout',), view=True, choices={'mode': ('training', 'always')},
      doc='Zero elements with probability p and scale the rest by 1/(1-p) (training, or always); '
          '``axes`` shares one mask along those axes; p=1 gives NaN everywhere, as MXNet (0 * 1/0). The random '
          'stream is torch\'s, not MXNet\'s.')


def _embedding_checked_indices(data, weight, input_dim, output_dim):
    if tuple(weight.shape) != (input_dim, output_dim):
        raise _err('Embedding', 'weight shape %s does not match (input_dim, output_dim) = %s'
                   % (tuple(weight.shape), (input_dim, output_dim)))
    return data.to(torch.int64).clamp(0, input_dim - 1)  # MXNet truncates and clips the indices


def _embedding(data, weight, input_dim, output_dim, dtype, sparse_grad):
    idx = _embedding_checked_indices(data, weight, input_dim, output_dim)
    # a weight whose gradient array is row_sparse (a Gluon parameter with grad_stype='row_sparse', a bound
    # executor's row_sparse gradient: they mark their leaf) takes a sparse COO gradient over the looked-up rows
    return F.embedding(idx, weight, sparse=sparse_grad and weight.requires_grad
                       and getattr(weight, '_mx_sparse_grad', False))


defop('Embedding', ('data', 'weight'),
      [('input_dim', 'int', REQUIRED), ('output_dim', 'int', REQUIRED), ('dtype', 'dtype', 'float32'),
       ('sparse_grad', 'bool', False)], _embedding, aliases=('_npx_embedding',),
      doc='Rows of ``weight`` at the (truncated, clipped) indices in ``data``. With ``sparse_grad`` the weight '
          'gradient is computed over the looked-up rows only when it goes to a row_sparse gradient array (Gluon '
          '``grad_stype``, bound executors); into a dense one (``attach_grad``) it is dense, as in MXNet.')


def _upsampling(*data, scale, num_filter, sample_type, multi_input_mode, num_args, workspace):
    for d in data:
        if d.dim() != 4:
            raise _err('UpSampling', 'inputs must be 4D (batch, channel, y, x), got shape %s' % (tuple(d.shape),))
    if sample_type == 'bilinear':
        if len(data) != 2:
            raise _err('UpSampling', 'bilinear sampling takes the inputs [data, weight], got %d' % len(data))
        x, w = data
        k = 2 * scale - scale % 2
        c = x.shape[1]
        if tuple(w.shape) != (c, 1, k, k):
            raise _err('UpSampling', 'weight shape %s does not match (%d, 1, %d, %d)' % (tuple(w.shape), c, k, k))
        return F.conv_transpose2d(x, w, None, scale, int(math.ceil((scale - 1) / 2.0)), 0, c)
    oh, ow = data[0].shape[2] * scale, data[0].shape[3] * scale
    outs = []
    for d in data:
        if oh % d.shape[2] or ow % d.shape[3]:
            raise _err('UpSampling', 'input size %s does not divide the output size %s'
                       % (tuple(d.shape[2:]), (oh, ow)))
        outs.append(d.repeat_interleave(oh // d.shape[2], 2).repeat_interleave(ow // d.shape[3], 3))
    if len(outs) == 1:
        return outs[0]
    if multi_input_mode == 'sum':
        out = outs[0]
        for o in outs[1:]:
            out = out + o
        return out
    return torch.cat(outs, 1)


defop('UpSampling', ('*data',),
      [('scale', 'int', REQUIRED), ('num_filter', 'int', 0), ('sample_type', 'str', REQUIRED),
       ('multi_input_mode', 'str', 'concat'), ('num_args', 'int', REQUIRED), ('workspace', 'int', 512)],
      _upsampling, choices={'sample_type': ('nearest', 'bilinear'), 'multi_input_mode': ('concat', 'sum')},
      input_names=lambda a: (['data', 'weight'] if a['sample_type'] == 'bilinear'
                             else ['arg%d' % i for i in range(a['num_args'])]),
      doc='Nearest-neighbour upsampling of each input by ``scale`` (concatenated or summed), or bilinear '
          'upsampling as a grouped transposed convolution with the given weight.')


# ---- spatial sampling ---------------------------------------------------------------------------------------------
def _affine_grid(theta, h, w, op):
    """MXNet's affine grid: (N, 6) matrices applied to [x, y, 1] on a [-1, 1] grid -> (N, 2, h, w)."""
    if theta.dim() != 2 or theta.shape[1] != 6:
        raise _err(op, 'the affine matrices must have shape (batch, 6), got %s' % (tuple(theta.shape),))
    if h <= 0 or w <= 0:
        raise _err(op, 'incorrect target_shape: %s' % ((h, w),))
    xs = torch.arange(w, dtype=theta.dtype, device=theta.device) * (2.0 / (w - 1) if w > 1 else 0.0) - 1.0
    ys = torch.arange(h, dtype=theta.dtype, device=theta.device) * (2.0 / (h - 1) if h > 1 else 0.0) - 1.0
    dst = torch.stack([xs.repeat(h), ys.repeat_interleave(w), torch.ones(h * w, dtype=theta.dtype,
                                                                          device=theta.device)])
    return torch.matmul(theta.reshape(-1, 2, 3), dst).reshape(theta.shape[0], 2, h, w)


def _grid_generator(data, transform_type, target_shape):
    if transform_type == 'affine':
        return _affine_grid(data, target_shape[0], target_shape[1], 'GridGenerator')
    if data.dim() != 4 or data.shape[1] != 2:
        raise _err('GridGenerator', 'warp needs a flow of shape (batch, 2, h, w), got %s' % (tuple(data.shape),))
    h, w = data.shape[2], data.shape[3]
    xs = torch.arange(w, dtype=data.dtype, device=data.device).expand(h, w)
    ys = torch.arange(h, dtype=data.dtype, device=data.device).unsqueeze(1).expand(h, w)
    scale = torch.tensor([(w - 1) / 2.0, (h - 1) / 2.0], dtype=data.dtype, device=data.device).reshape(1, 2, 1, 1)
    return (data + torch.stack([xs, ys])) / scale - 1.0


defop('GridGenerator', _X, [('transform_type', 'str', REQUIRED), ('target_shape', 'shape', (0, 0))],
      _grid_generator, choices={'transform_type': ('affine', 'warp')},
      doc='Sampling grid (batch, 2, h, w) in [-1, 1] from affine matrices or from an optical flow.')


def _bilinear_sample(data, grid, op):
    if data.dim() != 4 or grid.dim() != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        raise _err(op, 'data must be (batch, c, h, w) and grid (batch, 2, h_out, w_out), got %s and %s'
                   % (tuple(data.shape), tuple(grid.shape)))
    return F.grid_sample(data, grid.permute(0, 2, 3, 1), 'bilinear', 'zeros', True)


def _bilinear_sampler(data, grid, cudnn_off):
    return _bilinear_sample(data, grid, 'BilinearSampler')


defop('BilinearSampler', ('data', 'grid'), [('cudnn_off', _opt_bool, None)], _bilinear_sampler,
      doc='Bilinear sampling of data at grid positions in [-1, 1] (zero outside).')


def _spatial_transformer(data, loc, target_shape, transform_type, sampler_type, cudnn_off):
    if data.dim() != 4:
        raise _err('SpatialTransformer', 'data must be 4D (batch, c, h, w), got %s' % (tuple(data.shape),))
    grid = _affine_grid(loc, target_shape[0], target_shape[1], 'SpatialTransformer')
    return _bilinear_sample(data, grid, 'SpatialTransformer')


defop('SpatialTransformer', ('data', 'loc'),
      [('target_shape', 'shape', (0, 0)), ('transform_type', 'str', REQUIRED), ('sampler_type', 'str', REQUIRED),
       ('cudnn_off', _opt_bool, None)], _spatial_transformer,
      choices={'transform_type': ('affine',), 'sampler_type': ('bilinear',)},
      doc='Affine grid from ``loc`` then bilinear sampling of ``data`` to ``target_shape``.')


def _round_half_away(x):
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)


def _roi_bins(start, end, pooled, size):
    """Per-ROI membership masks (R, pooled, size) of the bins along one axis, with MXNet's rounding."""
    length = torch.clamp(end - start + 1, min=1)
    bin_size = length / pooled
    idx = torch.arange(pooled, dtype=start.dtype, device=start.device)
    lo = torch.clamp(torch.floor(idx * bin_size.unsqueeze(1)) + start.unsqueeze(1), 0, size)
    hi = torch.clamp(torch.ceil((idx + 1) * bin_size.unsqueeze(1)) + start.unsqueeze(1), 0, size)
    pos = torch.arange(size, dtype=start.dtype, device=start.device)
    return (pos >= lo.unsqueeze(2)) & (pos < hi.unsqueeze(2))


def _roi_pooling(data, rois, pooled_size, spatial_scale):
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5:
        raise _err('ROIPooling', 'data must be (batch, c, h, w) and rois (num_rois, 5), got %s and %s'
                   % (tuple(data.shape), tuple(rois.shape)))
    ph, pw = pooled_size
    n, _, h, w = data.shape
    r = _round_half_away(rois[:, 1:].to(torch.float32) * spatial_scale)
    batch = rois[:, 0].to(torch.int64)
    valid = (batch >= 0) & (batch < n)
    x = data[batch.clamp(0, n - 1)]                                   # (R, C, H, W)
    mh = _roi_bins(r[:, 1], r[:, 3], ph, h)                           # (R, ph, H)
    mw = _roi_bins(r[:, 0], r[:, 2], pw, w)                           # (R, pw, W)
    neg = torch.tensor(float('-inf'), dtype=data.dtype, device=data.device)
    # max over W inside each column bin, then over H inside each row bin
    t = torch.where(mw[:, None, None, :, :], x.unsqueeze(3), neg).amax(4)           # (R, C, H, pw)
    t = torch.where(mh[:, None, :, :, None], t.unsqueeze(2), neg).amax(3)           # (R, C, ph, pw)
    empty = ~(mh.any(2)[:, :, None] & mw.any(2)[:, None, :])                        # (R, ph, pw)
    t = torch.where(empty[:, None] | ~valid[:, None, None, None], torch.zeros((), dtype=data.dtype), t)
    return t


defop('ROIPooling', ('data', 'rois'), [('pooled_size', 'shape', REQUIRED), ('spatial_scale', 'float', REQUIRED)],
      _roi_pooling, aliases=('_npx_roi_pooling',),
      doc='Max pooling of each region [batch_index, x1, y1, x2, y2] (scaled, rounded) into pooled_size bins.')

