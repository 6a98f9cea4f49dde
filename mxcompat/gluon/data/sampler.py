"""Samplers: iterables of dataset indices (``mx.gluon.data.Sampler`` and friends).

``IntervalSampler`` is MXNet's ``gluon.contrib.data.IntervalSampler``; it lives here (outside ``__all__``) for
``gluon.contrib.data`` to re-export.
"""
import itertools

import numpy as np

from ...base import MXNetValueError, MXNetAssertionError

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'FilterSampler', 'BatchSampler']

class Sampler:
    """Base class: subclasses define ``__iter__`` (the indices) and ``__len__``."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._start, self._length = start, length

    def __len__(self):
        return self._length

    def __iter__(self):
        stop = self._start + self._length
        return iter(range(self._start, stop))


class RandomSampler(Sampler):
    """A permutation of ``range(length)``, drawn from ``numpy.random`` at each iteration (as MXNet)."""

    def __init__(self, length):
        self._length = length

    def __len__(self):
        return self._length

    def __iter__(self):
        # shuffle an arange in place (not np.random.permutation) so seeded runs draw the same order as MXNet
        perm = np.arange(self._length)
        np.random.shuffle(perm)
        return iter(perm)


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true (evaluated once, here)."""

    def __init__(self, fn, dataset):
        self._fn, self._dataset = fn, dataset
        self._indices = list(filter(lambda k: fn(dataset[k]), range(len(dataset))))

    def __len__(self):
        return len(self._indices)

    def __iter__(self):
        return iter(self._indices)


# how many batches one epoch gives, by policy: (samples in the sampler, batch size, samples carried over)
_BATCH_COUNT = {
    'keep': lambda total, size, carried: -(-total // size),
    'discard': lambda total, size, carried: total // size,
    'rollover': lambda total, size, carried: (total + carried) // size,
}


def _check_last_batch(last_batch):
    if last_batch not in _BATCH_COUNT:
        raise MXNetValueError("last_batch must be one of 'keep', 'discard', or 'rollover', but got %s" % last_batch)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``; ``last_batch`` handles the remainder:
    'keep' yields it short, 'discard' drops it, 'rollover' prepends it to the next epoch."""

    def __init__(self, sampler, batch_size, last_batch='keep'):
        self._sampler, self._batch_size, self._last_batch = sampler, batch_size, last_batch
        self._prev = []  # the remainder a 'rollover' epoch left for the next one

    def __len__(self):
        _check_last_batch(self._last_batch)
        return _BATCH_COUNT[self._last_batch](len(self._sampler), self._batch_size, len(self._prev))

    def __iter__(self):
        leftover, self._prev = self._prev, []
        stream = itertools.chain(leftover, self._sampler)
        while True:
            chunk = list(itertools.islice(stream, self._batch_size))
            if len(chunk) < self._batch_size:
                break
            yield chunk
        if not chunk:
            return
        # as in MXNet, a bad policy is only noticed when there is a remainder to handle
        _check_last_batch(self._last_batch)
        if self._last_batch == 'rollover':
            self._prev = chunk
        elif self._last_batch == 'keep':
            yield chunk


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
