"""MXNet's int8 quantization operators (``_contrib_quantize*``, ``_contrib_dequantize``, ``_contrib_requantize``,
``_contrib_quantized_*``), computing what MXNet 1.9.1's CPU (oneDNN) kernels compute.

Conventions shared by all of them, as in MXNet: a quantized array travels with two float32 arrays of shape (1,),
its ``min`` and ``max``: the real range the integer range stands for. int8 data is zero-centred (scale
``127 / max(|min|, |max|)``, or 127.5 where oneDNN's kernels use ``kInt8Range``), uint8 data too (255 or 255.5).
oneDNN's conversions multiply in float32, round half to even and saturate; the code below does the same
(``_to_int``). Every operator is forward-only: its gradient is zero, as MXNet's ``MakeZeroGradNodes``.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError, MXNetValueError
from . import nn as _nn
from .registry import defop, get, REQUIRED

# quantization_utils.h: the ranges oneDNN's quantize_v2/dequantize/elemwise kernels scale by
_INT8_RANGE = 127.5
_UINT8_RANGE = 255.5
_INT32_RANGE = float(0x7fffffff)  # as a float32: 2**31
_LIMITS = {torch.int8: (-128, 127), torch.uint8: (0, 255), torch.int32: (-2 ** 31, 2 ** 31 - 1)}
_OUT_TYPES = {'int8': torch.int8, 'uint8': torch.uint8}
_RANGE_OUT = ['output', 'min_output', 'max_output']


def _err(op, msg):
    return MXNetValueError('Operator %s: %s' % (op, msg))


def _f32(v, like):
    """A float32 scalar tensor on ``like``'s device (C++ ``float`` arithmetic stays float32 in torch)."""
    return torch.tensor(v, dtype=torch.float32, device=like.device)


def _max_abs(a, b):
    return torch.maximum(a.float().abs(), b.float().abs())


def _range_out(t):
    """A min/max output: float32, shape (1,)."""
    return t.to(torch.float32).reshape(1)


def _to_int(x, scale, dtype):
    """oneDNN's scaled conversion: float32 ``x * scale``, rounded half to even, saturated to ``dtype``."""
    lo, hi = _LIMITS[dtype]
    y = torch.round(x.to(torch.float32) * scale)
    y = torch.nan_to_num(y, nan=_nan_as(dtype))
    return y.clamp(lo, hi).to(dtype)


def _nan_as(dtype):
    # a zero range makes the scale infinite and 0 * inf NaN: oneDNN's conversion gives 127 for int8, 0 for uint8
    lo, hi = _LIMITS[dtype]
    return float(hi if dtype is torch.int8 else lo)


def _to_int_(x, dtype, keep_layout=False):
    """``_to_int(x, 1.0, dtype)`` of a float32 tensor the caller owns (rounded, cleared and saturated in place),
    into a new tensor in the standard layout (``keep_layout``: in ``x``'s own, e.g. channels-last): two passes
    fewer over a convolution's output."""
    lo, hi = _LIMITS[dtype]
    x.round_().nan_to_num_(nan=_nan_as(dtype)).clamp_(lo, hi)
    if keep_layout:
        return torch.empty_like(x, dtype=dtype).copy_(x)
    return torch.empty(x.shape, dtype=dtype, device=x.device).copy_(x)


def _check_dtype(op, name, t, allowed):
    if t.dtype not in allowed:
        raise MXNetError('Operator %s: %s must be %s, got %s' % (op, name, ' or '.join(str(a).replace('torch.', '')
                         for a in allowed), str(t.dtype).replace('torch.', '')))


def _check_range(op, *ranges):
    for r in ranges:
        if r.numel() != 1:
            raise _err(op, 'min/max ranges must hold one value (shape (1,)), got shape %s' % (tuple(r.shape),))


def _infer_as(name, fixed, ranges=(), weight=None):
    """Shape/dtype inference for an op whose inputs ``fixed`` ({position: dtypes}) must be integer: symbol shape
    inference guesses float32 for inputs of unknown dtype, so such a guess runs as the first allowed dtype. The
    min/max inputs at the positions ``ranges`` are (1,), and ``weight(attrs, shapes)`` gives {position: shape} of
    parameters set by the attributes, as MXNet's shape functions assign them (type inference runs ops on stand-in
    shapes). Running the op still checks the real dtypes and shapes."""
    def infer(shapes, dtypes, attrs):
        dtypes, shapes = list(dtypes), list(shapes)
        for i, allowed in fixed.items():
            if i < len(dtypes) and dtypes[i] not in allowed:
                dtypes[i] = allowed[0]
        for i in ranges:
            if i < len(shapes):
                shapes[i] = (1,)
        if weight is not None:
            for i, s in weight(attrs, shapes).items():
                shapes[i] = s
        return get(name)._infer(shapes, dtypes, attrs)
    return infer


_Q8 = (torch.int8, torch.uint8)


# ---- quantize / dequantize / requantize ---------------------------------------------------------------------------
def _quantize(data, min_range, max_range, out_type):
    # MKLDNNQuantizeCompute: scale by 255 (uint8) or 127 (int8) over max(|min|, |max|); no offset by min_range
    # for uint8 (negative values saturate to 0), unlike the non-oneDNN kernel's formula in MXNet's docs.
    op = '_contrib_quantize'
    _check_dtype(op, 'data', data, (torch.float32,))
    _check_range(op, min_range, max_range)
    dtype = _OUT_TYPES[out_type]
    real = _max_abs(min_range, max_range).reshape(())
    if dtype is torch.uint8:
        out = _to_int(data, _f32(255.0, data) / real, dtype)
        return out, _range_out(min_range), _range_out(max_range)
    out = _to_int(data, _f32(127.0, data) / real, dtype)
    return out, _range_out(-real), _range_out(real)


