"""``mx.rnn`` symbolic RNN cells (the legacy API used by bucketing scripts).

Each cell builds an ``mx.sym`` graph step by step with MXNet's parameter names (``<prefix>i2h_weight`` ...) and
node names (``<prefix>t<step>_i2h`` ...), so ``list_arguments()`` and the JSON match MXNet for the same code.

Differs from MXNet: failed preconditions raise ``MXNetAssertionError`` (an ``AssertionError``) rather than a bare
``AssertionError``; ``ZoneoutCell`` refuses a ``SequentialRNNCell`` holding a ``BidirectionalCell`` (MXNet's check
of it fails with an ``AttributeError`` on any ``SequentialRNNCell``) and its first step's previous output is
``zeros_like`` the output (MXNet: ``zeros((0, 0))`` left to shape inference).
"""
import functools
import numbers
import warnings

import numpy as np
import torch

from .. import initializer, ndarray, symbol
from ..base import MXNetAssertionError
from .._checkpoint import load_checkpoint, save_checkpoint
from ..ndarray.ndarray import _wrap
from ..gluon.rnn.rnn_cell import zoneout_step

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'FusedRNNCell', 'SequentialRNNCell',
           'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell', 'BidirectionalCell',
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

    def _lstm_update(self, gates, prev_c, name, activation='tanh', axis=None):
        """The LSTM step after the projections: ``gates`` (their sum) split into i, f, c, o (along ``axis``; the
        operator's default when None), ``activation`` for the candidate and the cell output; returns (h, c)."""
        parts = symbol.SliceChannel(gates, num_outputs=4, name='%sslice' % name,
                                    **({} if axis is None else {'axis': axis}))
        in_gate = symbol.Activation(parts[0], act_type='sigmoid', name='%si' % name)
        forget_gate = symbol.Activation(parts[1], act_type='sigmoid', name='%sf' % name)
        in_transform = self._get_activation(parts[2], activation, name='%sc' % name)
        out_gate = symbol.Activation(parts[3], act_type='sigmoid', name='%so' % name)
        next_c = symbol._internal._plus(forget_gate * prev_c, in_gate * in_transform, name='%sstate' % name)
        next_h = symbol._internal._mul(out_gate, self._get_activation(next_c, activation), name='%sout' % name)
        return next_h, next_c

    def _gru_update(self, step, i2h, h2h, prev_h, activation='tanh'):
        """The GRU step after the projections (cuDNN form: the reset gate scales ``h2h``'s candidate third);
        ``activation`` for the candidate; returns the new state."""
        # x_parts / h_parts: the (reset, update, candidate) thirds of the two projections
        x_parts, h_parts = (symbol.SliceChannel(out, num_outputs=3, name='%s_%s_slice' % (step, tag))
                            for out, tag in ((i2h, 'i2h'), (h2h, 'h2h')))
        r, z = [symbol.Activation(x_parts[k] + h_parts[k], act_type='sigmoid', name='%s_%s_act' % (step, g))
                for k, g in enumerate('rz')]
        cand = self._get_activation(x_parts[2] + r * h_parts[2], activation, name='%s_h_act' % step)
        return symbol._internal._plus((1. - z) * cand, z * prev_h, name='%sout' % step)

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
        next_h, next_c = self._lstm_update(i2h + h2h, states[1], name)
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
        i2h, h2h = self._fc_pair(inputs, states[0], self._num_hidden * 3, step, sep='_')
        new_h = self._gru_update(step, i2h, h2h, states[0])
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


