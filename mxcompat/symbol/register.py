"""Generates the ``mx.sym`` operator functions from the operator registry (the same entries as ``mx.nd``)."""
from ..base import MXNetError, MXNetTypeError, MXNetValueError
from ..ndarray.register import SUBMODULES
from ..operator import custom, registry
from .symbol import Symbol, make_op_symbol


# variadic operators whose input count MXNet bounds below by 1 (``Concat(name='c')`` without num_args raises)
_AT_LEAST_ONE = frozenset(['Concat', 'add_n', 'stack', 'khatri_rao', '_rnn_param_concat', 'Crop'])


def _missing_inputs(op, count, given):
    """How many inputs of a variadic op called with ``given`` Symbols and ``count`` (its num_args) MXNet creates
    as variables ``<name>_arg<i>``: ``Concat(name='concat', num_args=2)`` takes concat_arg0 and concat_arg1."""
    try:
        n = int(count)
    except (TypeError, ValueError):
        return 0  # (the attribute parser reports it)
    if n < 1 and op.name in _AT_LEAST_ONE:
        raise MXNetValueError('Operator %s: value %d for Parameter %s should be greater equal to 1'
                              % (op.name, n, op.key_var_num_args))
    if given > n:
        raise MXNetValueError('Operator %s: Incorrect number of arguments, requires %d, provided %d'
                              % (op.name, n, given))
    return n - given


def make_function(op, func_name):  # noqa: C901 (argument binding for every call form)
    if isinstance(op, custom.CustomOpDef):
        return _custom_function(op, func_name)
    hint = func_name.lower()
    inputs = op.inputs
    param_names = op.param_names

    def fn(*args, **kwargs):  # noqa: C901 (MXNet positional/keyword binding, checked in order)
        name = kwargs.pop('name', None)
        attr = kwargs.pop('attr', None)
        kwargs.pop('out', None)  # (a symbol has no output array to write: MXNet's symbol functions drop it too)
        if op.variadic:
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                args = tuple(args[0])
            for i, a in enumerate(args):
                if not isinstance(a, Symbol):
                    raise MXNetTypeError('Operator %s: input %d must be a Symbol, got %s'
                                         % (op.name, i, type(a).__name__))
            count = op.key_var_num_args
            kwargs.setdefault(count, len(args))
            ins = list(args)
            if op.input_names_fn is None:  # (ops whose count is the number of inputs)
                ins += [None] * _missing_inputs(op, kwargs[count], len(args))
        else:
            ins = {}
            pos = list(args)
            for iname in inputs:
                if not pos:
                    break
                if pos[0] is None and iname in op.optional:
                    pos.pop(0)  # F.FullyConnected(x, w, None, no_bias=True): an input left out
                    continue
                if not isinstance(pos[0], Symbol):
                    break
                ins[iname] = pos.pop(0)
            if pos:
                if len(pos) > len(param_names):
                    raise MXNetTypeError('Operator %s: too many positional arguments' % op.name)
                for pname, v in zip(param_names, pos):
                    kwargs[pname] = v
            for iname in inputs:
                v = kwargs.pop(iname, None)
                if v is not None:
                    if not isinstance(v, Symbol):
                        raise MXNetTypeError('Operator %s: input %s must be a Symbol, got %s'
                                             % (op.name, iname, type(v).__name__))
                    ins[iname] = v
        stray = [k for k, v in kwargs.items() if isinstance(v, Symbol)]
        if stray:
            if inputs:
                raise MXNetError('Operator %s: keyword argument name %s not found; its inputs are %s'
                                 % (op.name, stray[0], ', '.join(inputs)))
            # MXNet drops Symbol keywords given to an op without inputs (random.randn(data=s))
            kwargs = {k: v for k, v in kwargs.items() if k not in stray}
        return make_op_symbol(op, hint, ins, kwargs, name, attr=attr)

    fn.__name__ = fn.__qualname__ = func_name
    fn.__doc__ = op.doc
    fn._op = op
    return fn


def _custom_function(op, func_name):
    """``mx.sym.Custom(*inputs, op_type=..., name=None, attr=None, **kwargs)``: inputs are Symbols given either
    positionally or by the prop's argument names; missing ones become variables ``<name>_<input>``."""
    def Custom(*data, **kwargs):
        name = kwargs.pop('name', None)
        attr = kwargs.pop('attr', None)
        by_name = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
        if data and by_name:
            raise MXNetTypeError('Operators with variable length input can only accept input Symbols either as '
                                 'positional or keyword arguments, not both')
        for i, s in enumerate(data):
            if not isinstance(s, Symbol):
                raise MXNetTypeError('Operator Custom: input %d must be a Symbol, got %s' % (i, type(s).__name__))
        attrs = {k: custom.attr_string(v) for k, v in kwargs.items() if k not in by_name}  # None too, as MXNet
        parsed = op.parse_attrs(attrs)
        names = parsed[custom.SPEC].input_names()
        if len(data) > len(names):
            raise MXNetValueError('Operator Custom (op_type=%r): %d inputs given, it takes %d (%s)'
                                  % (attrs.get('op_type'), len(data), len(names), ', '.join(names)))
        unknown = sorted(set(by_name) - set(names))
        if unknown:
            raise MXNetValueError('Operator Custom (op_type=%r): keyword argument name %s not found; candidate '
                                  'arguments: %s' % (attrs.get('op_type'), ', '.join(unknown), ', '.join(names)))
        ins = list(data) + [by_name.get(n) for n in names[len(data):]]
        custom.HANDOFF.attrs = (attrs, parsed)
        try:
            sym = make_op_symbol(op, 'custom', ins, attrs, name)
        finally:
            custom.HANDOFF.__dict__.pop('attrs', None)
        if attr:
            sym._set_attr(**attr)
        return sym
    return custom.frontend(Custom, op, func_name)


custom.FRONTENDS['symbol'] = _custom_function(custom.OP, 'Custom')


def populate(module_dict, internal_dict, submodule_dicts):
    """Fill the sym namespaces from the registry, by MXNet's name prefixes."""
    for reg_name, op in registry.REGISTRY.items():
        fn = make_function(op, reg_name)
        for prefix, sub in SUBMODULES:
            if reg_name.startswith(prefix):
                # (a submodule's function names its nodes after its own name, as MXNet's: contrib.quantize -> quantize0)
                short = reg_name[len(prefix):]
                submodule_dicts.setdefault(sub, {})[short] = make_function(op, short)
                internal_dict[reg_name] = fn
                break
        else:
            (internal_dict if reg_name.startswith('_') else module_dict)[reg_name] = fn


# Symbol methods that differ in name from their operator
# (a fluent method named after an alias names its node after that alias: data.broadcast_axes -> broadcast_axes0)
SYMBOL_METHODS = {'reshape': 'Reshape', 'astype': 'Cast', 'broadcast_axes': 'broadcast_axes',
                  'broadcast_to': 'broadcast_to'}
