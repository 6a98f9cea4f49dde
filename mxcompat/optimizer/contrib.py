"""``mx.optimizer.contrib``: GroupAdaGrad."""
import torch

from .. import kernels
from ..base import MXNetError
from ._base import Optimizer, register, begin_update, inplace, is_rsp, lazy_rows, zeros_state

__all__ = ['GroupAdaGrad']


class _Rows:
    """Shape, context and dtype of the (rows, 1) history of a weight, for ``zeros_state``."""

    def __init__(self, weight):
        self.shape, self._ctx, self.dtype = (weight.shape[0], 1), weight._ctx, weight.dtype


def _group_adagrad_rows(w, g, history, lr, epsilon, rescale_grad, clip_gradient):
    g = g * rescale_grad
    if clip_gradient >= 0:
        g.clamp_(-clip_gradient, clip_gradient)
    history.add_(g.square().mean(dim=1, keepdim=True))
    w.sub_(g.mul_(lr).div_(kernels.sqrt_(history.add(epsilon))))


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one accumulated rate per row of a 2-D weight: ``history += mean(g^2, axis=1);
    w -= lr * g / sqrt(history + eps)``. Weight decay is not supported (as in MXNet). The history has the weight's
    storage type; a row_sparse gradient updates only its rows (MXNet's _contrib_group_adagrad_update), which needs
    a row_sparse or dense weight with a history of the same storage."""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise AssertionError('GroupAdaGrad needs 2-D weights, got shape %s' % (weight.shape,))
        if weight.stype != 'default':
            return zeros_state(_Rows(weight), torch.float32, stype=weight.stype)
        t = weight._t
        return type(weight)._from_tensor(torch.zeros((t.shape[0], 1), dtype=torch.float32, device=t.device),
                                         weight._ctx)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        if wd != 0:
            raise AssertionError('Weight decay is not supported for GroupAdaGrad')
        if is_rsp(grad):
            if weight.stype == 'csr' or state.stype != weight.stype:
                raise MXNetError('Operator not implemented: operator = _contrib_group_adagrad_update, input storage '
                                 'types = [%s, row_sparse, %s]' % (weight.stype, state.stype))
            lazy_rows(_group_adagrad_rows, weight, grad, (state,), lr, self.float_stable_eps, self.rescale_grad,
                      self.clip_gradient if self.clip_gradient else -1.0)
            return
        g = grad._t * self.rescale_grad
        if self.clip_gradient is not None:
            g = g.clamp_(-self.clip_gradient, self.clip_gradient)
        state._t.add_(g.square().mean(dim=1, keepdim=True))
        weight._t.sub_(lr * g / kernels.sqrt_(state._t + self.float_stable_eps))
