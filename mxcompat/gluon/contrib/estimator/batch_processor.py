"""``BatchProcessor``: how the Estimator trains and evaluates one batch (MXNet's
``gluon.contrib.estimator.batch_processor``)."""
from .... import autograd
from ...utils import split_and_load

__all__ = ['BatchProcessor']


class BatchProcessor(object):
    """The default per-batch step of an Estimator; subclass it and override ``fit_batch``/``evaluate_batch``
    to customise one. Same as MXNet."""

    def __init__(self):
        pass

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Run ``estimator.val_net`` and ``estimator.val_loss`` on one batch split over the estimator's
        contexts; returns ``(data, label, pred, loss)``, each a list with one entry per context."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(p, y) for p, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward ``estimator.net`` and ``estimator.loss`` under ``autograd.record`` and back-propagate;
        returns ``(data, label, pred, loss)`` per context. The weights are updated later, by
        ``GradientUpdateHandler``."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(p, y) for p, y in zip(pred, label)]
        for one in loss:
            one.backward()
        return data, label, pred, loss
