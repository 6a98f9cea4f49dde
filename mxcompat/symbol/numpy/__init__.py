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

from ...base import (MXNetError, MXNetNotImplementedError, MXNetTypeError, MXNetValueError, unsupported,
                     missing_attribute)
from ...util import is_np_default_dtype, wrap_np_binary_func, wrap_np_unary_func
from ..symbol import Symbol, Group
from .. import register as _register
from ...operator import registry as _registry
from . import _ops  # noqa: F401  (registers the _npi_ / _np_ operators)
from . import _fallback  # noqa: F401  (and MXNet's NumPy-fallback custom operators)
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


_INTEGER_TYPES = (int, _onp.int32, _onp.int64)  # (MXNet's integer_types: a bool counts, other numpy ints do not)
_NUMERIC_TYPES = (numbers.Number, _onp.generic)


def _scalar_op(op_name, sym, value, left=False):
    """A scalar node: ``is_int`` says whether a right-hand ``value`` is an integer; MXNet's _ufunc_helper tests the
    symbol for a left-hand one, so it is False there."""
    return _call(op_name, sym, scalar=float(value), is_int=not left and isinstance(value, _INTEGER_TYPES))


def _binary(name, reverse_scalar=None):
    """``x (op) y`` for symbols and Python scalars: MXNet's ``_npi_<name>`` / ``_npi_<name>_scalar`` /
    ``_npi_r<name>_scalar`` nodes (commutative ops put a scalar on the right)."""
    def apply(lhs, rhs):
        if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
            return _call('_npi_' + name, lhs, rhs)
        if isinstance(lhs, Symbol) and isinstance(rhs, numbers.Number):
            return _scalar_op('_npi_%s_scalar' % name, lhs, rhs)
        if isinstance(rhs, Symbol) and isinstance(lhs, numbers.Number):
            return _scalar_op(reverse_scalar or '_npi_%s_scalar' % name, rhs, lhs, left=True)
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


