"""Bound graphs fed csr data (symbol/passes/storage.py): MXNet's example/sparse models train to MXNet 1.9.1's numbers
(tests/fixtures/module_sparse/sparse_graphs.json, generator beside it) without densifying the data, gradients
have MXNet's storage types, and operators without a csr rule read the dense values."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from tests.module.golden import generator_functions

FIXTURES = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'module_sparse')
GOLDEN = json.load(open(os.path.join(FIXTURES, 'sparse_graphs.json')))


@pytest.fixture(scope='module')
def gen():
    return generator_functions('module_sparse', 'gen_sparse_graphs.py')


def _check(got, want):
    for key, value in want.items():
        if isinstance(value, str):
            assert got[key] == value, key
        elif value and isinstance(value[0], list):
            for g, w in zip(got[key], value):
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=key)
        else:
            np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize('case', ['linear_sgd_1', 'linear_sgd_2', 'linear_adam_1'])
def test_linear_classifier_on_csr_data(gen, case):
    _, opt, ndev = case.split('_')
    params = {'learning_rate': 0.05} if opt == 'adam' else {'learning_rate': 0.2, 'momentum': 0.9, 'wd': 0.01}
    _check(gen['linear'](opt, params, int(ndev)), GOLDEN[case])


@pytest.mark.parametrize('case', ['factorization_machine', 'wide_deep', 'simple_bind_stypes', 'fallback'])
def test_sparse_models_and_storage_types(gen, case):
    _check(gen[case](), GOLDEN[case])


def _linear_module(feats, batch):
    x = mx.sym.Variable('data', stype='csr')
    w = mx.sym.Variable('weight', shape=(feats, 2), stype='row_sparse')
    net = mx.sym.SoftmaxOutput(mx.sym.sparse.dot(x, w), mx.sym.Variable('softmax_label'), name='out')
    mod = mx.mod.Module(net, data_names=['data'], label_names=['softmax_label'])
    mod.bind(data_shapes=[('data', (batch, feats))], label_shapes=[('softmax_label', (batch,))])
    return mod


def test_wide_csr_data_is_never_densified():
    # 64 rows of 5M features: 1.3 GB dense; the step reads the 320 stored entries and updates their rows only
    feats, batch = 5_000_000, 64
    mod = _linear_module(feats, batch)
    mod.init_params(mx.init.Constant(0.5))
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    rs = np.random.RandomState(0)
    cols = np.sort(rs.choice(feats, (batch, 5), replace=True), 1)
    data = mx.nd.sparse.csr_matrix((np.ones(batch * 5, np.float32), cols.ravel(), np.arange(batch + 1) * 5),
                                   shape=(batch, feats))
    batch_ = mx.io.DataBatch([data], [mx.nd.array(rs.randint(0, 2, batch))])
    mod.forward_backward(batch_)
    ex = mod._exec_group.execs[0]
    assert ex.arg_dict['data']._dense is None and data._dense is None
    grad = ex.grad_dict['weight']
    assert grad.stype == 'row_sparse' and grad._dense is None
    assert sorted(grad.indices.asnumpy().tolist()) == sorted(set(cols.ravel().tolist()))
    mod.update()
    weight = mod._exec_group.param_arrays[0][0].asnumpy()
    touched = np.zeros(feats, bool)
    touched[cols.ravel()] = True
    assert (weight[~touched] == 0.5).all() and not (weight[touched] == 0.5).all(axis=1).any()


def test_executor_forward_takes_csr_and_dense_inputs():
    x = mx.sym.Variable('x', stype='csr')
    w = mx.sym.Variable('w')
    exe = mx.sym.dot(x, w).simple_bind(mx.cpu(), x=(2, 3), w=(3, 1), grad_req={'x': 'null', 'w': 'write'})
    dense = np.array([[1, 0, 2], [0, 3, 0]], np.float32)
    out = exe.forward(is_train=True, x=mx.nd.array(dense).tostype('csr'), w=mx.nd.ones((3, 1)))
    assert out[0].asnumpy().ravel().tolist() == [3, 3]
    out = exe.forward(is_train=True, x=mx.nd.array(dense * 2))  # a dense array copied into the csr input
    assert exe.arg_dict['x'].stype == 'csr' and out[0].asnumpy().ravel().tolist() == [6, 6]
    exe.backward(mx.nd.ones((2, 1)))
    assert exe.grad_dict['w'].stype == 'row_sparse'
    assert exe.grad_dict['w'].asnumpy().ravel().tolist() == [2, 6, 4]


def test_simple_bind_rejects_an_unknown_storage_type():
    with pytest.raises(ValueError, match="stype_dict\\['x'\\]"):
        mx.sym.Variable('x').simple_bind(mx.cpu(), x=(2,), stype_dict={'x': 'coo'})


def test_reshaped_executor_keeps_the_storage_types():
    x = mx.sym.Variable('x', stype='csr')
    w = mx.sym.Variable('w')
    exe = mx.sym.dot(x, w).simple_bind(mx.cpu(), x=(2, 3), w=(3, 1), grad_req={'x': 'null', 'w': 'write'})
    new = exe.reshape(allow_up_sizing=True, x=(4, 3), w=(3, 1))
    assert new.arg_dict['x'].stype == 'csr' and new.grad_dict['w'].stype == 'row_sparse'
    dense = np.array([[1, 0, 2], [0, 3, 0], [0, 0, 0], [1, 1, 1]], np.float32)
    out = new.forward(is_train=True, x=mx.nd.array(dense).tostype('csr'), w=mx.nd.ones((3, 1)))
    assert out[0].asnumpy().ravel().tolist() == [3, 3, 0, 3]
    assert new.arg_dict['x']._dense is None
