"""A walk through MXNet's KVStore (the classic "Distributed Key-Value Store" tutorial and more), for MXNet 1.x.

Runs unchanged on real MXNet 1.9.1 and, with `python -m mxcompat compat_examples/kvstore_tour.py`, on mxcompat;
both print the same text (tests/kvstore/test_kvstore_tour.py checks it against the oracle's output).
Devices are cpu(0..3): each stands for one GPU of a multi-device machine.
"""
import os
import pickle
import tempfile

import mxnet as mx


def vals(arr):
    return [round(v, 5) for v in arr.asnumpy().ravel().tolist()]


def first(arrs):
    return [round(float(a.asnumpy().ravel()[0]), 5) for a in arrs]


def show_error(label, fn, *needles, generic=False):
    """Print which kind of error ``fn`` raises and whether its message holds each needle. ``generic``: only
    say that it is an Exception (MXNet raises a bare Exception there; mxcompat an MXNetError, which is one)."""
    try:
        fn()
        print(label, 'no error')
    except Exception as e:  # noqa: BLE001 (the tour prints which error)
        kind = 'Exception' if generic else 'AssertionError' if isinstance(e, AssertionError) else \
            'MXNetError' if isinstance(e, mx.base.MXNetError) else type(e).__name__
        print(label, kind, [n in str(e) for n in needles])


print('== create ==')
kv = mx.kv.create('local')
print(kv.type, kv.rank, kv.num_workers, kv.is_capable('optimizer'), kv.is_capable('OPTIMIZER'))
for name in ['device', 'local_allreduce_cpu', 'local_update_cpu', 'local_allreduce_device', 'Local']:
    print(name, '->', mx.kv.create(name).type)

print('== init, push, pull ==')
shape = (2, 3)
kv.init(3, mx.nd.ones(shape) * 2)
a = mx.nd.zeros(shape)
kv.pull(3, out=a)
print(vals(a))
kv.push(3, mx.nd.ones(shape) * 8)
kv.pull(3, out=a)
print(vals(a))

print('== values from several devices are summed ==')
devs = [mx.cpu(i) for i in range(4)]
kv.push(3, [mx.nd.ones(shape, d) * (i + 1) for i, d in enumerate(devs)])
outs = [mx.nd.zeros(shape, d) for d in devs]
kv.pull(3, out=outs)
print(first(outs), [o.context for o in outs])

print('== lists of keys ==')
keys = [5, 7, 9]
kv.init(keys, [mx.nd.ones(shape)] * len(keys))
kv.push(keys, [[mx.nd.ones(shape, d) * (i + 1) for d in devs] for i in range(len(keys))])
outs = [[mx.nd.zeros(shape, d) for d in devs] for _ in keys]
kv.pull(keys, out=outs)
print([first(row) for row in outs])
kv.push([5, 5, 7], [mx.nd.ones(shape), mx.nd.ones(shape) * 3, mx.nd.ones(shape) * 10])
kv.pull([5, 7], out=[a, outs[0]])
print(vals(a), first(outs[0]))

print('== string keys ==')
kvs = mx.kv.create()
kvs.init(['w', 'b'], [mx.nd.ones(shape), mx.nd.zeros((3,))])
kvs.push('w', [mx.nd.ones(shape) * i for i in range(1, 4)])
kvs.pull('w', out=a)
print(vals(a))
bias = mx.nd.ones((3,))
kvs.pull(['b', 'w'], out=[bias, a])
print(vals(bias), vals(a))


print('== custom updater ==')
def update(key, recv, stored):
    print('  update key', repr(key), 'recv', vals(recv)[0], 'stored', vals(stored)[0])
    stored += recv * 2


kv._set_updater(update)
kv.push(3, mx.nd.ones(shape))
kv.pull(3, out=a)
print(vals(a))
kv.push([9, 5, 7], [[mx.nd.ones(shape)] * 2, mx.nd.ones(shape), mx.nd.ones(shape) * 3])
kvs._set_updater(update)
kvs.push(['b', 'w'], [mx.nd.ones((3,)), mx.nd.ones(shape)])
kvs.pull('w', out=a)
print(vals(a))

print('== optimizer on the store ==')
kvo = mx.kv.create('local')
kvo.init([0, 1], [mx.nd.ones(shape), mx.nd.ones((3,))])
kvo.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.001, rescale_grad=0.5))
w0, w1 = mx.nd.zeros(shape), mx.nd.zeros((3,))
for step in range(3):
    kvo.push([0, 1], [[mx.nd.ones(shape) * 0.5] * 2, mx.nd.ones((3,)) * (step + 1)])
    kvo.pull([0, 1], out=[w0, w1])
    print(step, vals(w0)[0], vals(w1))
tmp = tempfile.mkdtemp()
fname = os.path.join(tmp, 'kv.states')
kvo.save_optimizer_states(fname)
with open(fname, 'rb') as f:
    states = pickle.load(f)
print(sorted(states), type(states[0]).__name__, vals(states[0])[0], vals(states[1]))
kvo.save_optimizer_states(fname + '2', dump_optimizer=True)
with open(fname + '2', 'rb') as f:
    states, opt = pickle.load(f)
