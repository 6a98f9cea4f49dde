"""A block's bookkeeping: its name scope (``with block.name_scope():``) and the handles of its forward hooks."""
import threading
import weakref
from collections import OrderedDict

from .. import name as _name
from .parameter import ParameterDict, _check


class HookHandle:
    """Handle of a forward (pre-)hook: ``detach()`` (or leaving a ``with`` block) removes the hook."""

    _id = 0

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = HookHandle._id
        HookHandle._id += 1

    def attach(self, hooks_dict, hook):
        _check(not self._hooks_dict_ref, 'The same handle cannot be attached twice.')
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks is not None and self._id in hooks:
            del hooks[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref() if self._hooks_dict_ref is not None else None, self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


class _BlockScope:
    """The ``with block.name_scope():`` scope: children made inside get the block's prefix, and so do the symbols
    made inside (through ``mx.name.Prefix``)."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._saved = None  # (enclosing scope, entered mx.name.Prefix) while active

    @staticmethod
    def _active():
        return getattr(_BlockScope._current, 'value', None)

    def _next_prefix(self, hint):
        """``hint`` numbered by how many children of that kind this scope has named so far."""
        n = self._counter.setdefault(hint, 0)
        self._counter[hint] = n + 1
        return '{}{}_'.format(hint, n)

    @staticmethod
    def create(prefix, params, hint):
        """(prefix, ParameterDict) of a new block: names come from the global name manager (``dense0_``) outside
        any scope, from the enclosing block's counters inside one."""
        scope = _BlockScope._active()
        if scope is None:
            full = prefix if prefix is not None else _name.NameManager.current.get(None, hint) + '_'
            if params is not None:
                return full, ParameterDict(params.prefix, params)
            return full, ParameterDict(full)
        local = prefix if prefix is not None else scope._next_prefix(hint)
        owner = scope._block.params
        if params is not None:
            return scope._block.prefix + local, ParameterDict(params.prefix, params)
        return scope._block.prefix + local, ParameterDict(owner.prefix + local, owner._shared)

    def __enter__(self):
        if not self._block._empty_prefix:
            naming = _name.Prefix(self._block.prefix)
            self._saved = (_BlockScope._active(), naming)
            _BlockScope._current.value = self
            naming.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix or self._saved is None:
            return
        outer, naming = self._saved
        self._saved = None
        naming.__exit__(ptype, value, trace)
        _BlockScope._current.value = outer
