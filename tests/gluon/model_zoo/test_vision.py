"""mx.gluon.model_zoo.vision against golden data from MXNet 1.9.1 (tests/fixtures/model_zoo/gen_model_zoo.py):
parameter names, structural keys and shapes of every model, the graph every model exports, outputs and input
gradients of small nets with deterministic weights, imperative and hybridized."""
import gzip
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetValueError
from mxcompat.gluon.model_zoo import vision
from tests._fixtures import load_generator

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'model_zoo')
SLOW = pytest.mark.skipif(not os.environ.get('MXCOMPAT_SLOW_TESTS'),
                          reason='a deep or wide net (tens of seconds); set MXCOMPAT_SLOW_TESTS=1 to run it')


GEN = load_generator('model_zoo', 'zoo_cases.py')
with gzip.open(os.path.join(FIXTURES, 'names.json.gz'), 'rt') as _f:
    TABLE = json.load(_f)
GOLDEN = dict(np.load(os.path.join(FIXTURES, 'outputs.npz')))
with gzip.open(os.path.join(FIXTURES, 'symbols.json.gz'), 'rt') as _f:
    SYMBOLS = json.load(_f)
# nets whose full shape inference is cheap enough for every run (one or more per family)
FAST_SHAPES = {'alexnet', 'vgg11_bn', 'squeezenet1.1', 'mobilenet0.25', 'resnet18_v2'}
# output cases too slow (on 2 shared cores) for every run
SLOW_CASES = {'densenet121', 'inceptionv3', 'resnet50_v1', 'squeezenet1.0'}


def _build(name, **kwargs):
    with mx.name.NameManager():
        return vision.get_model(name, **kwargs)


def test_every_name_is_recorded():
    assert sorted(TABLE) == sorted(vision._MODELS) == sorted(GEN.NAMES)


@pytest.mark.parametrize('name', GEN.NAMES)
def test_names_keys_and_declared_shapes(name):
    """Before any forward: class, prefix, structural keys, full names and the shapes MXNet knows already."""
    rec = TABLE[name]
    net = _build(name)
    assert type(net).__name__ == rec['class']
    assert net.prefix == rec['prefix']
    params = net._collect_params_with_prefix()
    assert [[k, p.name] for k, p in params.items()] == [r[:2] for r in rec['params']]
    assert [list(p.shape) for p in params.values()] == rec['before']
    assert sorted(net.collect_params().keys()) == sorted(r[1] for r in rec['params'])


@pytest.mark.parametrize('name', GEN.NAMES)
def test_graph_is_mxnets(name):
    """The graph a net gives on a symbol, which export writes: MXNet's nodes in MXNet's order (each block's layers
    run in MXNet's order and sum in its operand order; no block is made that MXNet does not make, as each takes a
    name)."""
    with mx.name.NameManager():
        net = vision.get_model(name)
        got = json.loads(net(mx.sym.var('data')).tojson())
    assert got == SYMBOLS[name]


@pytest.mark.parametrize('name', [n if n in FAST_SHAPES else pytest.param(n, marks=[pytest.mark.slow, SLOW])
                                  for n in GEN.NAMES])
def test_shapes_after_inference(name):
    rec = TABLE[name]
    net = _build(name)
    size = rec['input']
    net.infer_shape(mx.nd.zeros((1, 3, size, size)))
    assert [[k, p.name, list(p.shape)] for k, p in net._collect_params_with_prefix().items()] == rec['params']


def _with_golden_weights(case, tmp_path):
    """(net, input) for an OUTPUT_CASES entry, the weights loaded from a file written under structural keys."""
    _, name, kwargs, batch, size, _ = case
    net = _build(name, **kwargs)
    rec_shapes = {k: tuple(p.shape) for k, p in net._collect_params_with_prefix().items()}
    x = mx.nd.array(GEN.det_input(batch, size))
    if any(0 in s for s in rec_shapes.values()):
        net.infer_shape(x)
        rec_shapes = {k: tuple(p.shape) for k, p in net._collect_params_with_prefix().items()}
    path = str(tmp_path / 'weights.params')
    mx.nd.save(path, {k: mx.nd.array(GEN.det_value(k, s)) for k, s in rec_shapes.items()})
    net.load_parameters(path)
    return net, x


