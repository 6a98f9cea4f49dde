"""Gluon in NumPy mode: the ``F`` of ``hybrid_forward`` and the array-kind helpers.

MXNet's built-in layers call ``F.npx.fully_connected`` instead of ``F.FullyConnected`` when NumPy array semantics
are on; they are the same operators. Here a layer keeps calling the registry's operator by its legacy name, and in
NumPy mode its ``F`` is a namespace over ``mx.nd`` (``NP_F``) or, when a hybridized block is traced, over
``mx.sym`` (``NP_SYM_F``) whose functions (and submodules: ``F.random``, ``F.contrib`` ...) give NumPy results:
``mx.np`` arrays sharing their tensors with the legacy arrays the operator sees (so autograd records through them),
or ``mx.sym.np`` symbols. ``F.np`` and ``F.npx`` are ``mx.np``/``mx.npx`` (``mx.sym.np``/``mx.sym.npx`` when
tracing), as MXNet's ``mx.nd.np``/``mx.nd.npx``. One definition per operator, none per layer.

Differs from MXNet: a legacy-named operator given ``mx.np`` arrays inside a ``hybrid_forward`` runs (MXNet raises
``TypeError``), so the layers MXNet leaves on legacy operators in NumPy mode (InstanceNorm, GroupNorm, the
padding layers, the RNN cells) work too.
"""
import functools
import importlib
import types

from .. import ndarray as _nd
from .. import symbol as _sym
from ..ndarray.ndarray import NDArray
from ..numpy.multiarray import ndarray as _np_ndarray, _as_np
from ..symbol.numpy import as_np as _as_np_symbol
from ..util import is_np_array

__all__ = ['NP_F', 'NP_SYM_F', 'eager_F', 'symbolic_F', 'is_eager', 'is_np', 'to_np', 'to_nd']


def is_np(x):
    """Whether ``x`` is an ``mx.np.ndarray``."""
    return isinstance(x, _np_ndarray)


def to_nd(x):
    """``mx.np`` arrays in ``x`` (an array or a list/tuple of them) as legacy NDArrays sharing their tensors."""
    if isinstance(x, _np_ndarray):
        return NDArray._from_tensor(x._t, x._ctx)
    if type(x) in (list, tuple) and any(isinstance(a, _np_ndarray) for a in x):
        return type(x)(to_nd(a) for a in x)
    return x


def to_np(x):
    """Dense legacy NDArrays in ``x`` (an array or a (nested) list/tuple of them) as ``mx.np`` arrays sharing their
    tensors; anything else as it is."""
    if type(x) is NDArray:
        return _as_np(x)
    if type(x) in (list, tuple):
        return type(x)(to_np(a) for a in x)
    return x


def _to_np_symbol(x):
    if isinstance(x, _sym.Symbol):
        return _as_np_symbol(x)
    if type(x) in (list, tuple):
        return type(x)(_to_np_symbol(a) for a in x)
    return x


def _adapt_arrays(fn):
    """``fn`` (an ``mx.nd`` function) on ``mx.np`` arrays: inputs converted, outputs converted back. An ``out=``
    array gets the result tensor the operator left in its legacy stand-in (under ``autograd.record()`` the
    operator rebinds it rather than copying)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        out = kwargs.get('out')
        if out is not None:
            kwargs['out'] = stand_in = to_nd(out)
        res = fn(*[to_nd(a) for a in args], **{k: to_nd(v) for k, v in kwargs.items()})
        if out is not None:
            for mine, theirs in zip(out if isinstance(out, (list, tuple)) else (out,),
                                    stand_in if isinstance(stand_in, (list, tuple)) else (stand_in,)):
                mine._t = theirs._t
            return out
        return to_np(res)
    return call


def _adapt_symbols(fn):
    """``fn`` (an ``mx.sym`` function) giving ``mx.sym.np`` symbols."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        return _to_np_symbol(fn(*args, **kwargs))
    return call


class _NumpyNamespace:
    """A namespace over an ``mx.nd`` or ``mx.sym`` module whose functions give NumPy results (each built on first
    use of its name)."""

    def __init__(self, module, adapt, np_name, npx_name):
        self._module, self._adapt = module, adapt
        self._np_names = (np_name, npx_name)

    @property
    def __name__(self):
        # the module's name, under the package this class's module reports (``mxnet`` where ``python -m mxcompat``
        # reports MXNet's paths, else ``mxcompat``), as MXNet's F is that module
        return type(self).__module__.split('.', 1)[0] + self._module.__name__[len('mxcompat'):]

    def __getattr__(self, name):
        if name in ('np', 'numpy', 'npx', 'numpy_extension'):
            found = importlib.import_module(self._np_names[name.startswith('npx') or name == 'numpy_extension'])
        else:
            value = getattr(self._module, name)
            if isinstance(value, types.ModuleType):
                found = _NumpyNamespace(value, self._adapt, *self._np_names)
            elif callable(value) and not isinstance(value, type):
                found = self._adapt(value)
            else:
                found = value
        self.__dict__[name] = found
        return found

    def __repr__(self):
        return '<module %r from %r>' % (self.__name__, self._module.__file__)


NP_F = _NumpyNamespace(_nd, _adapt_arrays, 'mxcompat.numpy', 'mxcompat.numpy_extension')
NP_SYM_F = _NumpyNamespace(_sym, _adapt_symbols, 'mxcompat.symbol.numpy', 'mxcompat.symbol.numpy_extension')
# (nn.Flatten's node is named after npx.batch_flatten in NumPy mode, as MXNet's layer calls that)
NP_SYM_F.flatten = NP_SYM_F.Flatten = _sym.npx.batch_flatten


def eager_F():
    """The ``F`` an imperative ``hybrid_forward`` gets: ``NP_F`` under NumPy array semantics, else ``mx.nd``."""
    return NP_F if is_np_array() else _nd


def symbolic_F():
    """The ``F`` a traced ``hybrid_forward`` gets: ``NP_SYM_F`` under NumPy array semantics, else ``mx.sym``."""
    return NP_SYM_F if is_np_array() else _sym


def is_eager(F):
    """Whether ``F`` (a ``hybrid_forward``'s first argument) runs arrays rather than building a Symbol."""
    return F is _nd or F is NP_F
