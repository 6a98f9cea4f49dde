"""The workloads the comparison runner times: each one written ONCE as MXNet code taking the module ``mx`` (run
with ``mxcompat`` in one process and with the real ``mxnet`` in another), plus its native-torch twin.

A workload is registered with ``@workload(area, ...)`` on ``setup(mx, size) -> step`` and its twin with
``@<workload>.torch`` on ``twin(torch, size) -> step``. ``size`` is 'tiny' (smoke tests: the smallest shapes that
still exercise the code), 'small' (the shapes the targets are stated for) or 'full' (larger). ``step()`` runs the
workload once; the runner calls ``mx.nd.waitall()`` after a block of steps so MXNet's asynchronous engine is timed to
completion.

This module must import with only numpy and the standard library: the real MXNet's environment has no torch.
Other areas register their workloads in ``benchmarks/workloads_<area>.py`` (same rules: no torch or mxcompat
import at module level, ``from benchmarks.workloads import workload``); ``load_all()`` imports those modules.
"""
import ast
import atexit
import glob
import importlib
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = ('tiny', 'small', 'full')
SIDES = ('mxcompat', 'torch', 'mxnet')
REGISTRY = {}


class Workload:
    """One registered workload. ``target``/``slack``: mxcompat should take at most ``torch * target + slack``
    seconds; ``number``/``repeat`` fix the calls per timed block / cap the blocks (for slow workloads);
    ``nbytes(size)`` gives the bytes moved per call, for throughput."""

    def __init__(self, name, area, setup, target=None, slack=0.0, number=None, repeat=None, nbytes=None, doc=None):
        self.name, self.area, self.setup = name, area, setup
        self.twin = None
        self.target, self.slack = target, slack
        self.number, self.repeat, self.nbytes = number, repeat, nbytes
        self.doc = doc or (setup.__doc__ or '').strip().split('\n')[0]

    def torch(self, twin):
        """Decorator registering the native-torch twin ``twin(torch, size) -> step``."""
        self.twin = twin
        return self

    def limit(self, torch_seconds):
        """The largest mxcompat time that meets the target, or None without a target."""
        return None if self.target is None else torch_seconds * self.target + self.slack

    def __repr__(self):
        return 'Workload(%r)' % self.name


def workload(area, name=None, **kw):
    """Register ``setup(mx, size) -> step`` as workload ``area:name`` (name defaults to the function's)."""
    def deco(setup):
        w = Workload('%s:%s' % (area, name or setup.__name__), area, setup, **kw)
        if w.name in REGISTRY:
            raise ValueError('workload %s is registered twice' % w.name)
        REGISTRY[w.name] = w
        return w
    return deco


def load_all():
    """Import the extra ``benchmarks/workloads_*.py`` registrations; returns REGISTRY."""
    for path in sorted(glob.glob(os.path.join(HERE, 'workloads_*.py'))):
        importlib.import_module('benchmarks.' + os.path.basename(path)[:-3])
    return REGISTRY


def select(areas=None, names=None):
    """Registered workloads in registration order, filtered by area names and/or substrings of the name."""
    load_all()
    out = list(REGISTRY.values())
    if areas:
        unknown = set(areas) - {w.area for w in out}
        if unknown:
            raise ValueError('unknown area(s) %s; known: %s' % (', '.join(sorted(unknown)), ', '.join(areas_of(out))))
        out = [w for w in out if w.area in areas]
    if names:
        out = [w for w in out if any(n in w.name for n in names)]
    return out


def areas_of(workloads):
    seen = []
    for w in workloads:
        if w.area not in seen:
            seen.append(w.area)
    return seen


def side_module(side):
    """The module a side's workloads receive: mxcompat or mxnet as ``mx``, or torch for the twin."""
    return importlib.import_module({'mxcompat': 'mxcompat', 'mxnet': 'mxnet', 'torch': 'torch'}[side])


