"""``mx.nd.sparse``: CSRNDArray and RowSparseNDArray, their creation functions and storage-aware operators.

A sparse array keeps its compressed components as torch tensors (csr: ``data (nnz,)``, ``indices (nnz,)`` int64,
``indptr (rows+1,)`` int64; row_sparse: ``data (k,) + shape[1:]`` and sorted unique int64 row ``indices``). Its
``_t`` is the dense tensor, built on first use and cached, so every operator without a sparse rule works on it
(MXNet's "storage fallback") and returns a dense array. Writes through ``_t`` (``out=``, ``copyto``, ``x[:] = v``)
are seen through torch's version counter and the components are rebuilt from the dense values on next use.

Differs from MXNet: results that MXNet computes as sparse are built from the components where that is simple
(unary ops, ``retain``, ``dot``, row_sparse sums) and otherwise computed dense and compressed, so explicit zeros
that MXNet would keep in a sparse result are dropped there. Gradients are dense.
"""
import numpy as np
import torch

from ..base import (MXNetError, MXNetValueError, MXNetTypeError, numeric_types, to_torch_dtype, to_np_dtype,
                    unsupported)
from ..context import Context, current_context
from .ndarray import NDArray, _wrap, _device_ctx
from .register import _UNSET as _NULL
from .. import autograd as _ag
from .. import kernels

__all__ = ['BaseSparseNDArray', 'CSRNDArray', 'RowSparseNDArray', 'csr_matrix', 'row_sparse_array', 'array',
           'zeros', 'empty', 'cast_storage', 'add', 'subtract', 'multiply', 'divide']

_I64 = torch.int64
_object_new = object.__new__
_integer_types = (int, np.integer)
py_slice = slice  # (the name ``slice`` is the operator below, as in MXNet)


class NotSupportedForSparseNDArray(MXNetError):
    """Raised by NDArray methods that sparse arrays do not have (as MXNet)."""

    def __init__(self, function, alias, *args):
        super().__init__('Function %s%s is not supported for SparseNDArray.'
                         % (function.__name__, ' (named %s)' % alias if alias else ''))


# ---- conversions between dense tensors and components ---------------------------------------------------------------
def _dense_to_csr(t):
    nz = t != 0
    rows, cols = nz.nonzero(as_tuple=True)
    indptr = torch.zeros(t.shape[0] + 1, dtype=_I64, device=t.device)
    torch.cumsum(nz.sum(1), 0, out=indptr[1:])
    return t[rows, cols], cols.to(_I64), indptr


def _dense_to_rsp(t):
    rows = (t != 0).reshape(t.shape[0], -1).any(1).nonzero().reshape(-1)
    return t[rows], rows.to(_I64)


def _csr_rows(indptr):
    n = indptr.numel() - 1
    return torch.repeat_interleave(torch.arange(n, device=indptr.device), indptr.diff())


def _csr_to_dense(data, indices, indptr, shape):
    out = torch.zeros(shape, dtype=data.dtype, device=data.device)
    if data.numel():
        out.index_put_((_csr_rows(indptr), indices), data, accumulate=True)  # duplicates add up, as in scipy
    return out


def _rsp_to_dense(data, indices, shape):
    out = torch.zeros(shape, dtype=data.dtype, device=data.device)
    if indices.numel():
        out[indices] = data
    return out


def summed_rows(g):
    """The rows a sparse COO gradient ``g`` holds (sorted, distinct) and their summed values, the entries of a row
    added in their order in ``g``. (torch's ``coalesce`` does the same, with a slower CPU sort: see
    ``kernels.stable_argsort``.)"""
    if g.is_coalesced():
        return g.indices()[0], g.values()
    rows, values = g._indices()[0], g._values()
    n = rows.numel()
    order = kernels.stable_argsort(rows)
    ordered = rows.index_select(0, order)
    first = torch.ones(n, dtype=torch.bool, device=rows.device)
    torch.ne(ordered[1:], ordered[:-1], out=first[1:])
    segment = torch.cumsum(first, 0) - 1
    distinct = ordered[first]
    # each entry's row slot, in g's order: the values are added where they are, without a sorted copy of them
    slot = torch.empty_like(segment)
    slot[order] = segment
    total = values.new_zeros((distinct.numel(),) + tuple(values.shape[1:]))
    return distinct, total.index_add_(0, slot, values)


def _versions(comps):
    return tuple(c._version for c in comps)


