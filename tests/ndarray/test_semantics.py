"""Every expression in tests/fixtures/ndarray/semantics_cases.py gives what real MXNet 1.9.1 gave (semantics.json)."""
import json
import math
import os
import sys

import numpy as np
import pytest

import mxcompat as mx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'ndarray')
sys.path.insert(0, HERE)
from semantics_cases import CASES, STATEMENT_CASES, setup, describe, describe_error  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, 'semantics.json')))['cases']


def _close(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        if math.isnan(a):
            return math.isnan(b)
        return math.isclose(a, b, rel_tol=2e-6, abs_tol=1e-6)
    return a == b


def check(got, want, where):
    assert got['kind'] == want['kind'], '%s: got %s, MXNet gives %s' % (where, got, want)
    kind = want['kind']
    if kind == 'error':
        if want['mxnet_error']:
            assert got['mxnet_error'], '%s: MXNet raises MXNetError, we raise %s' % (where, got)
        assert set(want['bases']) <= set(got['bases']), '%s: MXNet error is a %s, ours: %s (%s)' % (
            where, want['bases'], got['bases'], got['message'])
    elif kind == 'ndarray':
        assert got['shape'] == want['shape'], where
        assert got['dtype'] == want['dtype'], where
        assert got['ctx'] == want['ctx'], where
        assert _close(want['value'], got['value']), '%s: %s != %s' % (where, got['value'], want['value'])
        if want['value'] == got['value']:  # same numbers must print the same way
            assert got['repr'] == want['repr'], where
    elif kind == 'list':
        assert len(got['items']) == len(want['items']), where
        for i, (g, w) in enumerate(zip(got['items'], want['items'])):
            check(g, w, '%s[%d]' % (where, i))
    else:
        assert _close(want.get('value'), got.get('value')) and got.get('type') == want.get('type'), \
            '%s: got %s, MXNet gives %s' % (where, got, want)


@pytest.mark.parametrize('expr', CASES)
def test_expression(expr):
    env = dict(setup(mx, np), mx=mx, np=np)
    try:
        got = describe(mx, np, eval(expr, env))
    except Exception as e:  # noqa: BLE001 -- the error kind itself is compared
        got = describe_error(mx, e)
    check(got, GOLDEN[expr], expr)


@pytest.mark.parametrize('name', sorted(STATEMENT_CASES))
def test_statements(name):
    got = describe(mx, np, STATEMENT_CASES[name](mx, np, setup(mx, np)))
    check(got, GOLDEN['<%s>' % name], name)
