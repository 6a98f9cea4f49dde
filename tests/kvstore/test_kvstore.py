"""Single-process KVStore semantics (MXNet 1.9.1's tests/python/unittest/test_kvstore*.py cover the same ground),
checked against numpy and against goldens recorded from real MXNet (tests/fixtures/kvstore/gen_kvstore.py)."""
import json
import os
import pickle

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError
from mxcompat.ndarray.ndarray import NDArray

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'kvstore')
GOLD = json.load(open(os.path.join(FIX, 'kvstore.json')))
SHAPE = (4, 4)
KEYS = [5, 7, 11]
STR_KEYS = ['b', 'c', 'd']
DEVS = [mx.cpu(i) for i in range(4)]


def init_kv(name='local', str_keys=False):
    kv = mx.kv.create(name)
    if str_keys:
        kv.init('a', mx.nd.zeros(SHAPE))
        kv.init(STR_KEYS, [mx.nd.zeros(SHAPE)] * len(STR_KEYS))
    else:
        kv.init(3, mx.nd.zeros(SHAPE))
        kv.init(KEYS, [mx.nd.zeros(SHAPE)] * len(KEYS))
    return kv


def pulled(kv, key, shape=SHAPE, dtype='float32'):
    out = mx.nd.zeros(shape, dtype=dtype)
    kv.pull(key, out=out)
    return out.asnumpy()


def assert_all(arr, value):
    arr = arr.asnumpy() if isinstance(arr, NDArray) else arr
    assert np.all(arr == value), (arr, value)


# -- create ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('name', ['local', 'device', 'nccl', 'local_update_cpu', 'local_allreduce_cpu',
                                  'local_allreduce_device', 'LOCAL', 'anything_else'])
def test_create_local_types(name):
    kv = mx.kv.create(name)
    assert isinstance(kv, mx.kv.KVStore) and isinstance(kv, mx.kv.KVStoreBase)
    assert kv.type == name.lower()
    assert (kv.rank, kv.num_workers) == (0, 1)
    assert kv.is_capable('optimizer') and kv.is_capable(mx.kv.KVStoreBase.OPTIMIZER.upper())


def test_create_default_and_errors():
    assert mx.kv.create().type == 'local'
    assert mx.kvstore is mx.kv
    with pytest.raises(TypeError, match='name must be a string'):
        mx.kv.create(3)
    with pytest.raises(ValueError, match='Unknown capability: foo'):
        mx.kv.create().is_capable('foo')


@pytest.mark.parametrize('name', ['dist_sync', 'dist_device_sync', 'dist_sync_device', 'horovod', 'byteps'])
def test_create_dist_types_single_process(name, monkeypatch):
    monkeypatch.delenv('WORLD_SIZE', raising=False)
    from mxcompat.kvstore.dist import DistKVStore
    kv = mx.kv.create(name)
    assert isinstance(kv, DistKVStore) and kv.type == name
    assert (kv.rank, kv.num_workers) == (0, 1)


def test_dist_async_warns_and_is_synchronous(monkeypatch):
    monkeypatch.delenv('WORLD_SIZE', raising=False)
    from mxcompat.kvstore import dist
    monkeypatch.setattr(dist, '_warned', set())
    with pytest.warns(UserWarning, match='runs synchronously'):
        kv = mx.kv.create('dist_async')
    kv.init(0, mx.nd.zeros(SHAPE))
    kv.push(0, [mx.nd.ones(SHAPE)] * 3)
    assert_all(pulled(kv, 0), 3)


def test_dist_store_needs_torchrun_environment(monkeypatch):
    monkeypatch.setenv('WORLD_SIZE', '2')
    for var in ('RANK', 'MASTER_ADDR', 'MASTER_PORT'):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(MXNetError, match='torchrun'):
        mx.kv.create('dist_sync')


