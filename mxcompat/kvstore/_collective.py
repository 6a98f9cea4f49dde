"""The torch.distributed side of the dist stores: the process group, collectives that time out with an
``MXNetError`` instead of hanging, and the metadata check run before each fused collective."""
import atexit
import datetime
import hashlib
import os

import torch.distributed as dist
import torch

from ..base import MXNetError

_TIMEOUT_ENV = 'MXCOMPAT_KV_TIMEOUT'


def timeout_seconds():
    """The collective timeout: ``$MXCOMPAT_KV_TIMEOUT`` seconds (default 300)."""
    raw = os.environ.get(_TIMEOUT_ENV, '300')
    try:
        value = float(raw)
    except ValueError:
        raise MXNetError('%s must be a number of seconds, got %r' % (_TIMEOUT_ENV, raw)) from None
    if value <= 0:
        raise MXNetError('%s must be positive, got %r' % (_TIMEOUT_ENV, raw))
    return value


def _env_world_size():
    try:
        return int(os.environ.get('WORLD_SIZE', '1'))
    except ValueError:
        raise MXNetError('WORLD_SIZE must be an integer, got %r' % os.environ['WORLD_SIZE']) from None


class Group:
    """The default torch.distributed process group, created from torchrun's environment on first use.

    Without a process group and with ``WORLD_SIZE`` unset or 1, the group has one member and every collective is
    a no-op, so a dist script also runs as a single plain process.
    """

    def __init__(self, store_type):
        self.store_type = store_type
        self.rank, self.size = 0, 1
        self.dist = None
        if not dist.is_available():
            if _env_world_size() > 1:
                raise MXNetError('KVStore(%s): this torch build has no torch.distributed' % store_type)
            return
        if not dist.is_initialized():
            if _env_world_size() <= 1:
                return
            self._init_process_group(dist)
        self.dist = dist
        self.rank, self.size = dist.get_rank(), dist.get_world_size()
        backend = str(dist.get_backend()).lower()
        # a CUDA-only group (NCCL) cannot move CPU tensors: small control tensors then go through CUDA
        self.control_device = (torch.device('cpu') if 'gloo' in backend or 'mpi' in backend
                               else torch.device('cuda', torch.cuda.current_device()))

    def _init_process_group(self, dist):
        missing = [v for v in ('RANK', 'MASTER_ADDR', 'MASTER_PORT') if v not in os.environ]
        if missing:
            raise MXNetError('KVStore(%s): WORLD_SIZE=%s but %s not set; start the workers with torchrun '
                             '(e.g. `torchrun --nproc_per_node=2 script.py`)'
                             % (self.store_type, os.environ.get('WORLD_SIZE'), ', '.join(missing)))
        cuda = torch.cuda.is_available() and dist.is_nccl_available()
        backend = 'cpu:gloo,cuda:nccl' if cuda else 'gloo'
        try:
            dist.init_process_group(backend, init_method='env://',
                                    timeout=datetime.timedelta(seconds=timeout_seconds()))
        except Exception as e:  # rendezvous failures come as several exception types
            raise MXNetError('KVStore(%s): could not join the torch.distributed group (rank %s of %s at %s:%s): %s'
                             % (self.store_type, os.environ.get('RANK'), os.environ.get('WORLD_SIZE'),
                                os.environ.get('MASTER_ADDR'), os.environ.get('MASTER_PORT'), _first_line(e))) from e
        # a gloo group left to interpreter teardown can abort the process ("terminate called without an active
        # exception") while its worker threads still hold tensors; the group we created is ours to destroy
        atexit.register(_destroy_group, dist)

    # -- collectives ------------------------------------------------------------------------------------------
    def _error(self, what, e):
        return MXNetError('KVStore(%s): %s failed on rank %d of %d: %s. Another worker may have exited or stopped '
                          'calling the kvstore (timeout %s=%g s)'
                          % (self.store_type, what, self.rank, self.size, _first_line(e), _TIMEOUT_ENV,
                             timeout_seconds()))

    def _wait(self, what, works):
        limit = datetime.timedelta(seconds=timeout_seconds())
        try:
            for work in works:
                if work is not None:
                    work.wait(timeout=limit)
        except MXNetError:
            raise
        except Exception as e:  # DistBackendError, RuntimeError from gloo/NCCL
            raise self._error(what, e) from e

    wait = _wait

    def call(self, what, fn, *args, **kwargs):
        """``fn(*args, **kwargs)`` (a blocking torch.distributed call), its failures raised as MXNetError."""
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise self._error(what, e) from e

    def _issue(self, what, fn, *args, **kwargs):
        return self.call(what, fn, *args, async_op=True, **kwargs)

    def all_reduce(self, what, tensors):
        """Sum each tensor across workers, in place (issued together, then waited for)."""
        if self.size > 1:
            self._wait(what, [self._issue(what, self.dist.all_reduce, t) for t in tensors])

    def start_all_reduce(self, what, tensor):
        """Issue an in-place all-reduce SUM; ``wait(what, [work])`` completes it."""
        return self._issue(what, self.dist.all_reduce, tensor)

    def broadcast(self, what, tensors, src=0):
        """Overwrite each tensor with rank ``src``'s."""
        if self.size > 1:
            self._wait(what, [self._issue(what, self.dist.broadcast, t, src) for t in tensors])

    def barrier(self):
        if self.size > 1:
            self._wait('barrier', [self._issue('barrier', self.dist.barrier)])

    def start_check(self, op, entries):
        """Start checking that every rank is about to run the same collective on the same keys, shapes and dtypes
        (``entries``: ``[(key, shape, dtype)]``): one all-reduce (MAX) of a 64-bit digest and its negation, which
        agree on every rank exactly when the digests do. ``finish_check`` completes it."""
        desc = (op, [(k, tuple(s), str(d)) for k, s, d in entries])
        digest = hashlib.blake2b(repr(desc).encode('utf-8'), digest_size=8).digest()
        h = int.from_bytes(digest, 'little', signed=True) >> 1  # keeps -h representable
        t = torch.tensor([h, -h], dtype=torch.int64, device=self.control_device)
        what = '%s metadata check' % op
        return desc, h, t, what, self._issue(what, self.dist.all_reduce, t, op=self.dist.ReduceOp.MAX)

    def finish_check(self, token):
        """Raise an MXNetError on every rank, naming the differing keys and ranks, if the check found a mismatch."""
        desc, h, t, what, work = token
        self._wait(what, [work])
        top, neg_bottom = (int(v) for v in t.tolist())
        if top == h and -neg_bottom == h:
            return
        descs = [None] * self.size
        try:
            self.dist.all_gather_object(descs, desc)
        except Exception as e:
            raise MXNetError('KVStore(%s) %s: workers disagree on the keys, shapes or dtypes to reduce, and '
                             'gathering the details failed: %s' % (self.store_type, desc[0], _first_line(e))) from e
        raise MXNetError('KVStore(%s) %s on rank %d: workers disagree on what to reduce, so the collective would '
                         'hang: %s' % (self.store_type, desc[0], self.rank, describe_mismatch(descs)))

    def check_same(self, op, entries):
        """``start_check`` + ``finish_check``."""
        if self.size > 1:
            self.finish_check(self.start_check(op, entries))


