"""Which kernel computes an operator on which device: the layer under ``mxcompat/operator`` that checks the device
once and otherwise hands back torch's own op. Operator semantics stay in ``operator/``; a rule here changes speed
and memory layout, never values beyond floating-point rounding.

CUDA rules:
- training BatchNorm reaches cuDNN, as torch's own BatchNorm modules do (``batch_norm_train``): over three
  ResNet-50 training steps on an NVIDIA H200 (torch 2.11, cuDNN 9) the generic kernels it ran before took 47 ms of
  kernel time against cuDNN's 33;
- its moving statistics update at the end of the backward pass, all layers together in six multi-tensor operations
  (``batch_norm_moving_update``; five kernels per layer before: 265 of the 1,105 of a ResNet-50 step);
- average pooling of channels-last data with padding runs on a contiguous copy (``avg_pool``: a torch bug);
- copies from page-locked host memory run on a copy stream per device (``host_to_device``);
- with ``MXNET_ENABLE_CUDA_GRAPHS=1``, a block hybridized with ``static_alloc=True, static_shape=True`` replays
  CUDA graphs of its calls, forward and backward (``kernels.cuda_graphs``), as MXNet 1.9 does.

CPU rules (in ``kernels.cpu``, each with its measurements): channels-last, patch-product and packed-weight 2-D
convolutions (``conv2d``) and their oneDNN fusion with BatchNorm, an addition and an activation (``fused_conv``),
max pooling as strided views or through channels-last (``max_pool2d``), torch's one-pass SGD kernel (in
``sgd_step``), numpy's sort of a sparse gradient's rows (``stable_argsort``), their sums and a lazy update's
row writes (``summed_rows``, ``index_copy_rows_``: ``kernels.rows``), and huge pages for big arrays
(``mxcompat._memory``); float32 square roots rounded as C's ``sqrtf`` (``sqrt``, ``sqrt_``); SGD's, NAG's,
Signum's, Adam's, RMSProp's (plain and centered), AdaGrad's, AdaDelta's, Nadam's and FTML's updates with MXNet's
roundings in cache-sized numpy chunks (``sgd_step``, ``nag_mom_step``, ``signum_mom_step``, ``adam_step``,
``rmsprop_step``, ``rmspropalex_step``, ``adagrad_step``, ``adadelta_step``, ``nadam_step``, ``ftml_step``) and
multi-tensor LAMB's direction (``multi_lamb_direction``); multi_sum_sq's running float32 sums (``sum_sq``);
float32 softmax where MXNet runs its own loop (not oneDNN) with that loop's roundings and glibc's expf
(``mxnet_softmax``); the exact int32 sums of the fused int8 operators through torch's oneDNN int8 kernels, and
their quantized weights kept per weight version (``kernels.int8``).

The switch: ``config`` holds a named field per rule (thresholds and on/off flags), ``policy(**fields)`` sets
some for a ``with`` block, and ``MXCOMPAT_CPU_FAST_PATHS=0`` in the environment at import turns every CPU rule off
(``config.cpu_fast_paths``). What an operator hands to the user is in the standard layout (``standard_layout``).
"""
import threading

import numpy as np
import torch
import torch.nn.functional as F

from . import cpu, rows as _rows
from ._policy import Config, config, policy
from ._tracing import recorded, untraced

__all__ = ['Config', 'config', 'policy', 'conv2d', 'max_pool2d', 'avg_pool', 'fused_conv', 'fused_conv_applies',
           'onednn_fusion', 'stable_argsort', 'summed_rows', 'index_copy_rows_', 'forget_kept', 'clear',
           'standard_layout', 'host_to_device',
           'batch_norm_train', 'batch_norm_moving_update', 'recorded', 'untraced', 'sqrt', 'sqrt_', 'adam_step',
           'rmsprop_step', 'sgd_step', 'adagrad_step', 'adadelta_step', 'nadam_step',
           'nag_mom_step', 'signum_mom_step', 'rmspropalex_step', 'ftml_step', 'sum_sq',
           'multi_lamb_direction',
           'mxnet_softmax']


