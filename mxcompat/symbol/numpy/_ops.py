"""The operators MXNet 1.9.1 registers for its NumPy interface alone (``_npi_add``, ``_np_sum``, ``_npx_reshape``
...), under its names and attribute names, each running the ``mx.np`` (``mx.npx``) function of the same meaning on
the tensors: a graph computes what the imperative call computes, with MXNet's NumPy dtype rules. Shapes and dtypes
come from running them on meta tensors, as for every registry operator.
"""
import torch

from ...base import parse_bool
from ...autograd import STATE as _STATE
from ...context import current_context
from ... import numpy as _mxnp
from ... import numpy_extension as _npx
from ...numpy.multiarray import _np_wrap
from ...operator import registry
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


def _scalar_impl(fn, reverse):
    def impl(data, scalar, is_int):
        s = int(scalar) if is_int else float(scalar)
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


# ---- shape inference of a deferred parameter: ``x.dot(w)`` gives w's first dimension (MXNet's _np_dot does) ----
def _dot_param(attrs, data):
    if len(data) < 1 or data[-1] <= 0:
        return {}
    return {'b': (data[-1], -1)}  # (-1: unknown under either shape semantics)


opinfo.PARAM_SHAPES.setdefault('_np_dot', _dot_param)
# a b whose shape is fully known already (a 1-D vector, or an input rather than a parameter) keeps it; a deferred
# parameter's partly known shape ((0, 100): 0 unknown) takes the inferred first dimension
opinfo.COMPATIBLE.setdefault('_np_dot', {}).setdefault('b', lambda old, new: all(d > 0 for d in old))


# their functions in mx.nd._internal and mx.sym._internal, as MXNet has them (those namespaces were filled from the
# registry before these operators existed)
def _publish():
    for name in sorted(set(registry.REGISTRY) - _BEFORE):
        op = registry.REGISTRY[name]
        nd_internal.__dict__.setdefault(name, nd_register.make_function(op, name))
        sym_internal.__dict__.setdefault(name, sym_register.make_function(op, name))


_publish()
