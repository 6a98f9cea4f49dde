"""GPU training steps and eager overheads, mxcompat beside native torch in one process: ``python -m benchmarks.gpu``,
or ``python -m benchmarks --device cuda`` for the CPU runs' table, JSON, plot and ``--compare``.

Each workload is timed with CUDA events around single steps (median of ``--steps`` after warm-up), the sides
alternating step by step so that clocks and caches treat them alike. Rows: the MLP, LeNet, CIFAR ResNet-18, LSTM
language model and Transformer encoder (6 layers of 512 units, 8 heads, 128 tokens x 64) of ``workloads_gluon``
(imperative, hybridized with ``static_alloc``/``static_shape``, and so hybridized with ``MXNET_ENABLE_CUDA_GRAPHS=1``;
every row against torch eager, the graphed rows also beside the torch model captured by
``make_graphed_callables``), an epoch of ``Module.fit`` (``workloads.fit_module``), model-zoo ResNet-50 v1 at
224x224 against torchvision's ResNet-50 where torchvision is installed (training with SGD and with Adam, and batch-1
prediction with and without CUDA graphs), float16 AMP training steps (``amp.init``, ``init_trainer``,
``scale_loss``) against ``torch.autocast`` with a ``GradScaler`` (``--amp-models``, timed in a child process), and
the per-call cost of ``a + b`` and ``nd.zeros`` on 8x8 arrays. Each row shows issue 34's target (``target``).
``--profile`` adds the kernel count of one step of each side (torch.profiler). Writes a table to stdout and JSON to
``--json``. Needs CUDA.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

from benchmarks import workloads as W
from benchmarks import workloads_gluon as wg

DEVICE = 'cuda'  # (the steps also build on 'cpu', for a smoke test without a GPU)
SIZES = {'transformer': 'full'}  # (``workloads_gluon`` sizes of the models on the GPU; the others: 'small')


def _size(model):
    return SIZES.get(model, 'small')


def _batch(model, x):
    return x.shape[1] if model in wg.SEQUENCES else x.shape[0]


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


def _paired(ours, twins, steps, warmup=5):
    """Medians (ms) of ``ours`` and of each of ``twins``, alternating in blocks of one step."""
    fns = [ours] + list(twins)
    for _ in range(warmup):
        for fn in fns:
            fn()
    times = [[] for _ in fns]
    for _ in range(steps):
        for fn, t in zip(fns, times):
            t += _cuda_ms(fn, 1)
    return [statistics.median(t) for t in times]


def _gluon_net_on(mx, model, ctx, hybridize=True, graphs=False):
    """A model's Gluon net on ``ctx``, hybridized with ``static_alloc``/``static_shape`` (CUDA graphs or not)."""
    net = (mx.gluon.model_zoo.vision.resnet50_v1() if model == 'resnet50' else
           wg.gluon_net(mx, model, _size(model)))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    if hybridize:
        prev = os.environ.get('MXNET_ENABLE_CUDA_GRAPHS')
        os.environ['MXNET_ENABLE_CUDA_GRAPHS'] = '1' if graphs else '0'  # (read by hybridize)
        net.hybridize(static_alloc=True, static_shape=True)
        if prev is None:
            del os.environ['MXNET_ENABLE_CUDA_GRAPHS']
        else:
            os.environ['MXNET_ENABLE_CUDA_GRAPHS'] = prev
    return net


def _image(batch):
    return np.random.RandomState(0).uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32)


def _gluon_data(model, batch):
    """Inputs and float32 labels of a model's step (ResNet-50: ``batch`` 224x224 images)."""
    if model == 'resnet50':
        return _image(batch), np.random.RandomState(0).randint(0, 1000, batch).astype(np.float32)
    return wg.data(model, _size(model))


def _gluon_step(mx, model, hybridize, batch=None, graphs=False, adam=False):
    ctx = mx.gpu(0) if DEVICE == 'cuda' else mx.cpu()
    x, y = _gluon_data(model, batch)
    net = _gluon_net_on(mx, model, ctx, hybridize, graphs)
    n = _batch(model, x)
    trainer = mx.gluon.Trainer(net.collect_params(), *(('adam', {'learning_rate': 1e-3}) if adam else
                                                       ('sgd', {'learning_rate': 0.05, 'momentum': 0.9})))
    nd, autograd = mx.nd, mx.autograd
    inputs, label = nd.array(x, ctx=ctx), nd.array(y, ctx=ctx)

    def step():
        with autograd.record():
            loss = -nd.pick(nd.log_softmax(net(inputs)), label)
        loss.backward()
        trainer.step(n)
    step()
    return step


