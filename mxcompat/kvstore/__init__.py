"""``mx.kv`` / ``mx.kvstore``: key-value stores for data-parallel training.

``create('local')`` and the other single-process types sum values over this process's devices; ``dist_*`` types
(and ``horovod``/``byteps``) also all-reduce across the workers that ``torchrun`` started, over
``torch.distributed``. ps-lite servers and schedulers do not exist here: see :mod:`.kvstore_server`.
The modules build on each other in one direction: ``base`` (the interface), ``kvstore`` (the local store),
``dist`` (the distributed store, a local store that also all-reduces); ``create`` chooses among them.
"""
from ..base import string_types
from .base import KVStoreBase
from .kvstore import KVStore
from .kvstore_server import KVStoreServer
from . import base, dist, kvstore, kvstore_server  # noqa: F401

__all__ = ['create', 'KVStoreBase', 'KVStore', 'KVStoreServer']


def create(name='local'):
    """A new store: a registered one, ``dist*``/``horovod``/``byteps`` (torch.distributed), or a local one.

    Local types (``local``, ``device``, ``nccl``, ``local_update_cpu``, ``local_allreduce_cpu``,
    ``local_allreduce_device``, and any other unregistered name, as in MXNet) share one implementation; names
    holding ``device`` merge on the values' device and allow gradient compression.
    Differs from MXNet: names that are not registered make this package's stores instead of ps-lite/C++ ones;
    ``horovod`` and ``byteps`` (local stores in MXNet 1.9.1) make the distributed store, so a script written for
    those backends all-reduces across its torchrun workers. MXNet also offers this function as
    ``mx.kvstore.base.create``; here it is ``mx.kv.create`` only.
    """
    if not isinstance(name, string_types):
        raise TypeError('name must be a string')
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if 'dist' in name or name in ('horovod', 'byteps'):
        return dist.DistKVStore(name)
    return KVStore(name)
