"""MXNet 1.9.1's fused oneDNN subgraph operators ``_sg_mkldnn_conv``, ``_sg_mkldnn_fully_connected`` and
``_sg_mkldnn_selfatt_qk`` / ``_sg_mkldnn_selfatt_valatt``, as their CPU kernels compute them
(src/operator/subgraph/mkldnn/mkldnn_conv.cc, mkldnn_fc.cc, mkldnn_transformer.cc), float32 and quantized. (The
self-attention ones: the exact int32 sums of the 8-bit matrix products scaled once in float32 and rounded half to
even, as oneDNN's matmul with an output scale; bit for bit with MXNet.)

A node of this operator carries a subgraph (the fused Convolution, optionally BatchNorm, an activation, an
``elemwise_add`` with the ``sum`` input and an activation after it); the symbol loader hands the subgraph's operators
and attributes to the op as the ``subgraph`` parameter (``mxcompat/symbol/symbol.py``, ``_Node.params``), so an
eager ``nd._sg_mkldnn_conv`` call, which has none, raises.

What the kernel does, and this module with it:
- BatchNorm is folded into the weight and bias in float32 (``alpha = gamma / sqrt(var + eps)`` in double, stored as
  float; ``w * alpha``; ``beta + alpha * (bias - mean)``), gamma taken as 1 with ``fix_gamma``.
- float32: one convolution with the folded weight and bias, then the activation, ``+ sum``, the post-sum activation.
  oneDNN sums the products in its own order: results equal MXNet's to float32 rounding, not bit for bit.
- quantized (int8/uint8 data with its range): the folded weight is quantized to int8 per output channel when the
  node has a calibrated output range (scale ``127.5 / max|w_c|``, lowered where the int32 bias would pass 2**30), or
  with one scale over the whole weight without one; the bias to int32 in the units of data times weight. The int32
  sums (exact) plus the bias are scaled in float32 into the calibrated output (uint8 after a relu-like activation,
  else int8), or left as int32 with the range of the product. Activations and the sum run on the scaled float32
  values, the sum input scaled by ``output_scale / sum_scale``, and the result is rounded half to even and
  saturated, as oneDNN's int8 convolution does. With a sum, MXNet's kernel writes into the sum input's memory in
  the sum's type: the result saturates to that type, and an 8-bit output of the other type holds its bytes (an int8
  output over a uint8 sum shows results past 127 as negative numbers), as MXNet 1.9.1 returns them. In a grouped
  (not depthwise) quantized convolution its weight reorder applies the per-channel scales by group: kept too.
- The quantized weight, int32 bias and scales are computed once and kept while the weight, bias, BatchNorm arrays
  and data range are unchanged (``kernels.int8.kept_quantized``), as MXNet's kernel keeps them per weight version;
  the exact int32 sums come from ``kernels.int8`` (oneDNN's int8 operators where they sum exactly, else float64).
- Bit for bit on the quantized path (the goldens: an AVX-512 VNNI machine). oneDNN adds the sum input with a fused
  multiply-add; here it is done in float64 and rounded to float32, which can differ in a last bit in rare ties.
"""
import functools

import torch

from ..base import MXNetError
from .. import kernels
from . import nn as _nn
from .contrib_ops import selfatt_merge, selfatt_views
from ..kernels import int8 as _int8
from .quantization import (_f32, _max_abs, _product_range, _range_out, _to_int, _to_int_, _INT8_RANGE, _UINT8_RANGE,
                           _Q8)
from .registry import defop, get, REQUIRED

_CONV_INPUTS = ('data', 'weight', 'bias', 'gamma', 'beta', 'mean', 'var', 'sum', 'data_min', 'data_max', 'sum_min',
                'sum_max')
_INT32_MAX_F = float(2 ** 31)  # static_cast<float>(INT32_MAX)
_FC_ELTWISE = ('square', 'sqrt', 'exp', 'abs')  # (fused into _sg_mkldnn_fully_connected only)


def _err(msg, op='_sg_mkldnn_conv'):
    return MXNetError('Operator %s: %s' % (op, msg))


# ---- the fused operators' parameters, read from the subgraph ------------------------------------------------------
def _fused(subgraph, main='Convolution', op='_sg_mkldnn_conv'):
    """(the ``main`` operator's params, BatchNorm params or None, [activations in graph order]) from the subgraph's
    (op name, attributes) list; an activation is (op name, parsed params). Parsed once for a subgraph the symbol
    loader gives (a tuple of tuples); the caller does not change what it returns."""
    try:
        return _fused_parsed(subgraph, main, op)
    except TypeError:  # (an unhashable list given to an eager call)
        return _parse_fused(subgraph, main, op)


def _parse_fused(subgraph, main, op):
    if subgraph is None:
        raise _err('the node has no subgraph (it is built by the MKLDNN subgraph pass or loaded from a symbol JSON '
                   'file; it cannot be called on its own)', op)
    core = bn = None
    acts = []
    for name, attrs in subgraph:
        p = get(name).parse_attrs(dict(attrs))
        if name == main:
            core = p
        elif name == 'BatchNorm':
            bn = p
        elif name in ('Activation', 'LeakyReLU', 'clip') + _FC_ELTWISE:
            acts.append((name, p))
    if core is None:
        raise _err('the subgraph holds no %s' % main, op)
    return core, bn, acts


_fused_parsed = functools.lru_cache(maxsize=4096)(_parse_fused)


