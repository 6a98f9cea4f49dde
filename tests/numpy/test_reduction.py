"""mx.np's reductions (mxcompat/numpy/_reduction.py) against MXNet 1.9.1."""
import numpy as onp
import pytest

import mxcompat as mx

X = [[1, 3, 3, 2], [5, 5, 0, 5]]
# max/min gradients: MXNet 1.9.1 gives every element equal to the result the whole head gradient (as mx.nd.max
# does); torch's amax would split it among the ties. Gradients of MXNet 1.9.1 for a head of ones.
TIES = [
    ('max axis=1', lambda x: mx.np.max(x, axis=1), X, [[0, 1, 1, 0], [1, 1, 0, 1]]),
    ('max all', lambda x: mx.np.max(x), [[1, 3, 3, 2], [3, 0, 0, 3]], [[0, 1, 1, 0], [1, 0, 0, 1]]),
    ('amax keepdims', lambda x: mx.np.amax(x, axis=0, keepdims=True), [[1, 3], [1, 2]], [[1, 1], [1, 0]]),
    ('max axes', lambda x: mx.np.max(x, axis=(0, 1)), X, [[0, 0, 0, 0], [1, 1, 0, 1]]),
    ('min axis=1', lambda x: mx.np.min(x, axis=1), X, [[1, 0, 0, 0], [0, 0, 1, 0]]),
    ('method max', lambda x: x.max(axis=1), X, [[0, 1, 1, 0], [1, 1, 0, 1]]),
    ('method min all', lambda x: x.min(), [[1, 1, 0, 2], [0, 3, 4, 5]], [[0, 0, 1, 0], [1, 0, 0, 0]]),
]


@pytest.mark.parametrize('call,data,grad', [t[1:] for t in TIES], ids=[t[0] for t in TIES])
def test_max_min_gradient_goes_in_full_to_every_tie(ctx, call, data, grad):
    for _ in range(2):  # (a fresh array's first call and the fast path of the next)
        x = mx.np.array(onp.array(data, onp.float32), ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = call(x)
        y.backward()
        onp.testing.assert_array_equal(x.grad.asnumpy(), grad)


def test_max_without_recording_is_the_plain_reduction():
    x = mx.np.array(onp.array(X, onp.float32))
    x.attach_grad()
    onp.testing.assert_array_equal(mx.np.max(x, axis=1).asnumpy(), [3, 5])
    onp.testing.assert_array_equal(mx.np.min(x).asnumpy(), 0)