def instantiate(w, side, size):
    """``(step, sync)`` for workload ``w`` on ``side``; None when the side has no version of it."""
    mod = side_module(side)
    if side == 'torch':
        if w.twin is None:
            return None
        return w.twin(mod, size), _no_sync
    return w.setup(mod, size), mod.nd.waitall


def _no_sync():
    pass


def pick(size, tiny, small, full=None):
    return {'tiny': tiny, 'small': small, 'full': small if full is None else full}[size]


def _rand(*shape):
    return np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)


# ---- tiny eager ops on 8x8: the per-call overhead (issue 2: at most 1.5x torch) -----------------------------------
TINY = (8, 8)


def _tiny(name, mx_step, torch_step, doc):
    @workload('tiny', name=name, target=1.5, doc=doc)
    def setup(mx, size):
        return mx_step(mx, mx.nd.ones(TINY), mx.nd.ones(TINY))

    @setup.torch
    def twin(torch, size):
        return torch_step(torch, torch.ones(TINY), torch.ones(TINY))


# (name, (mx, a, b) -> step, (torch, a, b) -> step, what): the steps are the bare expression, no extra call level
_tiny('add', lambda mx, a, b: lambda: a + b, lambda t, a, b: lambda: a + b, 'a + b')
_tiny('mul_scalar', lambda mx, a, b: lambda: a * 2, lambda t, a, b: lambda: a * 2, 'a * 2')
_tiny('slice', lambda mx, a, b: lambda: a[1:3], lambda t, a, b: lambda: a[1:3], 'a[1:3]')
_tiny('zeros', lambda mx, a, b: lambda: mx.nd.zeros(TINY), lambda t, a, b: lambda: t.zeros(TINY), 'nd.zeros((8, 8))')
_tiny('sum_axis', lambda mx, a, b: lambda: mx.nd.sum(a, axis=1), lambda t, a, b: lambda: a.sum(dim=1),
      'nd.sum(a, axis=1)')
_tiny('asnumpy', lambda mx, a, b: a.asnumpy, lambda t, a, b: lambda: a.numpy().copy(), 'a.asnumpy() (a copy)')


# ---- mid-size ops: the kernel should dominate (target 1.1x torch) -------------------------------------------------
def _image(size):
    return pick(size, (2, 4, 8, 8), (16, 32, 32, 32), (32, 64, 56, 56))


@workload('ops', target=1.1)
def conv3x3(mx, size):
    """Convolution 3x3, pad 1, as many filters as input channels, with bias (NCHW)."""
    shape = _image(size)
    x, w, b = mx.nd.array(_rand(*shape)), mx.nd.array(_rand(shape[1], shape[1], 3, 3)), mx.nd.array(_rand(shape[1]))
    return lambda: mx.nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=shape[1])


@conv3x3.torch
def _(torch, size):
    shape = _image(size)
    x, w = torch.from_numpy(_rand(*shape)), torch.from_numpy(_rand(shape[1], shape[1], 3, 3))
    b = torch.from_numpy(_rand(shape[1]))
    return lambda: torch.nn.functional.conv2d(x, w, b, padding=1)


@workload('ops', target=1.1)
def maxpool(mx, size):
    """Max pooling 3x3, stride 2, pad 1."""
    x = mx.nd.array(_rand(*_image(size)))
    return lambda: mx.nd.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='max')


@maxpool.torch
def _(torch, size):
    x = torch.from_numpy(_rand(*_image(size)))
    return lambda: torch.nn.functional.max_pool2d(x, 3, 2, 1)


@workload('ops', target=1.1)
def batchnorm_train(mx, size):
    """BatchNorm forward in training mode (batch statistics, running statistics updated), eps 1e-3."""
    shape = _image(size)
    x = mx.nd.array(_rand(*shape))
    gamma, beta = mx.nd.ones(shape[1]), mx.nd.zeros(shape[1])
    mean, var = mx.nd.zeros(shape[1]), mx.nd.ones(shape[1])

    def step():
        with mx.autograd.train_mode():
            return mx.nd.BatchNorm(x, gamma, beta, mean, var, eps=1e-3, momentum=0.9, fix_gamma=False)
    return step


