"""``mx.contrib.amp``: automatic mixed precision (MXNet 1.9.1's API).

``init`` rewires the ``mx.nd`` / ``mx.sym`` operator functions after MXNet's lists (``lists/``): target-dtype ops
cast their float inputs to float16/bfloat16, float32 ops to float32, widest-type ops to the widest float type of
their inputs; Gluon layers calling ``F.<op>`` follow, eager and hybridized. ``init_trainer``/``scale_loss``/
``unscale`` with ``LossScaler`` give dynamic loss scaling. The graph conversions (``convert_symbol``,
``convert_model``, ``convert_hybrid_block``, ``convert_bucketing_module``) rewrite a float32 graph as MXNet's
ReducePrecision pass does (``_convert.py``, with the operators' dtype rules in ``_types.py``): the same
amp_cast/amp_multicast nodes and names, the same ``__dtype__`` attributes on the parameters, and the parameters
cast to them, so converted models export to and import from MXNet.

Differs from MXNet: a bfloat16 NDArray reports ``dtype`` float32 (mxcompat has no numpy bfloat16; ``amp.bfloat16``
is MXNet's marker dtype and is accepted wherever a dtype is); float16 operators run on CPU (MXNet's CPU build has
no float16 FullyConnected); NDArray's binary operators (``a * b``, ``a + 2``) and generated fluent methods
(``a.sum()``) follow the wrapped functions as in MXNet, but in-place (``a += b``) and unary (``-a``) operators
and hand-written methods do not; names in the override lists (of ``init`` and the conversions) must be mxcompat
operators; the conversions raise MXNetNotImplementedError for graphs with control-flow nodes (their subgraphs are
not rewritten). Errors MXNet gives as ``AssertionError`` are ``MXNetValueError``s (an AssertionError too) here."""
import contextlib
import functools
import logging
from numbers import Number

import numpy as np
import torch

from ... import ndarray as _nd
from ... import symbol as _sym
from ...base import BFLOAT16_MARKER, DTYPE_MX2NP, MXNetError, MXNetTypeError, MXNetValueError, unsupported
from ...context import gpu
from ...ndarray import NDArray, op as nd_op
from ...operator import registry as _registry
from ...symbol.symbol import Symbol, _Node
from . import lists, _types
from ._convert import reduce_precision as _reduce_precision
from .loss_scaler import LossScaler
from ...ndarray.register import FLUENT, _FLUENT_RENAME
from ...gluon.block import HybridBlock, SymbolBlock
from ...gluon.trainer import Trainer
from ...module import BucketingModule
from ...optimizer import Optimizer

__all__ = ['init', 'init_trainer', 'scale_loss', 'unscale', 'convert_model', 'convert_hybrid_block',
           'list_lp16_ops', 'list_fp32_ops', 'list_lp16_fp32_ops', 'list_conditional_fp32_ops',
           'list_widest_type_cast', 'list_loss_output_functions', 'list_lp16_use_fp32_params', 'convert_symbol']

bfloat16 = BFLOAT16_MARKER  # MXNet's name for bfloat16 in numpy terms

_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None

# the float types amp casts between, per device kind (as MXNet: float16 never on CPU, bfloat16 never on GPU)
_CASTABLE = {'cpu': (torch.bfloat16, torch.float32), 'gpu': (torch.float16, torch.float32)}
_PREFIXES = (('_contrib_', 'contrib'), ('_linalg_', 'linalg'), ('_sparse_', 'sparse'), ('_image_', 'image'),
             ('_random_', 'random'))


class _AMPError(MXNetValueError, AssertionError):
    """Bad arguments to an amp function: MXNet asserts, so this is also an AssertionError."""


def _check(cond, msg):
    if not cond:
        raise _AMPError(msg)


