"""mx.rnn.FusedRNNCell, BidirectionalCell, ResidualCell, ZoneoutCell against MXNet 1.9.1
(tests/fixtures/rnn_lstmp/gen_rnn_lstmp.py): symbol arguments/outputs, shapes, unroll outputs and gradients,
weight (un)packing, unfuse."""
import json
import os
import re
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError

HERE = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'rnn_lstmp')
GOLD = np.load(os.path.join(HERE, 'rnn_lstmp.npz'))
with open(os.path.join(HERE, 'rnn_lstmp.json')) as _f:
    META = json.load(_f)
T, N, C, H = 3, 2, 3, 4
FUSED = [(mode, bidir) for mode in ('lstm', 'gru', 'rnn_tanh') for bidir in (False, True)]


def _auto(names):
    # automatically numbered node names (swapaxes7_output) depend on what ran before in the process
    return [re.sub(r'^([a-z_]+?)\d+_', r'\1N_', n) for n in names]


@pytest.mark.parametrize('mode, bidir', FUSED)
def test_fused_cell_against_mxnet(mode, bidir):
    key = 'fused/%s_b%d' % (mode, int(bidir))
    want = META[key]
    cell = mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, bidirectional=bidir, get_next_state=True, prefix='f_')
    assert cell.state_info == [dict(s, shape=tuple(s['shape'])) for s in want['state_info']]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        out, states = cell.unroll(T, mx.sym.var('data'), layout='NTC', merge_outputs=True)
    assert any('NTC layout' in str(w.message) for w in caught)
    net = mx.sym.Group([out] + states)
    assert net.list_arguments() == want['args']
    assert _auto(net.list_outputs()) == _auto(want['outputs'])
    a, o, _ = net.infer_shape(data=(N, T, C))
    assert [list(s) for s in a] == want['arg_shapes'] and [list(s) for s in o] == want['out_shapes']
    vals = {n: GOLD['%s/arg/%s' % (key, n)] for n in want['args']}
    grads = {n: mx.nd.zeros(v.shape) for n, v in vals.items()}
    ex = net.bind(mx.cpu(), {n: mx.nd.array(v) for n, v in vals.items()}, args_grad=grads)
    ex.forward(is_train=True)
    for j, x in enumerate(ex.outputs):
        np.testing.assert_allclose(x.asnumpy(), GOLD['%s/out%d' % (key, j)], rtol=1e-5, atol=1e-6)
    ex.backward([mx.nd.array(GOLD['%s/head%d' % (key, j)]) for j in range(len(ex.outputs))])
    for n, g in grads.items():
        np.testing.assert_allclose(g.asnumpy(), GOLD['%s/grad/%s' % (key, n)], rtol=1e-4, atol=1e-6)
    flat = mx.nd.array(vals['f_parameters'])
    unpacked = cell.unpack_weights({'f_parameters': flat})
    assert {n: list(v.shape) for n, v in unpacked.items()} == want['unpacked']
    first = sorted(n for n in unpacked if 'l0_h2h' in n and n.endswith('weight'))[0]
    np.testing.assert_array_equal(unpacked[first].asnumpy(), GOLD[key + '/unpacked_l0_h2h_first'])
    np.testing.assert_array_equal(cell.pack_weights(unpacked)['f_parameters'].asnumpy(), vals['f_parameters'])
    stack = cell.unfuse()
    assert [type(c).__name__ for c in stack._cells] == want['unfused']
    assert stack.unroll(T, mx.sym.var('data'), merge_outputs=True)[0].list_arguments() == want['unfused_args']


