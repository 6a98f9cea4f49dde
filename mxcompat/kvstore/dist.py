"""``DistKVStore``: MXNet's ``dist_sync``, ``dist_device_sync``, ``dist_sync_device`` and ``dist_async`` types
(and ``horovod``/``byteps``) on ``torch.distributed``, for workers started by ``torchrun``.

Each worker keeps a full replica of the store. ``init``/``broadcast`` take rank 0's values; a push sums the
values over this worker's devices, then over all workers, and every worker applies the same update (the
optimizer of ``set_optimizer`` runs on each worker instead of on parameter servers), so replicas stay identical.
Pushes are queued and summed together at the next ``pull``/``pushpull``/``init``/``_barrier``: CPU values of
workers on one host through shared memory, others by one all-reduce per (device, dtype) bucket. Each such step
starts with an eight-byte check that every worker sends the same keys, shapes and dtypes (a mismatch raises an
MXNetError naming the keys and ranks). Every collective times out after ``$MXCOMPAT_KV_TIMEOUT`` seconds
(default 300) with an MXNetError. The process group is taken from ``torch.distributed`` if the script made one,
otherwise created from torchrun's environment (gloo for CPU tensors, NCCL for CUDA tensors when available);
without torchrun's environment the store has one worker. ``$MXCOMPAT_KV_SHM=0`` turns shared memory off.

Differs from MXNet: ``dist_async`` warns and runs synchronously; all workers must push the same keys between two
pulls (MXNet's servers allow any interleaving); a pushed array is read when the pushes are summed, so it must
not be written to before the next pull; without an updater, the stored value of a key may share memory with the
first output its sum was pulled into (as MXNet's local stores keep a pushed array); ``save_optimizer_states`` and
``load_optimizer_states`` work (MXNet keeps the states on its servers and refuses); a custom ``_set_updater``
runs on every worker (MXNet ignores a worker's updater in dist mode); updater keys are the keys given (MXNet's
servers see str keys as ints); server commands (``_send_command_to_servers``) have no servers to go to and are
dropped with a warning.
"""
import os
import warnings

import torch

from ..base import MXNetError, dtype_name
from ..ndarray.ndarray import NDArray
from ._collective import Group
from ._shm import ShmSum, sum_into
from .base import flatten_kv
from .kvstore import KVStore, quantize_2bit, _ctx_for, _NoGrad

__all__ = ['DistKVStore']

_FLAT_CACHE_SIZE = 64
_CHUNK_ENV = 'MXCOMPAT_KV_CHUNK_BYTES'
_warned = set()


def _chunk_bytes():
    raw = os.environ.get(_CHUNK_ENV, str(64 << 20))
    try:
        return max(4096, int(raw))
    except ValueError:
        raise MXNetError('%s must be a number of bytes, got %r' % (_CHUNK_ENV, raw)) from None


def _same_data(a, b):
    return a is b or (a.data_ptr() == b.data_ptr() and a.dtype == b.dtype and a.shape == b.shape
                      and a.stride() == b.stride() and a.device == b.device)


def _copy_all(dst, src):
    """``dst[i].copy_(src[i])`` for all i, in one foreach call when dtypes and devices allow."""
    try:
        torch._foreach_copy_(dst, src)
    except (RuntimeError, TypeError):
        for d, s in zip(dst, src):
            d.copy_(s)


