"""mx.rnn symbolic cells against MXNet 1.9.1 (tests/fixtures/rnn_cell, written by gen_rnn_cell.py)."""
import json
import os
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetNotImplementedError

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'rnn_cell')
sys.path.insert(0, FIX)
import rnn_cell_cases  # noqa: E402

with open(os.path.join(FIX, 'rnn_cell.json')) as _f:
    GOLD = json.load(_f)


def _nodes(graph):
    return [(n['op'], n['name'], n.get('attrs', {}), n['inputs']) for n in graph['nodes']]


# Cases whose begin states are `_zeros` of unknown batch size (0, H) rely on the executor completing that
# shape from inference when binding, as MXNet does.
_RUN_PARAMS = sorted(set(GOLD['cases']) - set(rnn_cell_cases.NOT_RUN))
_DESCRIBED = {}


def _describe(name):
    if name not in _DESCRIBED:
        _DESCRIBED[name] = rnn_cell_cases.describe(mx, rnn_cell_cases.CASES[name])
    return _DESCRIBED[name]


@pytest.fixture(scope='module', params=sorted(rnn_cell_cases.CASES))
def facts(request):
    return _describe(request.param)[2], GOLD['cases'][request.param]


@pytest.fixture(scope='module', params=_RUN_PARAMS)
def ran(request):
    sym, shapes, _ = _describe(request.param)
    return (rnn_cell_cases.execute(mx, sym, shapes, grads=request.param not in rnn_cell_cases.NO_GRADS),
            GOLD['cases'][request.param])


def test_cases_match_golden_names():
    assert sorted(rnn_cell_cases.CASES) == sorted(GOLD['cases'])


def test_arguments_outputs_and_shapes(facts):
    got, gold = facts
    for key in ('arguments', 'outputs', 'arg_shapes', 'out_shapes', 'aux_shapes'):
        assert got[key] == gold[key], key


def test_graph_json(facts):
    got, gold = facts
    assert _nodes(got['graph']) == _nodes(gold['graph'])
    assert got['graph']['arg_nodes'] == gold['graph']['arg_nodes']
    assert got['graph']['heads'] == gold['graph']['heads']


def test_forward(ran):
    got, gold = ran
    assert len(got['forward']) == len(gold['forward'])
    for g, m in zip(got['forward'], gold['forward']):
        np.testing.assert_allclose(np.array(g), np.array(m), rtol=1e-4, atol=2e-5)


def test_gradients(ran):
    got, gold = ran
    assert ('grads' in got) == ('grads' in gold)
    for name, value in gold.get('grads', {}).items():
        np.testing.assert_allclose(np.array(got['grads'][name]), np.array(value), rtol=1e-4, atol=5e-5,
                                   err_msg=name)


@pytest.mark.parametrize('case', ['unpack_pack', 'unpack_pack_conv'])
def test_unpack_pack_weights(case):
    got, gold = getattr(rnn_cell_cases, case)(mx), GOLD[case]
    for key in ('unpacked_keys', 'packed_keys', 'roundtrip_equal', 'state_info', 'state_shape'):
        assert got[key] == gold[key], key
    for name, value in gold['unpacked'].items():
        np.testing.assert_allclose(np.array(got['unpacked'][name]), np.array(value), atol=1e-6)