def _target(target_dtype, api):
    """'float16' or 'bfloat16' for any spelling of the two; raises for others."""
    if isinstance(target_dtype, str) and target_dtype in ('float16', 'bfloat16'):
        return target_dtype
    if target_dtype is torch.float16 or target_dtype is torch.bfloat16:
        return 'float16' if target_dtype is torch.float16 else 'bfloat16'
    try:
        dt = np.dtype(target_dtype)
    except TypeError:
        dt = None
    if dt == bfloat16:
        return 'bfloat16'
    if dt == np.float16:
        return 'float16'
    raise _AMPError('%s: target_dtype must be float16 or bfloat16, got %r' % (api, target_dtype))


def _lists(target_dtype):
    return lists.symbol_fp16 if _target(target_dtype, 'amp') == 'float16' else lists.symbol_bf16


def list_lp16_ops(target_dtype):
    """The operators run in ``target_dtype`` (only those mxcompat registers)."""
    m = _lists(target_dtype)
    return m.FP16_FUNCS if m is lists.symbol_fp16 else m.BF16_FUNCS


def list_fp16_ops(target_dtype='float16'):
    """Alias of :func:`list_lp16_ops` (MXNet 1.5's name)."""
    return list_lp16_ops(target_dtype)


def list_fp32_ops(target_dtype):
    """The operators run in float32."""
    return _lists(target_dtype).FP32_FUNCS


def list_lp16_fp32_ops(target_dtype):
    """The operators that run in either precision (no casts)."""
    m = _lists(target_dtype)
    return m.FP16_FP32_FUNCS if m is lists.symbol_fp16 else m.BF16_FP32_FUNCS


def list_conditional_fp32_ops(target_dtype):
    """(operator, parameter, values): run in float32 when the parameter has one of the values."""
    return _lists(target_dtype).CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype):
    """The operators whose inputs are cast to the widest float type among them."""
    return _lists(target_dtype).WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype):
    """The loss-output operators whose ``grad_scale`` takes the loss scale (eager only)."""
    return _lists(target_dtype).LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype):
    """{operator: input names kept in float32 ('' = cast)} for bfloat16; None for float16."""
    m = _lists(target_dtype)
    return None if m is lists.symbol_fp16 else m.BF16_USE_FP32_PARAMS


# ---- casting the inputs of one call ---------------------------------------------------------------------------------
def _cast(x, dtype):
    """amp_cast ``x`` to ``dtype`` (a name): a Symbol always gets a cast node, an NDArray is cast only from the
    float types its device kind uses; anything else is returned as is."""
    if isinstance(x, Symbol):
        return _sym.amp_cast(x, dtype=dtype)
    if isinstance(x, NDArray):
        t = x._t.dtype
        kind = 'cpu' if x._ctx.device_type == 'cpu' else 'gpu'
        if t in _CASTABLE[kind] and t is not _TORCH[dtype]:
            return _nd.amp_cast(x, dtype=dtype)
    return x


_TORCH = {'float16': torch.float16, 'bfloat16': torch.bfloat16, 'float32': torch.float32}


def _copy_meta(new, f):
    functools.update_wrapper(new, f)
    new._amp_wrapped = f
    return new


def _skip(cond_arg, kwargs):
    """A conditional op whose condition does not hold (MXNet reads keyword arguments only)."""
    return cond_arg is not None and kwargs.get(cond_arg[0], object()) not in cond_arg[1]


def _nd_wrapper(f, dtype, fp32_param=None, cond_arg=None):
    def wrapped(*args, **kwargs):
        if _skip(cond_arg, kwargs):
            return f(*args, **kwargs)
        args = tuple(x if fp32_param and i < len(fp32_param) and fp32_param[i] else _cast(x, dtype)
                     for i, x in enumerate(args))
        kwargs = {k: v if fp32_param and k in fp32_param else _cast(v, dtype) for k, v in kwargs.items()}
        return f(*args, **kwargs)
    return _copy_meta(wrapped, f)


