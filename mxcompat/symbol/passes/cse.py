"""MXNet's common-subexpression elimination (``MXNET_ELIMINATE_COMMON_EXPR``, on by default), on a Symbol.

MXNet's bound executors and cached ops run the symbol with identical operator nodes merged; a bound executor's
``get_optimized_symbol()`` returns that symbol.
"""
from ...operator import registry
from .. import opinfo
from ..symbol import Symbol, _Node

__all__ = ['eliminate_common_expr']


def eliminate_common_expr(sym):
    """MXNet's common-subexpression elimination: operator nodes with the same op, attributes and inputs are
    merged (random and stateful ops never are); an output that then repeats another gets a ``_copy`` node
    named ``<node>_<k>_copy``. Returns a new Symbol (the variables are shared with ``sym``)."""
    new = {}      # id(old node) -> node kept
    seen = {}     # (op name, attrs, inputs) -> node kept
    for n in sym._nodes():
        if n.is_var:
            new[id(n)] = n
            continue
        ins = [(new[id(s)], i) for s, i in n.inputs]
        key = None
        if ins and not n.op.name.startswith(opinfo.NONDETERMINISTIC_PREFIXES) and not n.op.aux and not n.subgraphs:
            key = (n.op.name, tuple(sorted(n.attrs.items())), tuple((id(s), i) for s, i in ins))
        if key is not None and key in seen:
            new[id(n)] = seen[key]
            continue
        node = _Node(n.op, n.name, n.attrs, ins, n.subgraphs)
        node._parsed = n._parsed  # the same operator state (a Custom node keeps its one prop, as in MXNet)
        new[id(n)] = node
        if key is not None:
            seen[key] = node
    outs, count = [], {}
    for n, i in sym._outputs:
        entry = (new[id(n)], i)
        k = (id(entry[0]), i)
        if k in count:
            copy = _Node(registry.get('_copy'), '%s_%d_copy' % (entry[0].name, count[k]), {}, [entry])
            count[k] += 1
            entry = (copy, 0)
        else:
            count[k] = 0
        outs.append(entry)
    return Symbol(outs)
