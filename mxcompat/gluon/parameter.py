"""Gluon parameters: ``Parameter``, ``Constant`` and ``ParameterDict``.

A Parameter keeps one NDArray per context (``cpu(0)`` and ``cpu(1)`` are distinct copies, as in MXNet); each copy's
torch tensor is an autograd leaf whose ``.grad`` is the gradient NDArray's tensor, so ``autograd.record()`` /
``backward()`` fill ``param.grad()`` (``grad_req`` 'write' replaces it, 'add' accumulates into it).

``stype='row_sparse'`` makes a row_sparse Parameter (a private subclass: ``data()`` raises, ``row_sparse_data(row_id)``
pulls rows through the Trainer's kvstore into the parameter's own arrays, which stay the autograd variables);
``grad_stype='row_sparse'`` makes ``grad()`` a RowSparseNDArray.

A row_sparse gradient holds the rows the backward pass wrote: those ``Embedding(sparse_grad=True)`` looked up
(computed sparse, as MXNet's kernel), or for operators without a sparse gradient the non-zero rows of the dense
gradient (MXNet keeps every row its kernels wrote, zeros included). ``'csr'`` parameters and gradients raise; failed
checks MXNet makes with ``assert`` raise :class:`MXNetAssertionError` (an ``AssertionError``).
"""
import math
import warnings
import weakref
from collections import OrderedDict

import numpy as np
import torch

from .. import _memory, autograd, initializer, kernels
from ..autograd import STATE as _AG
from ..base import (MXNetError, MXNetAssertionError, MXNetValueError, MXNetTypeError, unsupported, to_torch_dtype,
                    from_host)
from ..context import Context, cpu, current_context
from ..ndarray import sparse as _sparse, ndarray as _nd, _codec
from ..ndarray.ndarray import NDArray
from ..numpy import multiarray as _mx_np
from ..symbol import Symbol
from .. import symbol as _symbol
from ..symbol.numpy import as_np as _as_np_symbol
from ..util import _np_shape_level, is_np_array
from ._npf import to_np
from ..ndarray.utils import load, _wrap_all, save

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
    """True when ``shape`` has no unknown dimension: 0 or -1 in MXNet's legacy mode (where ``()`` is not known
    either), -1 under NumPy shape semantics (where 0 is a zero-size dimension and ``()`` a scalar's shape)."""
    if shape is None:
        return False
    np_shape = _np_shape_level()
    if len(shape) == 0:
        return bool(np_shape)
    unknown = (-1,) if np_shape else (0, -1)
    for d in shape:
        if d in unknown:
            return False
        _check(d >= 0, 'Invalid dimension size %d in shape %s' % (d, str(shape)))
    return True


_NAMING_HELP = ('For more info on naming, please see '
                'https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html')


def _wire_grad(arr, req, grad):
    """Make ``arr``'s tensor an autograd leaf whose gradient goes to ``grad`` (an NDArray, dense or row_sparse).

    Cheaper than zeroing a persistent buffer and accumulating into it: for ``'write'`` the buffer is dropped just
    before torch accumulates, so torch takes the incoming gradient as the new ``.grad``; a hook after accumulation
    points the gradient NDArray (the same object ``grad()`` always returns) at it and marks it fresh. A sparse COO
    gradient written so has its rows summed before torch stores it (torch stores a copy of what it is handed: it
    takes an empty one, and the summed rows become ``.grad`` after).
    """
    t = arr._t
    if t.requires_grad or t.grad_fn is not None:
        t = arr._t = t.detach()  # a new leaf sharing the data
    t.requires_grad_(True)
    t.grad = grad._t
    sparse = isinstance(grad, _sparse.RowSparseNDArray)
    if sparse:
        t._mx_sparse_grad = True  # sparse-gradient embeddings give it the looked-up rows only (operator/nn.py)
    summed = []  # the (rows, values) drop_old summed from this backward's sparse gradient, for landed
    empty = []  # the empty gradient torch is handed instead (kept: torch copies it)
    if req == 'write':
        tref = weakref.ref(t)

        def drop_old(g):
            if not _AG.in_grad:  # autograd.grad() leaves .grad alone
                leaf = tref()
                if leaf is not None:
                    leaf.grad = None
                summed.clear()
                if sparse and g.layout is torch.sparse_coo and not g.requires_grad:
                    summed.append(_sparse.summed_rows(g))
                    if not empty or empty[0].dtype != g.dtype or empty[0].device != g.device:
                        empty[:] = [torch.sparse_coo_tensor(g._indices()[:, :0].clone(), g._values()[:0].clone(),
                                                            g.shape, check_invariants=False)]
                    return empty[0]
            return g
        t.register_hook(drop_old)

    def landed(leaf):
        g = leaf.grad
        if summed and g.layout is torch.sparse_coo and not g._nnz():
            rows, values = summed.pop()
            leaf.grad = torch.sparse_coo_tensor(rows.unsqueeze(0), values, g.shape, is_coalesced=True,
                                                check_invariants=False)
            grad._assign_comps((values, rows))
        elif sparse and g.layout is torch.sparse_coo:
            rows, values = _sparse.summed_rows(g)
            grad._assign_comps((values, rows))
        else:
            grad._t = g  # (a RowSparseNDArray takes the dense values and compresses them when read)
        leaf._mx_fresh_grad = True  # read by NDArray._fresh_grad (the Trainer's stale-gradient check)
    t.register_post_accumulate_grad_hook(landed)


