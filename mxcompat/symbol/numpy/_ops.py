"""The operators MXNet 1.9.1 registers for its NumPy interface alone (``_npi_add``, ``_np_sum``, ``_npx_reshape``
...), under its names and attribute names, each running the ``mx.np`` (``mx.npx``) function of the same meaning on
the tensors: a graph computes what the imperative call computes, with MXNet's NumPy dtype rules. Shapes and dtypes
come from running them on meta tensors, as for every registry operator.
"""
import ast

import torch

from ...base import MXNetError, parse_bool
from ...autograd import STATE as _STATE
from ...context import current_context
from ... import numpy as _mxnp
from ... import numpy_extension as _npx
from ...numpy.multiarray import _np_wrap
from ...operator import registry
from ...operator.registry import REQUIRED
from ...ndarray import _internal as nd_internal, register as nd_register
from ...operator.init_ops import _CREATE, _create_infer, _ctx, _dev, _arange_infer
from .. import _internal as sym_internal, register as sym_register
from .. import opinfo

__all__ = ['UNARY']

_BEFORE = set(registry.REGISTRY)


def _arrays(tensors):
    ctx = current_context()
    return [None if t is None else _np_wrap(t, ctx) for t in tensors]


def _tensors(result):
    if isinstance(result, (list, tuple)):
        return tuple(r._t for r in result)
    return result._t


def _graph_call(fn, *args, **kwargs):
    """``fn`` on mx.np arrays inside a graph: torch's grad mode, not ``autograd.record()``, decides what is
    recorded there (a bound executor runs its graph outside record()), so the arrays keep their tensors' history."""
    prev, _STATE.recording = _STATE.recording, True
    try:
        return fn(*args, **kwargs)
    finally:
        _STATE.recording = prev


def _on_arrays(fn, **fixed):
    """An op implementation: ``fn`` (an mx.np function) on the input tensors as mx.np arrays."""
    def impl(*tensors, **attrs):
        return _graph_call(lambda: _tensors(fn(*_arrays(tensors), **fixed, **attrs)))
    impl.__doc__ = 'mx.np.%s on the inputs.' % getattr(fn, '__name__', fn)
    return impl


def _number(v):
    """A fill value: an int where it is one (MXNet writes '1' or '1.5'; a bool fills as 1 or 0)."""
    if v in ('True', 'False'):
        return int(v == 'True')
    if isinstance(v, str):
        f = float(v)
        return int(f) if f.is_integer() and '.' not in v and 'e' not in v.lower() else f
    return v


# ---- element-wise ----------------------------------------------------------------------------------------------
_BINARY = ('add', 'subtract', 'multiply', 'true_divide', 'power', 'mod', 'equal', 'not_equal', 'less', 'less_equal',
           'greater', 'greater_equal')
def _like(op_name):
    """Shape/dtype inference borrowed from ``op_name`` (mod's torch kernel reads values, which meta tensors lack;
    its shapes and dtypes follow subtract's)."""
    return lambda shapes, dtypes, attrs: registry.get(op_name)._infer(shapes, dtypes, attrs)


for _name in _BINARY:
    registry.defop('_npi_' + _name, ('lhs', 'rhs'), [], _on_arrays(getattr(_mxnp, _name)),
                   infer=_like('_npi_subtract') if _name == 'mod' else None)

_SCALAR = [('scalar', 'float', 1.0), ('is_int', 'bool', True)]


# the scalar operators whose output dtype is MXNet's NumpyBinaryScalarType: an integer array with a scalar that
# is not an integer (is_int false) gives float64, a bool array int64 (is_int) or float64 -- where mx.np's eager
# functions keep the array's dtype, as MXNet's eager calls do
_SCALAR_TYPED = {'add', 'subtract', 'multiply', 'mod', 'power', 'copysign', 'arctan2', 'ldexp'}


def _scalar_typed(data, is_int):
    """``data`` in the dtype NumpyBinaryScalarType computes it in."""
    if data.dtype is torch.bool:
        return data.to(torch.int64 if is_int else torch.float64)
    if not is_int and not (data.is_floating_point() or data.is_complex()):
        return data.to(torch.float64)
    return data


