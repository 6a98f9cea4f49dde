"""``mx.callback``: epoch-end and batch-end callbacks for ``Module.fit`` / ``FeedForward``-style loops.

Batch-end callbacks receive an object with ``epoch``, ``nbatch``, ``eval_metric`` and ``locals`` (MXNet's
``mx.model.BatchEndParam``). Log lines go to the root logger with MXNet's exact formats.
"""
import logging
import math
import time

from . import _checkpoint as _model
from .metric import _loggable

__all__ = ['module_checkpoint', 'do_checkpoint', 'log_train_metric', 'Speedometer', 'ProgressBar',
           'LogValidationMetricsCallback']


def _every(period, action):
    """An epoch-end callback running ``action(epoch_number, sym, arg, aux)`` after every ``period``-th epoch
    (``period`` below 1 counts as 1); ``epoch_number`` is 1-based."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        done = iter_no + 1
        if done % period == 0:
            action(done, sym, arg, aux)
    return _callback


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback calling ``mod.save_checkpoint(prefix, epoch + 1, save_optimizer_states)`` every
    ``period`` epochs."""
    return _every(period, lambda epoch, *_: mod.save_checkpoint(prefix, epoch, save_optimizer_states))


def do_checkpoint(prefix, period=1):
    """Epoch-end callback saving ``prefix-symbol.json`` and ``prefix-%04d.params`` every ``period`` epochs
    through ``mx.model.save_checkpoint``."""
    return _every(period, lambda epoch, sym, arg, aux: _model.save_checkpoint(prefix, epoch, sym, arg, aux))


def _log_values(template, param, head):
    """Log ``template % (head + (name, value))`` for each value of ``param.eval_metric``."""
    for name, value in param.eval_metric.get_name_value():
        logging.info(template, *head, name, _loggable(value))


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging ``Iter[e] Batch[b] Train-name=value`` every ``period`` batches."""
    def _callback(param):
        metric = param.eval_metric
        if param.nbatch % period or metric is None:
            return
        _log_values('Iter[%d] Batch[%d] Train-%s=%f', param, (param.epoch, param.nbatch))
        if auto_reset:
            metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging samples/sec and the metric values every ``frequent`` batches (resetting the
    metric's local values after each log when ``auto_reset``)."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size, self.frequent, self.auto_reset = batch_size, frequent, auto_reset
        # timing state: ``init`` is False until the first batch of an epoch has started the clock
        self.init, self.tic, self.last_count = False, 0, 0

    def _speed(self):
        elapsed = time.time() - self.tic
        return self.frequent * self.batch_size / elapsed if elapsed else float('inf')

    def _report(self, param, count):
        speed = self._speed()
        metric = param.eval_metric
        if metric is None:
            logging.info('Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec', param.epoch, count, speed)
            return
        name_value = metric.get_name_value()
        if self.auto_reset:
            metric.reset_local()
            head, span = (param.epoch, count - self.frequent, count), '%d-%d'
        else:
            head, span = (param.epoch, count), '0-%d'
        fmt = 'Epoch[%d] Batch [' + span + ']\tSpeed: %.2f samples/sec' + '\t%s=%f' * len(name_value)
        logging.info(fmt, *head, speed, *[x for name, value in name_value for x in (name, _loggable(value))])

    def __call__(self, param):
        count = param.nbatch
        restarted = count < self.last_count  # nbatch went back: a new epoch
        self.last_count = count
        if restarted or not self.init:
            self.init, self.tic = True, time.time()
            return
        if count % self.frequent == 0:
            self._report(param, count)
            self.tic = time.time()


class ProgressBar:
    """Batch-end callback logging a ``[====----] 50%`` bar of ``nbatch`` out of ``total``."""

    def __init__(self, total, length=80):
        self.total, self.bar_len = total, length

    def __call__(self, param):
        # products before the division, as MXNet computes them (ceil(7/100*100) would give 8)
        count, total = param.nbatch, float(self.total)
        done = int(round(self.bar_len * count / total))
        bar = ''.join(('=' * done, '-' * (self.bar_len - done)))
        logging.info('[%s] %s%s\r', bar, math.ceil(100.0 * count / total), '%')


class LogValidationMetricsCallback:
    """Eval-end callback logging ``Epoch[e] Validation-name=value`` for each metric value."""

    def __call__(self, param):
        if param.eval_metric:
            _log_values('Epoch[%d] Validation-%s=%f', param, (param.epoch,))