def _sym_wrapper(f, dtype, fp32_param=None, cond_arg=None):
    """Build the node as usual, then rebuild it with an amp_cast on every input that is not an auxiliary state
    (nor, for ``fp32_param``, kept in float32)."""
    def wrapped(*args, **kwargs):
        if _skip(cond_arg, kwargs):
            return f(*args, **kwargs)
        s = f(*args, **kwargs)
        node = s._outputs[0][0]
        if node.is_var or not node.inputs:
            return s
        aux = set(s.list_auxiliary_states())
        inputs = []
        for i, (src, j) in enumerate(node.inputs):
            keep = (src.is_var and src.name in aux) or (fp32_param and i < len(fp32_param) and fp32_param[i])
            inputs.append((src, j) if keep else _cast(Symbol([(src, j)]), dtype)._outputs[0])
        new = _Node(node.op, node.name, node.attrs, inputs, node.subgraphs)
        return Symbol([(new, i) for _, i in s._outputs])
    return _copy_meta(wrapped, f)


def _widest_wrapper(f, target):
    def wrapped(*args, **kwargs):
        args = list(args)
        slots = [(args, i, a) for i, a in enumerate(args) if isinstance(a, (Symbol, NDArray))]
        slots += [(kwargs, k, a) for k, a in kwargs.items() if isinstance(a, (Symbol, NDArray))]
        if any(isinstance(a, Symbol) for _, _, a in slots):
            cast = _sym.amp_multicast(*[a for _, _, a in slots], num_outputs=len(slots))
            for (where, key, _), c in zip(slots, cast):
                where[key] = c
        else:  # NDArrays: target-dtype inputs go up to float32 when any input is float32
            tdt = _TORCH[target]
            if any(a._t.dtype is torch.float32 for _, _, a in slots):
                for where, key, a in slots:
                    if a._t.dtype is tdt:
                        where[key] = _nd.amp_cast(a, dtype='float32')
        return f(*args, **kwargs)
    return _copy_meta(wrapped, f)


# ---- patching the namespaces ----------------------------------------------------------------------------------------
def _home(module, name):
    """(namespace, attribute) where MXNet's amp finds operator ``name`` in ``module`` (mx.nd or mx.sym)."""
    for prefix, sub in _PREFIXES:
        if name.startswith(prefix):
            if prefix != '_random_' or name.endswith('_like'):
                return getattr(module, sub), name[len(prefix):]
            return module._internal, name
    return (module._internal if name.startswith('_') else module), name


def _patch(module, name, make, patched):
    ns, attr = _home(module, name)
    f = vars(ns).get(attr)
    if f is None:  # registered, but not placed in this namespace by mxcompat (a module __getattr__ stub is no op)
        return
    setattr(ns, attr, make(f))
    if ns is module and attr in vars(module.op):
        setattr(module.op, attr, make(getattr(module.op, attr)))
    patched[name] = (ns, attr)


def _wrap_module(module, target, target_precision_ops, conditional_fp32_ops, fp32_ops):
    wrapper = _sym_wrapper if module is _sym else _nd_wrapper
    fp32_params = list_lp16_use_fp32_params(target) or {}
    patched = {}
    for name in (list_lp16_ops(target) if target_precision_ops is None else target_precision_ops):
        _patch(module, name, lambda f, n=name: wrapper(f, target, fp32_param=fp32_params.get(n)), patched)
    for name in (list_fp32_ops(target) if fp32_ops is None else fp32_ops):
        _patch(module, name, lambda f: wrapper(f, 'float32'), patched)
    for name, arg, values in (list_conditional_fp32_ops(target) if conditional_fp32_ops is None
                              else conditional_fp32_ops):
        _patch(module, name, lambda f, c=(arg, tuple(values)): wrapper(f, 'float32', cond_arg=c), patched)
    for name in list_widest_type_cast(target):
        _patch(module, name, lambda f: _widest_wrapper(f, target), patched)
    return patched


