"""AMP with parameters of deferred shape (Dense without in_units, Conv2D without in_channels, BatchNorm), written
against the MXNet 1.9.1 API and run on both real MXNet and mxcompat (MXCOMPAT=1 picks mxcompat); amp.init patches
the process, so each target runs in a process of its own:

    python amp_deferred_scenarios.py TARGET      prints the results (a JSON dict) for TARGET float16 or bfloat16
    tools/oracle/mxrun tests/contrib/amp_deferred_scenarios.py --gen
                                                 rewrites amp_deferred_mxnet.json beside it from real MXNet

MXNet's CPU build cannot run float16 FullyConnected/Convolution (it raises when the result is read), so under
float16 only dtypes and shapes are recorded; under bfloat16 the values too, and a training step with dynamic loss
scaling."""
import json
import os
import subprocess
import sys

import numpy as np

if os.environ.get('MXCOMPAT') == '1':
    import mxcompat as mx
    from mxcompat.contrib import amp
else:
    import mxnet as mx
    from mxnet.contrib import amp

BF16 = np.dtype([('bfloat16', np.uint16)])
HERE = os.path.dirname(os.path.abspath(__file__))


def dname(x):
    if hasattr(x, '_t'):  # mxcompat
        from mxcompat.base import dtype_name
        return dtype_name(x._t.dtype)
    return 'bfloat16' if x.dtype == BF16 else np.dtype(x.dtype).name


def f32(x):
    if dname(x) == 'bfloat16':
        x = mx.nd.amp_cast(x, dtype='float32')
    return x.asnumpy().astype(np.float32).tolist()


def arr(shape, scale=1.0, seed=0):
    return (np.random.RandomState(seed).randint(-4, 5, size=shape) * scale).astype(np.float32)


def build(kind):
    net = mx.gluon.nn.HybridSequential(prefix='%s_' % kind)
    with net.name_scope():
        if kind == 'mlp':
            net.add(mx.gluon.nn.Dense(8, activation='relu'), mx.gluon.nn.Dense(3))
        else:
            net.add(mx.gluon.nn.Conv2D(4, 3), mx.gluon.nn.BatchNorm(), mx.gluon.nn.Activation('relu'),
                    mx.gluon.nn.Dense(3))
    return net


def set_params(net):
    for i, (name, p) in enumerate(sorted(net.collect_params().items())):
        if name.endswith('running_var') or name.endswith('gamma'):
            p.set_data(mx.nd.ones(p.shape))
        else:
            p.set_data(mx.nd.array(arr(p.shape, 0.125, seed=10 + i)))


def main(target):
    amp.init(target_dtype=target)
    r = {}
    compute = target == 'bfloat16'
    x = mx.nd.array(arr((2, 3, 5, 5), 0.25, seed=1))
    for kind in ('mlp', 'conv'):
        for hybrid in (False, True):
            key = '%s_%s' % (kind, 'hybrid' if hybrid else 'eager')
            net = build(kind)
            net.initialize()
            if hybrid:
                net.hybridize()
            y = net(x)  # the first call infers the parameters' shapes
            r[key + '_dtype'] = dname(y)
            r[key + '_shape'] = list(y.shape)
            r[key + '_params'] = [[n, list(p.shape), np.dtype(p.dtype).name]
                                  for n, p in sorted(net.collect_params().items())]
            if compute:
                set_params(net)
                r[key + '_out'] = f32(net(x))
    if compute:  # training a deferred, hybridized net with dynamic loss scaling
        net = build('mlp')
        net.initialize()
        net.hybridize()
        net(x)
        set_params(net)
        tr = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.25})
        amp.init_trainer(tr)
        for step in range(3):
            with mx.autograd.record():
                out = net(x)
                loss = (mx.nd.amp_cast(out, dtype='float32') ** 2).sum() * 0.0625
                with amp.scale_loss(loss, tr) as scaled:
                    r['scaled_loss_%d' % step] = f32(scaled)
            scaled.backward()
            r['grad_%d' % step] = f32(net[1].weight.grad())
            tr.step(2)
            r['weight_%d' % step] = f32(net[1].weight.data())
        r['loss_scale'] = float(tr._amp_loss_scaler.loss_scale)
    return r


if __name__ == '__main__':
    if sys.argv[1] == '--gen':
        gold = {t: json.loads(subprocess.check_output([sys.executable, os.path.abspath(__file__), t]))
                for t in ('float16', 'bfloat16')}
        with open(os.path.join(HERE, 'amp_deferred_mxnet.json'), 'w') as f:
            json.dump(gold, f, indent=1, sort_keys=True)
    else:
        print(json.dumps(main(sys.argv[1])))
