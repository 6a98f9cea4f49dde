"""``mx.rnn`` symbolic RNN cells (the legacy API used by bucketing scripts).

Each cell builds an ``mx.sym`` graph step by step with MXNet's parameter names (``<prefix>i2h_weight`` ...) and
node names (``<prefix>t<step>_i2h`` ...), so ``list_arguments()`` and the JSON match MXNet for the same code.

Differs from MXNet: ``FusedRNNCell``, ``BidirectionalCell``, ``ZoneoutCell``, ``ResidualCell``, ``ModifierCell`` and
the convolutional cells are not implemented (see ``mx.rnn.__getattr__``); failed preconditions raise
``MXNetAssertionError`` (an ``AssertionError``) rather than a bare ``AssertionError``.
"""
import numbers

import numpy as np

from .. import initializer, ndarray, symbol
from ..base import MXNetAssertionError
from ..model import load_checkpoint, save_checkpoint

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'SequentialRNNCell', 'DropoutCell',
           'save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint']


def _check(cond, msg):
    if not cond:
        raise MXNetAssertionError(msg)


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """Turn ``inputs`` into a list of per-step symbols (``merge`` False), one merged symbol (True), or leave it
    as given (None); returns it with the time axis of ``layout``."""
    _check(inputs is not None, 'unroll(inputs=None) is deprecated: create the input variables outside unroll')
    axis = layout.find('T')
    in_axis = axis if in_layout is None else in_layout.find('T')
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            _check(len(inputs.list_outputs()) == 1,
                   'unroll does not take a grouped symbol as input: pass list(inputs) or one symbol to split')
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    else:
        _check(length is None or len(inputs) == length,
               'unroll: got %d inputs for length %s' % (len(inputs), length))
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(x, axis=axis) for x in inputs], dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim0=axis, dim1=in_axis)
    return inputs, axis


class RNNParams(object):
    """Shares ``mx.sym.Variable`` parameters between cells; every name gets this container's prefix."""

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, created (with ``kwargs`` passed to ``Variable``) on first use."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell(object):
    """Base of the symbolic cells: parameters, begin states, unrolling and weight (un)packing."""

    def __init__(self, prefix='', params=None):
        self._own_params = params is None
        self._prefix = prefix
        self._params = RNNParams(prefix) if params is None else params
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (and those of child cells) before building another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, '_cells', ()):
            cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError()

    @property
    def params(self):
        """The cell's ``RNNParams`` (reading it marks them shared, as in MXNet)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: ``shape`` (0 = batch, unknown) and ``__layout__``."""
        raise NotImplementedError()

    @property
    def state_shape(self):
        return [info['shape'] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """Initial states made by ``func(name='<prefix>begin_state_<n>', shape=..., __layout__=..., **kwargs)``."""
        _check(not self._modified, 'after applying a modifier cell (e.g. DropoutCell) call the modifier cell, '
                                   'not the base cell')
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter), **kwargs))
        return states

    def _gate_param(self, group, gate, kind):
        return '%s%s%s_%s' % (self._prefix, group, gate, kind)

    def unpack_weights(self, args):
        """Split each fused ``i2h``/``h2h`` weight and bias in ``args`` into one array per gate (a new dict)."""
        args = dict(args)
        h = getattr(self, '_num_hidden', None)
        for group in ('i2h', 'h2h') if self._gate_names else ():
            weight = args.pop(self._gate_param(group, '', 'weight'))
            bias = args.pop(self._gate_param(group, '', 'bias'))
            for j, gate in enumerate(self._gate_names):
                args[self._gate_param(group, gate, 'weight')] = weight[j * h:(j + 1) * h].copy()
                args[self._gate_param(group, gate, 'bias')] = bias[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The inverse of ``unpack_weights``: concatenate the per-gate arrays back into fused ones."""
        args = dict(args)
        for group in ('i2h', 'h2h') if self._gate_names else ():
            parts = {'weight': [], 'bias': []}
            for gate in self._gate_names:
                for kind in ('weight', 'bias'):
                    parts[kind].append(args.pop(self._gate_param(group, gate, kind)))
            for kind in ('weight', 'bias'):
                args[self._gate_param(group, '', kind)] = ndarray.concatenate(parts[kind])
        return args

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Step the cell ``length`` times; returns (outputs, states), outputs merged along T when
        ``merge_outputs`` is True, a list when False, and as produced when None."""
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for step in range(length):
            out, states = self(inputs[step], states)
            outputs.append(out)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``Activation(act_type=activation)`` for a string, else ``activation(inputs, **kwargs)``."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)

    def _step_name(self):
        self._counter += 1
        return '%st%d_' % (self._prefix, self._counter)

    def _fc_pair(self, inputs, state, num_hidden, name, sep=''):
        """The input-to-hidden and hidden-to-hidden FullyConnected nodes of one step."""
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=num_hidden,
                                    name='%s%si2h' % (name, sep))
        h2h = symbol.FullyConnected(data=state, weight=self._hW, bias=self._hB, num_hidden=num_hidden,
                                    name='%s%sh2h' % (name, sep))
        return i2h, h2h