def test_fused_equals_unfused_stack():
    cell = mx.rnn.FusedRNNCell(H, num_layers=2, mode='gru', bidirectional=True, prefix='f_')
    key = 'fused/gru_b1'
    out, _ = cell.unroll(T, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    args = {'data': mx.nd.array(GOLD[key + '/arg/data']).swapaxes(0, 1),
            'f_parameters': mx.nd.array(GOLD[key + '/arg/f_parameters'])}
    fused = out.bind(mx.cpu(), args).forward()[0].asnumpy()
    stack = cell.unfuse()
    s_out, _ = stack.unroll(T, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    unpacked = cell.unpack_weights({'f_parameters': args['f_parameters']})
    unpacked = stack.pack_weights(unpacked)
    unpacked['data'] = args['data']
    np.testing.assert_allclose(s_out.bind(mx.cpu(), unpacked).forward()[0].asnumpy(), fused, rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match='unroll'):
        cell(mx.sym.var('x'), [])


def test_fused_cell_initializes_with_module():
    cell = mx.rnn.FusedRNNCell(H, num_layers=1, mode='lstm', prefix='')
    out, _ = cell.unroll(T, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None)
    mod.bind(data_shapes=[('data', (T, N, C))])
    mod.init_params(mx.init.Xavier())
    args = cell.unpack_weights(mod.get_params()[0])
    np.testing.assert_array_equal(args['l0_i2h_f_bias'].asnumpy(), 1.0)  # FusedRNN initializer's forget bias
    assert float(np.abs(args['l0_i2h_i_weight'].asnumpy()).sum()) > 0


@pytest.mark.parametrize('merge', [True, False])
def test_bidirectional_cell_against_mxnet(merge):
    key = 'bicell/m%d' % int(merge)
    want = META[key]
    bi = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(H, prefix='l_'), mx.rnn.GRUCell(H, prefix='r_'),
                                  output_prefix='bo_')
    out, states = bi.unroll(T, mx.sym.var('data'), layout='NTC', merge_outputs=merge)
    assert [len(s) for s in states] == want['n_states']
    net = mx.sym.Group(out if isinstance(out, list) else [out])
    assert net.list_arguments() == want['args'] and net.list_outputs() == want['outputs']
    ex = net.bind(mx.cpu(), {n: mx.nd.array(GOLD['%s/arg/%s' % (key, n)]) for n in want['args']})
    for j, x in enumerate(ex.forward()):
        assert list(x.shape) == want['out_shapes'][j]
        np.testing.assert_allclose(x.asnumpy(), GOLD['%s/out%d' % (key, j)], rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError):
        bi(mx.sym.var('x'), [])


@pytest.mark.parametrize('merge', [True, False])
def test_residual_cell_names(merge):
    res = mx.rnn.ResidualCell(mx.rnn.GRUCell(C, prefix='g_'))
    out, _ = res.unroll(T, mx.sym.var('data'), layout='NTC', merge_outputs=merge)
    net = mx.sym.Group(out if isinstance(out, list) else [out])
    want = META['residual/m%d' % int(merge)]
    assert net.list_arguments() == want['args'] and _auto(net.list_outputs()) == _auto(want['outputs'])


def test_residual_and_zoneout_values():
    base = mx.rnn.RNNCell(C, prefix='b_')
    res = mx.rnn.ResidualCell(base)
    with pytest.raises(MXNetAssertionError):
        base.begin_state()
    out, _ = res.unroll(T, mx.sym.var('data'), layout='NTC', merge_outputs=True)
    plain, _ = mx.rnn.RNNCell(C, prefix='b_').unroll(T, mx.sym.var('data'), layout='NTC', merge_outputs=True)
    rs = np.random.RandomState(0)
    args = {n: mx.nd.array(rs.uniform(-1, 1, s)) for n, s in
            zip(out.list_arguments(), out.infer_shape(data=(N, T, C))[0])}
    np.testing.assert_allclose(out.bind(mx.cpu(), args).forward()[0].asnumpy(),
                               plain.bind(mx.cpu(), args).forward()[0].asnumpy() + args['data'].asnumpy(),
                               rtol=1e-6)
    zone = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(C, prefix='b_'), zoneout_outputs=0.5, zoneout_states=0.5)
    z_out, _ = zone.unroll(T, mx.sym.var('data'), layout='NTC', merge_outputs=True)
    # outside training the Dropout masks are all ones: the base cell's result
    np.testing.assert_allclose(z_out.bind(mx.cpu(), args).forward()[0].asnumpy(),
                               plain.bind(mx.cpu(), args).forward()[0].asnumpy(), rtol=1e-6)
    for bad in (mx.rnn.FusedRNNCell(2), mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2), mx.rnn.GRUCell(2))):
        with pytest.raises(MXNetAssertionError, match='zoneout'):
            mx.rnn.ZoneoutCell(bad)