def _legacy_pair(name, sym_op, scalar_op):
    """MXNet 1.9.1's np maximum/minimum: its legacy nodes, named as its ``_npi.<name>`` aliases name them
    (maximum0, maximum_scalar0)."""
    def apply(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return as_np(_sym(sym_op, name)(x1, x2))
        left = not isinstance(x1, Symbol)
        s, v = (x2, x1) if left else (x1, x2)
        return as_np(_sym(scalar_op, name + '_scalar')(s, scalar=float(v),
                                                       is_int=not left and isinstance(v, _INTEGER_TYPES)))
    apply.__name__ = name
    return apply


maximum = _legacy_pair('maximum', 'broadcast_maximum', '_maximum_scalar')
minimum = _legacy_pair('minimum', 'broadcast_minimum', '_minimum_scalar')


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


# ---- more element-wise functions ------------------------------------------------------------------------------
def _node(op_name, hint, *args, **attrs):
    """A node of ``op_name`` named after ``hint`` (the name MXNet's own call gives it)."""
    return as_np(_sym(op_name, hint)(*args, **attrs))


def _ufunc(name, reflected=None, scalar_op=None, scalar_hint=None):
    """``name(x1, x2)`` as MXNet's _ufunc_helper builds it: ``_npi_<name>`` for two symbols, the scalar node with
    is_int from a right-hand scalar, and for a left-hand scalar the reflected node (or the same scalar node) with
    is_int False (MXNet tests the symbol operand); two numbers give NumPy's value."""
    scalar_op = scalar_op or '_npi_%s_scalar' % name
    scalar_hint = scalar_hint or '%s_scalar' % name

    def apply(x1, x2, out=None, **kwargs):  # noqa: ARG001 (a symbol has no output array: MXNet drops out)
        if isinstance(x1, _NUMERIC_TYPES):
            if isinstance(x2, _NUMERIC_TYPES):
                return getattr(_onp, name)(x1, x2)
            if reflected:
                return _node(reflected, reflected[len('_npi_'):], x2, scalar=float(x1), is_int=False)
            return _node(scalar_op, scalar_hint, x2, scalar=float(x1), is_int=False)
        if isinstance(x2, _NUMERIC_TYPES):
            return _node(scalar_op, scalar_hint, x1, scalar=float(x2), is_int=isinstance(x2, _INTEGER_TYPES))
        if isinstance(x2, Symbol):
            return _call('_npi_' + name, x1, x2)
        raise MXNetTypeError('type %s not supported' % str(type(x2)))
    apply.__name__ = name
    apply.__doc__ = 'NumPy\'s %s on symbols: a ``_npi_%s`` node (or its scalar form), as MXNet\'s.' % (name, name)
    return wrap_np_binary_func(apply)


arctan2 = _ufunc('arctan2', '_npi_rarctan2_scalar')
copysign = _ufunc('copysign', '_npi_rcopysign_scalar')
ldexp = _ufunc('ldexp', '_npi_rldexp_scalar')
hypot = _ufunc('hypot', scalar_op='_hypot_scalar')
lcm = _ufunc('lcm')
bitwise_and = _ufunc('bitwise_and')
bitwise_or = _ufunc('bitwise_or')
bitwise_xor = _ufunc('bitwise_xor')


def _unary_np(name, op_name=None, hint=None):
    """``name(x)``: a node for a ``_Symbol``, NumPy's value for a number, TypeError otherwise (MXNet's
    _unary_func_helper)."""
    op_name = op_name or '_npi_' + name
    hint = hint or op_name[len('_npi_'):]

    def apply(x, out=None, **kwargs):  # noqa: ARG001
        if isinstance(x, _NUMERIC_TYPES):
            return getattr(_onp, name)(x)
        if isinstance(x, _Symbol):
            return _node(op_name, hint, x)
        raise MXNetTypeError('type {} not supported'.format(str(type(x))))
    apply.__name__ = name
    apply.__doc__ = 'NumPy\'s %s on symbols: a ``%s`` node, as MXNet\'s.' % (name, op_name)
    return wrap_np_unary_func(apply)


bitwise_not = _unary_np('bitwise_not')
invert = _unary_np('invert', '_npi_bitwise_not')
fabs = _unary_np('fabs', '_npi_absolute', 'abs')
isnan = _unary_np('isnan')
isinf = _unary_np('isinf')
isposinf = _unary_np('isposinf')
isneginf = _unary_np('isneginf')
isfinite = _unary_np('isfinite')


def _no_symbol(name):
    """MXNet 1.9.1's mx.sym.np.deg2rad / rad2deg call operators its symbol namespace lacks and raise
    AttributeError; so do these (an MXNetNotImplementedError too, so a hybridized block runs imperatively)."""
    def apply(x, out=None, **kwargs):  # noqa: ARG001
        raise _NoSymbolError("module 'mxnet.symbol.numpy._internal' has no attribute '%s' (mx.sym.np.%s: MXNet "
                             "1.9.1 has no symbol of it)" % (name, name))
    apply.__name__ = name
    apply.__doc__ = 'Raises AttributeError, as MXNet 1.9.1\'s (it has no ``_npi_%s`` symbol).' % name
    return apply


class _NoSymbolError(MXNetNotImplementedError, AttributeError):
    pass


deg2rad = _no_symbol('deg2rad')
rad2deg = _no_symbol('rad2deg')


def around(x, decimals=0, out=None, **kwargs):  # noqa: ARG001
    """A ``_npi_around`` node (NumPy's value for a number), as MXNet's."""
    if isinstance(x, _NUMERIC_TYPES):
        return _onp.around(x, decimals, **kwargs)
    if isinstance(x, _Symbol):
        return _call('_npi_around', x, decimals=decimals, **kwargs)
    raise MXNetTypeError('type {} not supported'.format(str(type(x))))


round = round_ = around  # noqa: A001


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):  # noqa: A002,ARG001
    """A ``_npi_nan_to_num`` node; ``copy=False`` gives the same node (a symbol has no array to write in place)."""
    if isinstance(x, _NUMERIC_TYPES):
        return _onp.nan_to_num(x, copy, nan, posinf, neginf)
    if isinstance(x, _Symbol):
        return _call('_npi_nan_to_num', x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    raise MXNetTypeError('type {} not supported'.format(str(type(x))))


def matmul(a, b, out=None, **kwargs):  # noqa: ARG001
    return _call('_npi_matmul', a, b)


matmul = wrap_np_binary_func(matmul)


# ---- more reductions and statistics --------------------------------------------------------------------------
def _generated(op_name, hint, *params):
    """MXNet's generated function of operator ``op_name``: its input, then ``params`` by position or keyword; only
    the attributes given become node attributes (a dtype of None is dropped, as in MXNet's NumPy operators)."""
    def apply(*args, **kwargs):
        kwargs.pop('out', None)
        name = kwargs.pop('name', None)
        if len(args) > 1 + len(params):
            raise MXNetTypeError('%s() takes at most %d positional arguments' % (hint, 1 + len(params)))
        attrs = dict(zip(params, args[1:]))
        for k in kwargs:
            if k in attrs:
                raise MXNetTypeError("%s() got multiple values for argument '%s'" % (hint, k))
        attrs.update(kwargs)
        data = attrs.pop(_registry.get(op_name).inputs[0], None) if not args else args[0]
        if attrs.get('dtype', 0) is None:
            del attrs['dtype']
        elif 'dtype' in attrs:
            attrs['dtype'] = _onp.dtype(attrs['dtype']).name
        return _node(op_name, hint, data, name=name, **attrs)
    apply.__name__ = hint
    apply.__doc__ = 'A ``%s`` node with the attributes given, as MXNet\'s generated function.' % op_name
    return apply


all = _generated('_np_all', 'all', 'axis', 'keepdims')  # noqa: A001
any = _generated('_np_any', 'any', 'axis', 'keepdims')  # noqa: A001
sometrue = _generated('_np_any', 'sometrue', 'axis', 'keepdims')
cumsum = _generated('_np_cumsum', 'cumsum', 'axis', 'dtype')
product = _generated('_np_prod', 'product', 'axis', 'dtype', 'keepdims', 'initial')
trace = _generated('_np_trace', 'trace', 'offset', 'axis1', 'axis2')
diag = _generated('_np_diag', 'diag', 'k')
diagflat = _generated('_np_diagflat', 'diagflat', 'k')
diagonal = _generated('_np_diagonal', 'diagonal', 'offset', 'axis1', 'axis2')
moveaxis = _generated('_np_moveaxis', 'moveaxis', 'source', 'destination')
repeat = _generated('repeat', 'repeat', 'repeats', 'axis')


def average(a, axis=None, weights=None, returned=False, out=None):  # noqa: ARG001
    """A ``_npi_average`` node (two outputs with ``returned``), as MXNet's."""
    if weights is None:
        return _call('_npi_average', a, axis=axis, returned=returned, weighted=False)
    return _call('_npi_average', a, weights, axis=axis, returned=returned)


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation='linear', keepdims=False):  # noqa: ARG001
    """A ``_npi_percentile`` node: a number ``q`` is its ``q_scalar`` attribute, a symbol its second input."""
    if overwrite_input is not None:
        raise NotImplementedError('mx.sym.np.percentile: overwrite_input= is not supported')
    if isinstance(q, _NUMERIC_TYPES):
        return _call('_npi_percentile', a, axis=axis, interpolation=interpolation, keepdims=keepdims, q_scalar=q)
    return _call('_npi_percentile', a, q, axis=axis, interpolation=interpolation, keepdims=keepdims, q_scalar=None)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation='linear', keepdims=False):  # noqa: ARG001
    """``percentile`` of ``q * 100`` (a symbol ``q`` through a ``_npi_multiply_scalar`` node), as MXNet's."""
    if overwrite_input is not None:
        raise NotImplementedError('mx.sym.np.quantile: overwrite_input= is not supported')
    return percentile(a, q * 100, axis, None, None, interpolation, keepdims)