# torch's vectorized float32 square root on the CPU is not correctly rounded (torch 2.13 CPU, AVX2 and AVX512 alike:
# 16,869 of 100,000 uniform values in [0, 3) one ulp off C's sqrtf, which MXNet's kernels call; arrays of fewer than
# 8 values take the exact scalar path). numpy's is correctly rounded, and faster (1M values, one thread: 0.67 ms,
# torch's 0.6-0.7): float32 CPU tensors take it, except where autograd records the call or it is traced, which go
# through the float64 root (it rounds to the correctly rounded float32 root; 2.7 ms). It makes MXNet's optimizer
# updates (ftrl, adagrad, adadelta, nadam) and mx.nd.sqrt give MXNet's bits.
def _exact_sqrt_applies(t):
    return t.dtype == torch.float32 and t.device.type == 'cpu'


def _numpy_sqrt_applies(t):
    return t.layout == torch.strided and not (t.requires_grad and torch.is_grad_enabled()) and untraced(t)


def sqrt(t):
    """``torch.sqrt(t)``, correctly rounded for float32 CPU tensors."""
    if not _exact_sqrt_applies(t):
        return torch.sqrt(t)
    return cpu.exact_sqrt(t) if _numpy_sqrt_applies(t) else torch.sqrt(t.double()).float()


def sqrt_(t):
    """``t.sqrt_()``, correctly rounded for float32 CPU tensors."""
    if not _exact_sqrt_applies(t):
        return t.sqrt_()
    return cpu.exact_sqrt_(t) if _numpy_sqrt_applies(t) else t.copy_(torch.sqrt(t.double()))


def _chunked(body, tensors, written, scalars, buffers=2):
    if config.cpu_fast_paths and cpu.chunked_update_applies(*tensors) and untraced(tensors[0]):
        cpu.chunked_update(body, tensors, written, scalars, buffers)
        return True
    return False


def adam_step(weight, grad, mean, var, lr, beta1, one_minus_beta1, beta2, one_minus_beta2, epsilon, wd, rescale_grad,
              clip_gradient):
    """MXNet's Adam update (see ``operator.optimizer_updates.adam_update``) through ``cpu.adam_chunk`` where it
    applies (float32 CPU tensors of one shape): returns True; else False, and the caller computes it."""
    return _chunked(cpu.adam_chunk, (weight, grad, mean, var), (weight, mean, var),
                    (lr, beta1, one_minus_beta1, beta2, one_minus_beta2, epsilon, wd, rescale_grad, clip_gradient))


def rmsprop_step(weight, grad, n, lr, gamma1, one_minus_gamma1, epsilon, wd, rescale_grad, clip_gradient,
                 clip_weights):
    """MXNet's RMSProp update (``operator.optimizer_updates.rmsprop_update``) through ``cpu.rmsprop_chunk`` where it
    applies, as ``adam_step``."""
    return _chunked(cpu.rmsprop_chunk, (weight, grad, n), (weight, n),
                    (lr, gamma1, one_minus_gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights))


def _cpu_rules(t):
    return t.is_cpu and config.cpu_fast_paths  # (is_cpu: a fifth of the time of t.device.type)


def conv2d(data, weight, bias, stride, pad, dilate, num_group, *, recording):
    """``F.conv2d(data, weight, bias, stride, pad, dilate, num_group)`` of NCHW data. ``recording``: whether autograd
    records this call at all (mxcompat's ``record()``, or torch's autograd for an Executor or GluonModule); the CPU
    rules take the inference paths only where no gradient is wanted. On CPU the result may be channels-last
    strided (``cpu.channels_last_pays``)."""
    if data.is_cpu and config.cpu_fast_paths:  # (_cpu_rules inlined: a call costs ~2% of a small convolution)
        return cpu.conv2d(data, weight, bias, stride, pad, dilate, num_group, recording)
    return F.conv2d(data, weight, bias, stride, pad, dilate, num_group)


def max_pool2d(x, kernel, stride, pad, ceil_mode):
    """``torch.max_pool2d(x, kernel, stride, pad, 1, ceil_mode)``."""
    if x.is_cpu and config.cpu_fast_paths:
        return cpu.max_pool2d(x, kernel, stride, pad, ceil_mode)
    return torch.max_pool2d(x, kernel, stride, pad, 1, ceil_mode)


