"""``gluon.contrib.data.IntervalSampler``."""
from ...data.sampler import Sampler
from ....base import MXNetAssertionError

__all__ = ['IntervalSampler']


class IntervalSampler(Sampler):
    """Indices of [0, length) taken every ``interval`` items; with ``rollover`` the passes restart from 1, 2, ...
    until every index was given. ``len()`` is ``length`` either way, as in MXNet."""

    def __init__(self, length, interval, rollover=True):
        if interval > length:
            raise MXNetAssertionError('Interval {} must be smaller than or equal to length {}'
                                      .format(interval, length))
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        starts = range(self._interval) if self._rollover else range(1)
        return (j for start in starts for j in range(start, self._length, self._interval))

    def __len__(self):
        return self._length