def diff(a, n=1, axis=-1, prepend=None, append=None):  # noqa: A002
    if prepend or append:
        raise NotImplementedError('mx.sym.np.diff: prepend= and append= are not supported')
    return _call('_npi_diff', a, n=n, axis=axis)


def ediff1d(ary, to_end=None, to_begin=None):
    """A ``_npi_ediff1d`` node: symbol ends are inputs (begin before end), numbers its scalar attributes."""
    begin_arr, end_arr = isinstance(to_begin, _Symbol), isinstance(to_end, _Symbol)
    ends = [e for e, given in ((to_begin, begin_arr), (to_end, end_arr)) if given]
    return _call('_npi_ediff1d', ary, *ends, to_begin_arr_given=begin_arr, to_end_arr_given=end_arr,
                 to_begin_scalar=None if begin_arr else to_begin, to_end_scalar=None if end_arr else to_end)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002
    """A ``_histogram`` node with two outputs, the counts and the bin edges. ``bins`` is either a symbol of edges
    or a number of equal bins over ``range`` (which must then be given); ``normed``, ``weights``, ``density`` and
    bins as a list or a string raise NotImplementedError, as MXNet's symbol does."""
    for name, used in (('normed', normed is True), ('weights', weights is not None), ('density', density is True)):
        if used:
            raise NotImplementedError('mx.sym.np.histogram: %s= is not supported' % name)
    if isinstance(bins, Symbol):
        return _node('_histogram', 'histogram', a, bins)
    if isinstance(bins, _NUMERIC_TYPES):
        if range is None:
            raise NotImplementedError('mx.sym.np.histogram: a number of bins needs range=(low, high)')
        return _node('_histogram', 'histogram', a, bin_cnt=bins, range=range)
    if isinstance(bins, (list, tuple, str)):
        raise NotImplementedError('mx.sym.np.histogram: bins given as a %s is not supported (a number with range, '
                                  'or a symbol of edges)' % type(bins).__name__)
    raise MXNetValueError('mx.sym.np.histogram: bins must be a number or a symbol, got %r' % (bins,))


