"""``Executor``: a Symbol bound to arrays, running its lowered ``torch.fx`` graph forward and backward.

Differs from MXNet: the graph is a ``torch.fx.GraphModule`` (``executor.graph_module``) run by torch; backward
goes through torch autograd. ``group2ctx`` (model parallelism across devices) is not supported. On a GPU with
``MXNET_ENABLE_CUDA_GRAPHS=1``, forward and backward replay CUDA graphs (``kernels.cuda_graphs``), as MXNet's.
"""
import operator

import numpy as np
import torch

from . import autograd as _ag
from . import _memory  # (big arrays on huge pages)
from ._intgrad import _IntGradTensor, _int_leaf
from .base import MXNetError, MXNetValueError, MXNetTypeError, to_torch_dtype, unsupported
from .context import Context
from .kernels import cuda_graphs
from .ndarray.ndarray import NDArray, array as _nd_array
from .ndarray.sparse import BaseSparseNDArray, CSRNDArray, RowSparseNDArray, summed_rows, zeros as _sparse_zeros
from .operator import registry
from .operator.extra_ops import _ZeroGrad
from .symbol import runner as _runner
from .symbol.infer import infer
from .symbol.lower import run_monitored
from .symbol.passes.storage import (CsrValue, csr_row_sources, plan as _storage_plan, row_sparse_grads,
                                    run_sparse)
from .symbol.passes.subgraph import executor_backend
from .symbol.symbol import gradient_inputs

_storage_use_count = getattr(torch._C, '_storage_Use_Count', None)  # private; without it we copy

__all__ = ['Executor']

_ZERO_GRAD_NODE = _ZeroGrad._backward_cls  # autograd node of operators whose MXNet backward writes zeros
_STRIDED = torch.strided


def _as_list(names, arrays, what, allow_missing=False):
    if arrays is None:
        return [None] * len(names)
    if isinstance(arrays, dict):
        missing = [n for n in names if n not in arrays]
        if missing and not allow_missing:
            raise MXNetValueError('bind: %s is missing %s' % (what, ', '.join(repr(m) for m in missing)))
        return [arrays.get(n) for n in names]
    arrays = list(arrays)
    if len(arrays) != len(names):
        raise MXNetValueError('bind: %s has %d arrays, the symbol needs %d (%s)'
                              % (what, len(arrays), len(names), ', '.join(names)))
    return arrays


def _output_alias(t):
    """The tensor an output array holds: ``t``'s memory without autograd's version counter. In MXNet an executor's
    output array is the memory its backward pass reads (an Activation's gradient reads its output), so writing into
    it between forward and backward changes the gradients; ``detach()`` would share the counter, and torch would
    refuse that backward. (Which values a backward reads is torch's: sigmoid and tanh read their outputs, where
    MXNet's CPU kernels read their inputs.)"""
    return t.data


def _autograd_grad(outputs, heads, inputs):
    """Gradients of ``outputs`` (seeded with ``heads``) for ``inputs``; the graph is kept for another backward."""
    return torch.autograd.grad(outputs, inputs, heads, allow_unused=True, retain_graph=True)


_engine_run_backward = _ag._engine_run_backward  # (private torch API, or None)


def _run_backward(outputs, heads, inputs):
    """``_autograd_grad`` for heads the executor made itself (of the right shapes and dtypes): straight into the
    autograd engine, without ``torch.autograd.grad``'s checks of its arguments (private torch API; falls back)."""
    if _engine_run_backward is None:
        return _autograd_grad(outputs, heads, inputs)
    return _engine_run_backward(outputs, heads, True, False, inputs, True, accumulate_grad=False)


# below this many elements a copy costs less than the checks that allow adopting
_ADOPT_MIN = 1 << 16


def _sole_owner(t):
    """Whether ``t`` is the only tensor on its storage and spans all of it (no views, no numpy aliases)."""
    st = t.untyped_storage()
    # one reference from the tensor, one from `st`, one more when t is a view kept alive only through its `_base`
    return (_storage_use_count(st._cdata) == 2 + (t._base is not None) and t.storage_offset() == 0
            and t.is_contiguous()
            and st.nbytes() == t.numel() * t.element_size())


def _adopt(dst, g):
    """Write gradient ``g`` into ``dst`` without copying, by moving ``dst`` onto ``g``'s storage, when nothing else
    can observe the difference: neither tensor shares its storage with another tensor (a view of ``dst`` taken
    earlier would otherwise keep the old values) and both are plain dense tensors of the same kind."""
    if (_storage_use_count is None or type(g) is not torch.Tensor  # (a subclass: engine's deferred-error mark)
            or g.numel() < _ADOPT_MIN or g.shape != dst.shape or g.dtype != dst.dtype
            or g.device != dst.device or g.requires_grad or dst.layout != torch.strided or g.layout != torch.strided):
        return False
    if not (_sole_owner(g) and _sole_owner(dst)):
        return False
    dst.set_(g.untyped_storage(), 0, dst.shape, dst.stride())
    return True


