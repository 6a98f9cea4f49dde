"""MXNet's legacy custom operators: ``mx.operator.CustomOp``, ``CustomOpProp``, ``register``, and the ``Custom``
registry op behind ``mx.nd.Custom`` / ``mx.sym.Custom``.

A registered ``CustomOpProp`` subclass is instantiated with the call's extra keyword arguments as strings (as
MXNet does); its ``list_arguments`` / ``list_auxiliary_states`` / ``list_outputs`` name the op's inputs and
outputs, ``infer_shape`` / ``infer_type`` size the outputs, and the ``CustomOp`` it creates runs the user's
Python ``forward`` / ``backward`` on NDArrays wrapping the torch tensors; random draws there come from the CPU
engines of MXNet's custom-operator worker thread (seeded from 0 at start and not by a main-thread
``mx.random.seed``), as MXNet's per-thread resources do. Gradients go through a
``torch.autograd.Function``, so the op works under ``mx.autograd.record()``, in bound symbols and in hybridized
blocks alike.

Differs from MXNet: ``backward`` gets every array (MXNet passes empty arrays for those not named by
``declare_backward_dependency``); the ``req`` it gets is ``'write'`` or ``'null'`` (a ``grad_req='add'``
accumulation is applied after ``backward`` returns, by autograd / the executor); an input dtype that
``infer_type`` changes is not pushed back to the variable feeding it; a graph node creates one ``CustomOp`` per
context and input shapes/dtypes, shared by the executors bound from the same Symbol object (MXNet creates one per
executor). Sparse storage types are not supported.
"""
import collections
import threading
import warnings

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from .._recording import STATE as _RECORDING, _Scope
from ..base import (MXNetError, MXNetTypeError, MXNetValueError, MXNetIndexError, DTYPE_NP2MX, dtype_name,
                    to_np_dtype, to_torch_dtype, unsupported)
from ..context import Context, context_of, current_context
from . import _mxrandom, registry

__all__ = ['CustomOp', 'CustomOpProp', 'register', 'get_all_registered_operators', 'get_operator_arguments',
           'OperatorArguments', 'PythonOp', 'NumpyOp', 'NDArrayOp']

_PROPS = {}  # op_type -> CustomOpProp subclass
_LOCK = threading.Lock()
SPEC = '_mxcompat_custom'  # key of the parsed attributes holding the node's _Custom state
HANDOFF = threading.local()  # attributes mx.sym.Custom parsed, reused by the node it creates next (one prop)


