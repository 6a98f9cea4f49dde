"""mxcompat/operator/contrib_ops.py: behaviours beyond the golden cases in tests/fixtures/ops_extra."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError


def test_index_array_of_zero_dim_array_is_empty():
    # MXNet (numpy shape semantics): a 0-d array has no axes to index, so each of its (one) elements gets an empty
    # index vector: shape (0,); eager and symbolic, with a zero gradient (upstream test_index_array)
    with mx.np_shape(True):
        assert mx.nd.contrib.index_array(mx.nd.ones(())).shape == (0,)
        assert mx.nd.contrib.index_array(mx.nd.ones((0, 0, 0))).shape == (0, 0, 0, 3)
        assert mx.nd.contrib.index_array(mx.nd.ones((2, 3)), axes=()).shape == (2, 3, 0)  # MXNet 1.9.1 too
        data = mx.sym.Variable('data')
        ex = mx.sym.contrib.index_array(data).bind(mx.cpu(), {'data': mx.nd.array(np.ones(()))},
                                                  args_grad={'data': mx.nd.ones(())})
        out = ex.forward(is_train=True)[0]
        assert out.shape == (0,) and out.dtype == np.int64
        ex.backward([mx.nd.ones((0,))])
        assert ex.grad_arrays[0].asnumpy() == 0


_HAWKES = ['lda', 'alpha', 'beta', 'state', 'lags', 'marks', 'valid_length', 'max_time']


def _hawkes_args():
    return {'lda': mx.nd.ones((2, 3)), 'alpha': mx.nd.ones((3,)) * 0.3, 'beta': mx.nd.ones((3,)),
            'state': mx.nd.zeros((2, 3)), 'lags': mx.nd.ones((2, 4)),
            'marks': mx.nd.array([[0, 1, 2, 0], [1, 1, 1, 1]], dtype='int32'), 'valid_length': mx.nd.array([4, 2]),
            'max_time': mx.nd.array([10, 10])}


def test_hawkesll_symbol_matches_mxnet():
    # a bound one-op symbol: outputs, inferred shapes and types (marks int32), and the gradients of the log
    # likelihood (the out_state head gradient is ignored, as in MXNet). Values from MXNet 1.9.1 (the oracle).
    s = mx.sym.contrib.hawkesll(*[mx.sym.var(n) for n in _HAWKES], name='hk')
    assert s.list_outputs() == ['hk_output', 'hk_out_state']
    assert s.infer_shape(lda=(2, 3), alpha=(3,), beta=(3,), state=(2, 3), lags=(2, 4), marks=(2, 4),
                         valid_length=(2,), max_time=(2,))[1] == [(2,), (2, 3)]
    arg_types = s.infer_type(lda=np.float32)[0]
    assert arg_types[5] == np.int32 and all(t == np.float32 for i, t in enumerate(arg_types) if i != 5)
    args = _hawkes_args()
    grads = {n: mx.nd.zeros(args[n].shape) for n in ('lda', 'alpha', 'beta')}
    ex = s.bind(mx.cpu(), args, args_grad=grads, grad_req={n: 'write' if n in grads else 'null' for n in _HAWKES})
    ll, state = ex.forward(is_train=True)
    np.testing.assert_allclose(ll.asnumpy(), [-31.184019, -30.495174], rtol=1e-5)
    np.testing.assert_allclose(state.asnumpy(), [[0.00260216, 0.000335463, 0.000911882], [0, 0.000458872, 0]],
                               rtol=1e-5)
    ex.backward([mx.nd.ones((2,)), mx.nd.ones((2, 3))])
    np.testing.assert_allclose(grads['lda'].asnumpy(), [[-8.014716, -9, -9], [-10, -8.099394, -10]], rtol=1e-5)
    np.testing.assert_allclose(grads['alpha'].asnumpy(), [-1.948343, -2.667891, -0.999088], rtol=1e-5)
    np.testing.assert_allclose(grads['beta'].asnumpy(), [-0.03422759, -0.001943432, -0.001914952], rtol=1e-5)


def test_hawkesll_gradients_and_errors():
    args = _hawkes_args()
    for n in ('lda', 'state'):
        args[n].attach_grad()
    with mx.autograd.record():
        ll, state = mx.nd.contrib.hawkesll(*[args[n] for n in _HAWKES])
    assert not state.to_torch().requires_grad  # the returned state carries no gradient (MXNet ignores its head)
    ll.backward()
    np.testing.assert_array_equal(args['state'].grad.asnumpy(), np.zeros((2, 3)))  # held constant, as in MXNet
    bad = dict(_hawkes_args(), marks=_hawkes_args()['marks'].astype('float32'))
    with pytest.raises(MXNetError, match='hawkesll: marks must be int32, got float32'):
        mx.nd.contrib.hawkesll(*[bad[n] for n in _HAWKES])
    bad = dict(_hawkes_args(), alpha=mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match=r'alpha must have shape \(3,\)'):
        mx.nd.contrib.hawkesll(*[bad[n] for n in _HAWKES])
    bad = dict(_hawkes_args(), marks=mx.nd.array([[0, 1, 3, 0], [1, 1, 7, 7]], dtype='int32'))
    with pytest.raises(MXNetError, match=r'marks must lie in \[0, 3\)'):  # (step 2 of the first row only is valid)
        mx.nd.contrib.hawkesll(*[bad[n] for n in _HAWKES])
    lagged = _hawkes_args()
    lagged['lags'].attach_grad()
    with pytest.raises(MXNetError, match='lags is a sufficient statistic'):
        with mx.autograd.record():
            mx.nd.contrib.hawkesll(*[lagged[n] for n in _HAWKES])
