"""Gluon training steps (issue "Gluon"): forward, backward and ``Trainer.step`` (SGD, momentum 0.9) of an MLP, a
LeNet, a CIFAR-sized ResNet-18 (model_zoo ``resnet18_v1``, thumbnail), a 1-layer LSTM language model and a
Transformer encoder language model (BERT-style layers on MXNet's interleaved self-attention operators), imperative
and hybridized, beside the same model and step in native torch (``nn.Module`` + ``torch.optim.SGD``; the
Transformer's twin is ``torch.nn.TransformerEncoder``).

Targets: imperative at most 1.1x torch eager, hybridized at most 1.0x. Written once as MXNet code (``mx`` is
mxcompat or the real mxnet), so the same steps run on real MXNet 1.9.1 with ``--mxnet-python``. No torch or
mxcompat import at module level (see ``benchmarks/workloads.py``).
"""
import numpy as np

from benchmarks.workloads import pick, workload

MODELS = ('mlp', 'lenet', 'resnet18', 'lstm', 'transformer')
VOCAB, EMBED, HIDDEN = 1000, 128, 256
SEQUENCES = ('lstm', 'transformer')  # (models whose input is (sequence length, batch) token ids)


def transformer_spec(size):
    """(units, heads, feed-forward width, layers) of the Transformer encoder at a size."""
    return pick(size, (32, 2, 64, 1), (128, 4, 512, 2), (512, 8, 2048, 6))


def spec(model, size):
    """(batch, input shape) of a model at a size; the LSTM's input is (sequence length, batch) token ids."""
    batch = pick(size, 2, 64)
    if model == 'lstm':
        return batch, (pick(size, 3, 35), batch)
    if model == 'transformer':
        batch = pick(size, 2, 32, 64)
        return batch, (pick(size, 3, 35, 128), batch)
    image = {'mlp': (784,), 'lenet': (1, 28, 28), 'resnet18': (3, pick(size, 8, 32), pick(size, 8, 32))}[model]
    return batch, (batch,) + image


def data(model, size):
    """Inputs and labels (float32, as MXNet scripts feed them), from a fixed seed."""
    batch, shape = spec(model, size)
    rs = np.random.RandomState(0)
    if model in SEQUENCES:
        return (rs.randint(0, VOCAB, shape).astype(np.float32),
                rs.randint(0, VOCAB, shape[0] * shape[1]).astype(np.float32))
    return rs.uniform(-1, 1, shape).astype(np.float32), rs.randint(0, 10, batch).astype(np.float32)


def gluon_net(mx, model, size='small'):
    """The Gluon model (MXNet code: ``mx`` is mxcompat or mxnet)."""
    gluon, nn = mx.gluon, mx.gluon.nn
    if model == 'transformer':
        return _gluon_transformer(mx, *transformer_spec(size))
    if model == 'resnet18':
        return gluon.model_zoo.vision.resnet18_v1(classes=10, thumbnail=True)
    if model == 'lstm':
        class LanguageModel(gluon.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.embed = nn.Embedding(VOCAB, EMBED)
                    self.rnn = gluon.rnn.LSTM(HIDDEN, input_size=EMBED)
                    self.out = nn.Dense(VOCAB, in_units=HIDDEN, flatten=False)

            def hybrid_forward(self, F, x):
                return self.out(self.rnn(self.embed(x))).reshape((-1, VOCAB))
        return LanguageModel()
    net = nn.HybridSequential()
    with net.name_scope():
        if model == 'mlp':
            net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(10))
        else:
            net.add(nn.Conv2D(6, 5, activation='relu'), nn.MaxPool2D(), nn.Conv2D(16, 5, activation='relu'),
                    nn.MaxPool2D(), nn.Flatten(), nn.Dense(120, activation='relu'), nn.Dense(84, activation='relu'),
                    nn.Dense(10))
    return net


