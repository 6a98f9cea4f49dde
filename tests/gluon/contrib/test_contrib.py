"""mx.gluon.contrib against goldens recorded from MXNet 1.9.1 (tests/fixtures/gluon_contrib, gen_gluon_contrib.py):
the same scenario code runs here under mxcompat."""
import importlib.util
import json
import os
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'gluon_contrib'))
_spec = importlib.util.spec_from_file_location('contrib_scenarios', os.path.join(FIX, 'contrib_scenarios.py'))
sc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sc)
ARRAYS = dict(np.load(os.path.join(FIX, 'gluon_contrib.npz')))
FACTS = json.load(open(os.path.join(FIX, 'gluon_contrib.json')))
c = mx.gluon.contrib


def _compare(group, got, rtol=1e-4, atol=1e-5):
    lead = group + '/'
    want = {k[len(lead):]: v for k, v in ARRAYS.items() if k.startswith(lead)}
    assert sorted(got) == sorted(want)
    for name, ref in want.items():
        assert got[name].shape == ref.shape, name
        assert got[name].dtype == ref.dtype, name
        np.testing.assert_allclose(got[name], ref, rtol=rtol, atol=atol, err_msg=name)


# ---- values and gradients against MXNet ------------------------------------------------------------------------------
@pytest.mark.parametrize('key', sorted(sc.PIXEL))
def test_pixel_shuffle(key):
    _compare('pixel/' + key, sc.run_pixel(mx, np, key))


@pytest.mark.parametrize('key', sorted(sc.DEFORM))
def test_deformable(key):
    _compare('deform/' + key, sc.run_deformable(mx, np, key))


@pytest.mark.parametrize('key', sorted(sc.CONV))
def test_conv_cells(key):
    _compare('conv/' + key, sc.run_conv(mx, np, key))


@pytest.mark.parametrize('group, fn', [('concurrent', sc.run_concurrent), ('sparse_emb', sc.run_sparse_embedding),
                                       ('syncbn', sc.run_sync_bn), ('lstmp', sc.run_lstmp),
                                       ('vardrop0', sc.run_vardrop_identity),
                                       ('dynamic_unroll', sc.run_dynamic_unroll)])
def test_scenario(group, fn):
    _compare(group, fn(mx, np))


def test_facts():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = json.loads(json.dumps(sc.describe(mx)))
    want = dict(FACTS)
    # error classes: ours subclass the builtin MXNet raises (AssertionError), the messages match
    for group in ('pixel_bad', 'conv_bad'):
        for k, (cls, msg) in want.pop(group).items():
            g_cls, g_msg = got[group].pop(k)
            assert g_msg == msg, k
            assert g_cls == cls or issubclass(getattr(mx.base, g_cls), getattr(__builtins__, cls, AssertionError)) \
                if hasattr(mx.base, g_cls) else g_cls == cls, (k, g_cls)
        del got[group]
    bad = want.pop('deform_bad_layout')
    assert got.pop('deform_bad_layout')[1] == bad[1]
    bad = want['sampler'].pop('bad')
    assert got['sampler'].pop('bad')[1] == bad[1]
    assert got == want


# ---- behaviour -------------------------------------------------------------------------------------------------------
def test_concurrent_symbol_and_hybridize():
    net = c.nn.HybridConcurrent(axis=1)
    for units in (4, 3):
        net.add(mx.gluon.nn.Dense(units, in_units=2))
    net.add(c.nn.Identity())
    y = net(mx.sym.var('data'))
    assert len(y.list_arguments()) == 5
    net.initialize()
    x = mx.nd.array(np.random.RandomState(0).uniform(size=(3, 2)))
    eager = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-6)
    assert eager.shape == (3, 9)
    np.testing.assert_array_equal(eager[:, 7:], x.asnumpy())


def test_model_zoo_uses_contrib_blocks():
    from mxcompat.gluon.model_zoo.vision import _common
    assert _common.HybridConcurrent is c.nn.HybridConcurrent and _common.Identity is c.nn.Identity


def test_pixel_shuffle_symbolic_shape():
    out = c.nn.PixelShuffle3D((2, 3, 4))(mx.sym.var('x'))
    assert out.infer_shape(x=(1, 48, 3, 5, 7))[1] == [(1, 2, 6, 15, 28)]


