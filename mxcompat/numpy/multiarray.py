"""``mx.np.ndarray``: MXNet's NumPy-compatible array, a subclass of ``NDArray`` over the same ``torch.Tensor``.

Its semantics are MXNet 1.9.1's NumPy interface, not legacy ``mx.nd``'s: creation functions default to float32
(float64 after ``npx.set_np(dtype=True)``), reductions and scalar indexing give 0-d arrays, zero-size arrays are
allowed, binary operators broadcast and promote mixed dtypes (MXNet's table, which differs from NumPy's in places:
``int64 + float32`` is float32, ``uint8 + int8`` int32), a Python scalar takes the array's dtype (``int32 * 2.5``
multiplies by 2), true division of integers gives float32, and comparisons give bool. An ``mx.np`` and an ``mx.nd``
array in one operator raise ``TypeError`` as in MXNet.
"""
import numbers
import re
import warnings

import numpy as _np
import torch

from .. import _intgrad
from .. import autograd as _ag
from .._recording import track_recorded as _track_recorded
from ..base import (MXNetError, MXNetValueError, MXNetIndexError, MXNetTypeError, to_torch_dtype, to_np_dtype,
                    from_host)
from ..context import Context, current_context
from ..ndarray.ndarray import NDArray, _check_recorded_write
from ..operator.elemwise import scalar_as as _scalar_as
from ..ndarray._indexing import _ints_as_advanced
from ..ndarray.register import _write_out
from ..util import is_np_default_dtype, _np_default_dtype as _NP_DEFAULT_DTYPE

__all__ = ['ndarray', 'array', 'empty', 'empty_like', 'zeros', 'zeros_like', 'ones', 'ones_like', 'full',
           'full_like', 'arange', 'linspace', 'logspace', 'eye', 'identity', 'meshgrid', 'indices']

_STATE = _ag.STATE
_object_new = object.__new__
_default_dtype = torch.get_default_dtype
_EXACT = 2 ** 24  # (float32 holds every integer of smaller magnitude)
# (whether a torch function mode, such as ``torch.set_default_device``'s, would see a factory call)
_function_mode_on = torch._C._is_torch_function_mode_enabled
_SCALARS = (numbers.Number, _np.generic)


def _default_float():
    return torch.float64 if is_np_default_dtype() else torch.float32


def _ctx(ctx):
    if ctx is None:
        return current_context()
    if isinstance(ctx, str):
        name, _, rest = ctx.partition('(')
        return Context(name, int(rest.rstrip(')') or 0))
    return ctx


def _np_wrap(t, ctx):
    """A new ``mx.np.ndarray`` around tensor ``t`` (outside ``autograd.record()`` without a graph)."""
    a = _object_new(ndarray)
    if t.requires_grad:
        if _STATE.recording:
            _track_recorded(a)
        else:
            t = t.detach()
    a._t = t
    a._ctx = ctx
    a._dt = None
    return a


def _as_np(x):
    """``x`` (an ``NDArray`` of any kind) as an ``mx.np.ndarray`` sharing its tensor."""
    if type(x) is ndarray:
        return x
    return _np_wrap(x._t, x._ctx)


def _dtype_name(d):
    return str(d)[6:]  # ('torch.float32' -> 'float32')


def _dtypes_differ(name, what, da, db):
    """MXNet's refusal of mixed dtypes in ``name`` (``what``: 'the arrays', 'x and y' ...)."""
    return MXNetTypeError('Operator %s: %s have different dtypes (%s, %s); MXNet requires one dtype'
                          % (name, what, _dtype_name(da), _dtype_name(db)))


def _legacy_error(name, x):
    return TypeError('Operator `%s`: received a legacy mx.nd.NDArray where an mx.np.ndarray is expected; call '
                     '`as_np_ndarray()` on it first (MXNet does not mix the two array types)' % name)


class NotAnArrayError(MXNetTypeError, AssertionError):
    """A non-array input of an operator MXNet generates from its registry (``mx.npx`` operators, ``np.linalg``):
    MXNet's generated functions assert their inputs, so the error is an AssertionError as well as a TypeError."""


def _array_input(name, x):
    """The tensor of input ``x`` of an operator taking ``mx.np`` arrays only (no lists or scalars, as MXNet)."""
    if isinstance(x, ndarray):
        return x._t
    if isinstance(x, NDArray):
        raise _legacy_error(name, x)
    raise NotAnArrayError('Operator `%s`: input must be an mx.np.ndarray, got %s' % (name, type(x).__name__))


def _operand(name, x, like=None):
    """The tensor of an operand of an ``mx.np`` function: an ``mx.np.ndarray``, or anything ``np.array`` takes
    (a host NumPy array keeps its dtype; lists and scalars default to float32). ``like``: the other operand's
    tensor, whose device a converted value goes to."""
    if type(x) is ndarray:
        return x._t
    if isinstance(x, NDArray):
        if isinstance(x, ndarray):
            return x._t
        raise _legacy_error(name, x)
    dev = like.device if like is not None else current_context().torch_device
    return _host_tensor(x, None, dev)