# ---- the array classes ----------------------------------------------------------------------------------------------
class BaseSparseNDArray(NDArray):
    """A sparse NDArray: compressed components plus a dense view built on demand (``_t``)."""

    __slots__ = ('_shape', '_comp', '_dense', '_dv', '_cv')
    _stype = None
    _num_aux = 0
    __hash__ = NDArray.__hash__

    @classmethod
    def _new(cls, comps, shape, ctx):
        a = _object_new(cls)
        a._shape = tuple(int(s) for s in shape)
        a._comp = tuple(c if c.numel() else c.new_empty(c.shape) for c in comps)  # (numpy gives 0-size stride 0)
        a._cv = _versions(a._comp)
        a._dense = None
        a._dv = -1
        a._ctx = ctx
        return a

    # -- the two representations -----------------------------------------------------------------------------------
    def _dns(self):
        d = self._dense
        comps = self._comp
        if d is not None:
            if comps is None or d._version != self._dv or _versions(comps) == self._cv:
                if comps is not None and d._version != self._dv:
                    self._comp = None  # the dense values were written: they are now the truth
                return d
        d = self._to_dense(comps)
        self._dense, self._dv, self._cv = d, d._version, _versions(comps)
        return d

    def _cmp(self):
        comps = self._comp
        d = self._dense
        if comps is not None and (d is None or d._version == self._dv):
            return comps
        dd = d.detach()
        comps = self._from_dense(dd)
        self._comp, self._cv, self._dv = comps, _versions(comps), d._version
        return comps

    def _get_t(self):
        return self._dns()

    def _set_t(self, t):
        # autograd (attach_grad, out= under record()) replaces the array's tensor: the dense value is the truth
        if tuple(t.shape) != self._shape:
            raise MXNetValueError('%s: cannot set a tensor of shape %s' % (type(self).__name__, tuple(t.shape)))
        self._dense, self._dv, self._comp = t, t._version, None

    _t = property(_get_t, _set_t)

    def _assign_comps(self, comps):
        self._comp = tuple(comps)
        self._cv = _versions(self._comp)
        self._dense = None

    # -- properties ----------------------------------------------------------------------------------------------------
    @property
    def shape(self):
        return self._shape

    @property
    def size(self):
        return int(np.prod(self._shape))

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def dtype(self):
        return to_np_dtype(self._cmp()[0].dtype)

    @property
    def stype(self):
        return self._stype

    @property
    def _tdtype(self):
        return self._cmp()[0].dtype

    @property
    def _device(self):
        """The torch device the values live on (the context's): what is assigned into the array goes there."""
        comps = self._comp
        return (comps[0] if comps is not None else self._dense).device

    @property
    def data(self):
        """The stored values (an NDArray sharing memory with this array's component)."""
        return NDArray._from_tensor(self._cmp()[0], self._ctx)

    @property
    def indices(self):
        """The int64 column (csr) or row (row_sparse) indices."""
        return NDArray._from_tensor(self._cmp()[1], self._ctx)

    def _data(self):
        return self.data

    def _aux_data(self, i):
        return NDArray._from_tensor(self._cmp()[1 + i], self._ctx)

    @property
    def _aux_types(self):
        return [np.int64] * self._num_aux

    def __len__(self):
        return self._shape[0]

    def __repr__(self):
        return '\n<%s %s @%s>' % (type(self).__name__, 'x'.join('%d' % s for s in self._shape), self._ctx)

    __str__ = __repr__

    def __reduce__(self):
        comps = [c.detach().cpu().numpy() for c in self._cmp()]
        return (_unpickle, (self._stype, self._shape, comps, self._ctx.device_type, self._ctx.device_id))

    def _sparse_record(self):
        from ._codec import SparseRecord
        comps = [c.detach().cpu().contiguous() for c in self._cmp()]
        aux = tuple(comps[1:][::-1]) if self._stype == 'csr' else (comps[1],)
        return SparseRecord(self._stype, self._shape, comps[0], aux)

    def wait_to_read(self):
        pass

    # -- copies and conversions ----------------------------------------------------------------------------------------
    def detach(self):
        """The same values cut from the autograd graph, with this array's storage type (shares memory)."""
        return over_dense(self._t.detach(), self._stype, self._ctx)

    def _like(self, comps, ctx=None):
        return type(self)._new(comps, self._shape, self._ctx if ctx is None else ctx)

    def copy(self):
        return self._like([c.clone() for c in self._cmp()])

    def astype(self, dtype, copy=True):
        """A copy with data converted to ``dtype`` (``self`` when ``copy=False`` and the dtype is the same)."""
        td = to_torch_dtype(dtype)
        comps = self._cmp()
        if not copy and td is comps[0].dtype:
            return self
        return self._like([comps[0].to(td, copy=True)] + [c.clone() for c in comps[1:]])

    def copyto(self, other):
        """Copy into ``other`` (a dense or sparse NDArray, keeping its storage type) or to a new array on a
        Context."""
        if isinstance(other, Context):
            return self._like([c.to(other.torch_device, copy=True) for c in self._cmp()], other)
        if isinstance(other, BaseSparseNDArray):
            if other is self:
                return self
            if other.shape != self.shape:
                raise MXNetValueError('copyto: shape mismatch %s vs %s' % (self.shape, other.shape))
            if other._stype != self._stype:
                raise MXNetTypeError('copyto does not support destination NDArray stype ' + other._stype)
            dev = other._device  # (the destination's device, as MXNet copies across contexts)
            other._assign_comps([c.to(dev, copy=True) for c in self._cmp()])
            return other
        if isinstance(other, NDArray):
            return NDArray.copyto(self, other)
        raise MXNetTypeError('copyto does not support type ' + str(type(other)))

    def tostype(self, stype):
        """A copy with storage ``stype``; csr <-> row_sparse raises ValueError, as in MXNet."""
        if stype == 'default':
            return _wrap(self._dns().clone(), self._ctx)
        if stype == self._stype:
            return self.copy()
        if stype in ('csr', 'row_sparse'):
            raise MXNetValueError('cast_storage from %s to %s is not supported' % (self._stype, stype))
        raise MXNetValueError('unknown storage type %r' % (stype,))

    def asscipy(self):
        raise unsupported('%s.asscipy' % type(self).__name__, 'row_sparse storage', 'only CSRNDArray has it (MXNet)')

    def check_format(self, full_check=True):
        """Raise MXNetError if the components do not describe a valid array of this storage type."""
        msg = self._format_error(full_check)
        if msg:
            raise MXNetError('%s.check_format: %s' % (type(self).__name__, msg))

    # -- indexing and assignment ---------------------------------------------------------------------------------------
    def __setitem__(self, key, value):
        if not (isinstance(key, py_slice) and key == py_slice(None)):
            raise MXNetValueError('%s only supports [:] for assignment' % type(self).__name__)
        if isinstance(value, BaseSparseNDArray):
            if value is not self:
                value.copyto(self)
            return
        # the values stay on this array's device, whatever the source's
        if isinstance(value, NDArray):
            t = value._t.detach().to(device=self._device, dtype=self._tdtype)
        elif isinstance(value, numeric_types):
            if self._stype == 'csr':
                raise MXNetValueError('Assigning numeric types to CSRNDArray is not implemented yet.')
            t = torch.full(self._shape, value, dtype=self._tdtype, device=self._device)
            self._assign_comps((t, torch.arange(self._shape[0], dtype=_I64, device=t.device)))
            return
        elif isinstance(value, (np.ndarray, np.generic, list, tuple)):
            t = torch.as_tensor(np.asarray(value)).to(device=self._device, dtype=self._tdtype)
        else:
            raise MXNetTypeError('%s does not support assignment with %s' % (type(self).__name__, type(value)))
        if tuple(t.shape) != self._shape:
            try:
                t = t.expand(self._shape)
            except RuntimeError:
                raise MXNetValueError('cannot assign an array of shape %s to a %s of shape %s'
                                      % (tuple(t.shape), type(self).__name__, self._shape)) from None
        self._assign_comps(self._from_dense(t.contiguous()))

    def _unsupported(self, name, *args, **kwargs):
        raise NotSupportedForSparseNDArray(getattr(NDArray, name), None)

    def _slice(self, start, stop):
        self._unsupported('_slice')

    def _at(self, idx):
        self._unsupported('_at')

    def reshape(self, *shape, **kwargs):
        self._unsupported('reshape')

    # -- arithmetic ----------------------------------------------------------------------------------------------------
    def __add__(self, other):
        return _arith(self, other, 'add')

    def __radd__(self, other):
        return _arith(self, other, 'radd')

    def __sub__(self, other):
        return _arith(self, other, 'sub')

    def __rsub__(self, other):
        return _arith(self, other, 'rsub')

    def __mul__(self, other):
        return _arith(self, other, 'mul')

    def __rmul__(self, other):
        return _arith(self, other, 'rmul')

    def __truediv__(self, other):
        return _arith(self, other, 'div')

    def __rtruediv__(self, other):
        return _arith(self, other, 'rdiv')

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __pow__(self, other):
        return _arith(self, other, 'pow')

    def __rpow__(self, other):
        return _arith(self, other, 'rpow')

    def __mod__(self, other):
        return _arith(self, other, 'mod')

    def __rmod__(self, other):
        return _arith(self, other, 'rmod')

    def __eq__(self, other):
        return _arith(self, other, 'eq')

    def __ne__(self, other):
        return _arith(self, other, 'ne')

    def __gt__(self, other):
        return _arith(self, other, 'gt')

    def __ge__(self, other):
        return _arith(self, other, 'ge')

    def __lt__(self, other):
        return _arith(self, other, 'lt')

    def __le__(self, other):
        return _arith(self, other, 'le')

    def __neg__(self):
        return _unary(self, 'negative')

    def __abs__(self):
        return _unary(self, 'abs')

    def _iop(self, other, kind):
        res = _arith(self, other, kind)
        self[:] = res
        return self

    def __iadd__(self, other):
        return self._iop(other, 'add')

    def __isub__(self, other):
        return self._iop(other, 'sub')

    def __imul__(self, other):
        return self._iop(other, 'mul')

    def __itruediv__(self, other):
        return self._iop(other, 'div')

    __idiv__ = __itruediv__


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format: ``data``, ``indices`` (columns) and ``indptr``."""

    __slots__ = ()
    _stype = 'csr'
    _num_aux = 2

    def _to_dense(self, comps):
        return _csr_to_dense(comps[0], comps[1], comps[2], self._shape)

    def _from_dense(self, t):
        return _dense_to_csr(t)

    @property
    def indptr(self):
        """The int64 row pointers (``rows + 1`` values)."""
        return NDArray._from_tensor(self._cmp()[2], self._ctx)

    def _csr_value(self):
        """The components as a bound graph takes them (``symbol.storage.CsrValue``)."""
        from ..symbol.storage import CsrValue
        return CsrValue(*self._cmp(), self._shape)

    def __getitem__(self, key):
        """Rows ``key`` (an int or a step-1 slice) as a CSRNDArray."""
        n = self._shape[0]
        if isinstance(key, _integer_types):
            k = int(key)
            if not -n <= k < n:
                raise MXNetValueError('index %d is out of bounds for axis 0 with size %d' % (k, n))
            k = k + n if k < 0 else k
            key = py_slice(k, k + 1)
        if not isinstance(key, py_slice):
            raise MXNetValueError('CSRNDArray only supports an int or a slice with step 1 as index, got %r' % (key,))
        if key.step not in (None, 1):
            raise MXNetValueError('CSRNDArray slicing only supports step 1, got %s' % key.step)
        # as MXNet: a missing or zero start/stop means 0/the end (so a[0:0] is every row)
        begin, end = key.start or 0, key.stop or n
        begin, end = begin + n if begin < 0 else begin, end + n if end < 0 else end
        begin, end = min(max(begin, 0), n), min(max(end, 0), n)
        if begin >= end:
            raise MXNetValueError('CSRNDArray slice: begin %d must be less than end %d' % (begin, end))
        data, indices, indptr = self._cmp()
        lo, hi = int(indptr[begin]), int(indptr[end])
        comps = (data[lo:hi].clone(), indices[lo:hi].clone(), indptr[begin:end + 1] - lo)
        return CSRNDArray._new(comps, (end - begin, self._shape[1]), self._ctx)

    def asscipy(self):
        """A ``scipy.sparse.csr_matrix`` copy (needs scipy)."""
        try:
            import scipy.sparse as spsp
        except ImportError:
            raise MXNetError('CSRNDArray.asscipy needs scipy: pip install scipy') from None
        data, indices, indptr = (c.detach().cpu().numpy() for c in self._cmp())
        return spsp.csr_matrix((data.copy(), indices.copy(), indptr.copy()), shape=self._shape)

    def _format_error(self, full_check):
        data, indices, indptr = self._cmp()
        if indices.dtype != _I64 or indptr.dtype != _I64:
            return 'indices and indptr must be int64'
        if indptr.numel() != self._shape[0] + 1:
            return 'indptr has %d values for %d rows' % (indptr.numel(), self._shape[0])
        if data.numel() != indices.numel():
            return 'data and indices differ in length'
        if not full_check:
            return None
        if int(indptr[0]) != 0 or int(indptr[-1]) != indices.numel() or bool((indptr.diff() < 0).any()):
            return 'indptr must start at 0, be non-decreasing and end at nnz'
        if indices.numel() and (bool((indices < 0).any()) or bool((indices >= self._shape[1]).any())):
            return 'column indices out of range'
        if indices.numel() > 1:
            same_row = _csr_rows(indptr)
            step = indices.diff()
            if bool(((step <= 0) & (same_row.diff() == 0)).any()):
                return 'column indices must be sorted and unique within each row'
        return None


class RowSparseNDArray(BaseSparseNDArray):
    """An array of which only some rows are stored: ``data`` (those rows) and ``indices`` (their row numbers)."""

    __slots__ = ()
    _stype = 'row_sparse'
    _num_aux = 1

    def _to_dense(self, comps):
        return _rsp_to_dense(comps[0], comps[1], self._shape)

    def _from_dense(self, t):
        return _dense_to_rsp(t)

    def __getitem__(self, key):
        if isinstance(key, py_slice) and key == py_slice(None):
            return self
        raise MXNetValueError('RowSparseNDArray only supports [:] for __getitem__, got %r' % (key,))

    def retain(self, *args, **kwargs):
        return retain(self, *args, **kwargs)

    def _format_error(self, full_check):
        data, indices = self._cmp()
        if indices.dtype != _I64:
            return 'indices must be int64'
        if data.shape[0] != indices.numel() or tuple(data.shape[1:]) != self._shape[1:]:
            return 'data shape %s does not match %d indices and shape %s' % (tuple(data.shape), indices.numel(),
                                                                            self._shape)
        if full_check and indices.numel():
            if bool((indices < 0).any()) or bool((indices >= self._shape[0]).any()):
                return 'row indices out of range'
            if indices.numel() > 1 and bool((indices.diff() <= 0).any()):
                return 'row indices must be sorted and unique'
        return None


_CLASSES = {'csr': CSRNDArray, 'row_sparse': RowSparseNDArray}


def _unpickle(stype, shape, comps, dev_type, dev_id):
    ctx = Context(dev_type, dev_id)
    ts = [torch.from_numpy(np.array(c)) for c in comps]
    if ctx.device_type != 'cpu':  # (back on the context's device, as a dense NDArray's unpickling)
        ts = [t.to(ctx.torch_device) for t in ts]
    return _CLASSES[stype]._new(ts, shape, ctx)


def _from_record(r):
    """A sparse array from a ``_codec.SparseRecord`` (``nd.load``)."""
    from ..context import cpu
    if r.stype == 'csr':
        indptr, indices = r.aux
        return CSRNDArray._new((r.data, indices.to(_I64), indptr.to(_I64)), r.shape, cpu(0))
    return RowSparseNDArray._new((r.data, r.aux[0].to(_I64)), r.shape, cpu(0))


def _empty_comps(stype, shape, td, dev):
    if stype == 'csr':
        return (torch.zeros(0, dtype=td, device=dev), torch.zeros(0, dtype=_I64, device=dev),
                torch.zeros(shape[0] + 1, dtype=_I64, device=dev))
    return torch.zeros((0,) + tuple(shape[1:]), dtype=td, device=dev), torch.zeros(0, dtype=_I64, device=dev)


def over_dense(t, stype, ctx):
    """A ``stype`` array whose values are the dense tensor ``t``, compressed when its components are read (so it
    follows later writes into ``t``, as a sparse gradient buffer must)."""
    a = _CLASSES[stype]._new(_empty_comps(stype, t.shape, t.dtype, t.device), t.shape, ctx)
    a._t = t
    return a


def _from_dense_tensor(t, stype, ctx):
    if stype == 'csr':
        if t.dim() != 2:
            raise MXNetValueError('cast_storage: csr storage needs a 2-D array, got shape %s' % (tuple(t.shape),))
        return CSRNDArray._new(_dense_to_csr(t), t.shape, ctx)
    if stype == 'row_sparse':
        if t.dim() < 1:
            raise MXNetValueError('cast_storage: row_sparse storage needs at least one axis')
        return RowSparseNDArray._new(_dense_to_rsp(t), t.shape, ctx)
    raise MXNetValueError('unknown storage type %r' % (stype,))


# ---- creation -------------------------------------------------------------------------------------------------------
def _shape_of(shape):
    return tuple(int(s) for s in shape)


def _td(dtype, default=None):
    if dtype is None:
        return default if default is not None else torch.float32
    return to_torch_dtype(dtype)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage ``stype`` ('default', 'row_sparse' or 'csr')."""
    if stype == 'default':
        from .ndarray import zeros as _dense_zeros
        return _dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in _CLASSES:
        raise MXNetValueError("unknown storage type %r: expected 'default', 'row_sparse' or 'csr'" % (stype,))
    out = kwargs.pop('out', None)
    if kwargs:
        raise MXNetTypeError('sparse.zeros: unknown arguments %s' % ', '.join(sorted(kwargs)))
    shape = _shape_of((shape,) if isinstance(shape, _integer_types) else shape)
    if stype == 'csr' and len(shape) != 2:
        raise MXNetValueError('csr storage needs a 2-D shape, got %s' % (shape,))
    ctx, dev = _device_ctx(ctx)
    res = _CLASSES[stype]._new(_empty_comps(stype, shape, _td(dtype), dev), shape, ctx)
    if out is not None:
        out[:] = res
        return out
    return res