def _act_kind(act):
    """oneDNN's eltwise algorithm for an activation node (GetMKLDNNActAlgo): (algorithm, alpha)."""
    op, p = act
    if op in _FC_ELTWISE:
        return op, 0.0
    if op == 'clip':
        return 'bounded_relu', float(p['a_max'])
    if op == 'Activation':
        kinds = {'relu': 'relu', 'sigmoid': 'logistic', 'tanh': 'tanh', 'softrelu': 'soft_relu'}
        if p['act_type'] not in kinds:
            raise _err('act_type %r cannot be fused (oneDNN has no such eltwise algorithm)' % p['act_type'])
        return kinds[p['act_type']], 0.0
    kinds = {'leaky': 'relu', 'elu': 'elu', 'gelu': 'gelu_erf'}
    if p['act_type'] not in kinds:
        raise _err('LeakyReLU act_type %r cannot be fused' % p['act_type'])
    return kinds[p['act_type']], float(p['slope'])


def _eltwise(x, kind, alpha):
    """oneDNN's eltwise post-op on float32 values."""
    if kind == 'relu':
        return torch.where(x > 0, x, x * _f32(alpha, x)) if alpha else torch.clamp_min(x, 0.0)
    if kind == 'bounded_relu':
        return torch.clamp(x, 0.0, alpha)
    if kind == 'logistic':
        return torch.sigmoid(x)
    if kind == 'tanh':
        return torch.tanh(x)
    if kind == 'soft_relu':
        return torch.nn.functional.softplus(x)
    if kind == 'elu':
        return torch.where(x > 0, x, _f32(alpha, x) * torch.expm1(x))
    if kind == 'gelu_erf':
        return torch.nn.functional.gelu(x)
    return {'square': torch.square, 'sqrt': torch.sqrt, 'exp': torch.exp, 'abs': torch.abs}[kind](x)


def _roles(with_act, with_postsum_act, acts):
    """(activation before the sum, activation after it) as oneDNN algorithms, as MXNet's parser assigns them: the
    first activation is the fused one when ``with_act``, any other the post-sum one."""
    act = post = None
    for i, a in enumerate(acts):
        if with_act and i == 0:
            act = _act_kind(a)
        else:
            post = _act_kind(a)
    if with_act and act is None or with_postsum_act and post is None:
        raise _err('with_act/with_postsum_act is set but the subgraph has no such activation')
    return act if with_act else None, post if with_postsum_act else None


def _uint8_kind(kind):
    return kind is not None and (kind[0] == 'relu' and kind[1] == 0.0 or
                                 kind[0] in ('logistic', 'soft_relu', 'bounded_relu'))


def _output_uint8(with_sum, act, post):
    """IsOutputUInt8: the output is uint8 after a relu-like activation (the post-sum one with a sum)."""
    if not with_sum and act is not None:
        return _uint8_kind(act)
    return _uint8_kind(post)


def _quantize_scale(dtype, lo, hi):
    """GetQuantizeScale: 127.5 (int8) or 255.5 (uint8) over the largest magnitude, 2**31 for a zero range."""
    real = _max_abs(lo, hi)
    q = _f32(_INT8_RANGE if dtype is torch.int8 else _UINT8_RANGE, real)
    return torch.where(real != 0, q / real, _f32(_INT32_MAX_F, real))


# ---- the computation ----------------------------------------------------------------------------------------------
def _fold_bn(weight, bias, gamma, beta, mean, var, bn):
    """UpdateConvWeightBias: BatchNorm folded into the weight and bias, in float32 (alpha from double)."""
    g = torch.ones_like(gamma, dtype=torch.float32) if bn['fix_gamma'] else gamma.to(torch.float32)
    alpha = (g.to(torch.float64) / torch.sqrt(var.to(torch.float64) + bn['eps'])).to(torch.float32)
    if bias is not None:
        new_bias = beta.float() + alpha * (bias.float() - mean.float())
    else:
        new_bias = beta.float() - alpha * mean.float()
    shape = (-1,) + (1,) * (weight.dim() - 1)
    return weight.float() * alpha.reshape(shape), new_bias


def _weight_scales(w, bias, data_scale, channelwise):
    """GetWeightScales: per-channel int8 scales (bounded so that the int32 bias stays within 2**30), or one scale
    over the whole weight with its min and max."""
    flat = w.reshape(w.shape[0], -1)
    cmin, cmax = flat.min(1).values, flat.max(1).values
    if channelwise:
        scale = _quantize_scale(torch.int8, cmin, cmax)
        if bias is not None:
            limit = torch.where(bias > 0, _f32(_INT32_MAX_F, w), _f32(-_INT32_MAX_F, w)) / 2.0 / bias / data_scale
            scale = torch.where(bias != 0, torch.minimum(scale, limit), scale)
        return scale, None, None
    lo, hi = cmin.min(), cmax.max()
    return _quantize_scale(torch.int8, lo, hi).reshape(1), lo, hi


def _sg_mkldnn_conv(data, weight, bias=None, gamma=None, beta=None, mean=None, var=None, sum=None, data_min=None,
                    data_max=None, sum_min=None, sum_max=None, *, with_bn, with_act, with_sum, with_postsum_act,
                    quantized, min_calib_range, max_calib_range, with_relu, with_postsum_relu, subgraph):
    with_act = with_act if with_relu is None else with_relu  # MXNet 1.x's older attribute names
    with_postsum_act = with_postsum_act if with_postsum_relu is None else with_postsum_relu
    conv, bn, acts = _fused(subgraph)
    act, post = _roles(with_act, with_postsum_act, acts)
    if with_bn and bn is None:
        raise _err('with_bn is set but the subgraph has no BatchNorm')
    if conv['layout'] not in (None, 'NCW', 'NCHW', 'NCDHW'):
        raise _err('layout %s is not supported (oneDNN fuses channels-first convolutions)' % conv['layout'])
    if data.device.type == 'meta':
        return _meta(data, weight, conv, quantized, min_calib_range, max_calib_range, with_sum, act, post)
    bn_arrays = (gamma, beta, mean, var, bn) if with_bn else None
    if not quantized:
        out = _packed_float(data, weight, bias, bn_arrays, sum if with_sum else None, conv, act, post)
        if out is not None:
            return out
        w, b = _folded(weight, bias, bn_arrays)
        out = _nn._convolution(data, w, b, **dict(conv, no_bias=b is None))
        if act is not None:
            out = _eltwise(out, *act)
        if with_sum:
            out = out + sum
        return _eltwise(out, *post) if post is not None else out
    return _quantized(data, weight, bias, bn_arrays, sum, data_min, data_max, sum_min, sum_max, conv, with_sum, act,
                      post, min_calib_range, max_calib_range)