def test_register_custom_store_and_teststore():
    @mx.kv.KVStoreBase.register
    class MyKVStoreForTest(mx.kv.KVStoreBase):
        @property
        def type(self):
            return 'mine'
    kv = mx.kv.create('MyKVStoreForTest')
    assert type(kv) is MyKVStoreForTest and kv.type == 'mine'
    with pytest.warns(UserWarning, match='overriding existing kvstore'):
        mx.kv.KVStoreBase.register(MyKVStoreForTest)
    with pytest.raises(NotImplementedError):
        kv.pushpull(0, mx.nd.ones((1,)))
    del mx.kv.KVStoreBase.kv_registry['mykvstorefortest']

    ts = mx.kv.create('teststore')
    assert ts.type == 'teststore' and (ts.rank, ts.num_workers) == (0, 1)
    assert type(ts).is_capable('optimizer') is False
    out = mx.nd.empty((1,))
    ts.broadcast(1, mx.nd.ones((1,)), out=out)
    assert_all(out, 1)
    arrs = [mx.nd.empty((1,))] * 2
    ts.pushpull(1, [mx.nd.ones((1,))] * 2, out=arrs)
    assert_all(arrs[0], 2)
    ts.pushpull(1, arrs)
    assert_all(arrs[1], 4)
    for call in (lambda: ts.set_optimizer(None), lambda: ts.save_optimizer_states('x'),
                 lambda: ts.load_optimizer_states('x')):
        with pytest.raises(NotImplementedError):
            call()


# -- init / push / pull --------------------------------------------------------------------------------------------
@pytest.mark.parametrize('str_keys', [False, True])
def test_single_and_list_push_pull(str_keys):
    kv = init_kv(str_keys=str_keys)
    key, keys = ('a', STR_KEYS) if str_keys else (3, KEYS)
    kv.push(key, mx.nd.ones(SHAPE))
    assert_all(pulled(kv, key), 1)
    kv.push(keys, [mx.nd.ones(SHAPE) * 4] * len(keys))
    outs = [mx.nd.empty(SHAPE) for _ in keys]
    kv.pull(keys, out=outs)
    for o in outs:
        assert_all(o, 4)
    kv.init(tuple(k + 'x' if str_keys else k + 100 for k in keys), (mx.nd.ones(SHAPE),) * len(keys))


def test_init_copies_value_and_keeps_dtype():
    kv = mx.kv.create()
    v = mx.nd.ones((2, 3), dtype='float16') * 3
    kv.init(0, v)
    v[:] = 9
    out = mx.nd.zeros((2, 3), dtype='float16')
    kv.pull(0, out=out)
    assert out.dtype == np.float16
    assert_all(out, 3)


@pytest.mark.parametrize('str_keys', [False, True])
def test_aggregate_over_devices(str_keys):
    kv = init_kv(str_keys=str_keys)
    key, keys = ('a', STR_KEYS) if str_keys else (3, KEYS)
    kv.push(key, [mx.nd.ones(SHAPE, d) * (i + 1) for i, d in enumerate(DEVS)])
    outs = [mx.nd.empty(SHAPE, d) for d in DEVS]
    kv.pull(key, out=outs)
    for o, d in zip(outs, DEVS):
        assert o.context == d
        assert_all(o, 10)
    vals = [[mx.nd.ones(SHAPE, d) * 2.0 for d in DEVS]] * len(keys)
    outs = [[mx.nd.empty(SHAPE, d) for d in DEVS]] * len(keys)
    kv.push(keys, vals)
    kv.pull(keys, out=outs)
    for row in outs:
        for o in row:
            assert_all(o, 8)


def test_sum_matches_numpy_and_store_assigns():
    rng = np.random.RandomState(1)
    kv = mx.kv.create('device')
    kv.init('g', mx.nd.zeros((3, 5)))
    for _ in range(2):  # without an updater the store holds the last sum, not a running total
        arrs = rng.randn(4, 3, 5).astype(np.float32)
        kv.push('g', [mx.nd.array(a, ctx=d) for a, d in zip(arrs, DEVS)])
        np.testing.assert_allclose(pulled(kv, 'g', (3, 5)), arrs.sum(0), rtol=1e-6, atol=1e-6)