def bincount(x, weights=None, minlength=0):
    if minlength < 0:
        raise MXNetValueError('Minlength value should greater than 0')
    if weights is None:
        return _call('_npi_bincount', x, minlength=minlength, has_weights=False)
    return _call('_npi_bincount', x, weights, minlength=minlength, has_weights=True)


def polyval(p, x):
    """A ``_npi_polyval`` node for two symbols; NumPy's value for two arrays; TypeError for a mix, as MXNet's."""
    if isinstance(p, Symbol) and isinstance(x, Symbol):
        return _call('_npi_polyval', p, x)
    if not isinstance(p, Symbol) and not isinstance(x, Symbol):
        return _onp.polyval(p, x)
    raise MXNetTypeError('type not supported')


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """One ``_npi_unique`` node (one output per result asked for, as MXNet's)."""
    return _call('_npi_unique', ar, return_index=return_index, return_inverse=return_inverse,
                 return_counts=return_counts, axis=axis)


def sort(a, axis=-1, kind=None, order=None):  # noqa: ARG001
    """A legacy ``sort`` node, ascending, as MXNet's."""
    if order is not None:
        raise NotImplementedError('mx.sym.np.sort: order= (structured arrays) is not supported')
    return _node('sort', 'sort', data=a, axis=axis, is_ascend=True)


def argsort(a, axis=-1, kind=None, order=None):  # noqa: ARG001
    """A legacy ``argsort`` node giving int64 indices, as MXNet's."""
    if order is not None:
        raise NotImplementedError('mx.sym.np.argsort: order= (structured arrays) is not supported')
    return _node('argsort', 'argsort', data=a, axis=axis, is_ascend=True, dtype='int64')


# ---- more shapes ---------------------------------------------------------------------------------------------
def append(arr, values, axis=None):  # noqa: A002
    return _call('_npi_concatenate', arr, values, axis=axis)


def _variadic(op_name, hint, *arrays, **attrs):
    return _node(op_name, hint, *arrays, **attrs)


def atleast_1d(*arys):
    """One ``_np_atleast_1d`` node with an output per array (a group for several), as MXNet's."""
    return _node('_np_atleast_1d', 'atleast_1d', *arys)


def atleast_2d(*arys):
    return _node('_np_atleast_2d', 'atleast_2d', *arys)


def atleast_3d(*arys):
    return _node('_np_atleast_3d', 'atleast_3d', *arys)


def column_stack(tup):
    return _node('_npi_column_stack', 'column_stack', *tup)


def hstack(arrays):
    return _node('_npi_hstack', 'hstack', *arrays)


def vstack(arrays, out=None):  # noqa: ARG001
    return _variadic('_npi_vstack', 'vstack', *arrays)


def row_stack(arrays):
    return _variadic('_npi_vstack', 'vstack', *arrays)


def dstack(arrays):
    return _node('_npi_dstack', 'dstack', *arrays)


