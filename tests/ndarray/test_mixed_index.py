"""Keys mixing integers with advanced indices (an integer among them is an advanced index too, so separated ones put
their broadcast axes first), read and written through ``mx.nd`` and ``mx.np`` arrays, as real MXNet 1.9.1 does
(tests/fixtures/ndarray/mixed_index.json, written by gen_mixed_index.py, whose cases these run)."""
import json
import os
import sys

import pytest

import mxcompat as mx

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'ndarray')
sys.path.insert(0, FIXTURES)
from gen_mixed_index import ACTIONS, KEYS, numpy_mode, run_case  # noqa: E402

with open(os.path.join(FIXTURES, 'mixed_index.json')) as _fh:
    RECORDED = json.load(_fh)['cases']


@pytest.mark.parametrize('ns', ['nd', 'np'])
@pytest.mark.parametrize('action', ACTIONS)
@pytest.mark.parametrize('key', KEYS)
def test_mixed_index(ns, key, action):
    with numpy_mode(mx, ns):
        got = run_case(mx, ns, key, action)
    assert json.loads(json.dumps(got)) == RECORDED['%s|%s|%s' % (ns, key, action)]
