"""``mx.sym.np``: MXNet's NumPy-compatible symbols (``_Symbol``) and functions, as a hybridized Gluon block in NumPy
mode records them (``F.np.*``, ``x + y``, ``x[:, -1]``, ``x.dot(w)``, ``x.sum()`` ...).

Each function makes a node of the operator MXNet 1.9.1's own symbol function makes, under MXNet's name and
attributes (``_npi_add``, ``_np_sum(axis, keepdims)``, ``_npi_add_scalar(scalar, is_int)``, ``slice`` +
``_npx_reshape`` for basic indexing ...), so exported files read in MXNet and MXNet's read here. The operators that
exist only for ``mx.np`` are registered in ``_ops``, each running the ``mx.np`` function of the same name on the
tensors: the graph computes what the imperative call computes. Operators MXNet shares with legacy ``mx.sym``
(``Cast``, ``expand_dims``, ``SwapAxis``, ``clip``, ``_split_v2``, the npx layers' ``FullyConnected`` ...) are the
legacy registry entries. A function of ``mx.np`` without a symbol here raises ``MXNetNotImplementedError`` naming
itself (a hybridized block then runs imperatively, see ``gluon.block``).
"""
import numbers

import numpy as _onp

from ...base import MXNetTypeError, MXNetValueError, unsupported
from ...util import is_np_default_dtype
from ..symbol import Symbol, Group
from .. import register as _register
from ...operator import registry as _registry
from . import _ops  # noqa: F401  (registers the _npi_ / _np_ operators)
from ...context import current_context

__all__ = ['_Symbol']


_MAKERS = {}
_HINTS = {'_split_v2': 'split', 'SwapAxis': 'swapaxes', '_full': 'full'}


def _sym(op_name, hint=None):
    """The mx.sym function making a node of registry operator ``op_name``, its node named after ``hint`` (default:
    the NumPy function's name, as MXNet names them: ``_npi_add`` -> add0, ``_npx_reshape`` -> reshape0)."""
    if hint is None:
        hint = _HINTS.get(op_name)
        if hint is None:
            prefix = next((p for p in ('_npi_', '_np_', '_npx_') if op_name.startswith(p)), '')
            hint = op_name[len(prefix):]
    maker = _MAKERS.get((op_name, hint))
    if maker is None:
        maker = _MAKERS[op_name, hint] = _register.make_function(_registry.get(op_name), hint)
    return maker


def as_np(s):
    """``s`` (a Symbol) as a ``_Symbol`` on the same outputs."""
    return s if isinstance(s, _Symbol) else _Symbol(s._outputs)


def _call(op_name, *args, **attrs):
    return as_np(_sym(op_name)(*args, **attrs))


def _is_int(x):
    return isinstance(x, (numbers.Integral, _onp.integer)) and not isinstance(x, (bool, _onp.bool_))


def _scalar_op(op_name, sym, value):
    return _call(op_name, sym, scalar=float(value), is_int=_is_int(value))


def _binary(name, reverse_scalar=None):
    """``x (op) y`` for symbols and Python scalars: MXNet's ``_npi_<name>`` / ``_npi_<name>_scalar`` /
    ``_npi_r<name>_scalar`` nodes (commutative ops put a scalar on the right)."""
    def apply(lhs, rhs):
        if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
            return _call('_npi_' + name, lhs, rhs)
        if isinstance(lhs, Symbol) and isinstance(rhs, numbers.Number):
            return _scalar_op('_npi_%s_scalar' % name, lhs, rhs)
        if isinstance(rhs, Symbol) and isinstance(lhs, numbers.Number):
            if reverse_scalar is None:
                return _scalar_op('_npi_%s_scalar' % name, rhs, lhs)
            # (MXNet's reflected scalar nodes say is_int=False; the value is cast to the array's dtype either way)
            return _call(reverse_scalar, rhs, scalar=float(lhs), is_int=False)
        raise MXNetTypeError('mx.sym.np.%s: operands must be symbols or Python scalars, got %s and %s'
                             % (name, type(lhs).__name__, type(rhs).__name__))
    apply.__name__ = name
    return apply


