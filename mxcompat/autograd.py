"""MXNet's imperative autograd (``mx.autograd``) on torch autograd.

Differs from MXNet: gradients are computed by torch's autograd engine. Recording state and training state are
per thread, as in MXNet. Outside ``record()`` results are detached from any graph, so calling ``backward`` on them
raises ``MXNetError`` as MXNet does.
"""
import weakref

import torch

from .base import MXNetError, MXNetValueError, unsupported
from ._recording import STATE, Recorded, _Scope, _set_grad_mode, _without_grad  # noqa: F401  (mx.autograd's state)
from ._intgrad import _IntGradTensor, _int_leaf
from .ndarray.ndarray import NDArray, _wrap
from .symbol.symbol import Symbol

__all__ = ['record', 'pause', 'train_mode', 'predict_mode', 'is_recording', 'is_training', 'set_recording',
           'set_training', 'mark_variables', 'backward', 'grad', 'get_symbol', 'Function',
           'NDArray', 'Symbol']  # (MXNet's autograd module exposes NDArray and Symbol: scripts star-import them)


def set_recording(is_recording):
    """Set recording on/off; returns the previous state."""
    prev = STATE.recording
    STATE.recording = bool(is_recording)
    return prev


def set_training(train_mode):
    """Set training mode on/off; returns the previous state."""
    prev = STATE.training
    STATE.training = bool(train_mode)
    return prev


def is_recording():
    return STATE.recording


def is_training():
    return STATE.training


def record(train_mode=True):
    """Record operations for gradient computation (``train_mode`` sets training behaviour of Dropout/BatchNorm)."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    """Stop recording inside a ``record()`` block."""
    return _Scope(False, train_mode)


def train_mode():
    """Training behaviour for Dropout/BatchNorm without changing recording."""
    return _Scope(None, True)


def predict_mode():
    """Inference behaviour for Dropout/BatchNorm without changing recording."""
    return _Scope(None, False)


# ---- variables ---------------------------------------------------------------------------------------------------
_GRAD_REQS = ('write', 'add', 'null')


def _grad_hook(tensor_ref, write):
    # Runs on the summed incoming gradient of a leaf before torch accumulates it. For grad_req='write', clearing
    # the buffer first makes torch's accumulation a plain write; either way the variable's grad is now fresh.
    def hook(g):
        if not STATE.in_grad:
            t = tensor_ref()
            if t is not None:
                if write and t.grad is not None:
                    t.grad.zero_()
                t._mx_fresh_grad = True
        return g
    return hook


def _attach(arr, grad_req='write', grad_buf=None):
    """Make NDArray ``arr`` a variable with a gradient buffer (``grad_buf`` tensor, or zeros)."""
    if grad_req not in _GRAD_REQS:
        raise MXNetValueError("grad_req must be one of 'write', 'add', 'null'; got %r" % (grad_req,))
    t = arr._t
    if t.grad_fn is not None or t.requires_grad:
        t = t.detach()  # a new variable: cut it from any earlier graph (data stays shared)
    if grad_req == 'null':
        arr._t = t
        t._mx_grad_req = 'null'
        return
    if not (t.is_floating_point() or t.is_complex()):
        arr._t = _int_leaf(t, grad_req, grad_buf)
        return
    t.requires_grad_(True)
    with torch.no_grad():
        t.grad = torch.zeros_like(t) if grad_buf is None else grad_buf
    t._mx_grad_req = grad_req
    t._mx_fresh_grad = False
    t.register_hook(_grad_hook(weakref.ref(t), grad_req == 'write'))
    arr._t = t


def mark_variables(variables, gradients, grad_reqs='write'):
    """Mark NDArrays as variables whose gradients go into the given NDArrays (shared buffers)."""
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if len(variables) != len(gradients) or len(variables) != len(grad_reqs):
        raise MXNetValueError('mark_variables: variables, gradients and grad_reqs must have equal lengths')
    for v, g, r in zip(variables, gradients, grad_reqs):
        _attach(v, r, None if g is None else g._t)


def _heads(heads, head_grads):
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = None if head_grads is None else ([head_grads] if isinstance(head_grads, NDArray)
                                                         else head_grads)
    heads = list(heads)
    if head_grads is None:
        head_grads = [None] * len(heads)
    head_grads = list(head_grads)
    if len(head_grads) != len(heads):
        raise MXNetValueError('backward: heads and head_grads must have the same length')
    ts, gs = [], []
    for h, g in zip(heads, head_grads):
        t = h._t
        surrogate = getattr(t, '_mx_grad_surrogate', None) if not t.requires_grad else None
        if surrogate is not None:  # (see keep_in_graph) an integer result: its float source takes the gradient
            ts.append(surrogate)
            gs.append(torch.ones_like(surrogate) if g is None else g._t.to(surrogate.dtype))
            continue
        zero_inputs = getattr(t, '_mx_zero_grad_inputs', None) if not t.requires_grad else None
        if zero_inputs is not None:  # (see keep_in_graph) a head whose gradients are zeros
            ts.append(sum((i * 0).sum() for i in zero_inputs))
            gs.append(torch.ones((), dtype=ts[-1].dtype, device=ts[-1].device))
            continue
        if not t.requires_grad:
            raise MXNetError('Cannot differentiate node because it is not in a computational graph. You need to '
                             'set is_recording to true or use autograd.record() to save computational graphs for '
                             'backward. If you want to differentiate the same graph twice, you need to pass '
                             'retain_graph=True to backward.')
        ts.append(t)
        gs.append(torch.ones_like(t) if g is None else g._t.to(t.dtype))
    return ts, gs


def keep_in_graph(result, *inputs, surrogate=None):
    """Keep ``result`` (a tensor torch's autograd cannot carry: a comparison's bool result) in the recorded graph
    of ``inputs`` with zero gradients, as MXNet records such operators: ``backward`` from it writes zeros to the
    variables behind ``inputs`` instead of raising 'not in a computational graph'. ``surrogate``: a float tensor in
    the graph that ``result`` is an integer cast of (``mean(x, dtype=int)``): backward from ``result`` goes
    through it, as MXNet's operators pass gradients through their output cast."""
    if STATE.recording:
        if surrogate is not None and surrogate.requires_grad:
            result._mx_grad_surrogate = surrogate
        else:
            result._mx_zero_grad_inputs = tuple(i for i in inputs if i.requires_grad)
    return result