def empty(stype, shape, ctx=None, dtype=None):
    """Same as ``zeros`` (a sparse array has no uninitialised values)."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def _as_tensor(x, td, dev):
    if isinstance(x, NDArray):
        t = x._t.detach()
    elif isinstance(x, torch.Tensor):
        t = x.detach()
    else:
        t = torch.as_tensor(np.asarray(x))
    return t.to(device=dev, dtype=td if td is not None else t.dtype)


def _default_dtype(src, dtype):
    if dtype is not None:
        return to_torch_dtype(dtype)
    if isinstance(src, NDArray):
        return src._tdtype if isinstance(src, BaseSparseNDArray) else src._t.dtype
    if isinstance(src, (np.ndarray, torch.Tensor)) or _is_scipy(src):
        return to_torch_dtype(src.dtype) if not isinstance(src, torch.Tensor) else src.dtype
    return torch.float32


def _is_scipy(x):
    mod = type(x).__module__
    return mod.startswith('scipy.sparse')


def _check_shape(given, inferred):
    if given is not None and _shape_of(given) != tuple(inferred):
        raise MXNetValueError('shape mismatch: the given shape %s differs from the data shape %s'
                              % (_shape_of(given), tuple(inferred)))


def _dense_source(arg1, shape, ctx, dtype, stype):
    ctx, dev = _device_ctx(ctx)
    td = _default_dtype(arg1, dtype)
    if isinstance(arg1, BaseSparseNDArray):
        if arg1.stype != stype:
            raise MXNetValueError('expected a %s source, got %s' % (stype, arg1.stype))
        _check_shape(shape, arg1.shape)
        comps = arg1._cmp()
        return arg1._like([comps[0].to(dev, td, copy=True)] + [c.to(dev, copy=True) for c in comps[1:]], ctx)
    t = _as_tensor(arg1, td, dev)
    _check_shape(shape, t.shape)
    return _from_dense_tensor(t.contiguous(), stype, ctx)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, ``(data, (row, col))``, a shape ``(M, N)`` (all zeros), a
    scipy sparse matrix, a CSRNDArray, or a dense array-like."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
            return _csr_from_coo(arg1[0], arg1[1][0], arg1[1][1], shape, ctx, dtype)
        if len(arg1) == 2 and all(isinstance(s, _integer_types) for s in arg1):
            _check_shape(shape, _shape_of(arg1))
            return zeros('csr', arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_definition(arg1[0], arg1[1], arg1[2], shape, ctx, dtype)
        raise MXNetValueError('csr_matrix: unexpected tuple of length %d' % len(arg1))
    if _is_scipy(arg1):
        if arg1.format != 'csr':
            raise MXNetValueError('csr_matrix: unexpected scipy.sparse format %r (csr only)' % arg1.format)
        csr = arg1.copy()
        csr.sum_duplicates()
        csr.sort_indices()
        _check_shape(shape, csr.shape)
        return _csr_from_definition(csr.data, csr.indices, csr.indptr, csr.shape, ctx,
                                    dtype if dtype is not None else csr.dtype)
    return _dense_source(arg1, shape, ctx, dtype, 'csr')


def _csr_from_definition(data, indices, indptr, shape, ctx, dtype):
    ctx, dev = _device_ctx(ctx)
    td = _default_dtype(data, dtype)
    data = _as_tensor(data, td, dev).reshape(-1)
    indices = _as_tensor(indices, _I64, dev).reshape(-1)
    indptr = _as_tensor(indptr, _I64, dev).reshape(-1)
    if data.numel() != indices.numel():
        raise MXNetValueError('csr_matrix: data (%d) and indices (%d) differ in length' % (data.numel(),
                                                                                          indices.numel()))
    if shape is None:
        if indices.numel() == 0:
            raise MXNetValueError('csr_matrix: cannot infer the shape from empty indices; give shape')
        shape = (indptr.numel() - 1, int(indices.max()) + 1)
    shape = _shape_of(shape)
    if len(shape) != 2:
        raise MXNetValueError('csr_matrix: shape must be 2-D, got %s' % (shape,))
    return CSRNDArray._new((data, indices, indptr), shape, ctx)


def _csr_from_coo(data, row, col, shape, ctx, dtype):
    ctx, dev = _device_ctx(ctx)
    if dtype is None and not isinstance(data, (NDArray, np.ndarray, torch.Tensor)):
        dtype = np.asarray(data).dtype  # MXNet goes through scipy here: lists keep numpy's dtype
    td = _default_dtype(data, dtype)
    data = _as_tensor(data, td, dev).reshape(-1)
    row = _as_tensor(row, _I64, dev).reshape(-1)
    col = _as_tensor(col, _I64, dev).reshape(-1)
    if shape is None:
        shape = (int(row.max()) + 1 if row.numel() else 0, int(col.max()) + 1 if col.numel() else 0)
    shape = _shape_of(shape)
    coo = torch.sparse_coo_tensor(torch.stack([row, col]), data, shape, check_invariants=True)
    coo = coo.coalesce()  # sorted, duplicates summed
    r, c = coo.indices()
    indptr = torch.zeros(shape[0] + 1, dtype=_I64, device=dev)
    torch.cumsum(torch.bincount(r, minlength=shape[0]), 0, out=indptr[1:])
    return CSRNDArray._new((coo.values(), c.contiguous(), indptr), shape, ctx)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)``, a shape (all zeros), a RowSparseNDArray, or a dense
    array-like."""
    if isinstance(arg1, tuple):
        if all(isinstance(s, _integer_types) for s in arg1):
            _check_shape(shape, _shape_of(arg1))
            return zeros('row_sparse', arg1, ctx=ctx, dtype=dtype)
        if len(arg1) != 2:
            raise MXNetValueError('row_sparse_array: expected (data, indices), got a tuple of length %d' % len(arg1))
        return _rsp_from_definition(arg1[0], arg1[1], shape, ctx, dtype)
    return _dense_source(arg1, shape, ctx, dtype, 'row_sparse')


