"""``mx.npx``: MXNet's NumPy-extension operators are not supported by mxcompat (legacy ``mx.nd`` only); the
module imports, and using any name in it raises ``MXNetNotImplementedError`` naming it. ``set_np``/``reset_np``
follow ``mx.util``: turning NumPy semantics on raises, turning them off is a no-op."""
from ..base import unsupported


def set_np(shape=True, array=True, dtype=False):
    """Raises unless every flag is False (mxcompat has the legacy semantics only)."""
    if shape or array or dtype:
        raise unsupported('mx.npx.set_np', 'NumPy semantics (shape=%r, array=%r, dtype=%r)' % (shape, array, dtype),
                          'mxcompat implements the legacy mx.nd semantics only')


def reset_np():
    """Nothing to reset: NumPy semantics are never on in mxcompat."""


def is_np_array():
    return False


def is_np_shape():
    return False


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise unsupported('mx.npx.' + name, 'the NumPy-extension interface', 'use the legacy mx.nd API')
