"""``mx.metric``: online evaluation metrics, with MXNet 1.9.1's formulas, accumulation order and quirks.

Values equal MXNet's: per-batch statistics are computed as MXNet computes them (numpy on ``asnumpy()`` copies,
float32 where MXNet works in float32) and accumulated as float64, as MXNet's Python floats accumulate numpy
scalars. Differs from MXNet: checks MXNet makes with ``assert`` raise an error that is both an ``AssertionError``
and an ``MXNetValueError``; ``CompositeEvalMetric.get_metric`` raises for a bad index (MXNet returns the error).
"""
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
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise MXNetValueError('Shape of labels {} does not match shape of predictions {}'.format(label_shape,
                                                                                               pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


class EvalMetric:
    """Base class of metrics: accumulates ``sum_metric`` / ``num_inst`` locally (``reset_local``) and globally."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return 'EvalMetric: {}'.format(dict(self.get_name_value()))

    def get_config(self):
        """The kwargs that ``mx.metric.create(**config)`` turns back into this metric."""
        config = self._kwargs.copy()
        config.update({'metric': self.__class__.__name__, 'name': self.name, 'output_names': self.output_names,
                       'label_names': self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update from name -> NDArray dicts, picking ``label_names`` / ``output_names`` (all when None)."""
        pred = list(pred.values()) if self.output_names is None else [pred[n] for n in self.output_names]
        label = list(label.values()) if self.label_names is None else [label[n] for n in self.label_names]
        self.update(label, pred)

    def update(self, labels, preds):
        """Accumulate one batch: lists of label and prediction NDArrays."""
        raise NotImplementedError()

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value, count):
        value = _f64(value)
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def get(self):
        """``(name, value)`` over the batches since the last reset (nan when there were none)."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        """``(name, value)`` since the last full ``reset`` (``get()`` for metrics without global statistics)."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    def get_name_value(self):
        """``[(name, value), ...]``."""
        return _zip_pairs(*self.get())

    def get_global_name_value(self):
        """``[(name, value), ...]`` for the global values."""
        if not self._has_global_stats:
            return self.get_name_value()
        return _zip_pairs(*self.get_global())


def _zip_pairs(name, value):
    return list(zip(name if isinstance(name, list) else [name], value if isinstance(value, list) else [value]))


_REGISTRY, register, alias, _create = make_registry(EvalMetric, 'metric')


def create(metric, *args, **kwargs):
    """A metric from a name (or alias), an EvalMetric (returned), a config dict, a list of those
    (-> CompositeEvalMetric) or a callable ``feval(label, pred)`` (-> CustomMetric)."""
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values."""

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(i) for i in (metrics or [])]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index`` (raises ValueError when out of range; MXNet returns the error)."""
        try:
            return self.metrics[index]
        except IndexError:
            raise MXNetValueError('Metric index {} is out of range 0 and {}'.format(index, len(self.metrics))) \
                from None

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, 'metrics', ()):
            metric.reset()

    def reset_local(self):
        for metric in getattr(self, 'metrics', ()):
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend([name] if isinstance(name, string_types) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        config = super().get_config()
        config.update({'metrics': [i.get_config() for i in self.metrics]})
        return config


# ---- classification -------------------------------------------------------------------------------------------

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
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
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
        self.top_k = top_k
        _check(self.top_k > 1, 'Please use Accuracy if top_k is no more than 1')
        self.name += '_%d' % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            _check(len(pred.shape) <= 2, 'Predictions should be no more than 2 dims')
            pred = _np(pred).astype('float32')
            if self.top_k > pred.shape[-1]:  # numpy's own error, as an MXNetValueError
                raise MXNetValueError('kth(=%d) out of bounds (%d)' % (pred.shape[-1] - self.top_k, pred.shape[-1]))
            pred = numpy.argpartition(pred, -self.top_k)
            label = _np(label).astype('int32')
            check_label_shapes(label, pred)
            num_samples = pred.shape[0]
            if pred.ndim == 1:
                # MXNet leaves the global sum out here
                self.sum_metric += _f64((pred.ravel() == label.ravel()).sum())
            else:
                num_classes = pred.shape[1]
                for j in range(min(num_classes, self.top_k)):
                    num_correct = (pred[:, num_classes - 1 - j].ravel() == label.ravel()).sum()
                    self.sum_metric += num_correct
                    self.global_sum_metric += num_correct
            self.num_inst += num_samples
            self.global_num_inst += num_samples


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
        precision = float(tp) / (tp + fp) if tp + fp > 0 else 0.
        recall = float(tp) / (tp + fn) if tp + fn > 0 else 0.
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.

    def matthewscc(self, use_global=False):
        tp, fp, fn, tn = (float(c) for c in self.counts(use_global))
        if not self.total(use_global):
            return 0.
        denom = 1.
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0.:
                denom *= t
        return ((tp * tn) - (fp * fn)) / math.sqrt(denom)

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
                num -= ignore.sum().numpy()[()]
                picked = picked * (1 - ignore) + ignore
            loss -= _f64(_mx_sum(_mx_log(torch.clamp(picked, min=1e-10))))
            num += picked.numel()
        self._add(loss, _f64(num))

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


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
        import ctypes
        import ctypes.util
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
        if self.average == 'micro':
            self.reset_micro()

    def reset_micro(self):
        self._sse_p = 0
        self._mean_p = 0
        self._sse_l = 0
        self._mean_l = 0
        self._pred_nums = 0
        self._label_nums = 0
        self._conv = 0

    def reset(self):
        super().reset()
        if self.average == 'micro':
            self.reset_micro()

    def update_variance(self, new_values, *aggregate):
        """Welford's online update of (count, mean, sum of squared deviations)."""
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        delta_2 = new_values - mean
        m_2 += numpy.sum(delta * delta_2)
        return count, mean, m_2

    def update_cov(self, label, pred):
        self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _np(label).ravel().astype(numpy.float64)
            pred = _np(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
            else:
                self.global_num_inst += 1
                self.num_inst += 1
                self._label_nums, self._mean_l, self._sse_l = self.update_variance(
                    label, self._label_nums, self._mean_l, self._sse_l)
                self.update_cov(label, pred)
                self._pred_nums, self._mean_p, self._sse_p = self.update_variance(
                    pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        if self.average == 'macro':
            return (self.name, self.sum_metric / self.num_inst)
        n = self._label_nums
        return (self.name, self._conv / ((n - 1) * numpy.sqrt(self._sse_p / (n - 1))
                                         * numpy.sqrt(self._sse_l / (n - 1))))


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (Pearson on the confusion matrix), which grows with the classes seen."""

    def __init__(self, name='pcc', output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float('nan')
        i = cmat.diagonal()
        cov_xy = numpy.sum(i * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _np(label).astype('int32')
            pred = _np(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype('int32')
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(n + 1 - self.k)
            bcm = numpy.zeros((self.k, self.k))
            numpy.add.at(bcm, (pred, label), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


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
            name = feval.__name__
            if name.find('<') != -1:
                name = 'custom(%s)' % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            reval = self._feval(_np(label), _np(pred))
            if isinstance(reval, tuple):
                sum_metric, num_inst = reval
                self._add(sum_metric, num_inst)
            else:
                self._add(reval, 1)

    def get_config(self):
        raise NotImplementedError('CustomMetric cannot be serialized')


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from ``numpy_feval(label, pred)`` taking numpy arrays and returning a float."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
