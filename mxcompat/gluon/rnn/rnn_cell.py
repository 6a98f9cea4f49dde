"""Gluon recurrent cells: one time step per call, ``unroll`` for whole sequences.

Parameter names (``i2h_weight`` ...), prefixes (``rnn0_``, ``lstm0_``, ``gru0_``), per-step symbol names (``t0_out``)
and gate orders (LSTM: input, forget, cell, output; GRU: reset, update, new) are MXNet's. Differs from MXNet: when
``unroll`` builds the default begin states on Symbols it derives them from the inputs (zeros with the input's batch
size) instead of ``sym.zeros`` with an unknown (0) batch dimension, so the graph needs no shape inference for them;
``begin_state`` with an ``mx.nd`` creation function drops the ``name``/``__layout__`` keywords MXNet passes on.
``VariationalDropoutCell`` (in MXNet's ``gluon.contrib.rnn``) is defined here too, outside ``__all__``.
"""
from numbers import Number

from ... import ndarray, symbol
from ...base import MXNetAssertionError, MXNetNotImplementedError, _as_list
from ...ndarray.ndarray import NDArray
from ...symbol import Symbol
from ..block import Block, HybridBlock
from ..parameter import _indent
from .._npf import NP_F, is_eager, is_np

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'SequentialRNNCell',
           'HybridSequentialRNNCell', 'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'BidirectionalCell']

_TENSORS = (Symbol, NDArray)


def _require(cond, msg):
    if not cond:
        raise MXNetAssertionError(msg)


# ---- sequences: a merged tensor (layout 'NTC'/'TNC') or a list of (N, C) steps --------------------------------------
def _namespace(seq):
    first = seq if isinstance(seq, _TENSORS) else seq[0]
    if isinstance(first, Symbol):
        return symbol
    return NP_F if is_np(first) else ndarray


def _format_sequence(length, inputs, layout, merge):
    """(inputs as steps or as one tensor, time axis, F, batch size (0 for Symbols)).

    ``merge``: True -> one tensor in ``layout``; False -> list of steps; None -> leave as given."""
    _require(inputs is not None, 'unroll(inputs=None) has been deprecated. Please create input variables outside '
                                 'unroll.')
    t_axis = layout.find('T')
    F = _namespace(inputs)
    whole = isinstance(inputs, _TENSORS)
    if F is symbol:
        batch = 0
    else:
        batch = inputs.shape[layout.find('N')] if whole else inputs[0].shape[0]
    if whole and merge is False:
        if F is symbol:
            _require(len(inputs.list_outputs()) == 1, "unroll doesn't allow grouped symbol as input. Please convert "
                     'to list with list(inputs) first or let unroll handle splitting.')
            pieces = F.split(inputs, axis=t_axis, num_outputs=length, squeeze_axis=1)
            return list(pieces), t_axis, F, batch
        steps = inputs.shape[t_axis]
        _require(length is None or length == steps, 'unroll: length %s does not match the %d steps of the input'
                 % (length, steps))
        return _as_list(F.split(inputs, axis=t_axis, num_outputs=steps, squeeze_axis=1)), t_axis, F, batch
    if not whole:
        _require(length is None or len(inputs) == length,
                 'unroll: length %s does not match the %d inputs given' % (length, len(inputs)))
        if merge is True:
            return F.stack(*inputs, axis=t_axis), t_axis, F, batch
    return inputs, t_axis, F, batch


def _zeros_from(F, batch_ref, shape, batch_axis):
    """Zeros of ``shape`` (its ``batch_axis`` entry unknown) built from a (N, 1) ``batch_ref``."""
    rank = len(shape)
    lead = (1,) * batch_axis + (-1,) + (1,) * (rank - batch_axis - 1)
    others = [a for a in range(rank) if a != batch_axis]
    out = F.reshape(batch_ref, shape=lead)
    if not others:
        return out
    return F.broadcast_axis(out, axis=tuple(others), size=tuple(shape[a] for a in others))


def _default_states(cell, F, given, steps, batch, t_axis):
    """``given`` or zeros for every state of ``cell``."""
    if given is not None:
        return given
    if is_eager(F):
        with (steps if isinstance(steps, NDArray) else steps[0]).context:
            return cell.begin_state(func=F.zeros, batch_size=batch)
    # zeros of unknown batch size, completed by shape inference (as in MXNet)
    return cell.begin_state(func=F.zeros, batch_size=0)


