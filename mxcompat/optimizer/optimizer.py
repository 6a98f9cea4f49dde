"""``mx.optimizer.optimizer``: every optimizer, the registry and the Updater (MXNet's module of the same name)."""
from ._base import Optimizer, register, create, Test
from .sgd import SGD, ccSGD, NAG, Signum, LARS, LBSGD, DCASGD, SGLD
from .adaptive import Adam, Adamax, Nadam, AdaGrad, AdaDelta, RMSProp, Ftrl, FTML, LAMB
from .updater import Updater, get_updater
from ..ndarray import abs as NDabs  # noqa: N812  (MXNet exports it from here)

__all__ = ['AdaDelta', 'AdaGrad', 'Adam', 'Adamax', 'DCASGD', 'FTML', 'Ftrl', 'LARS', 'LBSGD', 'NAG', 'NDabs',
           'Nadam', 'Optimizer', 'RMSProp', 'SGD', 'SGLD', 'Signum', 'LAMB', 'Test', 'Updater', 'ccSGD', 'create',
           'get_updater', 'register']

_ = (Optimizer, register, create, Test, SGD, ccSGD, NAG, Signum, LARS, LBSGD, DCASGD, SGLD, Adam, Adamax, Nadam,
     AdaGrad, AdaDelta, RMSProp, Ftrl, FTML, LAMB, Updater, get_updater, NDabs)
