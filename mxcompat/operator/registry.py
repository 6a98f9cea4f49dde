"""The operator registry: each MXNet operator is defined once here and feeds ``mx.nd``, ``mx.sym`` and Gluon's ``F``.

An :class:`OpDef` holds MXNet's names (operator, inputs, attributes with defaults, aliases), how attributes are
parsed from Python values or from the strings symbol JSON stores, and the torch implementation. Shapes and dtypes are
inferred by running the implementation on ``meta`` tensors, unless the op gives its own rule.
"""
import torch

from ..base import (MXNetError, MXNetValueError, parse_bool, parse_tuple, parse_float_tuple,
                    parse_optional_int, parse_optional_float, parse_int_or_tuple, to_torch_dtype, unsupported)
from ._float32 import parse_float32
from ._meta import meta_inference
from ..base import dtype_name, incompatible_attr

__all__ = ['OpDef', 'defop', 'get', 'REGISTRY', 'REQUIRED']

REGISTRY = {}


class _Required:
    def __repr__(self):
        return '<required>'


REQUIRED = _Required()


def _parse_str(v):
    return None if v is None else str(v)


def _parse_dtype_or_none(v):
    if v is None or (isinstance(v, str) and v in ('None', '')):
        return None
    return to_torch_dtype(v)


def _parse_optional_bool(v):
    if v is None or (isinstance(v, str) and v.strip() in ('None', '')):
        return None
    return parse_bool(v)


def _parse_float(v):
    return float(v)


def _parse_int(v):
    return int(float(v)) if isinstance(v, str) else int(v)


# Attribute kinds, by the name an op definition uses for them.
PARSERS = {
    'int': _parse_int, 'float': _parse_float, 'float32': parse_float32, 'bool': parse_bool, 'str': _parse_str,
    'shape': parse_tuple, 'tuple': parse_tuple, 'floats': parse_float_tuple, 'axis': parse_int_or_tuple,
    'int?': parse_optional_int, 'bool?': _parse_optional_bool, 'float?': parse_optional_float, 'dtype': to_torch_dtype,
    'dtype?': _parse_dtype_or_none, 'any': lambda v: v,
}