# ---- the user-facing classes ---------------------------------------------------------------------------------------
class CustomOp:
    """Base class of a custom operator's computation: override ``forward`` and ``backward``."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute ``out_data`` from ``in_data`` (lists of NDArrays); ``req[i]`` says how to write ``out_data[i]``."""

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute ``in_grad`` (lists of NDArrays); ``req[i]`` says how to write ``in_grad[i]``."""

    def assign(self, dst, req, src):
        """Write ``src`` into NDArray ``dst`` as ``req`` ('null', 'write', 'inplace' or 'add') asks."""
        if req == 'null':
            return
        if req in ('write', 'inplace'):
            dst[:] = src
        elif req == 'add':
            dst[:] += src
        else:
            raise MXNetValueError("CustomOp.assign: req must be 'null', 'write', 'inplace' or 'add', got %r" % (req,))


class CustomOpProp:
    """Base class describing a custom operator: its inputs, outputs, shapes, dtypes, and the ``CustomOp`` it
    creates. ``need_top_grad=False`` declares a loss-like op whose backward does not use ``out_grad``."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(input shapes, output shapes[, aux shapes]); by default every output is shaped like the first input."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """(input dtypes, output dtypes[, aux dtypes]); by default everything has the first input's dtype."""
        return in_type, [in_type[0]] * len(self.list_outputs()), [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        """Storage types; mxcompat supports only 'default'."""
        for i, stype in enumerate(in_stype):
            if stype != 'default':
                raise MXNetValueError("infer_storage_type: input %d has storage type %r; the default implementation "
                                      "only allows 'default'" % (i, stype))
        return in_stype, ['default'] * len(self.list_outputs()), ['default'] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        """Backward storage types; mxcompat supports only 'default'."""
        lists = [ograd_stype, in_stype, out_stype, igrad_stype, aux_stype]
        return tuple(['default'] * len(x) for x in lists)

    def list_outputs(self):
        return ['output']

    def list_arguments(self):
        return ['data']

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Ids of the arrays ``backward`` reads (mxcompat passes all of them regardless)."""
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The ``CustomOp`` doing the computation, for these input shapes and dtype flags (ints, as MXNet's)."""
        return CustomOp()


def register(reg_name):
    """Class decorator: register a ``CustomOpProp`` subclass as custom operator ``reg_name`` (``op_type``)."""
    def do_register(prop_cls):
        with _LOCK:
            if reg_name in _PROPS:
                warnings.warn('New registration is overriding existing custom operator %s' % reg_name, stacklevel=2)
            _PROPS[reg_name] = prop_cls
        return prop_cls
    return do_register


def get_all_registered_operators():
    """Sorted names of every operator in the registry (aliases included), as MXNet lists its backend's."""
    return sorted(registry.REGISTRY)


OperatorArguments = collections.namedtuple('OperatorArguments', ['narg', 'names', 'types'])

_KIND_TYPES = {'int': 'int', 'float': 'float', 'float32': 'float', 'bool': 'boolean', 'str': 'string',
               'shape': 'Shape(tuple)', 'tuple': 'Shape(tuple)', 'floats': 'tuple of <float>', 'axis': 'Shape or None',
               'int?': 'int or None', 'bool?': 'boolean or None', 'float?': 'float or None', 'any': 'string'}


def _arg_type(op, name):
    parser, default = op.params[name]
    kind = next((k for k, p in registry.PARSERS.items() if p is parser), None)
    allowed = op.choices.get(name)
    if allowed is None and kind in ('dtype', 'dtype?'):
        allowed = ['bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'] + (
            ['None'] if kind == 'dtype?' else [])
    typ = ('{%s}' % ', '.join(repr(str(a)) for a in sorted(allowed, key=str)) if allowed is not None
           else _KIND_TYPES.get(kind, 'string'))
    if default is registry.REQUIRED or (name == 'num_args' and op.variadic):
        return typ + ', required'
    if isinstance(default, bool):
        shown = int(default)
    elif isinstance(default, torch.dtype):
        shown = repr(dtype_name(default))
    elif isinstance(default, (int, str)) or allowed is not None:
        shown = repr(str(default))
    elif isinstance(default, float):
        shown = '%g' % default
    elif isinstance(default, tuple):
        shown = '[%s]' % ','.join(map(str, default))
    else:
        shown = default
    return '%s, optional, default=%s' % (typ, shown)


def get_operator_arguments(op_name):
    """``OperatorArguments(narg, names, types)`` of a registry operator: its inputs then its attributes.

    Differs from MXNet: the type strings are written from mxcompat's attribute kinds, in MXNet's format; they
    can differ in detail (MXNet says 'double' for some float attributes)."""
    op = registry.get(op_name)
    names, types = [], []
    for n in op.inputs:
        names.append(n)
        types.append('NDArray-or-Symbol[]' if op.variadic else 'NDArray-or-Symbol')
    if op.variadic:
        names.append('num_args')
        types.append('int, required')
    for n in op.param_names:
        if n != 'num_args':
            names.append(n)
            types.append(_arg_type(op, n))
    return OperatorArguments(len(names), names, types)


# ---- per-node state ------------------------------------------------------------------------------------------------
class _AuxName(str):
    """An input name that is an auxiliary state (the symbol graph asks ``name in op.aux``)."""
    __slots__ = ()


class _AuxInputs:
    """``OpDef.aux`` of Custom: which inputs are aux states depends on the prop, so names carry the mark."""

    def __contains__(self, name):
        return isinstance(name, _AuxName)

    def __bool__(self):
        return True

    def __iter__(self):
        return iter(())


_ERROR_KINDS = ((TypeError, MXNetTypeError), (ValueError, MXNetValueError), (IndexError, MXNetIndexError))


def _user_error(op_type, where, e):
    if isinstance(e, MXNetError):
        cls = type(e)
    else:
        cls = next((m for py, m in _ERROR_KINDS if isinstance(e, py)), MXNetError)
    try:
        err = cls('Error in %s of custom operator %r: %s: %s' % (where, op_type, type(e).__name__, e))
    except TypeError:  # an MXNetError subclass with its own constructor
        err = MXNetError('Error in %s of custom operator %r: %s: %s' % (where, op_type, type(e).__name__, e))
    return err


def _three(ret, what, op_type):
    if not isinstance(ret, (tuple, list)) or len(ret) not in (2, 3):
        raise MXNetValueError('Custom operator %r: %s must return 2 or 3 lists, got %r' % (op_type, what, ret))
    return (list(ret[0]), list(ret[1]), list(ret[2]) if len(ret) == 3 else [])


class _Custom:
    """One Custom node (or one eager call): the prop, its input/output names, and the CustomOps it created."""

    __slots__ = ('op_type', 'prop', 'args', 'aux', 'outputs', 'ops', 'ctx', 'stypes_checked')

    def __init__(self, op_type, prop_cls, kwargs):
        self.op_type = op_type
        self.prop = self.call('CustomOpProp.__init__', prop_cls, **kwargs)
        self.args = [str(a) for a in self.call('list_arguments', self.prop.list_arguments)]
        self.aux = [_AuxName(a) for a in self.call('list_auxiliary_states', self.prop.list_auxiliary_states)]
        self.outputs = [str(a) for a in self.call('list_outputs', self.prop.list_outputs)]
        nout, nin = len(self.outputs), len(self.args)
        deps = self.call('declare_backward_dependency', self.prop.declare_backward_dependency,
                         list(range(nout)), list(range(nout, nout + nin)), list(range(nout + nin, 2 * nout + nin)))
        if not all(isinstance(d, (int, np.integer)) and 0 <= d < 2 * nout + nin for d in deps):
            raise MXNetValueError('Custom operator %r: declare_backward_dependency returned %r; expected ids of '
                                  'out_grad, in_data and out_data' % (op_type, deps))
        self.ops = {}
        self.ctx = None
        self.stypes_checked = False

    def call(self, where, fn, /, *args, **kwargs):
        """Run user code; its exceptions become MXNet errors naming the operator."""
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise _user_error(self.op_type, where, e) from e

    def input_names(self):
        return self.args + self.aux

    # -- inference (MXNet passes [] for an unknown shape and None for an unknown dtype) ---------------------------
    def infer_shape(self, arg_shapes):
        ins, outs, auxs = _three(self.call('infer_shape', self.prop.infer_shape, [list(s) for s in arg_shapes]),
                                 'infer_shape', self.op_type)
        for got, want, what in ((ins, self.args, 'input'), (outs, self.outputs, 'output'),
                                (auxs, self.aux, 'aux state')):
            if len(got) != len(want):
                raise MXNetValueError('Custom operator %r: infer_shape returned %d %s shapes, expected %d (%s)'
                                      % (self.op_type, len(got), what, len(want), ', '.join(want)))
        try:
            return tuple([tuple(int(d) for d in s) for s in ss] for ss in (ins, outs, auxs))
        except (TypeError, ValueError):
            raise MXNetValueError('Custom operator %r: infer_shape returned %r; shapes must be sequences of ints'
                                  % (self.op_type, (ins, outs, auxs))) from None

    def infer_type(self, arg_types):
        ins, outs, auxs = _three(self.call('infer_type', self.prop.infer_type, list(arg_types)),
                                 'infer_type', self.op_type)
        if len(outs) != len(self.outputs):
            raise MXNetValueError('Custom operator %r: infer_type returned %d output types, expected %d'
                                  % (self.op_type, len(outs), len(self.outputs)))
        try:
            return [to_torch_dtype(t) for t in outs]
        except MXNetError as e:
            raise MXNetTypeError('Custom operator %r: infer_type: %s' % (self.op_type, e)) from None

    def check_storage_types(self):
        if self.stypes_checked:
            return
        ret = _three(self.call('infer_storage_type', self.prop.infer_storage_type, ['default'] * len(self.args)),
                     'infer_storage_type', self.op_type)
        bad = sorted({s for lst in ret for s in lst if s != 'default'})
        if bad:
            raise unsupported('Custom operator %r' % self.op_type, 'storage type %s from infer_storage_type'
                              % ', '.join(map(repr, bad)), 'mxcompat arrays are dense')
        self.stypes_checked = True

    def infer(self, shapes, dtypes):
        """Output shapes and dtypes for complete input shapes; checks the prop agrees with the given inputs."""
        self.check_storage_types()
        n = len(self.args)
        given = [tuple(s) for s in shapes]
        ins, outs, auxs = self.infer_shape(given[:n])
        for name, have, want in zip(self.input_names(), given, ins + auxs):
            if len(have) != len(want) or any(a and b and a != b for a, b in zip(have, want)):  # 0: unknown dim
                raise MXNetValueError('Shape inconsistent, Provided = [%s], inferred shape=[%s] for input %s of '
                                      'custom operator %r' % (','.join(map(str, have)), ','.join(map(str, want)),
                                                              name, self.op_type))
        return outs, self.infer_type([to_np_dtype(d) for d in dtypes[:n]])

    def operator(self, ctx, shapes, dtypes):
        key = (str(ctx), tuple(shapes), tuple(dtypes))
        op = self.ops.get(key)
        if op is None:
            flags = [DTYPE_NP2MX[np.dtype(to_np_dtype(d))] for d in dtypes]
            op = self.call('create_operator', self.prop.create_operator, ctx, [list(s) for s in shapes], flags)
            self.ops[key] = op
        return op

    # -- running ---------------------------------------------------------------------------------------------------
    def run(self, tensors):
        n, na = len(self.args), len(self.aux)
        if len(tensors) != n + na:
            raise MXNetValueError('Operator Custom (op_type=%r): expected %d inputs (%s), got %d'
                                  % (self.op_type, n + na, ', '.join(self.input_names()) or 'none', len(tensors)))
        ctx = self.ctx or (context_of(tensors[0].device) if tensors else current_context())
        shapes = [tuple(t.shape) for t in tensors]
        dtypes = [t.dtype for t in tensors]
        out_shapes, out_dtypes = self.infer(shapes, dtypes)
        if not out_shapes:
            raise MXNetValueError('Custom operator %r: list_outputs is empty; an operator needs an output'
                                  % self.op_type)
        op = self.operator(ctx, shapes, dtypes)
        res = _CustomFunction.apply(self, op, ctx, (out_shapes, out_dtypes), list(tensors[n:]), *tensors[:n])
        return res


# The layers above hand this module what it gives the user's code: ``NDArray._from_tensor`` (the arrays a CustomOp's
# forward/backward get; set by mxcompat.ndarray.register) and ``mx.sym.Custom`` (the node a PythonOp's get_symbol
# makes; set by mxcompat.symbol.register).
FRONTENDS = {}


def _nd(t, ctx):
    return FRONTENDS['ndarray'](t, ctx)


class _CustomFunction(torch.autograd.Function):
    """Runs the user's CustomOp.forward, and its backward when torch autograd asks for input gradients."""

    @staticmethod
    def forward(fctx, node, op, ctx, out_specs, aux, *args):
        device = args[0].device if args else ctx.torch_device
        outs = [_nd(torch.zeros(s, dtype=d, device=device), ctx) for s, d in zip(*out_specs)]
        ins = [_nd(t.detach(), ctx) for t in args]
        aux_nd = [_nd(t, ctx) for t in aux]
        is_train = _RECORDING.training
        with _Scope(False, is_train), Context(ctx), _mxrandom.custom_op_thread():
            node.call('CustomOp.forward', op.forward, is_train=int(is_train), req=['write'] * len(outs),
                      in_data=ins, out_data=outs, aux=aux_nd)
        res = [o._t for o in outs]
        fctx.node, fctx.op, fctx.ctx, fctx.aux = node, op, ctx, aux_nd
        fctx.n_args = len(args)
        fctx.save_for_backward(*args, *res)
        nondiff = [r for r in res if not r.is_floating_point()]
        if nondiff:
            fctx.mark_non_differentiable(*nondiff)
        return res[0] if len(res) == 1 else tuple(res)

    @staticmethod
    @once_differentiable
    def backward(fctx, *grads):
        ctx, n = fctx.ctx, fctx.n_args
        saved = fctx.saved_tensors
        args, outs = saved[:n], saved[n:]
        need = fctx.needs_input_grad[5:]
        req = ['write' if need[i] else 'null' for i in range(n)]
        in_grad = [_nd(torch.zeros_like(a), ctx) for a in args]
        out_grad = [_nd(torch.zeros_like(o) if g is None else g.contiguous(), ctx) for g, o in zip(grads, outs)]
        with _Scope(False, None), Context(ctx), _mxrandom.custom_op_thread():
            fctx.node.call('CustomOp.backward', fctx.op.backward, req=req, out_grad=out_grad,
                           in_data=[_nd(a, ctx) for a in args], out_data=[_nd(o, ctx) for o in outs],
                           in_grad=in_grad, aux=fctx.aux)
        return (None,) * 5 + tuple(g._t if r == 'write' else None for g, r in zip(in_grad, req))


# ---- the registry op -----------------------------------------------------------------------------------------------
def attr_string(v):
    return v if isinstance(v, str) else str(v)


class CustomOpDef(registry.OpDef):
    """``Custom``: its attributes are ``op_type`` plus whatever the prop's ``__init__`` takes (as strings)."""

    __slots__ = ()

    def parse_attrs(self, kwargs):
        handed = HANDOFF.__dict__.pop('attrs', None)
        if handed is not None and handed[0] == kwargs:
            return handed[1]
        kwargs = dict(kwargs)
        injected = kwargs.pop('num_args') if isinstance(kwargs.get('num_args'), int) else None
        op_type = kwargs.pop('op_type', None)
        if op_type is None:
            raise MXNetValueError('Operator Custom: Required argument `op_type` is missing.')
        op_type = attr_string(op_type)
        prop_cls = _PROPS.get(op_type)
        if prop_cls is None:
            raise MXNetValueError('Operator Custom: Cannot find custom operator %s; register it first with '
                                  '@mx.operator.register(%r)' % (op_type, op_type))
        params = {k: attr_string(v) for k, v in kwargs.items() if not (k.startswith('__') and k.endswith('__'))}
        attrs = dict(params, op_type=op_type)
        attrs[SPEC] = _Custom(op_type, prop_cls, params)
        if injected is not None:  # the generic nd function counted the inputs
            attrs['num_args'] = injected
        return attrs

    def input_names(self, attrs, num_args=None):
        return attrs[SPEC].input_names()


def _custom(*tensors, **attrs):
    """Apply a custom operator registered with ``mx.operator.register``: ``op_type`` names it, other keyword
    arguments reach its ``CustomOpProp`` as strings; the inputs are its arguments then its auxiliary states."""
    return attrs[SPEC].run(tensors)


def _infer(shapes, dtypes, attrs):
    return attrs[SPEC].infer(shapes, dtypes)


def param_shapes(attrs, data_shape):
    """Shapes of the other inputs from the first one, by the prop's ``infer_shape`` (unknown ones passed as [])."""
    node = attrs[SPEC]
    try:
        ins, _, auxs = node.infer_shape([list(data_shape)] + [[]] * (len(node.args) - 1))
    except MXNetError:
        return {}  # the prop needs more than the first shape; inference retries once all inputs are known
    return {name: s for name, s in zip(node.input_names(), ins + auxs) if s}


OP = CustomOpDef('Custom', ('*data',), [('op_type', 'str', registry.REQUIRED)], _custom,
                  num_outputs=lambda attrs: len(attrs[SPEC].outputs), infer=_infer, aliases=('_npi_Custom',),
                  output_names=lambda attrs: list(attrs[SPEC].outputs),
                  input_names=lambda attrs: attrs[SPEC].input_names())
OP.aux = _AuxInputs()
OP.key_var_num_args = None
for _name in ('Custom',) + OP.aliases:
    if _name in registry.REGISTRY:
        raise MXNetError('operator %s registered twice' % _name)
    registry.REGISTRY[_name] = OP


# ---- mx.nd.Custom / mx.sym.Custom ----------------------------------------------------------------------------------
def frontend(fn, op, func_name):
    fn.__name__ = fn.__qualname__ = func_name
    fn.__doc__ = _custom.__doc__
    fn._op = op
    fn._custom_frontend = True
    return fn


register('custom_op')(CustomOpProp)


# ---- the deprecated PythonOp / NumpyOp / NDArrayOp -----------------------------------------------------------------
class PythonOp:
    """Deprecated base of operators written in Python (use ``CustomOp``). Override ``forward``, ``backward``,
    ``infer_shape``, ``list_arguments`` and ``list_outputs``; ``get_symbol(*inputs, name=...)`` makes the node.

    Differs from MXNet: the node is a ``Custom`` operator (MXNet: ``_Native`` / ``_NDArray`` with a C callback
    pointer), so its symbol JSON does not load into MXNet."""
    _ref_holder = []

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn('PythonOp has been deprecated. Please use CustomOp', stacklevel=2)

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The Symbol of this operator applied to ``args``."""
        raise NotImplementedError('Must override this')

    def forward(self, in_data, out_data):
        """Default: copy the first input to the first output."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """Default: a gradient of ones for the first input (as MXNet's)."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """(input shapes, output shapes); default: one output shaped like the first input."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ['output']

    def list_arguments(self):
        return ['data']

    def need_top_grad(self):
        """Whether ``backward`` uses the output gradient (False for loss layers)."""
        return self.need_top_grad_


class _DeprecatedPythonOp(PythonOp):
    """The deprecated PythonOp flavours: warn when made; ``get_symbol`` builds a ``_kind`` legacy node."""

    _kind = None
    _flavour = None  # the base class's name, which the warning names (not the user's subclass)

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn('%s has been deprecated. Please use CustomOp' % self._flavour, stacklevel=3)

    def get_symbol(self, *args, **kwargs):
        return _legacy_symbol(self, self._kind, args, kwargs)


class NumpyOp(_DeprecatedPythonOp):
    """Deprecated: a ``PythonOp`` whose ``forward`` / ``backward`` get lists of numpy arrays to read and write."""

    _kind = 'Native'
    _flavour = 'NumpyOp'


class NDArrayOp(_DeprecatedPythonOp):
    """Deprecated: a ``PythonOp`` whose ``forward`` / ``backward`` get lists of NDArrays to read and write."""

    _kind = 'NDArray'
    _flavour = 'NDArrayOp'

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Ids of the arrays ``backward`` reads (mxcompat passes all of them regardless)."""
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


class _LegacyOp(CustomOp):
    """Runs a PythonOp's forward/backward from the Custom machinery; numpy ops work on copies written back."""

    def __init__(self, pyop, as_numpy):
        super().__init__()
        self.pyop, self.as_numpy = pyop, as_numpy

    def _arrays(self, arrays):
        return [a.asnumpy() for a in arrays] if self.as_numpy else list(arrays)

    def _write(self, req, dst, src):
        if self.as_numpy:
            for r, d, v in zip(req, dst, src):
                self.assign(d, r, v)

    def forward(self, is_train, req, in_data, out_data, aux):
        outs = self._arrays(out_data)
        self.pyop.forward(in_data=self._arrays(in_data), out_data=outs)
        self._write(req, out_data, outs)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grads = self._arrays(in_grad)
        self.pyop.backward(out_grad=self._arrays(out_grad), in_data=self._arrays(in_data),
                           out_data=self._arrays(out_data), in_grad=grads)
        self._write(req, in_grad, grads)


def _legacy_symbol(pyop, kind, args, kwargs):
    op_type = '_%s_%x' % (kind, id(pyop))
    if op_type not in _PROPS:
        class _Prop(CustomOpProp):
            def __init__(self):
                super().__init__(need_top_grad=pyop.need_top_grad())

            def list_arguments(self):
                return pyop.list_arguments()

            def list_outputs(self):
                return pyop.list_outputs()

            def infer_shape(self, in_shape):
                ins, outs = pyop.infer_shape(in_shape)
                return ins, outs, []

            def declare_backward_dependency(self, out_grad, in_data, out_data):
                fn = getattr(pyop, 'declare_backward_dependency', None)
                return (fn or super().declare_backward_dependency)(out_grad, in_data, out_data)

            def create_operator(self, ctx, in_shapes, in_dtypes):
                return _LegacyOp(pyop, kind == 'Native')

        with _LOCK:
            _PROPS[op_type] = _Prop
    PythonOp._ref_holder.append(pyop)  # as MXNet: the instance lives as long as the process
    return FRONTENDS['symbol'](*args, op_type=op_type, **kwargs)
