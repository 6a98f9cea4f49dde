"""dist_* stores with real torch.distributed process groups (gloo over 127.0.0.1), 2 and 3 workers.

Workers are forked from the test process (torch and mxcompat are already imported there, so a worker starts in
milliseconds); each joins the group through the same environment variables torchrun sets. Every run has a hard
deadline, and each worker reports through a file and leaves with os._exit, so a broken group cannot hang the
test session.
"""
import importlib.util
import json
import multiprocessing
import os
import re
import pickle
import socket
import subprocess
import sys
import time
import traceback

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError

pytestmark = pytest.mark.distributed
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'kvstore')


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _worker(fn, rank, world, port, outdir, env):
    code = 0
    try:
        os.environ.update({'RANK': str(rank), 'LOCAL_RANK': str(rank), 'WORLD_SIZE': str(world),
                           'LOCAL_WORLD_SIZE': str(world), 'MASTER_ADDR': '127.0.0.1', 'MASTER_PORT': str(port)})
        os.environ.update(env)
        torch.set_num_threads(1)
        result = ('ok', fn(rank, world))
    except BaseException as e:  # noqa: BLE001 (reported to the test)
        result = ('err', type(e).__name__, str(e), traceback.format_exc())
    try:
        with open(os.path.join(outdir, '%d.pkl' % rank), 'wb') as f:
            pickle.dump(result, f)
    except BaseException:  # noqa: BLE001
        code = 3
    os._exit(code)  # skip torch.distributed teardown: with a dead peer it may block


def run_workers(fn, world, tmp_path, deadline=40, env=None):
    """Run ``fn(rank, world)`` in ``world`` forked workers; returns ``{rank: result}``; fails past ``deadline``."""
    ctx = multiprocessing.get_context('fork')
    port = _free_port()
    procs = [ctx.Process(target=_worker, args=(fn, r, world, port, str(tmp_path), env or {})) for r in range(world)]
    for p in procs:
        p.start()
    end = time.time() + deadline
    for p in procs:
        p.join(max(0.1, end - time.time()))
    hung = [r for r, p in enumerate(procs) if p.is_alive()]
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join(5)
    assert not hung, 'workers %s did not finish within %s s' % (hung, deadline)
    results = {}
    for r in range(world):
        path = os.path.join(str(tmp_path), '%d.pkl' % r)
        if os.path.exists(path):
            with open(path, 'rb') as f:
                results[r] = pickle.load(f)
    return results


def ok(results):
    for r, res in sorted(results.items()):
        assert res[0] == 'ok', 'rank %d failed:\n%s' % (r, res[3])
    return {r: res[1] for r, res in results.items()}