def _rsp_from_definition(data, indices, shape, ctx, dtype):
    ctx, dev = _device_ctx(ctx)
    td = _default_dtype(data, dtype)
    data = _as_tensor(data, td, dev)
    indices = _as_tensor(indices, _I64, dev).reshape(-1)
    if data.dim() == 0 or data.shape[0] != indices.numel():
        raise MXNetValueError('row_sparse_array: data has %s rows but there are %d indices'
                              % (tuple(data.shape)[:1], indices.numel()))
    if shape is None:
        if indices.numel() == 0:
            raise MXNetValueError('row_sparse_array: cannot infer the shape from empty indices; give shape')
        shape = (int(indices.max()) + 1,) + tuple(data.shape[1:])
    shape = _shape_of(shape)
    if tuple(data.shape[1:]) != shape[1:]:
        raise MXNetValueError('row_sparse_array: data shape %s does not fit shape %s' % (tuple(data.shape), shape))
    return RowSparseNDArray._new((data, indices), shape, ctx)


def array(source_array, ctx=None, dtype=None):
    """A sparse array copied from a CSRNDArray/RowSparseNDArray or a scipy sparse matrix."""
    if isinstance(source_array, BaseSparseNDArray):
        ctx = source_array.context if ctx is None else ctx
        f = csr_matrix if source_array.stype == 'csr' else row_sparse_array
        return f(source_array, ctx=ctx, dtype=dtype)
    if _is_scipy(source_array) and source_array.format == 'csr':
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise MXNetValueError('sparse.array: expected a sparse NDArray or a scipy.sparse matrix, got %s'
                          % type(source_array).__name__)


def cast_storage(data, stype, out=None, name=None):  # noqa: ARG001
    """``data`` converted to storage ``stype`` (a new array)."""
    if out is not None:
        return _to_out(cast_storage(data, stype), out)
    if stype not in ('default', 'row_sparse', 'csr'):
        raise MXNetValueError("cast_storage: invalid stype %r; valid values are 'default', 'row_sparse', 'csr'"
                              % (stype,))
    if isinstance(data, BaseSparseNDArray):
        return data.tostype(stype)
    if not isinstance(data, NDArray):
        raise MXNetTypeError('cast_storage: data must be an NDArray, got %s' % type(data).__name__)
    if stype == 'default':
        return _wrap(data._t.clone(), data._ctx)
    return _from_dense_tensor(data._t.detach(), stype, data._ctx)


def _ndarray_cls(handle, writable=True, stype='default'):
    raise unsupported('mx.nd.sparse._ndarray_cls', 'NDArray handles', 'mxcompat arrays have no C handles')


# ---- storage-aware operators ----------------------------------------------------------------------------------------
def _op(name):
    from . import op, _internal
    return getattr(_internal if name.startswith('_') else op, name)


def _sp(x):
    return isinstance(x, BaseSparseNDArray)


_ZERO_PRESERVING = frozenset(
    'relu negative abs sign round rint ceil floor trunc fix sin tan arcsin arctan degrees radians sinh tanh '
    'arcsinh arctanh log1p expm1 square sqrt cbrt _copy'.split())


def _unary(x, name, **attrs):
    """A zero-preserving unary op on the stored values only; the storage type is kept."""
    from ..operator import registry
    op = registry.get(name)
    attrs = op.parse_attrs(attrs)
    comps = x._cmp()
    return x._like((op.impl(comps[0], **attrs),) + tuple(c.clone() for c in comps[1:]))


