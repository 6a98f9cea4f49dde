"""gluon.rnn.RNN/LSTM/GRU against MXNet 1.9.1 goldens (values, states, gradients), names, files, gaps."""
import os

import numpy as np
import pytest

import mxcompat as mx
from tests.conftest import example_output
from mxcompat.base import MXNetError, MXNetValueError
from tests.gluon.rnn.rnn_golden import ARRAYS, FACTS, FIX, compare, expected, scenarios

rnn = mx.gluon.rnn


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('key', sorted(scenarios.LAYERS))
def test_layer_matches_mxnet(key, hybridize):
    compare(scenarios.run_layer(mx, np, key, hybridize=hybridize), expected('layer', key))


def test_layer_facts():
    with mx.name.NameManager():
        got = scenarios.describe(mx)
    for label in ('lstm2bi', 'gru', 'rnn', 'lstm_deferred'):
        assert got[label] == FACTS[label], label


@pytest.mark.parametrize('name', ['lstm_bi2', 'gru1'])
def test_load_mxnet_parameter_file(name, tmp_path):
    layer = rnn.LSTM(scenarios.H, 2, bidirectional=True) if name == 'lstm_bi2' else rnn.GRU(scenarios.H,
                                                                                               layout='NTC')
    layer.load_parameters(os.path.join(FIX, name + '.params'))
    out = layer(mx.nd.array(ARRAYS['file/x']))
    np.testing.assert_allclose(out.asnumpy(), ARRAYS['file/%s/out' % name], rtol=1e-5, atol=1e-6)
    # our own file has MXNet's keys and loads back
    path = str(tmp_path / 'mine.params')
    layer.save_parameters(path)
    assert sorted(mx.nd.load(path).keys()) == FACTS['file_keys_' + name]
    twin = type(layer)(scenarios.H, layer._num_layers, layout=layer._layout, bidirectional=layer._dir == 2)
    twin.load_parameters(path)
    np.testing.assert_array_equal(twin(mx.nd.array(ARRAYS['file/x'])).asnumpy(), out.asnumpy())


def test_bad_state_shape():
    layer = rnn.LSTM(scenarios.H, input_size=scenarios.C)
    layer.initialize()
    kind, msg = FACTS['bad_state']
    with pytest.raises(MXNetValueError) as err:
        layer(mx.nd.ones((4, 3, 5)), [mx.nd.ones((1, 3, 3)), mx.nd.ones((1, 3, 6))])
    assert kind == 'ValueError' and str(err.value) == msg


def test_gaps_raise():
    with pytest.raises(MXNetValueError, match='layout'):
        rnn.GRU(8, layout='NCT')
    with pytest.raises(MXNetValueError, match='activation'):
        rnn.RNN(8, activation='sigmoid')


def test_deferred_init_inside_hybridized_parent():
    def build():
        net = mx.gluon.nn.HybridSequential(prefix='net_')
        with net.name_scope():
            net.add(rnn.LSTM(5, bidirectional=True, num_layers=2), mx.gluon.nn.Dense(3, flatten=False))
        net.initialize(mx.init.Xavier())
        return net
    x = mx.nd.random.uniform(shape=(4, 2, 7))
    eager, hybrid = build(), build()
    eager(x)
    hybrid.hybridize()
    out = hybrid(x)
    assert hybrid[0].l0_i2h_weight.shape == (20, 7)
    for name, p in hybrid.collect_params().items():
        eager.collect_params()[name].set_data(p.data())
    np.testing.assert_allclose(out.asnumpy(), eager(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_export_and_import(tmp_path):
    layer = rnn.GRU(4, num_layers=2, layout='NTC', input_size=3)
    layer.initialize()
    layer.hybridize()
    x = mx.nd.random.uniform(shape=(2, 5, 3))
    out = layer(x)
    layer.export(str(tmp_path / 'gru'))
    # the default begin state is a second graph input (data1), as in MXNet's export
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / 'gru-symbol.json'), ['data0', 'data1'],
                                        str(tmp_path / 'gru-0000.params'))
    np.testing.assert_allclose(back(x, layer.begin_state(2)[0]).asnumpy(), out.asnumpy(), rtol=1e-6)


