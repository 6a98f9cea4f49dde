"""Arithmetic of sparse arrays with MXNet's output storage types: the classes' operators (``x + y``, ``x * 2``,
``x > 0``, ``-x`` ...), ``add``/``subtract``/``multiply``/``divide`` and the ``elemwise_*``/``broadcast_*`` rules."""
import numpy as _onp
import torch

from ...base import numeric_types, incompatible_attr, dtype_name
from ...operator import registry
from ...operator._sparse import _csr_rows
from ...operator.elemwise import scalar_as
from ..._recording import STATE as _RECORDING
from .. import ndarray as _nd
from ..ndarray import NDArray, _wrap
from .storage import BaseSparseNDArray, CSRNDArray, _from_dense_tensor, _sp, _dense_of, _to_out, _op

def _unary(x, name, **attrs):
    """A zero-preserving unary op on the stored values only; the storage type is kept."""
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


def _arith(x, other, kind):
    """``x (kind) other`` for a sparse ``x`` with MXNet's output storage: with a scalar the storage is kept when
    the op maps 0 to 0 (``x * 2``, ``x > 0.5``; never for powers); see ``_binary_sparse`` for arrays."""
    if _recorded((x, other)):
        return getattr(NDArray, _DENSE_OPS.get(kind, '__%s__' % kind))(x, other)
    if isinstance(other, numeric_types) and kind in _SCALAR_FNS:
        fn = _SCALAR_FNS[kind]
        td = x._tdtype
        zero = torch.zeros((), dtype=td)  # a host probe of f(0): the storage decision is the same on every device
        s = scalar_as(other, td)
        # (MXNet's _mul_scalar and _div_scalar keep the storage for any scalar; _rminus_scalar and _rdiv_scalar
        # have no sparse rule, even where f(0) is 0)
        if kind in ('mul', 'rmul', 'div') or (kind not in ('rsub', 'rdiv') and bool(fn(zero, s) == 0)):
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
        raise incompatible_attr('elemwise_' + kind, 1, dtype_name(lhs._tdtype), dtype_name(rhs._tdtype))
    if lhs.stype == 'row_sparse':
        return _rsp_combine(lhs, rhs, kind)
    fn = {'add': torch.add, 'sub': torch.sub, 'mul': torch.mul}[kind]
    return _from_dense_tensor(fn(lhs._dns(), rhs._dns()), 'csr', lhs._ctx)


def _scale(sp, dense, fn):
    """``fn(stored values, dense values at the stored positions)``: the storage of ``sp`` is kept."""
    d = dense._t
    if d.dtype != sp._tdtype:
        raise incompatible_attr('broadcast_mul', 1, dtype_name(sp._tdtype), dtype_name(d.dtype))
    try:  # (numpy's: torch's broadcast_shapes imports sympy on first use)
        if _onp.broadcast_shapes(tuple(d.shape), tuple(sp.shape)) != tuple(sp.shape):
            return NotImplemented
    except ValueError:
        return NotImplemented
    d = d.expand(sp.shape)
    comps = sp._cmp()
    picked = d[_csr_rows(comps[2]), comps[1]] if sp.stype == 'csr' else d[comps[1]]
    return sp._like((fn(comps[0], picked),) + tuple(c.clone() for c in comps[1:]))


def _rsp_union(arrays):
    idx = torch.unique(torch.cat([a._cmp()[1] for a in arrays]))  # sorted
    return idx, [torch.searchsorted(idx, a._cmp()[1]) for a in arrays]


def _rsp_aligned(a, b):
    """The union of the rows of row_sparse ``a`` and ``b`` (sorted), and each one's values on those rows (zero
    rows where it stores none)."""
    idx, pos = _rsp_union([a, b])
    vals = []
    for x, p in zip((a, b), pos):
        d = x._cmp()[0]
        v = torch.zeros((idx.numel(),) + tuple(d.shape[1:]), dtype=d.dtype, device=d.device)
        vals.append(v.index_copy_(0, p, d))
    return idx, vals


def _rsp_combine(a, b, kind, fn=None):
    """MXNet's row_sparse (op) row_sparse kernels: the result stores the union of the rows, zero rows included
    (elemwise_mul too: 1.9.1 stores [0, 2, 3] for rows [0, 2] times rows [2, 3])."""
    idx, (va, vb) = _rsp_aligned(a, b)
    fn = fn or {'add': torch.add, 'sub': torch.sub, 'mul': torch.mul}[kind]
    return a._like((fn(va, vb), idx))


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


def _recorded(arrays):
    """Whether autograd is recording with a sparse input that has a gradient attached: then the op runs on the
    dense values so that the gradient flows (the result is dense)."""
    if not _RECORDING.recording:
        return False
    return any(isinstance(a, BaseSparseNDArray) and a._dense is not None and a._dense.requires_grad for a in arrays)


# ---- the array classes' operators -----------------------------------------------------------------------------------
def _operator(kind, name):
    def method(self, other):
        return _arith(self, other, kind)
    method.__name__ = name
    return method


def _inplace(kind, name):
    def method(self, other):
        self[:] = _arith(self, other, kind)
        return self
    method.__name__ = name
    return method


for _kind, _name in (('add', 'add'), ('radd', 'radd'), ('sub', 'sub'), ('rsub', 'rsub'), ('mul', 'mul'),
                     ('rmul', 'rmul'), ('div', 'truediv'), ('rdiv', 'rtruediv'), ('div', 'div'), ('rdiv', 'rdiv'),
                     ('pow', 'pow'), ('rpow', 'rpow'), ('mod', 'mod'), ('rmod', 'rmod'), ('eq', 'eq'), ('ne', 'ne'),
                     ('gt', 'gt'), ('ge', 'ge'), ('lt', 'lt'), ('le', 'le')):
    setattr(BaseSparseNDArray, '__%s__' % _name, _operator(_kind, '__%s__' % _name))
for _kind, _name in (('add', 'iadd'), ('sub', 'isub'), ('mul', 'imul'), ('div', 'itruediv'), ('div', 'idiv')):
    setattr(BaseSparseNDArray, '__%s__' % _name, _inplace(_kind, '__%s__' % _name))
del _kind, _name


def __neg__(self):
    return _unary(self, 'negative')


def __abs__(self):
    return _unary(self, 'abs')


BaseSparseNDArray.__neg__, BaseSparseNDArray.__abs__ = __neg__, __abs__
