"""``KVStore``: the single-process store (MXNet's ``local``, ``device``, ``nccl`` and ``local_*`` types).

Semantics follow MXNet 1.9.1's ``KVStoreLocal``: values pushed for one key (one per device) are summed; without an
updater the store keeps the sum itself (a single pushed array is kept by reference, as MXNet does); with one, the
updater is called as ``updater(key, merged, stored)`` once per key and push, keys taken in MXNet's order (int keys
ascending, str keys in init order), str keys passed as ``bytes`` as MXNet's ctypes callback does.

Differs from MXNet: a push whose shape differs from the key's ``init`` shape raises at once (MXNet stores it and
fails at the next pull); unknown keys raise before any key of the call is processed; ``priority`` only orders
work in MXNet's engine and has no effect here (every call completes before it returns); row_sparse values are
kept row_sparse in the store as in MXNet (several row_sparse pushes of one key are merged into a row_sparse sum;
pushes of dense values into a row_sparse key are merged densely). ``set_updater`` is an alias of ``_set_updater``.
"""
import warnings

import numpy as np
import torch

from ..base import MXNetError
from ..context import Context, cpu_pinned
from ..ndarray.ndarray import NDArray
from .base import KVStoreBase, flatten_kv, _check
from ..ndarray import sparse
from .. import optimizer as opt

__all__ = ['KVStore']

_PINNED = cpu_pinned(0)
_CPU = torch.device('cpu')


class _NoGrad:
    """``torch.no_grad()`` without its per-use overhead (a few microseconds, which matter on small pushes)."""
    __slots__ = ('prev',)

    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        if self.prev:
            torch._C._set_grad_enabled(False)

    def __exit__(self, *exc):
        if self.prev:
            torch._C._set_grad_enabled(True)


def _shape_str(shape):
    return '[' + ','.join(str(int(s)) for s in shape) + ']'


def _ctx_for(device):
    return _PINNED if device.type == 'cpu' else Context('gpu', device.index or 0)


def quantize_2bit(residual, grad, threshold):
    """MXNet's 2-bit quantization: ``residual += grad``; entries >= threshold send +threshold, entries <=
    -threshold send -threshold, the rest 0; what is sent is taken off the residual. Returns what is sent."""
    residual.add_(grad)
    sent = torch.where(residual >= threshold, threshold, torch.where(residual <= -threshold, -threshold, 0.0))
    sent = sent.to(residual.dtype)
    residual.sub_(sent)
    return sent


