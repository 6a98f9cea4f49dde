"""Sparse arguments of bound symbols: MXNet's storage types and stored entries for what an ``Executor`` computes.

MXNet gives every array of a bound graph a storage type (its storage inference) and runs an operator's sparse
kernel where it has one, else its dense kernel on densified inputs ("storage fallback"). An Executor bound with
sparse arrays takes one of two paths, chosen at bind by ``plan``:

**Compressed csr values** (``CsrValue``): when the sparse arguments are csr arrays that take no gradient (a Module's
``stype='csr'`` data) and every operator reading a csr value either has a rule below or has no sparse rule at all
(MXNet densifies its input too), the lowered graph takes those arguments' components instead of their dense values,
which for a wide feature space would not fit in memory (256 rows of 1M features: 1 GB). The graph keeps the value
compressed through

- ``dot(csr, dense)``: the product over the stored entries; the gradient it sends to the dense operand holds the
  rows those entries hit only (a sparse COO tensor), which the executor writes into a row_sparse gradient array or
  adds into a dense one;
- elementwise operators that map 0 to 0 (``square``, ``sqrt``, ``abs``, ``_mul_scalar`` and ``_div_scalar`` with any
  scalar ...), and the scatter scalar operators (``_scatter_plus_scalar``, ``_scatter_minus_scalar``): applied to the
  stored values, giving csr again, as MXNet's csr kernels do.

Other operators get the csr value densified once; a graph output that is a csr value becomes a CSRNDArray output.

**Sparse run** (``run_sparse``): any other sparse argument or auxiliary state (row_sparse arrays, csr arrays with a
gradient, csr values read by an operator whose sparse rule the compressed path lacks), or a ``cast_storage`` to a
sparse storage type in the graph, makes the executor run its lowered graph node by node. A node with a sparse input
(or a ``cast_storage``) goes through the storage rule of the eager operator, ``mx.nd.sparse.dispatch``
(ndarray/sparse/functions.py): the single source of MXNet's output storage types, stored rows and entries, and
storage errors (BatchNorm with ``fix_gamma=True`` and a sparse input raises, as MXNet's storage inference does). A node
without a rule runs its dense kernel on the dense values. Sparse results stay compressed until a dense kernel reads
them; graph outputs keep their storage type. Where a gradient is recorded through a node whose rule gave a result, its
dense kernel runs too, under autograd: a dense result is the kernel's, a sparse one passes on the rule's values with
the kernel's gradient. So gradients are those of the dense kernels, as MXNet's backward computes them (``sqrt`` of a
row_sparse array gives its unstored rows an infinite gradient); row_sparse and csr gradient arrays take them
compressed (the rows or entries that are not zero).

The executor also marks the leaves of arguments with a row_sparse gradient array, so that
``Embedding(sparse_grad=True)`` and ``contrib.SparseEmbedding`` give them a gradient over the looked-up rows only, as
MXNet's executor does.

Differs from MXNet: an Executor's output arrays take their storage type at the first forward (MXNet's at bind);
storage errors are raised by the first forward, not by bind; a monitored executor (``set_monitor_callback``) runs
densely; gradient arrays hold the non-zero rows or entries of the gradient (MXNet's backward kernels store some
zero rows too, e.g. the union of the rows of ``square``'s inputs), and a csr result's column indices are sorted within
each row (MXNet's csr (op) csr kernels leave some unsorted).
"""
import torch
import torch.fx

from ... import _profstate
from ...ndarray.ndarray import NDArray
from ...ndarray.sparse import BaseSparseNDArray, CSRNDArray
from ...ndarray.sparse.functions import SPARSE_FROM_DENSE, dispatch, has_storage_rule
from ...operator import _sparse, registry

__all__ = ['CsrValue', 'densify', 'sparse_rule', 'row_sparse_grads', 'plan', 'run_sparse']

_PROF = _profstate.FLAGS


class CsrValue:
    """A csr matrix in a lowered graph: ``data`` (nnz,), ``indices`` (nnz,) int64 columns, ``indptr`` (rows+1,)
    int64, ``shape`` (rows, columns)."""

    __slots__ = ('data', 'indices', 'indptr', 'shape', '_rows')

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr, self.shape = data, indices, indptr, tuple(shape)
        self._rows = None

    def rows(self):
        """The row of each stored entry (computed once)."""
        if self._rows is None:
            self._rows = _sparse._csr_rows(self.indptr)
        return self._rows

    def with_data(self, data):
        v = CsrValue(data, self.indices, self.indptr, self.shape)
        v._rows = self._rows
        return v

    @property
    def dtype(self):
        return self.data.dtype


