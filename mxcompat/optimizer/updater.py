"""``Updater``: applies an optimizer to (index, grad, weight) triples and keeps the per-index states (what kvstore
and gluon's Trainer call).

States pickle as in MXNet: a dict index -> state, or ``(states, optimizer)`` with ``dump_optimizer``.
``set_states`` also reads pickles written by MXNet itself (their ``mxnet.*`` classes are read as mxcompat's).
"""
import io
import pickle

from ..base import py_str
from ..operator import optimizer_updates as _ops
from ..ndarray.ndarray import NDArray
from ._base import inplace

__all__ = ['Updater', 'get_updater']


def _empty_ndarray(handle=None):
    # MXNet pickles an NDArray as ``NDArray(None)`` followed by ``__setstate__({'handle': raw bytes})``
    return NDArray.__new__(NDArray)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == 'mxnet' or module.startswith('mxnet.'):
            if module == 'mxnet.ndarray.ndarray' and name == 'NDArray':
                return _empty_ndarray
            module = 'mxcompat' + module[len('mxnet'):]
        return super().find_class(module, name)


def _loads(data):
    return _Unpickler(io.BytesIO(data)).load()


class Updater:
    """Updater for kvstore and Trainer: creates each index's state on first use, then calls the optimizer's
    ``update_multi_precision`` (in batches of ``optimizer.aggregate_num`` same-dtype weights when that is > 0; plain
    SGD without a scheduler takes each dtype's weights in one call, with the same result)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    @inplace
    def __call__(self, index, grad, weight):
        """Update ``weight`` (an NDArray, or a list matching a list ``index``) from ``grad``."""
        if isinstance(index, (list, tuple)):
            indices, grads, weights = [i if type(i) is not bytes else py_str(i) for i in index], grad, weight
        else:
            indices, grads, weights = [py_str(index)], [grad], [weight]
        opt = self.optimizer
        if weights:
            opt._set_current_context(weights[0].context.device_id)
        states, synced = self.states, self.states_synced
        for idx, w in zip(indices, weights):
            if idx not in states:
                states[idx] = opt.create_state_multi_precision(idx, w)
                synced[idx] = True
            elif not synced[idx]:
                states[idx] = self.sync_state_context(states[idx], w.context)
                synced[idx] = True
        n = opt.aggregate_num
        if not self.aggregate_updates or n <= 0:  # MXNet loops forever on the latter (an optimizer set by set_states)
            with _ops.batched():  # (dense CUDA updates then run as multi-tensor kernels, all at the end)
                for i, w, g in zip(indices, weights, grads):
                    opt.update_multi_precision(i, w, g, states[i])
            return
        one_call = getattr(opt, '_one_call_per_dtype', None)
        if one_call is not None and one_call():
            n = max(n, len(indices))  # every same-dtype weight in one call (the same result as batches of n)
        # (dense arrays: the torch dtype, cheaper than the numpy one; sparse: without densifying)
        dtypes = [w._t.dtype if type(w) is NDArray else w.dtype for w in weights]
        if dtypes and dtypes.count(dtypes[0]) == len(dtypes) == len(indices) == len(grads):  # (the usual case)
            groups = [(tuple(indices), tuple(weights), tuple(grads))]
        else:
            by_dtype = {}
            for d, i, w, g in zip(dtypes, indices, weights, grads):
                by_dtype.setdefault(d, []).append((i, w, g))
            groups = [zip(*group) for group in by_dtype.values()]
        for idx, ws, gs in groups:
            for start in range(0, len(idx), n):
                opt.update_multi_precision(idx[start:start + n], ws[start:start + n], gs[start:start + n],
                                           [states[i] for i in idx[start:start + n]])

    def sync_state_context(self, state, context):
        """``state`` (NDArray, or tuple/list of them) moved to ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            return type(state)(self.sync_state_context(s, context) for s in state)
        return state

    def set_states(self, states):
        """Load states pickled by ``get_states`` (here or by MXNet); a pickled optimizer replaces this one."""
        states = _loads(states)
        if isinstance(states, tuple) and len(states) == 2:
            self.states, self.optimizer = states
        else:
            self.states = states
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        """The pickled states (with the optimizer too when ``dump_optimizer``)."""
        return pickle.dumps((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer):
    """An ``Updater`` for ``optimizer``."""
    return Updater(optimizer)
