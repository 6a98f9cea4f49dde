"""``mx.nd.sparse``: sparse storage is not supported yet; the entry points raise, naming the API."""
from ..base import unsupported


def cast_storage(data, stype):
    raise unsupported('mx.nd.sparse.cast_storage', 'stype=%r' % stype, 'sparse storage is not implemented yet')


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    raise unsupported('mx.nd.sparse.zeros', 'stype=%r' % stype, 'sparse storage is not implemented yet')


def array(source_array, ctx=None, dtype=None):
    raise unsupported('mx.nd.sparse.array', 'sparse arrays', 'sparse storage is not implemented yet')


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    raise unsupported('mx.nd.sparse.csr_matrix', 'csr storage', 'sparse storage is not implemented yet')


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    raise unsupported('mx.nd.sparse.row_sparse_array', 'row_sparse storage', 'sparse storage is not implemented yet')