def _host_tensor(obj, dtype, dev, copy=False):
    """A tensor from a Python / NumPy value: NumPy arrays and NumPy scalars keep their dtype, everything else
    defaults to float32 (MXNet's ``np.array``). ``copy``: never share a NumPy array's buffer."""
    if isinstance(obj, torch.Tensor):
        t = obj
    elif isinstance(obj, (_np.ndarray, _np.generic)):
        a = _np.asarray(obj)
        if a.dtype.kind not in 'biuf':
            if dtype is None:
                raise TypeError('mx.np.array: cannot create an array from a NumPy array of dtype %s' % a.dtype)
            a = _numbers_as(a, dtype)
        t = from_host(a)
    else:
        a = _np.asarray(_host_value(obj))
        if a.dtype.kind not in 'biuf':
            if dtype is None:
                raise TypeError('mx.np.array: cannot create an array from %r' % (obj,))
            a = _numbers_as(a, dtype)
        if dtype is None:
            if not is_np_default_dtype():
                dtype = torch.float32
            elif a.dtype.kind == 'f':
                dtype = torch.float64
            else:
                dtype = torch.bool if a.dtype.kind == 'b' else torch.int64
        t = torch.from_numpy(a)
        copy = False
    td = t.dtype if dtype is None else to_torch_dtype(dtype)
    return t.to(device=dev, dtype=td, copy=copy)


def _numbers_as(a, dtype):
    """The NumPy array ``a`` of objects (a DataFrame's ``.values`` mixing floats and bools) or strings as ``dtype``:
    MXNet's ``np.array(a, dtype)`` lets NumPy convert it, and raises NumPy's message as a TypeError where it cannot."""
    try:
        return _np.asarray(a, dtype=to_np_dtype(to_torch_dtype(dtype)))
    except (TypeError, ValueError) as e:
        raise TypeError(str(e)) from None


def _host_value(obj):
    """Nested lists/tuples whose items may be ``mx.np`` arrays, as host values."""
    if isinstance(obj, NDArray):
        return obj.asnumpy()
    if isinstance(obj, (list, tuple)) and any(isinstance(o, (NDArray, list, tuple)) for o in obj):
        return [_host_value(o) for o in obj]
    return obj


# ---- dtype promotion (MXNet 1.9.1's, measured on it) ----------------------------------------------------------
def promote(a, b):
    """The result dtype of a binary arithmetic op on arrays of torch dtypes ``a`` and ``b``: bool gives way to
    anything, a float beats any integer (keeping its own width: ``int64 + float16`` is float16), two floats or two
    integers give the wider, and uint8 with int8 gives int32."""
    if a is b:
        return a
    if a is torch.bool:
        return b
    if b is torch.bool:
        return a
    fa, fb = a.is_floating_point, b.is_floating_point
    if fa and not fb:
        return a
    if fb and not fa:
        return b
    if not fa and {a, b} == {torch.uint8, torch.int8}:
        return torch.int32
    return a if a.itemsize >= b.itemsize else b


def _scalar_dtype(t):
    """The dtype of ``array (op) python scalar``: the array's, except bool arrays, which give int64."""
    return torch.int64 if t.dtype is torch.bool else t.dtype




