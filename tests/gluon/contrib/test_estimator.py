"""mx.gluon.contrib.estimator against results recorded from MXNet 1.9.1 (tests/fixtures/estimator,
gen_estimator.py): the scenarios in estimator_scenarios.py run here under mxcompat, and their metric values,
weights, log lines, files, warnings and errors must match; then behaviour MXNet's results cannot show."""
import builtins
import importlib.util
import json
import os
import re
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.gluon.contrib import estimator as E

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'estimator'))
_spec = importlib.util.spec_from_file_location('estimator_scenarios', os.path.join(FIX, 'estimator_scenarios.py'))
sc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sc)
GOLD = json.load(open(os.path.join(FIX, 'estimator.json')))
_NUM = re.compile(r'-?\d+\.\d+|\bnan\b')


def _norm(text):
    text = re.sub(r'0x[0-9a-f]+', '0x?', text)
    return text.replace('mxcompat.', 'mxnet.')


def _same_text(got, want, where):
    got, want = _norm(got), _norm(want)
    assert _NUM.sub('#', got) == _NUM.sub('#', want), where
    for g, w in zip(_NUM.findall(got), _NUM.findall(want)):
        # log lines print 4 decimals: allow the last one to round the other way
        assert g == w or abs(float(g) - float(w)) <= 1.01 * 10 ** -(len(w.split('.')[1])), (where, got, want)


def _same(got, want, where=''):
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), where
        for k in want:
            _same(got[k], want[k], where + '/' + k)
    elif isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (where, got, want)
        if len(want) == 2 and want[0] in ('ValueError', 'AssertionError') and isinstance(got[0], str):
            # an error: ours subclasses the builtin MXNet raises (MXNetValueError is a ValueError ...)
            cls = getattr(mx.base, got[0], None) or getattr(builtins, got[0])
            assert issubclass(cls, getattr(builtins, want[0])) and issubclass(cls, MXNetError), (where, got[0])
            _same_text(got[1], want[1], where)
            return
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, '%s[%d]' % (where, i))
    elif isinstance(want, str):
        assert isinstance(got, str), where
        _same_text(got, want, where)
    elif isinstance(want, bool) or want is None:
        assert got == want, where
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=where)


@pytest.mark.parametrize('fn', sc.SCENARIOS, ids=[f.__name__ for f in sc.SCENARIOS])
def test_scenario_matches_mxnet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = json.loads(json.dumps(fn(mx)))
    _same(got, GOLD[fn.__name__], fn.__name__)


# ---- behaviour -------------------------------------------------------------------------------------------------------
MXNET_ALL = ['Estimator', 'BatchProcessor', 'TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin',
             'BatchEnd', 'StoppingHandler', 'MetricHandler', 'ValidationHandler', 'LoggingHandler',
             'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']


def test_public_names_and_layout():
    """``from ...estimator import *`` gives what it gives under MXNet 1.9.1: the classes and the submodules."""
    ns = {}
    exec('from mxcompat.gluon.contrib.estimator import *', ns)
    assert sorted(k for k in ns if not k.startswith('__')) == sorted(
        MXNET_ALL + ['batch_processor', 'estimator', 'event_handler', 'utils'])
    assert mx.gluon.contrib.estimator is E
    assert E.estimator.Estimator is E.Estimator and E.event_handler.LoggingHandler is E.LoggingHandler
    assert E.batch_processor.BatchProcessor is E.BatchProcessor
    for name in MXNET_ALL:
        assert getattr(E, name).__doc__, name


def _small(hybrid=False):
    net = sc._net(mx, hybrid=hybrid)
    est = E.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=sc._trainer(mx, net))
    return net, est


def test_logger_writes_to_stdout(capsys):
    _, est = _small()
    est.fit(sc._data(mx), batches=1)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == 'Training begin: using optimizer SGD with current learning rate 0.1000 '
    assert out[1] == 'Train for 1 batches.' and out[-1].startswith('Train finished using total ')


