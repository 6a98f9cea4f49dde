"""mx.optimizer.Updater: state creation, aggregated and per-index calls, and get_states/set_states in MXNet's
pickle layout, including pickles written by real MXNet 1.9.1 (tests/fixtures/optimizer/updater_states.pkl)."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.ndarray.ndarray import NDArray
from .golden import gen, STATES

pytestmark = pytest.mark.filterwarnings('ignore::UserWarning')


def _grads(cfg, step):
    return [mx.nd.array(g) for g in gen.make_grads(cfg, step)]


@pytest.mark.parametrize('key', ['sgd_mom_wd', 'adam_sched'])
@pytest.mark.parametrize('with_optimizer', [True, False])
def test_set_states_reads_mxnet_pickles(key, with_optimizer):
    cfg = gen.CONFIGS[key]
    opt = gen.make_optimizer(mx, cfg)
    upd = mx.optimizer.get_updater(opt if not with_optimizer else mx.optimizer.create(cfg['opt']))
    # the optimizer must have done two steps for the scheduler and update counts to match, unless it is pickled
    if not with_optimizer:
        for i in range(3):
            for _ in range(2):
                opt._update_count(i)
    upd.set_states(STATES[key + ('/pickle' if with_optimizer else '/pickle_states')])
    assert type(upd.optimizer).__name__.lower() == cfg['opt'].lower()
    assert upd.optimizer.num_update == 2 and upd.optimizer._index_update_count == {0: 2, 1: 2, 2: 2}
    assert all(v is False for v in upd.states_synced.values())
    weights = [mx.nd.array(w) for w in STATES[key + '/weights2']]
    for step in (2, 3):
        upd(list(range(3)), _grads(cfg, step), weights)
    for w, want in zip(weights, STATES[key + '/weights4']):
        np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-5, atol=1e-6)


def _run(upd, cfg, weights, steps):
    for step in steps:
        upd(list(range(len(weights))), _grads(cfg, step), weights)


# (not LAMB: a restored Updater keeps the aggregation it was built with, the 'test' optimizer's none, so it calls
# LAMB one weight at a time, whose phase1/phase2 kernels round otherwise than multi_lamb_update; in MXNet 1.9.1 3
# of the first weight's 12 values then differ from the uninterrupted run's)
@pytest.mark.parametrize('key', ['sgd_mp', 'adam_mp', 'rmsprop_centered', 'ftml', 'nag_mom'])
def test_round_trip_continues_identically(key):
    cfg = gen.CONFIGS[key]
    dt = cfg['dtype']
    ref_w = [mx.nd.array(w, dtype=dt) for w in gen.make_weights(cfg)]
    ref = mx.optimizer.get_updater(gen.make_optimizer(mx, cfg))
    _run(ref, cfg, ref_w, range(4))

    w = [mx.nd.array(x, dtype=dt) for x in gen.make_weights(cfg)]
    upd = mx.optimizer.get_updater(gen.make_optimizer(mx, cfg))
    _run(upd, cfg, w, range(2))
    blob = upd.get_states(dump_optimizer=True)
    states, opt = pickle.loads(blob)
    assert isinstance(states, dict) and sorted(states) == [0, 1, 2]
    assert 'param_dict' not in opt.__getstate__() and opt.param_dict == {}
    fresh = mx.optimizer.get_updater(mx.optimizer.create('test'))
    fresh.set_states(blob)
    _run(fresh, cfg, w, range(2, 4))
    for a, b in zip(w, ref_w):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_states_without_optimizer_and_layout():
    opt = mx.optimizer.SGD(momentum=0.9, multi_precision=True)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.ones((2, 3), dtype='float16')
    upd(0, mx.nd.ones((2, 3), dtype='float16'), w)
    states = pickle.loads(upd.get_states())
    mom, master = states[0]
    assert isinstance(mom, NDArray) and isinstance(master, NDArray)
    assert mom.dtype == np.float32 and master.dtype == np.float32
    upd2 = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9, multi_precision=True))
    upd2.set_states(upd.get_states())
    assert upd2.states_synced == {0: False}
    np.testing.assert_array_equal(upd2.states[0][1].asnumpy(), master.asnumpy())


def test_call_forms_and_state_creation():
    opt = mx.optimizer.Adam()
    upd = mx.optimizer.Updater(opt)
    assert not upd.aggregate_updates and mx.optimizer.get_updater(mx.optimizer.SGD()).aggregate_updates
    w = mx.nd.ones((4,))
    upd(b'w0', mx.nd.ones((4,)), w)      # bytes keys (from kvstore) become str
    upd(['w0'], [mx.nd.ones((4,))], [w])
    assert list(upd.states) == ['w0'] and opt._index_update_count == {'w0': 2}


def test_aggregated_batches_group_by_dtype(monkeypatch):
    opt = mx.optimizer.SGD(momentum=0.9, multi_precision=True)
    calls = []
    orig = opt.update_multi_precision

    def spy(index, weight, grad, state):
        calls.append(tuple(index))
        return orig(index, weight, grad, state)
    monkeypatch.setattr(opt, 'update_multi_precision', spy)
    upd = mx.optimizer.get_updater(opt)
    dts = ['float32', 'float16', 'float32', 'float32', 'float32', 'float16', 'float32']
    ws = [mx.nd.ones((3,), dtype=d) for d in dts]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        upd(list(range(7)), [mx.nd.ones((3,), dtype=d) for d in dts], ws)
    assert calls == [(0, 2, 3, 4), (6,), (1, 5)]


def test_sync_state_context():
    upd = mx.optimizer.get_updater(mx.optimizer.SGD())
    a = mx.nd.ones((2,))
    out = upd.sync_state_context((a, [a, None]), mx.cpu(0))
    assert isinstance(out, tuple) and isinstance(out[1], list) and out[0] is a and out[1][1] is None


def test_leaf_weights_with_gradients_update_in_place():
    w = mx.nd.ones((3,))
    w.attach_grad()
    with mx.autograd.record():
        y = (w * w).sum()
    y.backward()
    upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.5, momentum=0.9))
    t = w._t
    upd(0, w.grad, w)
    assert w._t is t and t.requires_grad
    np.testing.assert_allclose(w.asnumpy(), [0.0, 0.0, 0.0])
    assert torch.is_grad_enabled()


@pytest.mark.parametrize('sparse', [False, True])
def test_sgd_takes_all_same_dtype_weights_in_one_call(monkeypatch, sparse):
    # Plain SGD without an lr_scheduler gets all weights of a dtype in one call; with a (constant) scheduler it gets
    # MXNet's batches of aggregate_num. Same weights, momenta and update counts either way (a row_sparse gradient
    # sends its batch down the one-weight-at-a-time path in both).
    def run(opt):
        calls = []
        orig = opt._update_impl

        def spy(index, *args, **kwargs):
            calls.append(tuple(index))
            return orig(index, *args, **kwargs)
        monkeypatch.setattr(opt, '_update_impl', spy)
        upd = mx.optimizer.get_updater(opt)
        rs = np.random.RandomState(5)
        dts = ['float32', 'float64', 'float32', 'float32', 'float32', 'float64', 'float32']
        ws = [mx.nd.array(rs.randn(3, 2), dtype=d) for d in dts]
        for _ in range(3):
            gs = [mx.nd.array(rs.randn(3, 2), dtype=d) for d in dts]
            if sparse:
                gs[3] = mx.nd.array(rs.randn(3, 2) * (np.arange(3)[:, None] != 1)).tostype('row_sparse')
            upd(list(range(7)), gs, ws)
        return calls, ws, upd.states, opt._index_update_count, opt.num_update

    kwargs = dict(momentum=0.9, wd=0.01, rescale_grad=0.5)
    one = run(mx.optimizer.SGD(learning_rate=0.1, **kwargs))
    batched = run(mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(1000, base_lr=0.1), **kwargs))
    assert one[0] == [(0, 2, 3, 4, 6), (1, 5)] * 3
    assert batched[0] == [(0, 2, 3, 4), (6,), (1, 5)] * 3
    for a, b in zip(one[1], batched[1]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    for k in range(7):
        np.testing.assert_array_equal(one[2][k].asnumpy(), batched[2][k].asnumpy())
    assert one[3:] == batched[3:] == ({k: 3 for k in range(7)}, 3)


@pytest.mark.parametrize('setter', ['private', 'public'])
def test_updates_turn_grad_mode_off_and_back_on(setter, monkeypatch):
    # inplace updates switch torch's grad mode off through torch._C._set_grad_enabled, or the public
    # torch.set_grad_enabled without it; the mode is back on afterwards, also when the update raises
    from mxcompat import autograd
    if setter == 'public':
        monkeypatch.setattr(autograd, '_set_grad_mode', torch.set_grad_enabled)
    w = mx.nd.ones((3,))
    w.attach_grad()
    upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.5))
    seen = []
    orig = upd.optimizer._update_impl

    def spy(*args, **kwargs):
        seen.append(torch.is_grad_enabled())
        return orig(*args, **kwargs)
    monkeypatch.setattr(upd.optimizer, '_update_impl', spy)
    with torch.enable_grad():
        upd(0, mx.nd.ones((3,)), w)
        assert torch.is_grad_enabled()
        with pytest.raises(mx.base.MXNetError):
            upd(0, mx.nd.ones((4,)), w)
        assert torch.is_grad_enabled()
    assert seen == [False, False]
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5, 0.5])
