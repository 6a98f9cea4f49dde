"""``KVStoreServer`` and the start-up check for ps-lite roles.

Differs from MXNet: there are no parameter servers. ``torchrun`` starts only workers, which all-reduce among
themselves, so a process launched with ``DMLC_ROLE=server`` or ``DMLC_ROLE=scheduler`` (by MXNet's ``launch.py``
or a cluster template) has nothing to do: importing mxcompat prints why and exits with status 0.
"""
import os
import sys

from ..base import unsupported

__all__ = ['KVStoreServer']

_WHY = ('torchrun replaces ps-lite: launch only the workers, e.g. `torchrun --nproc_per_node=N script.py` '
        "(or `python -m mxcompat` under torchrun), and use mx.kv.create('dist_sync')")


class KVStoreServer:
    """Not supported: workers all-reduce through torch.distributed, with no server processes."""

    def __init__(self, kvstore):
        self.kvstore = kvstore

    def run(self):
        raise unsupported('mx.kvstore.KVStoreServer.run', 'parameter-server processes', _WHY)


def _exit_if_server_role():
    role = os.environ.get('DMLC_ROLE', 'worker').lower()
    if role in ('server', 'scheduler'):
        sys.stderr.write('mxcompat: this process was started as a ps-lite %s (DMLC_ROLE=%s), which is not needed: '
                         '%s. Exiting.\n' % (role, os.environ['DMLC_ROLE'], _WHY))
        sys.stderr.flush()
        sys.exit(0)


_exit_if_server_role()