# ---- the array ----------------------------------------------------------------------------------------------------
class ndarray(NDArray):  # noqa: N801 (MXNet's name)
    """MXNet's NumPy-compatible array (``mx.np.ndarray``); an ``NDArray`` over the same kind of tensor."""

    # _dt: the tensor's dtype once an operator has read it, else None (a slot read is ten times cheaper than
    # ``tensor.dtype``, and the element-wise fast paths read two per call); a tensor never changes dtype in place, so
    # only code giving an array another tensor of another dtype resets it
    __slots__ = ('_dt',)
    _np_array = True  # (legacy operators refuse these arrays)

    def __init__(self, shape=None, dtype=None, ctx=None):
        # ``np.ndarray(shape)`` allocates, as NumPy's constructor does; from a tensor (mxcompat's NDArray(t) form)
        self._dt = None
        if isinstance(shape, torch.Tensor):
            super().__init__(shape, ctx)
            return
        ctx = _ctx(ctx)
        shape = () if shape is None else ((shape,) if isinstance(shape, numbers.Integral) else tuple(shape))
        self._t = torch.empty(shape, dtype=to_torch_dtype(dtype) if dtype is not None else _default_float(),
                              device=ctx.torch_device)
        self._ctx = ctx

    # -- properties ------------------------------------------------------------------------------------------------
    @property
    def dtype(self):
        return _np.dtype(to_np_dtype(self._t.dtype))

    @property
    def T(self):
        """The transposed array (a copy, as MXNet's transpose operator gives)."""
        t = self._t
        r = t.t() if t.dim() == 2 else t.permute(tuple(range(t.dim() - 1, -1, -1)))
        return _np_wrap(r.clone(memory_format=torch.contiguous_format), self._ctx)

    @property
    def itemsize(self):
        return self._t.element_size()

    @property
    def nbytes(self):
        return self._t.element_size() * self._t.numel()

    @property
    def strides(self):
        return tuple(s * self._t.element_size() for s in self._t.stride())

    @property
    def grad(self):
        g = NDArray.grad.fget(self)
        return None if g is None else _as_np(g)

    @property
    def device(self):
        return self._ctx

    # -- conversion ------------------------------------------------------------------------------------------------
    def as_nd_ndarray(self):
        """This array as a legacy ``mx.nd.NDArray`` sharing its memory."""
        return NDArray._from_tensor(self._t, self._ctx)

    def as_np_ndarray(self):
        return self

    def item(self, *args):
        """The element as a Python scalar (NumPy's ``item``)."""
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def asscalar(self):
        raise AttributeError('mxnet.numpy.ndarray object has no attribute asscalar; use item()')

    def astype(self, dtype, order='K', casting='unsafe', subok=True, copy=True):
        """A copy converted to ``dtype`` (``copy=False`` and the same dtype: ``self``); as MXNet, ``order`` 'K' or
        'C', ``casting`` 'unsafe' and ``subok`` True only (ValueError otherwise)."""
        if order not in (None, 'K', 'C'):
            raise MXNetValueError("astype: order must be either 'K' or 'C', got %r" % (order,))
        if casting != 'unsafe':
            raise MXNetValueError("astype: casting must be 'unsafe', got %r" % (casting,))
        if not subok:
            raise MXNetValueError('astype: subok must be True')
        td = to_torch_dtype(dtype) if dtype is not None else _default_float()
        if not copy and td is self._t.dtype:
            return self
        return _np_wrap(_intgrad.cast(self._t, td, copy=True), self._ctx)

    def copy(self, order='C'):
        """A copy (``order='C'`` only, NotImplementedError otherwise, as MXNet)."""
        if order != 'C':
            raise NotImplementedError("mx.np.ndarray.copy: only order='C' is supported, got %r" % (order,))
        return _np_wrap(self._t.clone(), self._ctx)

    def copyto(self, other):
        if isinstance(other, Context):
            return _as_np(NDArray.copyto(self, other))
        if isinstance(other, NDArray) and not isinstance(other, ndarray):
            raise TypeError('copyto does not support type ' + str(type(other)))
        return NDArray.copyto(self, other)

    def as_in_context(self, context):
        if self._ctx == context:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context
    to_device = as_in_context

    def detach(self):
        return _np_wrap(self._t.detach(), self._ctx)

    def tostype(self, stype):
        if stype != 'default':
            raise MXNetValueError('mx.np.ndarray.tostype: only the default storage type exists, got %r' % (stype,))
        return self

    def __array__(self, dtype=None, copy=None):  # noqa: ARG002
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    # -- printing --------------------------------------------------------------------------------------------------
    def __repr__(self):
        host = self.asnumpy()
        text = repr(host)
        if host.size and ', shape=(' in text:  # (NumPy 2 names the shape of a summarized array; MXNet's NumPy not)
            text = _SHAPE_NOTE.sub('', text)
        default = _np.float64 if is_np_default_dtype() else _np.float32
        if 'dtype=' in text:
            if host.dtype == default:  # numpy names float32, MXNet leaves its default dtype out
                text = text[:text.rindex(',')] + ')'
        elif host.dtype != default and host.dtype != _np.bool_:  # numpy leaves float64/int64 out, MXNet does not
            text = text[:-1] + ', dtype=%s)' % host.dtype
        if self._ctx.device_type != 'cpu':
            text = text[:-1] + ', ctx=%s)' % self._ctx
        return text

    def __str__(self):
        text = str(self.asnumpy())
        return text if self._ctx.device_type == 'cpu' or self._t.dim() == 0 else '%s @%s' % (text, self._ctx)

    def __format__(self, spec):
        """A 0-d array formats as its element; others only with an empty spec (TypeError otherwise, as MXNet)."""
        if self._t.dim() == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError('Cannot format mxnet.numpy.ndarray with format_spec %r' % spec)
        return str(self)

    def __hash__(self):
        raise UnhashableError("unhashable type: 'mxnet.numpy.ndarray'")

    def __reduce__(self):
        fn, args, state = NDArray.__reduce__(self)
        return (ndarray, (None,), state)

    def __setstate__(self, state):
        NDArray.__setstate__(self, state)
        self._dt = None

    # -- Python protocol -------------------------------------------------------------------------------------------
    def __iter__(self):
        """The sub-arrays along axis 0 (views); a 0-d array yields nothing, as in MXNet 1.9.1."""
        if self._t.dim() == 0:
            return
        for i in range(self._t.shape[0]):
            yield _np_wrap(self._t[i], self._ctx)

    def __bool__(self):
        n = self._t.numel()
        if n == 1:
            return bool(self._t.reshape(()).item())
        if n == 0:  # (MXNet 1.9.1 warns and answers False, as NumPy 1.x did)
            warnings.warn('The truth value of an empty array is ambiguous. Returning False, but in future this will '
                          'result in an error.', DeprecationWarning, stacklevel=2)
            return False
        raise MXNetValueError('The truth value of an ndarray with more than one element is ambiguous.')

    def _scalar(self, kind):
        if self._t.numel() != 1:
            raise TypeError('only size-1 arrays can be converted to Python scalars')
        return kind(self._t.reshape(()).item())

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    # -- indexing --------------------------------------------------------------------------------------------------
    def __getitem__(self, key):
        """NumPy indexing. As in MXNet, basic indices (integers, slices, None, Ellipsis) selecting a contiguous
        block give a view of this array; other slices, integer and boolean arrays (``mx.np``, legacy, NumPy,
        lists, ranges) give copies."""
        t = self._t
        kind = type(key)
        r = None
        if kind is int:  # the common cases inline (the per-call cost is the budget): a[3], a[1:3, 2:]
            try:
                r = t[key]
            except IndexError:
                raise MXNetIndexError('index %d is out of bounds for axis 0 with size %d'
                                      % (key, t.shape[0] if t.dim() else 0)) from None
        elif kind is tuple or kind is slice:
            for k in (key if kind is tuple else (key,)):  # ints and slices of step 1: torch's own indexing
                if type(k) is not int and (type(k) is not slice or k.step is not None):
                    break
            else:
                try:
                    r = t[key]
                except (IndexError, RuntimeError, TypeError):
                    pass  # (the general path below raises MXNet's error)
                else:
                    if not r.is_contiguous():
                        r = r.contiguous()
        if r is None:
            k, flips = _np_index(key, t)
            try:
                r = (t.flip(flips) if flips else t)[k]
                if not flips and not r.is_contiguous():
                    r = _copy(r)
            except IndexError as e:
                raise MXNetIndexError(str(e).replace('dimension', 'axis')) from None
            except (RuntimeError, TypeError) as e:
                raise MXNetIndexError('ndarray of shape %s: invalid index %r (%s)' % (self.shape, key, e)) from None
        a = _object_new(ndarray)  # (_np_wrap, inline: a call costs 3% of a[3])
        if r.requires_grad:
            if _STATE.recording:
                _track_recorded(a)
            else:
                r = r.detach()
        a._t = r
        a._ctx = self._ctx
        a._dt = self._dt
        return a

    def __setitem__(self, key, value):
        """NumPy assignment: ``value`` (an ``mx.np`` array, NumPy array, list or number) broadcasts to the indexed
        shape; leading size-1 axes beyond it are dropped, as MXNet allows."""
        t = self._t
        if isinstance(value, NDArray):
            if not isinstance(value, ndarray):
                raise _legacy_error('__setitem__', value)
            v = value._t.to(device=t.device, dtype=t.dtype)
            if v is not value._t and value._t.requires_grad and _STATE.recording and not v.is_floating_point():
                _check_recorded_write(t, value._t, key)
                return self._assign_recorded(key, value._t)
        elif isinstance(value, _SCALARS):
            v = _scalar_as(value, t.dtype)
        else:
            v = _host_tensor(value, t.dtype, t.device)
        if _STATE.recording:  # (MXNet's refusals of writes into the recorded graph)
            _check_recorded_write(t, value._t if isinstance(value, NDArray) else v, key)
        k, flips = _np_index(key, t)
        try:
            # (outside record() a write joins no graph: neither a variable written into nor a variable's value)
            if not _STATE.recording and (t.requires_grad or isinstance(v, torch.Tensor) and v.requires_grad):
                with torch.no_grad():
                    _assign(t, k, v, flips)
            else:
                _assign(t, k, v, flips)
        except IndexError as e:
            raise MXNetIndexError(str(e).replace('dimension', 'axis')) from None
        except RuntimeError as e:
            raise MXNetValueError('ndarray of shape %s: cannot assign a value of shape %s at index %r (%s)'
                                  % (self.shape, tuple(getattr(v, 'shape', ())), key,
                                     str(e).splitlines()[0])) from None

    def _assign_recorded(self, key, src):
        """``self[key] = src`` under ``record()``, ``self`` of an integer dtype and ``src`` a float array in the
        graph: the integer data is written and ``self`` joins the graph through a float64 stand-in
        (``autograd._IntGradTensor``), so backward from ``self`` reaches ``src``, as MXNet's recorded assignment."""
        self[key] = _np_wrap(src.detach(), self._ctx)  # (the data, with the errors of any assignment)
        t = self._t
        shadow = t.to(torch.float64)
        k, flips = _np_index(key, shadow)
        _assign(shadow, k, src.to(device=t.device, dtype=torch.float64), flips)
        t = t.as_subclass(_ag._IntGradTensor)
        t._mx_grad_surrogate = shadow
        self._t = t

    # -- shape -----------------------------------------------------------------------------------------------------
    def reshape(self, *args, **kwargs):
        """NumPy's ``reshape`` (``order='C'`` only); a new array, as MXNet 1.9.1's (NumPy gives a view)."""
        if args and not kwargs:  # the common case inline: reshape(4, 16), reshape((4, 16))
            t = self._t
            try:
                r = torch.reshape(t, args[0] if len(args) == 1 and type(args[0]) is not int else args)
            except (RuntimeError, TypeError):
                r = None  # (the general path below raises MXNet's error)
            if r is not None:
                return _np_wrap(r.clone() if r.is_contiguous() else _copy(r), self._ctx)
        order = kwargs.pop('order', 'C')
        if 'newshape' in kwargs or 'shape' in kwargs:
            args = (kwargs.pop('newshape', None) or kwargs.pop('shape'),)
        if kwargs:
            raise TypeError('reshape() got unexpected keyword argument(s) %s' % sorted(kwargs))
        if order != 'C':
            raise NotImplementedError('mx.np.ndarray.reshape: order=%r is not supported (MXNet: only C)' % order)
        shape = args[0] if len(args) == 1 and not isinstance(args[0], numbers.Integral) else args
        return _reshape(self, shape)

    def reshape_view(self, *shape, **kwargs):
        """The legacy ``NDArray.reshape`` (its codes 0, -1, -2, -3, -4 and ``reverse``) as a view, an ``mx.np``
        array."""
        return _as_np(NDArray.reshape(self, *shape, **kwargs))

    def flatten(self, order='C'):  # noqa: ARG002
        return _np_wrap(self._t.reshape(-1).clone(), self._ctx)

    def ravel(self, order='C'):  # noqa: ARG002
        return _np_wrap(_copy(self._t.reshape(-1)), self._ctx)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], numbers.Integral)):
            axes = axes[0]
        if not axes:
            return self.T
        return _np_wrap(_copy(self._t.permute(_perm('transpose', axes, self._t.dim()))), self._ctx)

    def squeeze(self, axis=None):
        t = self._t
        if axis is None:
            return _np_wrap(_copy(t.squeeze()), self._ctx)
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        for a in axes:
            if t.shape[a] != 1:
                raise MXNetValueError('cannot select an axis to squeeze out which has size not equal to one')
        return _np_wrap(_copy(t.squeeze(tuple(axes)) if axes else t), self._ctx)

    def swapaxes(self, axis1, axis2):
        return _np_wrap(_copy(self._t.transpose(axis1, axis2)), self._ctx)

    def __len__(self):
        if self._t.dim() == 0:
            raise TypeError('len() of unsized object')
        return self._t.shape[0]