def test_checkpoint_files_are_written_atomically_and_load_back(tmp_path):
    net, est = _small(hybrid=True)
    est.fit(sc._data(mx), epochs=1, event_handlers=[E.CheckpointHandler(str(tmp_path), model_prefix='a')])
    assert sorted(os.listdir(tmp_path)) == ['a-epoch0batch3.params', 'a-epoch0batch3.states', 'a-symbol.json']
    loaded = mx.nd.load(str(tmp_path / 'a-epoch0batch3.params'))
    np.testing.assert_array_equal(loaded['0.weight'].asnumpy(), net[0].weight.data().asnumpy())
    # a write that fails leaves the target as it was and no temporary file behind
    os.mkdir(tmp_path / 'b-epoch0batch3.params')
    net, est = _small()
    with pytest.raises(MXNetError, match='b-epoch0batch3.params'):
        est.fit(sc._data(mx), epochs=1, event_handlers=[E.CheckpointHandler(str(tmp_path), model_prefix='b')])
    assert sorted(os.listdir(tmp_path)) == ['a-epoch0batch3.params', 'a-epoch0batch3.states', 'a-symbol.json',
                                            'b-epoch0batch3.params']


def test_unupdated_monitor_warns_and_skips(tmp_path):
    """A validation metric monitored without validation data stays nan: a RuntimeWarning naming it, nothing
    saved as best and no early stop (MXNet's warnings print their arguments unformatted; ours are sentences)."""
    _, est = _small()
    monitor = est.val_metrics[0]
    es = E.EarlyStoppingHandler(monitor, mode='max')
    ck = E.CheckpointHandler(str(tmp_path), monitor=monitor, save_best=True, mode='max')
    with pytest.warns(RuntimeWarning) as got:
        est.fit(sc._data(mx), epochs=2, event_handlers=[es, ck])
    texts = [str(w.message) for w in got if issubclass(w.category, RuntimeWarning)]
    assert 'validation accuracy is not updated, make sure you pass one of the metric objects' in texts[0]
    assert any(t.startswith('Skipping save best because validation accuracy is not updated') for t in texts)
    assert not es.stop_training and es.current_epoch == 2
    assert not any('best' in f for f in os.listdir(tmp_path))


def test_max_checkpoints_deletes_oldest(tmp_path):
    _, est = _small()
    ck = E.CheckpointHandler(str(tmp_path), epoch_period=None, batch_period=1, max_checkpoints=1)
    est.fit(sc._data(mx), batches=3, event_handlers=[ck])
    assert sorted(os.listdir(tmp_path)) == ['model-epoch0batch2.params', 'model-epoch0batch2.states']
    assert ck.saved_checkpoints == ['model-epoch0batch2']


def test_resume_parse_error(tmp_path):
    (tmp_path / 'model-epochXbatch1.params').write_bytes(b'')
    _, est = _small()
    with pytest.raises(ValueError, match='Error parsing checkpoint file') as info:
        est.fit(sc._data(mx), epochs=2, event_handlers=[E.CheckpointHandler(str(tmp_path),
                                                                            resume_from_checkpoint=True)])
    assert isinstance(info.value, MXNetError)


def test_handler_returning_true_stops_after_all_handlers_ran():
    calls = []

    class Stop(E.BatchEnd):
        priority = -5000

        def batch_end(self, estimator, *args, **kwargs):
            calls.append('stop')
            return True

    class After(E.BatchEnd):
        def batch_end(self, estimator, *args, **kwargs):
            calls.append('after')

    net, est = _small()
    before = net[1].bias.data().asnumpy().copy()
    est.fit(sc._data(mx), epochs=1, event_handlers=[Stop(), After()])
    assert calls == ['stop', 'after']  # one batch, every batch_end handler ran, the step too
    assert not np.array_equal(before, net[1].bias.data().asnumpy())
