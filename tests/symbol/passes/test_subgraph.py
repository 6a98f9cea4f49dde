"""MXNet's oneDNN convolution fusion (symbol/passes/subgraph.py): inference-only executors by default, Gluon's
hybridize(backend='MKLDNN') / optimize_for; goldens from MXNet 1.9.1 in tests/fixtures/subgraph."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import autograd, gluon, kernels
from mxcompat.symbol.passes.subgraph import _FusedConv
from tests._fixtures import load_generator

FIX = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'subgraph')
pytestmark = pytest.mark.skipif(not kernels.cpu.ONEDNN_CONV, reason="this torch build has no oneDNN convolution fusion")


GEN = load_generator('subgraph', 'gen_subgraph.py')
with open(os.path.join(FIX, 'subgraph.json')) as _f:
    GOLDEN = json.load(_f)


def _fused_nodes(gm):
    return [n for n in gm.graph.nodes if isinstance(n.target, _FusedConv)]


def _mx_ops(gm):
    return [getattr(n.target, '_mx_op', None) for n in gm.graph.nodes if n.op == 'call_function']


@pytest.mark.parametrize('name', sorted(GOLDEN['fused']))
def test_inference_executor_matches_mxnet_fused_and_unfused(name, monkeypatch):
    monkeypatch.delenv('MXNET_SUBGRAPH_BACKEND', raising=False)
    fused = GEN.run_executors(mx)[name]
    np.testing.assert_allclose(fused, GEN.decode(*GOLDEN['fused'][name]), rtol=1e-5, atol=2e-6)
    monkeypatch.setenv('MXNET_SUBGRAPH_BACKEND', 'NONE')
    plain = GEN.run_executors(mx)[name]
    np.testing.assert_allclose(plain, GEN.decode(*GOLDEN['unfused'][name]), rtol=1e-5, atol=2e-6)


def _bound(name, grad_req='null'):
    sym, shape = GEN.graphs(mx)[name]
    args, aux = GEN.values(sym, shape, 0)
    args = {k: mx.nd.array(v) for k, v in args.items()}
    grads = None if grad_req == 'null' else {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    return sym.bind(mx.cpu(), args, args_grad=grads, aux_states={k: mx.nd.array(v) for k, v in aux.items()},
                    grad_req=grad_req)


def test_executor_fuses_the_chains_mxnet_fuses(monkeypatch):
    monkeypatch.delenv('MXNET_SUBGRAPH_BACKEND', raising=False)
    exe = _bound('conv_bn_add_relu')
    gm = exe._runner.fn
    # the stem (conv + bias, BatchNorm, relu) and the body (conv, BatchNorm, the residual add, relu)
    assert len(_fused_nodes(gm)) == 2
    assert not {'Convolution', 'BatchNorm', 'elemwise_add', 'Activation'} & set(_mx_ops(gm))
    # softrelu has no oneDNN post-op in torch: conv + BatchNorm fused, the activation stays
    gm = _bound('conv_bn_softrelu')._runner.fn
    assert len(_fused_nodes(gm)) == 1 and _mx_ops(gm).count('Activation') == 1
    # the plain graph users see (graph_module) keeps MXNet's operators
    assert 'BatchNorm' in _mx_ops(exe.graph_module)


def test_training_executor_is_not_fused(monkeypatch):
    monkeypatch.delenv('MXNET_SUBGRAPH_BACKEND', raising=False)
    exe = _bound('conv_bn_add_relu', grad_req='write')
    assert not _fused_nodes(exe._runner.fn)


@pytest.mark.parametrize('env, fused', [({'MXNET_SUBGRAPH_BACKEND': 'NONE'}, 0),
                                        ({'MXNET_DISABLE_MKLDNN_CONV_OPT': '1'}, 0),
                                        ({'MXNET_DISABLE_MKLDNN_FUSE_CONV_BN': '1'}, 0),
                                        ({'MXNET_DISABLE_MKLDNN_FUSE_CONV_SUM': '1'}, 2),
                                        ({'MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU': '1'}, 2)])
def test_environment_switches(env, fused, monkeypatch):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    gm = _bound('conv_bn_add_relu')._runner.fn
    assert len(_fused_nodes(gm)) == fused
    ops = _mx_ops(gm)
    if 'MXNET_DISABLE_MKLDNN_FUSE_CONV_SUM' in env:
        assert ops.count('elemwise_add') == 1 and ops.count('Activation') == 1  # the body stops at its BatchNorm
    if 'MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU' in env:
        assert ops.count('Activation') == 2 and 'elemwise_add' not in ops


def test_training_mode_forward_of_inference_executor_runs_unfused(monkeypatch):
    """forward(is_train=True) normalizes with the batch statistics: the fused node runs the operators."""
    monkeypatch.delenv('MXNET_SUBGRAPH_BACKEND', raising=False)
    fused = _bound('conv_bn_add_relu').forward(is_train=True)[0].asnumpy()
    monkeypatch.setenv('MXNET_SUBGRAPH_BACKEND', 'NONE')
    plain = _bound('conv_bn_add_relu').forward(is_train=True)[0].asnumpy()
    np.testing.assert_array_equal(fused, plain)


def test_gluon_optimize_for_mkldnn_matches_mxnet():
    got = GEN.run_gluon(mx)
    for backend in ('None', 'MKLDNN'):
        np.testing.assert_allclose(got[backend], GEN.decode(*GOLDEN['gluon'][backend]), rtol=1e-5, atol=1e-5)


class _Residual(gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.c1 = gluon.nn.Conv2D(64, 3, padding=1, use_bias=False)
            self.b1 = gluon.nn.BatchNorm()
            self.c2 = gluon.nn.Conv2D(64, 3, padding=1)
            self.b2 = gluon.nn.BatchNorm()

    def hybrid_forward(self, F, x):
        y = F.Activation(self.b1(self.c1(x)), act_type='relu')
        return F.Activation(self.b2(self.c2(y)) + x, act_type='relu')


def _pair(x):
    """The same residual block twice (equal parameters, BatchNorm statistics away from 0 and 1): hybridized
    plainly and with backend='MKLDNN'."""
    nets = []
    for backend in (None, 'MKLDNN'):
        net = _Residual(prefix='r_')
        net.initialize()
        net(x)
        for i, (name, p) in enumerate(sorted(net.collect_params().items())):
            lo, hi = (0.5, 1.5) if ('gamma' in name or 'var' in name) else (-0.2, 0.2)
            p.set_data(mx.nd.array(np.random.RandomState(i).uniform(lo, hi, p.shape)))
        net.hybridize(backend=backend)
        nets.append(net)
    return nets


def test_gluon_backend_fuses_inference_and_leaves_training_alone():
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 64, 6, 6)))
    plain, fused = _pair(x)
    np.testing.assert_allclose(fused(x).asnumpy(), plain(x).asnumpy(), rtol=1e-5, atol=1e-5)
    assert len(_fused_nodes(fused._cached_op.fn)) == 2
    # recorded (training mode, batch statistics): the operators unfused, values and gradients identical
    outs, grads = [], []
    for net in (plain, fused):
        with autograd.record():
            y = net(x)
        y.backward()
        outs.append(y.asnumpy())
        grads.append({k.split('_', 1)[1]: p.grad().asnumpy() for k, p in net.collect_params().items()
                      if p.grad_req != 'null'})
    np.testing.assert_array_equal(outs[0], outs[1])
    for k in grads[0]:
        np.testing.assert_array_equal(grads[0][k], grads[1][k])
    # train_mode without recording: batch statistics, unfused
    with autograd.train_mode():
        np.testing.assert_array_equal(fused(x).asnumpy(), plain(x).asnumpy())


def test_fused_weights_follow_parameter_changes():
    """The folded weight is remade when the weight, bias or BatchNorm arrays change: by an optimizer step, by
    set_data (written through .data, unseen by the version counter) or by a training-mode forward."""
    x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (1, 64, 5, 5)))
    plain, fused = _pair(x)
    fused(x)
    for net in (plain, fused):
        p = net.collect_params()
        p['r_batchnorm1_gamma'].set_data(mx.nd.full((64,), 0.25))
        p['r_batchnorm0_running_var'].set_data(mx.nd.full((64,), 4.0))
    np.testing.assert_allclose(fused(x).asnumpy(), plain(x).asnumpy(), rtol=1e-5, atol=1e-5)
    for net in (plain, fused):
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05})
        with autograd.record():
            y = net(x)
        y.backward()
        trainer.step(1)  # updates the weights and, through the recorded BatchNorm, the running statistics
    want = plain(x).asnumpy()
    # (the folding rounds at the scale of the convolution's output, before BatchNorm's shift)
    np.testing.assert_allclose(fused(x).asnumpy(), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    stale = _pair(x)[1]
    stale(x)
    assert np.abs(stale(x).asnumpy() - want).max() > 1e-2  # (what a stale folded weight would give)


def test_residual_addend_shape_mismatch_raises_mxnet_error():
    """A fused graph whose addend does not match the convolution output raises the addition's error."""
    data = mx.sym.var('data')
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=64, no_bias=True, name='c')  # valid: 5x5 -> 3x3
    out = mx.sym.Activation(mx.sym.BatchNorm(conv, name='bn') + mx.sym.var('other'), act_type='relu')
    args = {'data': mx.nd.ones((1, 3, 5, 5)), 'c_weight': mx.nd.ones((64, 3, 3, 3)) * 0.1,
            'bn_gamma': mx.nd.ones((64,)), 'bn_beta': mx.nd.zeros((64,)), 'other': mx.nd.ones((1, 64, 3, 3))}
    aux = [mx.nd.zeros((64,)), mx.nd.ones((64,))]
    exe = out.bind(mx.cpu(), args, aux_states=aux, grad_req='null')
    fused = _fused_nodes(exe._runner.fn)
    assert len(fused) == 1
    ref = mx.nd.relu(mx.nd.BatchNorm(mx.nd.Convolution(args['data'], args['c_weight'], kernel=(3, 3),
                                                       num_filter=64, no_bias=True),
                                     args['bn_gamma'], args['bn_beta'], *aux) + args['other'])
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-5)
    tensors = [args[k]._t for k in ('data', 'c_weight', 'bn_gamma', 'bn_beta')] + [a._t for a in aux]
    with pytest.raises(mx.base.MXNetError, match='elemwise_add'):
        fused[0].target(*tensors, mx.nd.ones((1, 64, 9, 1))._t)