@batchnorm_train.torch
def _(torch, size):
    shape = _image(size)
    x = torch.from_numpy(_rand(*shape))
    gamma, beta = torch.ones(shape[1]), torch.zeros(shape[1])
    mean, var = torch.zeros(shape[1]), torch.ones(shape[1])
    return lambda: torch.nn.functional.batch_norm(x, mean, var, gamma, beta, training=True, momentum=0.1, eps=1e-3)


def _square(size):
    return pick(size, 8, 256, 1024)


@workload('ops', target=1.1)
def dot(mx, size):
    """nd.dot of two square float32 matrices (256x256 at 'small')."""
    n = _square(size)
    a, b = mx.nd.array(_rand(n, n)), mx.nd.array(_rand(n, n))
    return lambda: mx.nd.dot(a, b)


@dot.torch
def _(torch, size):
    n = _square(size)
    a, b = torch.from_numpy(_rand(n, n)), torch.from_numpy(_rand(n, n))
    return lambda: torch.mm(a, b)


def _rows(size):
    # as many elements as the image ops' input (512 x 1024 at 'small'): at 256 x 256 the kernel took 8 us and the
    # workload measured the per-call overhead, which 'tiny:sum_axis' covers
    return pick(size, (8, 8), (512, 1024), (2048, 3136))


@workload('ops', target=1.1)
def sum_axis(mx, size):
    """nd.sum over axis 1 of a float32 matrix (512 x 1024 at 'small')."""
    a = mx.nd.array(_rand(*_rows(size)))
    return lambda: mx.nd.sum(a, axis=1)


@sum_axis.torch
def _(torch, size):
    a = torch.from_numpy(_rand(*_rows(size)))
    return lambda: a.sum(dim=1)


# ---- symbol executor: forward + backward of a bound net vs the same net in torch eager (target 1.0x) --------------
def _mlp_spec(size):
    return pick(size, (4, 16, 8), (64, 784, 512), (256, 784, 1024))  # batch, inputs, hidden


def _cnn_spec(size):
    return pick(size, (2, 8), (32, 32), (64, 32))  # batch, image side; 3 input channels, 10 classes


def _mlp_symbol(mx, hidden):
    net = mx.sym.var('data')
    for i in (1, 2):
        net = mx.sym.Activation(mx.sym.FullyConnected(net, num_hidden=hidden, name='fc%d' % i), act_type='relu')
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10, name='fc3'), name='softmax')


def _cnn_symbol(mx):
    net = mx.sym.var('data')
    for i, ch in ((1, 32), (2, 64)):
        net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=ch, name='conv%d' % i)
        net = mx.sym.Activation(mx.sym.BatchNorm(net, fix_gamma=False, name='bn%d' % i), act_type='relu')
        net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max')
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=10, name='fc')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def _bound(mx, sym, data_shape):
    """Executor of ``sym`` bound for training, arguments filled with small random values, labels in 0..9. Only the
    parameters get gradients, as in the torch twin (and as Module binds)."""
    req = {n: 'null' if n in ('data', 'softmax_label') else 'write' for n in sym.list_arguments()}
    ex = sym.simple_bind(mx.cpu(), grad_req=req, data=data_shape, softmax_label=(data_shape[0],))
    rng = np.random.RandomState(0)
    for name, arr in ex.arg_dict.items():
        if name == 'softmax_label':
            arr[:] = rng.randint(0, 10, arr.shape).astype(np.float32)
        else:
            arr[:] = rng.uniform(-0.1, 0.1, arr.shape).astype(np.float32)

    def step():
        ex.forward(is_train=True)
        ex.backward()
    return step


def _torch_train_step(torch, net, x):
    """Eager forward + backward with the loss whose gradient is SoftmaxOutput's (softmax - onehot, not averaged)."""
    y = torch.from_numpy(np.random.RandomState(0).randint(0, 10, x.shape[0])).long()

    def step():
        for p in net.parameters():
            p.grad = None
        torch.nn.functional.cross_entropy(net(x), y, reduction='sum').backward()
    return step