# -- scenarios (run inside the workers) --------------------------------------------------------------------------
def scenario_semantics(rank, world):
    out = {}
    kv = mx.kv.create('dist_sync')
    out['ids'] = (kv.rank, kv.num_workers, kv.type)
    shape = (2, 3)
    # init: rank 0's value wins
    kv.init([3, 5], [mx.nd.ones(shape) * (rank + 1), mx.nd.ones(shape) * 10 * (rank + 1)])
    a = mx.nd.zeros(shape)
    kv.pull(3, out=a)
    out['init'] = a.asnumpy().tolist()
    # push: devices summed locally, then workers summed; the store assigns the sum
    kv.push(3, [mx.nd.ones(shape, mx.cpu(i)) * (rank + 1) for i in range(2)])
    kv.push(5, mx.nd.ones(shape))
    outs = [mx.nd.zeros(shape, mx.cpu(i)) for i in range(3)]
    kv.pull(3, out=outs)
    out['sum'] = [o.asnumpy().tolist() for o in outs]
    kv.pull(5, out=a)
    out['sum5'] = a.asnumpy().tolist()
    kv.push(5, mx.nd.ones(shape) * (rank + 1))
    a64 = mx.nd.zeros(shape, dtype='float64')
    kv.pull(5, out=[a64, a])  # an output of another dtype takes the copying path
    out['sum5_f64'] = (a64.asnumpy().tolist(), a.asnumpy().tolist())
    # list keys, list of lists, mixed dtypes in one flush
    kv.init([7, 8, 9], [mx.nd.zeros((4,), dtype='float64'), mx.nd.zeros((5,), dtype='int32'), mx.nd.zeros((2, 2))])
    kv.push([7, 8, 9], [[mx.nd.ones((4,), dtype='float64') * (rank + 1)] * 2,
                        mx.nd.ones((5,), dtype='int32') * (rank + 2), mx.nd.ones((2, 2)) * 0.5])
    o7, o8, o9 = mx.nd.zeros((4,), dtype='float64'), mx.nd.zeros((5,), dtype='int32'), mx.nd.zeros((2, 2))
    kv.pull([7, 8, 9], out=[o7, o8, o9])
    out['lists'] = (o7.asnumpy().tolist(), o8.asnumpy().tolist(), o9.asnumpy().tolist(), np.dtype(o8.dtype).name)
    # pushpull in place and into outs; a large array
    big = mx.nd.arange(0, 4 * 1024 * 1024) * (rank + 1)
    kv.init(100, mx.nd.zeros(big.shape))
    kv.pushpull(100, big)
    bn = big.asnumpy()
    out['big'] = (float(bn[0]), float(bn[12345]), float(bn[-1]), bn.shape)
    # broadcast
    w = [mx.nd.zeros(shape) for _ in range(2)]
    kv.broadcast(200, mx.nd.ones(shape) * (rank + 7), out=w)
    out['broadcast'] = w[1].asnumpy().tolist()
    # custom updater runs on every worker on the summed value
    kv._set_updater(lambda key, recv, stored: stored.__iadd__(recv * 2))
    kv.push(5, mx.nd.ones(shape) * (rank + 1))
    kv.pull(5, out=a)
    out['updater'] = a.asnumpy().tolist()
    kv._barrier()
    # mismatched keys fail on every rank, naming keys and ranks
    kv2 = mx.kv.create('dist_sync')
    kv2.init(['p', 'q'], [mx.nd.zeros(shape)] * 2)
    try:
        kv2.pushpull('p' if rank == 0 else 'q', mx.nd.ones(shape))
        out['mismatch'] = None
    except MXNetError as e:
        out['mismatch'] = str(e)
    # a different init shape fails the same way; the group stays usable afterwards
    try:
        kv2.init('s', mx.nd.zeros((2,) if rank == 0 else (3,)))
        out['init_mismatch'] = None
    except MXNetError as e:
        out['init_mismatch'] = str(e)
    kv2.pushpull('p', mx.nd.ones(shape) * (rank + 1), out=a)
    out['after'] = a.asnumpy().tolist()
    return out


def scenario_optimizer(rank, world):
    kv = mx.kv.create('dist_device_sync')
    rng = np.random.RandomState(rank)
    shapes = [(3, 4), (4,), (2, 2, 2)]
    kv.init(list(range(3)), [mx.nd.array(np.full(s, 0.5, np.float32)) for s in shapes])
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01)
    kv.set_optimizer(opt)
    grads_seen = []
    weights = [mx.nd.zeros(s) for s in shapes]
    for step in range(3):
        grads = [rng.randn(*s).astype(np.float32) for s in shapes]
        grads_seen.append([g.tolist() for g in grads])
        kv.push(list(range(3)), [[mx.nd.array(g / 2)] * 2 for g in grads])
        kv.pull(list(range(3)), out=weights)
    return {'weights': [w.asnumpy().tolist() for w in weights], 'grads': grads_seen}