def test_mixed_dtypes_merge_into_the_init_dtype():
    kv = mx.kv.create()
    kv.init(0, mx.nd.zeros((2,), dtype='float16'))
    seen = []
    kv._set_updater(lambda k, recv, stored: seen.append((recv.dtype, stored.dtype)))
    kv.push(0, [mx.nd.ones((2,), dtype='float32'), mx.nd.ones((2,), dtype='float16')])
    assert seen == [(np.float16, np.float16)]


def test_duplicate_keys_in_one_push_are_summed():
    kv = mx.kv.create()
    kv.init([1, 2], [mx.nd.zeros(SHAPE)] * 2)
    kv.push([2, 1, 2], [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE) * 5, mx.nd.ones(SHAPE) * 3])
    assert_all(pulled(kv, 2), 4)
    assert_all(pulled(kv, 1), 5)


def test_single_pushed_array_is_kept_by_reference_as_in_mxnet():
    kv = mx.kv.create()
    kv.init(0, mx.nd.zeros(SHAPE))
    grad = mx.nd.ones(SHAPE)
    kv.push(0, grad)
    grad[:] = 7
    assert_all(pulled(kv, 0), 7)
    grads = [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE)]
    kv.push(0, grads)  # several values: the store keeps its own sum
    grads[0][:] = 7
    assert_all(pulled(kv, 0), 2)


def test_empty_key_lists_are_no_ops():
    kv = mx.kv.create()
    kv.init(0, mx.nd.ones(SHAPE))
    assert kv.push([], []) is None and kv.pull([], out=[]) is None and kv.init([], []) is None
    assert_all(pulled(kv, 0), 1)


# -- pushpull / broadcast ------------------------------------------------------------------------------------------
@pytest.mark.parametrize('name', ['device', 'local'])
@pytest.mark.parametrize('key,keys', [(3, KEYS), ('a', STR_KEYS)])
def test_pushpull(name, key, keys):
    kv = mx.kv.create(name)
    kv.broadcast(key, mx.nd.zeros(SHAPE), out=mx.nd.empty(SHAPE))
    vals = [mx.nd.ones(SHAPE, d) for d in DEVS]
    outs = [mx.nd.empty(SHAPE, d) for d in DEVS]
    kv.pushpull(key, vals, out=outs)
    for o in outs:
        assert_all(o, 4)
    kv.pushpull(key, vals)
    for v in vals:
        assert_all(v, 4)
    kv.broadcast(keys, [mx.nd.zeros(SHAPE)] * len(keys), out=[mx.nd.empty(SHAPE)] * len(keys))
    vals = [[mx.nd.ones(SHAPE, d) * 2.0 for d in DEVS]] * len(keys)
    outs = [[mx.nd.empty(SHAPE, d) for d in DEVS]] * len(keys)
    kv.pushpull(keys, vals, out=outs)
    for row in outs:
        for o in row:
            assert_all(o, 8)


def test_broadcast():
    kv = mx.kv.create('device')
    outs = [mx.nd.empty(SHAPE)] * 3
    kv.broadcast(3, mx.nd.ones(SHAPE) * 2, outs)
    for o in outs:
        assert_all(o, 2)
    kv.broadcast([4, 5], [mx.nd.ones(SHAPE), mx.nd.ones((2,))], out=[[mx.nd.empty(SHAPE)] * 2, mx.nd.empty((2,))])
    with pytest.raises(MXNetError, match='duplicate init of key 3'):
        kv.broadcast(3, mx.nd.ones(SHAPE), mx.nd.empty(SHAPE))
    with pytest.raises(MXNetError, match='duplicate init of key 9'):  # one key, several values: inits twice
        kv.broadcast(9, [mx.nd.ones(SHAPE)] * 2, mx.nd.empty(SHAPE))
    with pytest.raises(MXNetError, match='has not been inited'):
        kv.pull(9, out=mx.nd.empty(SHAPE))


