"""``mx.contrib.amp``: automatic mixed precision (MXNet 1.9.1's API).

``init`` rewires the ``mx.nd`` / ``mx.sym`` operator functions after MXNet's lists (``lists/``): target-dtype ops
cast their float inputs to float16/bfloat16, float32 ops to float32, widest-type ops to the widest float type of
their inputs; Gluon layers calling ``F.<op>`` follow, eager and hybridized. ``init_trainer``/``scale_loss``/
``unscale`` with ``LossScaler`` give dynamic loss scaling. The graph conversions (``convert_symbol``,
``convert_model``, ``convert_hybrid_block``, ``convert_bucketing_module``) are not provided: they raise
``MXNetNotImplementedError``.

Differs from MXNet: a bfloat16 NDArray reports ``dtype`` float32 (mxcompat has no numpy bfloat16; ``amp.bfloat16``
is MXNet's marker dtype and is accepted wherever a dtype is); float16 operators run on CPU (MXNet's CPU build has
no float16 FullyConnected); NDArray's binary operators (``a * b``, ``a + 2``) and generated fluent methods
(``a.sum()``) follow the wrapped functions as in MXNet, but in-place (``a += b``) and unary (``-a``) operators
and hand-written methods do not; names in the override lists must be mxcompat operators. Errors MXNet gives as
``AssertionError`` are ``MXNetValueError``s (an AssertionError too) here."""
import contextlib
import functools
import logging
from numbers import Number

import numpy as np
import torch

from ... import ndarray as _nd
from ... import symbol as _sym
from ...base import MXNetTypeError, MXNetValueError, unsupported
from ...ndarray import NDArray, op as nd_op
from ...operator import registry as _registry
from ...symbol.symbol import Symbol, _Node
from . import lists
from .loss_scaler import LossScaler
from ...ndarray.register import FLUENT, _FLUENT_RENAME
from ...gluon.trainer import Trainer
from ...optimizer import Optimizer

__all__ = ['init', 'init_trainer', 'scale_loss', 'unscale', 'convert_model', 'convert_hybrid_block',
           'list_lp16_ops', 'list_fp32_ops', 'list_lp16_fp32_ops', 'list_conditional_fp32_ops',
           'list_widest_type_cast', 'list_loss_output_functions', 'list_lp16_use_fp32_params', 'convert_symbol']

bfloat16 = np.dtype([('bfloat16', np.uint16)])  # MXNet's name for bfloat16 in numpy terms

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


def _conversion_gap(name):
    def f(*args, **kwargs):
        raise unsupported('mx.contrib.amp.' + name, 'inserting amp_cast/amp_multicast nodes into a graph',
                          'call amp.init() before building the model, or cast it with block.cast()')
    f.__name__ = f.__qualname__ = name
    f.__doc__ = 'Not provided by mxcompat: raises MXNetNotImplementedError.'
    return f


convert_symbol = _conversion_gap('convert_symbol')
convert_model = _conversion_gap('convert_model')
convert_hybrid_block = _conversion_gap('convert_hybrid_block')
convert_bucketing_module = _conversion_gap('convert_bucketing_module')
