"""``mx.contrib``: the legacy ``contrib.autograd`` API, ``contrib.nd``/``contrib.sym`` (the registry's
``_contrib_*`` operators), ``contrib.io`` (``DataLoaderIter``), ``contrib.svrg_optimization`` (``SVRGModule``) and
``contrib.text`` (vocabulary and token embeddings), ``contrib.amp`` (mixed precision; its graph conversions raise),
``contrib.quantization`` (``quant``: its functions raise); ``onnx`` and ``tensorboard`` raise
``MXNetNotImplementedError`` when used."""
from . import autograd, amp, quantization  # noqa: F401
from . import quantization as quant  # noqa: F401
from . import io, svrg_optimization, text  # noqa: F401
from ..ndarray import contrib as ndarray  # noqa: F401
from ..ndarray import contrib as nd  # noqa: F401
from ..symbol import contrib as symbol  # noqa: F401
from ..symbol import contrib as sym  # noqa: F401
from ..base import unsupported

_MISSING = {'onnx': 'ONNX import and export (mxcompat.porting converts MXNet files to torch, and torch.onnx exports)',
            'tensorboard': 'the LogMetricsCallback for TensorBoard'}


def __getattr__(attr):
    if attr in _MISSING:
        raise unsupported('mx.contrib.' + attr, _MISSING[attr], 'it is not implemented in this version of mxcompat')
    raise AttributeError("module 'mxnet.contrib' has no attribute %r" % attr)
