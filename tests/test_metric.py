"""mx.metric against goldens from MXNet 1.9.1 (fixtures/metric): every case replays the same steps as the
generator (fixtures/metric/replay.py) and get()/get_global()/name-value lists/counts must be exactly equal."""
import json
import logging
import math
import os
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import metric as metric_mod
from mxcompat.base import MXNetError

HERE = os.path.join(os.path.dirname(__file__), 'fixtures', 'metric')
sys.path.insert(0, HERE)
import replay  # noqa: E402

GOLD = json.load(open(os.path.join(HERE, 'metric_cases.json')))
ARRAYS = dict(np.load(os.path.join(HERE, 'metric_inputs.npz')))
CASES = {c['id']: c for c in GOLD['cases']}
PY_ERRORS = {'ValueError': ValueError, 'TypeError': TypeError, 'AssertionError': AssertionError,
             'NotImplementedError': NotImplementedError, 'MXNetError': MXNetError}


def check_error(got_err, want):
    """Same Python error class as MXNet's (ours also being an MXNetError), and the same message where MXNet's
    is meaningful."""
    assert isinstance(got_err, PY_ERRORS[want['error']]), (got_err, want)
    if want['error'] != 'NotImplementedError':
        assert isinstance(got_err, MXNetError), type(got_err)
    if want['message'] and want['error'] != 'MXNetError':
        assert str(got_err) == want['message']


def test_namespace():
    assert mx.metric is metric_mod
    assert mx.metric.create('acc').__class__ is mx.metric.Accuracy


def check_step_error(got, want):
    """A step error: MXNet's class among ours' bases, ours also an MXNetError, and the same message where
    MXNet's says something (its internal shape-check tracebacks are not reproduced)."""
    assert want['error'] in got['classes'], (got, want)
    if want['error'] != 'NotImplementedError':
        assert 'MXNetError' in got['classes'], got
    if want['message'] and want['error'] != 'MXNetError':
        assert got['message'] == want['message']


@pytest.mark.parametrize('case_id', sorted(CASES))
def test_case(case_id):
    want = GOLD['results'][case_id]
    got = replay.replay(mx, CASES[case_id], ARRAYS)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        if 'error' in w:
            assert 'error' in g, (i, g, w)
            check_step_error(g, w)
            continue
        assert 'error' not in g, (i, g)
        keys = ('get', 'get_global', 'name_value', 'global_name_value', 'num_inst', 'global_num_inst')
        if case_id == 'topk_1d':
            # 1-D predictions: MXNet compares the whole argpartition permutation with the labels, and the order
            # of the non-top-k entries depends on numpy's partition algorithm (it changed in numpy 2), so only
            # the counts can match.
            keys = ('num_inst', 'global_num_inst')
        for key in keys:
            assert replay.same_value(g[key], w[key]), (i, key, g[key], w[key])


@pytest.mark.parametrize('key', sorted(GOLD['configs']))
def test_get_config_round_trip(key):
    spec, kw = json.loads(key)
    want = GOLD['configs'][key]
    m = mx.metric.create(spec, **kw)
    cfg = m.get_config()
    assert cfg == want['config']
    again = mx.metric.create(**cfg) if not isinstance(spec, list) else mx.metric.create(cfg)
    assert again.get_config() == want['again']
    assert type(again).__name__ == want['type'] and again.name == want['name']


ERROR_CALLS = {
    'unknown': lambda: mx.metric.create('nosuch'),
    'topk_1': lambda: mx.metric.TopKAccuracy(top_k=1),
    'custom_config': lambda: mx.metric.create(lambda l, p: 1.0).get_config(),
    'check_len': lambda: mx.metric.check_label_shapes([1, 2], [1]),
    'check_shape': lambda: mx.metric.check_label_shapes(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 2)), shape=True),
    'instance_extra': lambda: mx.metric.create(mx.metric.Accuracy(), axis=1),
    'perplexity_len': lambda: mx.metric.Perplexity(None).update([mx.nd.zeros((2,))], []),
    'perplexity_size': lambda: mx.metric.Perplexity(None).update([mx.nd.zeros((3,))], [mx.nd.ones((2, 4))]),
}


@pytest.mark.parametrize('key', sorted(GOLD['errors']))
def test_errors(key):
    want = GOLD['errors'][key]
    with pytest.raises(Exception) as info:
        ERROR_CALLS[key]()
    err = info.value
    assert isinstance(err, PY_ERRORS[want['error']])
    if key != 'perplexity_len':  # MXNet's bare assert has no message; ours says what is wrong
        assert str(err) == want['message']


def test_names_and_str():
    names = GOLD['names']
    got = [mx.metric.create(lambda l, p: 1.0).name, mx.metric.np(lambda l, p: 1.0).name,
           mx.metric.create(replay.mean_abs).name, mx.metric.np(replay.mean_abs).name]
    assert got == names['custom_names']
    assert {s: mx.metric.create(s).name for s in names['default_names']} == names['default_names']
    assert str(mx.metric.create(['acc', 'f1'])) == names['str']
    wrap = mx.metric.check_label_shapes(mx.nd.zeros((2,)), mx.nd.zeros((2,)), wrap=True)
    assert [type(wrap[0]).__name__, type(wrap[1]).__name__, len(wrap[0])] == names['wrap']


