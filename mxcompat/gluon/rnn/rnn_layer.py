"""Gluon's fused recurrent layers ``RNN``, ``LSTM`` and ``GRU`` (the ``RNN`` operator over all layers at once).

Parameters are MXNet's (``l0_i2h_weight``, ``r0_h2h_bias`` ... under the layer's prefix, same shapes, same
``_unfused.*`` keys in ``save_parameters`` files), so parameter files written by MXNet load. Differs from MXNet:
``LSTM(projection_size=...)`` also trains and ``state_clip_min``/``state_clip_max`` clip (MXNet's CPU build runs
projection in inference only and ignores clipping; see the ``RNN`` operator); a hybridized layer first called without
states and then with states returns (output, states) as documented (MXNet's cached graph keeps returning the output
only); ``sequence_length`` without ``use_sequence_length=True`` raises instead of being ignored.
"""
import re

import torch

from ... import ndarray, symbol
from ...base import MXNetAssertionError, MXNetTypeError, MXNetValueError
from ...ndarray.ndarray import NDArray, _wrap
from ..block import HybridBlock
from . import rnn_cell
from .._npf import is_eager, to_np
from ...util import is_np_array

__all__ = ['RNN', 'LSTM', 'GRU']

# mode -> (gates, number of states)
_MODES = {'rnn_relu': (1, 1), 'rnn_tanh': (1, 1), 'lstm': (4, 2), 'gru': (3, 1)}
# one (name, shape rule) row per parameter of a layer/direction, in MXNet's order; each has its own initializer.
# r is the width of the recurrent state: projection_size for a projected LSTM (which alone has h2r), else h.
_PARAM_ROWS = (('i2h_weight', lambda g, fan_in, h, r: (g * h, fan_in)),
               ('h2h_weight', lambda g, fan_in, h, r: (g * h, r)),
               ('i2h_bias', lambda g, fan_in, h, r: (g * h,)),
               ('h2h_bias', lambda g, fan_in, h, r: (g * h,)),
               ('h2r_weight', lambda g, fan_in, h, r: (r, h)))
_KEY = re.compile(r'(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z')


