"""``mx.name``: automatic names for symbols (``fullyconnected0``, ``_plus1``) and name prefixes."""
import threading

__all__ = ['NameManager', 'Prefix']


class _Current(threading.local):
    def __init__(self):
        super().__init__()
        self.value = None


class NameManager:
    """Gives each unnamed symbol ``hint`` + a counter per hint; a given name is kept as it is."""

    _current = _Current()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return '%s%d' % (hint, n)

    def __enter__(self):
        self._old_manager = NameManager.current
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        NameManager._current.value = self._old_manager

    class _CurrentProperty:
        def __get__(self, obj, cls):
            v = NameManager._current.value
            if v is None:
                v = NameManager._current.value = NameManager()
            return v

    current = _CurrentProperty()


class Prefix(NameManager):
    """Prepends ``prefix`` to every name made inside the ``with`` block (given names too)."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)
