"""The storage-aware functions of ``mx.nd.sparse`` (``retain``, ``add_n``, ``clip``, zero-preserving unary
functions ...), the table ``SPARSE_FUNCS`` of them, and ``dispatch``: the rule ``mx.nd.<name>`` follows for sparse
inputs, by name or registry alias (internal operators too: ``_mul_scalar``, the scatter forms, ``_maximum`` ...), and
the rule a bound graph's sparse run follows (symbol/passes/storage.py). An op without a sparse rule runs on the dense
values (MXNet's storage fallback)."""
import numpy as np
import torch

from ...base import MXNetError, incompatible_attr, dtype_name, from_host
from ...operator import registry
from ...operator._sparse import _ZERO_PRESERVING
from ...operator.elemwise import scalar_as
from ..ndarray import NDArray, _wrap
from .storage import (BaseSparseNDArray, CSRNDArray, RowSparseNDArray, _I64, _empty_comps, _from_dense_tensor, _sp,
                      _dense_of, _to_out, _op)
from .arithmetic import _unary, _rsp_union, _rsp_combine, _elemwise, _broadcast, _recorded, _arith
from .creation import cast_storage
from .spmm import dot
from .updates import _lazy_update, adagrad_update


def retain(data=None, indices=None, out=None, name=None, **kwargs):  # noqa: ARG001
    """A RowSparseNDArray storing exactly the rows ``indices`` (sorted, as MXNet requires) of row_sparse
    ``data``. Differs from MXNet: unknown keyword arguments raise (MXNet ignores them here)."""
    if kwargs:
        registry.get('_sparse_retain').parse_attrs(kwargs)  # raises, naming the op and the argument
    if not isinstance(data, RowSparseNDArray):
        raise MXNetError('Operator _sparse_retain: data must be a RowSparseNDArray, got storage %s'
                         % getattr(data, 'stype', type(data).__name__))
    d, idx = data._cmp()
    want = indices._t.detach() if isinstance(indices, NDArray) else from_host(np.asarray(indices))
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


def _kept(name):
    """An operator that passes its input through (``identity``, ``make_loss``, ``BlockGrad``): a sparse input gives
    a copy of the same storage type and stored entries, as MXNet's."""
    def f(data, out=None, name=None, **kwargs):  # noqa: ARG001
        if _sp(data):
            return _to_out(data._like(tuple(c.clone() for c in data._cmp())), out)
        return _op(fname)(data, out=out, **kwargs)
    fname = name
    f.__name__ = name
    f.__doc__ = 'Same as ``mx.nd.%s``; a sparse input keeps its storage type.' % name
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
    f._dense_result = csr_out is None  # (see has_storage_rule)
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



def _embedding(data, weight, input_dim, output_dim, dtype='float32', sparse_grad=False, out=None, name=None):  # noqa
    if isinstance(weight, CSRNDArray):  # (MXNet's storage inference: a dense or row_sparse weight only)
        raise MXNetError('Operator Embedding: the weight must be dense or row_sparse, got csr')
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
for _n in ('make_loss', 'stop_gradient'):
    SPARSE_FUNCS[_n] = _kept(_n)
# Ops that MXNet lists under mx.nd.sparse and that work here through dense values.
for _n in ('arccos arccosh cos cosh exp gamma gammaln log log10 log2 rsqrt sigmoid elemwise_div mean sum norm '
           'where concat FullyConnected LinearRegressionOutput LogisticRegressionOutput MAERegressionOutput '
           'ftrl_update').split():
    SPARSE_FUNCS.setdefault(_n, _via_dense(_n))


# ---- rules of MXNet's internal operators, reached from mx.nd._internal and from bound graphs (registry names) --------
# Scalar operators: _mul_scalar and _div_scalar keep a sparse input's storage for any scalar (the unstored zeros stay
# zero even for inf or nan); _plus_scalar and _minus_scalar keep it for a zero scalar only; the comparisons where
# they map 0 to 0 (MXNet's BinaryScalarLogicStorageType). The rules are the classes' operators' (``x * 2``).
_SCALAR_KINDS = {'_mul_scalar': 'mul', '_div_scalar': 'div', '_plus_scalar': 'add', '_minus_scalar': 'sub',
                 '_equal_scalar': 'eq', '_not_equal_scalar': 'ne', '_greater_scalar': 'gt',
                 '_greater_equal_scalar': 'ge', '_lesser_scalar': 'lt', '_lesser_equal_scalar': 'le'}


def _scalar_rule(kind):
    def f(data, scalar=0.0, is_int=None, out=None, name=None):  # noqa: ARG001
        if not _sp(data):
            return NotImplemented
        res = _arith(data, scalar, kind)
        return _to_out(res, out) if _sp(res) else NotImplemented  # (dense: the operator's own dense kernel)
    return f


def _scatter_scalar(fn):
    """``_scatter_plus_scalar``, ``_scatter_minus_scalar``: a sparse input's stored values change, its unstored
    zeros stay zero (``0 + 9`` is not stored), the storage type is kept."""
    def f(data, scalar=0.0, is_int=None, out=None, name=None):  # noqa: ARG001
        if not _sp(data):
            return NotImplemented
        comps = data._cmp()
        return _to_out(data._like((fn(comps[0], scalar_as(scalar, data._tdtype)),)
                                  + tuple(c.clone() for c in comps[1:])), out)
    return f


