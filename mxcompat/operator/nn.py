"""Neural-network operators: activations, softmax family, FullyConnected, Convolution/Deconvolution, Pooling,
normalisations (BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization, LRN), Dropout, Embedding and
UpSampling, and the spatial-sampling ops (BilinearSampler, GridGenerator, SpatialTransformer, ROIPooling). The
loss heads with MXNet's own backward (SoftmaxOutput, *RegressionOutput, MakeLoss, CTCLoss ...)
in ``nn_output``.

Each op calls ``torch.nn.functional`` directly, or ``mxcompat.kernels`` where a device rule may choose another kernel
for the same values (2-D convolution, 2-D max pooling, training BatchNorm). Differences from MXNet are noted per op.
"""
import math

import torch
import torch.nn.functional as F

from .._recording import STATE as _STATE
from .. import engine, kernels
from ..base import MXNetError, MXNetValueError, parse_bool, unsupported
from . import _mxrandom
from .indexing import recorded, remember_log_softmax
from .registry import defop, REQUIRED

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
    # (torch's generator: MXNet 1.9.1's kernel reads a random resource it never requested and crashes)
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


def _onednn_softmax(data, axis, temperature, dtype):
    """Whether MXNet 1.9.1's CPU build computes this softmax / log_softmax with oneDNN (SupportMKLDNNSoftmax):
    float32 in and out, no temperature given (not even 1), the last axis of 1-4 dimensions. The other calls run
    MXNet's own loop, whose bits ``kernels.mxnet_softmax`` gives."""
    nd = data.dim()
    return (temperature is None and data.dtype == torch.float32 and dtype in (None, torch.float32)
            and 1 <= nd <= 4 and axis % nd == nd - 1)


def _own_softmax(op, data, length, axis, temperature, dtype, log=False, negate=False):
    """MXNet's own loop: computed in the input's dtype, then cast to ``dtype``."""
    nd = data.dim()
    if not -nd <= axis < nd:
        raise _err(op, 'axis %d out of range for an array of ndim %d' % (axis, nd))
    if data.dtype != torch.float32:  # (the loop's rounding is only reproduced for float32)
        x = _softmax_common(op, data, axis, temperature, dtype)
        return kernels.mxnet_softmax(x, axis, log=log, negate=negate, length=length)
    out = kernels.mxnet_softmax(data, axis, log=log, negate=negate, temperature=temperature, length=length)
    return out if dtype is None or dtype is out.dtype else out.to(dtype)


def _check_length(length):
    if length.is_floating_point() and length.device.type != 'meta':  # MXNet checks when it runs, not in inference
        raise MXNetError('Operator softmax: This operation only support integer types, not %s'
                         % str(length.dtype).replace('torch.', ''))


def _length_mask(data, length, axis):
    """True where the position along ``axis`` is below ``length`` (shape of data without ``axis``)."""
    _check_length(length)
    axis = axis % data.dim()
    pos = torch.arange(data.shape[axis], device=data.device)
    pos = pos.reshape([-1] + [1] * (data.dim() - axis - 1))
    return pos < length.unsqueeze(axis)


def _softmax(data, length=None, *, axis, temperature, dtype, use_length):
    if not use_length:
        if _onednn_softmax(data, axis, temperature, dtype):
            return torch.softmax(data, axis)
        return _own_softmax('softmax', data, None, axis, temperature, dtype)
    if length is None:
        raise MXNetError('Operator softmax: use_length=True needs the input length')
    if data.dtype == torch.float32 and data.device.type != 'meta':
        _check_length(length)
        return _own_softmax('softmax', data, length, axis, temperature, dtype)
    x = _softmax_common('softmax', data, axis, temperature, dtype)
    mask = _length_mask(x, length, axis)
    out = torch.softmax(x.masked_fill(~mask, float('-inf')), axis)
    return out.masked_fill(~mask, 0.0)


