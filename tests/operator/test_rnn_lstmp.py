"""The fused RNN op's LSTM projection (LSTMP) and cell-state clipping.

Projection: forward outputs and shape inference against MXNet 1.9.1 (tests/fixtures/rnn_lstmp/gen_rnn_lstmp.py;
MXNet's CPU build has no LSTMP training, so gradients are checked against finite differences). Clipping: MXNet's CPU
build ignores it, so values are checked against a numpy LSTM written from cuDNN's definition (clip the cell state
after every step)."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetValueError
from mxcompat.operator.rnn_op import rnn_input_shapes, rnn_param_size

HERE = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'rnn_lstmp')
GOLD = np.load(os.path.join(HERE, 'rnn_lstmp.npz'))
with open(os.path.join(HERE, 'rnn_lstmp.json')) as _f:
    META = json.load(_f)
T, N, C, H, P = 3, 2, 3, 4, 2
CASES = [(layers, bidir) for layers in (1, 2) for bidir in (False, True)]

def _key(layers, bidir):
    return 'op/l%d_b%d' % (layers, int(bidir))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm(x, flat, h0, c0, layers, bidir, proj=None, clip=None, clip_nan=False):
    """Reference LSTM(P) over TNC ``x``: MXNet's flat layout, cell state clipped to ``clip`` after each step."""
    d = 2 if bidir else 1
    r = proj or H
    pos, weights = 0, []

    def take(*shape):
        nonlocal pos
        size = int(np.prod(shape))
        pos += size
        return flat[pos - size:pos].reshape(shape)

    for layer in range(layers):
        for _ in range(d):
            fan_in = C if layer == 0 else d * r
            weights.append([take(4 * H, fan_in), take(4 * H, r)] + ([take(r, H)] if proj else [None]))
    for w in weights:
        w += [take(4 * H), take(4 * H)]
    assert pos == flat.size
    hy, cy = [], []
    for layer in range(layers):
        outs = []
        for k in range(d):
            wx, wh, whr, bx, bh = weights[layer * d + k]
            h, c = h0[layer * d + k], c0[layer * d + k]
            ys = [None] * len(x)
            for t in (reversed(range(len(x))) if k else range(len(x))):
                i, f, g, o = np.split(x[t] @ wx.T + bx + h @ wh.T + bh, 4, axis=1)
                c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
                if clip is not None:
                    if clip_nan:
                        c = np.where(np.isnan(c), clip[0], c)
                    c = np.clip(c, *clip)
                h = _sigmoid(o) * np.tanh(c)
                if whr is not None:
                    h = h @ whr.T
                ys[t] = h
            outs.append(np.stack(ys))
            hy.append(h)
            cy.append(c)
        x = np.concatenate(outs, axis=2)
    return x, np.stack(hy), np.stack(cy)


def _random_inputs(rs, layers, bidir, proj, n=N, dtype='float64'):
    d = 2 if bidir else 1
    return [rs.uniform(-1, 1, shape).astype(dtype) for shape in
            ((T, n, C), (rnn_param_size('lstm', layers, C, H, bidir, proj),), (layers * d, n, proj or H),
             (layers * d, n, H))]


# ---- projection --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('layers, bidir', CASES)
def test_projection_forward_against_mxnet(layers, bidir):
    key = _key(layers, bidir)
    ins = [GOLD['%s/in%d' % (key, j)] for j in range(4)]
    outs = mx.nd.RNN(*[mx.nd.array(x) for x in ins], state_size=H, num_layers=layers, bidirectional=bidir,
                     mode='lstm', projection_size=P, state_outputs=True)
    assert len(outs) == 3
    for j, o in enumerate(outs):
        want = GOLD['%s/out%d' % (key, j)]
        assert o.shape == want.shape and o.dtype == np.float32
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-6)
    ref = _np_lstm(*[x.astype('float64') for x in (ins[0], ins[1], ins[2], ins[3])], layers, bidir, proj=P)
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('layers, bidir', CASES)
def test_projection_shapes_against_mxnet(layers, bidir):
    want = META[_key(layers, bidir)]
    assert rnn_param_size('lstm', layers, C, H, bidir, P) == want['arg_shapes'][1][0]
    attrs = dict(state_size=H, num_layers=layers, bidirectional=bidir, mode='lstm', projection_size=P,
                 state_outputs=True)
    assert [list(s) for s in rnn_input_shapes(attrs, (T, N, C)).values()] == want['arg_shapes'][1:]