@workload('symbol', target=1.0)
def mlp_fwd_bwd(mx, size):
    """Bound MLP (2 hidden ReLU layers, 10 classes, SoftmaxOutput): forward(is_train=True) + backward."""
    batch, inputs, hidden = _mlp_spec(size)
    return _bound(mx, _mlp_symbol(mx, hidden), (batch, inputs))


@mlp_fwd_bwd.torch
def _(torch, size):
    batch, inputs, hidden = _mlp_spec(size)
    nn = torch.nn
    net = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                        nn.Linear(hidden, 10))
    return _torch_train_step(torch, net, torch.from_numpy(_rand(batch, inputs)))


@workload('symbol', target=1.0)
def cnn_fwd_bwd(mx, size):
    """Bound CNN (2 x [conv3x3, BatchNorm, ReLU, maxpool 2], FC 10, SoftmaxOutput): forward + backward."""
    batch, side = _cnn_spec(size)
    return _bound(mx, _cnn_symbol(mx), (batch, 3, side, side))


@cnn_fwd_bwd.torch
def _(torch, size):
    batch, side = _cnn_spec(size)
    nn = torch.nn
    net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32, eps=1e-3, momentum=0.1), nn.ReLU(),
                        nn.MaxPool2d(2, 2), nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64, eps=1e-3),
                        nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(64 * (side // 4) ** 2, 10)).train()
    return _torch_train_step(torch, net, torch.from_numpy(_rand(batch, 3, side, side)))


# ---- nd.save / nd.load of a parameter file vs torch.save / torch.load (throughput) --------------------------------
SAVE_ARRAYS = 25  # a parameter dict of 25 float32 arrays


def _save_elems(size):
    return pick(size, 64, 1 << 20, 4 << 20)  # per array: 100 MB in all at 'small', 400 MB at 'full'


def _save_nbytes(size):
    return SAVE_ARRAYS * _save_elems(size) * 4


def _params(size):
    rng = np.random.RandomState(0)
    return {'arg:w%02d' % i: rng.uniform(-1, 1, _save_elems(size)).astype(np.float32) for i in range(SAVE_ARRAYS)}


def _scratch(suffix):
    fd, path = tempfile.mkstemp(prefix='mxcompat-bench-', suffix=suffix)
    os.close(fd)
    atexit.register(lambda: os.path.exists(path) and os.remove(path))
    return path


@workload('save_load', nbytes=_save_nbytes, repeat=5)
def nd_save(mx, size):
    """nd.save of a dict of 25 float32 arrays (100 MB at 'small') to a local file."""
    data = {k: mx.nd.array(v) for k, v in _params(size).items()}
    path = _scratch('.params')
    return lambda: mx.nd.save(path, data)


@nd_save.torch
def _(torch, size):
    data = {k: torch.from_numpy(v) for k, v in _params(size).items()}
    path = _scratch('.pt')
    return lambda: torch.save(data, path)


@workload('save_load', nbytes=_save_nbytes, repeat=5)
def nd_load(mx, size):
    """nd.load of the same file (in the page cache), every array materialised."""
    path = _scratch('.params')
    mx.nd.save(path, {k: mx.nd.array(v) for k, v in _params(size).items()})
    return lambda: mx.nd.load(path)


@nd_load.torch
def _(torch, size):
    path = _scratch('.pt')
    torch.save({k: torch.from_numpy(v) for k, v in _params(size).items()}, path)
    return lambda: torch.load(path)


# ---- import time, in a fresh interpreter (target: import torch + 0.3 s) -------------------------------------------
def _import_step(module_name):
    env = dict(os.environ)
    # time what an installed package costs: cached bytecode allowed (this sandbox may set PYTHONDONTWRITEBYTECODE)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    env['PYTHONPATH'] = os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p)
    cmd = [sys.executable, '-c', 'import %s' % module_name]
    return lambda: subprocess.run(cmd, env=env, cwd=ROOT, check=True)


@workload('import', target=1.0, slack=0.3, number=1, repeat=3)
def import_time(mx, size):
    """``python -c 'import mxcompat'`` (or mxnet / torch) in a new process, interpreter start included."""
    return _import_step(mx.__name__)


@import_time.torch
def _(torch, size):
    return _import_step('torch')


# ---- one optimizer step over ResNet-18's parameter shapes (bench_optimizer.py's workload; target 1.1x) ------------
def resnet18_shapes():
    """bench_optimizer.resnet18_shapes, taken from its source: that module imports torch, absent beside MXNet."""
    path = os.path.join(HERE, 'bench_optimizer.py')
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == 'resnet18_shapes')
    scope = {}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), path, 'exec'), scope)
    return scope['resnet18_shapes']()


