"""``mx.nd.contrib``: operators filed under this namespace (filled from the registry by ``op.py``), plus the
Python-level functions MXNet defines here: eager control flow (foreach, while_loop, cond), rand_zipfian and the
wrappers of the AdamW / multi-LAMB update operators.

Differs from MXNet: while_loop pads unused steps of its stacked outputs with zeros (MXNet leaves them
uninitialised).
"""
import math

from ..base import MXNetValueError, MXNetTypeError
from ..context import current_context
from . import _internal, random as _random
from .ndarray import NDArray as _NDArray, full as _full, zeros as _zeros

__all__ = ['foreach', 'while_loop', 'cond', 'rand_zipfian', 'uniform', 'adamw_update', 'mp_adamw_update',
           'multi_adamw_update', 'multi_mp_adamw_update', 'multi_lamb_update', 'multi_mp_lamb_update']


# mx.nd's generated operator module (it imports this one, and fills its namespace): mxcompat/ndarray/__init__.py
# binds it here once imported
_op = None


# ---- nested lists of NDArrays <-> flat lists ---------------------------------------------------------------------
def _ndarray_leaf(x):
    return 0 if isinstance(x, _NDArray) else None


def _flatten(args, what, leaf=_ndarray_leaf):
    """(flat list, format) of nested lists; ``leaf(x)`` is a leaf's format entry (None: not a leaf)."""
    width = leaf(args)
    if width is not None:
        return [args], width
    if not isinstance(args, (list, tuple)):
        kind = 'Symbol' if leaf is not _ndarray_leaf else 'NDArray'
        raise MXNetTypeError('%s must be a(n) %s or a (nested) list of %ss, got %s' % (what, kind, kind, type(args)))
    flat, fmt = [], []
    for a in args:
        f, m = _flatten(a, what, leaf)
        flat.extend(f)
        fmt.append(m)
    return flat, fmt


def _regroup(flat, fmt):
    if isinstance(fmt, int):
        return (flat[0], flat[1:]) if fmt == 0 else (flat[:fmt], flat[fmt:])
    out = []
    for f in fmt:
        r, flat = _regroup(flat, f)
        out.append(r)
    return out, flat


def _scalar(v, typ, what):
    if hasattr(v, 'asscalar'):
        v = v.asscalar()
    try:
        return typ(v)
    except Exception:
        raise MXNetValueError('Cannot convert %s to python %s' % (what, typ.__name__)) from None


# ---- control flow ------------------------------------------------------------------------------------------------
def foreach(body, data, init_states, name='foreach'):  # noqa: ARG001 (names only symbolic subgraphs)
    """Run ``body(slice, states) -> (outputs, states)`` over axis 0 of ``data``; returns the stacked outputs and the
    final states, in the same nesting as ``body`` returns them."""
    _flatten(data, 'foreach data')
    _flatten(init_states, 'foreach init_states')
    single = isinstance(data, _NDArray)
    n = data.shape[0] if single else data[0].shape[0]
    states, steps, fmt = init_states, [], None
    for i in range(n):
        outs, states = body(data[i] if single else [d[i] for d in data], states)
        flat, fmt = _flatten(outs, 'foreach output')
        steps.append(flat)
    stacked = [_op.stack(*col) for col in zip(*steps)]
    if fmt is None:
        return [], states
    return _regroup(stacked, fmt)[0], states