print(type(opt).__name__, opt.lr, opt.momentum, opt.wd, opt.rescale_grad)
kvo.push([0, 1], [mx.nd.ones(shape), mx.nd.ones((3,))])
kvo.load_optimizer_states(fname)
kvo.push([0, 1], [mx.nd.ones(shape), mx.nd.ones((3,))])
kvo.pull([0, 1], out=[w0, w1])
print(vals(w0)[0], vals(w1))

print('== pushpull and broadcast ==')
kvd = mx.kv.create('device')
w = [mx.nd.zeros(shape, d) for d in devs]
kvd.broadcast('x', mx.nd.ones(shape) * 3, out=w)
print(first(w))
g = [mx.nd.ones(shape, d) * (i + 1) for i, d in enumerate(devs)]
kvd.pushpull('x', g, out=w)
print(first(w))
kvd.pushpull('x', g)
print(first(g))
kvd.broadcast(['y', 'z'], [mx.nd.ones(shape), mx.nd.ones((3,)) * 4], out=[w, [bias]])
print(first(w), vals(bias))

print('== a single pushed array is kept by reference ==')
kvr = mx.kv.create('local')
kvr.init(0, mx.nd.zeros(shape))
grad = mx.nd.ones(shape)
kvr.push(0, grad)
grad[:] = 7
kvr.pull(0, out=a)
print(vals(a)[0])

print('== 2-bit gradient compression ==')
kvc = mx.kv.create('device')
kvc.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
kvc.init(0, mx.nd.zeros(shape))
for step in range(3):
    kvc.push(0, [mx.nd.array([[0.3, -0.6, 0.2], [1.7, -0.25, 0.05]], ctx=d) * (i + 1) for i, d in enumerate(devs[:2])])
    kvc.pull(0, out=a)
    print(step, vals(a))
kvc2 = mx.kv.create('local_allreduce_device')
kvc2.set_gradient_compression({'type': '2bit', 'threshold': 1})
kvc2.init('k', mx.nd.zeros((4,)))
out4 = mx.nd.zeros((4,))
for step in range(2):
    kvc2.pushpull('k', mx.nd.array([0.5, 1.5, -2.5, -0.9]), out=out4)
    print(step, vals(out4))

print('== errors ==')
show_error('init twice:', lambda: kv.init(3, mx.nd.zeros(shape)), 'duplicate init of key 3')
show_error('str key on an int store:', lambda: kv.push('a', mx.nd.zeros(shape)), 'Mixed key types are not allowed')
show_error('int key on a str store:', lambda: kvs.init(1, mx.nd.zeros(shape)), 'Mixed key types are not allowed')
show_error('pull of an unknown key:', lambda: kv.pull(11, out=a), 'key 11 has not been inited')
show_error('unknown str key:', lambda: kvs.push('zz', a), "key zz doesn't exist. Did you init?")
show_error('mixed key types in a list:', lambda: kvs.push(['w', 1], [a, a]), 'inconsistent types of keys')
show_error('pull without out:', lambda: kv.pull(3))
show_error('float key:', lambda: kv.push(1.5, a), 'unexpected type for keys')
show_error('unknown capability:', lambda: kv.is_capable('foo'), 'Unknown capability: foo')
show_error('name not a string:', lambda: mx.kv.create(3), 'name must be a string')
show_error('compression on local:', lambda: mx.kv.create('local').set_gradient_compression({'type': '2bit'}),
           'Gradient compression is not supported for this type of kvstore', generic=True)
show_error('unknown compression:', lambda: kvd.set_gradient_compression({'type': '1bit'}),
           'Unknown type for gradient compression 1bit')
show_error('threshold <= 0:', lambda: kvd.set_gradient_compression({'type': '2bit', 'threshold': 0}),
           'threshold must be greater than 0')
show_error('no compression type:', lambda: kvd.set_gradient_compression({'threshold': 1}),
           'Required parameter type of string is not presented')
show_error('save without optimizer:', lambda: kvd.save_optimizer_states(fname),
           'Cannot save states for distributed training')
show_error('row_sparse_pull into dense:', lambda: kv.row_sparse_pull(3, out=a, row_ids=mx.nd.array([0])),
           'Expected row_sparse storage type for row_sparse_pull values')

print('== custom stores ==')


@mx.kv.KVStoreBase.register
class TourStore(mx.kv.KVStoreBase):
    """Copies rank 0's value on broadcast; pushpull averages."""

    def broadcast(self, key, value, out, priority=0):
        for o in (out if isinstance(out, list) else [out]):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        total = sum(v.as_in_context(value[0].context) for v in value)
        for o in (value if out is None else out):
            o[:] = total / len(value)

    @property
    def type(self):
        return 'tourstore'


ts = mx.kv.create('TourStore')
print(type(ts).__name__, ts.type, sorted(k for k in mx.kv.KVStoreBase.kv_registry if k in ('tourstore', 'teststore')))
g = [mx.nd.ones(shape, d) * (i + 1) for i, d in enumerate(devs)]
ts.pushpull('g', g)
print(first(g))
t = mx.kv.create('teststore')
arrs = [mx.nd.empty((1,))] * 2
t.pushpull(1, [mx.nd.ones((1,))] * 2, out=arrs)
print(t.type, first(arrs), type(t).is_capable('optimizer'), t.rank, t.num_workers)
show_error('teststore set_optimizer:', lambda: t.set_optimizer(mx.optimizer.SGD()))
