"""A Gluon MLP trained with autograd and gluon.Trainer on a small synthetic dataset, written for MXNet 1.x.

The weights start from seeded numpy values (set_data) and there is no randomness from the framework, so real MXNet
1.9.1 and mxcompat print the same numbers (tests/gluon/test_export.py checks it).
"""
import numpy as np
import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn

rng = np.random.RandomState(3)
X = rng.uniform(-1, 1, size=(96, 6)).astype(np.float32)
w_true = rng.uniform(-1, 1, size=(6, 3)).astype(np.float32)
y = np.argmax(X.dot(w_true), axis=1).astype(np.float32)

net = nn.HybridSequential()
with net.name_scope():
    net.add(nn.Dense(16, activation='relu'))
    net.add(nn.Dropout(0.0))
    net.add(nn.Dense(3))
print(net)
net.initialize(mx.init.Xavier())
net(nd.zeros((1, 6)))  # finishes the deferred initialization of the first layer
for name, param in net.collect_params().items():
    param.set_data(nd.array(rng.uniform(-0.5, 0.5, size=param.shape)))
    print('%-32s %-10s %s' % (name, param.shape, param.grad_req))

trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.2, 'momentum': 0.9, 'wd': 1e-4})
batch = 16
for epoch in range(4):
    total, correct = 0.0, 0
    for start in range(0, len(X), batch):
        data = nd.array(X[start:start + batch])
        label = nd.array(y[start:start + batch])
        with autograd.record():
            out = net(data)
            loss = -nd.pick(nd.log_softmax(out), label)
        loss.backward()
        trainer.step(batch)
        total += loss.sum().asscalar()
        correct += int((out.argmax(axis=1) == label).sum().asscalar())
    print('epoch %d  loss %.4f  accuracy %.4f  lr %.3f' % (epoch, total / len(X), correct / len(X),
                                                          trainer.learning_rate))
    if epoch == 1:
        net.hybridize()
        trainer.set_learning_rate(0.1)

print('final weights:')
for name, param in net.collect_params().items():
    w = param.data().asnumpy().astype(np.float64)
    print('%-32s mean %+.4f  std %.4f  |w| %.3f' % (name, w.mean(), w.std(), np.abs(w).sum()))
pred = net(nd.array(X)).argmax(axis=1).asnumpy()
print('train accuracy %.4f' % (pred == y).mean())