_engine_run_backward = getattr(getattr(torch.autograd, 'graph', None), '_engine_run_backward', None)
_functorch_active = getattr(torch._C, '_are_functorch_transforms_active', None)


def _accumulate_backward(ts, gs, retain_graph, own_heads):
    """``torch.autograd.backward(ts, gs)``. Head gradients we made ourselves (``own_heads``: ones of each head's
    shape and dtype) go straight to the autograd engine, without torch's checks of its arguments (private torch
    API; falls back to the public call, as do tensor subclasses and functorch transforms)."""
    if (own_heads and _engine_run_backward is not None and _functorch_active is not None
            and not _functorch_active() and all(type(t) is torch.Tensor for t in ts)):
        _engine_run_backward(tuple(ts), tuple(gs), retain_graph, False, (), allow_unreachable=True,
                             accumulate_grad=True)
    else:
        torch.autograd.backward(ts, gs, retain_graph=retain_graph)


def _freeze_recorded(heads):
    """After a backward that freed the graph of tensors ``heads``: the recorded arrays still alive that come out of
    that graph become constants (their tensors detached, the data shared), as MXNet clears the autograd entries of
    the operators its backward went through. An operator of MXNet may be several torch nodes (a recurrent layer's
    final state stacks steps that its output also holds): an array counts as out of the freed graph when its own
    graph reaches a node of it. Variables (torch's leaves) are never freed; arrays of other graphs keep theirs."""
    st = STATE
    targets = {}
    for ref in st.recorded:
        a = ref()
        if a is not None:
            t = a._t
            fn = t.grad_fn
            # (the heads keep their graph: a second backward through them raises MXNet's error, see backward)
            if fn is not None and not any(t is h for h in heads):
                targets.setdefault(fn, []).append(a)
    st.recorded = Recorded()
    if not targets:
        return
    # the freed graph, discovered from the heads (torch's node objects, held here so that their identities stay);
    # every 32 nodes, the arrays whose node is known reached, or whose graph meets a reached node within a few
    # steps, are settled, so that the walk usually ends long before the graph does
    reached = set()
    stack = []
    for t in heads:
        fn = t.grad_fn
        if fn is not None and fn not in reached:
            reached.add(fn)
            stack.append(fn)
    walked = 0
    while stack:
        if walked % 32 == 0:
            _settle(targets, reached, 32)
            if not targets:
                return
        fn = stack.pop()
        walked += 1
        for nxt, _ in fn.next_functions:
            if nxt is not None and nxt not in reached and not _is_leaf_node(nxt):
                reached.add(nxt)
                stack.append(nxt)
    _settle(targets, reached, None)  # (the graph is complete: what does not reach it keeps its graph)
    for arrays in targets.values():
        st.recorded.extend(weakref.ref(a) for a in arrays)


def _settle(targets, reached, limit):
    """Detach the arrays of ``targets`` (node -> arrays) whose graph reaches a node of ``reached`` (looking at most
    ``limit`` nodes deep, or all: ``reached`` is then the whole freed graph, and nodes found not to reach it are
    remembered across the arrays); drop them from ``targets``."""
    clean = set() if limit is None else None
    for fn in list(targets):
        if _reaches(fn, reached, limit, clean):
            for a in targets.pop(fn):
                a._t = a._t.detach()


def _is_leaf_node(fn):
    return type(fn).__name__ == 'AccumulateGrad'