def _scalar_impl(fn, reverse, integral=False):
    typed = fn.__name__ in _SCALAR_TYPED

    def impl(data, scalar, is_int):
        s = int(scalar) if is_int or integral else float(scalar)
        if typed:
            data = _scalar_typed(data, is_int)
        return _graph_call(lambda: (fn(s, _arrays([data])[0]) if reverse else fn(_arrays([data])[0], s))._t)
    impl.__doc__ = 'mx.np.%s with a scalar.' % fn.__name__
    return impl


for _name in _BINARY:
    registry.defop('_npi_%s_scalar' % _name, ('data',), _SCALAR, _scalar_impl(getattr(_mxnp, _name), False),
                   infer=_like('_npi_subtract_scalar') if _name == 'mod' else None)
for _name in ('subtract', 'true_divide', 'power', 'mod'):
    registry.defop('_npi_r%s_scalar' % _name, ('data',), _SCALAR, _scalar_impl(getattr(_mxnp, _name), True),
                   infer=_like('_npi_rsubtract_scalar') if _name == 'mod' else None)

# one-input functions (MXNet's ``_npi_<name>``)
UNARY = ('exp', 'log', 'log2', 'log10', 'log1p', 'expm1', 'sqrt', 'cbrt', 'square', 'sin', 'cos', 'tan', 'arcsin',
         'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh', 'floor', 'ceil', 'trunc',
         'rint', 'fix', 'sign', 'reciprocal', 'logical_not', 'degrees', 'radians')
for _name in UNARY + ('absolute', 'negative'):
    registry.defop('_npi_' + _name, ('x',), [], _on_arrays(getattr(_mxnp, _name)), same_shape='*')
registry.defop('_npi_where', ('condition', 'x', 'y'), [], _on_arrays(_mxnp.where))

# npx.relu / npx.sigmoid: MXNet registers them as operators of their own (their nodes say _npx_relu)
for _name in ('relu', 'sigmoid'):
    registry.defop('_npx_' + _name, ('data',), [], registry.get(_name).impl, same_shape='*')

# ---- reductions --------------------------------------------------------------------------------------------------
_REDUCE = [('axis', 'axis', None), ('keepdims', 'bool', False)]
registry.defop('_np_sum', ('a',), _REDUCE + [('dtype', 'dtype?', None), ('initial', 'float?', None)],
               _on_arrays(_mxnp.sum))
registry.defop('_np_prod', ('a',), _REDUCE + [('dtype', 'dtype?', None), ('initial', 'float?', None)],
               _on_arrays(_mxnp.prod))
registry.defop('_npi_mean', ('a',), _REDUCE + [('dtype', 'dtype?', None), ('initial', 'float?', None)],
               _on_arrays(lambda a, axis, keepdims, dtype, initial: _mxnp.mean(a, axis=axis, dtype=dtype,
                                                                               keepdims=keepdims)))
registry.defop('_np_max', ('a',), _REDUCE, _on_arrays(_mxnp.max))
registry.defop('_np_min', ('a',), _REDUCE, _on_arrays(_mxnp.min))
for _name in ('var', 'std'):
    registry.defop('_npi_' + _name, ('a',), _REDUCE + [('dtype', 'dtype?', None), ('ddof', 'int', 0)],
                   _on_arrays(getattr(_mxnp, _name)))


def _arg(fn):
    def arg(data, axis, keepdims):
        r = fn(data, axis=axis)
        return _mxnp.expand_dims(r, axis) if keepdims and axis is not None else r
    return _on_arrays(arg)


registry.defop('_npi_argmax', ('data',), [('axis', 'int?', None), ('keepdims', 'bool', False)], _arg(_mxnp.argmax))
registry.defop('_npi_argmin', ('data',), [('axis', 'int?', None), ('keepdims', 'bool', False)], _arg(_mxnp.argmin))
registry.defop('_np_dot', ('a', 'b'), [], _on_arrays(_mxnp.dot))

