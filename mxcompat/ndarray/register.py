"""Generates the ``mx.nd`` operator functions from the operator registry."""
import functools
import types

import torch

from ..base import MXNetError, MXNetTypeError
from ..context import current_context
from ..operator import registry
from .ndarray import NDArray, _wrap, _STATE
from .. import _profstate

_PROF = _profstate.FLAGS

def _out_ctx(arrays, attrs):
    for a in arrays:
        if a is not None:
            return a._ctx
    c = attrs.get('ctx') if attrs else None
    return c if c is not None else current_context()


def _finish(op, res, arrays, attrs, out):
    ctx = _out_ctx(arrays, attrs)
    if isinstance(res, torch.Tensor):
        if op.view:
            res = _fresh(res, arrays)
        if out is not None:
            return _write_out(out, res) if type(out) is NDArray else _write_outs(op, out, (res,))
        return _wrap(res, ctx)
    res = [_fresh(r, arrays) for r in res] if op.view else res
    if out is not None:
        return _write_outs(op, out, res)
    return [_wrap(r, ctx) for r in res]


def _write_outs(op, out, res):
    """MXNet's ``out=``: an NDArray, or a list/tuple of them, one per output (a one-output op takes either form);
    each result is written into its array and ``out`` is returned as given."""
    if isinstance(out, NDArray):
        outs = (out,)
    elif isinstance(out, (list, tuple)):
        outs = out
    else:
        raise MXNetTypeError('Operator %s: out must be an NDArray or a list of NDArrays, got %s'
                             % (op.name, type(out).__name__))
    if len(outs) != len(res):
        raise MXNetError('Operator %s expects %d outputs, but got %d instead (out=)' % (op.name, len(res), len(outs)))
    for o, r in zip(outs, res):
        _write_out(o, r)
    return out


def _fresh(r, arrays):
    # MXNet's operators always produce new arrays: copy a torch view that shares an input's storage.
    if not r.is_contiguous():
        return r.contiguous()
    for a in arrays:
        if a is not None and r.untyped_storage().data_ptr() == a._t.untyped_storage().data_ptr():
            return r.clone()
    return r


def _write_out(out, r):
    if not isinstance(out, NDArray):
        raise MXNetTypeError('out must be an NDArray, got %s' % type(out).__name__)
    t = out._t
    if tuple(t.shape) != tuple(r.shape):
        raise MXNetError('out: shape %s does not match the result shape %s' % (tuple(t.shape), tuple(r.shape)))
    if _STATE.recording and r.requires_grad:
        out._t = r.to(t.dtype)  # keep the graph: the out handle now holds the recorded result
    else:
        with torch.no_grad():
            t.copy_(r)
    return out


def _input_error(op, name, value):
    return MXNetTypeError('Operator %s: input %s must be an NDArray, got %s' % (op.name, name, type(value).__name__))


def cached_parser(parse):
    """``parse`` (an OpDef's ``parse_attrs``) with its results cached, keyed by the call's (name, value) pairs and
    the values' types (1, 1.0 and True are equal keys): scripts call an op with the same few settings. Callers
    never change the dict returned."""
    cache = {}

    def parse_cached(kwargs):
        try:
            if len(kwargs) == 1:  # (the usual call: one attribute, the cheapest key)
                (k, v), = kwargs.items()
                key = (k, v, type(v))
            else:
                key = (tuple(kwargs.items()), tuple(map(type, kwargs.values())))
            attrs = cache.get(key)
        except TypeError:  # an unhashable value (a list): parse every time
            return parse(kwargs)
        if attrs is None:
            attrs = parse(kwargs)
            if len(cache) > 64:
                cache.clear()
            cache[key] = attrs
        return attrs
    return parse_cached


