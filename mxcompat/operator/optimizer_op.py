"""MXNet's fused update operators (``mx.nd.sgd_update``, ``adam_update`` ...), over the optimizer kernels.

Each returns the updated weight (written to ``out``, usually the weight itself) and updates its state inputs
(momentum, mean, var ...) in place, as MXNet's do. The math lives in ``optimizer_updates.py``.
"""
from .registry import defop, REQUIRED
from . import optimizer_updates as _updates

_COMMON = [('wd', 'float', 0.0), ('rescale_grad', 'float', 1.0), ('clip_gradient', 'float', -1.0)]
_LAZY = [('lazy_update', 'bool', True)]


def _sgd(weight, grad, lr, wd, rescale_grad, clip_gradient, lazy_update):
    w = weight.clone()
    _updates.sgd_update([w], [grad], None, [lr], [wd], rescale_grad=rescale_grad, clip_gradient=clip_gradient,
                        single=True)
    return w


def _sgd_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, lazy_update):
    w = weight.clone()
    _updates.sgd_update([w], [grad], [mom], [lr], [wd], momentum=momentum, rescale_grad=rescale_grad,
                    clip_gradient=clip_gradient)
    return w


def _nag_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient):
    w = weight.clone()
    _updates.nag_mom_update(w, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient)
    return w


def _signsgd(weight, grad, lr, wd, rescale_grad, clip_gradient):
    w = weight.clone()
    _updates.signsgd_update(w, grad, lr, wd)
    return w


def _signum(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, wd_lh):
    w = weight.clone()
    _updates.signum_update(w, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, wd_lh)
    return w


def _adam(weight, grad, mean, var, lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient, lazy_update):
    w = weight.clone()
    _updates.adam_update(w, grad, mean, var, lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient)
    return w


def _ftml(weight, grad, d, v, z, lr, beta1, beta2, epsilon, t, wd, rescale_grad, clip_grad):
    w = weight.clone()
    _updates.ftml_update(w, grad, d, v, z, lr, t, beta1, beta2, epsilon, wd, rescale_grad, clip_grad)
    return w


def _ftrl(weight, grad, z, n, lr, lamda1, beta, wd, rescale_grad, clip_gradient):
    w = weight.clone()
    _updates.ftrl_update(w, grad, z, n, lr, lamda1, beta, wd, rescale_grad, clip_gradient)
    return w


def _rmsprop(weight, grad, n, lr, gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights):
    w = weight.clone()
    _updates.rmsprop_update(w, grad, n, lr, gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights)
    return w


def _rmspropalex(weight, grad, n, g, delta, lr, gamma1, gamma2, epsilon, wd, rescale_grad, clip_gradient,
                 clip_weights):
    w = weight.clone()
    _updates.rmspropalex_update(w, grad, n, g, delta, lr, gamma1, gamma2, epsilon, wd, rescale_grad, clip_gradient,
                            clip_weights)
    return w


_LR = [('lr', 'float', REQUIRED)]
defop('sgd_update', ('weight', 'grad'), _LR + _COMMON + _LAZY, _sgd)
defop('sgd_mom_update', ('weight', 'grad', 'mom'), _LR + [('momentum', 'float', 0.0)] + _COMMON + _LAZY, _sgd_mom)
defop('nag_mom_update', ('weight', 'grad', 'mom'), _LR + [('momentum', 'float', 0.0)] + _COMMON, _nag_mom)
defop('signsgd_update', ('weight', 'grad'), _LR + _COMMON, _signsgd)
defop('signum_update', ('weight', 'grad', 'mom'), _LR + [('momentum', 'float', 0.0)] + _COMMON +
      [('wd_lh', 'float', 0.0)], _signum)
defop('adam_update', ('weight', 'grad', 'mean', 'var'),
      _LR + [('beta1', 'float', 0.9), ('beta2', 'float', 0.999), ('epsilon', 'float', 1e-8)] + _COMMON + _LAZY,
      _adam)
defop('ftml_update', ('weight', 'grad', 'd', 'v', 'z'),
      _LR + [('beta1', 'float', 0.6), ('beta2', 'float', 0.999), ('epsilon', 'float', 1e-8), ('t', 'int', REQUIRED),
             ('wd', 'float', 0.0), ('rescale_grad', 'float', 1.0), ('clip_grad', 'float', -1.0)], _ftml)
defop('ftrl_update', ('weight', 'grad', 'z', 'n'),
      _LR + [('lamda1', 'float', 0.01), ('beta', 'float', 1.0)] + _COMMON, _ftrl)
defop('rmsprop_update', ('weight', 'grad', 'n'),
      _LR + [('gamma1', 'float', 0.95), ('epsilon', 'float', 1e-8)] + _COMMON + [('clip_weights', 'float', -1.0)],
      _rmsprop)
defop('rmspropalex_update', ('weight', 'grad', 'n', 'g', 'delta'),
      _LR + [('gamma1', 'float', 0.95), ('gamma2', 'float', 0.9), ('epsilon', 'float', 1e-8)] + _COMMON +
      [('clip_weights', 'float', -1.0)], _rmspropalex)