def _gluon_transformer(mx, units, heads, ffn, layers):
    """A Transformer encoder language model as GluonNLP's BERT writes it for MXNet 1.9: token embedding, post-norm
    encoder layers (one Dense giving the interleaved query/key/value, ``interleaved_matmul_selfatt_qk``, softmax,
    ``interleaved_matmul_selfatt_valatt``, projection, residual and LayerNorm; then a GELU feed-forward, residual and
    LayerNorm) on (sequence, batch, units) data, and a Dense over the vocabulary."""
    gluon, nn = mx.gluon, mx.gluon.nn

    class EncoderLayer(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.qkv = nn.Dense(3 * units, flatten=False, in_units=units)
                self.proj = nn.Dense(units, flatten=False, in_units=units)
                self.norm1 = nn.LayerNorm(in_channels=units)
                self.ffn1 = nn.Dense(ffn, flatten=False, in_units=units)
                self.gelu = nn.GELU()
                self.ffn2 = nn.Dense(units, flatten=False, in_units=ffn)
                self.norm2 = nn.LayerNorm(in_channels=units)

        def hybrid_forward(self, F, x):
            qkv = self.qkv(x)
            att = F.softmax(F.contrib.interleaved_matmul_selfatt_qk(qkv, heads=heads), axis=-1)
            x = self.norm1(x + self.proj(F.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=heads)))
            return self.norm2(x + self.ffn2(self.gelu(self.ffn1(x))))

    class Encoder(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.embed = nn.Embedding(VOCAB, units)
                self.layers = nn.HybridSequential()
                for _ in range(layers):
                    self.layers.add(EncoderLayer())
                self.out = nn.Dense(VOCAB, in_units=units, flatten=False)

        def hybrid_forward(self, F, x):
            return self.out(self.layers(self.embed(x))).reshape((-1, VOCAB))
    return Encoder()


def torch_net(torch, model, size):
    """The same model in native torch."""
    nn_ = torch.nn
    if model == 'transformer':
        units, heads, ffn, layers = transformer_spec(size)

        class Encoder(nn_.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn_.Embedding(VOCAB, units)
                self.layers = nn_.TransformerEncoder(
                    nn_.TransformerEncoderLayer(units, heads, ffn, dropout=0.0, activation='gelu'), layers,
                    enable_nested_tensor=False)
                self.out = nn_.Linear(units, VOCAB)

            def forward(self, x):
                return self.out(self.layers(self.embed(x))).reshape(-1, VOCAB)
        return Encoder()
    if model == 'lstm':
        class LanguageModel(nn_.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn_.Embedding(VOCAB, EMBED)
                self.rnn = nn_.LSTM(EMBED, HIDDEN)
                self.out = nn_.Linear(HIDDEN, VOCAB)

            def forward(self, x):
                return self.out(self.rnn(self.embed(x))[0]).reshape(-1, VOCAB)
        return LanguageModel()
    if model == 'resnet18':
        return torch_resnet18(torch, thumbnail=True, classes=10)
    if model == 'mlp':
        return nn_.Sequential(nn_.Linear(784, 256), nn_.ReLU(), nn_.Linear(256, 128), nn_.ReLU(), nn_.Linear(128, 10))
    return nn_.Sequential(nn_.Conv2d(1, 6, 5), nn_.ReLU(), nn_.MaxPool2d(2), nn_.Conv2d(6, 16, 5), nn_.ReLU(),
                          nn_.MaxPool2d(2), nn_.Flatten(), nn_.Linear(256, 120), nn_.ReLU(), nn_.Linear(120, 84),
                          nn_.ReLU(), nn_.Linear(84, 10))


def torch_resnet18(torch, thumbnail, classes):
    """model_zoo's resnet18_v1 in native torch: BasicBlockV1 (conv-BN-relu-conv-BN, 1x1 conv-BN shortcut); the
    thumbnail stem is one 3x3 convolution, the ImageNet one a 7x7/2 convolution and 3x3/2 max pooling."""
    nn_ = torch.nn

    class BasicBlock(nn_.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn_.Sequential(nn_.Conv2d(cin, cout, 3, stride, 1, bias=False), nn_.BatchNorm2d(cout),
                                       nn_.ReLU(), nn_.Conv2d(cout, cout, 3, 1, 1, bias=False), nn_.BatchNorm2d(cout))
            self.down = None if stride == 1 and cin == cout else nn_.Sequential(
                nn_.Conv2d(cin, cout, 1, stride, bias=False), nn_.BatchNorm2d(cout))

        def forward(self, x):
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))
    if thumbnail:
        layers = [nn_.Conv2d(3, 64, 3, 1, 1, bias=False), nn_.BatchNorm2d(64), nn_.ReLU()]
    else:
        layers = [nn_.Conv2d(3, 64, 7, 2, 3, bias=False), nn_.BatchNorm2d(64), nn_.ReLU(), nn_.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    return nn_.Sequential(*layers, nn_.AdaptiveAvgPool2d(1), nn_.Flatten(), nn_.Linear(512, classes))


def gluon_step(mx, model, size, hybridize):
    """One training step: forward under autograd.record, backward, Trainer.step (SGD lr 0.05, momentum 0.9)."""
    x, y = data(model, size)
    batch = spec(model, size)[0]
    net = gluon_net(mx, model, size)
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9})
    nd, autograd = mx.nd, mx.autograd
    inputs, label = nd.array(x), nd.array(y)

    def step():
        with autograd.record():
            loss = -nd.pick(nd.log_softmax(net(inputs)), label)
        loss.backward()
        trainer.step(batch)
    step()  # deferred initialisation and the hybridized graph are built outside the timing
    return step


def torch_step(torch, model, size):
    """The twin: the same loss, SGD with MXNet's rescale (lr / batch on a summed loss), momentum 0.9."""
    x, y = data(model, size)
    batch = spec(model, size)[0]
    net = torch_net(torch, model, size)
    opt = torch.optim.SGD(net.parameters(), lr=0.05 / batch, momentum=0.9, foreach=True)
    inputs, label = torch.from_numpy(x), torch.from_numpy(y).long()
    if model in SEQUENCES:
        inputs = inputs.long()
    log_softmax = torch.nn.functional.log_softmax

    def step():
        opt.zero_grad()
        loss = -log_softmax(net(inputs), 1).gather(1, label[:, None]).squeeze(1)
        loss.backward(torch.ones_like(loss))
        opt.step()
    step()
    return step


def _register(model, mode):
    hybridize = mode == 'hybridized'

    @workload('gluon', name='%s_%s' % (model, mode), target=1.0 if hybridize else 1.1,
              repeat=7 if model == 'resnet18' else None,
              doc='Gluon training step of the %s, %s (batch %d)' % (model, mode, spec(model, 'small')[0]))
    def setup(mx, size):
        return gluon_step(mx, model, size, hybridize)

    @setup.torch
    def twin(torch, size):
        return torch_step(torch, model, size)


for _model in MODELS:
    for _mode in ('imperative', 'hybridized'):
        _register(_model, _mode)


def _infer_input(size):
    side = pick(size, 32, 224)
    return np.random.RandomState(0).uniform(-1, 1, (1, 3, side, side)).astype(np.float32)


def _resnet_infer_step(mx, size, backend):
    net = mx.gluon.model_zoo.vision.resnet18_v1()
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(_infer_input(size))
    if backend is None:
        net.hybridize()
    else:  # as MXNet's backend tutorials call it (without the static flags MXNet's fused graph ran 1.5x slower)
        net.optimize_for(x, backend=backend, static_alloc=True, static_shape=True)

    def step():
        net(x).wait_to_read()
    step()
    return step


@workload('gluon', name='resnet18_infer_hybridized', target=1.0,
          doc='Inference of the model-zoo ImageNet resnet18_v1, hybridized, batch 1 at 224x224')
def _resnet_infer(mx, size):
    return _resnet_infer_step(mx, size, None)


@workload('gluon', name='resnet18_infer_mkldnn', target=1.0,
          doc="The same inference after optimize_for(x, backend='MKLDNN', static_alloc=True, static_shape=True) "
              "(MXNet's oneDNN fusion: BatchNorm folded into the convolutions, additions and relus as post-ops)")
def _resnet_infer_mkldnn(mx, size):
    return _resnet_infer_step(mx, size, 'MKLDNN')


@_resnet_infer.torch
def _resnet_infer_twin(torch, size):
    """The same network in native torch (torchvision's layout of ResNet-18), in eval mode under no_grad."""
    net = torch_resnet18(torch, thumbnail=False, classes=1000).eval()
    x = torch.from_numpy(_infer_input(size))

    def step():
        with torch.no_grad():
            net(x)
    step()
    return step


_resnet_infer_mkldnn.torch(_resnet_infer.twin)


def _embedding_spec(size):
    return pick(size, (1000, 4, 3), (1000000, 256, 8))  # vocabulary, batch, lookups per sample


@workload('gluon', name='embedding_sparse_grad', target=1.1,
          doc='Gluon training step of Embedding(1M x 64, sparse_grad=True) + Dense(2), lazy SGD with momentum')
def _embedding_sparse(mx, size):
    vocab, batch, per = _embedding_spec(size)
    rs = np.random.RandomState(0)
    x = mx.nd.array(rs.randint(0, vocab, (batch, per)))
    y = mx.nd.array(rs.randint(0, 2, batch))
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Embedding(vocab, 64, sparse_grad=True), mx.gluon.nn.Dense(2, flatten=True))
    net.initialize(mx.init.Normal(0.01))
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(batch)
    step()
    return step


@_embedding_sparse.torch
def _embedding_sparse_twin(torch, size):
    """nn.Embedding(sparse=True) + Linear, cross entropy, SGD with momentum (torch's SGD has no lazy rule)."""
    vocab, batch, per = _embedding_spec(size)
    rs = np.random.RandomState(0)
    x = torch.from_numpy(rs.randint(0, vocab, (batch, per)))
    y = torch.from_numpy(rs.randint(0, 2, batch))
    net = torch.nn.Sequential(torch.nn.Embedding(vocab, 64, sparse=True), torch.nn.Flatten(),
                              torch.nn.Linear(64 * per, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1 / batch, momentum=0.9)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y, reduction='sum').backward()
        opt.step()
    step()
    return step
