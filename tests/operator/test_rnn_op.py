"""The fused RNN op against goldens recorded from MXNet 1.9.1 (tests/fixtures/rnn_op/gen_rnn_op.py): outputs and
gradients for every mode, 1/2 layers, uni/bidirectional, with and without state outputs; symbol shape inference;
errors and known gaps; sequence lengths (checked against running each sequence alone: MXNet's CPU build ignores
them, so there is no CPU golden)."""
import itertools
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.operator import registry
from mxcompat.operator.rnn_op import rnn_param_size

HERE = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'rnn_op')
GOLD = np.load(os.path.join(HERE, 'rnn_op.npz'))
with open(os.path.join(HERE, 'rnn_shapes.json')) as _f:
    SHAPES = json.load(_f)
H = 2
MODES = ('rnn_relu', 'rnn_tanh', 'lstm', 'gru')
CASES = list(itertools.product(MODES, (1, 2), (False, True), (False, True)))


def _key(mode, layers, bidir, so):
    return '%s_l%d_b%d_s%d' % (mode, layers, int(bidir), int(so))


def _inputs(key, mode):
    names = ['data', 'parameters', 'state'] + (['state_cell'] if mode == 'lstm' else [])
    return {n: GOLD['%s/in_%s' % (key, n)] for n in names}


def _as_list(res):
    return list(res) if isinstance(res, (list, tuple)) else [res]


@pytest.mark.parametrize('mode, layers, bidir, so', CASES, ids=[_key(*c) for c in CASES])
def test_forward_backward_against_mxnet(mode, layers, bidir, so):
    key = _key(mode, layers, bidir, so)
    nds = {k: mx.nd.array(v) for k, v in _inputs(key, mode).items()}
    for v in nds.values():
        v.attach_grad()
    with mx.autograd.record():
        res = _as_list(mx.nd.RNN(*nds.values(), state_size=H, num_layers=layers, bidirectional=bidir, mode=mode,
                                 state_outputs=so))
    assert len(res) == (1 if not so else 3 if mode == 'lstm' else 2)
    for j, r in enumerate(res):
        want = GOLD['%s/out%d' % (key, j)]
        assert r.shape == want.shape and r.dtype == np.float32
        np.testing.assert_allclose(r.asnumpy(), want, rtol=1e-5, atol=1e-5)
    mx.autograd.backward(res, [mx.nd.array(GOLD['%s/head%d' % (key, j)]) for j in range(len(res))])
    for k, v in nds.items():
        np.testing.assert_allclose(v.grad.asnumpy(), GOLD['%s/grad_%s' % (key, k)], rtol=1e-4, atol=1e-5,
                                   err_msg='gradient wrt ' + k)


@pytest.mark.parametrize('mode', MODES)
def test_symbol_matches_eager(mode):
    key = _key(mode, 2, True, True)
    ins = _inputs(key, mode)
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=H, num_layers=2, bidirectional=True, mode=mode,
                     state_outputs=True, name='rnn')
    args = {'data': ins['data'], 'rnn_parameters': ins['parameters'], 'rnn_state': ins['state']}
    if mode == 'lstm':
        args['rnn_state_cell'] = ins['state_cell']
    assert sym.list_arguments() == list(args)
    ex = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()})
    outs = ex.forward()
    for j, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), GOLD['%s/out%d' % (key, j)], rtol=1e-5, atol=1e-5)


def _sym_case(c):
    return mx.sym.RNN(mx.sym.var('data'), name='rnn', **c['attrs'])


@pytest.mark.parametrize('c', SHAPES, ids=['-'.join('%s' % v for v in c['attrs'].values()) for c in SHAPES])
def test_infer_shape_against_mxnet(c):
    sym = _sym_case(c)
    assert sym.list_arguments() == c['args']
    a, o, x = sym.infer_shape(data=(5, 3, 7))
    assert [list(s) for s in a] == c['arg_shapes']
    assert [list(s) for s in o] == c['out_shapes']
    assert x == []
    _, ot, _ = sym.infer_type(data='float32')
    assert ot == [np.float32] * len(o)


@pytest.mark.parametrize('c', SHAPES, ids=['-'.join('%s' % v for v in c['attrs'].values()) for c in SHAPES])
def test_output_names_registry(c):
    op = registry.get('RNN')
    names = op.output_names(op.parse_attrs(c['attrs']))
    assert ['rnn_' + n for n in names] == c['outputs']


def test_symbol_output_names_with_state_outputs():
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=2, num_layers=1, mode='lstm', state_outputs=True, name='rnn')
    assert sym.list_outputs() == ['rnn_output', 'rnn_state_output', 'rnn_statecell_output']


