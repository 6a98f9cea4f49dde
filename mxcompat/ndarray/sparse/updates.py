"""Optimizer updates with sparse gradients: MXNet's lazy sgd/sgd_mom/adam updates and ``_sparse_adagrad_update``."""
import torch

from ... import kernels
from ...base import MXNetError
from ...operator import registry, optimizer_updates as _updates
from ..ndarray import _wrap
from ..register import _UNSET as _NULL
from .storage import RowSparseNDArray, _dense_of, _op


def lazy_rows(kernel, weight, grad, states, *args, **kwargs):
    """MXNet's lazy update for a row_sparse ``grad``: ``kernel(weight_rows, grad_rows, *state_rows, *args,
    **kwargs)`` (an in-place dense rule of ``operator/optimizer_updates.py``) runs on the rows ``grad`` stores only,
    and they are written back into ``weight`` and ``states``; other rows keep their values. Weight and states may
    be dense or row_sparse (their dense values are updated)."""
    data, rows = grad._cmp()
    if not rows.numel():
        return
    w = weight._t
    picked = [s._t for s in states]
    # (index_select/index_copy_: advanced indexing took ~50x longer on a 1M x 2 weight; the rows are unique)
    w_rows = w.index_select(0, rows)
    s_rows = [s.index_select(0, rows) for s in picked]
    kernel(w_rows, data, *s_rows, *args, **kwargs)
    kernels.index_copy_rows_(w, rows, w_rows)
    for s, r in zip(picked, s_rows):
        kernels.index_copy_rows_(s, rows, r)


def _lazy_update(opname):
    """sgd/sgd_mom/adam updates: with a row_sparse gradient and ``lazy_update`` (the default) only the rows the
    gradient stores are updated, weight and states alike (MXNet's lazy update), when the weight and the states are
    all dense, or all row_sparse and updated in place (``out=weight``); otherwise the dense update."""
    def f(weight, grad, *states, out=None, name=None, **kwargs):  # noqa: ARG001
        rest = [getattr(a, 'stype', 'default') for a in (weight, *states)]
        lazy_storage = (set(rest) == {'default'}
                        or (set(rest) == {'row_sparse'} and out is weight))
        if not (isinstance(grad, RowSparseNDArray) and lazy_storage and kwargs.get('lazy_update', True)):
            return _op(opname)(_dense_of(weight), _dense_of(grad), *[_dense_of(st) for st in states], out=out,
                               **kwargs)
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
        lazy_rows(_updates.sparse_adagrad_update, weight, grad, (history,), attrs['lr'], attrs['epsilon'],
                  attrs['rescale_grad'], attrs['clip_gradient'])
    return weight