def densify(v):
    """The dense tensor of a csr value (duplicate entries add up)."""
    return _sparse._csr_to_dense(v.data, v.indices, v.indptr, v.shape)


class _CsrDense(torch.autograd.Function):
    """``csr @ weight`` over the stored entries. For a graph input, the weight's gradient comes back as a sparse
    COO tensor whose rows are the columns the entries hit (uncoalesced: repeated columns add up); for a computed
    weight, dense (the operators it came from take dense gradients)."""

    @staticmethod
    def forward(ctx, weight, csr):
        rows, cols = csr.rows(), csr.indices
        ctx.save_for_backward(csr.data, rows, cols)
        ctx.wshape = weight.shape
        ctx.sparse = weight.grad_fn is None
        out = weight.new_zeros((csr.shape[0], weight.shape[1]))
        return out.index_add_(0, rows, weight.index_select(0, cols) * csr.data.unsqueeze(1))

    @staticmethod
    def backward(ctx, grad):
        data, rows, cols = ctx.saved_tensors
        values = grad.index_select(0, rows) * data.unsqueeze(1)
        if ctx.sparse:
            return torch.sparse_coo_tensor(cols.unsqueeze(0), values, ctx.wshape, check_invariants=False), None
        return grad.new_zeros(ctx.wshape).index_add_(0, cols, values), None


def _csr_dot(op_impl, attrs):
    """dot(csr, dense 2-D): the rule when neither side is transposed; None to take the dense path."""
    if attrs.get('transpose_a') or attrs.get('transpose_b'):
        return None

    def call(lhs, rhs):
        if isinstance(rhs, CsrValue) or rhs.dim() != 2 or rhs.dtype != lhs.dtype or rhs.shape[0] != lhs.shape[1]:
            return op_impl(densify(lhs), densify(rhs) if isinstance(rhs, CsrValue) else rhs, **attrs)  # its errors
        return _CsrDense.apply(rhs, lhs)
    return call, False


# elementwise operators with f(0) = 0: csr in, csr out (MXNet's csr kernels for these keep the sparsity pattern): the
# eager rule's list, and scalar multiplication and division (any scalar: MXNet multiplies the stored values only)
_ZERO_PRESERVING = _sparse._ZERO_PRESERVING | {'_mul_scalar', '_div_scalar'}


def _csr_values(op_impl, attrs):
    """The op applied to the stored values: csr in, csr out."""
    def call(x):
        return x.with_data(op_impl(x.data, **attrs))
    return call, True


# MXNet's scatter scalar operators change a csr array's stored values only (0 + 9 stays an unstored 0)
_STORED_ONLY = frozenset(['_scatter_plus_scalar', '_scatter_minus_scalar'])


def sparse_rule(op, attrs, csr_inputs):
    """``(function, output is csr)`` computing ``op`` with csr values at the input positions ``csr_inputs``, or
    None when the op has no rule for them (the inputs are then densified)."""
    if op.name == 'dot' and csr_inputs == (0,):
        rule = _csr_dot(op.impl, attrs)
    elif csr_inputs == (0,) and (op.name in _ZERO_PRESERVING
                                 or (op.name == '_contrib_quadratic' and attrs.get('c') == 0)):
        rule = _csr_values(op.impl, attrs)  # (MXNet's too for an inf or nan scalar: unstored zeros stay zero)
    elif csr_inputs == (0,) and op.name in _STORED_ONLY:
        rule = _csr_values(op.impl, attrs)
    else:
        return None
    if rule is None:
        return None
    fn, csr_out = rule
    name = op.name

    def call(*args):
        if _PROF.symbolic:
            return _profstate.run(name, fn, *args)
        return fn(*args)
    return call, csr_out


def _gives_row_sparse_grad(node, pos, csr, declared_rsp):
    """Whether ``node``'s backward gives its input ``pos`` a row_sparse gradient (MXNet's backward storage rules):
    the dense operand of dot(csr, dense), the weight of a sparse-gradient embedding, and a row_sparse array under
    ``_square_sum``."""
    name, attrs = node.op.name, node.params()
    if name == 'dot':
        return (pos == 1 and (id(node.inputs[0][0]), node.inputs[0][1]) in csr
                and not attrs.get('transpose_a') and not attrs.get('transpose_b'))
    if name == '_contrib_SparseEmbedding' or (name == 'Embedding' and attrs.get('sparse_grad')):
        return pos == 1
    return name == '_square_sum' and pos == 0 and declared_rsp