def _torch_twin(torch, model, batch):
    """(the torch model, its inputs, its int64 labels) on the device: torchvision's ResNet-50 for 'resnet50'."""
    dev = torch.device(DEVICE)
    if model == 'resnet50':
        import torchvision
        net = torchvision.models.resnet50()
    else:
        net = wg.torch_net(torch, model, _size(model))
    xs, ys = _gluon_data(model, batch)
    x = torch.from_numpy(xs).to(dev)
    return net.to(dev), x.long() if model in wg.SEQUENCES else x, torch.from_numpy(ys).long().to(dev)


def _torch_step(torch, model, batch=None, graphs=False, adam=False):
    net, x, y = _torch_twin(torch, model, batch)
    n = _batch(model, x)
    if graphs:  # (the model's forward and backward as CUDA graphs; the loss and the update stay eager, as ours)
        net = torch.cuda.make_graphed_callables(net, (x,))
    opt = (torch.optim.Adam(net.parameters(), lr=1e-3, foreach=True) if adam else
           torch.optim.SGD(net.parameters(), lr=0.05 / n, momentum=0.9, foreach=True))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(x), y, reduction='sum')
        loss.backward()
        opt.step()
    step()
    return step


def _gluon_infer(mx, batch=1, graphs=False):
    """ResNet-50 v1 prediction of one batch (predict mode, outside autograd), hybridized static."""
    ctx = mx.gpu(0) if DEVICE == 'cuda' else mx.cpu()
    net = _gluon_net_on(mx, 'resnet50', ctx, hybridize=True, graphs=graphs)
    x = mx.nd.array(_image(batch), ctx=ctx)

    def step():
        return net(x)
    step()
    return step


def _torch_infer(torch, batch=1):
    import torchvision
    dev = torch.device(DEVICE)
    net = torchvision.models.resnet50().to(dev).eval()
    x = torch.from_numpy(_image(batch)).to(dev)

    def step():
        with torch.no_grad():
            return net(x)
    step()
    return step


def _gluon_amp_step(mx, model, batch=64):
    """A training step under ``amp.init()`` (float16), ``amp.init_trainer`` and ``amp.scale_loss``, hybridized
    static. ``amp.init`` changes the operators for the whole process: call it in a process of its own."""
    from mxcompat.contrib import amp
    amp.init()
    ctx = mx.gpu(0) if DEVICE == 'cuda' else mx.cpu()
    net = _gluon_net_on(mx, model, ctx)
    x, y = _gluon_data(model, batch)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9})
    amp.init_trainer(trainer)
    nd, autograd = mx.nd, mx.autograd
    inputs, label = nd.array(x, ctx=ctx), nd.array(y, ctx=ctx)
    n = _batch(model, x)

    def step():
        with autograd.record():
            loss = -nd.pick(nd.log_softmax(net(inputs).astype('float32')), label)
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)
        trainer.step(n)
    step()
    return step


def _torch_amp_step(torch, model, batch=64):
    """The twin under ``torch.autocast`` (float16) with a ``GradScaler``."""
    net, x, y = _torch_twin(torch, model, batch)
    n = _batch(model, x)
    opt = torch.optim.SGD(net.parameters(), lr=0.05 / n, momentum=0.9, foreach=True)
    scaler = torch.amp.GradScaler(DEVICE)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(DEVICE, dtype=torch.float16):
            out = net(x)
        loss = torch.nn.functional.cross_entropy(out.float(), y, reduction='sum')
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    step()
    return step


def _module_fit(mx):
    """One epoch of ``Module.fit`` on the GPU: ``workloads.fit_module`` at size 'small' (4,096 host samples,
    batches of 64 copied to the device, the accuracy read back each batch)."""
    return W.fit_module(mx, 'small', mx.gpu(0) if DEVICE == 'cuda' else mx.cpu())


def _torch_fit(torch):
    return W.fit_torch(torch, 'small', DEVICE)


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