# -- errors ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('str_keys', [False, True])
def test_key_type_errors(str_keys):
    kv = init_kv(str_keys=str_keys)
    key, keys = (3, KEYS) if str_keys else ('a', STR_KEYS)  # the other kind
    val = mx.nd.ones(SHAPE)
    for call in (lambda: kv.init(key, val), lambda: kv.push(key, val), lambda: kv.pull(key, val),
                 lambda: kv.init(keys, [val] * 3), lambda: kv.push(keys, [val] * 3), lambda: kv.pull(keys, [val] * 3),
                 lambda: kv.pushpull(key, val), lambda: kv.row_sparse_pull(key, val, row_ids=mx.nd.array([1]))):
        with pytest.raises(MXNetError, match='Mixed key types are not allowed'):
            call()


def test_argument_errors_are_assertions():
    kv = init_kv()
    val = mx.nd.ones(SHAPE)
    cases = [(lambda: kv.push([3, 'a'], [val, val]), 'inconsistent types of keys detected'),
             (lambda: kv.pull(3), None),
             (lambda: kv.push(1.5, val), "unexpected type for keys: <class 'float'>"),
             (lambda: kv.push(np.int64(3), val), 'unexpected type for keys'),
             (lambda: kv.push([3, 5], [val]), None),
             (lambda: kv.push(3, np.ones(SHAPE)), None),
             (lambda: kv.row_sparse_pull(3, out=val), None),
             (lambda: kv.save_optimizer_states('x'), 'Cannot save states for distributed training'),
             (lambda: kv.load_optimizer_states('x'), 'Cannot load states for distributed training')]
    for call, msg in cases:
        with pytest.raises(AssertionError, match=msg):
            call()
        with pytest.raises(MXNetError):
            call()


def test_init_push_pull_errors():
    kv = init_kv()
    with pytest.raises(MXNetError, match='duplicate init of key 3'):
        kv.init(3, mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match='duplicate init of key 20'):
        kv.init([20, 20], [mx.nd.zeros(SHAPE)] * 2)
    with pytest.raises(MXNetError, match='has not been inited'):
        pulled(kv, 20)  # the failed init left nothing behind
    with pytest.raises(MXNetError, match='key 9 has not been inited'):
        kv.push(9, mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match='key 9 has not been inited'):
        kv.pull([3, 9], out=[mx.nd.ones(SHAPE)] * 2)
    with pytest.raises(MXNetError, match=r'operands shape mismatch from.shape = \[3,3\] to.shape=\[4,4\]'):
        kv.push(3, mx.nd.ones((3, 3)))
    with pytest.raises(MXNetError, match=r'operands shape mismatch'):
        kv.push(3, [mx.nd.ones(SHAPE), mx.nd.ones((3, 3))])
    with pytest.raises(MXNetError, match=r'operands shape mismatch from.shape = \[4,4\] to.shape=\[2,2\]'):
        kv.pull(3, out=mx.nd.ones((2, 2)))
    skv = init_kv(str_keys=True)
    with pytest.raises(MXNetError, match="key zz doesn't exist. Did you init?"):
        skv.push('zz', mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match='duplicate init of key a'):
        skv.init('a', mx.nd.ones(SHAPE))


def test_row_sparse_pull_needs_row_sparse_outputs():
    kv = init_kv()
    dense = mx.nd.ones(SHAPE)
    with pytest.raises(MXNetError, match='Expected row_sparse storage type for row_sparse_pull values'):
        kv.row_sparse_pull(3, out=dense, row_ids=mx.nd.array([1]))
    with pytest.raises(MXNetError, match='Expected row_sparse storage type'):
        kv.row_sparse_pull(KEYS, out=[dense] * 3, row_ids=[mx.nd.array([1])] * 3)


# -- updater / optimizer -----------------------------------------------------------------------------------------
@pytest.mark.parametrize('kind', ['int', 'str'])
def test_updater_calls_match_mxnet(kind):
    gold = GOLD['updater_' + kind]
    keys = gold['keys']
    kv = mx.kv.create('local')
    kv.init(keys, [mx.nd.ones((2,)) * (i + 1) for i in range(3)])
    log = []

    def upd(key, recv, stored):
        log.append([repr(key), recv.asnumpy().tolist(), stored.asnumpy().tolist()])
        stored[:] = stored * 2 + recv
    kv.set_updater(upd)
    kv.push([keys[2], keys[0], keys[1], keys[0]],
            [mx.nd.ones((2,)), [mx.nd.ones((2,)) * 2, mx.nd.ones((2,)) * 3], mx.nd.ones((2,)) * 4,
             mx.nd.ones((2,)) * 5])
    outs = [mx.nd.zeros((2,)) for _ in keys]
    kv.pull(keys, out=outs)
    assert log == gold['log']
    assert [o.asnumpy().tolist() for o in outs] == gold['pulled']


