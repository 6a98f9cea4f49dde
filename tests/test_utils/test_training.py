"""mx.test_utils optimizer and Gluon consistency helpers, with stand-in optimizers and blocks."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat import test_utils as tu

class _SGD:
    def __init__(self, lr, scale=1.0):
        self.lr, self.scale = lr, scale

    def create_state_multi_precision(self, index, weight):
        return mx.nd.zeros(weight.shape, dtype=weight.dtype)

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, list):
            for w, g, s in zip(weight, grad, state):
                self.update_multi_precision(0, w, g, s)
            return
        state[:] = grad * self.scale
        weight[:] = weight - self.lr * state


def test_compare_optimizer():
    tu.compare_optimizer(_SGD(0.1), _SGD(0.1), (3, 4), np.float32)
    tu.compare_optimizer(_SGD(0.1), _SGD(0.1), [(3,), (2, 2)], np.float32, ntensors=2)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(_SGD(0.1), _SGD(0.1, scale=2.0), (3, 4), np.float32)
    tu.compare_optimizer(_SGD(0.1), _SGD(0.1), (3, 4), np.float32, w_stype='row_sparse')


class _Param:
    def __init__(self, value):
        self._v = value

    def data(self):
        return self._v


class _ScaleNet:
    """A one-parameter 'HybridBlock': y = x * w; hybridize() must not change anything."""

    def __init__(self, prefix=''):
        self.w = mx.nd.zeros((3,))
        self.prefix = prefix

    def initialize(self, init=None):
        if init is None:
            self.w[:] = np.random.uniform(size=3)
        else:
            init._init_weight(self.prefix + 'w', self.w)

    def hybridize(self):
        pass

    def collect_params(self):
        return {self.prefix + 'w': _Param(self.w)}

    def __call__(self, x):
        return x * self.w


def test_check_gluon_hybridize_consistency():
    data = [mx.nd.array([1., 2., 3.])]
    nets = []

    def builder(prefix):
        nets.append(_ScaleNet(prefix))
        return nets[-1]

    np.random.seed(0)
    tu.check_gluon_hybridize_consistency(builder, data, numpy_func=lambda x: x * nets[0].w.asnumpy())
    assert len(nets) == 4
    assert all(np.array_equal(n.w.asnumpy(), nets[0].w.asnumpy()) for n in nets)  # all got the first's weights
    with pytest.raises(AssertionError):
        tu.check_gluon_hybridize_consistency(builder, data, numpy_func=lambda x: x)