def test_sync_batchnorm_devices():
    with pytest.warns(UserWarning, match='num_devices'):
        bn = c.nn.SyncBatchNorm()
    assert bn._kwargs['ndev'] == 1
    bn = c.nn.SyncBatchNorm(num_devices=2)
    bn.initialize()
    with pytest.raises(MXNetNotImplementedError, match='SyncBatchNorm.*ndev=2'):
        bn(mx.nd.ones((2, 3, 2)))


def test_sparse_embedding_row_sparse_weight_and_gradient():
    layer = c.nn.SparseEmbedding(10, 4)
    layer.initialize()
    with pytest.raises(MXNetError, match='no Trainer'):  # its row_sparse weight lives in the Trainer's kvstore
        layer(mx.nd.array([1]))
    mx.gluon.Trainer(layer.collect_params(), 'sgd')
    with mx.autograd.record():
        layer(mx.nd.array([3, 4, 2, 0, 1, 3])).backward()
    grad = layer.weight.grad()
    assert grad.stype == 'row_sparse' and grad.indices.asnumpy().tolist() == [0, 1, 2, 3, 4]
    assert grad.asnumpy()[:5, 0].tolist() == [1, 1, 1, 2, 1] and (grad.asnumpy()[5:] == 0).all()


def test_conv_cell_deferred_input_channels():
    cell = c.rnn.Conv1DLSTMCell((0, 7), 10, (3,), (3,))
    cell.hybridize()
    cell.initialize()
    x = mx.nd.ones((2, 3, 5, 7))
    with mx.autograd.record():
        out, _ = cell.unroll(3, x, merge_outputs=True)
    out.backward()
    assert out.shape == (2, 3, 10, 5)
    assert cell.i2h_weight.shape == (40, 5, 3)


def test_conv_cells_in_sequential_stack():
    net = mx.gluon.rnn.SequentialRNNCell()
    net.add(c.rnn.Conv1DLSTMCell((5, 7), 10, (3,), (3,)))
    net.add(c.rnn.Conv1DRNNCell((10, 5), 11, (3,), (3,)))
    net.add(c.rnn.Conv1DGRUCell((11, 3), 12, (3,), (3,)))
    net.initialize()
    out, states = net.unroll(3, mx.nd.ones((8, 3, 5, 7)), merge_outputs=True)
    assert out.shape == (8, 3, 12, 1) and len(states) == 4


@pytest.mark.parametrize('cls, in_shape, out_shape', [
    ('Conv1DGRUCell', (1, 10, 50), (1, 100, 48)), ('Conv2DRNNCell', (1, 10, 20, 50), (1, 100, 18, 48)),
    ('Conv3DLSTMCell', (1, 10, 20, 30, 50), (1, 100, 18, 28, 48))])
def test_conv_cell_symbol_unroll(cls, in_shape, out_shape):
    cell = getattr(c.rnn, cls)(in_shape[1:], 100, 3, 3, prefix='rnn_')
    outputs, _ = cell.unroll(3, [mx.sym.var('rnn_t%d_data' % i) for i in range(3)])
    outputs = mx.sym.Group(outputs)
    assert outputs.list_outputs() == ['rnn_t0_out_output', 'rnn_t1_out_output', 'rnn_t2_out_output']
    shapes = {'rnn_t%d_data' % i: in_shape for i in range(3)}
    assert outputs.infer_shape(**shapes)[1] == [out_shape] * 3


def test_lstmp_symbol_unroll():
    cell = c.rnn.LSTMPCell(100, 64, prefix='rnn_')
    outputs, _ = cell.unroll(3, [mx.sym.var('rnn_t%d_data' % i) for i in range(3)])
    outputs = mx.sym.Group(outputs)
    assert sorted(cell.collect_params()) == ['rnn_h2h_bias', 'rnn_h2h_weight', 'rnn_h2r_weight', 'rnn_i2h_bias',
                                             'rnn_i2h_weight']
    assert outputs.infer_shape(rnn_t0_data=(10, 50), rnn_t1_data=(10, 50), rnn_t2_data=(10, 50))[1] == \
        [(10, 64)] * 3


