"""Optimizers with per-coordinate adaptive steps: Adam, Adamax, Nadam, AdaGrad, AdaDelta, RMSProp, Ftrl, FTML,
LAMB.

Same update rules as MXNet 1.9.1, including where its Python layer computes in NDArray arithmetic rather than in
a fused kernel (AdaGrad, AdaDelta, Adamax, Nadam) and its quirks (noted per class), and its sparse forms: with a
row_sparse gradient, Adam (``lazy_update``), AdaGrad and Ftrl (all arrays row_sparse) update only the gradient's
rows; states take the weight's storage type where MXNet gives it to them; other sparse cases update the dense
values (MXNet's storage fallback).
"""
import math
import os

import numpy as np
import torch

from .. import kernels
from ..operator import optimizer_updates as _ops
from ..ndarray.sparse import check_sparse_adagrad
from ..base import MXNetTypeError
from .. import ndarray as _nd
from ._base import (Optimizer, AggregatedUpdates, register, zeros_state, check_arrays, preprocess_grad,
                    begin_update, inplace, is_rsp, lazy_rows, incompatible_dtypes)

__all__ = ['Adam', 'Adamax', 'Nadam', 'AdaGrad', 'AdaDelta', 'RMSProp', 'Ftrl', 'FTML', 'LAMB']


def _clip_arg(opt):
    """The clip value MXNet's Python layer hands a fused kernel: the option when truthy, else -1 (off)."""
    return opt.clip_gradient if opt.clip_gradient else -1.0