# ---- shapes ------------------------------------------------------------------------------------------------------
registry.defop('_np_reshape', ('a',), [('newshape', 'shape', None), ('order', 'str', 'C')],
               _on_arrays(_mxnp.reshape), view=True)
registry.defop('_npx_reshape', ('a',), [('newshape', 'shape', None), ('reverse', 'bool', False),
                                        ('order', 'str', 'C')], _on_arrays(_npx.reshape), view=True)
registry.defop('_np_transpose', ('a',), [('axes', 'shape', None)], _on_arrays(_mxnp.transpose), view=True)
registry.defop('_np_squeeze', ('a',), [('axis', 'axis', None)], _on_arrays(_mxnp.squeeze), view=True)
registry.defop('_npi_broadcast_to', ('array',), [('shape', 'shape', ())],
               _on_arrays(lambda array, shape: _mxnp.copy(_mxnp.broadcast_to(array, shape))))
registry.defop('_np_copy', ('a',), [], _on_arrays(_mxnp.copy))
registry.defop('_npi_concatenate', ('*data',), [('axis', 'int?', 0)],
               _on_arrays(lambda *data, axis, num_args: _mxnp.concatenate(data, axis=axis)))
registry.defop('_npi_stack', ('*data',), [('axis', 'int', 0)],
               _on_arrays(lambda *data, axis, num_args: _mxnp.stack(data, axis=axis)))

registry.defop('_np_roll', ('data',), [('shift', 'axis', None), ('axis', 'axis', None)], _on_arrays(_mxnp.roll))
registry.defop('_npi_hsplit', ('data',), [('indices', 'shape', ()), ('axis', 'int', 1), ('squeeze_axis', 'bool', False),
                                          ('sections', 'int', 0)],
               lambda data, indices, axis, squeeze_axis, sections: registry.get('_split_v2').impl(
                   data, indices, axis if data.dim() > 1 else 0, squeeze_axis, sections),
               view=True,
               num_outputs=lambda attrs: attrs['sections'] if attrs['sections'] > 0 else len(attrs['indices']))
registry.defop('_npi_tensordot', ('a', 'b'), [('a_axes_summed', 'shape', ()), ('b_axes_summed', 'shape', ())],
               _on_arrays(lambda a, b, a_axes_summed, b_axes_summed:
                          _mxnp.tensordot(a, b, (a_axes_summed, b_axes_summed))))
registry.defop('_npi_tensordot_int_axes', ('a', 'b'), [('axes', 'int', 2)], _on_arrays(_mxnp.tensordot))

# ---- linear algebra (mx.np.linalg's functions, MXNet's _npi_<name> operators) ----------------------------------------
for _name in ('det', 'inv', 'cholesky'):
    registry.defop('_npi_' + _name, ('A',), [], _on_arrays(getattr(_mxnp.linalg, _name)))


def _eig_infer(vectors):
    # (eig checks the values it computes are real, which meta tensors cannot tell): values (..., n), vectors (..., n, n)
    def infer(shapes, dtypes, attrs):  # noqa: ARG001
        out = [tuple(shapes[0][:-1])] + ([tuple(shapes[0])] if vectors else [])
        return out, [dtypes[0]] * len(out)
    return infer


registry.defop('_npi_eigvals', ('A',), [], _on_arrays(_mxnp.linalg.eigvals), infer=_eig_infer(False))
registry.defop('_npi_eigvalsh', ('A',), [('UPLO', 'str', 'L')], _on_arrays(_mxnp.linalg.eigvalsh))
registry.defop('_npi_eigh', ('A',), [('UPLO', 'str', 'L')], _on_arrays(_mxnp.linalg.eigh), num_outputs=2)
registry.defop('_npi_eig', ('A',), [], _on_arrays(_mxnp.linalg.eig), num_outputs=2, infer=_eig_infer(True))
registry.defop('_npi_slogdet', ('A',), [], _on_arrays(_mxnp.linalg.slogdet), num_outputs=2)
registry.defop('_npi_svd', ('A',), [], _on_arrays(_mxnp.linalg.svd), num_outputs=3)
registry.defop('_npi_tensorinv', ('a',), [('ind', 'int', 2)], _on_arrays(_mxnp.linalg.tensorinv))
registry.defop('_npi_solve', ('a', 'b'), [], _on_arrays(_mxnp.linalg.solve))
registry.defop('_npi_tensorsolve', ('a', 'b'), [('a_axes', 'shape', None)],
               _on_arrays(lambda a, b, a_axes: _mxnp.linalg.tensorsolve(a, b, axes=a_axes or None)))
