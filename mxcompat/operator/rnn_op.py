"""MXNet's fused ``RNN`` operator (relu/tanh RNN, LSTM, GRU; stacked, optionally bidirectional) on torch's kernels.

MXNet keeps every weight and bias in one flat vector: first the weights (per layer, per direction: input-to-hidden
then hidden-to-hidden, row-major), then the biases in the same order. Its gate orders (LSTM i, f, g, o; GRU r, z, n,
with the reset gate applied to the hidden-to-hidden product including its bias) are torch's, so the flat vector is
only cut into views and handed to ``torch._VF``.

Differences from MXNet: ``projection_size`` and LSTM state clipping are not supported. With
``use_sequence_length`` the op follows MXNet's cuDNN semantics (steps past a sequence's length give zero output, the
reverse direction starts at the last valid step, the returned states are those at the last valid step); MXNet 1.9.1's
CPU build ignores the lengths instead.
"""
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..autograd import STATE
from ..base import MXNetValueError, MXNetTypeError, dtype_name, unsupported
from .registry import REQUIRED, defop

_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}
_VF_FN = {'rnn_relu': 'rnn_relu', 'rnn_tanh': 'rnn_tanh', 'lstm': 'lstm', 'gru': 'gru'}


def rnn_param_size(mode, num_layers, input_size, state_size, bidirectional):
    """Length of MXNet's flat parameter vector."""
    d = 2 if bidirectional else 1
    gh = _GATES[mode] * state_size
    first = gh * (input_size + state_size + 2)
    rest = gh * (d * state_size + state_size + 2)
    return d * (first + (num_layers - 1) * rest)


def _unflatten(flat, mode, num_layers, input_size, h, d):
    """Cut the flat vector into torch's per-layer list [w_ih, w_hh, b_ih, b_hh, (reverse ...)] (views)."""
    gh = _GATES[mode] * h
    weights, pos = [], 0
    for layer in range(num_layers):
        fan_in = input_size if layer == 0 else d * h
        for _ in range(d):
            wx = flat[pos:pos + gh * fan_in].view(gh, fan_in)
            pos += gh * fan_in
            wh = flat[pos:pos + gh * h].view(gh, h)
            pos += gh * h
            weights.append((wx, wh))
    out = []
    for wx, wh in weights:
        bx = flat[pos:pos + gh]
        bh = flat[pos + gh:pos + 2 * gh]
        pos += 2 * gh
        out += [wx, wh, bx, bh]
    return out


def _check(data, parameters, state, state_cell, seq_len, a):
    mode = a['mode']
    if a['projection_size'] is not None:
        raise unsupported('RNN', 'projection_size', 'LSTM projection is not implemented in mxcompat')
    if a['lstm_state_clip_min'] is not None or a['lstm_state_clip_max'] is not None:
        raise unsupported('RNN', 'lstm_state_clip_min/lstm_state_clip_max',
                          'torch has no fused LSTM with cell-state clipping')
    if not 0.0 <= a['p'] < 1.0:
        raise MXNetValueError('Operator RNN: dropout p must be in [0, 1), got %s' % a['p'])
    if a['state_size'] <= 0 or a['num_layers'] <= 0:
        raise MXNetValueError('Operator RNN: state_size and num_layers must be positive, got %d and %d'
                              % (a['state_size'], a['num_layers']))
    if data.dim() != 3:
        raise MXNetValueError('Operator RNN: data must be 3-D (sequence length, batch size, input size), got shape %s'
                              % (tuple(data.shape),))
    t, n, c = data.shape
    d = 2 if a['bidirectional'] else 1
    h = a['state_size']
    want_p = rnn_param_size(mode, a['num_layers'], c, h, a['bidirectional'])
    if tuple(parameters.shape) != (want_p,):
        raise MXNetValueError('Operator RNN: parameters must have shape (%d,) for %s with %d layer(s), '
                              'input size %d, state size %d, got %s'
                              % (want_p, mode, a['num_layers'], c, h, tuple(parameters.shape)))
    want_s = (a['num_layers'] * d, n, h)
    states = [('state', state)] + ([('state_cell', state_cell)] if mode == 'lstm' else [])
    for name, s in states:
        if s is None:
            raise MXNetValueError('Operator RNN: required input %r is missing' % name)
        if tuple(s.shape) != want_s:
            raise MXNetValueError('Operator RNN: %s must have shape %s, got %s' % (name, want_s, tuple(s.shape)))
    for name, x in [('parameters', parameters)] + states:
        if x.dtype != data.dtype:
            raise MXNetTypeError('Operator RNN: %s has dtype %s but data has %s'
                                 % (name, dtype_name(x.dtype), dtype_name(data.dtype)))
    if not data.dtype.is_floating_point:
        raise MXNetTypeError('Operator RNN: data must be floating point, got %s' % dtype_name(data.dtype))
    if a['use_sequence_length']:
        if seq_len is None:
            raise MXNetValueError("Operator RNN: use_sequence_length=True needs the input 'sequence_length'")
        if tuple(seq_len.shape) != (n,):
            raise MXNetValueError('Operator RNN: sequence_length must have shape (%d,), got %s'
                                  % (n, tuple(seq_len.shape)))
    elif seq_len is not None:
        raise MXNetValueError("Operator RNN: input 'sequence_length' given but use_sequence_length is False")


