"""mx.callback: log lines and checkpoint calls against MXNet 1.9.1's (fixtures/metric/callback_logs.json, from the
shared scenario in fixtures/metric/callback_scenario.py run with a fake clock)."""
import json
import logging
import os
import sys
from collections import namedtuple

import pytest

import mxcompat as mx
from mxcompat import callback

HERE = os.path.join(os.path.dirname(__file__), 'fixtures', 'metric')
sys.path.insert(0, HERE)
from callback_scenario import run_scenario  # noqa: E402

GOLD = json.load(open(os.path.join(HERE, 'callback_logs.json')))
# MXNet's mx.model.BatchEndParam
BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


@pytest.fixture(scope='module')
def scenario():
    return run_scenario(mx, callback, BatchEndParam)


def test_namespace():
    assert mx.callback is callback


@pytest.mark.parametrize('key', sorted(GOLD))
def test_scenario_matches_mxnet(scenario, key):
    assert scenario[key] == GOLD[key]


def test_speedometer_with_caplog(monkeypatch, caplog):
    clock = iter([10.0, 12.0, 12.0])
    monkeypatch.setattr(callback, 'time', type('FakeTime', (), {'time': staticmethod(lambda: next(clock))}))
    speedo = mx.callback.Speedometer(batch_size=5, frequent=2)
    metric = mx.metric.create('acc')
    metric.update([mx.nd.array([1, 0])], [mx.nd.array([[0.2, 0.8], [0.3, 0.7]])])
    with caplog.at_level(logging.INFO):
        speedo(BatchEndParam(0, 0, metric, None))  # starts the clock at 10
        speedo(BatchEndParam(0, 1, metric, None))  # not a multiple of frequent
        speedo(BatchEndParam(0, 2, metric, None))  # 2 batches * 5 samples / 2 s
    assert caplog.messages == ['Epoch[0] Batch [0-2]\tSpeed: 5.00 samples/sec\taccuracy=0.500000']
    assert metric.num_inst == 0 and metric.global_num_inst == 2  # auto_reset resets the local values only


def test_do_checkpoint(monkeypatch, tmp_path):
    import mxcompat._checkpoint as checkpoint  # (mx.model's checkpoint functions)
    calls = []
    monkeypatch.setattr(checkpoint, 'save_checkpoint', lambda *a: calls.append(a))
    cb = mx.callback.do_checkpoint('pre', period=2)
    for i in range(4):
        cb(i, 'sym', {'a': 1}, {'b': 2})
    assert calls == [('pre', 2, 'sym', {'a': 1}, {'b': 2}), ('pre', 4, 'sym', {'a': 1}, {'b': 2})]


def test_log_validation_without_metric(caplog):
    with caplog.at_level(logging.INFO):
        mx.callback.LogValidationMetricsCallback()(BatchEndParam(3, 0, None, None))
        mx.callback.log_train_metric(1)(BatchEndParam(3, 0, None, None))
    assert caplog.messages == []
