"""NDArray: MXNet's n-dimensional array, wrapping one ``torch.Tensor``.

Differs from MXNet: data lives in a torch tensor (``NDArray.to_torch()`` gives it without a copy); ``cpu(i)``
labels are kept but all share the torch CPU device. Arithmetic follows MXNet's rules, not torch's: both operands
of a binary op must have the same dtype (not bool), a Python scalar is cast to the array's dtype (a bool array with a
scalar computes in int64), integer division truncates, comparisons return the input dtype, and a result with no axes
is given shape ``(1,)``. The operators (``a + b``, ``a + 2``, ``a += b`` ...) are the registry's operators
(``broadcast_add``, ``_plus_scalar`` ...), as in MXNet; unlike MXNet's they also take a numpy array operand,
converted to the array's dtype (MXNet raises TypeError).
"""
import operator

import numpy as np
import torch

from .. import engine
from .. import kernels
from .. import _profstate
from .. import _intgrad
from .._intgrad import _IntGradTensor
from .._recording import STATE as _STATE, track_recorded as _track_recorded
from ..base import (MXNetError, MXNetValueError, MXNetTypeError, MXNetIndexError, numeric_types, to_torch_dtype,
                    to_np_dtype, from_host)
from ..context import Context, current_context, cpu
from ..operator import registry as _registry
from ..operator.elemwise import (broadcast_error as _broadcast_error, scalar_as as _scalar_as,
                                  check_binary as _check_binary, op_error as _op_error)
from . import _codec
from ..operator.shape_ops import infer_reshape, _numel

__all__ = ['NDArray', 'array', 'empty', 'zeros', 'ones', 'full', 'arange', 'eye', 'linspace', 'concatenate',
           'cast_storage', 'waitall', 'moveaxis', 'from_numpy', 'from_torch', 'from_dlpack', 'to_dlpack_for_read',
           'to_dlpack_for_write', 'onehot_encode']

