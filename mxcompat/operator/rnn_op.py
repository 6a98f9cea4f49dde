"""MXNet's fused ``RNN`` operator (relu/tanh RNN, LSTM, GRU; stacked, optionally bidirectional) on torch's kernels.

MXNet keeps every weight and bias in one flat vector: first the weights (per layer, per direction: input-to-hidden,
hidden-to-hidden, and for an LSTM with ``projection_size`` the hidden-to-projection ``h2r`` matrix; row-major),
then the biases (input-to-hidden, hidden-to-hidden) in the same order. Its gate orders (LSTM i, f, g, o; GRU r, z,
n, with the reset gate applied to the hidden-to-hidden product including its bias) and its projected LSTM (LSTMP)
are torch's, so the flat vector is only cut into views and handed to ``torch._VF``.

Differences from MXNet 1.9.1's CPU build, which follow its cuDNN (GPU) semantics instead:
``use_sequence_length`` (steps past a sequence's length give zero output, the reverse direction starts at the last
valid step, the returned states are those at the last valid step; the CPU build ignores the lengths);
``lstm_state_clip_min/max`` clip the cell state after every step (the CPU build ignores them), and with
``lstm_state_clip_nan`` a NaN cell state becomes ``lstm_state_clip_min`` (cuDNN's exact NaN rule is not verified);
``projection_size`` also trains (the CPU build only runs inference with it). Clipped LSTMs step through time in
Python, so they are slower than the other modes.
"""
import functools
import math
import os
import warnings

import torch
from torch.nn import functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .._recording import STATE
from ..base import MXNetValueError, MXNetTypeError, dtype_name
from .registry import REQUIRED, defop, get

_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}
_VF_FN = {'rnn_relu': 'rnn_relu', 'rnn_tanh': 'rnn_tanh', 'lstm': 'lstm', 'gru': 'gru'}


def rnn_param_size(mode, num_layers, input_size, state_size, bidirectional, projection_size=None):
    """Length of MXNet's flat parameter vector."""
    d = 2 if bidirectional else 1
    gh = _GATES[mode] * state_size
    r = projection_size or state_size  # width of the recurrent state h
    first = gh * (input_size + r + 2)
    rest = gh * (d * r + r + 2)
    proj = r * state_size if projection_size else 0
    return d * (first + proj + (num_layers - 1) * (rest + proj))


def rnn_input_shapes(attrs, data_shape):
    """{input name: shape} of the parameter vector and states implied by the data shape (MXNet's RNNShape)."""
    a = get('RNN').parse_attrs(attrs)
    d = 2 if a['bidirectional'] else 1
    layers, h, proj = a['num_layers'], a['state_size'], a['projection_size']
    out = {'parameters': (rnn_param_size(a['mode'], layers, data_shape[2], h, a['bidirectional'], proj),),
           'state': (layers * d, data_shape[1], proj or h)}
    if a['mode'] == 'lstm':
        out['state_cell'] = (layers * d, data_shape[1], h)
    if a['use_sequence_length']:
        out['sequence_length'] = (data_shape[1],)
    return out


def _unflatten(flat, mode, num_layers, input_size, h, d, proj=None):
    """Cut the flat vector into torch's per-layer list [w_ih, w_hh, b_ih, b_hh, (w_hr), (reverse ...)] (views).

    One ``split`` makes all the pieces, so the backward pass joins their gradients with one concatenation (a
    slice per piece would scatter each gradient into its own zero-filled vector of the full length and sum those)."""
    gh = _GATES[mode] * h
    r = proj or h
    shapes = []
    for layer in range(num_layers):
        fan_in = input_size if layer == 0 else d * r
        shapes += [[(gh, fan_in), (gh, r)] + ([(proj, h)] if proj else []) for _ in range(d)]
    biases = [[(gh,), (gh,)] for _ in shapes]
    sizes = [math.prod(s) for group in shapes + biases for s in group]
    if type(flat) is tuple:  # the flattened parameters themselves (see _rnn): used directly when they line up
        parts = iter(flat if [p.numel() for p in flat] == sizes else torch.cat(flat).split(sizes))
    else:
        parts = iter(flat.split(sizes))
    weights = [[next(parts).view(s) for s in group] for group in shapes]
    bias = [[next(parts) for _ in group] for group in biases]
    out = []
    for w, b in zip(weights, bias):
        out += w[:2] + b + w[2:]
    return out


