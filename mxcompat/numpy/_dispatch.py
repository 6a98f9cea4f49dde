"""NEP 18 / NEP 13 interoperability, as MXNet 1.9.1 has it: official NumPy functions and ufuncs given an
``mx.np.ndarray`` run ``mx.np``'s function of the same name for the names MXNet lists (``numpy.sum(a)`` is
``mx.np.sum(a)``, on the array's device, recorded by autograd); any other NumPy function or ufunc runs in NumPy on
host copies and its array results come back as ``mx.np`` arrays on the first array's context (``ValueError`` under
``autograd.record()``, as in MXNet)."""
import numpy as _onp

from .fallback import call_numpy, _find_ctx
from .multiarray import ndarray

# MXNet 1.9.1's lists (mxnet/numpy_dispatch_protocol.py): the NumPy functions and ufuncs mx.np computes itself
ARRAY_FUNCTIONS = (
    'all', 'any', 'sometrue', 'argmin', 'argmax', 'around', 'round', 'round_', 'argsort', 'sort', 'append',
    'broadcast_arrays', 'broadcast_to', 'clip', 'concatenate', 'copy', 'cumsum', 'diag', 'diagonal', 'diagflat',
    'dot', 'expand_dims', 'fix', 'flip', 'flipud', 'fliplr', 'inner', 'insert', 'max', 'amax', 'mean', 'min',
    'amin', 'nonzero', 'ones_like', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'prod', 'product', 'ravel',
    'repeat', 'reshape', 'roll', 'split', 'array_split', 'hsplit', 'vsplit', 'dsplit', 'squeeze', 'stack', 'std',
    'sum', 'swapaxes', 'take', 'tensordot', 'tile', 'transpose', 'unique', 'unravel_index', 'diag_indices_from',
    'delete', 'var', 'vdot', 'vstack', 'column_stack', 'hstack', 'dstack', 'zeros_like', 'linalg.norm',
    'linalg.cholesky', 'linalg.inv', 'linalg.solve', 'linalg.tensorinv', 'linalg.tensorsolve', 'linalg.pinv',
    'linalg.eigvals', 'linalg.eig', 'linalg.eigvalsh', 'linalg.eigh', 'shape', 'trace', 'tril', 'meshgrid',
    'outer', 'einsum', 'polyval', 'shares_memory', 'may_share_memory', 'quantile', 'percentile', 'diff',
    'ediff1d', 'resize', 'where', 'full_like', 'bincount', 'empty_like', 'nan_to_num', 'isnan', 'isfinite',
    'isposinf', 'isneginf', 'isinf', 'pad')
ARRAY_UFUNCS = (
    'abs', 'fabs', 'add', 'arctan2', 'copysign', 'degrees', 'hypot', 'lcm', 'subtract', 'multiply', 'true_divide',
    'negative', 'power', 'mod', 'matmul', 'absolute', 'rint', 'sign', 'exp', 'log', 'log2', 'log10', 'expm1',
    'sqrt', 'square', 'cbrt', 'reciprocal', 'invert', 'bitwise_not', 'remainder', 'sin', 'cos', 'tan', 'sinh',
    'cosh', 'tanh', 'arcsin', 'arccos', 'arctan', 'arcsinh', 'arccosh', 'arctanh', 'maximum', 'minimum', 'ceil',
    'trunc', 'floor', 'bitwise_and', 'bitwise_xor', 'bitwise_or', 'logical_not', 'equal', 'not_equal', 'less',
    'less_equal', 'greater', 'greater_equal')

# NumPy functions whose several arrays come back as a tuple in NumPy 2 (a list in NumPy 1, and in mx.np as in
# MXNet): called through NumPy, they give NumPy's container
_TUPLE_RESULTS = frozenset(getattr(_onp, n) for n in ('broadcast_arrays', 'atleast_1d', 'atleast_2d', 'atleast_3d',
                                                      'meshgrid')) if int(_onp.__version__.split('.')[0]) >= 2 \
    else frozenset()