def _wrap_loss_outputs(module, scaler, target):
    for name in list_loss_output_functions(target):
        f = getattr(module, name, None)
        if f is None:
            continue
        if module is _nd:
            def scaled(*args, __f=f, **kwargs):
                kwargs['grad_scale'] = kwargs.get('grad_scale', 1.0) * scaler.loss_scale
                return __f(*args, **kwargs)
            setattr(module, name, _copy_meta(scaled, f))
        else:
            def warned(*args, __f=f, **kwargs):
                logging.warning('%s does not support dynamic loss scaling in symbolic and hybridized execution.',
                                __f.__name__)
                return __f(*args, **kwargs)
            setattr(module, name, _copy_meta(warned, f))


# MXNet's NDArray arithmetic goes through the operator functions, so amp's wrappers reach it: ``a * b`` calls
# nd.broadcast_mul, ``a * 2`` nd._internal._mul_scalar. mxcompat's operators call torch directly, so after init the
# affected ones are routed through the (wrapped) functions here. (Symbol arithmetic already goes through _internal.)
_ND_ARITH = {'__add__': ('broadcast_add', '_plus_scalar'), '__sub__': ('broadcast_sub', '_minus_scalar'),
             '__rsub__': (None, '_rminus_scalar'), '__mul__': ('broadcast_mul', '_mul_scalar'),
             '__truediv__': ('broadcast_div', '_div_scalar'), '__rtruediv__': (None, '_rdiv_scalar'),
             '__pow__': ('broadcast_power', '_power_scalar'), '__rpow__': (None, '_rpower_scalar'),
             '__mod__': ('broadcast_mod', '_mod_scalar'), '__rmod__': (None, '_rmod_scalar')}
_ND_ARITH['__radd__'] = _ND_ARITH['__add__']
_ND_ARITH['__rmul__'] = _ND_ARITH['__mul__']


def _route_ndarray_methods(patched):
    for meth, (array_op, scalar_op) in _ND_ARITH.items():
        if array_op not in patched and scalar_op not in patched:
            continue
        old = getattr(NDArray, meth)

        def method(self, other, __old=old, __a=array_op, __s=scalar_op):
            if isinstance(other, Number) and __s in patched:
                return getattr(_nd._internal, __s)(self, scalar=float(other))
            if type(other) is NDArray and __a is not None and __a in patched:
                return getattr(nd_op, __a)(self, other)
            return __old(self, other)
        method.__name__ = meth
        setattr(NDArray, meth, method)
    for meth in FLUENT:
        opname = _FLUENT_RENAME.get(meth, meth)
        if opname not in patched or not hasattr(nd_op, opname):
            continue
        current = NDArray.__dict__.get(meth)
        if current is None or not (current.__doc__ or '').startswith('Same as ``mx.nd.'):
            continue  # a method written by hand, not the generated one

        def fluent(self, *args, __n=opname, **kwargs):
            return getattr(nd_op, __n)(self, *args, **kwargs)
        fluent.__name__, fluent.__doc__ = meth, current.__doc__
        setattr(NDArray, meth, fluent)


