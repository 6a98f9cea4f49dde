"""``mx.contrib.quantization``: MXNet 1.9.1's int8 quantization of symbols and gluon networks, as its
``quantize_model`` / ``quantize_graph`` / ``calib_graph`` compute it: the graph pass (``_quantize_graph``; the MKL-DNN
fused ``_sg_mkldnn_conv`` / ``_sg_mkldnn_fully_connected`` / ``_sg_mkldnn_selfatt_qk`` / ``_sg_mkldnn_selfatt_valatt``
stay themselves, quantized, tensor-wise or channel-wise),
calibration by the layer outputs' min/max ('naive') or KL-divergence thresholds ('entropy'), and the offline
quantization of weights and biases; the quantized operators are mxcompat's (``operator/quantization.py``,
``operator/_sg_mkldnn.py``).

``quantize_model_mkldnn``, and ``quantize_net_v2`` / ``quantize_net`` on ``mx.cpu()``, fuse the float32 graph with
``Symbol.get_backend_symbol('MKLDNN_QUANTIZE')`` before quantizing it and apply the post-quantization passes after
(``symbol/passes/mkldnn_post_quantize.py``), as MXNet's MKL-DNN build does; on another context ``quantize_net_v2``
quantizes the unfused graph, as MXNet (``quantize_model_mkldnn`` raises there, as MXNet).

Differs from MXNet: collectors receive NDArrays (MXNet passes C handles); the calibration graph is not written into
the uncalibrated symbol's nodes (MXNet's ``_calibrate_quantized_sym`` also changes the symbol it is given).
"""
import logging
import os
import tempfile
import warnings

import numpy as np

from .. import ndarray
from .. import symbol as _symbol
from .._checkpoint import load_checkpoint
from ..base import MXNetValueError
from ..context import Context, cpu
from ..gluon.block import SymbolBlock
from ..io import DataBatch, DataDesc, DataIter
from ..module import Module
from . import _quantize_graph as _graph

# MXNet 1.9.1's public functions of mxnet.contrib.quantization that mxcompat does not have
GAPS = ()

__all__ = ['quantize_model', 'quantize_model_mkldnn', 'quantize_graph', 'calib_graph', 'quantize_net_v2',
           'quantize_net', 'combine_histogram']


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


# ---- the quantization flow: MXNet 1.9.1's quantize_model / quantize_graph / calib_graph ---------------------------
def _histogram(arr, bins, th):
    """``np.histogram(arr, bins, range=(-th, th))`` as MXNet's NumPy 1 computes it for float32 data: edges and bin
    positions in float32 even for a float64 ``th`` (NumPy 2 computes them in float64, which moves values within an
    ulp of an edge to the next bin)."""
    a = np.asarray(arr).ravel()
    first, last = -th, th
    if first == last:
        first, last = first - 0.5, last + 0.5
    bin_type = np.result_type(np.float32 if a.dtype == np.float32 else np.float64, a.dtype)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.float64
    # (NumPy 1: the scalars' type does not lift an array's; linspace works in float64, a float32 difference of the
    # edges is divided in float64)
    edges = np.linspace(np.float64(first), np.float64(last), bins + 1, endpoint=True).astype(bin_type)
    norm = bin_type.type(bins / np.float64(last - first))
    lo, hi = bin_type.type(first), bin_type.type(last)
    a = a[(a >= lo) & (a <= hi)].astype(bin_type, copy=False)
    index = ((a - lo) * norm).astype(np.intp)
    index[index == bins] -= 1
    index[a < edges[index]] -= 1
    index[(a >= edges[index + 1]) & (index != bins - 1)] += 1
    return np.bincount(index, minlength=bins), edges


