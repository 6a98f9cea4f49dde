"""Event handlers of the Estimator's fit loop (MXNet's ``gluon.contrib.estimator.event_handler``).

A handler joins an event by subclassing its base class (``TrainBegin`` ... ``BatchEnd``); the Estimator calls
handlers in ascending ``priority`` (default 0): ``GradientUpdateHandler`` -2000, ``MetricHandler`` and
``ValidationHandler`` -1000, ``LoggingHandler`` last (infinity). A ``batch_end``/``epoch_end`` that returns a
true value stops training.
"""
import os
import time
import warnings

import numpy as np

from ....base import MXNetAssertionError, MXNetValueError
from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as metric_loss
from .utils import _check_metrics

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler',
           'LoggingHandler', 'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']


class EventHandler(object):
    """Base of every event handler."""


def _check_event_handlers(handlers):
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = handlers or []
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise MXNetValueError('handlers must be an EventHandler or a list of EventHandler, '
                              'got: {}'.format(handlers))
    return handlers


def _event_base(name, hook, result, doc):
    """The base class ``name`` of one fit-loop event: its method ``hook(estimator, *args, **kwargs)`` does nothing
    and returns ``result``; a handler subclasses it and overrides the method."""
    def noop(self, estimator, *args, **kwargs):
        return result
    noop.__name__, noop.__qualname__ = hook, '%s.%s' % (name, hook)
    return type(name, (EventHandler,), {'__doc__': doc, '__module__': __name__, hook: noop})


# (class, method, what the default returns: False for the two whose true result stops training, doc)
TrainBegin = _event_base('TrainBegin', 'train_begin', None, 'Called once before training.')
TrainEnd = _event_base('TrainEnd', 'train_end', None, 'Called once after training.')
EpochBegin = _event_base('EpochBegin', 'epoch_begin', None, 'Called before each epoch.')
EpochEnd = _event_base('EpochEnd', 'epoch_end', False, 'Called after each epoch; returning True stops training.')
BatchBegin = _event_base('BatchBegin', 'batch_begin', None, 'Called before each batch (``batch=`` the batch).')
BatchEnd = _event_base('BatchEnd', 'batch_end', False,
                       'Called after each batch (``batch``, ``pred``, ``label``, ``loss``); returning True ends the '
                       'epoch (and training, for the fit loop\'s own stop handlers).')


def _every(count, period):
    """Whether the ``count``-th event (1-based) is one of every ``period`` (never without a period)."""
    return bool(period) and count % period == 0


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops training after ``max_epoch`` epochs or ``max_batch`` batches (both taken from the estimator at
    train begin). Same as MXNet."""

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch, self.max_batch = max_epoch, max_batch
        self.current_batch = self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch, self.max_batch = estimator.max_epoch, estimator.max_batch
        self.current_batch = self.current_epoch = 0

    def _advance(self, counter, limit):
        """One more batch or epoch; reaching ``limit`` stops training (and it stays stopped)."""
        reached = getattr(self, counter) + 1
        setattr(self, counter, reached)
        self.stop_training = self.stop_training or reached == limit
        return self.stop_training

    def batch_end(self, estimator, *args, **kwargs):
        return self._advance('current_batch', self.max_batch)

    def epoch_end(self, estimator, *args, **kwargs):
        return self._advance('current_epoch', self.max_epoch)


class MetricHandler(EpochBegin, BatchEnd):
    """Resets ``metrics`` at each epoch begin and updates them at each batch end (a ``metric.Loss`` with the
    batch's loss, any other metric with labels and predictions). Same as MXNet."""

    def __init__(self, metrics, priority=-1000):
        self.metrics, self.priority = _check_metrics(metrics), priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for m in self.metrics:
            m.reset()

    def batch_end(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, kwargs['loss'])
            else:
                metric.update(kwargs['label'], kwargs['pred'])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Calls ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)`` every ``epoch_period`` epochs and
    every ``batch_period`` batches. Same as MXNet."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data, self.eval_fn, self.event_handlers = val_data, eval_fn, event_handlers
        self.epoch_period, self.batch_period, self.priority = epoch_period, batch_period, priority
        self.current_batch = self.current_epoch = 0

    def _evaluate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis, event_handlers=self.event_handlers)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if _every(self.current_batch, self.batch_period):
            self._evaluate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if _every(self.current_epoch, self.epoch_period):
            self._evaluate(estimator)


