"""A custom HybridBlock hybridized, exported with HybridBlock.export, and loaded back with SymbolBlock.imports,
written for MXNet 1.x. Fixed seeded weights, so real MXNet 1.9.1 and mxcompat print the same (checked by
tests/gluon/test_export.py)."""
import os
import tempfile

import numpy as np
import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import nn


class ResidualMLP(gluon.HybridBlock):
    """Dense -> BatchNorm -> relu with a learnt per-feature scale and a skip connection."""

    def __init__(self, units, **kwargs):
        super(ResidualMLP, self).__init__(**kwargs)
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)
            self.norm = nn.BatchNorm(axis=-1)
            self.scale = self.params.get('scale', shape=(units,), init=mx.init.One())

    def hybrid_forward(self, F, x, scale):
        h = F.relu(self.norm(self.proj(x)))
        return F.broadcast_mul(h, scale) + x


net = nn.HybridSequential(prefix='model_')
with net.name_scope():
    net.add(ResidualMLP(8), ResidualMLP(8), nn.Dense(2))
net.initialize()
rng = np.random.RandomState(11)
x = nd.array(rng.uniform(-1, 1, size=(4, 8)))
net(x)
for name, param in net.collect_params().items():
    if name.endswith('running_var') or name.endswith('gamma') or name.endswith('scale'):
        param.set_data(nd.array(rng.uniform(0.5, 1.5, size=param.shape)))
    else:
        param.set_data(nd.array(rng.uniform(-0.5, 0.5, size=param.shape)))
net.hybridize()
y = net(x)
print('hybridized output:')
print(np.array2string(y.asnumpy(), precision=4, suppress_small=True))

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, 'resmlp')
    net.export(path, epoch=3)
    print('files:', sorted(os.listdir(tmp)))
    saved = nd.load(path + '-0003.params')
    for key in saved:
        print('  %-34s %s' % (key, saved[key].shape))
    sym = mx.sym.load(path + '-symbol.json')
    print('outputs:', sym.list_outputs())
    print('aux states:', sym.list_auxiliary_states())
    loaded = gluon.SymbolBlock.imports(path + '-symbol.json', ['data'], path + '-0003.params')
    z = loaded(x)
    print('imported output equal:', bool(np.allclose(z.asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)))
    print(np.array2string(z.asnumpy(), precision=4, suppress_small=True))
    print('imported parameters:', len(list(loaded.collect_params().keys())))
    with mx.autograd.record():
        out = loaded(x)
    out.backward()
    grad = loaded.collect_params()['model_dense0_weight'].grad()
    print('gradient of model_dense0_weight through the imported block: sum %.4f' % grad.sum().asscalar())