def combine_histogram(old_hist, arr, new_min, new_max, new_th):
    """Add the histogram of ``arr`` to ``old_hist`` (hist, edges, min, max, threshold), widening its symmetric range
    by whole bins of the old width when ``new_th`` exceeds the old threshold (as MXNet)."""
    hist, edges, old_min, old_max, old_th = old_hist
    lo, hi = min(old_min, new_min), max(old_max, new_max)
    if new_th <= old_th:
        counts, _ = _histogram(arr, len(hist), old_th)
        return hist + counts, edges, lo, hi, old_th
    # (MXNet's NumPy 1 gave ``2 * float32 / int`` in float64, NumPy 2 keeps float32: the bins are MXNet's in float64)
    width = 2 * np.float64(old_th) / len(hist)
    grow = int((new_th - old_th) // width + 1)
    th = grow * width + old_th
    counts, new_edges = _histogram(arr, len(hist) + 2 * grow, th)
    counts[grow:len(counts) - grow] += hist
    return counts, new_edges, lo, hi, th


def _host(arr):
    return arr.asnumpy() if hasattr(arr, 'asnumpy') else np.asarray(arr)


class _Collector:
    """A monitor callback over the layer outputs named in ``include_layer``. Differs from MXNet: ``collect``
    receives an NDArray, not a C handle."""

    def __init__(self, include_layer, logger):
        self.include_layer, self.logger = include_layer, logger

    def collect(self, name, arr):
        if name in self.include_layer:
            self._add(name, arr)


class _LayerHistogramCollector(_Collector):
    """Each layer output's histogram (``num_bins`` bins over its symmetric range), for entropy calibration."""

    def __init__(self, num_bins=8001, include_layer=None, logger=None):
        super().__init__(include_layer, logger)
        self.hist_dict = {}
        self.num_bins = num_bins

    def _add(self, name, arr):
        arr = _host(arr)
        if self.logger:
            self.logger.debug('Collecting layer %s histogram of shape %s' % (name, arr.shape))
        lo, hi = np.min(arr), np.max(arr)
        th = max(abs(lo), abs(hi))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], arr, lo, hi, th)
        else:
            hist, edges = _histogram(arr, self.num_bins, th)
            self.hist_dict[name] = (hist, edges, lo, hi, th)


class _LayerOutputMinMaxCollector(_Collector):
    """Each layer output's running (min, max), for naive calibration."""

    def __init__(self, quantized_dtype, include_layer=None, logger=None):
        super().__init__(include_layer, logger)
        self.min_max_dict = {}
        self.quantized_dtype = quantized_dtype

    def _add(self, name, arr):
        lo, hi = float(ndarray.min(arr).asscalar()), float(ndarray.max(arr).asscalar())
        if name in self.min_max_dict:
            old_lo, old_hi = self.min_max_dict[name]
            lo, hi = min(old_lo, lo), max(old_hi, hi)
        self.min_max_dict[name] = (lo, hi)
        if self.logger:
            self.logger.debug('Collecting layer %s min_range=%f, max_range=%f' % (name, lo, hi))


def _collect_layer_statistics(mod, data, collector, max_num_examples=None, logger=None):
    if not isinstance(data, DataIter):
        raise MXNetValueError('Only supports data as a type of DataIter, while received type %s'
                              % str(type(data)))
    mod._exec_group.execs[0].set_monitor_callback(collector.collect, monitor_all=True)
    batches = examples = 0
    for batch in data:
        mod.forward(data_batch=batch, is_train=False)
        batches += 1
        examples += data.batch_size
        if max_num_examples is not None and examples >= max_num_examples:
            break
    if logger is not None:
        logger.info('Collected statistics from %d batches with batch_size=%d' % (batches, data.batch_size))
    return examples


def _collect_layer_output_min_max(mod, data, quantized_dtype, include_layer=None, max_num_examples=None,
                                  logger=None):
    collector = _LayerOutputMinMaxCollector(quantized_dtype=quantized_dtype, include_layer=include_layer,
                                            logger=logger)
    return collector.min_max_dict, _collect_layer_statistics(mod, data, collector, max_num_examples, logger)