registry.defop('_npi_pinv_scalar_rcond', ('A',), [('rcond', 'float', 1e-15), ('hermitian', 'bool', False)],
               _on_arrays(_mxnp.linalg.pinv))

# ---- creation ----------------------------------------------------------------------------------------------------
registry.defop('_npi_zeros', (), _CREATE, lambda shape, ctx, dtype: torch.zeros(shape, dtype=dtype, device=_dev(ctx)),
               infer=_create_infer)
registry.defop('_npi_ones', (), _CREATE, lambda shape, ctx, dtype: torch.ones(shape, dtype=dtype, device=_dev(ctx)),
               infer=_create_infer)
registry.defop('_npi_full_like', ('a',), [('fill_value', _number, 0), ('ctx', _ctx, None), ('dtype', 'dtype?', None)],
               _on_arrays(lambda a, fill_value, ctx, dtype: _mxnp.full_like(a, fill_value, dtype=dtype)))


def _npi_arange(start, stop, step, repeat, infer_range, ctx, dtype):  # noqa: ARG001
    return _mxnp.arange(start, stop, step, dtype=dtype, ctx=ctx)._t.to(_dev(ctx))


registry.defop('_npi_arange', (), [('start', 'float', 0.0), ('stop', 'float?', None), ('step', 'float', 1.0),
                                   ('repeat', 'int', 1), ('infer_range', parse_bool, False), ('ctx', _ctx, None),
                                   ('dtype', 'dtype', torch.float32)], _npi_arange, infer=_arange_infer)


# ---- inference and gradients of the operators below ---------------------------------------------------------
def _data_dependent(op_name, what):
    """Shape inference of an operator whose output shape depends on the input values: known only by running."""
    def infer(shapes, dtypes, attrs):  # noqa: ARG001
        raise MXNetError('Operator %s: the output shape depends on the values of %s: it cannot be inferred before '
                         'running' % (op_name, what))
    return infer


