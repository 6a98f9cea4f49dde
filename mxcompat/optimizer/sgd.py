"""SGD-like optimizers: SGD (ccSGD), NAG, Signum, LARS, LBSGD, DCASGD, SGLD.

Same update rules as MXNet 1.9.1, down to its quirks (see each class), with its sparse forms: SGD and LARS update
only the rows a row_sparse gradient stores when ``lazy_update`` (weight and momentum alike), and states take the
weight's storage type where MXNet gives it to them; other sparse cases update the dense values (MXNet's storage
fallback). Differs from MXNet: SGLD's noise comes from torch's generator.
"""
import math
import os

import numpy as np
import torch

from ..base import MXNetError
from .. import ndarray as _nd
from ..ndarray import random as _random
from ..operator import optimizer_updates as _ops
from ._base import (Optimizer, AggregatedUpdates, register, zeros_state, check_arrays, mp_warning,
                    preprocess_grad, begin_update, inplace, is_rsp, lazy_rows)

__all__ = ['SGD', 'ccSGD', 'NAG', 'Signum', 'LARS', 'LBSGD', 'DCASGD', 'SGLD']


def _aggregation_size(default):
    return int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', default))


def _as_lists(indices, weights, grads, states):
    if isinstance(indices, (tuple, list)):
        return indices, weights, grads, states
    return [indices], [weights], [grads], [states]


def _run_sgd(opt, weights, grads, moms, masters, lrs, wds, momentum, single=False):
    """MXNet's multi_(mp_)sgd(_mom)_update (``single``: (mp_)sgd(_mom)_update) with ``opt``'s rescaling and clipping;
    ``moms``/``masters`` are lists of NDArrays or None."""
    _ops.sgd_update([w._t for w in weights], [g._t for g in grads], None if moms is None else [m._t for m in moms],
                    lrs, wds, momentum, opt.rescale_grad, opt.clip_gradient if opt.clip_gradient else -1.0,
                    weights32=None if masters is None else [m._t for m in masters], single=single)


def _sgd_rows(w, g, *mom, lr, wd, momentum, rescale_grad, clip_gradient):
    _ops.sgd_update([w], [g], list(mom) or None, [lr], [wd], momentum, rescale_grad, clip_gradient, single=True)


def _sgd_each(opt, weights, grads, states, lrs, wds, momentum, multi_precision, lazy_update=None):
    """MXNet's one-weight-at-a-time path of SGD and LARS (taken when an array is sparse): sgd(_mom)_update with
    ``lazy_update`` (``opt.lazy_update`` unless given; NAG and LBSGD call the operators with their default, True)
    updates only the rows of a row_sparse gradient when the momentum (if any) has the weight's storage; every other
    case (the standard sparse update, the mp_ kernels, csr) computes the dense rule."""
    clip = opt.clip_gradient if opt.clip_gradient else -1.0
    lazy = opt.lazy_update if lazy_update is None else lazy_update
    for w, g, s, lr, wd in zip(weights, grads, states, lrs, wds):
        mom, master = s if multi_precision else (s, None)
        if (master is None and lazy and is_rsp(g) and w.stype != 'csr'
                and (mom is None or mom.stype == w.stype)):
            lazy_rows(_sgd_rows, w, g, [] if mom is None else [mom], lr=lr, wd=wd, momentum=momentum,
                      rescale_grad=opt.rescale_grad, clip_gradient=clip)
        else:
            _run_sgd(opt, [w], [g], None if mom is None else [mom], None if master is None else [master],
                     [lr], [wd], momentum, single=True)


class _MomentumSGDBase(AggregatedUpdates, Optimizer):
    """State handling shared by SGD-like rules: a momentum buffer when ``momentum != 0``; for float16 weights with
    ``multi_precision`` the state is ``(momentum or None, float32 master copy)`` (note: the reverse of the base
    class's order, as in MXNet)."""

    def _float_op(self):
        return 'sgd_mom_update' if self.momentum else 'sgd_update'

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == np.float16:
            mp_warning('SGD' if type(self).__name__ != 'NAG' else 'NAG')
        return self.create_state(index, weight)

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        # SGD and LARS: a lazily updated momentum has the weight's storage type (NAG's is always dense)
        lazy = getattr(self, 'lazy_update', False)
        return zeros_state(weight, stype=weight.stype if lazy else 'default')

    def _begin_batch(self, indices, weights, grads):
        """Check the arrays, count the updates; returns the rates and decays of ``indices`` and whether an array
        is sparse."""
        sparse = check_arrays(self, weights, grads)
        self._update_count(indices)
        return self._get_lrs(indices), self._get_wds(indices), sparse

    def _sgd_states(self, states, multi_precision):
        """(momentum buffers or None, master copies or None) of ``states``, for a rule whose momentum kernel runs
        only when ``momentum > 0`` (as SGD and LARS choose it)."""
        if multi_precision:
            return ([s[0] for s in states] if self.momentum > 0 else None), [s[1] for s in states]
        return (list(states) if self.momentum > 0 else None), None