def dsplit(ary, indices_or_sections):
    """Splits along axis 2: one ``_npi_dsplit`` node, its outputs as a list, as MXNet's."""
    if isinstance(indices_or_sections, numbers.Integral):
        sections, indices = int(indices_or_sections), []
    elif isinstance(indices_or_sections, (list, set, tuple)):
        sections, indices = 0, [0] + list(indices_or_sections)
    else:
        raise MXNetValueError('mx.sym.np.dsplit: indices_or_sections must be an int or a sequence of ints, got %s'
                              % type(indices_or_sections).__name__)
    node = _call('_npi_dsplit', ary, indices, 2, False, sections)
    return [as_np(Symbol.__getitem__(node, i)) for i in range(len(node))]


def _positions(name, obj):
    """The attributes of ``obj`` (a slice or an integer) of np.delete/np.insert, or None for a symbol."""
    if isinstance(obj, slice):
        return {'start': obj.start, 'stop': obj.stop, 'step': 1 if obj.step is None else obj.step}
    if isinstance(obj, _INTEGER_TYPES):
        return {'int_ind': obj}
    if isinstance(obj, Symbol):
        return None
    raise MXNetTypeError("'obj' can not support type {}".format(str(type(obj))))


def delete(arr, obj, axis=None):
    """A ``_npi_delete`` node: a slice or an integer ``obj`` in its attributes, a symbol as its second input."""
    if not isinstance(arr, Symbol):
        raise MXNetTypeError("'arr' can not support type {}".format(str(type(arr))))
    where = _positions('delete', obj)
    if where is None:
        return _call('_npi_delete', arr, obj, axis=axis)
    return _call('_npi_delete', arr, axis=axis, **where)


def insert(arr, obj, values, axis=None):
    """A ``_npi_insert_scalar`` / ``_insert_slice`` / ``_insert_tensor`` node by the kind of ``obj``: a number
    ``values`` is the ``val`` attribute, a symbol an input. MXNet's number ``values`` with a symbol ``obj``
    raises (its call names an input ``values`` the node then lacks), as here."""
    if not isinstance(values, _NUMERIC_TYPES):
        if not isinstance(arr, Symbol):
            raise MXNetTypeError("'arr' can not support type {}".format(str(type(arr))))
        if not isinstance(values, Symbol):
            raise MXNetTypeError("'values' can not support type {}".format(str(type(values))))
    where = _positions('insert', obj)
    val = {'val': values} if isinstance(values, _NUMERIC_TYPES) else {}
    ins = [] if val else [values]
    if where is None:
        if val:
            raise MXNetError('Symbol.ComposeKeyword argument name values not found.\nCandidate arguments:\n\t[0]arr'
                             '\n\t[1]obj\n')
        return _call('_npi_insert_tensor', arr, values, obj, axis=axis)
    kind = 'slice' if isinstance(obj, slice) else 'scalar'
    return _call('_npi_insert_' + kind, arr, *ins, axis=axis, **dict(val, **where))


def diag_indices_from(arr):
    """One ``_npi_diag_indices_from`` node: an int64 array of ``ndim`` rows (MXNet's, not NumPy's tuple)."""
    return _call('_npi_diag_indices_from', arr)


def flip(m, axis=None, out=None):  # noqa: ARG001
    if isinstance(m, _NUMERIC_TYPES):
        return _onp.flip(m, axis)
    if isinstance(m, _Symbol):
        return _call('_npi_flip', m, axis=axis)
    raise MXNetTypeError('type {} not supported'.format(str(type(m))))


def flipud(m):
    return flip(m, 0)


def fliplr(m):
    return flip(m, 1)


def ravel(x, order='C'):
    """A ``_npx_reshape(newshape=-1)`` node, as MXNet's."""
    if order == 'F':
        raise NotImplementedError("mx.sym.np.ravel: order='F' (MXNet's symbol flattens in C order only)")
    if isinstance(x, _NUMERIC_TYPES):
        return _onp.reshape(x, -1)
    if isinstance(x, _Symbol):
        return _node('_npx_reshape', 'reshape', x, newshape=-1)
    raise MXNetTypeError('type {} not supported'.format(str(type(x))))


def rot90(m, k=1, axes=(0, 1)):
    return _call('_npi_rot90', m, k=k, axes=axes)


