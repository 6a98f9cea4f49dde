"""Summing CPU tensors of workers that share one host through shared memory (``/dev/shm``), which moves far
fewer bytes than a loopback TCP all-reduce: each worker copies its packed values into its own shared segment,
and once all have written, every worker adds up all segments (in rank order, so all get the same bits).

Each segment has two halves used in turn, so one collective per sum suffices: writing half h in sum k is safe
because every peer has started sum k-1 (the collective of sum k-1 said so), hence finished reading half h in
sum k-2; and the collective of sum k, issued after writing, tells that all peers have written.

Used by the dist stores for CPU buckets when every worker runs on the same host and ``$MXCOMPAT_KV_SHM`` is not
``0``; anything else (several hosts, no room in /dev/shm, CUDA tensors) goes through torch.distributed.
"""
import os
import socket
import uuid

import torch

from ..base import MXNetError

_DIR = '/dev/shm'
_ALIGN = 64


def _host_id():
    try:
        with open('/proc/sys/kernel/random/boot_id') as f:
            boot = f.read().strip()
    except OSError:
        boot = ''
    return socket.gethostname(), boot


class ShmSum:
    """Shared segments of one store, one per worker, grown together (every call here is collective)."""

    def __init__(self, group):
        self.group = group
        self.enabled = None   # decided on first use, identically on every rank
        self.half = 0         # bytes in each half of a segment
        self.side = 0         # the half the next sum uses
        self.segments = []    # uint8 tensors mapping each rank's segment
        self.generation = 0
        self.token = None

    def usable(self):
        if self.enabled is None:
            self.enabled = self._decide()
        return self.enabled

    def _decide(self):
        group = self.group
        if os.environ.get('MXCOMPAT_KV_SHM', '1') == '0' or group.size == 1:
            return False
        hosts = [None] * group.size
        group.call('shared-memory setup', group.dist.all_gather_object, hosts, (_host_id(), os.path.isdir(_DIR)))
        if any(h != hosts[0] for h in hosts) or not hosts[0][1]:
            return False
        token = [uuid.uuid4().hex if group.rank == 0 else None]
        group.call('shared-memory setup', group.dist.broadcast_object_list, token, src=0)
        self.token = token[0]
        return True

    def _path(self, rank, generation):
        return os.path.join(_DIR, 'mxcompat-kv-%s-%d-%d' % (self.token, generation, rank))

    def _agree(self, ok):
        """True when ``ok`` holds on every rank."""
        flag = torch.tensor([1 if ok else 0], dtype=torch.int32, device=self.group.control_device)
        what = 'shared-memory setup'
        self.group.wait(what, [self.group.call(what, self.group.dist.all_reduce, flag,
                                               op=self.group.dist.ReduceOp.MIN, async_op=True)])
        return bool(flag.item())

    def fits(self, nbytes):
        return nbytes <= self.half

    def reserve(self, nbytes):
        """Make each half of every segment hold ``nbytes`` (collective); returns False, on every rank and for
        good, if that is impossible."""
        if nbytes <= self.half:
            return True
        half = max(nbytes, 2 * self.half, 1 << 20)
        half = (half + (1 << 20) - 1) >> 20 << 20
        capacity = 2 * half
        self.generation += 1
        mine = self._path(self.group.rank, self.generation)
        ok = True
        try:
            # reserve the pages now: a full tmpfs then fails here instead of killing us with SIGBUS later
            fd = os.open(mine, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
            try:
                os.posix_fallocate(fd, 0, capacity)
            finally:
                os.close(fd)
            own = torch.from_file(mine, shared=True, size=capacity, dtype=torch.uint8)
        except (OSError, RuntimeError, AttributeError):  # AttributeError: no posix_fallocate on this OS
            ok = False
        segments = []
        if self._agree(ok):
            try:
                segments = [own if r == self.group.rank else
                            torch.from_file(self._path(r, self.generation), shared=True, size=capacity,
                                            dtype=torch.uint8) for r in range(self.group.size)]
            except (OSError, RuntimeError):
                ok = False
            ok = self._agree(ok)
        try:
            os.unlink(mine)  # every peer has mapped it (or given up): the mapping outlives the name
        except OSError:
            pass
        if not ok:
            self.enabled = False
            self.segments, self.half = [], 0
            return False
        self.segments, self.half, self.side = segments, half, 0
        return True

    def views(self, offset, numel, dtype, rank=None):
        """Bytes ``[offset, offset + numel * itemsize)`` of the current half of each rank's segment (or of
        ``rank``'s only) as ``dtype`` tensors."""
        start = self.side * self.half + offset
        stop = start + numel * torch.empty((), dtype=dtype).element_size()
        if rank is not None:
            return self.segments[rank][start:stop].view(dtype)
        return [seg[start:stop].view(dtype) for seg in self.segments]

    def flip(self):
        self.side ^= 1

    @staticmethod
    def layout(buckets):
        """Aligned byte offsets of the buckets' flat buffers laid end to end, and the total size."""
        offsets, total = [], 0
        for b in buckets:
            offsets.append(total)
            total += (b.flat.numel() * b.flat.element_size() + _ALIGN - 1) // _ALIGN * _ALIGN
        return offsets, total


def sum_into(out, parts):
    """``out = parts[0] + parts[1] + ...`` in this order (identical bits on every rank)."""
    if len(parts) < 2:
        raise MXNetError('shared-memory sum needs at least two workers')
    torch.add(parts[0], parts[1], out=out)
    for p in parts[2:]:
        out.add_(p)