@register
class SGD(_MomentumSGDBase):
    """SGD with momentum and weight decay, MXNet's form: ``mom = momentum * mom - lr * wd * w - lr *
    clip(rescale_grad * grad, clip_gradient); w += mom``. Takes lists of indices (aggregated updates,
    ``aggregate_num`` from ``MXNET_OPTIMIZER_AGGREGATION_SIZE``, default 4)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = _aggregation_size('4')

    def _one_call_per_dtype(self):
        """Whether an Updater may pass all its same-dtype weights in one call instead of ``aggregate_num`` at a time
        (fewer, longer foreach kernels): SGD updates every weight on its own, and without an ``lr_scheduler`` the
        learning rate does not follow ``num_update`` as it grows from one batch to the next. Only while nothing
        can see the calls: SGD's own ``update_multi_precision`` and ``_update_impl`` (not a subclass's, nor one
        set on the instance)."""
        return (self.lr_scheduler is None and type(self)._update_impl is SGD._update_impl
                and getattr(self.update_multi_precision, '__func__', None) is AggregatedUpdates.update_multi_precision)

    @inplace
    def _update_impl(self, indices, weights, grads, states, multi_precision=False):
        indices, weights, grads, states = _as_lists(indices, weights, grads, states)
        lrs, wds, sparse = self._begin_batch(indices, weights, grads)
        momentum = self.momentum if self.momentum > 0 else 0.0
        if sparse:
            _sgd_each(self, weights, grads, states, lrs, wds, momentum, multi_precision)
            return
        moms, masters = self._sgd_states(states, multi_precision)
        _run_sgd(self, weights, grads, moms, masters, lrs, wds, momentum)


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """Deprecated alias of ``SGD``."""


@register
class NAG(_MomentumSGDBase):
    """Nesterov accelerated SGD (MXNet's nag_mom_update; plain SGD when ``momentum`` is 0)."""

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def _float_op(self):
        return 'nag_mom_update' if self.momentum else 'sgd_update'

    @inplace
    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        lr, wd = begin_update(self, index, weight, grad)
        mom, master = (state[0], state[1]) if multi_precision else (state, None)
        if mom is None:  # MXNet calls (mp_)sgd_update: lazy for a row_sparse gradient
            _sgd_each(self, [weight], [grad], [state], [lr], [wd], 0.0, multi_precision, lazy_update=True)
            return
        _ops.nag_mom_update(weight._t, grad._t, mom._t, lr, self.momentum if self.momentum > 0 else 0.0, wd,
                            self.rescale_grad, self.clip_gradient if self.clip_gradient else -1.0,
                            weight32=None if master is None else master._t)

    def update_multi_precision(self, index, weight, grad, state):
        mp = self.multi_precision and weight.dtype == np.float16 and isinstance(state, (tuple, list))
        self._update_impl(index, weight, grad, state, multi_precision=mp)


@register
class Signum(Optimizer):
    """signSGD (``momentum`` 0) or Signum: ``mom = momentum * mom - (1 - momentum) * (wd * w + clip(rescale_grad *
    grad)); w = (1 - lr * wd_lh) * w + lr * sign(mom)``. As in MXNet, signSGD uses the sign of the raw gradient
    and ``wd_lh`` with ``momentum=0`` raises."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def _float_op(self):
        return 'signum_update' if self.momentum != 0.0 else 'signsgd_update'

    def create_state(self, index, weight):
        return zeros_state(weight, stype=weight.stype) if self.momentum != 0.0 else None

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        if state is None:
            if self.wd_lh:
                raise MXNetError("signsgd_update: Cannot find argument 'wd_lh' (Signum with momentum=0 runs "
                                 "signSGD, which has no wd_lh)")
            _ops.signsgd_update(weight._t, grad._t, lr, wd)
            return
        _ops.signum_update(weight._t, grad._t, state._t, lr, self.momentum if self.momentum > 0 else 0.0, wd,
                           self.rescale_grad, self.clip_gradient if self.clip_gradient else -1.0, self.wd_lh)


_NO_LARS = ('gamma', 'beta', 'bias')


@register
class LARS(_MomentumSGDBase):
    """SGD with layer-wise adaptive rates (LARS): each weight's rate is scaled by ``eta * |w| / (|g| *
    rescale_grad + wd * |w| + eps)`` unless its name ends in gamma/beta/bias; with ``momentum_correction`` the
    momentum is scaled by the ratio of this call's rate to the previous call's."""

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0, momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.aggregate_num = _aggregation_size('4')
        self.momentum, self.lazy_update = momentum, lazy_update
        self.eta, self.eps, self.momentum_correction = eta, eps, momentum_correction
        # rates of this call and of the previous one, for the momentum correction
        self.cur_lr = self.last_lr = None
        self.skip = 0

    def _get_lrs(self, indices):
        now = self.lr if self.lr_scheduler is None else self.lr_scheduler(self.num_update)
        # the first call has no previous rate: it counts as its own
        self.last_lr, self.cur_lr = (now if self.cur_lr is None else self.cur_lr), now
        return self._scaled(now, indices, 'lr_mult')

    def set_wd_mult(self, args_wd_mult):
        """As the base class, but only names ending in ``_weight`` keep their weight decay."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith('_weight')}
        self.wd_mult.update(self._sym_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _l2norm(self, v, rescale=False):
        t = v._t.float()
        if rescale:
            t = t * self.rescale_grad
        return np.float32(torch.linalg.vector_norm(t).item())

    def _get_lars(self, i, weight, g, lr, wd):
        """The LARS-scaled rate of one weight (MXNet uses it only for sparse gradients)."""
        if self.idx2name.get(i, str(i)).endswith(_NO_LARS):
            return lr
        w_norm = self._l2norm(weight)
        g_norm = self._l2norm(g, rescale=True)
        if w_norm > 0.0 and g_norm > 0.0:
            return self.eta * w_norm / (g_norm + wd * w_norm + self.eps) * lr
        return lr

    @inplace
    def _update_impl(self, indices, weights, grads, states, multi_precision=False):
        indices, weights, grads, states = _as_lists(indices, weights, grads, states)
        lrs, wds, sparse = self._begin_batch(indices, weights, grads)
        momentum = self.momentum
        if self.momentum > 0 and self.momentum_correction and self.last_lr != 0:
            momentum = self.momentum * (self.cur_lr / self.last_lr)
        if sparse:  # MXNet's one-weight-at-a-time path, with rates from _get_lars
            lrs = [self._get_lars(i, w, g, lr, wd) for i, w, g, lr, wd in zip(indices, weights, grads, lrs, wds)]
            _sgd_each(self, weights, grads, states, lrs, wds, momentum if self.momentum > 0 else 0.0,
                      multi_precision)
            return
        scaled = [i for i, idx in enumerate(indices) if not self.idx2name.get(idx, str(idx)).endswith(_NO_LARS)]
        if scaled:
            dev = weights[0]._t.device
            sub = torch.tensor([lrs[i] for i in scaled], dtype=torch.float32, device=dev)
            sub_wd = torch.tensor([wds[i] for i in scaled], dtype=torch.float32, device=dev)
            new = _ops.multi_lars(sub, _ops.multi_sum_sq([weights[i]._t for i in scaled]),
                                  _ops.multi_sum_sq([grads[i]._t for i in scaled]), sub_wd, self.eta, self.eps,
                                  self.rescale_grad).tolist()
            lrs = list(lrs)
            for i, v in zip(scaled, new):
                lrs[i] = v
        # the preloaded kernels read rates and decays from float32 arrays
        lrs = [float(np.float32(v)) for v in lrs]
        wds = [float(np.float32(v)) for v in wds]
        moms, masters = self._sgd_states(states, multi_precision)
        _run_sgd(self, weights, grads, moms, masters, lrs, wds, momentum if self.momentum > 0 else 0.0)


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradients are accumulated over ``batch_scale`` calls, then one SGD step runs with the rate
    scaled by the warm-up strategy ('linear', 'power2', 'sqrt') or by LARS ('lars')."""

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy='linear', warmup_epochs=5,
                 batch_scale=1, updates_per_epoch=32, begin_epoch=0, num_epochs=60, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.multi_precision = momentum, multi_precision
        schedule = dict(warmup_strategy=warmup_strategy, warmup_epochs=warmup_epochs, batch_scale=batch_scale,
                        updates_per_epoch=updates_per_epoch, num_epochs=num_epochs)
        for name, value in schedule.items():
            setattr(self, name, value)
        self.init_updates = updates_per_epoch * begin_epoch
        # cumgrads: index -> {'cum_grad', 'num_cums'}; the other three are kept only for MXNet's attribute set
        self.cumgrads, self.lbmult, self.adaptive, self.admult = {}, 1, False, 1

    def _float_op(self):
        return 'sgd_mom_update' if self.momentum else 'sgd_update'

    def create_state(self, index, weight):
        half = weight.dtype == np.float16
        if half and not self.multi_precision:
            mp_warning('SGD')
        base = weight.astype(np.float32) if half and self.multi_precision else None
        mom = None if self.momentum == 0.0 else zeros_state(weight if base is None else base, stype=weight.stype)
        return mom if base is None else (mom, base)

    def _get_lbmult(self, nup):
        """The warm-up multiplier of the rate after ``nup`` accumulated updates."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        ramp = {'linear': lambda: nup / nwup, 'power2': lambda: (nup * nup) / (nwup * nwup),
                'sqrt': lambda: math.sqrt(float(nup) / nwup)}.get(self.warmup_strategy)
        return 1.0 + (maxmult - 1) * ramp() if ramp is not None else 1.0

    def _get_lars(self, weight, g, wd):
        """The LARS multiplier, clipped to [0.01, 100]."""
        w_sq, g_sq = self._l2norm(weight), self._l2norm(g)
        ratio = math.sqrt(w_sq / (g_sq + wd * w_sq + 1e-18))
        return 0.01 if ratio < 0.01 else min(ratio, 100)

    def _l2norm(self, v):
        # MXNet: a float32 sum of squares computed by numpy
        return (v._t * v._t).cpu().numpy().sum()

    def _cumulate_gradient(self, grad, index):
        """Add ``grad`` to the running sum of ``index``; a fresh sum starts its count at ``init_updates + 1``."""
        old = self.cumgrads.get(index)
        fresh = not old or old['num_cums'] <= 0
        entry = self.cumgrads[index] = {
            'cum_grad': grad if fresh else old['cum_grad'] + grad,
            'num_cums': self.init_updates + 1 if fresh else old['num_cums'] + 1,
        }
        return entry

    @inplace
    def update(self, index, weight, grad, state):
        check_arrays(self, (weight,), (grad,))
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad['num_cums'] % self.batch_scale != 0:
            _ops.sgd_update([weight._t], [grad._t], None, [0.0], [wd])
            return
        grad = cgrad['cum_grad'] / self.batch_scale
        if self.warmup_strategy == 'lars':
            lr = lr * self._get_lars(weight, grad, wd)
        else:
            lr = lr * self._get_lbmult(cgrad['num_cums'])
        # MXNet calls (mp_)sgd(_mom)_update: lazy for a row_sparse gradient
        _sgd_each(self, [weight], [grad], [state], [lr], [wd], self.momentum if self.momentum > 0 else 0.0,
                  isinstance(state, (list, tuple)), lazy_update=True)
        self.cumgrads[index]['cum_grad'] = 0  # the count runs on; only the sum restarts


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD. As in MXNet, ``momentum != 0`` only works for one-element weights whose
    momentum is non-zero: otherwise the truth test of the momentum array raises."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        return (zeros_state(weight) if self.momentum != 0.0 else None, weight.copy())

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        if not weight._t.is_floating_point():
            self._update_integer(lr, wd, weight, grad, state)
            return
        g = preprocess_grad(self, grad._t)
        w = weight._t
        mom, previous = state
        step = (g + wd * w) + (self.lamda * g * g) * (w - previous._t)
        if mom:  # NDArray truth value, as MXNet tests it
            mom._t.mul_(self.momentum).add_(-lr * step)
            delta = mom._t
        else:
            if self.momentum != 0.0:
                raise AssertionError('DCASGD: the momentum state is zero or missing while momentum != 0')
            delta = -lr * step
        previous._t.copy_(w)
        w.add_(delta)

    def _update_integer(self, lr, wd, weight, grad, state):
        """MXNet's update of an integer weight: NDArray arithmetic, each Python scalar cast to the weight's dtype
        (``lamda * g`` is 0 for ``lamda < 1``)."""
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = _nd.clip(g, -self.clip_gradient, self.clip_gradient)
        mom, previous = state
        step = g + wd * weight + self.lamda * g * g * (weight - previous)
        if mom:  # (NDArray truth value, as MXNet tests it)
            mom[:] *= self.momentum
            mom[:] += -lr * step
        else:
            if self.momentum != 0.0:
                raise AssertionError('DCASGD: the momentum state is zero or missing while momentum != 0')
            mom = -lr * step
        previous[:] = weight
        weight[:] += mom


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: ``w += -lr / 2 * (grad + wd * w) + N(0, sqrt(lr))``. The noise is
    ``mx.nd.random.normal``'s, as MXNet's (on the CPU its numbers for the same seed)."""

    def create_state(self, index, weight):
        return None

    def _integer_weight_error(self, weight):
        try:  # (the noise's sampler refuses an integer dtype; shape (0,) draws nothing)
            _random.normal(0, 1, shape=(0,), dtype=weight.dtype)
        except MXNetError as e:
            return e
        return None

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        g = preprocess_grad(self, grad._t)
        w = weight._t
        w.add_(-lr / 2 * (g + wd * w))
        noise = _random.normal(0, math.sqrt(lr), shape=tuple(w.shape), dtype=weight.dtype, ctx=weight.context)
        w.add_(noise._t)
