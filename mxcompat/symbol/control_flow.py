"""Symbolic control flow: ``mx.sym.contrib.foreach``, ``while_loop`` and ``cond`` build a ``_foreach``,
``_while_loop`` or ``_cond`` node whose bodies are subgraphs, named, attributed and serialised as MXNet 1.9 does,
so their JSON loads in MXNet and MXNet's loads here. Bound graphs (executors, hybridized blocks) run each body's own
fx graph from a Python loop or branch, so autograd records what ran.

Each body is made as MXNet makes it:

- The body function is called once, on new variables (``<input node name>-<output index>`` for loop inputs),
  inside ``AttrScope(__subgraph_name__=<name>)``: every node it creates is tagged with the subgraph's name
  (``foreach0``, ``while_loop_cond0`` ...; ``outer$foreach0`` when nested).
- Where a tagged node reads an untagged one (a value computed outside the body), the edge is cut: the subgraph
  reads a new variable named after that value (``w``, ``fc0_output``) and the node takes the value as an input.
  Variables the body made itself (an operator's implicit weights) stay subgraph inputs and the node takes a copy.
- Body outputs that are subgraph inputs or untagged go through ``identity`` (foreach: also states repeating an
  output).
- The node's inputs and the ``*_locs`` attributes that place them among each subgraph's inputs follow MXNet's
  rules per operator, duplicates included (a variable read by both bodies of a while_loop is two inputs).

Differs from MXNet: rows of a while_loop's stacked outputs past the last step are zeros (MXNet leaves them
unset).
"""
import collections
import copy

import torch

from ..attribute import AttrScope
from ..base import MXNetError, MXNetAssertionError, MXNetValueError
from ..ndarray.contrib import _flatten, _regroup, _scalar
from ..operator import registry
from .symbol import Symbol, _Node, make_op_symbol, var
from .lower import lower
from . import infer

__all__ = ['foreach', 'while_loop', 'cond']

_TAG = '__subgraph_name__'


# ---- building --------------------------------------------------------------------------------------------------
def _subgraph_name(base):
    outer = AttrScope.current._attr.get(_TAG)
    if outer:
        base = '%s$%s' % (outer, base)
    names = AttrScope._subgraph_names  # (read each time: scripts may replace it, as MXNet's tests do)
    names[base] += 1
    return '%s%d' % (base, names[base] - 1)


def _symbol_width(s):
    """``_flatten``'s format entry of a Symbol leaf: 0 for one output, else the number of outputs (as MXNet)."""
    if not isinstance(s, Symbol):
        return None
    return len(s._outputs) if len(s._outputs) > 1 else 0


def _entry(s, what):
    if len(s._outputs) != 1:
        raise MXNetValueError('%s must be single-output symbols, got one with %d outputs' % (what, len(s._outputs)))
    return s._outputs[0]


def _loop_name(s):
    """The name of the body variable standing for loop input ``s``: ``<node name>-<output index>``."""
    node, index = s._outputs[0]
    return '%s-%d' % (node.name, index)


def _tagged(node, name):
    return node.attrs.get(_TAG) == name


def _identity(s):
    """``mx.sym.identity(s)``, made here as this module makes its other nodes (``op`` imports this module)."""
    return make_op_symbol(registry.get('identity'), 'identity', {'data': s}, {}, None)


def _heads(symbols, name, repeats=0):
    """The subgraph of body results ``symbols``, with ``identity`` where MXNet puts one (inside the body's scope).
    ``repeats``: results from this index on also get one when they repeat an earlier result (foreach's states)."""
    entries = [_entry(s, 'control-flow body results') for s in symbols]
    inputs = set(Symbol(entries).list_inputs()) if entries else set()
    names = {s.name for s in symbols[:repeats]}
    heads = []
    for k, s in enumerate(symbols):
        again = repeats and k >= repeats and s.name in names
        heads.append(_identity(s) if s.name in inputs or again or not _tagged(s._outputs[0][0], name) else s)
    return Symbol([h._outputs[0] for h in heads])


def _cut(graph, name):
    """Replace the edges from tagged nodes to untagged ones by new variables (one per value). Returns
    {variable name: the value outside}, in the order the cut made them."""
    if not graph._outputs or not _tagged(graph._outputs[0][0], name):
        return {}
    made = {}
    for n in graph._nodes():
        if not _tagged(n, name):
            continue
        for j, (src, i) in enumerate(n.inputs):
            if _tagged(src, name):
                continue
            hit = made.get((id(src), i))
            if hit is None:
                label = src.name if src.is_var else src.output_names()[i]
                hit = made[(id(src), i)] = (_Node(None, label), (src, i))
            n.inputs[j] = (hit[0], 0)
    return {v.name: outside for v, outside in made.values()}


