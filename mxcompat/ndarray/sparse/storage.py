"""The sparse array classes over their compressed components (converted from and to dense tensors by
``operator/_sparse.py``).

A sparse array keeps its components as torch tensors (csr: ``data (nnz,)``, ``indices (nnz,)`` int64, ``indptr
(rows+1,)`` int64; row_sparse: ``data (k,) + shape[1:]`` and sorted unique int64 row ``indices``). Its ``_t`` is the
dense tensor, built on first use and cached. Writes through ``_t`` are seen through torch's version counter and the
components are rebuilt from the dense values on next use. The classes' operators are defined in ``arithmetic.py``,
their fluent methods in ``functions.py``.
"""
import numpy as np
import torch

from ...base import (MXNetError, MXNetValueError, MXNetTypeError, numeric_types, to_torch_dtype, to_np_dtype,
                     unsupported, from_host)
from ...context import Context, cpu
from ... import kernels
from ...operator._sparse import _csr_rows, _csr_to_dense, _dense_to_csr, _dense_to_rsp, _rsp_to_dense
from .._codec import SparseRecord
from ..ndarray import NDArray, _wrap

_I64 = torch.int64
_object_new = object.__new__
_integer_types = (int, np.integer)


class NotSupportedForSparseNDArray(MXNetError):
    """Raised by NDArray methods that sparse arrays do not have (as MXNet)."""

    def __init__(self, function, alias, *args):
        super().__init__('Function %s%s is not supported for SparseNDArray.'
                         % (function.__name__, ' (named %s)' % alias if alias else ''))


# ---- components of a gradient ---------------------------------------------------------------------------------------
def summed_rows(g):
    """The rows a sparse COO gradient ``g`` holds (sorted, distinct) and their summed values, the entries of a row
    added in their order in ``g``. (torch's ``coalesce`` does the same, with a slower CPU sort: see
    ``kernels.stable_argsort``.)"""
    if g.is_coalesced():
        return g.indices()[0], g.values()
    rows, values = g._indices()[0], g._values()
    fast = kernels.summed_rows(rows, values)
    if fast is not None:
        return fast
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
        if not (isinstance(key, slice) and key == slice(None)):
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
            t = from_host(np.asarray(value)).to(device=self._device, dtype=self._tdtype)
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

    # (the operators +, -, *, /, **, %, comparisons, their in-place forms, - and abs are set by arithmetic.py)


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

    def __getitem__(self, key):
        """Rows ``key`` (an int or a step-1 slice) as a CSRNDArray."""
        n = self._shape[0]
        if isinstance(key, _integer_types):
            k = int(key)
            if not -n <= k < n:
                raise MXNetValueError('index %d is out of bounds for axis 0 with size %d' % (k, n))
            k = k + n if k < 0 else k
            key = slice(k, k + 1)
        if not isinstance(key, slice):
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
            import scipy.sparse as spsp  # reason: optional dependency, loaded on first use
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
        if isinstance(key, slice) and key == slice(None):
            return self
        raise MXNetValueError('RowSparseNDArray only supports [:] for __getitem__, got %r' % (key,))

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



# ---- shared by the storage-aware functions --------------------------------------------------------------------------
def _sp(x):
    return isinstance(x, BaseSparseNDArray)


def _dense_of(x):
    return _wrap(x._dns(), x._ctx) if _sp(x) else x


def _to_out(res, out):
    if out is None:
        return res
    out[:] = res
    return out


# mx.nd's generated operator modules (op imports this package): mxcompat/ndarray/__init__.py binds them here once
# imported
_nd_op = _nd_internal = None


def _op(name):
    """The dense ``mx.nd`` function ``name`` (the storage fallback)."""
    return getattr(_nd_internal if name.startswith('_') else _nd_op, name)
