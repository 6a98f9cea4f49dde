"""mx.model.FeedForward against MXNet 1.9.1: tests/fixtures/model/model_scenarios.py run here and compared with what
MXNet gave (model.json + model.npz and the checkpoint files mlp-symbol.json / mlp-0002.params, by gen_model.py)."""
import filecmp
import json
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetValueError

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures', 'model')
sys.path.insert(0, FIX)
import model_scenarios  # noqa: E402

_JSON = json.load(open(os.path.join(FIX, 'model.json')))
_NPZ = np.load(os.path.join(FIX, 'model.npz'))
# Trained parameters and outputs equal MXNet's to float32 rounding (FullyConnected / Convolution gradients are
# summed in another order than MXNet's oneDNN kernels): measured differences are below 1.2e-7.
RTOL, ATOL = 1e-5, 5e-7


@pytest.fixture(scope='module')
def results(tmp_path_factory):
    """Every scenario's result on mxcompat, run in the generator's order (the unseeded ones continue the global
    random streams the seeded ones left, as in gen_model.py)."""
    tmp = str(tmp_path_factory.mktemp('model'))
    return {name: fn(mx, tmp) for name, fn in model_scenarios.ALL.items()}


def _gold_arrays(name):
    prefix = name + '__'
    return {k[len(prefix):]: _NPZ[k] for k in _NPZ.files if k.startswith(prefix)}


def _assert_arrays(name, ours, tolerances=()):
    gold = _gold_arrays(name)
    assert sorted(ours) == sorted(gold)
    for key, want in gold.items():
        got = np.asarray(ours[key])
        assert got.shape == want.shape and got.dtype == want.dtype, key
        rtol, atol = dict(tolerances).get(key, (RTOL, ATOL))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=key)


def _close(a, b):
    """JSON values equal, floats to 1e-6 (a sum of trained biases differs in its rounding)."""
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-6 + 1e-6 * abs(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize('name', ['mlp_numpy', 'mlp_iter_two_devices', 'create_begin_epoch', 'extra_params',
                                  'ndsb2_style', 'train_model_pattern',
                                  'sym_gen_buckets'])
def test_scenario_matches_mxnet(results, name):
    """Log lines, warnings, callback arguments, optimizer indices, scores, trained parameters and predictions."""
    ours, gold = results[name], _JSON[name]
    assert sorted(ours['json']) == sorted(gold)
    for key, want in gold.items():
        if key == 'kept_predict':  # the exception's built-in class (ours derive from MXNetError too)
            assert want[0] in ours['json'][key]
        else:
            assert _close(ours['json'][key], want), key
    # MXNet's oneDNN BatchNorm writes 1 into gamma on each forward with fix_gamma=True, so its gamma ends one
    # momentum step of weight decay below 1; here gamma keeps every step's decay (1.4e-6 below MXNet's)
    _assert_arrays(name, ours['arrays'], {'fit_arg_batchnorm0_gamma': (0, 2e-6)})


def test_bad_inputs_raise_mxnet_classes(results):
    ours, gold = results['bad_inputs']['json']['errors'], _JSON['bad_inputs']['errors']
    assert sorted(ours) == sorted(gold)
    for case, classes in gold.items():
        assert classes[0] in ours[case], (case, ours[case], classes)


def test_mxnet_checkpoint_loads_and_saves_back_byte_identical(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        model = mx.model.FeedForward.load(os.path.join(FIX, 'mlp'), 2, numpy_batch_size=8)
    assert model.begin_epoch == 2 and model.num_epoch is None
    gold = _gold_arrays('mlp_numpy')
    for name, arr in model.arg_params.items():
        np.testing.assert_array_equal(arr.asnumpy(), gold['fit_arg_' + name])
    xv, _ = model_scenarios._data(21, 2)
    np.testing.assert_allclose(model.predict(xv), gold['loaded_predict'], rtol=RTOL, atol=ATOL)
    with pytest.raises(MXNetAssertionError, match='num_epoch is None'):
        model.save(str(tmp_path / 'x'))  # MXNet asserts an epoch is known
    model.save(str(tmp_path / 'back'), 2)
    for suffix in ('-symbol.json', '-0002.params'):  # the same bytes MXNet wrote, so MXNet reads them
        assert filecmp.cmp(str(tmp_path / ('back' + suffix)), os.path.join(FIX, 'mlp' + suffix), shallow=False)


def _mlp_model(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return mx.model.FeedForward(model_scenarios._mlp(mx), **kwargs)


def test_deprecation_warning_points_at_the_caller():
    with pytest.warns(DeprecationWarning, match='mxnet.model.FeedForward has been deprecated') as rec:
        mx.model.FeedForward(model_scenarios._mlp(mx))
    assert rec[0].filename == __file__
    from mxcompat.model import FeedForward  # the lazily loaded class, by name too
    assert FeedForward is mx.model.FeedForward


def test_label_column_and_numpy_batch_size():
    """A (n, 1) label is flattened; numpy input gives an NDArrayIter of min(n, numpy_batch_size)."""
    x, y = model_scenarios._data(10, 0)
    model = _mlp_model(num_epoch=1, numpy_batch_size=4, learning_rate=0.1)
    it = model._init_iter(x, y.reshape(-1, 1), is_train=True)
    assert it.batch_size == 4 and it.provide_label[0].shape == (4,)
    assert _mlp_model(numpy_batch_size=128)._init_iter(x, None, is_train=False).batch_size == 10
    model.fit(x, y.reshape(-1, 1))
    assert model.predict(x).shape == (10, 3)


def test_pickle_drops_the_predictor():
    x, y = model_scenarios._data(8, 0)
    model = _mlp_model(num_epoch=1, learning_rate=0.1)
    model.fit(x, y)
    want = model.predict(x)
    clone = pickle.loads(pickle.dumps(model))
    assert clone._pred_exec is None
    np.testing.assert_array_equal(clone.predict(x), want)


def test_work_load_list_and_duplicate_names():
    x, y = model_scenarios._data(8, 0)
    model = _mlp_model(ctx=[mx.cpu(0), mx.cpu(1)], num_epoch=1)
    with pytest.raises(AssertionError):
        model.fit(x, y, work_load_list=[1])
    data = mx.sym.Variable('data')
    dup = mx.sym.FullyConnected(mx.sym.FullyConnected(data, num_hidden=2, name='fc'), num_hidden=2, name='fc')
    with pytest.raises(MXNetValueError, match='fc_weight'), warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        mx.model.FeedForward(dup)


def test_unseeded_fit_in_a_fresh_process_prints_mxnets_lines():
    """Without mx.random.seed, a new process draws MXNet's default streams: the same log lines and weights."""
    script = os.path.join(FIX, 'unseeded_fit.py')
    got = subprocess.run([sys.executable, '-m', 'mxcompat', script], capture_output=True, text=True, check=True,
                         timeout=120)
    assert got.stdout.splitlines() == _JSON['unseeded_fit']['lines']