def _metric_text(metrics):
    return ''.join('%s: %.4f, ' % m.get() for m in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs the optimizer and learning rate at train begin, ``metrics`` at each epoch end (with
    ``log_interval='epoch'``) or every ``log_interval`` batches (an int), and a summary at train end, through
    ``estimator.logger``; the lines are MXNet's. Same as MXNet, including that the sample count uses axis 0 of
    the batch's data whatever the ``batch_axis``."""

    def __init__(self, log_interval='epoch', metrics=None, priority=np.inf):
        super(LoggingHandler, self).__init__()
        if not isinstance(log_interval, int) and log_interval != 'epoch':
            raise MXNetValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics, self.priority, self.log_interval = _check_metrics(metrics), priority, log_interval
        self.batch_index = self.current_epoch = self.processed_samples = 0
        self.log_interval_time = 0

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info('Training begin: using optimizer %s with current learning rate %.4f ',
                              type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info('Train for %d epochs.', estimator.max_epoch)
        else:
            estimator.logger.info('Train for %d batches.', estimator.max_batch)
        self.current_epoch = self.batch_index = self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        took = time.time() - self.train_start
        msg = 'Train finished using total %ds with %d epochs. ' % (took, self.current_epoch)
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(', '))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs['batch'][0].shape[0]
            if self.batch_index % self.log_interval == 0:
                msg = '[Epoch %d][Batch %d][Samples %s] time/interval: %.3fs ' % (
                    self.current_epoch, self.batch_index, self.processed_samples, self.log_interval_time)
                self.log_interval_time = 0
                estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(', '))
        self.batch_index += 1

    def _logs_epochs(self):
        # true unless log_interval was changed after __init__ to something it does not accept
        return isinstance(self.log_interval, int) or self.log_interval == 'epoch'

    def epoch_begin(self, estimator, *args, **kwargs):
        if not self._logs_epochs():
            return
        self.epoch_start = time.time()
        # the Estimator names its training metrics 'training ...': that is how a training epoch is told
        # from a validation pass
        if any('training' in m.name for m in self.metrics):
            estimator.logger.info('[Epoch %d] Begin, current learning rate: %.4f',
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info('Validation Begin')

    def epoch_end(self, estimator, *args, **kwargs):
        if self._logs_epochs():
            msg = '[Epoch %d] Finished in %.3fs, ' % (self.current_epoch, time.time() - self.epoch_start)
            estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(', '))
        self.current_epoch += 1
        self.batch_index = 0


def _choose_monitor_op(mode, monitor, who):
    """np.less or np.greater for ``mode``; 'auto' (and an unknown mode, with a warning) picks np.greater
    whatever the metric, as MXNet 1.9.1 does (its name test is always true)."""
    if mode not in ('auto', 'min', 'max'):
        warnings.warn('%s mode %s is unknown, fallback to auto mode. CheckpointHandler will use'
                      'max mode for f1 and accuracy metric comparison and use min mode other wise' % (who, mode),
                      RuntimeWarning)
        mode = 'auto'
    if mode == 'min':
        return np.less
    if mode == 'max':
        return np.greater
    warnings.warn("`greater` operator will be used to determine if {} has improved. Please specify "
                  "`mode='min'` to use the `less` operator. Specify `mode='max' to disable this warning.`"
                  .format(monitor.get()[0]))
    return np.greater