def test_optimize_for_builds_the_graph_without_running_it(tmp_path):
    """optimize_for finishes deferred initialization and builds the fused graph; export still writes MXNet's
    operators (the unpartitioned graph)."""
    net = _Residual(prefix='o_')
    net.initialize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 64, 4, 4)))
    assert net.optimize_for(x, backend='MKLDNN') is None
    assert net.c1.weight.shape == (64, 64, 3, 3) and len(_fused_nodes(net._cached_op.fn)) == 2
    ref = _Residual(prefix='o_')
    ref.initialize()
    ref(x)
    for (_, a), (_, b) in zip(sorted(net.collect_params().items()), sorted(ref.collect_params().items())):
        b.set_data(a.data())
    np.testing.assert_allclose(net(x).asnumpy(), ref(x).asnumpy(), rtol=1e-5, atol=1e-5)
    net.export(str(tmp_path / 'res'))
    ops = {n['op'] for n in json.loads((tmp_path / 'res-symbol.json').read_text())['nodes']}
    assert {'Convolution', 'BatchNorm', 'elemwise_add', 'Activation'} <= ops


@pytest.mark.parametrize('name', ['resnet18_v2', 'mobilenetv2_0.25', 'squeezenet1.1'])
def test_model_zoo_module_inference_fused_and_unfused_agree(name, monkeypatch):
    """A Module bound for inference fuses the model-zoo graph's chains (pre-activation ResNet, depthwise convolutions
    left to their operators, convolutions with bias and relu) and agrees with the unfused graph."""
    net = mx.gluon.model_zoo.vision.get_model(name)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)))
    net(x)
    rs = np.random.RandomState(1)
    for pname, p in sorted(net.collect_params().items()):
        if pname.endswith(('running_var', 'gamma')):
            p.set_data(mx.nd.array(rs.uniform(0.5, 1.5, p.shape)))
        elif pname.endswith(('running_mean', 'beta')):
            p.set_data(mx.nd.array(rs.uniform(-0.2, 0.2, p.shape)))
    sym = net(mx.sym.var('data'))
    params = {k: v.data() for k, v in net.collect_params().items()}
    aux_names = set(sym.list_auxiliary_states())
    outs = {}
    for backend in ('MKLDNN', 'NONE'):
        monkeypatch.setenv('MXNET_SUBGRAPH_BACKEND', backend)
        mod = mx.mod.Module(sym, label_names=None, context=mx.cpu())
        mod.bind(data_shapes=[('data', x.shape)], for_training=False)
        mod.set_params({k: v for k, v in params.items() if k not in aux_names},
                       {k: v for k, v in params.items() if k in aux_names})
        fused = _fused_nodes(mod._exec_group.execs[0]._runner.fn)
        assert bool(fused) == (backend == 'MKLDNN')
        outs[backend] = mod.predict(mx.io.NDArrayIter(x, batch_size=1)).asnumpy()
    want = outs['NONE']
    np.testing.assert_allclose(outs['MKLDNN'], want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    np.testing.assert_array_equal(want, net(x).asnumpy())
