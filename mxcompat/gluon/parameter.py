"""Gluon parameters: ``Parameter``, ``Constant`` and ``ParameterDict``.

A Parameter keeps one NDArray per context (``cpu(0)`` and ``cpu(1)`` are distinct copies, as in MXNet); each copy's
torch tensor is an autograd leaf whose ``.grad`` is the gradient NDArray's tensor, so ``autograd.record()`` /
``backward()`` fill ``param.grad()`` (``grad_req`` 'write' replaces it, 'add' accumulates into it).

Differs from MXNet: only dense storage (``stype``/``grad_stype`` other than ``'default'`` raise); failed checks
MXNet makes with ``assert`` raise :class:`MXNetAssertionError` (an ``AssertionError``).
"""
import warnings
import weakref
from collections import OrderedDict

import numpy as np
import torch

from .. import autograd, initializer
from ..autograd import STATE as _AG
from ..base import MXNetError, MXNetAssertionError, MXNetValueError, MXNetTypeError, unsupported
from ..context import Context, cpu, current_context
from ..ndarray import ndarray as _nd
from ..ndarray.ndarray import NDArray
from ..symbol import Symbol
from .. import symbol as _symbol

__all__ = ['DeferredInitializationError', 'Parameter', 'Constant', 'ParameterDict', 'tensor_types']

tensor_types = (Symbol, NDArray)


class DeferredInitializationError(MXNetError):
    """A parameter whose initialization waits for the first forward pass (its shape is still unknown)."""


# ---- small helpers shared with block.py (MXNet keeps them in gluon/utils.py) -----------------------------------
def _check(cond, msg):
    if not cond:
        raise MXNetAssertionError(msg)


def _indent(text, n):
    """Indent every line of ``text`` but the first by ``n`` spaces."""
    lines = text.split('\n')
    return lines[0] if len(lines) == 1 else '\n'.join([lines[0]] + [' ' * n + ln for ln in lines[1:]])


