"""GPU training steps and eager overheads, mxcompat beside native torch in one process: ``python -m benchmarks.gpu``.

Each workload is timed with CUDA events around single steps (median of ``--steps`` after warm-up), the two sides
alternating step by step so that clocks and caches treat them alike. Rows: the MLP, LeNet, CIFAR ResNet-18 and
LSTM language model of ``bench_gluon`` (imperative, hybridized with ``static_alloc``/``static_shape``, and so
hybridized with ``MXNET_ENABLE_CUDA_GRAPHS=1`` beside the torch model captured by ``make_graphed_callables``),
model-zoo ResNet-50 v1 at 224x224 against torchvision's ResNet-50 where torchvision is installed, and the per-call
cost of ``a + b`` and ``nd.zeros`` on 8x8 arrays. ``--profile`` adds the kernel count of one step of each side
(torch.profiler). Writes a table to stdout and JSON to ``--json``. Needs CUDA.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

from benchmarks import workloads_gluon as wg

DEVICE = 'cuda'  # (the steps also build on 'cpu', for a smoke test without a GPU)


def _cuda_ms(fn, steps):
    import torch
    times = []
    for _ in range(steps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return times


def _paired(ours, twin, steps, warmup=5):
    """Medians (ms) of both step functions, alternating in blocks of one step."""
    for _ in range(warmup):
        ours()
        twin()
    t_ours, t_twin = [], []
    for _ in range(steps):
        t_ours += _cuda_ms(ours, 1)
        t_twin += _cuda_ms(twin, 1)
    return statistics.median(t_ours), statistics.median(t_twin)


def _gluon_step(mx, model, hybridize, batch=None, image=None, graphs=False):
    ctx = mx.gpu(0) if DEVICE == 'cuda' else mx.cpu()
    if model == 'resnet50':
        rs = np.random.RandomState(0)
        x = rs.uniform(-1, 1, (batch,) + image).astype(np.float32)
        y = rs.randint(0, 1000, batch).astype(np.float32)
        net = mx.gluon.model_zoo.vision.resnet50_v1()
    else:
        x, y = wg.data(model, 'small')
        net = wg.gluon_net(mx, model)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    if hybridize:
        prev = os.environ.get('MXNET_ENABLE_CUDA_GRAPHS')
        os.environ['MXNET_ENABLE_CUDA_GRAPHS'] = '1' if graphs else '0'  # (read by hybridize)
        net.hybridize(static_alloc=True, static_shape=True)
        if prev is None:
            del os.environ['MXNET_ENABLE_CUDA_GRAPHS']
        else:
            os.environ['MXNET_ENABLE_CUDA_GRAPHS'] = prev
    n = x.shape[1] if model == 'lstm' else x.shape[0]
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9})
    nd, autograd = mx.nd, mx.autograd
    inputs, label = nd.array(x, ctx=ctx), nd.array(y, ctx=ctx)

    def step():
        with autograd.record():
            loss = -nd.pick(nd.log_softmax(net(inputs)), label)
        loss.backward()
        trainer.step(n)
    step()
    return step


def _torch_step(torch, model, batch=None, image=None, graphs=False):
    dev = torch.device(DEVICE)
    if model == 'resnet50':
        import torchvision
        net = torchvision.models.resnet50().to(dev)
        rs = np.random.RandomState(0)
        x = torch.from_numpy(rs.uniform(-1, 1, (batch,) + image).astype(np.float32)).to(dev)
        y = torch.from_numpy(rs.randint(0, 1000, batch)).to(dev)
    else:
        net = wg.torch_net(torch, model, 'small').to(dev)
        xs, ys = wg.data(model, 'small')
        x = torch.from_numpy(xs).to(dev)
        if model == 'lstm':
            x = x.long()
        y = torch.from_numpy(ys).long().to(dev)
    n = x.shape[1] if model == 'lstm' else x.shape[0]
    if graphs:  # (the model's forward and backward as CUDA graphs; the loss and the update stay eager, as ours)
        net = torch.cuda.make_graphed_callables(net, (x,))
    opt = torch.optim.SGD(net.parameters(), lr=0.05 / n, momentum=0.9, foreach=True)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(x), y, reduction='sum')
        loss.backward()
        opt.step()
    step()
    return step


def _kernels(fn, table=None):
    """(kernel launches, kernel ms) of one call of ``fn``; with ``table`` (a title) also prints its top kernels."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type.name == 'CUDA']
    if table:
        print('--- %s: top kernels of one step' % table)
        print(prof.key_averages().table(sort_by='cuda_time_total', row_limit=14, max_name_column_width=70))
    return len(events), sum(e.device_time for e in events) / 1000.0


