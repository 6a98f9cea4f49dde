"""``mx.np``: MXNet's NumPy-compatible array interface is not supported by mxcompat (it implements the legacy
``mx.nd`` semantics only). The module imports, so scripts that merely import it keep working; using any name in it
raises ``MXNetNotImplementedError`` naming it. ``mx.np.ndarray`` exists as a class with no instances, so
``isinstance(x, mx.np.ndarray)`` checks answer False, as they would for every legacy NDArray in MXNet."""
from ..base import unsupported


class ndarray:  # noqa: N801 (MXNet's name)
    """Stands for MXNet's ``mx.np.ndarray``; mxcompat never creates one."""

    def __new__(cls, *args, **kwargs):
        raise unsupported('mx.np.ndarray', 'NumPy-style arrays', 'use mx.nd.NDArray (legacy semantics)')


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise unsupported('mx.np.' + name, 'the NumPy-compatible interface', 'use the legacy mx.nd API')
