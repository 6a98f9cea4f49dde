"""Shape and dtype inference over a symbol graph.

One forward pass over the nodes. Parameter inputs (weights, biases, moving stats, labels) get their shapes from the
data shape by the op's rule in ``opinfo.PARAM_SHAPES``; variable inputs whose dtype is unknown take the dtype of
the node's first known input (MXNet's rule for almost every op), except where the op says otherwise (Embedding's
weight follows its ``dtype``). Outputs come from running the registry op on meta tensors when all input shapes are
known, else their dtype follows the op's ``dtype`` attribute or the first input. Variables' ``__shape__`` and
``__dtype__`` attributes count as given.
"""
import torch

from ..base import MXNetError, MXNetTypeError, DTYPE_MX2NP, parse_tuple, to_np_dtype, to_torch_dtype
from . import opinfo
from .symbol import _aux_vars


def _given(nodes, shapes, dtypes):
    shp, typ = {}, {}
    for n in nodes:
        if not n.is_var:
            continue
        s = shapes.get(n.name)
        if s is None and '__shape__' in n.attrs:
            s = parse_tuple(n.attrs['__shape__'])  # may be partial: a 0 marks an unknown dimension
        if s is not None and len(s) and not any(s):
            s = None  # nothing known at all
        if s is not None:
            shp[(id(n), 0)] = tuple(int(d) for d in s)
        t = dtypes.get(n.name)
        if t is None and '__dtype__' in n.attrs:
            t = to_torch_dtype(DTYPE_MX2NP[int(n.attrs['__dtype__'])])
        if t is not None:
            typ[(id(n), 0)] = t
    return shp, typ


def infer(sym, shapes, dtypes, partial):
    """((arg, out, aux) shapes, (arg, out, aux) dtypes) given some input shapes and dtypes (torch dtypes).

    Shapes may be partial: a 0 is an unknown dimension (MXNet's legacy convention). Passes run forward and
    backward (same-shape ops, linked batch dimensions, parameter shapes) until nothing changes.
    """
    nodes = sym._nodes()
    var_names = {n.name for n in nodes if n.is_var}
    unknown = (set(shapes) | set(dtypes)) - var_names
    if unknown:
        raise MXNetError('infer_shape: unknown argument name(s) %s; the symbol takes %s'
                         % (sorted(unknown), sorted(var_names)))
    shp, typ = _given(nodes, shapes, dtypes)
    ops = [n for n in nodes if not n.is_var]
    _propagate(ops, shp, typ)
    for n in ops:
        _type_step(n, shp, typ)
    aux = _aux_vars(nodes)
    args = [n for n in nodes if n.is_var and id(n) not in aux]
    auxs = [n for n in nodes if n.is_var and id(n) in aux]
    arg_keys = [(id(n), 0) for n in args]
    aux_keys = [(id(n), 0) for n in auxs]
    out_keys = [(id(n), i) for n, i in sym._outputs]
    complete = {k: v for k, v in shp.items() if all(d > 0 for d in v)}
    return (_report(shp if partial else complete, arg_keys, out_keys, aux_keys, partial, tuple, ()),
            _report(typ, arg_keys, out_keys, aux_keys, partial, to_np_dtype, None))


def _propagate(ops, shp, typ):
    for _ in range(2 * len(ops) + 2):
        changed = False
        for n in ops:
            changed |= _shape_step(n, shp, typ)
        if not changed:
            break


def node_shapes(sym, shapes):
    """{(id(node), output index): shape} for every value of ``sym`` given its argument shapes (partial allowed)."""
    nodes = sym._nodes()
    shp, typ = _given(nodes, shapes, {})
    _propagate([n for n in nodes if not n.is_var], shp, typ)
    return shp


def _merge(a, b, where):
    """Two partial shapes of one value -> one; 0 dims are unknown."""
    if a is None:
        return tuple(b)
    if b is None or tuple(a) == tuple(b):
        return tuple(a)
    if len(a) != len(b):
        raise MXNetError('Shape inconsistent: %s vs %s for %s' % (tuple(a), tuple(b), where))
    out = []
    for x, y in zip(a, b):
        if x and y and x != y:
            raise MXNetError('Shape inconsistent, Provided = [%s], inferred shape=[%s] for %s'
                             % (','.join(map(str, a)), ','.join(map(str, b)), where))
        out.append(x or y)
    return tuple(out)


def _put(shp, key, shape, where):
    old = shp.get(key)
    new = _merge(old, shape, where)
    if old is None or tuple(old) != new:
        shp[key] = new
        return True
    return False