def _per_call(mx, torch, calls=2000):
    """Host time per eager call (us), the GPU kept busy only by the calls themselves."""
    ctx = mx.gpu(0)
    a, b = mx.nd.ones((8, 8), ctx=ctx), mx.nd.ones((8, 8), ctx=ctx)
    ta, tb = a.to_torch(), b.to_torch()
    rows = {}
    for name, ours, twin in (('a + b (8x8)', lambda: a + b, lambda: ta + tb),
                             ('nd.zeros((8, 8))', lambda: mx.nd.zeros((8, 8), ctx=ctx),
                              lambda: torch.zeros((8, 8), device='cuda'))):
        res = []
        for fn in (ours, twin, ours, twin):
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
            res.append((time.perf_counter() - t0) / calls * 1e6)
        rows[name] = (min(res[0], res[2]), min(res[1], res[3]))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--steps', type=int, default=20)
    p.add_argument('--models', default='mlp,lenet,resnet18,lstm,resnet50')
    p.add_argument('--profile', action='store_true')
    p.add_argument('--json')
    args = p.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print('benchmarks.gpu: no CUDA device')
        return 2
    torch.backends.cudnn.benchmark = True
    import mxcompat as mx
    out = {'device': torch.cuda.get_device_name(0), 'torch': torch.__version__, 'rows': []}
    print('%s, torch %s' % (out['device'], out['torch']))
    print('%-48s %10s %10s %7s' % ('workload', 'mxcompat', 'torch', 'ratio'))
    def dump():
        if args.json:
            with open(args.json, 'w') as f:
                json.dump(out, f, indent=1)

    for model in args.models.split(','):
        kw = {'batch': 64, 'image': (3, 224, 224)} if model == 'resnet50' else {}
        try:
            twin = _torch_step(torch, model, **kw)
        except ImportError as e:
            print('%-48s skipped: %s' % (model, e))
            continue
        try:
            graphed_twin = _torch_step(torch, model, graphs=True, **kw)
        except RuntimeError as e:  # (then the graphs row is timed against the eager twin)
            print('%-48s torch model not capturable (%s): graphs row against eager torch' % (model, e))
            graphed_twin = twin
        for hyb, graphs in ((False, False), (True, False), (True, True)):
            name = '%s %s step' % (model, 'imperative' if not hyb else 'hybridized static' + (' + CUDA graphs'
                                                                                             if graphs else ''))
            try:  # (a failing row is reported and the others still run)
                ours = _gluon_step(mx, model, hyb, graphs=graphs, **kw)
                m_ours, m_twin = _paired(ours, graphed_twin if graphs else twin, args.steps)
            except Exception as e:
                out['rows'].append({'name': name, 'error': '%s: %s' % (type(e).__name__, e)})
                print('%-48s FAILED %s: %s' % (name, type(e).__name__, str(e)[:300]))
                dump()
                continue
            row = {'name': name, 'mxcompat_ms': m_ours, 'torch_ms': m_twin, 'ratio': m_ours / m_twin}
            if args.profile:
                table = model == 'resnet50' and hyb and not graphs
                row['kernels'] = [_kernels(ours, table and 'mxcompat ' + name),
                                  _kernels(graphed_twin if graphs else twin, table and 'torch ' + name)]
            out['rows'].append(row)
            print('%-48s %8.3fms %8.3fms %7.2f%s' % (name, m_ours, m_twin, m_ours / m_twin,
                                                   '  kernels %s' % row['kernels'] if args.profile else ''))
            sys.stdout.flush()
            dump()
    for name, (ours, twin) in _per_call(mx, torch).items():
        out['rows'].append({'name': name, 'mxcompat_us': ours, 'torch_us': twin, 'ratio': ours / twin})
        print('%-48s %8.2fus %8.2fus %7.2f' % (name, ours, twin, ours / twin))
    dump()
    return 0


if __name__ == '__main__':
    sys.exit(main())