def _tolerance(expected):
    return dict(rtol=2e-3, atol=2e-4 * max(1.0, float(np.abs(expected).max())))


CASES = {case[0]: case for case in GEN.OUTPUT_CASES}


@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
@pytest.mark.parametrize('case', [c if c not in SLOW_CASES else pytest.param(c, marks=[pytest.mark.slow, SLOW])
                                  for c in sorted(CASES)])
def test_outputs(case, hybridize, tmp_path):
    net, x = _with_golden_weights(CASES[case], tmp_path)
    if hybridize:
        net.hybridize()
    y = net(x)
    expected = GOLDEN[case + '/out']
    assert y.shape == expected.shape and y.dtype == np.float32
    np.testing.assert_allclose(y.asnumpy(), expected, **_tolerance(expected))


@pytest.mark.parametrize('hybridize', [False, True], ids=['imperative', 'hybridized'])
@pytest.mark.parametrize('case', sorted(c[0] for c in GEN.OUTPUT_CASES if c[5]))
def test_training_mode_output_and_input_gradient(case, hybridize, tmp_path):
    """Training mode (BatchNorm on batch statistics), as recorded from MXNet."""
    net, x = _with_golden_weights(CASES[case], tmp_path)
    if hybridize:
        net.hybridize()
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
        loss = (y * mx.nd.array(GEN.head_weights(y.shape))).sum()
    loss.backward()
    for got, key in ((y, '/train_out'), (x.grad, '/dx')):
        expected = GOLDEN[case + key]
        assert np.isfinite(expected).all()
        np.testing.assert_allclose(got.asnumpy(), expected, equal_nan=False, **_tolerance(expected))


def test_input_gradient_matches_finite_differences(tmp_path):
    """Autograd through a thumbnail ResNet V2 against central differences of the training-mode forward."""
    net, x = _with_golden_weights(CASES['resnet18_v2_thumb'], tmp_path)
    w = mx.nd.array(GEN.head_weights((2, 10)))

    def loss_of(data):
        return (net(data) * w).sum()

    x.attach_grad()
    with mx.autograd.record():
        loss = loss_of(x)
    loss.backward()
    grad, base = x.grad.asnumpy(), x.asnumpy()
    rng = np.random.RandomState(3)
    eps = 1e-2
    for _ in range(3):
        idx = tuple(rng.randint(0, d) for d in base.shape)
        values = []
        for sign in (1, -1):
            moved = base.copy()
            moved[idx] += sign * eps
            with mx.autograd.train_mode():
                values.append(float(loss_of(mx.nd.array(moved)).asscalar()))
        numeric = (values[0] - values[1]) / (2 * eps)
        assert abs(numeric - grad[idx]) <= 5e-2 * max(1.0, abs(numeric)), (idx, numeric, grad[idx])


def test_get_model_is_case_insensitive_and_passes_kwargs():
    net = _build('ResNet18_V1', classes=7, thumbnail=True)
    assert isinstance(net, vision.ResNetV1)
    assert type(net.features[0]).__name__ == 'Conv2D' and type(net.features[1]).__name__ == 'HybridSequential'
    assert net._collect_params_with_prefix()['output.weight'].shape == (7, 512)


def test_get_model_unknown_name():
    with pytest.raises(MXNetValueError, match='Model resnet19_v1 is not supported') as info:
        vision.get_model('resnet19_v1')
    assert '\n\tresnet18_v1\n' in str(info.value)
    assert issubclass(MXNetValueError, ValueError)


@pytest.mark.parametrize('call, message', [
    (lambda: vision.get_resnet(3, 18), 'get_resnet: Invalid resnet version: 3'),
    (lambda: vision.get_resnet(1, 20), 'get_resnet: Invalid number of layers: 20'),
    (lambda: vision.SqueezeNet('1.2'), 'SqueezeNet: Unsupported SqueezeNet version 1.2'),
    (lambda: vision.VGG([1, 2], [64]), 'VGG: layers and filters'),
])
def test_bad_architecture_arguments(call, message):
    with pytest.raises(MXNetAssertionError, match=message):
        call()


