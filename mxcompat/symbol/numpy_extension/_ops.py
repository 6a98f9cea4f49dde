"""The operators MXNet 1.9.1 registers for ``mx.npx`` alone besides ``_npx_reshape``: ``_npx_nonzero`` (input
``x``) and ``_npx_constraint_check`` (input ``input``, attribute ``msg``), each running the ``mx.npx`` function on
the tensors."""
import torch

from ...numpy_extension import _op as _npx
from ...operator import registry
from ..numpy._ops import _arrays, _graph_call, publish


def _nonzero(x):
    return _graph_call(lambda: _npx.nonzero(_arrays([x])[0])._t)


def _nonzero_infer(shapes, dtypes, attrs):  # noqa: ARG001
    # (the row count is the number of non-zero values: known only when it runs, as in MXNet)
    return [None], [torch.int64]


def _constraint_check(x, msg):
    return _graph_call(lambda: _npx.constraint_check(_arrays([x])[0], msg)._t)


_OPS = (
    registry.defop('_npx_nonzero', ('x',), [], _nonzero, infer=_nonzero_infer),
    registry.defop('_npx_constraint_check', ('input',), [('msg', 'str', 'Constraint violated.')], _constraint_check,
                   infer=lambda shapes, dtypes, attrs: ([()], [torch.bool])),
)
publish(op.name for op in _OPS)