class OpDef:
    """One MXNet operator.

    inputs     names of the tensor inputs in MXNet's order; a single name starting with '*' means variadic
               (the op then has a ``num_args`` attribute, as in MXNet).
    params     list of (name, kind, default) with kind a key of ``PARSERS`` or a callable; default REQUIRED.
    impl       ``impl(*tensors, **attrs)`` -> tensor or tuple of tensors (the visible outputs).
    optional   input names that may be None (e.g. ``bias`` when ``no_bias``).
    aux        input names that are auxiliary states (updated in place, e.g. BatchNorm's moving stats).
    view       the torch impl may return a view of an input; eager NDArray calls then copy, as MXNet's ops
               always produce fresh arrays.
    num_outputs  int, or ``callable(attrs) -> int``.
    infer      optional ``infer(shapes, dtypes, attrs) -> (out_shapes, out_dtypes)`` replacing meta-tensor inference.
    same_shape input names whose shape always equals the first output's (``'*'``: every input).
    count      for a variadic op, the attribute holding the number of inputs (MXNet's key_var_num_args):
               ``num_args`` unless the op counts them with one of its own parameters (amp_multicast's num_outputs).
    choices    {attr: allowed values}, checked on parse.
    head_grad  for loss heads whose backward ignores the head gradient (SoftmaxOutput, MakeLoss ...):
               ``head_grad(out, *inputs, **attrs)`` -> the gradient of input 0. Bound executors use it to seed
               backward at the head's input directly instead of going through a Python autograd.Function.
    bind       for one-input ops: ``bind(attrs)`` -> a function of the input tensor equal to ``impl`` with those
               attributes (a shorter path for eager calls, cached per attribute set), or None where it has none.
    """

    __slots__ = ('name', 'inputs', 'variadic', 'params', 'param_names', 'impl', 'optional', 'aux', 'view',
                 'num_outputs', 'infer_fn', 'choices', 'defaults', 'aliases', 'doc', 'ndarray_only', 'arg_order',
                 'key_var_num_args', 'output_names', 'input_names_fn', 'same_shape', '_infer_cache',
                 'head_grad', 'bind')

    def __init__(self, name, inputs, params, impl, optional=(), aux=(), view=False, num_outputs=1, infer=None,
                 choices=None, aliases=(), doc=None, ndarray_only=False, output_names=None, input_names=None,
                 same_shape=None, head_grad=None, bind=None, count='num_args'):
        self.name = name
        self.head_grad = head_grad
        self.bind = bind
        self.variadic = len(inputs) == 1 and inputs[0].startswith('*')
        self.inputs = (inputs[0][1:],) if self.variadic else tuple(inputs)
        self.key_var_num_args = count if self.variadic else None
        plist = list(params)
        if self.variadic and not any(p[0] == count for p in plist):
            plist.append(('num_args', 'int', None))
        self.params = {}
        for pname, kind, default in plist:
            parser = kind if callable(kind) else PARSERS[kind]
            if kind == 'float32' and isinstance(default, float):
                default = parser(default)  # a C++ float field's default is the float32 value (0.9f), as given ones
            self.params[pname] = (parser, default)
        self.param_names = [p[0] for p in plist]
        self.arg_order = list(self.inputs if not self.variadic else ()) + self.param_names
        self.impl = impl
        self.optional = frozenset(optional)
        self.aux = tuple(aux)
        self.view = view
        self.num_outputs = num_outputs
        self.infer_fn = infer
        self.choices = choices or {}
        self.aliases = tuple(aliases)
        self.doc = doc or (impl.__doc__ if impl is not None else None)
        self.ndarray_only = ndarray_only
        self.output_names = output_names
        self.input_names_fn = input_names
        # inputs whose shape always equals output 0's ('*' = all): lets symbol inference run both ways
        self.same_shape = same_shape
        self._infer_cache = {}
        # Pre-parsed defaults: calls without attributes skip parsing entirely (the eager hot path).
        self.defaults = {k: d for k, (p, d) in self.params.items() if d is not REQUIRED}

    def __repr__(self):
        return '<OpDef %s(%s; %s)>' % (self.name, ', '.join(self.inputs), ', '.join(self.param_names))

    # -- attributes -------------------------------------------------------------------------------------------
    def parse_attrs(self, kwargs):
        """MXNet attributes (Python values or JSON strings) -> parsed values with defaults filled in.

        Unknown names raise, naming the op, as MXNet's parameter parser does. Like MXNet, an operator with no
        parameters at all (``broadcast_maximum``, ``exp``, ``elemwise_add`` ...) ignores whatever it is given.
        """
        if not kwargs:
            if len(self.defaults) != len(self.params):
                self._missing({})
            return self.defaults
        attrs = dict(self.defaults)
        params = self.params
        for k, v in kwargs.items():
            spec = params.get(k)
            if spec is None:
                if k.startswith('__') and k.endswith('__') or not params:
                    continue  # symbol attributes such as __shape__, __lr_mult__ (or an op without parameters)
                raise MXNetValueError('Operator %s: unknown argument %r; it takes %s'
                                      % (self.name, k, ', '.join(self.arg_order) or 'no arguments'))
            if spec[1] is None and (v is None or isinstance(v, str) and v == 'None'):  # optional, left unset
                attrs[k] = None
                continue
            try:
                pv = spec[0](v)
            except MXNetError:
                raise
            except Exception as e:
                raise MXNetValueError('Operator %s: invalid value %r for argument %r (%s)'
                                      % (self.name, v, k, e)) from None
            allowed = self.choices.get(k)
            if allowed is not None and pv not in allowed:
                raise MXNetValueError("Operator %s: invalid value %r for argument '%s'; valid values are %s"
                                      % (self.name, v, k, ', '.join(repr(a) for a in allowed)))
            attrs[k] = pv
        if len(attrs) != len(params):
            self._missing(attrs)
        return attrs

    def _missing(self, attrs):
        missing = [k for k in self.param_names if k not in attrs]
        raise MXNetValueError('Operator %s: required argument%s %s missing'
                              % (self.name, 's' if len(missing) > 1 else '', ', '.join(repr(m) for m in missing)))

    def input_names(self, attrs, num_args=None):
        """The input names for these attributes (drops optional inputs the attributes switch off)."""
        if self.input_names_fn is not None:
            return list(self.input_names_fn(attrs))
        if self.variadic:
            n = num_args if num_args is not None else attrs.get(self.key_var_num_args)
            return ['arg%d' % i for i in range(n or 0)]
        return list(self.inputs)

    def n_outputs(self, attrs):
        n = self.num_outputs
        return n(attrs) if callable(n) else n

    # -- inference ----------------------------------------------------------------------------------------------
    def infer(self, shapes, dtypes, attrs):
        """Output shapes and dtypes from input shapes/dtypes, by running ``impl`` on meta tensors. Results are
        cached per (shapes, dtypes, attributes): an unrolled RNN asks the same question thousands of times.
        An ``infer=`` function is called every time (custom operators may be re-registered under one name)."""
        if self.infer_fn is not None:
            return self.infer_fn(shapes, dtypes, attrs)
        try:
            key = (tuple(None if s is None else tuple(s) for s in shapes), tuple(dtypes),
                   tuple(sorted(attrs.items())))
            hit = self._infer_cache.get(key)
        except TypeError:  # an unhashable attribute value: no caching
            return self._infer(shapes, dtypes, attrs)
        if hit is None:
            hit = self._infer(shapes, dtypes, attrs)
            if len(self._infer_cache) > 256:
                self._infer_cache.clear()
            self._infer_cache[key] = hit
        return list(hit[0]), list(hit[1])

    def _infer(self, shapes, dtypes, attrs):
        metas = [None if s is None else torch.empty(s, dtype=d, device='meta') for s, d in zip(shapes, dtypes)]
        try:
            with meta_inference():
                out = self.impl(*metas, **attrs)
        except MXNetError:
            raise
        except (RuntimeError, ValueError, IndexError, TypeError) as e:
            raise MXNetError('Operator %s: shape inference failed for input shapes %s: %s'
                             % (self.name, [tuple(s) if s is not None else None for s in shapes],
                                str(e).splitlines()[0])) from None
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [tuple(o.shape) for o in outs], [o.dtype for o in outs]


def defop(name, inputs=(), params=(), impl=None, **kw):
    """Register an operator (also usable as a decorator on ``impl``). Returns the OpDef (or the function)."""
    def reg(fn):
        op = OpDef(name, inputs, params, fn, **kw)
        if name in REGISTRY:
            raise MXNetError('operator %s registered twice' % name)
        REGISTRY[name] = op
        for a in op.aliases:
            REGISTRY[a] = op
        return op if impl is not None else fn
    return reg(impl) if impl is not None else reg


def get(name):
    """The OpDef of an MXNet operator name (or alias)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise unsupported('mx.nd/mx.sym', 'operator %r' % name, 'it is not in the operator registry') from None


def check_same_dtype(op, tensors):
    """MXNet's binary/n-ary ops need equal input dtypes; raise its message otherwise."""
    d0 = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not d0:
            raise incompatible_attr(op, i, dtype_name(d0), dtype_name(t.dtype))