class InvalidIndexError(MXNetIndexError, ValueError):
    """An index of a kind MXNet refuses (a float): MXNet raises ValueError, NumPy IndexError."""


class UnhashableError(TypeError, NotImplementedError):
    """``hash()`` of an array: MXNet raises NotImplementedError, Python's unhashable types TypeError."""


_SHAPE_NOTE = re.compile(r', shape=\([0-9, ]*\)')
_BAD_INDEX = ('only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean '
              'arrays are valid indices, got %r')


def _index_item(k, dev):
    """One item of an ``mx.np`` index as torch takes it: integers (also NumPy's and 0-d integer arrays) as ints,
    arrays (``mx.np``, NumPy, lists, ranges) of integers or bools as tensors on ``dev``."""
    if type(k) in (int, slice) or k is None or k is Ellipsis:
        return k
    if isinstance(k, NDArray):  # (MXNet takes legacy arrays too, and floating-point ones as integers)
        kt = k._t
        if kt.dtype is torch.bool:
            return kt
        return int(kt.item()) if kt.dim() == 0 else kt.long()
    if isinstance(k, (bool, _np.bool_)):
        return bool(k)
    if isinstance(k, (numbers.Integral, _np.integer)):
        return int(k)
    if isinstance(k, slice):
        return slice(*(None if v is None else _index_item(v, dev) for v in (k.start, k.stop, k.step)))
    if isinstance(k, (list, tuple, range, _np.ndarray)):
        a = _np.asarray(k)
        if a.dtype.kind == 'b':
            return from_host(a).to(dev)
        if a.dtype.kind not in 'iu' and a.size:
            raise InvalidIndexError(_BAD_INDEX % (k,))
        return from_host(a.astype(_np.int64)).to(dev)
    raise InvalidIndexError(_BAD_INDEX % (k,))