_SCALAR_FNS = {
    'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'div': torch.div,
    'rsub': lambda a, s: s - a, 'rdiv': lambda a, s: s / a, 'radd': torch.add, 'rmul': torch.mul,
    'eq': torch.eq, 'ne': torch.ne, 'gt': torch.gt, 'ge': torch.ge, 'lt': torch.lt, 'le': torch.le,
}
_DENSE_OPS = {'add': '__add__', 'sub': '__sub__', 'rsub': '__rsub__', 'mul': '__mul__', 'div': '__truediv__',
              'rdiv': '__rtruediv__', 'pow': '__pow__', 'rpow': '__rpow__', 'mod': '__mod__', 'rmod': '__rmod__',
              'eq': '__eq__', 'ne': '__ne__', 'gt': '__gt__', 'ge': '__ge__', 'lt': '__lt__', 'le': '__le__'}
_CMP = frozenset(('eq', 'ne', 'gt', 'ge', 'lt', 'le'))
_REFLECTED = {'radd': 'add', 'rmul': 'mul', 'rsub': 'sub', 'rdiv': 'div', 'rpow': 'pow', 'rmod': 'mod'}


def _dense_of(x):
    return _wrap(x._dns(), x._ctx) if _sp(x) else x


def _arith(x, other, kind):
    """``x (kind) other`` for a sparse ``x`` with MXNet's output storage: with a scalar the storage is kept when
    the op maps 0 to 0 (``x * 2``, ``x > 0.5``; never for powers); see ``_binary_sparse`` for arrays."""
    if _recorded((x, other)):
        return getattr(NDArray, _DENSE_OPS.get(kind, '__%s__' % kind))(x, other)
    if isinstance(other, numeric_types) and kind in _SCALAR_FNS:
        fn = _SCALAR_FNS[kind]
        td = x._tdtype
        zero = torch.zeros((), dtype=td)  # a host probe of f(0): the storage decision is the same on every device
        from .ndarray import _scalar_for
        s = _scalar_for(zero, other)
        if kind in ('mul', 'rmul', 'div') or bool(fn(zero, s) == 0):
            comps = x._cmp()
            v = fn(comps[0], s)
            if kind in _CMP:
                v = v.to(td)
            elif kind in ('div', 'rdiv') and not td.is_floating_point:
                v = torch.div(comps[0], s, rounding_mode='trunc') if kind == 'div' else v.to(td)
            return x._like((v,) + tuple(c.clone() for c in comps[1:]))
    if isinstance(other, NDArray):
        if kind in _REFLECTED:  # ``other (op) x`` with an array on the left: its own (dense) operator, as MXNet
            return getattr(NDArray, _DENSE_OPS[_REFLECTED[kind]])(_dense_of(other), x)
        if kind in ('add', 'sub', 'mul', 'div'):
            res = _binary_sparse(x, other, kind)
            if res is not NotImplemented:
                return res
    elif kind in ('radd', 'rmul'):
        kind = kind[1:]
    dense = _wrap(x._dns(), x._ctx)
    return getattr(dense, _DENSE_OPS[kind])(_dense_of(other))


def _binary_sparse(lhs, rhs, kind):
    """``lhs (kind) rhs`` for a sparse ``lhs`` with MXNet's operator rules, or NotImplemented (dense fallback):
    same-shape arrays follow elemwise_* (sparse (op) same-stype sparse keeps the storage for add/sub/mul, sparse *
    dense keeps it), other shapes broadcast_* (csr * or / a broadcast dense array stays csr)."""
    if _sp(rhs):
        return _combine(lhs, rhs, kind)
    if kind == 'mul' and rhs.shape == lhs.shape:
        return _scale(lhs, rhs, torch.mul)
    if kind in ('mul', 'div') and isinstance(lhs, CSRNDArray):
        return _scale(lhs, rhs, torch.mul if kind == 'mul' else torch.div)
    return NotImplemented


def _combine(lhs, rhs, kind):
    """Two sparse arrays of one storage type and shape: add, sub, mul keep the storage type."""
    if rhs.stype != lhs.stype or rhs.shape != lhs.shape or kind not in ('add', 'sub', 'mul'):
        return NotImplemented
    if lhs._tdtype != rhs._tdtype:
        raise MXNetTypeError('Operator elemwise_%s: Incompatible attr in node at 1-th input: expected %s, got %s'
                             % (kind, lhs.dtype, rhs.dtype))
    if lhs.stype == 'row_sparse':
        return _rsp_combine(lhs, rhs, kind)
    fn = {'add': torch.add, 'sub': torch.sub, 'mul': torch.mul}[kind]
    return _from_dense_tensor(fn(lhs._dns(), rhs._dns()), 'csr', lhs._ctx)


def _scale(sp, dense, fn):
    """``fn(stored values, dense values at the stored positions)``: the storage of ``sp`` is kept."""
    d = dense._t
    if d.dtype != sp._tdtype:
        raise MXNetTypeError('Operator broadcast_mul: Incompatible attr in node at 1-th input: expected %s, got %s'
                             % (sp.dtype, dense.dtype))
    try:
        if torch.broadcast_shapes(d.shape, sp.shape) != sp.shape:
            return NotImplemented
    except RuntimeError:
        return NotImplemented
    d = d.expand(sp.shape)
    comps = sp._cmp()
    picked = d[_csr_rows(comps[2]), comps[1]] if sp.stype == 'csr' else d[comps[1]]
    return sp._like((fn(comps[0], picked),) + tuple(c.clone() for c in comps[1:]))


def _rsp_union(arrays):
    idx = torch.unique(torch.cat([a._cmp()[1] for a in arrays]))  # sorted
    return idx, [torch.searchsorted(idx, a._cmp()[1]) for a in arrays]


def _rsp_combine(a, b, kind):
    da, ia = a._cmp()
    db, ib = b._cmp()
    if kind == 'mul':
        ka, kb = torch.isin(ia, ib), torch.isin(ib, ia)
        return a._like((da[ka] * db[kb], ia[ka].clone()))
    idx, (pa, pb) = _rsp_union([a, b])
    out = torch.zeros((idx.numel(),) + tuple(da.shape[1:]), dtype=da.dtype, device=da.device)
    out.index_add_(0, pa, da)
    out.index_add_(0, pb, db if kind == 'add' else -db)
    return a._like((out, idx))


def add(lhs, rhs):
    """``lhs + rhs`` (arrays or scalars, with broadcasting); sparse storage kept where MXNet keeps it."""
    return _ufunc(lhs, rhs, 'add', 'add')


def subtract(lhs, rhs):
    """``lhs - rhs`` (arrays or scalars, with broadcasting)."""
    return _ufunc(lhs, rhs, 'sub', 'rsub')


def multiply(lhs, rhs):
    """``lhs * rhs`` (arrays or scalars, with broadcasting)."""
    return _ufunc(lhs, rhs, 'mul', 'mul')


def divide(lhs, rhs):
    """``lhs / rhs`` (arrays or scalars, with broadcasting)."""
    return _ufunc(lhs, rhs, 'div', 'rdiv')


def _ufunc(lhs, rhs, kind, rkind):
    if _sp(lhs):
        return _arith(lhs, rhs, kind)
    if _sp(rhs) and isinstance(lhs, numeric_types):
        return _arith(rhs, lhs, rkind)
    from . import ndarray as _nd
    return getattr(_nd, {'add': 'add', 'sub': 'subtract', 'mul': 'multiply', 'div': 'divide'}[kind])(
        _dense_of(lhs), _dense_of(rhs))


def _elemwise(kind):
    def f(lhs, rhs, out=None, name=None):  # noqa: ARG001
        res = NotImplemented
        if _sp(lhs) and _sp(rhs):
            res = _combine(lhs, rhs, kind)
        elif kind == 'mul' and (_sp(lhs) or _sp(rhs)) and lhs.shape == rhs.shape:
            res = _scale(lhs, rhs, torch.mul) if _sp(lhs) else _scale(rhs, lhs, torch.mul)
        if res is NotImplemented:
            return _op('elemwise_' + kind)(_dense_of(lhs), _dense_of(rhs), out=out)
        return _to_out(res, out)
    return f


