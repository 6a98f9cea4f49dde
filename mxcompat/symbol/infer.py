"""Shape and dtype inference over a symbol graph.

One forward pass over the nodes. Parameter inputs (weights, biases, moving stats, labels) get their shapes from the
data shape by the op's rule in ``opinfo.PARAM_SHAPES``; variable inputs whose dtype is unknown take the dtype of
the node's first known input (MXNet's rule for almost every op), except where the op says otherwise (Embedding's
weight follows its ``dtype``). Outputs come from running the registry op on meta tensors when all input shapes are
known, else their dtype follows the op's ``dtype`` attribute or the first input. Variables' ``__shape__`` and
``__dtype__`` attributes count as given.
"""
import torch

from ..base import MXNetError, DTYPE_MX2NP, parse_tuple, to_np_dtype, to_torch_dtype
from . import opinfo
from .symbol import _aux_vars


def _given(nodes, shapes, dtypes):
    shp, typ = {}, {}
    for n in nodes:
        if not n.is_var:
            continue
        s = shapes.get(n.name)
        if s is None and '__shape__' in n.attrs:
            s = parse_tuple(n.attrs['__shape__'])
            if s is not None and not all(d > 0 for d in s):
                s = None  # a 0 marks an unknown dimension in MXNet's legacy shapes
        if s is not None:
            shp[(id(n), 0)] = tuple(int(d) for d in s)
        t = dtypes.get(n.name)
        if t is None and '__dtype__' in n.attrs:
            t = to_torch_dtype(DTYPE_MX2NP[int(n.attrs['__dtype__'])])
        if t is not None:
            typ[(id(n), 0)] = t
    return shp, typ


def infer(sym, shapes, dtypes, partial):
    """((arg, out, aux) shapes, (arg, out, aux) dtypes) given some input shapes and dtypes (torch dtypes)."""
    nodes = sym._nodes()
    var_names = {n.name for n in nodes if n.is_var}
    unknown = (set(shapes) | set(dtypes)) - var_names
    if unknown:
        raise MXNetError('infer_shape: unknown argument name(s) %s; the symbol takes %s'
                         % (sorted(unknown), sorted(var_names)))
    shp, typ = _given(nodes, shapes, dtypes)
    for n in nodes:
        if n.is_var:
            continue
        params = n.params()
        keys = [(id(s), i) for s, i in n.inputs]
        names = n.input_names()
        if keys:
            _param_shapes(n, params, keys, names, shp)
            _input_dtypes(n, params, keys, typ)
        in_shapes = [shp.get(k) for k in keys]
        in_types = [typ.get(k) for k in keys]
        types_known = all(t is not None for t in in_types)
        if all(s is not None for s in in_shapes):
            metas_t = [t if t is not None else torch.float32 for t in in_types]
            out_shapes, out_types = n.op.infer(n.op_args(in_shapes), n.op_args(metas_t), params)
            for i, s in enumerate(out_shapes):
                shp[(id(n), i)] = tuple(s)
                if types_known:
                    typ[(id(n), i)] = out_types[i]
        elif types_known:
            t = _dtype_param(params)
            if t is None and in_types:
                t = in_types[0]
            if t is not None:
                for i in range(n.num_visible()):
                    typ[(id(n), i)] = t
    aux = _aux_vars(nodes)
    args = [n for n in nodes if n.is_var and id(n) not in aux]
    auxs = [n for n in nodes if n.is_var and id(n) in aux]
    arg_keys = [(id(n), 0) for n in args]
    aux_keys = [(id(n), 0) for n in auxs]
    out_keys = [(id(n), i) for n, i in sym._outputs]
    return (_report(shp, arg_keys, out_keys, aux_keys, partial, lambda s: s, ()),
            _report(typ, arg_keys, out_keys, aux_keys, partial, to_np_dtype, None))


def _report(table, arg_keys, out_keys, aux_keys, partial, conv, missing):
    if not partial and not all(k in table for k in arg_keys + out_keys + aux_keys):
        return None, None, None
    get = lambda k: conv(table[k]) if k in table else missing  # noqa: E731
    return [get(k) for k in arg_keys], [get(k) for k in out_keys], [get(k) for k in aux_keys]


def _param_shapes(n, params, keys, names, shp):
    rule = opinfo.PARAM_SHAPES.get(n.op.name)
    data_shape = shp.get(keys[0])
    if rule is None or data_shape is None:
        return
    want = rule(params, data_shape)
    for (src, _), key, iname in zip(n.inputs, keys, names):
        if iname not in want:
            continue
        shape = tuple(want[iname])
        old = shp.get(key)
        if old is None:
            shp[key] = shape
        elif tuple(old) != shape and not opinfo.COMPATIBLE.get(n.op.name, {}).get(iname, _never)(old, shape):
            raise MXNetError('Shape inconsistent, Provided = [%s], inferred shape=[%s] for input %s (%s) of %s %s'
                             % (','.join(map(str, old)), ','.join(map(str, shape)), iname, src.name, n.op.name,
                                n.name))


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
