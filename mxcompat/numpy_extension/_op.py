"""The operators of ``mx.npx``: MXNet's NumPy-extension names for operators of the registry.

MXNet 1.9.1 registers each of these as an alias (``_npx_<name>``) of a legacy operator, so ``npx.fully_connected``
is ``FullyConnected`` with the same arguments, taking and giving ``mx.np.ndarray``. Here one adapter runs the
registry definition's torch implementation on the arrays' tensors, so ``mx.nd``, ``mx.sym`` and ``mx.npx`` share
one definition. The few operators MXNet defines for ``npx`` alone (``reshape`` with its codes, ``nonzero``,
``constraint_check``) are written below on torch.
"""
import functools
import inspect
import numbers

import torch

from ..base import MXNetError, MXNetTypeError, MXNetValueError
from ..context import current_context
from ..ndarray.ndarray import NDArray
from ..ndarray.register import _fresh, _op_error, _UNSET, cached_parser, bind_inputs
from ..numpy.multiarray import ndarray, _np_wrap, _write, NotAnArrayError
from ..operator import registry as _registry

# npx name -> the registry operator MXNet aliases it to (``.add_alias("_npx_<name>")`` in MXNet's sources)
OPS = {
    'activation': 'Activation',
    'arange_like': '_contrib_arange_like',
    'batch_dot': 'batch_dot',
    'batch_flatten': 'Flatten',
    'batch_norm': 'BatchNorm',
    'cast': 'Cast',
    'convolution': 'Convolution',
    'deconvolution': 'Deconvolution',
    'dropout': 'Dropout',
    'embedding': 'Embedding',
    'erf': 'erf',
    'erfinv': 'erfinv',
    'fully_connected': 'FullyConnected',
    'gamma': 'gamma',
    'gammaln': 'gammaln',
    'gather_nd': 'gather_nd',
    'layer_norm': 'LayerNorm',
    'leaky_relu': 'LeakyReLU',
    'log_softmax': 'log_softmax',
    'multibox_detection': '_contrib_MultiBoxDetection',
    'multibox_prior': '_contrib_MultiBoxPrior',
    'multibox_target': '_contrib_MultiBoxTarget',
    'one_hot': 'one_hot',
    'pick': 'pick',
    'pooling': 'Pooling',
    'relu': 'relu',
    'reshape_like': 'reshape_like',
    'rnn': 'RNN',
    'roi_pooling': 'ROIPooling',
    'sequence_mask': 'SequenceMask',
    'shape_array': 'shape_array',
    'sigmoid': 'sigmoid',
    'slice': 'slice',
    'smooth_l1': 'smooth_l1',
    'softmax': 'softmax',
    'topk': 'topk',
}

def _not_np(qual, name, value):
    if isinstance(value, NDArray):
        return TypeError('Operator `%s`: input %s is a legacy mx.nd.NDArray; npx operators take mx.np.ndarray '
                         '(call as_np_ndarray() on it first)' % (qual, name))
    return NotAnArrayError('Operator `%s`: input %s must be an mx.np.ndarray, got %s'
                           % (qual, name, type(value).__name__))


def _wrap_outputs(op, res, arrays, ctx, out):
    if isinstance(res, torch.Tensor):
        if op.view:
            res = _fresh(res, arrays)
        return _write(out, res) if out is not None else _np_wrap(res, ctx)
    res = [_fresh(r, arrays) for r in res] if op.view else res
    if out is not None:
        outs = out if isinstance(out, (list, tuple)) else (out,)
        if len(outs) != len(res):
            raise MXNetError('Operator %s expects %d outputs, but got %d instead (out=)'
                             % (op.name, len(res), len(outs)))
        for o, r in zip(outs, res):
            _write(o, r)
        return out
    return [_np_wrap(r, ctx) for r in res]