class _RNNLayer(HybridBlock):
    """Shared body of RNN/LSTM/GRU."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 mode, projection_size, h2r_weight_initializer, lstm_state_clip_min, lstm_state_clip_max,
                 lstm_state_clip_nan, dtype, use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ('TNC', 'NTC'):
            raise MXNetValueError("Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout)
        # plain settings kept as MXNet names them (``_hidden_size``, ``_dir`` ...): code outside reads them
        settings = dict(hidden_size=hidden_size, projection_size=projection_size or None, num_layers=num_layers,
                        mode=mode, layout=layout, dropout=dropout, dir=2 if bidirectional else 1, input_size=input_size,
                        i2h_weight_initializer=i2h_weight_initializer,
                        h2h_weight_initializer=h2h_weight_initializer, i2h_bias_initializer=i2h_bias_initializer,
                        h2h_bias_initializer=h2h_bias_initializer, h2r_weight_initializer=h2r_weight_initializer,
                        lstm_state_clip_min=lstm_state_clip_min, lstm_state_clip_max=lstm_state_clip_max,
                        lstm_state_clip_nan=lstm_state_clip_nan, dtype=dtype,
                        use_sequence_length=use_sequence_length, gates=_MODES[mode][0], traced_skip=None)
        for key, value in settings.items():
            setattr(self, '_' + key, value)
        self.skip_states = None
        inits = {'i2h_weight': i2h_weight_initializer, 'h2h_weight': h2h_weight_initializer,
                 'i2h_bias': i2h_bias_initializer, 'h2h_bias': h2h_bias_initializer,
                 'h2r_weight': h2r_weight_initializer}
        width = self._projection_size or hidden_size
        fan_in = input_size
        for layer in range(num_layers):
            for side in self._sides():
                for suffix, shape_of in _PARAM_ROWS[:None if self._projection_size else -1]:
                    name = '%s%d_%s' % (side, layer, suffix)
                    setattr(self, name, self.params.get(name, shape=shape_of(self._gates, fan_in, hidden_size, width),
                                                        init=inits[suffix], allow_deferred_init=True,
                                                        dtype=dtype))
            fan_in = width * self._dir

    def _sides(self):
        return 'lr'[:self._dir]

    def __repr__(self):
        extras = ''
        if self._num_layers != 1:
            extras += ', num_layers={}'.format(self._num_layers)
        if self._dropout != 0:
            extras += ', dropout={}'.format(self._dropout)
        if self._dir == 2:
            extras += ', bidirectional'
        rows, cols = self.l0_i2h_weight.shape
        return '{}({} -> {}, {}{})'.format(type(self).__name__, cols if cols else None, rows // self._gates,
                                           self._layout, extras)

    def _collect_params_with_prefix(self, prefix=''):
        """MXNet's file keys for fused layers: ``_unfused.<layer>[.<l|r>_cell].<i2h|h2h>_<weight|bias>``."""
        lead = prefix + '.' if prefix else ''
        both = any(_KEY.match(k).group(1) == 'r' for k in self._reg_params)
        found = {}
        for key, param in self._reg_params.items():
            side, layer, kind, what = _KEY.match(key).groups()
            cell = '%s_cell.' % side if both else ''
            found['%s_unfused.%s.%s%s_%s' % (lead, layer, cell, kind, what)] = param
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(lead + name))
        return found

    def state_info(self, batch_size=0):
        """[{'shape': (layers * directions, batch, width), '__layout__': 'LNC', 'dtype': ...}] per state; the
        width is ``hidden_size``, except ``projection_size`` for a projected LSTM's first state (h)."""
        widths = [self._projection_size or self._hidden_size, self._hidden_size][:_MODES[self._mode][1]]
        return [{'shape': (self._num_layers * self._dir, batch_size, w), '__layout__': 'LNC', 'dtype': self._dtype}
                for w in widths]

    def _unfuse(self):
        """The same network as a HybridSequentialRNNCell of cells sharing this layer's parameters."""
        if self._projection_size or self._lstm_state_clip_min is not None or self._lstm_state_clip_max is not None:
            raise MXNetAssertionError('%s: _unfuse does not support projection or state clipping'
                                      % type(self).__name__)
        kind = self._mode
        def make(**kw):
            if kind.startswith('rnn_'):
                return rnn_cell.RNNCell(self._hidden_size, activation=kind[4:], **kw)
            return {'lstm': rnn_cell.LSTMCell, 'gru': rnn_cell.GRUCell}[kind](self._hidden_size, **kw)

        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            fan_in = self._input_size
            for layer in range(self._num_layers):
                kw = dict(input_size=fan_in, i2h_weight_initializer=self._i2h_weight_initializer,
                          h2h_weight_initializer=self._h2h_weight_initializer,
                          i2h_bias_initializer=self._i2h_bias_initializer,
                          h2h_bias_initializer=self._h2h_bias_initializer)
                cells = [make(prefix='%s%d_' % (side, layer), **kw) for side in self._sides()]
                stack.add(cells[0] if len(cells) == 1 else rnn_cell.BidirectionalCell(*cells))
                if self._dropout > 0 and layer != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                fan_in = self._hidden_size * self._dir
        return stack

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by ``func`` from ``state_info(batch_size)`` updated with ``kwargs``."""
        made = []
        for i, info in enumerate(self.state_info(batch_size)):
            info.update(kwargs)
            made.append(rnn_cell._make_state(func, '%sh0_%d' % (self.prefix, i), info))
        return to_np(made) if is_np_array() else made

    # -- shapes -----------------------------------------------------------------------------------------------
    def infer_shape(self, inputs, *args):
        """Set the first layer's input size from ``inputs`` (the only shape a fused layer cannot know)."""
        width = inputs.shape[2]
        for side in self._sides():
            weight = getattr(self, '%s0_i2h_weight' % side)
            weight.shape = (weight.shape[0], width)

    def _settle_deferred(self, inputs):
        """Finish deferred initialization from an NDArray input before any graph is built."""
        if self.l0_i2h_weight.shape[1] in (0, -1):  # (unknown: -1 under NumPy shape semantics)
            self.infer_shape(inputs)
        for param in self._reg_params.values():
            param._finish_deferred_init()

    # -- calls --------------------------------------------------------------------------------------------------
    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        if kwargs:
            raise MXNetTypeError('%s: unexpected keyword arguments %s' % (type(self).__name__, sorted(kwargs)))
        self.skip_states = states is None
        if self._traced_skip is not None and self._traced_skip != self.skip_states:
            self._clear_cached_op()  # the graph returns the states or not, as decided when it was traced
        if states is None:
            if isinstance(inputs, NDArray):
                batch = inputs.shape[self._layout.find('N')]
                states = self.begin_state(batch, ctx=inputs.context, dtype=inputs.dtype)
            else:  # zeros of unknown batch size, completed by shape inference (as in MXNet)
                states = self.begin_state(0, func=symbol.zeros)
        if sequence_length is not None and not self._use_sequence_length:
            raise MXNetValueError('%s: sequence_length given but the layer was made without '
                                  'use_sequence_length=True' % type(self).__name__)
        if isinstance(states, (NDArray, symbol.Symbol)):
            states = [states]
        if isinstance(inputs, NDArray):
            self._settle_deferred(inputs)
        args = (inputs, states, sequence_length) if self._use_sequence_length else (inputs, states)
        return super().__call__(*args)

    def _trace(self, args):
        self._traced_skip = self.skip_states
        return super()._trace(args)

    def _clear_cached_op(self):
        super()._clear_cached_op()
        self._traced_skip = None

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if is_eager(F):
            want = self.state_info(inputs.shape[self._layout.find('N')])
            for state, info in zip(states, want):
                if state.shape != info['shape']:
                    raise MXNetValueError('Invalid recurrent state shape. Expecting %s, got %s.'
                                          % (str(info['shape']), str(state.shape)))
        outputs, new_states = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return outputs if self.skip_states else (outputs, new_states)

    def _flat_params(self, F, params):
        """MXNet's flat layout: all weights (layer, direction, i2h, h2h, then h2r if projected), then all biases
        (i2h, h2h) likewise."""
        kinds = ('i2h', 'h2h', 'h2r') if self._projection_size else ('i2h', 'h2h')
        order = ['%s%d_%s_%s' % (side, layer, kind, what) for what in ('weight', 'bias')
                 for layer in range(self._num_layers) for side in self._sides() for kind in kinds
                 if kind != 'h2r' or what == 'weight']
        if is_eager(F):  # eager: one torch.cat of flattened views (reshape NDArrays would copy each first)
            first = params[order[0]]
            return _wrap(torch.cat([params[n]._t.reshape(-1) for n in order]), first._ctx)
        # (a deferred first-layer weight gets its input size from this concatenation's shape inference)
        return F._internal._rnn_param_concat(*[params[n].reshape(-1) for n in order], dim=0)

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        flat = self._flat_params(F, kwargs)
        extra = [sequence_length] if self._use_sequence_length else []
        out = F.RNN(inputs, flat, *(list(states) + extra), use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2, p=self._dropout, state_outputs=True,
                    mode=self._mode, lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max, lstm_state_clip_nan=self._lstm_state_clip_nan)
        n_states = _MODES[self._mode][1]
        outputs, new_states = out[0], [out[k] for k in range(1, 1 + n_states)]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, new_states


class RNN(_RNNLayer):
    """Multi-layer Elman RNN (``activation`` 'relu' or 'tanh'); states: [h] of shape (layers*dirs, N, hidden)."""

    def __init__(self, hidden_size, num_layers=1, activation='relu', layout='TNC', dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', input_size=0, dtype='float32', **kwargs):
        if activation not in ('relu', 'tanh'):
            raise MXNetValueError("gluon.rnn.RNN: activation must be 'relu' or 'tanh', got %r" % (activation,))
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         'rnn_' + activation, None, None, None, None, False, dtype, **kwargs)


class LSTM(_RNNLayer):
    """Multi-layer LSTM, optionally projected (LSTMP: ``h2r_weight``, h of width ``projection_size``) and with the
    cell state clipped to [``state_clip_min``, ``state_clip_max``]; states: [h, c]."""

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         'lstm', projection_size, h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    """Multi-layer GRU (cuDNN variant, gates reset, update, new); states: [h]."""

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         'gru', None, None, None, None, False, dtype, **kwargs)
