"""Row_sparse Gluon Parameters (stype / grad_stype), Trainer with row_sparse weights and gradients, and
Embedding(sparse_grad=True): outcomes compared with real MXNet 1.9.1's (tests/fixtures/gluon_sparse)."""
import importlib.util
import json
import os
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import gluon
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'gluon_sparse')
_spec = importlib.util.spec_from_file_location('sparse_scenarios', os.path.join(FIX, 'sparse_scenarios.py'))
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)
GOLD = json.load(open(os.path.join(FIX, 'sparse_params.json')))


def _run(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return json.loads(json.dumps(scenarios.run(mx, name), default=str))


@pytest.mark.parametrize('name', ['lazy_sgd_rsp_weight', 'dense_weight_rsp_grad_two_ctx', 'embedding_two_ctx',
                                  'dense_weight_rsp_grad_on_kvstore', 'embedding_adam', 'save_load_reset'])
def test_scenario_equals_mxnet(name):
    assert _run(name) == GOLD[name]


def test_embedding_keeps_touched_rows():
    # MXNet's sparse Embedding backward keeps looked-up rows whose gradient is all zero, and so does ours (the
    # gradient is computed over the looked-up rows, not compressed from a dense one)
    got, want = _run('embedding_touched_rows'), GOLD['embedding_touched_rows']
    assert want['grad']['indices'] == [1, 3]
    assert got == want


def test_error_kinds_as_mxnet():
    got, want = _run('errors'), GOLD['errors']
    assert got.keys() == want.keys()
    for key, kinds in want.items():
        if isinstance(kinds, list):
            assert set(kinds) <= set(got[key]), (key, got[key], kinds)  # ours are MXNetError subclasses too
        else:
            assert got[key] == kinds, key


def test_error_messages():
    p = gluon.Parameter('emb', shape=(4, 2), stype='row_sparse')
    p.initialize()
    with pytest.raises(MXNetError, match="Parameter 'emb'.*storage type is row_sparse.*row_sparse_data"):
        p.data()
    with pytest.raises(MXNetError, match="when no Trainer is created"):
        p.row_sparse_data(mx.nd.array([0]))
    d = gluon.Parameter('dense', shape=(4, 2))
    d.initialize()
    with pytest.raises(MXNetError, match='Parameter dense via row_sparse_data.*storage type is default'):
        d.row_sparse_data(mx.nd.array([0]))
    with pytest.raises(AssertionError, match="stype for Parameter 'x' must be one of"):
        gluon.Parameter('x', stype='dense')


@pytest.mark.parametrize('kw', [{'stype': 'csr'}, {'grad_stype': 'csr'}])
def test_csr_is_a_known_gap(kw):
    with pytest.raises(MXNetNotImplementedError, match="gluon.Parameter.*csr"):
        gluon.Parameter('c', shape=(2, 2), **kw)


def test_dense_parameters_keep_the_plain_class():
    # the dense hot path (data(), Trainer.step) tests no storage type: row_sparse parameters have their own class
    dense = gluon.Parameter('a', shape=(2,), grad_stype='row_sparse')
    sparse = gluon.Parameter('b', shape=(2,), stype='row_sparse')
    assert type(dense) is gluon.Parameter
    assert isinstance(sparse, gluon.Parameter) and type(sparse).data is not gluon.Parameter.data
    assert sparse.var().attr('__storage_type__') == '1'


def test_trainer_row_sparse_pull_keeps_autograd_and_freshness():
    p = gluon.Parameter('w', shape=(4, 2), stype='row_sparse', grad_stype='row_sparse', grad_req='add')
    p.initialize(mx.init.One(), ctx=[mx.cpu(0), mx.cpu(1)])
    tr = gluon.Trainer([p], 'sgd', {'learning_rate': 1})
    for _ in range(2):  # 'add' accumulates over pulls of the same array
        for w in p.list_row_sparse_data(mx.nd.array([1, 2])):
            with mx.autograd.record():
                (w * 2).sum().backward()
    g = p.list_grad()[1]
    assert g.stype == 'row_sparse' and g.indices.asnumpy().tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(g.asnumpy(), np.full((4, 2), 4.0))
    tr.step(1)
    w = p.row_sparse_data(mx.nd.arange(4, ctx=mx.cpu(1)))
    assert w.context == mx.cpu(1)
    np.testing.assert_allclose(w.asnumpy(), np.full((4, 2), 1 - 8.0))
    p.zero_grad()
    assert all(gr.indices.shape == (0,) for gr in p.list_grad())


def test_deferred_dense_param_initialized_during_recorded_pull():
    # a Dense layer finishing deferred init inside record() while row_sparse rows are pulled (MXNet's
    # test_trainer_multi_layer_init): the broadcast must not invalidate the graph of the first context
    class Net(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.table = self.params.get('table', stype='row_sparse', shape=(4, 3), grad_stype='row_sparse')
                self.dense = gluon.nn.Dense(2)

        def forward(self, x):
            w = self.table.row_sparse_data(x)
            return self.dense(mx.nd.Embedding(x, w, input_dim=4, output_dim=3, sparse_grad=True))

    ctxs = [mx.cpu(1), mx.cpu(2)]
    net = Net(prefix='net_')
    net.initialize(mx.init.One(), ctx=ctxs)
    tr = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 1})
    xs = gluon.utils.split_and_load(mx.nd.array([[0, 2], [1, 2]]), ctxs)
    with mx.autograd.record():
        ys = [net(x) for x in xs]
    for y in ys:
        y.backward()
    tr.step(1)
    rows = net.table.row_sparse_data(mx.nd.arange(4, ctx=mx.cpu(1))).asnumpy()
    np.testing.assert_array_equal(rows, [[-1] * 3, [-1] * 3, [-3] * 3, [1] * 3])


def test_np_shape_unknown_dims_read_minus_one():
    p = gluon.Parameter('s', shape=(3, 0), allow_deferred_init=True)
    assert p.shape == (3, 0)
    with mx.util.np_shape(True):
        assert p.shape == (3, -1)
        net = gluon.nn.Dense(4)
        net.initialize()
        assert net(mx.nd.zeros((2, 5))).shape == (2, 4)
        assert net.weight.shape == (4, 5)
