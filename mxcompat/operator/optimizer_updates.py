"""MXNet's optimizer update operators (``sgd_update``, ``adam_update``, ``multi_lamb_update`` ...) as in-place torch
code on tensors: the arithmetic of MXNet 1.9.1's C++ kernels (src/operator/optimizer_op-inl.h, contrib/), term by
term, so results agree to float32 rounding.

Conventions, as in the kernels: ``clip_gradient < 0`` turns clipping off (the Python optimizers pass -1 unless the
option is truthy); a kernel on float16 data without a float32 master copy computes in float16, with scalar
parameters rounded to float16 first. Functions mutate ``weight`` and the state tensors and return nothing. Callers
hold ``torch.no_grad()``.
"""
import contextlib
import functools
import threading

import numpy as np
import torch

from .. import kernels

_NP = {torch.float16: np.float16, torch.float64: np.float64}


def _ty(t):
    """The numpy scalar type a kernel computes its scalar parameters in, for tensor ``t``."""
    return _NP.get(t.dtype, np.float32)


@functools.lru_cache(maxsize=4096)
def _par(T, x):
    # kernel parameters are C++ floats, cast to the data type (DType) inside the kernel
    return T(np.float32(x))


@functools.lru_cache(maxsize=4096)
def _f(T, x):
    """A kernel parameter as the Python float torch is given."""
    return float(T(np.float32(x)))


@functools.lru_cache(maxsize=1024)
def _one_minus(T, x):
    """``1 - x`` computed in the kernel's precision."""
    return float(T(1) - T(np.float32(x)))


@functools.lru_cache(maxsize=256)
def _number_tensor(x):
    with torch.inference_mode(False):
        return torch.tensor(x, dtype=torch.float32)


def _by(ts, x):
    """The number ``x`` (a float the tensors' dtype holds exactly) as a multi-tensor product by a number takes it
    fastest: for float32 CPU tensors a 0-d float32 tensor (never written), else the number. torch's CPU
    ``_foreach_mul`` by a Python number wraps it for each tensor (an MLP's six parameters: 12 us; by a 0-d tensor
    5.5 us); both round each product to float32 alike."""
    t = ts[0]
    if t.dtype == torch.float32 and t.is_cpu:
        return _number_tensor(x)
    return x


def _rescaled(g, rescale_grad, clip_gradient, dtype=None):
    """``clip(rescale_grad * g)`` as a new tensor (in ``dtype`` if given)."""
    r = torch.mul(g if dtype is None else g.to(dtype), rescale_grad)
    if clip_gradient >= 0:
        r.clamp_(-clip_gradient, clip_gradient)
    return r


def _grad_plus_wd_exact(g, w, rescale_grad, wd, clip_gradient):
    """``clip(rescale_grad * g + wd * w)`` as a new tensor, each product rounded on its own as MXNet's kernels
    compute it (torch's add with ``alpha`` may fuse the product into the sum)."""
    r = torch.mul(g, rescale_grad)
    if wd:
        r.add_(torch.mul(w, wd))
    if clip_gradient >= 0:
        r.clamp_(-clip_gradient, clip_gradient)
    return r


