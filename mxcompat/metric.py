"""``mx.metric``: online evaluation metrics, with MXNet 1.9.1's formulas, accumulation order and quirks.

Values equal MXNet's: per-batch statistics are computed as MXNet computes them (numpy on ``asnumpy()`` copies,
float32 where MXNet works in float32) and accumulated as float64, as MXNet's Python floats accumulate numpy
scalars. Differs from MXNet: checks MXNet makes with ``assert`` raise an error that is both an ``AssertionError``
and an ``MXNetValueError``; ``CompositeEvalMetric.get_metric`` raises for a bad index (MXNet returns the error).
"""
import ctypes
import ctypes.util
import math
from collections import OrderedDict

import numpy
import torch

from .base import MXNetValueError, numeric_types, string_types
from .registry import _check, make_registry
from .ndarray.ndarray import NDArray

__all__ = ['EvalMetric', 'CompositeEvalMetric', 'Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'Perplexity', 'MAE',
           'MSE', 'RMSE', 'CrossEntropy', 'NegativeLogLikelihood', 'PearsonCorrelation', 'PCC', 'Loss', 'Torch',
           'Caffe', 'CustomMetric', 'np', 'create', 'register', 'alias', 'check_label_shapes']


def _f64(x):
    """A numpy float scalar as float64, so sums accumulate as under MXNet's numpy (1.x promotes to float64)."""
    return numpy.float64(x) if isinstance(x, numpy.floating) else x


def _np(x):
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raise ValueError unless ``len`` (or, with ``shape=True``, ``.shape``) of labels and preds agree; with
    ``wrap=True`` a single NDArray is returned wrapped in a list."""
    measure = (lambda a: a.shape) if shape else len
    got_l, got_p = measure(labels), measure(preds)
    if got_l != got_p:
        raise MXNetValueError('Shape of labels {} does not match shape of predictions {}'.format(got_l, got_p))
    if not wrap:
        return labels, preds
    return tuple([x] if isinstance(x, NDArray) else x for x in (labels, preds))


def _loggable(value):
    """``value`` for the ``%f`` of MXNet's log lines: a one-element array (a custom metric whose function returns
    one, accumulated as an array as in MXNet) as its number, which numpy 1.x formatted and numpy 2 refuses."""
    if isinstance(value, numpy.ndarray) and value.ndim and value.size == 1:
        return value.reshape(())[()]
    return value


class _Zero(numpy.float64):
    """The sums' starting 0.0, adding as MXNet's Python ``0.0`` did under numpy 1.x: a numpy float32 number gives
    float64 (numpy 2 would keep float32), an array keeps its dtype (a Python float is a weak scalar for arrays).
    Metrics written for MXNet (``self.sum_metric += (-numpy.log(p)).sum()``) then sum as they did there."""

    def __add__(self, other):
        if isinstance(other, numpy.ndarray):
            return float(self) + other
        return numpy.float64.__add__(self, other)

    __radd__ = __add__


def _ratio(name, total, count, post=None):
    """``(name, total / count)`` (through ``post`` when given), or ``(name, nan)`` before any instance."""
    if count == 0:
        return (name, float('nan'))
    value = total / count
    return (name, value if post is None else post(value))


class EvalMetric:
    """Base class of metrics: accumulates ``sum_metric`` / ``num_inst`` locally (``reset_local``) and globally."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self.name, self.output_names, self.label_names = str(name), output_names, label_names
        self._kwargs = kwargs  # the constructor arguments get_config reports back
        self.reset()

    def __str__(self):
        return 'EvalMetric: {}'.format(dict(self.get_name_value()))

    def get_config(self):
        """The kwargs that ``mx.metric.create(**config)`` turns back into this metric."""
        return dict(self._kwargs, metric=type(self).__name__, name=self.name, output_names=self.output_names,
                    label_names=self.label_names)

    def update_dict(self, label, pred):
        """Update from name -> NDArray dicts, picking ``label_names`` / ``output_names`` (all when None)."""
        pred = list(pred.values()) if self.output_names is None else [pred[n] for n in self.output_names]
        label = list(label.values()) if self.label_names is None else [label[n] for n in self.label_names]
        self.update(label, pred)

    def update(self, labels, preds):
        """Accumulate one batch: lists of label and prediction NDArrays."""
        raise NotImplementedError()

    def reset(self):
        """Clear both the local and the global accumulators."""
        self.global_num_inst, self.global_sum_metric = 0, _Zero(0.0)
        self.reset_local()

    def reset_local(self):
        """Clear the local accumulators only (the global ones keep running)."""
        self.num_inst, self.sum_metric = 0, _Zero(0.0)

    def _add(self, value, count):
        value = _f64(value)
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def get(self):
        """``(name, value)`` over the batches since the last reset (nan when there were none)."""
        return _ratio(self.name, self.sum_metric, self.num_inst)

    def get_global(self):
        """``(name, value)`` since the last full ``reset`` (``get()`` for metrics without global statistics)."""
        if self._has_global_stats:
            return _ratio(self.name, self.global_sum_metric, self.global_num_inst)
        return self.get()

    def get_name_value(self):
        """``[(name, value), ...]``."""
        return _zip_pairs(*self.get())

    def get_global_name_value(self):
        """``[(name, value), ...]`` for the global values."""
        return _zip_pairs(*(self.get_global() if self._has_global_stats else self.get()))


