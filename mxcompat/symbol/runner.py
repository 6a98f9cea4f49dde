"""One runner for a Symbol's graph: what a bound ``Executor``, a hybridized ``HybridBlock`` and ``mx.nd.CachedOp``
run.

``compile(symbol, ...)`` merges common subexpressions (``passes/cse.py``), lowers the symbol to one
``torch.fx.GraphModule`` (``lower.py``), makes view results contiguous (``passes/contiguous.py``) and applies the
passes the options choose: in-place activations and additions (``passes/inplace.py``), MXNet's oneDNN convolution
fusion (``passes/subgraph.py``, backend ``'MKLDNN'``), or ``torch.compile`` with a torch backend. Calling the
``Runner`` runs the graph on tensors (the symbol's arguments, then its auxiliary states) and returns the outputs.
Outputs that share memory with an input (a reshape of an argument) are copied, since MXNet's operators write their
results into fresh arrays; an output that *is* an input stays that input, as MXNet's executors and cached ops
return the input array itself.
"""
import os

import torch

from .._recording import STATE as _AG
from ..base import MXNetValueError
from ..context import Context
from ..operator import registry
from .lower import lower, needs_shapes, run_monitored
from .passes import inplace as _inplace  # (looked up at each compile: tests replace plan_inplace)
from .passes.contiguous import contiguous_views
from .passes.cse import eliminate_common_expr
from .passes.subgraph import fuse_convolutions

__all__ = ['compile', 'Runner', 'lower_graph', 'TORCH_BACKENDS']

# torch.compile backends a runner takes; 'MKLDNN' is MXNet's subgraph backend (passes/subgraph.py)
TORCH_BACKENDS = ('inductor', 'eager', 'aot_eager')

_DEFAULT_CTX = Context._default_ctx  # the per-thread default-context state (``with ctx:`` sets its value)

_MAX_SHAPES = 32  # graphs kept per runner whose lowering depends on the input shapes


def lower_graph(symbol, arg_shapes=None, split_heads=False, csr_args=()):
    """``lower(symbol, ...)`` with view results made contiguous: the plain graph every runner builds on (monitors
    and op hooks run it node by node; ``GluonModule`` runs it from torch)."""
    low = lower(symbol, arg_shapes, split_heads=split_heads, csr_args=csr_args)
    contiguous_views(low.graph_module)
    return low


def _cse(symbol, cse):
    """``symbol`` with common subexpressions merged, unless ``cse`` is false (None: MXNet's
    ``MXNET_ELIMINATE_COMMON_EXPR``, on by default) or merging changes the order of the inputs (a bound executor's
    arrays follow that order)."""
    if cse is None:
        cse = os.environ.get('MXNET_ELIMINATE_COMMON_EXPR', '1') != '0'
    if not cse:
        return symbol
    merged = eliminate_common_expr(symbol)
    return merged if merged.list_inputs() == symbol.list_inputs() else symbol


def _alias_candidates(gm, n_out):
    """Indices of the first ``n_out`` outputs of ``gm`` that may share memory with an input without being one: the
    result of a view operator (or of its ``.contiguous()``), or of a node that is no MXNet operator (``getitem``,
    a csr value densified)."""
    out_node = next(n for n in reversed(gm.graph.nodes) if n.op == 'output')
    found = []
    for i, n in enumerate(out_node.args[0][:n_out]):
        if n.op == 'call_method':
            found.append(i)
        elif n.op == 'call_function':
            op = getattr(n.target, '_mx_op', None)
            if op is None or registry.get(op).view:
                found.append(i)
    return found


