"""csr inputs of bound symbols: kept compressed through the operators that have a sparse rule.

An Executor bound with a CSRNDArray argument that takes no gradient (a Module's ``stype='csr'`` data) hands the
lowered graph that argument's components (a :class:`CsrValue`) instead of its dense values, which for a wide
feature space would not fit in memory (256 rows of 1M features: 1 GB). The graph keeps the value compressed through

- ``dot(csr, dense)``: the product over the stored entries; the gradient it sends to the dense operand holds the
  rows those entries hit only (a sparse COO tensor), which the executor writes into a row_sparse gradient array or
  adds into a dense one;
- elementwise operators that map 0 to 0 (``square``, ``sqrt``, ``abs``, scalar multiplication ...), and the scatter
  scalar operators (``_scatter_plus_scalar``, ``_scatter_minus_scalar``): applied to the stored values, giving csr
  again, as MXNet's csr kernels do.

The executor marks the leaves of arguments with a row_sparse gradient array, so that ``Embedding(sparse_grad=True)``
and ``contrib.SparseEmbedding`` give them a gradient over the looked-up rows only, as MXNet's executor does.

Every other operator reading a csr value gets it densified once (MXNet's "storage fallback"), and so do graph
outputs. Differs from MXNet: results of the rules above are dense or csr as MXNet's, but an output array is always
dense, and sparse results other than these (``dot(csr.T, x)``, row_sparse outputs) are computed densely.
"""
import torch

from ... import _profstate
from ...operator import _sparse

__all__ = ['CsrValue', 'densify', 'sparse_rule', 'row_sparse_grads']

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
# eager rule's list, and scalar multiplication and division
_ZERO_PRESERVING = _sparse._ZERO_PRESERVING | {'_mul_scalar', '_div_scalar'}


def _csr_values(op_impl, attrs):
    """The op applied to the stored values: csr in, csr out."""
    def call(x):
        return x.with_data(op_impl(x.data, **attrs))
    return call, True


def _csr_unary(op_impl, attrs):
    scalar = attrs.get('scalar')
    if scalar is not None and (scalar != scalar or scalar in (float('inf'), float('-inf'))):
        return None  # 0 * inf is not 0: the dense path
    return _csr_values(op_impl, attrs)


# MXNet's scatter scalar operators change a csr array's stored values only (0 + 9 stays an unstored 0)
_STORED_ONLY = frozenset(['_scatter_plus_scalar', '_scatter_minus_scalar'])


def sparse_rule(op, attrs, csr_inputs):
    """``(function, output is csr)`` computing ``op`` with csr values at the input positions ``csr_inputs``, or
    None when the op has no rule for them (the inputs are then densified)."""
    if op.name == 'dot' and csr_inputs == (0,):
        rule = _csr_dot(op.impl, attrs)
    elif csr_inputs == (0,) and (op.name in _ZERO_PRESERVING
                                 or (op.name == '_contrib_quadratic' and attrs.get('c') == 0)):
        rule = _csr_unary(op.impl, attrs)
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


def row_sparse_grads(sym, stypes):
    """The arguments of ``sym`` whose gradient MXNet's executor makes row_sparse, given the arguments' storage
    types (``{name: stype}``): those whose every reader gives them a row_sparse gradient (the gradients of
    several readers add up, dense if any is)."""
    nodes = sym._nodes()
    csr = {(id(n), 0) for n in nodes if n.is_var and stypes.get(n.name) == 'csr'}
    readers = {}
    for n in nodes:
        if n.is_var:
            continue
        keys = [(id(s), i) for s, i in n.inputs]
        if n.op.name in _ZERO_PRESERVING and keys and keys[0] in csr:
            csr.add((id(n), 0))
        for pos, (src, _) in enumerate(n.inputs):
            if src.is_var:
                readers.setdefault(id(src), []).append((n, pos))
    out = set()
    for n in nodes:
        if n.is_var and readers.get(id(n)) and stypes.get(n.name) != 'csr':
            rsp = stypes.get(n.name) == 'row_sparse'
            if all(_gives_row_sparse_grad(r, pos, csr, rsp) for r, pos in readers[id(n)]):
                out.add(n.name)
    return out
