"""gluon.rnn cells against MXNet 1.9.1 goldens (unrolled outputs, states, gradients), names and behaviours."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetNotImplementedError
from tests.gluon.rnn.rnn_golden import ARRAYS, FACTS, compare, expected, scenarios

rnn = mx.gluon.rnn


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('key', sorted(scenarios.CELLS))
def test_cell_unroll_matches_mxnet(key, hybridize):
    compare(scenarios.run_cell(mx, np, key, hybridize=hybridize), expected('cell', key))


def test_zoneout_outside_training_is_the_base_cell():
    got = scenarios.run_zoneout_predict(mx, np)
    for k, v in got.items():
        np.testing.assert_allclose(v, ARRAYS['zoneout/' + k], rtol=1e-5, atol=1e-6)


def test_cell_facts():
    with mx.name.NameManager():
        got = scenarios.describe(mx)
    for label in ('rnncell', 'lstmcell', 'grucell', 'bicell', 'auto_prefixes', 'modifier_prefixes',
                  'modifier_reprs', 'stack', 'begin_state_names'):
        assert got[label] == FACTS[label], label


def test_lstm_bias_initializer():
    cell = rnn.LSTMCell(3, i2h_bias_initializer=mx.init.LSTMBias(2.0), input_size=2)
    cell.initialize()
    np.testing.assert_array_equal(cell.i2h_bias.data().asnumpy(), ARRAYS['lstmbias'])


def test_step_by_step_equals_unroll():
    cell = rnn.GRUCell(4, input_size=3)
    cell.initialize(mx.init.Uniform(0.5))
    x = mx.nd.random.uniform(shape=(2, 5, 3))
    merged, last = cell.unroll(5, x, merge_outputs=True)
    states = cell.begin_state(batch_size=2)
    outs = []
    for t in range(5):
        out, states = cell(x[:, t], states)
        outs.append(out.asnumpy())
    np.testing.assert_allclose(np.stack(outs, axis=1), merged.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy(), last[0].asnumpy(), rtol=1e-6)
    assert cell._counter == 9  # unroll counted t0..t4, the manual steps t5..t9 (begin_state does not reset)


def test_symbolic_unroll_binds_and_runs():
    cell = rnn.LSTMCell(5, prefix='s_')
    outs, states = cell.unroll(3, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    group = mx.sym.Group([outs] + states)
    args = group.list_arguments()
    assert args == ['data', 's_i2h_weight', 's_i2h_bias', 's_h2h_weight', 's_h2h_bias']
    shapes = dict(zip(args, group.infer_shape(data=(3, 2, 4))[0]))
    feed = {n: mx.nd.random.uniform(shape=s) for n, s in shapes.items()}
    res = group.eval(ctx=mx.cpu(), **feed)
    assert [r.shape for r in res] == [(3, 2, 5), (2, 5), (2, 5)]
    cell2 = rnn.LSTMCell(5, prefix='s_', input_size=4)
    cell2.initialize()
    for n in ('i2h_weight', 'i2h_bias', 'h2h_weight', 'h2h_bias'):
        getattr(cell2, n).set_data(feed['s_' + n])
    ref = cell2.unroll(3, feed['data'], layout='TNC', merge_outputs=True)[0]
    np.testing.assert_allclose(res[0].asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-6)


def test_cells_inside_hybridized_block():
    class Net(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.cell = rnn.BidirectionalCell(rnn.LSTMCell(4), rnn.GRUCell(4))

        def hybrid_forward(self, F, x, valid):
            return self.cell.unroll(3, x, layout='NTC', merge_outputs=True, valid_length=valid)[0]
    net = Net()
    net.initialize()
    x, valid = mx.nd.random.uniform(shape=(2, 3, 5)), mx.nd.array([3, 1])
    eager = net(x, valid).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x, valid).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    assert eager.shape == (2, 3, 8) and np.all(eager[1, 1:] == 0)


def test_modifier_and_bidirectional_rules():
    base = rnn.RNNCell(3)
    zone = rnn.ZoneoutCell(base, 0.5, 0.5)
    with pytest.raises(MXNetAssertionError, match='modifier'):
        base.begin_state(batch_size=1)
    assert len(zone.begin_state(batch_size=2, func=mx.nd.zeros)) == 1
    with pytest.raises(MXNetAssertionError, match='already modified'):
        rnn.ResidualCell(base)
    bi = rnn.BidirectionalCell(rnn.RNNCell(3), rnn.RNNCell(3))
    with pytest.raises(MXNetNotImplementedError, match='unroll'):
        bi(mx.nd.ones((1, 2)), [])
    with pytest.raises(MXNetAssertionError, match='zoneout'):
        rnn.ZoneoutCell(bi)
    with pytest.raises(MXNetAssertionError, match='rate'):
        rnn.DropoutCell('0.5')
    with pytest.raises(MXNetAssertionError, match='length'):
        rnn.GRUCell(3).unroll(4, mx.nd.ones((2, 3, 2)))


def test_zoneout_and_dropout_in_training():
    cell = rnn.ZoneoutCell(rnn.GRUCell(16, input_size=8), zoneout_outputs=0.5, zoneout_states=0.5)
    cell.initialize(mx.init.Uniform(0.5))
    x = mx.nd.random.uniform(shape=(4, 6, 8))
    plain = cell.unroll(6, x, merge_outputs=True)[0].asnumpy()
    with mx.autograd.record():
        zoned = cell.unroll(6, x, merge_outputs=True)[0].asnumpy()
    assert not np.allclose(plain, zoned)
    drop = rnn.DropoutCell(0.5)
    out, states = drop.unroll(6, x, merge_outputs=True)
    assert states == [] and out.shape == x.shape
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())


def test_activation_variants():
    x = mx.nd.random.uniform(-1, 1, shape=(2, 3))
    for act, ref in [('sigmoid', lambda v: 1 / (1 + np.exp(-v))), ('softrelu', lambda v: np.log1p(np.exp(v))),
                     (mx.gluon.nn.LeakyReLU(0.1), lambda v: np.where(v > 0, v, 0.1 * v)),
                     (lambda v, **kw: v * 2, lambda v: v * 2)]:
        cell = rnn.RNNCell(4, activation=act, input_size=3)
        cell.initialize(mx.init.Uniform(0.5))
        out, _ = cell(x, cell.begin_state(batch_size=2))
        pre = np.dot(x.asnumpy(), cell.i2h_weight.data().asnumpy().T)
        np.testing.assert_allclose(out.asnumpy(), ref(pre), rtol=1e-5, atol=1e-6)


def test_variational_dropout_outside_training_matches_mxnet():
    got = scenarios.run_vardrop_predict(mx, np)
    for k, v in got.items():
        np.testing.assert_allclose(v, ARRAYS['vardrop/' + k], rtol=1e-5, atol=1e-6, err_msg=k)
    with mx.name.NameManager():
        assert scenarios.describe_vardrop(mx) == FACTS['vardrop']


@pytest.mark.parametrize('drop_states', [0.0, 0.3])
def test_variational_dropout_mask_shared_over_time(drop_states):
    cell = rnn.rnn_cell.VariationalDropoutCell(rnn.RNNCell(32, input_size=8), drop_inputs=0.0,
                                               drop_states=drop_states, drop_outputs=0.5)
    cell.initialize(mx.init.Uniform(0.5))
    x = mx.nd.random.uniform(0.1, 1, shape=(4, 5, 8))
    with mx.autograd.record():
        out = cell.unroll(5, x, merge_outputs=True)[0].asnumpy()
    zero = out == 0
    assert zero.any() and not zero.all()
    assert (zero == zero[:, :1]).all()  # one output mask per sequence, the same at every step
    with pytest.raises(MXNetAssertionError, match='variational state dropout'):
        rnn.rnn_cell.VariationalDropoutCell(rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2)), drop_states=0.5)