def _opt_shapes(size):
    return pick(size, [(4, 3), (4,)], resnet18_shapes())


OPT_RULES = {  # bench_optimizer.RULES in MXNet's spelling
    'sgd_momentum': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}),
    'adam': ('adam', {'learning_rate': 1e-3, 'wd': 1e-4}),
}


def _optimizer(rule):
    @workload('optimizer', name=rule, target=1.1)
    def setup(mx, size):
        rng = np.random.RandomState(0)
        shapes = _opt_shapes(size)
        ws = [mx.nd.array(rng.standard_normal(s).astype(np.float32) * 0.1) for s in shapes]
        gs = [mx.nd.array(rng.standard_normal(s).astype(np.float32)) for s in shapes]
        name, kw = OPT_RULES[rule]
        upd = mx.optimizer.get_updater(mx.optimizer.create(name, **kw))
        idx = list(range(len(ws)))
        upd(idx, gs, ws)  # creates the states, as the first step of training does
        return lambda: upd(idx, gs, ws)
    setup.doc = 'Updater step, all %s parameters in one call (as gluon.Trainer); twin: torch.optim foreach' % rule

    @setup.torch
    def twin(torch, size):  # ResNet-18's shapes at every size: bench_optimizer.torch_step has no size
        from benchmarks.bench_optimizer import torch_step
        return torch_step(rule)


for _rule in OPT_RULES:
    _optimizer(_rule)


# ---- Module.fit: one epoch of an MLP vs a native torch loop -------------------------------------------------------
def _fit_spec(size):
    return pick(size, (64, 32, 16), (4096, 64, 128), (16384, 64, 128))  # samples, batch, hidden; 100 features


def _fit_data(size):
    samples = _fit_spec(size)[0]
    rng = np.random.RandomState(0)
    return rng.uniform(-1, 1, (samples, 100)).astype(np.float32), rng.randint(0, 10, samples).astype(np.float32)


def fit_module(mx, size, ctx):
    """One epoch of ``mx.mod.Module.fit`` on ``ctx`` over an NDArrayIter of host arrays (MXNet's executor copies
    each batch to the context): SGD lr 0.1, accuracy metric, the MLP of ``_mlp_symbol``."""
    import logging
    quiet = logging.getLogger('benchmarks.fit')  # refitting a bound, initialised module warns each time
    quiet.setLevel(logging.ERROR)
    _, batch, hidden = _fit_spec(size)
    x, y = _fit_data(size)
    it = mx.io.NDArrayIter(x, y, batch_size=batch, label_name='softmax_label')
    mod = mx.mod.Module(_mlp_symbol(mx, hidden), context=ctx, logger=quiet)

    def step():
        it.reset()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            mod.fit(it, num_epoch=1, optimizer='sgd', optimizer_params={'learning_rate': 0.1}, eval_metric='acc')
    return step


