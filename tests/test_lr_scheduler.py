"""mx.lr_scheduler against real MXNet 1.9.1 (values over a run of updates, fixtures written by
tests/fixtures/optimizer/gen_optimizer.py), plus argument errors and the optimizer's use of a scheduler."""
import logging
import pickle

import pytest

import mxcompat as mx
from mxcompat import lr_scheduler as lrs
from .optimizer.golden import gen, META


@pytest.mark.parametrize('name', sorted(gen.SCHEDULES))
def test_values_match_mxnet(name):
    assert gen.run_schedule(mx, name) == pytest.approx(META['schedules'][name], rel=1e-12, abs=0)


def test_namespace():
    assert mx.lr_scheduler is lrs
    for name in ('LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler', 'CosineScheduler'):
        assert issubclass(getattr(lrs, name), lrs.LRScheduler)


def test_base_is_abstract():
    with pytest.raises(NotImplementedError):
        lrs.LRScheduler()(3)


@pytest.mark.parametrize('make, error, message', [
    (lambda: lrs.LRScheduler(warmup_mode='exp'), ValueError, 'linear and constant'),
    (lambda: lrs.LRScheduler(base_lr=0.1, warmup_begin_lr=0.2), ValueError, 'higher than warmup_begin_lr'),
    (lambda: lrs.LRScheduler(warmup_steps=-1), ValueError, 'positive or 0'),
    (lambda: lrs.LRScheduler(warmup_steps=1.0), AssertionError, None),
    (lambda: lrs.FactorScheduler(step=0), ValueError, 'greater or equal than 1'),
    (lambda: lrs.FactorScheduler(step=2, factor=1.5), ValueError, 'no more than 1'),
    (lambda: lrs.MultiFactorScheduler(step=[3, 2]), ValueError, 'increasing'),
    (lambda: lrs.MultiFactorScheduler(step=[0, 2]), ValueError, 'greater or equal than 1'),
    (lambda: lrs.MultiFactorScheduler(step=[1, 2], factor=2), ValueError, 'no more than 1'),
    (lambda: lrs.MultiFactorScheduler(step=(1, 2)), AssertionError, None),
    (lambda: lrs.MultiFactorScheduler(step=[]), AssertionError, None),
    (lambda: lrs.PolyScheduler(max_update=0), ValueError, 'strictly positive'),
    (lambda: lrs.PolyScheduler(max_update=5.0), AssertionError, None),
    (lambda: lrs.CosineScheduler(max_update=0), ValueError, 'strictly positive'),
])
def test_bad_arguments(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_warmup_lr_asserts_range():
    s = lrs.FactorScheduler(step=2, warmup_steps=3, base_lr=0.1)
    assert s.get_warmup_lr(0) == 0
    with pytest.raises(AssertionError):
        s.get_warmup_lr(3)


def test_stop_factor_lr_is_a_floor():
    s = lrs.FactorScheduler(step=1, factor=0.1, stop_factor_lr=0.05, base_lr=1.0)
    assert [s(n) for n in (1, 2, 3, 10)] == pytest.approx([1.0, 0.1, 0.05, 0.05])


def test_optimizer_learning_rate_follows_scheduler():
    opt = mx.optimizer.SGD(lr_scheduler=lrs.FactorScheduler(step=2, factor=0.5, base_lr=0.4))
    assert opt.learning_rate == 0.4
    opt.num_update = 5
    assert opt.learning_rate == pytest.approx(0.1)
    with pytest.raises(UserWarning):
        opt.set_learning_rate(0.3)


def test_optimizer_learning_rate_overrides_base_lr(capsys):
    sched = lrs.FactorScheduler(step=2, base_lr=0.5)
    mx.optimizer.SGD(lr_scheduler=sched, learning_rate=0.2)
    assert sched.base_lr == 0.2
    # MXNet 1.9.1 prints the UserWarning to stdout (print(UserWarning(...))), not through warnings
    assert capsys.readouterr().out == ('learning rate from ``lr_scheduler`` has been overwritten by '
                                       '``learning_rate`` in optimizer.\n')


def test_pickle_keeps_progress():
    s = lrs.MultiFactorScheduler(step=[2, 4], factor=0.5, base_lr=1.0)
    s(5)
    t = pickle.loads(pickle.dumps(s))
    assert (t.cur_step_ind, t.base_lr, t(6)) == (2, 0.25, 0.25)


def test_factor_schedules_log_mxnets_lines(caplog):
    """The lines MXNet 1.9.1 logs for these calls (recorded with it), the stop_factor_lr one included."""
    caplog.set_level(logging.INFO)
    s = lrs.FactorScheduler(step=2, factor=0.1, stop_factor_lr=1e-3, base_lr=0.5)
    assert [s(i) for i in (1, 3, 4, 9)] == [0.5, 0.05, 0.05, 0.001]
    m = lrs.MultiFactorScheduler(step=[2, 5], factor=0.5, base_lr=1.0)
    assert [m(i) for i in (1, 3, 9)] == [1.0, 0.5, 0.25]
    assert [r.getMessage() for r in caplog.records] == [
        'Update[3]: Change learning rate to 5.00000e-02',
        'Update[9]: Change learning rate to 5.00000e-03',
        'Update[9]: now learning rate arrived at 1.00000e-03, will not change in the future',
        'Update[9]: now learning rate arrived at 1.00000e-03, will not change in the future',
        'Update[3]: Change learning rate to 5.00000e-01',
        'Update[9]: Change learning rate to 2.50000e-01']