def test_updater_accumulates_like_mxnet_test():
    def updater(key, recv, local):
        assert isinstance(key, int)
        local += recv

    def str_updater(key, recv, local):
        assert isinstance(key, bytes)
        local += recv
    for kv, key, keys, upd in ((init_kv(), 3, KEYS, updater), (init_kv(str_keys=True), 'a', STR_KEYS, str_updater)):
        kv._set_updater(upd)
        kv.push(key, [mx.nd.ones(SHAPE, d) for d in DEVS])
        outs = [mx.nd.empty(SHAPE, d) for d in DEVS]
        kv.pull(key, out=outs)
        assert_all(outs[3], 4)
        for _ in range(4):
            kv.push(keys, [[mx.nd.ones(SHAPE, d) for d in DEVS]] * len(keys))
        outs = [[mx.nd.empty(SHAPE, d) for d in DEVS]] * len(keys)
        kv.pull(keys, out=outs)
        assert_all(outs[2][1], 16)


def _has_optimizer():
    try:
        import mxcompat.optimizer  # noqa: F401
        return True
    except ImportError:
        return False


needs_optimizer = pytest.mark.skipif(not _has_optimizer(), reason='mxcompat.optimizer is not there yet')


@needs_optimizer
@pytest.mark.parametrize('tag', ['sgd_int', 'sgd_str', 'adam_int', 'adam_str'])
def test_set_optimizer_matches_mxnet(tag, tmp_path):
    gold = GOLD['opt_' + tag]
    key = 3 if tag.endswith('int') else 'w'
    opt = (mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5) if tag.startswith('sgd')
           else mx.optimizer.Adam(learning_rate=0.01, wd=0.001))
    g = np.array(gold['grads'], dtype=np.float32)
    kv = mx.kv.create('local')
    kv.init(key, mx.nd.array(gold['w0']))
    kv.set_optimizer(opt)
    for step in range(3):
        kv.push(key, [mx.nd.array(g[step, i], ctx=mx.cpu(i)) for i in range(2)])
        np.testing.assert_allclose(pulled(kv, key, (3, 4)), gold['pulled'][step], rtol=1e-5, atol=1e-6)
    # the states file is MXNet's Updater pickle: {index: state}, and (states, optimizer) with dump_optimizer
    fname = str(tmp_path / 'states')
    kv.save_optimizer_states(fname)
    states = pickle.load(open(fname, 'rb'))
    assert list(states) == [key]
    kv.save_optimizer_states(fname, dump_optimizer=True)
    states2, opt2 = pickle.load(open(fname, 'rb'))
    assert type(opt2) is type(opt)
    # states written by MXNet itself load, replace the optimizer and hold the same numbers as ours
    kv.load_optimizer_states(os.path.join(FIX, 'states_%s.bin' % tag))
    theirs = kv._updater.states[key]
    ours = states2[key]
    for a, b in zip(theirs if isinstance(theirs, tuple) else [theirs], ours if isinstance(ours, tuple) else [ours]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    assert type(kv._updater.optimizer).__name__ == type(opt).__name__


@needs_optimizer
def test_set_optimizer_default_sgd_example():
    kv = mx.kv.create()
    weight = mx.nd.zeros((2, 2))
    kv.init(3, weight)
    kv.set_optimizer(mx.optimizer.SGD())
    kv.push(3, mx.nd.ones((2, 2)))
    kv.pull(3, out=weight)
    np.testing.assert_allclose(weight.asnumpy(), -0.01, rtol=1e-6)


# -- gradient compression --------------------------------------------------------------------------------------
def quantize_ref(residual, grad, threshold):
    residual += grad
    sent = np.where(residual >= threshold, threshold, np.where(residual <= -threshold, -threshold, 0))
    sent = sent.astype(np.float32)
    residual -= sent
    return sent


@pytest.mark.parametrize('name', ['compression_3dev', 'compression_1dev'])
def test_two_bit_compression_matches_mxnet(name):
    gold = GOLD[name]
    grads = np.array(gold['grads'], dtype=np.float32)
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.3})
    kv.init(0, mx.nd.zeros((5, 7)))
    residuals = np.zeros(grads.shape[1:], dtype=np.float32)
    for step in range(4):
        kv.push(0, [mx.nd.array(grads[step, i], ctx=mx.cpu(i)) for i in range(grads.shape[1])])
        got = pulled(kv, 0, (5, 7))
        assert got.tolist() == gold['pulled'][step]
        want = sum(quantize_ref(residuals[i], grads[step, i], np.float32(0.3)) for i in range(grads.shape[1]))
        np.testing.assert_array_equal(got, want)