def test_vgg_batch_norm_and_initializers():
    plain, with_bn = _build('vgg11'), _build('vgg11', batch_norm=True)
    assert len(with_bn.features) == len(plain.features) + 8
    assert type(with_bn.features[1]).__name__ == 'BatchNorm'
    conv = plain.features[0]
    init = conv.weight.init
    assert type(init).__name__ == 'Xavier'
    assert (init.rnd_type, init.factor_type, init.magnitude) == ('gaussian', 'out', 2)
    assert plain.output.weight.init == 'normal' and plain.output.bias.init == 'zeros'


@pytest.mark.parametrize('multiplier, width', [(1.0, 32), (0.75, 24), (0.5, 16), (0.25, 8)])
def test_mobilenet_multiplier(multiplier, width):
    with mx.name.NameManager():
        v1, v2 = vision.MobileNet(multiplier, classes=5), vision.MobileNetV2(multiplier, classes=5)
    assert v1.features[0].weight.shape[0] == width
    assert v2.features[0].weight.shape[0] == width
    assert v2.output[0].weight.name == 'mobilenetv20_output_pred_weight'


def test_block_classes_standalone():
    """Residual blocks can be used alone (their layers take names from the enclosing scope, as in MXNet)."""
    with mx.name.NameManager():
        block = vision.BottleneckV2(64, 2, downsample=True, in_channels=32)
    block.initialize()
    y = block(mx.nd.ones((1, 32, 8, 8)))
    assert y.shape == (1, 64, 4, 4)
    assert sorted(block._collect_params_with_prefix()) == sorted(
        ['bn1.gamma', 'bn1.beta', 'bn1.running_mean', 'bn1.running_var', 'conv1.weight',
         'bn2.gamma', 'bn2.beta', 'bn2.running_mean', 'bn2.running_var', 'conv2.weight',
         'bn3.gamma', 'bn3.beta', 'bn3.running_mean', 'bn3.running_var', 'conv3.weight', 'downsample.weight'])
    assert block.conv1.weight.name == 'conv0_weight'


@pytest.mark.oracle
def test_resnet18_exported_by_real_mxnet_imports_with_the_same_outputs(tmp_path):
    """Real MXNet 1.9.1 builds model_zoo resnet18_v1 with random weights, exports it (symbol JSON + params, 45 MB:
    too big for a fixture, so it is made live) and records its output; SymbolBlock.imports here gives the same
    output, and so do those weights loaded into our own resnet18_v1 with load_parameters."""
    import subprocess
    from tests.conftest import oracle_runner
    code = ('import mxnet as mx, numpy as np, sys\n'
            'p = sys.argv[1]\n'
            'mx.random.seed(7)\n'
            "net = mx.gluon.model_zoo.vision.resnet18_v1()\n"
            'net.initialize(mx.init.Xavier(magnitude=2))\n'
            'x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3, 64, 64)))\n'
            'net.hybridize()\n'
            "np.save(p + '-y.npy', net(x).asnumpy())\n"
            "np.save(p + '-x.npy', x.asnumpy())\n"
            'net.export(p)\n'
            "net.save_parameters(p + '.params')\n")
    script = tmp_path / 'export.py'
    script.write_text(code)
    prefix = str(tmp_path / 'resnet18_v1')
    r = subprocess.run([oracle_runner(), str(script), prefix], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    x, want = mx.nd.array(np.load(prefix + '-x.npy')), np.load(prefix + '-y.npy')
    blk = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params')
    np.testing.assert_allclose(blk(x).asnumpy(), want, rtol=1e-4, atol=1e-5)
    ours = vision.resnet18_v1()
    ours.load_parameters(prefix + '.params')
    np.testing.assert_allclose(ours(x).asnumpy(), want, rtol=1e-4, atol=1e-5)