def _collect_layer_histogram(mod, data, include_layer=None, max_num_examples=None, logger=None):
    collector = _LayerHistogramCollector(include_layer=include_layer, logger=logger)
    return collector.hist_dict, _collect_layer_statistics(mod, data, collector, max_num_examples, logger)


def _quantize_symbol(sym, ctx, excluded_symbols=None, excluded_operators=None, offline_params=None,
                     quantized_dtype='int8', quantize_mode='smart', quantize_granularity='tensor-wise'):
    """(quantized Symbol, layer outputs to calibrate): MXNet's MXQuantizeSymbol pass (``_quantize_graph``) on the
    CPU (the operators MXNet's MKL-DNN build quantizes; ``ctx`` is not read)."""
    for what, names in (('excluded_symbols', excluded_symbols), ('excluded_operators', excluded_operators)):
        if names is not None and not isinstance(names, list):
            raise MXNetValueError('%s must be a list of strings' % what)
    return _graph.quantize_symbol(sym, excluded_symbols or (), excluded_operators or (), offline_params or (),
                                  quantized_dtype, quantize_mode, quantize_granularity)


def _calibrate_quantized_sym(qsym, th_dict):
    """``qsym`` with the thresholds of ``th_dict`` ({layer output: (min, max)}) as its quantize and requantize
    nodes' calibration ranges."""
    if not th_dict:
        return qsym
    return _graph.set_calib_table(qsym, th_dict)


def _quantize_params(qsym, params, th_dict):
    """The arguments of ``qsym`` from the float32 ``params``: weights and biases quantized to int8 offline (with
    their ``_min`` / ``_max``), the other parameters as they are, and calibrated ranges of ``th_dict`` for
    ``<layer>_min`` / ``_max`` arguments."""
    out = {}
    for name in qsym.list_arguments():
        if name.endswith(('weight_quantize', 'bias_quantize')):
            param = params[name[:-len('_quantize')]]
            val, vmin, vmax = ndarray.contrib.quantize(data=param, min_range=ndarray.min(param),
                                                       max_range=ndarray.max(param), out_type='int8')
            out[name], out[name + '_min'], out[name + '_max'] = val, vmin, vmax
        elif name in params:
            out[name] = params[name]
        elif name.endswith(('_min', '_max')) and name[:-4] in th_dict:
            out[name] = ndarray.array([th_dict[name[:-4]][0 if name.endswith('_min') else 1]])
    return out


def _check_lists(excluded_sym_names, excluded_op_names):
    for what, names in (('excluded_sym_names', excluded_sym_names), ('excluded_op_names', excluded_op_names)):
        if names is not None and not isinstance(names, list):
            raise MXNetValueError('%s must be a list of strings representing the names of the %s that will not be '
                                  'quantized, while received type %s'
                                  % (what, 'symbols' if what == 'excluded_sym_names' else 'operators',
                                     str(type(names))))
    return excluded_sym_names or [], excluded_op_names or []


def _checked_quantize(sym, arg_params, ctx, excluded_sym_names, excluded_op_names, quantized_dtype, quantize_mode,
                      quantize_granularity):
    """The arguments checked as MXNet checks them, then (quantized symbol, layers to calibrate), every argument
    parameter quantized offline."""
    excluded_sym_names, excluded_op_names = _check_lists(excluded_sym_names, excluded_op_names)
    _check_dtype_granularity(quantized_dtype, quantize_granularity)
    return _quantize_symbol(sym, ctx, excluded_symbols=excluded_sym_names, excluded_operators=excluded_op_names,
                            offline_params=list(arg_params), quantized_dtype=quantized_dtype,
                            quantize_mode=quantize_mode, quantize_granularity=quantize_granularity)


def _check_dtype_granularity(quantized_dtype, quantize_granularity):
    if quantized_dtype not in ('int8', 'uint8', 'auto'):
        raise MXNetValueError('unknown quantized_dtype %s received, expected `int8`, `uint8` or `auto`'
                              % quantized_dtype)
    if quantize_granularity not in ('tensor-wise', 'channel-wise'):
        raise MXNetValueError('unkonwn quantize_granularity %s received, expected `tensor-wise` or `channel-wise`.'
                              % quantize_granularity)