defop('_contrib_quantize', ('data', 'min_range', 'max_range'), [('out_type', 'str', 'uint8')],
      _quantize, same_shape=('data',), num_outputs=3, choices={'out_type': ('int8', 'uint8')},
      doc='Quantize float32 data with the given range to int8 (zero-centred) or uint8 (scale 255 / max(|min|, '
          '|max|), as MXNet\'s oneDNN kernel); returns (data, min, max).')


def _v2_type(out_type, min_calib_range, max_calib_range):
    if out_type == 'auto':
        if min_calib_range is not None and max_calib_range is not None and min_calib_range >= 0.0:
            return torch.uint8
        return torch.int8
    return _OUT_TYPES[out_type]


def _calib(data, v):
    # MXNet's calib ranges are dmlc::optional<float>: float32 values
    return _f32(v, data).reshape(())


def _quantize_v2(data, out_type, min_calib_range, max_calib_range):
    op = '_contrib_quantize_v2'
    _check_dtype(op, 'data', data, (torch.float32, torch.int8, torch.uint8))
    dtype = _v2_type(out_type, min_calib_range, max_calib_range)
    calibrated = min_calib_range is not None and max_calib_range is not None
    if data.dtype in (torch.int8, torch.uint8):  # already quantized: passed through with a range
        if calibrated:
            lo, hi = _calib(data, min_calib_range), _calib(data, max_calib_range)
        elif data.dtype is torch.uint8:
            lo, hi = _f32(0.0, data), _f32(_UINT8_RANGE, data)
        else:
            lo, hi = _f32(-_INT8_RANGE, data), _f32(_INT8_RANGE, data)
        return data.to(dtype), _range_out(lo), _range_out(hi)
    if calibrated:
        lo, hi = _calib(data, min_calib_range), _calib(data, max_calib_range)
    elif data.numel() == 0:
        lo, hi = _f32(torch.finfo(torch.float32).max, data), _f32(-torch.finfo(torch.float32).max, data)
    else:
        lo, hi = data.detach().min(), data.detach().max()
    real = _max_abs(lo, hi)
    if dtype is torch.uint8:
        return _to_int(data, _f32(_UINT8_RANGE, data) / real, dtype), _range_out(lo), _range_out(hi)
    return _to_int(data, _f32(_INT8_RANGE, data) / real, dtype), _range_out(-real), _range_out(real)


_V2_PARAMS = [('out_type', 'str', 'int8'), ('min_calib_range', 'float?', None),
              ('max_calib_range', 'float?', None)]

defop('_contrib_quantize_v2', ('data',), _V2_PARAMS, _quantize_v2, same_shape=('data',), num_outputs=3,
      choices={'out_type': ('auto', 'int8', 'uint8')},
      doc='Quantize float32 data to int8/uint8 with the calibrated range, or the data\'s own min and max (scale '
          '127.5 or 255.5 over max(|min|, |max|), as MXNet\'s oneDNN kernel); int8/uint8 data passes through. '
          'Returns (data, min, max).')


def _dequantize(data, min_range, max_range, out_type):
    op = '_contrib_dequantize'
    _check_dtype(op, 'data', data, (torch.int8, torch.uint8))
    _check_range(op, min_range, max_range)
    q = _INT8_RANGE if data.dtype is torch.int8 else _UINT8_RANGE
    scale = _max_abs(min_range, max_range).reshape(()) / _f32(q, data)
    # (in the standard layout: fused convolutions hand their 8-bit outputs to each other channels-last, and a float
    # operator after this one, such as an average pooling, sums in memory order)
    return data.contiguous().to(torch.float32) * scale


defop('_contrib_dequantize', ('data', 'min_range', 'max_range'), [('out_type', 'str', 'float32')], _dequantize,
      infer=_infer_as('_contrib_dequantize', ranges=(1, 2), fixed={0: _Q8}),
      same_shape=('data',), choices={'out_type': ('float32',)},
      doc='int8/uint8 data back to float32: data * max(|min|, |max|) / 127.5 (int8) or / 255.5 (uint8), as '
          'MXNet\'s oneDNN kernel.')


def _requantize(data, min_range, max_range, out_type, min_calib_range, max_calib_range):
    op = '_contrib_requantize'
    _check_dtype(op, 'data', data, (torch.int32,))
    _check_range(op, min_range, max_range)
    in_scale = _max_abs(min_range, max_range).reshape(())
    if min_calib_range is not None and max_calib_range is not None:
        real = _max_abs(_calib(data, min_calib_range), _calib(data, max_calib_range))
    else:
        # the data's own largest magnitude, in the int32 range's float units
        amax = data.detach().abs().max() if data.numel() else torch.zeros((), dtype=torch.int32, device=data.device)
        real = amax.to(torch.float32) * in_scale / _f32(_INT32_RANGE, data)
    dtype = _v2_type(out_type, min_calib_range, max_calib_range)
    first = in_scale / _f32(_INT32_RANGE, data)
    if dtype is torch.uint8:
        out = _to_int(data, first * (_f32(255.0, data) / real), dtype)
        return out, _range_out(torch.zeros_like(real)), _range_out(real)
    out = _to_int(data, first * (_f32(127.0, data) / real), dtype)
    return out, _range_out(-real), _range_out(real)