_PROF = _profstate.FLAGS
_STORAGE_TYPE_STR_TO_ID = {'undefined': -1, 'default': 0, 'row_sparse': 1, 'csr': 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
py_slice = slice  # MXNet's name for the builtin (``nd.slice`` is an operator)
_object_new = object.__new__

# Modules of this package that import this one (op and _internal are generated over NDArray; the sparse package's
# arrays subclass it): mxcompat/ndarray/__init__.py binds them here once it has imported them, before any of
# them can be called, so the functions below read module globals and import nothing.
_op = _internal = _sparse = None


def _wrap(t, ctx):
    """A new NDArray around tensor ``t``. Outside ``autograd.record()`` the result carries no graph (MXNet)."""
    a = _object_new(NDArray)
    if t.requires_grad:
        if _STATE.recording:
            _track_recorded(a)
        else:
            t = t.detach()
    a._t = t
    a._ctx = ctx
    return a



_IN_GRAPH = ('Assigning to NDArrays that are already in a computational graph (an attach_grad variable or a result '
             'recorded by autograd.record()) is not supported inside record(): call backward first or write outside '
             'the record section (x[...] = v, x += v, out=x)')
_INPLACE = 'Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with autograd.'


def _check_recorded_write(t, src, key, reads=False):
    """MXNet's two refusals of a write into ``t`` (an array's data) under ``record()``: ``t`` already in the graph
    (a variable or a recorded result), or ``src`` (the value, a tensor or a scalar) in the graph while the write also
    reads ``t``: an in-place operator (``reads``) or an assignment ``t[key] = src`` to part of ``t``. A value written
    over all of ``t`` (``x[:] = y``, ``x[...] = y``) is a recorded copy, as MXNet's, and passes."""
    if t.requires_grad or isinstance(t, _IntGradTensor):
        raise MXNetError(_IN_GRAPH)
    if (isinstance(src, torch.Tensor) and (src.requires_grad or isinstance(src, _IntGradTensor))
            and (reads or not _covers_all(key, t.shape))):
        raise MXNetError(_INPLACE)


# ---- arithmetic: NDArray's operators and mx.nd.add, subtract ... ----------------------------------------------------
# As in MXNet (its ndarray.py's _ufunc_helper), each is one of the registry's operators: two arrays go to the broadcast
# operator, an array and a number to the scalar operator with float(number) (the number before the array: its
# reflected form, which is the same operator where it commutes), two numbers to a Python function. The operators'
# functions are looked up once, here, so the usual calls (two arrays of one dtype, an array and an int or float) run
# the registry's computation inline without going through mx.nd's functions.
_ARITH = {  # name: (operator for two arrays, array op scalar, scalar op array (None: the same), two numbers)
    'add': ('broadcast_add', '_plus_scalar', None, operator.add),
    'subtract': ('broadcast_sub', '_minus_scalar', '_rminus_scalar', operator.sub),
    'multiply': ('broadcast_mul', '_mul_scalar', None, operator.mul),
    'divide': ('broadcast_div', '_div_scalar', '_rdiv_scalar', operator.truediv),
    'modulo': ('broadcast_mod', '_mod_scalar', '_rmod_scalar', operator.mod),
    'power': ('broadcast_power', '_power_scalar', '_rpower_scalar', operator.pow),
    'maximum': ('broadcast_maximum', '_maximum_scalar', None, lambda x, y: x if x > y else y),
    'minimum': ('broadcast_minimum', '_minimum_scalar', None, lambda x, y: x if x < y else y),
    'equal': ('broadcast_equal', '_equal_scalar', None, lambda x, y: 1 if x == y else 0),
    'not_equal': ('broadcast_not_equal', '_not_equal_scalar', None, lambda x, y: 1 if x != y else 0),
    'greater': ('broadcast_greater', '_greater_scalar', '_lesser_scalar', lambda x, y: 1 if x > y else 0),
    'greater_equal': ('broadcast_greater_equal', '_greater_equal_scalar', '_lesser_equal_scalar',
                      lambda x, y: 1 if x >= y else 0),
    'lesser': ('broadcast_lesser', '_lesser_scalar', '_greater_scalar', lambda x, y: 1 if x < y else 0),
    'lesser_equal': ('broadcast_lesser_equal', '_lesser_equal_scalar', '_greater_equal_scalar',
                     lambda x, y: 1 if x <= y else 0),
    'logical_and': ('broadcast_logical_and', '_logical_and_scalar', None, lambda x, y: 1 if x and y else 0),
    'logical_or': ('broadcast_logical_or', '_logical_or_scalar', None, lambda x, y: 1 if x or y else 0),
    'logical_xor': ('broadcast_logical_xor', '_logical_xor_scalar', None, lambda x, y: 1 if bool(x) ^ bool(y) else 0),
}
_BOOL = torch.bool


def _arith(name):
    """For ``name`` of _ARITH: the method ``self (op) other``, the method ``other (op) self`` and the mx.nd function
    of two arrays and/or numbers. While mx.profiler runs, a call is a range named after the operator."""
    array_op, scalar_op, rscalar_op, numbers = _ARITH[name]
    impl = _registry.get(array_op).impl
    scalar = _registry.get(scalar_op).impl
    general = _arith_general(impl, scalar)
    method = _arith_method(array_op, scalar_op, impl.compute, scalar, general)
    rmethod = _arith_rmethod(rscalar_op or scalar_op, _registry.get(rscalar_op or scalar_op).impl, general)

    def function(lhs, rhs):
        if isinstance(lhs, NDArray):
            return method(lhs, rhs)
        if isinstance(rhs, NDArray):
            return rmethod(rhs, lhs)
        if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
            return numbers(lhs, rhs)
        raise MXNetTypeError('type %s not supported' % str(type(rhs)))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = ('Elementwise %s of two arrays (%s, with broadcasting), an array and a number (%s) or two '
                        'numbers.' % (name, array_op, scalar_op))
    return method, rmethod, function


def _arith_general(impl, scalar):
    """``self (op) other`` for any ``other``, through the registry's implementations ``impl`` (two arrays) and
    ``scalar`` (an array and a number)."""
    def general(self, other):
        t = self._t
        if isinstance(other, NDArray):
            if type(other) is not NDArray:  # a sparse array: its dense values
                other = other.tostype('default')
            return _wrap(impl(t, other._t), self._ctx)
        if isinstance(other, numeric_types):
            return _wrap(scalar(t, float(other), True), self._ctx)
        if isinstance(other, np.ndarray):
            return general(self, array(other, ctx=self._ctx, dtype=self.dtype))
        raise MXNetTypeError('type %s not supported' % str(type(other)))
    return general


def _arith_method(array_op, scalar_op, compute, scalar, general):
    """``self (op) other``: two arrays of one dtype (not bool) run the operator's computation inline, an int or a
    float its scalar operator's implementation; anything else goes to ``general``."""
    def method(self, other):
        if _PROF.imperative:
            return _profstate.run(array_op if isinstance(other, NDArray) else scalar_op, general, self, other)
        t = self._t
        if type(other) is NDArray:
            o = other._t
            d = t.dtype
            if o.dtype is not d or d is _BOOL:
                _check_binary(array_op, t, o)  # (raises the operator's error)
            try:
                r = compute(t, o)
            except RuntimeError as e:
                raise _broadcast_error(array_op, t, o, e) from None
        elif type(other) is float or type(other) is int:
            r = scalar(t, float(other), True)
        else:
            return general(self, other)
        a = _object_new(NDArray)
        if r.requires_grad:
            if _STATE.recording:
                _track_recorded(a)
            else:
                r = r.detach()
        a._t = r
        a._ctx = self._ctx
        return a
    return method


def _arith_rmethod(rscalar_op, rscalar, general):
    """``other (op) self``: a number goes to the reflected scalar operator's implementation ``rscalar``."""
    def rgeneral(self, other):
        if isinstance(other, numeric_types):
            return _wrap(rscalar(self._t, float(other), True), self._ctx)
        if isinstance(other, np.ndarray):
            return general(array(other, ctx=self._ctx, dtype=self.dtype), self)
        raise MXNetTypeError('type %s not supported' % str(type(other)))

    def rmethod(self, other):
        if _PROF.imperative:
            return _profstate.run(rscalar_op, rgeneral, self, other)
        return rgeneral(self, other)
    return rmethod


_ARITH_FNS = {name: _arith(name) for name in _ARITH}


def _inplace(name):
    """The method ``self (op)= other`` for ``name`` of _ARITH: the operator's computation written into ``self``, as
    MXNet's ``op(self, other, out=self)``."""
    array_op, scalar_op = _ARITH[name][:2]
    impl = _registry.get(array_op).impl
    compute, compute_ = impl.compute, impl.compute_
    scalar = _registry.get(scalar_op).impl
    scompute, scompute_ = scalar.compute, scalar.compute_

    def imethod(self, other):
        t = self._t
        if type(other) is not NDArray:
            if isinstance(other, numeric_types):
                if t.dtype is _BOOL:
                    raise MXNetTypeError('Operator %s: a bool array with a number gives int64, which cannot be '
                                         'written back into the bool array' % scalar_op)
                s = _scalar_as(float(other), t.dtype)
                if _STATE.recording:
                    _check_recorded_write(t, s, None, reads=True)
                try:
                    _write_into(t, s, scompute, scompute_, t.requires_grad and not _STATE.recording)
                except RuntimeError as e:
                    raise _op_error(scalar_op, (t,), e) from None
                return self
            if isinstance(other, np.ndarray):
                other = array(other, ctx=self._ctx, dtype=self.dtype)
            elif not isinstance(other, NDArray):  # (an NDArray subclass, sparse: its dense values)
                raise MXNetTypeError('type %s not supported' % str(type(other)))
        o = other._t
        d = t.dtype
        if o.dtype is not d or d is _BOOL:
            _check_binary(array_op, t, o)
        if _STATE.recording:
            _check_recorded_write(t, o, None, reads=True)
            guard = False
        else:  # (outside record() the write joins no graph, through self or through other's values: MXNet)
            guard = t.requires_grad or o.requires_grad
        try:
            _write_into(t, o, compute, compute_, guard)
        except RuntimeError as e:
            raise _broadcast_error(array_op, t, o, e) from None
        return self
    return imethod


def _write_into(t, o, fn, fn_, no_grad):
    """``fn(t, o)`` written into ``t``: by ``fn_``, its in-place form, where there is one; with ``no_grad``,
    outside torch's graph."""
    if no_grad:
        with torch.no_grad():
            return _write_into(t, o, fn, fn_, False)
    if fn_ is not None:
        fn_(t, o)
    else:
        t.copy_(fn(t, o))


_NEGATIVE = _registry.get('negative').impl
_MUL_SCALAR = _registry.get('_mul_scalar').impl


class NDArray:
    """An n-dimensional array on a context, wrapping a ``torch.Tensor`` (``to_torch()``)."""

    __slots__ = ('_t', '_ctx', '__weakref__')
    __array_priority__ = 1000.0  # numpy defers to our reflected operators

    # -- construction ------------------------------------------------------------------------------------------
    def __init__(self, tensor, ctx=None):
        if tensor is None:  # MXNet's pickles call NDArray(None), then __setstate__
            self._t = torch.empty(0)
            self._ctx = cpu(0)
            return
        if not isinstance(tensor, torch.Tensor):
            raise MXNetTypeError('NDArray(tensor): expected a torch.Tensor, got %s; use mx.nd.array() to convert'
                                 % type(tensor).__name__)
        self._t = tensor
        self._ctx = ctx if ctx is not None else _ctx_of_tensor(tensor)

    @staticmethod
    def _from_tensor(t, ctx):
        a = _object_new(NDArray)
        a._t = t
        a._ctx = ctx
        return a

    def to_torch(self, internal=False):
        """The underlying ``torch.Tensor``, sharing memory with the array. mxcompat only. It is in the standard
        (C-contiguous) layout: where a kernel chose another for speed (channels-last convolution results on CPU),
        the array is re-laid out first, so it still shares memory with what it hands out (a leaf with an attached
        gradient gets a copy instead). ``internal=True`` gives the tensor as it is."""
        return self._t if internal else self._standard()

    def _standard(self):
        t = self._t
        if t.is_contiguous():
            return t
        if t.is_leaf and t.requires_grad:  # (re-laying out a leaf would cut it from its gradient)
            return kernels.standard_layout(t)
        t = self._t = kernels.standard_layout(t)
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # An NDArray passed to a torch function behaves as its tensor; results stay plain tensors.
        def unwrap(x):
            if isinstance(x, NDArray):
                return x._t
            if isinstance(x, (list, tuple)):
                return type(x)(unwrap(i) for i in x)
            return x
        return func(*unwrap(args), **{k: unwrap(v) for k, v in (kwargs or {}).items()})

    def __dlpack__(self, *args, **kwargs):
        return self._standard().detach().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    # -- properties ---------------------------------------------------------------------------------------------
    @property
    def shape(self):
        return tuple(self._t.shape)

    @property
    def size(self):
        return self._t.numel()

    @property
    def ndim(self):
        return self._t.dim()

    @property
    def dtype(self):
        return to_np_dtype(self._t.dtype)

    @property
    def context(self):
        return self._ctx

    ctx = context

    @property
    def stype(self):
        return 'default'

    @property
    def handle(self):
        return self._t

    @property
    def writable(self):
        return True

    @property
    def T(self):
        if self._t.dim() < 2:
            return self
        return _wrap(self._t.permute(*range(self._t.dim() - 1, -1, -1)).contiguous(), self._ctx)

    @property
    def grad(self):
        t = self._t
        g = t.grad if t.requires_grad else getattr(t, '_mx_int_grad', None)  # (the buffer of an integer variable)
        if g is None:
            return None
        if g.layout is torch.sparse_coo:  # (a sparse-gradient embedding's rows: MXNet's row_sparse gradient)
            rows, values = _sparse.summed_rows(g)
            out = _sparse.zeros('row_sparse', tuple(g.shape), ctx=self._ctx, dtype=self.dtype)
            out._assign_comps((values, rows))
            return out
        stype = getattr(t, '_mx_grad_stype', None)
        if stype is None:
            return NDArray._from_tensor(g, self._ctx)
        return _sparse.over_dense(g, stype, self._ctx)

    @property
    def _fresh_grad(self):
        """Whether a backward pass wrote this variable's gradient since the flag was last cleared."""
        return bool(getattr(self._t, '_mx_fresh_grad', False))

    @_fresh_grad.setter
    def _fresh_grad(self, state):
        self._t._mx_fresh_grad = bool(state)

    # -- conversion ---------------------------------------------------------------------------------------------
    def asnumpy(self):
        """A numpy copy of the data (waits for pending work)."""
        t = self._t
        if t.requires_grad:
            t = t.detach()
        if t.dtype is torch.bfloat16:
            t = t.float()
        if t.is_cuda:
            return t.cpu().numpy()
        return t.numpy().copy()  # host: not CUDA

    def asscalar(self):
        """The one element as a numpy scalar. Like MXNet, a one-element array of 2 or more dimensions gives back
        a numpy array of that shape (``asnumpy()[()]``)."""
        if self._t.numel() != 1:
            raise MXNetValueError('The current array is not a scalar')
        a = self.asnumpy()
        return a.reshape(())[()] if a.ndim <= 1 else a[()]

    def astype(self, dtype, copy=True):
        """A copy converted to ``dtype`` (with ``copy=False`` and the same dtype, ``self``)."""
        td = to_torch_dtype(dtype)
        if not copy and td is self._t.dtype:
            return self
        return _wrap(_intgrad.cast(self._t, td, copy=True), self._ctx)

    def copy(self):
        return _wrap(self._t.clone(), self._ctx)

    def copyto(self, other):
        """Copy into NDArray ``other`` (returned), or to a new array on Context ``other``."""
        if isinstance(other, NDArray):
            if other is self:
                return self  # MXNet warns and does nothing
            if other.shape != self.shape:
                raise MXNetValueError('copyto: shape mismatch %s vs %s' % (self.shape, other.shape))
            ot = other._t
            with torch.no_grad() if not _STATE.recording else _NULL:
                ot.copy_(self._t)
            return other
        if isinstance(other, Context):
            t, dev = self._t, other.torch_device
            if dev.type == 'cuda' and t.device.type == 'cpu':
                # from page-locked memory the copy is queued on a copy stream and the host goes on (MXNet's
                # engine did the same); torch keeps the source alive until the copy has run
                return _wrap(kernels.host_to_device(t, dev), other)
            if other.device_typeid == 3 and torch.cuda.is_available():  # cpu_pinned: page-locked where CUDA is
                return _wrap(torch.empty(t.shape, dtype=t.dtype, pin_memory=True).copy_(t), other)
            return _wrap(t.to(dev, copy=True), other)
        raise MXNetTypeError('copyto does not support type ' + str(type(other)))

    def as_in_context(self, context):
        """``self`` if already on ``context``, else a copy there."""
        if self._ctx == context:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context

    def as_np_ndarray(self):
        """This array as an ``mx.np.ndarray`` sharing its memory."""
        from ..numpy.multiarray import _as_np  # reason: mx.np is a layer above (imported on first use)
        return _as_np(self)

    def as_nd_ndarray(self):
        return self

    def tostype(self, stype):
        if stype == 'default':
            return self
        return _sparse.cast_storage(self, stype)

    def wait_to_read(self):
        engine.wait_tensor(self._t)

    def wait_to_write(self):
        engine.wait_tensor(self._t)

    def detach(self):
        return NDArray._from_tensor(self._t.detach(), self._ctx)

    def attach_grad(self, grad_req='write', stype=None):
        """Attach a zero gradient buffer (``grad_req`` 'write', 'add' or 'null') of storage type ``stype`` (by
        default the array's own). Differs from MXNet: a sparse gradient ('row_sparse', or 'csr' of a 2-D array)
        is computed dense and read as its nonzero rows or entries; MXNet's sparse kernels may also store
        entries that came out exactly zero. The values are the same."""
        grad_stype = self.stype if stype is None else stype
        if grad_stype not in ('default', 'row_sparse', 'csr'):
            raise MXNetValueError("attach_grad: stype must be 'default', 'row_sparse' or 'csr', got %r"
                                  % (grad_stype,))
        if grad_stype == 'csr' and self.ndim != 2:
            raise MXNetValueError('attach_grad: a csr gradient needs a 2-D array, got shape %s' % (self.shape,))
        from .. import autograd  # reason: mx.autograd (a layer above) makes variables; it imports this module
        autograd._attach(self, grad_req)
        if grad_stype != 'default':
            self._t._mx_grad_stype = grad_stype

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        from .. import autograd  # reason: mx.autograd (a layer above) runs backward; it imports this module
        autograd.backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)

    def to_dlpack_for_read(self):
        return torch.utils.dlpack.to_dlpack(self._standard().detach())

    def to_dlpack_for_write(self):
        return torch.utils.dlpack.to_dlpack(self._standard().detach())

    # -- printing, hashing, pickling ------------------------------------------------------------------------------
    def __repr__(self):
        shape_info = 'x'.join('%d' % x for x in self.shape)
        return '\n%s\n<%s %s @%s>' % (str(self.asnumpy()), self.__class__.__name__, shape_info, self._ctx)

    __str__ = __repr__

    def __hash__(self):
        return id(self) // 16

    def __reduce__(self):
        # MXNet's layout, NDArray(None) then {'handle': the raw array record}, so real MXNet reads the pickle when
        # the class is recorded under MXNet's name (the mxnet alias does that: see _alias.install_alias); 'ctx'
        # is ours (MXNet reads only 'handle')
        t = self._t.detach()
        raw = _codec.dumps_record(t, np_shape=t.dim() == 0)
        return (NDArray, (None,), {'handle': bytearray(raw), 'ctx': (self._ctx.device_type, self._ctx.device_id)})

    def __setstate__(self, state):
        # {'handle': raw NDArray record}, as MXNet pickles it (and 'ctx' when mxcompat wrote it)
        raw = state.get('handle') if isinstance(state, dict) else None
        if raw is None:
            raise MXNetError('NDArray: cannot unpickle state of type %s' % type(state).__name__)
        t = _codec.loads_record(raw)
        ctx = Context(*state['ctx']) if 'ctx' in state else cpu(0)
        self._t = t if ctx.device_type == 'cpu' else t.to(ctx.torch_device)
        self._ctx = ctx

    # -- python protocol ----------------------------------------------------------------------------------------
    def __len__(self):
        if self._t.dim() == 0:
            raise TypeError('len() of unsized object')
        return self._t.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self):
        n = self._t.numel()
        if n == 0:
            return False
        if n == 1:
            return bool(self._t.reshape(()).item())
        raise MXNetValueError('The truth value of an NDArray with multiple elements is ambiguous.')

    __nonzero__ = __bool__

    # -- arithmetic (see _arith) ---------------------------------------------------------------------------------
    __add__ = __radd__ = _ARITH_FNS['add'][0]  # (MXNet's x + y and y + x are both add(x, y))
    __sub__, __rsub__ = _ARITH_FNS['subtract'][:2]
    __mul__ = __rmul__ = _ARITH_FNS['multiply'][0]
    __truediv__, __rtruediv__ = __div__, __rdiv__ = _ARITH_FNS['divide'][:2]
    __mod__, __rmod__ = _ARITH_FNS['modulo'][:2]
    __pow__, __rpow__ = _ARITH_FNS['power'][:2]
    __eq__ = _ARITH_FNS['equal'][0]
    __ne__ = _ARITH_FNS['not_equal'][0]
    __gt__ = _ARITH_FNS['greater'][0]
    __ge__ = _ARITH_FNS['greater_equal'][0]
    __lt__ = _ARITH_FNS['lesser'][0]
    __le__ = _ARITH_FNS['lesser_equal'][0]

    __iadd__ = _inplace('add')
    __isub__ = _inplace('subtract')
    __imul__ = _inplace('multiply')
    __itruediv__ = __idiv__ = _inplace('divide')
    __imod__ = _inplace('modulo')

    def __neg__(self):
        # MXNet's -x is x * -1.0 (_mul_scalar, where a bool array gives int64); for every other dtype that is the
        # registry's negative, a cheaper kernel
        t = self._t
        return _wrap(_MUL_SCALAR(t, -1.0, True) if t.dtype is _BOOL else _NEGATIVE(t), self._ctx)

    def __abs__(self):
        return _op.abs(self)  # (MXNet's abs(x) is x.abs())

    # -- indexing ----------------------------------------------------------------------------------------------
    def __getitem__(self, key):
        t = self._t
        if type(key) is slice and key.step is None and t.dim():
            return _wrap(t[key], self._ctx)  # a basic slice of the first axis: a view, as in MXNet
        if type(key) is int:
            n = t.shape[0] if t.dim() else 0
            if not -n <= key < n:
                raise MXNetIndexError('index %d is out of bounds for axis 0 with size %d' % (key, n))
            r = t[key]
            if r.dim() == 0:
                r = r.reshape(1)
            return _wrap(r, self._ctx)
        flips = None
        if _has_neg_step(key):
            if _has_advanced(key):  # (the array flipped along those axes, indexed with positive steps)
                key, axes = _unflip_key(key, t.shape)
                t = t.flip(axes)
            else:
                key, flips = _positive_steps(key, t.shape)
        k = _index_key(key, t)
        try:
            r = t[k]
            if flips:
                r = r.flip(flips)
        except IndexError as e:
            raise MXNetIndexError(str(e).replace('dimension', 'axis')) from None
        except (RuntimeError, TypeError) as e:
            raise MXNetIndexError('NDArray of shape %s: invalid index %r (%s)' % (self.shape, key, e)) from None
        if r.dim() == 0:
            r = r.reshape(1)
        elif not r.is_contiguous():
            r = r.contiguous()  # MXNet copies for non-contiguous slices; only contiguous basic slices are views
        return _wrap(r, self._ctx)

    def __setitem__(self, key, value):
        t = self._t
        if type(key) is slice and key == _FULL and type(value) in (int, float) and not t.requires_grad:
            t.fill_(value if t.is_floating_point() else _scalar_as(value, t.dtype))
            return
        if isinstance(value, NDArray):
            v = value._t
            if v.dtype is not t.dtype:
                v = v.to(t.dtype)
        elif isinstance(value, numeric_types):
            v = value.item() if isinstance(value, np.generic) else value
        elif isinstance(value, (np.ndarray, list, tuple)):
            v = from_host(np.asarray(value)).to(dtype=t.dtype, device=t.device)
        elif isinstance(value, torch.Tensor):
            v = value.to(t.dtype)
        else:
            raise MXNetTypeError('NDArray does not support assignment with %s of type %s'
                                 % (str(value), str(type(value))))
        recording = _STATE.recording
        if recording:  # (MXNet's refusals of writes into the recorded graph)
            _check_recorded_write(t, value._t if isinstance(value, NDArray) else v, key)
        if _has_neg_step(key):
            if _has_advanced(key):
                return _assign_flipped(self, key, value)
            key, v = _flipped_value(key, v, t)
        k = _index_key(key, t)
        guard = t.requires_grad and not recording
        try:
            if guard:
                with torch.no_grad():
                    _assign(t, k, v)
            else:
                _assign(t, k, v)
        except IndexError as e:
            raise MXNetIndexError(str(e).replace('dimension', 'axis')) from None
        except RuntimeError as e:
            raise MXNetValueError('NDArray of shape %s: cannot assign value of shape %s at index %r (%s)'
                                  % (self.shape, tuple(getattr(v, 'shape', ())), key,
                                     str(e).splitlines()[0])) from None

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key, shape):
        """Whether basic index ``slc_key`` selects one contiguous block of a C-ordered array of ``shape``."""
        # strides of a C-contiguous array over a one-byte buffer: numpy computes the flag without touching data
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * max(shape[i + 1], 1)
        view = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape=tuple(shape), strides=tuple(strides))
        return bool(view[slc_key].flags.contiguous)

    def expand_dims(self, axis, inplace=False):
        """Insert an axis; ``inplace=True`` returns a view sharing memory (as MXNet's)."""
        if inplace:
            return _wrap(self._t.unsqueeze(axis), self._ctx)
        return _op.expand_dims(self, axis=axis)

    def flatten(self, inplace=False):
        """Collapse all axes but the first; ``inplace=True`` returns a view."""
        if inplace:
            return _wrap(self._t.reshape(self._t.shape[0], -1), self._ctx)
        return _op.flatten(self)

    def squeeze(self, axis=None, inplace=False):
        """Remove size-1 axes; ``inplace=True`` returns a view."""
        if not inplace:
            return _op.squeeze(self, axis=axis)
        shape = self.shape
        axes = range(len(shape)) if axis is None else [a % len(shape) for a in
                                                       ((axis,) if isinstance(axis, int) else axis)]
        drop = {a for a in axes if shape[a] == 1}
        new = tuple(d for i, d in enumerate(shape) if i not in drop) or (1,)
        return _wrap(self._t.view(new), self._ctx)

    def split_v2(self, indices_or_sections, axis=0, squeeze_axis=False):
        return split_v2(self, indices_or_sections, axis, squeeze_axis)

    def _slice(self, start, stop):
        return _wrap(self._t[start:stop], self._ctx)

    def _at(self, idx):
        return _wrap(self._t[idx], self._ctx)

    def slice_assign_scalar(self, value, begin, end, step):
        self[_begin_end_key(begin, end, step)] = value
        return self

    def slice_assign(self, rhs, begin, end, step):
        self[_begin_end_key(begin, end, step)] = rhs
        return self

    # -- shape (methods whose semantics differ from the ops of the same name) -------------------------------------
    def reshape(self, *shape, **kwargs):
        """A view with a new shape; MXNet's special codes 0, -1, -2, -3, -4 and ``reverse=True`` work. As MXNet's:
        -1 takes the size floor-divided by the other dims; a target with fewer elements raises ValueError, one with
        more MXNetError."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        elif not shape:
            shape = kwargs.get('shape')
            assert shape, 'Shape must be provided.'
        unknown = [k for k in kwargs if k not in ('shape', 'reverse')]
        if unknown:
            raise TypeError("Got unknown keywords in reshape: {}. Accepted keyword arguments are 'shape' and "
                            "'reverse'.".format(', '.join(unknown)))
        new = infer_reshape(self.shape, tuple(shape), kwargs.get('reverse', False), exact=False)
        size, target = self.size, _numel(new)
        if target != size:
            if target > size:
                raise MXNetError('NDArray.Reshape: Check failed: shape_.Size() >= shape.Size() (%d vs. %d) : target '
                                 'shape size is larger than the current shape' % (size, target))
            raise ValueError('Cannot reshape array of size {} into shape {}'.format(size, shape))
        t = self._t
        return _wrap(t.view(new) if t.is_contiguous() else t.reshape(new), self._ctx)

    def broadcast_to(self, shape):
        return _op.broadcast_to(self, shape=shape)


_NULL = __import__('contextlib').nullcontext()


# (pickles written by mxcompat before MXNet's layout was adopted name this function)
def _unpickle(data, dev_type, dev_id):
    return array(data, ctx=Context(dev_type, dev_id), dtype=data.dtype)


def _ctx_of_tensor(t):
    return Context('gpu', t.device.index or 0) if t.device.type == 'cuda' else cpu(0)


def waitall():
    """Wait for all pending work to finish; raise the first error an operator deferred (see ``engine.py``) that no
    read has raised yet, and forget the others, as MXNet does."""
    engine.waitall()


# ---- functions of arrays or numbers on either side (MXNet's nd.add, nd.maximum ...: see _arith, in _ARITH's order) --
add, subtract, multiply, divide, modulo, power, maximum, minimum, equal, not_equal, greater, greater_equal, lesser, \
    lesser_equal, logical_and, logical_or, logical_xor = (_ARITH_FNS[n][2] for n in _ARITH)
true_divide = divide

__all__ += ['add', 'subtract', 'multiply', 'divide', 'true_divide', 'modulo', 'power', 'maximum', 'minimum',
            'equal', 'not_equal', 'greater', 'greater_equal', 'lesser', 'lesser_equal', 'logical_and',
            'logical_or', 'logical_xor']


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split into equal sections (an int) or at the given indices (a tuple), as numpy's split."""
    if isinstance(indices_or_sections, int):
        n = ary.shape[axis]
        if n % indices_or_sections:
            raise MXNetValueError('array split does not result in an equal division')
        step = n // indices_or_sections
        indices = [i * step for i in range(indices_or_sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise MXNetValueError('indices_or_sections must either int or tuple of ints')
    return _internal._split_v2(ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis,
                               sections=0)


__all__ += ['split_v2', 'CachedOp']


class CachedOp:
    """A Symbol compiled once and called on NDArrays: ``op(*inputs, out=None, default_ctx=None)``, inputs in
    ``sym.list_inputs()`` order. It runs as a hybridized block does (``symbol/runner.py``): common subexpressions
    merged, view results contiguous, outputs never sharing memory with an input unless they are that input, as in
    MXNet, whose HybridBlock runs this class. ``flags`` (MXNet's ``static_alloc`` ...) are accepted and have no
    effect; ``default_ctx`` places what operators without inputs create when no input is given."""

    def __init__(self, sym, flags=()):
        from ..symbol import runner  # reason: the symbol package imports this module
        self._sym = sym
        self._runner = runner.compile(sym)
        names = sym.list_inputs()
        self._perm = [names.index(n) for n in self._runner.input_names]

    def __call__(self, *args, **kwargs):
        out = kwargs.pop('out', None)
        default_ctx = kwargs.pop('default_ctx', None)
        if kwargs:
            raise MXNetTypeError('CachedOp: unknown arguments %s' % sorted(kwargs))
        if len(args) != len(self._perm):
            raise MXNetValueError('CachedOp: %d inputs given, the symbol takes %d (%s)'
                                  % (len(args), len(self._perm), ', '.join(self._sym.list_inputs())))
        ctx = args[0]._ctx if args else default_ctx or current_context()
        res = self._runner([args[i]._t for i in self._perm], ctx)
        outs = [_wrap(r, ctx) for r in res]
        if out is not None:
            outs_list = out if isinstance(out, (list, tuple)) else [out]
            for o, r in zip(outs_list, outs):
                o[:] = r
            return out
        return outs[0] if len(outs) == 1 else outs


# The indexing and creation modules import names defined above from this one, so they come last; every public
# name they define is this module's too (MXNet's mxnet.ndarray.ndarray.zeros, .array ...).
from ._indexing import (_FULL, _assign, _begin_end_key, _index_key, _has_neg_step, _has_advanced,  # noqa: E402
                        _unflip_key, _assign_flipped, _flipped_value, _positive_steps, _covers_all)
from ._creation import (array, empty, zeros, ones, full, arange, eye, linspace, concatenate,  # noqa: E402
                        cast_storage, moveaxis, onehot_encode, from_numpy, from_torch, from_dlpack,
                        to_dlpack_for_read, to_dlpack_for_write)