def scenario_three(rank, world):
    kv = mx.kv.create('dist_sync')
    kv.init(['x', 'y'], [mx.nd.ones((3,)) * rank, mx.nd.ones((2, 2)) * rank])
    x, y = mx.nd.zeros((3,)), mx.nd.zeros((2, 2))
    kv.pull(['x', 'y'], out=[x, y])
    init = (x.asnumpy().tolist(), y.asnumpy().tolist())
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.push('x', mx.nd.array([0.6, -0.3, 0.2]) * (rank + 1))
    kv.pull('x', out=x)
    kv._barrier()
    return {'init': init, 'compressed': x.asnumpy().tolist(), 'n': kv.num_workers}


def scenario_killed(rank, world):
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((1000,)))
    kv._barrier()
    if rank == 1:
        os._exit(1)  # a worker dies
    time.sleep(0.5)
    t = time.time()
    try:
        for _ in range(3):
            kv.pushpull(0, mx.nd.ones((1000,)))
        return ('no error', time.time() - t)
    except MXNetError as e:
        return (str(e), time.time() - t)


def scenario_silent_peer(rank, world):
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((10,)))
    if rank == 1:
        time.sleep(4)  # alive, but never calls the store again
        return ('slept', 0)
    t = time.time()
    try:
        kv.pushpull(0, mx.nd.ones((10,)))
        return ('no error', time.time() - t)
    except MXNetError as e:
        return (str(e), time.time() - t)


def scenario_oracle(rank, world):
    spec = importlib.util.spec_from_file_location('dist_worker', os.path.join(FIX, 'dist_worker.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run(mx)


# -- tests ---------------------------------------------------------------------------------------------------
def test_same_results_as_mxnet_dist_sync(tmp_path):
    """init (rank 0 wins), sums over devices and workers, assignment, 2-bit compression after the local sum, and
    an optimizer run on the summed (quantized) gradients: as MXNet's ps-lite job gave (gen_dist.py)."""
    pytest.importorskip('mxcompat.optimizer')
    res = ok(run_workers(scenario_oracle, 2, tmp_path))
    with open(os.path.join(FIX, 'dist_oracle.json')) as f:
        gold = json.load(f)
    for r in (0, 1):
        assert res[r] == gold[str(r)]


@pytest.mark.parametrize('env', [{}, {'MXCOMPAT_KV_SHM': '0', 'MXCOMPAT_KV_CHUNK_BYTES': '262144'}],
                         ids=['shared-memory', 'gloo-in-chunks'])
def test_two_workers_semantics(tmp_path, env):
    res = ok(run_workers(scenario_semantics, 2, tmp_path, env=env))
    for r in (0, 1):
        o = res[r]
        assert o['ids'] == (r, 2, 'dist_sync')
        assert o['init'] == [[1.0] * 3] * 2
        assert o['sum'] == [[[6.0] * 3] * 2] * 3          # (1+1) + (2+2)
        assert o['sum5'] == [[2.0] * 3] * 2
        assert o['sum5_f64'] == ([[3.0] * 3] * 2, [[3.0] * 3] * 2)
        assert o['lists'] == ([6.0] * 4, [5] * 5, [[1.0, 1.0]] * 2, 'int32')
        assert o['big'] == (0.0, 12345.0 * 3, (4 * 1024 * 1024 - 1) * 3.0, (4 * 1024 * 1024,))
        assert o['broadcast'] == [[7.0] * 3] * 2
        assert o['updater'] == [[3.0 + 2 * 3.0] * 3] * 2  # stored 3 + 2 * (1 + 2)
        assert "key 'p' is sent by rank(s) [0] but not by rank(s) [1]" in o['mismatch']
        assert "key 'q' is sent by rank(s) [1] but not by rank(s) [0]" in o['mismatch']
        assert "key 's' differs: rank 0 has shape (2,)" in o['init_mismatch']
        assert o['after'] == [[3.0] * 3] * 2


def test_two_workers_set_optimizer_keeps_weights_identical(tmp_path):
    pytest.importorskip('mxcompat.optimizer')
    res = ok(run_workers(scenario_optimizer, 2, tmp_path))
    assert res[0]['weights'] == res[1]['weights']
    # the same updates made by one local store fed the summed gradients
    kv = mx.kv.create('local')
    shapes = [(3, 4), (4,), (2, 2, 2)]
    kv.init(list(range(3)), [mx.nd.array(np.full(s, 0.5, np.float32)) for s in shapes])
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01))
    for step in range(3):
        summed = [np.array(res[0]['grads'][step][i], np.float32) + np.array(res[1]['grads'][step][i], np.float32)
                  for i in range(3)]
        kv.push(list(range(3)), [mx.nd.array(g) for g in summed])
    for i, s in enumerate(shapes):
        w = mx.nd.zeros(s)
        kv.pull(i, out=w)
        np.testing.assert_allclose(np.array(res[0]['weights'][i]), w.asnumpy(), rtol=1e-5, atol=1e-6)