def quantize_model(sym, arg_params, aux_params, data_names=('data',), label_names=('softmax_label',), ctx=cpu(),
                   excluded_sym_names=None, excluded_op_names=None, calib_mode='entropy', calib_data=None,
                   num_calib_examples=None, quantized_dtype='int8', quantize_mode='smart',
                   quantize_granularity='tensor-wise', logger=None):
    """(quantized symbol, quantized arg_params, aux_params) of a float32 model, calibrated on ``calib_data``
    ('naive': the layer outputs' min/max; 'entropy': the KL-divergence thresholds; 'none': ranges computed at run
    time). Differs from MXNet: collectors receive NDArrays."""
    if logger:
        logger.info('Quantizing symbol')
    qsym, calib_layer = _checked_quantize(sym, arg_params, ctx, excluded_sym_names, excluded_op_names,
                                          quantized_dtype, quantize_mode, quantize_granularity)
    th_dict = {}
    if calib_mode is not None and calib_mode != 'none':
        if not isinstance(ctx, Context):
            raise MXNetValueError('currently only supports single ctx, while received %s' % str(ctx))
        if calib_data is None:
            raise MXNetValueError('calib_data must be provided when calib_mode=%s' % calib_mode)
        if not isinstance(calib_data, DataIter):
            raise MXNetValueError('calib_data must be of DataIter type when calib_mode=%s, while received type %s'
                                  % (calib_mode, str(type(calib_data))))
        mod = Module(symbol=sym, data_names=data_names, label_names=label_names, context=ctx)
        if len(calib_data.provide_label) > 0:
            mod.bind(for_training=False, data_shapes=calib_data.provide_data, label_shapes=calib_data.provide_label)
        else:
            mod.bind(for_training=False, data_shapes=calib_data.provide_data)
        mod.set_params(arg_params, aux_params)
        if calib_mode == 'entropy':
            hist_dict, examples = _collect_layer_histogram(mod, calib_data, include_layer=calib_layer,
                                                           max_num_examples=num_calib_examples, logger=logger)
            if logger:
                logger.info('Collected layer outputs from FP32 model using %d examples' % examples)
                logger.info('Calculating optimal thresholds for quantization')
            th_dict = _get_optimal_thresholds(hist_dict, quantized_dtype, logger=logger)
        elif calib_mode == 'naive':
            th_dict, examples = _collect_layer_output_min_max(mod, calib_data, quantized_dtype,
                                                              include_layer=calib_layer,
                                                              max_num_examples=num_calib_examples, logger=logger)
            if logger:
                logger.info('Collected layer output min/max values from FP32 model using %d examples' % examples)
        else:
            raise MXNetValueError('unknown calibration mode %s received, expected `none`, `naive`, or `entropy`'
                                  % calib_mode)
        qsym = _calibrate_quantized_sym(qsym, th_dict)
    if logger:
        logger.info('Quantizing parameters')
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params


