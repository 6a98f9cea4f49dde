"""Every registry operator as an ``mx.sym`` function, plus MXNet's python-level symbol helpers."""
from numbers import Number

import numpy as np

from ..base import MXNetTypeError, MXNetValueError
from . import register as _register
from . import _internal, contrib, linalg, image, sparse, random
from .symbol import Symbol

_subs = {}
_register.populate(globals(), _internal.__dict__, _subs)
for _name, _mod in (('contrib', contrib), ('linalg', linalg), ('image', image), ('sparse', sparse),
                    ('random', random)):
    for _k, _v in _subs.get(_name, {}).items():
        _mod.__dict__.setdefault(_k, _v)
from ..ndarray.register import attach_methods as _attach  # noqa: E402

_attach(Symbol, globals(), 'mx.sym', _register.SYMBOL_METHODS)


def _ufunc(lhs, rhs, fn_sym, lfn_scalar, rfn_scalar, fn_num):
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return fn_sym(lhs, rhs)
    if isinstance(lhs, Symbol) and isinstance(rhs, Number):
        return lfn_scalar(lhs, scalar=float(rhs))
    if isinstance(lhs, Number) and isinstance(rhs, Symbol):
        return rfn_scalar(rhs, scalar=float(lhs))
    if isinstance(lhs, Number) and isinstance(rhs, Number):
        return fn_num(lhs, rhs)
    raise MXNetTypeError('types (%s, %s) not supported' % (type(lhs), type(rhs)))


def pow(base, exp):  # noqa: A001 (MXNet's name)
    """``base ** exp`` for symbols and/or numbers."""
    return _ufunc(base, exp, _internal._Power, _internal._PowerScalar, _internal._RPowerScalar,
                  lambda a, b: a ** b)


power = pow


def maximum(left, right):
    return _ufunc(left, right, _internal._Maximum, _internal._MaximumScalar, _internal._MaximumScalar, max)


def minimum(left, right):
    return _ufunc(left, right, _internal._Minimum, _internal._MinimumScalar, _internal._MinimumScalar, min)


def hypot(left, right):
    return _ufunc(left, right, _internal._Hypot, _internal._HypotScalar, _internal._HypotScalar,
                  lambda a, b: (a * a + b * b) ** 0.5)


def zeros(shape, dtype=None, **kwargs):
    return _internal._zeros(shape=shape, dtype='float32' if dtype is None else dtype, **kwargs)


def ones(shape, dtype=None, **kwargs):
    return _internal._ones(shape=shape, dtype='float32' if dtype is None else dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    return _internal._full(shape=shape, value=val, dtype='float32' if dtype is None else dtype, **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
                             name=name, dtype='float32' if dtype is None else dtype)


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    return _internal._linspace(start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                               dtype='float32' if dtype is None else dtype)


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """``mx.sym.split_v2``: split into ``indices_or_sections`` equal parts (an int) or at the given indices (a
    tuple), as numpy's split."""
    indices, sections = [], 0
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise MXNetValueError('indices_or_sections must either int or tuple of ints')
    return _internal._split_v2(ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections)


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002 (MXNet's name)
    """``mx.sym.histogram``: ``bins`` is a Symbol of edges, or a count with a required ``range``."""
    if isinstance(bins, Symbol):
        return _internal._histogram(data=a, bins=bins, **kwargs)
    if isinstance(bins, (int, np.integer)):
        if range is None:
            raise MXNetValueError('null range is not supported in symbol mode')
        return _internal._histogram(data=a, bin_cnt=bins, range=range, **kwargs)
    raise MXNetValueError('bins argument should be either an integer or an NDArray')


def eye(N, M=0, k=0, dtype=None, **kwargs):
    return _internal._eye(N=N, M=M, k=k, dtype='float32' if dtype is None else dtype, **kwargs)


__all__ = [k for k, v in list(globals().items()) if not k.startswith('_') and callable(v)
           and k not in ('Number', 'Symbol', 'MXNetTypeError', 'MXNetValueError')]

sparse._fill(globals())
