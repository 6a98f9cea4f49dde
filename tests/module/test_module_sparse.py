"""Module with row_sparse weights (lazy updates, prepare with sparse_row_id_fn), data_shapes listed in another
order than data_names, and data_shapes/label_shapes as DataDescs; values recorded from MXNet 1.9.1
(tests/fixtures/module_sparse, generator beside them)."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from tests.module.golden import generator_functions

FIXTURES = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'module_sparse')
GOLDEN = json.load(open(os.path.join(FIXTURES, 'module_sparse.json')))


@pytest.fixture(scope='module')
def run():
    return generator_functions('module_sparse', 'gen_module_sparse.py')['run']


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_row_sparse_weight_updates_only_the_batch_rows(run, case):
    opt, kv = case.split('_')
    params = {'learning_rate': 0.1} if opt == 'adam' else {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.1}
    got = run(kv, opt, params)
    assert got['stype'] == GOLDEN[case]['stype']
    np.testing.assert_allclose(got['weight'], GOLDEN[case]['weight'], rtol=1e-5, atol=1e-6)


def test_data_shapes_may_list_the_names_in_another_order():
    user, item = mx.sym.Variable('user'), mx.sym.Variable('item')
    net = mx.sym.LinearRegressionOutput(user * 2 + item, mx.sym.Variable('score'))
    it = mx.io.NDArrayIter({'user': mx.nd.array([1, 2]), 'item': mx.nd.array([10, 20])},
                           {'score': mx.nd.array([0, 0])}, batch_size=2)
    assert [d.name for d in it.provide_data] == ['item', 'user']  # a dict's names come sorted
    mod = mx.mod.Module(net, data_names=['user', 'item'], label_names=['score'])
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params()
    mod.forward(next(iter(it)), is_train=False)
    assert mod.get_outputs()[0].asnumpy().tolist() == [12, 24]
    assert mod.data_names == ['user', 'item'] and [d.name for d in mod.data_shapes] == ['item', 'user']
    with pytest.raises(ValueError, match="don't match names"):
        mx.mod.Module(net, data_names=['user', 'item'], label_names=['score']).bind(
            data_shapes=[('user', (2,)), ('other', (2,))], label_shapes=it.provide_label)


def test_data_and_label_shapes_are_data_descs():
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2),
                                        mx.sym.Variable('softmax_label'))
    mod = mx.mod.Module(net)
    mod.bind(data_shapes=[mx.io.DataDesc('data', [2, 3], layout='NC')], label_shapes=[('softmax_label', (2, 2))])
    d, = mod.data_shapes
    assert isinstance(d, mx.io.DataDesc) and (d.name, d.shape, d.layout) == ('data', (2, 3), 'NC')
    lab, = mod.label_shapes
    assert isinstance(lab, mx.io.DataDesc) and (lab.name, lab.shape, lab.layout) == ('softmax_label', (2, 2), 'NCHW')
    name, shape = d  # still a (name, shape) pair
    assert (name, shape) == ('data', (2, 3))