def scenario_trainer(rank, world):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(3, in_units=4), mx.gluon.nn.Dense(2, in_units=3, use_bias=False))
    net.initialize(mx.init.Constant(0.1))
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01},
                               kvstore='dist_sync')
    rng = np.random.RandomState(10 + rank)
    for _ in range(3):
        x = mx.nd.array(rng.uniform(-1, 1, (5, 4)).astype(np.float32))
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(5)
    # in creation order (weight, bias, weight): the names' counters depend on what the test process made before
    return [v.data().asnumpy().tolist() for v in net.collect_params().values()]


def _numpy_trainer_reference(world):
    """The same 3 steps by hand: gradients of sum((x W1^T + b1) W2^T)^2 summed over the workers, rescaled by
    1/batch, then MXNet's SGD with momentum and weight decay."""
    w1, b1, w2 = np.full((3, 4), 0.1), np.zeros(3), np.full((2, 3), 0.1)  # a bias keeps its own zero init
    moms = [np.zeros_like(w1), np.zeros_like(b1), np.zeros_like(w2)]
    rngs = [np.random.RandomState(10 + r) for r in range(world)]
    for _ in range(3):
        grads = [np.zeros_like(w1), np.zeros_like(b1), np.zeros_like(w2)]
        for rng in rngs:
            x = rng.uniform(-1, 1, (5, 4)).astype(np.float32).astype(np.float64)
            h = x @ w1.T + b1
            y = h @ w2.T
            dy = 2 * y
            dh = dy @ w2
            grads[0] += dh.T @ x
            grads[1] += dh.sum(0)
            grads[2] += dy.T @ h
        params = [w1, b1, w2]
        for i, (p, g) in enumerate(zip(params, grads)):
            moms[i] = 0.9 * moms[i] - 0.1 * (g / 5 + 0.01 * p)
            params[i] = p + moms[i]
        w1, b1, w2 = params
    return [w1, b1, w2]


def test_two_workers_trainer_momentum_matches_numpy(tmp_path):
    res = ok(run_workers(scenario_trainer, 2, tmp_path))
    assert res[0] == res[1]  # identical weights on every rank
    for name, got, want in zip(('dense weight', 'dense bias', 'second dense weight'), res[0],
                               _numpy_trainer_reference(2)):
        np.testing.assert_allclose(np.array(got), want, rtol=1e-4, atol=1e-6, err_msg=name)


@pytest.mark.parametrize('shm', ['1', '0'], ids=['shared-memory', 'gloo'])
def test_three_workers(tmp_path, shm):
    res = ok(run_workers(scenario_three, 3, tmp_path, env={'MXCOMPAT_KV_SHM': shm}))
    for r in range(3):
        assert res[r]['n'] == 3
        assert res[r]['init'] == ([0.0] * 3, [[0.0, 0.0]] * 2)
        # each worker quantizes its own push: 0.6k -> +0.5 for every k; -0.3k -> -0.5 for k >= 2; 0.2k -> 0.5 for k=3
        assert res[r]['compressed'] == [1.5, -1.0, 0.5]


