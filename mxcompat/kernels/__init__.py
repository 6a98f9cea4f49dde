"""Which kernel computes an operator on which device: the layer under ``mxcompat/operator`` that checks the device
once and otherwise hands back torch's own op. Operator semantics stay in ``operator/``; a rule here changes speed,
never values beyond floating-point rounding.

CUDA rules (each measured on an NVIDIA H200 with torch 2.11 + cuDNN 9):
- training BatchNorm reaches cuDNN, as torch's own BatchNorm modules do (``batch_norm_train``);
- its moving statistics update in three element-wise kernels and two multi-tensor ones, not ten
  (``batch_norm_moving_update``).
"""
import torch

__all__ = ['batch_norm_train', 'batch_norm_moving_update']


def batch_norm_train(x, gamma, beta, eps):
    """Batch-statistics BatchNorm of NC... data: (output, batch mean, 1/sqrt(batch var + eps)), differentiable.
    On CUDA through torch's backend choice (cuDNN where it takes the input), elsewhere torch's native kernel."""
    if x.is_cuda:
        return torch._batch_norm_impl_index(x, gamma, beta, None, None, True, 0.0, eps,
                                            torch.backends.cudnn.enabled)[:3]
    return torch.native_batch_norm(x, gamma, beta, None, None, True, 0.0, eps)


def batch_norm_moving_update(moving_mean, moving_var, mean, invstd, eps, momentum):
    """MXNet's moving statistics: ``moving = momentum * moving + (1 - momentum) * batch``, with the biased batch
    variance recovered from ``invstd``. On the CPU the variance is recovered in float64 and each update is
    MXNet's multiply-add, bit for bit; on CUDA in the statistics' dtype, with multi-tensor kernels."""
    with torch.no_grad():
        if moving_mean.is_cuda:
            var = invstd.pow(-2).sub_(eps).clamp_(min=0)
            stats = [moving_mean, moving_var]
            torch._foreach_mul_(stats, momentum)
            torch._foreach_add_(stats, [mean.to(moving_mean.dtype), var.to(moving_var.dtype)], alpha=1.0 - momentum)
            return
        var = invstd.double().pow(-2).sub_(eps).clamp_(min=0)
        moving_mean.mul_(momentum).add_(mean.to(moving_mean.dtype), alpha=1.0 - momentum)
        moving_var.mul_(momentum).add_(var.to(moving_var.dtype), alpha=1.0 - momentum)
