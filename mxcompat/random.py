"""``mx.random``: seeding, the choice of random streams, and the sampling functions of ``mx.nd.random``.

CPU samplers (``mx.nd.random.*``, the ``_random_*``/``_sample_*`` operators, Dropout, the initializers) draw MXNet
1.9.1's numbers: the same seed gives the same values as MXNet, and a fresh process starts where MXNet's does
(its first ``mx.nd.random.uniform()`` is 0.5488135). CUDA samplers draw from torch's generators (MXNet's GPU
streams are Philox ones): a seed reproduces runs there, not MXNet's numbers. torch's generators (also drawn by the
RNN layers' dropout) start seeded from 0 as well: ``import mxcompat`` seeds them, where torch would seed its own
from the clock, so a script repeats its numbers from run to run, as under MXNet. ``set_streams('torch')``, or
``MXCOMPAT_RANDOM=torch`` in the environment, puts the CPU samplers on torch's generators too.
"""
import numpy as _np
import torch

from .base import MXNetValueError
from .context import Context
from .ndarray.random import *  # noqa: F401,F403
from .operator import _mxrandom


def seed(seed_state, ctx='all'):
    """Seed the random generators, as MXNet: ``ctx='all'`` seeds every device's, a context its device's (a CPU
    context the CPU streams; a GPU context that GPU's generator and, as MXNet does, the CPU streams too).

    MXNet's seeding: the seed is taken as a C int (modulo 2**32); the CPU's parallel streams start from
    ``seed * 127``, its single engine (``shuffle``, ``multinomial``) from ``seed * 127`` with ``'all'`` and from
    ``seed`` with a context. torch's generators are seeded with the same number."""
    if not isinstance(seed_state, (int, _np.integer)):
        raise MXNetValueError('seed_state must be int')
    s = int(seed_state) & 0xFFFFFFFF
    if ctx == 'all':
        _mxrandom.seed(s, every_context=True)
        torch.manual_seed(s)
        return
    dev = Context(ctx).torch_device
    _mxrandom.seed(s, every_context=False)
    if dev.type == 'cuda':
        with torch.cuda.device(dev):
            torch.cuda.manual_seed(s)
    else:
        torch.manual_seed(s)


# (a fresh process as after seed(0), as MXNet's starts)
torch.manual_seed(0)


def set_streams(kind):
    """Which generators CPU samplers draw from: ``'mxnet'`` (the default: MXNet 1.9.1's std::mt19937 streams,
    bit for bit) or ``'torch'`` (torch's CPU generator, seeded by :func:`seed` too). Returns the previous choice.
    ``MXCOMPAT_RANDOM=torch`` in the environment makes ``'torch'`` the choice at import. CUDA samplers always
    draw from torch's generators."""
    return _mxrandom.set_streams(kind)


def get_streams():
    """``'mxnet'`` or ``'torch'``: what :func:`set_streams` chose for CPU samplers."""
    return _mxrandom.get_streams()