def make_function(op, func_name=None):
    """Build the ``mx.nd`` function for an OpDef: inputs positional or by name, then attributes."""
    inputs = op.inputs
    n_in = len(inputs)
    param_names = op.param_names
    impl = op.impl
    parse = op.parse_attrs
    name = func_name or op.name
    sparse_name = name  # (the functions' own ``name`` argument shadows ``name``)
    parse_cached = cached_parser(parse)

    if op.variadic:
        def fn(*args, out=None, name=None, **kwargs):  # noqa: ARG001 (name is MXNet's, unused for NDArrays)
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                args = tuple(args[0])
            sparse = False
            for i, a in enumerate(args):
                if type(a) is not NDArray:
                    if not isinstance(a, NDArray):
                        raise _input_error(op, 'data[%d]' % i, a)
                    sparse = True
            count = op.key_var_num_args
            if count not in kwargs:
                kwargs[count] = len(args)
            attrs = parse_cached(kwargs)
            if attrs[count] != len(args):
                raise MXNetError('Operator %s: %s=%d but %d inputs were given'
                                 % (op.name, count, attrs[count], len(args)))
            if sparse:
                res = _sparse_dispatch(sparse_name, args, {k: v for k, v in attrs.items() if k != 'num_args'}, out)
                if res is not NotImplemented:
                    return res
            try:
                if _PROF.imperative:
                    res = _profstate.run(op.name, impl, *[a._t for a in args], **attrs)
                else:
                    res = impl(*[a._t for a in args], **attrs)
            except MXNetError:
                raise
            except (RuntimeError, IndexError, ValueError) as e:
                raise _op_error(op, args, e) from None
            return _finish(op, res, args, attrs, out)
    else:
        optional = op.optional

        def fn(*args, out=None, name=None, **kwargs):  # noqa: ARG001
            arrays = list(args[:n_in])
            if len(args) > n_in:
                extra = args[n_in:]
                if len(extra) > len(param_names):
                    raise MXNetTypeError('Operator %s: too many positional arguments' % op.name)
                for pname, v in zip(param_names, extra):
                    if pname in kwargs:
                        raise MXNetTypeError('Operator %s: got multiple values for argument %r' % (op.name, pname))
                    kwargs[pname] = v
            if len(arrays) < n_in:
                for iname in inputs[len(arrays):]:
                    arrays.append(kwargs.pop(iname, None))
            elif kwargs:
                for iname in inputs:
                    if iname in kwargs:
                        raise MXNetTypeError('Operator %s: got multiple values for input %r' % (op.name, iname))
            attrs = parse_cached(kwargs)
            tensors = []
            for iname, a in zip(inputs, arrays):
                if type(a) is NDArray:
                    tensors.append(a._t)
                elif a is None:
                    if iname not in optional:
                        raise MXNetError('Operator %s: required input %r is missing' % (op.name, iname))
                    tensors.append(None)
                elif isinstance(a, NDArray):  # sparse: MXNet's storage-aware rule if any, else its dense values
                    res = _sparse_dispatch(sparse_name, arrays, attrs, out)
                    if res is not NotImplemented:
                        return res
                    tensors.append(a._t)
                else:
                    raise _input_error(op, iname, a)
            try:
                if _PROF.imperative:
                    res = _profstate.run(op.name, impl, *tensors, **attrs)
                else:
                    res = impl(*tensors, **attrs)
            except MXNetError:
                raise
            except (RuntimeError, IndexError, ValueError) as e:
                raise _op_error(op, arrays, e) from None
            return _finish(op, res, arrays, attrs, out)

    if not op.variadic:
        fn = _front(op, fn)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = op.doc
    fn._op = op
    return fn


_UNSET = type('_Null', (), {'__repr__': lambda self: '_Null', '__slots__': ()})()  # an attribute not given