def _rnn(data, parameters, state, state_cell=None, sequence_length=None, **a):
    mode = a['mode']
    if mode != 'lstm' and state_cell is not None:
        # positional calls for relu/tanh/gru: the fourth array is the sequence length
        if sequence_length is not None or not a['use_sequence_length']:
            raise MXNetValueError("Operator RNN: mode %r takes no input 'state_cell'" % mode)
        state_cell, sequence_length = None, state_cell
    _check(data, parameters, state, state_cell, sequence_length, a)
    t, n, c = data.shape
    d = 2 if a['bidirectional'] else 1
    flat = _unflatten(parameters, mode, a['num_layers'], c, a['state_size'], d)
    hx = (state, state_cell) if mode == 'lstm' else state
    train = STATE.training and a['p'] > 0
    fn = getattr(torch._VF, _VF_FN[mode])
    common = (flat, True, a['num_layers'], a['p'], train, a['bidirectional'])
    if a['use_sequence_length'] and data.device.type != 'meta':
        lengths = sequence_length.detach().to('cpu', torch.int64)
        if bool(((lengths < 1) | (lengths > t)).any()):
            raise MXNetValueError('Operator RNN: sequence_length values must be in [1, %d], got %s'
                                  % (t, lengths.tolist()))
        packed = pack_padded_sequence(data, lengths, enforce_sorted=False)
        if mode == 'lstm':
            hx = (hx[0].index_select(1, packed.sorted_indices), hx[1].index_select(1, packed.sorted_indices))
        else:
            hx = hx.index_select(1, packed.sorted_indices)
        res = fn(packed.data, packed.batch_sizes, hx, *common)
        out, _ = pad_packed_sequence(type(packed)(res[0], packed.batch_sizes, packed.sorted_indices,
                                                  packed.unsorted_indices), total_length=t)
        states = tuple(s.index_select(1, packed.unsorted_indices) for s in res[1:])
    else:
        res = fn(data, hx, *common, False)
        out, states = res[0], tuple(res[1:])
    if not a['state_outputs']:
        return out
    return (out,) + states


def _input_names(a):
    return (['data', 'parameters', 'state'] + (['state_cell'] if a['mode'] == 'lstm' else [])
            + (['sequence_length'] if a['use_sequence_length'] else []))


def _num_outputs(a):
    if not a['state_outputs']:
        return 1
    return 3 if a['mode'] == 'lstm' else 2


def _output_names(a):
    return ['output', 'state_output', 'statecell_output'][:_num_outputs(a)]


def _infer(shapes, dtypes, a):
    metas = [None if s is None else torch.empty(s, dtype=dt, device='meta') for s, dt in zip(shapes, dtypes)]
    metas += [None] * (5 - len(metas))  # laid out as the op's inputs (a None state_cell slot if not lstm)
    _check(*metas, a)
    t, n, _ = shapes[0]
    d = 2 if a['bidirectional'] else 1
    h = a['state_size']
    out = [(t, n, d * h)] + [(a['num_layers'] * d, n, h)] * (_num_outputs(a) - 1)
    return out, [dtypes[0]] * len(out)


defop('RNN', ('data', 'parameters', 'state', 'state_cell', 'sequence_length'),
      [('state_size', 'int', REQUIRED), ('num_layers', 'int', REQUIRED), ('bidirectional', 'bool', False),
       ('mode', 'str', REQUIRED), ('p', 'float', 0.0), ('state_outputs', 'bool', False),
       ('projection_size', 'int?', None), ('lstm_state_clip_min', 'float?', None),
       ('lstm_state_clip_max', 'float?', None), ('lstm_state_clip_nan', 'bool', False),
       ('use_sequence_length', 'bool', False)],
      _rnn, optional=('state_cell', 'sequence_length'), input_names=_input_names, num_outputs=_num_outputs,
      output_names=_output_names, infer=_infer, aliases=('_npx_rnn',), choices={'mode': tuple(_GATES)},
      doc='Fused multi-layer (bidirectional) vanilla RNN, LSTM or GRU over TNC data with one flat parameter '
          'vector, as MXNet. Not supported: projection_size, lstm_state_clip_min/max. use_sequence_length '
          "follows MXNet's cuDNN semantics (MXNet's CPU build ignores the lengths).")