def avg_pool(x, kernel, stride, pad, ceil_mode, count_include_pad, divisor=None):
    """torch's 2-D or 3-D average pooling (``F.avg_pool2d``/``avg_pool3d``; float16 3-D on the CPU through float32,
    which torch's CPU kernel lacks). On CUDA, data laid out channels-last is pooled from a contiguous copy where
    there is padding: torch's channels-last CUDA backward leaves the padding out of its window arithmetic and
    returns wrong input gradients (pytorch/pytorch#188344, fixed after torch 2.11; MXNet's GPU tests of NWC/NHWC
    pooling show it on an H200)."""
    if x.is_cuda and any(pad) and not x.is_contiguous():
        x = x.contiguous()
    if x.dim() == 4:
        return F.avg_pool2d(x, kernel, stride, pad, ceil_mode, count_include_pad, divisor)
    if x.is_cpu and x.dtype is torch.float16:  # (torch's CPU avg_pool3d has no float16 kernel: sum in float32, as
        # MXNet's AccType does, and round once)
        return F.avg_pool3d(x.float(), kernel, stride, pad, ceil_mode, count_include_pad, divisor).half()
    return F.avg_pool3d(x, kernel, stride, pad, ceil_mode, count_include_pad, divisor)


def onednn_fusion():
    """Whether convolutions may be fused as MXNet's oneDNN subgraph backend fuses them: torch has oneDNN's fused
    convolutions and ``config`` lets the CPU take them."""
    return cpu.ONEDNN_CONV and config.cpu_fast_paths and config.packed_conv


def fused_conv_applies(data, weight, bias, stride, pad, dilate, num_group, tensors, *, recording):
    """Whether ``fused_conv`` computes this 2-D convolution (and BatchNorm / addend ``tensors``): CPU data that
    ``conv2d`` would run through a reordered weight, with no gradient wanted (``recording`` as for ``conv2d``)."""
    return _cpu_rules(data) and cpu.fused_conv_applies(data, weight, bias, stride, pad, dilate, num_group, tensors,
                                                       recording)


fused_conv = cpu.fused_conv


def adagrad_step(weight, grad, history, rescale_grad, clip_gradient, epsilon, wd, lr):
    """mx.optimizer.AdaGrad's dense update (``cpu.adagrad_chunk``) where it applies, as ``adam_step``."""
    return _chunked(cpu.adagrad_chunk, (weight, grad, history), (weight, history),
                    (rescale_grad, clip_gradient, epsilon, wd, -lr))


def adadelta_step(weight, grad, acc_g, acc_delta, rescale_grad, clip_gradient, rho, epsilon, wd):
    """mx.optimizer.AdaDelta's update (``cpu.adadelta_chunk``; ``grad`` is rescaled in place, as MXNet's) where it
    applies, as ``adam_step``."""
    return _chunked(cpu.adadelta_chunk, (weight, grad, acc_g, acc_delta), (weight, grad, acc_g, acc_delta),
                    (rescale_grad, clip_gradient, rho, 1. - rho, epsilon, wd), buffers=3)


def nadam_step(weight, grad, m, v, scalars):
    """mx.optimizer.Nadam's update (``cpu.nadam_chunk``, ``scalars`` its float parameters after the arrays) where it
    applies, as ``adam_step``."""
    return _chunked(cpu.nadam_chunk, (weight, grad, m, v), (weight, m, v), scalars, buffers=3)


def rmspropalex_step(weight, grad, n, g_avg, delta, scalars):
    """MXNet's rmspropalex_update (``cpu.rmspropalex_chunk``, ``scalars`` its float parameters after the arrays)
    where it applies, as ``adam_step``."""
    return _chunked(cpu.rmspropalex_chunk, (weight, grad, n, g_avg, delta), (weight, n, g_avg, delta), scalars,
                    buffers=3)


def ftml_step(weight, grad, d, v, z, scalars):
    """MXNet's ftml_update (``cpu.ftml_chunk``, ``scalars`` its float parameters after the arrays) where it applies,
    as ``adam_step``."""
    return _chunked(cpu.ftml_chunk, (weight, grad, d, v, z), (weight, d, v, z), scalars, buffers=3)


def multi_lamb_direction(weight, grad, mean, var, d, scalars):
    """The direction ``d`` of MXNet's multi_lamb_update (``cpu.multi_lamb_chunk``, ``scalars`` its float parameters
    after the arrays) where it applies, as ``adam_step``."""
    return _chunked(cpu.multi_lamb_chunk, (weight, grad, mean, var, d), (mean, var, d), scalars)


def nag_mom_step(weight, grad, mom, rescale_grad, clip_gradient, momentum, momentum_plus_1, lr, wd):
    """MXNet's nag_mom_update (``cpu.nag_mom_chunk``) where it applies, as ``adam_step``."""
    return _chunked(cpu.nag_mom_chunk, (weight, grad, mom), (weight, mom),
                    (rescale_grad, clip_gradient, momentum, momentum_plus_1, lr, wd))


