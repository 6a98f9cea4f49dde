"""A next-token model over variable-length sentences with mx.mod.BucketingModule and mx.rnn.BucketSentenceIter,
written for MXNet 1.x, without RNN cells: Embedding -> per-step FullyConnected -> plus the sentence mean -> softmax.

Seeded numpy and random (BucketSentenceIter shuffles with both) and fixed initial parameters, so real MXNet 1.9.1
and mxcompat print the same numbers (tests/compat_examples checks it). Then score, save_checkpoint and load.
"""
import logging
import os
import random
import tempfile

import numpy as np
import mxnet as mx

random.seed(3)
np.random.seed(3)
rng = np.random.RandomState(11)

words = ['w%d' % i for i in range(12)]
sentences = [[words[rng.randint(12)] for _ in range(rng.randint(3, 10))] for _ in range(120)]
encoded, vocab = mx.rnn.encode_sentences(sentences, invalid_label=0, start_label=1)
print('vocab', len(vocab), 'first', encoded[0])
V, E, H, batch_size = len(vocab) + 1, 6, 8, 8

train_iter = mx.rnn.BucketSentenceIter(encoded[:96], batch_size, buckets=[4, 7, 10], invalid_label=0)
val_iter = mx.rnn.BucketSentenceIter(encoded[96:], batch_size, buckets=[4, 7, 10], invalid_label=0)
print('buckets', train_iter.buckets, 'default', train_iter.default_bucket_key, train_iter.provide_data)


def sym_gen(seq_len):
    data = mx.sym.Variable('data')
    label = mx.sym.Variable('softmax_label')
    embed = mx.sym.Embedding(data, input_dim=V, output_dim=E, name='embed')
    hid = mx.sym.Activation(mx.sym.FullyConnected(embed, num_hidden=H, flatten=False, name='fc1'),
                            act_type='tanh')
    hid = mx.sym.broadcast_add(hid, mx.sym.mean(hid, axis=1, keepdims=True))
    pred = mx.sym.FullyConnected(mx.sym.Reshape(hid, shape=(-1, H)), num_hidden=V, name='pred')
    out = mx.sym.SoftmaxOutput(pred, mx.sym.Reshape(label, shape=(-1,)), name='softmax', use_ignore=True,
                               ignore_label=0)
    return out, ('data',), ('softmax_label',)


arg_params = {
    'embed_weight': mx.nd.array(rng.uniform(-0.5, 0.5, size=(V, E))),
    'fc1_weight': mx.nd.array(rng.uniform(-0.5, 0.5, size=(H, E))),
    'fc1_bias': mx.nd.zeros((H,)),
    'pred_weight': mx.nd.array(rng.uniform(-0.5, 0.5, size=(V, H))),
    'pred_bias': mx.nd.zeros((V,)),
}

logged = []


class Keep(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        if 'Time cost' not in msg and 'Saved' not in msg:
            logged.append(msg)


logging.getLogger().addHandler(Keep())
logging.getLogger().setLevel(logging.INFO)

mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=train_iter.default_bucket_key, context=mx.cpu())
print(mod.data_names, mod.output_names)
mod.fit(train_iter, eval_data=val_iter, eval_metric=mx.metric.Perplexity(0), optimizer='sgd',
        optimizer_params={'learning_rate': 0.1, 'momentum': 0.5, 'wd': 0.0001}, arg_params=arg_params, num_epoch=3)
for line in logged:
    print(line)
print('buckets bound', sorted(mod._buckets))

args, auxs = mod.get_params()
for name in sorted(args):
    print(name, args[name].shape, '%.3f' % (round(float(args[name].asnumpy().sum()), 3) + 0.0))
print('score', [(n, round(float(v), 4)) for n, v in mod.score(val_iter, mx.metric.Perplexity(0))])

tmp = tempfile.mkdtemp()
prefix = os.path.join(tmp, 'bucket')
mod.save_checkpoint(prefix, 3)
print(sorted(os.listdir(tmp)))
loaded = mx.mod.BucketingModule.load(prefix, 3, sym_gen=sym_gen, default_bucket_key=10)
loaded.bind(data_shapes=val_iter.provide_data, label_shapes=val_iter.provide_label, for_training=False)
print('reloaded score', [(n, round(float(v), 4)) for n, v in loaded.score(val_iter, mx.metric.Perplexity(0))])
