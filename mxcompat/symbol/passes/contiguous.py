"""The results of view operators made contiguous, as the eager ``mx.nd`` calls return them.

A view operator (slice, transpose, reshape ...) lowered as such returns a torch view; eager calls copy it (the
registry's ``view`` flag), so the operators after it see a contiguous array. This pass adds a ``.contiguous()``
after each view result, so that graph runs give the eager results bit for bit (a kernel may round differently on
strided memory). On a result that is already contiguous the call returns it unchanged.
"""
import operator

from ...operator import registry

__all__ = ['contiguous_views']


def contiguous_views(gm):
    """``gm`` (changed in place and recompiled) with a ``.contiguous()`` after every view operator's result."""
    graph = gm.graph
    changed = False
    for node in list(graph.nodes):
        name = getattr(node.target, '_mx_op', None) if node.op == 'call_function' else None
        if name is None or not registry.get(name).view:
            continue
        getitems = [u for u in node.users if u.op == 'call_function' and u.target is operator.getitem]
        for src in getitems or [node]:
            with graph.inserting_after(src):
                fresh = graph.call_method('contiguous', (src,))
            src.replace_all_uses_with(fresh, delete_user_cb=lambda u, f=fresh: u is not f)
            changed = True
    if changed:
        graph.lint()
        gm.recompile()
    return gm