def make_npx_function(op, name, prefix='mx.npx'):  # noqa: C901 (the one-array fast path inline, for speed)
    """The ``mx.npx`` function of registry operator ``op``: MXNet's signature (inputs, then attributes, ``out``,
    ``name``); inputs are ``mx.np.ndarray`` (``None`` for an optional one left out); parsed attributes are cached
    per distinct call, as ``mx.nd``'s functions do."""
    if op.variadic:
        raise MXNetError('%s.%s: variadic operator %s has no npx adapter' % (prefix, name, op.name))
    qual = '%s.%s' % (prefix, name)
    inputs, pnames = op.inputs, tuple(op.param_names)
    impl, optional = op.impl, op.optional
    attrs_of = cached_parser(op.parse_attrs)
    # one new output, the inputs after the first optional: a call of one array and no attributes runs the
    # implementation bound to the default attributes, made on the first such call (``npx.relu(x)``,
    # ``npx.softmax(x)``: the per-call cost is the budget)
    simple = not op.view and op.num_outputs == 1 and all(i in optional for i in inputs[1:])
    absent = (None,) * (len(inputs) - 1)
    bound = []

    def fn(*args, out=None, name=None, **kwargs):  # noqa: ARG001 (name is MXNet's)
        if simple and not kwargs and out is None and len(args) == 1 and type(args[0]) is ndarray:
            x = args[0]
            if not bound:
                attrs = op.parse_attrs({})
                run = op.bind(attrs) if op.bind is not None and not absent else None
                bound.append(run or functools.partial(impl, **attrs))
            try:
                r = bound[0](x._t, *absent)
            except MXNetError:
                raise
            except (RuntimeError, IndexError, ValueError) as e:
                raise _op_error(op, (x,), e) from None
            return _np_wrap(r, x._ctx)
        arrays = bind_inputs(op, qual, args, kwargs)
        tensors = []
        ctx = None
        for iname, a in zip(inputs, arrays):
            if type(a) is ndarray:
                tensors.append(a._t)
                if ctx is None:
                    ctx = a._ctx
            elif a is None:
                if iname not in optional:
                    raise MXNetError('Operator %s: required input %r is missing' % (qual, iname))
                tensors.append(None)
            elif isinstance(a, ndarray):
                tensors.append(a._t)
            else:
                raise _not_np(qual, iname, a)
        attrs = attrs_of(kwargs)
        try:
            res = impl(*tensors, **attrs)
        except MXNetError:
            raise
        except (RuntimeError, IndexError, ValueError) as e:
            raise _op_error(op, arrays, e) from None
        return _wrap_outputs(op, res, arrays, ctx or current_context(), out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = 'MXNet operator %s (%s) on mx.np arrays; same arguments as mx.nd.%s.' % (op.name, qual, op.name)
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for n in inputs]
    params += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=_UNSET) for n in pnames]
    params += [inspect.Parameter('out', inspect.Parameter.KEYWORD_ONLY, default=None),
               inspect.Parameter('name', inspect.Parameter.KEYWORD_ONLY, default=None),
               inspect.Parameter('kwargs', inspect.Parameter.VAR_KEYWORD)]
    fn.__signature__ = inspect.Signature(params)
    fn._op = op
    return fn


def _build(table, prefix):
    return {name: make_npx_function(_registry.get(opname), name, prefix) for name, opname in table.items()}


globals().update(_build(OPS, 'mx.npx'))


# ---- operators MXNet defines for npx alone ------------------------------------------------------------------------
def _array_arg(qual, a):
    if isinstance(a, ndarray):
        return a
    raise _not_np(qual, 'a', a)