class Runner:
    """A compiled symbol (see the module docstring). ``runner(tensors, ctx=None, grad=None)`` -> the outputs
    (with ``split_heads``, followed by the inputs of the split loss heads: see ``lower.Lowered``).

    Attributes: ``symbol`` (the symbol as run), ``lowered`` (its ``Lowered``: argument, auxiliary and output names,
    split heads), ``input_names`` (arguments then auxiliary states: the order ``tensors`` follow),
    ``graph_module`` (the plain graph), ``fn`` (what runs: the graph after the passes, or torch.compile's
    callable), ``n_out``."""

    __slots__ = ('symbol', 'backend', 'inplace', 'split_heads', 'csr_args', 'lowered', 'input_names', 'n_out',
                 'graph_module', 'fn', 'alias_outputs', '_call', '_by_shape', 'graphs')

    def __init__(self, symbol, cse=None, inplace=True, backend=None, arg_shapes=None, split_heads=False,
                 csr_args=()):
        if backend is not None and backend != 'MKLDNN' and backend not in TORCH_BACKENDS:
            raise MXNetValueError('runner: unknown backend %r' % (backend,))
        self.symbol = _cse(symbol, cse)
        self.backend, self.inplace = backend, inplace
        self.split_heads, self.csr_args = split_heads, frozenset(csr_args)
        low = lower_graph(self.symbol, arg_shapes, split_heads, self.csr_args)
        self.input_names = low.arg_names + low.aux_names
        self.n_out = len(low.output_names)
        # creation ops of unknown shape (Gluon RNN layers' `_zeros` begin states with batch size 0) are completed
        # from the input shapes: without shapes given, such a graph is lowered again per set of input shapes, as
        # MXNet's cached op infers shapes per call
        self._by_shape = {} if arg_shapes is None and needs_shapes(self.symbol) else None
        self.graphs = None  # a kernels.cuda_graphs.GraphCache: replay CUDA graphs of the calls (HybridBlock sets it)
        self._use(low)

    def _use(self, low):
        self.lowered = low
        gm = self.graph_module = low.graph_module
        self.alias_outputs = _alias_candidates(gm, self.n_out)
        backend = self.backend
        if backend in TORCH_BACKENDS:
            self.fn = self._call = torch.compile(gm, backend=backend, dynamic=None)
            return
        if backend == 'MKLDNN':
            gm = fuse_convolutions(gm)
        if self.inplace:
            gm = _inplace.plan_inplace(gm)
        self.fn = gm
        # the generated forward directly: the module call around it would only look for hooks (none are set on
        # this private module) and decorate tracebacks
        self._call = gm.forward

    def _for_shapes(self, tensors):
        """Switch to the graph lowered for these input shapes (lowering it on first sight)."""
        key = tuple(tuple(t.shape) for t in tensors)
        got = self._by_shape.get(key)
        if got is None:
            if len(self._by_shape) >= _MAX_SHAPES:
                self._by_shape.clear()
            self._use(lower_graph(self.symbol, dict(zip(self.input_names, key)), self.split_heads, self.csr_args))
            got = self._by_shape[key] = (self.lowered, self.graph_module, self.fn, self._call, self.alias_outputs)
        self.lowered, self.graph_module, self.fn, self._call, self.alias_outputs = got

    def __call__(self, tensors, ctx=None, grad=None):
        """The outputs of the graph run on ``tensors``. ``ctx``: the default context while it runs (operators
        without inputs place their arrays there; None leaves it as it is). ``grad``: whether torch's autograd
        records the run (None: while ``mx.autograd`` records)."""
        if self._by_shape is not None:
            self._for_shapes(tensors)
        if ctx is not None:
            prev_ctx, _DEFAULT_CTX.value = _DEFAULT_CTX.value, ctx
        try:
            graphs = self.graphs
            if _AG.recording if grad is None else grad:
                if torch.is_grad_enabled():
                    outs = self._call(*tensors) if graphs is None else self._graphed(tensors, True)
                else:
                    with torch.enable_grad():
                        outs = self._call(*tensors) if graphs is None else self._graphed(tensors, True)
            else:
                with torch.no_grad():
                    outs = self._call(*tensors) if graphs is None else self._graphed(tensors, False)
        finally:
            if ctx is not None:
                _DEFAULT_CTX.value = prev_ctx
        return self.fresh(outs, tensors) if self.alias_outputs else outs

    def _graphed(self, tensors, recording):
        """The outputs replayed from a CUDA graph of this call's signature, or computed as usual (see
        ``kernels.cuda_graphs``)."""
        outs = self.graphs(self._call, tensors, recording, _AG.training)
        return self._call(*tensors) if outs is None else outs

    def run_monitored(self, tensors, report, monitor_all=False, ctx=None, grad=None):
        """Run the plain graph node by node, calling ``report(node, name, tensor)`` as ``lower.run_monitored``
        does (an op hook's view: outputs nothing reads are not reported); the outputs, as ``__call__`` returns
        them."""
        if self._by_shape is not None:
            self._for_shapes(tensors)
        if ctx is not None:
            prev_ctx, _DEFAULT_CTX.value = _DEFAULT_CTX.value, ctx
        try:
            with torch.enable_grad() if (_AG.recording if grad is None else grad) else torch.no_grad():
                outs, _ = run_monitored(self.graph_module, tensors, report, monitor_all)
        finally:
            if ctx is not None:
                _DEFAULT_CTX.value = prev_ctx
        return self.fresh(outs, tensors)

    def fresh(self, outs, tensors):
        """``outs`` as a list, with the outputs that share memory with one of ``tensors`` (or are strided views)
        copied."""
        outs = list(outs)
        if self.alias_outputs:
            ptrs = {t.untyped_storage().data_ptr() for t in tensors if isinstance(t, torch.Tensor)}
            for i in self.alias_outputs:
                o = outs[i]
                if o.untyped_storage().data_ptr() in ptrs or not o.is_contiguous():
                    outs[i] = o.clone(memory_format=torch.contiguous_format)
        return outs


def compile(symbol, cse=None, inplace=True, backend=None, arg_shapes=None, split_heads=False, csr_args=()):
    """A ``Runner`` for ``symbol``.

    - ``cse``: merge common subexpressions (None: as ``MXNET_ELIMINATE_COMMON_EXPR`` says, on by default);
    - ``inplace``: activations and additions write into their input where MXNet's memory planner would;
    - ``backend``: None (the plain graph), ``'MKLDNN'`` (MXNet's oneDNN convolution fusion, for inference), or a
      ``torch.compile`` backend (``'inductor'``, ``'eager'``, ``'aot_eager'``), which replaces the other passes;
    - ``arg_shapes`` ({name: shape}): lower once for these shapes (else per call where creation ops need them);
    - ``split_heads``, ``csr_args``: as ``lower.lower`` takes them (a bound executor's loss heads and csr inputs).
    """
    return Runner(symbol, cse, inplace, backend, arg_shapes, split_heads, csr_args)