defop('_contrib_requantize', ('data', 'min_range', 'max_range'), _V2_PARAMS, _requantize,
      infer=_infer_as('_contrib_requantize', ranges=(1, 2), fixed={0: (torch.int32,)}),
      same_shape=('data',), num_outputs=3,
      choices={'out_type': ('auto', 'int8', 'uint8')},
      doc='int32 data (with its range) to int8/uint8 in the calibrated range, or in the data\'s own largest '
          'magnitude; returns (data, min, max).')


# ---- shape and elementwise ops on quantized data ------------------------------------------------------------------
_QIN = ('data', 'min_data', 'max_data')


def _quantized_flatten(data, min_data, max_data):
    _check_dtype('_contrib_quantized_flatten', 'data', data, (torch.int8, torch.uint8))
    flat = data.reshape(data.shape[0], math.prod(data.shape[1:]))  # (explicit: a batch of 0 has no -1)
    return flat.clone(), _range_out(min_data), _range_out(max_data)


defop('_contrib_quantized_flatten', _QIN, (), _quantized_flatten,
      infer=_infer_as('_contrib_quantized_flatten', ranges=(1, 2), fixed={0: _Q8}),
      num_outputs=3,
      output_names=lambda a: _RANGE_OUT, doc='Flatten of int8/uint8 data; the range passes through.')


def _quantized_act(data, min_data, max_data, act_type):
    op = '_contrib_quantized_act'
    if act_type != 'relu':
        raise _err(op, "only act_type='relu' is supported (as in MXNet), got %r" % (act_type,))
    _check_dtype(op, 'data', data, (torch.int8, torch.uint8))
    # MXNet's type rule makes the output int8 whatever the input; oneDNN's relu writes the input's values into it
    return torch.relu(data).to(torch.int8), _range_out(min_data), _range_out(max_data)


