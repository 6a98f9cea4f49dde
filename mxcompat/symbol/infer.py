"""Shape and dtype inference over a symbol graph.

One forward pass over the nodes. Parameter inputs (weights, biases, moving stats, labels) get their shapes from the
data shape by the op's rule in ``opinfo.PARAM_SHAPES``; variable inputs whose dtype is unknown take the dtype of
the node's first known input (MXNet's rule for almost every op), except where the op says otherwise (Embedding's
weight follows its ``dtype``). Outputs come from running the registry op on meta tensors when all input shapes are
known, else their dtype follows the op's ``dtype`` attribute or the first input. Variables' ``__shape__`` and
``__dtype__`` attributes count as given.

Shapes are kept as MXNet keeps them inside: -1 is an unknown dimension, None an unknown number of dimensions.
Shapes coming in and going out are converted by the shape semantics in force (``mx.util.is_np_shape()``): in the
legacy semantics a 0 given is unknown and unknown dimensions are reported as 0 (an unknown shape as ``()``); under
NumPy shape semantics -1 is unknown, 0 a zero-size dimension, and an unknown shape is reported as None.
"""
import torch

from ..base import (BFLOAT16_CODE, BFLOAT16_MARKER, MXNetError, MXNetTypeError, DTYPE_MX2NP, parse_tuple, to_np_dtype,
                   to_torch_dtype)
from . import opinfo
from .opinfo import aux_vars as _aux_vars
from ..util import is_np_shape

UNKNOWN = -1  # an unknown dimension, inside inference

# The steps at a node with subgraphs (foreach, while_loop, cond): control_flow.py sets them when it loads
SUBGRAPH_STEPS = {}


def _complete(s):
    """Whether shape ``s`` is known with all its dimensions."""
    return s is not None and all(d >= 0 for d in s)


def _from_user(s, np_shape):
    """A shape as given (argument, ``__shape__``) -> the inside form. Legacy: 0 (or -1) is unknown, ``()`` stays
    a scalar's shape (mxcompat has 0-d arrays in legacy mode too). NumPy: -1 is unknown, None unknown ndim."""
    if s is None:
        return None
    if np_shape:
        return tuple(int(d) if d >= 0 else UNKNOWN for d in s)
    return tuple(int(d) if d > 0 else UNKNOWN for d in s)


def _to_user(s, np_shape):
    """The inside form -> what ``infer_shape`` reports under the given semantics."""
    if s is None:
        return None if np_shape else ()
    return tuple(s) if np_shape else tuple(d if d >= 0 else 0 for d in s)


def _to_legacy(s):
    """Unknown dimensions as 0, the form the op rules in ``opinfo`` and the meta-tensor runs take."""
    return None if s is None else tuple(d if d >= 0 else 0 for d in s)


def _zeros_unknown(s):
    """Result of a rule or op run on a shape with unknown dimensions (as 0): its zeros are unknown too."""
    return tuple(d if d > 0 else UNKNOWN for d in s)


def _show(s):
    return ','.join(str(d) for d in _to_user(s, is_np_shape()) or ())


def _given(nodes, shapes, dtypes):
    shp, typ = {}, {}
    np_shape = is_np_shape()
    for n in nodes:
        if not n.is_var:
            continue
        s = shapes.get(n.name)
        if s is None and '__shape__' in n.attrs:
            s = parse_tuple(n.attrs['__shape__'])  # may be partial; 'None' is an unknown shape
        s = _from_user(s, np_shape)
        if s is not None:
            shp[(id(n), 0)] = s
        t = dtypes.get(n.name)
        if t is None and '__dtype__' in n.attrs:
            t = _attr_dtype(n.attrs['__dtype__'])
        if t is not None:
            typ[(id(n), 0)] = t
    return shp, typ


def _attr_dtype(code):
    """A ``__dtype__`` attribute (MXNet's type code) as a torch dtype: -1 is unknown, 12 bfloat16 (the codes AMP's
    conversion writes)."""
    code = int(code)
    if code == -1:
        return None
    return torch.bfloat16 if code == BFLOAT16_CODE else to_torch_dtype(DTYPE_MX2NP[code])