def _csr_sources(nodes, csr_args):
    """``{(node id, output): csr argument name}``: the csr arguments ``csr_args`` and the outputs of the
    zero-preserving operators applied to them (first input), which keep their sparsity pattern."""
    src = {(id(n), 0): n.name for n in nodes if n.is_var and n.name in csr_args}
    for n in nodes:
        if not n.is_var and n.op.name in _ZERO_PRESERVING and n.inputs:
            first = (id(n.inputs[0][0]), n.inputs[0][1])
            if first in src:
                src[(id(n), 0)] = src[first]
    return src


def row_sparse_grads(sym, stypes):
    """The arguments of ``sym`` whose gradient MXNet's executor makes row_sparse, given the arguments' storage
    types (``{name: stype}``): those whose every reader gives them a row_sparse gradient (the gradients of
    several readers add up, dense if any is)."""
    nodes = sym._nodes()
    csr = set(_csr_sources(nodes, {n for n, st in stypes.items() if st == 'csr'}))
    readers = {}
    for n in nodes:
        for pos, (src, _) in enumerate(() if n.is_var else n.inputs):
            if src.is_var:
                readers.setdefault(id(src), []).append((n, pos))
    out = set()
    for n in nodes:
        if n.is_var and readers.get(id(n)) and stypes.get(n.name) != 'csr':
            rsp = stypes.get(n.name) == 'row_sparse'
            if all(_gives_row_sparse_grad(r, pos, csr, rsp) for r, pos in readers[id(n)]):
                out.add(n.name)
    return out


def csr_row_sources(sym, csr_args):
    """``{argument: csr argument names}``: the arguments read as the dense operand of ``dot(csr, arg)``, the csr
    reached from the csr arguments ``csr_args`` through zero-preserving operators. MXNet's dot backward stores the
    csr's column indices as the rows of that gradient, rows whose values are zero included."""
    nodes = sym._nodes()
    src = _csr_sources(nodes, csr_args)
    out = {}
    for n in nodes:
        if n.is_var or n.op.name != 'dot' or len(n.inputs) != 2 or not n.inputs[1][0].is_var:
            continue
        first = (id(n.inputs[0][0]), n.inputs[0][1])
        attrs = n.params()
        if first in src and not attrs.get('transpose_a') and not attrs.get('transpose_b'):
            out.setdefault(n.inputs[1][0].name, set()).add(src[first])
    return out


# ---- which path a bound executor takes ------------------------------------------------------------------------------
def _compressed_covers(sym, csr_args):
    """Whether the compressed path computes every operator reading the csr arguments ``csr_args`` (names) as MXNet
    does: with a rule above, or densely where MXNet's operator has no sparse rule either."""
    csr = {(id(n), 0) for n in sym._nodes() if n.is_var and n.name in csr_args}
    for n in sym._nodes():
        if n.is_var:
            continue
        at = tuple(j for j, (src, i) in enumerate(n.inputs) if (id(src), i) in csr)
        if not at:
            continue
        rule = None if n.subgraphs else sparse_rule(n.op, n.params(), at)
        if rule is not None:
            if rule[1]:
                csr.add((id(n), 0))
        elif has_storage_rule(n.op.name):
            return False
    return True


def plan(sym, args, grad_reqs, aux):
    """How an executor binding ``sym`` to the arrays ``args`` (in ``list_arguments()`` order, with their grad_req
    strings) and ``aux`` runs: ``(csr_args, sparse_run)``, the names of the csr arguments its lowered graph takes
    compressed, and whether it runs node by node (``run_sparse``). Dense arrays only: ``(frozenset(), False)``,
    unless the graph casts to a sparse storage type."""
    sparse = [isinstance(a, BaseSparseNDArray) for a in args]
    if not any(sparse) and not any(isinstance(a, BaseSparseNDArray) for a in aux):
        # (a cast to a sparse storage type makes sparse values of dense ones)
        casts = any(not n.is_var and n.op.name in SPARSE_FROM_DENSE and n.params().get('stype') != 'default'
                    for n in sym._nodes())
        return frozenset(), casts
    names = sym.list_arguments()
    csr = frozenset(n for n, a, r in zip(names, args, grad_reqs) if isinstance(a, CSRNDArray) and r == 'null')
    if (any(isinstance(a, BaseSparseNDArray) for a in aux) or sum(sparse) != len(csr)
            or not _compressed_covers(sym, csr)):
        return frozenset(), True
    return csr, False