defop('_contrib_quantized_act', _QIN, [('act_type', 'str', REQUIRED)], _quantized_act,
      infer=_infer_as('_contrib_quantized_act', ranges=(1, 2), fixed={0: _Q8}),
      same_shape=('data',), num_outputs=3,
      output_names=lambda a: _RANGE_OUT, choices={'act_type': ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign')},
      doc='ReLU of int8/uint8 data (the only act_type MXNet quantizes); output int8, the range passes through.')


def _quantized_pooling(data, min_data, max_data, kernel, pool_type, global_pool, cudnn_off, pooling_convention,
                       stride, pad, p_value, count_include_pad, layout):
    op = '_contrib_quantized_pooling'
    _check_dtype(op, 'data', data, (torch.int8, torch.uint8))
    if pool_type not in ('max', 'avg'):
        raise _err(op, "only pool_type 'max' or 'avg' is supported, got %r" % (pool_type,))
    if data.dim() not in (4, 5) or layout not in (None, 'NCHW', 'NCDHW'):
        raise _err(op, 'data must be 4D (N, C, H, W) or 5D (N, C, D, H, W), got shape %s' % (tuple(data.shape),))
    # pooling of the integer values in float64 (exact), averages rounded half to even as oneDNN's int8 kernel.
    # Counting the padding, oneDNN divides by the whole kernel size, also for the windows that the 'full'
    # convention lets pass the end of the data.
    x = data.to(torch.float64)
    if pool_type == 'avg' and count_include_pad is not False and not global_pool:
        out = _nn._pooling(x, kernel, 'sum', global_pool, cudnn_off, pooling_convention, stride, pad, p_value,
                           count_include_pad, layout) / float(math.prod(kernel))
    else:
        out = _nn._pooling(x, kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride, pad,
                           p_value, count_include_pad, layout)
    return torch.round(out).to(data.dtype), _range_out(min_data), _range_out(max_data)


defop('_contrib_quantized_pooling', _QIN,
      [('kernel', 'shape', ()), ('pool_type', 'str', 'max'), ('global_pool', 'bool', False),
       ('cudnn_off', 'bool', False), ('pooling_convention', 'str', 'valid'), ('stride', 'shape', ()),
       ('pad', 'shape', ()), ('p_value', 'int?', None), ('count_include_pad', _nn._opt_bool, None),
       ('layout', 'str', None)],
      _quantized_pooling,
      infer=_infer_as('_contrib_quantized_pooling', ranges=(1, 2), fixed={0: _Q8}),
      num_outputs=3, output_names=lambda a: _RANGE_OUT,
      choices={'pool_type': ('max', 'avg', 'sum', 'lp'), 'pooling_convention': ('valid', 'full', 'same'),
               'layout': (None, 'NCW', 'NCHW', 'NCDHW', 'NWC', 'NHWC', 'NDHWC')},
      doc='2-D/3-D max or avg pooling of int8/uint8 data (averages rounded half to even); the range passes '
          'through.')


def _quantized_embedding(data, weight, min_weight, max_weight, input_dim, output_dim, dtype, sparse_grad):
    op = '_contrib_quantized_embedding'
    _check_dtype(op, 'weight', weight, (torch.int8,))
    idx = _nn._embedding_checked_indices(data, weight, input_dim, output_dim)
    return F.embedding(idx, weight.to(torch.int32)).to(torch.int8), _range_out(min_weight), _range_out(max_weight)


defop('_contrib_quantized_embedding', ('data', 'weight', 'min_weight', 'max_weight'),
      [('input_dim', 'int', REQUIRED), ('output_dim', 'int', REQUIRED), ('dtype', 'dtype', 'float32'),
       ('sparse_grad', 'bool', False)], _quantized_embedding,
      infer=_infer_as('_contrib_quantized_embedding', {1: (torch.int8,)}, (2, 3),
                      lambda a, s: {1: (a['input_dim'], a['output_dim'])}),
      num_outputs=3, output_names=lambda a: _RANGE_OUT,
      doc='Rows of an int8 weight at the indices in data; the weight\'s range is the output\'s.')


# ---- int8 products: FullyConnected and Convolution -----------------------------------------------------------------
def _split_quantized(op, xs, no_bias):
    """(data, weight, bias, min_data, max_data, min_weight, max_weight, min_bias, max_bias) from the inputs in
    MXNet's order (without bias and its range when ``no_bias``)."""
    xs = tuple(x for x in xs if x is not None)  # eager calls pass the inputs left out as None
    want = 6 if no_bias else 9
    if len(xs) != want:
        raise _err(op, 'takes %d inputs with no_bias=%s, got %d' % (want, no_bias, len(xs)))
    if no_bias:
        data, weight, min_d, max_d, min_w, max_w = xs
        return data, weight, None, min_d, max_d, min_w, max_w, None, None
    return xs


def _product_range(data, min_d, max_d, min_w, max_w):
    # QuantizationRangeForMultiplication: float per level of data times that of weight, times the int32 range.
    # For uint8 data MXNet's kernel takes the per-level units as (int8 data, uint8 weight): data over 127, weight
    # over 255.
    w_levels = 255.0 if data.dtype is torch.uint8 else 127.0
    level = (_max_abs(min_d, max_d) / _f32(127.0, data)) * (_max_abs(min_w, max_w) / _f32(w_levels, data))
    hi = level * _f32(_INT32_RANGE, data)
    return _range_out(-hi), _range_out(hi)


def _int32_result(x):
    """An exact integer result computed in float64 (|sums| < 2**53) as MXNet's int32 output."""
    return x.to(torch.int64).to(torch.int32)


def _quantized_fc(*xs, num_hidden, no_bias, flatten):
    op = '_contrib_quantized_fully_connected'
    data, weight, bias, min_d, max_d, min_w, max_w, min_b, max_b = _split_quantized(op, xs, no_bias)
    _check_dtype(op, 'data', data, _Q8)
    _check_dtype(op, 'weight', weight, (torch.int8,))
    x = data.reshape(data.shape[0], math.prod(data.shape[1:])) if flatten else data
    if weight.dim() != 2 or weight.shape[0] != num_hidden or weight.shape[1] != x.shape[-1]:
        raise _err(op, 'weight shape %s does not match (num_hidden, input size) = %s'
                   % (tuple(weight.shape), (num_hidden, x.shape[-1])))
    out = x.to(torch.float64) @ weight.to(torch.float64).t()
    if bias is not None:
        _check_dtype(op, 'bias', bias, (torch.int8,))
        # the int8 bias rescaled to the product's int32 units, in float32, truncated toward zero (C++ conversion)
        d_scale = _f32(_INT8_RANGE if data.dtype is torch.int8 else _UINT8_RANGE, data) / _max_abs(min_d, max_d)
        w_scale = _f32(_INT8_RANGE, data) / _max_abs(min_w, max_w)
        rescale = d_scale * w_scale * _max_abs(min_b, max_b) / _f32(_INT8_RANGE, data)
        b32 = torch.trunc(bias.to(torch.float32) * rescale.reshape(()))
        out = out + b32.to(torch.float64)
    lo, hi = _product_range(data, min_d, max_d, min_w, max_w)
    return _int32_result(out), lo, hi


def _with_bias_ranges(a):
    if a['no_bias']:
        return ['data', 'weight', 'min_data', 'max_data', 'min_weight', 'max_weight']
    return ['data', 'weight', 'bias', 'min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias', 'max_bias']


_PRODUCT_INPUTS = ('data', 'weight', 'bias', 'min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias',
                   'max_bias')


def _product_infer(name, weight_shape, data_types=_Q8):
    def infer(shapes, dtypes, attrs):
        nb = attrs['no_bias']
        # the inputs in MXNet's order; graphs may give all nine positions with None where no_bias leaves one out
        compact = nb and len(shapes) == 6
        ranges = (2, 3, 4, 5) if compact else (3, 4, 5, 6) if nb else (3, 4, 5, 6, 7, 8)
        fixed = {0: data_types, 1: (torch.int8,)}
        if not nb:
            fixed[2] = (torch.int8,)

        def params(a, s):
            w = weight_shape(a, s[0])
            out = {} if w is None else {1: w}
            if not nb:
                out[2] = (a['num_hidden'] if 'num_hidden' in a else a['num_filter'],)
            return out
        return _infer_as(name, fixed, ranges, params)(shapes, dtypes, attrs)
    return infer


def _fc_weight(a, dshape):
    if dshape is None:
        return None
    k = 1
    for d in (dshape[1:] if a['flatten'] else dshape[-1:]):
        k *= d
    return (a['num_hidden'], k)


defop('_contrib_quantized_fully_connected', _PRODUCT_INPUTS,
      [('num_hidden', 'int', REQUIRED), ('no_bias', 'bool', False), ('flatten', 'bool', True)], _quantized_fc,
      optional=('bias', 'min_bias', 'max_bias'), input_names=_with_bias_ranges, num_outputs=3,
      output_names=lambda a: _RANGE_OUT,
      infer=_product_infer('_contrib_quantized_fully_connected', _fc_weight),
      doc='FullyConnected of int8/uint8 data and an int8 weight into int32, with the int8 bias rescaled to the '
          'product\'s units (truncated), as MXNet\'s oneDNN kernel; returns (output, min, max).')


def _quantized_conv(*xs, kernel, stride, dilate, pad, num_filter, num_group, workspace, no_bias, cudnn_tune,
                    cudnn_off, layout):
    op = '_contrib_quantized_conv'
    data, weight, bias, min_d, max_d, min_w, max_w, _, _ = _split_quantized(op, xs, no_bias)
    # MXNet's oneDNN kernel takes uint8 data only
    _check_dtype(op, 'data', data, (torch.uint8,))
    if num_group != 1:
        raise _err(op, 'quantized_conv only supports num_group=1 (as MXNet), got num_group=%d' % num_group)
    if data.dim() not in (4, 5) or layout not in (None, 'NCHW', 'NCDHW'):
        raise _err(op, 'data must be 4D (N, C, H, W) or 5D (N, C, D, H, W), got shape %s'
                   % (tuple(data.shape),))
    _check_dtype(op, 'weight', weight, (torch.int8,))
    if bias is not None:
        _check_dtype(op, 'bias', bias, (torch.int8,))
        bias = bias.to(torch.float64)  # added as it is (MXNet's oneDNN kernel does not rescale it)
    out = _nn._convolution(data.to(torch.float64), weight.to(torch.float64), bias, kernel=kernel, stride=stride,
                           dilate=dilate, pad=pad, num_filter=num_filter, num_group=num_group, workspace=workspace,
                           no_bias=no_bias, cudnn_tune=cudnn_tune, cudnn_off=cudnn_off, layout=layout)
    lo, hi = _product_range(torch.empty(0, dtype=torch.int8, device=data.device), min_d, max_d, min_w, max_w)
    return _int32_result(out), lo, hi


def _conv_weight(a, dshape):
    if dshape is None or len(dshape) < 2:
        return None
    return (a['num_filter'], dshape[1] // a['num_group']) + tuple(a['kernel'])


defop('_contrib_quantized_conv', _PRODUCT_INPUTS, _nn._CONV_PARAMS, _quantized_conv,
      optional=('bias', 'min_bias', 'max_bias'), input_names=_with_bias_ranges, num_outputs=3,
      output_names=lambda a: _RANGE_OUT, choices=_nn._CONV_CHOICES,
      infer=_product_infer('_contrib_quantized_conv', _conv_weight, (torch.uint8,)),
      doc='Convolution of uint8 data and an int8 weight into int32 (the int8 bias added as it is), as MXNet\'s '
          'oneDNN kernel; returns (output, min, max).')


# ---- entropy calibration ---------------------------------------------------------------------------------------------
def _seq_sum(a):
    """A float32 sum added left to right, as C++'s std::accumulate (numpy's accumulate is sequential)."""
    return np.add.accumulate(a, dtype=np.float32)[-1] if a.size else np.float32(0)


def _smooth(p, eps=np.float32(0.0001)):
    """calibrate.cc's SmoothDistribution in float32; None where MXNet returns an empty vector."""
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        return None
    eps1 = np.float32(eps * np.float32(n_zeros) / np.float32(n_nonzeros))
    if eps1 >= 1.0:
        return None
    return (p + np.where(zeros, eps, -eps1).astype(np.float32)).astype(np.float32)


def _entropy(p, q):
    p = (p / _seq_sum(p)).astype(np.float32)
    q = (q / _seq_sum(q)).astype(np.float32)
    if not ((p > 0) & (q > 0)).all():
        raise MXNetError('Operator _contrib_calibrate_entropy: Check failed: p[i] > 0 && q[i] > 0')
    # logf of a float32 ratio: the float64 log rounded to float32 (glibc's logf is correctly rounded)
    terms = (p * np.log((p / q).astype(np.float64)).astype(np.float32)).astype(np.float32)
    return _seq_sum(terms)


def _calibrate_entropy(hist, hist_edges, num_quantized_bins):
    op = '_contrib_calibrate_entropy'
    _check_dtype(op, 'hist', hist, (torch.float32,))
    if hist.numel() + 1 != hist_edges.numel():
        raise _err(op, 'hist_edges must have one more element than hist, got %d and %d'
                   % (hist_edges.numel(), hist.numel()))
    if hist.device.type == 'meta':
        out = torch.empty(1, dtype=torch.float32, device='meta')
        return out, out.clone()
    h = hist.detach().reshape(-1).cpu().numpy()
    edges = hist_edges.detach().reshape(-1).to(torch.float32).cpu().numpy()
    nq = num_quantized_bins
    zero, half = h.size // 2, nq // 2
    if nq < 1 or half > zero:
        raise _err(op, 'num_quantized_bins=%d does not fit %d histogram bins' % (nq, h.size))
    counts = np.trunc(h).astype(np.int64)  # MXNet keeps the sliced histogram as size_t counts
    left = np.add.accumulate(h, dtype=np.float32)
    thresholds, divergences = [], []
    for i in range(half, zero + 1):
        start, stop = zero - i, zero + i + 1
        thresholds.append(edges[stop])
        # p: the bins start+1 .. stop-1, the ones below folded into p[0], the ones above added onto the last
        p = h[start:stop].astype(np.float32)  # (a copy)
        p[0] = left[start]
        p[-1] = _seq_sum(h[stop - 1:])
        sliced = counts[start:stop].copy()
        sliced[0] = 0
        merged = sliced.size // nq
        body = nq * merged
        which = np.minimum(np.arange(sliced.size) // max(merged, 1), nq - 1) if merged else \
            np.full(sliced.size, nq - 1)
        qbins = np.bincount(which[:body], weights=sliced[:body], minlength=nq).astype(np.float32)
        qbins[-1] = np.float32(qbins[-1] + np.float32(sliced[body:].sum()))
        norm = np.bincount(which, weights=(sliced != 0), minlength=nq).astype(np.int64)
        nb = norm[which]
        q = np.where((p != 0) & (nb > 0), qbins[which] / np.maximum(nb, 1).astype(np.float32), 0).astype(np.float32)
        ps, qs = _smooth(p), _smooth(q)
        if qs is None:
            divergences.append(np.float32(np.inf))
        else:
            if ps is None:
                raise _err(op, 'the histogram holds no counts')
            divergences.append(_entropy(ps, qs))
    best = int(np.argmin(np.array(divergences, dtype=np.float32)))
    dev = hist.device
    return (torch.tensor([thresholds[best]], dtype=torch.float32, device=dev),
            torch.tensor([divergences[best]], dtype=torch.float32, device=dev))


defop('_contrib_calibrate_entropy', ('hist', 'hist_edges'), [('num_quantized_bins', 'int', 255)],
      _calibrate_entropy, num_outputs=2, output_names=lambda a: ['threshold', 'divergence'],
      doc='The threshold (and its KL divergence) of a symmetric histogram that loses least information quantized '
          'into num_quantized_bins bins, as MXNet\'s entropy calibration.')


# ---- elementwise add / mul of quantized arrays ---------------------------------------------------------------------
_BINARY_INPUTS = ('lhs', 'rhs', 'lhs_min', 'lhs_max', 'rhs_min', 'rhs_max')
_CALIB_PARAMS = [('min_calib_range', 'float?', None), ('max_calib_range', 'float?', None)]


def _check_same_shape(op, a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise _err(op, 'lhs and rhs must have the same shape, got %s and %s' % (tuple(a.shape), tuple(b.shape)))


def _data_range(t):
    return _f32(_INT8_RANGE if t.dtype is torch.int8 else _UINT8_RANGE, t)


def _quantized_elemwise_add(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max, min_calib_range, max_calib_range):
    # MKLDNNQuantizedElemwiseAddForward: a oneDNN sum of the two inputs, each scaled into the output's units; a uint8
    # input beside an int8 one is first rescaled into int8 (rounded, saturated)
    op = '_contrib_quantized_elemwise_add'
    _check_dtype(op, 'lhs', lhs, _Q8)
    _check_dtype(op, 'rhs', rhs, _Q8)
    _check_same_shape(op, lhs, rhs)
    a_abs, b_abs = _max_abs(lhs_min, lhs_max).reshape(()), _max_abs(rhs_min, rhs_max).reshape(())
    a_scale, b_scale = _data_range(lhs) / a_abs, _data_range(rhs) / b_abs
    calibrated = min_calib_range is not None and max_calib_range is not None
    if calibrated:
        out_type = lhs.dtype if lhs.dtype is rhs.dtype else torch.int8
        out_range = _f32(_INT8_RANGE if out_type is torch.int8 else _UINT8_RANGE, lhs)
        lo, hi = _calib(lhs, min_calib_range), _calib(lhs, max_calib_range)
        out_scale = out_range / _max_abs(lo, hi)
    else:
        out_type = torch.int32
        out_range = _f32(_INT32_RANGE, lhs)
        hi = a_abs + b_abs
        lo = -hi
    total = a_abs + b_abs
    a_range = _data_range(lhs)
    scales = [_f32(1.0, lhs), _f32(1.0, lhs)]
    a, b = lhs, rhs
    if lhs.dtype is not rhs.dtype:
        a_int8 = lhs.dtype is torch.int8
        if calibrated:
            u8_scale = out_scale / (b_scale if a_int8 else a_scale)
            scales[0 if a_int8 else 1] = out_scale / (a_scale if a_int8 else b_scale)
        elif a_int8:
            u8_scale = b_abs * out_range / (total * _f32(_UINT8_RANGE, lhs))
            scales[0] = a_abs * out_range / (total * a_range)
        else:
            u8_scale = a_abs * out_range / (total * a_range)
            scales[1] = b_abs * out_range / (total * _f32(_INT8_RANGE, lhs))
        if a_int8:
            b = _to_int(rhs, u8_scale, torch.int8)
        else:
            a = _to_int(lhs, u8_scale, torch.int8)
    elif calibrated:
        scales = [out_scale / a_scale, out_scale / b_scale]
    else:
        scales = [a_abs * out_range / (total * a_range), b_abs * out_range / (total * a_range)]
    acc = a.to(torch.float32) * scales[0] + b.to(torch.float32) * scales[1]
    lo_t, hi_t = _LIMITS[out_type]
    out = torch.round(acc).clamp(lo_t, hi_t)
    if out_type is torch.int32:  # float32 values past 2**31 - 1 (2**31 itself) saturate
        out = torch.where(acc >= 2.0 ** 31, torch.full_like(out, hi_t), out)
    return out.to(torch.int64).to(out_type), _range_out(lo), _range_out(hi)


def _binary_ranges_infer(name):
    return _infer_as(name, {0: _Q8, 1: _Q8}, (2, 3, 4, 5))


defop('_contrib_quantized_elemwise_add', _BINARY_INPUTS, _CALIB_PARAMS, _quantized_elemwise_add,
      same_shape=('lhs', 'rhs'), num_outputs=3,
      output_names=lambda a: _RANGE_OUT, infer=_binary_ranges_infer('_contrib_quantized_elemwise_add'),
      doc='Sum of two int8/uint8 arrays into int32 (range the sum of the input ranges), or into int8/uint8 in the '
          'calibrated range, as MXNet\'s oneDNN kernel; returns (output, min, max).')


def _quantized_elemwise_mul(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max, min_calib_range, max_calib_range,
                            enable_float_output):
    op = '_contrib_quantized_elemwise_mul'
    _check_dtype(op, 'lhs', lhs, (torch.int8,))
    _check_dtype(op, 'rhs', rhs, (torch.int8,))
    _check_same_shape(op, lhs, rhs)
    l_scale = _f32(_INT8_RANGE, lhs) / _max_abs(lhs_min, lhs_max).reshape(())
    r_scale = _f32(_INT8_RANGE, lhs) / _max_abs(rhs_min, rhs_max).reshape(())
    prod = (lhs.to(torch.int32) * rhs.to(torch.int32)).to(torch.float32)
    if enable_float_output:
        # 1.0 / lhs_scale / rhs_scale in double, stored as a float
        scale = (1.0 / l_scale.to(torch.float64) / r_scale.to(torch.float64)).to(torch.float32)
        return prod * scale
    if min_calib_range is not None and max_calib_range is not None:
        lo, hi = _calib(lhs, min_calib_range), _calib(lhs, max_calib_range)
        scale = _f32(_INT8_RANGE, lhs) / _max_abs(lo, hi) / l_scale / r_scale
        # static_cast<int8_t> of the float: truncated, and wrapped past the int8 range as x86 does it
        out = torch.trunc(prod * scale).to(torch.int32).to(torch.int8)
        return out, _range_out(lo), _range_out(hi)
    lo, hi = _product_range(lhs, lhs_min, lhs_max, rhs_min, rhs_max)
    return torch.trunc(prod).to(torch.int32), lo, hi


defop('_contrib_quantized_elemwise_mul', _BINARY_INPUTS,
      _CALIB_PARAMS + [('enable_float_output', 'bool', False)], _quantized_elemwise_mul,
      same_shape=('lhs', 'rhs'), num_outputs=lambda a: 1 if a['enable_float_output'] else 3,
      output_names=lambda a: ['output'] if a['enable_float_output'] else _RANGE_OUT,
      infer=_binary_ranges_infer('_contrib_quantized_elemwise_mul'),
      doc='Product of two int8 arrays: int32 (range from the input ranges), int8 in the calibrated range '
          '(truncated), or float32 with enable_float_output, as MXNet\'s kernel. Differs from MXNet: an eager call '
          'runs (MXNet 1.9.1\'s imperative call fails in its shape check; its bound symbols run).')


# ---- batch norm of quantized data ---------------------------------------------------------------------------------
def _quantized_batch_norm(data, gamma, beta, moving_mean, moving_var, min_data, max_data, eps, momentum, fix_gamma,
                          use_global_stats, output_mean_var, axis, cudnn_off, min_calib_range, max_calib_range):
    # MKLDNNQuantizedBatchNormForward: oneDNN's int8 batch norm with the statistics folded into a per-channel scale
    # and shift in the output's int8 units (gamma is used as given, whatever fix_gamma), mean 0 and variance 1
    op = '_contrib_quantized_batch_norm'
    _check_dtype(op, 'data', data, _Q8)
    # (checked when it runs, as MXNet's kernel does: shape and type inference do not need the range)
    if (min_calib_range is None or max_calib_range is None) and data.device.type != 'meta':
        raise _err(op, 'min_calib_range or max_calib_range is not available. Quantized BN currently don\'t '
                       'support calib_mode=None')
    ax = axis % data.dim()
    c = data.shape[ax]
    for name, t in (('gamma', gamma), ('beta', beta), ('moving_mean', moving_mean), ('moving_var', moving_var)):
        if tuple(t.shape) != (c,):
            raise _err(op, '%s must have shape (%d,), got %s' % (name, c, tuple(t.shape)))
    x = data
    if data.dtype is torch.uint8:  # first reordered into int8
        x = _to_int(data, _f32(_INT8_RANGE, data) / _f32(_UINT8_RANGE, data), torch.int8)
    if min_calib_range is None or max_calib_range is None:  # (inference on meta tensors: any range)
        lo, hi = _f32(-1.0, data), _f32(1.0, data)
    else:
        lo, hi = _calib(data, min_calib_range), _calib(data, max_calib_range)
    abs_data = _max_abs(min_data, max_data).reshape(())
    abs_out = _max_abs(lo, hi)
    invstd = (1.0 / torch.sqrt(moving_var.to(torch.float64) + eps)).to(torch.float32)
    g, b, m = gamma.to(torch.float32), beta.to(torch.float32), moving_mean.to(torch.float32)
    weight = g * invstd * abs_data / abs_out
    shift = (b - m * g * invstd) * _f32(_INT8_RANGE, data) / abs_out
    # oneDNN divides the scale by sqrt(variance + eps) with the variance it is given: 1
    sm = weight / torch.sqrt(_f32(1.0, data) + _f32(eps, data))
    shape = [1] * data.dim()
    shape[ax] = c
    y = x.to(torch.float32) * sm.reshape(shape) + shift.reshape(shape)
    return _to_int(y, _f32(1.0, data), torch.int8), _range_out(lo), _range_out(hi)


def _bn_params(a, shapes):
    d = shapes[0]
    if d is None:
        return {}
    c = (d[a['axis'] % len(d)],)
    return {1: c, 2: c, 3: c, 4: c}


defop('_contrib_quantized_batch_norm', ('data', 'gamma', 'beta', 'moving_mean', 'moving_var', 'min_data',
                                        'max_data'),
      [('eps', 'float', 1e-3), ('momentum', 'float32', 0.9), ('fix_gamma', 'bool', True),
       ('use_global_stats', 'bool', False), ('output_mean_var', 'bool', False), ('axis', 'int', 1),
       ('cudnn_off', 'bool', False), ('min_calib_range', 'float?', None), ('max_calib_range', 'float?', None)],
      _quantized_batch_norm, aux=('moving_mean', 'moving_var'), same_shape=('data',), num_outputs=3,
      output_names=lambda a: _RANGE_OUT,
      infer=_infer_as('_contrib_quantized_batch_norm', {0: _Q8}, (5, 6), _bn_params),
      doc='Inference BatchNorm of int8/uint8 data into int8 in the calibrated output range (required), as MXNet\'s '
          'oneDNN kernel (gamma used as given); returns (output, min, max).')


# ---- concat of quantized arrays ------------------------------------------------------------------------------------
def _quantized_concat(*xs, num_args, dim):
    # MKLDNNQuantizedConcatForward: the output range spans every input's (and 0); each input whose scale differs
    # from the output's is reordered into the output's units (rounded, saturated), then joined
    op = '_contrib_quantized_concat'
    n = num_args
    if n is None or n < 1 or len(xs) != 3 * n:
        raise _err(op, 'takes num_args data inputs then their min and max (3 * num_args = %s inputs), got %d'
                   % (3 * n if n else '?', len(xs)))
    data = xs[:n]
    for i, d in enumerate(data):
        _check_dtype(op, 'arg%d' % i, d, _Q8)
    mins, maxs = xs[n::2], xs[n + 1::2]
    _check_range(op, *mins, *maxs)
    out_type = torch.int8 if any(d.dtype is torch.int8 for d in data) else torch.uint8
    zero = _f32(0.0, data[0])
    neg_min = torch.stack([zero] + [m.reshape(()).float() for m in mins]).min()
    pos_max = torch.stack([zero] + [m.reshape(()).float() for m in maxs]).max()
    out_scale = _data_range(torch.empty(0, dtype=out_type)).to(data[0].device) / _max_abs(neg_min, pos_max)
    parts = []
    for d, lo, hi in zip(data, mins, maxs):
        scale = out_scale / (_data_range(d) / _max_abs(lo, hi).reshape(()))  # exactly 1 for an equal scale
        parts.append(_to_int(d, scale, out_type))
    ndim = data[0].dim()
    if not -ndim <= dim < ndim:
        raise _err(op, 'dim %d out of range for %dD inputs' % (dim, ndim))
    try:
        out = torch.cat(parts, dim)
    except RuntimeError as e:
        raise _err(op, 'input shapes %s do not match outside dim %d (%s)'
                   % ([tuple(d.shape) for d in data], dim, str(e).splitlines()[0])) from None
    return out, _range_out(neg_min), _range_out(pos_max)


def _concat_input_names(a):
    n = a['num_args'] or 0
    return ['arg%d' % i for i in range(n)] + [s for i in range(n) for s in ('arg%d_min' % i, 'arg%d_max' % i)]


def _concat_infer(shapes, dtypes, attrs):
    n = attrs['num_args'] or 0
    return _infer_as('_contrib_quantized_concat', {i: _Q8 for i in range(n)}, tuple(range(n, 3 * n)))(
        shapes, dtypes, attrs)


defop('_contrib_quantized_concat', ('*data',), [('num_args', 'int', REQUIRED), ('dim', 'int', 1)],
      _quantized_concat, num_outputs=3, output_names=lambda a: _RANGE_OUT, input_names=_concat_input_names,
      infer=_concat_infer,
      doc='Concat of int8/uint8 arrays given as (arg0, ..., arg{n-1}, arg0_min, arg0_max, ...): the output range '
          'spans the inputs\' (and 0), inputs of another scale are rescaled into it (int8 output if any input is '
          'int8), as MXNet\'s oneDNN kernel; returns (output, min, max).')
