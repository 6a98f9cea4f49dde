"""``mx.rnn`` symbolic RNN cells (the legacy API used by bucketing scripts).

Each cell builds an ``mx.sym`` graph step by step with MXNet's parameter names (``<prefix>i2h_weight`` ...) and
node names (``<prefix>t<step>_i2h`` ...), so ``list_arguments()`` and the JSON match MXNet for the same code.

Differs from MXNet: ``FusedRNNCell``, ``BidirectionalCell``, ``ZoneoutCell``, ``ResidualCell``, ``ModifierCell`` and
the convolutional cells are not implemented (see ``mx.rnn.__getattr__``); failed preconditions raise
``MXNetAssertionError`` (an ``AssertionError``) rather than a bare ``AssertionError``.
"""
import functools
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
    t_axis = layout.find('T')
    if not isinstance(inputs, symbol.Symbol):
        # a list of per-step symbols: stacked along T on request, else passed on as is
        _check(length is None or len(inputs) == length,
               'unroll: got %d inputs for length %s' % (len(inputs), length))
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(x, axis=t_axis) for x in inputs], dim=t_axis)
        return inputs, t_axis
    src_axis = t_axis if in_layout is None else in_layout.find('T')
    if merge is False:
        _check(len(inputs.list_outputs()) == 1,
               'unroll does not take a grouped symbol as input: pass list(inputs) or one symbol to split')
        return list(symbol.split(inputs, axis=src_axis, num_outputs=length, squeeze_axis=1)), t_axis
    if src_axis != t_axis:
        inputs = symbol.swapaxes(inputs, dim0=t_axis, dim1=src_axis)
    return inputs, t_axis


class RNNParams(object):
    """Shares ``mx.sym.Variable`` parameters between cells; every name gets this container's prefix."""

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, created (with ``kwargs`` passed to ``Variable``) on first use."""
        full = self._prefix + name
        var = self._params.get(full)
        if var is None:
            var = self._params[full] = symbol.Variable(full, **kwargs)
        return var


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

    @property
    def params(self):
        """The cell's ``RNNParams`` (reading it marks them shared, as in MXNet)."""
        self._own_params = False
        return self._params

    def begin_state(self, func=symbol.zeros, **kwargs):
        """Initial states made by ``func(name='<prefix>begin_state_<n>', shape=..., __layout__=..., **kwargs)``.

        As in MXNet, each state's info is merged into ``kwargs`` and stays there for the following states."""
        _check(not self._modified, 'after applying a modifier cell (e.g. DropoutCell) call the modifier cell, '
                                   'not the base cell')
        made = []
        for info in self.state_info:
            kwargs.update(info or {})
            self._init_counter += 1
            made.append(func(name=self._prefix + 'begin_state_%d' % self._init_counter, **kwargs))
        return made

    # Subclasses provide one step (``__call__``) and ``state_info``: one dict per state with ``shape``
    # (0 = batch, unknown) and ``__layout__``. ``_gate_names`` lists the fused gates, if any.
    _gate_names = ()

    def __call__(self, inputs, states):
        raise NotImplementedError('%s does not define one step' % type(self).__name__)

    @property
    def state_info(self):
        raise NotImplementedError('%s does not describe its states' % type(self).__name__)

    @property
    def state_shape(self):
        """The ``shape`` entry of each ``state_info`` dict."""
        return [entry['shape'] for entry in self.state_info]

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
        steps = _normalize_sequence(length, inputs, layout, False)[0]
        carry = [self.begin_state() if begin_state is None else begin_state]

        def one_step(x):
            y, carry[0] = self(x, carry[0])
            return y

        per_step = [one_step(steps[t]) for t in range(length)]
        return _normalize_sequence(length, per_step, layout, merge_outputs)[0], carry[0]

    def _get_activation(self, inputs, activation, **kwargs):
        """``Activation(act_type=activation)`` for a string, else ``activation(inputs, **kwargs)``."""
        fn = (lambda x, **kw: symbol.Activation(x, act_type=activation, **kw)) if isinstance(activation, str) \
            else activation
        return fn(inputs, **kwargs)

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
        step = self._step_name()
        fc = self._fc_pair(inputs, states[0], self._num_hidden * 3, step, sep='_')
        # x_parts / h_parts: the (reset, update, candidate) thirds of the two projections
        x_parts, h_parts = (symbol.SliceChannel(out, num_outputs=3, name='%s_%s_slice' % (step, tag))
                            for out, tag in zip(fc, ('i2h', 'h2h')))
        r, z = [symbol.Activation(x_parts[k] + h_parts[k], act_type='sigmoid', name='%s_%s_act' % (step, g))
                for k, g in enumerate('rz')]
        cand = symbol.Activation(x_parts[2] + r * h_parts[2], act_type='tanh', name='%s_h_act' % step)
        new_h = symbol._internal._plus((1. - z) * cand, z * states[0], name='%sout' % step)
        return new_h, [new_h]


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells; each one's output is the next one's input, states are concatenated in order."""

    def __init__(self, params=None):
        super(SequentialRNNCell, self).__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell``; its parameters join this stack's ``RNNParams`` (and vice versa when given)."""
        mine = self.params._params
        if self._override_cell_params:
            _check(cell._own_params, 'give params to SequentialRNNCell or to its cells, not both')
            cell.params._params.update(mine)
        mine.update(cell.params._params)
        self._cells.append(cell)

    def _chain(self, method, args):
        # thread ``args`` through ``method`` of every child cell, first to last
        return functools.reduce(lambda acc, cell: getattr(cell, method)(acc), self._cells, args)

    def unpack_weights(self, args):
        return self._chain('unpack_weights', args)

    def pack_weights(self, args):
        return self._chain('pack_weights', args)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        _check(not self._modified, 'after applying a modifier cell call the modifier cell, not the base cell')
        return [s for cell in self._cells for s in cell.begin_state(**kwargs)]

    @property
    def state_info(self):
        return [info for cell in self._cells for info in cell.state_info]

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
        if not isinstance(dropout, (numbers.Number, np.generic)):
            raise MXNetAssertionError('DropoutCell: dropout probability must be a number, got %r' % (dropout,))
        self.dropout = dropout

    state_info = property(lambda self: [], doc='No state.')

    def __call__(self, inputs, states):
        out = symbol.Dropout(data=inputs, p=self.dropout) if self.dropout > 0 else inputs
        return out, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """A merged input is dropped out in one node; a list is stepped as usual."""
        self.reset()
        seq = _normalize_sequence(length, inputs, layout, merge_outputs)[0]
        if not isinstance(seq, symbol.Symbol):
            return super(DropoutCell, self).unroll(length, seq, begin_state=begin_state, layout=layout,
                                                   merge_outputs=merge_outputs)
        return self(seq, [])


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
