"""Convolutional recurrent cells (``gluon.contrib.rnn.Conv{1,2,3}D{RNN,LSTM,GRU}Cell``).

The input-to-hidden and hidden-to-hidden transforms are convolutions (the hidden one padded to keep the state's
spatial size); parameter names, shapes, prefixes (``conv_rnn0_``, ``conv_lstm0_``, ``conv_gru0_``), per-step
output names (``t0_out``) and ``__repr__`` are MXNet 1.9.1's.
"""
from numbers import Integral

from .... import symbol
from ...rnn.rnn_cell import HybridRecurrentCell, _require, _zeros_from
from .rnn_cell import _lstm_gates

__all__ = ['Conv1DRNNCell', 'Conv2DRNNCell', 'Conv3DRNNCell', 'Conv1DLSTMCell', 'Conv2DLSTMCell', 'Conv3DLSTMCell',
           'Conv1DGRUCell', 'Conv2DGRUCell', 'Conv3DGRUCell']


def _spread(value, dims):
    return (value,) * dims if isinstance(value, Integral) else tuple(value)


def _conv_out(size, kernel, pad, dilate):
    """Spatial size after a stride-1 convolution (0 stays 0: not known yet)."""
    return size + 2 * pad - dilate * (kernel - 1) if size else 0


def _rnn_update(cell, F, i2h, h2h, states, tag):
    out = cell._get_activation(F, i2h + h2h, cell._activation, name=tag + 'out')
    return out, [out]


def _lstm_update(cell, F, i2h, h2h, states, tag):
    out_gate, new_c = _lstm_gates(cell, F, i2h + h2h, states[1], tag, cell._activation, cell._channel_axis)
    hidden = F.elemwise_mul(out_gate, cell._get_activation(F, new_c, cell._activation), name=tag + 'out')
    return hidden, [hidden, new_c]


def _gru_update(cell, F, i2h, h2h, states, tag):
    axis = cell._channel_axis
    x_r, x_z, x_n = F.SliceChannel(i2h, num_outputs=3, axis=axis, name=tag + 'i2h_slice')
    h_r, h_z, h_n = F.SliceChannel(h2h, num_outputs=3, axis=axis, name=tag + 'h2h_slice')
    reset = F.Activation(x_r + h_r, act_type='sigmoid', name=tag + 'r_act')
    update = F.Activation(x_z + h_z, act_type='sigmoid', name=tag + 'z_act')
    candidate = cell._get_activation(F, x_n + reset * h_n, cell._activation, name=tag + 'h_act')
    hidden = F.elemwise_add((1. - update) * candidate, update * states[0], name=tag + 'out')
    return hidden, [hidden]


# kind -> (alias, number of gates, number of states, update function)
_KINDS = {'rnn': ('conv_rnn', 1, 1, _rnn_update),
          'lstm': ('conv_lstm', 4, 2, _lstm_update),
          'gru': ('conv_gru', 3, 1, _gru_update)}


