"""MXNet 1.9.1 ``mx.nd`` names that mxcompat does not provide, each with the reason.

Looking one up gives a function that raises ``MXNetNotImplementedError`` naming it (so ``from mxnet.nd.contrib
import quantize`` still imports and the script fails only where it uses it). tests/ndarray/test_coverage.py checks
this table against the names real MXNet 1.9.1 has (tests/fixtures/coverage/nd_names.json).
"""
from ..base import unsupported

_QUANT = 'this int8 quantization operator is not implemented; run the float model'
_DGL = 'the DGL graph-sampling operators are not implemented'
_BACKWARD = "an MXNet backward operator exposed by name; its forward op's gradient comes from torch autograd"
_INTERNAL = "an internal helper of MXNet's NDArray indexing, not an API"

GAPS = {
    'nd': {
        'get_indexing_dispatch_code': _INTERNAL,
        'get_oshape_of_gather_nd_op': _INTERNAL,
        'indexing_key_expand_implicit_axes': _INTERNAL,
        'imdecode': 'the legacy decoder fails for every input in MXNet 1.9.1 itself; use mx.image.imdecode',
    },
    'nd.contrib': dict(
        {n: _QUANT for n in ('quantize_asym', 'quantized_rnn')},
        **{n: _DGL for n in ('dgl_adjacency', 'dgl_csr_neighbor_non_uniform_sample',
                             'dgl_csr_neighbor_uniform_sample', 'dgl_graph_compact', 'dgl_subgraph')},
        **{n: _BACKWARD for n in ('backward_gradientmultiplier', 'backward_hawkesll', 'backward_index_copy',
                                  'backward_quadratic')}),
    'nd.sparse': {
        'gs_retain': 'the GPU-only row_sparse retain is not implemented',
    },
}


def stub(namespace, name, gaps=None):
    """A function standing for the missing ``mx.<namespace>.<name>``: calling it raises, naming it. ``gaps``: the
    table of reasons (this module's ``GAPS`` by default; mx.np has its own)."""
    why = (GAPS if gaps is None else gaps)[namespace][name]

    def missing(*args, **kwargs):
        raise unsupported('mx.%s.%s' % (namespace, name), 'this function', why)
    missing.__name__ = missing.__qualname__ = name
    missing.__doc__ = 'Not supported by mxcompat: %s.' % why
    return missing


def module_getattr(namespace, module_name, gaps=None):
    """A module ``__getattr__`` giving the stubs of ``namespace``'s gaps (AttributeError for anything else)."""
    table = GAPS if gaps is None else gaps
    listed = table.get(namespace, {})

    def __getattr__(name):
        if name in listed:
            return stub(namespace, name, table)
        raise AttributeError('module %r has no attribute %r' % (module_name, name))
    return __getattr__
