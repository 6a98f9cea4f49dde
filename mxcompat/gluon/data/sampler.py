"""Samplers: iterables of dataset indices (``mx.gluon.data.Sampler`` and friends).

``IntervalSampler`` is MXNet's ``gluon.contrib.data.IntervalSampler``; it lives here (outside ``__all__``) for
``gluon.contrib.data`` to re-export.
"""
import numpy as np

from ...base import MXNetValueError, MXNetAssertionError

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'FilterSampler', 'BatchSampler']

_LAST_BATCH = ('keep', 'discard', 'rollover')


class Sampler:
    """Base class: subclasses define ``__iter__`` (the indices) and ``__len__``."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A permutation of ``range(length)``, drawn from ``numpy.random`` at each iteration (as MXNet)."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        order = np.arange(self._length)
        np.random.shuffle(order)
        return iter(order)

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true (evaluated once, here)."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


def _check_last_batch(last_batch):
    if last_batch not in _LAST_BATCH:
        raise MXNetValueError("last_batch must be one of 'keep', 'discard', or 'rollover', but got %s" % last_batch)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``; ``last_batch`` handles the remainder:
    'keep' yields it short, 'discard' drops it, 'rollover' prepends it to the next epoch."""

    def __init__(self, sampler, batch_size, last_batch='keep'):
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            _check_last_batch(self._last_batch)
            if self._last_batch == 'keep':
                yield batch
            elif self._last_batch == 'rollover':
                self._prev = batch

    def __len__(self):
        _check_last_batch(self._last_batch)
        if self._last_batch == 'keep':
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == 'discard':
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size


class IntervalSampler(Sampler):
    """``0, interval, 2 * interval, ...``, then (``rollover``) the same from 1, 2, ... until every index is visited.

    As in MXNet, ``len()`` is ``length`` even with ``rollover=False``.
    """

    def __init__(self, length, interval, rollover=True):
        if interval > length:
            raise MXNetAssertionError('Interval %s must be smaller than or equal to length %s' % (interval, length))
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self):
        return self._length
