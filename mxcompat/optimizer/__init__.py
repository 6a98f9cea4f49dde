"""``mx.optimizer``: the optimizers, ``create``/``register``, and the ``Updater`` used by kvstore and Trainer.

Update rules follow MXNet 1.9.1's Python layer and C++ kernels (results agree to float32 rounding), including the
sparse ones: row_sparse gradients update only their rows where MXNet's rule is lazy (SGD, LARS, Adam, AdaGrad, Ftrl,
GroupAdaGrad), other sparse cases compute the dense rule on the dense values (MXNet's storage fallback), and states
take the weight's storage type where MXNet gives it to them. Differs from MXNet: a row_sparse weight need not store
every row.
"""
from . import optimizer, contrib  # noqa: F401  (mx.optimizer.optimizer, mx.optimizer.contrib)
from .optimizer import *  # noqa: F401,F403
from .optimizer import __all__ as _names

__all__ = list(_names) + ['contrib']
