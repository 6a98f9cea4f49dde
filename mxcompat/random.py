"""``mx.random``: seeding, and the sampling functions of ``mx.nd.random``.

Differs from MXNet: numbers come from torch's generators, so a seed reproduces runs here, not MXNet's numbers.
"""
import numpy as _np
import torch

from .ndarray.random import *  # noqa: F401,F403


def seed(seed_state, ctx='all'):
    """Seed the generators (torch's CPU and CUDA ones; ``ctx`` selects one device's, as in MXNet)."""
    if not isinstance(seed_state, (int, _np.integer)):
        from .base import MXNetTypeError
        raise MXNetTypeError('seed_state must be int')
    s = int(seed_state)
    if ctx == 'all':
        torch.manual_seed(s)
        return
    dev = ctx.torch_device
    if dev.type == 'cuda':
        torch.cuda.manual_seed(s)
    else:
        torch.manual_seed(s)