class _Bucket:
    """Tensors of one (device, dtype) laid end to end in a flat buffer, copied in and out by element ranges."""

    def __init__(self, flat, members):
        self.flat = flat
        self.members = []   # (key, tensor, flat view of the tensor, offset in flat)
        offset = 0
        for k, t in members:
            self.members.append((k, t, t.reshape(-1), offset))
            offset += t.numel()
        self._next_in = 0   # first member not fully copied in
        self._next_out = 0  # first member not yet handed out

    def chunks(self, chunk_bytes):
        n = self.flat.numel()
        step = max(1, chunk_bytes // self.flat.element_size())
        return [(s, min(n, s + step)) for s in range(0, n, step)] or [(0, 0)]

    def copy_in(self, start, stop, dest=None):
        """Copy the elements ``[start, stop)`` of the concatenated tensors into the flat buffer (or ``dest``, a
        tensor of the same size)."""
        dest = self.flat if dest is None else dest
        if start == 0 and stop == dest.numel():
            if self.members:
                torch.cat([src for _, _, src, _ in self.members], out=dest)
            self._next_in = len(self.members)
            return
        i = self._next_in
        while i < len(self.members):
            _, _, src, off = self.members[i]
            end = off + src.numel()
            lo, hi = max(start, off), min(stop, end)
            if hi > lo:
                dest[lo:hi].copy_(src[lo - off:hi - off])
            if end > stop:
                break
            i += 1
        self._next_in = i

    def ready(self, stop):
        """``[(key, result view)]`` for the members lying wholly below element ``stop`` not handed out yet."""
        out = []
        while self._next_out < len(self.members):
            k, t, src, off = self.members[self._next_out]
            if off + src.numel() > stop:
                break
            out.append((k, self.flat[off:off + src.numel()].view(t.shape)))
            self._next_out += 1
        return out


def _warn_once(tag, msg):
    if tag not in _warned:
        _warned.add(tag)
        warnings.warn(msg, stacklevel=3)


class DistKVStore(KVStore):
    """A store whose pushes are summed across the torch.distributed workers."""

    def __init__(self, name='dist_sync'):
        super().__init__(name)
        if 'async' in name:
            _warn_once('async', "mx.kv.create(%r): asynchronous updates are not supported by mxcompat; the store "
                                'runs synchronously (as dist_sync)' % name)
        self._group = Group(name)
        self._shm = ShmSum(self._group)
        self._pending = {}      # key -> tensor to all-reduce (local sum, quantized when compression is on)
        self._flat = {}         # bucket layout -> reusable flat buffer

    # -- properties ----------------------------------------------------------------------------------------
    @property
    def rank(self):
        return self._group.rank

    @property
    def num_workers(self):
        return self._group.size

    # -- collectives ---------------------------------------------------------------------------------------
    def _flat_buffer(self, layout, numel, dtype, device):
        buf = self._flat.get(layout) if layout[0] == 'push' else None
        if buf is None:
            if len(self._flat) >= _FLAT_CACHE_SIZE:
                self._flat.clear()
            buf = torch.empty(numel, dtype=dtype, device=device)
            if layout[0] == 'push':
                self._flat[layout] = buf
        return buf

    def _buckets(self, op, items):
        """``items`` (``[(key, tensor)]``) packed into one reusable flat buffer per (device, dtype)."""
        groups = {}
        for k, t in items:
            groups.setdefault((t.device, t.dtype), []).append((k, t))
        buckets = []
        for (device, dtype), members in groups.items():
            numels = tuple(t.numel() for _, t in members)
            layout = (op, device, dtype, tuple(k for k, _ in members), numels)
            buckets.append(_Bucket(self._flat_buffer(layout, sum(numels), dtype, device), members))
        return buckets

    def _flush(self, outs=None):
        """Sum the queued pushes across workers and apply them: CPU buckets through shared memory when all workers
        share this host, others by all-reduce, a bucket larger than ``$MXCOMPAT_KV_CHUNK_BYTES`` (default 64 MiB)
        in chunks, so copying in, reducing and copying out overlap. ``outs`` maps keys to output tensors to fill
        once their key is done; returns the keys filled."""
        done = set()
        if not self._pending:
            return done
        pending, self._pending = self._pending, {}
        items = sorted(pending.items(), key=lambda kv: kv[0])
        group = self._group
        with _NoGrad():
            if group.size == 1:
                self._finish(items, outs, done)
                return done
            use_shm = self._shm.usable()  # collective the first time
            chunk_bytes = _chunk_bytes()  # part of the checked description: chunks must match across ranks
            buckets = self._buckets('push', items)
            local = [b for b in buckets if use_shm and b.flat.device.type == 'cpu']
            offsets, total = ShmSum.layout(local)
            written = bool(local) and self._shm.fits(total)
            if written:
                self._write_shared(local, offsets)
            # the check is each flush's first collective, and (written or not) it is issued after writing
            group.check_same('push (in %d-byte chunks)' % chunk_bytes,
                             [(k, tuple(t.shape), t.dtype) for k, t in items])
            if local:
                if not written and self._shm.reserve(total):
                    self._write_shared(local, offsets)
                    group.barrier()
                    written = True
                if written:
                    for bucket, off in zip(local, offsets):
                        self._sum_shared(bucket, self._shm.views(off, bucket.flat.numel(), bucket.flat.dtype),
                                         outs, done)
                    self._shm.flip()
                    buckets = [b for b in buckets if b not in local]
            what = 'all-reduce of %d key(s)' % len(items)
            works = []
            for bucket in buckets:
                for start, stop in bucket.chunks(chunk_bytes):
                    bucket.copy_in(start, stop)
                    works.append((group.start_all_reduce(what, bucket.flat[start:stop]), bucket, stop))
            for work, bucket, stop in works:
                group.wait(what, [work])
                self._finish(bucket.ready(stop), outs, done)
        return done

    def _sum_shared(self, bucket, parts, outs, done):
        """Sum the workers' copies of ``bucket`` (``parts``). Without an updater, a key's sum goes straight into
        its first output, which then holds the stored value (saving a copy); other keys' sums go to the flat
        buffer."""
        if self._updater is not None or not outs:
            sum_into(bucket.flat, parts)
            self._finish(bucket.ready(bucket.flat.numel()), outs, done)
            return
        rest = []
        for k, t, src, off in bucket.members:
            stop = off + src.numel()
            dst = outs.get(k)
            first = dst[0] if dst else None
            if first is None or first.dtype != t.dtype or first.device != t.device or not first.is_contiguous():
                sum_into(bucket.flat[off:stop], [p[off:stop] for p in parts])
                rest.append((k, bucket.flat[off:stop].view(t.shape)))
                continue
            sum_into(first.view(-1), [p[off:stop] for p in parts])
            self._apply(k, NDArray._from_tensor(first, _ctx_for(first.device)))
            if len(dst) > 1:
                _copy_all(dst[1:], [first] * (len(dst) - 1))
            done.add(k)
        bucket.ready(bucket.flat.numel())
        self._finish(rest, outs, done)

    def _write_shared(self, buckets, offsets):
        """Pack ``buckets`` into the current half of this worker's shared segment."""
        rank = self._group.rank
        for bucket, off in zip(buckets, offsets):
            n = bucket.flat.numel()
            bucket.copy_in(0, n, self._shm.views(off, n, bucket.flat.dtype, rank))

    def _finish(self, reduced, outs, done):
        """Apply ``reduced`` (``[(key, tensor)]``) and fill the outputs of those keys."""
        for k, t in reduced:
            self._apply(k, NDArray._from_tensor(t, _ctx_for(t.device)))
        if outs is not None:
            dst, src = [], []
            for k, _ in reduced:
                if k in outs:
                    done.add(k)
                    s = self._store[k]._t
                    for o in outs[k]:
                        if not _same_data(o, s):
                            dst.append(o)
                            src.append(s)
            if dst:
                _copy_all(dst, src)

    # -- store operations ----------------------------------------------------------------------------------
    def _init_flat(self, keys, vals, use_str):
        self._flush()
        added = super()._init_flat(keys, vals, use_str)
        if not added:
            return added
        try:
            items = sorted(((k, self._store[k]._t) for k in added), key=lambda kv: kv[0])
            if self._group.size > 1:
                self._group.check_same('init', [(k, tuple(t.shape), t.dtype) for k, t in items])
                buckets = self._buckets('init', items)
                with _NoGrad():
                    for bucket in buckets:
                        bucket.copy_in(0, bucket.flat.numel())
                    self._group.broadcast('init of %d key(s)' % len(items), [b.flat for b in buckets])
                for bucket in buckets:
                    for k, t in bucket.ready(bucket.flat.numel()):
                        self._store[k] = NDArray._from_tensor(t, self._store[k].context)
        except BaseException:
            for k in added:
                del self._store[k], self._meta[k], self._order[k]
            raise
        return added

    def _push_flat(self, keys, vals, use_str):
        groups = self._push_groups(keys, vals, use_str)
        if any(k in self._pending for k, _ in groups):
            self._flush()
        with _NoGrad():
            for k, vs in groups:
                t = self._reduce(k, vs)._t
                if self._threshold is not None:
                    t = self._quantize(k, t)
                self._pending[k] = t

    def _quantize(self, k, t):
        if t.dtype != torch.float32:
            raise MXNetError('Gradient compression is only supported for float32 type of parameters; key %s has '
                             'dtype %s' % (k, dtype_name(t.dtype)))
        res = self._residual.get(k)
        if res is None or res.device != t.device:
            res = self._residual[k] = torch.zeros_like(t)
        return quantize_2bit(res, t, self._threshold)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        if not ignore_sparse:
            raise MXNetError("dist kvstore pull doesn't support ignore_sparse=False")
        super().pull(key, out=out, priority=priority)

    def pushpull(self, key, value, out=None, priority=0):
        """As MXNet's dist stores: the pushed and pulled keys must match and outputs keep the pushed dtype."""
        if self._threshold is not None:
            raise MXNetError('Compression not supported with PushPull (%s store); use push and pull' % self.type)
        if out is not None:
            vkeys, vals, _ = flatten_kv(key, value)
            okeys, outs, _ = flatten_kv(key, out)
            if set(vkeys) != set(okeys):
                raise MXNetError('List of push and pull keys are different')
            dtypes = {k: v._t.dtype for k, v in zip(vkeys, vals)}
            for k, o in zip(okeys, outs):
                if o._t.dtype != dtypes[k]:
                    raise MXNetError('Output buffer dtype is different: key %s pushes %s, out is %s'
                                     % (k, dtype_name(dtypes[k]), dtype_name(o._t.dtype)))
        super().pushpull(key, value, out=out, priority=priority)

    def _pull_flat(self, keys, outs, use_str, ignore_sparse=True):
        groups = self._pull_groups(keys, outs, use_str, ignore_sparse)
        done = self._flush(dict(groups))
        with _NoGrad():
            for k, ts in groups:
                if k not in done:
                    self._copy_out(k, ts)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        self._flush()
        super().row_sparse_pull(key, out=out, priority=priority, row_ids=row_ids)

    def _barrier(self):
        """Reduce queued pushes, then wait for every worker."""
        self._flush()
        self._group.barrier()

    def _set_updater(self, updater):
        self._flush()
        super()._set_updater(updater)

    set_updater = _set_updater

    def set_gradient_compression(self, compression_params):
        self._flush()
        super().set_gradient_compression(compression_params)

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Every worker holds the same states; any of them (usually rank 0) can save them."""
        self._flush()
        super().save_optimizer_states(fname, dump_optimizer)

    def load_optimizer_states(self, fname):
        self._flush()
        super().load_optimizer_states(fname)

    def _send_command_to_servers(self, head, body):
        _warn_once('command', 'KVStore(%s)._send_command_to_servers: there are no parameter servers under '
                              'torchrun; the command (%s) was dropped' % (self.type, head))