def test_conv_cells_defaults():
    """MXNet's defaults: prefixes, a leaky ReLU (slope 0.2) activation, zero-initialized biases, the state of the
    i2h convolution's output shape with the batch left unknown."""
    for cls, prefix, n_states in ((mx.rnn.ConvRNNCell, 'ConvRNN_', 1), (mx.rnn.ConvLSTMCell, 'ConvLSTM_', 2),
                                  (mx.rnn.ConvGRUCell, 'ConvGRU_', 1)):
        cell = cls((4, 3, 7, 6), 5, i2h_stride=(2, 2))
        assert cell.params._prefix == prefix
        assert list(cell.params._params) == [prefix + n for n in ('i2h_weight', 'h2h_weight', 'i2h_bias',
                                                                   'h2h_bias')]
        assert cell.params._params[prefix + 'i2h_bias'].attr('__init__') == 'zeros'
        assert cell.state_info == [{'shape': (0, 5, 4, 3), '__layout__': 'NCHW'}] * n_states
    out, _ = mx.rnn.ConvRNNCell((1, 1, 3, 3), 1, prefix='c_')(mx.sym.var('x'), [mx.sym.var('h')])
    node = json.loads(out.tojson())['nodes'][-1]
    assert (node['op'], node['name'], node['attrs']) == ('LeakyReLU', 'c_t0_out', {'act_type': 'leaky',
                                                                                    'slope': '0.2'})
    assert mx.rnn.rnn_cell.ConvLSTMCell is mx.rnn.ConvLSTMCell


def test_conv_cell_even_h2h_kernel_raises():
    with pytest.raises(MXNetAssertionError, match=r'Only support odd number, get h2h_kernel= \(2, 3\)'):
        mx.rnn.ConvGRUCell((1, 2, 4, 4), 2, h2h_kernel=(2, 3))


def test_params_and_state_info():
    cell = mx.rnn.LSTMCell(6, prefix='l0_', forget_bias=2.0)
    params = cell.params._params
    assert list(params) == ['l0_i2h_weight', 'l0_h2h_weight', 'l0_i2h_bias', 'l0_h2h_bias']
    assert params['l0_i2h_bias'].attr('__init__') == mx.init.LSTMBias(forget_bias=2.0).dumps()
    assert cell.state_info == [{'shape': (0, 6), '__layout__': 'NC'}] * 2
    assert cell.state_shape == [(0, 6), (0, 6)]
    assert mx.rnn.GRUCell(3).state_info == [{'shape': (0, 3), '__layout__': 'NC'}]
    assert mx.rnn.RNNCell(3).params._prefix == 'rnn_'
    assert mx.rnn.DropoutCell(0.2).state_info == []
    shared = mx.rnn.RNNParams('p_')
    assert shared.get('w') is shared.get('w') and shared.get('w').name == 'p_w'


def test_begin_state_names_and_kwargs():
    seq = mx.rnn.SequentialRNNCell()
    seq.add(mx.rnn.LSTMCell(3, prefix='a_'))
    seq.add(mx.rnn.GRUCell(3, prefix='b_'))
    states = seq.begin_state(func=mx.sym.Variable)
    assert [s.name for s in states] == ['a_begin_state_0', 'a_begin_state_1', 'b_begin_state_0']
    assert states[0].attr('__layout__') == 'NC'
    zeros = mx.rnn.RNNCell(3, prefix='r_').begin_state(dtype='float16')
    assert zeros[0].attr('dtype') == 'float16' and zeros[0].name == 'r_begin_state_0'


def test_get_activation_callable_and_reset():
    def act(x, name):
        return mx.sym.LeakyReLU(x, slope=0.1, name=name)
    cell = mx.rnn.RNNCell(3, activation=act, prefix='c_')
    out, _ = cell(mx.sym.Variable('x'), cell.begin_state())
    assert out.name == 'c_t0_out'
    out, _ = cell(mx.sym.Variable('x'), cell.begin_state())
    assert out.name == 'c_t1_out'
    cell.reset()
    out, _ = cell(mx.sym.Variable('x'), cell.begin_state(func=mx.sym.Variable))
    assert out.name == 'c_t0_out' and out.list_arguments()[-3] == 'c_begin_state_0'
    rng = np.random.RandomState(1)
    x, h = rng.uniform(-1, 1, size=(2, 2, 3)).astype(np.float32)
    exe = out.simple_bind(mx.cpu(), x=(2, 3), c_begin_state_0=(2, 3), grad_req='null')
    for name in exe.arg_dict:
        exe.arg_dict[name][:] = {'x': x, 'c_begin_state_0': h}.get(name, 0.5)
    pre = (x + h) @ np.full((3, 3), 0.5, np.float32) + 1.0  # i2h and h2h with 0.5 weights and biases
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), np.where(pre > 0, pre, 0.1 * pre), rtol=1e-5)


