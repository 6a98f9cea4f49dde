"""A word-level LSTM language model in Gluon (the shape of MXNet 1.x's example/gluon/word_language_model), trained a
few steps with truncated BPTT on a tiny synthetic corpus.

Embedding -> 2-layer LSTM (TNC) -> Dense decoder, SoftmaxCrossEntropyLoss, gradient clipping with
gluon.utils.clip_global_norm, hidden states detached between batches. Weights start from seeded numpy values
(set_data) and dropout is 0, so real MXNet 1.9.1 and mxcompat print the same numbers.
"""
import math

import numpy as np
import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn, rnn


class RNNModel(gluon.HybridBlock):
    def __init__(self, vocab_size, num_embed, num_hidden, num_layers, **kwargs):
        super(RNNModel, self).__init__(**kwargs)
        with self.name_scope():
            self.encoder = nn.Embedding(vocab_size, num_embed)
            self.rnn = rnn.LSTM(num_hidden, num_layers, input_size=num_embed)
            self.decoder = nn.Dense(vocab_size, in_units=num_hidden)
        self.num_hidden = num_hidden

    def hybrid_forward(self, F, inputs, hidden):
        emb = self.encoder(inputs)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output.reshape((-1, self.num_hidden)))
        return decoded, hidden

    def begin_state(self, *args, **kwargs):
        return self.rnn.begin_state(*args, **kwargs)


def batchify(data, batch_size):
    nbatch = data.shape[0] // batch_size
    return data[:nbatch * batch_size].reshape((batch_size, nbatch)).T


def get_batch(source, i, bptt):
    seq_len = min(bptt, source.shape[0] - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape((-1,))


def detach(hidden):
    return [h.detach() for h in hidden]


rng = np.random.RandomState(7)
vocab, batch_size, bptt = 20, 4, 5
corpus = nd.array((np.arange(400) * 7 + rng.randint(0, 3, 400)) % vocab)  # a nearly periodic token stream
train_data = batchify(corpus, batch_size)
print('train data', train_data.shape)

model = RNNModel(vocab, num_embed=8, num_hidden=12, num_layers=2)
model.initialize(mx.init.Xavier())
for name, param in sorted(model.collect_params().items()):
    param.set_data(nd.array(rng.uniform(-0.3, 0.3, size=param.shape)))
    print('%-28s %s' % (name, param.shape))

trainer = gluon.Trainer(model.collect_params(), 'sgd', {'learning_rate': 1.0, 'momentum': 0.0, 'wd': 0})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

for epoch in range(3):
    if epoch == 2:
        model.hybridize()
    total, n = 0.0, 0
    hidden = model.begin_state(func=nd.zeros, batch_size=batch_size)
    for i in range(0, train_data.shape[0] - 1, bptt):
        data, target = get_batch(train_data, i, bptt)
        hidden = detach(hidden)
        with autograd.record():
            output, hidden = model(data, hidden)
            L = loss_fn(output, target)
        L.backward()
        grads = [p.grad() for p in model.collect_params().values()]
        norm = gluon.utils.clip_global_norm(grads, 0.25 * bptt * batch_size)
        trainer.step(batch_size)
        total += L.mean().asscalar() * data.shape[0]
        n += data.shape[0]
    print('epoch %d  loss %.4f  ppl %.3f  last grad norm %.4f' % (epoch, total / n, math.exp(total / n), norm))

hidden = model.begin_state(func=nd.zeros, batch_size=1)
token, generated = nd.array([[3]]), [3]
for _ in range(12):
    output, hidden = model(token, hidden)
    token = output.argmax(axis=1).reshape((1, 1))
    generated.append(int(token.asnumpy()[0, 0]))
print('greedy continuation:', generated)
