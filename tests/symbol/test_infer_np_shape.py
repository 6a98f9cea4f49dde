"""NumPy shape semantics (``mx.util.np_shape``) in symbols and NDArray creation, against MXNet 1.9.1 goldens
(tests/fixtures/np_shape/gen_np_shape.py): infer_shape(_partial) in both semantics, ``is_np_shape`` in symbol
JSON and the conversion of legacy ``__shape__`` attributes on load, zero-size and scalar arrays."""
import json
import os
import sys
import warnings

import pytest

import mxcompat as mx
from mxcompat import base
from mxcompat.base import MXNetError

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'np_shape')
sys.path.insert(0, HERE)
import np_shape_cases as cases  # noqa: E402

GOLD = json.load(open(os.path.join(HERE, 'np_shape.json')))

# Legacy-mode results where mxcompat differs from MXNet on purpose (each with what mxcompat gives, and why).
KNOWN_DIFF = {
    # mxcompat's legacy mode has 0-d arrays, so () given or as __shape__ is a known scalar shape; MXNet's legacy
    # mode reads () as "unknown" and infer_shape reports the graph incomplete
    'sin_scalar|legacy|full': [[[]], [[]], []],
    'var_attr_scalar|legacy|full': [[[]], [[]], []],
    # MXNet's legacy FullyConnected fails flattening an unknown (0) feature dimension; mxcompat infers what it can
    'fc_zero_features|legacy|partial': [[[3, 0], [4, 0], [4]], [[3, 4]], []],
    'fc_zero_features|legacy|full': [None, None, None],
}


@pytest.fixture(autouse=True)
def _legacy_after():
    yield
    mx.util.set_np_shape(0)


def _same(ours, gold):
    if gold and gold[0] == 'error':
        assert ours[0] == 'error', ours
        assert issubclass(getattr(base, ours[1]), getattr(base, gold[1]))  # a subclass of the MXNet error is fine
    else:
        assert ours == gold


def test_flag_states_and_scopes():
    assert json.loads(json.dumps(cases.record_flags(mx))) == GOLD['flags']


@pytest.mark.parametrize('key', sorted(GOLD['infer']))
def test_infer_shape(key):
    name, sem, kind = key.split('|')
    code, shapes = cases.INFER[name]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with mx.util.np_shape(sem == 'np'):
            ours = json.loads(json.dumps(cases.run_infer(mx, code, shapes, kind == 'partial')))
    if key in KNOWN_DIFF:
        assert ours == KNOWN_DIFF[key] and GOLD['infer'][key] != ours
    else:
        _same(ours, GOLD['infer'][key])


def test_json_is_np_shape_and_loading_legacy_files():
    ours = json.loads(json.dumps(cases.record_json(mx)))
    assert sorted(ours) == sorted(GOLD['json'])
    for key, gold in GOLD['json'].items():
        assert ours[key] == gold, key


@pytest.mark.parametrize('name', sorted(GOLD['nd']))
def test_ndarray_creation_under_np_shape(name):
    with mx.util.np_shape(True):
        a = eval(cases.ND[name], {'mx': mx})  # noqa: S307
        got = {'shape': list(a.shape), 'dtype': a.dtype.__name__, 'value': a.asnumpy().tolist() if a.size else []}
    assert got == GOLD['nd'][name]


def test_shape_error_names_the_op_and_numpy_shapes():
    code, shapes = cases.INFER['fc_weight_zero_attr']
    with mx.util.np_shape(True), pytest.raises(MXNetError, match=r'Provided = \[8,0\].*FullyConnected fc'):
        cases.build(mx, code).infer_shape(**shapes)


def test_zero_size_arrays_run_through_a_bound_symbol():
    x = mx.sym.var('x')
    with mx.util.np_shape(True):
        out = mx.sym.sin(x).eval(x=mx.nd.zeros((2, 0)))[0]
        assert out.shape == (2, 0)
        ex = mx.sym.FullyConnected(x, num_hidden=3, name='fc').simple_bind(mx.cpu(), x=(0, 4))
        assert [o.shape for o in ex.forward()] == [(0, 3)]
        with pytest.raises(MXNetError):
            mx.sym.sin(x).simple_bind(mx.cpu(), x=(2, -1))  # an unknown dimension cannot be allocated


def test_legacy_json_loaded_under_np_shape_infers_like_mxnet_test_load_save_symbol():
    w = mx.sym.var('weight', shape=(16, 0))
    legacy = mx.sym.FullyConnected(mx.sym.var('data'), w, num_hidden=16, name='fc').tojson()
    with mx.util.np_shape(True):
        args, outs, aux = mx.sym.load_json(legacy).infer_shape(data=(5, 7))
    assert (args, outs, aux) == ([(5, 7), (16, 7), (16,)], [(5, 16)], [])


def test_gluon_parameter_unknown_dims_under_np_shape():
    with mx.util.np_shape(True):
        dense = mx.gluon.nn.Dense(4)
        assert dense.weight.shape == (4, -1)
        dense.initialize()
        assert dense(mx.nd.zeros((2, 6))).shape == (2, 4) and dense.weight.shape == (4, 6)