def _xreshape_shape(src, target):  # noqa: C901 (one branch per special code of MXNet's npx.reshape)
    """MXNet's ``npx.reshape`` shape rule. Codes: -1 infers one dimension (consuming one input dimension), -2
    copies an input dimension, -3 drops an input dimension of size 1, -4 copies all remaining ones, -5 merges two
    input dimensions, -6 splits one into the next two values (one of which may be -1)."""
    err = 'Cannot reshape array of shape %s into shape %s' % (tuple(src), tuple(target))
    out = []
    unknown = -1
    known = 1
    j = 0
    i = 0
    n = len(target)
    size = 1
    for s in src:
        size *= s
    while i < n:
        d = target[i]
        if d < -6:
            raise MXNetValueError('npx.reshape: dimension size must be greater than -6, received %d' % d)
        if d == -1:
            if unknown >= 0:
                raise MXNetValueError('npx.reshape: one and only one dim can be inferred')
            unknown = len(out)
            out.append(-1)
            j += 1
        elif d == -2:
            if j >= len(src):
                raise MXNetValueError('npx.reshape: unmatching dimension of proposed new shape (%s)' % err)
            known *= src[j]
            out.append(src[j])
            j += 1
        elif d == -3:
            if j >= len(src) or src[j] != 1:
                raise MXNetValueError('npx.reshape: -3 index should only be used to skip dimension size 1')
            j += 1
        elif d == -4:
            while j < len(src):
                known *= src[j]
                out.append(src[j])
                j += 1
        elif d == -5:
            if j >= len(src) - 1:
                raise MXNetValueError('npx.reshape: not enough dimensions left for the product')
            known *= src[j] * src[j + 1]
            out.append(src[j] * src[j + 1])
            j += 2
        elif d == -6:
            if i + 2 >= n or j >= len(src):
                raise MXNetValueError('npx.reshape: -6 needs two following values (%s)' % err)
            d0, d1, d2 = src[j], target[i + 1], target[i + 2]
            j += 1
            i += 2
            if d1 == -1 and d2 == -1:
                raise MXNetValueError('npx.reshape: split dims cannot both be -1')
            if d1 == -1:
                d1 = d0 // d2
            if d2 == -1:
                d2 = d0 // d1
            if d1 * d2 != d0:
                raise MXNetValueError('npx.reshape: split dims %d, %d do not divide original dim %d' % (d1, d2, d0))
            known *= d0
            out.extend((d1, d2))
        else:
            known *= d
            out.append(d)
            j += 1
        i += 1
    if unknown >= 0:
        if known == 0 or size % known:
            raise MXNetValueError(err)
        out[unknown] = size // known
    total = 1
    for s in out:
        total *= s
    if total != size:
        raise MXNetValueError(err)
    return tuple(out)


def reshape(a, newshape, reverse=False, order='C'):
    """MXNet's ``npx.reshape``: NumPy's reshape plus the special codes -2 (copy a dimension), -3 (drop a size-1
    dimension), -4 (copy the rest), -5 (merge two), -6 (split one into the next two values); ``reverse`` applies
    the codes from the right. Gives a new array, as MXNet's operator does."""
    a = _array_arg('mx.npx.reshape', a)
    if order != 'C':
        raise NotImplementedError('mx.npx.reshape: order=%r is not supported (MXNet: only C)' % (order,))
    target = (int(newshape),) if isinstance(newshape, numbers.Integral) else tuple(int(s) for s in newshape)
    if sum(1 for s in target if s == -1) > 1:
        raise MXNetValueError('npx.reshape: can only specify one unknown dimension')
    src = tuple(a._t.shape)
    if reverse:
        shape = _xreshape_shape(src[::-1], target[::-1])[::-1]
    else:
        shape = _xreshape_shape(src, target)
    return _np_wrap(a._t.reshape(shape).clone(), a._ctx)


def nonzero(a):
    """The indices of ``a``'s non-zero elements as an int64 array of shape ``(count, a.ndim)`` (MXNet's
    ``npx.nonzero``; NumPy's ``nonzero`` gives a tuple instead)."""
    a = _array_arg('mx.npx.nonzero', a)
    t = a._t
    if t.dim() == 0:  # (MXNet: one column of zeros, one row if the value is non-zero)
        t = t.reshape(1)
    return _np_wrap(torch.nonzero(t).to(torch.int64), a._ctx)


def constraint_check(x, msg):
    """Raises ``MXNetValueError`` with ``msg`` unless every element of the boolean array ``x`` is true; gives
    a 0-d bool array True otherwise."""
    a = _array_arg('mx.npx.constraint_check', x)
    if a._t.dtype is not torch.bool:
        raise MXNetTypeError('npx.constraint_check: input must be a boolean array, got %s' % a.dtype)
    if not bool(a._t.all()):
        raise MXNetValueError(msg)
    return _np_wrap(torch.ones((), dtype=torch.bool, device=a._t.device), a._ctx)


__all__ = sorted(OPS) + ['reshape', 'nonzero', 'constraint_check']
