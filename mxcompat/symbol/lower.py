"""Lowering a Symbol to one ``torch.fx.GraphModule``.

The module takes the symbol's arguments then its auxiliary states (``list_arguments()`` + ``list_auxiliary_states()``
order) as tensors and returns a tuple with one tensor per output. Each graph node calls the registry
implementation of its operator with the node's parsed attributes bound, so the graph runs with no per-op
attribute parsing or MXNet dispatch left.
"""
import keyword
import operator
import re

import torch
import torch.fx

from .. import _profstate
from .._recording import _without_grad
from ..base import MXNetError
from .passes.storage import densify, sparse_rule
from .opinfo import aux_vars as _aux_vars
from .infer import node_shapes

__all__ = ['lower', 'Lowered']

_PROF = _profstate.FLAGS


class Lowered:
    """A lowered symbol: ``graph_module(*args, *aux) -> tuple of outputs``.

    With split heads, the tuple continues with the inputs of each split loss head, and ``heads`` lists
    ``(output index, first extra index, number of inputs, grad)`` where ``grad(out, *inputs)`` is the gradient
    of the head's input 0 (MXNet's loss-head backward, which ignores the head gradient)."""

    __slots__ = ('graph_module', 'arg_names', 'aux_names', 'output_names', 'heads')

    def __init__(self, graph_module, arg_names, aux_names, output_names, heads=()):
        self.graph_module = graph_module
        self.arg_names = arg_names
        self.aux_names = aux_names
        self.output_names = output_names
        self.heads = heads


def _ident(name, used):
    s = re.sub(r'\W', '_', name)
    if not s or s[0].isdigit() or keyword.iskeyword(s):
        s = '_' + s
    base, k = s, 1
    while s in used:
        s = '%s_%d' % (base, k)
        k += 1
    used.add(s)
    return s


def _bind_impl(op, impl, attrs, fname):
    name = op.name
    if attrs:
        def call(*args):
            if _PROF.symbolic:  # while mx.profiler runs: a range named after the MXNet operator
                return _profstate.run(name, impl, *args, **attrs)
            return impl(*args, **attrs)
    else:
        def call(*args):
            if _PROF.symbolic:
                return _profstate.run(name, impl, *args)
            return impl(*args)
    return _name_call(call, op, attrs, fname)


def _name_call(call, op, attrs, fname):
    call.__name__ = call.__qualname__ = fname
    call._mx_op = op.name
    call._mx_attrs = attrs
    return call


def _bind_head(op, attrs, fname):
    """The forward of a split loss head: its value, not recorded (the executor seeds its gradient)."""
    impl = op.impl
    name = op.name

    def call(*args):
        if _PROF.symbolic:
            return _profstate.run(name, _without_grad, impl, *args, **attrs)
        return _without_grad(impl, *args, **attrs)
    return _name_call(call, op, attrs, fname)


def _head_grad(op, attrs):
    fn = op.head_grad
    return lambda out, *inputs: fn(out, *inputs, **attrs)


def _splittable_heads(sym, nodes):
    """Loss-head nodes with a ``head_grad`` whose single output is used only as a graph output."""
    used = {id(s) for n in nodes for s, _ in n.inputs}
    outs = [id(n) for n, _ in sym._outputs]
    return {id(n) for n in nodes if not n.is_var and n.op.head_grad is not None and outs.count(id(n)) == 1
            and id(n) not in used and n.num_visible() == 1}


def _unknown_shape_nodes(nodes):
    return [n for n in nodes if not n.is_var and not n.inputs and isinstance(n.params().get('shape'), tuple)
            and (not n.params()['shape'] or any(d <= 0 for d in n.params()['shape']))]


def needs_shapes(sym):
    """Whether lowering ``sym`` needs its argument shapes: it has creation ops with unknown dimensions (MXNet
    completes them by shape inference, so their shape follows the inputs')."""
    return bool(_unknown_shape_nodes(sym._nodes()))


def _filled_shapes(sym, nodes, arg_shapes):
    """The inferred shapes of input-less nodes whose ``shape`` attribute has unknown (0) dimensions, such as the
    ``_zeros`` begin states of ``mx.rnn`` cells, or is ``()`` (unknown to the random ops in the legacy semantics,
    ``mx.sym.random.normal() + x``): MXNet completes them by shape inference when binding."""
    todo = _unknown_shape_nodes(nodes)
    if not todo or arg_shapes is None:
        return {}
    table = node_shapes(sym, arg_shapes)
    return {id(n): table[(id(n), 0)] for n in todo if all(table.get((id(n), 0), (0,)))}