def _reported_dtype(t):
    """A torch dtype as infer_type reports it: a numpy type, MXNet's marker dtype for bfloat16."""
    return BFLOAT16_MARKER if t is torch.bfloat16 else to_np_dtype(t)


def infer(sym, shapes, dtypes, partial):
    """((arg, out, aux) shapes, (arg, out, aux) dtypes) given some input shapes and dtypes (torch dtypes).

    Shapes may be partial (unknown dimensions are 0 in the legacy semantics, -1 under NumPy shape semantics).
    Passes run forward and backward (same-shape ops, linked batch dimensions, parameter shapes) until nothing
    changes.
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
    complete = {k: v for k, v in shp.items() if _complete(v)}
    np_shape = is_np_shape()
    return (_report(shp if partial else complete, arg_keys, out_keys, aux_keys, partial,
                    lambda s: _to_user(s, np_shape), _to_user(None, np_shape)),
            _report(typ, arg_keys, out_keys, aux_keys, partial, _reported_dtype, None))


def _propagate(ops, shp, typ):
    for _ in range(2 * len(ops) + 2):
        changed = False
        for n in ops:
            changed |= _shape_step(n, shp, typ)
        if not changed:
            break


def node_shapes(sym, shapes):
    """{(id(node), output index): shape} for every value of ``sym`` given its argument shapes (partial allowed);
    unknown dimensions are 0."""
    nodes = sym._nodes()
    shp, typ = _given(nodes, shapes, {})
    _propagate([n for n in nodes if not n.is_var], shp, typ)
    return {k: _to_legacy(v) for k, v in shp.items()}


def _merge(a, b, where):
    """Two partial shapes of one value -> one."""
    if a is None:
        return tuple(b)
    if b is None or tuple(a) == tuple(b):
        return tuple(a)
    if len(a) != len(b):
        raise MXNetError('Shape inconsistent: [%s] vs [%s] for %s' % (_show(a), _show(b), where))
    out = []
    for x, y in zip(a, b):
        if x >= 0 and y >= 0 and x != y:
            raise MXNetError('Shape inconsistent, Provided = [%s], inferred shape=[%s] for %s'
                             % (_show(a), _show(b), where))
        out.append(x if x >= 0 else y)
    return tuple(out)


def _put(shp, key, shape, where):
    old = shp.get(key)
    new = _merge(old, shape, where)
    if old is None or tuple(old) != new:
        shp[key] = new
        return True
    return False


def _shape_step(n, shp, typ):  # noqa: C901 (one pass step: forward, backward and per-op rules over one node)
    """One inference step at op node ``n``; True when it learned something."""
    if n.is_control_flow():
        return SUBGRAPH_STEPS['shape'](n, shp, typ)
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
    for i, o in opinfo.same_shape_pairs(n.op, len(keys), len(out_keys)):  # input i <-> output i, both ways
        known = shp.get(keys[i]) if shp.get(keys[i]) is not None else shp.get(out_keys[o])
        if known is not None:
            for key in (keys[i], out_keys[o]):
                if shp.get(key) is not None:
                    known = _merge(known, shp[key], '%s %s' % (n.op.name, n.name))
            changed |= _put(shp, keys[i], known, 'input %s of %s' % (names[i], n.name))
            changed |= _put(shp, out_keys[o], known, 'output %d of %s' % (o, n.name))
    in_shapes = [shp.get(k) for k in keys]
    partial_rule = opinfo.PARTIAL_SHAPES.get(n.op.name)
    if partial_rule is not None and not all(_complete(s) for s in in_shapes):
        for i, s in enumerate((partial_rule(params, in_shapes) or [])[:len(out_keys)]):
            changed |= _put(shp, out_keys[i], s, 'output %d of %s' % (i, n.name))
    elif all(s is not None for s in in_shapes) and all(_complete(in_shapes[i]) for i in
                                                        _NEEDS_COMPLETE.get(n.op.name, ()) if i < len(in_shapes)):
        known = all(_complete(s) for s in in_shapes)
        try:
            # unknown dimensions run as 0; a 0 in the result is then unknown (always, in the legacy semantics)
            out_shapes = _infer_shapes_guessing_dtypes(n, params, [_to_legacy(s) for s in in_shapes],
                                                       [typ.get(k) for k in keys])
        except MXNetError:
            if known:
                raise  # complete shapes that do not fit: a real error
            out_shapes = None  # unknown dimensions the op cannot run with yet
        if out_shapes is not None and not known and n.op.name in opinfo.CONCATS:
            # an input of unknown size along the joined axis leaves the output's size there unknown
            d = params.get('dim', 1) % len(out_shapes[0])
            if any(len(s) != len(out_shapes[0]) or s[d] < 0 for s in in_shapes):
                out_shapes = [tuple(out_shapes[0][:d]) + (0,) + tuple(out_shapes[0][d + 1:])]
        if out_shapes is not None:
            real_zeros = known and is_np_shape()
            for i, s in enumerate(out_shapes[:len(out_keys)]):
                if s is None:  # (an op's own rule may leave an output unknown)
                    continue
                s = tuple(s) if real_zeros else _zeros_unknown(s)
                changed |= _put(shp, out_keys[i], s, 'output %d of %s' % (i, n.name))
    # dimensions linked between inputs and outputs, both ways (and so between the inputs linked to one output
    # dimension, such as Concat's batch dimension, even while the output is unknown)
    in_nd = [None if s is None else len(s) for s in (shp.get(k) for k in keys)]
    out_nd = [None if s is None else len(s) for s in (shp.get(k) for k in out_keys)]
    groups = {}
    for (ii, idim), (oi, odim) in opinfo.dim_links(n.op, params, in_nd, out_nd):
        if oi < len(out_keys):
            groups.setdefault((out_keys[oi], odim), []).append((keys[ii], idim))
    for (okey, odim), ins in groups.items():
        slots = [(k, d) for k, d in ins + [(okey, odim)] if shp.get(k) is not None and d < len(shp[k])]
        known = [shp[k][d] for k, d in slots if shp[k][d] >= 0]
        if not known:
            continue
        for k, d in slots:
            if shp[k][d] < 0:
                changed |= _put(shp, k, shp[k][:d] + (known[0],) + shp[k][d + 1:], n.name)
    fill = opinfo.INPUTS_FROM_OUTPUT.get(n.op.name)
    if fill is not None and keys and shp.get(out_keys[0]) is not None:
        ins = [None if shp.get(k) is None else _to_legacy(shp[k]) for k in keys]
        for k, s in zip(keys, fill(params, ins, _to_legacy(shp[out_keys[0]]))):
            if s is not None:
                changed |= _put(shp, k, _zeros_unknown(s), n.name)
    back = opinfo.DATA_FROM_OUTPUT.get(n.op.name)
    if back is not None and keys and shp.get(keys[0]) is not None and shp.get(out_keys[0]) is not None:
        data = shp[keys[0]]
        if not _complete(data):
            more = back(params, _to_legacy(data), _to_legacy(shp[out_keys[0]]))
            changed |= _put(shp, keys[0], _zeros_unknown(more), n.name)
    return changed


# op -> inputs whose shape must be complete before MXNet's shape function says anything about the outputs
_NEEDS_COMPLETE = {'where': (0,)}


def _infer_shapes_guessing_dtypes(n, params, in_shapes, in_types):
    """Output shapes of op node ``n``. Inputs of unknown dtype run with the first known input dtype (float32 if
    none), or, when the op rejects that, the ones after the first as int32 (integer indices such as
    batch_take's), or all as int32 (integer-only operators: bitwise_and, lcm ...)."""
    first = next((t for t in in_types if t is not None), torch.float32)
    guesses = [[t or first for t in in_types]]
    if None in in_types[1:]:
        guesses.append(guesses[0][:1] + [t or torch.int32 for t in in_types[1:]])
    if None in in_types and first is torch.float32:
        guesses.append([t or torch.int32 for t in in_types])
    for i, guess in enumerate(guesses):
        try:
            return n.op.infer(n.op_args(in_shapes), n.op_args(guess), params)[0]
        except MXNetTypeError:
            if i == len(guesses) - 1:
                raise


def _type_step(n, shp, typ):
    if n.is_control_flow():
        return SUBGRAPH_STEPS['type'](n, shp, typ)
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
    if all(_complete(s) for s in in_shapes):
        _, out_types = n.op.infer(n.op_args(in_shapes), n.op_args(in_types), params)
    else:
        out_types = _types_on_stand_ins(n, in_shapes, in_types, params)
        if out_types is None:
            t = _dtype_param(params) or (in_types[0] if in_types else None)
            out_types = [t] * n.num_visible() if t is not None else []
    for i, t in enumerate(out_types[:n.num_visible()]):
        typ[(id(n), i)] = t


_STAND_IN_RANKS = (4, 2, 1, 3, 5)


def _types_on_stand_ins(n, in_shapes, in_types, params):
    """The output dtypes of node ``n`` whose input shapes are not all known, as MXNet infers types apart from
    shapes: the op run on stand-in shapes (unknown dimensions 8, then 1; an input of unknown rank of the first rank
    of ``_STAND_IN_RANKS`` the op takes), or None where it takes none of them."""
    for dim in (8, 1):
        known = [None if s is None else tuple(d if d >= 0 else dim for d in s) for s in in_shapes]
        for rank in _STAND_IN_RANKS if None in known else (None,):
            shapes = [(dim,) * rank if s is None else s for s in known]
            try:
                _, out_types = n.op.infer(n.op_args(shapes), n.op_args(in_types), params)
            except Exception:  # noqa: BLE001 (a stand-in shape this op refuses: try the next)
                continue
            return out_types
    return None


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
    if _complete(data_shape) and is_np_shape():
        want = rule(params, data_shape)  # zeros here are zero-size dimensions
    else:
        want = {k: _zeros_unknown(v) for k, v in rule(params, _to_legacy(data_shape)).items()}
    changed = False
    for (src, _), key, iname in zip(n.inputs, keys, names):
        if iname not in want:
            continue
        shape = tuple(want[iname])
        old = shp.get(key)
        if old is not None and (opinfo.COMPATIBLE.get(n.op.name, {}).get(iname, _never)(_to_legacy(old),
                                                                                       _to_legacy(shape))
                                or opinfo.DATA_SHAPED.get(n.op.name) == iname and tuple(old) == tuple(data_shape)):
            continue
        if not shape or all(d < 0 for d in shape):
            continue  # computed from unknown data dimensions only: nothing learned yet
        changed |= _put(shp, key, shape, 'input %s (%s) of %s %s' % (iname, src.name, n.op.name, n.name))
    return changed


def _input_dtypes(n, params, keys, typ):
    known = [typ[k] for k in keys if k in typ]
    if not known:
        return
    first = known[0]
    fixed = opinfo.INPUT_DTYPES.get(n.op.name)
    if callable(fixed):
        fixed = fixed(params)
    names = n.input_names() if fixed else ()
    for idx, ((src, _), key) in enumerate(zip(n.inputs, keys)):
        if key in typ or not src.is_var:
            continue
        if fixed and names[idx] in fixed:
            typ[key] = fixed[names[idx]]
        elif n.op.name == 'Embedding' and idx == 1:
            typ[key] = _dtype_param(params) or torch.float32
        elif idx > 0 and first in _FLOAT32_PARAMS.get(n.op.name, ()):
            typ[key] = torch.float32
        else:
            typ[key] = first


# BatchNorm's parameters and moving statistics for data of these dtypes are float32 (MXNet's type function)
_LOW = (torch.float16, torch.bfloat16)
_FLOAT32_PARAMS = {'BatchNorm': _LOW, '_contrib_BatchNormWithReLU': _LOW, 'BatchNorm_v1': (torch.float16,),
                   '_contrib_SyncBatchNorm': (torch.float16,)}


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
