"""``mx.nd.contrib`` operators (registered as ``_contrib_*``): pooling/resizing, indexing helpers, straight-through
estimators, gradient multiplier, allclose, fft/ifft, count_sketch, SyncBatchNorm, BatchNormWithReLU,
SparseEmbedding, (modulated) deformable convolution, interleaved attention matmuls, the Hawkes-process log likelihood
(hawkesll), and the AdamW / multi-LAMB / group-Adagrad update operators (``_adamw_update`` ... in ``_internal``;
their ``mx.nd.contrib`` wrappers are in ``mxcompat/ndarray/contrib.py``).

Differs from MXNet: fft, ifft and count_sketch run on CPU here (MXNet 1.9.1 has GPU kernels only);
group_adagrad_update takes a dense gradient (MXNet's needs row_sparse); ModulatedDeformableConvolution has a CPU
gradient (MXNet's backward is GPU only); SyncBatchNorm supports ndev=1 only.
"""
import math

import torch
import torch.nn.functional as F

from ..base import MXNetError, unsupported
from . import nn as _nn
from . import optimizer_updates as _updates
from .extra_ops import group_infer, zero_grad
from .registry import defop, REQUIRED

_X = ('data',)


def _err(op, msg):
    return MXNetError('Operator %s: %s' % (op, msg))


# ---- pooling / resizing --------------------------------------------------------------------------------------------
def _adaptive_avg_pool(data, output_size):
    if data.dim() != 4:
        raise _err('_contrib_AdaptiveAvgPooling2D', 'data must be 4D (N, C, H, W), got shape %s'
                   % (tuple(data.shape),))
    size = tuple(output_size) or (1,)
    if len(size) == 1:
        size = size * 2
    return F.adaptive_avg_pool2d(data, size)


defop('_contrib_AdaptiveAvgPooling2D', _X, [('output_size', 'shape', ())], _adaptive_avg_pool,
      doc='Adaptive average pooling of (N, C, H, W) data to output_size (one value: square; none: 1x1).')

_RESIZE_MODES = ('size', 'odd_scale', 'like', 'to_even_down', 'to_even_up', 'to_odd_down', 'to_odd_up')


def _resize_size(h, w, like, height, width, scale_height, scale_width, mode):
    if mode == 'size':
        if scale_height is not None:
            if scale_width is None:
                raise _err('_contrib_BilinearResize2D', 'scale_width is required with scale_height')
            return int(scale_height * h), int(scale_width * w)
        return height, width
    if mode == 'odd_scale':
        if scale_height is None or scale_width is None:
            raise _err('_contrib_BilinearResize2D', "mode 'odd_scale' needs scale_height and scale_width")
        return tuple(int(n * s) if n % 2 == 0 else int((n - 1) * s) + 1
                     for n, s in ((h, scale_height), (w, scale_width)))
    if mode == 'like':
        if like is None:
            raise _err('_contrib_BilinearResize2D', "mode 'like' needs the input like")
        return like.shape[2], like.shape[3]
    parity = 0 if 'even' in mode else 1
    step = -1 if mode.endswith('down') else 1
    return tuple(n if n % 2 == parity else n + step for n in (h, w))


def _bilinear_resize(data, like=None, *, height, width, scale_height, scale_width, mode, align_corners):
    if data.dim() != 4:
        raise _err('_contrib_BilinearResize2D', 'data must be 4D (N, C, H, W), got shape %s' % (tuple(data.shape),))
    size = _resize_size(data.shape[2], data.shape[3], like, height, width, scale_height, scale_width, mode)
    return F.interpolate(data, size=size, mode='bilinear', align_corners=align_corners)


defop('_contrib_BilinearResize2D', ('data', 'like'),
      [('height', 'int', 1), ('width', 'int', 1), ('scale_height', 'float?', None), ('scale_width', 'float?', None),
       ('mode', 'str', 'size'), ('align_corners', 'bool', True)], _bilinear_resize, optional=('like',),
      choices={'mode': _RESIZE_MODES}, input_names=lambda a: ['data', 'like'] if a['mode'] == 'like' else ['data'],
      doc='Bilinear resize of (N, C, H, W) data (align_corners=False is half-pixel sampling).')


# ---- indexing helpers ----------------------------------------------------------------------------------------------
def _boolean_mask(data, index, axis):
    if index.dim() != 1 or index.shape[0] != data.shape[axis]:
        raise _err('_contrib_boolean_mask', 'index must be 1D of length data.shape[%d]=%d, got shape %s'
                   % (axis, data.shape[axis], tuple(index.shape)))
    if data.device.type == 'meta':
        raise _err('_contrib_boolean_mask', 'the output shape depends on the values of index: it cannot be '
                   'inferred before running')
    keep = torch.nonzero(index.detach() != 0).reshape(-1)
    return torch.index_select(data, axis, keep)


defop('_contrib_boolean_mask', ('data', 'index'), [('axis', 'int', 0)], _boolean_mask,
      doc='Rows (along axis) of data where index is nonzero.')


