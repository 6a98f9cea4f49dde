"""Start-up: a short MXNet script in a new process (interpreter, ``import``, building a model, its first forward and a
second one), beside the same script in native torch. The first forward of a deferred-initialization Gluon model and
``Module.bind`` infer shapes by running operators on meta tensors. Most of torch's meta kernels are Python, and their
first call imports sympy (``torch._check``) or torch._dynamo (pointwise type promotion): about 0.5 s each, once per
process; mxcompat/operator/_meta.py answers the common layers' ops without them (``mlp_train``: a first training step,
with dropout, loss, backward and an optimizer update).

Target (issue 37): the first forward at most 0.3 s more than later ones, so a whole script at most the torch twin's
time + 0.3 s (``import mxcompat``) + 0.3 s. The torch twins use lazy modules (``nn.LazyLinear`` ...), torch's own
deferred initialization. ``benchmarks/bench_startup.py`` prints the time of each phase. Written once as MXNet code, so
``python -m benchmarks --areas startup --mxnet-python ...`` runs the same scripts on real MXNet 1.9.1. No torch or
mxcompat import at module level (see ``benchmarks/workloads.py``).
"""
import os
import subprocess
import sys

from benchmarks.workloads import ROOT, workload

# model -> (MXNet code building ``net`` and input ``x``, whether hybridized); ``mx``/``nn`` are in scope
_MLP = 'net = nn.{seq}()\nnet.add(nn.Dense(64, activation="relu"), nn.Dense(10))\nx = mx.nd.ones((8, 20))\n'
_CNN = ('net = nn.{seq}()\nnet.add(nn.Conv2D(8, 3), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2), '
        'nn.Flatten(), nn.Dense(10))\nx = mx.nd.ones((4, 3, 28, 28))\n')
GLUON = {
    'mlp': (_MLP.format(seq='Sequential'), False),
    'mlp_hybrid': (_MLP.format(seq='HybridSequential'), True),
    'cnn': (_CNN.format(seq='Sequential'), False),
    'cnn_hybrid': (_CNN.format(seq='HybridSequential'), True),
}
_SYM = ('data = mx.sym.var("data")\n'
        'net = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=64), act_type="relu")\n'
        'net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10), name="softmax")\n')
MODELS = tuple(GLUON) + ('mlp_train', 'module', 'simple_bind')
TIMED = ('mlp', 'cnn_hybrid', 'module')  # the runner's workloads (each run is a new process: a few suffice)

# The phases each script times: (name, MXNet code). ``first`` is the first forward (with the deferred initialization
# or the binding it needs), ``second`` the same forward again.
_TIMER = ('import json, time\n'
          'def _clock():\n'
          '    return time.perf_counter(), time.process_time()\n'
          '_t = [_clock()]\n')
_MARK = '_t.append(_clock())\n'
_REPORT = ('_w = [b[0] - a[0] for a, b in zip(_t, _t[1:])]\n'
           '_c = [b[1] - a[1] for a, b in zip(_t, _t[1:])]\n'
           'print("STARTUP " + json.dumps({"wall": _w, "cpu": _c}))\n')
PHASES = ('import', 'build', 'first', 'second')