@pytest.mark.parametrize('layers, bidir', CASES)
def test_projection_symbol_shapes_against_mxnet(layers, bidir):
    want = META[_key(layers, bidir)]
    attrs = dict(state_size=H, num_layers=layers, bidirectional=bidir, mode='lstm', projection_size=P,
                 state_outputs=True)
    sym = mx.sym.RNN(mx.sym.var('data'), name='rnn', **attrs)
    assert sym.list_arguments() == want['args']
    given = dict(zip(want['args'], map(tuple, want['arg_shapes'])))
    _, out_shapes, _ = sym.infer_shape(**given)
    assert [list(s) for s in out_shapes] == want['out_shapes']


def test_projection_infer_shape_from_data():
    want = META[_key(2, True)]
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=H, num_layers=2, bidirectional=True, mode='lstm',
                     projection_size=P, state_outputs=True, name='rnn')
    arg_shapes, out_shapes, _ = sym.infer_shape(data=(T, N, C))
    assert [list(s) for s in arg_shapes] == want['arg_shapes']
    assert [list(s) for s in out_shapes] == want['out_shapes']


def _grad_check(kw, ins, seq=None, eps=1e-6):
    """Autograd gradients of sum(outputs * heads) against central finite differences (float64)."""
    rs = np.random.RandomState(1)
    extra = [mx.nd.array(seq, dtype='float64')] if seq is not None else []

    def run(arrays, record=False):
        nds = [mx.nd.array(a, dtype='float64') for a in arrays]
        if record:
            for v in nds:
                v.attach_grad()
            with mx.autograd.record():
                outs = mx.nd.RNN(*nds, *extra, state_outputs=True, **kw)
        else:
            outs = mx.nd.RNN(*nds, *extra, state_outputs=True, **kw)
        return nds, outs

    nds, outs = run(ins, record=True)
    heads = [rs.uniform(-1, 1, o.shape) for o in outs]
    mx.autograd.backward(outs, [mx.nd.array(h, dtype='float64') for h in heads])
    for j, x in enumerate(ins):
        num = np.zeros(x.size)
        for e in range(x.size):
            vals = []
            for sign in (1, -1):
                moved = [a.copy() for a in ins]
                moved[j].flat[e] += sign * eps
                vals.append(sum(float((o.asnumpy() * h).sum()) for o, h in zip(run(moved)[1], heads)))
            num[e] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(nds[j].grad.asnumpy().ravel(), num, rtol=1e-4, atol=1e-6,
                                   err_msg='gradient wrt input %d' % j)


@pytest.mark.parametrize('bidir', [False, True])
def test_projection_gradient_finite_differences(bidir):
    ins = _random_inputs(np.random.RandomState(2), 2, bidir, P)
    _grad_check(dict(state_size=H, num_layers=2, bidirectional=bidir, mode='lstm', projection_size=P), ins)


