"""Running ops on meta tensors without loading torch._dynamo: shape inference's dispatch mode.

Shape inference runs the registry's torch implementation on ``meta`` tensors. Most of torch's meta kernels are
Python (``torch._meta_registrations``, ``torch._decomp``, ``torch._refs``); the pointwise ones (``add``, ``mul``,
``relu``, ``tanh`` ..., also the ``alpha * mm`` inside ``addmm``'s) sit behind a type-promotion wrapper that imports
``torch._dynamo`` on its first call: about 340 modules and 0.6 s on a 2-core machine, paid by the first deferred
initialization or ``bind`` of every process, though nothing else a training script does needs them.

``meta_inference()`` is a dispatch mode around such runs:

- a pointwise aten op (``torch.Tag.pointwise``, one result, not in place) on contiguous meta tensors of one dtype
  (not bool; where's condition bool) gets its result from torch without that kernel: the shape from
  ``torch.broadcast_tensors`` of its tensor arguments (C++ view kernels), the dtype from the same op run on CPU
  stand-ins of one element with the same dtypes and numbers of dimensions (the Python numbers passed as given). That
  is the meta kernel's result, contiguity included, for every pointwise overload (tests/operator/test_meta.py
  compares them; mixed dtypes and bools are where torch's CPU and meta kernels differ); an in-place one
  (``div_``, ``mul_``: dropout's) the same way, its first argument the result where the others broadcast to it;
- the common layers' other ops whose meta kernels are Python (``mm``, ``addmm``, ``bmm``, ``convolution``, the 2-d
  pools, ``_softmax``): their result by rule (``_meta_rules.py``), where the rule recognizes the arguments as valid.
  Those kernels check their arguments with ``torch._check``, whose first call imports sympy (about 490 modules,
  0.5 s on a 2-core machine);
- any other op, or one of those where that does not apply, runs torch's own meta kernel; a Python one with the mode
  kept on, so that the aten calls inside it (``addmm``'s ``alpha * mm``) are seen again.
"""
import contextlib

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode

from ._meta_rules import FACTORY_RULES, RULES, bound, dense

__all__ = ['meta_inference']

_META = torch.device('meta')
_CPU = torch.device('cpu')
_META_KEYS = torch._C.DispatchKeySet(torch._C.DispatchKey.Meta)
# OpOverload -> (pointwise fast path allowed, its Tensor argument positions, Python meta kernel, in-place pointwise)
_ops = {}
_WHERE = torch.ops.aten.where.self
# pointwise, but the output keeps the first argument's shape instead of broadcasting all tensor arguments
_NOT_BROADCAST = {torch.ops.aten.masked_fill.Scalar, torch.ops.aten.masked_fill.Tensor}


def _op_info(func):
    info = _ops.get(func)
    if info is None:
        schema = func._schema
        rets = schema.returns
        pointwise = (torch.Tag.pointwise in func.tags and len(rets) == 1 and str(rets[0].type) == 'Tensor'
                     and func not in _NOT_BROADCAST)
        fast = pointwise and not schema.is_mutable
        # in place on its first argument (``div_``, ``mul_``: dropout's), which is the result
        args = schema.arguments
        inplace = (pointwise and schema.is_mutable and bool(args) and args[0].alias_info is not None
                   and args[0].alias_info.is_write and not any(a.alias_info is not None and a.alias_info.is_write
                                                               for a in args[1:]))
        slots = tuple(i for i, a in enumerate(args) if str(a.type) == 'Tensor' and not a.kwarg_only)
        info = _ops[func] = (fast, slots, _python_meta(func), inplace)
    return info


def _python_meta(func):
    """Whether the dispatcher's meta kernel of ``func`` is a Python function (torch._meta_registrations'
    decompositions and refs, custom ops' fake kernels) rather than C++."""
    try:
        table = torch._C._dispatch_dump_table(func.name())
    except Exception:  # noqa: BLE001 -- not knowing: treat it as C++ and let torch run it as usual
        return False
    line = next((ln for ln in table.splitlines() if ln.startswith('Meta:')), '')
    return '.py:' in line