def test_compression_errors():
    with pytest.raises(MXNetError, match='Gradient compression is not supported for this type of kvstore'):
        mx.kv.create('local').set_gradient_compression({'type': '2bit'})
    kv = mx.kv.create('local_allreduce_device')
    with pytest.raises(MXNetError, match='Unknown type for gradient compression 1bit'):
        kv.set_gradient_compression({'type': '1bit'})
    with pytest.raises(MXNetError, match='threshold must be greater than 0'):
        kv.set_gradient_compression({'type': '2bit', 'threshold': -1})
    with pytest.raises(MXNetError, match='Required parameter type of string is not presented'):
        kv.set_gradient_compression({'threshold': 1})
    with pytest.raises(MXNetError, match='Invalid Parameter format for threshold'):
        kv.set_gradient_compression({'type': '2bit', 'threshold': 'abc'})
    with pytest.raises(AssertionError, match='unexpected type for param_dict'):
        kv.set_gradient_compression('2bit')
    kv.set_gradient_compression({'type': '2bit', 'ignored_extra': 1})  # MXNet ignores unknown keys too
    kv.init(0, mx.nd.zeros((2,), dtype='float16'))
    with pytest.raises(MXNetError, match='only supported for float32'):
        kv.push(0, mx.nd.ones((2,), dtype='float16'))


# -- dist store in one process ---------------------------------------------------------------------------------
def test_dist_store_single_process_semantics(monkeypatch):
    monkeypatch.delenv('WORLD_SIZE', raising=False)
    kv = mx.kv.create('dist_sync')
    kv.init(['w', 'b'], [mx.nd.ones(SHAPE), mx.nd.zeros((2,))])
    kv.push('w', [mx.nd.ones(SHAPE) * 2] * 3)
    kv.push('b', mx.nd.ones((2,)))
    outs = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    kv.pull('w', out=outs)
    assert_all(outs[1], 6)
    assert_all(pulled(kv, 'b', (2,)), 1)
    kv.push('w', mx.nd.ones(SHAPE))
    kv.push('w', mx.nd.ones(SHAPE) * 5)  # a second push of a queued key first applies the queued one
    assert_all(pulled(kv, 'w'), 5)
    kv._barrier()
    with pytest.raises(MXNetError, match="doesn't support ignore_sparse=False"):
        kv.pull('w', out=outs[0], ignore_sparse=False)
    with pytest.raises(MXNetError, match='Output buffer dtype is different'):
        kv.pushpull('w', mx.nd.ones(SHAPE), out=mx.nd.zeros(SHAPE, dtype='float64'))
    with pytest.raises(MXNetError, match='List of push and pull keys are different'):
        kv.pushpull('w', mx.nd.ones(SHAPE), out=[])
    from mxcompat.kvstore import dist
    monkeypatch.setattr(dist, '_warned', set())
    with pytest.warns(UserWarning, match='no parameter servers'):
        kv._send_command_to_servers(0, '')


