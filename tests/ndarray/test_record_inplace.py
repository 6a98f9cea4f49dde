"""Writes into arrays inside autograd.record() (x[key] = v, x += v, for mx.nd and mx.np) are refused or recorded as
real MXNet 1.9.1 does, and a variable's values written outside it join no graph
(tests/fixtures/ndarray/record_inplace.json, from record_inplace_cases.py)."""
import json
import os
import sys

import pytest

import mxcompat as mx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'ndarray')
sys.path.insert(0, HERE)
from record_inplace_cases import KINDS, OUTSIDE, STATEMENTS, run_case, run_outside_case  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, 'record_inplace.json')))['cases']


@pytest.mark.parametrize('ns', ['nd', 'np'])
@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('stmt', STATEMENTS)
def test_write_under_record(ns, kind, stmt):
    if ns == 'np':
        mx.npx.set_np()
    try:
        got = run_case(mx, ns, kind, stmt)
    finally:
        if ns == 'np':
            mx.npx.reset_np()
    assert json.loads(json.dumps(got)) == GOLDEN['%s|%s|%s' % (ns, kind, stmt)]


@pytest.mark.parametrize('ns', ['nd', 'np'])
@pytest.mark.parametrize('stmt', OUTSIDE)
def test_write_outside_record_joins_no_graph(ns, stmt):
    if ns == 'np':
        mx.npx.set_np()
    try:
        got = run_outside_case(mx, ns, stmt)
    finally:
        if ns == 'np':
            mx.npx.reset_np()
    assert json.loads(json.dumps(got)) == GOLDEN['%s|outside|%s' % (ns, stmt)]


def test_refusal_is_mxnet_error():
    # (MXNet 1.9.1 has written the data when it raises; mxcompat raises before writing)
    x = mx.nd.ones((2, 3))
    y = mx.nd.ones((2, 3))
    y.attach_grad()
    with pytest.raises(mx.base.MXNetError, match=r'Inplace operations \(\+=, -=, x\[:\]=, etc\) are not supported'):
        with mx.autograd.record():
            x[0] = y[0] * 2


def test_writes_outside_record_and_under_pause_pass():
    x = mx.nd.ones((2, 3))
    x.attach_grad()
    x[0] = 5
    with mx.autograd.record():
        with mx.autograd.pause():
            x += 1
    assert x.asnumpy().tolist() == [[6, 6, 6], [2, 2, 2]]


def test_integer_np_array_takes_a_whole_recorded_copy():
    mx.npx.set_np()
    try:
        x = mx.np.zeros((2, 3), dtype='int32')
        y = mx.np.ones((2, 3)) * 2.5
        y.attach_grad()
        with mx.autograd.record():
            x[:] = y
        x.backward()
        assert x.asnumpy().tolist() == [[2] * 3] * 2 and (y.grad.asnumpy() == 1).all()
        with pytest.raises(mx.base.MXNetError, match='Inplace operations'):
            with mx.autograd.record():
                mx.np.zeros((2, 3), dtype='int32')[0] = y[0]
    finally:
        mx.npx.reset_np()


def test_negative_step_assignment_drops_leading_size1_axes():
    # (values from real MXNet 1.9.1; a value with more leading size-1 axes than the indexed view broadcasts)
    x = mx.nd.zeros((3, 4))
    x[::-1, 1:3] = mx.nd.array([[[1, 2]]])
    assert x.asnumpy().tolist() == [[0, 1, 2, 0]] * 3
    x = mx.nd.zeros((3, 4))
    x[::-2, 1] = mx.nd.array([[5, 6]])
    assert x.asnumpy().tolist() == [[0, 6, 0, 0], [0, 0, 0, 0], [0, 5, 0, 0]]