_CPU = cpu()
_HOST_DTYPES = {torch.float32: np.float32, torch.float64: np.float64, torch.float16: np.float16,
                torch.int8: np.int8, torch.uint8: np.uint8, torch.int32: np.int32, torch.int64: np.int64,
                torch.bool: np.bool_}


def _untouched_zeros(shape, dtype):
    """A CPU tensor of zeros whose pages are written only when the tensor is: a gradient that backward replaces
    before writing it is never touched, nor the data an initializer replaces (see initializer._initialize_fresh);
    big ones on a mapping of their own (``_memory.host_zeros``). ``torch.zeros`` writes every page. Falls back to
    ``torch.zeros`` for dtypes numpy lacks."""
    host = _HOST_DTYPES.get(dtype)
    if host is None:
        return torch.zeros(shape, dtype=dtype)
    return torch.from_numpy(_memory.host_zeros(math.prod(shape), host).reshape(shape))


def _zeros_like(t):
    """``torch.zeros_like(t)``; for a contiguous CPU tensor, untouched until written (see _untouched_zeros)."""
    if t.device.type == 'cpu' and t.is_contiguous():
        return _untouched_zeros(tuple(t.shape), t.dtype)
    return torch.zeros_like(t)


def _ctx_list(ctx):
    if isinstance(ctx, Context):
        return [ctx]
    return [current_context()] if ctx is None else list(ctx)


def _ctx_key(ctx):
    # cpu and cpu_pinned share a slot, as in MXNet's (device_typeid & 1, device_id) lookup
    return ctx.device_typeid & 1, ctx.device_id


_GRAD_REQS = ('write', 'add', 'null')
_STYPES = ('default', 'row_sparse', 'csr')


def _check_stypes(name, grad_stype, stype):
    """Validate ``grad_stype``/``stype`` (in MXNet's order); 'csr' is accepted by name but not implemented."""
    for what, st in (('grad_stype', grad_stype), ('stype', stype)):
        _check(st in _STYPES, "%s for Parameter '%s' must be one of 'default', 'row_sparse', or 'csr', but got '%s'"
               % (what, name, st))
        if st == 'csr':
            raise unsupported('gluon.Parameter', "%s='csr'" % what, "sparse parameters and gradients are "
                              "'row_sparse' only")


def _grad_array(arr, req, buf, sparse=False):
    """The gradient NDArray of ``arr`` backed by ``buf`` (row_sparse when ``sparse``; an ``mx.np`` array for an
    ``mx.np`` ``arr``): wired into autograd; integer data as an integer variable (``autograd._attach``) whose
    backward writes ``buf`` in the data's dtype, as MXNet's."""
    if sparse:
        grad = _sparse.zeros('row_sparse', arr.shape, ctx=arr._ctx, dtype=arr.dtype)
        grad._t = buf
    elif isinstance(arr, _mx_np.ndarray):
        grad = _mx_np._np_wrap(buf, arr._ctx)
    else:
        grad = NDArray._from_tensor(buf, arr._ctx)
    if arr._t.is_floating_point():
        _wire_grad(arr, req, grad)
    elif not sparse:
        autograd._attach(arr, req, buf)
    return grad


