"""``mx.lr_scheduler``: learning-rate schedules, called with the number of updates done so far.

Same formulas, state and attribute names as MXNet 1.9.1 (so schedulers pickled by MXNet load here). Differs from
MXNet: the scheduler does not log a message when the rate changes.
"""
from math import cos, pi

__all__ = ['LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler', 'CosineScheduler']


def _check(cond, error=AssertionError, msg=''):
    # MXNet validates some arguments with ``assert``; raise the same AssertionError even under ``python -O``.
    if not cond:
        raise error(msg) if msg else error()


class LRScheduler:
    """Base class: ``warmup_steps`` updates of warm-up from ``warmup_begin_lr`` to ``base_lr``
    (``warmup_mode`` 'linear' or 'constant'), then the subclass's schedule."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        self.base_lr = base_lr
        _check(isinstance(warmup_steps, int))
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        _check(warmup_begin_lr <= base_lr, ValueError, 'Base lr has to be higher than warmup_begin_lr')
        _check(warmup_steps >= 0, ValueError, 'Warmup steps has to be positive or 0')
        _check(warmup_mode in ('linear', 'constant'), ValueError, 'Supports only linear and constant modes of warmup')
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The warm-up rate at update ``num_update`` (< ``warmup_steps``)."""
        _check(num_update < self.warmup_steps)
        if self.warmup_mode == 'linear':
            span = self.warmup_final_lr - self.warmup_begin_lr
            return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)
        if self.warmup_mode == 'constant':
            return self.warmup_begin_lr
        raise ValueError('Invalid warmup mode %s' % self.warmup_mode)

    def __call__(self, num_update):
        """The learning rate after ``num_update`` updates (the largest update count of any weight)."""
        raise NotImplementedError('must override this')


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never going below ``stop_factor_lr``."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check(step >= 1, ValueError, 'Schedule step must be greater or equal than 1 round')
        _check(factor <= 1.0, ValueError, 'Factor must be no more than 1 to make lr reduce')
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # a loop, not a test: a resumed run may jump several steps at once
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time the update count passes one of the increasing ``step`` list."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check(isinstance(step, list) and len(step) >= 1)
        for i, s in enumerate(step):
            _check(i == 0 or s > step[i - 1], ValueError, 'Schedule step must be an increasing integer list')
            _check(s >= 1, ValueError, 'Schedule step must be greater or equal than 1 round')
        _check(factor <= 1.0, ValueError, 'Factor must be no more than 1 to make lr reduce')
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Shared set-up of the schedules that decay over ``max_update`` updates to ``final_lr``."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check(isinstance(max_update, int))
        _check(max_update >= 1, ValueError, 'maximum number of updates must be strictly positive')
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps


class PolyScheduler(_DecayToFinal):
    """Decay from ``base_lr`` to ``final_lr`` as ``(1 - progress) ** pwr`` over ``max_update`` updates
    (warm-up included), then stay at ``final_lr``."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            left = 1 - float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * pow(left, self.power)
        return self.base_lr


class CosineScheduler(_DecayToFinal):
    """Decay from ``base_lr`` to ``final_lr`` along half a cosine over ``max_update`` updates (warm-up included),
    then stay at ``final_lr``."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            phase = pi * (num_update - self.warmup_steps) / self.max_steps
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (1 + cos(phase)) / 2
        return self.base_lr