def signum_mom_step(weight, grad, mom, momentum, rest_wd, rest, rest_rescale, rescale_grad, clip_gradient):
    """The momentum of MXNet's signum_update (``cpu.signum_mom_chunk``) where it applies, as ``adam_step``."""
    return _chunked(cpu.signum_mom_chunk, (weight, grad, mom), (mom,),
                    (momentum, rest_wd, rest, rest_rescale, rescale_grad, clip_gradient))


def sum_sq(t):
    """The sum of squares of ``t`` as a float32 0-d tensor, as MXNet's multi_sum_sq computes it on ``t``'s device:
    on the CPU float16 values squared in float16, and float32/float16 squares summed one after another in float32
    (``cpu.sequential_sum_sq``, with ``config.sequential_sum_sq``); on a GPU each value cast to float32 first."""
    if t.dtype in (torch.float32, torch.float16) and _cpu_rules(t) and config.sequential_sum_sq and untraced(t):
        return torch.tensor(cpu.sequential_sum_sq(t))
    if t.dtype is torch.float16 and not t.is_cuda:
        return (t * t).float().sum()
    return t.float().square().sum()


def sgd_step(ws, gs, ms, momentum, lr, wd, rescale_grad, clip_gradient, single):
    """MXNet's SGD update of lists of weights, gradients and momenta (``ms`` None: no momentum; see
    ``operator.optimizer_updates.sgd_update``; scalars are numbers of the tensors' dtype): with momentum, no decay
    and no clipping torch's one-pass kernel where ``cpu.fused_sgd_applies`` (its fused products move MXNet's last
    bits); else, for tensors of ``cpu.CHUNKED_MIN`` values and more, through ``cpu.sgd_mom_chunk`` /
    ``cpu.sgd_chunk`` (``single``: sgd_update's form) / ``cpu.multi_sgd_chunk`` where they apply (float32: MXNet's
    bits). Returns the positions in the lists it left to the caller (all of them where nothing applies)."""
    everything = range(len(ws))
    if not config.cpu_fast_paths:
        return everything
    lr_wd, lr_rescale = lr * wd, lr * rescale_grad
    if ms is not None and not lr_wd and clip_gradient < 0 and cpu.fused_sgd_applies(ws, gs, ms, -lr_rescale):
        cpu.fused_sgd_mom_step(ws, gs, ms, float(momentum), float(-lr_rescale))
        return ()
    big = cpu.CHUNKED_MIN
    if max(map(torch.Tensor.numel, ws)) < big or not untraced(ws[0]):
        return everything  # (small tensors: one multi-tensor pass over all of them costs less than a call each)
    f = np.float32
    left = []
    for i in everything:
        ts = (ws[i], gs[i]) if ms is None else (ws[i], gs[i], ms[i])
        if ws[i].numel() < big or not cpu.chunked_update_applies(*ts):
            left.append(i)
        elif ms is None:
            body = cpu.sgd_chunk if single else cpu.multi_sgd_chunk
            cpu.chunked_update(body, ts, ts[:1], (f(1) - lr_wd, lr_wd, lr, lr_rescale, rescale_grad, clip_gradient))
        else:
            cpu.chunked_update(cpu.sgd_mom_chunk, ts, (ts[0], ts[2]),
                               (momentum, lr_wd, lr, lr_rescale, rescale_grad, clip_gradient))
    return left


def stable_argsort(keys):
    """``torch.argsort(keys, stable=True)`` of a 1-D tensor of non-negative int64 keys."""
    if _cpu_rules(keys):
        return cpu.stable_argsort(keys)
    return torch.argsort(keys, stable=True)


def summed_rows(rows, values):
    """(distinct rows sorted, their summed values) of a COO gradient with these row indices and values, each row's
    entries added to zero in their order (``ndarray.sparse.storage.summed_rows``): numpy's on CPU
    (``kernels.rows``); None where that does not apply, for the caller's torch form."""
    if _cpu_rules(values) and config.numpy_rows:
        return _rows.summed_rows(rows, values)
    return None


def index_copy_rows_(dst, rows, src):
    """``dst.index_copy_(0, rows, src)`` for distinct ``rows`` (a lazy update writing its rows back): numpy's row
    assignment on CPU (``kernels.rows``), torch's ``index_copy_`` elsewhere."""
    if not (_cpu_rules(dst) and config.numpy_rows and _rows.put_rows(dst, rows, src) is not None):
        dst.index_copy_(0, rows, src)
    return dst