def _broadcast(kind):
    def f(lhs, rhs, out=None, name=None):  # noqa: ARG001
        res = NotImplemented
        if kind in ('mul', 'div') and isinstance(lhs, CSRNDArray) and not _sp(rhs):
            res = _scale(lhs, rhs, torch.mul if kind == 'mul' else torch.div)
        if res is NotImplemented:
            return _op('broadcast_' + kind)(_dense_of(lhs), _dense_of(rhs), out=out)
        return _to_out(res, out)
    return f


def _to_out(res, out):
    if out is None:
        return res
    out[:] = res
    return out


def retain(data=None, indices=None, out=None, name=None, **kwargs):  # noqa: ARG001
    """A RowSparseNDArray storing exactly the rows ``indices`` (sorted, as MXNet requires) of row_sparse
    ``data``. Differs from MXNet: unknown keyword arguments raise (MXNet ignores them here)."""
    if kwargs:
        from ..operator import registry
        registry.get('_sparse_retain').parse_attrs(kwargs)  # raises, naming the op and the argument
    if not isinstance(data, RowSparseNDArray):
        raise MXNetError('Operator _sparse_retain: data must be a RowSparseNDArray, got storage %s'
                         % getattr(data, 'stype', type(data).__name__))
    d, idx = data._cmp()
    want = indices._t.detach() if isinstance(indices, NDArray) else torch.as_tensor(np.asarray(indices))
    want = want.reshape(-1).to(_I64).to(idx.device)
    pos = torch.searchsorted(idx, want).clamp(max=max(idx.numel() - 1, 0))
    found = (idx[pos] == want) if idx.numel() else torch.zeros_like(want, dtype=torch.bool)
    res = torch.zeros((want.numel(),) + tuple(d.shape[1:]), dtype=d.dtype, device=d.device)
    res[found] = d[pos[found]]
    return _to_out(data._like((res, want.clone())), out)


def _square_sum(data, axis=None, keepdims=False, exclude=False, out=None, name=None):  # noqa: ARG001
    """Sum of squares; a row_sparse input with ``axis=1, keepdims=True`` gives a row_sparse result (MXNet)."""
    if isinstance(data, CSRNDArray):
        raise MXNetError('Operator _square_sum: not implemented for csr input (row_sparse or dense only)')
    if isinstance(data, RowSparseNDArray) and axis in (1, -1, (1,), (-1,)) and keepdims and not exclude \
            and data.ndim == 2:
        d, idx = data._cmp()
        res = RowSparseNDArray._new(((d * d).sum(1, keepdim=True), idx.clone()), (data.shape[0], 1), data._ctx)
        return _to_out(res, out)
    return _op('_square_sum')(_dense_of(data), axis=axis, keepdims=keepdims, exclude=exclude, out=out)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None, name=None):  # noqa: ARG001
    """Matrix product with sparse inputs, with MXNet's output storage: csr x dense (or row_sparse) gives a dense
    array, csr.T x dense a row_sparse one, dense x csr (or csr.T) a csr one; other combinations are dense.
    ``forward_stype`` asks for the result's storage (a csr result must be 2-D: MXNet makes N-D ones it cannot
    read back)."""
    if forward_stype not in (None, 'default', 'csr', 'row_sparse'):
        raise MXNetValueError("Operator dot: forward_stype must be one of None, 'default', 'csr', 'row_sparse', "
                              "got %r" % (forward_stype,))
    res = _dot_sparse(lhs, rhs, transpose_a, transpose_b)
    if res is NotImplemented:
        if forward_stype in (None, 'default'):
            return _op('dot')(_dense_of(lhs), _dense_of(rhs), transpose_a=transpose_a, transpose_b=transpose_b,
                              out=out)
        res = _op('dot')(_dense_of(lhs), _dense_of(rhs), transpose_a=transpose_a, transpose_b=transpose_b)
    if forward_stype in (None, res.stype):
        return _to_out(res, out)
    if forward_stype == 'default':
        return _to_out(res.tostype('default'), out)
    if forward_stype == 'csr' and res.ndim != 2:
        raise MXNetValueError("Operator dot: forward_stype='csr' needs a 2-D result, got shape %s" % (res.shape,))
    # over the dense values (csr and row_sparse do not convert into each other directly); over a dense result,
    # a recorded product keeps its gradient, as in MXNet
    return _to_out(over_dense(res._t, forward_stype, res._ctx), out)


def _check_dot(l_t, r_t):
    if l_t.dtype != r_t.dtype:
        raise MXNetTypeError('Operator dot: Incompatible attr in node at 1-th input: expected %s, got %s'
                             % (to_np_dtype(l_t.dtype), to_np_dtype(r_t.dtype)))


def _dot_sparse(lhs, rhs, ta, tb):
    # csr.T x rhs.T takes the dense path, as in MXNet (a dense result)
    if isinstance(lhs, CSRNDArray) and not isinstance(rhs, CSRNDArray) and rhs.ndim == 2 and not (ta and tb):
        data, cols, indptr = lhs._cmp()
        rows = _csr_rows(indptr)
        r = rhs._t.t() if tb else rhs._t
        _check_dot(data, r)
        n_in = lhs.shape[0] if ta else lhs.shape[1]
        if r.shape[0] != n_in:
            raise MXNetValueError('Operator dot: shapes %s%s and %s%s do not match'
                                  % (lhs.shape, '.T' if ta else '', rhs.shape, '.T' if tb else ''))
        if ta and isinstance(rhs, RowSparseNDArray):  # only the stored rows of rhs contribute (and are listed)
            hit = torch.isin(rows, rhs._cmp()[1])
            data, cols, rows = data[hit], cols[hit], rows[hit]
        src, dst = (cols, rows) if not ta else (rows, cols)
        n_out = lhs.shape[1] if ta else lhs.shape[0]
        out = _spmm(data, dst, src, (n_out, r.shape[0]), r)
        if not ta:
            return _wrap(out, lhs._ctx)
        keep = torch.unique(cols)
        return RowSparseNDArray._new((out[keep], keep), out.shape, lhs._ctx)
    if isinstance(rhs, CSRNDArray) and not _sp(lhs) and lhs.ndim == 2:
        data, cols, indptr = rhs._cmp()
        rows = _csr_rows(indptr)
        left = lhs._t.t() if ta else lhs._t
        _check_dot(data, left)
        src, dst = (rows, cols) if not tb else (cols, rows)
        n_in = rhs.shape[1] if tb else rhs.shape[0]
        if left.shape[1] != n_in:
            raise MXNetValueError('Operator dot: shapes %s%s and %s%s do not match'
                                  % (lhs.shape, '.T' if ta else '', rhs.shape, '.T' if tb else ''))
        n_out = rhs.shape[0] if tb else rhs.shape[1]
        out = _spmm(data, dst, src, (n_out, left.shape[1]), left.t()).t()
        return _from_dense_tensor(out, 'csr', lhs._ctx)  # MXNet gives csr here
    return NotImplemented


_HALF_TYPES = (torch.float16, torch.bfloat16)


def _spmm_in_float32(dense):
    """Whether a sparse product with ``dense`` runs in float32: torch's CUDA sparse kernel has no float16/bfloat16
    (its CPU kernel has)."""
    return dense.dtype in _HALF_TYPES and dense.is_cuda


def _spmm(data, rows, cols, shape, dense):
    """``S @ dense`` for the sparse matrix S of ``shape`` holding ``data`` at (rows, cols); differentiable in
    ``dense``."""
    if dense.is_floating_point():
        if _spmm_in_float32(dense):
            # products and sums in float32, the result cast back (a differentiable round trip: the gradient reaches
            # ``dense`` in its own dtype)
            return _spmm(data.float(), rows, cols, shape, dense.float()).to(dense.dtype)
        coo = torch.sparse_coo_tensor(torch.stack([rows, cols]), data, shape, check_invariants=False)
        return torch.sparse.mm(coo, dense)
    out = torch.zeros((shape[0], dense.shape[1]), dtype=dense.dtype, device=dense.device)
    return out.index_add(0, rows, dense[cols] * data.unsqueeze(1))