def _np_index(key, t):
    """``(index, flips)``: an ``mx.np`` index as a torch one, and the source axes to flip first. torch has no
    negative-step slices: such a slice becomes a positive-step one over the flipped axis (so it also combines
    with advanced indices, and keeps its place among the result's axes)."""
    dev = t.device
    if type(key) is not tuple:
        k = _index_item(key, dev)
        if type(k) is slice and k.step is not None and k.step < 0:
            return _flipped(k, t.shape[0] if t.dim() else 0), [0]
        return k, None
    items = _ints_as_advanced([_index_item(k, dev) for k in key], dev)
    if not any(type(k) is slice and k.step is not None and k.step < 0 for k in items):
        return tuple(items), None
    used = sum(k.dim() if isinstance(k, torch.Tensor) and k.dtype is torch.bool else 1
               for k in items if k is not None and k is not Ellipsis)
    flips, axis = [], 0
    for i, k in enumerate(items):
        if k is None:
            continue
        if k is Ellipsis:
            axis += t.dim() - used
            continue
        if type(k) is slice and k.step is not None and k.step < 0:
            items[i] = _flipped(k, t.shape[axis])
            flips.append(axis)
        axis += k.dim() if isinstance(k, torch.Tensor) and k.dtype is torch.bool else 1
    return tuple(items), flips


