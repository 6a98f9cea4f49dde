"""mxcompat.interop: to_torch (standalone torch modules, reloaded in a process without mxcompat), Block.as_torch_module
with torch.optim, gluon.nn.TorchBlock with Trainer, zero-copy tensors, hybridize(backend=...)."""
import json
import os
import pickle
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import autograd, gluon
from mxcompat.base import MXNetError, MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from mxcompat.gluon import nn

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures', 'gluon')
CNN_INFO = json.load(open(os.path.join(FIX, 'cnn.json')))


class _Residual(gluon.HybridBlock):
    """Dense -> BatchNorm(axis=-1) -> relu, scaled by a parameter, plus the input (a custom hybrid_forward)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)
            self.norm = nn.BatchNorm(axis=-1)
            self.scale = self.params.get('scale', shape=(units,), init=mx.init.One())

    def hybrid_forward(self, F, x, scale):
        return F.broadcast_mul(F.relu(self.norm(self.proj(x))), scale) + x


def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(16, activation='relu'), nn.Dropout(0.5), nn.Dense(3))
    return net, (4, 10)


def _cnn():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(), nn.Flatten(), nn.Dense(5))
    return net, (2, 3, 8, 8)


def _cnn2():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 3, padding=1, strides=2), nn.BatchNorm(scale=False), nn.Activation('tanh'),
            nn.AvgPool2D(2), nn.Conv2D(4, 1), nn.GlobalMaxPool2D(), nn.Flatten(), nn.Dropout(0.2), nn.Dense(2))
    return net, (3, 2, 8, 8)


def _residual():
    net = nn.HybridSequential()
    net.add(_Residual(6), _Residual(6), nn.Dense(2))
    return net, (5, 6)


NETS = {'mlp': _mlp, 'cnn': _cnn, 'cnn2': _cnn2, 'residual': _residual}


def _net(kind, seed=0, hybridize=False):
    mx.random.seed(seed)
    with mx.name.NameManager():
        net, shape = NETS[kind]()
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32))
    net(x)
    rng = np.random.RandomState(seed + 1)
    for name, p in net.collect_params().items():  # non-trivial statistics and scales
        if name.endswith(('running_var', 'scale', 'gamma')):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
        elif name.endswith(('running_mean', 'beta')):
            p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    if hybridize:
        net.hybridize()
    return net, x


def _tensor(module, qualified):
    return dict(module.named_parameters()).get(qualified, dict(module.named_buffers()).get(qualified))


def _mx_train_step(net, x, head, seed):
    """Outputs and {MXNet name: gradient} of one training-mode pass in mxcompat, its Dropout masks drawn from
    torch's generator (``mx.random.set_streams('torch')``) as the exported module's are."""
    prev = mx.random.set_streams('torch')
    try:
        torch.manual_seed(seed)
        with autograd.record(train_mode=True):
            y = net(x)
    finally:
        mx.random.set_streams(prev)
    y.backward(mx.nd.array(head))
    grads = {name: p.grad().asnumpy() for name, p in net.collect_params().items() if p.grad_req != 'null'}
    return y.asnumpy(), grads


# ---- to_torch in this process ------------------------------------------------------------------------------------
@pytest.mark.parametrize('kind', sorted(NETS))
@pytest.mark.parametrize('hybridize', [False, True])
def test_to_torch_matches_mxcompat(kind, hybridize):
    net, x = _net(kind, hybridize=hybridize)
    want = net(x).asnumpy()
    module = mx.to_torch(net, x)
    assert isinstance(module, torch.fx.GraphModule) and not module.training
    got = module(x.to_torch())
    assert got.dtype == torch.float32 and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.detach().numpy(), want)
    # every MXNet parameter is there, under its own name (BatchNorm's inside its torch module)
    params = net.collect_params()
    assert sorted(module.mxnet_names.values()) == sorted(params.keys())
    for qualified, mx_name in module.mxnet_names.items():
        t = _tensor(module, qualified)
        if mx_name.endswith(('running_mean', 'running_var')):
            assert qualified in dict(module.named_buffers())
        else:
            assert isinstance(t, torch.nn.Parameter)
            if '.' not in qualified:
                assert qualified == mx_name
        if not (mx_name.endswith('gamma') and not t.requires_grad):
            np.testing.assert_array_equal(t.detach().numpy(), params[mx_name].data().asnumpy())
    # the generated code calls torch only
    for m in module.modules():
        if isinstance(m, torch.fx.GraphModule):
            assert 'mxcompat' not in m.code
    assert b'mxcompat' not in pickle.dumps(module)


@pytest.mark.parametrize('kind', sorted(NETS))
def test_to_torch_train_mode_gradients(kind):
    net, x = _net(kind)
    module = mx.to_torch(net, x).train()
    stats0 = {n: p.data().asnumpy().copy() for n, p in net.collect_params().items() if 'running' in n}
    head = np.random.RandomState(5).uniform(-1, 1, net(x).shape).astype(np.float32)
    want_y, want_g = _mx_train_step(net, x, head, seed=3)
    torch.manual_seed(3)
    y = module(x.to_torch())
    (y * torch.from_numpy(head)).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), want_y, rtol=1e-6, atol=1e-6)
    for qualified, mx_name in module.mxnet_names.items():
        t = _tensor(module, qualified)
        if mx_name in want_g and t.requires_grad:
            np.testing.assert_allclose(t.grad.numpy(), want_g[mx_name], rtol=1e-5, atol=1e-6, err_msg=mx_name)
        elif mx_name.endswith('gamma'):  # fix_gamma: MXNet's gradient is 0 (or none), torch keeps gamma frozen
            assert not want_g.get(mx_name, np.zeros(1)).any() and t.grad is None
    # running statistics updated in the forward pass: the mean as MXNet, the variance with torch's unbiased
    # batch variance (a documented difference)
    for qualified, mx_name in module.mxnet_names.items():
        if mx_name.endswith('running_mean'):
            np.testing.assert_allclose(_tensor(module, qualified).numpy(),
                                       net.collect_params()[mx_name].data().asnumpy(), rtol=1e-5, atol=1e-6)
        if mx_name.endswith('running_var'):
            assert not np.allclose(_tensor(module, qualified).numpy(), stats0[mx_name])


def test_symbolblock_exported_by_real_mxnet():
    blk = gluon.SymbolBlock.imports(os.path.join(FIX, 'cnn-symbol.json'), ['data'],
                                    os.path.join(FIX, 'cnn-0000.params'))
    x = np.array(CNN_INFO['x'], np.float32)
    module = mx.to_torch(blk, mx.nd.array(x))
    got = module(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, CNN_INFO['imported_y'], rtol=1e-5, atol=1e-5)  # real MXNet's output
    assert module.mxnet_inputs == ['data']
    assert module.mxnet_outputs == ['hybridsequential0_dense0_fwd_output']
    assert set(module.mxnet_names.values()) == {p[0] for p in CNN_INFO['imported_params']}


@pytest.mark.parametrize('kind', ['cnn', 'residual'])
def test_dynamic_batch(kind):
    net, x = _net(kind)
    module = mx.to_torch(net, x, dynamic_batch=True)
    assert module.mxnet_dynamic_batch
    assert ('sym_size' in module.code) == (kind == 'cnn')  # Flatten's reshape reads the batch size
    bigger = mx.nd.concat(x, x, x[:1], dim=0)
    np.testing.assert_allclose(module(bigger.to_torch()).detach().numpy(), net(bigger).asnumpy(), rtol=1e-6,
                               atol=1e-6)
    fixed = mx.to_torch(net, x)
    assert not fixed.mxnet_dynamic_batch and 'sym_size' not in fixed.code


def test_dynamic_batch_refused_when_the_graph_depends_on_it():
    class FixedSize(gluon.HybridBlock):  # a reshape to the total size of a batch of two
        def hybrid_forward(self, F, x):
            return F.reshape(x, shape=(6,))
    blk = FixedSize()
    blk.initialize()
    with pytest.raises(MXNetError, match='dynamic_batch=True: the traced graph fails for another batch size'):
        mx.to_torch(blk, mx.nd.ones((2, 3)), dynamic_batch=True)
    np.testing.assert_array_equal(mx.to_torch(blk, mx.nd.ones((2, 3)))(torch.ones(2, 3)).numpy(), np.ones(6))


def test_bound_executor_and_symbol_with_params():
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=4, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=2, name='fc2')
    net = mx.sym.SoftmaxOutput(net, name='softmax')
    ex = net.simple_bind(mx.cpu(), data=(3, 5))
    rng = np.random.RandomState(0)
    for name, arr in ex.arg_dict.items():
        arr[:] = rng.uniform(-1, 1, arr.shape)
    want = ex.forward(is_train=False)[0].asnumpy()
    with pytest.warns(UserWarning, match='SoftmaxOutput exported as forward only'):
        module = mx.to_torch(ex)
    assert module.mxnet_inputs == ['data']  # the label is not needed for the forward pass
    np.testing.assert_allclose(module(ex.arg_dict['data'].to_torch()).detach().numpy(), want, rtol=1e-6)
    args = {k: v for k, v in ex.arg_dict.items() if k not in ('data', 'softmax_label')}
    with pytest.warns(UserWarning):
        module2 = mx.to_torch(net, {'data': ex.arg_dict['data']}, arg_params=args)
    np.testing.assert_allclose(module2(ex.arg_dict['data'].to_torch()).detach().numpy(), want, rtol=1e-6)
    assert sorted(n for n, _ in module2.named_parameters()) == ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight']


def test_bound_module():
    data = mx.sym.var('data')
    net = mx.sym.BatchNorm(mx.sym.FullyConnected(data, num_hidden=4, name='fc1'), fix_gamma=False, name='bn1')
    net = mx.sym.LinearRegressionOutput(net, name='lro')
    mod = mx.mod.Module(net, data_names=['data'], label_names=['lro_label'])
    mod.bind(data_shapes=[('data', (3, 5))], label_shapes=[('lro_label', (3, 4))], for_training=False)
    mod.init_params(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).rand(3, 5))
    mod.forward(mx.io.DataBatch([x]), is_train=False)
    with pytest.warns(UserWarning, match='LinearRegressionOutput exported as forward only'):
        module = mx.to_torch(mod)
    assert module.mxnet_inputs == ['data']
    np.testing.assert_allclose(module(x.to_torch()).detach().numpy(), mod.get_outputs()[0].asnumpy(), rtol=1e-6)
    assert module.mxnet_names == {'fc1_weight': 'fc1_weight', 'fc1_bias': 'fc1_bias', 'bn1.weight': 'bn1_gamma',
                                  'bn1.bias': 'bn1_beta', 'bn1.running_mean': 'bn1_moving_mean',
                                  'bn1.running_var': 'bn1_moving_var'}
    assert isinstance(module.bn1, torch.nn.BatchNorm1d) and module.bn1.momentum == pytest.approx(0.1)


def test_to_torch_errors():
    class Imperative(gluon.Block):
        def forward(self, x):
            return x * 2
    with pytest.raises(MXNetNotImplementedError, match='to_torch.*not a HybridBlock'):
        mx.to_torch(Imperative(), mx.nd.ones((2,)))
    with pytest.raises(MXNetTypeError, match='to_torch: expected'):
        mx.to_torch(object())
    net = nn.Dense(3, in_units=2)
    net.initialize()
    with pytest.raises(MXNetValueError, match='example_inputs'):
        mx.to_torch(net)
    drop = nn.HybridSequential()
    drop.add(nn.Dropout(0.5, axes=(1,)))
    drop.initialize()
    with pytest.raises(MXNetNotImplementedError, match='to_torch: Dropout with axes'):
        mx.to_torch(drop, mx.nd.ones((2, 3, 4)))
    data = mx.sym.var('data')
    with pytest.raises(MXNetValueError, match="to_torch: no value for argument.*fc_weight"):
        mx.to_torch(mx.sym.FullyConnected(data, num_hidden=2, name='fc'), {'data': mx.nd.ones((1, 2))})


def test_to_torch_refuses_custom_ops():
    class Twice(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2)

    @mx.operator.register('interop_twice')
    class TwiceProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Twice()

    sym = mx.sym.Custom(mx.sym.var('data'), op_type='interop_twice')
    with pytest.raises(MXNetNotImplementedError, match='to_torch: operator Custom'):
        mx.to_torch(sym, {'data': mx.nd.ones((2, 2))})


# ---- reloaded where mxcompat cannot be imported ------------------------------------------------------------------
CHILD = r'''
import json, os, sys
sys.path.append(sys.argv[1])  # site-packages, without running its .pth files (mxcompat is an editable install)
try:
    import mxcompat  # noqa: F401
    raise SystemExit('mxcompat is importable in the child')
except ImportError:
    pass
import torch
results = {}
for case in json.load(open('cases.json')):
    m = torch.load(case + '.pt', weights_only=False)
    x, head = torch.load(case + '-io.pt')
    m.eval()
    out = m(x).detach()
    m.train()
    torch.manual_seed(3)
    y = m(x)
    (y * head).sum().backward()
    grads = {n: p.grad for n, p in m.named_parameters() if p.grad is not None}
    results[case] = {'eval': out, 'train': y.detach(), 'grads': grads, 'buffers': dict(m.named_buffers())}
    if os.path.exists(case + '.pt2'):
        ep = torch.export.load(case + '.pt2')
        results[case]['export'] = ep.module()(x).detach()
torch.save(results, 'results.pt')
print('ok', sorted(results), 'mxcompat' in sys.modules)
'''


def _run_child(tmp_path, cases, timeout=120):
    (tmp_path / 'cases.json').write_text(json.dumps(cases))
    (tmp_path / 'child.py').write_text(CHILD)
    purelib = sysconfig.get_paths()['purelib']
    proc = subprocess.run([sys.executable, '-I', '-S', 'child.py', purelib], cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=timeout, env={'PATH': os.environ.get('PATH', '')})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith('False'), proc.stdout
    return torch.load(str(tmp_path / 'results.pt'), weights_only=False)


def test_reload_without_mxcompat(tmp_path):
    expected = {}
    for kind in sorted(NETS):
        net, x = _net(kind)
        module = mx.to_torch(net, x)
        eval_y = net(x).asnumpy()
        head = np.random.RandomState(5).uniform(-1, 1, eval_y.shape).astype(np.float32)
        torch.save(module, str(tmp_path / (kind + '.pt')))
        torch.save((x.to_torch(), torch.from_numpy(head)), str(tmp_path / (kind + '-io.pt')))
        if kind == 'cnn':
            ep = torch.export.export(module, (x.to_torch(),))
            torch.export.save(ep, str(tmp_path / (kind + '.pt2')))
        train_y, grads = _mx_train_step(net, x, head, seed=3)
        expected[kind] = (module, eval_y, train_y, grads, net)
    results = _run_child(tmp_path, sorted(NETS))
    for kind, (module, eval_y, train_y, grads, net) in expected.items():
        got = results[kind]
        np.testing.assert_array_equal(got['eval'].numpy(), eval_y)
        np.testing.assert_allclose(got['train'].numpy(), train_y, rtol=1e-6, atol=1e-6)
        for qualified, g in got['grads'].items():
            np.testing.assert_allclose(g.numpy(), grads[module.mxnet_names[qualified]], rtol=1e-5, atol=1e-6)
        assert set(got['grads']) == {q for q, n in module.mxnet_names.items()
                                     if n in grads and _tensor(module, q).requires_grad}
        for qualified, b in got['buffers'].items():
            if qualified.endswith('running_mean'):
                np.testing.assert_allclose(b.numpy(), net.collect_params()[module.mxnet_names[qualified]]
                                           .data().asnumpy(), rtol=1e-5, atol=1e-6)
        if 'export' in got:
            np.testing.assert_allclose(got['export'].numpy(), eval_y, rtol=1e-6, atol=1e-6)


# ---- a Gluon block in PyTorch code -------------------------------------------------------------------------------
def test_as_torch_module_trains_with_torch_optim():
    net, x = _net('cnn')
    module = net.as_torch_module(x)
    names = dict(module.named_parameters())
    assert set(names) == {n for n, p in net.collect_params().items() if p.grad_req != 'null'}
    assert set(dict(module.named_buffers())) == {n for n in net.collect_params() if 'running' in n}
    key = [n for n in names if n.endswith('conv0_weight')][0]
    assert names[key].data_ptr() == net.collect_params()[key].data()._t.data_ptr()  # shared, not copied
    before = {n: p.detach().clone() for n, p in names.items()}
    opt = torch.optim.SGD(module.parameters(), lr=0.1)
    module.train()
    head = torch.from_numpy(np.random.RandomState(5).uniform(-1, 1, (2, 5)).astype(np.float32))
    opt.zero_grad()
    (module(x.to_torch()) * head).sum().backward()
    grads = {n: p.grad.clone() for n, p in names.items()}
    opt.step()
    for n, p in net.collect_params().items():
        if n in names:  # the Gluon parameter moved by the torch optimizer's step
            np.testing.assert_allclose(p.data().asnumpy(), (before[n] - 0.1 * grads[n]).numpy(), rtol=1e-6,
                                       atol=1e-7)
    # the same gradients as mxcompat's own training-mode backward
    net2, _ = _net('cnn')
    _, want = _mx_train_step(net2, x, head.numpy(), seed=0)
    for n, g in grads.items():
        np.testing.assert_allclose(g.numpy(), want[n], rtol=1e-5, atol=1e-6)
    module.eval()
    np.testing.assert_array_equal(module(x.to_torch()).detach().numpy(), net(x).asnumpy())


def test_as_torch_module_needs_initialized_params():
    net = nn.Dense(3)
    net.initialize()
    with pytest.raises(MXNetValueError, match='as_torch_module'):
        net.as_torch_module()


# ---- a PyTorch module in a Gluon network -------------------------------------------------------------------------
def test_torch_block_trains_with_trainer():
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)
    with mx.name.NameManager():
        net = nn.HybridSequential()
        net.add(nn.Dense(4, activation='tanh'), nn.TorchBlock(lin), nn.Dense(1))
    net.initialize(mx.init.Xavier())
    params = net.collect_params()
    assert [k for k in params if k.startswith('torchblock')] == ['torchblock0_weight', 'torchblock0_bias']
    np.testing.assert_array_equal(params['torchblock0_weight'].data().asnumpy(), lin.weight.detach().numpy())
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 0.1})
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (16, 5)))
    y = mx.nd.array(rng.uniform(-1, 1, (16, 1)))
    loss_fn = gluon.loss.L2Loss()
    losses = []
    for _ in range(20):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(16)
        losses.append(float(loss.mean().asscalar()))
    assert losses[-1] < losses[0] * 0.9
    # the torch module's own parameters are the Gluon arrays (the Trainer's updates are seen by torch code)
    assert lin.weight.data_ptr() == params['torchblock0_weight'].data()._t.data_ptr()
    np.testing.assert_array_equal(lin.weight.detach().numpy(), params['torchblock0_weight'].data().asnumpy())
    with pytest.raises(MXNetNotImplementedError, match='TorchBlock.hybridize'):
        net.hybridize()


def test_torch_block_train_mode_and_errors():
    blk = nn.TorchBlock(torch.nn.Sequential(torch.nn.Dropout(0.5)))
    blk.initialize()
    x = mx.nd.ones((4, 10))
    np.testing.assert_array_equal(blk(x).asnumpy(), x.asnumpy())  # predict mode: no dropout
    with autograd.record(train_mode=True):
        assert (blk(x).asnumpy() == 0).any()
    with pytest.raises(MXNetTypeError, match='TorchBlock'):
        nn.TorchBlock(lambda t: t)
    with pytest.raises(MXNetNotImplementedError, match='TorchBlock'):
        blk(mx.sym.var('data'))


# ---- zero-copy tensors and the compiled backend ------------------------------------------------------------------
def test_zero_copy_both_ways():
    t = torch.arange(6, dtype=torch.float32)
    a = mx.nd.from_torch(t)
    assert a._t.data_ptr() == t.data_ptr()
    a[:] = 1
    assert t.sum().item() == 6
    b = mx.nd.ones((2, 3))
    assert b.to_torch().data_ptr() == b._t.data_ptr()
    c = torch.from_dlpack(b)
    assert c.data_ptr() == b._t.data_ptr()
    d = mx.nd.from_dlpack(t)
    assert d._t.data_ptr() == t.data_ptr()


def test_to_torch_is_standard_layout_after_a_channels_last_convolution():
    # a 64-channel CPU convolution computes channels-last (mxcompat.kernels); the tensor a user gets is C-ordered,
    # as with 16 channels, so t.view(-1) works, and it still shares memory with the array
    x = mx.nd.ones((1, 64, 6, 6))
    y = mx.nd.Convolution(x, mx.nd.ones((64, 64, 3, 3)), kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
    assert not y.to_torch(internal=True).is_contiguous()  # (the layout the kernel chose)
    want = y.asnumpy()
    t = y.to_torch()
    assert t.is_contiguous() and t.view(-1).shape == (64 * 36,)
    t[0, 0, 0, 0] = -1.0
    assert y.asnumpy()[0, 0, 0, 0] == -1.0 and (y.asnumpy().ravel()[1:] == want.ravel()[1:]).all()
    assert torch.from_dlpack(y).is_contiguous()
    with mx.autograd.record():  # a recorded result re-laid out keeps its gradient path
        x.attach_grad()
        z = mx.nd.Convolution(x, mx.nd.ones((64, 64, 3, 3)), kernel=(3, 3), num_filter=64, no_bias=True)
    assert z.to_torch().is_contiguous()
    z.backward()
    assert x.grad.asnumpy().sum() > 0


def test_hybridize_backend():
    net, x = _net('mlp')
    want = net(x).asnumpy()
    net.hybridize()
    assert net(x).asnumpy().tolist() == want.tolist()
    assert isinstance(net._cached_op.fn, torch.fx.GraphModule)  # the default stays the plain fx graph
    net.hybridize(backend='eager')
    np.testing.assert_array_equal(net(x).asnumpy(), want)
    assert not isinstance(net._cached_op.fn, torch.fx.GraphModule)  # compiled by torch.compile
    with pytest.raises(MXNetNotImplementedError, match='backend'):
        net.hybridize(backend='TensorRT')


@pytest.mark.slow
def test_hybridize_inductor():
    net, x = _net('mlp')
    want = net(x).asnumpy()
    net.hybridize(backend='inductor')
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_error_types_are_mxnet_errors():
    assert issubclass(MXNetNotImplementedError, MXNetError)


# ---- every model-zoo architecture, exported and reloaded without mxcompat ------------------------------------------
# By default the families that run at 64x64; DenseNet, SqueezeNet (224) and Inception (299) with the other 25 models
# when MXCOMPAT_SLOW_TESTS=1 (several minutes on 2 cores).
_ZOO_FAMILIES = ['alexnet', 'mobilenet0.25', 'mobilenetv2_0.25', 'resnet18_v1', 'resnet18_v2', 'vgg11_bn']
_ZOO_SIDE = dict({'inceptionv3': 299}, **{n: 224 for n in ('squeezenet1.0', 'squeezenet1.1', 'densenet121',
                                                          'densenet161', 'densenet169', 'densenet201')})


def _zoo_names():
    from mxcompat.gluon.model_zoo import vision
    if os.environ.get('MXCOMPAT_SLOW_TESTS'):
        return sorted(vision._MODELS)
    return _ZOO_FAMILIES


@pytest.mark.slow
def test_model_zoo_architectures_reload_without_mxcompat(tmp_path):
    from mxcompat.gluon.model_zoo import vision
    expected = {}
    for name in _zoo_names():
        net = vision.get_model(name, classes=10)
        net.initialize(mx.init.Xavier(magnitude=2))
        side = _ZOO_SIDE.get(name, 64)
        x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, side, side)).astype(np.float32))
        net(x)  # finish deferred initialisation; BatchNorm running stats stay at their initial values
        module = mx.to_torch(net, x)
        key = name.replace('.', '_')
        torch.save(module, str(tmp_path / (key + '.pt')))
        torch.save((x.to_torch(), torch.zeros(1)), str(tmp_path / (key + '-io.pt')))
        expected[key] = net(x).asnumpy()
    results = _run_child(tmp_path, sorted(expected), timeout=1800)
    for key, want in expected.items():
        np.testing.assert_allclose(results[key]['eval'].numpy(), want, rtol=1e-4, atol=1e-5, err_msg=key)