def _inputs(graph, what):
    nodes = [n for n in graph._nodes() if n.is_var]
    names = [n.name for n in nodes]
    if len(set(names)) != len(names):
        raise MXNetAssertionError("%s: the inputs of the body's subgraph do not have unique names: %s"
                                  % (what, names))
    return nodes


def _outside(var_node, cut):
    """What the control-flow node feeds subgraph input ``var_node``: the value cut there, else a copy of a variable
    the body made (the subgraph shares no node with the graph)."""
    return cut[var_node.name] if var_node.name in cut else (_Node(None, var_node.name, var_node.attrs), 0)


def _node(op_name, hint, inputs, attrs, graphs):
    """The control-flow node (``num_args`` counts the subgraphs too, as MXNet's does); its outputs as Symbols."""
    attrs = dict(attrs, num_args=len(inputs) + len(graphs))  # (lists are written '[0, 1]', as MXNet does)
    node_sym = make_op_symbol(registry.get(op_name), hint, [Symbol([e]) for e in inputs], attrs, None)
    node_sym._outputs[0][0].subgraphs = tuple(graphs)
    return [Symbol([e]) for e in node_sym._outputs]


def foreach(body, data, init_states, name='foreach'):
    """``body(data slice, states) -> (outputs, new states)`` over axis 0 of ``data``, as one ``_foreach`` node;
    returns (outputs stacked over the steps, final states), nested as ``body`` returns them."""
    flat_data, data_fmt = _flatten(data, 'foreach data', _symbol_width)
    flat_init, init_fmt = _flatten(init_states, 'foreach init_states', _symbol_width)
    if not flat_data:
        raise MXNetValueError('foreach: data must hold at least one Symbol to loop over')
    name = _subgraph_name(name)
    with AttrScope(**{_TAG: name}):
        data_vars = [var(_loop_name(s)) for s in flat_data]
        state_vars = [var(_loop_name(s)) for s in flat_init]
        outs, states = body(_regroup(data_vars, data_fmt)[0], _regroup(state_vars, copy.deepcopy(init_fmt))[0])
        flat_out, out_fmt = _flatten(outs, 'foreach output', _symbol_width)
        flat_states, state_fmt = _flatten(states, 'foreach loop_vars', _symbol_width)
        if state_fmt != init_fmt:
            raise MXNetValueError('foreach: the loop states the body returns are nested as %s, the initial states '
                                  'as %s' % (state_fmt, init_fmt))
        graph = _heads(flat_out + flat_states, name, repeats=len(flat_out))
    cut = _cut(graph, name)
    sub_inputs = _inputs(graph, 'foreach')
    names = [n.name for n in sub_inputs]
    data_locs, state_locs = [], []
    for locs, made, what in ((data_locs, data_vars, 'data'), (state_locs, state_vars, 'state')):
        for v in made:
            if v.name not in names:
                raise MXNetAssertionError('foreach: the loop body does not use the %s input %s; every data and '
                                          'state input has to be used' % (what, v.name))
            locs.append(names.index(v.name))
    own = {v.name for v in data_vars + state_vars}
    ins = [_entry(s, 'foreach data') for s in flat_data] + [_entry(s, 'foreach states') for s in flat_init]
    remain_locs = []
    for k, n in enumerate(sub_inputs):
        if n.name in own:
            continue
        ins.append(_outside(n, cut))
        remain_locs.append(k)
    n_out = len(flat_out)
    results = _node('_foreach', '_foreach', ins, {
        'num_outputs': n_out + len(flat_states), 'num_out_data': n_out, 'in_state_locs': state_locs,
        'in_data_locs': data_locs, 'remain_locs': remain_locs}, [graph])
    return _regroup(results[:n_out], out_fmt)[0], _regroup(results[n_out:], state_fmt)[0]


def _as_list(v):
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else v