# ---- SGD family ---------------------------------------------------------------------------------------------------
def sgd_update(weights, grads, moms, lrs, wds, momentum=0.0, rescale_grad=1.0, clip_gradient=-1.0, weights32=None,
               single=False):
    """sgd_update, sgd_mom_update, their mp_ forms and multi_/preloaded_multi_ batches: for each tensor
    ``mom = (momentum * mom - (lr * wd) * w) - lr * clip(rescale_grad * g); w += mom`` (with ``(lr * rescale_grad) *
    g`` when not clipping; no ``mom`` state when ``moms`` is None, the multi_ kernels then computing it from a zero
    momentum). ``single``: the one-weight sgd_update / mp_sgd_update kernel, ``w = (1 - lr * wd) * w - ...``. With
    ``weights32`` the update runs on those float32 master copies and is cast into ``weights``."""
    # each product rounded on its own, in the order of MXNet's SGDKernel / SGDMomKernel / MultiSGDKernel (torch's add
    # with alpha and its fused SGD kernel contract products into sums, which moved the last bits)
    master = weights if weights32 is None else weights32
    if lrs and lrs.count(lrs[0]) == len(lrs) == len(wds) == wds.count(wds[0]):  # (one rate and decay: the lists)
        groups = {(lrs[0], wds[0]): range(len(lrs))}
    else:
        groups = {}
        for i, key in enumerate(zip(lrs, wds)):
            groups.setdefault(key, []).append(i)
    for (lr, wd), idx in groups.items():
        if len(idx) == len(master):
            ws, gs, ms = list(master), list(grads), None if moms is None else list(moms)
        else:
            ws = [master[i] for i in idx]
            gs = [grads[i] for i in idx]
            ms = None if moms is None else [moms[i] for i in idx]
        T = _ty(ws[0])
        if weights32 is None:
            left = kernels.sgd_step(ws, gs, ms, _par(T, momentum), _par(T, lr), _par(T, wd), _par(T, rescale_grad),
                                    _par(T, clip_gradient), single)
            if len(left) < len(ws):
                if not left:
                    continue
                idx = [idx[i] for i in left]
                ws, gs = [ws[i] for i in left], [gs[i] for i in left]
                ms = None if ms is None else [ms[i] for i in left]
        if weights32 is not None:
            gs = [g.float() for g in gs]
        lr_t = _par(T, lr)
        lr_wd = lr_t * _par(T, wd)
        if clip_gradient >= 0:
            step = torch._foreach_mul(gs, _by(gs, _f(T, rescale_grad)))
            torch._foreach_clamp_min_(step, -_f(T, clip_gradient))
            torch._foreach_clamp_max_(step, _f(T, clip_gradient))
            torch._foreach_mul_(step, _by(step, float(lr_t)))
        else:
            step = torch._foreach_mul(gs, _by(gs, float(lr_t * _par(T, rescale_grad))))
        if ms is not None:
            torch._foreach_mul_(ms, _by(ms, _f(T, momentum)))
            if lr_wd:
                torch._foreach_sub_(ms, torch._foreach_mul(ws, _by(ws, float(lr_wd))))
            torch._foreach_sub_(ms, step)
            torch._foreach_add_(ws, ms)
        elif lr_wd and single:
            torch._foreach_mul_(ws, _by(ws, float(T(1) - lr_wd)))
            torch._foreach_sub_(ws, step)
        elif lr_wd:
            decay = torch._foreach_mul(ws, _by(ws, float(-lr_wd)))
            torch._foreach_sub_(decay, step)
            torch._foreach_add_(ws, decay)
        else:
            torch._foreach_sub_(ws, step)
        if weights32 is not None:
            torch._foreach_copy_([weights[i] for i in idx], ws)


def nag_mom_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                   weight32=None):
    """nag_mom_update / mp_nag_mom_update: ``g = clip(rescale_grad * g); mom *= momentum;
    w = w - mom + (momentum + 1) * (mom - lr * (g + wd * w)); mom -= lr * (g + wd * w_new)``: as in MXNet's
    in-place kernels, the momentum's weight-decay term reads the weight already updated."""
    # each product rounded on its own, in NAGMomKernel's order (torch's add with alpha fuses them)
    w = weight if weight32 is None else weight32
    T = _ty(w)
    m = _par(T, momentum)
    if T is np.float32 and weight32 is None and kernels.nag_mom_step(
            weight, grad, mom, _f(T, rescale_grad), _f(T, clip_gradient), float(m), float(m + T(1)), _f(T, lr),
            _f(T, wd)):
        return
    g = _rescaled(grad, _f(T, rescale_grad), _f(T, clip_gradient), w.dtype)
    lr_f, wd_f = _f(T, lr), _f(T, wd)
    mom.mul_(float(m))
    ahead = torch.sub(mom, torch.add(g, torch.mul(w, wd_f)).mul_(lr_f)).mul_(float(m + T(1)))
    w.sub_(mom).add_(ahead)
    if wd:
        g.add_(torch.mul(w, wd_f))
    mom.sub_(g.mul_(lr_f))
    if weight32 is not None:
        weight.copy_(weight32)


