"""mx.test_utils tolerances and default context, against MXNet 1.9.1 (golden: tests/fixtures/test_utils)."""
import json
import os

import numpy as np

import mxcompat as mx
from mxcompat import test_utils as tu

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'test_utils',
                               'test_utils.json')))


def test_get_tols_match_mxnet():
    dts = ['float16', 'float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'bool']
    for x in dts:
        for y in dts:
            assert list(tu.get_tols(np.zeros(2, x), np.zeros(2, y), None, None)) == GOLD['tols']['%s,%s' % (x, y)]
    assert list(tu.get_tols(mx.nd.zeros((2,)), 3, None, None)) == GOLD['tols']['nd_f32,3']
    assert list(tu.get_tols(1, 2.0, None, None)) == GOLD['tols']['1,2.0']
    assert list(tu.get_tols(np.zeros(2, 'float16'), np.zeros(2), 0.5,
                            {np.dtype(np.float16): 0.25})) == GOLD['tols']['given']
    assert tu.get_tols(np.zeros(2, 'int16'), np.zeros(2, 'int16'), None, None) == (0, 0)  # MXNet: KeyError


def test_default_tolerances_match_mxnet():
    m = GOLD['misc']
    assert {str(k): v for k, v in tu.default_rtols().items()} == m['default_rtols']
    assert {str(k): v for k, v in tu.default_atols().items()} == m['default_atols']
    assert {str(k): v for k, v in tu.default_numeric_eps().items()} == m['default_numeric_eps']
    assert [tu.get_rtol(), tu.get_atol(), tu.get_etol(), tu.get_rtol(None, np.dtype(np.float16))] == \
        m['get_rtol_atol_etol']
    assert [tu.get_rtol(0.3), tu.get_atol(0.2), tu.get_etol(0.1)] == [0.3, 0.2, 0.1]
    assert tu.effective_dtype(mx.nd.zeros((1,), dtype='float16')) == np.float16
    assert tu.effective_dtype(np.zeros(1)) == np.float64
    assert tu.get_tolerance(np.zeros(1, np.float32), 0.7, tu.default_rtols()) == 0.7
    assert tu.default_dtype() is np.float32


def test_default_context_follows_current_context():
    assert tu.default_context() == mx.current_context()
    with mx.cpu(3):
        assert tu.default_context() == mx.cpu(3)
    old = mx.current_context()
    try:
        tu.set_default_context(mx.cpu(1))
        assert tu.default_context() == mx.cpu(1) and mx.current_context() == mx.cpu(1)
    finally:
        tu.set_default_context(old)
