"""``mx.np`` on 8x8 float32 arrays: the per-call cost of its functions and operators (add, multiply, exp, sum, dot,
reshape, indexing, creation) beside the same call on torch tensors. Target: at most 1.3x torch. Where mx.np gives a
new array as MXNet does (``reshape``, a slice that is not a contiguous block), the torch twin copies too.

Written once as MXNet code (``mx`` is mxcompat or the real mxnet, with ``npx.set_np()``), so ``python -m benchmarks
--areas numpy --mxnet-python ...`` times real MXNet 1.9.1 too. No torch or mxcompat import at module level (see
``benchmarks/workloads.py``).
"""
import numpy as np

from benchmarks.workloads import workload

SHAPE = (8, 8)

# (name, mx.np step, torch step, what): ``a``/``b`` are the arrays or tensors, ``np`` mx.np or torch
STEPS = (
    ('add', lambda np, a, b: lambda: np.add(a, b), lambda t, a, b: lambda: t.add(a, b), 'np.add(a, b)'),
    ('add_op', lambda np, a, b: lambda: a + b, lambda t, a, b: lambda: a + b, 'a + b'),
    ('multiply', lambda np, a, b: lambda: np.multiply(a, b), lambda t, a, b: lambda: t.mul(a, b),
     'np.multiply(a, b)'),
    ('mul_scalar', lambda np, a, b: lambda: a * 2.0, lambda t, a, b: lambda: a * 2.0, 'a * 2.0'),
    ('exp', lambda np, a, b: lambda: np.exp(a), lambda t, a, b: lambda: t.exp(a), 'np.exp(a)'),
    ('sum', lambda np, a, b: lambda: np.sum(a), lambda t, a, b: lambda: t.sum(a), 'np.sum(a)'),
    ('sum_axis', lambda np, a, b: lambda: a.sum(axis=1), lambda t, a, b: lambda: a.sum(dim=1), 'a.sum(axis=1)'),
    ('dot', lambda np, a, b: lambda: np.dot(a, b), lambda t, a, b: lambda: t.mm(a, b), 'np.dot(a, b)'),
    ('reshape', lambda np, a, b: lambda: a.reshape(4, 16), lambda t, a, b: lambda: a.reshape(4, 16).clone(),
     'a.reshape(4, 16) (a new array, as MXNet\'s)'),
    ('index_int', lambda np, a, b: lambda: a[3], lambda t, a, b: lambda: a[3], 'a[3]'),
    ('index_slice', lambda np, a, b: lambda: a[1:3, 2:], lambda t, a, b: lambda: a[1:3, 2:].clone(),
     'a[1:3, 2:] (a new array, as MXNet\'s for a block that is not contiguous)'),
    ('zeros', lambda np, a, b: lambda: np.zeros((8, 8)), lambda t, a, b: lambda: t.zeros((8, 8)), 'np.zeros((8, 8))'),
    ('array', lambda np, a, b: _from_host(np.array, a.asnumpy()), lambda t, a, b: _from_host(t.tensor, a.numpy()),
     'np.array(host) of a NumPy array (a copy, as torch.tensor makes)'),
)


def _from_host(make, host):
    return lambda: make(host)


def _data():
    rs = np.random.RandomState(0)
    return rs.uniform(-1, 1, SHAPE).astype(np.float32), rs.uniform(-1, 1, SHAPE).astype(np.float32)


def _register(name, mx_step, torch_step, doc):
    @workload('numpy', name=name, target=1.3, doc=doc)
    def setup(mx, size):
        mx.npx.set_np()
        a, b = (mx.np.array(x) for x in _data())
        return mx_step(mx.np, a, b)

    @setup.torch
    def twin(torch, size):
        a, b = (torch.from_numpy(x) for x in _data())
        return torch_step(torch, a, b)


for _step in STEPS:
    _register(*_step)
del _step
