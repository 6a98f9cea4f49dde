"""The NDArray walk-through of the classic MXNet tutorials, written for MXNet 1.x.

Runs unchanged on real MXNet 1.9.1 and, with `python -m mxcompat compat_examples/ndarray_tour.py`, on mxcompat;
both print the same text (tests/compat_examples/test_ndarray_tour.py checks it against the oracle's output).
"""
import os
import pickle
import sys
import tempfile

import numpy as np
import mxnet as mx

print('== creation ==')
a = mx.nd.zeros((100, 50))
b = mx.nd.ones((256, 32, 128, 1))
c = mx.nd.array([[1, 2, 3], [4, 5, 6]])
print(a.shape, b.shape, c.shape)
print(a.dtype, c.dtype, a.size, b.ndim, c.context)
d = mx.nd.ones((2, 3), ctx=mx.cpu(1), dtype='int32')
print(d)
print(mx.nd.full((2, 3), 7, dtype='float64'))
print(mx.nd.arange(0, 10, 3), mx.nd.eye(2))
print(mx.nd.empty((3, 4), dtype=np.float16).shape)
with mx.cpu(2):
    e = mx.nd.zeros((2,))
print(e.context, mx.context.current_context())

print('== assignment and indexing ==')
b = mx.nd.zeros((2, 3))
b[:] = 2
print(b)
b[1] = np.array([1, 2, 3])
b[0, 1] = 7
print(b)
print(b[1], b[1:2], b[:, 1])
print(b[1:2].asnumpy().tolist())
x = mx.nd.arange(12).reshape((3, 4))
x[1:3, 2] = -1
print(x)

print('== copies and contexts ==')
c = b.copyto(mx.cpu(1))
print(c.context, c)
f = b.as_in_context(mx.cpu(0))
print(f is b)
g = mx.nd.zeros((2, 3))
b.copyto(g)
print(g.asnumpy())
n = b.asnumpy()
print(type(n).__name__, n.dtype, n)
h = mx.nd.array(n)
print(h)

print('== elementwise operations ==')
a = mx.nd.ones((2, 3))
b = mx.nd.ones((2, 3)) * 3
print((a + b).asnumpy(), (a - b).asnumpy())
print((a * b).asnumpy(), (a / b).asnumpy())
print((b ** 2).asnumpy(), (-b).asnumpy(), (2 / b).asnumpy())
print(mx.nd.exp(a), mx.nd.sqrt(b))
print((a == b), (b > a))
i = mx.nd.array([7, -7, 3], dtype='int32')
print(i / 2, i % 3, i * 2.5)
print(mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 2))))
print(a.sum(), b.sum(axis=1), mx.nd.max(b, axis=0))
print(mx.nd.ones((2, 3)).reshape((0, -1)).shape, mx.nd.ones((2, 3, 4)).reshape((-3, -2)).shape,
      mx.nd.ones((2, 3, 4)).reshape((-4, 1, 2, -2)).shape)
print(mx.nd.ones((2, 3)).T)

print('== lazy evaluation and aliasing ==')
a = mx.nd.ones((2, 3))
b = a
c = a.copyto(mx.cpu())
a += 1
b *= 3
c *= 3
print(a.asnumpy())
print(b.asnumpy())
print(c.asnumpy())
mx.nd.waitall()
a.wait_to_read()

print('== pickle ==')
a = mx.nd.ones((2, 3)) * 2
data = pickle.dumps(a)
b = pickle.loads(data)
print(b, b.context)

print('== save and load ==')
tmp = tempfile.mkdtemp()
fname = os.path.join(tmp, 'list.nd')
a = mx.nd.ones((2, 3))
b = mx.nd.arange(4, dtype='int64')
mx.nd.save(fname, [a, b])
loaded = mx.nd.load(fname)
print(type(loaded).__name__, loaded)
fname = os.path.join(tmp, 'dict.nd')
mx.nd.save(fname, {'weight': a, 'bias': mx.nd.array([1.5, 2.5], dtype='float16')})
loaded = mx.nd.load(fname)
print(sorted(loaded.keys()), loaded['weight'], loaded['bias'])
mx.nd.save(fname, a)
print(mx.nd.load(fname))

print('== errors ==')
for expr in ['mx.nd.ones((2, 3)) + mx.nd.ones((3, 2))',
             "mx.nd.ones((2,)) + mx.nd.ones((2,), dtype='int32')"]:
    try:
        eval(expr)
        print(expr, '-> no error')
    except mx.base.MXNetError:
        print(expr, '-> MXNetError')
for expr in ['mx.nd.ones((2, 3)).reshape((5,))', 'mx.nd.ones((2,)).asscalar()', 'bool(mx.nd.ones((2,)))']:
    try:
        eval(expr)
        print(expr, '-> no error')
    except ValueError:
        print(expr, '-> ValueError')
sys.stdout.flush()