class _GatedCell(BaseRNNCell):
    """A cell with ``num_hidden`` units and the four ``i2h``/``h2h`` weight and bias variables."""

    def __init__(self, num_hidden, prefix, params, i2h_bias_init=None):
        super(_GatedCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._hW = self.params.get('h2h_weight')
        self._iB = (self.params.get('i2h_bias') if i2h_bias_init is None
                    else self.params.get('i2h_bias', init=i2h_bias_init))
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'} for _ in range(self._num_states)]

    _num_states = 1


class RNNCell(_GatedCell):
    """Elman RNN cell: ``act(i2h(x) + h2h(h))``; ``activation`` is an ``act_type`` string or a callable."""

    def __init__(self, num_hidden, activation='tanh', prefix='rnn_', params=None):
        super(RNNCell, self).__init__(num_hidden, prefix, params)
        self._activation = activation

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._fc_pair(inputs, states[0], self._num_hidden, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM cell (gates i, f, c, o); ``forget_bias`` goes into the ``i2h_bias`` initializer (``LSTMBias``)."""
    _num_states = 2

    def __init__(self, num_hidden, prefix='lstm_', params=None, forget_bias=1.0):
        super(LSTMCell, self).__init__(num_hidden, prefix, params,
                                       i2h_bias_init=initializer.LSTMBias(forget_bias=forget_bias))

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._fc_pair(inputs, states[0], self._num_hidden * 4, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name='%sslice' % name)
        act = [symbol.Activation(gates[k], act_type=t, name=name + g)
               for k, (t, g) in enumerate((('sigmoid', 'i'), ('sigmoid', 'f'), ('tanh', 'c'), ('sigmoid', 'o')))]
        in_gate, forget_gate, in_transform, out_gate = act
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * in_transform, name='%sstate' % name)
        next_h = symbol._internal._mul(out_gate, symbol.Activation(next_c, act_type='tanh'), name='%sout' % name)
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU cell in the cuDNN form (reset gate applied after ``h2h``), gates r, z, o."""

    def __init__(self, num_hidden, prefix='gru_', params=None):
        super(GRUCell, self).__init__(num_hidden, prefix, params)

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        name = self._step_name()
        prev_h = states[0]
        i2h, h2h = self._fc_pair(inputs, prev_h, self._num_hidden * 3, name, sep='_')
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name='%s_i2h_slice' % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name='%s_h2h_slice' % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name)
        candidate = symbol.Activation(i2h + reset_gate * h2h, act_type='tanh', name='%s_h_act' % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h, name='%sout' % name)
        return next_h, [next_h]


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells; each one's output is the next one's input, states are concatenated in order."""

    def __init__(self, params=None):
        super(SequentialRNNCell, self).__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell``; its parameters join this stack's ``RNNParams`` (and vice versa when given)."""
        self._cells.append(cell)
        if self._override_cell_params:
            _check(cell._own_params, 'give params to SequentialRNNCell or to its cells, not both')
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return [info for cell in self._cells for info in cell.state_info]

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        _check(not self._modified, 'after applying a modifier cell call the modifier cell, not the base cell')
        return [s for cell in self._cells for s in cell.begin_state(**kwargs)]

    def unpack_weights(self, args):
        for cell in self._cells:
            args = cell.unpack_weights(args)
        return args

    def pack_weights(self, args):
        for cell in self._cells:
            args = cell.pack_weights(args)
        return args

    def _split_states(self, states):
        start = 0
        for cell in self._cells:
            n = len(cell.state_info)
            yield cell, states[start:start + n]
            start += n

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        for cell, cell_states in self._split_states(states):
            inputs, cell_states = cell(inputs, cell_states)
            next_states.extend(cell_states)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Unroll each cell in turn over the whole sequence; only the last one sees ``merge_outputs``."""
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        last = len(self._cells) - 1
        next_states = []
        for i, (cell, states) in enumerate(self._split_states(begin_state)):
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states, layout=layout,
                                         merge_outputs=merge_outputs if i == last else None)
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Applies ``Dropout(p=dropout)`` to its input (no state); ``dropout == 0`` passes the input through."""

    def __init__(self, dropout, prefix='dropout_', params=None):
        super(DropoutCell, self).__init__(prefix, params)
        _check(isinstance(dropout, (numbers.Number, np.generic)),
               'DropoutCell: dropout probability must be a number, got %r' % (dropout,))
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """A merged input is dropped out in one node; a list is stepped as usual."""
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super(DropoutCell, self).unroll(length, inputs, begin_state=begin_state, layout=layout,
                                               merge_outputs=merge_outputs)


def _cell_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else cells


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):  # pylint: disable=redefined-outer-name
    """``mx.model.save_checkpoint`` after ``unpack_weights`` of each cell in ``cells`` (one cell or a list)."""
    for cell in _cell_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """``mx.model.load_checkpoint`` then ``pack_weights`` of each cell; returns (symbol, arg_params, aux_params)."""
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _cell_list(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback that calls ``save_rnn_checkpoint`` every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback



_NOT_PROVIDED = ('FusedRNNCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell', 'BidirectionalCell',
                 'BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell')


def _not_provided(name):
    from ..base import unsupported
    return unsupported('mx.rnn.' + name, 'this part of the symbolic RNN cell API',
                       'it is not implemented; use RNNCell/LSTMCell/GRUCell with SequentialRNNCell, or mx.gluon.rnn')


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise _not_provided(name)
    raise AttributeError("module 'mxnet.rnn.rnn_cell' has no attribute %r" % name)