def _stack_if_list(F, seq, axis):
    return seq if isinstance(seq, _TENSORS) else F.stack(*seq, axis=axis)


def _mask_padded(F, seq, length, valid_length, t_axis, merge):
    """Zero the steps past each sequence's valid length."""
    masked = F.SequenceMask(_stack_if_list(F, seq, t_axis), sequence_length=valid_length, use_sequence_length=True,
                            axis=t_axis)
    if merge:
        return masked
    return _as_list(F.split(masked, num_outputs=length, axis=t_axis, squeeze_axis=True))


def _reverse_steps(steps, length, valid_length=None):
    """Steps in reverse order (per sequence, only its valid part, when ``valid_length`` is given)."""
    if valid_length is None:
        return steps[::-1]
    F = _namespace(steps)
    flipped = F.SequenceReverse(F.stack(*steps, axis=0), sequence_length=valid_length, use_sequence_length=True)
    if is_eager(F) and length == 1:
        return [flipped[0]]
    return list(F.split(flipped, axis=0, num_outputs=length, squeeze_axis=True))


def _state_info_of(cells, batch_size):
    return [info for c in cells for info in c.state_info(batch_size)]


def _begin_state_of(cells, **kwargs):
    return [s for c in cells for s in c.begin_state(**kwargs)]


def _make_state(func, name, info):
    module = getattr(func, '__module__', '') or ''
    if module.startswith('mxcompat.ndarray'):
        info = {k: v for k, v in info.items() if k != '__layout__'}
        return func(**info)
    return func(name=name, **info)


_ACTIVATIONS = ('tanh', 'relu', 'sigmoid', 'softsign')


