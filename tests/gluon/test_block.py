"""gluon.Block: naming, registration, parameters, hooks, files and summary, against MXNet 1.9.1's recorded outcomes
(shared scenarios), plus save_parameters files byte for byte and the MXNet-written files loading here."""
import filecmp
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import gluon
from mxcompat.gluon import nn

from . import golden


@pytest.mark.parametrize('name', golden.scenario_names('block'))
def test_scenario_against_mxnet(name, tmp_path):
    golden.check_scenario(name, tmp_path)


cases = golden.load_module('gluon_cases')


def _mlp():
    return cases.mlp(nn)


def _fixed_mlp():
    net = _mlp()
    net.initialize()
    cases.set_params(net, 3, mx)
    return net


@pytest.mark.parametrize('method, fname', [('save_parameters', 'mlp.params'), ('save_params', 'mlp_old.params')])
def test_parameter_files_are_mxnets_bytes(method, fname, tmp_path):
    net = _fixed_mlp()
    out = str(tmp_path / fname)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        getattr(net, method)(out)
    assert filecmp.cmp(out, golden.path(fname), shallow=False)


@pytest.mark.parametrize('fname', ['mlp.params', 'mlp_old.params'])
def test_load_files_written_by_mxnet(fname):
    ref = _fixed_mlp()
    net = _mlp()
    net.load_parameters(golden.path(fname), ctx=[mx.cpu(0), mx.cpu(1)])
    for a, b in zip(ref.collect_params().values(), net.collect_params().values()):
        for c in (mx.cpu(0), mx.cpu(1)):
            np.testing.assert_array_equal(b.data(c).asnumpy(), a.data().asnumpy())


def test_save_parameters_averages_contexts(tmp_path):
    d = nn.Dense(2, in_units=2)
    d.initialize(init='zeros', ctx=[mx.cpu(0), mx.cpu(1)])
    d.weight.data(mx.cpu(1))[:] = 4
    f = str(tmp_path / 'd.params')
    d.save_parameters(f)
    np.testing.assert_array_equal(mx.nd.load(f)['weight'].asnumpy(), np.full((2, 2), 2.0))


def test_deferred_init_on_first_forward_for_plain_block():
    class Net(gluon.Block):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.a = nn.Dense(4)
                self.b = nn.Dense(2)

        def forward(self, x):
            return self.b(mx.nd.relu(self.a(x)))
    net = Net()
    net.initialize()
    with pytest.raises(gluon.parameter.DeferredInitializationError):
        net.a.weight.data()
    assert net(mx.nd.ones((3, 7))).shape == (3, 2)
    assert net.a.weight.shape == (4, 7) and net.b.weight.shape == (2, 4)


def _noop(*args):
    pass


def test_hook_handle_pickles():
    import pickle
    d = nn.Dense(1)
    h = d.register_forward_hook(_noop)
    h2 = pickle.loads(pickle.dumps(h))
    h2.detach()
    h.detach()
    assert not d._forward_hooks


def test_repr_of_nested_custom_block():
    class Net(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.body = nn.HybridSequential()
                self.body.add(nn.Conv2D(2, 3), nn.BatchNorm())
                self.out = nn.Dense(4, activation='sigmoid')

        def hybrid_forward(self, F, x):
            return self.out(self.body(x))
    want = ('Net(\n  (body): HybridSequential(\n    (0): Conv2D(None -> 2, kernel_size=(3, 3), stride=(1, 1))\n'
            '    (1): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, '
            'in_channels=None)\n  )\n  (out): Dense(None -> 4, Activation(sigmoid))\n)')
    assert repr(Net()) == want


def test_numpy_mode_block_outputs_must_be_numpy_arrays():
    # MXNet 1.9.1 (test_numpy_ndarray's test_np_hybrid_block_multiple_outputs): in NumPy mode a block giving a legacy
    # array among its outputs raises TypeError, run eagerly or hybridized (mixed symbol types)
    class Mixed(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() + x.as_nd_ndarray(), F.np.multiply(x, x)

    class AllNumpy(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.add(x, x), F.np.multiply(x, x)

    mx.npx.set_np()
    try:
        x = mx.np.ones((2, 3))
        for hybridize in (False, True):
            net = Mixed()
            good = AllNumpy()
            if hybridize:
                net.hybridize()
                good.hybridize()
            with pytest.raises(TypeError):
                net(x)
            assert all(type(o) is mx.np.ndarray for o in good(x))
    finally:
        mx.npx.reset_np()
