"""In-place activations and additions in a lowered graph, as MXNet's memory planner runs them.

MXNet's graph executor and cached ops let an elementwise operator write into its input's buffer when nothing else
reads that input (``FInplaceOption``): ``Activation`` after ``BatchNorm``, the residual ``elemwise_add`` and the
``relu`` after it reuse one buffer. Here the same happens in torch terms: such a node calls ``torch.relu_`` (or
``Tensor.add_``) on its input when the input comes from an operator whose result is a fresh tensor that its own
backward does not keep (convolution, fully connected, batch norm, an addition), and that result has no other reader.
torch's autograd accepts exactly these rewrites (the saved tensors are untouched), so values and gradients are
unchanged; a step saves the allocation, and the first touch of the pages, of every rewritten result.

The same pass hands each RNN operator the flattened weights of a Gluon RNN layer instead of their
``_rnn_param_concat``, so the flat vector and its gradient are neither allocated nor copied each step (values and
gradients unchanged; the hybridized LSTM step 0.97-0.98 of the time in an in-process A/B).
"""
import torch

from ... import _profstate

_PROF = _profstate.FLAGS

# elementwise unary operators that may write into their input: op name -> (attrs -> in-place torch function or None)
_ACT_INPLACE = {'relu': torch.relu_, 'sigmoid': torch.sigmoid_, 'tanh': torch.tanh_}
_UNARY = {'Activation': lambda attrs: _ACT_INPLACE.get(attrs.get('act_type')),
          **{name: (lambda attrs, fn=fn: fn) for name, fn in _ACT_INPLACE.items()}}
_ADD = 'elemwise_add'

# operators whose (single) result is a fresh tensor, not a view, and is not among the tensors their backward keeps
_FRESH = {
    'Convolution': lambda attrs: attrs.get('layout') in (None, 'NCW', 'NCHW', 'NCDHW'),
    'FullyConnected': lambda attrs: True,
    'BatchNorm': lambda attrs: attrs.get('axis') == 1 and not attrs.get('output_mean_var'),
    _ADD: lambda attrs: True,
}


def _op(node):
    return getattr(node.target, '_mx_op', None) if node.op == 'call_function' else None


def _fresh_single_use(src, user):
    """Whether ``user`` may overwrite the tensor ``src`` computes: ``src`` is a fresh result that only ``user``
    reads, once."""
    name = _op(src)
    if name not in _FRESH or not _FRESH[name](src.target._mx_attrs) or list(src.users) != [user]:
        return False
    return list(user.args).count(src) == 1


def _unary_fn(plain, inplace):
    name = getattr(plain, '_mx_op', getattr(plain, '__name__', 'op'))

    def call(x):
        # integer arrays keep the operator's own path (sigmoid/tanh of an int array is a new float array)
        if not x.is_floating_point():
            return plain(x)
        if _PROF.symbolic:  # while mx.profiler runs: a range named after the MXNet operator
            return _profstate.run(name, inplace, x)
        return inplace(x)
    return call


def _add_fn(plain, into):
    name = getattr(plain, '_mx_op', getattr(plain, '__name__', 'op'))

    def call(lhs, rhs):
        # a shape or dtype mismatch goes through the operator, which raises MXNet's error
        if lhs.shape != rhs.shape or lhs.dtype != rhs.dtype:
            return plain(lhs, rhs)
        if _PROF.symbolic:
            return _profstate.run(name, _add_into, lhs, rhs, into)
        return lhs.add_(rhs) if into == 0 else rhs.add_(lhs)
    return call


def _add_into(lhs, rhs, into):
    return lhs.add_(rhs) if into == 0 else rhs.add_(lhs)


def _rebind(node, fn):
    old = node.target
    fn.__name__ = fn.__qualname__ = old.__name__
    for attr in ('_mx_op', '_mx_attrs', '_mx_node'):
        if hasattr(old, attr):
            setattr(fn, attr, getattr(old, attr))
    node.target = fn


def _skip_rnn_param_concat(graph):
    """Hand the RNN operator the flattened pieces of its ``_rnn_param_concat`` parameter vector (Gluon RNN layers
    build one per call) instead of their concatenation: the weights reach torch's RNN as views of the parameters,
    and neither the vector nor its gradient is allocated and copied each step. True when a node changed."""
    changed = False
    for node in list(graph.nodes):
        users = list(node.users)
        if (_op(node) != '_rnn_param_concat' or not users or not node.args
                or any(_op(u) != 'RNN' or len(u.args) < 2 or u.args[1] is not node or node in u.args[2:]
                       or node in u.kwargs.values() for u in users)):
            continue
        for u in users:
            u.args = (u.args[0], tuple(node.args)) + tuple(u.args[2:])
        graph.erase_node(node)
        changed = True
    return changed


def plan_inplace(gm):
    """A copy of the lowered module ``gm`` in which activations and additions write into their input where that is
    safe and RNN operators take their layer's weights unjoined (see the module docstring); ``gm`` itself is
    returned when nothing qualifies. ``gm`` is left unchanged, so monitors and op hooks, which report the inputs of
    each node, keep running it."""
    graph = torch.fx.Graph()
    out = graph.graph_copy(gm.graph, {})
    graph.output(out)
    changed = _skip_rnn_param_concat(graph)
    for node in graph.nodes:
        name = _op(node)
        if name in _UNARY:
            inplace = _UNARY[name](node.target._mx_attrs)
            if inplace is not None and len(node.args) == 1 and _fresh_single_use(node.args[0], node):
                _rebind(node, _unary_fn(node.target, inplace))
                changed = True
        elif name == _ADD and len(node.args) == 2:
            for i, src in enumerate(node.args):
                if isinstance(src, torch.fx.Node) and _fresh_single_use(src, node):
                    _rebind(node, _add_fn(node.target, i))
                    changed = True
                    break
    if not changed:
        return gm
    graph.lint()
    return torch.fx.GraphModule(gm, graph)
