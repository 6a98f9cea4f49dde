"""Helpers the Estimator and its event handlers share (MXNet's ``gluon.contrib.estimator.utils``)."""
from ....base import MXNetValueError
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric
from ...loss import SoftmaxCrossEntropyLoss


def _check_metrics(metrics):
    """A metric, a list of metrics or None -> a list of metrics; a CompositeEvalMetric is flattened."""
    if isinstance(metrics, CompositeEvalMetric):
        return [leaf for child in metrics.metrics for leaf in _check_metrics(child)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = metrics or []
    if not all(isinstance(m, EvalMetric) for m in metrics):
        raise MXNetValueError('metrics must be a Metric or a list of Metric, '
                              'refer to mxnet.metric.EvalMetric: {}'.format(metrics))
    return metrics


def _check_handler_metric_ref(handler, known_metrics):
    # MXNet looks at every attribute whose name contains 'metric' (its keyword list reads
    # ['metric' or 'monitor'], which is just ['metric']): a 'monitor' attribute is not checked.
    for attr in dir(handler):
        if 'metric' not in attr:
            continue
        ref = getattr(handler, attr)
        if not ref:
            continue
        for metric in (ref if isinstance(ref, list) else [ref]):
            _check_metric_known(handler, metric, known_metrics)


def _check_metric_known(handler, metric, known_metrics):
    if metric not in known_metrics:
        raise MXNetValueError(
            'Event handler {} refers to a metric instance {} outside of the known training and validation '
            'metrics. Please use the metrics from estimator.train_metrics and estimator.val_metrics '
            'instead.'.format(type(handler).__name__, metric))


def _suggest_metric_for_loss(loss):
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
