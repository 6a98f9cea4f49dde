"""Less common ``mx.nd`` operators: cumsum, _histogram, (un)ravel_multi_index, im2col/col2im, Crop, Correlation,
softmax_cross_entropy, the AMP helpers (all_finite, multi_all_finite, multi_sum_sq, multi_lars, reset_arrays,
amp_multicast), the ``random_pdf_*`` densities, the legacy ``*_v1`` layers, IdentityAttachKLSparseReg and the
mixed-precision / multi-tensor SGD and LAMB update operators.

Differs from MXNet: the multi-tensor ops count their inputs with MXNet's ``num_arrays``/``num_weights``, and the
registry's variadic convention also gives them a ``num_args`` attribute (filled in automatically; MXNet has none);
im2col/col2im also take 1D and 3D kernels (MXNet 1.9.1 fails on them); ``all_finite``/``multi_all_finite`` with
``init_output=False`` are not supported.
"""
import math

import torch
import torch.nn.functional as F

from ..base import MXNetError, MXNetTypeError, dtype_name, parse_float_tuple, unsupported
from . import nn as _nn
from . import optimizer_updates as _updates
from .registry import defop, REQUIRED

_X = ('data',)


def _err(op, msg):
    return MXNetError('Operator %s: %s' % (op, msg))


def _check_float_dtype(op, t, name='data'):
    if not t.is_floating_point():
        raise MXNetTypeError('Operator %s: %s must be a floating point array, got %s' % (op, name, dtype_name(t.dtype)))


# ---- cumsum / histogram / (un)ravel --------------------------------------------------------------------------------
def cumsum_along(src, dim, dtype):
    """Cumulative sum of ``src`` along ``dim`` in ``dtype``; float16 rounds every partial sum, as MXNet's kernel
    does (torch accumulates float16 in float32)."""
    if dtype is torch.float16 and src.shape[dim] > 1:
        steps = src.to(dtype).unbind(dim)
        acc = [steps[0]]
        for x in steps[1:]:
            acc.append(acc[-1] + x)
        return torch.stack(acc, dim)
    return torch.cumsum(src, dim=dim, dtype=dtype)


def _cumsum(a, axis, dtype):
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    if not -a.dim() <= axis < max(a.dim(), 1):
        raise _err('cumsum', 'axis value %d out of range for an array of ndim %d' % (axis, a.dim()))
    return cumsum_along(a, axis, dtype or a.dtype)  # integers keep their dtype (torch would widen them)


defop('_np_cumsum', ('a',), [('axis', 'int?', None), ('dtype', 'dtype?', None)], _cumsum, aliases=('cumsum',),
      choices={'dtype': (None, torch.float16, torch.float32, torch.float64, torch.int32, torch.int64, torch.int8)},
      doc='Cumulative sum along ``axis`` (the flattened array when None), in ``dtype`` or the input\'s dtype.')


def _bin_index(data, edges, nbins):
    # bin i holds edges[i] <= x < edges[i+1]; the last bin also holds its right edge; values outside are dropped
    idx = torch.searchsorted(edges, data.reshape(-1).contiguous(), right=True) - 1
    idx = torch.where(data.reshape(-1) == edges[-1], torch.full_like(idx, nbins - 1), idx)
    inside = (idx >= 0) & (idx < nbins)
    counts = torch.zeros(nbins, dtype=torch.int64, device=data.device)
    return counts.scatter_add_(0, idx.clamp(0, nbins - 1), inside.to(torch.int64))


def _histogram(data, bins=None, *, bin_cnt, range):  # noqa: A002 (MXNet's name)
    if bin_cnt is not None:
        if range is None:
            raise _err('_histogram', 'bin_cnt and range should both or neither be specified')
        lo, hi = range
        if lo > hi:
            raise _err('_histogram', 'left hand side of range (%s) should be less than or equal to the right hand '
                       'side (%s)' % (lo, hi))
        steps = torch.arange(bin_cnt + 1, dtype=torch.float64, device=data.device)
        edges = (lo + steps * ((hi - lo) / bin_cnt)).to(data.dtype)
        edges[-1] = hi
        return _bin_index(data, edges, bin_cnt), edges
    if bins is None:
        raise _err('_histogram', 'either bins or bin_cnt must be given')
    edges = bins.to(data.dtype)
    return _bin_index(data, edges, edges.numel() - 1), edges.clone()


def _range_tuple(v):
    if v is None or v == 'None':
        return None
    t = parse_float_tuple(v)
    if len(t) != 2:
        raise ValueError('range needs two values')
    return t


defop('_histogram', ('data', 'bins'), [('bin_cnt', 'int?', None), ('range', _range_tuple, None)], _histogram,
      optional=('bins',), num_outputs=2,
      input_names=lambda a: ['data'] if a['bin_cnt'] is not None else ['data', 'bins'])





class _ZeroGrad(torch.autograd.Function):
    """Attach a result to its inputs with zero gradients."""

    @staticmethod
    def forward(ctx, out, *inputs):
        ctx.shapes = [(i.shape, i.dtype) for i in inputs]
        return out.clone()

    @staticmethod
    def backward(ctx, g):
        return (None,) + tuple(torch.zeros(s, dtype=d, device=g.device) for s, d in ctx.shapes)


def zero_grad(fn):
    """Wrap an op whose MXNet backward writes zero gradients: the outputs are computed without autograd and
    attached to the inputs with zero gradients (so ``backward`` works and gives zeros, as in MXNet)."""
    def impl(*tensors, **attrs):
        ins = [t for t in tensors if t is not None and t.requires_grad]
        if not (ins and torch.is_grad_enabled()):
            return fn(*tensors, **attrs)
        with torch.no_grad():
            out = fn(*tensors, **attrs)
        attach = lambda o: _ZeroGrad.apply(o, *ins) if o.is_floating_point() else o  # noqa: E731
        return tuple(attach(o) for o in out) if isinstance(out, tuple) else attach(out)
    impl.__doc__ = fn.__doc__
    return impl


def _ravel(data, shape):
    if shape is None or data.shape[0] != len(shape):
        raise _err('ravel_multi_index', 'data.shape[0] (%d) must equal the length of shape %s'
                   % (data.shape[0], shape))
    strides = [1] * len(shape)
    for k in reversed(range(len(shape) - 1)):
        strides[k] = strides[k + 1] * shape[k + 1]
    st = torch.tensor(strides, dtype=torch.float64, device=data.device).reshape((-1,) + (1,) * (data.dim() - 1))
    return (data.to(torch.float64) * st).sum(0).to(data.dtype)


def _unravel(data, shape):
    if shape is None:
        raise _err('unravel_index', 'shape is required')
    idx = data.to(torch.int64)
    out = []
    for k in reversed(range(len(shape))):
        if k == 0:
            out.append(idx)
        else:
            out.append(torch.remainder(idx, shape[k]))
            idx = torch.div(idx, shape[k], rounding_mode='floor')
    return torch.stack(out[::-1]).to(data.dtype)


defop('_ravel_multi_index', _X, [('shape', 'shape', None)], zero_grad(_ravel), aliases=('ravel_multi_index',),
      doc='Flat indices from a (ndim, ...) array of coordinates, row-major; no bounds check, as in MXNet.')
defop('_unravel_index', _X, [('shape', 'shape', None)], zero_grad(_unravel), aliases=('unravel_index',),
      doc='Coordinates (ndim, ...) of flat indices, row-major.')


# ---- im2col / col2im -----------------------------------------------------------------------------------------------
def _spatial(op, kernel, stride, dilate, pad):
    n = len(kernel)
    return (tuple(stride) or (1,) * n, tuple(dilate) or (1,) * n, tuple(pad) or (0,) * n)


def _unfold_nd(x, kernel, stride, dilate, pad):
    # x: (N, C, *spatial) -> (N, C * prod(kernel), L), any spatial rank, by repeated unfold
    n = len(kernel)
    x = F.pad(x, [p for q in reversed(pad) for p in (q, q)])
    for d in range(n):
        x = x.unfold(2 + d, dilate[d] * (kernel[d] - 1) + 1, stride[d])
    # x: (N, C, *out, *span); keep every dilate-th element of each span
    idx = (slice(None),) * (2 + n) + tuple(slice(None, None, dl) for dl in dilate)
    x = x[idx]
    out = x.shape[2:2 + n]
    perm = [0, 1] + list(range(2 + n, 2 + 2 * n)) + list(range(2, 2 + n))
    return x.permute(perm).reshape(x.shape[0], -1, math.prod(out))


def _im2col(data, kernel, stride, dilate, pad):
    stride, dilate, pad = _spatial('im2col', kernel, stride, dilate, pad)
    if data.dim() != len(kernel) + 2:
        raise _err('im2col', 'data must have %d dims for a %dD kernel, got shape %s'
                   % (len(kernel) + 2, len(kernel), tuple(data.shape)))
    if len(kernel) == 2:
        return F.unfold(data, kernel, dilate, pad, stride)
    return _unfold_nd(data, tuple(kernel), stride, dilate, pad)


def _col2im(data, output_size, kernel, stride, dilate, pad):
    stride, dilate, pad = _spatial('col2im', kernel, stride, dilate, pad)
    if len(output_size) != len(kernel):
        raise _err('col2im', 'output_size %s and kernel %s differ in length' % (output_size, kernel))
    if len(kernel) == 2:
        return F.fold(data, tuple(output_size), kernel, dilate, pad, stride)
    # other ranks: col2im is the adjoint of im2col
    c = data.shape[1] // math.prod(kernel)
    with torch.enable_grad():
        z = torch.zeros((data.shape[0], c) + tuple(output_size), dtype=data.dtype, device=data.device,
                        requires_grad=True)
        cols = _unfold_nd(z, tuple(kernel), stride, dilate, pad)
        (g,) = torch.autograd.grad(cols, z, data, create_graph=data.requires_grad)
    return g


_IM2COL = [('kernel', 'shape', REQUIRED), ('stride', 'shape', ()), ('dilate', 'shape', ()), ('pad', 'shape', ())]
defop('im2col', _X, _IM2COL, _im2col, doc='Sliding image patches as columns: (N, C*prod(kernel), L).')
defop('col2im', _X, [('output_size', 'shape', REQUIRED)] + _IM2COL, _col2im,
      doc='Sum columns back into an image (the adjoint of im2col).')


# ---- Crop / Correlation --------------------------------------------------------------------------------------------
def _crop(*data, num_args, offset, h_w, center_crop):
    if num_args not in (1, 2):
        raise _err('Crop', 'num_args must be 1 or 2, got %d' % num_args)
    x = data[0]
    if x.dim() != 4:
        raise _err('Crop', 'data must be 4D (N, C, H, W), got shape %s' % (tuple(x.shape),))
    h, w = (data[1].shape[2], data[1].shape[3]) if num_args == 2 else tuple(h_w)
    H, W = x.shape[2], x.shape[3]
    if center_crop:
        oy, ox = (H - h) // 2, (W - w) // 2
    else:
        oy, ox = offset
    if h <= 0 or w <= 0 or oy < 0 or ox < 0 or oy + h > H or ox + w > W:
        raise _err('Crop', 'crop of size (%d, %d) at offset (%d, %d) does not fit data of shape %s'
                   % (h, w, oy, ox, tuple(x.shape)))
    return x[:, :, oy:oy + h, ox:ox + w]


defop('Crop', ('*data',), [('offset', 'shape', (0, 0)), ('h_w', 'shape', (0, 0)), ('center_crop', 'bool', False)],
      _crop, view=True, doc='Legacy Crop: cut (N, C, H, W) data to h_w (or to the second input\'s H, W).')


class _AbsDiff(torch.autograd.Function):
    """|a - b| whose gradient takes a tie (a == b) as a > b, as MXNet's Correlation backward does."""

    @staticmethod
    def forward(ctx, a, b):
        d = a - b
        ctx.save_for_backward(d)
        return d.abs()

    @staticmethod
    def backward(ctx, g):
        (d,) = ctx.saved_tensors
        s = torch.where(d >= 0, 1.0, -1.0).to(g.dtype) * g
        return s, -s


def _correlation(data1, data2, kernel_size, max_displacement, stride1, stride2, pad_size, is_multiply):
    if data1.dim() != 4 or data1.shape != data2.shape:
        raise _err('Correlation', 'data1 and data2 must be 4D with the same shape, got %s and %s'
                   % (tuple(data1.shape), tuple(data2.shape)))
    k, md = kernel_size, max_displacement
    n, c, hh, ww = data1.shape
    hp, wp = hh + 2 * pad_size, ww + 2 * pad_size
    border = md + (k - 1) // 2
    out_h = -(-(hp - 2 * border) // stride1)
    out_w = -(-(wp - 2 * border) // stride1)
    if out_h < 1 or out_w < 1:
        raise _err('Correlation', 'the padded input is too small for max_displacement %d and kernel_size %d'
                   % (md, k))
    p1 = F.pad(data1, [pad_size] * 4)
    p2 = F.pad(data2, [pad_size] * 4)
    r = md // stride2
    a = p1[:, :, md:hp - md, md:wp - md]
    maps = []
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            oy, ox = md + dy * stride2, md + dx * stride2
            b = p2[:, :, oy:oy + a.shape[2], ox:ox + a.shape[3]]
            maps.append((a * b if is_multiply else _AbsDiff.apply(a, b)).sum(1))
    prod = torch.stack(maps, 1)
    out = F.avg_pool2d(prod, k, stride1) if (k > 1 or stride1 > 1) else prod
    return out[:, :, :out_h, :out_w] / c


defop('Correlation', ('data1', 'data2'),
      [('kernel_size', 'int', 1), ('max_displacement', 'int', 1), ('stride1', 'int', 1), ('stride2', 'int', 1),
       ('pad_size', 'int', 0), ('is_multiply', 'bool', True)], _correlation,
      doc='FlowNet correlation of two feature maps (products, or absolute differences without is_multiply).')


# ---- losses and AMP helpers ----------------------------------------------------------------------------------------
def _softmax_ce(data, label):
    if data.dim() != 2 or label.dim() != 1 or label.shape[0] != data.shape[0]:
        raise _err('softmax_cross_entropy', 'data must be (N, K) and label (N,), got %s and %s'
                   % (tuple(data.shape), tuple(label.shape)))
    logp = torch.log_softmax(data, 1)
    return -logp.gather(1, label.detach().long().unsqueeze(1)).sum().reshape(1)


defop('softmax_cross_entropy', ('data', 'label'), (), _softmax_ce,
      doc='Sum over the batch of the cross entropy of softmax(data) with integer labels; shape (1,).')


def _no_init(op, init_output):
    if not init_output:
        raise unsupported('mx.nd.%s' % op, 'init_output=False',
                          'combining with the previous contents of out is not supported; AND the results instead')


def _all_finite(data, init_output):
    _no_init('all_finite', init_output)
    return torch.isfinite(data).all().to(torch.float32).reshape(1)


def _multi_all_finite(*data, num_arrays, init_output, num_args):
    _no_init('multi_all_finite', init_output)
    _check_count('multi_all_finite', 'num_arrays', num_arrays, len(data))
    ok = torch.stack([torch.isfinite(d).all() for d in data]).all()
    return ok.to(torch.float32).reshape(1)


def _check_count(op, pname, n, got, per=1):
    if n * per != got:
        raise _err(op, '%s=%d needs %d inputs, got %d' % (pname, n, n * per, got))


def _multi_sum_sq(*data, num_arrays, num_args):
    _check_count('multi_sum_sq', 'num_arrays', num_arrays, len(data))
    for i, d in enumerate(data[1:], 1):
        if d.dtype is not data[0].dtype:
            raise MXNetTypeError("Operator multi_sum_sq: This layer requires uniform type. Expected '%s' v.s. given "
                                 "'%s' at 'array_%d'" % (dtype_name(data[0].dtype), dtype_name(d.dtype), i))
    return _updates.multi_sum_sq(data)


def _multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad):
    return _updates.multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad)


def _reset_arrays(*data, num_arrays, num_args):
    _check_count('reset_arrays', 'num_arrays', num_arrays, len(data))
    with torch.no_grad():
        for d in data:
            d.zero_()
    return ()


_AMP_FLOATS = (torch.float32, torch.float16, torch.bfloat16)  # the only dtypes the AMP casts touch


def _amp_cast(data, dtype):
    # MXNet's amp_cast casts float32/float16/bfloat16 only: other dtypes pass through unchanged
    return data.to(dtype) if data.dtype in _AMP_FLOATS else data.clone()


def _amp_multicast(*data, num_outputs, cast_narrow):
    # MXNet's type rule, quirks included: without cast_narrow the target is float32 if any input is float32, else
    # the first input's dtype (whatever it is: (int32, float16) -> int32); with cast_narrow it is float32 unless
    # some input is float16/bfloat16, the last such one deciding. Only float32/16/bfloat16 inputs are cast.
    _check_count('amp_multicast', 'num_outputs', num_outputs, len(data))
    if cast_narrow:
        pick = torch.float32
        for d in data:
            if d.dtype is torch.float16 or d.dtype is torch.bfloat16:
                pick = d.dtype
    else:
        pick = torch.float32 if any(d.dtype is torch.float32 for d in data) else data[0].dtype
    out = tuple(d.to(pick) if d.dtype in _AMP_FLOATS else d.clone() for d in data)
    return out if len(out) > 1 else out[0]


defop('all_finite', _X, [('init_output', 'bool', True)], _all_finite,
      doc='1.0 if every element is finite, else 0.0 (float32, shape (1,)). init_output=False is not supported.')
defop('multi_all_finite', ('*data',), [('num_arrays', 'int', 1), ('init_output', 'bool', True)], _multi_all_finite,
      doc='all_finite over several arrays. init_output=False is not supported.')
defop('multi_sum_sq', ('*data',), [('num_arrays', 'int', REQUIRED)], _multi_sum_sq,
      doc='Sum of squares of each input, as a float32 array of shape (num_arrays,).')
defop('multi_lars', ('lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds'),
      [('eta', 'float', REQUIRED), ('eps', 'float', REQUIRED), ('rescale_grad', 'float', 1.0)], _multi_lars,
      doc='LARS learning rates from the squared norms of weights and gradients.')
defop('reset_arrays', ('*data',), [('num_arrays', 'int', REQUIRED)], _reset_arrays, num_outputs=0,
      doc='Set every input to zero in place; no outputs.')
defop('amp_multicast', ('*data',), [('num_outputs', 'int', REQUIRED), ('cast_narrow', 'bool', False)],
      _amp_multicast, num_outputs=lambda a: a['num_outputs'], count='num_outputs',
      input_names=lambda a: ['data_%d' % i for i in range(a['num_outputs'])],
      doc='Cast the float32/float16/bfloat16 inputs to the widest (narrowest with cast_narrow) type among them.')
defop('amp_cast', ('data',), [('dtype', 'dtype', REQUIRED)], _amp_cast, same_shape='*',
      doc='Cast float32/float16/bfloat16 data to dtype; data of other dtypes is returned unchanged.')


# ---- random_pdf_* --------------------------------------------------------------------------------------------------
def _pdf_params(op, sample, params, vector):
    p0 = params[0]
    for name_p in params[1:]:
        if name_p.shape != p0.shape:
            raise _err(op, 'parameter shapes differ: %s vs %s' % (tuple(p0.shape), tuple(name_p.shape)))
    if p0.dim() > sample.dim() or tuple(sample.shape[:p0.dim()]) != tuple(p0.shape) and not vector:
        raise _err(op, 'the parameters\' shape %s must be a leading part of the sample shape %s'
                   % (tuple(p0.shape), tuple(sample.shape)))
    if vector:
        if tuple(sample.shape[:p0.dim() - 1]) != tuple(p0.shape[:-1]) or sample.shape[-1] != p0.shape[-1]:
            raise _err(op, 'alpha shape %s does not match sample shape %s' % (tuple(p0.shape), tuple(sample.shape)))
        extra = sample.dim() - p0.dim()
        return [p.reshape(p.shape[:-1] + (1,) * extra + p.shape[-1:]) for p in params]
    extra = sample.dim() - p0.dim()
    return [p.reshape(p.shape + (1,) * extra) for p in params]


def _nb_lpdf(x, k, p):
    return torch.lgamma(x + k) - torch.lgamma(x + 1) - torch.lgamma(k) + k * torch.log(p) + x * torch.log1p(-p)


_PDFS = {  # name -> (parameter names, log-density(x, *params), sample is discrete/ignored)
    'uniform': (('low', 'high'), lambda x, lo, hi: -torch.log(hi - lo) + x.detach() * 0, True),
    'normal': (('mu', 'sigma'), lambda x, mu, s: -0.5 * ((x - mu) / s) ** 2 - torch.log(math.sqrt(2 * math.pi) * s),
               False),
    'gamma': (('alpha', 'beta'), lambda x, a, b: a * torch.log(b) + (a - 1) * torch.log(x) - b * x - torch.lgamma(a),
              False),
    'exponential': (('lam',), lambda x, lam: torch.log(lam) - lam * x, False),
    'poisson': (('lam',), lambda x, lam: x * torch.log(lam) - torch.lgamma(x + 1) - lam, True),
    'negative_binomial': (('k', 'p'), _nb_lpdf, True),
    'generalized_negative_binomial': (('mu', 'alpha'),
                                      lambda x, mu, a: _nb_lpdf(x, 1 / a, 1 / (mu * a + 1)), True),
}


def _make_pdf(dist, names, lpdf, discrete):
    op = '_random_pdf_' + dist

    def impl(sample, *params, is_log):
        _check_float_dtype(op, sample, 'sample')
        ps = _pdf_params(op, sample, params, False)
        x = sample.detach() if discrete else sample
        out = lpdf(x, *ps)
        return out if is_log else torch.exp(out)
    impl.__doc__ = 'Density%s of the %s distribution at ``sample`` (is_log: its logarithm).' % (
        '' if not discrete else ' (or mass)', dist)
    inputs = ('sample',) + names
    defop(op, inputs, [('is_log', 'bool', False)], impl, aliases=('random_pdf_' + dist,))


for _d, (_names, _lp, _disc) in _PDFS.items():
    _make_pdf(_d, _names, _lp, _disc)


def _pdf_dirichlet(sample, alpha, is_log):
    _check_float_dtype('_random_pdf_dirichlet', sample, 'sample')
    (a,) = _pdf_params('_random_pdf_dirichlet', sample, (alpha,), True)
    lp = ((a - 1) * torch.log(sample)).sum(-1) + torch.lgamma(a.sum(-1)) - torch.lgamma(a).sum(-1)
    if sample.dim() == 1:
        lp = lp.reshape(1)
    return lp if is_log else torch.exp(lp)


defop('_random_pdf_dirichlet', ('sample', 'alpha'), [('is_log', 'bool', False)], _pdf_dirichlet,
      aliases=('random_pdf_dirichlet',),
      doc='Dirichlet density of vector samples (last axis); output drops that axis.')


# ---- legacy layers -------------------------------------------------------------------------------------------------
def _batch_norm_v1(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, use_global_stats,
                   output_mean_var):
    return _nn._batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, use_global_stats,
                           output_mean_var, 1, False, None, None)


defop('BatchNorm_v1', ('data', 'gamma', 'beta', 'moving_mean', 'moving_var'),
      [('eps', 'float', 1e-3), ('momentum', 'float32', 0.9), ('fix_gamma', 'bool', True),
       ('use_global_stats', 'bool', False), ('output_mean_var', 'bool', False)],
      _batch_norm_v1, aux=('moving_mean', 'moving_var'), num_outputs=lambda a: 3 if a['output_mean_var'] else 1,
      doc='Legacy BatchNorm (channel axis 1): the same computation as BatchNorm.')


def _convolution_v1(data, weight, bias=None, **kw):
    return _nn._convolution(data, weight, bias, **kw)


defop('Convolution_v1', ('data', 'weight', 'bias'), _nn._CONV_PARAMS, _convolution_v1, optional=('bias',),
      input_names=_nn._with_bias,
      choices={'cudnn_tune': (None, 'off', 'limited_workspace', 'fastest'),
               'layout': (None, 'NCHW', 'NCDHW', 'NHWC', 'NDHWC')},
      doc='Legacy Convolution: the same computation as Convolution.')


def _pooling_v1(data, kernel, pool_type, global_pool, pooling_convention, stride, pad):
    if not global_pool and not kernel:
        raise _err('Pooling_v1', 'kernel is required unless global_pool is set')
    if pool_type != 'avg' or global_pool:
        return _nn._pooling(data, kernel, pool_type, global_pool, False, pooling_convention, stride, pad, None, None,
                            None)
    # the legacy average always divides by the kernel area, also for windows cut by the border ('full')
    total = _nn._pooling(data, kernel, 'sum', False, False, pooling_convention, stride, pad, None, None, None)
    return total / math.prod(kernel)


defop('Pooling_v1', _X,
      [('kernel', 'shape', ()), ('pool_type', 'str', 'max'), ('global_pool', 'bool', False),
       ('pooling_convention', 'str', 'valid'), ('stride', 'shape', ()), ('pad', 'shape', ())],
      _pooling_v1, choices={'pool_type': ('avg', 'max', 'sum'), 'pooling_convention': ('full', 'valid')},
      doc='Legacy Pooling (max/avg/sum): the same computation as Pooling.')


class _KLSparseReg(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, moving_avg, target, penalty, momentum):
        ctx.save_for_backward(x)
        ctx.moving_avg, ctx.args = moving_avg, (target, penalty, momentum)
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        target, penalty, momentum = ctx.args
        avg = ctx.moving_avg
        x2 = x.reshape(-1, x.shape[-1])
        with torch.no_grad():
            avg.mul_(momentum).add_(x2.mean(0).to(avg.dtype), alpha=1 - momentum)
        reg = penalty * (-target / avg + (1 - target) / (1 - avg))
        return g + reg.to(g.dtype), None, None, None, None


def _kl_sparse_reg(data, moving_avg, sparseness_target, penalty, momentum):
    if data.dim() < 2 or data.shape[1] != data.shape[-1] or tuple(moving_avg.shape) != (data.shape[1],):
        raise _err('IdentityAttachKLSparseReg', 'data must be (N, K) with moving_avg (K,), got %s and %s'
                   % (tuple(data.shape), tuple(moving_avg.shape)))
    if data.requires_grad and torch.is_grad_enabled():
        return _KLSparseReg.apply(data, moving_avg, sparseness_target, penalty, momentum)
    return data.clone()


defop('IdentityAttachKLSparseReg', ('data', 'moving_avg'),
      [('sparseness_target', 'float', 0.1), ('penalty', 'float', 1e-3), ('momentum', 'float', 0.9)],
      _kl_sparse_reg, aux=('moving_avg',),
      doc='Identity whose backward adds a KL sparseness penalty; moving_avg is updated during backward.')


# ---- mixed-precision / multi-tensor SGD and LAMB -------------------------------------------------------------------
_COMMON = [('wd', 'float', 0.0), ('rescale_grad', 'float', 1.0), ('clip_gradient', 'float', -1.0)]
_LR = [('lr', 'float', REQUIRED)]
_MOM = [('momentum', 'float', 0.0)]


def _mp_sgd(weight, grad, weight32, lr, wd, rescale_grad, clip_gradient, lazy_update):
    w = weight.clone()
    _updates.sgd_update([w], [grad], None, [lr], [wd], rescale_grad=rescale_grad, clip_gradient=clip_gradient,
                      weights32=[weight32], single=True)
    return w


def _mp_sgd_mom(weight, grad, mom, weight32, lr, momentum, wd, rescale_grad, clip_gradient, lazy_update):
    w = weight.clone()
    _updates.sgd_update([w], [grad], [mom], [lr], [wd], momentum=momentum, rescale_grad=rescale_grad,
                      clip_gradient=clip_gradient, weights32=[weight32])
    return w


def _mp_nag_mom(weight, grad, mom, weight32, lr, momentum, wd, rescale_grad, clip_gradient):
    w = weight.clone()
    _updates.nag_mom_update(w, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, weight32=weight32)
    return w


_LAZY = [('lazy_update', 'bool', True)]
defop('mp_sgd_update', ('weight', 'grad', 'weight32'), _LR + _COMMON + _LAZY, _mp_sgd,
      doc='SGD on a float32 master copy (weight32, updated in place); returns it cast to weight\'s dtype.')
defop('mp_sgd_mom_update', ('weight', 'grad', 'mom', 'weight32'), _LR + _MOM + _COMMON + _LAZY, _mp_sgd_mom,
      doc='Momentum SGD on a float32 master copy; mom and weight32 are updated in place.')
defop('mp_nag_mom_update', ('weight', 'grad', 'mom', 'weight32'), _LR + _MOM + _COMMON, _mp_nag_mom,
      doc='Nesterov momentum SGD on a float32 master copy; mom and weight32 are updated in place.')


def group_infer(per, count):
    """``infer=`` of the multi-tensor update ops: one output per group of ``per`` inputs, shaped like the group's
    first input (the weight); ``count`` names the attribute holding the number of groups."""
    def infer(shapes, dtypes, attrs):
        n = attrs[count]
        return [shapes[i * per] for i in range(n)], [dtypes[i * per] for i in range(n)]
    return infer


def _multi_sgd_impl(op, per, has_mom, mp, preloaded):
    def impl(*data, num_weights, rescale_grad, clip_gradient, num_args, lrs=None, wds=None, momentum=0.0):
        n_in = len(data) - (2 if preloaded else 0)
        _check_count(op, 'num_weights', num_weights, n_in, per)
        if preloaded:
            lrs, wds = data[-2].tolist(), data[-1].tolist()
        elif len(lrs) != num_weights or len(wds) != num_weights:
            raise _err(op, 'lrs and wds need num_weights=%d values each, got %d and %d'
                       % (num_weights, len(lrs), len(wds)))
        groups = [data[i * per:(i + 1) * per] for i in range(num_weights)]
        ws = [g[0].clone() for g in groups]
        _updates.sgd_update(ws, [g[1] for g in groups], [g[2] for g in groups] if has_mom else None, lrs, wds,
                          momentum=momentum, rescale_grad=rescale_grad, clip_gradient=clip_gradient,
                          weights32=[g[-1] for g in groups] if mp else None)
        return tuple(ws) if num_weights > 1 else ws[0]
    return impl, group_infer(per, 'num_weights')