def test_variational_dropout_masks():
    cell = c.rnn.VariationalDropoutCell(mx.gluon.rnn.RNNCell(20), drop_inputs=0.5, drop_states=0.5,
                                        drop_outputs=0.5)
    assert cell.__class__ is mx.gluon.rnn.rnn_cell.VariationalDropoutCell
    cell.initialize()
    x = mx.nd.random.uniform(shape=(4, 3, 6))
    with mx.autograd.record():
        a = cell.unroll(3, x, merge_outputs=True)[0].asnumpy()
        b = cell.unroll(3, x, merge_outputs=True)[0].asnumpy()
    assert not np.allclose(a, b)
    # one mask for the whole sequence: with recorded masks, a step's zeros repeat at every step
    assert cell.drop_outputs_mask is not None


def test_interval_sampler_len_and_dataloader():
    s = c.data.IntervalSampler(7, 2, rollover=False)
    assert list(s) == [0, 2, 4, 6] and len(s) == 7
    loader = mx.gluon.data.DataLoader(mx.gluon.data.SimpleDataset(list(range(7))), batch_size=3,
                                      sampler=c.data.IntervalSampler(7, 2))
    assert [b.asnumpy().tolist() for b in loader] == [[0, 2, 4], [6, 1, 3], [5]]


def test_deformable_parameter_order():
    v1 = c.cnn.DeformableConvolution(2, kernel_size=3, prefix='d_')
    v2 = c.cnn.ModulatedDeformableConvolution(2, kernel_size=3, prefix='m_')
    assert [k[2:] for k in v1.collect_params()] == ['offset_weight', 'offset_bias', 'deformable_conv_weight',
                                                    'deformable_conv_bias']
    assert [k[2:] for k in v2.collect_params()] == ['deformable_conv_weight', 'deformable_conv_bias',
                                                    'offset_weight', 'offset_bias']


def test_modulated_deformable_gradient_numeric():
    """MXNet 1.9.1 has no CPU backward for this block to record: check autograd against finite differences."""
    block = c.cnn.ModulatedDeformableConvolution(2, kernel_size=3, padding=1, in_channels=2)
    block.initialize()
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (1, 2, 4, 4)), dtype='float64')
    block.cast('float64')
    block(x)
    for p in block.collect_params().values():
        p.set_data(mx.nd.array(rng.uniform(-0.3, 0.3, p.shape), dtype='float64'))
    x.attach_grad()
    with mx.autograd.record():
        (block(x) ** 2).sum().backward()
    base = x.asnumpy()
    num = np.zeros_like(base)
    eps = 1e-6
    for i in np.ndindex(base.shape):
        hi, lo = base.copy(), base.copy()
        hi[i] += eps
        lo[i] -= eps
        f = [(block(mx.nd.array(v, dtype='float64')) ** 2).sum().asscalar() for v in (hi, lo)]
        num[i] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-4, atol=1e-6)


# ---- deferred shapes inside a hybridized parent -----------------------------------------------------------------
@pytest.mark.parametrize('make', [lambda: c.cnn.DeformableConvolution(3, kernel_size=3),
                                  lambda: c.nn.SyncBatchNorm(num_devices=1)])
def test_deferred_shapes_inside_hybridized_container(make):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(2, 1), make())
    net.initialize()
    net.hybridize()
    assert net(mx.nd.ones((1, 2, 5, 5))).shape[:2] in ((1, 3), (1, 2))


def test_former_gaps_are_modules_and_unknown_names_raise():
    assert c.estimator.Estimator and c.data.text.WikiText2
    with pytest.raises(AttributeError, match='no_such_module'):
        c.no_such_module


def test_dynamic_unroll_symbol_is_one_foreach():
    """On Symbols, dynamic_unroll is one _foreach node (values and JSON against MXNet: tests/symbol/
    test_control_flow.py)."""
    cell = mx.gluon.rnn.RNNCell(3)
    outs, states = c.rnn.rnn_cell.dynamic_unroll(cell, mx.sym.var('x'), [mx.sym.var('s')])
    ops = [n['op'] for n in json.loads(mx.sym.Group([outs] + states).tojson())['nodes']]
    assert ops.count('_foreach') == 1 and 'RNN' not in ops


def test_unknown_attribute():
    with pytest.raises(AttributeError):
        c.nothing_here
    assert issubclass(MXNetNotImplementedError, MXNetError)
