"""``mx.AttrScope``: attributes attached to every symbol created inside a ``with`` block."""
import collections
import threading

from .base import MXNetValueError

__all__ = ['AttrScope']


class _Current(threading.local):
    def __init__(self):
        super().__init__()
        self.value = None


class AttrScope:
    """Holds string attributes (``ctx_group``, ``lr_mult`` ...) applied to symbols made in its scope."""

    _current = _Current()
    _subgraph_names = collections.defaultdict(int)  # control-flow subgraphs named so far, per base name

    def __init__(self, **kwargs):
        self._old_scope = None
        for value in kwargs.values():
            if not isinstance(value, str):
                raise MXNetValueError('Attributes need to be string')
        self._attr = kwargs

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (a dict or None)."""
        if self._attr:
            ret = self._attr.copy()
            if attr:
                ret.update(attr)
            return ret
        return attr if attr else {}

    def __enter__(self):
        self._old_scope = AttrScope.current
        attr = AttrScope.current._attr.copy()
        attr.update(self._attr)
        self._attr = attr
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        AttrScope._current.value = self._old_scope

    class _CurrentProperty:
        def __get__(self, obj, cls):
            v = AttrScope._current.value
            if v is None:
                v = AttrScope._current.value = AttrScope()
            return v

    current = _CurrentProperty()