def _amp_rows(models, steps):
    """The AMP rows, timed in a child process (``amp.init`` stays on in the process that calls it)."""
    import subprocess
    import tempfile
    with tempfile.NamedTemporaryFile(suffix='.json') as f:
        r = subprocess.run([sys.executable, '-m', 'benchmarks.gpu', '--amp-only', '--models', models, '--steps',
                            str(steps), '--json', f.name], capture_output=True, text=True, timeout=600)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            print('AMP rows FAILED (rc %d): %s' % (r.returncode, r.stderr[-800:]))
        try:
            with open(f.name) as fh:
                return json.load(fh)['rows']
        except (OSError, ValueError, KeyError):
            return []


def target(name):
    """Issue 34's target for a row (its ratio to torch eager, or to autocast for AMP): ResNet-50 training 1.00,
    batch-1 prediction with CUDA graphs 0.5, the MLP and LSTM steps with CUDA graphs 0.3, every other row 1.05."""
    if 'CUDA graphs' in name and ('batch-1' in name or name.startswith(('mlp ', 'lstm '))):
        return 0.5 if 'batch-1' in name else 0.3
    return 1.0 if name.startswith('resnet50') and 'step' in name else 1.05


def to_benchmark_json(out):
    """The rows of a run as pytest-benchmark's JSON layout, as ``python -m benchmarks`` writes for the CPU (group
    'gpu:<row>', the two sides with their medians in seconds, the ratio as the paired ratio), so that
    ``--compare`` and ``ratios.py`` read GPU runs too."""
    benches = []
    for r in out['rows']:
        if 'ratio' not in r:
            continue
        scale = 1e-3 if 'mxcompat_ms' in r else 1e-6
        unit = 'ms' if 'mxcompat_ms' in r else 'us'
        for side in ('mxcompat', 'torch'):
            extra = {'side': side, 'area': 'gpu', 'timer': 'cuda-events', 'target': r.get('target', target(r['name'])),
                     'slack': 0.0, 'doc': r['name']}
            if side == 'mxcompat':
                extra['paired_ratio'] = {'torch': r['ratio']}
                if 'kernels' in r:
                    extra['kernels'] = r['kernels']
            benches.append({'group': 'gpu:' + r['name'], 'name': 'gpu:%s[%s]' % (r['name'], side), 'param': side,
                            'params': {'side': side}, 'extra_info': extra,
                            'stats': {'median': r['%s_%s' % (side, unit)] * scale}})
    errors = [{'group': 'gpu:' + r['name'], 'side': 'mxcompat', 'error': r['error']} for r in out['rows']
              if 'error' in r]
    return {'machine_info': {'device': out['device'], 'torch': out['torch']}, 'benchmarks': benches,
            'errors': errors}


class _Table:
    """The rows measured so far: printed as they come, written to ``--json`` after each."""

    def __init__(self, args, out):
        self.args, self.out = args, out

    def dump(self):
        if self.args.json:
            with open(self.args.json, 'w') as f:
                json.dump(self.out, f, indent=1)

    def row(self, name, build_ours, twin, profile_table=False, graphed_twin=None):
        """Times ``build_ours()``'s step beside ``twin`` (and ``graphed_twin``, torch's CUDA-graphed step, shown
        beside: the targets are ratios to torch eager); a failing row is reported and the others still run."""
        try:
            ours = build_ours()
            medians = _paired(ours, [twin] + ([graphed_twin] if graphed_twin else []), self.args.steps)
        except Exception as e:
            self.out['rows'].append({'name': name, 'error': '%s: %s' % (type(e).__name__, e)})
            print('%-48s FAILED %s: %s' % (name, type(e).__name__, str(e)[:300]))
            self.dump()
            return
        m_ours, m_twin = medians[:2]
        r = {'name': name, 'mxcompat_ms': m_ours, 'torch_ms': m_twin, 'ratio': m_ours / m_twin,
             'target': target(name)}
        graphed = ''
        if graphed_twin:
            r['torch_graphed_ms'] = medians[2]
            graphed = '  (torch graphed %.3fms: %.2f)' % (medians[2], m_ours / medians[2])
        if self.args.profile:
            r['kernels'] = [_kernels(ours, profile_table and 'mxcompat ' + name),
                            _kernels(twin, profile_table and 'torch ' + name)]
        self.out['rows'].append(r)
        print('%-48s %8.3fms %8.3fms %7.2f %7s%s%s' % (name, m_ours, m_twin, m_ours / m_twin, _verdict(r), graphed,
                                                      '  kernels %s' % r['kernels'] if self.args.profile else ''))
        sys.stdout.flush()
        self.dump()


