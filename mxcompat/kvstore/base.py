"""``KVStoreBase`` (the interface of every store and the registry of custom ones), ``TestStore`` and the argument
checks the stores share. ``create``, which also makes the stores of ``kvstore.py`` and ``dist.py``, is the package's
(``mx.kv.create``).
"""

from ..base import MXNetError, string_types
from ..registry import add_class
from ..ndarray.ndarray import NDArray

__all__ = ['KVStoreBase']


class KVStoreAssertionError(MXNetError, AssertionError):
    """The argument checks MXNet makes with Python ``assert``: both an ``AssertionError`` and an ``MXNetError``."""


def _check(cond, msg=''):
    if not cond:
        raise KVStoreAssertionError(msg)


def flatten_kv(keys, vals):
    """``(keys, vals)`` in any MXNet form -> ``(list of keys, list of NDArrays, uses str keys)``.

    A key may come with one NDArray or a list of them (one per device); a list of keys comes with a list of such
    values. Raises as MXNet's argument checks do.
    """
    tk = type(keys)
    if (tk is int or tk is str) and type(vals) is NDArray:  # the common case, first
        return [keys], [vals], tk is str
    if isinstance(keys, (tuple, list)):
        _check(isinstance(vals, (tuple, list)) and len(keys) == len(vals))
        out_k, out_v, use_str = [], [], None
        for k, v in zip(keys, vals):
            ks, vs, s = flatten_kv(k, v)
            out_k += ks
            out_v += vs
            if use_str is None:
                use_str = s
            _check(use_str == s, 'inconsistent types of keys detected.')
        return out_k, out_v, bool(use_str)
    _check(isinstance(keys, (int,) + string_types), 'unexpected type for keys: ' + str(type(keys)))
    use_str = isinstance(keys, string_types)
    if not use_str:
        keys = int(keys)
    if isinstance(vals, NDArray):
        return [keys], [vals], use_str
    _check(isinstance(vals, (tuple, list)) and all(isinstance(v, NDArray) for v in vals))
    return [keys] * len(vals), list(vals), use_str


class KVStoreBase:
    """The interface of a key-value store for data-parallel training; ``register`` adds a store to ``create``."""

    OPTIMIZER = 'optimizer'
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Broadcast rank 0's ``value`` for ``key`` into ``out``."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Sum ``value`` over devices and workers into ``out`` (``value`` itself when ``out`` is None)."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        """Update stored values with ``optimizer`` on every push."""
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether the store supports ``capability`` (``KVStoreBase.OPTIMIZER``)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer states (and the optimizer with ``dump_optimizer``) to ``fname``."""
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        """Read optimizer states written by ``save_optimizer_states``."""
        raise NotImplementedError()

    @property
    def type(self):
        """The store's type name."""
        raise NotImplementedError()

    @property
    def rank(self):
        """This worker's rank, in ``[0, num_workers)``."""
        raise NotImplementedError()

    @property
    def num_workers(self):
        """The number of workers."""
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Class decorator: ``mx.kv.create(name)`` makes a ``klass`` for ``name == klass.__name__.lower()``."""
        _check(isinstance(klass, type))
        return add_class(KVStoreBase.kv_registry, klass, 'kvstore')


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A minimal registered store (MXNet's test fixture): sums on the first value's context, no optimizer."""

    def broadcast(self, key, value, out, priority=0):
        for o in (out if isinstance(out, list) else [out]):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            if out is not None:
                for o in (out if isinstance(out, list) else [out]):
                    o[:] = value
            return
        ctx = value[0].context
        total = value[0].as_in_context(ctx).copy()
        for v in value[1:]:
            total += v.as_in_context(ctx)
        for o in (value if out is None else out if isinstance(out, list) else [out]):
            o[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError('Unknown capability: {}'.format(capability))

    @property
    def type(self):
        return 'teststore'

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