# The body of every non-variadic op's function, written once per shape (inputs, which are optional, number of
# attributes) with inputs i0, i1, ... and attributes p0, p1, ...; each op's function is that code with its own
# names (code.replace), so the import compiles 60 templates rather than 490 functions. The fast path takes NDArray
# inputs (None for an optional one) and attributes by name, and looks their parsed form up by value; any other
# call, or any call while mx.profiler runs, goes to ``general``.
_TEMPLATE = """def front({signature}):
    if out is None and not kwargs and not _mx_PROF.imperative and {checks}:
        try:
            _mx_hit = _mx_cache[{key}]
        except KeyError:
            _mx_hit = _mx_new(({params}), {key})
        except TypeError:  # (an unhashable value: the general path parses it)
            _mx_hit = None
        if _mx_hit is not None:
            try:
                {call}
            except _mx_MXNetError:
                raise
            except (RuntimeError, IndexError, ValueError) as _mx_e:
                raise _mx_op_error(_mx_op, ({inputs}), _mx_e) from None
    return _mx_general({inputs}out=out, name=name, **_mx_given(_mx_names, ({params})), **kwargs)
"""
# one input, one output, not a view: ``_mx_hit`` is a function of the tensor (``op.bind``'s, or ``impl`` with the
# parsed attributes); the result is wrapped inline
_RUN = """_mx_r = _mx_hit(i0._t)
                if _mx_r.requires_grad and not _mx_STATE.recording:
                    _mx_r = _mx_r.detach()
                _mx_a = _mx_object_new(_mx_NDArray)
                _mx_a._t, _mx_a._ctx = _mx_r, i0._ctx
                return _mx_a"""
# otherwise ``_mx_hit`` is the parsed attributes
_CALL = 'return _mx_finish(_mx_op, _mx_impl({tensors}**_mx_hit), ({inputs}), _mx_hit, None)'
_TEMPLATES = {}


def _template(optional, n_params, simple):
    """The code of the function for ops with inputs ``optional`` (a bool per input), ``n_params`` attributes."""
    key = (optional, n_params, simple)
    code = _TEMPLATES.get(key)
    if code is None:
        inputs = ['i%d' % k for k in range(len(optional))]
        params = ['p%d' % k for k in range(n_params)]
        listed = ''.join('%s, ' % i for i in inputs)
        call = _RUN if simple else _CALL.format(inputs=listed, tensors=''.join(
            '(None if %s is None else %s._t), ' % (i, i) if opt else '%s._t, ' % i for i, opt in zip(inputs, optional)))
        src = _TEMPLATE.format(
            signature=', '.join(inputs + params + ['out', 'name', '**kwargs']),
            checks=' and '.join('(%s is None or _mx_type(%s) is _mx_NDArray)' % (i, i) if opt
                                else '_mx_type(%s) is _mx_NDArray' % i for i, opt in zip(inputs, optional)) or 'True',
            key='(%s)' % ''.join('%s, _mx_type(%s), ' % (p, p) for p in params),
            params=''.join('%s, ' % p for p in params), call=call, inputs=listed)
        scope = {}
        exec(compile(src, '<mx.nd operator>', 'exec'), scope)  # noqa: S102 (the source is fixed text)
        code = _TEMPLATES[key] = scope['front'].__code__
    return code


def _front(op, general):
    """The function of a non-variadic op, with MXNet's signature: inputs, then attributes (``_Null`` when not
    given), ``out``, ``name``, ``**kwargs`` (``sum(data=None, axis=_Null, keepdims=_Null, exclude=_Null,
    out=None, name=None, **kwargs)``). Named parameters save building and unpacking a keyword dict per call,
    which cost about as much as the rest of the wrapper. (The template's own names start with ``_mx_``; an op
    with such a name keeps ``general``.)"""
    inputs, params = op.inputs, tuple(op.param_names)
    if any(n.startswith('_mx_') for n in inputs + params):
        return general
    simple = len(inputs) == 1 and not op.view and op.num_outputs == 1
    template = _template(tuple(i in op.optional for i in inputs), len(params), simple)
    names = inputs + params + ('out', 'name', 'kwargs')
    code = template.replace(co_varnames=names + template.co_varnames[len(names):], co_name=op.name)
    cache = {}
    parse, bind, impl = op.parse_attrs, op.bind, op.impl

    def new(values, key):
        hit = parse(_given(params, values))
        if simple:
            run = bind(hit) if bind is not None else None
            hit = run if run is not None else functools.partial(impl, **hit)
        if len(cache) > 64:
            cache.clear()
        cache[key] = hit
        return hit

    scope = {'_mx_' + k: v for k, v in (
        ('NDArray', NDArray), ('type', type), ('STATE', _STATE), ('object_new', object.__new__), ('finish', _finish),
        ('MXNetError', MXNetError), ('op_error', _op_error), ('op', op), ('impl', impl), ('cache', cache),
        ('new', new), ('general', general), ('given', _given), ('names', params), ('PROF', _PROF))}
    return types.FunctionType(code, scope, op.name, (None,) * len(inputs) + (_UNSET,) * len(params) + (None, None))