def _worst(monitor_op):
    return np.inf if monitor_op is np.less else -np.inf


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves ``{model_prefix}-symbol.json`` after the first batch (hybridized nets only),
    ``{model_prefix}-epoch{E}batch{B}.params``/``.states`` every ``epoch_period`` epochs or ``batch_period``
    batches (keeping the newest ``max_checkpoints``), ``{model_prefix}-best.*`` with ``save_best``, and can
    resume from the newest checkpoint. Files are written atomically (MXNet writes them in place).

    As in MXNet 1.9.1: ``mode='auto'`` compares with ``greater`` for any metric (pass ``mode='min'`` for a
    loss); the verbose 'improved from A to B' line shows the new value as both A and B, and the 'did not
    improve' line shows the batch count where the epoch belongs; checkpoints found when resuming are not
    counted against ``max_checkpoints``. Differs from MXNet: the warning when the monitored metric was never
    updated is a formatted sentence (MXNet's shows the unformatted arguments)."""

    def __init__(self, model_dir, model_prefix='model', monitor=None, verbose=0, save_best=False, mode='auto',
                 epoch_period=1, batch_period=None, max_checkpoints=5, resume_from_checkpoint=False):
        self.monitor, self.verbose, self.save_best = monitor, verbose, save_best
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir, self.model_prefix = model_dir, model_prefix
        if save_best and not isinstance(monitor, EvalMetric):
            raise MXNetValueError('To save best model only, please provide one of the metric objects from '
                                  'estimator.train_metrics and estimator.val_metrics as monitor.')
        self.epoch_period, self.batch_period = epoch_period, batch_period
        self.max_checkpoints, self.resume_from_checkpoint = max_checkpoints, resume_from_checkpoint
        self.current_batch = self.current_epoch = 0
        self.saved_checkpoints = []
        if save_best:
            self.monitor_op = _choose_monitor_op(mode, monitor, 'ModelCheckpoint')
            self.best = _worst(self.monitor_op)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = self.current_batch = 0
        if self.save_best:
            self.best = _worst(self.monitor_op)
        if self.resume_from_checkpoint:
            msg = ('To use resume from checkpoint, you must only specify the same type of period you used for '
                   'training.For example, if you are training based on number of epochs,you must save only '
                   'based on epochs, and set batch_period to None.')
            if estimator.max_batch and not (self.batch_period and not self.epoch_period):
                raise MXNetAssertionError(msg)
            if estimator.max_epoch and not (self.epoch_period and not self.batch_period):
                raise MXNetAssertionError(msg)
            self._resume_from_checkpoint(estimator)

    # the checkpoint is named after the count before this batch/epoch; the counter moves on afterwards
    def batch_end(self, estimator, *args, **kwargs):
        if not self.current_batch:
            self._save_symbol(estimator)
        if _every(self.current_batch + 1, self.batch_period):
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if _every(self.current_epoch + 1, self.epoch_period):
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator):
        epoch, batch = self.current_epoch, self.current_batch
        if self.resume_from_checkpoint:
            epoch += self.trained_epoch + 1
            # at an epoch end the batch counter has already moved past the last batch
            batch += self.trained_batch + (0 if estimator.max_epoch else 1)
        prefix = '%s-epoch%dbatch%d' % (self.model_prefix, epoch, batch)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: trained total %d batches, saving model at %s '
                                  'with prefix: %s', self.current_epoch, self.current_batch + 1, self.model_dir,
                                  prefix)
        if not self.save_best:
            return
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                'Skipping save best because %s is not updated, make sure you pass one of the metric objects '
                'estimator.train_metrics and estimator.val_metrics as monitor' % name))
        elif self.monitor_op(value, self.best):
            best_prefix = self.model_prefix + '-best'
            self._save_params_and_trainer(estimator, best_prefix)
            self.best = value
            if self.verbose > 0:
                estimator.logger.info('[Epoch %d] CheckpointHandler: %s improved from %0.5f to %0.5f, updating '
                                      'best model at %s with prefix: %s', self.current_epoch, name, self.best,
                                      value, self.model_dir, best_prefix)
        elif self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, skipping '
                                  'updating best model', self.current_batch, name, self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + '-symbol.json')
        graph = getattr(estimator.net, '_cached_graph', None)
        if graph:
            graph[1].save(symbol_file)
        else:
            estimator.logger.info('Model architecture(symbol file) is not saved, please use HybridBlock to '
                                  'construct your model, and call net.hybridize() before passing to Estimator in '
                                  'order to save model architecture as %s.', symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        estimator.net.save_parameters(os.path.join(self.model_dir, file_prefix + '.params'))
        estimator.trainer.save_states(os.path.join(self.model_dir, file_prefix + '.states'))
        if 'best' not in file_prefix:
            self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for fname in os.listdir(self.model_dir):
                if fname.startswith(oldest):
                    os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator):
        prefix = self.model_prefix + '-epoch'
        self.trained_epoch = self._find_max_iteration(dir=self.model_dir, prefix=prefix, start='epoch',
                                                      end='batch', saved_checkpoints=self.saved_checkpoints)
        self.trained_batch = self._find_max_iteration(dir=self.model_dir, prefix=prefix + str(self.trained_epoch),
                                                      start='batch', end='.params')
        if self.trained_epoch == -1:
            left = ('%d batches' % estimator.max_batch) if estimator.max_batch else ('%d epochs' % estimator.max_epoch)
            estimator.logger.info('CheckpointHandler: No checkpoint found, training from scratch for ' + left)
            return
        msg = 'CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to train for ' % (
            self.trained_epoch, self.trained_batch)
        # MXNet's two messages differ: the epoch one names the limit, the batch one the trained count
        # (and lacks a space)
        for kind, plural, trained in (('epoch', 'epochs', self.trained_epoch),
                                      ('batch', 'batches', self.trained_batch)):
            limit = getattr(estimator, 'max_' + kind)
            if not limit:
                continue
            if trained >= limit - 1:
                raise MXNetValueError('Found checkpoint with maximum number of %s %d reached, please specify%s'
                                      'resume_from_checkpoint=False (default value) if you wan to train from '
                                      'scratch.' % ((kind, limit, ' ') if kind == 'epoch' else (kind, trained, '')))
            setattr(estimator, 'max_' + kind, limit - trained - 1)
            msg += '%d %s ' % (limit - trained - 1, plural)
        stem = os.path.join(self.model_dir, '%s-epoch%dbatch%d' % (self.model_prefix, self.trained_epoch,
                                                                   self.trained_batch))
        for fname in (stem + '.params', stem + '.states'):
            if not os.path.exists(fname):
                raise MXNetAssertionError('Failed to load checkpoint, %s does not exist' % fname)
        estimator.net.load_parameters(stem + '.params', ctx=estimator.context)
        estimator.trainer.load_states(stem + '.states')
        estimator.logger.warning(msg)

    def _find_max_iteration(self, dir, prefix, start, end, saved_checkpoints=None):  # noqa: A002 (MXNet's name)
        # The number sits between the first `start` and the first `end` in the file name, as MXNet reads it;
        # like MXNet, `saved_checkpoints` is only extended when it is already non-empty.
        found = -1
        for fname in os.listdir(dir):
            if not (fname.startswith(prefix) and '.params' in fname):
                continue
            if saved_checkpoints:
                saved_checkpoints.append(fname[:fname.find('.params')])
            try:
                found = max(found, int(fname[fname.find(start) + len(start):fname.find(end)]))
            except ValueError:
                raise MXNetValueError('Error parsing checkpoint file, please check your checkpoints have the '
                                      'format: {model_name}-epoch{epoch_number}batch{batch_number}.params, there '
                                      'should also be a .states file for each .params file ') from None
        return found


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops training once ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs (compared
    with ``baseline`` at first, when given).

    As in MXNet 1.9.1, ``mode='auto'`` compares with ``greater`` for any metric (pass ``mode='min'`` for a
    loss), and the end-of-training log line is spelt 'EarlyStoppingHanlder'. Differs from MXNet: the warning
    for a metric that was never updated is a formatted sentence (MXNet's shows the unformatted arguments)."""

    def __init__(self, monitor, min_delta=0, patience=0, mode='auto', baseline=None):
        super(EarlyStoppingHandler, self).__init__()
        if not isinstance(monitor, EvalMetric):
            raise MXNetValueError('Please provide one of the metric objects from estimator.train_metrics and '
                                  'estimator.val_metrics as monitor.')
        if isinstance(monitor, CompositeEvalMetric):
            raise MXNetValueError('CompositeEvalMetric is not supported for EarlyStoppingHandler, please specify '
                                  'a simple metric instead.')
        self.monitor, self.baseline, self.patience = monitor, baseline, patience
        self.monitor_op = _choose_monitor_op(mode, monitor, 'EarlyStopping')
        # an improvement is a move of at least |min_delta| in the monitored direction
        self.min_delta = -min_delta if self.monitor_op is np.less else min_delta
        self.wait = self.stopped_epoch = self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = self.stopped_epoch = self.current_epoch = 0
        self.stop_training = False
        self.best = self.baseline if self.baseline is not None else _worst(self.monitor_op)

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                '%s is not updated, make sure you pass one of the metric objects from estimator.train_metrics '
                'and estimator.val_metrics as monitor.' % name))
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best, self.wait = value, 0
        else:
            self.wait += 1
            if self.wait >= self.patience:  # out of patience: stop, remembering the epoch it happened at
                self.stop_training, self.stopped_epoch = True, self.current_epoch
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info('[Epoch %d] EarlyStoppingHanlder: early stopping due to %s not improving',
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Calls ``estimator.trainer.step`` at each batch end with the batch size counted from the losses
    (the sum of their first dimensions). Same as MXNet."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        losses = kwargs['loss'] if isinstance(kwargs['loss'], list) else [kwargs['loss']]
        estimator.trainer.step(sum(one.shape[0] for one in losses))