def while_loop(cond, func, loop_vars, max_iterations=None, name='while_loop'):  # noqa: ARG001
    """Run ``func(*loop_vars) -> (step_output, new_loop_vars)`` while ``cond(*loop_vars)`` holds, at most
    ``max_iterations`` times; returns (step outputs stacked to max_iterations rows, final loop_vars)."""
    if max_iterations is None:
        raise MXNetValueError('max_iterations should be specified')
    max_iterations = _scalar(max_iterations, int, 'max_iteration')
    single = isinstance(loop_vars, _NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    if not loop_vars:
        raise MXNetValueError('loop_vars should contain at least one element')
    steps, fmt = [], None
    while len(steps) < max_iterations and _scalar(cond(*loop_vars), bool, 'Return value of cond'):
        out, new_vars = func(*loop_vars)
        out = [] if out is None else list(out) if isinstance(out, tuple) else out
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, _NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise MXNetValueError('The length of loop_vars should be consistent during the loop')
        loop_vars = new_vars
        flat, fmt = _flatten(out, 'while output')
        if steps and len(flat) != len(steps[0]):
            raise MXNetValueError('Number of elements in step_output should be the same in each step')
        steps.append(flat)
    stacked = []
    for i, col in enumerate(zip(*steps), 1):
        items = [x.expand_dims(0) for x in col]
        if len(steps) != max_iterations:
            items.append(_zeros((max_iterations - len(steps),) + tuple(items[0].shape[1:]), ctx=items[0].context,
                                  dtype=items[0].dtype))
        shapes = {tuple(x.shape[1:]) for x in items}
        if len(shapes) > 1:
            raise MXNetValueError('Shapes of %d-th elements in step_outputs are inconsistent: %s'
                                  % (i, [tuple(x.shape) for x in items]))
        stacked.append(_op.concat(*items, dim=0))
    if fmt is not None:
        stacked = _regroup(stacked, fmt)[0]
    return stacked, loop_vars[0] if single else loop_vars


def cond(pred, then_func, else_func, name='cond'):  # noqa: ARG001
    """``then_func()`` if the scalar NDArray ``pred`` is true, else ``else_func()``."""
    return then_func() if _scalar(pred, bool, 'pred') else else_func()


# ---- sampling ----------------------------------------------------------------------------------------------------
def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Sample ``num_sampled`` classes from an approximately log-uniform (Zipfian) distribution over
    [0, range_max); returns (sampled int64, expected count of true_classes, expected count of the samples)."""
    ctx = ctx or current_context()
    return zipfian(_random.uniform, true_classes.as_in_context(ctx), num_sampled, range_max, ctx=ctx)


def zipfian(uniform, true_classes, num_sampled, range_max, **where):
    """``rand_zipfian`` for NDArrays or Symbols (``uniform``: that API's ``random.uniform``)."""
    log_range = math.log(range_max + 1)
    draw = uniform(0, log_range, shape=(num_sampled,), dtype='float64', **where)
    sampled = (draw.exp() - 1).astype('int64') % range_max  # (the modulo keeps rounding inside the range)

    def expected(c):  # num_sampled * P(c), P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)
        c = c.astype('float64')
        return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled
    return sampled, expected(true_classes), expected(sampled)


def uniform(*args, **kwargs):
    """Same as ``mx.nd.random.uniform`` (MXNet's contrib module re-exports it)."""
    return _random.uniform(*args, **kwargs)


# ---- update-operator wrappers ------------------------------------------------------------------------------------
def _rescale_array(rescale_grad, ctx):
    if isinstance(rescale_grad, _NDArray):
        return rescale_grad.as_in_context(ctx)
    return _full((1,), rescale_grad, ctx=ctx)


def _interleave(*lists):
    return [a for group in zip(*lists) for a in group]


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                 clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW step (``_adamw_update``); ``rescale_grad`` may be a number or an NDArray (nan/inf/0 skips the step)."""
    return _internal._adamw_update(weight, grad, mean, var, _rescale_array(rescale_grad, weight.context), lr=lr,
                                  eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                                  clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8,
                    wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW step on the float32 master copy ``weight32`` (``_mp_adamw_update``)."""
    return _internal._mp_adamw_update(weight, grad, mean, var, weight32,
                                     _rescale_array(rescale_grad, weight.context), lr=lr, eta=eta, beta1=beta1,
                                     beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out,
                                     name=name, **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None, name=None, size=0,
                       **kwargs):
    """AdamW over lists of arrays (``_multi_adamw_update``)."""
    args = _interleave(weights, grads, mean, var) + [_rescale_array(rescale_grad, weights[0].context)]
    return _internal._multi_adamw_update(*args, out=out, num_weights=size or len(weights), lrs=lrs, wds=wds,
                                        etas=etas, name=name, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out=None, name=None,
                          size=0, **kwargs):
    """AdamW over lists of arrays with float32 master copies (``_multi_mp_adamw_update``)."""
    args = _interleave(weights, grads, mean, var, weights32) + [_rescale_array(rescale_grad, weights[0].context)]
    return _internal._multi_mp_adamw_update(*args, out=out, num_weights=size or len(weights), lrs=lrs, wds=wds,
                                           etas=etas, name=name, **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0, **kwargs):
    """LAMB over lists of arrays (``_multi_lamb_update``)."""
    return _internal._multi_lamb_update(*_interleave(weights, grads, mean, var), out=out,
                                       num_tensors=num_tensors or len(weights), step_count=step_count,
                                       learning_rates=lrs, wds=wds, **kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None, num_tensors=0,
                         **kwargs):
    """LAMB over lists of arrays with float32 master copies (``_multi_mp_lamb_update``)."""
    return _internal._multi_mp_lamb_update(*_interleave(weights, grads, mean, var, weights32), out=out,
                                          num_tensors=num_tensors or len(weights), step_count=step_count,
                                          learning_rates=lrs, wds=wds, **kwargs)


from ._gaps import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr('nd.contrib', __name__)  # MXNet names mxcompat lacks: stubs that raise naming them