def _same_dtype(func, tensors):
    """The cases where CPU and meta kernels agree on the result dtype: one dtype, not bool (torch's CPU and meta
    kernels differ on some bool and mixed-dtype cases: shifts and pow of bools, the dtype of threshold_backward's
    result); where's condition is bool."""
    if func is _WHERE:
        if tensors[0].dtype is not torch.bool or len(tensors) == 1:
            return False
        tensors = tensors[1:]
    d = tensors[0].dtype
    return d is not torch.bool and all(t.dtype is d for t in tensors)


def _stand_in(t):
    return torch.ones((1,) * t.dim(), dtype=t.dtype, device=_CPU)  # (whatever torch.set_default_device says)


def _by_rule(rules, func, args, kwargs):
    """The result of ``func`` by its rule in ``rules`` (see _meta_rules), or None: no rule, or one that does not
    answer these arguments."""
    rule = rules.get(func)
    if rule is None:
        return None
    full = bound(func, args, kwargs)
    return None if full is None else rule(*full)


class _MetaInference(TorchDispatchMode):
    @classmethod
    def _should_skip_dynamo(cls):
        # torch wraps a mode's __torch_dispatch__ in torch._disable_dynamo (which imports torch._dynamo) unless
        # the mode says no; this one never runs under torch.compile (meta_inference steps aside there)
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        fast, slots, python, inplace = _op_info(func)
        tensors = []
        for a in (*args, *kwargs.values()):
            if isinstance(a, torch.Tensor):
                tensors.append(a)
            elif isinstance(a, (list, tuple)):
                tensors.extend(x for x in a if isinstance(x, torch.Tensor))
        if not tensors:  # (arange's decomposition loads sympy)
            out = _by_rule(FACTORY_RULES, func, args, kwargs)
            if out is not None:
                return out
        if not tensors or any(t.device != _META or type(t) is not torch.Tensor for t in tensors):
            return func(*args, **kwargs)  # factories, CPU scalars mixed in, subclasses: torch's own way
        if (fast or inplace) and _same_dtype(func, tensors) and all(dense(t) for t in tensors):
            try:
                shape = torch.broadcast_tensors(*tensors)[0].shape
                if inplace and (not args or args[0] is not tensors[0] or shape != tensors[0].shape):
                    raise ValueError  # not in place on the broadcast shape
                swap = {id(t): _stand_in(t) for t in tensors}
                cpu_args = [swap.get(id(a), a) for a in args]
                cpu_kwargs = {k: swap.get(id(v), v) for k, v in kwargs.items()}
                dtype = func(*cpu_args, **cpu_kwargs).dtype  # (in place: the casting checks)
            except Exception:  # noqa: BLE001 -- whatever it is, torch's meta kernel says it properly
                pass
            else:
                return args[0] if inplace else torch.empty(shape, dtype=dtype, device=_META)
        out = _by_rule(RULES, func, args, kwargs)
        if out is not None:
            return out
        if python and all(i >= len(args) or isinstance(args[i], torch.Tensor) for i in slots):
            with self:  # torch's Python meta kernel, with the aten calls inside it seen by this mode again
                return func.redispatch(_META_KEYS, *args, **kwargs)
        # a C++ meta kernel (views, factories, copies), or a Python number given for a Tensor (torch wraps it on
        # the way down): torch's own way
        return func(*args, **kwargs)


@contextlib.contextmanager
def meta_inference():
    """Within: ops on meta tensors as torch runs them (same shapes, dtypes and errors), without loading
    ``torch._dynamo`` for pointwise ops. Does nothing under another dispatch mode or torch.compile."""
    if _get_current_dispatch_mode() is not None or torch.compiler.is_compiling():
        yield
        return
    with _MetaInference():
        yield