def lower(sym, arg_shapes=None, split_heads=False, csr_args=()):  # noqa: C901 (one walk over the graph with a case per node kind)
    """Build the fx graph of ``sym`` (linted); ``arg_shapes`` ({name: shape}) completes creation ops whose
    ``shape`` has 0 (unknown) dimensions. ``split_heads`` returns the inputs of loss heads too (see
    ``Lowered``); ``Lowered.heads`` is empty when the symbol has none to split. The arguments named in
    ``csr_args`` come in as ``storage.CsrValue``s (see ``symbol/passes/storage.py``); an output that is a csr value
    comes out as one."""
    nodes = sym._nodes()
    split = _splittable_heads(sym, nodes) if split_heads else set()
    head_inputs = {}
    filled = _filled_shapes(sym, nodes, arg_shapes)
    aux = _aux_vars(nodes)
    args = [n for n in nodes if n.is_var and id(n) not in aux]
    auxs = [n for n in nodes if n.is_var and id(n) in aux]
    graph = torch.fx.Graph()
    used = set()
    env = {}
    for n in args + auxs:
        env[(id(n), 0)] = graph.placeholder(_ident(n.name, used))
    csr = {(id(n), 0) for n in args if n.name in csr_args}  # the values that are csr
    dense_of = {}

    def dense(key):  # a csr value densified, once
        if key not in dense_of:
            dense_of[key] = graph.call_function(densify, (env[key],))
        return dense_of[key]
    for n in nodes:
        if n.is_var:
            continue
        params = n.params()
        if id(n) in filled:
            params = dict(params, shape=filled[id(n)])
        keys = [(id(s), i) for s, i in n.inputs]
        ins = [env[k] for k in keys]
        if csr:
            sparse_at = tuple(j for j, k in enumerate(keys) if k in csr)
            rule = sparse_rule(n.op, params, sparse_at) if sparse_at and not n.subgraphs and id(n) not in split \
                else None
            if rule is not None:
                fn, csr_out = rule
                _name_call(fn, n.op, params, 'op_' + _ident(n.name, used))
                fn._mx_node = n
                env[(id(n), 0)] = graph.call_function(fn, tuple(n.op_args(ins)))
                if csr_out:
                    csr.add((id(n), 0))
                continue
            ins = [dense(k) if k in csr else e for k, e in zip(keys, ins)]
        if n.is_control_flow():
            from .control_flow import bind  # reason: control_flow imports this module
            fn = bind(n, params, 'op_' + _ident(n.name, used))
        elif id(n) in split:
            fn = _bind_head(n.op, params, 'op_' + _ident(n.name, used))
            head_inputs[id(n)] = (ins, _head_grad(n.op, params))
        else:
            fn = _bind_impl(n.op, n.op.impl, params, 'op_' + _ident(n.name, used))
        fn._mx_node = n  # (for monitors: the MXNet node's name, input and output names)
        out = graph.call_function(fn, tuple(n.op_args(ins)))
        nvis = n.num_visible()
        if nvis == 1:
            env[(id(n), 0)] = out
        else:
            for i in range(nvis):
                env[(id(n), i)] = graph.call_function(operator.getitem, (out, i))
    try:
        outs = tuple(env[(id(n), i)] for n, i in sym._outputs)
    except KeyError:
        raise MXNetError('lower: an output refers to a hidden operator output, which mxcompat does not compute') \
            from None
    heads = []
    extra = []
    for k, (n, _) in enumerate(sym._outputs):
        if id(n) in head_inputs:
            ins, grad = head_inputs.pop(id(n))
            heads.append((k, len(outs) + len(extra), len(ins), grad))
            extra += ins
    graph.output(outs + tuple(extra))
    graph.lint()
    gm = torch.fx.GraphModule(torch.nn.Module(), graph, class_name='MXNetSymbol')
    return Lowered(gm, [n.name for n in args], [n.name for n in auxs], sym.list_outputs(), tuple(heads))


def run_monitored(graph_module, tensors, report, monitor_all=False, executor=False):
    """Run ``graph_module`` node by node, calling ``report(node, name, tensor)`` for each MXNet operator node's
    outputs (first its inputs, with ``monitor_all``), named as MXNet's executor monitors or op hooks name them
    (``_Node.monitor_names``), in MXNet's execution order. Op hooks (``executor`` false) skip outputs that nothing
    reads, as MXNet's cached op does (it leaves them unallocated). Returns (outputs, [(node, input tensors, output
    tensors)] in execution order)."""
    records = []

    def live(fx_node):  # read by a node other than a copy nothing reads (the .contiguous() after view ops)
        return any(u.op != 'call_method' or live(u) for u in fx_node.users)

    def read(fx_node, i, n_out):
        if n_out == 1:
            return live(fx_node)
        return any(u.target is operator.getitem and u.args[1] == i and live(u) for u in fx_node.users)

    class Run(torch.fx.Interpreter):
        def run_node(self, n):
            self.fx_node = n
            return super().run_node(n)

        def call_function(self, target, args, kwargs):
            node = getattr(target, '_mx_node', None)
            if node is None:
                return super().call_function(target, args, kwargs)
            in_names, out_names = node.monitor_names(executor)
            ins = [a for a in args if isinstance(a, torch.Tensor)]
            if monitor_all:
                for names, t in zip(in_names, ins):
                    for name in names:
                        report(node, name, t)
            res = super().call_function(target, args, kwargs)
            outs = list(res) if isinstance(res, (tuple, list)) else [res]
            fx_node = self.fx_node
            for i, (name, t) in enumerate(zip(out_names, outs)):
                if executor or read(fx_node, i, len(outs)):
                    report(node, name, t)
            records.append((node, ins, outs))
            return res

    run = Run(graph_module)
    run.extra_traceback = False  # an op's error reads as MXNet's, without fx's node dump appended
    return run.run(*tensors), records