forget_kept = cpu.forget_kept
clear = cpu.clear


def standard_layout(t):
    """``t`` in the standard (C-contiguous) layout: itself where it is, else a copy. A layout chosen here for speed
    (channels-last results of ``conv2d``) stays inside mxcompat: what it hands to users goes through this."""
    return t if t.is_contiguous() else t.contiguous()


_COPY_STREAMS = {}  # CUDA device index -> the stream host-to-device copies from page-locked memory run on


def host_to_device(t, device):
    """A copy of CPU tensor ``t`` on CUDA ``device``. From page-locked memory (``cpu_pinned`` arrays, a DataLoader
    with ``pin_memory``) the copy runs on a copy stream of the device, so it overlaps the kernels already queued,
    and what is queued after it on the current stream waits for it, as MXNet's engine ordered its copies. From
    pageable memory (or inside a CUDA graph capture): torch's copy on the current stream."""
    pinned = t.is_pinned()
    if not pinned or torch.cuda.is_current_stream_capturing():
        return t.to(device, copy=True, non_blocking=pinned)
    index = device.index if device.index is not None else torch.cuda.current_device()
    stream = _COPY_STREAMS.get(index)
    if stream is None:
        stream = _COPY_STREAMS[index] = torch.cuda.Stream(index)
    current = torch.cuda.current_stream(index)
    with torch.cuda.stream(stream):
        out = t.to(device, copy=True, non_blocking=True)
    current.wait_stream(stream)
    out.record_stream(current)  # (its memory, from the copy stream's pool, is not reused while the current uses it)
    return out


def batch_norm_train(x, gamma, beta, eps):
    """Batch-statistics BatchNorm of NC... data: (output, batch mean, 1/sqrt(batch var + eps)), differentiable.
    On CUDA through torch's backend choice (cuDNN where it takes the input), elsewhere, and where ``torch.compile``
    traces it (its backends have no rule for that backend choice), torch's native kernel."""
    if x.is_cuda and not torch.compiler.is_compiling():
        return torch._batch_norm_impl_index(x, gamma, beta, None, None, True, 0.0, eps,
                                            torch.backends.cudnn.enabled)[:3]
    return torch.native_batch_norm(x, gamma, beta, None, None, True, 0.0, eps)


def batch_norm_moving_update(moving_mean, moving_var, mean, invstd, eps, momentum):
    """MXNet's moving statistics: ``moving = momentum * moving + (1 - momentum) * batch``, with the biased batch
    variance recovered from ``invstd``. On the CPU the variance is recovered in float64 and each update is
    MXNet's multiply-add, bit for bit. On CUDA, inside a backward pass (MXNet updates them when the gradient reaches
    BatchNorm), the updates of all layers wait for the pass to end and then run together as multi-tensor kernels
    on the stream the layer's backward ran on: about six launches a step instead of five per layer."""
    with torch.no_grad():
        if _defers_bn_update(moving_mean) and _bn_defer(moving_mean, moving_var, mean, invstd, eps, momentum):
            return
        if moving_mean.is_cuda:
            _bn_apply([(moving_mean, moving_var, mean, invstd)], eps, momentum)
            return
        var = invstd.double().pow(-2).sub_(eps).clamp_(min=0)
        moving_mean.mul_(momentum).add_(mean.to(moving_mean.dtype), alpha=1.0 - momentum)
        moving_var.mul_(momentum).add_(var.to(moving_var.dtype), alpha=1.0 - momentum)


def _defers_bn_update(t):
    return t.is_cuda


_BN_PENDING = {}  # autograd graph task id -> {(stream, eps, momentum): [(moving_mean, moving_var, mean, invstd)]}
_BN_LOCK = threading.Lock()


def _bn_defer(moving_mean, moving_var, mean, invstd, eps, momentum):
    """Queues one layer's update for the end of the running backward pass; False outside one."""
    task = torch._C._current_graph_task_id()
    if task < 0:
        return False
    stream = torch.cuda.current_stream(moving_mean.device) if moving_mean.is_cuda else None
    with _BN_LOCK:
        batch = _BN_PENDING.get(task)
        if batch is None:
            batch = _BN_PENDING[task] = {}
            torch.autograd.Variable._execution_engine.queue_callback(lambda: _bn_flush(task))
        batch.setdefault((stream, float(eps), float(momentum)), []).append((moving_mean, moving_var, mean, invstd))
    return True