def test_unfuse_matches_fused():
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.random.uniform(shape=(5, 2, 3))
    cells = layer._unfuse()
    out = cells.unroll(5, x, layout='TNC', merge_outputs=True)[0]
    np.testing.assert_allclose(out.asnumpy(), layer(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_states_returned_only_when_given_even_after_hybridize():
    # differs from MXNet on purpose: its cached graph keeps the first call's output structure
    layer = rnn.RNN(3, input_size=2)
    layer.initialize()
    layer.hybridize()
    x = mx.nd.ones((4, 2, 2))
    assert isinstance(layer(x), mx.nd.NDArray)
    out, states = layer(x, layer.begin_state(2))
    assert out.shape == (4, 2, 3) and states[0].shape == (1, 2, 3)
    assert isinstance(layer(x), mx.nd.NDArray)


def test_begin_state_func_and_kwargs():
    layer = rnn.LSTM(3, num_layers=2, dtype='float64')
    h, c = layer.begin_state(4, func=mx.nd.ones)
    assert h.shape == c.shape == (2, 4, 3) and h.dtype == np.float64 and float(h.sum().asscalar()) == 24
    syms = layer.begin_state(0, func=mx.sym.var)
    assert [s.name for s in syms] == [layer.prefix + 'h0_0', layer.prefix + 'h0_1']


def test_float64_gradient_finite_differences():
    layer = rnn.GRU(3, num_layers=2, bidirectional=True, input_size=2, dtype='float64')
    layer.initialize(mx.init.Uniform(0.5))
    rng = np.random.RandomState(0)
    x0 = rng.uniform(-1, 1, (3, 2, 2))
    w = mx.nd.array(rng.uniform(-1, 1, (3, 2, 6)), dtype='float64')

    def loss(xv):
        return float((layer(mx.nd.array(xv, dtype='float64')) * w).sum().asscalar())
    x = mx.nd.array(x0, dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        out = (layer(x) * w).sum()
    out.backward()
    eps = 1e-6
    num = np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        up, down = x0.copy(), x0.copy()
        up[idx] += eps
        down[idx] -= eps
        num[idx] = (loss(up) - loss(down)) / (2 * eps)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_dropout_only_in_training():
    layer = rnn.LSTM(8, num_layers=2, dropout=0.5, input_size=4, dtype='float64')
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.random.uniform(shape=(6, 3, 4), dtype='float64')
    a, b = layer(x).asnumpy(), layer(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    with mx.autograd.record():
        c = layer(x).asnumpy()
    assert not np.allclose(a, c)
    assert 'dropout=0.5' in repr(layer)


def test_float32_on_cpu_ignores_dropout():
    # MXNet 1.9.1 (oneDNN's RNN on the CPU): a 2-layer GRU with dropout=0.5 trains as without dropout; its output's
    # first values here, from (T, N, C) = (3, 2, 4) inputs arange / 10 and Uniform(0.5) weights in a fresh process
    mx.random.seed(0)  # (where a fresh process starts)
    layer = rnn.GRU(5, num_layers=2, dropout=0.5, input_size=4)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.arange(24).reshape(3, 2, 4) / 10.)
    with mx.autograd.record():
        y = layer(x).asnumpy().ravel()
    np.testing.assert_allclose(y[:6], [0.008837, -0.05099, -0.007875, 0.000481, -0.016507, 0.027159], atol=2e-6)


def test_symbolic_call_and_sequence_length():
    layer = rnn.GRU(4, layout='NTC', prefix='g_')
    out = layer(mx.sym.var('data'))
    assert isinstance(out, mx.sym.Symbol)
    _, shapes, _ = out.infer_shape(data=(2, 5, 3))
    assert shapes == [(2, 5, 4)]
    seq = rnn.LSTM(4, input_size=3, use_sequence_length=True)
    seq.initialize()
    x = mx.nd.random.uniform(shape=(5, 2, 3))
    out, (h, c) = seq(x, seq.begin_state(2), mx.nd.array([5, 2]))
    assert out.shape == (5, 2, 4) and h.shape == (1, 2, 4)
    assert float(out[2:, 1].abs().sum().asscalar()) == 0.0


def test_keyword_arguments_rejected():
    layer = rnn.GRU(4)
    with pytest.raises(MXNetError, match='unexpected keyword'):
        layer(mx.nd.ones((2, 2, 2)), foo=1)


def test_sequence_length_needs_the_flag():
    layer = rnn.GRU(4, input_size=2)
    layer.initialize()
    with pytest.raises(MXNetValueError, match='use_sequence_length'):
        layer(mx.nd.ones((3, 2, 2)), None, mx.nd.array([1, 2]))


def test_lstm_language_model_example_prints_what_mxnet_prints():
    """compat_examples/gluon_lstm_lm.py (Embedding + 2-layer LSTM + Dense, BPTT with detached states, clipping,
    hybridized in the last epoch) prints exactly what MXNet 1.9.1 printed for it."""
    got, want = example_output('gluon_lstm_lm')
    assert got == want