def quantize_graph(sym, arg_params, aux_params, ctx=cpu(), excluded_sym_names=None, excluded_op_names=None,
                   calib_mode='entropy', quantized_dtype='int8', quantize_mode='full',
                   quantize_granularity='tensor-wise', LayerOutputCollector=None, logger=None):
    """(quantized symbol, quantized arg_params, aux_params, collector): the uncalibrated model and a collector to
    fill through ``set_monitor_callback`` for :func:`calib_graph` ('entropy', 'naive' or 'customize' with
    ``LayerOutputCollector``)."""
    if not isinstance(ctx, Context):
        raise MXNetValueError('currently only supports single ctx, while received %s' % str(ctx))
    if logger:
        logger.info('Quantizing graph')
    qsym, calib_layer = _checked_quantize(sym, arg_params, ctx, excluded_sym_names, excluded_op_names,
                                          quantized_dtype, quantize_mode, quantize_granularity)
    collector = None
    if calib_mode is not None and calib_mode != 'none':
        if calib_mode == 'entropy':
            collector = _LayerHistogramCollector(include_layer=calib_layer, logger=logger)
        elif calib_mode == 'naive':
            collector = _LayerOutputMinMaxCollector(quantized_dtype=quantized_dtype, include_layer=calib_layer,
                                                    logger=logger)
        elif calib_mode == 'customize' and LayerOutputCollector is not None:
            collector = LayerOutputCollector
        else:
            raise MXNetValueError('unknown calibration mode %s received, expected `none`, `naive`, `entropy` or '
                                  '`customize`' % calib_mode)
        if logger:
            logger.info('Collector created, please use set_monitor_callback to collect calibration information.')
    if logger:
        logger.info('Quantizing parameters')
    return qsym, _quantize_params(qsym, arg_params, {}), aux_params, collector


def calib_graph(qsym, arg_params, aux_params, collector, calib_mode='entropy', quantized_dtype='int8',
                logger=logging):
    """(calibrated symbol, quantized arg_params, aux_params) from a collector filled by a forward pass over
    calibration data (see :func:`quantize_graph`)."""
    if calib_mode is None or calib_mode == 'none':
        raise MXNetValueError('please set calibration mode to naive or entropy.')
    if calib_mode == 'entropy':
        if logger:
            logger.info('Calculating optimal thresholds for quantization')
        th_dict = _get_optimal_thresholds(collector.hist_dict, quantized_dtype, logger=logger)
    elif calib_mode in ('naive', 'customize'):
        th_dict = collector.min_max_dict
    else:
        raise MXNetValueError('unknown calibration mode %s received, expected `none`, `naive`, `entropy` or '
                              '`customize`' % calib_mode)
    qsym = _calibrate_quantized_sym(qsym, th_dict)
    if logger:
        logger.info('Quantizing parameters')
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params


# ---- the MKL-DNN flow: MXNet 1.9.1's quantize_model_mkldnn / quantize_net_v2 / quantize_net -----------------------
def quantize_model_mkldnn(sym, arg_params, aux_params, data_names=('data',), label_names=('softmax_label',),
                          ctx=cpu(), excluded_sym_names=None, excluded_op_names=None, calib_mode='entropy',
                          calib_data=None, num_calib_examples=None, quantized_dtype='int8', quantize_mode='smart',
                          quantize_granularity='tensor-wise', logger=None):
    """:func:`quantize_model` on the graph fused by ``get_backend_symbol('MKLDNN_QUANTIZE')``, with that backend's
    post-quantization passes applied to the result: (quantized symbol, quantized arg_params, aux_params). ``ctx``
    must be a CPU context, as in MXNet."""
    if not isinstance(ctx, Context):
        raise MXNetValueError('currently only supports single ctx, while received %s' % str(ctx))
    if ctx.device_type != 'cpu':
        raise MXNetValueError('quantize_model_mkldnn only support Intel cpu platform with MKL-DNN Backend')
    sym = sym.get_backend_symbol('MKLDNN_QUANTIZE')
    qsym, qarg_params, aux_params = quantize_model(
        sym=sym, arg_params=arg_params, aux_params=aux_params, data_names=data_names, label_names=label_names,
        ctx=ctx, excluded_sym_names=excluded_sym_names, excluded_op_names=excluded_op_names, calib_mode=calib_mode,
        calib_data=calib_data, num_calib_examples=num_calib_examples, quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity, logger=logger)
    return qsym.get_backend_symbol('MKLDNN_QUANTIZE'), qarg_params, aux_params


def _merged(first):
    """A calibration batch's first array with its first two axes merged when it has more than 4 (5-d/6-d data)."""
    return first.reshape((-1,) + tuple(first.shape[2:])) if len(first.shape) > 4 else first