def signsgd_update(weight, grad, lr, wd=0.0):
    """signsgd_update: ``w = (1 - lr * wd) * w - lr * sign(g)`` (the raw gradient: no rescaling or clipping)."""
    T = _ty(weight)
    lr_t = _par(T, lr)
    keep = T(1) - lr_t * _par(T, wd)
    if keep != 1:
        weight.mul_(float(keep))
    weight.sub_(torch.sign(grad), alpha=float(lr_t))


def signum_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, wd_lh=0.0):
    """signum_update: ``mom = momentum * mom - (1 - momentum) * (wd * w + clip(rescale_grad * g));
    w = (1 - lr * wd_lh) * w + lr * sign(mom)``."""
    # each product rounded on its own, in SignumKernel's order (torch's add with alpha fuses them)
    T = _ty(weight)
    rest = T(1) - _par(T, momentum)
    if not (T is np.float32 and kernels.signum_mom_step(
            weight, grad, mom, _f(T, momentum), float(rest * _par(T, wd)) if wd else 0.0, float(rest),
            float(rest * _par(T, rescale_grad)), _f(T, rescale_grad), _f(T, clip_gradient))):
        _signum_mom(weight, grad, mom, T, rest, momentum, wd, rescale_grad, clip_gradient)
    lr_t = _par(T, lr)
    keep = T(1) - lr_t * _par(T, wd_lh)
    if keep != 1:
        weight.mul_(float(keep))
    weight.add_(torch.sign(mom), alpha=float(lr_t))  # (lr * sign: an exact product)


def _signum_mom(weight, grad, mom, T, rest, momentum, wd, rescale_grad, clip_gradient):
    mom.mul_(_f(T, momentum))
    if wd:
        mom.sub_(torch.mul(weight, float(rest * _par(T, wd))))
    if clip_gradient >= 0:
        mom.sub_(_rescaled(grad, _f(T, rescale_grad), _f(T, clip_gradient)).mul_(float(rest)))
    else:
        mom.sub_(torch.mul(grad, float(rest * _par(T, rescale_grad))))


# ---- adaptive rules -----------------------------------------------------------------------------------------------
def adam_update(weight, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                clip_gradient=-1.0):
    """adam_update (``lr`` already bias-corrected by the caller, as MXNet's Python optimizer does):
    ``g = clip(rescale_grad * g + wd * w); mean = b1 * mean + (1 - b1) * g; var = b2 * var + (1 - b2) * g * g;
    w -= lr * mean / (sqrt(var) + epsilon)``."""
    # each product rounded on its own, in MXNet's AdamUpdateKernel's order (torch's add/addcmul/addcdiv with a
    # scale fuse or reorder them, which moved the last bits)
    T = _ty(weight)
    if T is np.float32 and kernels.adam_step(weight, grad, mean, var, _f(T, lr), _f(T, beta1), _one_minus(T, beta1),
                                             _f(T, beta2), _one_minus(T, beta2), _f(T, epsilon), _f(T, wd),
                                             _f(T, rescale_grad), _f(T, clip_gradient)):
        return
    g = _grad_plus_wd_exact(grad, weight, _f(T, rescale_grad), _f(T, wd), _f(T, clip_gradient))
    mean.mul_(_f(T, beta1)).add_(torch.mul(g, _one_minus(T, beta1)))
    var.mul_(_f(T, beta2)).add_(torch.mul(g, _one_minus(T, beta2)).mul_(g))
    den = kernels.sqrt(var).add_(_f(T, epsilon))
    weight.sub_(torch.mul(mean, _f(T, lr)).div_(den))


