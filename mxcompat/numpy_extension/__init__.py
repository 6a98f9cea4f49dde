"""``mx.npx``: MXNet's NumPy-extension operators are not supported by mxcompat (legacy ``mx.nd`` only); the
module imports, and using any name in it raises ``MXNetNotImplementedError`` naming it. ``set_np``/``reset_np``/
``is_np_shape``/``is_np_array`` are ``mx.util``'s: NumPy shape semantics work, NumPy array semantics raise."""
from ..base import unsupported
from .. import util as _util


def set_np(shape=True, array=True, dtype=False):
    """``mx.util.set_np``; ``dtype=True`` (NumPy default dtypes) raises, as does ``array=True``."""
    if dtype:
        raise unsupported('mx.npx.set_np', 'dtype=True', 'NumPy default dtypes are not implemented')
    _util.set_np(shape=shape, array=array)


reset_np = _util.reset_np
is_np_array = _util.is_np_array
is_np_shape = _util.is_np_shape


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise unsupported('mx.npx.' + name, 'the NumPy-extension interface', 'use the legacy mx.nd API')