def _calib_names(n):
    """MXNet's names for the ``n`` arrays of a calibration batch: ``data`` and ``data0`` (which MXNet takes for a
    label) for one or two, ``data0`` ... ``data<n-1>`` for three or more."""
    return ['data%d' % i for i in range(n)] if n >= 3 else ['data', 'data0'][:n]


class _DataIterWrapper(DataIter):
    """A DataIter over another iterable of batches (a gluon DataLoader): each batch a list of arrays (or one
    array), named by ``_calib_names`` from the first batch; see ``_merged``."""

    def __init__(self, calib_data):
        self._data = calib_data
        try:
            batches = iter(calib_data)
        except TypeError as e:
            raise TypeError('calib_data is not a valid iterator. {}'.format(e))
        first = next(batches)
        arrays = list(first) if isinstance(first, (list, tuple)) else [first]
        if not arrays:
            raise AssertionError('calib_data gives empty batches')
        arrays[0] = _merged(arrays[0])
        self.provide_data = [DataDesc(name=name, shape=a.shape) for name, a in zip(_calib_names(len(arrays)), arrays)]
        self.provide_label = []
        self.batch_size = arrays[0].shape[0]
        self.reset()

    def reset(self):
        self._iter = iter(self._data)

    def next(self):
        batch = next(self._iter)
        if len(batch[0].shape) > 4:
            batch = [_merged(batch[0])] + list(batch[1:])
        return DataBatch(data=batch)


def _as_data_iter(calib_data):
    """(DataIter, its provide_data) of ``calib_data``."""
    if isinstance(calib_data, DataIter):
        return calib_data, calib_data.provide_data
    calib_data = _DataIterWrapper(calib_data)
    return calib_data, calib_data.provide_data


