"""``mx.gluon.nn``: neural-network layers (and the Block classes, as MXNet re-exports them here)."""
from ..block import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .activations import *  # noqa: F401,F403


def __getattr__(name):
    if name == 'TorchBlock':  # mxcompat only; imported on first use
        from ...interop import TorchBlock  # reason: interop loads torch's fake-tensor machinery: on first use
        return TorchBlock
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
