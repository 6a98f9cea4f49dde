"""``mx.sym.np.linalg``: ``mx.np.linalg``'s functions on NumPy symbols (``F.np.linalg`` of a hybridized block in
NumPy mode), each one node of MXNet's ``_npi_<name>`` operator running ``mx.np.linalg.<name>`` on the tensors. A
function without a symbol here raises ``MXNetNotImplementedError`` naming itself."""
from ...base import unsupported
from . import as_np, _call, _is_int
from ..symbol import Symbol

__all__ = ['det', 'inv', 'cholesky', 'eigvals', 'eigvalsh', 'eig', 'eigh', 'slogdet', 'svd', 'tensorinv', 'solve',
           'tensorsolve', 'pinv']


def _outputs(node):
    return [as_np(Symbol.__getitem__(node, i)) for i in range(len(node))]


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
    raise unsupported('mx.sym.np.linalg.' + name, 'this linear-algebra function of NumPy-compatible symbols')