def _arange_like(data, start, step, repeat, ctx, axis):
    n = data.numel() if axis is None else data.shape[axis]
    shape = tuple(data.shape) if axis is None else (n,)
    vals = start + step * torch.div(torch.arange(n, dtype=torch.float64, device=data.device), repeat,
                                    rounding_mode='floor')
    return vals.to(data.dtype).reshape(shape)


defop('_contrib_arange_like', _X, [('start', 'float', 0.0), ('step', 'float', 1.0), ('repeat', 'int', 1),
                                   ('ctx', 'str', ''), ('axis', 'int?', None)], zero_grad(_arange_like),
      doc='arange shaped like data (or of length data.shape[axis]), in data\'s dtype.')


def _index_copy(old_tensor, index_vector, new_tensor):
    if index_vector.dim() != 1 or new_tensor.shape[0] != index_vector.shape[0] or \
            tuple(new_tensor.shape[1:]) != tuple(old_tensor.shape[1:]):
        raise _err('_contrib_index_copy', 'shapes old %s, index %s, new %s do not match'
                   % (tuple(old_tensor.shape), tuple(index_vector.shape), tuple(new_tensor.shape)))
    return old_tensor.index_copy(0, index_vector.detach().long(), new_tensor)


defop('_contrib_index_copy', ('old_tensor', 'index_vector', 'new_tensor'), (), _index_copy,
      doc='Copy of old_tensor with rows index_vector replaced by new_tensor.')


def _index_array(data, axes):
    nd = data.dim()
    ax = list(range(nd)) if axes is None else [a + nd if a < 0 else a for a in axes]
    if not ax:  # nothing to index (a 0-d array, or axes=()): an empty trailing axis, as in MXNet
        return torch.zeros(data.shape + (0,), dtype=torch.int64, device=data.device)
    grids = torch.meshgrid(*[torch.arange(s, device=data.device) for s in data.shape], indexing='ij')
    return torch.stack([grids[a] for a in ax], -1).to(torch.int64)


defop('_contrib_index_array', _X, [('axes', 'shape', None)], zero_grad(_index_array),
      doc='For each element of data its index (along axes), as int64 with a trailing axis.')


def _div_sqrt_dim(data):
    return data / math.sqrt(data.shape[-1])


defop('_contrib_div_sqrt_dim', _X, (), _div_sqrt_dim, doc='data / sqrt(data.shape[-1]).')
defop('_contrib_quadratic', _X, [('a', 'float', 0.0), ('b', 'float', 0.0), ('c', 'float', 0.0)],
      lambda data, a, b, c: a * data * data + b * data + c, doc='a * data**2 + b * data + c.')


class _GradMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scalar):
        ctx.scalar = scalar
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scalar, None


class _StraightThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fn):
        return fn(x)

    @staticmethod
    def backward(ctx, g):
        return g, None


def _ste(fn):
    def impl(data):
        if data.requires_grad and torch.is_grad_enabled():
            return _StraightThrough.apply(data, fn)
        return fn(data)
    return impl


defop('_contrib_gradientmultiplier', _X, [('scalar', 'float', 1.0), ('is_int', 'bool', True)],
      lambda data, scalar, is_int: _GradMul.apply(data, scalar),
      doc='Identity whose gradient is multiplied by scalar.')
defop('_contrib_round_ste', _X, (), _ste(_nn._round_half_away),
      doc='round (halves away from zero) with a straight-through (identity) gradient.')
defop('_contrib_sign_ste', _X, (), _ste(torch.sign), doc='sign with a straight-through (identity) gradient.')


def _allclose(a, b, rtol, atol, equal_nan):
    if a.shape != b.shape:
        raise _err('_contrib_allclose', 'shapes %s and %s differ' % (tuple(a.shape), tuple(b.shape)))
    an, bn = torch.isnan(a), torch.isnan(b)
    diff = (a - b).abs()
    ok = (a == b) | (diff <= atol + rtol * b.abs())
    ok = torch.where(an | bn, (an == bn) & equal_nan, ok)
    return ok.all().to(torch.uint8)


defop('_contrib_allclose', ('a', 'b'), [('rtol', 'float', 1e-5), ('atol', 'float', 1e-8), ('equal_nan', 'bool', True)],
      _allclose, doc='1 (uint8, shape ()) if |a - b| <= atol + rtol * |b| everywhere, else 0.')


def _edge_id(data, u, v):
    if data.dim() != 2:
        raise _err('_contrib_edge_id', 'data must be a 2D adjacency matrix, got shape %s' % (tuple(data.shape),))
    e = data[u.long(), v.long()]
    return torch.where(e != 0, e, torch.full_like(e, -1))


defop('_contrib_edge_id', ('data', 'u', 'v'), (), _edge_id,
      doc='data[u, v] where it is nonzero, else -1 (dense adjacency here; MXNet takes csr).')


