"""A Symbol MLP trained with mx.mod.Module on an NDArrayIter, written for MXNet 1.x.

Fixed initial parameters (seeded numpy) and no shuffling, so real MXNet 1.9.1 and mxcompat print the same numbers
(tests/compat_examples checks it). Then score, predict, save_checkpoint and Module.load.
"""
import logging
import os
import tempfile

import numpy as np
import mxnet as mx

rng = np.random.RandomState(7)
X = rng.uniform(-1, 1, size=(100, 10)).astype(np.float32)
w_true = rng.uniform(-1, 1, size=(10, 3)).astype(np.float32)
y = np.argmax(X.dot(w_true), axis=1).astype(np.float32)

train_iter = mx.io.NDArrayIter(X[:80], y[:80], batch_size=16, shuffle=False, label_name='softmax_label')
val_iter = mx.io.NDArrayIter(X[80:], y[80:], batch_size=16, shuffle=False, label_name='softmax_label')

data = mx.sym.Variable('data')
fc1 = mx.sym.FullyConnected(data, num_hidden=16, name='fc1')
act1 = mx.sym.Activation(fc1, act_type='relu', name='relu1')
fc2 = mx.sym.FullyConnected(act1, num_hidden=3, name='fc2')
net = mx.sym.SoftmaxOutput(fc2, name='softmax')

arg_params = {
    'fc1_weight': mx.nd.array(rng.uniform(-0.5, 0.5, size=(16, 10))),
    'fc1_bias': mx.nd.zeros((16,)),
    'fc2_weight': mx.nd.array(rng.uniform(-0.5, 0.5, size=(3, 16))),
    'fc2_bias': mx.nd.zeros((3,)),
}

logged = []


class Keep(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        if 'Time cost' not in msg and 'Saved' not in msg:
            logged.append(msg)


logging.getLogger().addHandler(Keep())
logging.getLogger().setLevel(logging.INFO)

mod = mx.mod.Module(net, data_names=['data'], label_names=['softmax_label'], context=mx.cpu())
print(mod.data_names, mod.output_names)
mod.fit(train_iter, eval_data=val_iter, eval_metric='acc', optimizer='sgd',
        optimizer_params={'learning_rate': 0.5, 'momentum': 0.9, 'wd': 0.001},
        arg_params=arg_params, num_epoch=4)
for line in logged:
    print(line)

args, auxs = mod.get_params()
for name in sorted(args):
    print(name, args[name].shape, '%.5f' % args[name].asnumpy().sum())
print('score', [(n, round(float(v), 5)) for n, v in mod.score(val_iter, ['acc', 'ce'])])
pred = mod.predict(val_iter)
print('predict', pred.shape, np.round(pred.asnumpy()[:3], 4).tolist())
outs = [o[0][0].shape for o in mod.iter_predict(val_iter)]
print('iter_predict', outs)

tmp = tempfile.mkdtemp()
prefix = os.path.join(tmp, 'mlp')
mod.save_checkpoint(prefix, 4)
print(sorted(os.listdir(tmp)))
loaded = mx.mod.Module.load(prefix, 4)
loaded.bind(data_shapes=val_iter.provide_data, label_shapes=val_iter.provide_label, for_training=False)
print('reloaded score', [(n, round(float(v), 5)) for n, v in loaded.score(val_iter, 'acc')])
sym, a2, x2 = mx.model.load_checkpoint(prefix, 4)
print(sym.list_arguments(), sorted(a2), x2)