def _bn_flush(task):
    with _BN_LOCK:
        batch = _BN_PENDING.pop(task, {})
    with torch.no_grad():
        for (stream, eps, momentum), items in batch.items():
            if stream is None:
                _bn_apply(items, eps, momentum)
            else:
                with torch.cuda.stream(stream):
                    _bn_apply(items, eps, momentum)


def _bn_apply(items, eps, momentum):
    """The moving-statistics updates of several layers, in the statistics' dtype: six multi-tensor kernels."""
    var = torch._foreach_pow([it[3] for it in items], -2.0)
    torch._foreach_sub_(var, eps)
    torch._foreach_clamp_min_(var, 0.0)
    stats = [it[0] for it in items] + [it[1] for it in items]
    batch = [it[2].to(it[0].dtype) for it in items] + [v.to(it[1].dtype) for v, it in zip(var, items)]
    torch._foreach_mul_(stats, momentum)
    torch._foreach_add_(stats, batch, alpha=1.0 - momentum)


def _exact_softmax(x, length, axis, negate, temperature, log):
    lens = None if length is None else length.cpu().to(torch.int64).numpy()
    host = x.detach().numpy()  # host: the CPU rule's input (mxnet_softmax applies to CPU tensors only)
    return torch.from_numpy(cpu.mxnet_softmax(host, axis, negate, temperature, log, lens))


class _MXNetSoftmax(torch.autograd.Function):
    """MXNet's own softmax loop forward and backward (``cpu.mxnet_softmax``, ``cpu.mxnet_softmax_grad``); the
    backward of a recorded backward (create_graph) is torch's formula from the output."""

    @staticmethod
    def forward(ctx, x, length, axis, negate, temperature, log):
        out = _exact_softmax(x, length, axis, negate, temperature, log)
        ctx.save_for_backward(out)
        ctx.length = length
        ctx.attrs = axis, negate, temperature, log
        return out

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        axis, negate, temperature, log = ctx.attrs
        length = ctx.length
        if g.dtype == torch.float32 and g.is_cpu and g.layout == torch.strided and not torch.is_grad_enabled():
            lens = None if length is None else length.cpu().to(torch.int64).numpy()
            y_host, g_host = y.numpy(), g.numpy()  # host: the forward's CPU output and a CPU gradient (checked above)
            return (torch.from_numpy(cpu.mxnet_softmax_grad(y_host, g_host, axis, negate, temperature, log, lens)),
                    None, None, None, None, None)
        if log:
            gx = g - torch.exp(y) * g.sum(axis, keepdim=True)
        else:
            gx = y * (g - (g * y).sum(axis, keepdim=True))
        if temperature is not None and temperature != 1.0:
            gx = gx / temperature
        return (-gx if negate else gx), None, None, None, None, None


def _torch_softmax(x, axis, log, negate, temperature, length):
    if temperature is not None and temperature != 1.0:
        x = x / temperature
    if negate:
        x = -x
    if length is None:
        return torch.log_softmax(x, axis) if log else torch.softmax(x, axis)
    pos = torch.arange(x.shape[axis], device=x.device).reshape([-1] + [1] * (x.dim() - axis - 1))
    keep = pos < length.unsqueeze(axis)
    out = torch.softmax(x.masked_fill(~keep, float('-inf')), axis)
    return out.masked_fill(~keep, 0.0)


def mxnet_softmax(x, axis, *, log=False, negate=False, temperature=None, length=None):
    """Softmax (``log``: its log) of ``x`` (``negate``: of ``-x``) over ``axis`` (``temperature``: of
    (x - max) / temperature; ``length``: integer tensor of ``x``'s shape without ``axis``, positions from it on
    give 0), as MXNet's own CPU loop computes it: for float32 CPU tensors of at most
    ``config.mxnet_softmax_max_elements`` values its bits, forward and backward (``cpu.mxnet_softmax``), else
    torch's softmax of the same. Differentiable; traced calls keep aten's ops."""
    axis %= max(x.dim(), 1)
    if not (_cpu_rules(x) and x.dtype == torch.float32 and 0 < x.numel() <= config.mxnet_softmax_max_elements
            and x.layout == torch.strided and x.dim() and untraced(x)
            and (length is None or not length.is_floating_point())):
        return _torch_softmax(x, axis, log, negate, temperature, length)
    if x.requires_grad and torch.is_grad_enabled():
        return _MXNetSoftmax.apply(x, length, axis, negate, temperature, log)
    return _exact_softmax(x, length, axis, negate, temperature, log)