def _brief_print_list(names, limit=7):
    """``'a', 'b', ..., 'z'``: at most ``limit`` quoted names."""
    names = list(names)
    if len(names) > limit:
        return _brief_print_list(names[:limit // 2], limit) + ', ..., ' + _brief_print_list(names[-limit // 2:], limit)
    return ', '.join("'%s'" % str(n) for n in names)


def shape_is_known(shape):
    """True when ``shape`` has no unknown (0 or -1) dimension; as in MXNet's legacy mode, ``()`` is not known."""
    if shape is None or len(shape) == 0:
        return False
    for d in shape:
        if d in (0, -1):
            return False
        _check(d > 0, 'Invalid dimension size %d in shape %s' % (d, str(shape)))
    return True


_NAMING_HELP = ('For more info on naming, please see '
                'https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html')


def _wire_grad(arr, req, buf):
    """Make ``arr``'s tensor an autograd leaf whose gradient goes to the returned NDArray (``buf`` at first).

    Cheaper than zeroing a persistent buffer and accumulating into it: for ``'write'`` the buffer is dropped just
    before torch accumulates, so torch takes the incoming gradient as the new ``.grad``; a hook after accumulation
    points the gradient NDArray (the same object ``grad()`` always returns) at it and marks it fresh.
    """
    t = arr._t
    if t.requires_grad or t.grad_fn is not None:
        t = arr._t = t.detach()  # a new leaf sharing the data
    t.requires_grad_(True)
    t.grad = buf
    grad = NDArray._from_tensor(buf, arr._ctx)
    if req == 'write':
        tref = weakref.ref(t)

        def drop_old(g):
            if not _AG.in_grad:  # autograd.grad() leaves .grad alone
                leaf = tref()
                if leaf is not None:
                    leaf.grad = None
            return g
        t.register_hook(drop_old)

    def landed(leaf):
        grad._t = leaf.grad
        leaf._mx_fresh_grad = True  # read by NDArray._fresh_grad (the Trainer's stale-gradient check)
    t.register_post_accumulate_grad_hook(landed)
    return grad


def _ctx_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A weight of a Block: data (and gradient) arrays on one or more contexts, initialized lazily.

    ``stype``/``grad_stype`` other than ``'default'`` raise (sparse parameters are not supported).
    """

    def __init__(self, name, grad_req='write', shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0, init=None,
                 allow_deferred_init=False, differentiable=True, stype='default', grad_stype='default'):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        self._shape = shape
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        for what, st in (('stype', stype), ('grad_stype', grad_stype)):
            _check(st in ('default', 'row_sparse', 'csr'), "%s for Parameter '%s' must be one of 'default', "
                   "'row_sparse', or 'csr', but got '%s'" % (what, name, st))
            if st != 'default':
                raise unsupported('gluon.Parameter', '%s=%r' % (what, st), 'parameters and gradients are dense')
        self._stype = stype
        self._grad_stype = grad_stype
        self.grad_req = grad_req
        self.init = init

    def __repr__(self):
        return 'Parameter %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    # -- attributes -----------------------------------------------------------------------------------------------
    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        _check(req in ('write', 'add', 'null'),
               "grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req)
        if not self._differentiable:
            req = 'null'
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == 'null' and self._grad is not None:
            self._grad = None
            for arr in self._data:
                arr._t = arr._t.detach()
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        if self._shape is None:
            self._shape = new_shape
            return
        _check(len(self._shape) == len(new_shape) and all(j in (-1, 0, i) for i, j in zip(new_shape, self._shape)),
               'Expected shape %s is incompatible with given shape %s.' % (str(new_shape), str(self._shape)))
        self._shape = new_shape

    @property
    def stype(self):
        return self._stype

    def _set_trainer(self, trainer):
        self._trainer = trainer

    # -- arrays ---------------------------------------------------------------------------------------------------
    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            row = self._ctx_map[ctx.device_typeid & 1]
            if ctx.device_id < len(row):
                idx = row[ctx.device_id]
                if idx is not None:
                    return arr_list[idx]
            raise MXNetError("Parameter '%s' was not initialized on context %s. It was only initialized on %s."
                             % (self.name, str(ctx), str(self._ctx_list)))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass. Please pass one batch of data through the "
                "network before accessing Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers." % self.name)
        raise MXNetError("Parameter '%s' has not been initialized. Note that you should initialize parameters and "
                         "create Trainer with Block.collect_params() instead of Block.params because the later does "
                         "not include Parameters of nested child Blocks" % self.name)

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """(Re)initialize from the NDArray ``data`` (what loading a parameter file does)."""
        if cast_dtype:
            _check(dtype_source in ('current', 'saved'), "dtype_source must be 'current' or 'saved'")
        if self.shape:
            for mine, theirs in zip(self.shape, data.shape):
                _check(mine in (0, -1, theirs), "Failed loading Parameter '%s' from saved params: shape "
                       "incompatible expected %s vs saved %s" % (self.name, str(self.shape), str(data.shape)))
            self.shape = tuple(j if i in (0, -1) else i for i, j in zip(self.shape, data.shape))
        if self.dtype:
            if cast_dtype and np.dtype(self.dtype).type != data.dtype:
                if dtype_source == 'current':
                    data = data.astype(self.dtype, copy=False)
                else:
                    self.dtype = data.dtype
            else:
                _check(np.dtype(self.dtype).type == data.dtype,
                       "Failed loading Parameter '%s' from saved params: dtype incompatible expected %s vs saved %s. "
                       "Set cast_dtype=True to cast the dtype of saved params."
                       % (self.name, str(self.dtype), str(data.dtype)))
        if data.stype != 'default':
            data = data.tostype('default')
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                _check(ctx is None or set(ctx) == set(self._deferred_init[1]),
                       "Failed to load Parameter '%s' on %s because it was previous initialized on %s."
                       % (self.name, str(ctx), str(self.list_ctx())))
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            _check(ctx is None or set(ctx) == set(self.list_ctx()),
                   "Failed to load Parameter '%s' on %s because it was previous initialized on %s."
                   % (self.name, str(ctx), str(self.list_ctx())))
            self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self):
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        _check(shape_is_known(self.shape), "Cannot initialize Parameter '%s' because it has invalid shape: %s. "
               "Please specify in_units, in_channels, etc for `Block`s." % (self.name, str(self.shape)))
        with autograd.pause():
            if data is None:
                data = _nd.zeros(self.shape, dtype=self.dtype, ctx=cpu())
                initializer.create(default_init)(initializer.InitDesc(self.name, {'__init__': init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        self._ctx_list = list(ctx_list)
        self._ctx_map = [[], []]
        for i, ctx in enumerate(self._ctx_list):
            row = self._ctx_map[ctx.device_typeid & 1]
            while len(row) <= ctx.device_id:
                row.append(None)
            row[ctx.device_id] = i
        if not isinstance(data, NDArray):
            data = _nd.array(data, dtype=self.dtype)
        src = data._t.detach()
        # one independent tensor per context, as MXNet keeps one array per context
        self._data = [NDArray._from_tensor(src.to(c.torch_device, copy=True), c) for c in self._ctx_list]
        self._init_grad()

    def _init_grad(self):
        if self._grad_req == 'null':
            self._grad = None
            return
        grads = []
        for arr in self._data:
            buf = torch.zeros_like(arr._t.detach())
            if arr._t.is_floating_point():
                grads.append(_wire_grad(arr, self._grad_req, buf))
            else:  # MXNet keeps a gradient buffer for integer parameters too; nothing ever writes it
                grads.append(NDArray._from_tensor(buf, arr._ctx))
        self._grad = grads

    def _reduce(self):
        """The mean of the copies on all contexts, on cpu (what gets saved)."""
        arrays = self.list_data()
        with torch.no_grad():
            if len(arrays) == 1:
                t = arrays[0]._t.detach().to('cpu', copy=True)
            else:
                t = sum(a._t.detach().to('cpu') for a in arrays) / len(arrays)
        return NDArray._from_tensor(t, cpu())

    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(), force_reinit=False):
        """Create the arrays on ``ctx`` (a Context or list of them); deferred while the shape is unknown."""
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set force_reinit=True to "
                          "re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        ctx = _ctx_list(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise MXNetValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                                  % (self.name, str(self.shape)))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def reset_ctx(self, ctx):
        """Move the parameter to other context(s) (the copies' mean is kept)."""
        ctx = _ctx_list(ctx)
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise MXNetValueError("Cannot reset context for Parameter '%s' because it has not been initialized."
                                  % self.name)

    def set_data(self, data):
        """Set the value on every context (kept for the first forward pass when initialization is deferred)."""
        self.shape = data.shape
        if self._data is None:
            _check(self._deferred_init, "Parameter '%s' has not been initialized" % self.name)
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore:
            if self not in trainer._params_to_init:
                trainer._reset_kvstore()
        src = data._t if isinstance(data, NDArray) else torch.as_tensor(np.asarray(data))
        with torch.no_grad():
            for arr in self._data:
                arr._t.copy_(src.detach())

    def row_sparse_data(self, row_id):
        raise unsupported('Parameter.row_sparse_data', 'row_sparse parameters', 'parameters are dense; use data()')

    def list_row_sparse_data(self, row_id):
        raise unsupported('Parameter.list_row_sparse_data', 'row_sparse parameters',
                          'parameters are dense; use list_data()')

    def data(self, ctx=None):
        """The NDArray on ``ctx`` (the only one when the parameter lives on one context)."""
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The NDArrays on all contexts, in initialization order."""
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        """The gradient NDArray on ``ctx``."""
        if self._data is not None and self._grad is None:
            raise MXNetError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % self.name)
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient NDArrays on all contexts."""
        if self._data is not None and self._grad is None:
            raise MXNetError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % self.name)
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts the parameter is (or will be, once deferred initialization finishes) on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise MXNetError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def zero_grad(self):
        """Set the gradient buffers to 0 (nothing when uninitialized or ``grad_req='null'``)."""
        if self._grad is None:
            return
        for g in self._grad:
            g._t.zero_()

    def var(self):
        """The Symbol variable of this parameter (with its shape, dtype, lr/wd multipliers and init)."""
        if self._var is None:
            self._var = _symbol.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                    wd_mult=self.wd_mult, init=self.init, stype=self._stype)
        return self._var

    def cast(self, dtype):
        """Cast data and gradient to ``dtype``."""
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            old_grads = self._grad
            self._data = [NDArray._from_tensor(a._t.detach().to(_dtype(dtype)), a._ctx) for a in self._data]
            if old_grads is None:
                return
            grads = []
            for arr, g in zip(self._data, old_grads):
                buf = g._t.to(_dtype(dtype))
                if arr._t.is_floating_point():
                    grads.append(_wire_grad(arr, self._grad_req, buf))
                else:
                    grads.append(NDArray._from_tensor(buf, arr._ctx))
            self._grad = grads


def _dtype(dtype):
    from ..base import to_torch_dtype
    return to_torch_dtype(dtype)


class Constant(Parameter):
    """A parameter that autograd and the Trainer never change (``grad_req`` is always ``'null'``)."""

    def __init__(self, name, value):
        if not isinstance(value, NDArray):
            value = _nd.array(value)
        self.value = value

        class Init(initializer.Initializer):
            def _init_weight(self, _, arr):
                value.copyto(arr)
        # MXNet registers one initializer per constant, so the symbol variable can name it in ``__init__``
        init_name = 'Constant_{}_{}'.format(name, id(self))
        initializer.alias(init_name)(Init)
        super().__init__(name, grad_req='null', shape=value.shape, dtype=value.dtype, init=init_name)

    def __repr__(self):
        return 'Constant %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    @property
    def grad_req(self):
        return 'null'

    @grad_req.setter
    def grad_req(self, req):
        if req != 'null':
            warnings.warn('Constant parameter "{}" does not support grad_req other than "null", and new value "{}" '
                          'is ignored.'.format(self.name, req))
        self._grad_req = 'null'


def _merge_shape(wanted, existing):
    """MXNet's shape merge for ParameterDict.get: unknown (0/-1) dims take the other side's size; None if the
    shapes conflict."""
    if len(wanted) != len(existing):
        return None
    out = []
    for a, b in zip(wanted, existing):
        if a != b and a > 0 and b > 0:
            return None
        out.append(b if a in (0, -1) else a)
    return tuple(out)


class ParameterDict:
    """An ordered dict of Parameters whose ``get`` creates them named ``prefix + name`` (or takes them from
    ``shared``)."""

    def __init__(self, prefix='', shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        name = self._prefix + ' ' if self._prefix else ''
        return '{}(\n{}\n)'.format(name, '\n'.join(_indent('  {0}'.format(v), 2) for v in self.values()))

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``: existing (here or in ``shared``, checked against ``kwargs``, unknown
        shape dims merged) or new."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if hasattr(param, k) and getattr(param, k) is not None:
                existing = getattr(param, k)
                if k == 'shape' and v is not None:
                    v = (v,) if isinstance(v, int) else tuple(v)
                    merged = _merge_shape(v, existing)
                    if merged is not None:
                        param._shape = merged
                        continue
                elif k == 'dtype' and v is not None and np.dtype(v) == np.dtype(existing):
                    continue
                _check(v is None or v == existing,
                       "Cannot retrieve Parameter '%s' because desired attribute does not match with stored for "
                       "attribute '%s': desired '%s' vs stored '%s'." % (name, k, str(v), str(getattr(param, k))))
            else:
                setattr(param, k, v)
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name`` (created with ``value`` when it does not exist yet)."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want to create a new "
                               "constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            _check(isinstance(param, Constant), "Parameter '{}' already exists but it is not a constant."
                   .format(name))
            if isinstance(value, NDArray):
                value = value.asnumpy()
            _check(param.shape == np.shape(value) and (param.value.asnumpy() == value).all(),
                   "Constant '{}' already exists but it's value doesn't match new value".format(name))
        return param

    def update(self, other):
        """Add the Parameters of ``other`` (a name may only map to the same Parameter)."""
        for k, v in other.items():
            if k in self._params:
                _check(self._params[k] is v, "Cannot update self with other because they have different "
                       "Parameters with the same name '%s'" % k)
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """Initialize every Parameter (``init`` is the default for those without their own ``init``)."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for v in self.values():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set all gradient buffers to 0."""
        for p in self.values():
            p.zero_grad()

    def reset_ctx(self, ctx):
        for p in self.values():
            p.reset_ctx(ctx)

    def list_ctx(self):
        s = set()
        for p in self.values():
            s.update(p.list_ctx())
        return list(s)

    def setattr(self, name, value):
        """Set attribute ``name`` (``grad_req``, ``lr_mult`` ...) of every Parameter."""
        for p in self.values():
            setattr(p, name, value)

    def save(self, filename, strip_prefix=''):
        """Save to an MXNet .params file, keys being the names without ``strip_prefix``."""
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise MXNetValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' does not start with '%s'. "
                    "this may be due to your Block shares parameters from other Blocks or you forgot to use "
                    "'with name_scope()' when creating child blocks. %s" % (strip_prefix, param.name, strip_prefix,
                                                                            _NAMING_HELP))
            arg_dict[param.name[len(strip_prefix):]] = weight
        _nd_save(filename, arg_dict)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix='', cast_dtype=False,
             dtype_source='current'):
        """Load an MXNet .params file (``arg:``/``aux:`` key prefixes are dropped; ``restore_prefix`` is
        prepended)."""
        if restore_prefix:
            for name in self.keys():
                _check(name.startswith(restore_prefix), "restore_prefix is '%s' but Parameters name '%s' does not "
                       "start with '%s'. %s" % (restore_prefix, name, restore_prefix, _NAMING_HELP))
        self.load_dict(_nd_load(filename), ctx, allow_missing, ignore_extra, restore_prefix, filename, cast_dtype,
                       dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix='',
                  filename=None, cast_dtype=False, dtype_source='current'):
        """Load from a dict of NDArrays (keys as in a .params file)."""
        if not isinstance(param_dict, dict):
            raise MXNetTypeError('load_dict: expected a dict of NDArrays, got %s' % type(param_dict).__name__)
        lprefix = len(restore_prefix)
        arg_dict = {restore_prefix + (k[4:] if k.startswith(('arg:', 'aux:')) else k): v
                    for k, v in param_dict.items()}
        where = 'file: %s' % filename if filename else 'param_dict'
        if not allow_missing:
            for name in self.keys():
                _check(name in arg_dict, "Parameter '%s' is missing in %s, which contains parameters: %s. Please "
                       "make sure source and target networks have the same prefix.%s"
                       % (name[lprefix:], where, _brief_print_list(arg_dict.keys()), _NAMING_HELP))
        for name in arg_dict:
            if name not in self._params:
                _check(ignore_extra, "Parameter '%s' loaded from %s is not present in ParameterDict, choices are: "
                       "%s. Set ignore_extra to True to ignore. Please make sure source and target networks have "
                       "the same prefix.%s" % (name[lprefix:], where, _brief_print_list(self._params.keys()),
                                               _NAMING_HELP))
                continue
            self[name]._load_init(arg_dict[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)


def _nd_save(filename, data):
    from ..ndarray.utils import save
    save(filename, data)


def _nd_load(filename):
    from ..ndarray.utils import load
    return load(filename)
