"""``mx.rnn``'s convolutional cells (``ConvRNNCell``, ``ConvLSTMCell``, ``ConvGRUCell``): the legacy symbolic
cells whose input-to-state and state-to-state transforms are 2-D convolutions (Shi et al., NIPS 2015).

Same graphs as MXNet's: node names ``<prefix>t<step>_i2h`` / ``_h2h`` / ``_out``, variables ``<prefix>i2h_weight``
... with the given initializers, states of shape ``(0, num_hidden, H', W')`` (batch left to inference).
"""
import functools

from .. import symbol
from .rnn_cell import BaseRNNCell, _check

__all__ = ['BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell']


# MXNet's default activation of the three cells: leaky ReLU with slope 0.2
_DEFAULT_ACTIVATION = functools.partial(symbol.LeakyReLU, act_type='leaky', slope=0.2)


def _state_shape(input_shape, num_hidden, layout, kernel, stride, pad, dilate):
    """The shape of the ``i2h`` convolution's output for one step's ``input_shape``, batch left unknown (0)."""
    spatial = [i for i, c in enumerate(layout) if c not in 'NC']
    out = [0] * len(layout)
    out[layout.index('C')] = num_hidden
    for j, axis in enumerate(spatial):
        size = (input_shape[axis] + 2 * pad[j] - dilate[j] * (kernel[j] - 1) - 1) // stride[j] + 1
        _check(size > 0, 'Convolutional RNN cell: the i2h convolution (kernel %s, stride %s, pad %s, dilate %s) '
                         'leaves nothing of an input of shape %s' % (kernel, stride, pad, dilate, input_shape))
        out[axis] = size
    return tuple(out)


class BaseConvRNNCell(BaseRNNCell):
    """Base of the convolutional cells: the two convolutions of a step and the state shape.

    ``input_shape`` is one step's input shape (batch included); the state shape is the ``i2h`` convolution's
    output shape for it, with the batch left unknown (0). ``h2h_kernel`` must be odd so that the state-to-state
    convolution keeps the state's size (its padding is derived from the kernel and dilation)."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                 i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, activation, prefix='', params=None, conv_layout='NCHW'):
        super(BaseConvRNNCell, self).__init__(prefix=prefix, params=params)
        h2h_kernel, h2h_dilate = tuple(h2h_kernel), tuple(h2h_dilate)
        _check(len(h2h_kernel) == 2 and h2h_kernel[0] % 2 == 1 and h2h_kernel[1] % 2 == 1,
               'Only support odd number, get h2h_kernel= %s' % str(h2h_kernel))
        self._h2h_kernel, self._h2h_dilate = h2h_kernel, h2h_dilate
        self._h2h_pad = tuple(d * (k - 1) // 2 for k, d in zip(h2h_kernel, h2h_dilate))
        self._i2h = dict(kernel=i2h_kernel, stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate)
        self._num_hidden = num_hidden
        self._conv_layout = conv_layout
        self._activation = activation
        self._state_shape = _state_shape(input_shape, num_hidden, conv_layout, **self._i2h)
        # the four variables, in MXNet's order (that of cell.params): weights, then biases
        inits = {'i2h_weight': i2h_weight_initializer, 'h2h_weight': h2h_weight_initializer,
                 'i2h_bias': i2h_bias_initializer, 'h2h_bias': h2h_bias_initializer}
        self._iW, self._hW, self._iB, self._hB = [self.params.get(n, init=i) for n, i in inits.items()]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{'shape': self._state_shape, '__layout__': self._conv_layout} for _ in range(self._num_states)]

    _num_states = 2

    def _conv_forward(self, inputs, states, name):
        """The ``i2h`` convolution of the input and the ``h2h`` convolution of the first state."""
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name='%si2h' % name, data=inputs, num_filter=filters, weight=self._iW,
                                 bias=self._iB, layout=self._conv_layout, **self._i2h)
        h2h = symbol.Convolution(name='%sh2h' % name, data=states[0], num_filter=filters,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate, pad=self._h2h_pad, stride=(1, 1),
                                 weight=self._hW, bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError('BaseConvRNNCell is abstract class for convolutional RNN')


def _conv_cell(name, prefix, doc):
    """The ``__init__`` of a convolutional cell: MXNet's defaults, ``prefix`` included."""
    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_DEFAULT_ACTIVATION, prefix=prefix, params=None, conv_layout='NCHW'):
        BaseConvRNNCell.__init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                                 i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                                 i2h_bias_initializer, h2h_bias_initializer, activation, prefix, params,
                                 conv_layout)
    __init__.__doc__ = doc
    __init__.__qualname__ = name + '.__init__'
    return __init__


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman cell: ``activation(i2h(x) + h2h(h))``, one state."""
    __init__ = _conv_cell('ConvRNNCell', 'ConvRNN_', 'See ``BaseConvRNNCell``; prefix defaults to ``ConvRNN_``.')
    _gate_names = ('',)
    _num_states = 1

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM cell (gates i, f, c, o sliced along the layout's channel axis); ``activation`` is used
    for the candidate and the output (MXNet's default: LeakyReLU, slope 0.2, not tanh)."""
    __init__ = _conv_cell('ConvLSTMCell', 'ConvLSTM_', 'See ``BaseConvRNNCell``; prefix defaults to ``ConvLSTM_``.')
    _gate_names = ('_i', '_f', '_c', '_o')

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h, next_c = self._lstm_update(i2h + h2h, states[1], name, self._activation,
                                           axis=self._conv_layout.find('C'))
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU cell (gates r, z, o). As in MXNet, the gates are sliced along axis 1 whatever
    ``conv_layout`` says, so only channel-first layouts give a true GRU."""
    __init__ = _conv_cell('ConvGRUCell', 'ConvGRU_', 'See ``BaseConvRNNCell``; prefix defaults to ``ConvGRU_``.')
    _gate_names = ('_r', '_z', '_o')
    _num_states = 1

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h = self._gru_update(name, i2h, h2h, states[0], self._activation)
        return next_h, [next_h]
