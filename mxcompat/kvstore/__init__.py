"""``mx.kv`` / ``mx.kvstore``: key-value stores for data-parallel training.

``create('local')`` and the other single-process types sum values over this process's devices; ``dist_*`` types
(and ``horovod``/``byteps``) also all-reduce across the workers that ``torchrun`` started, over
``torch.distributed``. ps-lite servers and schedulers do not exist here: see :mod:`.kvstore_server`.
"""
from .base import create, KVStoreBase  # noqa: F401
from .kvstore import KVStore  # noqa: F401
from .kvstore_server import KVStoreServer  # noqa: F401
from . import base, kvstore, kvstore_server  # noqa: F401

__all__ = ['create', 'KVStoreBase', 'KVStore', 'KVStoreServer']