def _export(network):
    """(symbol, arg_params, aux_params) of a HybridBlock, through ``export`` and ``load_checkpoint`` as MXNet."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, 'tmp')
        network.export(prefix, epoch=0)
        return load_checkpoint(prefix, 0)


def _symbol_block(qsym, data_names, qarg_params, aux_params, ctx):
    """The SymbolBlock of the quantized graph, its parameters loaded through a saved file as MXNet (the saved
    dtypes kept)."""
    net = SymbolBlock(qsym, [_symbol.var(name) for name in data_names])
    with tempfile.TemporaryDirectory() as tmp:
        param_name = os.path.join(tmp, 'tmpnet-quantized-0000.params')
        save_dict = {'arg:%s' % k: v.as_in_context(cpu()) for k, v in qarg_params.items()}
        save_dict.update({'aux:%s' % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
        ndarray.save(param_name, save_dict)
        net.collect_params().load(param_name, cast_dtype=True, dtype_source='saved')
        net.collect_params().reset_ctx(ctx)
    return net


def _run_once(network, calib_data, data_shapes):
    """(calibration DataIter, data shapes) after running the hybridized ``network`` once on zeros of those shapes
    (the calibration data's where none are given). A network that takes fewer inputs (a TypeError) is tried again
    without the last one, and the calibration data's last input is dropped with it, as MXNet finds the count."""
    network.hybridize()
    if calib_data is not None:
        calib_data, given = _as_data_iter(calib_data)
        data_shapes = data_shapes or given
    if not data_shapes:
        raise MXNetValueError('data_shapes required')
    inputs = [ndarray.zeros(desc.shape) for desc in data_shapes]
    while True:
        try:
            network(*inputs)
            return calib_data, data_shapes
        except TypeError:
            inputs.pop()
            if calib_data is not None:
                calib_data.provide_data.pop()


def quantize_net_v2(network, quantized_dtype='auto', quantize_mode='full', quantize_granularity='tensor-wise',
                    exclude_layers=None, exclude_layers_match=None, exclude_operators=None, calib_data=None,
                    data_shapes=None, calib_mode='none', num_calib_examples=None, ctx=cpu(),
                    LayerOutputCollector=None, logger=None):
    """A quantized SymbolBlock of the HybridBlock ``network``: exported, fused for MKL-DNN on ``mx.cpu()``,
    quantized (:func:`quantize_graph`), calibrated on ``calib_data`` (a DataIter, or an iterable of batches such as
    a gluon DataLoader; ``data_shapes``, a list of DataDesc, where there is none) and post-quantized.
    ``exclude_layers`` names nodes to leave in float32, ``exclude_layers_match`` substrings of their names,
    ``exclude_operators`` operators."""
    if logger:
        logger.info('Export HybridBlock')
    calib_data, data_shapes = _run_once(network, calib_data, data_shapes)
    symnet, args, auxs = _export(network)
    exclude_layers = [] if exclude_layers is None else exclude_layers
    exclude_operators = [] if exclude_operators is None else exclude_operators
    for name_match in exclude_layers_match or []:
        exclude_layers += [layer.name for layer in symnet.get_internals() if layer.name.find(name_match) != -1]
    if logger:
        logger.info('These layers have been excluded %s' % exclude_layers)
    mkldnn = ctx == cpu()
    if mkldnn:
        symnet = symnet.get_backend_symbol('MKLDNN_QUANTIZE')
    qsym, qarg_params, aux_params, collector = quantize_graph(
        sym=symnet, arg_params=args, aux_params=auxs, ctx=ctx, excluded_sym_names=exclude_layers,
        excluded_op_names=exclude_operators, calib_mode=calib_mode, quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity,
        LayerOutputCollector=LayerOutputCollector, logger=logger)
    if calib_mode is not None and calib_mode != 'none':
        if not isinstance(ctx, Context):
            raise MXNetValueError('currently only supports single ctx, while received %s' % str(ctx))
        if calib_data is None:
            raise MXNetValueError('calib_data must be provided when calib_mode=%s' % calib_mode)
        if calib_mode not in ('naive', 'entropy', 'customize'):
            raise MXNetValueError('please set calibration mode to naive or entropy.')
        data_names = [pair[0] for pair in calib_data.provide_data]
        mod = Module(symbol=symnet, context=ctx, data_names=data_names, label_names=None)
        mod.bind(for_training=False, data_shapes=data_shapes)
        mod.set_params(args, auxs, allow_missing=False, force_init=True)
        num_examples = _collect_layer_statistics(mod, calib_data, collector, num_calib_examples, logger)
        if logger:
            logger.info('Collected layer output values from FP32 model using %d examples' % num_examples)
        qsym, qarg_params, aux_params = calib_graph(qsym=qsym, arg_params=args, aux_params=auxs,
                                                    collector=collector, calib_mode=calib_mode,
                                                    quantized_dtype=quantized_dtype, logger=logger)
    else:
        data_names = [pair[0] for pair in data_shapes]
    if mkldnn:
        qsym = qsym.get_backend_symbol('MKLDNN_QUANTIZE')
    return _symbol_block(qsym, data_names, qarg_params, aux_params, ctx)


def quantize_net(network, quantized_dtype='auto', quantize_mode='full', exclude_layers=None,
                 exclude_layers_match=None, exclude_operators=None, calib_data=None, data_shapes=None,
                 calib_mode='none', num_calib_examples=None, ctx=cpu(), logger=None):
    """:func:`quantize_net_v2` with tensor-wise granularity and no custom collector; warns that it is deprecated
    (as MXNet)."""
    warnings.warn('WARNING: This will be deprecated after MXNet 2.0, please use quantize_net_v2.')
    return quantize_net_v2(network=network, quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
                           quantize_granularity='tensor-wise', exclude_layers=exclude_layers,
                           exclude_layers_match=exclude_layers_match, exclude_operators=exclude_operators,
                           calib_data=calib_data, data_shapes=data_shapes, calib_mode=calib_mode,
                           num_calib_examples=num_calib_examples, ctx=ctx, LayerOutputCollector=None,
                           logger=logger)