def _by_running(op_name, values_matter=None):
    """Shape inference of an operator whose implementation reads values (meta tensors have none) but whose output
    shape does not depend on them (unless ``values_matter(attrs)``): it runs on zeros of the input shapes."""
    def infer(shapes, dtypes, attrs):
        if values_matter is not None and values_matter(attrs):
            return _data_dependent(op_name, 'its inputs')(shapes, dtypes, attrs)
        zeros = [torch.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
        out = registry.get(op_name).impl(*zeros, **attrs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [tuple(o.shape) for o in outs], [o.dtype for o in outs]
    return infer


def _zero_gradient(outputs, data):
    """``outputs`` joined to ``data``'s history with a zero gradient: MXNet gives these operators zero gradients
    (torch's kernels have none), and an output may then be a head of backward."""
    anchor = _mxnp.sum(data) * 0 if data.dtype.kind == 'f' else None
    outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    joined = tuple(o + anchor.astype(o.dtype) if anchor is not None and o.dtype.kind == 'f' else o for o in outs)
    return joined if isinstance(outputs, (tuple, list)) else joined[0]


# ---- more element-wise functions ---------------------------------------------------------------------------------
for _name in ('bitwise_not', 'isnan', 'isinf', 'isposinf', 'isneginf', 'isfinite'):
    registry.defop('_npi_' + _name, ('x',), [], _on_arrays(getattr(_mxnp, _name)), same_shape='*')
registry.defop('_npi_around', ('x',), [('decimals', 'int', 0)], _on_arrays(_mxnp.around), same_shape='*')
registry.defop('_npi_nan_to_num', ('data',), [('copy', 'bool', True), ('nan', 'float', 0.0), ('posinf', 'float?', None),
                                              ('neginf', 'float?', None)],
               _on_arrays(lambda data, copy, nan, posinf, neginf: _mxnp.nan_to_num(data, True, nan, posinf, neginf)),
               same_shape='*')

# two-input functions: (input names, reflected scalar node, integer-only) -- MXNet's ops of integers take the
# scalar as an integer whatever ``is_int`` says
_BINARY_MORE = {'arctan2': (('x1', 'x2'), True, False), 'hypot': (('x1', 'x2'), False, False),
                'copysign': (('lhs', 'rhs'), True, False), 'ldexp': (('lhs', 'rhs'), True, False),
                'lcm': (('lhs', 'rhs'), False, True), 'bitwise_and': (('lhs', 'rhs'), False, True),
                'bitwise_or': (('lhs', 'rhs'), False, True), 'bitwise_xor': (('lhs', 'rhs'), False, True)}


for _name, (_ins, _reflected, _integral) in _BINARY_MORE.items():
    _fn = getattr(_mxnp, _name)
    registry.defop('_npi_' + _name, _ins, [], _on_arrays(_fn))
    if _name != 'hypot':  # (MXNet's hypot with a scalar is the legacy _hypot_scalar)
        registry.defop('_npi_%s_scalar' % _name, ('data',), _SCALAR, _scalar_impl(_fn, False, _integral),
                       same_shape='*')
    if _reflected:
        registry.defop('_npi_r%s_scalar' % _name, ('data',), _SCALAR, _scalar_impl(_fn, True, _integral),
                       same_shape='*')
registry.defop('_npi_matmul', ('a', 'b'), [], _on_arrays(_mxnp.matmul), output_names=('out',))

# ---- more reductions and statistics --------------------------------------------------------------------------
for _name in ('all', 'any'):
    registry.defop('_np_' + _name, ('data',), [('axis', 'axis', None), ('keepdims', 'bool', False)],
                   _on_arrays(getattr(_mxnp, _name)))


def _average(a, weights=None, *, axis, returned, weighted):
    if not (returned and weighted and weights.ndim != a.ndim):
        return _mxnp.average(a, axis=axis, weights=weights if weighted else None, returned=returned)
    # MXNet's sum of 1-D weights (given with an axis) is one number, not NumPy's array shaped like the average,
    # and its backward takes no gradient through it (zero, still in the recorded graph, so it may be a head)
    total = _mxnp.sum(weights)
    return _mxnp.average(a, axis=axis, weights=weights), total.detach() + total * 0


registry.defop('_npi_average', ('a', 'weights'), [('axis', 'axis', None), ('returned', 'bool', False),
                                                  ('weighted', 'bool', True)], _on_arrays(_average),
               optional=('weights',), input_names=lambda a: ['a', 'weights'] if a['weighted'] else ['a'],
               num_outputs=lambda a: 2 if a['returned'] else 1,
               output_names=lambda a: ['output0', 'output1'][:2 if a['returned'] else 1])
opinfo.TOTAL_OUTPUTS.setdefault('_npi_average', 2)  # (MXNet's node always keeps the sum of weights)


def _percentile(a, q=None, *, axis, interpolation, keepdims, q_scalar):
    return _mxnp.percentile(a, q_scalar if q is None else q, axis=axis, interpolation=interpolation,
                            keepdims=keepdims)


registry.defop('_npi_percentile', ('a', 'q'), [('axis', 'axis', None), ('interpolation', 'str', 'linear'),
                                               ('keepdims', 'bool', False), ('q_scalar', 'float?', None)],
               _on_arrays(_percentile), optional=('q',), infer=_by_running('_npi_percentile'),
               choices={'interpolation': ('linear', 'lower', 'higher', 'midpoint', 'nearest')},
               input_names=lambda a: ['a'] if a['q_scalar'] is not None else ['a', 'q'])
registry.defop('_np_trace', ('data',), [('offset', 'int', 0), ('axis1', 'int', 0), ('axis2', 'int', 1)],
               _on_arrays(_mxnp.trace))
registry.defop('_npi_diff', ('a',), [('n', 'int', 1), ('axis', 'int', -1)], _on_arrays(_mxnp.diff))


def _ediff1d(ary, *ends, to_begin_arr_given, to_end_arr_given, to_begin_scalar, to_end_scalar):
    ends = list(ends)
    begin = ends.pop(0) if to_begin_arr_given else to_begin_scalar
    end = ends.pop(0) if to_end_arr_given else to_end_scalar
    return _mxnp.ediff1d(ary, to_end=end, to_begin=begin)


registry.defop('_npi_ediff1d', ('input1', 'input2', 'input3'),
               [('to_begin_arr_given', 'bool', False), ('to_end_arr_given', 'bool', False),
                ('to_begin_scalar', 'float?', None), ('to_end_scalar', 'float?', None)], _on_arrays(_ediff1d),
               optional=('input2', 'input3'),
               input_names=lambda a: ['input1', 'input2', 'input3'][:1 + a['to_begin_arr_given']
                                                                    + a['to_end_arr_given']])


def _bincount(data, weights=None, *, minlength, has_weights):
    if not has_weights:
        return _mxnp.bincount(data, minlength=minlength)
    return _zero_gradient(_mxnp.bincount(data, weights=weights.detach(), minlength=minlength), weights)


registry.defop('_npi_bincount', ('data', 'weights'), [('minlength', 'int', 0), ('has_weights', 'bool', False)],
               _on_arrays(_bincount), optional=('weights',),
               input_names=lambda a: ['data', 'weights'] if a['has_weights'] else ['data'],
               infer=_data_dependent('_npi_bincount', 'data'))
registry.defop('_npi_polyval', ('p', 'x'), [], _on_arrays(_mxnp.polyval))
registry.defop('_npi_unique', ('data',), [('return_index', 'bool', False), ('return_inverse', 'bool', False),
                                          ('return_counts', 'bool', False), ('axis', 'int?', None)],
               _on_arrays(lambda data, **attrs: _zero_gradient(_mxnp.unique(data.detach(), **attrs), data)),
               infer=_data_dependent('_npi_unique', 'data'),
               num_outputs=lambda a: 1 + a['return_index'] + a['return_inverse'] + a['return_counts'])

# ---- more shapes -------------------------------------------------------------------------------------------------
_POSITIONS = [('start', 'int?', None), ('stop', 'int?', None), ('step', 'int?', None), ('int_ind', 'int?', None),
              ('axis', 'int?', None)]


def _position(obj, start, stop, step, int_ind):
    """The ``obj`` of np.delete/np.insert from MXNet's attributes: an index array, an integer or a slice."""
    if obj is not None:
        return obj
    return int_ind if int_ind is not None else slice(start, stop, step)


def _delete(arr, obj=None, *, start, stop, step, int_ind, axis):
    return _mxnp.delete(arr, _position(obj, start, stop, step, int_ind), axis=axis)


def _by_position(a):
    return a['int_ind'] is None and a['step'] is None


registry.defop('_npi_delete', ('arr', 'obj'), _POSITIONS, _on_arrays(_delete), optional=('obj',),
               infer=_by_running('_npi_delete', _by_position),
               input_names=lambda a: ['arr', 'obj'] if _by_position(a) else ['arr'])


def _insert(arr, *rest, val, start, stop, step, int_ind, axis):
    rest = list(rest)
    values = rest.pop(0) if val is None else val
    obj = rest.pop(0) if rest else None
    return _mxnp.insert(arr, _position(obj, start, stop, step, int_ind), values, axis=axis)


for _name in ('scalar', 'slice'):
    registry.defop('_npi_insert_' + _name, ('arr', 'values'), [('val', 'float?', None)] + _POSITIONS,
                   _on_arrays(_insert), optional=('values',),
                   input_names=lambda a: ['arr'] if a['val'] is not None else ['arr', 'values'])
registry.defop('_npi_insert_tensor', ('arr', 'values', 'obj'), [('val', 'float?', None)] + _POSITIONS,
               _on_arrays(_insert), optional=('values',),
               input_names=lambda a: ['arr', 'obj'] if a['val'] is not None else ['arr', 'values', 'obj'])
registry.defop('_np_diag', ('data',), [('k', 'int', 0)], _on_arrays(_mxnp.diag))
registry.defop('_np_diagflat', ('data',), [('k', 'int', 0)], _on_arrays(_mxnp.diagflat))
registry.defop('_np_diagonal', ('data',), [('offset', 'int', 0), ('axis1', 'int', 0), ('axis2', 'int', 1)],
               _on_arrays(_mxnp.diagonal))
registry.defop('_npi_diag_indices_from', ('data',), [],
               _on_arrays(lambda data: _mxnp.stack(_mxnp.diag_indices_from(data)).astype('int64')))
registry.defop('_npi_flip', ('data',), [('axis', 'axis', None)], _on_arrays(_mxnp.flip))
registry.defop('_np_moveaxis', ('a',), [('source', 'axis', None), ('destination', 'axis', None)],
               _on_arrays(_mxnp.moveaxis))
registry.defop('_npi_rot90', ('data',), [('k', 'int', 1), ('axes', 'shape', None)],
               _on_arrays(lambda data, k, axes: _mxnp.rot90(data, k, (0, 1) if axes is None else axes)))
registry.defop('_npi_tril', ('data',), [('k', 'int', 0)], _on_arrays(_mxnp.tril))


def _pad_width(v):
    """((before, after), ...) from MXNet's attribute string."""
    return tuple(tuple(int(i) for i in p) for p in ast.literal_eval(v)) if isinstance(v, str) else \
        tuple(tuple(p) for p in v)


def _pad(data, pad_width, mode, constant_value, reflect_type):
    if mode == 'constant':
        return _mxnp.pad(data, pad_width, mode, constant_values=constant_value)
    if mode in ('reflect', 'symmetric'):
        return _mxnp.pad(data, pad_width, mode, reflect_type=reflect_type)
    return _mxnp.pad(data, pad_width, mode)


registry.defop('_npi_pad', ('data',), [('pad_width', _pad_width, REQUIRED), ('mode', 'str', 'constant'),
                                       ('constant_value', 'float', 0.0), ('reflect_type', 'str', 'even')],
               _on_arrays(_pad),
               choices={'mode': ('constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum')})
registry.defop('_npi_einsum', ('*data',), [('subscripts', 'str', ''), ('optimize', 'int', 0)],
               _on_arrays(lambda *data, subscripts, optimize, num_args:
                          _mxnp.einsum(subscripts, *data, optimize=bool(optimize))))


def _share_memory(a, b):
    # whether the two inputs' memory overlaps, as MXNet's operator checks the blobs' address ranges
    if a.device.type == 'meta':
        return torch.empty((), dtype=torch.bool, device='meta')
    def span(t):
        start = t.data_ptr()
        return start, start + t.numel() * t.element_size()
    (s1, e1), (s2, e2) = span(a), span(b)
    overlap = a.numel() > 0 and b.numel() > 0 and s1 < e2 and s2 < e1
    return torch.tensor(overlap, dtype=torch.bool, device=a.device)


registry.defop('_npi_share_memory', ('a', 'b'), [], _share_memory)

# stacking and splitting
for _name in ('atleast_1d', 'atleast_2d', 'atleast_3d'):
    registry.defop('_np_' + _name, ('*data',), [],
                   _on_arrays(lambda *data, num_args, _fn=getattr(_mxnp, _name): _fn(*data)),
                   num_outputs=lambda a: a['num_args'])
registry.defop('_npi_column_stack', ('*data',), [], _on_arrays(lambda *data, num_args: _mxnp.column_stack(data)))
registry.defop('_npi_vstack', ('*data',), [], _on_arrays(lambda *data, num_args: _mxnp.vstack(data)))
for _name in ('hstack', 'dstack'):
    registry.defop('_npi_' + _name, ('*data',), [('dim', 'int', 1)],
                   _on_arrays(lambda *data, dim, num_args, _fn=getattr(_mxnp, _name): _fn(data)), output_names=('out',))
registry.defop('_npi_dsplit', ('data',), [('indices', 'shape', ()), ('axis', 'int', 2), ('squeeze_axis', 'bool', False),
                                          ('sections', 'int', 0)],
               lambda data, indices, axis, squeeze_axis, sections: registry.get('_split_v2').impl(
                   data, indices, 2, squeeze_axis, sections),
               view=True,
               num_outputs=lambda attrs: attrs['sections'] if attrs['sections'] > 0 else len(attrs['indices']))

# ---- more creation -----------------------------------------------------------------------------------------------
def _created(fn):
    """A creation operator: ``fn(**attrs)`` (an mx.np call) placed on the ``ctx`` attribute's device."""
    def impl(ctx, **attrs):
        return fn(**attrs)._t.to(_dev(ctx))
    impl.__doc__ = fn.__doc__
    return impl


def _parse_count(v):
    """An integer attribute MXNet may write as a long ('3', '3L') or leave None."""
    if v is None or v == 'None':
        return None
    return int(str(v).rstrip('L'))


registry.defop('_npi_eye', (), [('N', _parse_count, REQUIRED), ('M', _parse_count, None), ('k', _parse_count, 0),
                                ('ctx', _ctx, None), ('dtype', 'dtype', torch.float32)],
               _created(lambda N, M, k, dtype: _mxnp.eye(N, M, k, dtype=dtype)))
registry.defop('_npi_identity', (), [('shape', 'shape', ()), ('ctx', _ctx, None), ('dtype', 'dtype', torch.float32)],
               _created(lambda shape, dtype: _mxnp.eye(shape[0], shape[1], dtype=dtype)))
registry.defop('_npi_indices', (), [('dimensions', 'shape', REQUIRED), ('dtype', 'dtype', torch.int32),
                                    ('ctx', _ctx, None)],
               _created(lambda dimensions, dtype: _mxnp.indices(dimensions, dtype=dtype)))
registry.defop('_npi_logspace', (), [('start', 'float', REQUIRED), ('stop', 'float', REQUIRED),
                                     ('num', 'int', REQUIRED), ('endpoint', 'bool', True), ('base', 'float', 10.0),
                                     ('ctx', _ctx, None),
                                     ('dtype', 'dtype', torch.float32)],
               _created(lambda start, stop, num, endpoint, base, dtype:
                        _mxnp.logspace(start, stop, num, endpoint, base, dtype=dtype)))
for _name in ('hanning', 'hamming', 'blackman'):
    registry.defop('_npi_' + _name, (), [('M', _parse_count, None), ('ctx', _ctx, None),
                                         ('dtype', 'dtype', torch.float32)],
                   _created(lambda M, dtype, _fn=getattr(_mxnp, _name): _fn(M, dtype=dtype)))


# ---- shape inference of a deferred parameter: ``x.dot(w)`` gives w's first dimension (MXNet's _np_dot does) ----
def _dot_param(attrs, data):
    if len(data) < 1 or data[-1] <= 0:
        return {}
    return {'b': (data[-1], -1)}  # (-1: unknown under either shape semantics)


opinfo.PARAM_SHAPES.setdefault('_np_dot', _dot_param)
# a b whose shape is fully known already (a 1-D vector, or an input rather than a parameter) keeps it; a deferred
# parameter's partly known shape ((0, 100): 0 unknown) takes the inferred first dimension
opinfo.COMPATIBLE.setdefault('_np_dot', {}).setdefault('b', lambda old, new: all(d > 0 for d in old))


def publish(names):
    """The functions of registry operators ``names`` in mx.nd._internal and mx.sym._internal, as MXNet has them
    (those namespaces were filled from the registry before the NumPy interface's operators existed)."""
    for name in sorted(names):
        op = registry.REGISTRY[name]
        nd_internal.__dict__.setdefault(name, nd_register.make_function(op, name))
        sym_internal.__dict__.setdefault(name, sym_register.make_function(op, name))


publish(set(registry.REGISTRY) - _BEFORE)