def test_projection_trains_and_symbol_matches_eager():
    key = _key(2, True)
    ins = {n: GOLD['%s/in%d' % (key, j)] for j, n in enumerate(('data', 'rnn_parameters', 'rnn_state',
                                                                 'rnn_state_cell'))}
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=H, num_layers=2, bidirectional=True, mode='lstm',
                     projection_size=P, state_outputs=True, name='rnn')
    grads = {n: mx.nd.zeros(v.shape) for n, v in ins.items()}
    ex = sym.bind(mx.cpu(), {n: mx.nd.array(v) for n, v in ins.items()}, args_grad=grads)
    outs = ex.forward(is_train=True)
    for j, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), GOLD['%s/out%d' % (key, j)], rtol=1e-5, atol=1e-6)
    ex.backward([mx.nd.ones(o.shape) for o in outs])
    nds = [mx.nd.array(v) for v in ins.values()]
    for v in nds:
        v.attach_grad()
    with mx.autograd.record():
        eager = mx.nd.RNN(*nds, state_size=H, num_layers=2, bidirectional=True, mode='lstm', projection_size=P,
                          state_outputs=True)
    mx.autograd.backward(eager, [mx.nd.ones(o.shape) for o in eager])
    for name, v in zip(ins, nds):
        np.testing.assert_allclose(grads[name].asnumpy(), v.grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_projection_sequence_length_matches_per_sequence_runs():
    rs = np.random.RandomState(4)
    x, p, h0, c0 = _random_inputs(rs, 2, True, P, n=3, dtype='float32')
    lengths = np.array([2, 3, 1], dtype='float32')
    kw = dict(state_size=H, num_layers=2, bidirectional=True, mode='lstm', projection_size=P, state_outputs=True)
    res = mx.nd.RNN(*[mx.nd.array(a) for a in (x, p, h0, c0, lengths)], use_sequence_length=True, **kw)
    for b, ln in enumerate(lengths.astype(int)):
        one = mx.nd.RNN(*[mx.nd.array(a) for a in (x[:ln, b:b + 1], p, h0[:, b:b + 1], c0[:, b:b + 1])], **kw)
        np.testing.assert_allclose(res[0].asnumpy()[:ln, b], one[0].asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(res[0].asnumpy()[ln:, b], 0)
        for r, o in zip(res[1:], one[1:]):
            np.testing.assert_allclose(r.asnumpy()[:, b], o.asnumpy()[:, 0], rtol=1e-5, atol=1e-6)


# ---- clipping ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('proj', [None, P])
@pytest.mark.parametrize('layers, bidir', CASES)
def test_clipped_lstm_against_numpy(layers, bidir, proj):
    ins = _random_inputs(np.random.RandomState(5), layers, bidir, proj)
    ins[3] *= 2  # start some cell states outside the range
    outs = mx.nd.RNN(*[mx.nd.array(a, dtype='float64') for a in ins], state_size=H, num_layers=layers,
                     bidirectional=bidir, mode='lstm', projection_size=proj, lstm_state_clip_min=-0.3,
                     lstm_state_clip_max=0.25, state_outputs=True)
    ref = _np_lstm(*ins, layers, bidir, proj=proj, clip=(-0.3, 0.25))
    assert not np.allclose(ref[0], _np_lstm(*ins, layers, bidir, proj=proj)[0])  # the clip is active
    assert ref[2].min() >= -0.3 and ref[2].max() <= 0.25
    for o, r in zip(outs, ref):
        assert o.dtype == np.float64
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-10, atol=1e-12)
    unclipped = mx.nd.RNN(*[mx.nd.array(a, dtype='float64') for a in ins], state_size=H, num_layers=layers,
                          bidirectional=bidir, mode='lstm', projection_size=proj, state_outputs=True)
    wide = mx.nd.RNN(*[mx.nd.array(a, dtype='float64') for a in ins], state_size=H, num_layers=layers,
                     bidirectional=bidir, mode='lstm', projection_size=proj, lstm_state_clip_min=-1e9,
                     lstm_state_clip_max=1e9, state_outputs=True)
    for u, w in zip(unclipped, wide):  # the Python-stepped path equals torch's fused kernel when nothing clips
        np.testing.assert_allclose(w.asnumpy(), u.asnumpy(), rtol=1e-10, atol=1e-12)


def test_clipped_gradient_finite_differences():
    ins = _random_inputs(np.random.RandomState(6), 2, True, P)
    _grad_check(dict(state_size=H, num_layers=2, bidirectional=True, mode='lstm', projection_size=P,
                     lstm_state_clip_min=-0.3, lstm_state_clip_max=0.3), ins)


def test_clipped_sequence_length_gradient():
    ins = _random_inputs(np.random.RandomState(8), 1, True, None, n=3)
    _grad_check(dict(state_size=H, num_layers=1, bidirectional=True, mode='lstm', lstm_state_clip_min=-0.3,
                     lstm_state_clip_max=0.3, use_sequence_length=True), ins, seq=np.array([2., 3., 1.]))


def test_clip_nan():
    x, p, h0, c0 = _random_inputs(np.random.RandomState(9), 1, False, None)
    c0[0, 0, 1] = np.nan
    kw = dict(state_size=H, num_layers=1, mode='lstm', lstm_state_clip_min=-0.2, lstm_state_clip_max=0.2,
              state_outputs=True)
    args = [mx.nd.array(a, dtype='float64') for a in (x, p, h0, c0)]
    stopped = mx.nd.RNN(*args, lstm_state_clip_nan=True, **kw)
    ref = _np_lstm(x, p, h0, c0, 1, False, clip=(-0.2, 0.2), clip_nan=True)
    assert np.isfinite(stopped[0].asnumpy()).all()
    for o, r in zip(stopped, ref):
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-10, atol=1e-12)
    propagated = mx.nd.RNN(*args, **kw)[0].asnumpy()
    assert np.isnan(propagated[:, 0]).any() and np.isfinite(propagated[:, 1]).all()