def _scatter_elemwise_div(lhs, rhs, out=None, name=None):  # noqa: ARG001
    """A row_sparse ``lhs`` divided on its stored rows only (its other rows stay zero, whatever ``rhs`` holds
    there; ``rhs`` of any storage type); any other ``lhs`` is divided densely (a dense result, as MXNet's)."""
    if not isinstance(lhs, RowSparseNDArray) or tuple(rhs.shape) != lhs.shape:
        return NotImplemented
    d, idx = lhs._cmp()
    r = rhs._t if not _sp(rhs) else rhs._dns()
    if r.dtype != d.dtype:
        raise incompatible_attr('_scatter_elemwise_div', 1, dtype_name(d.dtype), dtype_name(r.dtype))
    return _to_out(lhs._like((d / r.index_select(0, idx), idx.clone())), out)


def _union_rule(name, fn):
    """``_maximum``, ``_minimum``, ``_hypot`` of two arrays of one sparse storage type and shape: row_sparse stores
    the union of the rows (zero rows included), csr the non-zero results; anything else is computed densely."""
    def f(lhs, rhs, out=None, name=None):  # noqa: ARG001
        if not (_sp(lhs) and _sp(rhs) and lhs.stype == rhs.stype and lhs.shape == rhs.shape):
            return NotImplemented
        if lhs._tdtype != rhs._tdtype:
            raise incompatible_attr(opname, 1, dtype_name(lhs._tdtype), dtype_name(rhs._tdtype))
        if lhs.stype == 'row_sparse':
            return _to_out(_rsp_combine(lhs, rhs, None, fn), out)
        return _to_out(_from_dense_tensor(fn(lhs._dns(), rhs._dns()), 'csr', lhs._ctx), out)
    opname = name
    return f


def _batch_norm_storage(*arrays, out=None, name=None, **attrs):  # noqa: ARG001
    """MXNet's storage inference of BatchNorm rejects fix_gamma=True with any sparse input (data, gamma, beta or a
    moving statistic), at bind and in mx.nd alike; otherwise BatchNorm reads the dense values."""
    if attrs.get('fix_gamma', True) and any(_sp(a) for a in arrays):
        stypes = [a.stype if isinstance(a, NDArray) else None for a in arrays]
        raise MXNetError('Operator BatchNorm: fix_gamma=True is not supported for sparse ndarrays (MXNet 1.9.1 '
                         'rejects it in storage inference, tracked at apache/mxnet#11647); input storage types %s'
                         % stypes)
    return NotImplemented


# operators whose storage rule applies to dense inputs too (a dense input can give a sparse result)
SPARSE_FROM_DENSE = frozenset(['cast_storage'])


def has_storage_rule(name):
    """Whether operator ``name`` (a registry name or alias) has a storage rule that its dense kernel on dense
    values does not reproduce: one that can give a sparse result or raise MXNet's storage error."""
    f = _lookup(name)
    return f is not None and not getattr(f, '_dense_result', False)


def _lookup(name):
    f = _DISPATCH.get(name)
    if f is None:
        op = registry.REGISTRY.get(name)  # (an alias of an operator that has a rule: mx.nd._internal._mul)
        if op is not None:
            f = _DISPATCH.get(op.name)
    return f


def dispatch(name, arrays, kwargs, out):
    """The storage-aware result of mx.nd.<name> for sparse inputs, or NotImplemented (hook for register.py, and
    the rule a bound graph's sparse run applies: symbol/passes/storage.py). ``kwargs``: the parsed attributes."""
    f = _lookup(name)
    if f is None:
        return NotImplemented
    if f is _batch_norm_storage:  # (a storage error: raised while recording too)
        return f(*arrays, out=out, **kwargs)
    if _recorded(arrays):
        return NotImplemented
    return f(*arrays, out=out, **kwargs)


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
_DISPATCH.update({n: _scalar_rule(k) for n, k in _SCALAR_KINDS.items()})
_DISPATCH['_scatter_plus_scalar'] = _scatter_scalar(torch.add)
_DISPATCH['_scatter_minus_scalar'] = _scatter_scalar(torch.sub)
_DISPATCH['_scatter_elemwise_div'] = _scatter_elemwise_div
_DISPATCH['_maximum'] = _union_rule('_maximum', torch.maximum)
_DISPATCH['_minimum'] = _union_rule('_minimum', torch.minimum)
_DISPATCH['_hypot'] = _union_rule('_hypot', torch.hypot)
for _n in ('_copy', 'BlockGrad'):
    _DISPATCH[_n] = _kept(_n)
_DISPATCH['BatchNorm'] = _batch_norm_storage
_DISPATCH['cast_storage'] = lambda data, stype, out=None, name=None: cast_storage(data, stype, out)  # noqa: ARG005


# Fluent methods of sparse arrays use the storage-aware functions.
def _fluent(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    return method


for _n in sorted(_ZERO_PRESERVING - {'_copy', 'negative'}) + ['zeros_like', 'clip', 'slice']:
    setattr(BaseSparseNDArray, _n, _fluent(SPARSE_FUNCS[_n]))
RowSparseNDArray.retain = _fluent(retain)
del _n
