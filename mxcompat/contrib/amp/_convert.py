"""The AMP graph rewrite behind ``convert_symbol``: MXNet 1.9.1's ReducePrecision pass, its type inference of the
result and the ``__dtype__`` attributes it gives the model parameters, written over mxcompat's Symbol nodes.

The rewrite visits the nodes in MXNet's order (depth-first post-order from the outputs) and rebuilds each one:

* float32 operators and excluded names: inputs known to be float32 are used as they are, variables are taken to
  be float32, anything else gets an ``amp_cast`` to float32;
* target-dtype operators: inputs get an ``amp_cast`` to the target dtype unless already in it, unless the op's
  type function keeps them in another dtype (BatchNorm's parameters), they are updated in place (auxiliary
  states), or, with ``cast_optional_params``, they are parameters (the caller casts those arrays instead);
* widest-type operators: when every input's dtype is known from the rewrite so far, ``amp_cast``s to the widest
  of them; otherwise one ``amp_multicast`` over all inputs;
* conditional float32 operators whose attribute has one of the values: as float32 operators, but variables are
  cast too and auxiliary states are not;
* all others are copied, and their output dtypes inferred from input 0's when that is known.

Casts are shared: one value cast to one dtype is one node, named ``<node>[_<output>]_amp_cast_<dtype>``
(``<node>[_<output>]_amp_multicast`` for multicasts), as MXNet names them. Every graph output that is not known to
be float32 gets a final ``amp_cast`` to float32.
"""
from ...base import MXNetError, unsupported
from ...operator import registry
from ...symbol import _monitor_names
from ...symbol.symbol import Symbol, _Node
from . import _types
from ._types import UNKNOWN, F32, infer_node, TypeRuleError

_CAST = 'amp_cast'
_MULTICAST = 'amp_multicast'


def _mutable(node):
    """Indices of the inputs ``node`` updates in place (MXNet's FMutateInputs: the auxiliary states)."""
    if node.op is None or not node.op.aux:
        return ()
    return tuple(i for i, name in enumerate(node.input_names()) if name in node.op.aux)


def _key(node, index, version=0):
    return (id(node), index, version)


def _in_key(node, i):
    """The entry key of input ``i`` of ``node``: a variable consumed as a mutable input carries version 1."""
    src, j = node.inputs[i]
    return _key(src, j, 1 if src.is_var and i in _mutable(node) else 0)


def _suffix(src, index):
    """'' for a variable, else '_' + the output's name (its index for ops without output names in MXNet)."""
    if src.is_var:
        return ''
    if src.op.name in _monitor_names.NO_OUTPUT_NAMES:
        return '_%d' % index
    names = src.output_names()
    prefix = src.name + '_' if src.name else ''
    return '_' + names[index][len(prefix):] if index < len(names) else '_%d' % index