def take(a, indices, axis=None, mode='raise', out=None):  # noqa: ARG001
    """A legacy ``take`` node (of the flattened array when ``axis`` is None), as MXNet's."""
    if mode not in ('wrap', 'clip', 'raise'):
        raise NotImplementedError("function take does not support mode '{}'".format(mode))
    if axis is None:
        return _node('take', 'take', _node('_npx_reshape', 'reshape', a, -1), indices, 0, mode)
    return _node('take', 'take', a, indices, axis, mode)


def tile(A, reps):  # noqa: N803 (NumPy's name)
    """A legacy ``tile`` node (NumPy's value for a number), as MXNet's."""
    if isinstance(A, _NUMERIC_TYPES):
        return _onp.tile(A, reps)
    if isinstance(A, _Symbol):
        return _node('tile', 'tile', A, reps=reps)
    raise MXNetTypeError('type {} not supported'.format(str(type(A))))


def tril(m, k=0):
    return _call('_npi_tril', m, k)


def einsum(*operands, **kwargs):
    """One ``_npi_einsum`` node of the operands (``optimize`` as 0 or 1), as MXNet's."""
    optimize = kwargs.pop('optimize', False)
    kwargs.pop('out', None)
    if kwargs:
        raise MXNetTypeError('einsum() got unexpected keyword argument(s) %s' % sorted(kwargs))
    return _node('_npi_einsum', 'einsum', *operands[1:], subscripts=operands[0], optimize=int(optimize))


def shares_memory(a, b, max_work=None):  # noqa: ARG001
    """A ``_npi_share_memory`` node: whether the two arrays the graph gets overlap in memory, as MXNet's."""
    return _node('_npi_share_memory', 'share_memory', a, b)


may_share_memory = shares_memory

_PAD_KEYWORDS = {'constant': ['constant_values'], 'edge': [], 'linear_ramp': ['end_values'],
                 'maximum': ['stat_length'], 'mean': ['stat_length'], 'median': ['stat_length'],
                 'minimum': ['stat_length'], 'reflect': ['reflect_type'], 'symmetric': ['reflect_type'], 'wrap': []}


def pad(x, pad_width, mode='constant', **kwargs):
    """A ``_npi_pad`` node, as MXNet 1.9.1's: its constant mode makes a node it drops, then one padding with 0
    whatever ``constant_values`` says (the result's node is ``pad1``); MXNet's other limits raise as there."""
    if _onp.asarray(pad_width).dtype.kind != 'i':
        raise MXNetTypeError('`pad_width` must be of integral type.')
    if not isinstance(pad_width, tuple):
        raise MXNetTypeError('`pad_width` must be tuple.')
    if callable(mode):
        raise MXNetValueError("mode {'<function>'} is not supported.")
    if mode in ('linear_ramp', 'wrap', 'median', 'mean', 'empty'):
        raise MXNetValueError("mode {'%s'} is not supported." % mode)
    if mode not in _PAD_KEYWORDS:
        raise KeyError(mode)
    for key in kwargs:
        if key not in _PAD_KEYWORDS[mode]:
            raise MXNetValueError('%s keyword not in allowed keywords %s' % (key, _PAD_KEYWORDS[mode]))
    if mode == 'constant':
        values = kwargs.get('constant_values', 0)
        if isinstance(values, tuple):
            raise MXNetTypeError("unsupported constant_values type: {'tuple'}.")
        _call('_npi_pad', x, pad_width, mode='constant', constant_value=values)
    elif mode in ('symmetric', 'reflect'):
        values = kwargs.get('reflect_type', 'even')
        if values != 'even' and values is not None:
            raise MXNetValueError("unsupported reflect_type '{}'".format(values))
        return _call('_npi_pad', x, pad_width, mode=mode, reflect_type='even')
    elif mode == 'edge':
        return _call('_npi_pad', x, pad_width, mode='edge')
    elif mode in ('maximum', 'minimum'):
        values = kwargs.get('stat_length', None)
        if values is not None:
            raise MXNetValueError("unsupported stat_length '{}'".format(values))
        return _call('_npi_pad', x, pad_width, mode=mode)
    return _call('_npi_pad', x, pad_width, mode='constant', constant_value=0)