# ---- several weights' updates as multi-tensor kernels on CUDA --------------------------------------------------------
_BATCH = threading.local()  # .pending: a list while a batch of per-weight updates runs (``batched()``), else absent


@contextlib.contextmanager
def batched():
    """Dense CUDA updates asked for inside the block (``queue_adam``) wait for its end and then run together, as
    multi-tensor kernels: about 15 launches for all the weights where each weight took about 10. The Updater runs
    a Trainer step's per-weight updates in one such block."""
    if getattr(_BATCH, 'pending', None) is not None:
        yield
        return
    _BATCH.pending = []
    try:
        yield
    finally:
        flush()
        _BATCH.pending = None


def flush():
    """Runs the updates queued so far (before anything reads the weights they write)."""
    pending = getattr(_BATCH, 'pending', None)
    if pending:
        groups = {}
        for item in pending:
            groups.setdefault(item[0], []).append(item[1:])
        pending.clear()
        for key, items in groups.items():
            _adam_group(key, items)


def _batches(t):
    return t.is_cuda  # (the CPU has its own exact, chunked updates: kernels.adam_step)


def queue_adam(weight, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
               clip_gradient=-1.0):
    """Queues ``adam_update`` of dense CUDA tensors for the end of the ``batched()`` block: True; else (no block,
    not CUDA) False, and the caller runs ``adam_update``."""
    pending = getattr(_BATCH, 'pending', None)
    if pending is None or not _batches(weight):
        return False
    T = _ty(weight)
    key = ('adam', weight.device, weight.dtype, _f(T, rescale_grad), bool(_f(T, wd)), _f(T, clip_gradient),
           _f(T, beta1), _one_minus(T, beta1), _f(T, beta2), _one_minus(T, beta2), _f(T, epsilon))
    pending.append((key, weight, grad, mean, var, _f(T, lr), _f(T, wd)))
    return True


def _adam_group(key, items):
    """``adam_update`` of several weights, the same operations in the same order as multi-tensor kernels."""
    _, _, _, rescale_grad, has_wd, clip_gradient, beta1, one_minus_beta1, beta2, one_minus_beta2, epsilon = key
    ws, gs, means, vars_, lrs, wds = (list(x) for x in zip(*items))
    g = torch._foreach_mul(gs, rescale_grad)
    if has_wd:
        torch._foreach_add_(g, torch._foreach_mul(ws, wds))
    if clip_gradient >= 0:
        torch._foreach_clamp_min_(g, -clip_gradient)
        torch._foreach_clamp_max_(g, clip_gradient)
    torch._foreach_mul_(means, beta1)
    torch._foreach_add_(means, torch._foreach_mul(g, one_minus_beta1))
    g2 = torch._foreach_mul(g, one_minus_beta2)
    torch._foreach_mul_(g2, g)
    torch._foreach_mul_(vars_, beta2)
    torch._foreach_add_(vars_, g2)
    # (kernels.sqrt: torch's CPU sqrt is not correctly rounded; its CUDA one is, as one multi-tensor kernel)
    den = torch._foreach_sqrt(vars_) if vars_[0].is_cuda else [kernels.sqrt(v) for v in vars_]
    torch._foreach_add_(den, epsilon)
    step = torch._foreach_mul(means, lrs)
    torch._foreach_div_(step, den)
    torch._foreach_sub_(ws, step)