def test_dropout_cell_merged_input_is_one_node():
    with mx.name.NameManager():
        out, states = mx.rnn.DropoutCell(0.3, prefix='d_').unroll(4, mx.sym.Variable('data'), merge_outputs=True)
    assert states == [] and out.get_internals().list_outputs() == ['data', 'dropout0_output']
    out, _ = mx.rnn.DropoutCell(0.0).unroll(2, mx.sym.Variable('data'), merge_outputs=True)
    assert out.list_outputs() == ['data']


def test_checkpoint_roundtrip(tmp_path):
    cell = mx.rnn.LSTMCell(2, prefix='l_')
    out, _ = cell.unroll(2, mx.sym.Variable('data'), merge_outputs=True)
    rng = np.random.RandomState(0)
    args = {'l_i2h_weight': mx.nd.array(rng.rand(8, 3)), 'l_i2h_bias': mx.nd.array(rng.rand(8)),
            'l_h2h_weight': mx.nd.array(rng.rand(8, 2)), 'l_h2h_bias': mx.nd.array(rng.rand(8))}
    prefix = str(tmp_path / 'lm')
    mx.rnn.do_rnn_checkpoint(cell, prefix, period=2)(1, out, args, {})
    saved = mx.nd.load(prefix + '-0002.params')
    assert sorted(saved) == sorted('arg:l_%s%s_%s' % (g, gate, k) for g in ('i2h', 'h2h')
                                   for gate in ('_i', '_f', '_c', '_o') for k in ('weight', 'bias'))
    mx.rnn.do_rnn_checkpoint([cell], prefix, period=2)(2, out, args, {})
    assert not os.path.exists(prefix + '-0003.params')
    sym, arg, aux = mx.rnn.load_rnn_checkpoint([cell], prefix, 2)
    assert sym.list_arguments() == out.list_arguments() and aux == {}
    for name, value in args.items():
        np.testing.assert_array_equal(arg[name].asnumpy(), value.asnumpy())


@pytest.mark.parametrize('name', ['rnn', 'rnn_unroll'])
def test_not_provided_raise(name):
    with pytest.raises(MXNetNotImplementedError, match='mx.rnn.' + name):
        getattr(mx.rnn, name)
    with pytest.raises(AttributeError):
        mx.rnn.NoSuchCell  # noqa: B018


def test_bad_arguments_raise():
    cell = mx.rnn.GRUCell(3)
    with pytest.raises(MXNetAssertionError, match='inputs=None'):
        cell.unroll(2, None)
    with pytest.raises(MXNetAssertionError, match='got 1 inputs for length 2'):
        cell.unroll(2, [mx.sym.Variable('x')])
    with pytest.raises(MXNetAssertionError, match='grouped symbol'):
        cell.unroll(2, mx.sym.Group([mx.sym.Variable('a'), mx.sym.Variable('b')]), merge_outputs=False)
    with pytest.raises(MXNetAssertionError, match='DropoutCell'):
        mx.rnn.DropoutCell('0.5')
    seq = mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams('s_'))
    with pytest.raises(MXNetAssertionError, match='not both'):
        seq.add(mx.rnn.RNNCell(3, params=mx.rnn.RNNParams('x_')))
    with pytest.raises(NotImplementedError):
        mx.rnn.BaseRNNCell()(mx.sym.Variable('x'), [])


def test_conv_cell_input_too_small_raises():
    with pytest.raises(MXNetAssertionError, match='i2h convolution'):
        mx.rnn.ConvLSTMCell((1, 2, 2, 2), 3, i2h_kernel=(5, 5), i2h_pad=(0, 0))
