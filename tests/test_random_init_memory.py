"""Where MXNet's CPU samplers put the values a random initializer draws (operator/_mt19937.ParallelRandom.fixed):
a big result is a mapping of its own on huge pages, and an initialized Parameter keeps it as its array."""
import numpy as np

import mxcompat as mx
from mxcompat.operator import _mxrandom

from .test_memory import _vm_flags, linux_only


@linux_only
def test_xavier_weight_is_the_samples_array_on_huge_pages():
    mx.random.seed(7)
    net = mx.gluon.nn.Dense(1000, in_units=2048)  # 8 MB of weight
    net.initialize(mx.init.Xavier())
    t = net.weight.data()._t
    assert t.data_ptr() % (2 << 20) == 0
    assert 'hg' in _vm_flags(t.data_ptr() + t.numel() * t.element_size() // 2)
    # the same values as the sampler's draw with the same seed
    mx.random.seed(7)
    s = np.sqrt(3 / ((2048 + 1000) / 2))
    want = _mxrandom.uniform(2048 * 1000, np.array([-s], np.float32), np.array([s], np.float32),
                             np.dtype(np.float32))
    np.testing.assert_array_equal(net.weight.data().asnumpy().ravel(), want)
    assert not net.bias.data().asnumpy().any()


def test_small_and_raw_draws_stay_ordinary_arrays():
    gen = _mxrandom.ParallelRandom(3)
    raw = gen.fixed(5000, 2)
    assert raw.dtype == np.uint32 and raw.shape == (5000, 2) and raw.flags.writeable
    small = gen.fixed(100, 1, np.float32, np.float32(2.0 ** -32))
    assert small.shape == (100, 1) and ((small >= 0) & (small <= 1)).all()