def test_clip_dropout_only_in_training():
    # (float64: float32 calls on the CPU ignore dropout, as MXNet's oneDNN kernels do; test_rnn_op.py)
    x, p, h0, c0 = [mx.nd.array(a, dtype='float64') for a in _random_inputs(np.random.RandomState(10), 3, False,
                                                                             None, n=16, dtype='float64')]
    kw = dict(state_size=H, num_layers=3, mode='lstm', lstm_state_clip_min=-0.5, lstm_state_clip_max=0.5)
    base = mx.nd.RNN(x, p, h0, c0, **kw).asnumpy()
    np.testing.assert_array_equal(mx.nd.RNN(x, p, h0, c0, p=0.5, **kw).asnumpy(), base)
    with mx.autograd.record():
        dropped = mx.nd.RNN(x, p, h0, c0, p=0.5, **kw).asnumpy()
    assert not np.allclose(dropped, base)


# ---- errors ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('kw, msg', [
    ({'projection_size': 5}, r'RNN.*projection_size must be in \[1, state_size=4\]'),
    ({'projection_size': 2, 'mode': 'gru'}, 'RNN.*projection_size is only supported for LSTM'),
    ({'lstm_state_clip_min': -1.0}, 'RNN.*must be specified together'),
    ({'lstm_state_clip_max': 1.0}, 'RNN.*must be specified together'),
    ({'lstm_state_clip_min': 1.0, 'lstm_state_clip_max': -1.0}, 'RNN.*lstm_state_clip_max'),
])
def test_errors(kw, msg):
    attrs = dict(state_size=H, num_layers=1, mode='lstm')
    attrs.update(kw)
    mode = attrs['mode']
    d = mx.nd.zeros((T, N, C))
    states = [mx.nd.zeros((1, N, H))] * (2 if mode == 'lstm' else 1)
    params = mx.nd.zeros((rnn_param_size(mode, 1, C, H, False),))
    with pytest.raises(MXNetValueError, match=msg):
        mx.nd.RNN(d, params, *states, **attrs)


def test_projection_input_shape_errors():
    d = mx.nd.zeros((T, N, C))
    size = rnn_param_size('lstm', 1, C, H, False, P)
    kw = dict(state_size=H, num_layers=1, mode='lstm', projection_size=P)
    with pytest.raises(MXNetValueError, match=r'RNN.*state must have shape \(1, 2, 2\)'):
        mx.nd.RNN(d, mx.nd.zeros((size,)), mx.nd.zeros((1, N, H)), mx.nd.zeros((1, N, H)), **kw)
    with pytest.raises(MXNetValueError, match=r'RNN.*state_cell must have shape \(1, 2, 4\)'):
        mx.nd.RNN(d, mx.nd.zeros((size,)), mx.nd.zeros((1, N, P)), mx.nd.zeros((1, N, P)), **kw)
    with pytest.raises(MXNetValueError, match=r'RNN.*parameters must have shape \(%d,\).*projection size 2' % size):
        mx.nd.RNN(d, mx.nd.zeros((size + 1,)), mx.nd.zeros((1, N, P)), mx.nd.zeros((1, N, H)), **kw)
    sym = mx.sym.RNN(mx.sym.var('data'), name='rnn', **kw)
    with pytest.raises(MXNetError, match='RNN'):
        sym.infer_shape(data=(T, N, C), rnn_parameters=(size,), rnn_state=(1, N, H), rnn_state_cell=(1, N, H))
