"""``mx.sym.npx``: the NumPy-extension operators on NumPy symbols (``F.npx`` of a hybridized block in NumPy mode).

The same table as ``mx.npx`` (npx name -> registry operator, MXNet's ``_npx_`` aliases): ``npx.fully_connected``
records a ``FullyConnected`` node, as MXNet's does; ``npx.reshape`` MXNet's ``_npx_reshape``. Results are
``mx.sym.np._Symbol``. ``nonzero`` and ``constraint_check`` are MXNet's ``_npx_nonzero`` / ``_npx_constraint_check``
nodes; ``image`` and ``random`` are modules (``mx.sym.npx.image.to_tensor``, ``mx.sym.npx.random.bernoulli`` ...).
A name of ``mx.npx`` without a symbol here raises ``MXNetNotImplementedError``.
"""
from ...base import missing_attribute
from ...numpy_extension._op import OPS
from ..numpy import as_np, _call, _sym
from ..symbol import Symbol
from . import _ops  # noqa: F401  (registers _npx_nonzero and _npx_constraint_check)

__all__ = sorted(OPS) + ['reshape', 'nonzero', 'constraint_check']


# npx operators MXNet registers on their own (not as aliases): their nodes carry these names
_OWN = {'relu': '_npx_relu', 'sigmoid': '_npx_sigmoid'}


def _npx_symbol(op_name, npx_name):
    legacy = _sym(_OWN.get(npx_name, op_name), npx_name)

    def fn(*args, **kwargs):
        out = legacy(*args, **kwargs)
        return as_np(out) if isinstance(out, Symbol) else [as_np(s) for s in out]
    fn.__name__ = fn.__qualname__ = npx_name
    fn.__doc__ = 'mx.npx.%s on symbols: a %s node.' % (npx_name, op_name)
    return fn


globals().update({name: _npx_symbol(op, name) for name, op in OPS.items()})


def reshape(a, newshape, reverse=False, order='C', name=None):  # noqa: ARG001
    """``npx.reshape`` with MXNet's codes (-1 infer, -2 copy, -3 drop a 1, -4 copy the rest, -5 merge, -6 split)."""
    return _call('_npx_reshape', a, newshape=tuple(newshape), reverse=reverse, order=order)


def nonzero(a):
    """The indices of ``a``'s non-zero values, shape ``(count, a.ndim)`` int64: a ``_npx_nonzero`` node."""
    return _call('_npx_nonzero', a)


def constraint_check(x, msg=None):
    """A 0-d bool True when every value of the bool ``x`` is true (else ValueError with ``msg`` when the graph
    runs): a ``_npx_constraint_check`` node, its ``msg`` attribute only when given, as MXNet's."""
    return _call('_npx_constraint_check', x) if msg is None else _call('_npx_constraint_check', x, msg=msg)


from . import image, random  # noqa: E402,F401  (mx.sym.npx.image, mx.sym.npx.random)


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise missing_attribute('mx.sym.npx.' + name, 'this NumPy-extension symbol function')
