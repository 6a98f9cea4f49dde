"""``Estimator``: the fit/evaluate loop of ``gluon.contrib.estimator`` (MXNet's
``gluon.contrib.estimator.estimator``)."""
import copy
import logging
import sys
import warnings

from ....base import MXNetAssertionError, MXNetValueError
from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as metric_loss
from ...data import DataLoader
from ...loss import Loss as gluon_loss
from ...trainer import Trainer
from ...utils import split_and_load
from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler, LoggingHandler,
                            MetricHandler, StoppingHandler, TrainBegin, TrainEnd, ValidationHandler,
                            _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ['Estimator']


def _lacks_values(param):
    """Whether ``param`` was never initialized (a deferred initialization counts as initialized)."""
    try:
        param.list_ctx()
    except RuntimeError:
        return True
    return False


class Estimator(object):
    """Trains ``net`` with ``loss`` from a gluon ``DataLoader`` through event handlers (``fit``), and evaluates
    ``val_net`` with ``val_loss`` (``evaluate``).

    Without ``train_metrics`` the metrics are an Accuracy (for ``SoftmaxCrossEntropyLoss``) and a
    ``metric.Loss`` named after the loss; their names get a 'training ' prefix, and the validation metrics
    (copies of them by default) a 'validation ' one. An uninitialized ``net`` is initialized on ``context``;
    without ``trainer``, SGD with learning rate 0.001 is used. ``logger`` writes INFO lines to the
    ``sys.stdout`` of construction time. Same as MXNet."""

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None, trainer=None,
                 context=None, val_net=None, val_loss=None, batch_processor=None):
        self.net, self.loss = net, self._check_loss(loss)
        self._train_metrics, self._val_metrics = self._named_metrics(train_metrics, val_metrics)
        self.val_net = net if val_net is None else val_net
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize_net(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)

    # -- arguments --------------------------------------------------------------------------------------------
    def _check_loss(self, loss):
        if not isinstance(loss, gluon_loss):
            raise MXNetValueError('loss must be a Loss, refer to gluon.loss.Loss:{}'.format(loss))
        return loss

    def _check_context(self, context):
        n = num_gpus()
        gpus = [gpu(i) for i in range(n)]
        if not context:
            if n > 1:
                warnings.warn('You have multiple GPUs, gpu(0) will be used by default.To utilize all your GPUs, '
                              'specify context as a list of gpus, e.g. context=[mx.gpu(0), mx.gpu(1)] ')
            return [gpu(0)] if n else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise MXNetValueError('context must be a Context or a list of Context, for example mx.cpu() or '
                                  '[mx.gpu(0), mx.gpu(1)], refer to mxnet.Context:{}'.format(context))
        for ctx in context:
            if not (ctx in gpus or str(ctx).startswith('cpu')):
                raise MXNetAssertionError('%s is not available, please make sure your context is in one of: '
                                          'mx.cpu(), %s' % (ctx, ', '.join(str(g) for g in gpus)))
        return context

    def _check_batch_processor(self, batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, 'fit_batch', None))
                and callable(getattr(batch_processor, 'evaluate_batch', None))):
            raise MXNetValueError('Customized Batch Processor must contain fit_batch() and evaluate_batch() '
                                  'methods')
        return batch_processor

    def _initialize_net(self, initializer):
        if any(_lacks_values(p) for p in self.net.collect_params().values()):
            # initialize() leaves parameters that already have values alone
            self.net.initialize(**({'init': initializer} if initializer else {}), ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You don't need to pass "
                          "initializer if you already initialized your net. You can use "
                          "net.initialize(init=your_initializer, force_reinit=True)to force re-initialize.")

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn('No trainer specified, default SGD optimizer with learning rate 0.001 is used.')
            return Trainer(self.net.collect_params(), 'sgd', {'learning_rate': 0.001})
        if not isinstance(trainer, Trainer):
            raise MXNetValueError('Trainer must be a Gluon Trainer instance, refer to '
                                  'gluon.Trainer:{}'.format(trainer))
        return trainer

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    # -- metrics ----------------------------------------------------------------------------------------------
    def _named_metrics(self, train_metrics, val_metrics):
        """The training and validation metrics, renamed 'training ...'/'validation ...' (how handlers tell them
        apart). No training metrics: the loss's suggested metric (accuracy for softmax cross-entropy) and a
        metric.Loss named after the loss; no validation metrics: copies of the training ones."""
        train = _check_metrics(train_metrics)
        if not train:
            train = [m for m in (_suggest_metric_for_loss(self.loss),) if m]
            train.append(metric_loss(self.loss.name.rstrip('1234567890')))
        for m in train:
            m.name = 'training ' + m.name
        val = _check_metrics(val_metrics) or [copy.deepcopy(m) for m in train]
        for m in val:
            m.name = m.name.replace('training', 'validation') if 'training' in m.name else 'validation ' + m.name
        return train, val

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    # -- loops ------------------------------------------------------------------------------------------------
    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Run ``batch_processor.evaluate_batch`` over ``val_data`` (a gluon DataLoader), with the given
        handlers plus a default MetricHandler and LoggingHandler on ``val_metrics`` when none is given.
        Same as MXNet."""
        if not isinstance(val_data, DataLoader):
            raise MXNetValueError('Estimator only support input as Gluon DataLoader. Alternatively, you can '
                                  'transform your DataIter or any NDArray into Gluon DataLoader. Refer to '
                                  'gluon.data.DataLoader')
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize_handlers(handlers)
        for h in epoch_begin:
            h.epoch_begin(self)
        for batch in val_data:
            self._run_batch(self.batch_processor.evaluate_batch, batch, batch_axis, batch_begin, batch_end)
        for h in epoch_end:
            h.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None, batch_axis=0):
        """Train on ``train_data`` (a gluon DataLoader) for exactly one of ``epochs`` or ``batches``, running
        ``batch_processor.fit_batch`` on each batch and the event handlers around it. Besides the given
        handlers, a StoppingHandler, GradientUpdateHandler, MetricHandler, LoggingHandler and (with
        ``val_data``) ValidationHandler are added unless one of that type is given. Same as MXNet."""
        if not isinstance(train_data, DataLoader):
            raise MXNetValueError('Estimator only support input as Gluon DataLoader. Alternatively, you can '
                                  'transform your DataIter or any NDArray into Gluon DataLoader. Refer to '
                                  'gluon.data.dataloader')
        if (not epochs) == (not batches):
            raise MXNetValueError('Fit only support exactly one type of iteration, train by number of epochs or '
                                  'number of batches.Please specify one and only one of: epochs or batches.')
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = \
            self._categorize_handlers(handlers)
        for h in train_begin:
            h.train_begin(self)
        while True:
            for h in epoch_begin:
                h.epoch_begin(self)
            for batch in train_data:
                # every batch_end handler runs, then any True ends the epoch
                if any(self._run_batch(self.batch_processor.fit_batch, batch, batch_axis, batch_begin, batch_end)):
                    break
            if any([h.epoch_end(self) for h in epoch_end]):
                break
        for h in train_end:
            h.train_end(self)

    def _run_batch(self, step, batch, batch_axis, batch_begin, batch_end):
        """batch_begin handlers, ``step`` (fit_batch or evaluate_batch), batch_end handlers; their results."""
        for h in batch_begin:
            h.batch_begin(self, batch=batch)
        _, label, pred, loss = step(self, batch, batch_axis)
        return [h.batch_end(self, batch=batch, pred=pred, label=label, loss=loss) for h in batch_end]

    # -- handlers ---------------------------------------------------------------------------------------------
    def _prepare_default_handlers(self, val_data, event_handlers):
        handlers = _check_event_handlers(event_handlers)

        def missing(cls):
            return not any(isinstance(h, cls) for h in handlers)

        added = [StoppingHandler(self.max_epoch, self.max_batch)]
        if missing(GradientUpdateHandler):
            added.append(GradientUpdateHandler())
        if missing(MetricHandler):
            added.append(MetricHandler(metrics=self.train_metrics))
        if missing(ValidationHandler) and val_data:
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if missing(LoggingHandler):
            added.append(LoggingHandler(metrics=self.train_metrics))
        return self._merge_handlers(handlers, added, self.train_metrics + self.val_metrics)

    def _prepare_default_validation_handlers(self, event_handlers):
        handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, MetricHandler) for h in handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        return self._merge_handlers(handlers, added, self.val_metrics)

    @staticmethod
    def _merge_handlers(handlers, added, known):
        # when the user's handlers and default ones run together, they must all use the estimator's metrics
        mixing = bool(handlers) and bool(added)
        handlers.extend(added)
        if mixing:
            known = set(known)
            for h in handlers:
                _check_handler_metric_ref(h, known)
        handlers.sort(key=lambda h: getattr(h, 'priority', 0))
        return handlers

    def _categorize_handlers(self, event_handlers):
        """The handlers of each event, in order: train_begin, epoch_begin, batch_begin, batch_end, epoch_end,
        train_end."""
        kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
        return tuple([h for h in event_handlers if isinstance(h, kind)] for kind in kinds)