# ---- fft / count_sketch --------------------------------------------------------------------------------------------
def _fft(data, compute_size):
    c = torch.fft.fft(data.float() if data.dtype is not torch.float64 else data, dim=-1)
    return torch.view_as_real(c).reshape(data.shape[:-1] + (2 * data.shape[-1],)).to(data.dtype)


def _ifft(data, compute_size):
    if data.shape[-1] % 2:
        raise _err('_contrib_ifft', 'the last axis must hold (real, imag) pairs, got length %d' % data.shape[-1])
    x = data if data.dtype is torch.float64 else data.float()
    c = torch.view_as_complex(x.reshape(data.shape[:-1] + (data.shape[-1] // 2, 2)).contiguous())
    n = c.shape[-1]
    return (torch.fft.ifft(c, dim=-1).real * n).to(data.dtype)  # unnormalised inverse, as cuFFT's


defop('_contrib_fft', _X, [('compute_size', 'int', 128)], _fft,
      doc='FFT over the last axis; output interleaves (real, imag). Runs on CPU too (MXNet: GPU only).')
defop('_contrib_ifft', _X, [('compute_size', 'int', 128)], _ifft,
      doc='Unnormalised inverse FFT of interleaved (real, imag) data; the real part. Runs on CPU too.')


def _count_sketch(data, h, s, out_dim, processing_batch_size):
    d = data.shape[-1]
    if data.dim() not in (2, 4) or h.numel() != d or s.numel() != d:
        raise _err('_contrib_count_sketch', 'data must be 2D or 4D with h and s of %d entries, got shapes %s, %s, %s'
                   % (d, tuple(data.shape), tuple(h.shape), tuple(s.shape)))
    idx = h.reshape(-1).long().expand(data.shape)
    out = torch.zeros(data.shape[:-1] + (out_dim,), dtype=data.dtype, device=data.device)
    return out.scatter_add(-1, idx, data * s.reshape(-1).to(data.dtype))


defop('_contrib_count_sketch', ('data', 'h', 's'), [('out_dim', 'int', REQUIRED),
                                                   ('processing_batch_size', 'int', 32)], _count_sketch,
      doc='Count sketch: out[..., h[i]] += s[i] * data[..., i]. Runs on CPU too (MXNet: GPU only).')


# ---- SyncBatchNorm -------------------------------------------------------------------------------------------------
def _sync_bn(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, use_global_stats,
             output_mean_var, ndev, key):
    if ndev != 1:
        raise unsupported('mx.nd.contrib.SyncBatchNorm', 'ndev=%d' % ndev,
                          'statistics are not synchronised across devices; use one device per process')
    res = _nn._batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, use_global_stats,
                          output_mean_var, 1, False, None, None)
    if not output_mean_var:
        return res
    out, mean, invstd = res  # SyncBatchNorm's third output is the variance (BatchNorm's is 1/sqrt(var + eps))
    return out, mean, invstd.pow(-2) - eps


defop('_contrib_SyncBatchNorm', ('data', 'gamma', 'beta', 'moving_mean', 'moving_var'),
      [('eps', 'float', 1e-3), ('momentum', 'float32', 0.9), ('fix_gamma', 'bool', True),
       ('use_global_stats', 'bool', False), ('output_mean_var', 'bool', False), ('ndev', 'int', 1),
       ('key', 'str', REQUIRED)], _sync_bn, aux=('moving_mean', 'moving_var'),
      num_outputs=lambda a: 3 if a['output_mean_var'] else 1,
      doc='BatchNorm over one device (ndev=1): the same computation as BatchNorm, but the third output (with '
          'output_mean_var) is the variance; ndev > 1 is not supported. Outside training MXNet returns '
          'uninitialised memory there; we return the variance used.')


# ---- interleaved attention matmuls (GluonNLP) ----------------------------------------------------------------------
def _heads(op, x, heads, parts):
    seq, batch, width = x.shape
    if width % (heads * parts):
        raise _err(op, 'the last axis (%d) must be a multiple of heads * %d (%d)' % (width, parts, heads * parts))
    hd = width // (heads * parts)
    # (seq, batch, heads, parts, hd) -> parts of (batch * heads, seq, hd)
    x = x.reshape(seq, batch, heads, parts, hd).permute(3, 1, 2, 0, 4).reshape(parts, batch * heads, seq, hd)
    return x, hd


def _merge_heads(out, batch, heads):
    bh, seq, hd = out.shape
    return out.reshape(batch, heads, seq, hd).permute(2, 0, 1, 3).reshape(seq, batch, heads * hd)


def selfatt_views(op, x, heads, values=False):
    """(queries, keys, values, head_dim) of interleaved (seq, batch, width) projections, each (batch * heads, seq,
    head_dim), as MXNet's self-attention kernels (contrib and oneDNN) read them: head_dim = width // 3 // heads and
    rows batch * heads * 3 * head_dim apart. Neither checks that 3 * heads divides the width (only 3, where the
    ``values`` are read): with a remainder the rows are read at that stride (not the width), as MXNet reads them."""
    if x.dim() != 3:
        raise _err(op, 'queries_keys_values should be 3D in seq_length-batch-proj_dim, currently is: %dD' % x.dim())
    seq, batch, width = x.shape
    if values and width % 3:
        raise _err(op, 'queries_keys_values.shape[2] should be a multiple of 3, currently is %d' % width)
    hd = width // 3 // heads if heads > 0 else 0
    if hd == 0:
        raise _err(op, 'the last axis (%d) holds no head: it must be at least 3 * heads (%d)' % (width, 3 * heads))
    ab = batch * heads
    if width == 3 * heads * hd:
        x = x.reshape(seq, batch, heads, 3, hd).permute(3, 1, 2, 0, 4).reshape(3, ab, seq, hd)
        return x[0], x[1], x[2], hd
    flat = x.contiguous().reshape(-1)
    size, stride = (ab, seq, hd), (3 * hd, ab * 3 * hd, 1)
    q, k, v = (torch.as_strided(flat, size, stride, flat.storage_offset() + i * hd) for i in range(3))
    return q, k, v, hd


def _selfatt_qk(queries_keys_values, heads):
    q, k, _, hd = selfatt_views('_contrib_interleaved_matmul_selfatt_qk', queries_keys_values, heads)
    return torch.bmm(q / math.sqrt(hd), k.transpose(1, 2))


def selfatt_merge(out, x, heads):
    """The (batch * heads, seq, head_dim) result of the values as (seq, batch, width // 3); where 3 * heads does
    not divide the width, MXNet's kernels write the first seq * batch * heads * head_dim values in that order and
    leave the rest (here zeros)."""
    seq, batch, width = x.shape
    merged = _merge_heads(out, batch, heads)
    if width // 3 == heads * out.shape[2]:
        return merged
    full = torch.zeros(seq * batch * (width // 3), dtype=out.dtype, device=out.device)
    full[:merged.numel()] = merged.reshape(-1)
    return full.reshape(seq, batch, width // 3)


def _selfatt_valatt(queries_keys_values, attention, heads):
    op = '_contrib_interleaved_matmul_selfatt_valatt'
    _, _, v, _ = selfatt_views(op, queries_keys_values, heads, values=True)
    return selfatt_merge(torch.bmm(attention, v), queries_keys_values, heads)


def _encdec_qk(queries, keys_values, heads):
    q, hd = _heads('_contrib_interleaved_matmul_encdec_qk', queries, heads, 1)
    kv, _ = _heads('_contrib_interleaved_matmul_encdec_qk', keys_values, heads, 2)
    return torch.bmm(q[0] / math.sqrt(hd), kv[0].transpose(1, 2))


def _encdec_valatt(keys_values, attention, heads):
    kv, _ = _heads('_contrib_interleaved_matmul_encdec_valatt', keys_values, heads, 2)
    return _merge_heads(torch.bmm(attention, kv[1]), keys_values.shape[1], heads)


_HEADS = [('heads', 'int', REQUIRED)]
defop('_contrib_interleaved_matmul_selfatt_qk', ('queries_keys_values',), _HEADS, _selfatt_qk,
      doc='Scaled q @ k^T per head from interleaved (seq, batch, heads * 3 * d) projections.')
defop('_contrib_interleaved_matmul_selfatt_valatt', ('queries_keys_values', 'attention'), _HEADS, _selfatt_valatt,
      doc='attention @ v per head, merged back to (seq, batch, heads * d).')
defop('_contrib_interleaved_matmul_encdec_qk', ('queries', 'keys_values'), _HEADS, _encdec_qk,
      doc='Scaled q @ k^T per head; keys_values interleaves (k, v) per head.')
defop('_contrib_interleaved_matmul_encdec_valatt', ('keys_values', 'attention'), _HEADS, _encdec_valatt,
      doc='attention @ v per head, merged back to (seq, batch, heads * d).')


# ---- AdamW / multi-LAMB / group Adagrad ----------------------------------------------------------------------------
def _scale_ok(rescale_grad):
    r = float(rescale_grad.reshape(-1)[0])
    return r if math.isfinite(r) and r != 0 else None


def _adamw_step(w, grad, mean, var, r, lr, beta1, beta2, epsilon, wd, eta, clip_gradient):
    with torch.no_grad():
        g = grad.to(w.dtype) * r
        if clip_gradient >= 0:
            g.clamp_(-clip_gradient, clip_gradient)
        mean.mul_(beta1).add_(g, alpha=1 - beta1)
        var.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        w.sub_((mean * lr / (var.sqrt() + epsilon) + wd * w) * eta)


def _adamw(weight, grad, mean, var, rescale_grad, weight32=None, *, lr, beta1, beta2, epsilon, wd, eta,
           clip_gradient):
    w = weight.clone()
    r = _scale_ok(rescale_grad)
    if r is None:  # MXNet skips the update when rescale_grad is nan, inf or 0 (AMP overflow)
        return w
    _adamw_step(w if weight32 is None else weight32, grad, mean, var, r, lr, beta1, beta2, epsilon, wd, eta,
                clip_gradient)
    if weight32 is None:  # MXNet's single-precision kernel leaves grad rescaled and clipped in place
        with torch.no_grad():
            grad.mul_(r)
            if clip_gradient >= 0:
                grad.clamp_(-clip_gradient, clip_gradient)
    if weight32 is not None:
        w.copy_(weight32)
    return w


def _mp_adamw(weight, grad, mean, var, weight32, rescale_grad, **kw):
    return _adamw(weight, grad, mean, var, rescale_grad, weight32, **kw)


def _first_shape(shapes, dtypes, attrs):
    return [shapes[0]], [dtypes[0]]


_ADAMW = [('lr', 'float', REQUIRED), ('beta1', 'float', 0.9), ('beta2', 'float', 0.999), ('epsilon', 'float', 1e-8),
          ('wd', 'float', 0.0), ('eta', 'float', REQUIRED), ('clip_gradient', 'float', -1.0)]
defop('_adamw_update', ('weight', 'grad', 'mean', 'var', 'rescale_grad'), _ADAMW, _adamw, infer=_first_shape,
      doc='AdamW step; mean/var updated in place; skipped when the rescale_grad array holds nan, inf or 0.')
defop('_mp_adamw_update', ('weight', 'grad', 'mean', 'var', 'weight32', 'rescale_grad'), _ADAMW, _mp_adamw,
      infer=_first_shape, doc='AdamW step on the float32 master copy weight32 (updated in place).')


def _multi_adamw(per, mp):
    def impl(*data, lrs, beta1, beta2, epsilon, wds, etas, clip_gradient, num_weights, num_args):
        n = num_weights
        if len(data) != n * per + 1:
            raise _err('_multi_adamw_update', 'num_weights=%d needs %d inputs, got %d' % (n, n * per + 1, len(data)))
        r = _scale_ok(data[-1])
        outs = []
        for i in range(n):
            w, g, m, v = data[i * per:i * per + 4]
            out = w.clone()
            if r is not None:
                w32 = data[i * per + 4] if mp else out
                _adamw_step(w32, g, m, v, r, lrs[i], beta1, beta2, epsilon, wds[i], etas[i], clip_gradient)
                if mp:
                    out.copy_(w32)
            outs.append(out)
        return tuple(outs) if n > 1 else outs[0]
    return impl, group_infer(per, 'num_weights')


_MULTI_ADAMW = [('lrs', 'floats', REQUIRED), ('beta1', 'float', 0.9), ('beta2', 'float', 0.999),
                ('epsilon', 'float', 1e-8), ('wds', 'floats', REQUIRED), ('etas', 'floats', REQUIRED),
                ('clip_gradient', 'float', -1.0), ('num_weights', 'int', 1)]
for _name, _per, _mp in (('_multi_adamw_update', 4, False), ('_multi_mp_adamw_update', 5, True)):
    _impl, _inf = _multi_adamw(_per, _mp)
    defop(_name, ('*data',), _MULTI_ADAMW, _impl, infer=_inf, num_outputs=lambda a: a['num_weights'],
          doc='AdamW over num_weights groups (weight, grad, mean, var%s) and a final rescale_grad array.'
          % (', weight32' if _mp else ''))


def _multi_lamb(per, mp):
    def impl(*data, learning_rates, beta1, beta2, epsilon, wds, rescale_grad, lower_bound, upper_bound,
             clip_gradient, bias_correction, step_count, num_tensors, num_args):
        n = num_tensors
        if len(data) != n * per:
            raise _err('_multi_lamb_update', 'num_tensors=%d needs %d inputs, got %d' % (n, n * per, len(data)))
        outs = []
        with torch.no_grad():
            for i in range(n):
                w, g, m, v = data[i * per:i * per + 4]
                out = w.clone()
                _updates.lamb_update(out, g, m, v, learning_rates[i], wds[i], step_count[i], beta1, beta2, epsilon,
                                   bias_correction, rescale_grad, clip_gradient, lower_bound, upper_bound,
                                   weight32=data[i * per + 4] if mp else None)
                outs.append(out)
        return tuple(outs) if n > 1 else outs[0]
    return impl, group_infer(per, 'num_tensors')


_MULTI_LAMB = [('learning_rates', 'floats', REQUIRED), ('beta1', 'float', 0.9), ('beta2', 'float', 0.999),
               ('epsilon', 'float', 1e-6), ('wds', 'floats', REQUIRED), ('rescale_grad', 'float', 1.0),
               ('lower_bound', 'float', -1.0), ('upper_bound', 'float', -1.0), ('clip_gradient', 'float', -1.0),
               ('bias_correction', 'bool', True), ('step_count', 'shape', REQUIRED), ('num_tensors', 'int', 1)]
for _name, _per, _mp in (('_multi_lamb_update', 4, False), ('_multi_mp_lamb_update', 5, True)):
    _impl, _inf = _multi_lamb(_per, _mp)
    defop(_name, ('*data',), _MULTI_LAMB, _impl, infer=_inf, num_outputs=lambda a: a['num_tensors'],
          doc='LAMB over num_tensors groups (weight, grad, mean, var%s).' % (', weight32' if _mp else ''))


def _group_adagrad(weight, grad, history, lr, rescale_grad, clip_gradient, epsilon):
    if history.shape[0] != weight.shape[0] or history.numel() != weight.shape[0]:
        raise _err('_contrib_group_adagrad_update', 'history must hold one value per row of weight %s, got shape %s'
                   % (tuple(weight.shape), tuple(history.shape)))
    w = weight.clone()
    with torch.no_grad():
        g = grad.to(w.dtype) * rescale_grad
        if clip_gradient >= 0:
            g.clamp_(-clip_gradient, clip_gradient)
        g2 = g.reshape(g.shape[0], -1)
        history.add_(g2.square().mean(1).reshape(history.shape).to(history.dtype))
        h = history.reshape((-1,) + (1,) * (w.dim() - 1))
        w.sub_(lr * g / (h + epsilon).sqrt())
    return w


defop('_contrib_group_adagrad_update', ('weight', 'grad', 'history'),
      [('lr', 'float', REQUIRED), ('rescale_grad', 'float', 1.0), ('clip_gradient', 'float', -1.0),
       ('epsilon', 'float', 1e-5)], _group_adagrad,
      doc='Adagrad with one history value per row; history is updated in place. Dense gradients here.')



# ---- BatchNormWithReLU / SparseEmbedding / DeformableConvolution -----------------------------------------------
def _bn_relu(data, gamma, beta, moving_mean, moving_var, **kw):
    out = _nn._batch_norm(data, gamma, beta, moving_mean, moving_var, **kw)
    if isinstance(out, tuple):
        return (torch.relu(out[0]),) + out[1:]
    return torch.relu(out)


defop('_contrib_BatchNormWithReLU', ('data', 'gamma', 'beta', 'moving_mean', 'moving_var'),
      [('eps', 'float', 1e-3), ('momentum', 'float32', 0.9), ('fix_gamma', 'bool', True),
       ('use_global_stats', 'bool', False), ('output_mean_var', 'bool', False), ('axis', 'int', 1),
       ('cudnn_off', 'bool', False), ('min_calib_range', 'float?', None), ('max_calib_range', 'float?', None)],
      _bn_relu, aux=('moving_mean', 'moving_var'), num_outputs=lambda a: 3 if a['output_mean_var'] else 1,
      doc='BatchNorm followed by ReLU (the fused MKLDNN operator of MXNet).')

defop('_contrib_SparseEmbedding', ('data', 'weight'),
      [('input_dim', 'int', REQUIRED), ('output_dim', 'int', REQUIRED), ('dtype', 'dtype', torch.float32),
       ('deterministic', 'bool', False)],
      lambda data, weight, input_dim, output_dim, dtype, deterministic: _nn._embedding(
          data, weight, input_dim, output_dim, dtype, True),
      doc='Embedding lookup with a sparse weight gradient (see Embedding with ``sparse_grad``). Its backward is '
          'deterministic either way, so ``deterministic`` changes nothing.')


def _bilinear_taps(img, ys, xs, modulated=False):
    """Sample img (N, G, Cg, H, W) at (N, G, K, Ho, Wo) positions as MXNet's deformable im2col does: (N, G, Cg, K,
    Ho, Wo), each sample the weighted sum of its four corners in MXNet's order.

    v1: zero outside [0, H) x [0, W); at the last row/column the sample clamps instead of interpolating.
    modulated (v2): zero outside (-1, H) x (-1, W); corners that fall outside the image count as zero.
    The four corners are gathered in one call (a few dozen kernels a call in all: on a GPU, numeric gradients run
    thousands of these)."""
    n, g, cg, h, w = img.shape
    if modulated:
        inside = (ys > -1) & (xs > -1) & (ys < h) & (xs < w)
        y0, x0 = ys.floor(), xs.floor()
        ly, lx = ys - y0, xs - x0
    else:
        inside = (ys >= 0) & (xs >= 0) & (ys < h) & (xs < w)
        y0, x0 = ys.floor().clamp(0, h - 1), xs.floor().clamp(0, w - 1)
        ly = torch.where(y0 >= h - 1, torch.zeros_like(ys), ys - y0)
        lx = torch.where(x0 >= w - 1, torch.zeros_like(xs), xs - x0)
    y0l, x0l = y0.long(), x0.long()
    y1l, x1l = y0l + 1, x0l + 1
    if not modulated:
        y1l, x1l = y1l.clamp(max=h - 1), x1l.clamp(max=w - 1)
    # the corners (y0, x0), (y0, x1), (y1, x0), (y1, x1) along a new axis 2
    yi, xi = torch.stack((y0l, y0l, y1l, y1l), 2), torch.stack((x0l, x1l, x0l, x1l), 2)
    hy, hx = 1 - ly, 1 - lx
    wt = torch.stack((hy * hx, hy * lx, ly * hx, ly * lx), 2)
    ok = inside.unsqueeze(2) & (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    idx = (yi.clamp(0, h - 1) * w + xi.clamp(0, w - 1)).reshape(n, g, 1, -1).expand(n, g, cg, yi[0, 0].numel())
    taps = img.reshape(n, g, cg, h * w).gather(3, idx).reshape((n, g, cg) + tuple(yi.shape[2:]))
    taps = taps * (wt * ok.to(wt.dtype)).unsqueeze(2)  # (N, G, Cg, 4, K, Ho, Wo)
    return taps[:, :, :, 0] + taps[:, :, :, 1] + taps[:, :, :, 2] + taps[:, :, :, 3]


def _deformable_conv(data, offset, weight, bias=None, *, kernel, stride, dilate, pad, num_filter, num_group,
                     num_deformable_group, workspace, no_bias, layout, mask=None,
                     op='_contrib_DeformableConvolution'):
    if len(kernel) != 2 or data.dim() != 4 or layout not in (None, 'NCHW'):
        raise _err(op, 'only 2D NCHW data is supported (MXNet\'s kernels are 2D), got kernel %s, data shape %s'
                   % (tuple(kernel), tuple(data.shape)))
    kh, kw = kernel
    sh, sw = tuple(stride) or (1, 1)
    dh, dw = tuple(dilate) or (1, 1)
    ph, pw = tuple(pad) or (0, 0)
    n, c, h, w = data.shape
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    dg, k = num_deformable_group, kh * kw
    if tuple(offset.shape) != (n, 2 * k * dg, ho, wo):
        raise _err(op, 'offset shape %s does not match (%d, %d, %d, %d)' % (tuple(offset.shape), n, 2 * k * dg, ho, wo))
    if c % dg or c % num_group or tuple(weight.shape) != (num_filter, c // num_group, kh, kw):
        raise _err(op, 'weight shape %s does not match (%d, %d, %d, %d)'
                   % (tuple(weight.shape), num_filter, c // num_group, kh, kw))
    if data.device.type == 'meta':
        return data.new_empty((n, num_filter, ho, wo))
    grid = dict(dtype=data.dtype, device=data.device)
    base_y = (torch.arange(ho, **grid) * sh - ph)[:, None] + (torch.arange(kh, **grid) * dh)[:, None, None]
    base_x = (torch.arange(wo, **grid) * sw - pw)[None] + (torch.arange(kw, **grid) * dw)[:, None, None]
    off = offset.reshape(n, dg, k, 2, ho, wo)
    ys = base_y.reshape(kh, 1, ho, 1).expand(kh, kw, ho, wo).reshape(k, ho, wo) + off[:, :, :, 0]
    xs = base_x.reshape(1, kw, 1, wo).expand(kh, kw, ho, wo).reshape(k, ho, wo) + off[:, :, :, 1]
    cols = _bilinear_taps(data.reshape(n, dg, c // dg, h, w), ys, xs, mask is not None)  # (N, dg, C/dg, K, Ho, Wo)
    if mask is not None:
        if tuple(mask.shape) != (n, k * dg, ho, wo):
            raise _err(op, 'mask shape %s does not match (%d, %d, %d, %d)' % (tuple(mask.shape), n, k * dg, ho, wo))
        cols = cols * mask.reshape(n, dg, 1, k, ho, wo)
    cols = cols.reshape(n, num_group, (c // num_group) * k, ho * wo)
    wts = weight.reshape(num_group, num_filter // num_group, (c // num_group) * k)
    out = torch.einsum('gfk,ngkl->ngfl', wts, cols).reshape(n, num_filter, ho, wo)
    if not no_bias:
        if bias is None:
            raise _err(op, 'input bias is missing (pass no_bias=True to omit it)')
        out = out + bias.reshape(1, -1, 1, 1)
    return out


defop('_contrib_DeformableConvolution', ('data', 'offset', 'weight', 'bias'),
      [('kernel', 'shape', REQUIRED), ('stride', 'shape', ()), ('dilate', 'shape', ()), ('pad', 'shape', ()),
       ('num_filter', 'int', REQUIRED), ('num_group', 'int', 1), ('num_deformable_group', 'int', 1),
       ('workspace', 'int', 1024), ('no_bias', 'bool', False), ('layout', 'str', None)],
      _deformable_conv, optional=('bias',), choices={'layout': (None, 'NCW', 'NCHW', 'NCDHW')},
      input_names=lambda a: ['data', 'offset', 'weight'] + ([] if a['no_bias'] else ['bias']),
      doc='2D deformable convolution (v1): kernel taps sampled bilinearly at offset positions.')


def _modulated_deformable_conv(data, offset, mask, weight, bias=None, *, im2col_step, **kw):
    return _deformable_conv(data, offset, weight, bias, mask=mask, op='_contrib_ModulatedDeformableConvolution',
                            **kw)


defop('_contrib_ModulatedDeformableConvolution', ('data', 'offset', 'mask', 'weight', 'bias'),
      [('kernel', 'shape', REQUIRED), ('stride', 'shape', ()), ('dilate', 'shape', ()), ('pad', 'shape', ()),
       ('num_filter', 'int', REQUIRED), ('num_group', 'int', 1), ('num_deformable_group', 'int', 1),
       ('workspace', 'int', 1024), ('no_bias', 'bool', False), ('im2col_step', 'int', 64), ('layout', 'str', None)],
      _modulated_deformable_conv, optional=('bias',), choices={'layout': (None, 'NCW', 'NCHW', 'NCDHW')},
      input_names=lambda a: ['data', 'offset', 'mask', 'weight'] + ([] if a['no_bias'] else ['bias']),
      doc='2D modulated deformable convolution (v2): deformable taps weighted by mask.')


# ---- hawkesll --------------------------------------------------------------------------------------------------------
_HAWKES_INPUTS = ('lda', 'alpha', 'beta', 'state', 'lags', 'marks', 'valid_length', 'max_time')


def _hawkes_check(shapes, marks_dtype):
    """MXNet's shape and type rules of _contrib_hawkesll; returns (N, T, K)."""
    op = '_contrib_hawkesll'
    shapes = [tuple(s) for s in shapes]
    for name, shape, nd in zip(_HAWKES_INPUTS, shapes, (2, 1, 1, 2, 2, 2, 1, 1)):
        if len(shape) != nd:
            raise _err(op, '%s must be %d-D, got shape %s' % (name, nd, shape))
    (n, steps), k = shapes[4], shapes[0][1]
    for name, shape, want in zip(_HAWKES_INPUTS, shapes, ((n, k), (k,), (k,), (n, k), (n, steps), (n, steps), (n,),
                                                          (n,))):
        if shape != want:
            raise _err(op, '%s must have shape %s (lags %s, lda %s), got %s'
                       % (name, want, shapes[4], shapes[0], shape))
    if marks_dtype is not None and marks_dtype is not torch.int32:
        raise _err(op, 'marks must be int32, got %s' % str(marks_dtype).replace('torch.', ''))
    return n, steps, k


def _hawkesll_infer(shapes, dtypes, attrs):
    # shapes only: a symbol's unknown marks dtype is guessed here (int32 comes from symbol type inference,
    # mxcompat/symbol/opinfo.py INPUT_DTYPES), and the forward pass checks it
    n, _, k = _hawkes_check(shapes, None)
    return [(n,), (n, k)], [dtypes[0]] * 2


def _hawkesll(lda, alpha, beta, state, lags, marks, valid_length, max_time):
    op = '_contrib_hawkesll'
    n, steps, k = _hawkes_check([t.shape for t in (lda, alpha, beta, state, lags, marks, valid_length, max_time)],
                                marks.dtype)
    for name, t in (('lags', lags), ('valid_length', valid_length), ('max_time', max_time)):
        if t.requires_grad and torch.is_grad_enabled():
            raise _err(op, '%s is a sufficient statistic: it takes no gradient (MXNet: req must be null)' % name)
    # MXNet's backward differentiates the log likelihood in lda, alpha and beta only: the starting state is held
    # constant and the returned state carries no gradient
    s = state.detach().clone()
    last = torch.zeros_like(s)
    t = lags.new_zeros(n)
    ll = lda.new_zeros(n)
    rows = torch.arange(n, device=lags.device)
    valid = valid_length.detach()
    for j in range(steps):
        active = valid > j
        if not bool(active.any()):
            break
        mark = marks[:, j].long()
        if bool(((mark < 0) | (mark >= k))[active].any()):
            raise _err(op, 'marks must lie in [0, %d), got %s at step %d' % (k, marks[:, j][active].tolist(), j))
        mark = torch.where(active, mark, 0)
        t = t + torch.where(active, lags[:, j].detach(), 0)
        s_m, last_m = s[rows, mark], last[rows, mark]
        d = t - last_m
        a, b = alpha[mark], beta[mark]
        ed = torch.exp(-b * d)
        mu = lda[rows, mark]
        intensity = mu + a * b * s_m * ed
        compensator = mu * d + a * s_m * (1 - ed)
        ll = ll + torch.where(active, torch.log(torch.where(active, intensity, 1)) - compensator, 0)
        s = s.index_put((rows, mark), torch.where(active, 1 + s_m * ed, s_m))
        last = last.index_put((rows, mark), torch.where(active, t, last_m))
    d = max_time.detach()[:, None] - last
    ed = torch.exp(-beta * d)
    ll = ll - (lda * d + alpha * s * (1 - ed)).sum(1)
    return ll, (ed * s).detach()


defop('_contrib_hawkesll', _HAWKES_INPUTS, (),
      _hawkesll, num_outputs=2, output_names=lambda a: ['output', 'out_state'], infer=_hawkesll_infer,
      doc='Log likelihood of K independent exponential-kernel Hawkes processes over ragged (N, T) observations, and '
          'the state at max_time. Gradients flow to lda, alpha and beta only, as in MXNet.')