def _flipped(k, n):
    """Negative-step slice ``k`` of an axis of length ``n`` as a positive-step slice of the flipped axis."""
    idx = range(*k.indices(n))
    return slice(n - 1 - idx[0], n - idx[-1], -k.step) if len(idx) else slice(0, 0)


def _assign(t, k, v, flips):
    """``t[k] = v`` (over ``t`` flipped along ``flips`` first, when given); a value with more leading size-1 axes
    than the indexed shape loses them."""
    target = t.flip(flips) if flips else t
    try:
        target[k] = v
    except RuntimeError:
        if not isinstance(v, torch.Tensor):
            raise
        n = target[k].dim()
        if v.dim() <= n or any(s != 1 for s in v.shape[:v.dim() - n]):
            raise
        target[k] = v.reshape(v.shape[v.dim() - n:])
    if flips:
        t.copy_(target.flip(flips))


def _perm(name, axes, ndim):
    """``axes`` as a permutation of ``ndim`` axes, raising MXNet's errors (ValueError for a repeated axis)."""
    perm = tuple(int(x) for x in axes)
    if len(perm) != ndim or not all(-ndim <= x < ndim for x in perm):
        raise MXNetError('%s: axes %s are no permutation of the %d axes of the array' % (name, perm, ndim))
    if len(set(x % ndim for x in perm)) != ndim:
        raise MXNetValueError('%s: repeated axis in axes %s' % (name, perm))
    return perm


def _copy(t):
    """A contiguous copy of ``t`` (what MXNet's operators return where torch would give a view)."""
    return t.clone(memory_format=torch.contiguous_format)


def _reshape(a, shape):
    """``a`` reshaped: a new array, as MXNet's reshape operator gives (``reshape_view`` shares memory)."""
    shape = tuple(int(s) for s in shape)
    try:
        return _np_wrap(_copy(a._t.reshape(shape)), a._ctx)
    except RuntimeError:
        # MXNet's np reshape fails its shape check (an MXNetError, not NumPy's ValueError)
        raise MXNetError('np.reshape: Check failed: Cannot reshape array of size %d into shape [%s]'
                         % (a._t.numel(), ','.join(str(s) for s in shape))) from None


# ---- creation -----------------------------------------------------------------------------------------------------
def array(object, dtype=None, ctx=None):  # noqa: A002 (NumPy's name)
    """A new array (always a copy). Lists and Python scalars default to float32 (float64 after
    ``npx.set_np(dtype=True)``); ``mx.np``/``mx.nd`` arrays and NumPy arrays keep their dtype."""
    if type(object) is _np.ndarray and dtype is None:  # the common case: a host array of numbers, copied once
        ctx = current_context() if ctx is None else _ctx(ctx)
        dev = ctx.torch_device
        if dev.type == 'cpu' and object.dtype.kind in 'biuf':
            a = _object_new(ndarray)
            a._t = from_host(object).clone()
            a._ctx = ctx
            a._dt = None
            return a
        return _np_wrap(_host_tensor(object, None, dev, copy=True), ctx)
    if isinstance(object, NDArray):
        if not isinstance(object, ndarray):
            raise MXNetValueError('mx.np.array: got a legacy mx.nd.NDArray; call its as_np_ndarray() (MXNet does not '
                                  'convert between the two array types here)')
        t = object._t.detach()
        ctx = object._ctx if ctx is None else _ctx(ctx)
        td = t.dtype if dtype is None else to_torch_dtype(dtype)
        return _np_wrap(t.to(device=ctx.torch_device, dtype=td, copy=True), ctx)
    ctx = _ctx(ctx)
    return _np_wrap(_host_tensor(object, dtype, ctx.torch_device, copy=True), ctx)


def _dtype_or_default(dtype):
    return _default_float() if dtype is None else to_torch_dtype(dtype)


def _shape_arg(shape):
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _check_order(name, order):
    if order not in ('C', None):
        raise NotImplementedError('mx.np.%s: order=%r is not supported (MXNet: only C)' % (name, order))