def fit_torch(torch, size, device='cpu'):
    """The twin of ``fit_module``: a native loop over host batches (copied to ``device``), cross entropy, SGD, and
    the accuracy read back each batch as MXNet's metric reads it."""
    _, batch, hidden = _fit_spec(size)
    x, y = _fit_data(size)
    x, y = torch.from_numpy(x), torch.from_numpy(y).long()
    nn = torch.nn
    net = nn.Sequential(nn.Linear(100, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                        nn.Linear(hidden, 10)).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    on_host = torch.device(device).type == 'cpu'

    def step():
        correct = 0
        for i in range(0, x.shape[0], batch):
            xb, yb = x[i:i + batch], y[i:i + batch]
            if not on_host:
                xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            out = net(xb)
            torch.nn.functional.cross_entropy(out, yb).backward()
            opt.step()
            correct += int((out.argmax(1) == yb).sum())
        return correct / x.shape[0]
    return step


@workload('module', target=1.1, repeat=7)
def fit_epoch(mx, size):
    """mx.mod.Module.fit, one epoch over NDArrayIter (SGD lr 0.1, accuracy metric) of a 2-hidden-layer MLP."""
    return fit_module(mx, size, mx.cpu())


@fit_epoch.torch
def _(torch, size):
    return fit_torch(torch, size)


def _sparse_spec(size):
    return pick(size, (1000, 8, 4), (1000000, 1024, 40), (1000000, 8192, 40))  # features, batch, entries per row


def _sparse_batch(size):
    feats, batch, per_row = _sparse_spec(size)
    rng = np.random.RandomState(0)
    cols = np.sort(rng.randint(0, feats, (batch, per_row)), 1).ravel()
    return (rng.uniform(0, 1, batch * per_row).astype(np.float32), cols, np.arange(batch + 1) * per_row,
            rng.randint(0, 2, batch).astype(np.float32))


@workload('module', target=1.1)
def sparse_linear_step(mx, size):
    """A Module training step of example/sparse/linear_classification's model: csr batch (1M features, 40 entries a
    row) times a row_sparse weight, softmax, lazy SGD with momentum on the rows the batch touches."""
    feats, batch, _ = _sparse_spec(size)
    values, cols, indptr, labels = _sparse_batch(size)
    x = mx.sym.Variable('data', stype='csr')
    w = mx.sym.Variable('weight', shape=(feats, 2), stype='row_sparse')
    b = mx.sym.Variable('bias', shape=(2,))
    net = mx.sym.SoftmaxOutput(mx.sym.broadcast_add(mx.sym.sparse.dot(x, w), b), mx.sym.Variable('softmax_label'))
    mod = mx.mod.Module(net, data_names=['data'], label_names=['softmax_label'], context=mx.cpu())
    mod.bind(data_shapes=[('data', (batch, feats))], label_shapes=[('softmax_label', (batch,))])
    mod.init_params(mx.init.Normal(0.01))
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    data = mx.io.DataBatch([mx.nd.sparse.csr_matrix((values, cols, indptr), shape=(batch, feats))],
                           [mx.nd.array(labels)])

    def step():
        mod.forward_backward(data)
        mod.update()
    return step


@sparse_linear_step.torch
def _(torch, size):
    """The same product as torch's sparse tools do it: embedding_bag (sum, per-entry weights) with a sparse
    gradient, cross entropy, SGD with momentum (which updates every row: torch has no lazy rule)."""
    feats, batch, _ = _sparse_spec(size)
    values, cols, indptr, labels = _sparse_batch(size)
    values, cols, offsets = torch.from_numpy(values), torch.from_numpy(cols), torch.from_numpy(indptr[:-1])
    labels = torch.from_numpy(labels).long()
    weight = torch.nn.Parameter(torch.randn(feats, 2) * 0.01)
    bias = torch.nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([weight, bias], lr=0.1 / batch, momentum=0.9)

    def step():
        opt.zero_grad()
        out = torch.nn.functional.embedding_bag(cols, weight, offsets, mode='sum', sparse=True,
                                                per_sample_weights=values) + bias
        torch.nn.functional.cross_entropy(out, labels, reduction='sum').backward()
        opt.step()
    return step