class RecurrentCell(Block):
    """Base class of recurrent cells: ``cell(inputs, states) -> (output, new states)`` for one step."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counters (before a new sequence); also the children's."""
        self._init_counter = -1
        self._counter = -1
        for child in self._children.values():
            child.reset()

    def state_info(self, batch_size=0):
        """[{'shape': ..., '__layout__': ...}] for each state."""
        raise NotImplementedError()

    def _check_unmodified(self):
        _require(not self._modified, 'After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be '
                                     'called directly. Call the modifier cell instead.')

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by ``func`` (``mx.nd.zeros``, ``mx.sym.var`` ...) from ``state_info`` and ``kwargs``."""
        self._check_unmodified()
        made = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            spec = dict(info or {})
            spec.update(kwargs)
            made.append(_make_state(func, '%sbegin_state_%d' % (self._prefix, self._init_counter), spec))
        return made

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        """Run ``length`` steps: (outputs, final states); outputs merged into one tensor or a list of steps."""
        self.reset()
        steps, t_axis, F, batch = _format_sequence(length, inputs, layout, False)
        states = _default_states(self, F, begin_state, steps, batch, t_axis)
        outputs, history = [], []
        for step in range(length):
            out, states = self(steps[step], states)
            outputs.append(out)
            history.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*per_step, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0) for per_step in zip(*history)]
            outputs = _mask_padded(F, outputs, length, valid_length, t_axis, True)
        return _format_sequence(length, outputs, layout, merge_outputs)[0], states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """Apply ``activation``: a name, a LeakyReLU block or any callable."""
        if activation in _ACTIVATIONS:
            return getattr(F, activation)(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if type(activation).__name__ == 'LeakyReLU' and hasattr(activation, '_alpha'):
            return F.LeakyReLU(inputs, act_type='leaky', slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step (counts the steps for the per-step symbol names)."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell whose step is a ``hybrid_forward`` (can be hybridized)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


# ---- the three gated cells: one class, the gate combination chosen by a table --------------------------------------
def _rnn_step(cell, F, i2h, h2h, states, tag):
    summed = F.elemwise_add(i2h, h2h, name=tag + 'plus0')
    out = cell._get_activation(F, summed, cell._activation, name=tag + 'out')
    return out, [out]


def _lstm_step(cell, F, i2h, h2h, states, tag):
    gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=tag + 'plus0'), num_outputs=4, name=tag + 'slice')
    acts = (cell._recurrent_activation, cell._recurrent_activation, cell._activation, cell._recurrent_activation)
    i, f, c, o = (cell._get_activation(F, gates[k], act, name=tag + letter)
                  for k, (act, letter) in enumerate(zip(acts, 'ifco')))
    cell_state = F.elemwise_add(F.elemwise_mul(f, states[1], name=tag + 'mul0'),
                                F.elemwise_mul(i, c, name=tag + 'mul1'), name=tag + 'state')
    hidden = F.elemwise_mul(o, F.Activation(cell_state, act_type=cell._activation, name=tag + 'activation0'),
                            name=tag + 'out')
    return hidden, [hidden, cell_state]


def _gru_step(cell, F, i2h, h2h, states, tag):
    x_r, x_z, x_n = F.SliceChannel(i2h, num_outputs=3, name=tag + 'i2h_slice')
    h_r, h_z, h_n = F.SliceChannel(h2h, num_outputs=3, name=tag + 'h2h_slice')
    reset = F.Activation(F.elemwise_add(x_r, h_r, name=tag + 'plus0'), act_type='sigmoid', name=tag + 'r_act')
    update = F.Activation(F.elemwise_add(x_z, h_z, name=tag + 'plus1'), act_type='sigmoid', name=tag + 'z_act')
    candidate = F.Activation(F.elemwise_add(x_n, F.elemwise_mul(reset, h_n, name=tag + 'mul0'), name=tag + 'plus2'),
                             act_type='tanh', name=tag + 'h_act')
    keep_new = F.elemwise_sub(F.ones_like(update, name=tag + 'ones_like0'), update, name=tag + 'minus0')
    hidden = F.elemwise_add(F.elemwise_mul(keep_new, candidate, name=tag + 'mul1'),
                            F.elemwise_mul(update, states[0], name=tag + 'mul20'), name=tag + 'out')
    return hidden, [hidden]


# kind -> (gates per hidden unit, number of states, step function)
_CELL_KINDS = {'rnn': (1, 1, _rnn_step), 'lstm': (4, 2, _lstm_step), 'gru': (3, 1, _gru_step)}


class _GatedCell(HybridRecurrentCell):
    """Shared body of RNNCell/LSTMCell/GRUCell: i2h and h2h projections, then the kind's gate combination."""

    _kind = None

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        gates = _CELL_KINDS[self._kind][0] * hidden_size
        self._hidden_size = hidden_size
        self._input_size = input_size
        specs = (('i2h_weight', (gates, input_size), i2h_weight_initializer),
                 ('h2h_weight', (gates, hidden_size), h2h_weight_initializer),
                 ('i2h_bias', (gates,), i2h_bias_initializer),
                 ('h2h_bias', (gates,), h2h_bias_initializer))
        for name, shape, init in specs:
            setattr(self, name, self.params.get(name, shape=shape, init=init, allow_deferred_init=True))

    def _alias(self):
        return self._kind

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}] * _CELL_KINDS[self._kind][1]

    def _mapping(self):
        rows, cols = self.i2h_weight.shape
        return '{} -> {}'.format(cols if cols else None, rows)

    def __repr__(self):
        return '{}({})'.format(type(self).__name__, self._mapping())

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        tag = 't%d_' % self._counter
        width = _CELL_KINDS[self._kind][0] * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=width, name=tag + 'i2h')
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=width, name=tag + 'h2h')
        return _CELL_KINDS[self._kind][2](self, F, i2h, h2h, states, tag)


class RNNCell(_GatedCell):
    """Elman cell ``h' = activation(W_i x + b_i + W_h h + b_h)`` (prefix ``rnn0_``)."""

    _kind = 'rnn'

    def __init__(self, hidden_size, activation='tanh', i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def __repr__(self):
        return '{}({}, {})'.format(type(self).__name__, self._mapping(), self._activation)


class LSTMCell(_GatedCell):
    """LSTM cell, gates in MXNet's order input, forget, cell, output (prefix ``lstm0_``); states [h, c]."""

    _kind = 'lstm'

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0, prefix=None, params=None,
                 activation='tanh', recurrent_activation='sigmoid'):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation


class GRUCell(_GatedCell):
    """GRU cell (cuDNN variant: the reset gate scales the h2h product incl. its bias), prefix ``gru0_``."""

    _kind = 'gru'

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)