def _destroy_group(dist):
    if dist.is_initialized():
        dist.destroy_process_group()


def _first_line(e):
    lines = [line for line in str(e).splitlines() if line.strip()]
    return (lines[0] if lines else type(e).__name__)[:500]


def describe_mismatch(descs):
    """What differs between the ranks' ``(op, [(key, shape, dtype)])`` descriptions, naming keys and ranks."""
    n = len(descs)
    problems = []
    ops = [d[0] for d in descs]
    if len(set(ops)) > 1:
        problems.append('ranks are in different calls (%s)' % ', '.join('rank %d: %s' % (r, o) for r, o in
                                                                       enumerate(ops)))
    per_rank = [{k: (s, dt) for k, s, dt in d[1]} for d in descs]
    keys = []
    for d in descs:
        for k, _, _ in d[1]:
            if k not in keys:
                keys.append(k)
    for k in keys:
        have = [r for r in range(n) if k in per_rank[r]]
        if len(have) < n:
            problems.append('key %r is sent by rank(s) %s but not by rank(s) %s'
                            % (k, have, [r for r in range(n) if r not in have]))
        elif len(set(per_rank[r][k] for r in range(n))) > 1:
            problems.append('key %r differs: %s' % (k, '; '.join('rank %d has shape %s dtype %s'
                                                                  % ((r,) + per_rank[r][k]) for r in range(n))))
    if not problems:
        problems.append('the same keys come in a different order')
    more = len(problems) - 10
    return '; '.join(problems[:10]) + ('; and %d more' % more if more > 0 else '')
