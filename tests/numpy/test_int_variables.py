"""Integer and bool variables (``attach_grad`` on an integer ``mx.np``/``mx.nd`` array) against MXNet 1.9.1: the
gradient buffer's dtype and values after backward passes, per ``grad_req`` (tests/fixtures/np_int_grad)."""
import json
import os
import sys

import pytest

import mxcompat as mx
from tests._fixtures import FIXTURES
from tests.numpy._golden import check_same

_DIR = os.path.join(FIXTURES, 'np_int_grad')
sys.path.insert(0, _DIR)
from np_int_grad_cases import CASES, record_all  # noqa: E402

with open(os.path.join(_DIR, 'np_int_grad.json')) as _f:
    GOLD = json.load(_f)


@pytest.fixture(scope='module')
def ours():
    prev = mx.util.is_np_array()
    try:
        return record_all(mx)
    finally:
        mx.npx.set_np(prev, prev)


@pytest.mark.parametrize('name', sorted(CASES))
def test_case(ours, name):
    check_same(GOLD[name], ours[name])


def test_integer_variable_is_no_torch_leaf():
    a = mx.nd.array([1, 2], dtype='int32')
    a.attach_grad()
    assert not a._t.requires_grad  # (torch's autograd carries floats only: the buffer lives beside it)
    assert a.grad.dtype == __import__('numpy').int32
    with mx.autograd.record():
        b = a * 2
    b.backward()
    assert a.grad.asnumpy().tolist() == [2, 2]
    assert a._fresh_grad


def test_float_results_outside_record_are_plain():
    a = mx.nd.array([1, 2], dtype='int32')
    a.attach_grad()
    b = a * 2
    assert type(b._t) is __import__('torch').Tensor
    with pytest.raises(mx.base.MXNetError):
        b.backward()


def test_mark_variables_integer_buffer():
    a = mx.nd.array([1, 2, 3], dtype='int64')
    g = mx.nd.zeros((3,), dtype='int64')
    mx.autograd.mark_variables([a], [g])
    with mx.autograd.record():
        y = (a * 4).sum()
    y.backward()
    assert g.asnumpy().tolist() == [4, 4, 4]