def _given(names, values):
    return {k: v for k, v in zip(names, values) if v is not _UNSET}


def _sparse_dispatch(name, arrays, attrs, out):
    # (reached for every NDArray subclass: an mx.np array here is a legacy operator given a NumPy array)
    for a in arrays:
        if getattr(a, '_np_array', False):
            raise MXNetTypeError('Operator %s: this mx.nd operator takes legacy NDArrays, got an mx.np.ndarray '
                                 '(convert it with as_nd_ndarray(), or use the mx.np / mx.npx function)' % name)
    from . import sparse
    return sparse.dispatch(name, arrays, attrs, out)


def _op_error(op, arrays, e):
    shapes = [tuple(a.shape) if a is not None else None for a in arrays]
    return MXNetError('Operator %s: %s (input shapes %s)' % (op.name, str(e).splitlines()[0], shapes))


# How MXNet files operators into namespaces by name prefix.
SUBMODULES = (('_contrib_', 'contrib'), ('_linalg_', 'linalg'), ('_random_', 'random'), ('_sample_', 'random'),
              ('_sparse_', 'sparse'), ('_image_', 'image'))


def populate(module_dict, internal_dict, submodule_dicts):
    """Fill the nd namespaces (public, ``_internal``, contrib/linalg/...) from the registry."""
    seen = {}
    for reg_name, op in registry.REGISTRY.items():
        fn = seen.get((id(op), reg_name))
        if fn is None:
            fn = make_function(op, reg_name)
        placed = False
        for prefix, sub in SUBMODULES:
            if reg_name.startswith(prefix):
                submodule_dicts.setdefault(sub, {})[reg_name[len(prefix):]] = fn
                internal_dict[reg_name] = fn
                placed = True
                break
        if placed:
            continue
        if reg_name.startswith('_'):
            internal_dict[reg_name] = fn
        else:
            module_dict[reg_name] = fn


# NDArray methods that call the operator of the same name with the array as first input (MXNet's fluent API).
FLUENT = ('reshape_like zeros_like ones_like broadcast_axes repeat pad swapaxes split split_v2 slice slice_axis '
          'slice_like take one_hot pick sort topk argsort argmax argmax_channel argmin clip abs sign flatten '
          'shape_array size_array expand_dims tile transpose flip depth_to_space space_to_depth diag sum nansum '
          'prod nanprod mean max min norm round rint fix floor ceil trunc sin cos tan arcsin arccos arctan '
          'degrees radians sinh cosh tanh arcsinh arccosh arctanh exp expm1 log log10 log2 log1p sqrt rsqrt '
          'cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax softmin squeeze broadcast_like').split()
_FLUENT_RENAME = {'broadcast_axes': 'broadcast_axis'}


def attach_methods(cls, namespace, prefix='mx.nd', extra=None):
    """Add the fluent methods whose operators exist (plus ``extra``: {method: op name}); leave the others unset
    (AttributeError, as for any gap)."""
    names = dict(extra or {})
    for meth in FLUENT:
        names.setdefault(meth, _FLUENT_RENAME.get(meth, meth))
    for meth, opname in names.items():
        fn = namespace.get(opname)
        if meth in cls.__dict__ or fn is None:
            continue

        def method(self, *args, __fn=fn, **kwargs):
            return __fn(self, *args, **kwargs)
        method.__name__ = meth
        method.__doc__ = 'Same as ``%s.%s(self, ...)``.' % (prefix, opname)
        setattr(cls, meth, method)