def _verdict(r):
    return ('<=%gx ' % r['target']) + ('ok' if r['ratio'] <= r['target'] else 'over')


def _model_rows(table, mx, torch, model):
    if model == 'module':
        table.row('Module.fit epoch (MLP, 64 batches of 64)', lambda: _module_fit(mx), _torch_fit(torch))
        return
    kw = {'batch': 64} if model == 'resnet50' else {}
    try:
        twin = _torch_step(torch, model, **kw)
    except ImportError as e:
        print('%-48s skipped: %s' % (model, e))
        return
    try:
        graphed_twin = _torch_step(torch, model, graphs=True, **kw)
    except RuntimeError as e:
        print('%-48s torch model not capturable (%s)' % (model, e))
        graphed_twin = None
    for hyb, graphs in ((False, False), (True, False), (True, True)):
        name = '%s %s step' % (model, 'imperative' if not hyb else 'hybridized static' + (' + CUDA graphs'
                                                                                         if graphs else ''))
        table.row(name, lambda: _gluon_step(mx, model, hyb, graphs=graphs, **kw), twin,
                  model == 'resnet50' and hyb and not graphs, graphed_twin if graphs else None)
    if model == 'resnet50':  # Adam (torch's foreach Adam), then batch-1 prediction against torch eager
        table.row('resnet50 hybridized static step, Adam', lambda: _gluon_step(mx, model, True, adam=True, **kw),
                  _torch_step(torch, model, adam=True, **kw))
        infer_twin = _torch_infer(torch)
        for graphs in (False, True):
            table.row('resnet50 batch-1 inference, hybridized static%s' % (' + CUDA graphs' if graphs else ''),
                      lambda: _gluon_infer(mx, graphs=graphs), infer_twin)


def _amp_model_rows(table, mx, torch, model):
    try:
        twin = _torch_amp_step(torch, model)
    except ImportError as e:
        print('%-48s skipped: %s' % (model + ' AMP', e))
        return
    table.row('%s AMP float16 step, hybridized static (torch: autocast + GradScaler)' % model,
              lambda: _gluon_amp_step(mx, model), twin)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--steps', type=int, default=20)
    p.add_argument('--models', default='resnet50,mlp,lstm,transformer,resnet18,lenet,module',
                   help='in this order (the rows the targets name first: a run cut by a time limit keeps them)')
    p.add_argument('--amp-models', default='resnet50,lstm', help='models of the AMP rows (none: "")')
    p.add_argument('--amp-only', action='store_true', help=argparse.SUPPRESS)
    p.add_argument('--profile', action='store_true')
    p.add_argument('--json')
    args = p.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print('benchmarks.gpu: no CUDA device')
        return 2
    torch.backends.cudnn.benchmark = True
    import mxcompat as mx
    table = _Table(args, {'device': torch.cuda.get_device_name(0), 'torch': torch.__version__, 'rows': []})
    if args.amp_only:
        for model in filter(None, args.models.split(',')):
            _amp_model_rows(table, mx, torch, model)
        table.dump()
        return 0
    print('%s, torch %s' % (table.out['device'], table.out['torch']))
    print('%-48s %10s %10s %7s %7s' % ('workload', 'mxcompat', 'torch', 'ratio', 'target'))
    for name, (ours, twin) in _per_call(mx, torch).items():
        r = {'name': name, 'mxcompat_us': ours, 'torch_us': twin, 'ratio': ours / twin, 'target': target(name)}
        table.out['rows'].append(r)
        print('%-48s %8.2fus %8.2fus %7.2f %7s' % (name, ours, twin, ours / twin, _verdict(r)))
    table.dump()
    for model in filter(None, args.models.split(',')):
        _model_rows(table, mx, torch, model)
    if args.amp_models:
        table.out['rows'] += _amp_rows(args.amp_models, args.steps)
        table.dump()
    return 0


if __name__ == '__main__':
    sys.exit(main())
