"""The per-thread autograd state (recording, training) and torch's grad mode switches: what operators, arrays and
graph runners read while ``mx.autograd`` (a layer above them) changes it."""
import threading
import weakref

import torch


class Recorded(list):
    """Weak references to recorded arrays; ``prune_at``: the length at which the dead ones are dropped next."""
    __slots__ = ('prune_at',)

    def __init__(self, refs=()):
        super().__init__(refs)
        self.prune_at = 4096


class _State(threading.local):
    def __init__(self):
        super().__init__()
        self.recording = False
        self.training = False
        self.in_grad = False  # inside autograd.grad(): leaf 'write' hooks must not clear .grad buffers
        # a torch-level caller (an Executor with gradients, a GluonModule) runs operators for torch's autograd while
        # mxcompat is not recording: operators must then keep torch's graph (no inference-only kernels)
        self.torch_grads = False
        # weak references to the arrays recorded since the last backward that freed a graph (see track_recorded)
        self.recorded = Recorded()


STATE = _State()


def track_recorded(arr, _ref=weakref.ref):
    """Note ``arr``, an array made by a recorded operator: a later ``backward`` (without ``retain_graph``) through
    its graph makes it a constant, as MXNet clears the autograd entries of the graph it frees (the array's graph in
    torch is freed too, and using the array in a new recording would make the next backward fail). Called for each
    recorded result: one thread-local read."""
    lst = STATE.recorded
    lst.append(_ref(arr))
    if len(lst) >= lst.prune_at:  # (a long recording without a backward: drop the arrays gone since)
        lst[:] = [r for r in lst if r() is not None]
        lst.prune_at = max(4096, 2 * len(lst))


# what torch.set_grad_enabled(mode) does, without making its context-manager object (private API; falls back)
_set_grad_mode = getattr(torch._C, '_set_grad_enabled', torch.set_grad_enabled)


def _without_grad(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with torch's grad mode off, as under ``torch.no_grad()`` but without building its
    object; the mode is back on afterwards, also when ``fn`` raises."""
    if not torch.is_grad_enabled():
        return fn(*args, **kwargs)
    _set_grad_mode(False)
    try:
        return fn(*args, **kwargs)
    finally:
        _set_grad_mode(True)


class _Scope:
    """``with``-block that sets recording/training and torch's grad mode, restoring them on exit."""

    def __init__(self, is_record, train_mode):
        self._rec = is_record
        self._train = train_mode
        self._prev = None

    def __enter__(self):
        st = STATE
        self._prev = (st.recording, st.training, torch.is_grad_enabled())
        if self._rec is not None:
            st.recording = self._rec
            _set_grad_mode(self._rec)
        if self._train is not None:
            st.training = self._train
        return self

    def __exit__(self, *exc):
        st = STATE
        st.recording, st.training, grad = self._prev
        _set_grad_mode(grad)