def add_n(*args, out=None, name=None, **kwargs):  # noqa: ARG001
    """Sum of arrays; all row_sparse inputs give a row_sparse result (the union of their rows)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if args and all(isinstance(a, RowSparseNDArray) for a in args) and len({a.shape for a in args}) == 1 \
            and len({a._tdtype for a in args}) == 1:
        idx, pos = _rsp_union(args)
        d0 = args[0]._cmp()[0]
        acc = torch.zeros((idx.numel(),) + tuple(d0.shape[1:]), dtype=d0.dtype, device=d0.device)
        for a, p in zip(args, pos):
            acc.index_add_(0, p, a._cmp()[0])
        return _to_out(args[0]._like((acc, idx)), out)
    return _op('add_n')(*[_dense_of(a) for a in args], out=out, **kwargs)


def _zeros_like(data, out=None, name=None):  # noqa: ARG001
    if _sp(data):
        comps = data._cmp()
        return _to_out(data._like(_empty_comps(data.stype, data.shape, comps[0].dtype, comps[0].device)), out)
    return _op('zeros_like')(data, out=out)


def _clip(data, a_min, a_max, out=None, name=None):  # noqa: ARG001
    if _sp(data):
        if not float(a_min) <= 0 <= float(a_max):
            raise MXNetError('Operator clip: not implemented for %s input when 0 is outside [a_min, a_max] = '
                             '[%s, %s] (MXNet has no dense fallback here)' % (data.stype, a_min, a_max))
        return _to_out(_unary(data, 'clip', a_min=a_min, a_max=a_max), out)
    return _op('clip')(data, a_min, a_max, out=out)


def _unary_fn(name):
    def f(data, out=None, name=None, **kwargs):  # noqa: ARG001
        if _sp(data) and not kwargs:
            return _to_out(_unary(data, fname), out)
        return _op(fname)(_dense_of(data), out=out, **kwargs)
    fname = name
    f.__name__ = name
    f.__doc__ = 'Elementwise %s; a sparse input keeps its storage type (0 maps to 0).' % name
    return f


def _via_dense(name, csr_out=None):
    """An op computed densely; when ``csr_out(args, kwargs)`` holds the result is csr (MXNet's slice, take,
    concat of csr arrays)."""
    def f(*args, **kwargs):
        out = kwargs.pop('out', None)
        to_csr = csr_out is not None and csr_out(args, kwargs)
        res = _op(name)(*[_dense_of(a) for a in args], **{k: _dense_of(v) for k, v in kwargs.items()})
        if to_csr and res.ndim == 2:
            res = _from_dense_tensor(res._t, 'csr', res._ctx)
        return _to_out(res, out)
    f.__name__ = name
    f.__doc__ = 'Same as ``mx.nd.%s`` (sparse inputs are used through their dense values).' % name
    return f


def _getnnz(data, axis=None, out=None, name=None):  # noqa: ARG001
    """Stored entries of a csr array: in total (axis None) or per row (axis 1)."""
    if not isinstance(data, CSRNDArray):
        return _op('_contrib_getnnz')(data, axis=axis, out=out)
    _, cols, indptr = data._cmp()
    if axis is None:
        res = torch.tensor([cols.numel()], dtype=_I64, device=cols.device)
    elif axis in (1, -1):
        res = indptr.diff()
    else:
        raise MXNetError('Operator _contrib_getnnz: axis must be None or 1 for csr input, got %s' % (axis,))
    return _to_out(_wrap(res, data._ctx), out)


def _lazy_update(opname):
    """sgd/sgd_mom/adam updates: with a row_sparse gradient and ``lazy_update`` (the default) only the rows the
    gradient stores are updated, weight and states alike (MXNet's lazy update); otherwise the dense update."""
    def f(weight, grad, *states, out=None, name=None, **kwargs):  # noqa: ARG001
        dense_rest = not _sp(weight) and not any(_sp(st) for st in states)
        if not (isinstance(grad, RowSparseNDArray) and dense_rest and kwargs.get('lazy_update', True)):
            return _op(opname)(_dense_of(weight), _dense_of(grad), *[_dense_of(st) for st in states], out=out,
                               **kwargs)
        from ..operator import registry
        attrs = registry.get(opname).parse_attrs(kwargs)
        gdata, rows = grad._cmp()
        w = weight._t
        with torch.no_grad():
            picked = [st._t[rows] for st in states]
            new_rows = registry.get(opname).impl(w[rows], gdata, *picked, **attrs)  # updates ``picked`` in place
            for st, p in zip(states, picked):
                st._t[rows] = p
            if out is None:
                res = w.detach().clone()
                res[rows] = new_rows
                return _wrap(res, weight._ctx)
            if out is not weight:
                out[:] = weight
            out._t[rows] = new_rows
        return out
    f.__name__ = opname
    f.__doc__ = _lazy_update.__doc__
    return f


def check_sparse_adagrad(weight, grad, history, wd):
    """MXNet's storage rule for _sparse_adagrad_update: a row_sparse gradient, a weight and history of one storage
    type (default or row_sparse), and ``wd == 0``; otherwise MXNet has no kernel to dispatch to."""
    stypes = [getattr(a, 'stype', 'default') for a in (weight, grad, history)]
    if stypes[1] != 'row_sparse' or stypes[0] == 'csr' or stypes[2] != stypes[0] or wd != 0:
        raise MXNetError("Operator not implemented: operator = _sparse_adagrad_update, input storage types = [%s], "
                         "wd = %s (the sparse update needs a row_sparse gradient, wd=0 and a history of the weight's "
                         "storage type)" % (', '.join(stypes), wd))


def adagrad_update(weight=None, grad=None, history=None, lr=_NULL, epsilon=_NULL, wd=_NULL, rescale_grad=_NULL,
                   clip_gradient=_NULL, out=None, name=None, **kwargs):  # noqa: ARG001
    """MXNet's _sparse_adagrad_update, in place on ``out`` (which must be ``weight``): for each row a row_sparse
    ``grad`` stores, ``g = clip(rescale_grad * g)``, ``history += g^2``, ``weight -= lr * g / sqrt(history +
    epsilon)``; other rows keep their values."""
    from ..optimizer import _ops as opt_ops
    from ..optimizer._base import lazy_rows
    if kwargs:
        raise MXNetError('Operator _sparse_adagrad_update: unknown argument(s) %s' % ', '.join(sorted(kwargs)))
    if lr is _NULL:
        raise MXNetError('Required parameter lr of float is not presented, in operator _sparse_adagrad_update')
    attrs = {k: float(d if v is _NULL else v) for k, v, d in (
        ('lr', lr, None), ('epsilon', epsilon, 1e-7), ('wd', wd, 0.0), ('rescale_grad', rescale_grad, 1.0),
        ('clip_gradient', clip_gradient, -1.0))}
    check_sparse_adagrad(weight, grad, history, attrs['wd'])
    if out is not weight:
        raise MXNetError('Operator _sparse_adagrad_update: out must be weight (the update is in place: '
                         'kWriteInplace is expected for sparse adagrad_update)')
    with torch.no_grad():
        lazy_rows(opt_ops.sparse_adagrad_update, weight, grad, (history,), attrs['lr'], attrs['epsilon'],
                  attrs['rescale_grad'], attrs['clip_gradient'])
    return weight


def _embedding(data, weight, input_dim, output_dim, dtype='float32', sparse_grad=False, out=None, name=None):  # noqa
    return _op('Embedding')(_dense_of(data), _dense_of(weight), input_dim=input_dim, output_dim=output_dim,
                            dtype=dtype, sparse_grad=sparse_grad, out=out)


# The functions of MXNet's mx.nd.sparse namespace (and the sparse rules of mx.nd.<name> for sparse inputs).
SPARSE_FUNCS = {
    'retain': retain, '_square_sum': _square_sum, 'dot': dot, 'add_n': add_n, 'ElementWiseSum': add_n,
    'zeros_like': _zeros_like, 'clip': _clip, 'getnnz': _getnnz, 'Embedding': _embedding,
    'elemwise_add': _elemwise('add'), 'elemwise_sub': _elemwise('sub'), 'elemwise_mul': _elemwise('mul'),
    'broadcast_mul': _broadcast('mul'), 'broadcast_div': _broadcast('div'), 'broadcast_add': _broadcast('add'),
    'broadcast_sub': _broadcast('sub'), 'broadcast_plus': _broadcast('add'), 'broadcast_minus': _broadcast('sub'),
    'slice': _via_dense('slice', lambda a, k: isinstance(a[0], CSRNDArray) and k.get('step') in (None, (), (1,))),
    'take': _via_dense('take', lambda a, k: isinstance(a[0], CSRNDArray)),
    'sgd_update': _lazy_update('sgd_update'), 'sgd_mom_update': _lazy_update('sgd_mom_update'),
    'adam_update': _lazy_update('adam_update'), 'adagrad_update': adagrad_update,
    'concat': _via_dense('concat', lambda a, k: all(isinstance(x, CSRNDArray) for x in a)
                         and int(k.get('dim', 1)) == 0),
}
for _n in sorted(_ZERO_PRESERVING - {'_copy'}):
    SPARSE_FUNCS[_n] = _unary_fn(_n)
# Ops that MXNet lists under mx.nd.sparse and that work here through dense values.
for _n in ('arccos arccosh cos cosh exp gamma gammaln log log10 log2 rsqrt sigmoid elemwise_div mean sum norm '
           'where concat FullyConnected make_loss stop_gradient LinearRegressionOutput LogisticRegressionOutput '
           'MAERegressionOutput ftrl_update').split():
    SPARSE_FUNCS.setdefault(_n, _via_dense(_n))
globals().update(SPARSE_FUNCS)
__all__ += [k for k in SPARSE_FUNCS if not k.startswith('_')]


def dispatch(name, arrays, kwargs, out):
    """The storage-aware result of mx.nd.<name> for sparse inputs, or NotImplemented (hook for register.py)."""
    f = _DISPATCH.get(name)
    if f is None or _recorded(arrays):
        return NotImplemented
    return f(*arrays, out=out, **kwargs)


def _recorded(arrays):
    """Whether autograd is recording with a sparse input that has a gradient attached: then the op runs on the
    dense values so that the gradient flows (the result is dense)."""
    if not _ag.STATE.recording:
        return False
    return any(isinstance(a, BaseSparseNDArray) and a._dense is not None and a._dense.requires_grad for a in arrays)


def _quadratic(data, a=0.0, b=0.0, c=0.0, out=None, name=None):  # noqa: ARG001
    """contrib.quadratic: a csr input with ``c == 0`` keeps its storage (``f(0) = 0``), as in MXNet; any other
    sparse input is computed on its dense values (a dense result, as MXNet's storage fallback)."""
    if isinstance(data, CSRNDArray) and float(c) == 0:
        return _to_out(_unary(data, '_contrib_quadratic', a=a, b=b, c=c), out)
    return _op('_contrib_quadratic')(_dense_of(data), a=a, b=b, c=c, out=out)


_DISPATCH = dict(SPARSE_FUNCS)
_DISPATCH['_sparse_retain'] = retain
_DISPATCH['_contrib_getnnz'] = _getnnz
_DISPATCH['_contrib_quadratic'] = _quadratic


# Fluent methods of sparse arrays use the storage-aware functions.
def _fluent(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    return method


for _n in sorted(_ZERO_PRESERVING - {'_copy', 'negative'}) + ['zeros_like', 'clip', 'slice']:
    setattr(BaseSparseNDArray, _n, _fluent(SPARSE_FUNCS[_n]))
del _n


# ---- random sparse arrays for mx.test_utils (rand_sparse_ndarray and friends delegate here) -------------------------
def _rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                         rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """``mx.test_utils.rand_sparse_ndarray``: (array, parts) with numpy's global random state.

    row_sparse: each row is kept with probability ``density`` (or the rows ``rsp_indices``), values U[0, 1);
    parts = (values, indices). csr 'uniform': round(density * size) distinct positions, values U[0, 1);
    csr 'powerlaw': the first column of every row, then rows with 1, 3, 7, ... more leading columns (each row
    about twice the previous one) until density * size values are placed; parts = (indptr, indices, data).
    """
    rnd = np.random
    ctx = ctx if ctx is not None else current_context()
    density = rnd.rand() if density is None else density
    dtype = np.float32 if dtype is None else dtype
    distribution = distribution or 'uniform'
    shape = _shape_of(shape)
    if stype == 'row_sparse':
        assert distribution == 'uniform', 'Distribution %s not supported for row_sparse' % distribution
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
            assert len(indices) <= shape[0]
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            return zeros('row_sparse', shape, ctx=ctx, dtype=dtype), (np.array([], dtype=dtype), np.array([]))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = np.vectorize(modifier_func, otypes=[np.float64])(val) if val.size else val.astype(np.float64)
        arr = row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype != 'csr':
        raise AssertionError('unknown storage type ' + str(stype))
    assert len(shape) == 2, 'csr arrays are 2-D'
    m, n = shape
    if distribution == 'uniform':
        if not 0 <= density <= 1:
            raise ValueError('density must be in [0, 1], got %s' % density)
        k = int(np.round(density * m * n))
        flat = np.sort(rnd.choice(m * n, k, replace=False)) if k else np.zeros(0, np.int64)
        data = rnd.rand(k).astype(dtype)
        if data_init is not None:
            data.fill(data_init)
        rows, cols = flat // n, flat % n
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))])
        if shuffle_csr_indices:
            for r in range(m):
                seg = py_slice(indptr[r], indptr[r + 1])
                cols[seg] = rnd.permutation(cols[seg])
        arr = csr_matrix((data, cols, indptr), shape=shape, dtype=dtype, ctx=ctx)
    elif distribution == 'powerlaw':
        arr = csr_matrix(_powerlaw_dense(m, n, density, dtype), dtype=dtype, ctx=ctx)
    else:
        raise AssertionError('Distribution not supported: %s' % distribution)
    return arr, (arr.indptr, arr.indices, arr.data)