@pytest.mark.parametrize('mode, names', [
    ('lstm', ['data', 'parameters', 'state', 'state_cell']), ('gru', ['data', 'parameters', 'state']),
    ('rnn_relu', ['data', 'parameters', 'state'])])
def test_input_names(mode, names):
    op = registry.get('RNN')
    assert op.input_names(op.parse_attrs({'state_size': 2, 'num_layers': 1, 'mode': mode})) == names
    seq = op.parse_attrs({'state_size': 2, 'num_layers': 1, 'mode': mode, 'use_sequence_length': 'True'})
    assert op.input_names(seq) == names + ['sequence_length']
    assert registry.get('_npx_rnn') is op


def test_param_size_formula():
    # MXNet: per layer and direction G*H*(in + H + 2), in = C for layer 0, D*H above
    assert rnn_param_size('lstm', 2, 4, 5, True) == 1120
    assert rnn_param_size('gru', 1, 3, 2, False) == 3 * 2 * (3 + 2 + 2)
    assert rnn_param_size('rnn_tanh', 3, 7, 4, False) == 4 * (7 + 6) + 2 * 4 * (4 + 6)


# ---- dropout, dtype ---------------------------------------------------------------------------------------------
def _lstm2(p, dtype='float32', **kw):
    key = _key('lstm', 2, False, False)
    ins = [mx.nd.array(v, dtype=dtype) for v in _inputs(key, 'lstm').values()]
    ins[0] = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (3, 64, 3)), dtype=dtype)
    ins[2] = mx.nd.zeros((2, 64, H), dtype=dtype)
    ins[3] = mx.nd.zeros((2, 64, H), dtype=dtype)
    return mx.nd.RNN(*ins, state_size=H, num_layers=2, mode='lstm', p=p, **kw)


def test_dropout_only_in_training():
    base = _lstm2(0.0, 'float64').asnumpy()
    np.testing.assert_array_equal(_lstm2(0.5, 'float64').asnumpy(), base)
    with mx.autograd.record():
        dropped = _lstm2(0.5, 'float64').asnumpy()
    assert not np.allclose(dropped, base)
    with mx.autograd.record(train_mode=False):
        np.testing.assert_array_equal(_lstm2(0.5, 'float64').asnumpy(), base)


def test_cpu_float32_ignores_dropout(monkeypatch):
    # MXNet 1.9.1's CPU build runs float32 layers on oneDNN's RNN, which has no dropout: a training-mode call with
    # p=0.5 equals p=0 there (float64, or MXNET_USE_MKLDNN_RNN=0, take its native kernels, which drop)
    base = _lstm2(0.0).asnumpy()
    with mx.autograd.record():
        np.testing.assert_array_equal(_lstm2(0.5).asnumpy(), base)
        monkeypatch.setenv('MXNET_USE_MKLDNN_RNN', '0')
        assert not np.allclose(_lstm2(0.5).asnumpy(), base)


def test_float64():
    key = _key('gru', 1, True, True)
    ins = {k: mx.nd.array(v, dtype='float64') for k, v in _inputs(key, 'gru').items()}
    out, hy = mx.nd.RNN(*ins.values(), state_size=H, num_layers=1, bidirectional=True, mode='gru',
                        state_outputs=True)
    assert out.dtype == np.float64 and hy.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), GOLD[key + '/out0'], rtol=1e-5, atol=1e-6)


