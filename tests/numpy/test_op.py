"""mx.np's elementwise functions (mxcompat/numpy/_op.py): the fast paths and the general one agree."""
import numpy as onp
import pytest
import torch

import mxcompat as mx

CALLS = [lambda a, b: a * 2.0, lambda a, b: mx.np.add(a, b), lambda a, b: a + b, lambda a, b: a < b,
         lambda a, b: mx.np.exp(a), lambda a, b: 3 - a, lambda a, b: mx.np.add(a, b, out=b),
         lambda a, b: mx.np.multiply(a, 2, casting='same_kind')]


@pytest.mark.parametrize('call', CALLS)
def test_any_first_call_lets_the_next_take_the_fast_path(call):
    # the fast paths compare the dtype an array caches; whatever path a fresh array's first call takes (a number
    # operand, out=, keywords), it leaves the dtype known, so the next call is as cheap as it can be
    a, b = mx.np.array(onp.ones((2, 2), onp.float32)), mx.np.array([[1., 2.], [3., 4.]])
    assert a._dt is None  # (made from host data: no dtype cached yet)
    call(a, b)
    assert a._dt is torch.float32


@pytest.mark.parametrize('call', CALLS)
def test_fast_and_general_paths_give_the_same_result(call):
    x, y = onp.random.RandomState(0).uniform(-1, 1, (2, 3, 2)).astype(onp.float32)
    first = call(mx.np.array(x), mx.np.array(y))   # (fresh arrays: the general path)
    a, b = mx.np.array(x), mx.np.array(y)
    call(a, b)
    again = call(a, mx.np.array(y))                 # (dtypes known: the fast path where there is one)
    assert type(first) is type(again) and first.dtype == again.dtype
    onp.testing.assert_array_equal(first.asnumpy(), again.asnumpy())