class KVStore(KVStoreBase):
    """A single-process key-value store over the devices of this process."""

    def __init__(self, name='local'):
        self._type = name
        self._device_merge = 'device' in name or 'nccl' in name
        self._updater = None
        self._key_type = None     # 'int' or 'str' once a key has been used
        self._store = {}          # key -> stored NDArray
        self._meta = {}           # key -> (shape, torch dtype) given at init
        self._order = {}          # key -> MXNet's processing rank (int key itself; str keys: init order)
        self._merge = {}          # key -> merge buffer (tensor) for pushes of several values
        self._threshold = None    # 2-bit compression threshold, when set
        self._residual = {}       # (key, value index) -> compression residual
        self._sparse_warned = set()

    # -- keys ----------------------------------------------------------------------------------------------------
    def _set_key_type(self, use_str):
        kind = 'str' if use_str else 'int'
        if self._key_type is None:
            self._key_type = kind
        elif self._key_type != kind:
            raise MXNetError('Mixed key types are not allowed: this %s store uses %s keys, got %s keys'
                             % (self._type, self._key_type, kind))

    def _missing(self, key):
        if isinstance(key, str):
            return MXNetError("key %s doesn't exist. Did you init?" % key)
        return MXNetError('key %d has not been inited' % key)

    def _grouped(self, keys, vals):
        """``[(key, [values])]`` in MXNet's key order; every key must have been initialized."""
        k0 = keys[0]
        if keys.count(k0) == len(keys):  # one key (maybe with one value per device)
            if k0 not in self._store:
                raise self._missing(k0)
            return [(k0, vals)]
        groups = {}
        for k, v in zip(keys, vals):
            g = groups.get(k)
            if g is None:
                if k not in self._store:
                    raise self._missing(k)
                groups[k] = [v]
            else:
                g.append(v)
        order = self._order
        return sorted(groups.items(), key=lambda kv: order[kv[0]])

    def _updater_key(self, key):
        return key.encode('utf-8') if isinstance(key, str) else key

    # -- init ----------------------------------------------------------------------------------------------------
    def init(self, key, value):
        """Initialize ``key`` (or each key of a list) with a copy of ``value``; a key can be initialized once."""
        keys, vals, use_str = flatten_kv(key, value)
        self._init_flat(keys, vals, use_str)

    def _init_flat(self, keys, vals, use_str):
        if not keys:
            return []
        self._set_key_type(use_str)
        seen = set()
        for k, v in zip(keys, vals):
            if k in self._store or k in seen:
                raise MXNetError('duplicate init of key %s. Please double check if you called kv.init or '
                                 'kv.broadcast with this key multiple times' % k)
            seen.add(k)
        added = []
        with _NoGrad():
            for k, v in zip(keys, vals):
                t = v._t.detach().to(_CPU, copy=True)
                # a row_sparse value stays row_sparse (as MXNet's store; the updater sees it so)
                self._store[k] = NDArray._from_tensor(t, _PINNED) if type(v) is NDArray else v.copyto(_PINNED)
                self._meta[k] = (tuple(t.shape), t.dtype)
                self._order[k] = len(self._order) if use_str else k
                added.append(k)
        return added

    # -- push ----------------------------------------------------------------------------------------------------
    def push(self, key, value, priority=0):
        """Sum the values of each key over devices and store the sum (or hand it to the updater)."""
        keys, vals, use_str = flatten_kv(key, value)
        if keys:
            self._push_flat(keys, vals, use_str)

    def _push_groups(self, keys, vals, use_str):
        self._set_key_type(use_str)
        groups = self._grouped(keys, vals)
        for k, vs in groups:
            shape = self._meta[k][0]
            for v in vs:
                if v._t.shape != shape:
                    raise MXNetError('KVStore.push: key %s: operands shape mismatch from.shape = %s to.shape=%s'
                                     % (k, _shape_str(v.shape), _shape_str(shape)))
        return groups

    def _push_flat(self, keys, vals, use_str):
        groups = self._push_groups(keys, vals, use_str)
        with _NoGrad():
            for k, vs in groups:
                merged = self._reduce_compressed(k, vs) if self._threshold is not None else self._reduce(k, vs)
                self._apply(k, merged)

    def _merge_buffer(self, k, device):
        buf = self._merge.get(k)
        if buf is None or buf.device != device:
            shape, dtype = self._meta[k]
            buf = self._merge[k] = torch.empty(shape, dtype=dtype, device=device)
        return buf

    def _reduce(self, k, vs):
        """The sum of ``vs``: the array itself for one value, else a per-key buffer (reused across pushes)."""
        if len(vs) == 1:
            return vs[0]
        if type(vs[0]) is not NDArray and all(v.stype == 'row_sparse' for v in vs):
            return sparse.add_n(*[v.as_in_context(_PINNED) for v in vs])  # row_sparse sum, as MXNet
        ts = [v._t for v in vs]
        device = ts[0].device if self._device_merge else _CPU
        buf = self._merge_buffer(k, device)
        dtype = buf.dtype
        if any(t.device != device or t.dtype != dtype for t in ts):
            ts = [t.to(device, dtype) for t in ts]
        torch.add(ts[0], ts[1], out=buf)
        for t in ts[2:]:
            buf.add_(t)
        return NDArray._from_tensor(buf, _ctx_for(device))

    def _reduce_compressed(self, k, vs):
        """Each value is 2-bit quantized with its own residual before the sum (MXNet's ``device`` stores)."""
        for v in vs:
            if v._t.dtype != torch.float32:
                raise MXNetError('Gradient compression is only supported for float32 type of parameters; key %s '
                                 'has dtype %s' % (k, np.dtype(v.dtype).name))
        device = vs[0]._t.device
        buf = self._merge_buffer(k, device)
        for i, v in enumerate(vs):
            t = v._t
            res = self._residual.get((k, i))
            if res is None or res.device != t.device:
                res = self._residual[(k, i)] = torch.zeros_like(t)
            sent = quantize_2bit(res, t, self._threshold).to(device)
            if i == 0:
                buf.copy_(sent)
            else:
                buf.add_(sent)
        return NDArray._from_tensor(buf, _ctx_for(device))

    def _apply(self, k, merged):
        """Store ``merged`` for ``k``, or call the updater on it."""
        if self._updater is None:
            self._store[k] = merged
            return
        stored = self._store[k]
        if merged._t.device != stored._t.device and stored._t.device.type == 'cpu':
            stored = self._store[k] = stored.copyto(merged.context)  # (keeps a row_sparse value row_sparse)
        self._updater(self._updater_key(k), merged, stored)

    # -- pull ----------------------------------------------------------------------------------------------------
    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the stored value of each key into every array of ``out``."""
        _check(out is not None)
        keys, outs, use_str = flatten_kv(key, out)
        if keys:
            self._pull_flat(keys, outs, use_str, ignore_sparse)

    def _pull_groups(self, keys, outs, use_str, ignore_sparse=True):
        """``[(key, [out tensors])]`` in MXNet's key order, after checking keys and shapes; sparse outputs are
        skipped with a warning, as MXNet does."""
        self._set_key_type(use_str)
        groups = []
        for k, os_ in self._grouped(keys, outs):
            shape = self._meta[k][0]
            ts = []
            for o in os_:
                if type(o) is not NDArray and o.stype != 'default':
                    if not ignore_sparse:
                        ts.append(o)  # the whole value, written through the sparse array's dense view
                        continue
                    if k not in self._sparse_warned:
                        self._sparse_warned.add(k)
                        warnings.warn('non-default weights detected during kvstore pull of key %s; the pull into '
                                      'them was ignored (use kv.row_sparse_pull)' % k)
                    continue
                if o._t.shape != shape:
                    raise MXNetError('KVStore.pull: key %s: operands shape mismatch from.shape = %s to.shape=%s'
                                     % (k, _shape_str(shape), _shape_str(o.shape)))
                ts.append(o._t)
            groups.append((k, ts))
        return groups

    def _copy_out(self, k, outs):
        src = self._store[k]._t
        for ot in outs:
            if type(ot) is not torch.Tensor:  # a sparse output pulled with ignore_sparse=False
                ot[:] = self._store[k]
            elif ot is not src:
                ot.copy_(src)

    def _pull_flat(self, keys, outs, use_str, ignore_sparse=True):
        groups = self._pull_groups(keys, outs, use_str, ignore_sparse)
        with _NoGrad():
            for k, ts in groups:
                self._copy_out(k, ts)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull``; the result goes to ``out``, or back into ``value`` when ``out`` is None."""
        vkeys, vals, use_str = flatten_kv(key, value)
        okeys, outs = (vkeys, vals) if out is None else flatten_kv(key, out)[:2]
        if vkeys:
            self._push_flat(vkeys, vals, use_str)
        if okeys:
            self._pull_flat(okeys, outs, use_str)

    def broadcast(self, key, value, out, priority=0):
        """``init`` the key(s) with ``value``, then ``pull`` them into ``out``."""
        vkeys, vals, use_str = flatten_kv(key, value)
        okeys, outs, _ = flatten_kv(key, out)
        self._init_flat(vkeys, vals, use_str)
        if okeys:
            self._pull_flat(okeys, outs, use_str)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull only the rows ``row_ids`` of each key's value into row_sparse ``out`` arrays (the rows asked for,
        sorted and without repeats, are stored; others are zero). With one ``row_ids`` for a list ``out``, the first
        output is pulled and copied to the others, as MXNet does."""
        _check(out is not None)
        _check(row_ids is not None)
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        _check(isinstance(row_ids, list), 'row_ids should be NDArray or list of NDArray')
        single = len(row_ids) == 1 and isinstance(out, list)
        first = [out[0]] if single else out
        keys, outs, use_str = flatten_kv(key, first)
        rids = flatten_kv(key, row_ids)[1]
        _check(len(rids) == len(outs), "the number of row_ids doesn't match the number of values")
        self._set_key_type(use_str)
        self._grouped(keys, outs)
        for o in outs:
            if o.stype != 'row_sparse':
                raise MXNetError('Expected row_sparse storage type for row_sparse_pull values, but detected '
                                 'storage type %s' % o.stype)
        with _NoGrad():
            for k, o, rid in zip(keys, outs, rids):
                src = self._store[k]._t
                if tuple(src.shape) != o.shape:
                    raise MXNetError('KVStore.row_sparse_pull: key %s: operands shape mismatch from.shape = %s '
                                     'to.shape=%s' % (k, _shape_str(src.shape), _shape_str(o.shape)))
                rows = torch.unique(rid._t.detach().reshape(-1).to(torch.int64)).to(src.device)
                dev = o._cmp()[0].device
                o._assign_comps((src[rows].to(dev, o._tdtype, copy=True), rows.to(dev)))
        if single:
            for o in out[1:]:
                out[0].copyto(o)

    # -- updater and optimizer ---------------------------------------------------------------------------------
    def set_gradient_compression(self, compression_params):
        """2-bit compression with residuals (``{'type': '2bit', 'threshold': 0.5}``), for ``device``/``dist``
        types only, as in MXNet."""
        if 'device' not in self.type and 'dist' not in self.type:
            raise MXNetError('Gradient compression is not supported for this type of kvstore')
        _check(isinstance(compression_params, dict),
               'unexpected type for param_dict: ' + str(type(compression_params)))
        params = {str(k): str(v) for k, v in compression_params.items()}
        if 'type' not in params:
            raise MXNetError('Required parameter type of string is not presented')
        try:
            threshold = float(params.get('threshold', '0.5'))
        except ValueError:
            raise MXNetError("Invalid Parameter format for threshold expect float but value='%s'"
                             % params['threshold']) from None
        if not threshold > 0:
            raise MXNetError('threshold must be greater than 0, got %s' % threshold)
        if params['type'] != '2bit':
            raise MXNetError('Unknown type for gradient compression ' + params['type'])
        self._threshold = float(np.float32(threshold))

    def set_optimizer(self, optimizer):
        """Apply ``optimizer`` (through ``mx.optimizer.get_updater``) on every push."""
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Call ``updater(key, merged, stored)`` on every push instead of storing the merged value."""
        self._updater = updater

    set_updater = _set_updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the updater's states (MXNet's pickle format) to ``fname``."""
        _check(self._updater is not None, 'Cannot save states for distributed training')
        with open(fname, 'wb') as f:
            f.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Read states written by ``save_optimizer_states`` (here or by MXNet)."""
        _check(self._updater is not None, 'Cannot load states for distributed training')
        with open(fname, 'rb') as f:
            self._updater.set_states(f.read())

    # -- properties ------------------------------------------------------------------------------------------
    def is_capable(self, capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError('Unknown capability: {}'.format(capability))

    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def _barrier(self):
        """A no-op for a single-process store (as in MXNet)."""

    def _send_command_to_servers(self, head, body):
        """A no-op: a single-process store has no servers (as in MXNet)."""