class _Moments(Optimizer):
    """Rules with first and second moment states of the weight's dtype (``beta1``, ``beta2``)."""

    def __init__(self, learning_rate, beta1, beta2, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (zeros_state(weight), zeros_state(weight))


@register
class Adam(_Moments):
    """Adam with MXNet's placement of the bias correction: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    ``w -= lr_t * m / (sqrt(v) + epsilon)``, the gradient being ``clip(rescale_grad * grad + wd * w)``."""

    def _float_op(self):
        return 'adam_update'

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        stype = weight.stype if self.lazy_update else 'default'
        return (zeros_state(weight, stype=stype), zeros_state(weight, stype=stype))

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        mean, var = state
        args = (lr, self.beta1, self.beta2, self.epsilon, wd, self.rescale_grad, _clip_arg(self))
        if self.lazy_update and is_rsp(grad) and weight.stype != 'csr' and mean.stype == weight.stype:
            lazy_rows(_ops.adam_update, weight, grad, (mean, var), *args)
        elif not (type(self) is Adam and weight.stype == grad.stype == mean.stype == var.stype == 'default'
                  and _ops.queue_adam(weight._t, grad._t, mean._t, var._t, *args)):
            # (a subclass's update may read the weight after this call: only Adam itself waits for the batch)
            _ops.adam_update(weight._t, grad._t, mean._t, var._t, *args)


def _chunk_clip(opt):
    """``clip_gradient`` as the chunked CPU updates take it (-1: none), or None where they cannot (a negative bound,
    which MXNet's clip takes as given)."""
    if opt.clip_gradient is None:
        return -1.0
    return opt.clip_gradient if opt.clip_gradient >= 0 else None


@register
class AdaGrad(Optimizer):
    """AdaGrad: ``history += g^2; w += (g / sqrt(history + eps) + wd * w) * -lr`` (float32 history of the
    weight's storage type). A row_sparse gradient updates only its rows (MXNet's _sparse_adagrad_update), which
    as in MXNet needs ``wd == 0`` and a history of the weight's storage type (row_sparse or dense)."""

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return zeros_state(weight, torch.float32, stype=weight.stype)

    def _integer_weight_error(self, weight):  # (MXNet: history[:] += square(grad))
        return incompatible_dtypes(self, 'broadcast_add', 1, np.float32, weight.dtype)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        if is_rsp(grad):
            check_sparse_adagrad(weight, grad, state, wd)
            lazy_rows(_ops.sparse_adagrad_update, weight, grad, (state,), lr, self.float_stable_eps,
                      self.rescale_grad, _clip_arg(self))
            return
        if _chunk_clip(self) is not None and kernels.adagrad_step(
                weight._t, grad._t, state._t, self.rescale_grad, _chunk_clip(self), self.float_stable_eps, wd, lr):
            return
        g = preprocess_grad(self, grad._t)
        history = state._t
        history.add_(g.square())
        div = g / kernels.sqrt_(history + self.float_stable_eps)
        weight._t.add_((div + weight._t * wd) * -lr)


@register
class RMSProp(Optimizer):
    """RMSProp: Tieleman & Hinton's form, or Graves' with ``centered=True`` (``gamma2`` its momentum);
    ``clip_weights`` bounds the weights after the step. States are float32."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        n = 3 if self.centered else 1
        return tuple(zeros_state(weight, torch.float32, stype=weight.stype) for _ in range(n))

    def _integer_weight_error(self, weight):
        op = 'rmspropalex_update' if self.centered else 'rmsprop_update'
        return incompatible_dtypes(self, op, 2, weight.dtype, np.float32)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        clip_w = self.clip_weights if self.clip_weights else -1.0
        if not self.centered:
            _ops.rmsprop_update(weight._t, grad._t, state[0]._t, lr, self.gamma1, self.epsilon, wd,
                                self.rescale_grad, _clip_arg(self), clip_w)
        else:
            n, g, delta = state
            _ops.rmspropalex_update(weight._t, grad._t, n._t, g._t, delta._t, lr, self.gamma1, self.gamma2,
                                    self.epsilon, wd, self.rescale_grad, _clip_arg(self), clip_w)


@register
class AdaDelta(Optimizer):
    """AdaDelta (no learning rate): ``delta = sqrt(acc_delta + eps) / sqrt(acc_g + eps) * g; w -= delta + wd * w``.
    As in MXNet, the gradient passed in is multiplied by ``rescale_grad`` in place."""

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (zeros_state(weight, torch.float32), zeros_state(weight, torch.float32))

    def _integer_weight_error(self, weight):  # (MXNet: acc_g[:] += (1. - rho) * grad * grad)
        return incompatible_dtypes(self, 'broadcast_add', 1, np.float32, weight.dtype)

    @inplace
    def update(self, index, weight, grad, state):
        check_arrays(self, (weight,), (grad,))
        wd = self._get_wd(index)
        self._update_count(index)
        if _chunk_clip(self) is not None and kernels.adadelta_step(
                weight._t, grad._t, state[0]._t, state[1]._t, self.rescale_grad, _chunk_clip(self), self.rho,
                self.epsilon, wd):
            return
        g = grad._t.mul_(self.rescale_grad)
        if self.clip_gradient is not None:
            g = g.clamp(-self.clip_gradient, self.clip_gradient)
        acc_g, acc_delta = state[0]._t, state[1]._t
        rho, eps = self.rho, self.epsilon
        acc_g.mul_(rho).add_((1. - rho) * g * g)
        delta = kernels.sqrt_(acc_delta + eps).div_(kernels.sqrt_(acc_g + eps)).mul_(g)
        acc_delta.mul_(rho).add_((1. - rho) * delta * delta)
        w = weight._t
        w.sub_(delta + wd * w)


@register
class Ftrl(Optimizer):
    """FTRL-proximal (MXNet's ftrl_update). As in MXNet, ``learning_rate`` (default 0.1) is set after the base
    class, so a given ``lr_scheduler`` keeps its own ``base_lr``; states have the weight's storage type, and when
    weight, gradient and states are all row_sparse only the gradient's rows are updated."""

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (zeros_state(weight, torch.float32, stype=weight.stype),
                zeros_state(weight, torch.float32, stype=weight.stype))

    def _integer_weight_error(self, weight):
        return incompatible_dtypes(self, 'ftrl_update', 2, weight.dtype, np.float32)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        z, n = state
        args = (lr, self.lamda1, self.beta, wd, self.rescale_grad, _clip_arg(self))
        if is_rsp(grad) and is_rsp(weight) and is_rsp(z) and is_rsp(n):  # MXNet's only sparse form: lazy
            lazy_rows(_ops.ftrl_update, weight, grad, (z, n), *args)
        else:
            _ops.ftrl_update(weight._t, grad._t, z._t, n._t, *args)


@register
class Adamax(_Moments):
    """AdaMax: ``m = beta1 * m + (1 - beta1) * g; u = max(beta2 * u, |g|); w -= lr / (1 - beta1^t) * m / u``."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        lr /= (1. - self.beta1 ** self._index_update_count[index])
        if not weight._t.is_floating_point():
            self._update_integer(lr, wd, weight, grad, state)
            return
        g = preprocess_grad(self, grad._t, weight._t, wd)
        m, u = state[0]._t, state[1]._t
        m.mul_(self.beta1).add_((1. - self.beta1) * g)
        torch.maximum(self.beta2 * u, g.abs(), out=u)
        weight._t.sub_(lr * m / u)

    def _update_integer(self, lr, wd, weight, grad, state):
        """MXNet's update of an integer weight: NDArray arithmetic, each Python scalar cast to the weight's dtype
        (``beta1 * m`` is 0), and integer division."""
        g = grad * self.rescale_grad + wd * weight
        if self.clip_gradient is not None:
            g = _nd.clip(g, -self.clip_gradient, self.clip_gradient)
        m, u = state
        m[:] *= self.beta1
        m[:] += (1. - self.beta1) * g
        u[:] = _nd.maximum(self.beta2 * u, _nd.abs(g))
        weight[:] -= lr * m / u


@register
class Nadam(_Moments):
    """Adam with Nesterov momentum and a warming momentum schedule. As in MXNet, the running product
    ``m_schedule`` is one value for the whole optimizer, advanced by every parameter's update."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def _integer_weight_error(self, weight):
        return MXNetTypeError('Nadam.update: integer weights (%s) are not supported (MXNet 1.9.1\'s update divides '
                              'integers by zero there, and the process dies of SIGFPE)' % np.dtype(weight.dtype).name)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        t = self._index_update_count[index]
        b1, b2 = self.beta1, self.beta2
        momentum_t = b1 * (1. - 0.5 * (pow(0.96, t * self.schedule_decay)))
        momentum_t_1 = b1 * (1. - 0.5 * (pow(0.96, (t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m, v = state[0]._t, state[1]._t
        if _chunk_clip(self) is not None and kernels.nadam_step(
                weight._t, grad._t, m, v, (self.rescale_grad, wd, _chunk_clip(self), b1, 1. - b1, b2, 1. - b2,
                                           1. - self.m_schedule, 1. - m_schedule_next, 1. - pow(b2, t),
                                           1. - momentum_t, momentum_t_1, lr, self.epsilon)):
            return
        g = preprocess_grad(self, grad._t, weight._t, wd)
        m.mul_(b1).add_((1. - b1) * g)
        v.mul_(b2).add_((1. - b2) * g * g)
        g_prime = g / (1. - self.m_schedule)
        m_prime = m / (1. - m_schedule_next)
        v_prime = v / (1. - pow(b2, t))
        m_bar = (1. - momentum_t) * g_prime + momentum_t_1 * m_prime
        weight._t.sub_(lr * m_bar / (kernels.sqrt_(v_prime) + self.epsilon))


@register
class FTML(Optimizer):
    """FTML, "Follow the Moving Leader" (MXNet's ftml_update; states d, v, z)."""

    def _float_op(self):
        return 'ftml_update'

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (zeros_state(weight), zeros_state(weight), zeros_state(weight))

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        d, v, z = state
        _ops.ftml_update(weight._t, grad._t, d._t, v._t, z._t, lr, self._index_update_count[index], self.beta1,
                         self.beta2, self.epsilon, wd, self.rescale_grad, _clip_arg(self))


@register
class LAMB(AggregatedUpdates, _Moments):
    """LAMB (layer-wise adaptive moments). Lists of indices are updated together (``aggregate_num`` from
    ``MXNET_OPTIMIZER_AGGREGATION_SIZE``, default 45). As in MXNet, a single float16 weight with
    ``multi_precision`` updated on its own (not through a list) never updates its float32 master copy."""

    def _float_op(self):
        return 'lamb_update_phase1'

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '45'))))

    def create_state(self, index, weight):
        return (zeros_state(weight, stype=weight.stype), zeros_state(weight, stype=weight.stype))

    def _lamb(self, weight, grad, state, lr, wd, t, multi_precision, master_stays):
        mean, var = state[1] if multi_precision else state
        _ops.lamb_update(weight._t, grad._t, mean._t, var._t, lr, wd, t, self.beta1, self.beta2, self.epsilon,
                         self.bias_correction, self.rescale_grad, _clip_arg(self),
                         self.lower_bound if self.lower_bound else -1.0,
                         self.upper_bound if self.upper_bound else -1.0,
                         weight32=state[0]._t if multi_precision else None, master_stays=master_stays)

    @inplace
    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        if self.aggregate_num <= 1 or not isinstance(index, (tuple, list)):
            if isinstance(index, (tuple, list)):
                if len(index) != self.aggregate_num:
                    raise AssertionError('LAMB: expected %d indices, got %d' % (self.aggregate_num, len(index)))
                index, weight, grad, state = index[0], weight[0], grad[0], state[0]
            lr, wd = begin_update(self, index, weight, grad)
            self._lamb(weight, grad, state, lr, wd, self._index_update_count[index], multi_precision, True)
            return
        check_arrays(self, weight, grad)
        steps, lrs, wds = [], [], []
        for i in index:
            self._update_count(i)
            steps.append(self._index_update_count[i])
            lrs.append(self._get_lr(i))
            wds.append(self._get_wd(i))
        for w, g, s, lr, wd, t in zip(weight, grad, state, lrs, wds, steps):
            # the multi-tensor kernel reads rates and decays as float32
            self._lamb(w, g, s, float(np.float32(lr)), float(np.float32(wd)), t, multi_precision, False)