def test_killed_worker_makes_the_others_fail_not_hang(tmp_path):
    res = run_workers(scenario_killed, 2, tmp_path, deadline=40, env={'MXCOMPAT_KV_TIMEOUT': '10'})
    assert 1 not in res  # rank 1 died without reporting
    status, msg_and_time = res[0][0], res[0][1]
    assert status == 'ok', res[0]
    msg, elapsed = msg_and_time
    assert msg != 'no error' and 'KVStore(dist_sync)' in msg and 'rank 0 of 2' in msg, msg
    assert elapsed < 15


def test_collective_timeout_raises(tmp_path):
    res = ok(run_workers(scenario_silent_peer, 2, tmp_path, deadline=40, env={'MXCOMPAT_KV_TIMEOUT': '1.5'}))
    msg, elapsed = res[0]
    assert 'MXCOMPAT_KV_TIMEOUT=1.5 s' in msg, msg
    assert elapsed < 3.9


SCRIPT = '''
import atexit
import os
import torch.distributed as dist
# registered before the store's own handler, so it runs after it (atexit is last in, first out)
atexit.register(lambda: os.write(1, ('rank group destroyed at exit: %s\\n' % (not dist.is_initialized())).encode()))
import mxnet as mx
kv = mx.kv.create('dist_sync')
kv.init('w', mx.nd.ones((3,)) * (kv.rank + 5))
kv.pushpull('w', mx.nd.ones((3,)) * (kv.rank + 1), out=mx.nd.zeros((3,)))
w = mx.nd.zeros((3,))
kv.pull('w', out=w)
# one write per report: a pipe write below PIPE_BUF is atomic, print's pieces are not
os.write(1, ('rank %d of %d %s\\n' % (kv.rank, kv.num_workers, w.asnumpy().tolist())).encode())
'''


@pytest.mark.slow
def test_torchrun_launch(tmp_path):
    script = tmp_path / 'train.py'
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS='1')
    cmd = [sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node=2', '--master_addr=127.0.0.1',
           '--master_port=%d' % _free_port(), '-m', 'mxcompat', str(script)]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    # the two ranks share one stdout pipe: each report is one atomic write, found wherever it is
    reports = sorted(re.findall(r'rank (\d) of (\d) (\[[^\]]*\])', r.stdout))
    assert reports == [('0', '2', '[3.0, 3.0, 3.0]'), ('1', '2', '[3.0, 3.0, 3.0]')], (r.stdout, r.stderr[-3000:])
    # the store destroys the process group it created before the interpreter tears down (gloo can abort otherwise)
    assert r.stdout.count('rank group destroyed at exit: True') == 2, r.stdout


_NCCL_WORKER = '''
import torch.distributed as dist
import mxcompat as mx
dist.init_process_group('cpu:gloo,cuda:nccl', init_method='env://')  # (one worker makes no group by itself)
kv = mx.kv.create('dist_sync')
ctx = mx.gpu(0)
kv.init('w', mx.nd.ones((2, 3), ctx=ctx))
kv.push('w', [mx.nd.ones((2, 3), ctx=ctx) * 2])
out = mx.nd.zeros((2, 3), ctx=ctx)
kv.pull('w', out=out)
print(dist.get_backend(), float(out.asnumpy().sum()), out.context)
'''


@pytest.mark.gpu
def test_dist_sync_of_cuda_arrays_under_nccl():
    """One rank per GPU, as torchrun starts it (a fresh process: CUDA cannot be forked), in the script's own
    gloo + NCCL group: CUDA arrays go through NCCL, the store assigns the pushed sum, pulls land on the GPU."""
    env = dict(os.environ, RANK='0', LOCAL_RANK='0', WORLD_SIZE='1', LOCAL_WORLD_SIZE='1', MASTER_ADDR='127.0.0.1',
               MASTER_PORT=str(_free_port()), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, '-c', _NCCL_WORKER], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    backend, total, ctx = r.stdout.split()
    assert 'nccl' in backend and float(total) == 12.0 and ctx == 'gpu(0)', r.stdout
