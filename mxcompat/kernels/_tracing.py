"""When the kernel layer may step aside from aten's ops: not under tracing, and (for its own backward functions)
only on tensors autograd records."""
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

__all__ = ['untraced', 'recorded']


def untraced(t):
    """Whether ``t`` is a plain tensor outside tracing (no fake or functional tensor, no dispatch mode, no
    torch.compile): the condition for the operators' own kernels and backward functions, so that graphs
    mx.to_torch exports and graphs hybridize(backend=...) compiles keep aten's ops."""
    return type(t) is torch.Tensor and not torch.compiler.is_compiling() and _get_current_dispatch_mode() is None


def recorded(t):
    """Whether ``t`` is recorded by autograd and untraced: the condition for the one-pass backward functions."""
    return t.requires_grad and torch.is_grad_enabled() and untraced(t)