# oneDNN post-ops of torch's fused convolution for the eltwise algorithms (name, scalars, algorithm)
_POST_OPS = {'logistic': ('sigmoid', [], ''), 'tanh': ('tanh', [], ''), 'gelu_erf': ('gelu', [], 'none')}


def _post_op(kind, alpha):
    if kind == 'relu':
        return ('leaky_relu', [alpha], '') if alpha else ('relu', [], '')
    if kind == 'bounded_relu':
        return 'hardtanh', [0.0, alpha], ''
    return _POST_OPS.get(kind)


def _packed_float(data, weight, bias, bn_arrays, addend, conv, act, post):
    """The float32 fused convolution through ``kernels.fused_conv`` (its folded weight reordered once for oneDNN and
    kept while the arrays are unchanged, the addition and activation as oneDNN post-ops), where that path computes
    this call (a 2-D convolution, no gradient wanted, activations oneDNN can post); else None. Same values as the
    operators in turn: the same folding, the same convolution."""
    if data.dim() != 4 or (act is not None and addend is not None):
        return None
    stride, dilate, pad, _ = _nn._spatial_args('Convolution', conv['kernel'], 4, conv['stride'], conv['dilate'],
                                                conv['pad'], conv['layout'])
    stride, pad, dilate = tuple(stride), tuple(pad), tuple(dilate)
    stats = () if bn_arrays is None else bn_arrays[:4]
    if not kernels.fused_conv_applies(data, weight, bias, stride, pad, dilate, conv['num_group'], stats,
                                      recording=_nn._recording()):
        return None
    first = act if addend is None else post
    unary = None if first is None else _post_op(*first)
    if first is not None and unary is None:
        return None
    after = post if addend is None else None  # (a post-sum activation without a sum runs on the result)
    if addend is not None:
        if not kernels.cpu.fits_conv_output(addend, data, weight, stride, pad):
            return None
        if unary is not None and unary[0] != 'relu':  # (after an addition torch's oneDNN convolution posts relu only)
            after, unary = first, None
    bn = None if bn_arrays is None else tuple(stats) + (bn_arrays[4]['eps'], bn_arrays[4]['fix_gamma'])
    out = kernels.fused_conv(data, weight, bias, stride, pad, dilate, bn, addend, unary)
    return _eltwise(out, *after) if after is not None else out


def _folded(weight, bias, bn_arrays):
    """The float32 weight and bias, with the BatchNorm folded in where there is one."""
    if bn_arrays is None:
        return weight.float(), (None if bias is None else bias.float())
    gamma, beta, mean, var, bn = bn_arrays
    return _fold_bn(weight, bias, gamma, beta, mean, var, bn)


class _Plan:
    """What a quantized convolution computes from its weights and ranges, kept with the weight while they are
    unchanged (``kernels.int8.kept_quantized``): the int8 weight, the int32 bias (as float32), the requantization
    multiplier, the output type, scale and range, and the weight's prepacked forms (``packed``)."""
    __slots__ = ('wq', 'bias', 'mult', 'out_type', 'out_scale', 'lo', 'hi', 'bounded_alpha', 'packed')