def _check(data, parameters, state, state_cell, seq_len, a):  # noqa: C901 (one check per input of MXNet's RNN op, each with its message)
    mode, proj = a['mode'], a['projection_size']
    lo, hi = a['lstm_state_clip_min'], a['lstm_state_clip_max']
    if proj is not None:
        if mode != 'lstm':
            raise MXNetValueError('Operator RNN: projection_size is only supported for LSTM, got mode %r' % mode)
        if not 0 < proj <= a['state_size']:
            raise MXNetValueError('Operator RNN: projection_size must be in [1, state_size=%d], got %d'
                                  % (a['state_size'], proj))
    if lo is not None or hi is not None:
        if mode != 'lstm':
            raise MXNetValueError('Operator RNN: state clipping is only supported for LSTM, got mode %r' % mode)
        if lo is None or hi is None:
            raise MXNetValueError('Operator RNN: lstm_state_clip_min and lstm_state_clip_max must be specified '
                                  'together')
        if hi < lo:
            raise MXNetValueError('Operator RNN: lstm_state_clip_max (%s) must be >= lstm_state_clip_min (%s)'
                                  % (hi, lo))
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
    want_p = rnn_param_size(mode, a['num_layers'], c, h, a['bidirectional'], proj)
    if tuple(parameters.shape) != (want_p,):
        raise MXNetValueError('Operator RNN: parameters must have shape (%d,) for %s with %d layer(s), '
                              'input size %d, state size %d%s, got %s'
                              % (want_p, mode, a['num_layers'], c, h,
                                 ', projection size %d' % proj if proj else '', tuple(parameters.shape)))
    states = [('state', state, proj or h)] + ([('state_cell', state_cell, h)] if mode == 'lstm' else [])
    for name, s, width in states:
        if s is None:
            raise MXNetValueError('Operator RNN: required input %r is missing' % name)
        if tuple(s.shape) != (a['num_layers'] * d, n, width):
            raise MXNetValueError('Operator RNN: %s must have shape %s, got %s'
                                  % (name, (a['num_layers'] * d, n, width), tuple(s.shape)))
    for name, x in [('parameters', parameters)] + [s[:2] for s in states]:
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


def _clipped_lstm(data, weights, h0, c0, lengths, a, train):
    """LSTM(P) stepped in Python with the cell state clipped after every step (torch has no fused kernel for it).

    ``lengths`` (or None) masks steps past each sequence's end: state kept, output zero (cuDNN semantics)."""
    lo, hi = a['lstm_state_clip_min'], a['lstm_state_clip_max']
    d = 2 if a['bidirectional'] else 1
    per = len(weights) // (a['num_layers'] * d)
    t_len = data.shape[0]
    mask = None
    if lengths is not None:
        mask = (torch.arange(t_len, device=lengths.device).unsqueeze(1) < lengths.unsqueeze(0)).unsqueeze(2).to(
            data.device)
    x, hy, cy = data, [], []
    for layer in range(a['num_layers']):
        if layer and train and a['p'] > 0:
            x = F.dropout(x, a['p'], True)
        outs = []
        for k in range(d):
            j = layer * d + k
            wx, wh, bx, bh, *whr = weights[j * per:(j + 1) * per]
            gx = F.linear(x, wx, bx)
            h, c = h0[j], c0[j]
            steps = [None] * t_len
            for t in (range(t_len - 1, -1, -1) if k else range(t_len)):
                i, f, g, o = (gx[t] + F.linear(h, wh, bh)).chunk(4, 1)
                c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                if a['lstm_state_clip_nan']:
                    c_new = torch.nan_to_num(c_new, nan=lo)
                c_new = c_new.clamp(lo, hi)
                h_new = torch.sigmoid(o) * torch.tanh(c_new)
                if whr:
                    h_new = F.linear(h_new, whr[0])
                if mask is None:
                    h, c, steps[t] = h_new, c_new, h_new
                else:
                    h, c = torch.where(mask[t], h_new, h), torch.where(mask[t], c_new, c)
                    steps[t] = torch.where(mask[t], h_new, torch.zeros_like(h_new))
            outs.append(torch.stack(steps))
            hy.append(h)
            cy.append(c)
        x = outs[0] if d == 1 else torch.cat(outs, 2)
    return x, torch.stack(hy), torch.stack(cy)


def _lengths(sequence_length, t):
    lengths = sequence_length.detach().to('cpu', torch.int64)
    if bool(((lengths < 1) | (lengths > t)).any()):
        raise MXNetValueError('Operator RNN: sequence_length values must be in [1, %d], got %s'
                              % (t, lengths.tolist()))
    return lengths