def _reaches(fn, reached, limit, clean=None):
    """Whether torch node ``fn``'s graph meets a node in ``reached`` (within ``limit`` nodes, or anywhere);
    ``clean``: nodes known not to (grows with what a walk without a hit met)."""
    stack, seen = [fn], set()
    while stack:
        n = stack.pop()
        if n in reached:
            return True
        if n in seen or _is_leaf_node(n) or (clean is not None and n in clean):
            continue
        seen.add(n)
        if limit is not None and len(seen) > limit:
            return False
        stack.extend(nxt for nxt, _ in n.next_functions if nxt is not None)
    if clean is not None:
        clean.update(seen)
    return False


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Compute gradients of ``heads`` into the ``.grad`` of the marked variables."""
    ts, gs = _heads(heads, head_grads)
    for t in ts:
        if getattr(t, '_mx_graph_freed', False):
            raise MXNetError('autograd.backward: the graph of this array was already used by a backward pass and '
                             'freed; pass retain_graph=True to the first backward to differentiate it twice')
    prev = STATE.training
    STATE.training = train_mode
    try:
        _accumulate_backward(ts, gs, retain_graph, head_grads is None)
        if not retain_graph:
            for t in ts:
                t._mx_graph_freed = True
            if STATE.recorded:
                _freeze_recorded(ts)
    except RuntimeError as e:
        raise MXNetError('autograd.backward: %s' % str(e).splitlines()[0]) from None
    finally:
        STATE.training = prev


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):
    """Gradients of ``heads`` with respect to ``variables``, returned as a list of new NDArrays (``.grad``
    untouched); a list even for a single variable, as MXNet 1.9.1 returns."""
    ts, gs = _heads(heads, head_grads)
    vs = [variables] if isinstance(variables, NDArray) else list(variables)
    if retain_graph is None:
        retain_graph = create_graph
    prev = STATE.training, STATE.in_grad
    STATE.training, STATE.in_grad = train_mode, True
    try:
        with torch.set_grad_enabled(create_graph):
            leaves = [v._t.__dict__.get('_mx_shadow_leaf', v._t) for v in vs]  # (an integer variable's float leaf)
            res = torch.autograd.grad(ts, leaves, gs, retain_graph=retain_graph, create_graph=create_graph,
                                      allow_unused=True)
    except RuntimeError as e:
        raise MXNetError('autograd.grad: %s' % str(e).splitlines()[0]) from None
    finally:
        STATE.training, STATE.in_grad = prev
    out = []
    for v, r in zip(vs, res):
        if r is None or r._is_zerotensor():
            r = torch.zeros_like(v._t)
        if isinstance(v._t, _IntGradTensor):  # an integer variable: its gradient in its buffer's dtype
            r = r.detach().to(v._t._mx_int_grad.dtype).as_subclass(torch.Tensor)
        if create_graph and not r.requires_grad and v._t.requires_grad:
            # A gradient that does not depend on the variable (radians, clip, abs'' ...): torch leaves it out of
            # the graph, MXNet keeps it in with a zero gradient; differentiating it again must work.
            r = _InGraph.apply(r, v._t)
        out.append(NDArray._from_tensor(r if create_graph else r.detach(), v._ctx))
    return out


class _InGraph(torch.autograd.Function):
    """``value`` as a node of the graph of ``var`` whose gradient with respect to ``var`` is zero."""

    @staticmethod
    def forward(ctx, value, var):
        ctx.var_meta = (var.shape, var.dtype, var.device)
        return value.clone()

    @staticmethod
    def backward(ctx, g):
        shape, dtype, device = ctx.var_meta
        return g, torch.zeros(shape, dtype=dtype, device=device)


def get_symbol(x):
    """Not available: torch autograd keeps no MXNet symbol of the recorded graph."""
    raise unsupported('mx.autograd.get_symbol', 'retrieving the recorded graph as a Symbol',
                      'trace the computation with a HybridBlock instead')


class Function:
    """Custom differentiable function: subclass with ``forward(self, *inputs)`` and ``backward(self, *grads)``
    working on NDArrays, as in MXNet."""

    def __init__(self):
        self._saved = ()

    def save_for_backward(self, *args):
        self._saved = args

    @property
    def saved_tensors(self):
        return self._saved

    def __call__(self, *inputs):
        func = self

        class _Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *ts):
                with pause(STATE.training):
                    outs = func.forward(*[NDArray._from_tensor(t, a._ctx) for t, a in zip(ts, inputs)])
                single = isinstance(outs, NDArray)
                ctx._single = single
                outs = (outs,) if single else tuple(outs)
                ctx._ctxs = [o._ctx for o in outs]
                return tuple(o._t for o in outs) if not single else outs[0]._t

            @staticmethod
            def backward(ctx, *gs):
                with pause(STATE.training):
                    grads = func.backward(*[NDArray._from_tensor(g.contiguous(), c)
                                            for g, c in zip(gs, ctx._ctxs)])
                grads = (grads,) if isinstance(grads, NDArray) else tuple(grads)
                return tuple(None if g is None else g._t for g in grads)

        res = _Fn.apply(*[i._t for i in inputs])
        ctx = inputs[0]._ctx if inputs else None
        if isinstance(res, tuple):
            return [_wrap(r, ctx) for r in res]
        return _wrap(res, ctx)

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError

