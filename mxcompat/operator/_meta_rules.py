"""Output shapes of the common layers' non-pointwise aten ops on meta tensors, by rule.

torch's meta kernels of ``mm``, ``addmm``, ``bmm``, ``convolution``, the 2-d and 3-d pools, ``_softmax``,
``empty_like`` (dropout's), the reductions over dimensions (``sum``, ``mean``, ``amax``, ``argmax``, ``var_mean``,
``linalg_vector_norm`` ...), ``cumsum``, ``cat``, ``stack``, ``repeat``, ``gather``, ``index`` (advanced indexing),
``native_layer_norm``, ``native_batch_norm`` (instance_norm's), ``embedding`` and ``arange`` are Python
(torch._meta_registrations, torch._decomp, torch._refs) and check their arguments with ``torch._check``, whose first
call imports ``torch.fx.experimental.symbolic_shapes`` and with it sympy and mpmath: about 490 modules and 0.5 s, paid
by the first deferred initialization or ``bind`` of every process (``cumsum``'s and ``native_batch_norm``'s
decompositions also load torch._dynamo). Each rule here computes the result those kernels give (shape,
dtype, strides) from the arguments alone, for the cases it recognizes as valid: plain contiguous meta tensors, the
argument forms the kernel accepts, every check of the kernel passing. Anything else (a check failing, an unusual
dtype or layout) gives ``None``, and torch's own kernel runs, with its own error. tests/operator/test_meta.py compares
each rule with torch's kernel across a sweep of shapes and attributes.
"""
import math
from functools import partial

import torch

__all__ = ['FACTORY_RULES', 'RULES', 'bound', 'dense']

_META = torch.device('meta')
_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_INTS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)
aten = torch.ops.aten


def bound(func, args, kwargs):
    """All of ``func``'s arguments in its schema's order, defaults filled in; None where one is missing."""
    out = list(args)
    for a in func._schema.arguments[len(args):]:
        if a.name in kwargs:
            out.append(kwargs[a.name])
        elif a.has_default_value():
            out.append(a.default_value)
        else:
            return None
    return out


def _plain(*ts):
    """Plain meta tensors (results below do not depend on their strides)."""
    return all(type(t) is torch.Tensor and t.device == _META for t in ts)


def dense(t):
    """Whether ``t`` has exactly a new tensor's strides (is_contiguous() ignores those of dimensions of size 0 or 1,
    which torch's kernels may carry over to their results)."""
    expect = 1
    for size, stride in zip(reversed(t.shape), reversed(t.stride())):
        if stride != expect:
            return False
        expect *= max(size, 1)
    return True


def _empty(shape, dtype):
    return torch.empty(shape, dtype=dtype, device=_META)


def _mm(a, b, out_dtype=None):
    if out_dtype is not None or not _plain(a, b) or a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        return None
    return _empty((a.shape[0], b.shape[1]), a.dtype)


def _addmm(bias, a, b, beta=1, alpha=1):
    # torch's decomposition: alpha * mm(a, b) + beta * bias, in float32 for half types, cast back
    if not isinstance(bias, torch.Tensor) or bias.dtype not in _FLOATS or not (bias.dtype == a.dtype == b.dtype):
        return None
    out = _mm(a, b)
    if out is None or not _plain(bias) or type(beta) not in (int, float) or type(alpha) not in (int, float):
        return None
    # (torch.broadcast_shapes is Python, and imports sympy too)
    if beta != 0 and (bias.dim() > 2 or any(b not in (1, o) for b, o in zip(bias.shape[::-1], out.shape[::-1]))):
        return None  # not broadcast to mm's shape: torch's kernel says how (a larger result, or an error)
    return out


def _bmm(a, b):
    if (not _plain(a, b) or a.dim() != 3 or b.dim() != 3 or a.dtype != b.dtype
            or b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]):
        return None
    return _empty((a.shape[0], a.shape[1], b.shape[2]), b.dtype)


def _expand(v, n):
    v = list(v)
    return v * n if len(v) == 1 else v


def _conv(x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    if not _plain(x, w) or x.dim() != w.dim() or x.dim() not in (3, 4, 5) or type(groups) is not int or groups < 1:
        return None
    n = x.dim() - 2
    stride, padding, dilation = _expand(stride, n), _expand(padding, n), _expand(dilation, n)
    if transposed:
        output_padding = _expand(output_padding, n)
    if any(len(v) != n for v in (stride, padding, dilation)) or (transposed and len(output_padding) != n):
        return None
    if any(type(v) is not int for v in (*stride, *padding, *dilation)) or any(s <= 0 for s in stride):
        return None
    dims, kernel = x.shape[2:], w.shape[2:]
    if transposed:
        size = [(d - 1) * s - 2 * p + dl * (k - 1) + op + 1
                for d, s, p, dl, k, op in zip(dims, stride, padding, dilation, kernel, output_padding)]
        shape = [x.shape[0], groups * w.shape[1]] + size
    else:
        if w.shape[1] * groups != x.shape[1]:
            return None
        if any(d + 2 * p < dl * (k - 1) + 1 for d, p, dl, k in zip(dims, padding, dilation, kernel)):
            return None
        size = [(d + 2 * p - dl * (k - 1) - 1) // s + 1
                for d, s, p, dl, k in zip(dims, stride, padding, dilation, kernel)]
        shape = [x.shape[0], w.shape[0]] + size
    if not any(v > 0 for v in size) or any(v < 0 for v in size):
        return None
    if x.shape[1] == 0:
        shape[1] = 0
    return _empty(shape, x.dtype)


def _channels_last_like(shape, strides):
    """torch's test of NHWC-ordered strides on a 4-d tensor, NDHWC on a 5-d one."""
    order = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}.get(len(shape))
    if order is None or strides[1] == 0:
        return False
    least = 0
    for d in order:
        if shape[d] == 0 or strides[d] < least or (d == 0 and least == strides[1]):
            return False
        least = strides[d] * shape[d]
    return True


def _per_dim(v, n, allow_empty=False):
    """A pool's kernel, stride, padding or dilation for each of its ``n`` dimensions: one value for all, or ``n``."""
    v = list(v)
    if allow_empty and not v:
        return None
    if len(v) not in (1, n):
        raise ValueError
    return v * n if len(v) == 1 else v


def _pool(n, x, kernel, stride, padding, dilation, ceil_mode):
    """The output shape of an ``n``-d (2 or 3) max or average pool, or None where torch's checks would not all
    pass."""
    if (not _plain(x) or x.dtype not in _FLOATS or x.dim() not in (n + 1, n + 2)
            or any(s == 0 for s in x.shape[-n - 1:])):  # (only the batch dimension may be empty)
        return None
    try:
        k = _per_dim(kernel, n)
        s = _per_dim(stride, n, allow_empty=True) or k
        p, d = _per_dim(padding, n), _per_dim(dilation, n)
    except ValueError:
        return None
    out = []
    for size, k_, s_, p_, d_ in zip(x.shape[-n:], k, s, p, d):
        if k_ <= 0 or s_ <= 0 or d_ <= 0 or p_ < 0 or p_ > k_ // 2 or p_ > ((k_ - 1) * d_ + 1) // 2:
            return None
        o = (size + 2 * p_ - d_ * (k_ - 1) - 1 + (s_ - 1 if ceil_mode else 0)) // s_ + 1
        if ceil_mode and (o - 1) * s_ >= size + p_:
            o -= 1
        if o < 1:
            return None
        out.append(o)
    return tuple(x.shape[:-n]) + tuple(out)


def _pool_result(n, x, shape, dtype):
    """A new tensor of ``shape``: channels-last where batched ``x``'s strides are (torch's max pools and 2-d
    average pool keep that layout), else contiguous."""
    if x.dim() == n + 2 and _channels_last_like(x.shape, x.stride()):
        layout = torch.channels_last if n == 2 else torch.channels_last_3d
        return torch.empty(shape, dtype=dtype, device=_META, memory_format=layout)
    return _empty(shape, dtype)


def _max_pool(n, x, kernel, stride, padding, dilation, ceil_mode):
    shape = _pool(n, x, kernel, stride, padding, dilation, ceil_mode)
    return None if shape is None else (_pool_result(n, x, shape, x.dtype), _pool_result(n, x, shape, torch.int64))


def _avg_pool(n, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    if divisor_override == 0:
        return None
    shape = _pool(n, x, kernel, stride, padding, (1,), ceil_mode)
    if shape is None:
        return None
    if n == 2:
        return _pool_result(n, x, shape, x.dtype)
    # the 3-d one wants the input, unpadded, at least as large as the kernel; its result is contiguous
    if any(size < k for size, k in zip(x.shape[-3:], _per_dim(kernel, 3))):
        return None
    return _empty(shape, x.dtype)


def _softmax(x, dim, half_to_float):
    if half_to_float or not _plain(x) or x.dtype not in _FLOATS:  # (always a contiguous result)
        return None
    if type(dim) is not int or not -max(x.dim(), 1) <= dim < max(x.dim(), 1):
        return None
    return _empty(x.shape, x.dtype)


def _empty_like(x, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    # (torch's kernel orders a preserved layout by strides, importing sympy for it: here contiguous inputs without
    # dimensions of size 0 or 1, whose strides that order leaves as they are)
    preserve = memory_format in (None, torch.preserve_format)
    if (not _plain(x) or not dense(x) or (preserve and any(s < 2 for s in x.shape))
            or layout not in (None, torch.strided) or pin_memory
            or (device is not None and torch.device(device) != _META)
            or memory_format not in (None, torch.preserve_format, torch.contiguous_format)):
        return None
    return _empty(x.shape, x.dtype if dtype is None else dtype)


def _reduction(x, dim, keepdim, dtype):
    """A reduction's result, of ``dtype``, over the listed dimensions of ``x``, all of them for None (for [], all of
    them to torch too, and anything unusual: None). Dense, not zero-size ``x`` only: torch's result is then laid out
    as new (a zero-size one's strides differ)."""
    if not _plain(x) or not dense(x) or x.numel() == 0 or (dim is not None and not dim):
        return None
    n = max(x.dim(), 1)
    dim = range(x.dim()) if dim is None else dim
    if any(type(d) is not int or not -n <= d < n for d in dim):
        return None
    axes = {d % n for d in dim}
    if len(axes) != len(dim):
        return None
    if x.dim() == 0:
        return _empty((), dtype)
    shape = [1 if i in axes else s for i, s in enumerate(x.shape)] if keepdim else \
        [s for i, s in enumerate(x.shape) if i not in axes]
    return _empty(shape, dtype)


def _sum(x, dim, keepdim=False, dtype=None):
    """Integers and bools sum to int64 unless ``dtype`` says otherwise."""
    if x.dtype not in _FLOATS + _INTS or dtype not in (None,) + _FLOATS + _INTS:
        return None
    return _reduction(x, dim, keepdim, dtype or (x.dtype if x.dtype in _FLOATS else torch.int64))


def _mean(x, dim, keepdim=False, dtype=None):
    if x.dtype not in _FLOATS or dtype not in (None,) + _FLOATS:
        return None
    return _reduction(x, dim, keepdim, dtype or x.dtype)


def _var_mean(x, dim=None, correction=None, keepdim=False):
    if x.dtype not in _FLOATS:
        return None
    var = _reduction(x, dim, keepdim, x.dtype)
    return None if var is None else (var, _empty(var.shape, x.dtype))


def _vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """A p-norm for a finite p > 0 of a floating tensor, in its dtype."""
    if dtype is not None or type(ord) not in (int, float) or not 0 < ord < math.inf or x.dtype not in _FLOATS:
        return None
    return _reduction(x, dim, keepdim, x.dtype)


def _cumsum(x, dim, dtype=None):
    """Integers and bools add up in int64 unless ``dtype`` says otherwise; the result is laid out as new."""
    n = max(x.dim(), 1)
    if (not _plain(x) or not dense(x) or type(dim) is not int or not -n <= dim < n
            or x.dtype not in _FLOATS + _INTS or dtype not in (None,) + _FLOATS + _INTS):
        return None
    return _empty(x.shape, dtype or (x.dtype if x.dtype in _FLOATS else torch.int64))


def _cat(tensors, dim=0):
    """Tensors of one dtype and rank with equal sizes off ``dim``, each laid out as new (the result is then
    contiguous; 4-d and 5-d ones without dimensions of size 1, whose layout torch would also read as
    channels-last)."""
    if not isinstance(tensors, (list, tuple)) or not tensors or not _plain(*tensors) or type(dim) is not int:
        return None
    first = tensors[0]
    n = first.dim()
    if n == 0 or not -n <= dim < n:
        return None
    dim %= n
    for t in tensors:
        if (t.dtype is not first.dtype or t.dim() != n or not dense(t) or (n in (4, 5) and 1 in t.shape)
                or any(a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != dim)):
            return None
    shape = list(first.shape)
    shape[dim] = sum(t.shape[dim] for t in tensors)
    return _empty(shape, first.dtype)


def _layer_norm(x, normalized_shape, weight, bias, eps):
    """(out, mean, rstd): the statistics keep the normalized dimensions as 1s, in float32 for half types."""
    k = len(normalized_shape)
    if (not _plain(x) or x.dtype not in _FLOATS or not dense(x) or k < 1 or x.dim() < k
            or tuple(x.shape[x.dim() - k:]) != tuple(normalized_shape)):
        return None
    for t in (weight, bias):
        if t is not None and (not _plain(t) or tuple(t.shape) != tuple(normalized_shape)):
            return None
    stats = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    kept = tuple(x.shape[:x.dim() - k]) + (1,) * k
    return _empty(x.shape, x.dtype), _empty(kept, stats), _empty(kept, stats)


def _batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, mean, 1/std) of batch statistics without running ones (instance_norm's): the statistics per channel, in
    float32 for half types."""
    if (not training or running_mean is not None or running_var is not None or not _plain(x)
            or x.dtype not in _FLOATS or not dense(x) or x.dim() < 2 or x.numel() == 0):
        return None
    c = x.shape[1]
    for t in (weight, bias):
        if t is not None and (not _plain(t) or tuple(t.shape) != (c,) or t.dtype not in _FLOATS):
            return None
    stats = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    return _empty(x.shape, x.dtype), _empty((c,), stats), _empty((c,), stats)


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if not _plain(weight, indices) or weight.dim() != 2 or indices.dtype not in (torch.int64, torch.int32):
        return None
    return _empty(tuple(indices.shape) + (weight.shape[1],), weight.dtype)


def _extreme(x, dim=(), keepdim=False):
    """amax/amin of a floating tensor over the listed dimensions (all of them: torch's kernel)."""
    return _reduction(x, dim, keepdim, x.dtype) if dim and x.dtype in _FLOATS else None


def _arg_extreme(x, dim=None, keepdim=False):
    """argmax/argmin along one dimension of a floating tensor: int64."""
    if type(dim) is not int or x.dtype not in _FLOATS or x.dim() == 0:
        return None
    return _reduction(x, [dim], keepdim, torch.int64)


def _repeat(x, repeats):
    if (not _plain(x) or not dense(x) or len(repeats) < x.dim()
            or any(type(r) is not int or r < 0 for r in repeats)):
        return None
    shape = (1,) * (len(repeats) - x.dim()) + tuple(x.shape)
    return _empty(tuple(s * r for s, r in zip(shape, repeats)), x.dtype)


def _stack(tensors, dim=0):
    if not isinstance(tensors, (list, tuple)) or not tensors or not _plain(*tensors) or type(dim) is not int:
        return None
    first = tensors[0]
    n = first.dim() + 1
    if not -n <= dim < n or any(t.dtype is not first.dtype or t.shape != first.shape or not dense(t)
                                for t in tensors):
        return None
    shape = list(first.shape)
    shape.insert(dim % n, len(tensors))
    return _empty(shape, first.dtype)


def _broadcast(shapes):
    """The shape ``shapes`` broadcast to, or None where they do not (torch.broadcast_shapes imports sympy)."""
    out = [1] * max(len(s) for s in shapes)
    for shape in shapes:
        for i, v in enumerate(shape, len(out) - len(shape)):
            if v != 1:
                if out[i] not in (1, v):
                    return None
                out[i] = v
    return tuple(out)


def _index(x, indices):
    """Advanced indexing of a dense tensor by integer tensors on adjacent dimensions (``x[i, j]``, gather_nd's;
    ``x[:, i]``): the dimensions before, the indices' broadcast shape, the dimensions after; laid out as new."""
    if not _plain(x) or not dense(x) or not isinstance(indices, (list, tuple)) or not 0 < len(indices) <= x.dim():
        return None
    given = [i for i, t in enumerate(indices) if t is not None]
    if not given or given[-1] - given[0] + 1 != len(given):
        return None  # (indices apart: torch moves their dimensions to the front)
    tensors = [indices[i] for i in given]
    if not _plain(*tensors) or any(t.dtype not in (torch.int64, torch.int32) for t in tensors):
        return None  # (bool and byte tensors are masks)
    shape = _broadcast([tuple(t.shape) for t in tensors])
    if not shape:
        return None  # (0-d indices: torch lays the result out by another rule)
    return _empty(tuple(x.shape[:given[0]]) + shape + tuple(x.shape[given[-1] + 1:]), x.dtype)


def _gather(x, dim, index, sparse_grad=False):
    if (not _plain(x, index) or index.dtype is not torch.int64 or type(dim) is not int or x.dim() == 0
            or index.dim() != x.dim() or not -x.dim() <= dim < x.dim()):
        return None
    dim %= x.dim()
    if any(i > s for d, (i, s) in enumerate(zip(index.shape, x.shape)) if d != dim):
        return None
    return _empty(index.shape, x.dtype)


RULES = {
    aten.mm.default: _mm,
    aten.addmm.default: _addmm,
    aten.bmm.default: _bmm,
    aten.convolution.default: _conv,
    aten.max_pool2d_with_indices.default: partial(_max_pool, 2),
    aten.avg_pool2d.default: partial(_avg_pool, 2),
    aten.max_pool3d_with_indices.default: partial(_max_pool, 3),
    aten.avg_pool3d.default: partial(_avg_pool, 3),
    aten._softmax.default: _softmax,
    aten._log_softmax.default: _softmax,
    aten.empty_like.default: _empty_like,
    aten.sum.dim_IntList: _sum,
    aten.mean.dim: _mean,
    aten.var_mean.correction: _var_mean,
    aten.linalg_vector_norm.default: _vector_norm,
    aten.cumsum.default: _cumsum,
    aten.cat.default: _cat,
    aten.native_layer_norm.default: _layer_norm,
    aten.native_batch_norm.default: _batch_norm,
    aten.embedding.default: _embedding,
    aten.amax.default: _extreme,
    aten.amin.default: _extreme,
    aten.argmax.default: _arg_extreme,
    aten.argmin.default: _arg_extreme,
    aten.repeat.default: _repeat,
    aten.stack.default: _stack,
    aten.gather.default: _gather,
    aten.index.Tensor: _index,
}


def _arange(start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    """A range of Python numbers on the meta device: int64 when all three are integers, else the default dtype
    (as torch's decomposition, with its length ceil((end - start) / step)); an empty or reversed range, a zero step
    or anything but plain numbers: torch's own kernel."""
    numbers = (start, end, step)
    if (device is None or torch.device(device) != _META or layout not in (None, torch.strided) or pin_memory
            or any(type(v) not in (int, float) for v in numbers) or step == 0):
        return None
    if all(type(v) is int for v in numbers):
        length = -(-(end - start) // step)
        kind = torch.int64
    else:
        if not all(math.isfinite(v) for v in numbers) or dtype is not None and not dtype.is_floating_point:
            return None  # (float bounds of an integer range: torch rounds them first)
        length = math.ceil((end - start) / step)
        kind = torch.get_default_dtype()
    if length <= 0 or (dtype is not None and dtype not in _FLOATS + (torch.int64, torch.int32)):
        return None
    return _empty((length,), kind if dtype is None else dtype)


# factories (no tensor arguments) answered by rule on the meta device
FACTORY_RULES = {
    aten.arange.start_step: _arange,
    aten.arange.start: lambda start, end, dtype=None, layout=None, device=None, pin_memory=None: _arange(
        start, end, 1, dtype, layout, device, pin_memory),
    aten.arange.default: lambda end, dtype=None, layout=None, device=None, pin_memory=None: _arange(
        0, end, 1, dtype, layout, device, pin_memory),
}
