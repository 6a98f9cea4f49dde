"""``mx.lr_scheduler``: learning-rate schedules, called with the number of updates done so far.

Same formulas, state and attribute names as MXNet 1.9.1 (so schedulers pickled by MXNet load here), and the same
``Update[n]: Change learning rate to ...`` log lines from the factor schedules.
"""
import logging
from math import cos, pi

__all__ = ['LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler', 'CosineScheduler']


def _check(cond, error=AssertionError, msg=''):
    # MXNet validates some arguments with ``assert``; raise the same AssertionError even under ``python -O``.
    if not cond:
        raise error(msg) if msg else error()


def _warmup_first(schedule):
    """Decorator for a subclass ``__call__``: updates inside the warm-up get the warm-up rate, the others go to
    ``schedule``."""
    def __call__(self, num_update):
        if num_update >= self.warmup_steps:
            return schedule(self, num_update)
        return self.get_warmup_lr(num_update)
    __call__.__doc__ = schedule.__doc__
    return __call__


_STEP_MSG = 'Schedule step must be greater or equal than 1 round'
_FACTOR_MSG = 'Factor must be no more than 1 to make lr reduce'


class LRScheduler:
    """Base class: ``warmup_steps`` updates of warm-up from ``warmup_begin_lr`` to ``base_lr``
    (``warmup_mode`` 'linear' or 'constant'), then the subclass's schedule."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        _check(isinstance(warmup_steps, int))
        # checked in MXNet's order, so the first failing one is reported
        for ok, msg in ((warmup_begin_lr <= base_lr, 'Base lr has to be higher than warmup_begin_lr'),
                        (warmup_steps >= 0, 'Warmup steps has to be positive or 0'),
                        (warmup_mode in ('linear', 'constant'), 'Supports only linear and constant modes of warmup')):
            _check(ok, ValueError, msg)
        self.base_lr = self.warmup_final_lr = base_lr
        self.warmup_begin_lr, self.warmup_steps, self.warmup_mode = warmup_begin_lr, warmup_steps, warmup_mode

    def get_warmup_lr(self, num_update):
        """The warm-up rate at update ``num_update`` (< ``warmup_steps``)."""
        _check(num_update < self.warmup_steps)
        mode = self.warmup_mode
        if mode not in ('linear', 'constant'):
            raise ValueError('Invalid warmup mode %s' % mode)
        if mode == 'constant':
            return self.warmup_begin_lr
        fraction = float(num_update) / float(self.warmup_steps)
        return self.warmup_begin_lr + (self.warmup_final_lr - self.warmup_begin_lr) * fraction

    def __call__(self, num_update):
        """The learning rate after ``num_update`` updates (the largest update count of any weight)."""
        raise NotImplementedError('must override this')


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never going below ``stop_factor_lr``."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check(step >= 1, ValueError, _STEP_MSG)
        _check(factor <= 1.0, ValueError, _FACTOR_MSG)
        self.step, self.factor, self.stop_factor_lr, self.count = step, factor, stop_factor_lr, 0

    @_warmup_first
    def __call__(self, num_update):
        # a resumed run may cross several steps in one call, hence one decay per crossed step
        while num_update - self.count > self.step:
            self.count += self.step
            if self.base_lr * self.factor < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info('Update[%d]: now learning rate arrived at %0.5e, will not change in the future',
                             num_update, self.base_lr)
            else:
                self.base_lr *= self.factor
                logging.info('Update[%d]: Change learning rate to %0.5e', num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time the update count passes one of the increasing ``step`` list."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check(isinstance(step, list) and len(step) >= 1)
        previous = None
        for s in step:
            _check(previous is None or s > previous, ValueError, 'Schedule step must be an increasing integer list')
            _check(s >= 1, ValueError, _STEP_MSG)
            previous = s
        _check(factor <= 1.0, ValueError, _FACTOR_MSG)
        self.step, self.factor = step, factor
        self.cur_step_ind = self.count = 0

    @_warmup_first
    def __call__(self, num_update):
        passed = [s for s in self.step[self.cur_step_ind:] if num_update > s]
        for s in passed:
            self.base_lr *= self.factor
            self.count = s
            logging.info('Update[%d]: Change learning rate to %0.5e', num_update, self.base_lr)
        self.cur_step_ind += len(passed)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Shared part of the schedules that decay over ``max_update`` updates to ``final_lr``: the subclass gives
    ``_shape(progress)``, 1 at the start of decay and 0 at its end."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check(isinstance(max_update, int))
        _check(max_update >= 1, ValueError, 'maximum number of updates must be strictly positive')
        self.base_lr_orig, self.final_lr, self.max_update = base_lr, final_lr, max_update
        self.max_steps = max_update - self.warmup_steps

    @_warmup_first
    def __call__(self, num_update):
        if num_update <= self.max_update:
            weight = self._shape(num_update - self.warmup_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * weight
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """Decay from ``base_lr`` to ``final_lr`` as ``(1 - progress) ** pwr`` over ``max_update`` updates
    (warm-up included), then stay at ``final_lr``."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr

    def _shape(self, done):
        return pow(1 - float(done) / float(self.max_steps), self.power)


class CosineScheduler(_DecayToFinal):
    """Decay from ``base_lr`` to ``final_lr`` along half a cosine over ``max_update`` updates (warm-up included),
    then stay at ``final_lr``."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)

    def _shape(self, done):
        return (1 + cos(pi * done / self.max_steps)) / 2