# ---- the sparse run -------------------------------------------------------------------------------------------------
class _Values(torch.autograd.Function):
    """The values of ``stored`` (what a storage rule gave) with the gradient of ``dense`` (the operator's dense
    kernel on the same inputs)."""

    @staticmethod
    def forward(ctx, dense, stored):
        return stored.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def _tensor(v):
    return v._t if isinstance(v, BaseSparseNDArray) else v


class _SparseRun(torch.fx.Interpreter):
    """Runs a lowered graph node by node; ``stored`` maps each node whose value is sparse to that value (an array)."""

    def __init__(self, gm, inputs_stored, ctx):
        super().__init__(gm)
        self.extra_traceback = False  # an op's error reads as MXNet's, without fx's node dump appended
        self.stored = {}
        self._inputs_stored = iter(inputs_stored)
        self._ctx = ctx

    def fetch_args_kwargs_from_env(self, n):
        args, kwargs = super().fetch_args_kwargs_from_env(n)
        return tuple(_tensor(a) for a in args), kwargs  # (a sparse value a dense kernel reads: its dense values)

    def run_node(self, n):
        if n.op == 'placeholder':
            value = super().run_node(n)
            arr = next(self._inputs_stored)
            if arr is not None:
                self.stored[n] = arr
            return value
        stored = [self.stored.get(a) if isinstance(a, torch.fx.Node) else None for a in n.args]
        if n.op == 'call_function':
            name = getattr(n.target, '_mx_op', None)
            if name is not None and (any(a is not None for a in stored) or name in SPARSE_FROM_DENSE):
                return self._rule(n, name, stored)
        elif n.op == 'call_method' and n.target == 'contiguous' and stored[0] is not None:
            self.stored[n] = stored[0]  # (the copy after a view operator: a sparse result is a fresh array)
            return self.env[n.args[0]]
        return super().run_node(n)

    def _rule(self, n, name, stored):
        op = registry.get(name)
        values = [self.env[a] if isinstance(a, torch.fx.Node) else a for a in n.args]
        arrays = [s if s is not None else None if v is None else NDArray._from_tensor(v.detach(), self._ctx)
                  for s, v in zip(stored, values)]
        attrs = n.target._mx_attrs
        if op.variadic:
            attrs = {k: v for k, v in attrs.items() if k != op.key_var_num_args}
        with torch.no_grad():
            res = dispatch(name, arrays, dict(attrs), None)
        tensors = [_tensor(v) for v in values]
        grad = torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in tensors)
        if op.num_outputs != 1 or not isinstance(res, NDArray):  # no rule: the dense kernel
            return n.target(*tensors)
        if isinstance(res, BaseSparseNDArray):
            self.stored[n] = res
            return _Values.apply(n.target(*tensors), res._t) if grad else res
        return n.target(*tensors) if grad else res._t


def run_sparse(gm, values, stored, ctx):
    """Run the lowered graph ``gm`` node by node (see the module docstring). ``values``: its inputs, tensors (leaves
    where gradients are wanted) or sparse arrays; ``stored``: for each input, its sparse array (the bound one) or
    None. Returns ``(outputs, sparse)``: the outputs, tensors or sparse arrays (a sparse output that is recorded for
    a gradient: its tensor), and for each output its sparse array or None. A dense output sharing memory with an
    input is copied, as ``Runner.fresh`` copies them."""
    run = _SparseRun(gm, stored, ctx)
    outs = list(run.run(*values))
    out_node = next(n for n in reversed(gm.graph.nodes) if n.op == 'output')
    sparse = [run.stored.get(a) if isinstance(a, torch.fx.Node) else None for a in out_node.args[0]]
    ins = [v._dense if isinstance(v, BaseSparseNDArray) else v for v in values]  # (a sparse input read densely)
    ptrs = {t.untyped_storage().data_ptr() for t in ins if isinstance(t, torch.Tensor)}
    for i, (o, sp) in enumerate(zip(outs, sparse)):
        if sp is not None or not isinstance(o, torch.Tensor) or any(o is t for t in ins):  # (an input stays itself)
            continue
        if o.untyped_storage().data_ptr() in ptrs or not o.is_contiguous():
            outs[i] = o.clone(memory_format=torch.contiguous_format)
    return outs, sparse