def _filled(name, fn, shape, dtype, order, ctx):
    """``fn`` (``torch.zeros``, ``ones``, ``empty``) as MXNet's creation function ``name``."""
    if order != 'C':
        _check_order(name, order)
    ctx = current_context() if ctx is None else _ctx(ctx)
    td = (torch.float64 if _NP_DEFAULT_DTYPE[0] else torch.float32) if dtype is None else to_torch_dtype(dtype)
    kind = type(shape)
    t = None
    if (kind is tuple and shape and type(shape[0]) is int and ctx.device_typeid == 1 and td is _default_dtype()
            and not _function_mode_on()):
        # the common case, a float32 array on the CPU: torch's defaults give it, and torch parses separate
        # sizes faster than a tuple and keywords (``zeros(8, 8)`` costs 70% of ``zeros((8, 8), dtype=, device=)``)
        try:
            t = fn(*shape)
        except TypeError:
            pass
    if t is None:
        try:  # (a tuple or an int as torch takes it; anything else, e.g. floats, as MXNet converts it)
            t = fn(shape if kind is tuple else (shape,) if kind is int else _shape_arg(shape), dtype=td,
                   device=ctx.torch_device)
        except TypeError:
            t = fn(_shape_arg(shape), dtype=td, device=ctx.torch_device)
    a = _object_new(ndarray)  # (a new tensor: no graph to drop)
    a._t = t
    a._ctx = ctx
    a._dt = td
    return a


def empty(shape, dtype=None, order='C', ctx=None):
    """An uninitialized array (float32 by default)."""
    return _filled('empty', torch.empty, shape, dtype, order, ctx)


def zeros(shape, dtype=None, order='C', ctx=None):
    """An array of zeros (float32 by default)."""
    return _filled('zeros', torch.zeros, shape, dtype, order, ctx)


def ones(shape, dtype=None, order='C', ctx=None):
    """An array of ones (float32 by default)."""
    return _filled('ones', torch.ones, shape, dtype, order, ctx)


def full(shape, fill_value, dtype=None, order='C', ctx=None, out=None):
    """An array filled with ``fill_value`` (float32 by default; an array ``fill_value`` broadcasts and gives its
    dtype, a bool one gives bool)."""
    _check_order('full', order)
    if isinstance(fill_value, NDArray):
        ctx = fill_value._ctx if ctx is None else _ctx(ctx)
        td = fill_value._t.dtype if dtype is None else to_torch_dtype(dtype)
        t = fill_value._t.to(device=ctx.torch_device, dtype=td).expand(_shape_arg(shape)).clone()
    else:
        ctx = _ctx(ctx)
        if dtype is None:
            td = torch.bool if isinstance(fill_value, (bool, _np.bool_)) else _default_float()
        else:
            td = to_torch_dtype(dtype)
        t = torch.full(_shape_arg(shape), _scalar_as(fill_value, td), dtype=td, device=ctx.torch_device)
    return _write(out, t) if out is not None else _np_wrap(t, ctx)


def _like(name, make, a, dtype, ctx):
    if not isinstance(a, NDArray):
        a = array(a)
    ctx = a._ctx if ctx is None else _ctx(ctx)
    td = a._t.dtype if dtype is None else to_torch_dtype(dtype)
    return _np_wrap(make(tuple(a._t.shape), dtype=td, device=ctx.torch_device), ctx)


def empty_like(prototype, dtype=None, order='C', subok=False, shape=None, ctx=None):  # noqa: ARG001
    """An uninitialized array of ``prototype``'s shape and dtype."""
    return _like('empty_like', torch.empty, prototype, dtype, ctx)


