"""Gluon under NumPy array semantics (``npx.set_np()``): parameters, layers, losses, Trainer, utils, data and
metrics take and give ``mx.np`` arrays, with the values the same code gives in legacy mode (the golden values
from MXNet 1.9.1 are checked in test_np_mode_golden.py)."""
import importlib.util
import os

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import autograd, gluon, np, npx
from mxcompat.base import MXNetNotImplementedError, MXNetValueError
from mxcompat.gluon import nn, rnn


def _cases():
    """tests/fixtures/gluon_np/np_cases.py (the cases MXNet's goldens were made from)."""
    path = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'gluon_np', 'np_cases.py')
    spec = importlib.util.spec_from_file_location('np_cases', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def is_np(x):
    return isinstance(x, np.ndarray)


def is_legacy(x):
    return isinstance(x, mx.nd.NDArray) and not isinstance(x, np.ndarray)


def fill(net, seed=0):
    """Deterministic parameter values (sorted by name), of each parameter's own kind."""
    rng = onp.random.RandomState(seed)
    for name in sorted(net.collect_params().keys()):
        p = net.collect_params()[name]
        value = rng.uniform(-0.5, 0.5, p.shape).astype(onp.dtype(p.dtype))
        p.set_data((np.array if is_np(p.data()) else mx.nd.array)(value, dtype=value.dtype))


# ---- parameters --------------------------------------------------------------------------------------------------
def test_parameter_kind_is_decided_at_initialization(np_mode):
    # as MXNet 1.9.1: what counts is the semantics when the arrays are made (deferred: at the first forward pass)
    npx.reset_np()
    made_legacy = nn.Dense(3, in_units=4)
    deferred = nn.Dense(3)
    npx.set_np()
    made_legacy.initialize()
    assert is_np(made_legacy.weight.data()) and is_np(made_legacy.weight.grad())
    npx.reset_np()
    deferred.initialize()  # waits for its shape
    stays_legacy = nn.Dense(3, in_units=4)
    stays_legacy.initialize()
    npx.set_np()
    deferred.weight.data  # (its bias, of known shape, was made at initialize(): a legacy array, as in MXNet)
    assert is_legacy(deferred.bias.data())
    deferred.bias.set_data(np.zeros(3))  # (set_data leaves the kind)
    assert is_legacy(deferred.bias.data())
    out = nn.Dense(3)
    out.initialize()
    out(np.ones((2, 4)))
    assert is_np(out.weight.data()) and is_np(out.weight.grad())
    assert is_legacy(stays_legacy.weight.data()) and is_legacy(stays_legacy.weight.grad())


def test_parameter_arrays_are_the_stored_ones(np_mode):
    net = nn.Dense(2, in_units=3)
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    w = net.weight
    assert all(is_np(a) for a in w.list_data() + w.list_grad())
    assert w.data(mx.cpu(1)) is w.list_data()[1] and w.grad(mx.cpu(0)) is w.list_grad()[0]
    w.data(mx.cpu(0))[:] = 1  # writes into what the layer computes with
    assert (net(np.ones((1, 3), ctx=mx.cpu(0))) == 3 + net.bias.data(mx.cpu(0))).all()
    w.set_data(np.full((2, 3), 2.0))
    assert float(w.data(mx.cpu(1)).sum()) == 12.0
    assert isinstance(w.var(), mx.sym.Symbol)


def test_grad_and_zero_grad(np_mode):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    x = np.ones((4, 3))
    with autograd.record():
        y = net(x)
    y.backward()
    assert is_np(net.weight.grad()) and float(net.bias.grad().sum()) == 8.0
    net.weight.grad()[()] = 1
    net.collect_params().zero_grad()
    assert float(np.abs(net.weight.grad()).sum()) == 0 and is_np(net.weight.grad())


def test_constant_and_initializers(np_mode):
    class WithConstant(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.c = self.params.get_constant('c', [[1.0, 2.0]])

        def hybrid_forward(self, F, x, c):
            return x + c

    blk = WithConstant()
    blk.initialize()
    assert is_np(blk.c.data()) and is_np(blk.c.value)
    assert blk(np.zeros((1, 2))).tolist() == [[1.0, 2.0]]
    for init in (mx.init.Zero(), mx.init.One(), mx.init.Constant(0.5), mx.init.Uniform(), mx.init.Normal(),
                 mx.init.Xavier(), mx.init.MSRAPrelu(), mx.init.Orthogonal()):
        net = nn.Dense(4, in_units=4)
        net.initialize(init)
        assert is_np(net.weight.data()) and net.weight.data().shape == (4, 4)


def test_row_sparse_parameters_refuse_numpy_mode(np_mode):
    p = gluon.Parameter('w', shape=(3, 2), stype='row_sparse')
    with pytest.raises(MXNetValueError, match='row_sparse'):
        p.initialize()


# ---- layers ------------------------------------------------------------------------------------------------------
IMG = (2, 3, 6, 6)
# the layers the MXNet goldens cover (tests/fixtures/gluon_np/np_cases.py; Embedding's integer input aside) and a few
LAYERS = [(name, make, shape) for name, make, shape in _cases().layers_table(mx) if shape != 'tokens'] + [
    ('GlobalMaxPool1D', lambda: nn.GlobalMaxPool1D(), (2, 3, 6)),
    ('HybridLambda', lambda: nn.HybridLambda(lambda F, x: F.relu(x) * 2), IMG),
]


def _run(make, shape, hybridize, seed=0):
    """(output, input gradient, parameter gradients) of a fresh layer with deterministic parameters."""
    net = make()
    net.initialize()
    x = np.array(onp.random.RandomState(1).uniform(-1, 1, shape).astype('float32'))
    if not mx.util.is_np_array():
        x = x.as_nd_ndarray()
    net(x)  # (finishes deferred initialization)
    fill(net, seed)
    if hybridize:
        net.hybridize()
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    grads = {k: p.grad() for k, p in sorted(net.collect_params().items()) if p.grad_req != 'null'}
    return y, x.grad, grads


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('name,make,shape', LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_gives_numpy_arrays_with_legacy_values(name, make, shape, hybridize):
    want = _run(make, shape, False)
    with mx.util.np_array(True), mx.util.np_shape(True):
        y, gx, grads = _run(make, shape, hybridize)
    assert is_np(y) and is_np(gx) and all(is_np(g) for g in grads.values())
    onp.testing.assert_allclose(y.asnumpy(), want[0].asnumpy(), rtol=1e-6, atol=1e-6)
    onp.testing.assert_allclose(gx.asnumpy(), want[1].asnumpy(), rtol=1e-6, atol=1e-6)
    for (k, g), w in zip(grads.items(), want[2].values()):
        onp.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_user_blocks(np_mode):
    class D2LStyle(nn.Block):  # forward(self, X) on mx.np arrays
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = nn.Dense(4, activation='relu')
            self.out = nn.Dense(2)

        def forward(self, X):
            return self.out(self.hidden(X)) * np.ones((1, 2))

    class Hybrid(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = self.params.get('w', shape=(3, 2))

        def hybrid_forward(self, F, x, w):
            assert (F.np, F.npx) in ((np, npx), (mx.sym.np, mx.sym.npx))  # (eager, traced)
            return F.npx.relu(F.np.dot(x, w)) + F.FullyConnected(x, w.T, no_bias=True, num_hidden=2)

    net = D2LStyle()
    net.initialize()
    assert is_np(net(np.ones((3, 5)))) and net(np.ones((3, 5))).shape == (3, 2)
    h = Hybrid()
    h.initialize()
    eager = h(np.ones((2, 3)))
    h.hybridize()
    assert is_np(eager) and (h(np.ones((2, 3))) == eager).all()
    seq = nn.HybridSequential()
    seq.add(nn.Dense(3), nn.Dropout(0.5), nn.Dense(1))
    seq.initialize()
    seq.hybridize()
    assert is_np(seq(np.ones((2, 4))))
    assert mx.nd.np is np and mx.nd.npx is npx


def test_untraceable_block_runs_imperatively_and_export_says_why(np_mode, tmp_path):
    # (mx.sym.np has no positive, as MXNet 1.9.1's has none: the hybridized block runs its hybrid_forward)
    class Positive(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = nn.Dense(3, in_units=4)

        def hybrid_forward(self, F, x):
            return F.np.positive(self.dense(x))

    net = Positive()
    net.initialize()
    x = np.array(onp.random.RandomState(0).uniform(size=(2, 4)).astype('float32'))
    eager = net(x)
    net.hybridize()
    with autograd.record():
        hybrid = net(x)
    hybrid.backward()
    assert is_np(hybrid) and (hybrid == eager).all() and float(np.abs(net.dense.weight.grad()).sum()) > 0
    with pytest.raises(MXNetNotImplementedError, match=r'export in NumPy mode .*mx\.sym\.np\.positive'):
        net.export(str(tmp_path / 'net'))
    legacy_ok = nn.HybridSequential()  # a block of built-in layers records and exports
    legacy_ok.add(nn.Dense(2))
    legacy_ok.initialize()
    legacy_ok.hybridize()
    legacy_ok(np.ones((1, 3)))
    legacy_ok.export(str(tmp_path / 'ok'))
    assert os.path.exists(str(tmp_path / 'ok-symbol.json'))


def test_rnn_cells_and_states(np_mode):
    layer = rnn.LSTM(4)
    layer.initialize()
    states = layer.begin_state(2)
    assert all(is_np(s) for s in states)
    out, new = layer(np.ones((3, 2, 5)), states)
    assert is_np(out) and all(is_np(s) for s in new)
    cell = rnn.GRUCell(4)
    cell.initialize()
    outs, st = cell.unroll(3, np.ones((2, 3, 5)), merge_outputs=True)
    assert is_np(outs) and outs.shape == (2, 3, 4) and is_np(st[0])


# ---- losses ------------------------------------------------------------------------------------------------------
LOSSES = [
    ('L2Loss', lambda: gluon.loss.L2Loss(), (4, 3), 'same'),
    ('L1Loss', lambda: gluon.loss.L1Loss(), (4, 3), 'same'),
    ('SoftmaxCE', lambda: gluon.loss.SoftmaxCrossEntropyLoss(), (4, 3), 'class'),
    ('SoftmaxCE_dense', lambda: gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False), (4, 3), 'prob'),
    ('SigmoidBCE', lambda: gluon.loss.SigmoidBinaryCrossEntropyLoss(), (4, 3), 'binary'),
    ('SigmoidBCE_prob', lambda: gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True), (4, 3), 'binary'),
    ('Huber', lambda: gluon.loss.HuberLoss(rho=0.5), (4, 3), 'same'),
    ('Hinge', lambda: gluon.loss.HingeLoss(), (4, 3), 'sign'),
    ('SquaredHinge', lambda: gluon.loss.SquaredHingeLoss(), (4, 3), 'sign'),
    ('Logistic', lambda: gluon.loss.LogisticLoss(), (4, 3), 'sign'),
    ('KLDiv', lambda: gluon.loss.KLDivLoss(), (4, 3), 'prob'),
    ('PoissonNLL', lambda: gluon.loss.PoissonNLLLoss(), (4, 3), 'count'),
]


def _labels(kind, shape, rng):
    if kind == 'class':
        return rng.randint(0, shape[-1], shape[:-1]).astype('float32')
    if kind == 'prob':
        p = rng.uniform(0.1, 1, shape)
        return (p / p.sum(-1, keepdims=True)).astype('float32')
    if kind == 'binary':
        return rng.randint(0, 2, shape).astype('float32')
    if kind == 'sign':
        return (rng.randint(0, 2, shape) * 2 - 1).astype('float32')
    if kind == 'count':
        return rng.randint(0, 4, shape).astype('float32')
    return rng.uniform(-1, 1, shape).astype('float32')


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('name,make,shape,kind', LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_per_sample(name, make, shape, kind, hybridize):
    rng = onp.random.RandomState(0)
    pred = rng.uniform(0.05, 0.95, shape).astype('float32')
    label = _labels(kind, shape, rng)
    want = make()(mx.nd.array(pred), mx.nd.array(label)).asnumpy()
    with mx.util.np_array(True), mx.util.np_shape(True):
        loss = make()
        if hybridize:
            loss.hybridize()
        got = loss(np.array(pred), np.array(label))
    assert is_np(got) and got.shape == want.shape == ((1,) if name == 'PoissonNLL' else (shape[0],))
    onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_loss_with_int_labels_and_weights(np_mode):
    pred = np.array([[0.0, 2.0], [1.0, 4.0]])
    label = np.array([0, 1], dtype='int64')
    ce = gluon.loss.SoftmaxCrossEntropyLoss()
    onp.testing.assert_allclose(ce(pred, label).asnumpy(), [2.126928, 0.048587], rtol=1e-5)
    onp.testing.assert_allclose(ce(pred, label, np.array([[0.5], [1.0]])).asnumpy(), [1.063464, 0.048587], rtol=1e-5)
    l2 = gluon.loss.L2Loss()
    assert float(l2(np.array([1.0, 2.0]), np.array([1, 3], dtype='int32')).sum()) == 0.5


# ---- Trainer -----------------------------------------------------------------------------------------------------
OPTIMIZERS = ['sgd', 'nag', 'adam', 'adagrad', 'adadelta', 'rmsprop', 'ftrl', 'ftml', 'signum', 'lamb', 'lars',
              'adamax', 'nadam', 'dcasgd', 'lbsgd']


def _train(opt, steps=3):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    fill(net, 3)
    kwargs = {'learning_rate': 0.1, 'wd': 0.01}
    if opt in ('sgd', 'nag', 'signum', 'lars', 'lbsgd'):  # (DCASGD with momentum fails in MXNet too)
        kwargs['momentum'] = 0.9
    tr = gluon.Trainer(net.collect_params(), opt, kwargs)
    x = onp.random.RandomState(4).uniform(-1, 1, (4, 3)).astype('float32')
    _cases().train_steps(mx, net, tr, np.array(x) if mx.util.is_np_array() else mx.nd.array(x), steps)
    return net.weight.data(), net.bias.data()


@pytest.mark.parametrize('opt', OPTIMIZERS)
def test_trainer_updates_numpy_parameters(opt):
    want = _train(opt)
    with mx.util.np_array(True), mx.util.np_shape(True):
        got = _train(opt)
    for g, w in zip(got, want):
        assert is_np(g)
        onp.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6, atol=1e-7)


# ---- files -------------------------------------------------------------------------------------------------------
def test_save_load_parameters_both_ways(tmp_path):
    def make():
        net = nn.HybridSequential()
        net.add(nn.Dense(3, in_units=2), nn.BatchNorm(in_channels=3))
        return net
    legacy = make()
    legacy.initialize()
    fill(legacy, 5)
    legacy.save_parameters(str(tmp_path / 'legacy.params'))
    with mx.util.np_array(True), mx.util.np_shape(True):
        net = make()
        net.load_parameters(str(tmp_path / 'legacy.params'))
        assert all(is_np(p.data()) for p in net.collect_params().values())
        net.save_parameters(str(tmp_path / 'np.params'))
        again = make()
        again.load_parameters(str(tmp_path / 'np.params'))
    back = make()
    with mx.util.np_shape(True):
        back.load_parameters(str(tmp_path / 'np.params'))
    for a, b, c in zip(legacy.collect_params().values(), again.collect_params().values(),
                       back.collect_params().values()):
        assert is_np(b.data()) and is_legacy(c.data())
        onp.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())
        onp.testing.assert_array_equal(a.data().asnumpy(), c.data().asnumpy())


# ---- utils -------------------------------------------------------------------------------------------------------
def test_split_and_load_and_clip(np_mode):
    ctxs = [mx.cpu(0), mx.cpu(1)]
    parts = gluon.utils.split_and_load([[1, 2], [3, 4], [5, 6]], ctxs, even_split=False)
    assert all(is_np(p) for p in parts) and [p.ctx for p in parts] == ctxs
    assert parts[0].tolist() == [[1, 2], [3, 4]] and parts[1].tolist() == [[5, 6]]
    cols = gluon.utils.split_data(np.arange(10).reshape(2, 5), 2, batch_axis=1, even_split=False)
    assert [c.tolist() for c in cols] == [[[0, 1, 2], [5, 6, 7]], [[3, 4], [8, 9]]] and is_np(cols[0])
    arrays = [np.ones((2, 3)), np.full((4,), 2.0)]
    norm = gluon.utils.clip_global_norm(arrays, 1.0)
    onp.testing.assert_allclose(norm, onp.sqrt(22.0), rtol=1e-6)
    assert is_np(arrays[0])
    onp.testing.assert_allclose(arrays[1].asnumpy(), 2 / onp.sqrt(22.0), rtol=1e-5)
    total = gluon.utils.clip_global_norm([np.ones((2,))], 5.0, check_isfinite=False)
    assert is_np(total)


# ---- data --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('workers,threads', [(0, False), (2, False), (2, True)])
def test_dataloader_batches(np_mode, workers, threads):
    X = onp.arange(24, dtype='float32').reshape(6, 4)
    y = onp.arange(6)
    ds = gluon.data.ArrayDataset(np.array(X), y)
    batches = list(gluon.data.DataLoader(ds, batch_size=4, num_workers=workers, thread_pool=threads))
    assert all(is_np(a) and is_np(b) for a, b in batches)
    assert batches[0][0].tolist() == X[:4].tolist() and batches[1][1].tolist() == [4, 5]
    assert batches[0][1].dtype == onp.int64 and batches[0][0].dtype == onp.float32
    plain = list(gluon.data.DataLoader(gluon.data.SimpleDataset([onp.ones(2) * i for i in range(4)]), 2))
    assert is_np(plain[0]) and plain[1].tolist() == [[2, 2], [3, 3]]


def test_transforms(np_mode):
    from mxcompat.gluon.data.vision import transforms
    img = np.array(onp.random.RandomState(0).randint(0, 255, (8, 8, 3)), dtype='uint8')
    t = transforms.Compose([transforms.Resize(4), transforms.ToTensor(), transforms.Normalize(0.5, 0.25)])
    out = t(img)
    assert is_np(out) and out.shape == (3, 4, 4) and out.dtype == onp.float32
    legacy = transforms.Compose([transforms.Resize(4), transforms.ToTensor(), transforms.Normalize(0.5, 0.25)])
    with mx.util.np_array(False):
        want = legacy(img.as_nd_ndarray())
    onp.testing.assert_allclose(out.asnumpy(), want.asnumpy(), rtol=1e-6)
    ds = gluon.data.ArrayDataset(np.stack([img, img]), np.array([1, 2])).transform_first(t)
    x, y = next(iter(gluon.data.DataLoader(ds, 2)))
    assert is_np(x) and x.shape == (2, 3, 4, 4) and y.tolist() == [1, 2]


DETERMINISTIC = [lambda: transforms().Cast(), lambda: transforms().CenterCrop(4), lambda: transforms().Resize((6, 5)),
                 lambda: transforms().CropResize(1, 2, 5, 4, (3, 3)), lambda: transforms().RandomFlipLeftRight(),
                 lambda: transforms().RandomBrightness(0.3), lambda: transforms().RandomColorJitter(0.1, 0.1, 0.1, 0.1),
                 lambda: transforms().RandomLighting(0.1)]


def transforms():
    from mxcompat.gluon.data.vision import transforms as T
    return T


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('k', range(len(DETERMINISTIC)))
def test_more_transforms(k, hybridize):
    img = onp.random.RandomState(0).randint(0, 255, (10, 12, 3)).astype('uint8')
    results = []
    for numpy_mode in (False, True):
        mx.random.seed(1)
        t = DETERMINISTIC[k]()
        if hybridize and isinstance(t, gluon.HybridBlock):
            t.hybridize()
        with mx.util.np_array(numpy_mode), mx.util.np_shape(numpy_mode):
            results.append(t(np.array(img, dtype='uint8') if numpy_mode else mx.nd.array(img, dtype='uint8')))
    assert is_np(results[1]) and is_legacy(results[0])
    onp.testing.assert_allclose(results[1].asnumpy(), results[0].asnumpy(), atol=1e-5)


def test_image_transforms_keep_the_kind(np_mode):
    T = transforms()
    chw = np.ones((3, 8, 8))
    hwc = np.ones((8, 8, 3), dtype='uint8')
    for out in (T.Rotate(30)(chw), T.RandomRotation((-10, 10))(chw), T.RandomResizedCrop(4)(hwc)):
        assert is_np(out)


def test_vision_datasets(np_mode, tmp_path):
    from .data.golden import tiny_files
    tiny_files.write_mnist(str(tmp_path / 'mnist'))
    tiny_files.write_cifar10(str(tmp_path / 'cifar10'))
    for ds in (gluon.data.vision.MNIST(str(tmp_path / 'mnist')),
               gluon.data.vision.FashionMNIST(str(tmp_path / 'mnist')),
               gluon.data.vision.CIFAR10(str(tmp_path / 'cifar10'))):
        img, label = ds[0]
        assert is_np(img) and img.dtype == onp.uint8 and is_np(label) and label.shape == ()
        assert label.dtype == onp.int32


# ---- metrics -----------------------------------------------------------------------------------------------------
METRICS = [('acc', {}), ('top_k_accuracy', {'top_k': 2}), ('ce', {}), ('nll_loss', {}), ('f1', {}), ('mcc', {}),
           ('mae', {}), ('mse', {}), ('rmse', {}), ('pearsonr', {}), ('pcc', {}), ('loss', {})]


@pytest.mark.parametrize('name,kwargs', METRICS, ids=[m[0] for m in METRICS])
def test_metrics_take_numpy_arrays(name, kwargs):
    rng = onp.random.RandomState(0)
    if name in ('mae', 'mse', 'rmse', 'pearsonr'):
        pred, label = rng.rand(6, 1).astype('float32'), rng.rand(6, 1).astype('float32')
    elif name in ('f1', 'mcc'):
        p = rng.rand(6, 2).astype('float32')
        pred, label = p / p.sum(1, keepdims=True), rng.randint(0, 2, 6).astype('float32')
    else:
        p = rng.rand(6, 3).astype('float32')
        pred, label = p / p.sum(1, keepdims=True), rng.randint(0, 3, 6).astype('float32')
    results = []
    for array in (mx.nd.array, np.array):
        m = mx.metric.create(name, **kwargs)
        P, L = array(pred), array(label)
        m.update([L], [P])
        m.update(L, P)
        results.append(m.get())
    assert results[0] == results[1]


def test_fused_rnn_keys_inside_a_model():
    # a fused layer names its parameters MXNet's way (``_unfused.<layer>.<i2h|h2h>_...``) wherever it sits
    class Model(nn.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.rnn = rnn.LSTM(4, input_size=3)
            self.dense = nn.Dense(2, in_units=4)

    keys = sorted(Model()._collect_params_with_prefix())
    assert keys == ['dense.bias', 'dense.weight', 'rnn._unfused.0.h2h_bias', 'rnn._unfused.0.h2h_weight',
                    'rnn._unfused.0.i2h_bias', 'rnn._unfused.0.i2h_weight']


def test_numpy_symbols(np_mode):
    x = mx.sym.var('x').as_np_ndarray()
    assert isinstance(x, mx.sym.np._Symbol) and type(x.as_nd_ndarray()) is mx.sym.Symbol
    y = (x[:, 1:] * 2 - 1).sum(axis=1) + mx.sym.np.ones((2,))
    block = gluon.SymbolBlock(y, x)
    out = block(np.arange(6).reshape(2, 3))
    assert is_np(out) and out.tolist() == [5.0, 17.0]
    with pytest.raises(MXNetNotImplementedError, match='mx.sym.np.positive'):  # (MXNet 1.9.1's has none either)
        mx.sym.np.positive(x)