# ---- containers ---------------------------------------------------------------------------------------------------
class _CellStack:
    """Cells run one after the other on each step; states are the concatenation of the cells' states."""

    def __repr__(self):
        body = '\n'.join('({}): {}'.format(k, _indent(repr(c), 2)) for k, c in self._children.items())
        return '{}(\n{}\n)'.format(type(self).__name__, body)

    def add(self, cell):
        """Append a cell."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _state_info_of(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        self._check_unmodified()
        return _begin_state_of(self._children.values(), **kwargs)

    def _split_states(self, states):
        pos = 0
        for cell in self._children.values():
            width = len(cell.state_info())
            yield cell, states[pos:pos + width]
            pos += width

    def __call__(self, inputs, states):
        self._counter += 1
        _require(not any(isinstance(c, BidirectionalCell) for c in self._children.values()),
                 'a sequential cell holding a BidirectionalCell cannot be stepped; use unroll')
        collected = []
        for cell, own in list(self._split_states(states)):
            inputs, own = cell(inputs, own)
            collected.extend(own)
        return inputs, collected

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        self.reset()
        seq, t_axis, F, batch = _format_sequence(length, inputs, layout, None)
        begin = _default_states(self, F, begin_state, seq, batch, t_axis)
        last = len(self._children) - 1
        finals = []
        for idx, (cell, own) in enumerate(list(self._split_states(begin))):
            seq, own = cell.unroll(length, inputs=seq, begin_state=own, layout=layout,
                                   merge_outputs=merge_outputs if idx == last else None, valid_length=valid_length)
            finals.extend(own)
        return seq, finals

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_CellStack, RecurrentCell):
    """A stack of recurrent cells (imperative container)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_CellStack, HybridRecurrentCell):
    """A stack of hybrid recurrent cells (may sit inside a HybridBlock)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the step input (no states); ``axes`` share the mask along them."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        _require(isinstance(rate, Number), 'rate must be a number')
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return '{}(rate={}, axes={})'.format(type(self).__name__, self._rate, self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name='t%d_fwd' % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        self.reset()
        seq, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(seq, _TENSORS):
            return self.hybrid_forward(F, seq, begin_state or [])
        return super().unroll(length, seq, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs,
                              valid_length=None)


def _require_steppable(base_cell, feature, wrapper):
    """Per-step modifiers cannot wrap a BidirectionalCell, alone or inside a stack (it has no single step)."""
    for kind, bad in (('BidirectionalCell', isinstance(base_cell, BidirectionalCell)),
                      ('Bidirectional SequentialRNNCell', isinstance(base_cell, _CellStack) and any(
                          isinstance(c, BidirectionalCell) for c in base_cell._children.values()))):
        _require(not bad, "%s doesn't support %s. Please add %s to the cells underneath instead."
                 % (kind, feature, wrapper))


class ModifierCell(HybridRecurrentCell):
    """Base of cells that wrap another cell (``base_cell``) and change its step; shares its parameters."""

    def __init__(self, base_cell):
        _require(not base_cell._modified, 'Cell %s is already modified. One cell cannot be modified twice'
                 % base_cell.name)
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        self._check_unmodified()
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return '{}({})'.format(type(self).__name__, self.base_cell)


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each output/state unit keeps its previous value with probability p."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        _require_steppable(base_cell, 'zoneout', 'ZoneoutCell')
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return '{}(p_out={}, p_state={}, {})'.format(type(self).__name__, self.zoneout_outputs,
                                                      self.zoneout_states, self.base_cell)

    def _alias(self):
        return 'zoneout'

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        new_out, new_states = self.base_cell(inputs, states)
        out, kept = zoneout_step(F, new_out, new_states, self._prev_output, states, self.zoneout_outputs,
                                 self.zoneout_states)
        self._prev_output = out
        return out, kept


def zoneout_step(F, new_out, new_states, prev_out, states, p_outputs, p_states):
    """One zoneout step (also mx.rnn.ZoneoutCell's): each unit of the new output/states is kept where a
    ``Dropout(ones, p)`` mask is non-zero, else the previous value (zeros before the first output)."""
    def zone(p, new, old):
        if p == 0.:
            return new
        return F.where(F.Dropout(F.ones_like(new), p=p), new, old)

    old_out = prev_out if prev_out is not None else F.zeros_like(new_out)
    return zone(p_outputs, new_out, old_out), [zone(p_states, n, o) for n, o in zip(new_states, states)]


class ResidualCell(ModifierCell):
    """Adds the step input to the base cell's output."""

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        out, states = self.base_cell(inputs, states)
        return F.elemwise_add(out, inputs, name='t%d_fwd' % self._counter), states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs, valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        seq, t_axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            seq = _mask_padded(F, seq, length, valid_length, t_axis, merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, seq), states
        return [F.elemwise_add(o, x) for o, x in zip(outputs, seq)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence and concatenates their outputs; only
    ``unroll`` (no stepping)."""

    def __init__(self, l_cell, r_cell, output_prefix='bi_'):
        super().__init__(prefix='', params=None)
        self.register_child(l_cell, 'l_cell')
        self.register_child(r_cell, 'r_cell')
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise MXNetNotImplementedError('Bidirectional cannot be stepped. Please use unroll')

    def __repr__(self):
        return '{}(forward={}, backward={})'.format(type(self).__name__, self._children['l_cell'],
                                                    self._children['r_cell'])

    def state_info(self, batch_size=0):
        return _state_info_of(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        self._check_unmodified()
        return _begin_state_of(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        self.reset()
        steps, t_axis, F, batch = _format_sequence(length, inputs, layout, False)
        begin = _default_states(self, F, begin_state, steps, batch, t_axis)
        fwd, bwd = self._children['l_cell'], self._children['r_cell']
        n_fwd = len(fwd.state_info(batch))
        f_out, f_states = fwd.unroll(length, inputs=steps, begin_state=begin[:n_fwd], layout=layout,
                                     merge_outputs=merge_outputs, valid_length=valid_length)
        b_out, b_states = bwd.unroll(length, inputs=_reverse_steps(steps, length, valid_length),
                                     begin_state=begin[n_fwd:], layout=layout, merge_outputs=False,
                                     valid_length=valid_length)
        b_out = _reverse_steps(b_out, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(f_out, _TENSORS)
            f_out = _format_sequence(None, f_out, layout, merge_outputs)[0]
        if merge_outputs:
            outputs = F.concat(f_out, _stack_if_list(F, b_out, t_axis), dim=2, name='%sout' % self._output_prefix)
        else:
            outputs = [F.concat(a, b, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (a, b) in enumerate(zip(f_out, b_out))]
        if valid_length is not None:
            outputs = _mask_padded(F, outputs, length, valid_length, t_axis, merge_outputs)
        return outputs, f_states + b_states


class VariationalDropoutCell(ModifierCell):
    """Variational dropout: one mask per sequence (not per step) for the inputs, the first state and the outputs.
    MXNet 1.9.1 has it in ``gluon.contrib.rnn`` only; it lives here for that module to re-export."""

    _MASKED = ('inputs', 'states', 'outputs')

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states:
            _require_steppable(base_cell, 'variational state dropout', 'VariationalDropoutCell')
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs

    def _alias(self):
        return 'vardrop'

    def reset(self):
        super().reset()
        for which in self._MASKED:
            setattr(self, 'drop_%s_mask' % which, None)

    def _masked(self, F, which, value):
        """``value`` times this sequence's mask for ``which`` (made on first use)."""
        attr = 'drop_%s_mask' % which
        if getattr(self, attr) is None:
            setattr(self, attr, F.Dropout(F.ones_like(value), p=getattr(self, 'drop_' + which)))
        return value * getattr(self, attr)

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states:
            states = [self._masked(F, 'states', states[0])] + list(states[1:])
        if self.drop_inputs:
            inputs = self._masked(F, 'inputs', inputs)
        out, new_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            out = self._masked(F, 'outputs', out)
        return out, new_states

    def __repr__(self):
        return '{}(p_out = {}, p_state = {})'.format(type(self).__name__, self.drop_outputs, self.drop_states)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        if self.drop_states:  # the state mask needs the step-by-step path
            return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length=valid_length)
        # without state dropout the masks are dropout shared along the time axis, on whole sequences
        self.reset()
        seq, t_axis, F, batch = _format_sequence(length, inputs, layout, True)
        states = _default_states(self, F, begin_state, seq, batch, t_axis)
        if self.drop_inputs:
            seq = F.Dropout(seq, p=self.drop_inputs, axes=(t_axis,))
        outputs, states = self.base_cell.unroll(length, seq, states, layout, merge_outputs=True,
                                                valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(t_axis,))
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        outputs = _format_sequence(length, outputs, layout, merge_outputs)[0]
        if valid_length is not None:
            outputs = _mask_padded(F, outputs, length, valid_length, t_axis, merge_outputs)
        return outputs, states
