"""Deferred shapes of one-operator layers without tracing them.

A layer such as ``Conv2D``, ``Dense`` or ``BatchNorm`` runs one registry operator on its input and its own
Parameters. The first forward pass of such a layer with unknown input channels needs its Parameters' shapes: the
general way records ``hybrid_forward`` on Symbols and runs the graph's shape inference (about 0.3 ms a layer, most
of a deep network's first forward). Here the operator's own rule (``opinfo.PARAM_SHAPES``) gives them from the
input's shape, and the operator's inference checks the result, as the graph's would. Anything else (several
inputs, NumPy shape semantics, a shape the rule cannot give, an operator that rejects the shapes) returns False, and
the caller traces the graph as before, with its errors and messages.
"""
from ..base import MXNetError, to_torch_dtype
from ..ndarray.ndarray import NDArray
from ..operator import registry
from ..symbol import opinfo
from ..util import is_np_shape


def infer_from_rule(layer, args):
    """Set the shapes of ``layer``'s Parameters from its one operator's rule and the shape of its only input; True
    when done. ``layer._one_op()`` gives (operator name, attributes, [(op input name, Parameter, or None for the
    data)]) or None."""
    one = layer._one_op()
    if one is None or len(args) != 1 or type(args[0]) is not NDArray or is_np_shape():
        return False
    name, kwargs, inputs = one
    data = args[0]
    shape = tuple(data.shape)
    rule = opinfo.PARAM_SHAPES.get(name)
    if rule is None or not shape or 0 in shape:
        return False
    try:
        op = registry.get(name)
        attrs = op.parse_attrs(kwargs)
        want = rule(attrs, shape)
    except (MXNetError, LookupError, ValueError, TypeError, IndexError):
        return False
    shapes = []
    for key, param in inputs:
        if param is None:
            shapes.append(shape)
            continue
        got, known = want.get(key), param.shape
        if got is None or known is None or len(got) != len(known) or not all(d > 0 for d in got) or any(
                k not in (0, d) for k, d in zip(known, got)):
            return False
        shapes.append(tuple(got))
    dtypes = [data.dtype if p is None else p.dtype for _, p in inputs]
    try:
        op.infer(shapes, [to_torch_dtype(d) for d in dtypes], attrs)
    except MXNetError:
        return False
    for (_, param), got in zip(inputs, shapes):
        if param is not None:
            param.var()  # (made now, with the unknown dimensions, as the trace makes it: export writes that shape)
            param.shape = got
    return True