def while_loop(cond, func, loop_vars, max_iterations=None, name='while_loop'):
    """While ``cond(*loop_vars)`` holds and at most ``max_iterations`` times, ``func(*loop_vars) -> (step outputs,
    new loop_vars)``; one ``_while_loop`` node. Returns (step outputs stacked to ``max_iterations`` rows, final
    loop_vars); rows past the last step are zeros."""
    flat_vars, vars_fmt = _flatten(loop_vars, 'while loop_vars', _symbol_width)
    if max_iterations is None:
        raise MXNetValueError('max_iterations should be specified')
    max_iterations = _scalar(max_iterations, int, 'max_iteration')
    if not flat_vars:
        raise MXNetValueError('loop_vars should contain at least one element')

    def build(base, call):
        sub_name = _subgraph_name(base)
        with AttrScope(**{_TAG: sub_name}):
            made = [var(_loop_name(s)) for s in flat_vars]
            outs, new_vars, out_fmt = call(_regroup(made, copy.deepcopy(vars_fmt))[0])
            return _heads(outs + new_vars, sub_name), sub_name, len(outs), out_fmt

    def cond_body(vs):
        res = cond(*vs)
        if not isinstance(res, Symbol):
            raise MXNetValueError('Return of cond must be a Symbol')
        return [], [res], None

    def func_body(vs):
        step, new_vars = func(*vs)
        step, out_fmt = _flatten(_as_list(step), 'while output', _symbol_width)
        new_vars, _ = _flatten(_as_list(new_vars), 'while loop_vars', _symbol_width)
        if len(new_vars) != len(vs):
            raise MXNetValueError('The number of loop_vars should be consistent during the loop')
        return step, new_vars, out_fmt

    cond_g, cond_name, _, _ = build(name + '_cond', cond_body)
    func_g, func_name, n_out, out_fmt = build(name + '_func', func_body)
    var_names = {_loop_name(s): k for k, s in enumerate(flat_vars)}
    inputs, keys, locs = [], {}, []
    var_locs = [-1] * len(flat_vars)
    for graph, sub_name in ((cond_g, cond_name), (func_g, func_name)):
        cut = _cut(graph, sub_name)
        here = []
        for n in _inputs(graph, 'while_loop'):
            if n.name in var_names:  # a loop var: one input for both bodies
                key, value = ('var', var_names[n.name]), _entry(flat_vars[var_names[n.name]], 'loop_vars')
                if graph is func_g:
                    var_locs[var_names[n.name]] = len(here)
            else:  # a value cut or a variable made in the body: an input per body (MXNet's duplicates)
                key, value = (id(graph), n.name), _outside(n, cut)
            if key not in keys:
                keys[key] = len(inputs)
                inputs.append(value)
            here.append(keys[key])
        locs.append(here)
    for k, loc in enumerate(var_locs, 1):
        if loc == -1:
            raise MXNetValueError("The %d-th loop_var doesn't involve into the computation" % k)
    results = _node('_while_loop', '_while_loop', inputs, {
        'max_iterations': max_iterations, 'cond_input_locs': locs[0], 'func_input_locs': locs[1],
        'func_var_locs': var_locs, 'num_out_data': n_out, 'num_outputs': n_out + len(flat_vars)}, [cond_g, func_g])
    return _regroup(results[:n_out], out_fmt)[0], _regroup(results[n_out:], vars_fmt)[0]


def cond(pred, then_func, else_func, name='cond'):
    """``then_func()`` where the one-element ``pred`` is true, else ``else_func()``; one ``_cond`` node whose three
    subgraphs (the predicate and both branches) read what they use from outside."""
    def build(base, call):
        sub_name = _subgraph_name(base)
        with AttrScope(**{_TAG: sub_name}):
            outs, fmt = _flatten(call(), 'cond outputs', _symbol_width)
            return _heads(outs, sub_name), sub_name, len(outs), fmt

    pred_g, pred_name, n_pred, _ = build(name + '_pred', lambda: pred)
    if n_pred != 1:
        raise MXNetValueError('pred should always be a single output')
    then_g, then_name, n_then, then_fmt = build(name + '_then', then_func)
    else_g, else_name, n_else, _ = build(name + '_else', else_func)
    if n_then != n_else:
        raise MXNetValueError('Number of outputs differs between then-branch and else-branch')
    inputs, names, locs = [], [], []
    for graph, sub_name in ((pred_g, pred_name), (then_g, then_name), (else_g, else_name)):
        cut = _cut(graph, sub_name)
        known = {nm: k for k, nm in enumerate(names)}  # MXNet matches earlier inputs by their node's name
        here = []
        for n in _inputs(graph, 'cond'):
            if n.name in known:
                here.append(known[n.name])
                continue
            value = _outside(n, cut)
            here.append(len(inputs))
            inputs.append(value)
            names.append(value[0].name)
        locs.append(here)
    results = _node('_cond', '_cond', inputs, {'cond_input_locs': locs[0], 'then_input_locs': locs[1],
                                               'else_input_locs': locs[2], 'num_outputs': n_then},
                    [pred_g, then_g, else_g])
    return _regroup(results, then_fmt)[0]


