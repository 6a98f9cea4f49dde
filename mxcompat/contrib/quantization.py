"""``mx.contrib.quantization``: INT8 quantization of symbols and Gluon blocks is a known gap of mxcompat.

The module imports, with MXNet 1.9.1's public functions (``from mxnet.contrib.quantization import *`` works, as
GluonCV's scripts and model-zoo tests do it), and calling any of them raises ``MXNetNotImplementedError`` naming
it: quantized int8 inference needs MXNet's quantized operators (MKL-DNN/cuDNN int8 kernels), which mxcompat does not
have (the ``mx.nd.contrib.quantize*`` operators are gaps too). Run the float model instead; torch's own
``torch.ao.quantization`` quantizes a model converted with ``mxcompat.porting``.
"""
from ..base import unsupported

_WHY = 'quantized int8 inference (MXNet\'s quantized operators) is not implemented; run the float model'

# MXNet 1.9.1's public functions of mxnet.contrib.quantization
GAPS = ('quantize_model', 'quantize_model_mkldnn', 'quantize_graph', 'calib_graph', 'quantize_net_v2',
        'quantize_net', 'combine_histogram')

__all__ = list(GAPS)


def _stub(name):
    def missing(*args, **kwargs):
        raise unsupported('mx.contrib.quantization.%s' % name, 'this function', _WHY)
    missing.__name__ = missing.__qualname__ = name
    missing.__doc__ = 'Not supported by mxcompat: %s.' % _WHY
    return missing


for _name in GAPS:
    globals()[_name] = _stub(_name)
del _name
