"""``mx.optimizer``: the optimizers, ``create``/``register``, and the ``Updater`` used by kvstore and Trainer.

Update rules follow MXNet 1.9.1's Python layer and C++ kernels (results agree to float32 rounding). Differs from
MXNet: dense arrays only; SGLD's noise comes from torch's generator.
"""
from . import optimizer, contrib  # noqa: F401  (mx.optimizer.optimizer, mx.optimizer.contrib)
from .optimizer import *  # noqa: F401,F403
from .optimizer import __all__ as _names

__all__ = list(_names) + ['contrib']
