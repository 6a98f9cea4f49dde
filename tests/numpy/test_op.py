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


def test_fast_path_results_of_a_freed_graph_become_constants():
    # an RNN state made by mx.np's fast paths (dot, a product by a number, add, tanh, negative), carried into the next
    # recording after a backward freed its graph: a constant there, as in MXNet. Values of MXNet 1.9.1.
    mx.npx.set_np()
    try:
        W = mx.np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9]])
        b = mx.np.array([0.1, 0.2, 0.3])
        W.attach_grad()
        b.attach_grad()
        H = mx.np.ones((2, 3))
        got = []
        for _ in range(3):
            with mx.autograd.record():
                H = mx.np.tanh(mx.np.dot(H, W) * 0.5 + b)
                G = -H
                loss = (G * G).sum()
            loss.backward()
            got.append((float(loss), b.grad.asnumpy()))
        for (loss, bg), (want_l, want_bg) in zip(got, [
                (1.3836729526519775, [2.9802322387695312e-08, 1.5156834125518799, 1.5286102294921875]),
                (0.7673477530479431, [0.15593227744102478, 1.5160353183746338, 1.1958978176116943]),
                (0.5580946207046509, [0.3463396728038788, 1.4029139280319214, 1.072549819946289])]):
            assert loss == pytest.approx(want_l, rel=1e-6)
            onp.testing.assert_allclose(bg, want_bg, rtol=1e-5, atol=1e-7)
    finally:
        mx.npx.reset_np()