def _quiet(fn, *args):
    with warnings.catch_warnings():  # torch says oneDNN has no LSTMP kernel (torch's own one runs)
        warnings.simplefilter('ignore', UserWarning)
        return fn(*args)


def _onednn(data, a):
    """Whether MXNet's CPU build runs this call on oneDNN's RNN primitive (float32, no projection, unless
    MXNET_USE_MKLDNN_RNN=0), which has no dropout: ``p`` is then ignored, as there."""
    return (data.device.type == 'cpu' and data.dtype == torch.float32 and not a['projection_size']
            and os.environ.get('MXNET_USE_MKLDNN_RNN', '1').strip() != '0')


def _rnn(data, parameters, state, state_cell=None, sequence_length=None, **a):
    mode = a['mode']
    if mode != 'lstm' and state_cell is not None:
        # positional calls for relu/tanh/gru: the fourth array is the sequence length
        if sequence_length is not None or not a['use_sequence_length']:
            raise MXNetValueError("Operator RNN: mode %r takes no input 'state_cell'" % mode)
        state_cell, sequence_length = None, state_cell
    pieces = None
    if type(parameters) is tuple:
        # the inputs of the _rnn_param_concat a hybridized graph skips (symbol/passes/inplace.py): checked as the vector
        # they would make, and handed to torch as they are
        pieces = parameters
        parameters = torch.empty((sum(p.numel() for p in pieces),), dtype=pieces[0].dtype, device='meta')
    _check(data, parameters, state, state_cell, sequence_length, a)
    t, n, c = data.shape
    d = 2 if a['bidirectional'] else 1
    flat = _unflatten(parameters if pieces is None else pieces, mode, a['num_layers'], c, a['state_size'], d,
                      a['projection_size'])
    hx = (state, state_cell) if mode == 'lstm' else state
    train = STATE.training and a['p'] > 0 and not _onednn(data, a)
    seq = a['use_sequence_length'] and data.device.type != 'meta'
    if a['lstm_state_clip_min'] is not None:
        res = _clipped_lstm(data, flat, state, state_cell, _lengths(sequence_length, t) if seq else None, a, train)
        return res if a['state_outputs'] else res[0]
    fn = getattr(torch._VF, _VF_FN[mode])
    if a['projection_size']:
        fn = functools.partial(_quiet, fn)
    # cuDNN keeps what its backward needs only in training mode: where a gradient is wanted outside training
    # (MXNet allows backward after a predict-mode forward), run cuDNN's training kernel without dropout
    cudnn_train = train or (data.is_cuda and torch.is_grad_enabled()
                            and any(t.requires_grad for t in (data, state, state_cell, *flat) if t is not None))
    common = (flat, True, a['num_layers'], a['p'] if train else 0.0, cudnn_train, a['bidirectional'])
    if seq:
        packed = pack_padded_sequence(data, _lengths(sequence_length, t), enforce_sorted=False)
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
    r = a['projection_size'] or h
    out = [(t, n, d * r), (a['num_layers'] * d, n, r), (a['num_layers'] * d, n, h)][:_num_outputs(a)]
    return out, [dtypes[0]] * len(out)


defop('RNN', ('data', 'parameters', 'state', 'state_cell', 'sequence_length'),
      [('state_size', 'int', REQUIRED), ('num_layers', 'int', REQUIRED), ('bidirectional', 'bool', False),
       ('mode', 'str', REQUIRED), ('p', 'float', 0.0), ('state_outputs', 'bool', False),
       ('projection_size', 'int?', None), ('lstm_state_clip_min', 'float?', None),
       ('lstm_state_clip_max', 'float?', None), ('lstm_state_clip_nan', 'bool', False),
       ('use_sequence_length', 'bool', False)],
      _rnn, optional=('state_cell', 'sequence_length'), input_names=_input_names, num_outputs=_num_outputs,
      output_names=_output_names, infer=_infer, aliases=('_npx_rnn',), choices={'mode': tuple(_GATES)},
      doc='Fused multi-layer (bidirectional) vanilla RNN, LSTM (optionally projected) or GRU over TNC data with one '
          "flat parameter vector, as MXNet. use_sequence_length and lstm_state_clip_* follow MXNet's cuDNN "
          "semantics (MXNet's CPU build ignores them); projection_size also trains (CPU MXNet: inference only). "
          "Dropout p is ignored for float32 on the CPU, as MXNet's oneDNN kernels ignore it (unless "
          "MXNET_USE_MKLDNN_RNN=0).")