# NumPy 2's linalg functions give named tuples (EigResult ...): their dispatched results come back as those too
_LINALG = getattr(_onp.linalg, '_linalg', None)
_NAMED_RESULTS = {getattr(_onp.linalg, fn): getattr(_LINALG, kind) for fn, kind in (('eig', 'EigResult'),
                                                                                 ('eigh', 'EighResult'))
                  if hasattr(_LINALG, kind)}
# {NumPy function: mx.np function} and {ufunc name: mx.np function}, filled on first use (mx.np.linalg and the
# rest of the package are imported by then)
FUNCTIONS = {}
UFUNCS = {}


def _lookup(root, dotted):
    obj = root
    for part in dotted.split('.'):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _fill():
    # reason: the mx.np package imports this module (it is complete by the first dispatch)
    from .. import numpy as mx_np
    for name in ARRAY_FUNCTIONS:
        onp_fn = _lookup(_onp, name)
        try:
            mx_fn = _lookup(mx_np, name)
        except Exception:  # a listed gap of mx.np.linalg: NumPy computes it
            mx_fn = None
        if onp_fn is not None and mx_fn is not None:
            FUNCTIONS[onp_fn] = mx_fn
    for name in ARRAY_UFUNCS:
        UFUNCS[name] = getattr(mx_np, name)


def implements(numpy_function, mx_function):
    """Dispatch ``numpy_function`` given ``mx.np`` arrays to ``mx_function`` (as MXNet's ``_implements``)."""
    if not FUNCTIONS:
        _fill()
    FUNCTIONS[numpy_function] = mx_function
    return mx_function


def array_function(self, func, types, args, kwargs):  # noqa: ARG001 (NEP 18's signature)
    """NEP 18: ``func`` (an official NumPy function) called with ``mx.np`` arrays."""
    if not FUNCTIONS:
        _fill()
    mx_fn = FUNCTIONS.get(func)
    if mx_fn is None:
        name = getattr(func, '__name__', str(func))
        ctx = _find_ctx(args) or _find_ctx(kwargs)
        if ctx is None:  # (calling func again would come back here)
            raise ValueError('numpy.%s: cannot find the mx.np array among its arguments' % name)
        return call_numpy(name, func, args, dict(kwargs), ctx)
    if not all(issubclass(t, ndarray) for t in types):
        return NotImplemented
    r = mx_fn(*args, **kwargs)
    if type(r) is list and func in _TUPLE_RESULTS:  # (what the installed NumPy's function gives)
        return tuple(r)
    if type(r) is tuple and func in _NAMED_RESULTS:
        return _NAMED_RESULTS[func](*r)
    return r


def array_ufunc(self, ufunc, method, *inputs, **kwargs):  # noqa: ARG001
    """NEP 13: NumPy's ``ufunc`` called with ``mx.np`` arrays (only plain calls; ``reduce`` and the other methods
    give NotImplemented, as in MXNet)."""
    if 'out' in kwargs:
        out = kwargs['out']
        if len(out) != 1:
            raise ValueError('%s: out= must be one array, got %d' % (ufunc.__name__, len(out)))
        kwargs['out'] = out[0]
    if method != '__call__':
        return NotImplemented
    if not UFUNCS:
        _fill()
    mx_fn = UFUNCS.get(ufunc.__name__)
    if mx_fn is None:
        return call_numpy(ufunc.__name__, ufunc, inputs, kwargs)
    # a NumPy scalar operand reaches here as a 0-d NumPy array (``numpy.float32(3) > a``): it stays the scalar it
    # was, as ``a < numpy.float32(3)`` takes it (MXNet 1.9.1 raises TypeError for the reflected form only)
    inputs = [x[()] if type(x) is _onp.ndarray and x.ndim == 0 else x for x in inputs]
    return mx_fn(*inputs, **kwargs)


ndarray.__array_function__ = array_function
ndarray.__array_ufunc__ = array_ufunc