def _zip_pairs(name, value):
    return list(zip(name if isinstance(name, list) else [name], value if isinstance(value, list) else [value]))


_REGISTRY, register, alias, _create = make_registry(EvalMetric, 'metric')


def create(metric, *args, **kwargs):
    """A metric from a name (or alias), an EvalMetric (returned), a config dict, a list of those
    (-> CompositeEvalMetric) or a callable ``feval(label, pred)`` (-> CustomMetric)."""
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        composite.metrics.extend(create(child, *args, **kwargs) for child in metric)
        return composite
    return CustomMetric(metric, *args, **kwargs) if callable(metric) else _create(metric, *args, **kwargs)


@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values."""

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(i) for i in (metrics or [])]

    def add(self, metric):
        """Append a child (anything ``create`` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index`` (raises ValueError when out of range; MXNet returns the error)."""
        if -len(self.metrics) <= index < len(self.metrics):
            return self.metrics[index]
        raise MXNetValueError('Metric index {} is out of range 0 and {}'.format(index, len(self.metrics)))

    @staticmethod
    def _only(mapping, keep):
        return mapping if keep is None else OrderedDict((k, v) for k, v in mapping.items() if k in keep)

    def update_dict(self, labels, preds):
        labels = self._only(labels, self.label_names)
        preds = self._only(preds, self.output_names)
        self._each('update_dict', labels, preds)

    def _each(self, method, *args):
        # reset() runs from EvalMetric.__init__ before the children list exists
        for child in getattr(self, 'metrics', ()):
            getattr(child, method)(*args)

    def update(self, labels, preds):
        self._each('update', labels, preds)

    def reset(self):
        self._each('reset')

    def reset_local(self):
        self._each('reset_local')

    def _collect(self, use_global):
        names, values = [], []
        for child in self.metrics:
            name, value = child.get_global() if use_global else child.get()
            names += [name] if isinstance(name, string_types) else list(name)
            values += [value] if isinstance(value, numeric_types) else list(value)
        return (names, values)

    def get(self):
        return self._collect(False)

    def get_global(self):
        return self._collect(True)

    def get_config(self):
        return dict(super().get_config(), metrics=[child.get_config() for child in self.metrics])


# ---- classification -------------------------------------------------------------------------------------------

def _dense_hits(pred, label, axis):
    """Accuracy's ``(numpy.int64 hits, count)`` for dense tensors, counted by torch without numpy copies; None for
    an ``axis`` the numpy path must judge. Scores are reduced by argmax; the int64 indices are compared with the
    labels truncated toward zero, which matches MXNet's int32 comparison for every index below 2**31. Class
    indices given as predictions are truncated to int32 as in MXNet."""
    if label.device != pred.device:  # a label from the CPU for a prediction on a GPU: compared on the GPU
        label = label.to(pred.device)
    if pred.shape != label.shape:
        if not -pred.dim() <= axis < pred.dim():
            return None
        pred = pred.argmax(axis)
        if label.dtype != torch.int64:
            label = label.to(torch.int64)
    else:
        if pred.dtype != torch.int32:
            pred = pred.to(torch.int32)
        if label.dtype != torch.int32:
            label = label.to(torch.int32)
    n = pred.numel()
    if label.numel() != n:
        raise MXNetValueError('Shape of labels {} does not match shape of predictions {}'.format(label.numel(), n))
    if pred.shape != label.shape:
        pred, label = pred.reshape(-1), label.reshape(-1)
    return numpy.int64(torch.count_nonzero(torch.eq(pred, label)).item()), n


@register
@alias('acc')
class Accuracy(EvalMetric):
    """Fraction of correct predictions; predictions are class indices, or scores reduced by argmax over ``axis``
    when their shape differs from the label's. Both are truncated to int32."""

    def __init__(self, axis=1, name='accuracy', output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        if (type(labels) is list and type(preds) is list and len(labels) == 1 == len(preds)
                and type(labels[0]) is NDArray and type(preds[0]) is NDArray):  # one dense pair: the usual batch
            counted = _dense_hits(preds[0]._t, labels[0]._t, self.axis)
            if counted is not None:
                self._add(*counted)
                return
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if type(pred) is NDArray and type(label) is NDArray:
                counted = _dense_hits(pred._t, label._t, self.axis)
                if counted is not None:
                    self._add(*counted)
                    continue
            pred = _np(pred)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=self.axis)
            pred = pred.astype('int32').ravel()
            label = _np(label).astype('int32').ravel()
            check_label_shapes(label, pred)
            self._add((pred == label).sum(), len(pred))


@register
@alias('top_k_accuracy', 'top_k_acc')
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest scores (name gets ``_<top_k>``)."""

    def __init__(self, top_k=1, name='top_k_accuracy', output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        _check(top_k > 1, 'Please use Accuracy if top_k is no more than 1')
        self.top_k = top_k
        self.name = '%s_%d' % (self.name, top_k)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            _check(len(pred.shape) <= 2, 'Predictions should be no more than 2 dims')
            pred = _np(pred).astype('float32')
            if self.top_k > pred.shape[-1]:  # numpy's own error, as an MXNetValueError
                raise MXNetValueError('kth(=%d) out of bounds (%d)' % (pred.shape[-1] - self.top_k, pred.shape[-1]))
            order = numpy.argpartition(pred, -self.top_k)
            truth = _np(label).astype('int32')
            check_label_shapes(truth, order)
            truth = truth.ravel()
            if order.ndim == 1:
                # a 1-D prediction only feeds the local sum (as in MXNet)
                self.sum_metric += _f64((order.ravel() == truth).sum())
            else:
                # the top_k best classes sit in the last top_k columns, scanned from the best one down
                width = order.shape[1]
                for col in range(width - 1, width - 1 - min(width, self.top_k), -1):
                    hits = (order[:, col].ravel() == truth).sum()
                    self.sum_metric += hits
                    self.global_sum_metric += hits
            self.num_inst += order.shape[0]
            self.global_num_inst += order.shape[0]


class _BinaryStats:
    """True/false positive/negative counts (local and global) for binary metrics."""

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        pred = _np(pred)
        label = _np(label).astype('int32')
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            # the class name MXNet reports here is its private helper's
            raise MXNetValueError('_BinaryClassificationMetrics currently only supports binary classification.')
        pred_true = pred_label == 1
        label_true = label == 1
        tp = int((pred_true & label_true).sum())
        fp = int((pred_true & ~label_true).sum())
        fn = int((~pred_true & label_true).sum())
        tn = int((~pred_true & ~label_true).sum())
        self.tp += tp
        self.fp += fp
        self.fn += fn
        self.tn += tn
        self.g_tp += tp
        self.g_fp += fp
        self.g_fn += fn
        self.g_tn += tn

    def counts(self, use_global):
        return (self.g_tp, self.g_fp, self.g_fn, self.g_tn) if use_global else (self.tp, self.fp, self.fn, self.tn)

    def total(self, use_global=False):
        return sum(self.counts(use_global))

    def fscore(self, use_global=False):
        tp, fp, fn, _ = self.counts(use_global)
        prec = tp / float(tp + fp) if tp + fp else 0.
        rec = tp / float(tp + fn) if tp + fn else 0.
        return 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.

    def matthewscc(self, use_global=False):
        tp, fp, fn, tn = (float(c) for c in self.counts(use_global))
        if not self.total(use_global):
            return 0.
        # a zero margin would make the denominator vanish; it is left out of the product
        margins = [m for m in (tp + fp, tp + fn, tn + fp, tn + fn) if m != 0.]
        product = 1.
        for m in margins:
            product *= m
        return (tp * tn - fp * fn) / math.sqrt(product)

    def local_reset_stats(self):
        self.tp = self.fp = self.fn = self.tn = 0

    def reset_stats(self):
        self.local_reset_stats()
        self.g_tp = self.g_fp = self.g_fn = self.g_tn = 0


class _BinaryMetric(EvalMetric):
    """F1 / MCC: 'macro' averages the per-batch score, 'micro' scores all samples seen."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._stats = _BinaryStats()
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._stats.update_binary_stats(label, pred)
        if self.average == 'macro':
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            self._stats.reset_stats()
        else:
            self.sum_metric = self._score(False) * self._stats.total()
            self.global_sum_metric = self._score(True) * self._stats.total(True)
            self.num_inst = self._stats.total()
            self.global_num_inst = self._stats.total(True)

    def reset(self):
        super().reset()
        self._stats.reset_stats()

    def reset_local(self):
        super().reset_local()
        self._stats.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classification (label 1 is positive; predictions are 2-column scores)."""

    def __init__(self, name='f1', output_names=None, label_names=None, average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._stats.fscore(use_global)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classification (zero denominator terms count as 1)."""

    def __init__(self, name='mcc', output_names=None, label_names=None, average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._stats.matthewscc(use_global)

    def reset(self):  # MXNet's MCC counts in Python floats
        super().reset()
        self.global_num_inst, self.global_sum_metric = 0., 0.

    def reset_local(self):
        super().reset_local()
        self.num_inst, self.sum_metric = 0., 0.


@register
class Perplexity(EvalMetric):
    """exp(mean negative log-probability of the labels); labels equal to ``ignore_label`` are not counted.
    Predictions are picked along ``axis`` (indices clipped to the valid range)."""

    def __init__(self, ignore_label, axis=-1, name='perplexity', output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        _check(len(labels) == len(preds), 'Perplexity: %d labels but %d predictions' % (len(labels), len(preds)))
        loss = 0.
        num = 0
        for label, pred in zip(labels, preds):
            _check(label.size == pred.size / pred.shape[-1],
                   'shape mismatch: %s vs. %s' % (label.shape, pred.shape))
            p = pred._t
            axis = self.axis % p.dim()
            picked_shape = p.shape[:axis] + p.shape[axis + 1:]
            if (label.size,) != tuple(picked_shape):
                raise MXNetValueError('Perplexity: pick: Shape inconsistent, Provided = [%d], inferred shape=%s'
                                      % (label.size, list(picked_shape)))
            lab = label._t.to(p.device).reshape(-1)
            idx = lab.to(torch.int32).clamp(0, p.shape[axis] - 1).long()
            picked = torch.gather(p, axis, idx.reshape(picked_shape).unsqueeze(axis)).squeeze(axis)
            if self.ignore_label is not None:
                ignore = (lab == self.ignore_label).to(p.dtype)
                num -= ignore.sum().cpu().numpy()[()]
                picked = picked * (1 - ignore) + ignore
            loss -= _f64(_mx_sum(_mx_log(torch.clamp(picked, min=1e-10))))
            num += picked.numel()
        self._add(loss, _f64(num))

    def get(self):
        return _ratio(self.name, self.sum_metric, self.num_inst, math.exp)

    def get_global(self):
        return _ratio(self.name, self.global_sum_metric, self.global_num_inst, math.exp)


_EXACT_LIMIT = 1 << 16  # above this many elements, sums and logs are vectorized (may differ in the last bit)


def _mx_sum(a):
    """MXNet's CPU sum of all elements as a numpy scalar of the array's dtype: a sequential Kahan summation in
    that dtype, reproduced bit for bit (up to _EXACT_LIMIT elements; beyond, a float64 sum rounded)."""
    a = numpy.asarray(a).ravel()
    if a.dtype.kind != 'f':
        return a.sum(dtype=a.dtype)
    f = a.dtype.type
    if a.size > _EXACT_LIMIT:
        return f(a.sum(dtype=numpy.float64))
    dst = res = zero = f(0)
    with numpy.errstate(all='ignore'):
        for v in a:
            y = v - res
            t = dst + y
            res = zero if t - t != 0 else (t - dst) - y  # an infinite partial sum resets the compensation
            dst = t
    return dst


_LIBM = []


def _libm_log(name):
    """The C library's ``log``/``logf`` (what MXNet's CPU log calls), or None where it cannot be loaded."""
    if not _LIBM:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library('m') or ctypes.util.find_library('c'))
            fns = {}
            for fname, ctype in (('logf', ctypes.c_float), ('log', ctypes.c_double)):
                fn = getattr(lib, fname)
                fn.restype, fn.argtypes = ctype, [ctype]
                fns[fname] = numpy.frompyfunc(fn, 1, 1)
            _LIBM.append(fns)
        except (OSError, AttributeError, TypeError):
            _LIBM.append(None)
    return None if _LIBM[0] is None else _LIBM[0][name]


def _mx_log(t):
    """Elementwise natural log of a float tensor as MXNet computes it on CPU (the C library's logf for float32
    and float16, log for float64), as a numpy array of the tensor's dtype; torch's log where libm is missing."""
    a = t.detach().cpu().numpy()
    fn = _libm_log('log' if a.dtype == numpy.float64 else 'logf')
    if fn is None or a.size > _EXACT_LIMIT:
        return torch.log(t.detach()).cpu().numpy()
    return fn(a).astype(a.dtype) if a.size else a


# ---- regression ------------------------------------------------------------------------------------------------

def _as_2d(x):
    x = _np(x)
    return x.reshape(x.shape[0], 1) if x.ndim == 1 else x


class _Regression(EvalMetric):
    """Mean over batches of a per-batch error of (label, pred), 1-D arrays taken as columns."""

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._add(self._error(_as_2d(label), _as_2d(pred)), 1)


@register
class MAE(_Regression):
    """Mean absolute error, averaged per batch."""

    def __init__(self, name='mae', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_Regression):
    """Mean squared error, averaged per batch."""

    def __init__(self, name='mse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_Regression):
    """Root mean squared error, averaged per batch."""

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _LogLoss(EvalMetric):
    """-log(p[label] + eps) summed over samples (rows of a 2-D prediction)."""

    def __init__(self, eps, name, output_names=None, label_names=None):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _np(label).ravel()
            pred = _np(pred)
            n = pred.shape[0]
            _check(label.shape[0] == n, (label.shape[0], n))
            prob = pred[numpy.arange(n, dtype=numpy.int64), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), n)


@register
@alias('ce')
class CrossEntropy(_LogLoss):
    """Cross entropy of probability predictions against class-index labels."""

    def __init__(self, eps=1e-12, name='cross-entropy', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('nll_loss')
class NegativeLogLikelihood(_LogLoss):
    """Negative log-likelihood of probability predictions against class-index labels."""

    def __init__(self, eps=1e-12, name='nll-loss', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('pearsonr')
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels: 'macro' averages per-batch coefficients, 'micro'
    computes one coefficient over all samples (online)."""

    def __init__(self, name='pearsonr', output_names=None, label_names=None, average='macro'):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def reset_micro(self):
        """Forget the running moments of the 'micro' average."""
        # per stream: [count, mean, sum of squared deviations]; plus the co-moment of the two streams
        self._lab_stats = [0, 0, 0]
        self._pred_stats = [0, 0, 0]
        self._comoment = 0

    def reset(self):
        super().reset()
        if self.average == 'micro':
            self.reset_micro()

    def update_variance(self, new_values, *aggregate):
        """Welford's online update of (count, mean, sum of squared deviations) by a batch of values."""
        n, avg, ssd = aggregate
        n += len(new_values)
        before = new_values - avg
        avg += numpy.sum(before / n)
        ssd += numpy.sum(before * (new_values - avg))
        return n, avg, ssd

    def update_cov(self, label, pred):
        """Add a batch to the co-moment (label mean already updated, prediction mean not yet)."""
        self._comoment = self._comoment + numpy.sum((label - self._lab_stats[1]) * (pred - self._pred_stats[1]))

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            y = _np(label).ravel().astype(numpy.float64)
            x = _np(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._add(numpy.corrcoef(x, y)[0, 1], 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            self._lab_stats = list(self.update_variance(y, *self._lab_stats))
            self.update_cov(y, x)
            self._pred_stats = list(self.update_variance(x, *self._pred_stats))

    def get(self):
        if self.average == 'macro' or self.num_inst == 0:
            return super().get()
        n = self._lab_stats[0]
        spread_x = numpy.sqrt(self._pred_stats[2] / (n - 1))
        spread_y = numpy.sqrt(self._lab_stats[2] / (n - 1))
        return (self.name, self._comoment / ((n - 1) * spread_x * spread_y))


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (Pearson on the confusion matrix), which grows with the classes seen."""

    def __init__(self, name='pcc', output_names=None, label_names=None, has_global_stats=True):
        self.k = 2  # classes the confusion matrices currently cover
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _widen(self, classes):
        extra = classes - self.k
        grow = ((0, extra), (0, extra))
        self.lcm, self.gcm = (numpy.pad(m, grow, 'constant', constant_values=0) for m in (self.lcm, self.gcm))
        self.k = classes

    @staticmethod
    def _confusion_mcc(conf):
        total = conf.sum()
        rows, cols = conf.sum(axis=1), conf.sum(axis=0)
        var_rows = numpy.sum(rows * (total - rows))
        var_cols = numpy.sum(cols * (total - cols))
        if var_rows == 0 or var_cols == 0:
            return float('nan')
        return numpy.sum(conf.diagonal() * total - rows * cols) / (var_rows * var_cols) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            truth = _np(label).astype('int32')
            guess = _np(pred)
            guess = guess.argmax(axis=1) if guess.shape != truth.shape else guess.astype('int32')
            top = max(guess.max(), truth.max())
            if top >= self.k:
                self._widen(top + 1)
            batch = numpy.zeros((self.k, self.k))
            numpy.add.at(batch, (guess, truth), 1)
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    # the sums are derived from the confusion matrices, so that get() = mcc
    sum_metric = property(lambda self: self._confusion_mcc(self.lcm) * self.num_inst)
    global_sum_metric = property(lambda self: self._confusion_mcc(self.gcm) * self.global_num_inst)

    def reset_local(self):
        self.lcm = numpy.zeros((self.k, self.k))
        self.num_inst = 0.

    def reset(self):
        self.gcm = numpy.zeros((self.k, self.k))
        self.global_num_inst = 0.
        self.reset_local()


@register
class Loss(EvalMetric):
    """Mean of the (loss) outputs themselves; labels are ignored."""

    def __init__(self, name='loss', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            self._add(_mx_sum(_np(pred)), pred.size)


@register
class Torch(Loss):
    """Loss metric named 'torch' (for torch criterions)."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Loss metric named 'caffe' (for caffe criterions)."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """``feval(label, pred)`` on numpy copies of each pair; it returns a sum (counted as one instance) or a
    ``(sum, num_inst)`` tuple."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            # lambdas and other anonymous callables get a readable wrapper name
            name = feval.__name__ if '<' not in feval.__name__ else 'custom(%s)' % feval.__name__
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            result = self._feval(_np(label), _np(pred))
            total, count = result if isinstance(result, tuple) else (result, 1)
            self._add(total, count)

    def get_config(self):
        raise NotImplementedError('CustomMetric cannot be serialized')


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from ``numpy_feval(label, pred)`` taking numpy arrays and returning a float."""
    def _wrapped(label, pred):
        return numpy_feval(label, pred)
    _wrapped.__name__ = numpy_feval.__name__
    return CustomMetric(_wrapped, name, allow_extra_outputs)
