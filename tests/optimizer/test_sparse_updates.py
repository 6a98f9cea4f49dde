"""mx.optimizer with sparse weights, gradients and states, against MXNet 1.9.1 (goldens made by
tests/fixtures/optimizer/gen_sparse_updates.py): lazy row updates of SGD, Adam, AdaGrad, Ftrl, LARS; the standard
(dense) rule with ``lazy_update=False``; MXNet's storage fallback for the rules without a sparse form; the storage
types of weights and states; the error of AdaGrad's sparse update with weight decay."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.test_utils import compare_optimizer

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, '..', 'fixtures', 'optimizer', 'sparse_updates.json')) as _f:
    GOLD = json.load(_f)
SHAPE = tuple(GOLD['shape'])


def _states(state):
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [s for s in state if s is not None]
    return [state]


def _grad(values, rows, stype):
    g = mx.nd.sparse.row_sparse_array((np.array(values, dtype=np.float32), np.array(rows)), shape=SHAPE)
    return g if stype == 'row_sparse' else g.tostype('default').tostype(stype)


@pytest.mark.parametrize('name', sorted(GOLD['cases']))
def test_matches_mxnet(name):
    case = GOLD['cases'][name]
    opt = mx.optimizer.create(case['optimizer'], **case['kwargs'])
    weight = mx.nd.array(np.array(GOLD['weight'], dtype=np.float32)).tostype(case['w_stype'])
    state = opt.create_state_multi_precision(0, weight)
    assert [s.stype for s in _states(state)] == case['state_stypes']
    grads = [_grad(v, rows, case['g_stype']) for v, rows in GOLD['grads']]
    if 'error' in case:
        with pytest.raises(MXNetError, match='_sparse_adagrad_update'):
            for g in grads:
                opt.update_multi_precision(0, weight, g, state)
        return
    for g in grads:
        opt.update_multi_precision(0, weight, g, state)
    assert weight.stype == case['weight_stype']
    assert weight.dtype == np.float32 and weight.shape == SHAPE
    np.testing.assert_allclose(weight.asnumpy(), np.array(case['weight']), rtol=1e-5, atol=1e-6)
    for s, expected in zip(_states(state), case['states']):
        np.testing.assert_allclose(s.asnumpy(), np.array(expected), rtol=1e-5, atol=1e-6)


def test_lazy_update_leaves_other_rows():
    opt = mx.optimizer.SGD(momentum=0.9, wd=0.1, learning_rate=0.1)
    w = mx.nd.ones(SHAPE).tostype('row_sparse')
    mom = opt.create_state(0, w)
    g = mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), np.array([4])), shape=SHAPE)
    opt.update(0, w, g, mom)
    dense = w.asnumpy()
    assert (dense[[0, 1, 2, 3, 5]] == 1).all() and (dense[4] != 1).all()
    assert mom.stype == 'row_sparse' and mom.indices.asnumpy().tolist() == [4]
    # the standard update decays every row
    opt = mx.optimizer.SGD(momentum=0.9, wd=0.1, learning_rate=0.1, lazy_update=False)
    w = mx.nd.ones(SHAPE).tostype('row_sparse')
    opt.update(0, w, g, opt.create_state(0, w))
    assert (w.asnumpy() != 1).all()


def test_empty_gradient_is_a_no_op():
    for name in ('sgd', 'adam', 'adagrad', 'ftrl'):
        opt = mx.optimizer.create(name, momentum=0.9) if name == 'sgd' else mx.optimizer.create(name)
        w = mx.nd.ones(SHAPE).tostype('row_sparse')
        state = opt.create_state(0, w)
        opt.update(0, w, mx.nd.sparse.zeros('row_sparse', SHAPE), state)
        assert (w.asnumpy() == 1).all(), name


def test_aggregated_sgd_with_a_sparse_weight():
    # a list with one sparse array takes the one-weight-at-a-time path, as in MXNet
    opt = mx.optimizer.SGD(momentum=0.9, learning_rate=0.1)
    ws = [mx.nd.ones((2, 3)), mx.nd.ones((4, 3)).tostype('row_sparse')]
    gs = [mx.nd.ones((2, 3)), mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), np.array([1])),
                                                            shape=(4, 3))]
    states = [opt.create_state(i, w) for i, w in enumerate(ws)]
    opt.update([0, 1], ws, gs, states)
    np.testing.assert_allclose(ws[0].asnumpy(), np.full((2, 3), 0.9), rtol=1e-6)
    np.testing.assert_allclose(ws[1].asnumpy(), [[1] * 3, [0.9] * 3, [1] * 3, [1] * 3], rtol=1e-6)
    assert opt.num_update == 1


def test_updater_with_sparse_gradients():
    opt = mx.optimizer.Adam(learning_rate=0.1)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.ones(SHAPE)
    g = mx.nd.sparse.row_sparse_array((np.ones((2, 3), np.float32), np.array([0, 3])), shape=SHAPE)
    upd(0, g, w)
    dense = w.asnumpy()
    assert (dense[[1, 2, 4, 5]] == 1).all()
    np.testing.assert_allclose(dense[[0, 3]], 0.9, rtol=1e-5)


@pytest.mark.parametrize('opt, kwargs, w_stype', [
    (mx.optimizer.SGD, dict(momentum=0.9, wd=0.03), 'row_sparse'),
    (mx.optimizer.SGD, dict(lazy_update=False, clip_gradient=0.4), 'default'),
    (mx.optimizer.Adam, dict(lazy_update=False, wd=0.03), 'row_sparse'),
    (mx.optimizer.RMSProp, dict(centered=True), 'default'),
])
def test_compare_optimizer_sparse_vs_dense_rule(opt, kwargs, w_stype):
    # the standard sparse updates and the fallbacks compute the dense rule; a density-1 gradient makes the lazy
    # one do the same
    mx.random.seed(3)
    np.random.seed(3)
    lazy = kwargs.get('lazy_update', True) and opt is not mx.optimizer.RMSProp
    if lazy:
        w = mx.nd.array(np.random.rand(3, 4, 5)).tostype(w_stype)
        g = mx.nd.array(np.random.rand(3, 4, 5)).tostype('row_sparse')
        ref_w, ref_g = w.tostype('default'), g.tostype('default')
        o1, o2 = opt(**kwargs), opt(**kwargs)
        s1, s2 = o1.create_state(0, ref_w), o2.create_state(0, w)
        o1.update(0, ref_w, ref_g, s1)
        o2.update(0, w, g, s2)
        np.testing.assert_allclose(w.asnumpy(), ref_w.asnumpy(), rtol=1e-5, atol=1e-6)
    else:
        compare_optimizer(opt(**kwargs), opt(**kwargs), (3, 4, 5), np.float32, w_stype=w_stype,
                          g_stype='row_sparse')


def test_compare_optimizer_csr_fallback():
    np.random.seed(0)
    compare_optimizer(mx.optimizer.SGD(momentum=0.9), mx.optimizer.SGD(momentum=0.9), (3, 4), np.float32,
                      w_stype='csr', g_stype='csr')


def test_group_adagrad_storage_mismatch_raises():
    opt = mx.optimizer.contrib.GroupAdaGrad()
    w = mx.nd.ones(SHAPE).tostype('row_sparse')
    g = mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), np.array([2])), shape=SHAPE)
    with pytest.raises(MXNetError, match='_contrib_group_adagrad_update'):
        opt.update(0, w, g, mx.nd.zeros((SHAPE[0], 1)))