class Executor:
    """A bound symbol. ``forward(is_train, **inputs)``, ``backward(out_grads)``, and MXNet's array dicts."""

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req='write', aux_states=None, group2ctx=None,
                 shared_exec=None, _shared_outputs=None):
        if group2ctx:
            raise unsupported('Symbol.bind', 'group2ctx', 'model parallelism over devices is not implemented')
        if not isinstance(ctx, Context):
            raise MXNetTypeError('bind: ctx must be a Context, got %s' % type(ctx).__name__)
        self._symbol = symbol
        self._ctx = ctx
        arg_names = symbol.list_arguments()  # (the lowered graph's argument order too)
        self.arg_arrays = _as_list(arg_names, args, 'args')
        self._arg_index = {n: i for i, n in enumerate(arg_names)}
        for n, a in zip(arg_names, self.arg_arrays):
            if not isinstance(a, NDArray):
                raise MXNetTypeError('bind: argument %r must be an NDArray, got %s' % (n, type(a).__name__))
        self.grad_arrays = _as_list(arg_names, args_grad, 'args_grad', allow_missing=True)
        if isinstance(grad_req, str):
            reqs = [grad_req] * len(arg_names)
        elif isinstance(grad_req, dict):
            reqs = [grad_req.get(n, 'null') for n in arg_names]
        else:
            reqs = list(grad_req)
        for r in reqs:
            if r not in ('write', 'add', 'null', 'inplace'):
                raise MXNetValueError("grad_req must be 'write', 'add' or 'null', got %r" % (r,))
        self._grad_req = ['write' if r == 'inplace' else r for r in reqs]
        for i, g in enumerate(self.grad_arrays):
            if g is None:
                self._grad_req[i] = 'null'
        # sparse arrays (symbol/passes/storage.py): csr arguments that take no gradient reach the graph compressed,
        # or the graph runs node by node with the eager operators' storage rules
        aux_given = list((aux_states.values() if isinstance(aux_states, dict) else aux_states) or ())
        csr_args, self._sparse_run = _storage_plan(symbol, self.arg_arrays, self._grad_req, aux_given)
        self._csr = [n in csr_args for n in arg_names]
        self._any_csr = bool(csr_args)
        self._no_grads = all(r == 'null' for r in self._grad_req)
        # what forward runs (symbol/runner.py): the symbol with common subexpressions merged (MXNet's
        # MXNET_ELIMINATE_COMMON_EXPR; get_optimized_symbol() returns it), lowered once with loss heads split
        # (backward seeds their gradients directly: see Lowered), with MXNet's in-place activations and additions
        # and, in an inference-only executor, MXNet's default oneDNN convolution fusion (symbol/passes/subgraph.py)
        self._runner = _runner.compile(symbol, arg_shapes={n: a.shape for n, a in zip(arg_names, self.arg_arrays)},
                                       split_heads=True, csr_args=csr_args,
                                       backend='MKLDNN' if self._no_grads and executor_backend() else None)
        if (cuda_graphs.enabled() and ctx.device_type == 'gpu' and not self._any_csr and not self._sparse_run
                and self._runner.backend is None):
            # (MXNET_ENABLE_CUDA_GRAPHS=1: the bound arrays are written in place, so the graphs read them all there)
            self._runner.graphs = cuda_graphs.GraphCache('Executor', [True] * len(self._runner.input_names))
        self._optimized = self._runner.symbol
        self._lowered = self._runner.lowered
        self._lowered.output_names = symbol.list_outputs()
        self._nout = len(self._lowered.output_names)
        # the plain graph for users and monitors (graph_module; csr arguments dense): built on first access
        self._plain = None if self._lowered.heads or self._any_csr else self._lowered
        aux_names = self._lowered.aux_names
        self.aux_arrays = _as_list(aux_names, aux_states, 'aux_states')
        if any(r != 'null' for r in self._grad_req):
            # MXNet's zero-gradient propagation: inputs no gradient reaches are not recorded (their gradients
            # are written as zeros), so nothing is kept for them
            reach = gradient_inputs(symbol)
            self._track = [r != 'null' and n in reach for n, r in zip(arg_names, self._grad_req)]
        else:
            self._track = [False] * len(arg_names)
        # fixed at bind: what forward records and what backward writes
        self._any_track = any(self._track)
        # integer (and bool) arguments taking a gradient: variables of mxcompat's integer autograd (_intgrad.py),
        # whose gradient MXNet computes through the operators' backward and casts to their dtype
        self._int_args = frozenset(i for i, (track, a) in enumerate(zip(self._track, self.arg_arrays))
                                   if track and not a._t.is_floating_point() and not a._t.is_complex())
        # ... and casts to an integer dtype, whose results join that autograd the same way: both need a recorded run
        self._int_graph = bool(self._int_args) or (self._any_track and _casts_to_int(symbol))
        self._zeroed = [i for i, (r, track) in enumerate(zip(self._grad_req, self._track))
                        if r == 'write' and not track]
        # outputs written in place into these arrays (views of another executor's outputs, after reshape)
        self._out_shared = _shared_outputs is not None
        self.outputs = _shared_outputs if self._out_shared else self._empty_outputs()
        self._saved = None
        self._leaf_cache = None  # (argument tensors, their autograd leaves): reused while the tensors stay
        self._wrt = None  # (leaves, indices of the leaves backward differentiates, those leaves)
        self._monitor = None
        self._mon_records = None  # what the last monitored forward ran, for the monitored backward

    def _empty_outputs(self):
        # MXNet's executors own their output arrays from bind on: allocate them from the inferred shapes
        shapes = {n: a.shape for n, a in zip(self._lowered.arg_names, self.arg_arrays)}
        try:
            _, out_shapes, _ = self._symbol.infer_shape(**shapes)
            _, out_types, _ = self._symbol.infer_type(**{n: a.dtype for n, a in zip(self._lowered.arg_names,
                                                                                   self.arg_arrays)})
        except MXNetError:
            return []
        if out_shapes is None:
            return []
        out_types = out_types or [np.float32] * len(out_shapes)
        return [NDArray._from_tensor(torch.zeros(s, dtype=to_torch_dtype(t), device=self._ctx.torch_device),
                                     self._ctx) for s, t in zip(out_shapes, out_types)]

    # -- MXNet's views of the arrays ---------------------------------------------------------------------------
    @property
    def arg_dict(self):
        return dict(zip(self._lowered.arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        return dict(zip(self._lowered.arg_names, self.grad_arrays))  # (None where grad_req is 'null', as MXNet)

    @property
    def aux_dict(self):
        return dict(zip(self._lowered.aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._lowered.output_names, self.outputs))

    @property
    def graph_module(self):
        """The ``torch.fx.GraphModule`` of this executor's graph (arguments, then aux states -> tuple of outputs).
        The executor itself runs a variant whose loss heads are not recorded, and seeds their MXNet gradients."""
        if self._plain is None:
            self._plain = _runner.lower_graph(self._optimized, {n: a.shape for n, a in zip(self._lowered.arg_names,
                                                                                           self.arg_arrays)})
        return self._plain.graph_module

    # -- running ------------------------------------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Run the graph; keyword arguments are copied into the named argument arrays first."""
        arg_dict = None
        for k, v in kwargs.items():
            if arg_dict is None:
                arg_dict = self.arg_dict
            if k not in arg_dict:
                raise MXNetValueError('forward: unknown argument %r' % k)
            dst = arg_dict[k]
            if isinstance(v, NDArray):
                if v.shape != dst.shape:
                    raise MXNetValueError('forward: shape of %r is %s, bound as %s' % (k, v.shape, dst.shape))
                copy_into(dst, v)
            else:
                dst[:] = _nd_array(np.asarray(v), dtype=dst.dtype)
        sparse_run = self._sparse_run and self._monitor is None
        if self._any_csr and self._monitor is None:
            args = [CsrValue(*a._cmp(), a.shape) if csr else a._t for a, csr in zip(self.arg_arrays, self._csr)]
        elif sparse_run:  # (sparse arrays that take no gradient stay compressed until a dense operator reads them)
            args = [a if isinstance(a, BaseSparseNDArray) and not track else a._t
                    for a, track in zip(self.arg_arrays, self._track)]
        else:
            args = [a._t for a in self.arg_arrays]
        aux = [a._t for a in self.aux_arrays]
        sparse = None
        self._saved = None  # the previous pass's graph goes now: the new one reuses its memory
        prev_train = _ag.set_training(is_train)
        prev_grads, _ag.STATE.torch_grads = _ag.STATE.torch_grads, self._any_track  # backward() differentiates it
        # operators that make arrays without inputs (zeros for an RNN's begin state, random draws) place them on
        # the executor's context, as MXNet runs a bound graph on its context
        default = Context._default_ctx
        prev_ctx, default.value = default.value, self._ctx
        try:
            # the graph is kept whenever gradients are wanted: MXNet allows backward after forward(is_train=False)
            if self._monitor is not None:
                outs = self._monitored_forward(args, aux)
            elif sparse_run:
                ins = self._leaves(args) if self._any_track else args
                outs, sparse = self._sparse_forward(ins, aux)
                self._saved = (ins, outs) if self._any_track else None
            elif self._any_track:
                ins = self._leaves(args)
                outs = self._run_recorded(ins, aux)
                self._saved = (ins, outs)
            else:
                outs = self._runner(args + aux, grad=False)
                self._saved = None
        except MXNetError:
            raise
        except (RuntimeError, ValueError, IndexError) as e:
            raise MXNetError('Executor.forward: %s' % str(e).splitlines()[0]) from None
        finally:
            _ag.set_training(prev_train)
            _ag.STATE.torch_grads = prev_grads
            default.value = prev_ctx
        if len(outs) != self._nout:  # the inputs of split loss heads follow the outputs
            if self._saved is not None:  # (the whole tuple kept: Lowered.heads indexes into it)
                self._saved = (ins, outs[:self._nout], outs)
            outs = outs[:self._nout]
        self._set_outputs(outs, sparse)
        return self.outputs

    def _run_recorded(self, ins, aux):
        """The graph run with gradients recorded; the operators reading integer variables also run on their float
        stand-ins, as under record() (_intgrad.py)."""
        if not self._int_graph:
            return self._runner(ins + aux, grad=True)
        prev, _ag.STATE.recording = _ag.STATE.recording, True
        try:
            return self._runner(ins + aux, grad=True)
        finally:
            _ag.STATE.recording = prev

    def _sparse_forward(self, ins, aux):
        """The graph run node by node with the storage rules of the eager operators (symbol/passes/storage.py):
        the outputs (tensors; where no gradient is recorded, sparse arrays) and each output's sparse array or
        None."""
        stored = [a if isinstance(a, BaseSparseNDArray) else None for a in self.arg_arrays + self.aux_arrays]
        with torch.enable_grad() if self._any_track else torch.no_grad():
            outs, sparse = run_sparse(self._runner.graph_module, list(ins) + aux, stored, self._ctx)
        if self._any_track:
            outs = [o._t if isinstance(o, BaseSparseNDArray) else o for o in outs]  # (what backward reads)
        return outs, sparse[:self._nout]

    def _leaves(self, args):
        """The argument tensors as the graph takes them: tracked float inputs become autograd leaves (detached
        views of the bound tensors, so in-place writes to the arrays reach them; made again when an array's
        tensor is replaced)."""
        cache = self._leaf_cache
        if cache is not None:
            if all(map(operator.is_, args, cache[0])):
                return cache[1]
            if self._any_csr and all(a is b or csr for a, b, csr in zip(args, cache[0], self._csr)):
                leaves = cache[1]  # (kept, so the backward plan keyed on it stays): the new csr values go in
                for i, csr in enumerate(self._csr):
                    if csr:
                        leaves[i] = args[i]
                return leaves
        leaves = [t.detach().requires_grad_(True) if track and t.is_floating_point() else t
                  for t, track in zip(args, self._track)]
        for i in self._int_args:
            if isinstance(leaves[i], torch.Tensor):
                leaves[i] = _int_leaf(leaves[i], self._grad_req[i], None)
        for leaf, g in zip(leaves, self.grad_arrays):
            if isinstance(g, RowSparseNDArray) and _recorded(leaf):
                leaf._mx_sparse_grad = True  # (sparse-gradient embeddings read it: operator/nn.py)
        self._leaf_cache = (args, leaves)
        return leaves

    # -- monitor: every operator's outputs (and inputs) in forward, its input gradients in backward ---------------
    def _monitored_forward(self, args, aux):
        """Run the plain graph node by node, reporting each MXNet operator's outputs to the monitor callback
        (and with ``monitor_all`` first its inputs), named as MXNet names them (``_Node.monitor_names``). The
        records are kept for ``_monitored_backward``."""
        callback, monitor_all = self._monitor
        ins = self._leaves(args)
        ctx = self._ctx

        def report(node, name, t):
            callback(name, NDArray._from_tensor(t.detach(), ctx))

        with torch.enable_grad() if self._any_track else torch.no_grad():
            tensors = list(ins) + list(aux)
            outs, records = run_monitored(self.graph_module, tensors, report, monitor_all, executor=True)
            outs = self._runner.fresh(outs, tensors)  # (as an unmonitored run returns them)
        self._saved = (ins, outs) if self._any_track else None
        self._mon_records = records
        return outs

    def _monitored_backward(self, pairs):
        """Report the gradient each operator gives its inputs (``<node>_backward_output``, numbered when it has
        several inputs), computed node by node from the gradients of its outputs. Inputs that take no gradient
        report zeros (MXNet reports whatever its buffer holds)."""
        callback = self._monitor[0]
        records = self._mon_records
        outs = [t for _, _, o in records for t in o if t.requires_grad]
        got = torch.autograd.grad([o for o, _ in pairs], outs, [h for _, h in pairs], allow_unused=True,
                                  retain_graph=True) if outs else []
        grad_of = {id(t): g for t, g in zip(outs, got)}
        for node, node_ins, node_outs in reversed(records):
            wrt = [t for t in node_ins if t.requires_grad]
            live = [(t, grad_of.get(id(t))) for t in node_outs if t.requires_grad]
            live = [(t, torch.zeros_like(t) if g is None else g) for t, g in live]
            vjp = {}
            if wrt and live:
                res = torch.autograd.grad([t for t, _ in live], wrt, [g for _, g in live], allow_unused=True,
                                          retain_graph=True)
                vjp = {id(t): g for t, g in zip(wrt, res)}
            many = len(node_ins) > 1
            for i, t in enumerate(node_ins):
                g = vjp.get(id(t))
                g = torch.zeros_like(t) if g is None else g
                name = '%s_backward_output%s' % (node.name, i if many else '')
                callback(name, NDArray._from_tensor(g.detach(), self._ctx))

    def _set_outputs(self, outs, sparse=None):
        # The same NDArray objects stay in `outputs` across calls (MXNet's executors own their outputs).
        if self._int_args:  # (the arrays hold plain tensors: the stand-ins stay with the recorded graph)
            outs = [o.as_subclass(torch.Tensor) if isinstance(o, _IntGradTensor) else o for o in outs]
        if sparse is not None or (self._any_csr and any(isinstance(o, CsrValue) for o in outs)):
            self._set_sparse_outputs(outs, sparse)
        elif self._out_shared:
            for o, t in zip(self.outputs, outs):
                o._t.copy_(t.detach())
        elif len(self.outputs) == len(outs):
            for o, t in zip(self.outputs, outs):
                o._t = _output_alias(t)
        else:
            self.outputs = [NDArray._from_tensor(_output_alias(t), self._ctx) for t in outs]

    def _set_sparse_outputs(self, outs, sparse):
        """Outputs of a graph with sparse values: a sparse output array takes the stored entries (the same object
        while its storage type stays), a dense one its tensor."""
        if len(self.outputs) != len(outs):
            self.outputs = [None] * len(outs)
        bound = {id(a) for a in self.arg_arrays + self.aux_arrays}
        for i, o in enumerate(outs):
            sp = sparse[i] if sparse is not None else None
            if isinstance(o, CsrValue):
                sp = CSRNDArray._new((o.data, o.indices, o.indptr), o.shape, self._ctx)
            cur = self.outputs[i]
            if sp is not None:
                if id(sp) in bound:  # an output that is a bound array: that array, as MXNet returns it
                    self.outputs[i] = sp
                elif type(cur) is type(sp) and cur.shape == sp.shape and id(cur) not in bound:
                    cur._assign_comps(sp._cmp())
                else:
                    self.outputs[i] = sp
            elif type(cur) is NDArray and not self._out_shared:
                cur._t = _output_alias(o)
            elif type(cur) is NDArray and cur.shape == tuple(o.shape):
                cur._t.copy_(o.detach())
            else:
                self.outputs[i] = NDArray._from_tensor(_output_alias(o), self._ctx)

    def _csr_rows(self, i):
        """The rows MXNet's backward stores in argument ``i``'s row_sparse gradient for its dot(csr, arg) readers:
        the column indices of those csr arguments' current arrays (None: no such reader)."""
        srcs = getattr(self, '_csr_row_src', None)
        if srcs is None:
            names = self._symbol.list_arguments()
            csr = {n for n, a in zip(names, self.arg_arrays) if isinstance(a, CSRNDArray)}
            srcs = self._csr_row_src = {self._arg_index[k]: sorted(self._arg_index[c] for c in v)
                                        for k, v in csr_row_sources(self._symbol, csr).items()}
        js = srcs.get(i)
        if not js:
            return None
        return torch.cat([self.arg_arrays[j].indices._t.reshape(-1) for j in js])

    def backward(self, out_grads=None, is_train=True):  # noqa: C901 (the head-gradient forms MXNet accepts, one branch each)
        """Gradients of the outputs (times ``out_grads``, ones by default) into the gradient arrays.

        Differs from MXNet: before any forward, this runs ``forward(is_train=True)`` first. MXNet differentiates
        then with its output buffers unset, which is right for operators whose gradient reads only their inputs
        (FullyConnected, repeat, tile ...) and garbage for the others (tanh)."""
        if self._no_grads:
            return  # nothing to compute, as in MXNet
        for i in self._zeroed:  # no gradient reaches these inputs: zero
            self.grad_arrays[i]._t.zero_()
        if not self._any_track:
            return
        if self._saved is None:
            self.forward(is_train=True)
        ins, outs = self._saved[0], self._saved[1]  # kept: MXNet allows several backward passes after one forward
        if out_grads is not None:
            if isinstance(out_grads, NDArray):
                out_grads = [out_grads]
            if isinstance(out_grads, dict):
                out_grads = [out_grads[n] for n in self._lowered.output_names]
            if len(out_grads) < len(outs):  # (MXNet uses the first ones of a longer list)
                raise MXNetValueError('backward: %d out_grads for %d outputs' % (len(out_grads), len(outs)))
            out_grads = out_grads[:len(outs)]
            # head gradients from another device are copied to the executor's, as MXNet copies them
            heads = [None if g is None else g._t.to(o.device) for g, o in zip(out_grads, outs)]
            for k, (h, o) in enumerate(zip(heads, outs)):
                if h is None or h.shape == o.shape or not _recorded(o):  # (MXNet ignores unused heads)
                    continue
                if isinstance(o.grad_fn, _ZERO_GRAD_NODE):  # an operator whose backward never reads its head
                    heads[k] = None
                else:
                    raise MXNetError('Executor.backward: out_grads[%d] has shape %s, the output %s'
                                     % (k, tuple(h.shape), tuple(o.shape)))
        else:
            heads = [None] * len(outs)
        pairs = list(zip(outs, heads))
        if len(self._saved) == 3:  # loss heads split: MXNet's gradient at the head's input
            for k, start, n_in, grad in self._lowered.heads:
                extra = self._saved[2][start:start + n_in]
                pairs[k] = (extra[0], grad(outs[k], *extra))
        roots = [(_root(o), h) for o, h in pairs if isinstance(o, torch.Tensor)]
        pairs = [(r, torch.ones_like(r) if h is None else h if h.dtype is r.dtype else h.to(r.dtype))
                 for r, h in roots if r.requires_grad]
        if self._monitor is not None and self._mon_records:
            self._monitored_backward(pairs)
        plan = self._wrt
        if plan is None or plan[0] is not ins:  # (the leaves are reused while the bound tensors stay)
            want = [i for i, r in enumerate(self._grad_req) if r != 'null' and _recorded(ins[i])]
            # the usual gradients: float, dense, written, too small to adopt (the arrays' types checked per pass)
            plain = not self._any_csr and all(
                self._grad_req[i] == 'write' and i not in self._int_args and ins[i].numel() < _ADOPT_MIN
                for i in want)
            plan = self._wrt = (ins, want, tuple(_root(ins[i]) for i in want), plain)
        want = plan[1]
        if not want or not pairs:  # e.g. integer outputs: the tracked inputs' gradients are zero, as in MXNet
            for i, (r, track) in enumerate(zip(self._grad_req, self._track)):
                if r == 'write' and track:
                    self.grad_arrays[i]._t.zero_()
            return
        prev = _ag.set_training(is_train)
        try:
            grads = (_run_backward if out_grads is None else _autograd_grad)(
                tuple(o for o, _ in pairs), tuple(h for _, h in pairs), plan[2])
        finally:
            _ag.set_training(prev)
        if plan[3]:
            gas = self.grad_arrays
            dsts = [gas[i] for i in want]
            if all(type(d) is NDArray for d in dsts) and all(g is not None and g.layout is _STRIDED for g in grads):
                torch._foreach_copy_([d._t for d in dsts], list(grads))
                return
        dsts, srcs = [], []
        for i, g in zip(want, grads):
            if g is not None and g.layout is torch.sparse_coo:  # (from a csr product: symbol/passes/storage.py)
                _write_sparse_grad(self.grad_arrays[i], g, self._grad_req[i])
                continue
            if isinstance(self.grad_arrays[i], BaseSparseNDArray):
                _write_dense_grad(self.grad_arrays[i], g, self._grad_req[i], self._csr_rows(i))
                continue
            dst = self.grad_arrays[i]._t
            if g is None:
                if self._grad_req[i] == 'write':
                    dst.zero_()
            elif i in self._int_args:  # (computed in float64: cast once, truncating as MXNet's cast does)
                if self._grad_req[i] == 'add':
                    dst.add_(g.to(dst.dtype))
                else:
                    dst.copy_(g)
            elif self._grad_req[i] == 'add':
                dst.add_(g)
            elif (g.numel() < _ADOPT_MIN or (out_grads is not None and any(g is h for h in heads))
                  or not _adopt(dst, g)):
                # (never alias a caller's head gradient)
                dsts.append(dst)
                srcs.append(g)
        if dsts:
            torch._foreach_copy_(dsts, srcs)

    # -- parameters -----------------------------------------------------------------------------------------------
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy values from dicts of NDArrays into the bound argument and auxiliary arrays."""
        arg_dict, aux_dict = self.arg_dict, self.aux_dict
        for name, arr in (arg_params or {}).items():
            if name in arg_dict:
                arr.copyto(arg_dict[name])
            elif not allow_extra_params:
                raise MXNetValueError('Found name "%s" that is not in the arguments' % name)
        for name, arr in (aux_params or {}).items():
            if name in aux_dict:
                arr.copyto(aux_dict[name])
            elif not allow_extra_params:
                raise MXNetValueError('Found name "%s" that is not in the auxiliary states' % name)

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes, sharing the arrays whose shapes stay the same."""
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError('reshape: cannot infer all shapes from %s' % kwargs)
        new_args, new_grads = [], []
        for name, a, g, shape in zip(self._lowered.arg_names, self.arg_arrays, self.grad_arrays, arg_shapes):
            shape = tuple(shape)
            if a.shape != shape:
                if name not in kwargs and not partial_shaping:
                    raise MXNetValueError('reshape: shape of %r changes from %s to %s; pass partial_shaping=True'
                                          % (name, a.shape, shape))
                if int(np.prod(shape)) > a.size and not allow_up_sizing:
                    raise MXNetValueError('reshape: %r grows from %s to %s; pass allow_up_sizing=True'
                                          % (name, a.shape, shape))
            new_args.append(_reshaped(a, shape))
            new_grads.append(None if g is None else _reshaped(g, shape))
        new_aux = [_reshaped(a, tuple(s)) for a, s in zip(self.aux_arrays, aux_shapes)]
        reqs = dict(zip(self._lowered.arg_names, self._grad_req))
        grads = {n: g for n, g in zip(self._lowered.arg_names, new_grads) if g is not None}
        _, out_shapes, _ = self._symbol.infer_shape(**kwargs)
        outs = None
        if len(self.outputs) == len(out_shapes):
            outs = [_reshaped(o, tuple(s)) for o, s in zip(self.outputs, out_shapes)]
        new = Executor(self._symbol, self._ctx, new_args, grads, reqs, new_aux, _shared_outputs=outs)
        new._monitor = self._monitor  # MXNet's reshaped executor keeps the monitor callback
        return new

    def set_monitor_callback(self, callback, monitor_all=False):
        """Calls ``callback(name, array)`` for every operator's outputs in forward (``monitor_all``: its inputs
        too) and for the gradients of its inputs in backward, with MXNet's names. Differs from MXNet: a
        monitored executor runs node by node (slower); ``array`` is an NDArray, not a C handle; with
        ``monitor_all`` the backward inputs are not reported."""
        self._monitor = (callback, monitor_all)

    def debug_str(self):
        """The executed symbol (after common-subexpression elimination), the fx graph, and MXNet's
        ``Total N MB allocated`` line. The total is our estimate of the memory a forward pass allocates beyond
        the bound arrays (MXNet counts the same: its internal buffers, not arguments, gradients or aux states):
        outputs and intermediate values at their peak, where values autograd keeps for backward stay alive until
        the end. MXNet's own figure also includes its backward buffers, so the numbers differ; which
        executors need more (recording for gradients or not) agrees."""
        lines = ['Symbol Outputs:']
        lines += ['\toutput[%d]=%s' % (i, n) for i, n in enumerate(self._optimized.list_outputs())]
        lines.append(self._optimized.debug_str().rstrip('\n'))
        lines.append(str(self.graph_module.graph).rstrip('\n'))
        lines.append('Total %d MB allocated' % (self._memory_estimate() >> 20))
        return '\n'.join(lines) + '\n'

    def get_optimized_symbol(self):
        """The symbol as executed: common subexpressions merged as MXNet's MXNET_ELIMINATE_COMMON_EXPR pass does
        (identical nodes merged, repeated outputs given ``_copy`` nodes); MXNet's other graph passes (operator
        fusion, MKLDNN subgraphs) do not apply here."""
        return self._optimized._clone()

    def _memory_estimate(self):
        """Bytes (see ``debug_str``), from a run of the graph on meta tensors."""
        gm = self.graph_module
        ins = [torch.empty(a.shape, dtype=a._t.dtype, device='meta').requires_grad_(bool(track))
               for a, track in zip(self.arg_arrays, self._track)]
        ins += [torch.empty(a.shape, dtype=a._t.dtype, device='meta') for a in self.aux_arrays]
        try:
            with torch.enable_grad():
                vals = _MetaRecorder(gm).run_all(*ins)
        except Exception:  # an op that cannot run on meta tensors: count the outputs only
            return sum(o._t.numel() * o._t.element_size() for o in self.outputs)
        return _peak_bytes(gm.graph, vals)


class _MetaRecorder(torch.fx.Interpreter):
    """Runs a graph module and keeps every node's value."""

    def run_all(self, *args):
        self.values = {}
        self.run(*args)
        return self.values

    def run_node(self, n):
        out = super().run_node(n)
        self.values[n] = out
        return out


def _tensors(v):
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in _tensors(x)]
    return []


def _peak_bytes(graph, vals):
    """Peak bytes of live non-input values over one run of ``graph``: a value lives until its last use (outputs
    and values saved for a backward pass that reaches an output: to the end); views of a value are part of it."""
    nodes = list(graph.nodes)
    pos = {n: i for i, n in enumerate(nodes)}
    output = nodes[-1]
    root = {}
    for n in nodes:
        if n.op == 'call_method' or n.op == 'call_function' and n.args and isinstance(n.args[0], torch.fx.Node) and (
                n.target is operator.getitem or getattr(_op_def(n), 'view', False)):
            root[n] = root.get(n.args[0], n.args[0])
        else:
            root[n] = n
    grad = {n: any(t.requires_grad for t in _tensors(vals.get(n))) for n in nodes}
    reaches = {output: True}
    for n in reversed(nodes[:-1]):
        reaches[n] = grad[n] and any(reaches.get(u, False) for u in n.users)
    end = {}
    for n in nodes:
        r = root[n]
        last = max([pos[u] for u in n.users] + [pos[n]])
        if output in n.users or any(grad[u] and reaches[u] for u in n.users):
            last = len(nodes)
        end[r] = max(end.get(r, 0), last)
    size = {n: sum(t.numel() * t.element_size() for t in _tensors(vals.get(n)))
            for n in nodes if root[n] is n and n.op == 'call_function'}
    live = peak = 0
    for i, n in enumerate(nodes):
        live += size.get(n, 0)
        peak = max(peak, live)
        live -= sum(b for m, b in size.items() if end[m] == i)
    return peak


_STYPE_OF_ATTR = {'0': 'default', '1': 'row_sparse', '2': 'csr'}  # MXNet's enum in '__storage_type__'


def _storage_types(symbol, stype_dict):
    """{argument: storage type}: ``stype_dict``'s, else the variable's ``stype`` attribute."""
    out = {n: _STYPE_OF_ATTR.get(a.get('__storage_type__'), 'default') for n, a in symbol.attr_dict().items()
           if '__storage_type__' in a}
    for n, st in (stype_dict or {}).items():
        if st not in ('default', 'csr', 'row_sparse'):
            raise MXNetValueError("simple_bind: stype_dict[%r] must be 'default', 'csr' or 'row_sparse', got %r"
                                  % (n, st))
        out[n] = st
    return out


def copy_into(dst, src):
    """Copy the values of ``src`` into the bound array ``dst`` of the same shape (a sparse array takes the
    components of one of its storage type, without densifying)."""
    if isinstance(dst, BaseSparseNDArray):
        if type(src) is type(dst):
            dev = dst.context.torch_device
            comps = src._cmp()
            dst._assign_comps([comps[0].to(dev, dst._tdtype, copy=True)] + [c.to(dev, copy=True) for c in comps[1:]])
        else:
            dst._t = src._t.to(dst._tdtype, copy=True)
    else:
        dst._t.copy_(src._t)


def _casts_to_int(symbol):
    """Whether ``symbol`` casts a value to an integer or bool dtype (a Cast node, its parsed ``dtype``)."""
    for n in symbol._nodes():
        if not n.is_var and n.op.name == 'Cast':
            d = n.params()['dtype']
            if not (d.is_floating_point or d.is_complex):
                return True
    return False


def _root(t):
    """The tensor of torch's graph that graph value ``t`` differentiates through: itself, or for an integer
    variable and what is computed from it, its float stand-in (_intgrad.py)."""
    if type(t) is _IntGradTensor:
        d = t.__dict__
        for key in ('_mx_shadow_leaf', '_mx_grad_surrogate'):
            if d.get(key) is not None:
                return d[key]
    return t


def _recorded(o):
    """Whether graph value ``o`` takes part in backward (a csr value of the compressed path, or a sparse argument
    the sparse run reads compressed, never does)."""
    return isinstance(o, torch.Tensor) and _root(o).requires_grad


def _write_dense_grad(arr, g, req, rows=None):
    """Write (or add) the dense gradient ``g`` (None: zero) into the sparse gradient array ``arr``: the rows (csr:
    entries) that are not zero, and for a row_sparse ``arr`` the ``rows`` MXNet's backward stores whatever their
    values (a tensor of row ids, or None)."""
    if g is None:
        if req != 'write':
            return
        g = torch.zeros(arr.shape, dtype=arr._tdtype, device=arr._device)
    t = (arr._dns() + g if req == 'add' else g).detach().to(arr._tdtype).contiguous()
    if rows is None or not isinstance(arr, RowSparseNDArray):
        arr._assign_comps(arr._from_dense(t))
        return
    nonzero = arr._from_dense(t)[1]
    keep = torch.unique(torch.cat([nonzero, rows.to(device=nonzero.device, dtype=nonzero.dtype)]))
    arr._assign_comps((t.index_select(0, keep), keep))


def _write_sparse_grad(arr, g, req):
    """Write (or add) the sparse COO gradient ``g`` into the gradient array ``arr``: a row_sparse array takes the
    rows it holds, a dense one its dense values."""
    rows, values = summed_rows(g)
    if isinstance(arr, RowSparseNDArray) and req == 'write':
        arr._assign_comps((values.to(arr._tdtype), rows))
        return
    dst = arr._t
    if req == 'write':
        dst.zero_()
    dst.index_add_(0, rows, values.to(dst.dtype))


def _op_def(n):
    name = getattr(n.target, '_mx_op', None)
    return registry.get(name) if name else None


def _reshaped(a, shape):
    """``a`` itself, or for a new shape an array sharing ``a``'s memory when it fits (as MXNet's reshape shares
    it), else a new zero array."""
    if a.shape == shape:
        return a
    if isinstance(a, BaseSparseNDArray):  # (a csr input, a row_sparse gradient: of the same storage type)
        return _sparse_zeros(a.stype, shape, ctx=a.context, dtype=a.dtype)
    n = int(np.prod(shape))
    t = a._t
    if n <= t.numel() and t.is_contiguous():
        return NDArray._from_tensor(t.reshape(-1)[:n].view(shape), a.context)
    return NDArray._from_tensor(torch.zeros(shape, dtype=t.dtype, device=t.device), a.context)


def simple_bind(symbol, ctx, grad_req='write', type_dict=None, stype_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
    """Infer shapes and dtypes, allocate zero arrays (and gradients unless grad_req is 'null') and bind.

    Storage types come from ``stype_dict``, else from the variables' ``stype``. A csr argument gets a CSRNDArray,
    which the graph reads compressed where it takes no gradient (symbol/passes/storage.py); gradients are row_sparse
    where MXNet's backward makes them so (``storage.row_sparse_grads``). Differs from MXNet: a row_sparse
    argument gets a dense array (the whole weight, as every device holds it here)."""
    stypes = _storage_types(symbol, stype_dict)
    rsp_grads = row_sparse_grads(symbol, stypes)
    if type_dict is None:  # as MXNet's: arguments without a __dtype__ attribute are float32, the others inferred
        attrs = symbol.attr_dict()
        type_dict = {n: np.float32 for n in symbol.list_arguments() if '__dtype__' not in attrs.get(n, ())}
    # shapes and dtypes inferred together, so integer inputs (indices) are seen as such by shape inference
    dtypes = {k: to_torch_dtype(v) for k, v in (type_dict or {}).items() if v is not None}
    known = set(symbol.list_arguments()) | set(symbol.list_auxiliary_states())  # MXNet ignores other keywords
    kwargs = {k: v for k, v in kwargs.items() if k in known and isinstance(v, (tuple, list))}
    (arg_shapes, _, aux_shapes), _ = infer(symbol, {k: v for k, v in kwargs.items() if v is not None}, dtypes,
                                           False)
    if arg_shapes is None:
        arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**kwargs)
        names = [n for n, s in zip(symbol.list_arguments(), arg_shapes) if not s]
        raise MXNetError('simple_bind: cannot infer the shapes of %s from %s' % (', '.join(names), kwargs))
    arg_types, _, aux_types = symbol.infer_type(**(type_dict or {}))
    if arg_types is None:
        arg_types = [np.float32] * len(arg_shapes)
        aux_types = [np.float32] * len(aux_shapes)
    arg_names = symbol.list_arguments()
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in arg_names}
    elif isinstance(grad_req, (list, tuple)):
        reqs = dict(zip(arg_names, grad_req))
    else:
        reqs = {n: grad_req.get(n, 'null') for n in arg_names}
    shared = shared_exec.arg_dict if shared_exec is not None else {}
    shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
    shared_aux = shared_exec.aux_dict if shared_exec is not None else {}

    def zeros(shape, dtype):
        return NDArray._from_tensor(_memory.zeros(tuple(shape), to_torch_dtype(dtype), ctx.torch_device), ctx)

    def sparse_zeros(stype, shape, dtype):
        return _sparse_zeros(stype, tuple(shape), ctx=ctx, dtype=dtype)

    args, grads = [], {}
    for n, s, t in zip(arg_names, arg_shapes, arg_types):
        stype = stypes.get(n, 'default')
        a = shared.get(n)
        if a is None or a.shape != tuple(s) or (stype == 'csr') != (a.stype == 'csr'):
            a = sparse_zeros('csr', s, t) if stype == 'csr' else zeros(s, t)
        args.append(a)
        if reqs.get(n, 'null') != 'null':
            g = shared_grads.get(n)
            grads[n] = g if g is not None and g.shape == tuple(s) else \
                sparse_zeros('row_sparse', s, t) if n in rsp_grads else zeros(s, t)
    aux = []
    for n, s, t in zip(symbol.list_auxiliary_states(), aux_shapes, aux_types):
        a = shared_aux.get(n)
        aux.append(a if a is not None and a.shape == tuple(s) else zeros(s, t))
    return Executor(symbol, ctx, args, grads, reqs, aux, group2ctx)
