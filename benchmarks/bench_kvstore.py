"""KVStore costs beside native torch.

Local (pytest-benchmark): summing one key's values from 4 device contexts, ``kv.push`` + ``kv.pull`` of a
'local' store, against ``torch.stack(values).sum(0)``:

    python -m pytest benchmarks/bench_kvstore.py --benchmark-json=/tmp/kv.json
    python benchmarks/ratios.py /tmp/kv.json

Distributed (script mode, under torchrun): the gradients of a 100-tensor MLP (50 Linear layers: weight + bias),
(A) one raw ``torch.distributed.all_reduce`` of a flat tensor holding all gradient bytes, against
(B) ``kv.pushpull(keys, grads)`` of the per-parameter keys on a ``dist_sync`` store. Target: B/A <= 1.15.
Then (C) a Gluon training step with ``Trainer(kvstore='dist_sync')`` against (D) the same step with torch DDP.
Target: C/D <= 1.0.

    torchrun --nproc_per_node=2 benchmarks/bench_kvstore.py --dist [--width 256] [--layers 50] [--iters 30]
"""
import argparse
import statistics
import sys
import time

import pytest
import torch

import mxcompat as mx

SIZES = {'64KB': (128, 128), '4MB': (1024, 1024)}


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('size', sorted(SIZES))
def test_local_sum_4_contexts(benchmark, size, side):
    shape = SIZES[size]
    benchmark.group = 'kvstore:sum4:' + size
    benchmark.extra_info['side'] = side
    vals = [mx.nd.ones(shape, ctx=mx.cpu(i)) * (i + 1) for i in range(4)]
    if side == 'mxcompat':
        kv = mx.kv.create('local')
        kv.init(0, mx.nd.zeros(shape))
        out = mx.nd.zeros(shape)

        def step():
            kv.push(0, vals)
            kv.pull(0, out=out)
        step()
        assert float(out.asnumpy()[0, 0]) == 10.0
    else:
        ts = [v.to_torch() for v in vals]
        out = torch.zeros(shape)

        def step():
            out.copy_(torch.stack(ts).sum(0))
    benchmark(step)


def _ratio(base, fn, iters, sync):
    """Median times of ``base`` and ``fn`` run alternately, and the median of the per-round ratios fn/base
    (alternating keeps a busy machine's load changes out of the ratio)."""
    ta, tb, ratios = [], [], []
    for _ in range(iters):
        sync()
        t = time.perf_counter()
        base()
        a = time.perf_counter() - t
        sync()
        t = time.perf_counter()
        fn()
        b = time.perf_counter() - t
        ta.append(a)
        tb.append(b)
        ratios.append(b / a)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def run_dist(argv):
    p = argparse.ArgumentParser()
    p.add_argument('--dist', action='store_true')
    p.add_argument('--width', type=int, default=256)
    p.add_argument('--layers', type=int, default=50)
    p.add_argument('--iters', type=int, default=30)
    args = p.parse_args(argv)
    import torch.distributed as dist
    kv = mx.kv.create('dist_sync')
    rank = kv.rank
    shapes = []
    for _ in range(args.layers):
        shapes += [(args.width, args.width), (args.width,)]
    grads = [mx.nd.ones(s) * (rank + 1) for s in shapes]
    keys = list(range(len(shapes)))
    kv.init(keys, [mx.nd.zeros(s) for s in shapes])
    nbytes = sum(g.size for g in grads) * 4
    flat = torch.ones(nbytes // 4)
    outs = [mx.nd.zeros(s) for s in shapes]

    def per_key():
        for k, g in zip(keys, grads):
            kv.pushpull(k, g)
    cases = [('(B) kv.pushpull(keys, grads)', lambda: kv.pushpull(keys, grads), args.iters),
             ('    kv.pushpull(keys, grads, out=outs)', lambda: kv.pushpull(keys, grads, out=outs), args.iters),
             ('    kv.pushpull(k, g) for each key', per_key, max(3, args.iters // 5))]
    raw = lambda: dist.all_reduce(flat)  # noqa: E731
    raw()
    for _, fn, _ in cases:
        fn()
    rows = [(name,) + _ratio(raw, fn, iters, dist.barrier) for name, fn, iters in cases]
    ddp_step, trainer_step = _training_steps(args, rank)
    ddp_step()
    trainer_step()
    c_d = _ratio(ddp_step, trainer_step, args.iters, dist.barrier)
    if rank == 0:
        print('%d tensors, %.1f MB of gradients, %d workers' % (len(shapes), nbytes / 1e6, kv.num_workers))
        for name, a, b, r in rows:
            print('%-40s %8.2f ms  (A: raw all_reduce of all bytes %8.2f ms)  B/A = %.3f' % (name, b * 1e3, a * 1e3, r))
        print('%-40s %8.2f ms  (D: torch DDP + SGD step %8.2f ms)  C/D = %.3f'
              % ("(C) Trainer(kvstore='dist_sync') step", c_d[1] * 1e3, c_d[0] * 1e3, c_d[2]))


def _training_steps(args, rank, batch=64):
    """(D) a torch DDP training step and (C) the same step in Gluon with Trainer(kvstore='dist_sync'): an MLP of
    ``layers`` Dense layers of ``width`` (100 tensors by default), SGD with momentum, each rank its own batch."""
    nn = torch.nn
    torch.manual_seed(0)
    layers = [m for _ in range(args.layers) for m in (nn.Linear(args.width, args.width), nn.ReLU())]
    tnet = nn.Sequential(*layers[:-1])
    ddp = torch.nn.parallel.DistributedDataParallel(tnet)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, args.width, generator=torch.Generator().manual_seed(rank))

    def ddp_step():
        opt.zero_grad()
        ddp(x).square().mean().backward()
        opt.step()

    net = mx.gluon.nn.HybridSequential()
    for i in range(args.layers):
        net.add(mx.gluon.nn.Dense(args.width, in_units=args.width,
                                  activation='relu' if i < args.layers - 1 else None))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.01, 'momentum': 0.9},
                               kvstore='dist_sync')
    xm = mx.nd.from_torch(x.clone())

    def trainer_step():
        with mx.autograd.record():
            loss = net(xm).square().mean()
        loss.backward()
        trainer.step(1)
    return ddp_step, trainer_step


if __name__ == '__main__':
    if '--dist' not in sys.argv[1:]:
        sys.exit('run the local cases with pytest; the distributed case with torchrun ... --dist')
    run_dist(sys.argv[1:])
