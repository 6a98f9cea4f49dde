"""``mx.optimizer.contrib``: GroupAdaGrad (dense gradients only)."""
import torch

from ._base import Optimizer, register, begin_update, inplace

__all__ = ['GroupAdaGrad']


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one accumulated rate per row of a 2-D weight: ``history += mean(g^2, axis=1);
    w -= lr * g / sqrt(history + eps)``. Weight decay is not supported (as in MXNet)."""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise AssertionError('GroupAdaGrad needs 2-D weights, got shape %s' % (weight.shape,))
        t = weight._t
        return type(weight)._from_tensor(torch.zeros((t.shape[0], 1), dtype=torch.float32, device=t.device),
                                         weight._ctx)

    @inplace
    def update(self, index, weight, grad, state):
        lr, wd = begin_update(self, index, weight, grad)
        if wd != 0:
            raise AssertionError('Weight decay is not supported for GroupAdaGrad')
        g = grad._t * self.rescale_grad
        if self.clip_gradient is not None:
            g = g.clamp_(-self.clip_gradient, self.clip_gradient)
        state._t.add_(g.square().mean(dim=1, keepdim=True))
        weight._t.sub_(lr * g / (state._t + self.float_stable_eps).sqrt_())
