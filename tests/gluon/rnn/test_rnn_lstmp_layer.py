"""gluon.rnn.LSTM with projection_size (LSTMP) and state clipping, against MXNet 1.9.1
(tests/fixtures/rnn_lstmp/gen_rnn_lstmp.py): parameter names and shapes, state_info, save_parameters keys, repr,
forward outputs and states; gradients flow to every parameter (MXNet's CPU build cannot train LSTMP)."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError
from mxcompat.gluon import rnn

HERE = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'rnn_lstmp')
GOLD = np.load(os.path.join(HERE, 'rnn_lstmp.npz'))
with open(os.path.join(HERE, 'rnn_lstmp.json')) as _f:
    META = json.load(_f)
T, N, C, H, P = 3, 2, 3, 4, 2
CASES = [(layers, bidir) for layers in (1, 2) for bidir in (False, True)]


def _layer(layers, bidir, **kw):
    return rnn.LSTM(H, num_layers=layers, bidirectional=bidir, projection_size=P, input_size=C, prefix='lstmp_', **kw)


@pytest.mark.parametrize('layers, bidir', CASES)
def test_lstmp_layer_against_mxnet(layers, bidir, tmp_path):
    key = 'gluon/l%d_b%d' % (layers, int(bidir))
    want = META[key]
    layer = _layer(layers, bidir)
    layer.initialize()
    params = layer.collect_params()
    assert {n: list(p.shape) for n, p in params.items()} == want['params']
    info = layer.state_info(5)
    assert [dict(s, dtype=str(s['dtype']), shape=list(s['shape'])) for s in info] == want['state_info']
    assert repr(layer) == want['repr']
    for name, prm in params.items():
        prm.set_data(mx.nd.array(GOLD['%s/param/%s' % (key, name)]))
    fname = str(tmp_path / 'lstmp.params')
    layer.save_parameters(fname)
    assert sorted(mx.nd.load(fname)) == want['saved_keys']
    ntc = _layer(layers, bidir, layout='NTC', params=layer.collect_params())
    states = [mx.nd.array(GOLD['%s/state%d' % (key, j)]) for j in range(2)]
    for hybrid in (False, True):
        if hybrid:
            ntc.hybridize()
        out, new_states = ntc(mx.nd.array(GOLD[key + '/x']), states)
        np.testing.assert_allclose(out.asnumpy(), GOLD[key + '/out'], rtol=1e-5, atol=1e-6)
        for j, s in enumerate(new_states):
            np.testing.assert_allclose(s.asnumpy(), GOLD['%s/new_state%d' % (key, j)], rtol=1e-5, atol=1e-6)
    loaded = _layer(layers, bidir)
    loaded.load_parameters(fname)
    np.testing.assert_array_equal(loaded.l0_h2r_weight.data().asnumpy(), GOLD['%s/param/lstmp_l0_h2r_weight' % key])


def test_lstmp_trains_every_parameter():
    layer = _layer(2, True)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.random.uniform(shape=(T, N, C))
    with mx.autograd.record():
        out = layer(x)
    out.backward()
    assert out.shape == (T, N, 2 * P)
    for name, prm in layer.collect_params().items():
        assert np.abs(prm.grad().asnumpy()).sum() > 0, name


def test_lstmp_deferred_input_size_and_begin_state():
    layer = rnn.LSTM(H, projection_size=P, num_layers=2)
    layer.initialize()
    states = layer.begin_state(N)
    assert [s.shape for s in states] == [(2, N, P), (2, N, H)]
    out, new = layer(mx.nd.ones((T, N, 5)), states)
    assert out.shape == (T, N, P) and layer.l0_i2h_weight.shape == (4 * H, 5)
    assert layer.l1_i2h_weight.shape == (4 * H, P) and layer.l0_h2h_weight.shape == (4 * H, P)
    with pytest.raises(MXNetAssertionError, match='_unfuse'):
        layer._unfuse()


def test_state_clipping_layer():
    kw = dict(num_layers=1, input_size=C, prefix='c_')
    clipped = rnn.LSTM(H, state_clip_min=-0.05, state_clip_max=0.05, **kw)
    clipped.initialize(mx.init.Uniform(1.0))
    plain = rnn.LSTM(H, params=clipped.collect_params(), **kw)
    x = mx.nd.random.uniform(-3, 3, shape=(T, N, C))
    begin = clipped.begin_state(N)
    out, (h, c) = clipped(x, begin)
    assert np.abs(c.asnumpy()).max() <= 0.05 + 1e-7
    ref = mx.nd.RNN(x, mx.nd.concat(*[p.data().reshape((-1,)) for p in (
        clipped.l0_i2h_weight, clipped.l0_h2h_weight, clipped.l0_i2h_bias, clipped.l0_h2h_bias)], dim=0),
        *begin, state_size=H, num_layers=1, mode='lstm', lstm_state_clip_min=-0.05, lstm_state_clip_max=0.05)
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-6, atol=1e-7)
    assert not np.allclose(plain(x, begin)[0].asnumpy(), out.asnumpy())
    clipped.hybridize()
    np.testing.assert_allclose(clipped(x, begin)[0].asnumpy(), out.asnumpy(), rtol=1e-6, atol=1e-7)