def _def_multi_sgd(name, per, has_mom, mp, preloaded):
    params = ([] if preloaded else [('lrs', 'floats', REQUIRED), ('wds', 'floats', REQUIRED)]) + \
        (_MOM if has_mom else []) + [('rescale_grad', 'float', 1.0), ('clip_gradient', 'float', -1.0),
                                     ('num_weights', 'int', 1)]
    impl, infer = _multi_sgd_impl(name, per, has_mom, mp, preloaded)
    parts = ['weight', 'grad'] + (['mom'] if has_mom else []) + (['weight32'] if mp else [])

    def names(attrs):
        out = ['%s_%d' % (p, i) for i in range(attrs['num_weights']) for p in parts]
        return out + (['lrs', 'wds'] if preloaded else [])
    defop(name, ('*data',), params, impl, infer=infer, num_outputs=lambda a: a['num_weights'], input_names=names,
          doc='%sSGD%s over num_weights (%s) groups in one call%s; states updated in place, returns the weights.'
          % ('Momentum ' if has_mom else '', ' on float32 master copies' if mp else '', ', '.join(parts),
             ' (learning rates and weight decays from the last two input arrays)' if preloaded else ''))


for _pre in (False, True):
    for _mom in (False, True):
        for _mp in (False, True):
            _def_multi_sgd('%smulti_%ssgd_%supdate' % ('preloaded_' if _pre else '', 'mp_' if _mp else '',
                                                     'mom_' if _mom else ''),
                           2 + _mom + _mp, _mom, _mp, _pre)


def _lamb_phase1(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd, rescale_grad,
                 clip_gradient, weight32=None):
    w = weight if weight32 is None else weight32
    g = grad.to(w.dtype) * rescale_grad
    if clip_gradient >= 0:
        g = g.clamp(-clip_gradient, clip_gradient)
    with torch.no_grad():
        mean.mul_(beta1).add_(g, alpha=1 - beta1)
        var.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    m, v = mean, var
    if bias_correction:
        m, v = mean / (1 - beta1 ** t), var / (1 - beta2 ** t)
    return m / (v.sqrt() + epsilon) + wd * w


def _lamb_phase2(weight, g, r1, r2, lr, lower_bound, upper_bound, weight32=None):
    r1 = r1.reshape(-1)[:1].float()
    r2 = r2.reshape(-1)[:1].float()
    if lower_bound >= 0:
        r1 = r1.clamp(min=lower_bound)
    if upper_bound >= 0:
        r1 = r1.clamp(max=upper_bound)
    scale = torch.where((r1 == 0) | (r2 == 0), torch.ones_like(r1), r1 / r2) * lr
    base = weight if weight32 is None else weight32
    return (base - scale.to(g.dtype) * g).to(weight.dtype)


def _mp_lamb_phase1(weight, grad, mean, var, weight32, **kw):
    return _lamb_phase1(weight, grad, mean, var, weight32=weight32, **kw)


def _mp_lamb_phase2(weight, g, r1, r2, weight32, **kw):
    return _lamb_phase2(weight, g, r1, r2, weight32=weight32, **kw)


_LAMB1 = [('beta1', 'float', 0.9), ('beta2', 'float', 0.999), ('epsilon', 'float', 1e-6), ('t', 'int', REQUIRED),
          ('bias_correction', 'bool', True), ('wd', 'float', REQUIRED), ('rescale_grad', 'float', 1.0),
          ('clip_gradient', 'float', -1.0)]
_LAMB2 = [('lr', 'float', REQUIRED), ('lower_bound', 'float', -1.0), ('upper_bound', 'float', -1.0)]
defop('lamb_update_phase1', ('weight', 'grad', 'mean', 'var'), _LAMB1, _lamb_phase1,
      doc='LAMB step 1: updates mean/var in place, returns the direction g (Adam step plus wd * weight).')
defop('lamb_update_phase2', ('weight', 'g', 'r1', 'r2'), _LAMB2, _lamb_phase2,
      doc='LAMB step 2: weight - lr * (r1 / r2) * g, r1 clipped to [lower_bound, upper_bound] when those are >= 0.')
defop('mp_lamb_update_phase1', ('weight', 'grad', 'mean', 'var', 'weight32'), _LAMB1, _mp_lamb_phase1,
      doc='lamb_update_phase1 on the float32 master copy weight32; g is float32.')
defop('mp_lamb_update_phase2', ('weight', 'g', 'r1', 'r2', 'weight32'), _LAMB2, _mp_lamb_phase2,
      doc='lamb_update_phase2 from the float32 master copy weight32 (which is not updated), cast to weight\'s dtype.')
