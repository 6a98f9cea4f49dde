"""csr values in bound graphs (mxcompat/symbol/passes/storage.py): operators with a rule for them, against MXNet
1.9.1."""
import numpy as np

import mxcompat as mx


def test_scatter_scalar_ops_change_stored_values_only():
    # MXNet 1.9.1 (the values; its outputs are csr, ours are dense): unstored zeros stay zero, and the result
    # stays csr for the next operator
    c = mx.nd.sparse.csr_matrix(np.array([[0, 2], [3, 0]], dtype='float32'))
    lhs = mx.sym.var('lhs', stype='csr')
    cases = [(mx.sym._internal._scatter_plus_scalar(lhs, 9), [[0, 11], [12, 0]]),
             (mx.sym._internal._scatter_minus_scalar(lhs, scalar=1), [[0, 1], [2, 0]]),
             (mx.sym.sqrt(mx.sym._internal._scatter_minus_scalar(lhs, scalar=-3)), [[0, 5 ** 0.5], [6 ** 0.5, 0]])]
    for sym, want in cases:
        exe = sym.bind(mx.cpu(), args={'lhs': c})
        exe.forward()
        np.testing.assert_allclose(exe.outputs[0].asnumpy(), want, rtol=1e-6)
    # a csr lhs of _scatter_elemwise_div is divided densely (MXNet's storage fallback, a dense result)
    exe = mx.sym._internal._scatter_elemwise_div(lhs, mx.sym.var('rhs')).bind(
        mx.cpu(), args={'lhs': c, 'rhs': mx.nd.array([[1, 2], [3, 4]])})
    exe.forward()
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [[0, 1], [1, 0]])