add = _binary('add')
subtract = _binary('subtract', '_npi_rsubtract_scalar')
multiply = _binary('multiply')
true_divide = divide = _binary('true_divide', '_npi_rtrue_divide_scalar')
power = _binary('power', '_npi_rpower_scalar')
mod = remainder = _binary('mod', '_npi_rmod_scalar')
equal = _binary('equal')
not_equal = _binary('not_equal')
less = _binary('less', '_npi_greater_scalar')
less_equal = _binary('less_equal', '_npi_greater_equal_scalar')
greater = _binary('greater', '_npi_less_scalar')
greater_equal = _binary('greater_equal', '_npi_less_equal_scalar')


def _legacy_pair(sym_op, scalar_op):
    def apply(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return _call(sym_op, x1, x2)
        s, v = (x1, x2) if isinstance(x1, Symbol) else (x2, x1)
        return _scalar_op(scalar_op, s, v)
    return apply


maximum = _legacy_pair('broadcast_maximum', '_maximum_scalar')  # (MXNet 1.9.1's np symbols use these)
minimum = _legacy_pair('broadcast_minimum', '_minimum_scalar')


def _unary(name, op_name=None):
    def apply(x):
        return _call(op_name or '_npi_' + name, x)
    apply.__name__ = name
    return apply


for _n in _ops.UNARY:
    globals()[_n] = _unary(_n)
abs = absolute = _unary('absolute')  # noqa: A001
negative = _unary('negative')
del _n


def _reduce(op_name, with_dtype=False, with_initial=False, default_axis_attr=True):
    def apply(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        if out is not None:
            raise unsupported('mx.sym.np.' + op_name, 'out=', 'symbols have no output arrays')
        attrs = {'axis': axis, 'keepdims': keepdims}
        if with_dtype and dtype is not None:
            attrs['dtype'] = dtype
        if with_initial and initial is not None:
            attrs['initial'] = initial
        return _call(op_name, a, **attrs)
    return apply


sum = _reduce('_np_sum', True, True)  # noqa: A001
mean = _reduce('_npi_mean', True)
prod = _reduce('_np_prod', True, True)
max = amax = _reduce('_np_max')  # noqa: A001
min = amin = _reduce('_np_min')  # noqa: A001


def argmax(a, axis=None, out=None):  # noqa: ARG001
    return _call('_npi_argmax', a, axis=axis, keepdims=False)


def argmin(a, axis=None, out=None):  # noqa: ARG001
    return _call('_npi_argmin', a, axis=axis, keepdims=False)


def _moment(op_name):
    def apply(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):  # noqa: ARG001
        attrs = {'axis': axis, 'ddof': ddof, 'keepdims': keepdims}
        if dtype is not None:
            attrs['dtype'] = dtype
        return _call(op_name, a, **attrs)
    return apply


var = _moment('_npi_var')
std = _moment('_npi_std')


def dot(a, b, out=None):  # noqa: ARG001
    return _call('_np_dot', a, b)


def tensordot(a, b, axes=2):
    """A ``_npi_tensordot_int_axes`` node (``axes`` an int) or a ``_npi_tensordot`` node, as MXNet's."""
    if _is_int(axes):
        return _call('_npi_tensordot_int_axes', a, b, axes=int(axes))
    if len(axes) != 2:
        raise MXNetValueError('Axes must consist of two arrays.')
    a_axes, b_axes = ((x,) if _is_int(x) else tuple(x) for x in axes)
    if len(a_axes) != len(b_axes):
        raise MXNetValueError('Axes length mismatch')
    return _call('_npi_tensordot', a, b, a_axes_summed=a_axes, b_axes_summed=b_axes)


def inner(a, b):
    return tensordot(a, b, [-1, -1])


def outer(a, b):
    return tensordot(reshape(a, (-1,)), reshape(b, (-1,)), 0)


def vdot(a, b):
    return tensordot(reshape(a, (-1,)), reshape(b, (-1,)), 1)


def roll(a, shift, axis=None):
    return _call('_np_roll', a, shift=shift, axis=axis)


def reshape(a, newshape, order='C'):
    return _call('_np_reshape', a, newshape=newshape if isinstance(newshape, tuple) else
                 ((newshape,) if isinstance(newshape, numbers.Integral) else tuple(newshape)), order=order)


def transpose(a, axes=None):
    return _call('_np_transpose', a, axes=None if axes is None else tuple(axes))


def squeeze(a, axis=None):
    return _call('_np_squeeze', a, axis=axis)


def expand_dims(a, axis):
    return _call('expand_dims', a, axis=axis)


def swapaxes(a, axis1, axis2):
    return _call('SwapAxis', a, dim1=axis1, dim2=axis2)


def broadcast_to(array, shape):  # noqa: A002 (NumPy's name)
    return _call('_npi_broadcast_to', array, shape=tuple(shape))


def copy(a):
    return _call('_np_copy', a)


def clip(a, a_min, a_max, out=None):  # noqa: ARG001
    """A ``clip`` node; a bound given as None is infinite, as in MXNet."""
    if a_min is None and a_max is None:
        raise MXNetValueError('array_clip: must set either max or min')
    return _call('clip', a, a_min=float('-inf') if a_min is None else a_min,
                 a_max=float('inf') if a_max is None else a_max)


def where(condition, x, y):
    return _call('_npi_where', condition, x, y)


def concatenate(seq, axis=0, out=None):  # noqa: ARG001
    return _call('_npi_concatenate', *seq, axis=axis)


def stack(arrays, axis=0, out=None):  # noqa: ARG001
    return _call('_npi_stack', *arrays, axis=axis)


def _split_node(ary, indices_or_sections, axis, name, op_name='_split_v2'):
    if isinstance(indices_or_sections, numbers.Integral):
        sections, indices = int(indices_or_sections), []
    elif isinstance(indices_or_sections, (list, tuple)):
        sections, indices = 0, [0] + list(indices_or_sections)
    else:
        raise MXNetValueError('mx.sym.np.%s: indices_or_sections must be an int or a list of ints' % name)
    node = _call(op_name, ary, indices=indices, axis=axis, squeeze_axis=False, sections=sections)
    return [as_np(Symbol.__getitem__(node, i)) for i in range(len(node))]  # (its outputs, not rows)


def split(ary, indices_or_sections, axis=0):
    """A list of symbols, as MXNet's (one ``_split_v2`` node)."""
    return _split_node(ary, indices_or_sections, axis, 'split')


def array_split(ary, indices_or_sections, axis=0):
    return _split_node(ary, indices_or_sections, axis, 'array_split')


def hsplit(ary, indices_or_sections):
    """Splits along axis 1 (axis 0 of a 1-D array): one ``_npi_hsplit`` node, as MXNet's."""
    return _split_node(ary, indices_or_sections, 1, 'hsplit', '_npi_hsplit')


def vsplit(ary, indices_or_sections):
    return _split_node(ary, indices_or_sections, 0, 'vsplit')


def _default_dtype(dtype):
    if dtype is not None:
        return dtype
    return 'float64' if is_np_default_dtype() else 'float32'


def _ctx(ctx):
    return str(ctx if ctx is not None else current_context())


def zeros(shape, dtype=None, order='C', ctx=None):  # noqa: ARG001
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return _call('_npi_zeros', shape=shape, ctx=_ctx(ctx), dtype=_default_dtype(dtype))


def ones(shape, dtype=None, order='C', ctx=None):  # noqa: ARG001
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return _call('_npi_ones', shape=shape, ctx=_ctx(ctx), dtype=_default_dtype(dtype))


def full(shape, fill_value, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    """A ``_full`` node; a symbol ``fill_value`` is broadcast to ``shape`` (and cast to ``dtype``), as MXNet's."""
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    if isinstance(fill_value, Symbol):
        ret = broadcast_to(fill_value, shape)
        return ret if dtype is None else ret.astype(dtype)
    return _call('_full', shape=shape, ctx=_ctx(ctx), dtype=_default_dtype(dtype), value=float(fill_value))


def zeros_like(a, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    return full_like(a, 0, dtype, ctx=ctx)


def ones_like(a, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    return full_like(a, 1, dtype, ctx=ctx)


def full_like(a, fill_value, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    attrs = {'fill_value': fill_value, 'ctx': _ctx(ctx)}
    if dtype is not None:
        attrs['dtype'] = dtype
    return _call('_npi_full_like', a, **attrs)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    if step is None:
        step = 1
    if start is None and stop is None:
        raise MXNetValueError('start and stop cannot be both None')
    if step == 0:
        raise ZeroDivisionError('step cannot be 0')
    if stop is None:
        start, stop = 0, start
    return _call('_npi_arange', start=start, stop=stop, step=step, ctx=_ctx(ctx), dtype=_default_dtype(dtype))


# ---- the symbol ---------------------------------------------------------------------------------------------------
def _index_parts(key):
    """(begin, end, step, reshape codes) of a basic index: slices keep their axis (code -2), integers drop
    theirs (slice one element, code -3); -4 keeps the axes after the key."""
    begin, end, step, codes = [], [], [], []
    for k in key:
        if isinstance(k, slice):
            if k.step == 0:
                raise MXNetValueError('slice step cannot be zero')
            begin.append(k.start)
            end.append(k.stop)
            step.append(k.step)
            codes.append(-2)
        elif _is_int(k):
            k = int(k)
            begin.append(k)
            end.append(k + 1 if k >= 0 else k - 1)
            step.append(1 if k >= 0 else -1)
            codes.append(-3)
        else:
            raise unsupported('mx.sym.np._Symbol.__getitem__', 'index %r' % (k,),
                              'symbols take integers, slices and tuples of them, as in MXNet')
    return begin, end, step, tuple(codes) + (-4,)


class _Symbol(Symbol):
    """MXNet's NumPy-compatible symbol: NumPy operators and methods (``mx.sym.np._Symbol``)."""

    __slots__ = ()

    def __getitem__(self, key):
        if len(self._outputs) > 1:  # a group: its outputs
            if isinstance(key, slice):
                return Group([self[i] for i in range(*key.indices(len(self._outputs)))], _Symbol)
            if not _is_int(key):
                raise MXNetTypeError('indices of a symbol group must be integers or slices, not %s'
                                     % type(key).__name__)
            return as_np(Symbol.__getitem__(self, int(key)))
        if isinstance(key, tuple) and not key:
            return self
        if isinstance(key, slice):
            if key.step == 0:
                raise MXNetValueError('slice step cannot be zero')
            return _call('slice', self, begin=(key.start,), end=(key.stop,), step=(key.step,))
        begin, end, step, codes = _index_parts(key if isinstance(key, tuple) else (key,))
        if not isinstance(key, tuple) and step == [1]:
            step = []  # (one non-negative integer: MXNet's node has no step)
        return _call('_npx_reshape', _call('slice', self, begin=tuple(begin), end=tuple(end), step=tuple(step)),
                     newshape=codes)

    def __iter__(self):
        return (self[i] for i in range(len(self._outputs)))

    def __repr__(self):
        # MXNet's: <_Symbol name>, a group listing its outputs' own reprs
        if len(self._outputs) > 1:
            return '<_Symbol group [%s]>' % ', '.join(repr(s) for s in self)
        return '<_Symbol %s>' % self.name

    def as_nd_ndarray(self):
        """This symbol as a legacy ``mx.sym.Symbol``."""
        return Symbol(self._outputs)

    def as_np_ndarray(self):
        return self

    # arithmetic and comparisons (NumPy's broadcasting and dtype rules, through the mx.np functions)
    __add__ = __radd__ = __iadd__ = add
    __sub__ = __isub__ = subtract
    __mul__ = __rmul__ = __imul__ = multiply
    __truediv__ = __itruediv__ = __div__ = true_divide
    __mod__ = mod
    __pow__ = power
    __eq__ = equal
    __ne__ = not_equal
    __lt__ = less
    __le__ = less_equal
    __gt__ = greater
    __ge__ = greater_equal
    __hash__ = Symbol.__hash__

    def __rsub__(self, other):
        return subtract(other, self)

    def __rtruediv__(self, other):
        return true_divide(other, self)

    __rdiv__ = __rtruediv__

    def __rmod__(self, other):
        return mod(other, self)

    def __rpow__(self, other):
        return power(other, self)

    def __neg__(self):
        return _scalar_op('_npi_multiply_scalar', self, -1.0)

    def __abs__(self):
        return absolute(self)

    # methods
    def dot(self, b, out=None):  # noqa: ARG002
        return dot(self, b)

    def reshape(self, *args, **kwargs):
        order = kwargs.pop('order', 'C')
        shape = kwargs.pop('newshape', kwargs.pop('shape', None))
        if kwargs:
            raise TypeError('reshape() got unexpected keyword argument(s) %s' % sorted(kwargs))
        if shape is None:
            shape = args[0] if len(args) == 1 and not _is_int(args[0]) else args
        return reshape(self, tuple(shape), order)

    def flatten(self, order='C'):
        return reshape(self, (-1,), order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not _is_int(axes[0])):
            axes = axes[0]
        return transpose(self, axes or None)

    @property
    def T(self):
        return transpose(self)

    def squeeze(self, axis=None):
        return squeeze(self, axis)

    def astype(self, dtype, order='K', casting='unsafe', subok=True, copy=True):  # noqa: ARG002
        return _call('Cast', self, dtype=_onp.dtype(dtype).name)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        return sum(self, axis, dtype, out, keepdims, initial)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return mean(self, axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        return prod(self, axis, dtype, out, keepdims, initial)

    def max(self, axis=None, out=None, keepdims=False):
        return max(self, axis, None, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return min(self, axis, None, out, keepdims)

    def argmax(self, axis=None, out=None):
        return argmax(self, axis, out)

    def argmin(self, axis=None, out=None):
        return argmin(self, axis, out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return std(self, axis, dtype, out, ddof, keepdims)

    def clip(self, min=None, max=None, out=None):  # noqa: A002
        return clip(self, min, max, out)

    def copy(self, order='C'):  # noqa: ARG002
        return copy(self)

    def swapaxes(self, axis1, axis2):
        return swapaxes(self, axis1, axis2)

    def exp(self):
        return exp(self)  # noqa: F821 (made from _ops.UNARY above)

    def log(self):
        return log(self)  # noqa: F821

    def sqrt(self):
        return sqrt(self)  # noqa: F821

    def square(self):
        return square(self)  # noqa: F821

    def tanh(self):
        return tanh(self)  # noqa: F821

    def abs(self):
        return absolute(self)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        raise unsupported('mx.sym.np._Symbol.' + name, 'this method of NumPy symbols')


# MXNet's legacy Symbol converts both ways too
Symbol.as_np_ndarray = as_np
Symbol.as_nd_ndarray = lambda self: self


from . import linalg  # noqa: E402,F401  (mx.sym.np.linalg: it builds on the functions above)
from . import random  # noqa: E402,F401


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise unsupported('mx.sym.np.' + name, 'this function of NumPy-compatible symbols')
