"""``gluon.contrib.rnn`` cells: VariationalDropoutCell, LSTMPCell, and ``dynamic_unroll``.

``VariationalDropoutCell`` is the one defined in ``gluon.rnn.rnn_cell`` (re-exported). ``dynamic_unroll`` on
NDArrays is a Python loop over the steps (MXNet's results); on Symbols it builds MXNet's ``contrib.foreach`` graph.
"""
from .... import ndarray, symbol
from ...rnn.rnn_cell import HybridRecurrentCell, VariationalDropoutCell

__all__ = ['VariationalDropoutCell', 'LSTMPCell']


def _lstm_gates(cell, F, gates, c_prev, tag, activation, axis=1):
    """LSTM update from the summed gate pre-activations (order i, f, c, o along ``axis``): (hidden, new cell).
    ``activation`` squashes the candidate and the cell state; the three gates are sigmoids."""
    pre_i, pre_f, pre_c, pre_o = F.SliceChannel(gates, num_outputs=4, axis=axis, name=tag + 'slice')
    in_gate = F.Activation(pre_i, act_type='sigmoid', name=tag + 'i')
    forget_gate = F.Activation(pre_f, act_type='sigmoid', name=tag + 'f')
    candidate = cell._get_activation(F, pre_c, activation, name=tag + 'c')
    out_gate = F.Activation(pre_o, act_type='sigmoid', name=tag + 'o')
    new_c = F.elemwise_add(forget_gate * c_prev, in_gate * candidate, name=tag + 'state')
    return out_gate, new_c


class LSTMPCell(HybridRecurrentCell):
    """LSTM cell whose hidden state is projected to ``projection_size`` (``h2r_weight``, no bias) before it is
    output and fed back; states are [projection (N, projection_size), cell (N, hidden_size)]. Prefix ``lstmp0_``."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        width = 4 * hidden_size
        for name, shape, init in (('i2h_weight', (width, input_size), i2h_weight_initializer),
                                  ('h2h_weight', (width, projection_size), h2h_weight_initializer),
                                  ('h2r_weight', (projection_size, hidden_size), h2r_weight_initializer),
                                  ('i2h_bias', (width,), i2h_bias_initializer),
                                  ('h2h_bias', (width,), h2h_bias_initializer)):
            setattr(self, name, self.params.get(name, shape=shape, init=init, allow_deferred_init=True))

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._projection_size), '__layout__': 'NC'},
                {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def _alias(self):
        return 'lstmp'

    def __repr__(self):
        rows, cols = self.i2h_weight.shape
        return '{}({} -> {} -> {})'.format(type(self).__name__, cols if cols else None, rows,
                                           self.h2r_weight.shape[0])

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        tag = 't%d_' % self._counter
        width = 4 * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=width, name=tag + 'i2h')
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=width,
                               name=tag + 'h2h')
        out_gate, new_c = _lstm_gates(self, F, i2h + h2h, states[1], tag, 'tanh')
        hidden = F.elemwise_mul(out_gate, F.Activation(new_c, act_type='tanh'), name=tag + 'hidden')
        proj = F.FullyConnected(data=hidden, weight=h2r_weight, num_hidden=self._projection_size, no_bias=True,
                                name=tag + 'out')
        return proj, [proj, new_c]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout='TNC', valid_length=None):
    """Run ``cell`` over the time axis of ``inputs``: (outputs merged in ``layout``, final states).

    With ``valid_length`` (N,), each sequence keeps its state from its last valid step and its outputs past it are
    zero. ``drop_inputs``/``drop_outputs``: dropout rates with one mask shared over time. On NDArrays this is a
    Python loop over the steps; on Symbols (hybridized blocks) it is MXNet's graph: one ``contrib.foreach`` over
    the time-major sequence."""
    if isinstance(inputs, symbol.Symbol):
        return _dynamic_unroll_symbol(cell, inputs, begin_state, drop_inputs, drop_outputs, layout, valid_length)
    F = ndarray
    t_axis = layout.find('T')
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(t_axis,))
    states = list(begin_state) if isinstance(begin_state, (list, tuple)) else [begin_state]
    outputs = []
    for t in range(inputs.shape[t_axis]):
        out, new_states = cell(F.take(inputs, F.array([t], ctx=inputs.context), axis=t_axis).squeeze(axis=t_axis),
                               states)
        if valid_length is not None:
            alive = valid_length > t
            new_states = [F.where(alive, new, old) for new, old in zip(new_states, states)]
        outputs.append(out)
        states = list(new_states)
    outputs = F.stack(*outputs, axis=t_axis)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(t_axis,))
    if valid_length is not None:
        outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=t_axis)
    return outputs, states


def _dynamic_unroll_symbol(cell, inputs, begin_state, drop_inputs, drop_outputs, layout, valid_length):
    F = symbol
    axis = layout.find('T')
    axes = list(range(len(layout)))
    axes[0], axes[axis] = axes[axis], axes[0]
    if axis:
        inputs = F.transpose(inputs, axes=axes)
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    states = list(begin_state) if isinstance(begin_state, (list, tuple)) else [begin_state]
    if valid_length is None:
        body = cell
    else:
        states.append(F.zeros(1))  # the step number, a loop state (MXNet's graph: shape='1', one test per state)

        def body(x, loop_states):
            step = loop_states[-1]
            out, new_states = cell(x, loop_states[:-1])
            new_states = [F.where(F.broadcast_greater(valid_length, step), new, old)
                          for new, old in zip(new_states, loop_states[:-1])]
            return out, new_states + [step + 1]
    outputs, states = F.contrib.foreach(body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
    return outputs, states[:-1]