class FusedRNNCell(BaseRNNCell):
    """All layers (and both directions) of an RNN in one ``RNN`` op over one flat ``<prefix>parameters`` vector,
    initialized with ``init.FusedRNN``; only ``unroll`` is possible. Runs on CPU (MXNet: cuDNN only in name)."""

    def __init__(self, num_hidden, num_layers=1, mode='lstm', bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        super(FusedRNNCell, self).__init__(prefix='%s_' % mode if prefix is None else prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ['l', 'r'] if bidirectional else ['l']
        init = initializer.FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get('parameters', init=init)

    @property
    def state_info(self):
        shape = (len(self._directions) * self._num_layers, 0, self._num_hidden)
        return [{'shape': shape, '__layout__': 'LNC'} for _ in range(2 if self._mode == 'lstm' else 1)]

    @property
    def _gate_names(self):
        return initializer._RNN_GATES[self._mode]

    def _slices(self, t):
        """{full parameter name: view of the flat tensor ``t``} in MXNet's unpacked naming."""
        views = initializer.fused_rnn_slices(t, self._num_hidden, self._num_layers, self._mode, self._bidirectional)
        return {self._prefix + name: v for name, v in views.items()}

    def unpack_weights(self, args):
        """Replace ``<prefix>parameters`` by one array per layer, direction, i2h/h2h, gate and weight/bias."""
        args = dict(args)
        flat = args.pop(self._parameter.name)
        args.update({name: _wrap(v.clone(), flat.context) for name, v in self._slices(flat._t.detach()).items()})
        return args

    def pack_weights(self, args):
        """The inverse of ``unpack_weights``."""
        args = dict(args)
        first = args['%sl0_i2h%s_weight' % (self._prefix, self._gate_names[0])]
        b, m, h = len(self._directions), len(self._gate_names), self._num_hidden
        total = (first.shape[1] + h + 2) * h * m * b + (self._num_layers - 1) * m * h * (h + b * h + 2) * b
        flat = torch.zeros(total, dtype=first._t.dtype, device=first._t.device)
        for name, view in self._slices(flat).items():
            view.copy_(args.pop(name)._t)
        args[self._parameter.name] = _wrap(flat, first.context)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError('FusedRNNCell cannot be stepped. Please use unroll')

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """One ``RNN`` node named ``<prefix>rnn``; NTC input is swapped to TNC (with MXNet's warning)."""
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        _check(axis in (0, 1), 'FusedRNNCell: unsupported layout %s' % layout)
        if axis == 1:
            warnings.warn('NTC layout detected. Consider using TNC for FusedRNNCell for faster speed')
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        if begin_state is None:
            begin_state = self.begin_state()
        states = dict(zip(('state', 'state_cell'), begin_state))
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode, name=self._prefix + 'rnn', **states)
        outputs, states = rnn, []
        if self._get_next_state:
            outputs = rnn[0]
            states = [rnn[k] for k in range(1, len(self.state_info) + 1)]
            for state in states:
                state._set_attr(__layout__='LNC')
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        return _normalize_sequence(length, outputs, layout, merge_outputs)[0], states

    def unfuse(self):
        """The same network as a SequentialRNNCell of RNNCell/LSTMCell/GRUCell (``<prefix>l0_`` ...), which
        can be stepped; bidirectional layers become BidirectionalCells, dropout DropoutCells."""
        def make(cell_prefix):
            if self._mode.startswith('rnn_'):
                return RNNCell(self._num_hidden, activation=self._mode[4:], prefix=cell_prefix)
            return {'lstm': LSTMCell, 'gru': GRUCell}[self._mode](self._num_hidden, prefix=cell_prefix)

        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            cells = [make('%s%s%d_' % (self._prefix, side, i)) for side in self._directions]
            stack.add(cells[0] if len(cells) == 1 else
                      BidirectionalCell(*cells, output_prefix='%sbi_l%d_' % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix='%s_dropout%d_' % (self._prefix, i)))
        return stack


class ModifierCell(BaseRNNCell):
    """Base of cells wrapping ``base_cell`` (which must not be used directly afterwards)."""

    def __init__(self, base_cell):
        super(ModifierCell, self).__init__()
        self.base_cell = base_cell
        base_cell._modified = True  # from now on the wrapper drives it

    # the wrapped cell owns the parameters and the state layout
    state_info = property(lambda self: self.base_cell.state_info)

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    def begin_state(self, init_sym=symbol.zeros, **kwargs):  # pylint: disable=arguments-differ
        """The wrapped cell's begin state (asked through the wrapper, as MXNet requires)."""
        _check(not self._modified, 'after applying a modifier cell call the modifier cell, not the base cell')
        inner = self.base_cell
        inner._modified = False  # let the wrapped cell answer this one call
        states = None
        try:
            states = inner.begin_state(init_sym, **kwargs)
        finally:
            inner._modified = True
        return states

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError('%s does not define one step' % type(self).__name__)


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each output/state unit keeps its previous value with probability
    ``zoneout_outputs``/``zoneout_states`` (a ``Dropout`` mask chooses; the first step's previous output is 0)."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        inner = base_cell._cells if isinstance(base_cell, SequentialRNNCell) else ()
        stepless = isinstance(base_cell, (FusedRNNCell, BidirectionalCell)) or any(
            isinstance(c, BidirectionalCell) for c in inner)
        _check(not stepless, 'zoneout needs a cell that runs one step at a time, and this %s does not: unfuse a '
               'FusedRNNCell first, or wrap the cells inside a bidirectional one' % type(base_cell).__name__)
        super(ZoneoutCell, self).__init__(base_cell)
        self.zoneout_outputs, self.zoneout_states = zoneout_outputs, zoneout_states
        self.prev_output = None

    def reset(self):
        super(ZoneoutCell, self).reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)
        output, states = zoneout_step(symbol, next_output, next_states, self.prev_output, states,
                                      self.zoneout_outputs, self.zoneout_states)
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (``elemwise_add`` named ``<output>_plus_residual``)."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        return symbol.elemwise_add(output, inputs, name='%s_plus_residual' % output.name), states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Unroll the base cell, then add the inputs (merged or per step, like the outputs)."""
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs = _normalize_sequence(length, inputs, layout, merge_outputs)[0]
        add = lambda y, x: symbol.elemwise_add(y, x, name='%s_plus_residual' % y.name)  # noqa: E731
        if merge_outputs:
            return add(outputs, inputs), states
        return [add(y, x) for y, x in zip(outputs, inputs)], states


class BidirectionalCell(BaseRNNCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence and concatenates their outputs on the
    feature axis (node ``<output_prefix>out`` merged, ``<output_prefix>t<i>`` per step); only ``unroll`` is
    possible. States come back as ``[l_states, r_states]`` (two lists), as in MXNet."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix='bi_'):
        super(BidirectionalCell, self).__init__('', params=params)
        self._output_prefix = output_prefix
        mine = self.params._params
        if params is not None:
            _check(l_cell._own_params and r_cell._own_params,
                   'give params to BidirectionalCell or to its cells, not both')
            l_cell.params._params.update(mine)
            r_cell.params._params.update(mine)
        mine.update(l_cell.params._params)
        mine.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return functools.reduce(lambda acc, cell: cell.unpack_weights(acc), self._cells, args)

    def pack_weights(self, args):
        return functools.reduce(lambda acc, cell: cell.pack_weights(acc), self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError('Bidirectional cannot be stepped. Please use unroll')

    @property
    def state_info(self):
        return [info for cell in self._cells for info in cell.state_info]

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        _check(not self._modified, 'after applying a modifier cell call the modifier cell, not the base cell')
        return [s for cell in self._cells for s in cell.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        steps, axis = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_out, l_states = l_cell.unroll(length, inputs=steps, begin_state=begin_state[:n_left], layout=layout,
                                        merge_outputs=merge_outputs)
        r_out, r_states = r_cell.unroll(length, inputs=list(reversed(steps)), begin_state=begin_state[n_left:],
                                        layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_out, symbol.Symbol) and isinstance(r_out, symbol.Symbol)
            if not merge_outputs:
                l_out, r_out = [list(symbol.SliceChannel(o, axis=axis, num_outputs=length, squeeze_axis=1))
                                if isinstance(o, symbol.Symbol) else o for o in (l_out, r_out)]
        if merge_outputs:
            outputs = symbol.Concat(l_out, symbol.reverse(r_out, axis=axis), dim=2,
                                    name='%sout' % self._output_prefix)
        else:
            outputs = [symbol.Concat(l_o, r_o, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_out, reversed(r_out)))]
        return outputs, [l_states, r_states]


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
