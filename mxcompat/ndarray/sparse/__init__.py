"""``mx.nd.sparse``: CSRNDArray and RowSparseNDArray, their creation functions and storage-aware operators.

A sparse array keeps its compressed components as torch tensors and builds its dense tensor on first use, so every
operator without a sparse rule works on the dense values (MXNet's "storage fallback") and returns a dense array.

Differs from MXNet: results that MXNet computes as sparse are built from the components where that is simple
(unary ops, ``retain``, ``dot``, row_sparse sums) and otherwise computed dense and compressed, so explicit zeros
that MXNet would keep in a sparse result are dropped there. Gradients are dense.

| module | what it holds |
| --- | --- |
| ``storage.py`` | the array classes, pickling (their components <-> dense tensors: ``operator/_sparse.py``) |
| ``creation.py`` | ``csr_matrix``, ``row_sparse_array``, ``array``, ``zeros``, ``empty``, ``cast_storage`` |
| ``arithmetic.py`` | the classes' operators, ``add``/``subtract``/``multiply``/``divide``, elemwise/broadcast rules |
| ``spmm.py`` | ``dot`` with sparse inputs |
| ``updates.py`` | optimizer updates with row_sparse gradients (lazy sgd/adam, sparse adagrad) |
| ``functions.py`` | the other storage-aware functions, ``SPARSE_FUNCS`` and ``dispatch`` (used by ``register.py``) |
| ``testing.py`` | random sparse arrays for ``mx.test_utils`` |
"""
from ..ndarray import NDArray  # noqa: F401  (MXNet's mx.nd.sparse names it too)
from .storage import (BaseSparseNDArray, CSRNDArray, RowSparseNDArray, NotSupportedForSparseNDArray,  # noqa: F401
                      summed_rows, over_dense, _from_record)
from .creation import csr_matrix, row_sparse_array, array, zeros, empty, cast_storage, _ndarray_cls  # noqa: F401
from .arithmetic import add, subtract, multiply, divide  # noqa: F401
from .updates import check_sparse_adagrad  # noqa: F401
from .functions import SPARSE_FUNCS, dispatch  # noqa: F401  (register.py hands sparse inputs to dispatch)
from .testing import _rand_sparse_ndarray, _create_sparse_array, _create_sparse_array_zd  # noqa: F401

__all__ = ['BaseSparseNDArray', 'CSRNDArray', 'RowSparseNDArray', 'csr_matrix', 'row_sparse_array', 'array',
           'zeros', 'empty', 'cast_storage', 'add', 'subtract', 'multiply', 'divide']
globals().update(SPARSE_FUNCS)  # retain, dot, add_n, elemwise_add, relu ... (mx.nd.sparse.<name>)
__all__ += [k for k in SPARSE_FUNCS if not k.startswith('_')]

from .._gaps import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr('nd.sparse', __name__)  # MXNet names mxcompat lacks: stubs that raise naming them