def _shape_step(n, shp, typ):
    """One inference step at op node ``n``; True when it learned something."""
    params = n.params()
    keys = [(id(s), i) for s, i in n.inputs]
    names = n.input_names()
    out_keys = [(id(n), i) for i in range(n.num_visible())]
    changed = False
    if keys:
        changed |= _param_shapes(n, params, keys, names, shp)
    # same-shape inputs <-> output 0, both ways
    same = opinfo.same_shape_inputs(n.op, names)
    if same:
        merged = shp.get(out_keys[0])
        for i in same:
            merged = _merge(merged, shp.get(keys[i]), '%s %s' % (n.op.name, n.name)) if shp.get(keys[i]) \
                is not None else merged
        if merged is not None:
            for i in same:
                changed |= _put(shp, keys[i], merged, 'input %s of %s' % (names[i], n.name))
            changed |= _put(shp, out_keys[0], merged, 'output of %s' % n.name)
    in_shapes = [shp.get(k) for k in keys]
    if all(s is not None for s in in_shapes):
        try:
            out_shapes = _infer_shapes_guessing_dtypes(n, params, in_shapes, [typ.get(k) for k in keys])
        except MXNetError:
            if all(all(d > 0 for d in s) for s in in_shapes):
                raise  # complete shapes that do not fit: a real error
            out_shapes = None  # unknown (0) dimensions the op cannot run with yet
        if out_shapes is not None:
            for i, s in enumerate(out_shapes[:len(out_keys)]):
                changed |= _put(shp, out_keys[i], tuple(s), 'output %d of %s' % (i, n.name))
    # dimensions linked between inputs and outputs, both ways
    in_nd = [None if s is None else len(s) for s in (shp.get(k) for k in keys)]
    out_nd = [None if s is None else len(s) for s in (shp.get(k) for k in out_keys)]
    for (ii, idim), (oi, odim) in opinfo.dim_links(n.op, params, in_nd, out_nd):
        a, b = shp.get(keys[ii]), shp.get(out_keys[oi]) if oi < len(out_keys) else None
        if a is None or b is None or idim >= len(a) or odim >= len(b):
            continue
        if a[idim] and not b[odim]:
            changed |= _put(shp, out_keys[oi], b[:odim] + (a[idim],) + b[odim + 1:], n.name)
        elif b[odim] and not a[idim]:
            changed |= _put(shp, keys[ii], a[:idim] + (b[odim],) + a[idim + 1:], n.name)
    back = opinfo.DATA_FROM_OUTPUT.get(n.op.name)
    if back is not None and keys and shp.get(keys[0]) is not None and shp.get(out_keys[0]) is not None:
        data = shp[keys[0]]
        if not all(data):
            changed |= _put(shp, keys[0], back(params, data, shp[out_keys[0]]), n.name)
    return changed


def _infer_shapes_guessing_dtypes(n, params, in_shapes, in_types):
    """Output shapes of op node ``n``. Inputs of unknown dtype run with the first known input dtype (float32 if
    none), or, when the op rejects that (integer indices such as batch_take's), the ones after the first as
    int32."""
    first = next((t for t in in_types if t is not None), torch.float32)
    guess = [t or first for t in in_types]
    try:
        return n.op.infer(n.op_args(in_shapes), n.op_args(guess), params)[0]
    except MXNetTypeError:
        if all(t is not None for t in in_types[1:]):
            raise
    guess = guess[:1] + [t or torch.int32 for t in in_types[1:]]
    return n.op.infer(n.op_args(in_shapes), n.op_args(guess), params)[0]


def _type_step(n, shp, typ):
    params = n.params()
    keys = [(id(s), i) for s, i in n.inputs]
    if keys:
        _input_dtypes(n, params, keys, typ)
    in_types = [typ.get(k) for k in keys]
    if not all(t is not None for t in in_types):
        if n.op.name in _DTYPE_FROM_ATTR:  # a cast's output dtype is known whatever its input's
            t = _dtype_param(params)
            if t is not None:
                typ[(id(n), 0)] = t
        return
    in_shapes = [shp.get(k) for k in keys]
    if all(s is not None and all(d > 0 for d in s) for s in in_shapes):
        _, out_types = n.op.infer(n.op_args(in_shapes), n.op_args(in_types), params)
    else:
        t = _dtype_param(params) or (in_types[0] if in_types else None)
        out_types = [t] * n.num_visible() if t is not None else []
    for i, t in enumerate(out_types[:n.num_visible()]):
        typ[(id(n), i)] = t


def _report(table, arg_keys, out_keys, aux_keys, partial, conv, missing):
    if not partial and not all(k in table for k in arg_keys + out_keys + aux_keys):
        return None, None, None
    get = lambda k: conv(table[k]) if k in table else missing  # noqa: E731
    return [get(k) for k in arg_keys], [get(k) for k in out_keys], [get(k) for k in aux_keys]


def _param_shapes(n, params, keys, names, shp):
    rule = opinfo.PARAM_SHAPES.get(n.op.name)
    data_shape = shp.get(keys[0])
    if rule is None or data_shape is None:
        return False
    want = rule(params, data_shape)
    changed = False
    for (src, _), key, iname in zip(n.inputs, keys, names):
        if iname not in want:
            continue
        shape = tuple(want[iname])
        old = shp.get(key)
        if old is not None and opinfo.COMPATIBLE.get(n.op.name, {}).get(iname, _never)(old, shape):
            continue
        if not any(shape):
            continue  # computed from unknown (0) data dimensions only: nothing learned yet
        changed |= _put(shp, key, shape, 'input %s (%s) of %s %s' % (iname, src.name, n.op.name, n.name))
    return changed


def _input_dtypes(n, params, keys, typ):
    known = [typ[k] for k in keys if k in typ]
    if not known:
        return
    first = known[0]
    for idx, ((src, _), key) in enumerate(zip(n.inputs, keys)):
        if key in typ or not src.is_var:
            continue
        if n.op.name == 'Embedding' and idx == 1:
            typ[key] = _dtype_param(params) or torch.float32
        else:
            typ[key] = first


# ops whose output dtype is their ``dtype`` attribute, whatever the input dtypes
_DTYPE_FROM_ATTR = frozenset(['Cast', 'amp_cast'])


def _dtype_param(params):
    """An op's ``dtype`` attribute as a torch dtype (None when it has none or it says None)."""
    d = params.get('dtype')
    if d is None or isinstance(d, torch.dtype):
        return d
    try:
        return to_torch_dtype(d)
    except MXNetError:
        return None


def _never(given, want):
    return False
