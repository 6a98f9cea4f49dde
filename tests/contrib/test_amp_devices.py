"""AMP training on each device (``amp.init()``, ``amp.init_trainer``, ``amp.scale_loss``, dynamic loss scaling):
the same Gluon script on gpu(0) gives the losses and parameters it gives on cpu(0), within float16's rounding.
``amp.init()`` patches the operators for the whole process, so each run is a subprocess."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SCRIPT = r'''
import json, sys
import numpy as np
import mxcompat as mx
from mxcompat import autograd, gluon
from mxcompat.contrib import amp
amp.init()
ctx = mx.gpu(0) if sys.argv[1] == 'gpu' else mx.cpu()
hybridize = sys.argv[2] == '1'
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Conv2D(8, 3, padding=1, use_bias=False), gluon.nn.BatchNorm(), gluon.nn.Activation('relu'),
        gluon.nn.GlobalAvgPool2D(), gluon.nn.Dense(16, activation='relu'), gluon.nn.Dense(4))
net.initialize(ctx=ctx)
rs = np.random.RandomState(0)
x = rs.uniform(-1, 1, (16, 3, 8, 8)).astype(np.float32)
y = rs.randint(0, 4, 16).astype(np.float32)
net(mx.nd.array(x[:2], ctx=ctx))
prs = np.random.RandomState(1)
for p in net.collect_params().values():
    p.set_data(mx.nd.array(prs.uniform(0.5, 1.5, p.shape) if p.name.endswith(('var', 'gamma'))
                           else prs.uniform(-0.3, 0.3, p.shape), ctx=ctx))
if hybridize:
    net.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
amp.init_trainer(trainer)
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
out = {'losses': [], 'scales': [], 'dtype': None}
for step in range(6):
    data, label = mx.nd.array(x, ctx=ctx), mx.nd.array(y, ctx=ctx)
    with autograd.record():
        pred = net(data)
        loss = loss_fn(pred, label)
        with amp.scale_loss(loss, trainer) as scaled:
            autograd.backward(scaled)
    trainer.step(16)
    out['dtype'] = np.dtype(pred.dtype).name
    out['losses'].append(float(loss.mean().asscalar()))
    out['scales'].append(float(trainer._amp_loss_scaler.loss_scale))
out['params'] = [p.data().astype('float32').asnumpy().tolist() for p in net.collect_params().values()]
print(json.dumps(out))
'''


def _run(device, hybridize):
    r = subprocess.run([sys.executable, '-c', _SCRIPT, device, '1' if hybridize else '0'], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.gpu
@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
def test_amp_training_on_gpu_gives_the_cpus_losses(hybridize):
    want, got = _run('cpu', hybridize), _run('gpu', hybridize)
    assert got['dtype'] == want['dtype'] == 'float16'
    assert got['scales'] == want['scales']
    np.testing.assert_allclose(got['losses'], want['losses'], rtol=2e-2, atol=2e-3)
    for g, w in zip(got['params'], want['params']):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=2e-2, atol=2e-3)


def test_amp_training_runs_on_the_cpu():
    got = _run('cpu', True)
    assert got['dtype'] == 'float16' and np.isfinite(got['losses']).all()
    assert got['losses'][-1] < got['losses'][0]