class Parameter:
    """A weight of a Block: data (and gradient) arrays on one or more contexts, initialized lazily.

    ``stype``/``grad_stype`` may be ``'row_sparse'`` (see the module docstring); ``'csr'`` raises. As in MXNet, the
    arrays are ``mx.np`` arrays when the parameter is initialized under NumPy array semantics (``npx.set_np()``;
    for a deferred parameter: when its first forward pass runs so) or from an ``mx.np`` value (``set_data`` before
    that, loading), and legacy NDArrays otherwise; the gradients are of the data's kind.
    """

    def __init__(self, name, grad_req='write', shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0, init=None,
                 allow_deferred_init=False, differentiable=True, stype='default', grad_stype='default'):
        _check_stypes(name, grad_stype, stype)
        if stype == 'row_sparse' and type(self) is Parameter:
            # its own class, so that data()/list_data() of dense parameters test nothing
            self.__class__ = _RowSparseParameter
        self.name, self.init = name, init
        self.lr_mult, self.wd_mult = lr_mult, wd_mult
        self._shape = (int(shape),) if isinstance(shape, (int, np.integer)) else shape
        self._dtype = dtype
        self._stype, self._grad_stype = stype, grad_stype
        self._differentiable, self._allow_deferred_init = differentiable, allow_deferred_init
        # no arrays until initialize(); while it waits for a shape, _deferred_init is (init, ctx, default, data)
        self._data = self._grad = self._var = self._trainer = None
        self._np = False  # whether the arrays are mx.np arrays (decided by _init_impl)
        self._ctx_list = self._ctx_map = None
        self._deferred_init = ()
        self._grad_req = None
        self.grad_req = grad_req

    def __repr__(self):
        return 'Parameter %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    # -- attributes -----------------------------------------------------------------------------------------------
    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        _check(req in _GRAD_REQS, "grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req)
        req = req if self._differentiable else 'null'
        if req == self._grad_req:
            return
        self._grad_req = req
        if self._data is None:
            return
        if req != 'null':
            self._init_grad()
            return
        self._grad = None
        for arr in self._data:
            arr._t = arr._t.detach()  # stop recording into the old gradient

    dtype = property(lambda self: self._dtype, lambda self, dtype: self.cast(dtype),
                     doc='The data type; setting it casts the arrays.')

    @property
    def shape(self):
        """The shape; an unknown dimension reads 0, or -1 under NumPy shape semantics (as MXNet)."""
        shape = self._shape
        if shape is None or not _np_shape_level():
            return shape
        return tuple(-1 if d == 0 else d for d in shape)

    @shape.setter
    def shape(self, new_shape):
        old = self._shape
        if old is not None:
            # only unknown (0 / -1) dimensions may change
            fits = len(old) == len(new_shape) and all(o in (-1, 0, n) for o, n in zip(old, new_shape))
            _check(fits, 'Expected shape %s is incompatible with given shape %s.' % (str(new_shape), str(old)))
        self._shape = new_shape

    @property
    def stype(self):
        return self._stype

    def _set_trainer(self, trainer):
        self._trainer = trainer

    # -- arrays ---------------------------------------------------------------------------------------------------
    def _not_ready_error(self):
        if self._deferred_init:
            return DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass. Please pass one batch of data through the "
                "network before accessing Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers." % self.name)
        return MXNetError("Parameter '%s' has not been initialized. Note that you should initialize parameters and "
                          "create Trainer with Block.collect_params() instead of Block.params because the later does "
                          "not include Parameters of nested child Blocks" % self.name)

    def _check_and_get(self, arr_list, ctx):
        """``arr_list`` whole (``ctx is list``), or its entry for ``ctx``."""
        if arr_list is None:
            raise self._not_ready_error()
        if ctx is list:
            return arr_list
        if len(arr_list) == 1 and (ctx is None or arr_list[0]._ctx is ctx):  # (one context, asked for by itself)
            return arr_list[0]
        where = current_context() if ctx is None else ctx
        pos = self._ctx_map.get(_ctx_key(where))
        if pos is None:
            raise MXNetError("Parameter '%s' was not initialized on context %s. It was only initialized on %s."
                             % (self.name, str(where), str(self._ctx_list)))
        return arr_list[pos]

    def _fit_loaded(self, data, cast_dtype, dtype_source):
        """Merge the saved array's shape into ours and reconcile dtypes; returns the array to load."""
        if self.shape:
            for mine, theirs in zip(self.shape, data.shape):
                _check(mine in (0, -1, theirs), "Failed loading Parameter '%s' from saved params: shape "
                       "incompatible expected %s vs saved %s" % (self.name, str(self.shape), str(data.shape)))
            self.shape = tuple(theirs if mine in (0, -1) else mine for mine, theirs in zip(self.shape, data.shape))
        if not self.dtype:
            return data
        same = np.dtype(self.dtype).type == data.dtype
        if not cast_dtype:
            _check(same, "Failed loading Parameter '%s' from saved params: dtype incompatible expected %s vs saved %s. "
                   "Set cast_dtype=True to cast the dtype of saved params." % (self.name, str(self.dtype),
                                                                               str(data.dtype)))
        elif not same and dtype_source == 'current':
            data = data.astype(self.dtype, copy=False)
        elif not same:
            self.dtype = data.dtype
        return data

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """(Re)initialize from the NDArray ``data`` (what loading a parameter file does)."""
        if cast_dtype:
            _check(dtype_source in ('current', 'saved'), "dtype_source must be 'current' or 'saved'")
        data = self._fit_loaded(data, cast_dtype, dtype_source)
        if data.stype != 'default':
            data = data.tostype('default')
        ctx = [ctx] if isinstance(ctx, Context) else ctx
        if self._data is None and not self._deferred_init:
            self._init_impl(data, [cpu()] if ctx is None else ctx)
        else:
            placed = self.list_ctx()
            _check(ctx is None or set(ctx) == set(placed),
                   "Failed to load Parameter '%s' on %s because it was previous initialized on %s."
                   % (self.name, str(ctx), str(placed)))
            if self._data is None:
                self._init_impl(data, placed)  # a deferred parameter takes the contexts it was given
            else:
                self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self):
        pending, self._deferred_init = self._deferred_init, ()  # consumed even if the shape check fails (as MXNet)
        if not pending:
            return
        _check(shape_is_known(self.shape), "Cannot initialize Parameter '%s' because it has invalid shape: %s. "
               "Please specify in_units, in_channels, etc for `Block`s." % (self.name, str(self.shape)))
        init, ctx, default_init, data = pending
        with autograd.pause():
            if data is None:
                # fill once on cpu, then copy to every context (as MXNet); NumPy mode makes mx.np arrays
                if is_np_array():
                    _check_np_stype(self.name, self._stype)
                zeros = _untouched_zeros(self.shape, to_torch_dtype(self.dtype))
                data = (_mx_np._np_wrap if is_np_array() else NDArray._from_tensor)(zeros, _CPU)
                desc = initializer.InitDesc(self.name, {'__init__': init})
                initializer._initialize_fresh(initializer.create(default_init), desc, data)
                self._init_impl(data, ctx, fresh=True)
            else:
                self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list, fresh=False):
        """Make the arrays on ``ctx_list`` from ``data``; ``fresh``: ``data`` is a CPU array made for this
        parameter alone, which becomes its array on the CPU instead of being copied."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = {_ctx_key(c): pos for pos, c in enumerate(self._ctx_list)}
        self._np = isinstance(data, _mx_np.ndarray)
        value = (data if isinstance(data, NDArray) else _nd.array(data, dtype=self.dtype))._t.detach()
        # one independent tensor per context, as MXNet keeps one array per context
        self._data = []
        for c in self._ctx_list:
            dev = c.torch_device
            if fresh and dev.type == 'cpu':
                t, fresh = value, False
            else:
                t = _memory.copy_of(value, dev)
            self._data.append(self._wrap_data(t, c))
        self._init_grad()

    def _wrap_data(self, t, ctx):
        """A data array from a dense tensor (row_sparse: compressed), of the parameter's kind."""
        return _mx_np._np_wrap(t, ctx) if self._np else NDArray._from_tensor(t, ctx)

    def _init_grad(self):
        req = self._grad_req
        sparse = self._grad_stype == 'row_sparse'
        if self._np and req != 'null':
            _check_np_stype(self.name, self._grad_stype)
        self._grad = None if req == 'null' else [
            _grad_array(arr, req, _zeros_like(arr._t.detach()), sparse) for arr in self._data]

    def _reduce(self):
        """The mean of the copies on all contexts, on cpu (what gets saved)."""
        copies = [arr._t.detach() for arr in self._check_and_get(self._data, list)]
        with torch.no_grad():
            if len(copies) > 1:
                mean = sum(t.to('cpu') for t in copies) / len(copies)
            else:
                mean = copies[0].to('cpu', copy=True)
        return NDArray._from_tensor(mean, cpu())

    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(), force_reinit=False):
        """Create the arrays on ``ctx`` (a Context or list of them); deferred while the shape is unknown."""
        if not force_reinit and self._data is not None:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set force_reinit=True to "
                          "re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        if init is None:
            init = self.init if self.init is not None else default_init
        pending = (init, _ctx_list(ctx), default_init, None)
        known = shape_is_known(self.shape)
        if not (known or self._allow_deferred_init):
            raise MXNetValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                                  % (self.name, str(self.shape)))
        self._deferred_init = pending
        if known:
            self._finish_deferred_init()

    def reset_ctx(self, ctx):
        """Move the parameter to other context(s) (the copies' mean is kept)."""
        targets = _ctx_list(ctx)
        if not (self._data or self._deferred_init):
            raise MXNetValueError("Cannot reset context for Parameter '%s' because it has not been initialized."
                                  % self.name)
        if not self._data:
            pending = self._deferred_init
            self._deferred_init = (pending[0], targets) + tuple(pending[2:])
            return
        mean = self._reduce()
        with autograd.pause():
            self._init_impl(mean, targets)

    def set_data(self, data):
        """Set the value on every context (kept for the first forward pass when initialization is deferred)."""
        self.shape = data.shape
        if self._data is None:
            _check(self._deferred_init, "Parameter '%s' has not been initialized" % self.name)
            self._deferred_init = tuple(self._deferred_init[:3]) + (data,)
            return
        trainer = self._trainer
        # a kvstore that updates the weights holds its own copy: make the trainer push the new value again
        stale_store = trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore
        if stale_store and self not in trainer._params_to_init:
            trainer._reset_kvstore()
        value = data._t if isinstance(data, NDArray) else from_host(np.asarray(data))
        value = value.detach()
        with torch.no_grad():
            for arr in self._data:
                if type(arr) is NDArray:
                    # through .data, which torch's version counter does not see: a recorded graph that saved this
                    # parameter reads the new value at backward, as MXNet's does (spectral norm's power iteration
                    # sets its vector under autograd.pause() after using it), instead of failing torch's check
                    arr._t.data.copy_(value)
                    kernels.forget_kept(arr._t)
                else:  # sparse storage keeps compressed parts keyed on the version counter
                    arr._t.copy_(value)

    def row_sparse_data(self, row_id):
        """Only for row_sparse parameters (raises here, as MXNet)."""
        raise MXNetError('Cannot return a copy of Parameter %s via row_sparse_data() because its storage type is '
                         '%s. Please use data() instead.' % (self.name, self._stype))

    def list_row_sparse_data(self, row_id):
        """Only for row_sparse parameters (raises here, as MXNet)."""
        raise MXNetError("Cannot return copies of Parameter '%s' on all contexts via list_row_sparse_data() "
                         "because its storage type is %s. Please use data() instead." % (self.name, self._stype))

    def data(self, ctx=None):
        """The NDArray on ``ctx`` (the only one when the parameter lives on one context)."""
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The NDArrays on all contexts, in initialization order."""
        return self._check_and_get(self._data, list)

    def _grads(self):
        if self._grad is None and self._data is not None:
            raise MXNetError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % self.name)
        return self._grad

    def grad(self, ctx=None):
        """The gradient NDArray on ``ctx``."""
        return self._check_and_get(self._grads(), ctx)

    def list_grad(self):
        """The gradient NDArrays on all contexts."""
        return self._check_and_get(self._grads(), list)

    def list_ctx(self):
        """The contexts the parameter is (or will be, once deferred initialization finishes) on."""
        if self._data is not None:
            return self._ctx_list
        if not self._deferred_init:
            raise MXNetError("Parameter '%s' has not been initialized" % self.name)
        return self._deferred_init[1]

    def zero_grad(self):
        """Set the gradient buffers to 0 (nothing when uninitialized or ``grad_req='null'``)."""
        if self._grad is None:
            return
        if self._grad_stype == 'default':
            for g in self._grad:
                g._t.zero_()
            return
        # a row_sparse gradient may have been replaced by a kvstore pull: zero the leaf's buffer and point it there
        for arr, g in zip(self._data, self._grad):
            buf = arr._t.grad
            if buf is None or buf.layout is not torch.strided:  # (none, or the rows a sparse gradient held)
                buf = arr._t.grad = torch.zeros_like(arr._t.detach())
            else:
                buf.zero_()
            g._t = buf

    def var(self):
        """The Symbol variable of this parameter (with its shape, dtype, lr/wd multipliers and init); a NumPy
        symbol (``mx.sym.np._Symbol``) under NumPy array semantics, as in MXNet."""
        if self._var is None:
            self._var = _symbol.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                    wd_mult=self.wd_mult, init=self.init, stype=self._stype)
        return _as_np_symbol(self._var) if is_np_array() else self._var

    def cast(self, dtype):
        """Cast data and gradient to ``dtype``."""
        self._dtype = dtype
        if self._data is None:
            return
        target = _dtype(dtype)
        with autograd.pause():
            old_grads = self._grad
            self._data = [self._wrap_data(a._t.detach().to(target), a._ctx) for a in self._data]
            if old_grads is not None:
                sparse = self._grad_stype == 'row_sparse'
                self._grad = [_grad_array(arr, self._grad_req, g._t.detach().to(target), sparse)
                              for arr, g in zip(self._data, old_grads)]


class _RowSparseParameter(Parameter):
    """A Parameter with ``stype='row_sparse'`` (Parameter.__init__ switches to this class): its arrays are
    RowSparseNDArrays read through ``row_sparse_data``; its Trainer keeps the full value in a kvstore."""

    def _wrap_data(self, t, ctx):
        return _sparse.cast_storage(NDArray._from_tensor(t, ctx), 'row_sparse')

    def _set_trainer(self, trainer):
        if self._trainer is not None and trainer is not None and self._trainer is not trainer:
            raise MXNetError("Failed to set the trainer for Parameter '%s' because it was already set. More than one "
                             "trainers for a %s Parameter is not supported." % (self.name, self._stype))
        self._trainer = trainer

    def data(self, ctx=None):
        """Raises, as MXNet: use ``row_sparse_data``."""
        raise MXNetError("Cannot return a copy of Parameter '%s' on ctx %s via data() because its storage type is "
                         "%s. Please use row_sparse_data() instead." % (self.name, str(ctx), self._stype))

    def list_data(self):
        """Raises, as MXNet: use ``list_row_sparse_data``."""
        raise MXNetError("Cannot return copies of Parameter '%s' on all contexts via list_data() because its storage "
                         "type is %s. Please use row_sparse_data() instead." % (self.name, self._stype))

    def row_sparse_data(self, row_id):
        """The parameter's array on ``row_id``'s context, holding (after a pull from the Trainer's kvstore) only the
        rows ``row_id`` names."""
        return self._get_row_sparse(row_id.context if isinstance(row_id, NDArray) else None, row_id)

    def list_row_sparse_data(self, row_id):
        """The parameter's arrays on all contexts, each holding only the rows ``row_id`` names."""
        return self._get_row_sparse(list, row_id)

    def _get_row_sparse(self, ctx, row_id):
        if not isinstance(row_id, NDArray):
            raise MXNetTypeError('row_id must have NDArray type, but %s is given' % type(row_id))
        if not self._trainer:
            raise MXNetError("Cannot get row_sparse data for Parameter '%s' when no Trainer is created with it."
                             % self.name)
        results = self._check_and_get(self._data, ctx)
        fresh = [arr._fresh_grad for arr in self._data]
        self._trainer._row_sparse_pull(self, results, row_id)
        if self._grad is not None:
            # the pull gave the arrays new values: make them autograd variables again (same gradient arrays)
            for arr, grad, flag in zip(self._data, self._grad, fresh):
                if not arr._t.requires_grad and arr._t.is_floating_point():
                    _wire_grad(arr, self._grad_req, grad)
                    arr._fresh_grad = flag
        return results

    def _reduce(self):
        """The full value on cpu: pulled from the Trainer's kvstore (as MXNet), else the mean of the copies."""
        if self._trainer is None:
            mean = Parameter._reduce(self)
            return _sparse.cast_storage(mean, 'row_sparse')
        out = _sparse.zeros('row_sparse', self.shape, ctx=cpu(), dtype=self.dtype)
        self._trainer._row_sparse_pull(self, out, _nd.arange(0, self.shape[0], dtype='int64', ctx=cpu()),
                                       full_idx=True)
        return out


def _check_np_stype(name, stype):
    """NumPy mode has dense arrays only: a sparse parameter or gradient raises (ValueError, as in MXNet)."""
    if stype != 'default':
        raise MXNetValueError("Parameter '%s': storage type %r under NumPy array semantics (mx.np arrays are dense "
                              "only)" % (name, stype))


def _dtype(dtype):
    return to_torch_dtype(dtype)


def _constant_initializer(value):
    """An Initializer class that copies ``value`` (MXNet registers one per Constant, under a unique name)."""
    class _CopyValue(initializer.Initializer):
        def _init_weight(self, _, arr):
            value.copyto(arr)
    return _CopyValue


class Constant(Parameter):
    """A parameter that autograd and the Trainer never change (``grad_req`` is always ``'null'``)."""

    def __init__(self, name, value):
        if not isinstance(value, NDArray):
            value = _mx_np.array(value) if is_np_array() else _nd.array(value)
        self.value = value
        # the symbol variable names the registered initializer in its ``__init__`` attribute
        init_name = 'Constant_{}_{}'.format(name, id(self))
        initializer.alias(init_name)(_constant_initializer(self.value))
        super().__init__(name, grad_req='null', shape=self.value.shape, dtype=self.value.dtype, init=init_name)

    def __repr__(self):
        return 'Constant %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    def _set_grad_req(self, req):
        self._grad_req = 'null'
        if req == 'null':
            return
        warnings.warn('Constant parameter "{}" does not support grad_req other than "null", and new value "{}" '
                      'is ignored.'.format(self.name, req))

    grad_req = property(lambda self: 'null', _set_grad_req)


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
        self._params = OrderedDict()
        self._prefix, self._shared = prefix, shared

    @property
    def prefix(self):
        return self._prefix

    def __repr__(self):
        body = '\n'.join(_indent('  {0}'.format(param), 2) for param in self.values())
        head = self._prefix + ' ' if self._prefix else ''
        return '{}(\n{}\n)'.format(head, body)

    # read-only mapping interface over the underlying OrderedDict
    def __contains__(self, key):
        return key in self._params

    def __iter__(self):
        return iter(self._params)

    def __getitem__(self, key):
        return self._params[key]

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    def items(self):
        return self._params.items()

    def _get_impl(self, name):
        """The Parameter ``name`` from here, else from ``shared`` (then remembered here), else None."""
        found = self._params.get(name)
        if found is None and self._shared is not None:
            found = self._shared._params.get(name)
            if found is not None:
                self._params[name] = found
        return found

    @staticmethod
    def _reconcile(name, param, attr, wanted):
        """Check (or fill in) one attribute of the existing Parameter ``name`` that ``get`` was asked for."""
        stored = getattr(param, attr, None)
        if stored is None:
            setattr(param, attr, wanted)
            return
        if wanted is None:
            return
        if attr == 'shape':
            wanted = (wanted,) if isinstance(wanted, int) else tuple(wanted)
            merged = _merge_shape(wanted, stored)
            if merged is not None:
                param._shape = merged
                return
        elif attr == 'dtype' and np.dtype(wanted) == np.dtype(stored):
            return
        _check(wanted == stored,
               "Cannot retrieve Parameter '%s' because desired attribute does not match with stored for "
               "attribute '%s': desired '%s' vs stored '%s'." % (name, attr, str(wanted), str(stored)))

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``: existing (here or in ``shared``, checked against ``kwargs``, unknown
        shape dims merged) or new."""
        full = self.prefix + name
        param = self._get_impl(full)
        if param is None:
            param = self._params[full] = Parameter(full, **kwargs)
            return param
        for attr, wanted in kwargs.items():
            self._reconcile(full, param, attr, wanted)
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name`` (created with ``value`` when it does not exist yet)."""
        full = self.prefix + name
        param = self._get_impl(full)
        if param is not None:
            if value is not None:
                _check(isinstance(param, Constant), "Parameter '{}' already exists but it is not a constant."
                       .format(full))
                given = value.asnumpy() if isinstance(value, NDArray) else value
                _check(param.shape == np.shape(given) and (param.value.asnumpy() == given).all(),
                       "Constant '{}' already exists but it's value doesn't match new value".format(full))
            return param
        if value is None:
            raise KeyError("No constant named '{}'. Please specify value if you want to create a new "
                           "constant.".format(full))
        param = self._params[full] = Constant(full, value)
        return param

    def update(self, other):
        """Add the Parameters of ``other`` (a name may only map to the same Parameter)."""
        clashes = [k for k, v in other.items() if k in self._params and self._params[k] is not v]
        _check(not clashes, "Cannot update self with other because they have different Parameters with the same "
               "name '%s'" % (clashes[0] if clashes else ''))
        self._params.update(other.items())

    def _each(self, method, *args, **kwargs):
        for param in self.values():
            getattr(param, method)(*args, **kwargs)

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """Initialize every Parameter (``init`` is the default for those without their own ``init``)."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        self._each('initialize', None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set all gradient buffers to 0."""
        self._each('zero_grad')

    def reset_ctx(self, ctx):
        self._each('reset_ctx', ctx)

    def list_ctx(self):
        return list({ctx for param in self.values() for ctx in param.list_ctx()})

    def setattr(self, name, value):
        """Set attribute ``name`` (``grad_req``, ``lr_mult`` ...) of every Parameter."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=''):
        """Save to an MXNet .params file, keys being the names without ``strip_prefix``."""
        arrays = {}
        for param in self.values():
            mean = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise MXNetValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' does not start with '%s'. "
                    "this may be due to your Block shares parameters from other Blocks or you forgot to use "
                    "'with name_scope()' when creating child blocks. %s"
                    % (strip_prefix, param.name, strip_prefix, _NAMING_HELP))
            arrays[param.name[len(strip_prefix):]] = mean
        _nd_save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix='', cast_dtype=False,
             dtype_source='current'):
        """Load an MXNet .params file (``arg:``/``aux:`` key prefixes are dropped; ``restore_prefix`` is
        prepended)."""
        foreign = [name for name in self.keys() if not name.startswith(restore_prefix)] if restore_prefix else []
        _check(not foreign, "restore_prefix is '%s' but Parameters name '%s' does not start with '%s'. %s"
               % (restore_prefix, foreign[0] if foreign else '', restore_prefix, _NAMING_HELP))
        self.load_dict(_nd_load(filename), ctx, allow_missing, ignore_extra, restore_prefix, filename, cast_dtype,
                       dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix='',
                  filename=None, cast_dtype=False, dtype_source='current'):
        """Load from a dict of NDArrays (keys as in a .params file)."""
        if isinstance(param_dict, list) and not param_dict:
            param_dict = {}  # (a file of no arrays reads as an empty list: a parameterless export's)
        if not isinstance(param_dict, dict):
            raise MXNetTypeError('load_dict: expected a dict of NDArrays, got %s' % type(param_dict).__name__)
        cut = len(restore_prefix)
        loaded = {}
        for key, arr in param_dict.items():
            bare = key[4:] if key[:4] in ('arg:', 'aux:') else key
            loaded[restore_prefix + bare] = arr
        source = 'file: %s' % filename if filename else 'param_dict'
        missing = [] if allow_missing else [name for name in self.keys() if name not in loaded]
        _check(not missing, "Parameter '%s' is missing in %s, which contains parameters: %s. Please make sure source "
               "and target networks have the same prefix.%s"
               % (missing[0][cut:] if missing else '', source, _brief_print_list(loaded.keys()), _NAMING_HELP))
        for name, arr in loaded.items():
            if name in self._params:
                self._params[name]._load_init(arr, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
                continue
            _check(ignore_extra, "Parameter '%s' loaded from %s is not present in ParameterDict, choices are: %s. "
                   "Set ignore_extra to True to ignore. Please make sure source and target networks have the same "
                   "prefix.%s" % (name[cut:], source, _brief_print_list(self._params.keys()), _NAMING_HELP))


def _nd_save(filename, data):
    save(filename, data)


def _nd_load(filename):
    """The arrays of a parameter file. Under NumPy array semantics they are ``mx.np`` arrays, and files written
    with or without NumPy shape semantics both load (MXNet retries a legacy file with those semantics off)."""
    if not is_np_array():
        return load(filename)
    loaded = _wrap_all(_codec.load_file(filename, np_shape=None))
    if isinstance(loaded, dict):
        return {k: to_np(v) for k, v in loaded.items()}
    return [to_np(v) for v in loaded]