# ---- NumPy fallbacks (MXNet's Custom operators running NumPy) ------------------------------------------------
_EMPTY_LIKE_DTYPES = {None: 'None', _onp.int8: 'int8', _onp.uint8: 'uint8', _onp.int32: 'int32',
                      _onp.int64: 'int64', _onp.float16: 'float16', _onp.float32: 'float32',
                      _onp.float64: 'float64', _onp.bool_: 'bool_', bool: 'bool', int: 'int64', float: 'float64'}


def empty_like(prototype, dtype=None, order='C', subok=False, shape=None):
    """A ``Custom(op_type='empty_like_fallback')`` node, as MXNet's (its values are not initialised)."""
    if order != 'C':
        raise NotImplementedError('Only support C order at this moment')
    if subok:
        raise NotImplementedError('Creating array by using sub-class is not supported at this moment')
    if shape is not None:
        raise NotImplementedError("Parameter 'shape' is not supported at this moment")
    try:
        dtype = dtype if isinstance(dtype, str) else _EMPTY_LIKE_DTYPES[dtype]
    except (KeyError, TypeError):
        raise NotImplementedError('Do not support this dtype at this moment') from None
    return _node('Custom', 'custom', prototype, op_type='empty_like_fallback', dtype=dtype, order=order,
                 subok=subok, shape=shape)


def resize(a, new_shape):
    """A ``Custom(op_type='resize_fallback')`` node, as MXNet's."""
    return _node('Custom', 'custom', a, op_type='resize_fallback', new_shape=new_shape)


def unravel_index(indices, shape, order='C'):  # noqa: A002
    """A ``Custom(op_type='unravel_index_fallback')`` node: one int64 array of ``len(shape)`` rows."""
    if order != 'C':
        raise NotImplementedError('Don not support column-major (Fortran-style) order at this moment')
    return _node('Custom', 'custom', indices, op_type='unravel_index_fallback', shape=shape)


# ---- more creation -------------------------------------------------------------------------------------------
def _dtype_name(dtype, default='float32'):
    return default if dtype is None else _onp.dtype(dtype).name


def eye(N, M=None, k=0, dtype=_onp.float32, **kwargs):  # noqa: N803 (NumPy's names)
    """A ``_npi_eye`` node, as MXNet's."""
    ctx = kwargs.pop('ctx', None)
    if kwargs.get('order', 'C') != 'C':
        raise NotImplementedError("mx.sym.np.eye: order=%r (only C order)" % kwargs['order'])
    kwargs.pop('order', None)
    if kwargs:
        raise MXNetTypeError('eye() got unexpected keyword argument(s) %s' % sorted(kwargs))
    return _call('_npi_eye', N, M, k, _ctx(ctx), _dtype_name(dtype))


def identity(n, dtype=None, ctx=None):
    if not isinstance(n, int):
        raise MXNetTypeError("Input 'n' should be an integer")
    if n < 0:
        raise MXNetValueError("Input 'n' cannot be negative")
    return _call('_npi_identity', shape=(n, n), ctx=_ctx(ctx), dtype=_dtype_name(dtype))


def indices(dimensions, dtype=_onp.int32, ctx=None):
    if not isinstance(dimensions, (tuple, list)):
        raise MXNetValueError('The dimensions must be sequence of ints')
    return _call('_npi_indices', dimensions=dimensions, dtype=_dtype_name(dtype), ctx=_ctx(ctx))


def _scalar_range(name, start, stop, axis):
    """MXNet's symbols of evenly spaced numbers take number ends and axis 0 only (NotImplementedError)."""
    if isinstance(start, (list, _onp.ndarray)) or isinstance(stop, (list, _onp.ndarray)):
        raise NotImplementedError('mx.sym.np.%s: start and stop must be numbers, not arrays' % name)
    if axis != 0:
        raise NotImplementedError('mx.sym.np.%s: axis=%r (only axis 0)' % (name, axis))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """A legacy ``_linspace`` node (with the step, from Python arithmetic, for ``retstep``), as MXNet's."""
    _scalar_range('linspace', start, stop, axis)
    attrs = {'start': start, 'stop': stop, 'num': num, 'endpoint': endpoint, 'ctx': _ctx(ctx)}
    if dtype is not None:
        attrs['dtype'] = _onp.dtype(dtype).name
    node = _node('_linspace', 'linspace', **attrs)
    return (node, (stop - start) / (num - 1)) if retstep else node


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    _scalar_range('logspace', start, stop, axis)
    attrs = {'start': start, 'stop': stop, 'num': num, 'endpoint': endpoint, 'base': base, 'ctx': _ctx(ctx)}
    if dtype is not None:
        attrs['dtype'] = _onp.dtype(dtype).name
    return _call('_npi_logspace', **attrs)