# ---- how a node's subgraphs connect to it ------------------------------------------------------------------------
_Layout = collections.namedtuple('_Layout', 'subs outputs carried rows')
# subs: per subgraph, (symbol, [(node input index, sliced along axis 0)] for each subgraph input in list_inputs order)
# outputs: per node output, [(subgraph index, head index)] giving it; stacked: whether the steps stack along axis 0
# carried: (subgraph index, subgraph input position, head index) of loop states; rows: the stacked outputs' rows


def _layout(node):
    p = node.params()
    name = node.op.name
    if name == '_foreach':
        n_data = len(p['in_data_locs'])
        locs = list(p['in_data_locs']) + list(p['in_state_locs']) + list(p['remain_locs'])
        where = sorted((loc, (k, k < n_data)) for k, loc in enumerate(locs))
        n_out = p['num_out_data']
        return _Layout([(node.subgraphs[0], [w for _, w in where])],
                       [([(0, i)], i < n_out) for i in range(p['num_outputs'])],
                       [(0, loc, n_out + j) for j, loc in enumerate(p['in_state_locs'])], None)
    if name == '_while_loop':
        n_out = p['num_out_data']
        return _Layout([(g, [(k, False) for k in p[key]])
                        for g, key in zip(node.subgraphs, ('cond_input_locs', 'func_input_locs'))],
                       [([(1, i)], i < n_out) for i in range(p['num_outputs'])],
                       [(1, loc, n_out + j) for j, loc in enumerate(p['func_var_locs'])], p['max_iterations'])
    return _Layout([(g, [(k, False) for k in p[key]])
                    for g, key in zip(node.subgraphs, ('cond_input_locs', 'then_input_locs', 'else_input_locs'))],
                   [([(1, i), (2, i)], False) for i in range(p['num_outputs'])], [], None)


# ---- running -----------------------------------------------------------------------------------------------------
class _Body:
    """A subgraph's fx graph, called with the node's input values."""

    def __init__(self, graph, places):
        lowered = lower(graph)
        names = graph.list_inputs()
        self.graph_module = lowered.graph_module
        self.take = [places[names.index(a)][0] for a in lowered.arg_names + lowered.aux_names]

    def __call__(self, values):
        return self.graph_module(*[values[k] for k in self.take])


def _truth(t, node):
    if t.numel() != 1:
        raise MXNetError('Operator %s (%s): the condition must have one element, got shape %s'
                         % (node.op.name, node.name, tuple(t.shape)))
    return bool(t.item())


def bind(node, params, fname):
    """The function a lowered graph calls for control-flow node ``node``: its inputs -> its outputs."""
    lay = _layout(node)
    bodies = [_Body(g, places) for g, places in lay.subs]
    single = params['num_outputs'] == 1
    name = node.op.name
    carried = [lay.subs[g][1][loc][0] for g, loc, _ in lay.carried]  # the node inputs the loop states replace
    n_out = params.get('num_out_data')

    def advance(res, values, steps):
        """Keep a step's outputs and carry its new states into the next step's inputs."""
        steps.append(res[:n_out])
        for k, r in zip(carried, res[n_out:]):
            values[k] = r

    if name == '_foreach':
        body = bodies[0]
        data = sorted({k for k, sliced in lay.subs[0][1] if sliced})

        def run(*ins):
            length = ins[data[0]].shape[0] if ins[data[0]].dim() else -1
            if any(ins[k].dim() == 0 or ins[k].shape[0] != length for k in data):
                raise MXNetError('Operator _foreach (%s): every data input needs the same length along axis 0, '
                                 'got shapes %s' % (node.name, [tuple(ins[k].shape) for k in data]))
            if not length:
                raise MXNetError('Operator _foreach (%s): the data inputs have no steps (length 0 along axis 0)'
                                 % node.name)
            values, steps = list(ins), []
            for t in range(length):
                step = list(values)
                for k in data:
                    step[k] = ins[k][t]
                advance(body(step), values, steps)
            return [torch.stack(col) for col in zip(*steps)] + [values[k] for k in carried]
    elif name == '_while_loop':
        test, body = bodies
        rows = params['max_iterations']

        def run(*ins):
            values, steps = list(ins), []
            while len(steps) < rows and _truth(test(values)[0], node):
                advance(body(values), values, steps)
            if steps:
                outs = [torch.stack(col) for col in zip(*steps)]
            else:  # no step ran: the step shapes from a run on meta tensors
                outs = [torch.empty((0,) + tuple(r.shape), dtype=r.dtype, device=ins[0].device)
                        for r in body([v.to('meta') for v in values])[:n_out]]
            pad = [torch.zeros((rows - o.shape[0],) + tuple(o.shape[1:]), dtype=o.dtype, device=o.device)
                   for o in outs]
            return [torch.cat([o, z]) for o, z in zip(outs, pad)] + [values[k] for k in carried]
    else:
        test, then_body, else_body = bodies

        def run(*ins):
            return list((then_body if _truth(test(ins)[0], node) else else_body)(ins))

    def call(*ins):
        outs = run(*ins)
        return outs[0] if single else tuple(outs)

    call.__name__ = call.__qualname__ = fname
    call._mx_op = name
    call._mx_attrs = params
    return call