def test_dist_store_compression_quantizes_after_the_local_sum(monkeypatch):
    monkeypatch.delenv('WORLD_SIZE', raising=False)
    rng = np.random.RandomState(3)
    kv = mx.kv.create('dist_sync')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.25})
    kv.init(0, mx.nd.zeros((6,)))
    residual = np.zeros((6,), dtype=np.float32)
    for _ in range(3):
        g = rng.uniform(-0.4, 0.4, size=(2, 6)).astype(np.float32)
        kv.push(0, [mx.nd.array(g[0]), mx.nd.array(g[1])])
        want = quantize_ref(residual, g[0] + g[1], np.float32(0.25))
        np.testing.assert_array_equal(pulled(kv, 0, (6,)), want)
    with pytest.raises(MXNetError, match='Compression not supported with PushPull'):
        kv.pushpull(0, mx.nd.ones((6,)))
    with pytest.raises(MXNetError, match='Gradient compression is not supported'):
        mx.kv.create('horovod').set_gradient_compression({'type': '2bit'})


@needs_optimizer
def test_dist_store_single_process_optimizer_and_states(monkeypatch, tmp_path):
    monkeypatch.delenv('WORLD_SIZE', raising=False)
    kv = mx.kv.create('dist_device_sync')
    kv.init(3, mx.nd.ones((2, 2)))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    kv.push(3, [mx.nd.ones((2, 2))] * 2)
    kv.save_optimizer_states(str(tmp_path / 's'))  # MXNet keeps states on servers and refuses; here it works
    assert_all(pulled(kv, 3, (2, 2)), 0)


# -- ps-lite roles -----------------------------------------------------------------------------------------------
def test_server_and_scheduler_roles_exit_cleanly(monkeypatch, capsys):
    from mxcompat.kvstore import kvstore_server
    for role in ('server', 'scheduler'):
        monkeypatch.setenv('DMLC_ROLE', role)
        with pytest.raises(SystemExit) as e:
            kvstore_server._exit_if_server_role()
        assert e.value.code == 0
        assert 'torchrun replaces ps-lite' in capsys.readouterr().err
    monkeypatch.setenv('DMLC_ROLE', 'worker')
    kvstore_server._exit_if_server_role()
    with pytest.raises(MXNetNotImplementedError, match='torchrun replaces ps-lite'):
        mx.kv.KVStoreServer(mx.kv.create()).run()


def test_barrier_and_server_commands_are_no_ops_locally():
    kv = mx.kv.create()
    kv.init(0, mx.nd.ones(SHAPE))
    assert kv._barrier() is None and kv._send_command_to_servers(0, 'x') is None
    assert_all(pulled(kv, 0), 1)


@pytest.mark.parametrize('kind', ['local', 'device', 'nccl'])
def test_store_on_each_device(ctx, kind):
    """Values pushed from one device (twice: two 'devices' of one kind) are summed; an optimizer updates the stored
    weight; pulls land on the puller's device. ``device``/``nccl`` merge where the values are, ``local`` on the CPU."""
    kv = mx.kv.create(kind)
    kv.init('w', mx.nd.ones((2, 3)))
    kv.push('w', [mx.nd.ones((2, 3), ctx=ctx) * 2, mx.nd.ones((2, 3), ctx=ctx) * 3])
    out = mx.nd.zeros((2, 3), ctx=ctx)
    kv.pull('w', out=out)
    assert out.context == ctx and out.asnumpy().tolist() == [[5.0] * 3] * 2
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, rescale_grad=1.0))
    kv.push('w', [mx.nd.ones((2, 3), ctx=ctx), mx.nd.ones((2, 3), ctx=ctx)])
    kv.pull('w', out=out)
    # 1.8, as MXNet 1.9.1 prints for this sequence on 'local' and 'device' stores
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 3), 1.8, np.float32), rtol=1e-6)
    outs = [mx.nd.zeros((2, 3), ctx=ctx), mx.nd.zeros((2, 3))]
    kv.pull('w', out=outs)
    assert [o.context for o in outs] == [ctx, mx.cpu()]
    assert outs[1].asnumpy().tolist() == outs[0].asnumpy().tolist()