def init(target_dtype='float16', target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Turn AMP on for the rest of the process (once; later calls do nothing, as in MXNet). Only operators
    mxcompat registers are in the default lists; names given in the override lists must be operators mxcompat
    knows."""
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    target = _target(target_dtype, 'amp.init')
    for arg, names in (('target_precision_ops', target_precision_ops), ('fp32_ops', fp32_ops),
                       ('conditional_fp32_ops', None if conditional_fp32_ops is None
                        else [c[0] for c in conditional_fp32_ops])):
        for n in names or ():
            if n not in _registry.REGISTRY:
                raise unsupported('mx.contrib.amp.init', '%s entry %r' % (arg, n),
                                  'mxcompat has no operator of that name')
    _amp_initialized = True
    logging.info('Using AMP')
    _wrap_module(_sym, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
    patched = _wrap_module(_nd, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
    _route_ndarray_methods(patched)
    _loss_scaler = LossScaler()
    _wrap_loss_outputs(_nd, _loss_scaler, target)
    _wrap_loss_outputs(_sym, _loss_scaler, target)


def _is_trainer(obj):
    return isinstance(obj, Trainer)


def _only_trainer(obj):
    if isinstance(obj, Optimizer):
        raise MXNetTypeError('AMP is currently only compatible with Gluon Trainer')
    raise MXNetTypeError('optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is %s' % type(obj))


def init_trainer(optimizer_or_trainer):
    """Give a Gluon Trainer dynamic loss scaling (the first trainer shares init's scaler; later ones get their own).
    An Optimizer raises TypeError, as in MXNet."""
    global _amp_loss_scale_initialized
    _check(_amp_initialized, 'AMP not initialized, did you forget to call amp.init()?')
    if not _is_trainer(optimizer_or_trainer):
        _only_trainer(optimizer_or_trainer)
    if not _amp_loss_scale_initialized:
        _amp_loss_scale_initialized = True
        scaler = _loss_scaler
    else:
        scaler = LossScaler()
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield ``loss`` (or a list of losses) times the loss scale; the trainer divides the gradients back."""
    scaler = getattr(optimizer_or_trainer, '_amp_loss_scaler', None)
    _check(scaler is not None, 'Loss scaler is not initialized, did you forget to call amp.init_trainer()?')
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [item * scaler.loss_scale for item in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Divide the trainer's gradients by the loss scale now (e.g. before clipping them) and set its scale to 1."""
    if not _is_trainer(optimizer_or_trainer):
        _only_trainer(optimizer_or_trainer)
    scale = optimizer_or_trainer._scale
    with torch.no_grad():
        for p in optimizer_or_trainer._params:
            for g in (p._grad or ()):
                g._t.mul_(scale)
    optimizer_or_trainer._scale = 1.


# ---- graph conversion -----------------------------------------------------------------------------------------------
def _check_lists(api, target, target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names):
    """MXNet's argument checks of convert_symbol; returns (target_ops, fp32_ops, {op: {param: values}}, excluded)."""
    if target_dtype_ops is not None:
        _check(isinstance(target_dtype_ops, list), 'target_dtype_ops should be a list of strs')
    else:
        target_dtype_ops = list_lp16_ops(target)
    if fp32_ops is not None:
        _check(isinstance(fp32_ops, list), 'fp32_ops should be a list of strs')
    else:
        fp32_ops = list_fp32_ops(target)
    if conditional_fp32_ops is not None:
        _check(isinstance(conditional_fp32_ops, list), 'conditional_fp32_ops should be a list')
    else:
        conditional_fp32_ops = list_conditional_fp32_ops(target)
    conditional = {}
    for entry in conditional_fp32_ops:
        _check(isinstance(entry[0], str) and isinstance(entry[1], str) and isinstance(entry[2], list),
               'conditional_fp32_ops should be a list of (str, str, list of str)')
        conditional.setdefault(entry[0], {}).setdefault(entry[1], []).extend(entry[2])
    if excluded_sym_names is not None:
        _check(isinstance(excluded_sym_names, list), 'excluded_sym_names should be a list of strs')
    else:
        excluded_sym_names = []
    cond_names = [c[0] for c in conditional_fp32_ops]
    for a, b, what in ((target_dtype_ops, fp32_ops, 'target_dtype_ops and fp32_ops'),
                       (target_dtype_ops, cond_names, 'target_dtype_ops and conditional_fp32_ops'),
                       (cond_names, fp32_ops, 'fp32_ops and conditional_fp32_ops')):
        common = set(a) & set(b)
        _check(not common, 'Ops cannot be in two or more lists. Common ops in %s %s' % (what, common))
    for arg, names in (('target_dtype_ops', target_dtype_ops), ('fp32_ops', fp32_ops),
                       ('conditional_fp32_ops', cond_names)):
        for n in names:
            if n not in _registry.REGISTRY:
                raise unsupported(api, '%s entry %r' % (arg, n), 'mxcompat has no operator of that name')
    known = set(list_lp16_ops(target) + list_fp32_ops(target) + list_lp16_fp32_ops(target)
                + [c[0] for c in list_conditional_fp32_ops(target)])
    illegal = set(target_dtype_ops + fp32_ops + cond_names) - known
    _check(not illegal, 'Can only choose ops from one of the three lists for lp16_ops and fp32_ops '
           '1. amp.list_lp16_ops(target_dtype) 2. amp.list_fp32_ops(target_dtype) 3. amp.list_lp16_fp32_ops'
           '(target_dtype) 4. amp.list_conditional_fp32_ops(target_dtype) Op %s not in any of them' % illegal)
    # the pass compares canonical operator names (an alias in a list, such as '_plus', matches no node)
    return target_dtype_ops, fp32_ops, conditional, excluded_sym_names


def convert_symbol(sym, target_dtype='float16', target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """A copy of the float32 graph ``sym`` with amp_cast/amp_multicast nodes inserted after the op lists, as MXNet's
    ReducePrecision pass builds it (same nodes, names and ``__dtype__`` attributes of the parameters). Names in the
    override lists must be operators mxcompat registers; graphs with control-flow nodes raise
    MXNetNotImplementedError."""
    _check(isinstance(sym, Symbol), 'First argument to convert_symbol should be Symbol')
    _check(isinstance(target_dtype, str) and target_dtype in ('float16', 'bfloat16'),
           'Only target_dtype float16 and bfloat16 are supported currently')
    target_ops, fp32, conditional, excluded = _check_lists('mx.contrib.amp.convert_symbol', target_dtype,
                                                           target_dtype_ops, fp32_ops, conditional_fp32_ops,
                                                           excluded_sym_names)
    variables = [n for n in sym._nodes() if n.is_var]
    if data_names is None:
        data_names = [n.name for n in variables if '__dtype__' not in n.attrs]
    inputs = [n.name for n in variables]
    model_params = set(inputs) - set(data_names)
    return _reduce_precision(sym, target_dtype, target_ops, fp32, list_widest_type_cast(target_dtype), conditional,
                             excluded, list(data_names), model_params, cast_optional_params)


def _cast_param(arr, code):
    """``arr`` as MXNet's type code ``code`` (bfloat16 through amp_cast, as MXNet does)."""
    if code == _types.BF16:
        return _nd.amp_cast(arr, dtype='bfloat16')
    return arr.astype(DTYPE_MX2NP[code])


def _code_of(x):
    """MXNet's type code of an NDArray's dtype (bfloat16 included) or of a dtype."""
    return _types.code(x._t.dtype if isinstance(x, NDArray) else x)


def _dtype_attr_code(sym_attrs, name):
    """The ``__dtype__`` a converted graph gives variable ``name`` (None when it gives none, or -1)."""
    v = sym_attrs.get(name, {}).get('__dtype__')
    return None if v is None or v == '-1' else int(v)


def _var_attrs(sym):
    return {n.name: n.attrs for n in sym._nodes() if n.is_var}


def convert_model(sym, arg_params, aux_params, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """(converted symbol, arg_params, aux_params): :func:`convert_symbol` with every non-parameter input as data,
    then each parameter whose ``__dtype__`` the conversion set cast to it (the given dicts are updated, as in
    MXNet)."""
    if excluded_sym_names is None:
        excluded_sym_names = []
    _check(isinstance(target_dtype, str) and target_dtype in ('float16', 'bfloat16'),
           'Only target_dtype float16 and bfloat16 are supported currently')
    _check(isinstance(sym, Symbol), 'First argument to convert_model should be Symbol')
    _check(isinstance(arg_params, dict), 'Second argument to convert_model should be a dict of name to ndarray')
    _check(isinstance(aux_params, dict), 'Third argument to convert_model should be a dict of name to ndarray')
    param_names = list(arg_params) + list(aux_params)
    data_names = [n for n in sym.list_inputs() if n not in set(param_names)]
    sym = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names,
                         data_names, cast_optional_params)
    attrs = _var_attrs(sym)
    for names, params in ((sym.list_arguments(), arg_params), (sym.list_auxiliary_states(), aux_params)):
        for name in names:
            c = _dtype_attr_code(attrs, name)
            if c is not None:
                params[name] = _cast_param(params[name], c)
    return sym, arg_params, aux_params


def convert_hybrid_block(block, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=gpu(0), cast_optional_params=False):
    """A SymbolBlock running ``block``'s hybridized graph converted by :func:`convert_symbol` (the block's inputs as
    data), its parameters cast to the dtypes the conversion gives them and loaded on ``ctx`` (MXNet's default,
    ``gpu(0)``: pass ``mx.cpu()`` where there is no GPU)."""
    _check(isinstance(block, HybridBlock), 'block input should be a HybridBlock')
    if not block._cached_graph:
        raise MXNetError('Please first call block.hybridize() and then run forward with this block at least '
                         'once before calling export.')
    inputs, sym = block._cached_graph
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names=[i.name for i in inputs],
                               cast_optional_params=cast_optional_params)
    arg_names, aux_names = set(converted.list_arguments()), set(converted.list_auxiliary_states())
    attrs = _var_attrs(converted)
    arg_dict = {}
    for name, param in block.collect_params().items():
        if name in arg_names:
            key = 'arg:%s' % name
        else:
            _check(name in aux_names, 'parameter %s is not in the converted graph' % name)
            key = 'aux:%s' % name
        arr = param._reduce()
        c = _dtype_attr_code(attrs, name)
        arg_dict[key] = arr if c is None else _cast_param(arr, c)
    ret = SymbolBlock(converted, inputs)
    for name, param in ret.collect_params().items():
        for key in ('arg:%s' % name, 'aux:%s' % name):
            if key in arg_dict and _code_of(param.dtype) != _code_of(arg_dict[key]):
                c = _code_of(arg_dict[key])
                param.cast(bfloat16 if c == _types.BF16 else DTYPE_MX2NP[c])
    # the dtypes already agree: cast_dtype only lets bfloat16 arrays through the loader's dtype check
    ret.collect_params().load_dict(arg_dict, ctx=ctx, cast_dtype=True)
    return ret


def convert_bucketing_module(bucketing_mod, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """A BucketingModule over each bucket's symbol converted by :func:`convert_model` with the current module's
    parameters (bind it before use)."""
    _check(isinstance(bucketing_mod, BucketingModule), 'module should be instance of bucketing module')
    _check(len(bucketing_mod._buckets) > 0, 'Bucketing Module should not be empty')
    _check(bucketing_mod.params_initialized,
           'bucketing_mod params should be initialized for mixed precision conversion')
    arg_params = bucketing_mod._curr_module._arg_params
    aux_params = bucketing_mod._curr_module._aux_params
    sym_dict = {}
    for key, val in bucketing_mod._buckets.items():
        sym_dict[key], arg_out, aux_out = convert_model(
            val._symbol, arg_params, aux_params, target_dtype=target_dtype, target_dtype_ops=target_dtype_ops,
            fp32_ops=fp32_ops, conditional_fp32_ops=conditional_fp32_ops, excluded_sym_names=excluded_sym_names,
            cast_optional_params=cast_optional_params)
    return BucketingModule.load_dict(sym_dict, sym_gen=bucketing_mod._sym_gen, arg_params=arg_out,
                                     aux_params=aux_out, default_bucket_key=bucketing_mod._default_bucket_key,
                                     logger=bucketing_mod.logger, context=bucketing_mod._context,
                                     work_load_list=bucketing_mod._work_load_list,
                                     fixed_param_names=bucketing_mod._fixed_param_names,
                                     state_names=bucketing_mod._state_names, group2ctxs=bucketing_mod._group2ctxs,
                                     compression_params=bucketing_mod._compression_params)
