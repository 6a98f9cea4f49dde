"""``mx.contrib.quantization``: INT8 quantization of symbols and Gluon blocks is a known gap of mxcompat.

The module imports, with MXNet 1.9.1's public functions (``from mxnet.contrib.quantization import *`` works, as
GluonCV's scripts and model-zoo tests do it), and calling any of them raises ``MXNetNotImplementedError`` naming
it: quantized int8 inference needs MXNet's quantized operators (MKL-DNN/cuDNN int8 kernels), which mxcompat does not
have (the ``mx.nd.contrib.quantize*`` operators are gaps too). Run the float model instead; torch's own
``torch.ao.quantization`` quantizes a model converted with ``mxcompat.porting``.
"""
import numpy as np

from .. import ndarray
from ..base import unsupported
from ..context import cpu

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


# ---- entropy calibration helpers (private in MXNet too; its tests call them) --------------------------------------
def _smooth_distribution(p, eps=0.0001):
    """A histogram ``p`` (not necessarily normalized) with its zeros raised to ``eps`` and that amount taken evenly
    off the nonzero entries, in float32 as MXNet's; ValueError when every entry is 0."""
    zeros = (p == 0).astype(np.float32)
    nonzeros = (p != 0).astype(np.float32)
    n_zeros = zeros.sum()
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        raise ValueError('The discrete probability distribution is malformed. All entries are 0.')
    eps1 = eps * float(n_zeros) / float(n_nonzeros)
    if eps1 >= 1.0:
        raise AssertionError('n_zeros=%d, n_nonzeros=%d, eps1=%f' % (n_zeros, n_nonzeros, eps1))
    hist = p.astype(np.float32)
    hist += eps * zeros + (-eps1) * nonzeros
    if (hist <= 0).any():
        raise AssertionError('the smoothed distribution has entries <= 0')
    return hist


def _get_optimal_threshold(hist_data, quantized_dtype, num_quantized_bins=255):
    """(min_val, max_val, threshold, divergence) of one layer's ``hist_data`` = (hist, hist_edges, min_val,
    max_val, th): the threshold with the least KL divergence (``mx.nd.contrib.calibrate_entropy``). A layer whose
    values are all >= 0 quantized to uint8/auto gets twice the bins plus one, as in MXNet."""
    hist, hist_edges, min_val, max_val, _ = hist_data
    if len(hist) % 2 != 1:
        raise AssertionError('the histogram needs an odd number of bins, got %d' % len(hist))
    if min_val >= 0 and quantized_dtype in ('auto', 'uint8'):
        num_quantized_bins = num_quantized_bins * 2 + 1
    threshold, divergence = ndarray.contrib.calibrate_entropy(
        hist=ndarray.array(hist, ctx=cpu()), hist_edges=ndarray.array(hist_edges, ctx=cpu()),
        num_quantized_bins=num_quantized_bins)
    return min_val, max_val, threshold.asnumpy(), divergence.asnumpy()


def _get_optimal_thresholds(hist_dict, quantized_dtype, num_quantized_bins=255, logger=None):
    """{layer: (low, high)} thresholds from {layer: hist_data}: (0, th) for a non-negative layer quantized to
    uint8/auto, else (-th, th). Entries of ``hist_dict`` are deleted as they are done, as MXNet's. Differs from
    MXNet: scipy is not needed."""
    if not isinstance(hist_dict, dict):
        raise AssertionError('hist_dict must be a dict, got %s' % type(hist_dict).__name__)
    if logger is not None:
        logger.info('Calculating optimal thresholds for quantization using KL divergence'
                    ' with num_quantized_bins=%d' % num_quantized_bins)
    th_dict = {}
    for name in list(hist_dict):
        min_val, max_val, th, divergence = _get_optimal_threshold(hist_dict[name], quantized_dtype,
                                                                  num_quantized_bins=num_quantized_bins)
        th_dict[name] = (0, th) if min_val >= 0 and quantized_dtype in ('auto', 'uint8') else (-th, th)
        del hist_dict[name]
        if logger:
            logger.debug('layer=%s, min_val=%f, max_val=%f, th=%f, divergence=%f'
                         % (name, min_val, max_val, th, divergence))
    return th_dict