# ---- shape and dtype inference -----------------------------------------------------------------------------------
_Sub = collections.namedtuple('_Sub', 'ops inputs places heads shp typ')
# one body during inference: its operator nodes, input variables (list_inputs order) and where the node's inputs
# feed them, its head keys, and its shape and dtype tables


def _bodies(node, lay, shp, typ, keys):
    """The node's bodies, their tables seeded from the node's known inputs (per step where sliced)."""
    subs = []
    for graph, places in lay.subs:
        nodes = graph._nodes()
        sshp, styp = infer._given(nodes, {}, {})
        inputs = [n for n in nodes if n.is_var]
        for v, (k, sliced) in zip(inputs, places):
            s = shp.get(keys[k])
            if s is not None:
                infer._put(sshp, (id(v), 0), tuple(s[1:]) if sliced else s, 'input %s of %s' % (v.name, node.name))
            if keys[k] in typ:
                styp[(id(v), 0)] = typ[keys[k]]
        subs.append(_Sub([n for n in nodes if not n.is_var], inputs, places,
                         [(id(n), i) for n, i in graph._outputs], sshp, styp))
    return subs


def shape_step(node, shp, typ):
    """One shape-inference step at a control-flow node (``infer._shape_step``'s contract): each body is inferred
    from the node's known inputs, loop states are unified with the body's new states, and what the bodies learned
    about their inputs and outputs comes back to the node. True when something was learned."""
    lay = _layout(node)
    keys = [(id(s), i) for s, i in node.inputs]
    rows = lay.rows
    if rows is None:
        rows = next((shp[keys[k]][0] for _, places in lay.subs for k, sliced in places if sliced and shp.get(keys[k])),
                    infer.UNKNOWN)
    subs = _bodies(node, lay, shp, typ, keys)
    for _ in range(len(lay.carried) + 2):
        for sub in subs:
            infer._propagate(sub.ops, sub.shp, sub.typ)
        learned = False
        for g, loc, head in lay.carried:
            sub = subs[g]
            state, new = (id(sub.inputs[loc]), 0), sub.heads[head]
            for a, b in ((state, new), (new, state)):
                if sub.shp.get(a) is not None:
                    learned |= infer._put(sub.shp, b, sub.shp[a], 'loop state of %s' % node.name)
        if not learned:
            break
    changed = False
    for sub in subs:
        for v, (k, sliced) in zip(sub.inputs, sub.places):
            s = sub.shp.get((id(v), 0))
            if s is not None:
                changed |= infer._put(shp, keys[k], ((rows,) + tuple(s)) if sliced else s,
                                      'input %d of %s' % (k, node.name))
    for i, (sources, stacked) in enumerate(lay.outputs):
        for g, head in sources:
            s = subs[g].shp.get(subs[g].heads[head])
            if s is not None:
                changed |= infer._put(shp, (id(node), i), ((rows,) + tuple(s)) if stacked else s,
                                      'output %d of %s' % (i, node.name))
    return changed


def type_step(node, shp, typ):
    """Dtype inference at a control-flow node: each body's, from the node's known input dtypes."""
    lay = _layout(node)
    keys = [(id(s), i) for s, i in node.inputs]
    subs = _bodies(node, lay, shp, typ, keys)
    for sub in subs:
        infer._propagate(sub.ops, sub.shp, sub.typ)
        for n in sub.ops:
            infer._type_step(n, sub.shp, sub.typ)
        for v, (k, _) in zip(sub.inputs, sub.places):
            if keys[k] not in typ and (id(v), 0) in sub.typ and node.inputs[k][0].is_var:
                typ[keys[k]] = sub.typ[(id(v), 0)]
    for i, (sources, _) in enumerate(lay.outputs):
        for g, head in sources:
            if subs[g].heads[head] in subs[g].typ:
                typ[(id(node), i)] = subs[g].typ[subs[g].heads[head]]


infer.SUBGRAPH_STEPS.update(shape=shape_step, type=type_step)
