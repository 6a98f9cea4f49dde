"""``mx.sym.npx``: the NumPy-extension operators on NumPy symbols (``F.npx`` of a hybridized block in NumPy mode).

The same table as ``mx.npx`` (npx name -> registry operator, MXNet's ``_npx_`` aliases): ``npx.fully_connected``
records a ``FullyConnected`` node, as MXNet's does; ``npx.reshape`` MXNet's ``_npx_reshape``. Results are
``mx.sym.np._Symbol``. A name of ``mx.npx`` without a symbol here raises ``MXNetNotImplementedError``.
"""
from ..base import unsupported
from ..numpy_extension._op import OPS
from .numpy import as_np, _call, _sym
from .symbol import Symbol

__all__ = sorted(OPS) + ['reshape']


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


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise unsupported('mx.sym.npx.' + name, 'this NumPy-extension symbol function')