class _ConvCell(HybridRecurrentCell):
    """Shared body: ``_kind`` picks the gate update, ``_dims`` the convolution rank."""

    _kind = None
    _dims = None

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 conv_layout, activation, prefix, params):
        super().__init__(prefix=prefix, params=params)
        dims = self._dims
        _require(all(isinstance(s, Integral) or len(s) == dims
                     for s in (i2h_kernel, i2h_pad, i2h_dilate, h2h_kernel, h2h_dilate)),
                 'For {d}D convolution, the convolution settings can only be either int or list/tuple of length '
                 '{d}'.format(d=dims))
        self._hidden_channels = hidden_channels
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        self._i2h_kernel = _spread(i2h_kernel, dims)
        self._i2h_pad = _spread(i2h_pad, dims)
        self._i2h_dilate = _spread(i2h_dilate, dims)
        self._h2h_kernel = _spread(h2h_kernel, dims)
        self._h2h_dilate = _spread(h2h_dilate, dims)
        self._stride = (1,) * dims
        _require(all(k % 2 == 1 for k in self._h2h_kernel), 'Only support odd number, get h2h_kernel= %s'
                 % str(h2h_kernel))
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))

        axis = conv_layout.find('C')
        self._channel_axis = axis
        self._in_channels = input_shape[axis - 1]
        spatial = tuple(input_shape[1:]) if axis == 1 else tuple(input_shape[:-1])
        out_size = tuple(_conv_out(*a) for a in zip(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate))
        width = hidden_channels * _KINDS[self._kind][1]
        if axis == 1:
            i2h_shape = (width, self._in_channels) + self._i2h_kernel
            h2h_shape = (width, hidden_channels) + self._h2h_kernel
            self._state_shape = (hidden_channels,) + out_size
        else:
            i2h_shape = (width,) + self._i2h_kernel + (self._in_channels,)
            h2h_shape = (width,) + self._h2h_kernel + (hidden_channels,)
            self._state_shape = out_size + (hidden_channels,)
        for name, shape, init in (('i2h_weight', i2h_shape, i2h_weight_initializer),
                                  ('h2h_weight', h2h_shape, h2h_weight_initializer),
                                  ('i2h_bias', (width,), i2h_bias_initializer),
                                  ('h2h_bias', (width,), h2h_bias_initializer)):
            setattr(self, name, self.params.get(name, shape=shape, init=init, allow_deferred_init=True))

    def _alias(self):
        return _KINDS[self._kind][0]

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size,) + self._state_shape, '__layout__': self._conv_layout}] * _KINDS[self._kind][2]

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return '{}({} -> {}, {}, {})'.format(type(self).__name__, in_channels if in_channels else None, shape[0],
                                             self._activation, self._conv_layout)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        if begin_state is None and isinstance(inputs if isinstance(inputs, symbol.Symbol) else inputs[0],
                                              symbol.Symbol):
            begin_state = self._symbolic_zero_states(inputs, layout)
        return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length)

    def _symbolic_zero_states(self, inputs, layout):
        """Zero states with the batch size of Symbol ``inputs`` (the shared default assumes (N, C) steps)."""
        F = symbol
        if isinstance(inputs, F.Symbol):
            n_axis = layout.find('N')
            first = F.swapaxes(inputs, dim1=0, dim2=n_axis) if n_axis else inputs
        else:
            first = inputs[0]
        column = F.zeros_like(F.slice_axis(F.reshape(first, shape=(0, -1)), axis=1, begin=0, end=1))
        return [_zeros_from(F, column, info['shape'], 0) for info in self.state_info(0)]

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        tag = 't%d_' % self._counter
        width = self._hidden_channels * _KINDS[self._kind][1]
        common = dict(num_filter=width, stride=self._stride, layout=self._conv_layout)
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, kernel=self._i2h_kernel,
                            pad=self._i2h_pad, dilate=self._i2h_dilate, name=tag + 'i2h', **common)
        h2h = F.Convolution(data=states[0], weight=h2h_weight, bias=h2h_bias, kernel=self._h2h_kernel,
                            pad=self._h2h_pad, dilate=self._h2h_dilate, name=tag + 'h2h', **common)
        return _KINDS[self._kind][3](self, F, i2h, h2h, states, tag)


def _make(kind, dims, layout, doc):
    """One public class: MXNet's constructor signature with the per-rank defaults."""
    ones, zeros = (1,) * dims, (0,) * dims

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=zeros, i2h_dilate=ones,
                 h2h_dilate=ones, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', conv_layout=layout, activation='tanh',
                 prefix=None, params=None):
        _ConvCell.__init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate,
                           h2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                           h2h_bias_initializer, conv_layout, activation, prefix, params)

    name = 'Conv%dD%sCell' % (dims, kind.upper())
    return type(name, (_ConvCell,), {'__init__': __init__, '_kind': kind, '_dims': dims, '__doc__': doc,
                                     '__module__': __name__, '__qualname__': name})


_RANK_LAYOUT = {1: 'NCW', 2: 'NCHW', 3: 'NCDHW'}
_WHAT = {'rnn': 'Elman cell: h\' = activation(conv(x) + conv(h))',
         'lstm': 'LSTM cell with convolutions for its gates (states: hidden, cell)',
         'gru': 'GRU cell with convolutions for its gates'}

Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell, Conv1DLSTMCell, Conv2DLSTMCell, Conv3DLSTMCell, \
    Conv1DGRUCell, Conv2DGRUCell, Conv3DGRUCell = [
        _make(kind, dims, _RANK_LAYOUT[dims], '%dD convolutional %s.' % (dims, _WHAT[kind]))
        for kind in ('rnn', 'lstm', 'gru') for dims in (1, 2, 3)]