def _no_length(op):
    def impl(data, axis, temperature, dtype, use_length):
        if use_length:
            raise unsupported(op, 'use_length=True', 'MXNet %s takes no length input' % op)
        if op != 'log_softmax':  # softmin: always MXNet's own loop
            return _own_softmax(op, data, None, axis, temperature, dtype, negate=True)
        onednn = _onednn_softmax(data, axis, temperature, dtype)
        if onednn:
            out = torch.log_softmax(data, axis)
        else:
            out = _own_softmax(op, data, None, axis, temperature, dtype, log=True)
        if (out.dim() == 2 and axis in (1, -1) and out.numel() >= kernels.config.fused_pick_min_elements
                and recorded(out)):
            remember_log_softmax(out, data if onednn else _softmax_common(op, data, axis, temperature, dtype))
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
        y = kernels.mxnet_softmax(x, -1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return y * (g - (g * y).sum(1, keepdim=True))


def _softmax_activation(data, mode):
    # MXNet computes both modes with its own loop, never oneDNN
    if mode == 'channel':
        return kernels.mxnet_softmax(data, 1)
    # 'instance': MXNet's forward keeps only the last axis, its backward sums over axis 1 (same when 2-D)
    if data.dim() > 2 and torch.is_grad_enabled() and data.requires_grad:
        return _SoftmaxLastChannelGrad.apply(data)
    return kernels.mxnet_softmax(data, -1)


defop('SoftmaxActivation', _X, [('mode', 'str', 'instance')], _softmax_activation,
      choices={'mode': ('instance', 'channel')},
      doc="Softmax over the last axis ('instance') or over axis 1 ('channel').")


# ---- FullyConnected -----------------------------------------------------------------------------------------------
def _fully_connected(data, weight, bias=None, *, num_hidden, no_bias, flatten):
    if flatten and data.dim() != 2:
        data = data.reshape(data.shape[0], -1) if data.dim() else data.reshape(1, 1)
    in_units = data.shape[-1]
    if weight.shape != (num_hidden, in_units):
        raise _err('FullyConnected', 'weight shape %s does not match the inferred shape %s for data shape %s'
                   % (tuple(weight.shape), (num_hidden, in_units), tuple(data.shape)))
    if no_bias:
        bias = None
    elif bias is None:
        raise MXNetError('Operator FullyConnected: input bias is missing (pass no_bias=True to omit it)')
    elif bias.shape == (num_hidden,):  # (torch.Size compares with tuples)
        pass
    elif bias.shape == (num_hidden, 1):  # MXNet's shape inference takes this shape too
        bias = bias.reshape(num_hidden)
    else:
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


def _recording():
    """Whether autograd records this call: mxcompat's ``record()``, or torch's autograd for an Executor or
    GluonModule (mxcompat's eager calls outside ``record()`` run with torch's grad mode on, but their results are
    cut from torch's graph)."""
    return _STATE.recording or _STATE.torch_grads


def _convolution(data, weight, bias=None, *, kernel, stride, dilate, pad, num_filter, num_group, workspace, no_bias,
                 cudnn_tune, cudnn_off, layout):
    stride, dilate, pad, last = _spatial_args('Convolution', kernel, data.dim(), stride, dilate, pad, layout)
    if last:  # channels-last data and weight (num_filter, *kernel, C/group): compute in channels-first
        data = data.movedim(-1, 1)
        weight = weight.movedim(-1, 1)
    bias = _check_conv('Convolution', data, weight, bias, kernel, num_filter, num_group, no_bias, False)
    if last:
        return _CONV[len(kernel)](data, weight, bias, stride, pad, dilate, num_group).movedim(1, -1)
    if len(kernel) == 2:
        return kernels.conv2d(data, weight, bias, stride, pad, dilate, num_group,
                              recording=_STATE.recording or _STATE.torch_grads)  # (_recording(), inlined)
    return _CONV[len(kernel)](data, weight, bias, stride, pad, dilate, num_group)


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
        return kernels.avg_pool(x.unsqueeze(2), (1,) + k, (1,) + s, (0,) + p, ceil_mode, include_pad,
                                divisor).squeeze(2)
    return kernels.avg_pool(x, k, s, p, ceil_mode, include_pad, divisor)


def _global_pool(x, pool_type, p_value, dims):
    if pool_type == 'max':
        # MXNet's gradient goes to the first maximum of each channel (row-major), not split among ties as amax's
        keep = [1 if d in dims else n for d, n in enumerate(x.shape)]
        xs = x.movedim(-1, 1) if dims[0] == 1 else x  # channels-last data: channels next to the batch
        return torch.max(xs.flatten(2), 2).values.reshape(keep)
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
    if pool_type == 'lp' and data.dtype in (torch.float16, torch.bfloat16):
        # MXNet sums the powers and takes the root in float32 (its AccType) on every device
        return _pooling(data.float(), kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride, pad,
                        p_value, count_include_pad, layout).to(data.dtype)
    if global_pool:  # (channels-last data reduced where it lies: a dense result, as a new array's)
        return _global_pool(data, pool_type, p_value, tuple(range(1, nd + 1)) if last else tuple(range(2, nd + 2)))
    x = data.movedim(-1, 1) if last else data
    out = _window_pool(x, tuple(kernel), pool_type, pooling_convention, stride, pad, p_value,
                       True if count_include_pad is None else count_include_pad)
    return out.movedim(1, -1) if last else out


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
    # torch pools natively unless a pad exceeds half the kernel, (ceil mode) a last window starts in the pad, or
    # (avg_pool3d) the unpadded data is smaller than the kernel; 'same' windows start at i * stride with no left pad
    # and are clipped to the data on the right
    native = convention != 'same' and all(2 * p[i] <= k[i] for i in range(nd)) and (
        not ceil or all((outs[i] - 1) * s[i] < sizes[i] + p[i] for i in range(nd))) and (
        pool_type == 'max' or nd != 3 or all(sizes[i] >= k[i] for i in range(nd)))
    if native:
        if pool_type == 'max':
            if nd == 2:
                return kernels.max_pool2d(x, k, s, p, ceil)
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
      [('eps', 'float', 1e-3), ('momentum', 'float32', 0.9), ('fix_gamma', 'bool', True),
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
    if _mxrandom.on(data.device):
        # MXNet's mask: (u <= 1 - p) / (1 - p) in float from the parallel generator (with axes: u < 1 - p, one
        # value per position of the reduced shape); p = 1 divides by zero: NaN everywhere, as MXNet
        shape = list(data.shape)
        for a in axes:
            shape[a] = 1
        mask = _mxrandom.dropout_mask(math.prod(shape), p, data.dtype, strict=bool(axes))
        out = data * torch.from_numpy(mask).reshape(shape)
    elif p >= 1:  # MXNet scales the zero mask by 1/(1-p) = inf: every output (and gradient) is NaN
        return data * torch.tensor(float('nan'), dtype=data.dtype, device=data.device)
    elif not axes:
        out = F.dropout(data, p, True)
    else:
        shape = list(data.shape)
        for a in axes:
            shape[a] = 1
        keep = torch.empty(shape, dtype=data.dtype, device=data.device).bernoulli_(1.0 - p)
        out = data * keep / (1.0 - p)
    # the mask draws from the device's generator, which carries a failed sampler's deferred error (engine.fail)
    return engine.sample_rng(out) if engine.RNG_FAILURES else out


defop('Dropout', _X, [('p', 'float32', 0.5), ('mode', 'str', 'training'), ('axes', 'shape', ()),
                      ('cudnn_off', _opt_bool, False)],
      _dropout, aliases=('_npx_dropout',), view=True, choices={'mode': ('training', 'always')},
      doc='Zero elements with probability p and scale the rest by 1/(1-p) (training, or always); '
          '``axes`` shares one mask along those axes; p=1 gives NaN everywhere, as MXNet (0 * 1/0). On the CPU '
          'the mask is MXNet\'s for the same seed (see mx.random); on CUDA it comes from torch\'s generator.')


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