def test_registry_aliases():
    reg = metric_mod._REGISTRY
    assert sorted(reg) == sorted(['acc', 'accuracy', 'caffe', 'ce', 'composite', 'compositeevalmetric',
                                  'crossentropy', 'custommetric', 'f1', 'loss', 'mae', 'mcc', 'mse',
                                  'negativeloglikelihood', 'nll_loss', 'pcc', 'pearsoncorrelation', 'pearsonr',
                                  'perplexity', 'rmse', 'top_k_acc', 'top_k_accuracy', 'topkaccuracy', 'torch'])

    @mx.metric.register
    @mx.metric.alias('my_metric_alias')
    class MyMetricForTest(mx.metric.EvalMetric):
        def __init__(self, name='mine'):
            super().__init__(name)

        def update(self, labels, preds):
            self.sum_metric += 2.0
            self.num_inst += 1

    m = mx.metric.create('my_metric_alias')
    m.update(None, None)
    assert m.get() == ('mine', 2.0) and m.get_global() == ('mine', 2.0)  # no global stats: get_global is get
    assert m.get_global_name_value() == [('mine', 2.0)]
    with pytest.raises(AssertionError, match='subclass of EvalMetric'):
        mx.metric.register(dict)


def test_composite_get_metric():
    c = mx.metric.create(['acc', 'mse'])
    assert isinstance(c.get_metric(1), mx.metric.MSE)
    with pytest.raises(ValueError, match='out of range'):
        c.get_metric(5)
    c.add('mae')
    assert c.get()[0] == ['accuracy', 'mse', 'mae']


def test_kahan_sum_matches_sequential_float32():
    # MXNet's CPU sum: sequential Kahan summation in float32; check our emulation on a case where it differs
    # from a float64 sum rounded to float32.
    rs = np.random.RandomState(3)
    x = rs.uniform(-1, 1, 1500).astype(np.float32)
    f = np.float32
    dst = res = f(0)
    for v in x:
        y = f(v - res)
        t = f(dst + y)
        res = f(f(t - dst) - y)
        dst = t
    assert metric_mod._mx_sum(x) == dst and metric_mod._mx_sum(x).dtype == np.float32
    assert metric_mod._mx_sum(np.array([np.inf, 1.0], np.float32)) == np.inf
    assert metric_mod._mx_sum(np.array([1, 2], np.int32)) == 3


def test_perplexity_value_formula():
    # the documented example: exp(-(log .3 + log 1 + log .6) / 3)
    m = mx.metric.Perplexity(ignore_label=None)
    m.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    assert math.isclose(m.get()[1], 1.77109762852, rel_tol=1e-7)


def test_user_metric_sums_float32_in_float64():
    # a metric written for MXNet (example/sparse/factorization_machine's LogLossMetric) adds numpy float32 sums to
    # sum_metric; under MXNet's numpy 1.x they accumulated in float64 (numpy 2 would keep float32 from a 0.0)
    class LogLoss(mx.metric.EvalMetric):
        def __init__(self):
            super().__init__('log-loss')

        def update(self, labels, preds):
            for pred in preds:
                self.sum_metric += (-np.log(pred.asnumpy())).sum()
                self.num_inst += pred.shape[0]

    m = LogLoss()
    batches = [np.random.RandomState(i).rand(100).astype(np.float32) * 0.9 + 0.05 for i in range(6)]
    for b in batches:
        m.update(None, [mx.nd.array(b)])
    expected = sum(np.float64((-np.log(b)).sum()) for b in batches) / 600
    name, value = m.get()
    assert type(value) is np.float64 and isinstance(m.sum_metric, float)
    assert value == expected


def test_binary_metric_value_types_as_mxnet():
    # MXNet 1.9.1: F1 sums numpy float64 scores; MCC counts in Python floats
    label, pred = [mx.nd.array([1, 0, 0])], [mx.nd.array([[0.3, 0.7], [0.6, 0.4], [0.2, 0.8]])]
    f1, mcc = mx.metric.create('f1'), mx.metric.create('mcc')
    f1.update(label, pred)
    mcc.update(label, pred)
    assert type(f1.get()[1]) is np.float64 and type(f1.num_inst) is int
    assert type(mcc.get()[1]) is float and type(mcc.sum_metric) is float and type(mcc.num_inst) is float
    mcc.reset()
    assert type(mcc.num_inst) is float and type(mcc.global_num_inst) is float


def test_custom_metric_of_one_element_arrays_sums_and_logs_as_mxnet(caplog):
    # example/neural_collaborative_filtering: a feval returning a float32 array of shape (1,); MXNet's 0.0 +
    # array keeps float32 (numpy 1.x), and its Speedometer's %f printed the one-element array
    def cross_entropy(label, pred, eps=1e-12):
        ce = 0
        for lab, p in zip(label, pred):
            ce += -(lab * np.log(p + eps) + (1 - lab) * np.log(1 - p + eps))
        return ce

    m = mx.metric.create(cross_entropy)
    rng = np.random.RandomState(0)
    sums = []
    for _ in range(3):
        lab, pred = rng.randint(0, 2, 8).astype(np.float32), rng.rand(8, 1).astype(np.float32)
        m.update([mx.nd.array(lab)], [mx.nd.array(pred)])
        sums.append(cross_entropy(lab, pred))
    expected = sums[0] + sums[1] + sums[2]
    assert m.sum_metric.dtype == np.float32 and m.sum_metric.shape == (1,)
    np.testing.assert_array_equal(m.sum_metric, expected)
    param = mx.model.BatchEndParam(epoch=0, nbatch=0, eval_metric=m, locals=None)
    speed = mx.callback.Speedometer(8, 1)
    speed(param)
    with caplog.at_level(logging.INFO):
        speed(mx.model.BatchEndParam(epoch=0, nbatch=1, eval_metric=m, locals=None))
    assert caplog.messages[-1].endswith('cross_entropy=%f' % (expected[0] / 3))
