"""``mx.gluon``: Parameter, Block/HybridBlock/SymbolBlock, Trainer and ``nn``.

The other submodules (``data``, ``utils``, ``loss``, ``rnn``, ``model_zoo``, ``contrib``) are imported when their
module exists in this package; using one that does not exist yet raises ``MXNetNotImplementedError``.
"""
import importlib as _importlib
import importlib.util as _importlib_util

from .parameter import *  # noqa: F401,F403
from .block import *  # noqa: F401,F403
from . import nn  # noqa: F401
from .trainer import *  # noqa: F401,F403
from ..base import unsupported

_OPTIONAL = ('data', 'utils', 'loss', 'rnn', 'model_zoo', 'contrib')
for _sub in _OPTIONAL:
    if _importlib_util.find_spec('.' + _sub, __name__) is not None:
        globals()[_sub] = _importlib.import_module('.' + _sub, __name__)
del _sub


def __getattr__(attr):
    if attr in _OPTIONAL:
        raise unsupported('mx.gluon.' + attr, 'the module', 'it is not implemented in this version of mxcompat')
    raise AttributeError("module 'mxnet.gluon' has no attribute %r" % attr)