class _Rewrite:
    def __init__(self, target, target_ops, fp32_ops, widest_ops, conditional, excluded, data_names, cast_params):
        self.tgt = _types.code(target)
        self.tname = _types.NAMES[self.tgt]
        self.target_ops, self.fp32_ops, self.widest_ops = set(target_ops), set(fp32_ops), set(widest_ops)
        self.conditional = conditional  # {op: {param: [values]}}
        self.excluded = set(excluded)
        self.data_names = set(data_names)
        self.cast_params = bool(cast_params)
        self.mirror = {}     # id(old node) -> new node
        self.fp32 = {}       # entry key -> (new node, index) known to be float32
        self.low = {}        # entry key -> (new node, index) known to be in the target dtype
        self.cast_op = registry.get(_CAST)
        self.multicast_op = registry.get(_MULTICAST)

    def _mirror_entry(self, node, i):
        src, j = node.inputs[i]
        return (self.mirror[id(src)], j)

    def _add_cast(self, node, i, dtype, table, new):
        src, j = node.inputs[i]
        cast = _Node(self.cast_op, src.name + _suffix(src, j) + '_amp_cast_' + dtype, {'dtype': dtype},
                     [self._mirror_entry(node, i)])
        table[_in_key(node, i)] = (cast, 0)
        new.inputs.append((cast, 0))

    def _conditional_fp32(self, node):
        if node.is_var or node.name in self.excluded or node.op.name not in self.conditional:
            return False
        return any(node.attrs.get(param) in values for param, values in self.conditional[node.op.name].items())

    def _infer(self, node, first):
        ins = [UNKNOWN] * len(node.inputs)
        outs = [UNKNOWN] * node.num_outputs()
        if ins:
            ins[0] = first
        ok = infer_node(node, ins, outs)
        return ok is not False, ins, outs

    def _register_outputs(self, node, new, outs):
        for i, t in enumerate(outs):
            if t == self.tgt:
                self.low[_key(node, i)] = (new, i)
            elif t == F32:
                self.fp32[_key(node, i)] = (new, i)

    def visit(self, node):
        if node.subgraphs:
            raise unsupported('mx.contrib.amp.convert_symbol', 'a graph with %s nodes' % node.op.name,
                              'the conversion does not rewrite control-flow subgraphs')
        new = _Node(node.op, node.name, node.attrs, [], node.subgraphs)
        op = None if node.is_var else node.op.name
        if (op is not None and op in self.fp32_ops) or node.name in self.excluded:
            self._float32(node, new, lambda i: node.inputs[i][0].is_var)  # variables are taken as float32
        elif op is not None and op in self.target_ops:
            self._target(node, new)
        elif op is not None and op in self.widest_ops:
            self._widest(node, new)
        elif self._conditional_fp32(node):
            mutable = _mutable(node)
            self._float32(node, new, lambda i: i in mutable)
        else:
            self._copy(node, new)
        self.mirror[id(node)] = new

    def _float32(self, node, new, keep):
        """Outputs float32; inputs float32 as known, kept as they are where ``keep(i)``, else cast."""
        for i in range(node.num_outputs()):
            self.fp32[_key(node, i)] = (new, i)
        for i in range(len(node.inputs)):
            k = _in_key(node, i)
            if k in self.fp32:
                new.inputs.append(self.fp32[k])
            elif keep(i):
                new.inputs.append(self._mirror_entry(node, i))
            else:
                self._add_cast(node, i, 'float32', self.fp32, new)

    def _target(self, node, new):
        ok, ins, outs = self._infer(node, self.tgt)
        if not ok:
            raise MXNetError('mx.contrib.amp.convert_symbol: type inference failed for %s (%s) in %s'
                             % (node.name, node.op.name, self.tname))
        self._register_outputs(node, new, outs)
        mutable = _mutable(node)
        for i, (src, _) in enumerate(node.inputs):
            k = _in_key(node, i)
            if k in self.low:
                new.inputs.append(self.low[k])
            elif ((self.cast_params and src.is_var and src.name not in self.data_names) or i in mutable
                  or ins[i] not in (self.tgt, UNKNOWN)):
                # a parameter the caller casts, a state updated in place, or an input the op keeps in its own
                # dtype (BatchNorm's parameters): no cast
                entry = self._mirror_entry(node, i)
                new.inputs.append(entry)
                if self.cast_params and src.is_var:
                    self.low[k] = entry
            else:
                self._add_cast(node, i, self.tname, self.low, new)

    def _widest(self, node, new):
        n_in = len(node.inputs)
        if not n_in:
            raise MXNetError('Please check the symbol. node name: %s op name %s has no inputs.'
                             % (node.name, node.op.name))
        if _mutable(node):
            raise MXNetError("can't handle the widest_dtype_ops with mutable inputs.")
        keys = [_in_key(node, i) for i in range(n_in)]
        if any(k not in self.low and k not in self.fp32 for k in keys):
            # some input's dtype is unknown: one amp_multicast over all inputs (from the uncast values)
            src, j = node.inputs[0]
            multi = _Node(self.multicast_op, src.name + _suffix(src, j) + '_amp_multicast',
                          {'num_outputs': str(n_in)}, [self._mirror_entry(node, i) for i in range(n_in)])
            new.inputs.extend((multi, i) for i in range(n_in))
            return
        table, dtype = (self.fp32, 'float32') if any(k in self.fp32 for k in keys) else (self.low, self.tname)
        for i in range(node.num_outputs()):
            table[_key(node, i)] = (new, i)
        for i, k in enumerate(keys):
            if k in table:
                new.inputs.append(table[k])
            else:
                self._add_cast(node, i, dtype, table, new)

    def _copy(self, node, new):
        """Inputs as they are; output dtypes inferred when input 0's dtype is known."""
        if node.inputs:
            k = _in_key(node, 0)
            if k in self.low or k in self.fp32:
                ok, _, outs = self._infer(node, self.tgt if k in self.low else F32)
                if ok:
                    self._register_outputs(node, new, outs)
        new.inputs.extend(self._mirror_entry(node, i) for i in range(len(node.inputs)))

    def run(self, sym):
        for node in sym._nodes():
            try:
                self.visit(node)
            except TypeRuleError as e:
                raise MXNetError('Error in operator %s: %s' % (node.name, e)) from None
        outputs = []
        for node, i in sym._outputs:
            k = _key(node, i)
            if k not in self.fp32:
                cast = _Node(self.cast_op, node.name + _suffix(node, i) + '_amp_cast_float32', {'dtype': 'float32'},
                             [(self.mirror[id(node)], i)])
                self.fp32[k] = (cast, 0)
            outputs.append(self.fp32[k])
        return Symbol(outputs)