def ftml_update(weight, grad, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                clip_grad=-1.0):
    """ftml_update: ``g = clip(rescale_grad * g + wd * w); v = b2 * v + (1 - b2) * g^2;
    d_t = (1 - b1^t) / lr * (sqrt(v / (1 - b2^t)) + epsilon); z = b1 * z + (1 - b1) * g - (d_t - b1 * d) * w;
    d = d_t; w = -z / d_t``."""
    # each product rounded on its own, in FTMLKernel's order (torch's addcmul and add with alpha fuse them)
    T = _ty(weight)
    b1, b2, tt = _par(T, beta1), _par(T, beta2), T(t)
    if T is np.float32 and kernels.ftml_step(weight, grad, d, v, z, (
            _f(T, rescale_grad), _f(T, wd), _f(T, clip_grad), float(b2), float(T(1) - b2), float(T(1) - b2 ** tt),
            _f(T, epsilon), float((T(1) - b1 ** tt) / _par(T, lr)), float(b1), float(T(1) - b1))):
        return
    g = _grad_plus_wd_exact(grad, weight, _f(T, rescale_grad), _f(T, wd), _f(T, clip_grad))
    v.mul_(float(b2)).add_(torch.mul(g, g).mul_(float(T(1) - b2)))
    d_t = kernels.sqrt_(v.div(float(T(1) - b2 ** tt))).add_(float(T(epsilon)))
    d_t.mul_(float((T(1) - b1 ** tt) / _par(T, lr)))
    z.mul_(float(b1)).add_(g.mul_(float(T(1) - b1)))
    z.sub_(torch.sub(d_t, torch.mul(d, float(b1))).mul_(weight))
    d.copy_(d_t)
    torch.div(z, d_t, out=weight).neg_()


def rmsprop_update(weight, grad, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                   clip_weights=-1.0):
    """rmsprop_update (Tieleman & Hinton): ``g = clip(rescale_grad * g + wd * w); n = (1 - g1) * g^2 + g1 * n;
    w = clip_w(w - lr * g / sqrt(n + epsilon))``."""
    # in MXNet's RMSPropUpdateKernel's order, each product rounded on its own
    T = _ty(weight)
    if T is np.float32 and kernels.rmsprop_step(weight, grad, n, _f(T, lr), _f(T, gamma1), _one_minus(T, gamma1),
                                                _f(T, epsilon), _f(T, wd), _f(T, rescale_grad),
                                                _f(T, clip_gradient), _f(T, clip_weights)):
        return
    g = _grad_plus_wd_exact(grad, weight, _f(T, rescale_grad), _f(T, wd), _f(T, clip_gradient))
    n.mul_(_f(T, gamma1)).add_(torch.mul(g, g).mul_(_one_minus(T, gamma1)))
    weight.sub_(torch.div(g, kernels.sqrt_(n.add(_f(T, epsilon)))).mul_(_f(T, lr)))
    if clip_weights >= 0:
        weight.clamp_(-_f(T, clip_weights), _f(T, clip_weights))


def rmspropalex_update(weight, grad, n, g_avg, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0,
                       rescale_grad=1.0, clip_gradient=-1.0, clip_weights=-1.0):
    """rmspropalex_update (Graves' centered RMSProp): ``n = (1 - g1) * g^2 + g1 * n; g_avg = (1 - g1) * g + g1 *
    g_avg; delta = g2 * delta - lr * g / sqrt(n - g_avg^2 + epsilon); w = clip_w(w + delta)``."""
    # each product rounded on its own, in RMSPropAlexUpdateKernel's order (torch's addcmul/addcdiv fuse them)
    T = _ty(weight)
    if T is np.float32 and kernels.rmspropalex_step(weight, grad, n, g_avg, delta, (
            _f(T, rescale_grad), _f(T, wd), _f(T, clip_gradient), _f(T, gamma1), _one_minus(T, gamma1),
            _f(T, gamma2), _f(T, lr), _f(T, epsilon), _f(T, clip_weights))):
        return
    g = _grad_plus_wd_exact(grad, weight, _f(T, rescale_grad), _f(T, wd), _f(T, clip_gradient))
    scaled = torch.mul(g, _one_minus(T, gamma1))
    n.mul_(_f(T, gamma1)).add_(torch.mul(scaled, g))
    g_avg.mul_(_f(T, gamma1)).add_(scaled)
    den = kernels.sqrt_(torch.sub(n, torch.mul(g_avg, g_avg)).add_(_f(T, epsilon)))
    delta.mul_(_f(T, gamma2)).sub_(g.mul_(_f(T, lr)).div_(den))
    weight.add_(delta)
    if clip_weights >= 0:
        weight.clamp_(-_f(T, clip_weights), _f(T, clip_weights))