def _window(name):
    def apply(M, dtype=_onp.float32, ctx=None):  # noqa: N803 (NumPy's name)
        return _call('_npi_' + name, M, dtype=_dtype_name(dtype), ctx=_ctx(ctx))
    apply.__name__ = name
    apply.__doc__ = 'A ``_npi_%s`` node, as MXNet\'s.' % name
    return apply


hanning = _window('hanning')
hamming = _window('hamming')
blackman = _window('blackman')


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
    __mul__ = __imul__ = multiply
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

    def __rmul__(self, other):
        return multiply(other, self)

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

    def __setitem__(self, key, value):
        raise NotImplementedError('mx.sym.np._Symbol does not support item assignment, as MXNet\'s')

    @property
    def num_outputs(self):
        return len(self._outputs)

    def repeat(self, repeats, axis=None):
        return repeat(self, repeats=repeats, axis=axis)

    def take(self, indices, axis=None, mode='raise'):
        return take(self, indices, axis, mode=mode)

    def argsort(self, axis=-1, kind=None, order=None):
        return argsort(self, axis=axis, kind=kind, order=order)

    def sort(self, axis=-1, kind=None, order=None):
        """Raises TypeError, as MXNet 1.9.1's method does (it raises the sort symbol it makes); the function
        ``mx.sym.np.sort`` works."""
        sort(self, axis=axis, kind=kind, order=order)
        raise MXNetTypeError('exceptions must derive from BaseException (MXNet 1.9.1\'s _Symbol.sort raises its '
                             'result; use mx.sym.np.sort)')

    def cumsum(self, axis=None, dtype=None, out=None):  # noqa: ARG002
        return cumsum(self, axis=axis, dtype=dtype)

    def round(self, decimals=0, out=None, **kwargs):  # noqa: A003
        return around(self, decimals=decimals, out=out, **kwargs)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        raise missing_attribute('mx.sym.np._Symbol.' + name, 'this method of NumPy symbols')


def _no_method(name):
    def method(self, *args, **kwargs):
        raise AttributeError('_Symbol object has no attribute %s' % name)
    method.__name__ = name
    method.__doc__ = 'Raises AttributeError, as MXNet 1.9.1\'s _Symbol (the legacy Symbol method is not NumPy\'s).'
    return method


# legacy Symbol methods that MXNet 1.9.1's _Symbol turns off (they would make legacy, not NumPy, nodes)
for _name in ('reshape_like', 'zeros_like', 'ones_like', 'broadcast_axes', 'pad', 'split', 'split_v2', 'slice',
              'slice_axis', 'slice_like', 'one_hot', 'pick', 'topk', 'argmax_channel', 'sign', 'shape_array',
              'size_array', 'expand_dims', 'tile', 'flip', 'depth_to_space', 'space_to_depth', 'diag', 'nansum',
              'nanprod', 'norm', 'rint', 'fix', 'floor', 'ceil', 'trunc', 'sin', 'cos', 'tan', 'arcsin', 'arccos',
              'arctan', 'degrees', 'radians', 'sinh', 'cosh', 'arcsinh', 'arccosh', 'arctanh', 'expm1', 'log10',
              'log2', 'log1p', 'rsqrt', 'cbrt', 'rcbrt', 'reciprocal', 'relu', 'sigmoid', 'softmax', 'log_softmax',
              'softmin', 'broadcast_to', 'broadcast_like'):
    setattr(_Symbol, _name, _no_method(_name))
del _name


# MXNet's legacy Symbol converts both ways too
Symbol.as_np_ndarray = as_np
Symbol.as_nd_ndarray = lambda self: self


from . import linalg  # noqa: E402,F401  (mx.sym.np.linalg: it builds on the functions above)
from . import random  # noqa: E402,F401


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise missing_attribute('mx.sym.np.' + name, 'this function of NumPy-compatible symbols')