# ---- type inference over the converted graph -------------------------------------------------------------------------
def infer_types(sym, known):
    """{(id(node), index): MXNet type code} for ``sym`` given {variable name: code}, as MXNet's InferType pass runs:
    forward and backward sweeps of the operators' type rules until nothing more is learned (a rule that refuses
    raises an MXNetError naming the node)."""
    nodes = sym._nodes()
    types = {}
    for n in nodes:
        if n.is_var and n.name in known:
            types[(id(n), 0)] = known[n.name]
    ops = [n for n in nodes if not n.is_var]
    done = set()

    def step(n):
        if id(n) in done:
            return
        ins = [types.get((id(s), j), UNKNOWN) for s, j in n.inputs]
        outs = [types.get((id(n), i), UNKNOWN) for i in range(n.num_outputs())]
        try:
            infer_node(n, ins, outs)
        except TypeRuleError as e:
            raise MXNetError('Error in operator %s: %s' % (n.name, e)) from None
        for (s, j), t in zip(n.inputs, ins):
            if t != UNKNOWN:
                types[(id(s), j)] = t
        for i, t in enumerate(outs):
            if t != UNKNOWN:
                types[(id(n), i)] = t
        if UNKNOWN not in ins and UNKNOWN not in outs:
            done.add(id(n))

    total = sum(n.num_outputs() for n in nodes)
    unknown, last_iter, forward = total - len(types), False, True
    while True:
        for n in (ops if forward else reversed(ops)):
            step(n)
        forward = not forward
        before, unknown = unknown, total - len(types)
        again = unknown > 0 and before > unknown
        if not again and not last_iter:
            again = len(done) < len(ops)
            last_iter = True
        if not again:
            return types


def _infer_unknown(sym, types, target):
    """MXNet's AMPInferUnknown (with ``cast_optional_params``): a variable of unknown dtype feeding an amp_cast takes
    the cast's dtype, and variables feeding an amp_multicast whose inputs are all variables take the target dtype,
    unless two casts disagree (then it stays unknown)."""
    result = dict(types)
    visited = {}

    def update(var, dtype):
        k = (id(var), 0)
        if var.name not in visited:
            if result.get(k, UNKNOWN) == UNKNOWN:
                visited[var.name] = dtype
                result[k] = dtype
        elif visited[var.name] != dtype:
            if k in types:
                result[k] = types[k]
            else:
                result.pop(k, None)

    for n in sym._nodes():
        if n.is_var:
            continue
        if n.op.name == _CAST:
            for src, _ in n.inputs:
                if src.is_var:
                    update(src, _types.code(n.params()['dtype']))
        elif n.op.name == _MULTICAST and all(src.is_var for src, _ in n.inputs):
            for src, _ in n.inputs:
                update(src, target)
    return result


def reduce_precision(sym, target, target_ops, fp32_ops, widest_ops, conditional, excluded, data_names, model_params,
                     cast_params):
    """The converted Symbol (a new graph; ``sym`` is unchanged), its parameters' ``__dtype__`` attributes set."""
    inputs = sym.list_inputs()
    for name in data_names:
        if name not in inputs:
            raise MXNetError('InferTypeKeyword argument name %s not found.\nCandidate arguments:\n%s'
                             % (name, ''.join('\t[%d]%s\n' % (i, n) for i, n in enumerate(inputs))))
    rewrite = _Rewrite(target, target_ops, fp32_ops, widest_ops, conditional, excluded, data_names, cast_params)
    out = rewrite.run(sym)
    known = {name: F32 for name in data_names}
    types = infer_types(out, known)
    if cast_params:
        types = _infer_unknown(out, types, rewrite.tgt)
    with_dtype, without_dtype = dict(known), {}
    variables = [n for n in out._nodes() if n.is_var]
    for n in variables:
        t = types.get((id(n), 0), UNKNOWN)
        (with_dtype if '__dtype__' in n.attrs else without_dtype)[n.name] = F32 if t == UNKNOWN else t
    model_params = set(model_params)
    for n in variables:
        if model_params:
            if n.name in model_params:
                n.attrs['__dtype__'] = str(with_dtype[n.name] if n.name in with_dtype else without_dtype[n.name])
        elif n.name in with_dtype and '__dtype__' in n.attrs:
            n.attrs['__dtype__'] = str(with_dtype[n.name])
    return out
