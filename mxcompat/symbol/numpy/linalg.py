"""``mx.sym.np.linalg``: ``mx.np.linalg``'s functions on NumPy symbols (``F.np.linalg`` of a hybridized block in
NumPy mode), each one node of MXNet's ``_npi_<name>`` operator running ``mx.np.linalg.<name>`` on the tensors. A
function without a symbol here raises ``MXNetNotImplementedError`` naming itself."""
from ...base import MXNetTypeError, MXNetValueError, unsupported, missing_attribute
from . import as_np, _call, _is_int, _sym
from . import sum as _sum, max as _max, min as _min
from . import _linalg_ops  # noqa: F401  (registers _npi_norm)
from ..symbol import Symbol

__all__ = ['norm', 'det', 'inv', 'cholesky', 'eigvals', 'eigvalsh', 'eig', 'eigh', 'slogdet', 'svd', 'tensorinv',
           'solve', 'tensorsolve', 'pinv']


def _outputs(node):
    return [as_np(Symbol.__getitem__(node, i)) for i in range(len(node))]


def _abs(x):
    return as_np(_sym('_npi_absolute', 'abs')(x))  # (MXNet's norm names these nodes abs<N>)


def _matrix_norm_by_sums(x, ord, row_axis, col_axis, keepdims):  # noqa: A002
    """The matrix norms of order ±1 / ±inf as MXNet builds them: sums of absolute values along one axis, then
    their max (positive order) or min along the other."""
    if ord in ('inf', '-inf'):
        first, then = col_axis, row_axis
        if not keepdims and row_axis > col_axis:
            then -= 1
    else:
        first, then = row_axis, col_axis
        if not keepdims and row_axis < col_axis:
            then -= 1
    sums = _sum(_abs(x), axis=first, keepdims=keepdims)
    pick = _max if ord in ('inf', 1) else _min
    return pick(sums, axis=then, keepdims=keepdims)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002, C901 (NumPy's name; MXNet's cases)
    """A ``_npi_norm`` node (its ``flag`` saying what ``ord`` means), or for the orders ``'inf'``/``'-inf'`` (and
    the matrix orders ±1) the ``abs``, ``sum`` and ``max``/``min`` nodes MXNet builds; ``axis`` None, an int or a
    tuple (TypeError otherwise, as MXNet)."""
    if isinstance(ord, bool):
        raise MXNetValueError("Invalid Parameter format for ord expect double but value='%s', in operator _npi_norm"
                              % ord)
    if axis is None and ord is None:
        return _call('_npi_norm', x, ord=2, axis=None, keepdims=keepdims, flag=-2)
    if not (axis is None or _is_int(axis) or isinstance(axis, tuple)):
        raise MXNetTypeError("'axis' must be None, an integer or a tuple of integers.")
    if _is_int(axis):
        axis = (axis,)
    if axis is not None and len(axis) == 2:
        if ord in ('inf', '-inf', 1, -1):
            return _matrix_norm_by_sums(x, ord, axis[0], axis[1], keepdims)
        if ord in (2, -2):
            return _call('_npi_norm', x, ord=ord, axis=axis, keepdims=keepdims, flag=0)
        if ord is None:
            return _call('_npi_norm', x, ord=2, axis=axis, keepdims=keepdims, flag=1)
    if ord in ('inf', '-inf'):
        return (_max if ord == 'inf' else _min)(_abs(x), axis=axis, keepdims=keepdims)
    if ord is None or ord in ('fro', 'f'):
        return _call('_npi_norm', x, ord=2, axis=axis, keepdims=keepdims, flag=1)
    if ord == 'nuc':
        return _call('_npi_norm', x, ord=2, axis=axis, keepdims=keepdims, flag=2)
    if ord == 2:
        return _call('_npi_norm', x, ord=2, axis=axis, keepdims=keepdims, flag=-1)
    return _call('_npi_norm', x, ord=ord, axis=axis, keepdims=keepdims, flag=-1)


def det(a):
    return _call('_npi_det', a)


def inv(a):
    return _call('_npi_inv', a)


def cholesky(a):
    return _call('_npi_cholesky', a)


def eigvals(a):
    return _call('_npi_eigvals', a)


def eigvalsh(a, UPLO='L'):  # noqa: N803 (NumPy's name)
    return _call('_npi_eigvalsh', a, UPLO=UPLO)


def eig(a):
    """(eigenvalues, eigenvectors): the two outputs of one ``_npi_eig`` node."""
    return tuple(_outputs(_call('_npi_eig', a)))


def eigh(a, UPLO='L'):  # noqa: N803
    return tuple(_outputs(_call('_npi_eigh', a, UPLO=UPLO)))


def slogdet(a):
    return tuple(_outputs(_call('_npi_slogdet', a)))


def svd(a):
    """(ut, l, v), MXNet's order: the three outputs of one ``_npi_svd`` node."""
    return tuple(_outputs(_call('_npi_svd', a)))


def tensorinv(a, ind=2):
    return _call('_npi_tensorinv', a, ind=ind)


def solve(a, b):
    return _call('_npi_solve', a, b)


def tensorsolve(a, b, axes=None):
    return _call('_npi_tensorsolve', a, b, a_axes=axes)


def pinv(a, rcond=1e-15, hermitian=False):
    """A pseudo-inverse node; ``rcond`` a number (MXNet's ``_npi_pinv_scalar_rcond``; an array ``rcond`` is not
    taken here)."""
    if isinstance(rcond, Symbol) or not (_is_int(rcond) or isinstance(rcond, float)):
        raise unsupported('mx.sym.np.linalg.pinv', 'rcond as %s' % type(rcond).__name__, 'give a number')
    return _call('_npi_pinv_scalar_rcond', a, rcond=float(rcond), hermitian=hermitian)


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise missing_attribute('mx.sym.np.linalg.' + name, 'this linear-algebra function of NumPy-compatible symbols')