def _powerlaw_dense(m, n, density, dtype):
    total = int(m * n * density)
    if total < 2 * m:
        raise ValueError('powerlaw needs density * size >= 2 * rows, got %d values for %d rows' % (total, m))
    out = np.zeros((m, n), dtype=dtype)
    out[:, 0] = 1 + np.random.uniform(0.001, 2, size=m)
    left = total - m
    width = 2
    for r in range(m):
        limit = min(n, width)
        if limit == n and left > limit:
            out[r] = 1 + np.random.uniform(0.001, 2)
            left -= limit - 1
            continue
        take = min(limit - 1, left)
        out[r, 1:1 + take] = 1 + np.random.uniform(0.001, 2, size=take)
        left -= take
        if left <= 0:
            return out
        width *= 2
    if left > 0:
        raise ValueError('powerlaw: density %s is too high for shape (%d, %d)' % (density, m, n))
    return out


def _create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                         density=.5, shuffle_csr_indices=False):
    """``mx.test_utils.create_sparse_array``: a random sparse array (row_sparse ``rsp_indices`` get sorted)."""
    if stype not in ('row_sparse', 'csr'):
        raise AssertionError('Unknown storage type: ' + stype)
    if stype == 'row_sparse' and rsp_indices is not None:
        rsp_indices = np.sort(np.asarray(rsp_indices))
    return _rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                                rsp_indices=rsp_indices, modifier_func=modifier_func,
                                shuffle_csr_indices=shuffle_csr_indices)[0]


def _create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                            modifier_func=None, shuffle_csr_indices=False):
    """``mx.test_utils.create_sparse_array_zd``: as ``_create_sparse_array``, row_sparse with density 0 (only
    ``rsp_indices`` rows, if given)."""
    if stype == 'row_sparse':
        density = 0.0
        assert rsp_indices is None or len(rsp_indices) <= shape[0]
    return _create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                                modifier_func=modifier_func, density=density,
                                shuffle_csr_indices=shuffle_csr_indices)


from ._gaps import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr('nd.sparse', __name__)  # MXNet names mxcompat lacks: stubs that raise naming them