def zeros_like(a, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    """Zeros of ``a``'s shape and dtype."""
    r = _like('zeros_like', torch.zeros, a, dtype, ctx)
    return _write(out, r._t) if out is not None else r


def ones_like(a, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    """Ones of ``a``'s shape and dtype."""
    r = _like('ones_like', torch.ones, a, dtype, ctx)
    return _write(out, r._t) if out is not None else r


def full_like(a, fill_value, dtype=None, order='C', ctx=None, out=None):  # noqa: ARG001
    """``fill_value`` in ``a``'s shape and dtype."""
    if not isinstance(a, NDArray):
        a = array(a)
    ctx = a._ctx if ctx is None else _ctx(ctx)
    td = a._t.dtype if dtype is None else to_torch_dtype(dtype)
    t = torch.full(tuple(a._t.shape), _scalar_as(fill_value, td), dtype=td, device=ctx.torch_device)
    return _write(out, t) if out is not None else _np_wrap(t, ctx)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """Evenly spaced values in ``[start, stop)`` (float32 by default, as MXNet; NumPy infers int64)."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise MXNetValueError('arange: step must not be zero')
    if (dtype is None and ctx is None and type(start) is int and type(stop) is int and type(step) is int
            and -_EXACT < start < _EXACT and -_EXACT < stop < _EXACT and (stop - start) * step > 0
            and not is_np_default_dtype()):
        # integers that float32 holds exactly, a non-empty range: torch's values are NumPy's
        ctx = current_context()
        return _np_wrap(torch.arange(start, stop, step, dtype=torch.float32, device=ctx.torch_device), ctx)
    ctx = _ctx(ctx)
    td = _dtype_or_default(dtype) if dtype is not None or not is_np_default_dtype() else (
        torch.int64 if all(isinstance(v, numbers.Integral) for v in (start, stop, step)) else torch.float64)
    # computed in float64 on the host, as NumPy does, then cast: the values equal NumPy's for the same dtype
    host = _np.arange(start, stop, step, dtype=_np.float64 if td.is_floating_point else None)
    return _np_wrap(torch.from_numpy(host).to(device=ctx.torch_device, dtype=td), ctx)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """``num`` evenly spaced samples over ``[start, stop]`` (float32 by default)."""
    if isinstance(start, NDArray) or isinstance(stop, NDArray):
        raise NotImplementedError('mx.np.linspace: array start/stop are not supported (MXNet: scalars only)')
    if int(num) < 0:
        raise MXNetValueError('linspace: number of samples, %d, must be non-negative.' % num)
    ctx = _ctx(ctx)
    td = _dtype_or_default(dtype)
    host, step = _np.linspace(start, stop, int(num), endpoint=endpoint, retstep=True, dtype=_np.float64, axis=axis)
    r = _np_wrap(torch.from_numpy(host).to(device=ctx.torch_device, dtype=td), ctx)
    return (r, step) if retstep else r


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """``base ** linspace(start, stop, num)`` (float32 by default)."""
    ctx = _ctx(ctx)
    host = _np.logspace(start, stop, int(num), endpoint=endpoint, base=base, dtype=_np.float64, axis=axis)
    return _np_wrap(torch.from_numpy(host).to(device=ctx.torch_device, dtype=_dtype_or_default(dtype)), ctx)


def eye(N, M=None, k=0, dtype=None, ctx=None, **kwargs):
    """A 2-D array with ones on diagonal ``k`` (float32 by default)."""
    if kwargs.get('order', 'C') != 'C':
        raise NotImplementedError('mx.np.eye: order=%r is not supported' % kwargs['order'])
    ctx = _ctx(ctx)
    M = N if M is None else M
    if N < 0 or M < 0:
        raise MXNetValueError('eye: N and M must be non-negative, got %s and %s' % (N, M))
    t = torch.zeros((int(N), int(M)), dtype=_dtype_or_default(dtype), device=ctx.torch_device)
    t.diagonal(int(k)).fill_(1)
    return _np_wrap(t, ctx)


def identity(n, dtype=None, ctx=None):
    """The ``n x n`` identity (float32 by default)."""
    return eye(n, dtype=dtype, ctx=ctx)


def meshgrid(*xi, **kwargs):
    """Coordinate matrices from coordinate vectors (``indexing`` 'xy' or 'ij'; ``sparse``, ``copy``)."""
    indexing = kwargs.pop('indexing', 'xy')
    sparse = kwargs.pop('sparse', False)
    kwargs.pop('copy', True)
    if kwargs:
        raise TypeError('meshgrid() got unexpected keyword argument(s) %s' % sorted(kwargs))
    if indexing not in ('xy', 'ij'):
        raise MXNetValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ts = [_operand('meshgrid', x).reshape(-1) for x in xi]
    ctx = next((x._ctx for x in xi if isinstance(x, NDArray)), current_context())
    if sparse:
        n = len(ts)
        outs = []
        for i, t in enumerate(ts):
            shape = [1] * n
            shape[i] = -1
            if indexing == 'xy' and n > 1 and i < 2:
                shape[0], shape[1] = shape[1], shape[0]
            outs.append(t.reshape(shape))
        return [_np_wrap(t, ctx) for t in outs]
    return [_np_wrap(t.contiguous(), ctx) for t in torch.meshgrid(*ts, indexing=indexing)]


def indices(dimensions, dtype=None, ctx=None):
    """The indices of a grid of shape ``dimensions`` (int32 by default: MXNet's dtype)."""
    ctx = _ctx(ctx)
    td = torch.int32 if dtype is None else to_torch_dtype(dtype)
    grids = torch.meshgrid(*[torch.arange(d, device=ctx.torch_device) for d in dimensions], indexing='ij')
    t = torch.stack(grids) if grids else torch.empty((0,), device=ctx.torch_device)
    return _np_wrap(t.to(td), ctx)


def _write(out, t):
    """MXNet's ``out=``: write ``t`` into the ``mx.np.ndarray`` ``out`` (same shape) and return ``out``."""
    if not isinstance(out, ndarray):
        raise TypeError('out must be an mx.np.ndarray, got %s' % type(out).__name__)
    return _write_out(out, t)