# ---- sequence_length (cuDNN semantics) -------------------------------------------------------------------------
@pytest.mark.parametrize('mode', MODES)
def test_sequence_length_matches_per_sequence_runs(mode):
    rs = np.random.RandomState(3)
    t, n, c, layers = 4, 3, 3, 2
    size = rnn_param_size(mode, layers, c, H, True)
    x = rs.uniform(-1, 1, (t, n, c)).astype('float32')
    p = mx.nd.array(rs.uniform(-0.6, 0.6, size).astype('float32'))
    states = [rs.uniform(-0.5, 0.5, (2 * layers, n, H)).astype('float32') for _ in range(2 if mode == 'lstm' else 1)]
    lengths = np.array([2, 4, 1], dtype='float32')
    kw = dict(state_size=H, num_layers=layers, bidirectional=True, mode=mode, state_outputs=True)
    xs = mx.nd.array(x)
    xs.attach_grad()
    with mx.autograd.record():
        res = mx.nd.RNN(xs, p, *[mx.nd.array(s) for s in states], mx.nd.array(lengths), use_sequence_length=True,
                        **kw)
    res[0].backward()
    grad = xs.grad.asnumpy()
    for b, ln in enumerate(lengths.astype(int)):
        xb = mx.nd.array(x[:ln, b:b + 1])
        xb.attach_grad()
        with mx.autograd.record():
            one = mx.nd.RNN(xb, p, *[mx.nd.array(s[:, b:b + 1]) for s in states], **kw)
        one[0].backward()
        np.testing.assert_allclose(res[0].asnumpy()[:ln, b], one[0].asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(res[0].asnumpy()[ln:, b], 0)
        for r, o in zip(res[1:], one[1:]):
            np.testing.assert_allclose(r.asnumpy()[:, b], o.asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(grad[:ln, b], xb.grad.asnumpy()[:, 0], rtol=1e-4, atol=1e-6)
        np.testing.assert_array_equal(grad[ln:, b], 0)


def test_sequence_length_errors():
    key = _key('gru', 1, False, False)
    ins = [mx.nd.array(v) for v in _inputs(key, 'gru').values()]
    kw = dict(state_size=H, num_layers=1, mode='gru')
    with pytest.raises(MXNetValueError, match='RNN.*sequence_length'):
        mx.nd.RNN(*ins, mx.nd.array([0, 3]), use_sequence_length=True, **kw)
    with pytest.raises(MXNetValueError, match='RNN.*sequence_length'):
        mx.nd.RNN(*ins, mx.nd.array([1, 2, 3]), use_sequence_length=True, **kw)
    with pytest.raises(MXNetValueError, match='RNN.*sequence_length'):
        mx.nd.RNN(*ins, use_sequence_length=True, **kw)
    with pytest.raises(MXNetValueError, match='RNN'):
        mx.nd.RNN(*ins, mx.nd.array([1, 2]), **kw)


# ---- errors and known gaps -------------------------------------------------------------------------------------
def _gru_args():
    return [mx.nd.array(v) for v in _inputs(_key('gru', 1, False, False), 'gru').values()]


@pytest.mark.parametrize('kw, err, msg', [
    ({'projection_size': 1}, MXNetValueError, 'RNN.*projection_size.*LSTM'),
    ({'lstm_state_clip_min': -1.0, 'lstm_state_clip_max': 1.0}, MXNetValueError, 'RNN.*clipping.*LSTM'),
    ({'p': 1.0}, MXNetValueError, 'RNN.*dropout'),
    ({'mode': 'bogus'}, MXNetValueError, 'RNN.*mode'),
    ({'state_size': 3}, MXNetValueError, 'RNN.*parameters'),
    ({'num_layers': 2}, MXNetValueError, 'RNN.*parameters'),
])
def test_errors(kw, err, msg):
    attrs = dict(state_size=H, num_layers=1, mode='gru')
    attrs.update(kw)
    with pytest.raises(err, match=msg):
        mx.nd.RNN(*_gru_args(), **attrs)


def test_input_errors():
    data, p, s = _gru_args()
    with pytest.raises(MXNetValueError, match='RNN.*state'):
        mx.nd.RNN(data, p, mx.nd.zeros((1, 3, H)), state_size=H, num_layers=1, mode='gru')
    with pytest.raises(MXNetValueError, match='RNN.*state_cell'):
        mx.nd.RNN(data, p, s, mx.nd.zeros((1, 2, H)), state_size=H, num_layers=1, mode='gru')
    with pytest.raises(MXNetValueError, match='RNN.*3-D'):
        mx.nd.RNN(data.reshape((3, 6)), p, s, state_size=H, num_layers=1, mode='gru')
    with pytest.raises(MXNetTypeError, match='RNN.*float64'):
        mx.nd.RNN(data, p.astype('float64'), s, state_size=H, num_layers=1, mode='gru')
    lstm = [mx.nd.array(v) for v in _inputs(_key('lstm', 1, False, False), 'lstm').values()]
    with pytest.raises(MXNetError, match='RNN.*state_cell'):
        mx.nd.RNN(*lstm[:3], state_size=H, num_layers=1, mode='lstm')
    with pytest.raises(MXNetValueError, match='RNN.*state_size'):
        mx.nd.RNN(data, p, s, num_layers=1, mode='gru')


def test_clip_nan_without_range_is_a_no_op():
    # MXNet ignores lstm_state_clip_nan when no clipping range is given
    lstm = [mx.nd.array(v) for v in _inputs(_key('lstm', 1, False, False), 'lstm').values()]
    out = mx.nd.RNN(*lstm, state_size=H, num_layers=1, mode='lstm', lstm_state_clip_nan=True)
    np.testing.assert_allclose(out.asnumpy(), GOLD[_key('lstm', 1, False, False) + '/out0'], rtol=1e-5, atol=1e-5)


def test_infer_shape_errors():
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=2, num_layers=1, mode='gru', name='rnn')
    with pytest.raises(MXNetError, match='rnn_parameters|RNN'):
        sym.infer_shape(data=(3, 2, 4), rnn_parameters=(5,))
    with pytest.raises(MXNetError, match='rnn_state|RNN'):
        sym.infer_shape(data=(3, 2, 4), rnn_state=(1, 3, 2))
