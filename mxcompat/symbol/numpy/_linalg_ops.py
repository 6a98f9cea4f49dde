"""``_npi_norm``, MXNet 1.9.1's operator behind ``np.linalg.norm`` (attributes ``ord``, ``axis``, ``keepdims`` and
``flag``, which says what ``ord`` means), running ``mx.np.linalg.norm`` with the order the attributes stand for."""
from ... import numpy as _mxnp
from ...operator import registry
from .. import opinfo
from ._ops import _on_arrays, publish


def _order(ord, axis, flag):  # noqa: A002 (MXNet's name)
    """The ``ord`` of ``np.linalg.norm`` a node stands for: flag -2 no order and no axis; 1 the Frobenius norm
    (NumPy's default with an axis: the 2-norm over one axis); 2 the nuclear norm; 0 the matrix ±2-norm; -1 the
    vector norm of order ``ord``."""
    if flag == -2:
        return None
    if flag == 1:
        return 'fro'
    if flag == 2:
        return 'nuc'
    return int(ord) if float(ord).is_integer() else float(ord)


def _norm(x, ord, axis, keepdims, flag):  # noqa: A002
    return _mxnp.linalg.norm(x, ord=_order(ord, axis, flag), axis=axis, keepdims=keepdims)


_OP = registry.defop('_npi_norm', ('data',), [('ord', 'float', 2.0), ('axis', 'shape', None),
                                             ('keepdims', 'bool', False), ('flag', 'int', -1)], _on_arrays(_norm),
                     output_names=('output0',))
publish([_OP.name])
# (MXNet's node has three more, hidden outputs, which JSON's node_row_ptr counts and its output's name numbers)
opinfo.TOTAL_OUTPUTS.setdefault('_npi_norm', 4)