def ftrl_update(weight, grad, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """ftrl_update: ``g = clip(rescale_grad * g); z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr; n += g^2;
    w = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)``."""
    T = _ty(weight)
    g = _rescaled(grad, _f(T, rescale_grad), _f(T, clip_gradient))
    lr_f, l1 = _f(T, lr), _f(T, lamda1)
    g2 = g * g
    sigma = kernels.sqrt_(torch.add(n, g2)).sub_(kernels.sqrt(n)).mul_(weight).div_(lr_f)
    z.add_(g.sub_(sigma))
    n.add_(g2)
    den = kernels.sqrt(n).add_(_f(T, beta)).div_(lr_f).add_(_f(T, wd))
    weight.copy_(torch.sign(z).mul_(l1).sub_(z).div_(den).mul_(z.abs() > l1))


def sparse_adagrad_update(weight, grad, history, lr, epsilon=1e-7, rescale_grad=1.0, clip_gradient=-1.0):
    """_sparse_adagrad_update on the rows of a row_sparse gradient (no weight decay): ``g = clip(rescale_grad *
    g); history += g^2; w -= lr * g / sqrt(history + epsilon)``."""
    T = _ty(weight)
    g = _rescaled(grad, _f(T, rescale_grad), _f(T, clip_gradient))
    history.addcmul_(g, g)
    weight.sub_(g.div_(kernels.sqrt_(history.add(_f(T, epsilon)))).mul_(_f(T, lr)))


# ---- LAMB and LARS ------------------------------------------------------------------------------------------------
def lamb_update(weight, grad, mean, var, lr, wd, t, beta1=0.9, beta2=0.999, epsilon=1e-6, bias_correction=True,
                rescale_grad=1.0, clip_gradient=-1.0, lower_bound=-1.0, upper_bound=-1.0, weight32=None,
                master_stays=False):
    """lamb_update_phase1 + phase2 (and the mp_ / multi_ forms): Adam-like direction ``g`` (with ``wd * w``),
    then ``w -= lr * r1 / r2 * g`` with ``r1 = clip(|w|, lower_bound, upper_bound)``, ``r2 = |g|`` (ratio 1 if
    either is 0).

    ``master_stays=False`` is the multi-tensor kernel (multi_lamb_update, multi_mp_lamb_update), whose norms are
    multi_sum_sq's; ``True`` the single-tensor path (phase1, ``norm()``, phase2; MXNet's norm is approximated). With
    ``weight32`` (mixed precision): ``True`` is mp_lamb_update_phase2, which takes ``r1`` from the master copy and
    writes ``master - lr * ...`` into ``weight`` without updating the master copy; ``False`` takes ``r1`` from the
    float16 weight and updates both."""
    w = weight if weight32 is None else weight32
    # each product rounded on its own, in MultiLAMBKernelStep1/2's order (torch's add with alpha and addcmul fuse
    # them; the kernel's sqrt(var_hat) calls C's double sqrt, so mean_hat / (sqrt + eps) + wd * w is computed in
    # double and rounded once); the norms: multi_sum_sq's running float32 sums (the multi-tensor kernel) or, for
    # the single-tensor phase1/phase2 path (master_stays), NDArray.norm(), approximated by torch's norm
    T = _ty(w)
    d = _lamb_direction(w, grad, mean, var, T, wd, t, beta1, beta2, epsilon, bias_correction, rescale_grad,
                        clip_gradient, multi=not master_stays)
    r1 = (w if weight32 is None or master_stays else weight)
    if master_stays:
        r1 = multi_sum_sq([r1])[0].sqrt() if r1.dtype is torch.float16 else torch.linalg.vector_norm(r1.float())
        r2 = torch.linalg.vector_norm(d.float())
    else:
        r1, r2 = kernels.sqrt(multi_sum_sq([r1, d]))
    if lower_bound >= 0:
        r1 = r1.clamp(min=float(np.float32(lower_bound)))
    if upper_bound >= 0:
        r1 = r1.clamp(max=float(np.float32(upper_bound)))
    lr_f = _f(T, lr)
    # (phase2: (lr * r1) / r2; the multi-tensor kernel: lr * (r1 / r2))
    ratio = torch.mul(r1, lr_f).div_(r2) if master_stays else r1.div(r2).mul_(lr_f)
    scale = torch.where((r1 == 0) | (r2 == 0), r1.new_tensor(lr_f), ratio)
    d.mul_(scale.to(d.dtype))
    if weight32 is not None and master_stays:
        torch.sub(weight32, d, out=d)
        weight.copy_(d)
        return
    w.sub_(d)
    if weight32 is not None:
        weight.copy_(weight32)


def _lamb_direction(w, grad, mean, var, T, wd, t, beta1, beta2, epsilon, bias_correction, rescale_grad,
                    clip_gradient, multi):
    # g = clip(rescale * grad); mean, var updated; returns mean_hat / (sqrt(var_hat) + eps) + wd * w (in double and
    # rounded once where ``multi``)
    eps = _f(T, epsilon)
    c1, c2 = (T(1) - _par(T, beta1) ** T(t), T(1) - _par(T, beta2) ** T(t)) if bias_correction else (T(1), T(1))
    d = torch.empty_like(w)
    if multi and T is np.float32 and kernels.multi_lamb_direction(w, grad, mean, var, d, (
            _f(T, rescale_grad), _f(T, clip_gradient), _f(T, beta1), _one_minus(T, beta1), _f(T, beta2),
            _one_minus(T, beta2), float(c1), float(c2), eps, _f(T, wd))):
        return d
    g = _rescaled(grad, _f(T, rescale_grad), _f(T, clip_gradient), w.dtype)
    mean.mul_(_f(T, beta1)).add_(torch.mul(g, _one_minus(T, beta1)))
    var.mul_(_f(T, beta2)).add_(torch.mul(g, _one_minus(T, beta2)).mul_(g))
    mh, vh = (mean.div(float(c1)), var.div(float(c2))) if bias_correction else (mean, var)
    if multi:
        d = vh.double().sqrt_().add_(eps)
        torch.div(mh.double(), d, out=d)
        if wd:
            d.add_(torch.mul(w, _f(T, wd)))
        return d.to(w.dtype)
    d = mh.div(kernels.sqrt(vh).add_(eps))
    if wd:
        d.add_(torch.mul(w, _f(T, wd)))
    return d


def multi_sum_sq(arrays):
    """multi_sum_sq: the sum of squares of each array, as a float32 tensor of shape (len(arrays),). As in MXNet,
    float16 values are squared in float16 and summed in float32 on the CPU, and squared in float32 on a GPU
    (MXNet's CUDA kernel casts each value to float first)."""
    return torch.stack([kernels.sum_sq(a) for a in arrays])


def multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad=1.0):
    """multi_lars: per-layer rates ``lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)`` where both norms are
    positive, else ``lr``. All arguments but the scalars are float32 tensors; returns a new one."""
    w_norm = kernels.sqrt(weights_sum_sq)  # (sqrtf's rounding)
    scaled = lrs * float(np.float32(eta)) * w_norm / (kernels.sqrt(grads_sum_sq) * float(np.float32(rescale_grad))
                                                      + wds * w_norm + float(np.float32(eps)))
    return torch.where((w_norm > 0) & (grads_sum_sq > 0), scaled, lrs)
