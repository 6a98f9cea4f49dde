"""``mx.monitor``: statistics of the arrays an executor sees, collected every ``interval`` batches.

Differs from MXNet: which intermediate arrays reach the monitor is up to the executor's monitor callback
(``Executor.set_monitor_callback``); the callback receives ``(name, NDArray)`` instead of a C handle.
"""
import logging
import math
import re

from .base import MXNetTypeError
from .ndarray.ndarray import NDArray
from . import ndarray as nd

__all__ = ['Monitor']


def _default_stat(x):
    """The 2-norm divided by sqrt(size) (MXNet's default statistic, computed lazily on the device)."""
    return nd.norm(x) / math.sqrt(x.size)


def _format(values):
    """Tab-terminated text of one statistic (or a list of them), as MXNet prints it."""
    if isinstance(values, NDArray):
        values = [values]
    if not isinstance(values, list):
        raise MXNetTypeError('Monitor: stat_func must return an NDArray or a list of NDArrays, got %s'
                             % type(values).__name__)
    text = ''
    for v in values:
        if not isinstance(v, NDArray):
                raise MXNetTypeError('Monitor: stat_func must return NDArrays, got %s' % type(v).__name__)
        text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + '\t'
    return text


class Monitor:
    """Collect ``stat_func`` of executor arrays whose names match ``pattern``, once every ``interval`` batches.

    ``tic()`` before forward, ``toc()`` (or ``toc_print()``) after backward; ``toc`` also adds the statistics of
    every argument and auxiliary array of the installed executors.
    """

    def __init__(self, interval, stat_func=None, pattern='.*', sort=False, monitor_all=False):
        # settings
        self.interval, self.sort, self.monitor_all = interval, sort, monitor_all
        self.re_prog = re.compile(pattern)
        self.stat_func = stat_func or _default_stat
        # per-run state
        self.exes, self.queue = [], []
        self.step, self.activated = 0, False

    def stat_helper(self, name, array):
        """The executor callback: queue ``stat_func(array)`` while active and ``name`` matches."""
        key = name.decode('utf-8') if isinstance(name, bytes) else name
        if self.activated and self.re_prog.match(key):
            self.queue.append((self.step, key, self.stat_func(array)))

    def install(self, exe):
        """Register the callback on executor ``exe`` (several executors may be installed)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def _wait(self):
        for exe in self.exes:
            for array in list(exe.arg_arrays) + list(exe.aux_arrays):
                array.wait_to_read()

    def tic(self):
        """Start collecting for this batch if it is one of every ``interval``; call before forward."""
        if self.step % self.interval == 0:
            self._wait()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; returns ``[(step, name, text)]`` (empty when this batch was not monitored)."""
        if not self.activated:
            return []
        self._wait()
        for exe in self.exes:
            named = list(zip(exe._symbol.list_arguments(), exe.arg_arrays)) + \
                list(zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays))
            for name, array in named:
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda item: item[1])
        res = [(step, name, _format(values)) for step, name, values in self.queue]
        self.queue = []
        return res

    def toc_print(self):
        """``toc()`` and log each line at INFO level in MXNet's layout."""
        for step, name, text in self.toc():
            logging.info('Batch: {:7d} {:30s} {:s}'.format(step, name, text))