def mx_script(model, module='mxcompat'):
    """The MXNet script of ``model`` for ``module`` ('mxcompat' or 'mxnet'), printing its phase times."""
    head = 'import %s as mx\nfrom %s.gluon import nn\n' % (module, module)
    if model in GLUON:
        build, hybrid = GLUON[model]
        build += 'net.initialize()\n' + ('net.hybridize()\n' if hybrid else '')
        run = 'net(x).wait_to_read()\n'
    elif model == 'mlp_train':
        build = (_MLP.format(seq='HybridSequential').replace('nn.Dense(10)', 'nn.Dropout(0.5), nn.Dense(10)')
                 + 'net.initialize()\nnet.hybridize()\n'
                 'trainer = mx.gluon.Trainer(net.collect_params(), "adam")\n'
                 'loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()\ny = mx.nd.ones((8,))\n')
        run = ('with mx.autograd.record():\n    loss = loss_fn(net(x), y)\n'
               'loss.backward()\ntrainer.step(8)\nmx.nd.waitall()\n')
    elif model == 'module':
        build = _SYM + 'mod = mx.mod.Module(net)\nbatch = mx.io.DataBatch([mx.nd.ones((8, 20))], [mx.nd.zeros((8,))])\n'
        run = ('if not mod.binded:\n'
               '    mod.bind(data_shapes=[("data", (8, 20))], label_shapes=[("softmax_label", (8,))])\n'
               '    mod.init_params()\n'
               'mod.forward(batch, is_train=False)\nmod.get_outputs()[0].wait_to_read()\n')
    else:  # simple_bind
        build = _SYM + 'ex = None\n'
        run = ('if ex is None:\n'
               '    ex = net.simple_bind(mx.cpu(), data=(8, 20))\n'
               'ex.forward(is_train=False, data=mx.nd.ones((8, 20)))[0].wait_to_read()\n')
    return _TIMER + head + _MARK + build + _MARK + run + _MARK + run + _MARK + _REPORT


def torch_script(model):
    """The native-torch twin: the same model with torch's lazy modules (its deferred initialization)."""
    head = 'import torch\nfrom torch import nn\ntorch.set_num_threads(1)\n'
    if model.startswith('mlp'):
        build = 'net = nn.Sequential(nn.LazyLinear(64), nn.ReLU(), nn.LazyLinear(10))\nx = torch.ones(8, 20)\n'
    elif model.startswith('cnn'):
        build = ('net = nn.Sequential(nn.LazyConv2d(8, 3), nn.LazyBatchNorm2d(), nn.ReLU(), nn.MaxPool2d(2), '
                 'nn.Flatten(), nn.LazyLinear(10))\nx = torch.ones(4, 3, 28, 28)\n')
    else:  # the symbol's shapes are given at bind: plain modules
        build = ('net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10), nn.Softmax(1))\n'
                 'x = torch.ones(8, 20)\n')
    run = 'with torch.no_grad():\n    net(x)\n'
    if model == 'mlp_train':
        build = ('net = nn.Sequential(nn.LazyLinear(64), nn.ReLU(), nn.Dropout(0.5), nn.LazyLinear(10))\n'
                 'x, y = torch.ones(8, 20), torch.ones(8, dtype=torch.long)\nopt = None\n')
        run = ('loss = nn.functional.cross_entropy(net(x), y)\n'
               'opt = opt or torch.optim.Adam(net.parameters())\nloss.backward()\nopt.step()\n')
    return _TIMER + head + _MARK + build + _MARK + run + _MARK + run + _MARK + _REPORT


def _env():
    env = dict(os.environ)
    env.pop('PYTHONDONTWRITEBYTECODE', None)  # as an installed package runs: cached bytecode (see _import_step)
    env['PYTHONPATH'] = os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p)
    env.setdefault('OMP_NUM_THREADS', '1')
    return env


def run_script(code, python=None):
    """Run ``code`` in a new interpreter; its phase times {'wall': [...], 'cpu': [...]} (seconds, PHASES order)."""
    import json
    r = subprocess.run([python or sys.executable, '-c', code], env=_env(), cwd=ROOT, capture_output=True, text=True,
                       check=False)
    if r.returncode:
        raise RuntimeError('start-up script failed:\n%s\n%s' % (code, r.stderr[-3000:]))
    line = [ln for ln in r.stdout.splitlines() if ln.startswith('STARTUP ')][-1]
    return json.loads(line[len('STARTUP '):])


def _register(model):
    @workload('startup', name=model, target=1.0, slack=0.6, number=1, repeat=3,
              doc='new process: import, build %s, forward twice (torch: lazy modules)' % model)
    def setup(mx, size):
        code = mx_script(model, mx.__name__)
        return lambda: run_script(code)

    @setup.torch
    def twin(torch, size):
        code = torch_script(model)
        return lambda: run_script(code)


for _m in TIMED:
    _register(_m)