def _conv_plan(data, weight, bias, bn_arrays, data_min, data_max, conv, out_u8, act, min_calib, max_calib):
    w, b = _folded(weight, bias, bn_arrays)
    plan = _Plan()
    calibrated = min_calib is not None and max_calib is not None
    data_scale = _quantize_scale(data.dtype, data_min.reshape(()), data_max.reshape(()))
    w_scale, w_lo, w_hi = _weight_scales(w, b, data_scale, calibrated)
    shape = (-1,) + (1,) * (w.dim() - 1)
    q_scale = w_scale
    if calibrated and conv['num_group'] > 1:
        # MXNet's weight reorder gives its per-channel scales to the grouped weights' first dimension, the group:
        # output channel c is quantized with the scale of channel c // (num_filter / num_group) (the right one only
        # for depthwise convolutions), and requantized with its own
        per_group = w.shape[0] // conv['num_group']
        q_scale = w_scale[torch.arange(w.shape[0], device=w.device) // per_group]
    plan.wq = _to_int(w, q_scale.reshape(shape), torch.int8)
    cshape = (1, -1) + (1,) * (w.dim() - 2)
    plan.bias = None if b is None else _to_int(b, w_scale * data_scale, torch.int32).to(torch.float32).reshape(cshape)
    plan.mult = None
    if calibrated:
        plan.out_type = torch.uint8 if out_u8 else torch.int8
        plan.lo, plan.hi = _f32(min_calib, data), _f32(max_calib, data)
        plan.out_scale = _quantize_scale(plan.out_type, plan.lo, plan.hi)
        plan.mult = (plan.out_scale / data_scale / w_scale).reshape(cshape)
    else:
        plan.out_type = torch.int32
        plan.lo, plan.hi = _product_range(data, w_lo, w_hi, data_min, data_max)
        plan.out_scale = data_scale * w_scale.reshape(())
    plan.bounded_alpha = None
    if act is not None and act[0] == 'bounded_relu':
        plan.bounded_alpha = act[1] * float(plan.out_scale)  # host: a scalar scale
    plan.packed = {}
    return plan


def _quantized(data, weight, bias, bn_arrays, sum, data_min, data_max, sum_min, sum_max, conv, with_sum, act, post,
               min_calib, max_calib):
    if data.dtype not in _Q8:
        raise _err('quantized data must be int8 or uint8, got %s' % str(data.dtype).replace('torch.', ''))
    d_lo, d_hi = float(data_min.reshape(())), float(data_max.reshape(()))  # host: (1,) ranges, read once
    if data.dtype is torch.uint8 and d_lo < 0:
        raise _err('Expect int8 when data_min < 0.0, consider quantize model with int8.')
    stride, dilate, pad, _ = _nn._spatial_args('Convolution', conv['kernel'], data.dim(), conv['stride'],
                                               conv['dilate'], conv['pad'], conv['layout'])
    _nn._check_conv('Convolution', data, weight, bias, conv['kernel'], conv['num_filter'], conv['num_group'],
                    bias is None, False)
    out_u8 = _output_uint8(with_sum, act, post)
    bn_params = None if bn_arrays is None else (bn_arrays[4]['eps'], bn_arrays[4]['fix_gamma'])
    sources = (bias,) + (() if bn_arrays is None else tuple(bn_arrays[:4]))
    params = (data.dtype, d_lo, d_hi, min_calib, max_calib, conv['num_group'], out_u8, act, bn_params)
    plan = _int8.kept_quantized(weight, sources, params, lambda: _conv_plan(
        data, weight, bias, bn_arrays, data_min, data_max, conv, out_u8, act, min_calib, max_calib))
    acc = _int8.conv_sums(data, plan.wq, stride, pad, dilate, conv['num_group'], plan.packed)
    if plan.bias is not None:
        acc.add_(plan.bias)  # (acc: a new tensor, from here on changed in place)
    if plan.mult is not None:
        acc.mul_(plan.mult)
    out_type, out_scale = plan.out_type, plan.out_scale
    if act is not None:
        if act[0] == 'bounded_relu' and not with_sum:
            pass  # MXNet drops it: the saturation into the calibrated range is the cut-off
        else:
            alpha = plan.bounded_alpha if act[0] == 'bounded_relu' else act[1]
            acc = _eltwise(acc, act[0], alpha)
    if with_sum:
        if sum.dtype not in _Q8:
            raise _err('the quantized sum input must be int8 or uint8, got %s' % str(sum.dtype).replace('torch.', ''))
        sum_scale = out_scale / _quantize_scale(sum.dtype, sum_min.reshape(()), sum_max.reshape(()))
        # oneDNN: a fused multiply-add in float32 (one rounding); float64 then float32 rounds twice, which differs
        # only where the float64 sum is a float32 halfway point (the float64 product is exact: 24 x 8 bits)
        acc = acc.to(torch.float64).addcmul_(sum.to(torch.float64), sum_scale.to(torch.float64)).to(torch.float32)
    if post is not None:
        acc = _eltwise(acc, *post)
    # with a sum, oneDNN writes into the sum input's memory in the sum's type: an 8-bit output of the other type
    # holds those bytes (a uint8 sum under an int8 output: values past 127 wrap to negative ones)
    dst = sum.dtype if with_sum and out_type is not torch.int32 else out_type
    # (in the layout of the oneDNN result, channels-last, which the next fused convolution reads as it is;
    # _contrib_dequantize gives float operators the standard layout, and arrays handed to users get it too)
    out = _to_int_(acc, dst, keep_layout=True).view(out_type)
    return out, _range_out(plan.lo).clone(), _range_out(plan.hi).clone()  # (not views of the kept ones)


def _meta(data, weight, conv, quantized, min_calib, max_calib, with_sum, act, post):
    """Shape and dtype inference: the convolution on meta tensors, the output dtype by MXNet's type rule."""
    # (the weight's shape from the attributes: type inference runs this on stand-in shapes)
    wshape = (conv['num_filter'], data.shape[1] // conv['num_group']) + tuple(conv['kernel'])
    w = torch.empty(wshape, dtype=torch.float32, device='meta')
    out = _nn._convolution(torch.empty(data.shape, dtype=torch.float32, device='meta'), w, None,
                           **dict(conv, no_bias=True))
    if not quantized:
        return out
    if min_calib is not None and max_calib is not None:
        dtype = torch.uint8 if _output_uint8(with_sum, act, post) else torch.int8
    else:
        dtype = torch.int32
    rng = torch.empty(1, dtype=torch.float32, device='meta')
    return out.to(dtype), rng, rng.clone()


def _input_names(a):
    with_bn, with_sum = a['with_bn'], a['with_sum']
    conv = _fused(a['subgraph'])[0] if a['subgraph'] is not None else {'no_bias': False}
    names = ['data', 'weight'] + ([] if conv['no_bias'] else ['bias'])
    names += ['gamma', 'beta', 'mean', 'var'] if with_bn else []
    names += ['sum'] if with_sum else []
    if a['quantized']:
        names += ['data_min', 'data_max'] + (['sum_min', 'sum_max'] if with_sum else [])
    return names


def param_shapes(attrs, data):
    """The shapes of the weights, BatchNorm parameters and ranges from the data shape (for symbol inference)."""
    conv = _fused(attrs['subgraph'])[0]
    nf = conv['num_filter']
    c = (nf,)
    out = {'weight': (nf, data[1] // conv['num_group']) + tuple(conv['kernel']), 'bias': c,
           'gamma': c, 'beta': c, 'mean': c, 'var': c, 'sum': _conv_out_shape(conv, data)}
    out.update(dict.fromkeys(('data_min', 'data_max', 'sum_min', 'sum_max'), (1,)))
    return out


def _conv_out_shape(conv, data):
    """The convolution's output shape (the sum input's) from the data shape; 0 where a data dimension is unknown
    (0), so that the sum's shape is known before the sum's own producer says it (MXNet's shape function)."""
    stride, dilate, pad, _ = _nn._spatial_args('_sg_mkldnn_conv', conv['kernel'], len(data), conv['stride'],
                                               conv['dilate'], conv['pad'], conv['layout'])
    spatial = tuple(0 if d <= 0 else (d + 2 * p - (dl * (k - 1) + 1)) // s + 1
                    for d, k, s, dl, p in zip(data[2:], conv['kernel'], stride, dilate, pad))
    return (data[0], conv['num_filter']) + spatial


_PARAMS = [('with_bn', 'bool', False), ('with_act', 'bool', False), ('with_sum', 'bool', False),
           ('with_postsum_act', 'bool', False), ('quantized', 'bool', False), ('min_calib_range', 'float?', None),
           ('max_calib_range', 'float?', None), ('with_relu', 'bool?', None), ('with_postsum_relu', 'bool?', None),
           ('subgraph', 'any', None)]

defop('_sg_mkldnn_conv', _CONV_INPUTS, _PARAMS, _sg_mkldnn_conv,
      optional=('bias', 'gamma', 'beta', 'mean', 'var', 'sum', 'data_min', 'data_max', 'sum_min', 'sum_max'),
      aux=('mean', 'var'), input_names=_input_names, same_shape=('sum',),
      num_outputs=lambda a: 3 if a['quantized'] else 1,
      output_names=lambda a: ['output', 'output_min', 'output_max'] if a['quantized'] else ['output'],
      doc='MXNet\'s fused oneDNN convolution (+BatchNorm, activation, sum, post-sum activation), float32 or '
          'quantized as MXNet 1.9.1\'s CPU kernel computes it; the node\'s subgraph gives the fused operators\' '
          'parameters (``subgraph``, set by the symbol loader). Differs from MXNet: float32 results equal to '
          'float32 rounding (summation order), not bit for bit.')


# ---- _sg_mkldnn_fully_connected --------------------------------------------------------------------------------------
_FC = '_sg_mkldnn_fully_connected'


def _fc_parts(subgraph, with_eltwise, with_relu):
    fc, _, acts = _fused(subgraph, 'FullyConnected', _FC)
    with_eltwise = with_eltwise if with_relu is None else with_relu  # MXNet 1.x's older attribute name
    act = _act_kind(acts[0]) if acts else None
    if with_eltwise and act is None:
        raise _err('with_eltwise is set but the subgraph has no activation', _FC)
    return fc, act if with_eltwise else None


def _fc_out_type(act, quantized, enable_float_output, min_calib, max_calib):
    if not quantized or enable_float_output:
        return torch.float32
    if min_calib is None or max_calib is None:
        return torch.int32
    # IsOutputUint8: the fused eltwise ops whose results are never negative
    relu_like = act is not None and (act[0] in ('logistic', 'soft_relu', 'bounded_relu') + _FC_ELTWISE or
                                     act[0] == 'relu')
    return torch.uint8 if relu_like else torch.int8


def _flat2d(x, flatten):
    if x.dim() == 2:
        return x
    return x.reshape(x.shape[0], -1) if flatten else x.reshape(-1, x.shape[-1])


def _sg_mkldnn_fc(data, weight, bias=None, min_data=None, max_data=None, min_weight=None, max_weight=None,
                  min_bias=None, max_bias=None, *, quantized, enable_float_output, with_eltwise, min_calib_range,
                  max_calib_range, channel_wise_quantize, with_relu, subgraph):
    fc, act = _fc_parts(subgraph, with_eltwise, with_relu)
    nh = fc['num_hidden']
    oshape = ((data.shape[0], nh) if fc['flatten'] or data.dim() < 2 else tuple(data.shape[:-1]) + (nh,))
    out_type = _fc_out_type(act, quantized, enable_float_output, min_calib_range, max_calib_range)
    if data.device.type == 'meta':
        out = torch.empty(oshape, dtype=out_type, device='meta')
        if out_type is torch.float32 and (not quantized or enable_float_output):
            return out
        rng = torch.empty(1, dtype=torch.float32, device='meta')
        return out, rng, rng.clone()
    b = None if fc['no_bias'] else bias
    if not quantized:
        out = _nn._fully_connected(data, weight, b, num_hidden=nh, no_bias=b is None, flatten=fc['flatten'])
        return _eltwise(out, *act) if act is not None else out
    if data.dtype not in _Q8:
        raise _err('QuantizedFullyConnected only supports int8/uint8 input, while %s is given'
                   % str(data.dtype).replace('torch.', ''), _FC)
    calibrated = min_calib_range is not None and max_calib_range is not None
    channelwise = bool(channel_wise_quantize)
    if channelwise and not (calibrated or enable_float_output):
        raise _err('Currently, channel-wise quantization requires fuse requantize or dequantize.', _FC)
    x = _flat2d(data, fc['flatten'])
    if weight.dim() != 2 or tuple(weight.shape) != (nh, x.shape[-1]):
        raise _err('weight shape %s does not match (num_hidden, input size) = %s'
                   % (tuple(weight.shape), (nh, x.shape[-1])), _FC)
    params = (data.dtype, float(min_data.reshape(())), float(max_data.reshape(())), channelwise)  # host: ranges
    sources = (b, min_weight, max_weight, min_bias, max_bias)
    data_scale, wq, bq, w_scale, kept = _int8.kept_quantized(weight, sources, params, lambda: _fc_weights(
        weight, b, data, min_data, max_data, channelwise, min_weight, max_weight, min_bias, max_bias))
    acc = _int8.linear_sums(x, weight if wq is None else wq, kept)  # exact int32 sums, converted to float32
    if bq is not None:
        acc = acc + bq
    one = _f32(1.0, acc)
    elt_scale = one
    if calibrated or enable_float_output:
        if calibrated and act is None:
            tmp = _quantize_scale(out_type, _f32(min_calib_range, acc), _f32(max_calib_range, acc)) / data_scale
        else:
            tmp = (1.0 / data_scale.to(torch.float64)).to(torch.float32)  # (1.0 / float: in double)
            if calibrated:
                elt_scale = _quantize_scale(out_type, _f32(min_calib_range, acc), _f32(max_calib_range, acc))
        acc = acc * (tmp / w_scale)
        lo, hi = _f32(min_calib_range or 0.0, acc), _f32(max_calib_range or 0.0, acc)
    else:
        lo, hi = _product_range(data, min_data, max_data, min_weight, max_weight)
    if act is not None:
        acc = elt_scale * _eltwise(acc, *act)
    out = acc if out_type is torch.float32 else _to_int(acc, one, out_type)
    out = out.reshape(oshape)
    if enable_float_output:
        return out
    return out, _range_out(lo), _range_out(hi)


def _fc_weights(weight, b, data, min_data, max_data, channelwise, min_weight, max_weight, min_bias, max_bias):
    """(data scale, int8 weight or None for ``weight`` itself, int32 bias as float32 or None, weight scale, a dict
    for its prepacked forms)."""
    data_scale = _quantize_scale(data.dtype, min_data.reshape(()), max_data.reshape(()))
    if channelwise:
        w_scale = _weight_scales(weight.float(), None if b is None else b.float(), data_scale, True)[0]
        wq = _to_int(weight.float(), w_scale.reshape(-1, 1), torch.int8)
        bq = None if b is None else _to_int(b.float(), w_scale * data_scale, torch.int32)
    else:
        wq, bq, w_scale = _fc_tensorwise(weight, b, data_scale, min_weight, max_weight, min_bias, max_bias)
    # (the weight itself as None: a kept value holding its weight would keep it alive)
    return data_scale, None if wq is weight else wq, None if bq is None else bq.to(torch.float32), w_scale, {}


def _fc_tensorwise(weight, bias, data_scale, min_weight, max_weight, min_bias, max_bias):
    """The int8 weight (rescaled where the int32 bias would pass 2**30) and the int8 bias rescaled to int32, with
    one weight scale, as MXNet's kernel (C++ std::round: half away from zero)."""
    if weight.dtype is not torch.int8 or bias is not None and bias.dtype is not torch.int8:
        raise _err('weight and bias must be int8 without channel_wise_quantize', _FC)
    w_scale = _quantize_scale(torch.int8, min_weight.reshape(()), max_weight.reshape(()))
    if bias is None:
        return weight, None, w_scale.reshape(1)
    b_scale = _quantize_scale(torch.int8, min_bias.reshape(()), max_bias.reshape(()))
    rescale = data_scale * w_scale / b_scale
    limit = _f32(float(2 ** 30), rescale) / _max_abs(min_bias, max_bias).reshape(()) / b_scale
    wq = weight
    if float(rescale) > float(limit):  # host: two scalars
        w_rescale = limit * b_scale / data_scale / w_scale
        wq = _nn._round_half_away(weight.to(torch.float32) * w_rescale).to(torch.int8)
        w_scale = w_scale * w_rescale
        rescale = limit
    bq = _nn._round_half_away(bias.to(torch.float32) * rescale).to(torch.int32)
    return wq, bq, w_scale.reshape(1)


def _fc_input_names(a):
    fc = _fused(a['subgraph'], 'FullyConnected', _FC)[0] if a['subgraph'] is not None else {'no_bias': False}
    names = ['data', 'weight'] + ([] if fc['no_bias'] else ['bias'])
    if a['quantized']:
        names += ['min_data', 'max_data']
        if not a['channel_wise_quantize']:
            names += ['min_weight', 'max_weight'] + ([] if fc['no_bias'] else ['min_bias', 'max_bias'])
    return names


def _fc_outputs(a):
    return ['output', 'min_output', 'max_output'] if a['quantized'] and not a['enable_float_output'] else ['output']


def fc_param_shapes(attrs, data):
    """The weight and bias shapes from the data shape, and the ranges' (for symbol inference)."""
    fc = _fused(attrs['subgraph'], 'FullyConnected', _FC)[0]
    nh = fc['num_hidden']
    k = 1
    for d in (data[1:] if fc['flatten'] else data[-1:]):
        k *= d
    out = {'weight': (nh, k), 'bias': (nh,)}
    out.update(dict.fromkeys(('min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias', 'max_bias'), (1,)))
    return out


defop(_FC, ('data', 'weight', 'bias', 'min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias', 'max_bias'),
      [('quantized', 'bool', False), ('enable_float_output', 'bool', False), ('with_eltwise', 'bool', False),
       ('min_calib_range', 'float?', None), ('max_calib_range', 'float?', None),
       ('channel_wise_quantize', 'bool?', None), ('with_relu', 'bool?', None), ('subgraph', 'any', None)],
      _sg_mkldnn_fc,
      optional=('bias', 'min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias', 'max_bias'),
      input_names=_fc_input_names, num_outputs=lambda a: len(_fc_outputs(a)), output_names=_fc_outputs,
      doc='MXNet\'s fused oneDNN FullyConnected (+ an eltwise activation), float32 or quantized as MXNet 1.9.1\'s '
          'CPU kernel computes it; the node\'s subgraph gives the fused operators\' parameters (``subgraph``, set '
          'by the symbol loader). Differs from MXNet: the inputs are named data, weight, bias (MXNet names them '
          'after the subgraph\'s variables); float32 results equal to float32 rounding, not bit for bit.')


# ---- _sg_mkldnn_selfatt_qk / _sg_mkldnn_selfatt_valatt ------------------------------------------------------------
# (src/operator/subgraph/mkldnn/mkldnn_transformer.cc: one oneDNN matmul over strided views of the interleaved
# projections; the heads come from the node's own ``heads`` attribute, the subgraph is not read)
_QK, _VALATT = '_sg_mkldnn_selfatt_qk', '_sg_mkldnn_selfatt_valatt'
_EXACT_F32 = float(2 ** 24)  # integer sums below this are exact in float32 in any order


class _ZeroGrad(torch.autograd.Function):
    """``out`` (computed without a graph) as a function of ``inputs`` whose gradient is zero: MXNet gives the fused
    self-attention nodes MakeZeroGradNodes (inference operators)."""

    @staticmethod
    def forward(ctx, out, *inputs):
        ctx.specs = [(i.shape, i.dtype, i.device) for i in inputs]
        return out.view_as(out)

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(torch.zeros(s, dtype=d, device=dev) for s, d, dev in ctx.specs)


def _zero_grad(fn, *inputs):
    """``fn()``, with zero gradients to ``inputs`` where one of them wants a gradient."""
    if not (torch.is_grad_enabled() and any(i.requires_grad for i in inputs)):
        return fn()
    with torch.no_grad():
        out = fn()
    return _ZeroGrad.apply(out, *inputs)


def _int_bmm(a, b, bound):
    """``a @ b`` of 8-bit batches: the exact int32 sums (their largest possible magnitude ``bound``) as float32,
    rounded to nearest even as oneDNN converts them."""
    dtype = torch.float32 if bound <= _EXACT_F32 else torch.float64
    return torch.bmm(a.to(dtype), b.to(dtype)).to(torch.float32)


def _scaled(acc, scale, out_type):
    """oneDNN's output scale on the float32 sums: float32 product, rounded half to even and saturated."""
    return acc * scale if out_type is torch.float32 else _to_int(acc, scale, out_type)


def _selfatt_out_type(quantized, enable_float_output, min_calib, max_calib):
    if not quantized or enable_float_output:
        return torch.float32
    return torch.int8 if min_calib is not None and max_calib is not None else torch.int32


def _selfatt_result(out, quantized, enable_float_output, lo, hi):
    if not quantized or enable_float_output:
        return out
    return out, _range_out(lo), _range_out(hi)


def _selfatt_meta(shape, quantized, enable_float_output, min_calib, max_calib, dtype):
    out_type = _selfatt_out_type(quantized, enable_float_output, min_calib, max_calib)
    out = torch.empty(shape, dtype=out_type if quantized else dtype, device='meta')
    rng = torch.empty(1, dtype=torch.float32, device='meta')
    return _selfatt_result(out, quantized, enable_float_output, rng, rng.clone())


def _selfatt_requant(x, enable_float_output, min_calib, max_calib, product_scale, int32_hi):
    """(output type, output scale, min, max output) of a quantized node whose int32 sums are in units of
    ``1 / product_scale``: int8 in the calibrated range, float32, or the int32 sums with (-int32_hi, int32_hi)."""
    out_type = _selfatt_out_type(True, enable_float_output, min_calib, max_calib)
    if out_type is torch.int8:
        lo, hi = _f32(min_calib, x), _f32(max_calib, x)
        return out_type, _quantize_scale(torch.int8, lo, hi) / product_scale, lo, hi
    if out_type is torch.float32:
        return out_type, _f32(1.0, x) / product_scale, None, None
    return out_type, _f32(1.0, x), -int32_hi, int32_hi


def _check_type(op, name, t, dtype):
    if t.dtype is not dtype:
        raise _err('%s must be %s, got %s' % (name, str(dtype).replace('torch.', ''),
                                              str(t.dtype).replace('torch.', '')), op)


def _sg_selfatt_qk(queries_keys_values, min_qkv=None, max_qkv=None, *, heads, quantized, enable_float_output,
                   min_calib_range, max_calib_range, subgraph):
    del subgraph
    x = queries_keys_values
    q, k, _, hd = selfatt_views(_QK, x, heads)
    if x.device.type == 'meta':
        return _selfatt_meta(q.shape[:2] + (q.shape[1],), quantized, enable_float_output, min_calib_range,
                             max_calib_range, x.dtype)
    sqrt_hd = torch.sqrt(_f32(float(hd), x))
    if not quantized:
        return _zero_grad(lambda: torch.bmm(q, k.transpose(1, 2)) * (_f32(1.0, x) / sqrt_hd).to(x.dtype), x)
    if x.dtype is not torch.int8:
        raise _err('QuantizedInterleavedMatMulSelfAttQK only supports int8 input, while %s is given'
                   % str(x.dtype).replace('torch.', ''), _QK)
    _check_type(_QK, 'min_qkv', min_qkv, torch.float32)
    _check_type(_QK, 'max_qkv', max_qkv, torch.float32)
    data_scale = _quantize_scale(torch.int8, min_qkv.reshape(()), max_qkv.reshape(()))
    # (uncalibrated, MXNet's kernel takes the product's range from zeros, not from the data's range: (-0, 0))
    out_type, scale, lo, hi = _selfatt_requant(x, enable_float_output, min_calib_range, max_calib_range,
                                               data_scale * data_scale, _f32(0.0, x))
    scale = scale / sqrt_hd
    acc = _int_bmm(q, k.transpose(1, 2), hd * 128.0 * 128.0)
    return _selfatt_result(_scaled(acc, scale, out_type), True, enable_float_output, lo, hi)


def _sg_selfatt_valatt(queries_keys_values, attention, min_qkv=None, max_qkv=None, min_attention=None,
                       max_attention=None, *, heads, quantized, enable_float_output, min_calib_range, max_calib_range,
                       subgraph):
    del subgraph
    x = queries_keys_values
    _, _, v, hd = selfatt_views(_VALATT, x, heads, values=True)
    seq, batch, width = x.shape
    if attention.dim() != 3 or tuple(attention.shape) != (batch * heads, seq, seq):
        raise _err('attention must have shape (batch * heads, seq_length, seq_length) = %s, got %s'
                   % ((batch * heads, seq, seq), tuple(attention.shape)), _VALATT)
    if x.device.type == 'meta':
        return _selfatt_meta((seq, batch, width // 3), quantized, enable_float_output, min_calib_range,
                             max_calib_range, x.dtype)
    if not quantized:
        return _zero_grad(lambda: selfatt_merge(torch.bmm(attention, v), x, heads), x, attention)
    _check_type(_VALATT, 'queries_keys_values', x, torch.int8)
    _check_type(_VALATT, 'attention', attention, torch.uint8)
    for name, r in (('min_qkv', min_qkv), ('max_qkv', max_qkv), ('min_attention', min_attention),
                    ('max_attention', max_attention)):
        _check_type(_VALATT, name, r, torch.float32)
    qkv_scale = _quantize_scale(torch.int8, min_qkv.reshape(()), max_qkv.reshape(()))
    att_scale = _quantize_scale(torch.uint8, min_attention.reshape(()), max_attention.reshape(()))
    # uncalibrated: QuantizationRangeForS8U8Multiplication, qkv per level over 127, attention over 255
    level = (_max_abs(min_qkv, max_qkv).reshape(()) / _f32(127.0, x)) * \
        (_max_abs(min_attention, max_attention).reshape(()) / _f32(255.0, x))
    out_type, scale, lo, hi = _selfatt_requant(x, enable_float_output, min_calib_range, max_calib_range,
                                               qkv_scale * att_scale, level * _f32(_INT32_MAX_F, x))
    acc = _int_bmm(attention, v, seq * 255.0 * 128.0)
    out = selfatt_merge(_scaled(acc, scale, out_type), x, heads)
    return _selfatt_result(out, True, enable_float_output, lo, hi)


def _selfatt_infer(name, fixed, n_ranges):
    """Symbol inference guesses float32 for inputs of unknown dtype: a quantized node's 8-bit inputs run as the
    types its kernel takes, its ranges as float32 (1,)."""
    def infer(shapes, dtypes, attrs):
        if attrs['quantized']:
            shapes, dtypes = list(shapes), list(dtypes)
            for i, t in enumerate(fixed):
                if i < len(dtypes) and dtypes[i] is not t:
                    dtypes[i] = t
            for i in range(len(fixed), len(fixed) + n_ranges):
                if i < len(shapes):
                    shapes[i], dtypes[i] = (1,), torch.float32
        return get(name)._infer(shapes, dtypes, attrs)
    return infer


def _selfatt_outputs(a):
    return ['output', 'min_output', 'max_output'] if a['quantized'] and not a['enable_float_output'] else ['output']


_SELFATT_PARAMS = [('heads', 'int', REQUIRED), ('quantized', 'bool', False), ('enable_float_output', 'bool', False),
                   ('min_calib_range', 'float?', None), ('max_calib_range', 'float?', None), ('subgraph', 'any', None)]
_SELFATT_DOC = (' as MXNet 1.9.1\'s oneDNN kernel computes it, float32 or quantized (int8 data with its range; '
                'the output int8 in the calibrated range, float32 with ``enable_float_output``, else int32 with the '
                'range of the product); zero gradients (MXNet\'s MakeZeroGradNodes). Differs from MXNet: float32 '
                'results equal to float32 rounding, not bit for bit; an eager call needs no subgraph.')
defop(_QK, ('queries_keys_values', 'min_qkv', 'max_qkv'), _SELFATT_PARAMS, _sg_selfatt_qk,
      optional=('min_qkv', 'max_qkv'), infer=_selfatt_infer(_QK, (torch.int8,), 2),
      input_names=lambda a: ['queries_keys_values'] + (['min_qkv', 'max_qkv'] if a['quantized'] else []),
      num_outputs=lambda a: len(_selfatt_outputs(a)), output_names=_selfatt_outputs,
      doc='MXNet\'s fused self-attention q @ k^T / sqrt(head_dim) of interleaved projections' + _SELFATT_DOC)
defop(_VALATT, ('queries_keys_values', 'attention', 'min_qkv', 'max_qkv', 'min_attention', 'max_attention'),
      _SELFATT_PARAMS, _sg_selfatt_valatt,
      optional=('min_qkv', 'max_qkv', 'min_attention', 'max_attention'),
      infer=_selfatt_infer(_VALATT, (torch.int8, torch.uint8), 4),
      input_names=lambda a: ['queries_keys_values', 'attention'] + (
          ['min_qkv', 'max_qkv', 'min_attention', 'max_attention'] if a['quantized'] else []),
      num_outputs=lambda a: len(_selfatt_outputs(a)), output_names=_selfatt_outputs,
      doc='MXNet\'s fused self-attention attention @ v of interleaved projections, heads merged back to '
          '(seq_length, batch, heads * head_dim),' + _SELFATT_DOC)
