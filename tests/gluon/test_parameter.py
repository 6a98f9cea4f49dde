"""gluon.Parameter, Constant and ParameterDict: the shared scenarios against MXNet 1.9.1's recorded outcomes, and
the details the scenarios cannot show (gradient buffers wired to torch autograd, files byte for byte)."""
import filecmp
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import gluon
from mxcompat.base import MXNetNotImplementedError

from . import golden

@pytest.mark.parametrize('name', golden.scenario_names('parameter', 'constant', 'pdict'))
def test_scenario_against_mxnet(name, tmp_path):
    golden.check_scenario(name, tmp_path)


def test_grad_buffer_is_the_leaf_gradient():
    p = gluon.Parameter('w', shape=(3,), init='ones')
    p.initialize()
    g = p.grad()
    t = p.data()._t
    assert t.requires_grad and t.is_leaf and t.grad is g._t
    x = mx.nd.array([1, 2, 3])
    for _ in range(2):
        with mx.autograd.record():
            y = (p.data() * x).sum()
        y.backward()
    assert p.grad() is g
    np.testing.assert_array_equal(g.asnumpy(), [1, 2, 3])  # 'write' overwrites
    assert p.data()._fresh_grad


def test_sparse_gradient_rows_are_summed_into_the_leaf_gradient():
    # Embedding(sparse_grad=True), grad_req 'write': torch stores the rows summed (sorted, distinct), and the
    # row_sparse gradient array holds the same rows; a second backward replaces them; autograd.grad leaves them
    emb = gluon.nn.Embedding(10, 2, sparse_grad=True)
    emb.initialize(mx.init.One())
    for data, rows, counts in (([[7, 2], [7, 7]], [2, 7], [1, 3]), ([[0, 5]], [0, 5], [1, 1])):
        x = mx.nd.array(data)
        with mx.autograd.record():
            y = emb(x).sum()
        y.backward()
        g = emb.weight.grad()
        assert g.indices.asnumpy().tolist() == rows
        np.testing.assert_array_equal(g.data.asnumpy(), np.repeat(np.array(counts, np.float32)[:, None], 2, 1))
        leaf = emb.weight.data()._t.grad
        assert leaf.is_sparse and leaf.is_coalesced()
        assert leaf.to_dense().numpy().tolist() == g.tostype('default').asnumpy().tolist()
    t = emb.weight.data()
    with mx.autograd.record():
        y = emb(mx.nd.array([3, 3])).sum()
    got = mx.autograd.grad(y, [t])[0]
    assert got._t.to_dense()[3].tolist() == [2, 2]
    assert emb.weight.grad().indices.asnumpy().tolist() == [0, 5]


def test_outside_record_results_carry_no_graph():
    p = gluon.Parameter('w', shape=(2,), init='ones')
    p.initialize()
    y = p.data() * 2
    assert not y._t.requires_grad


def test_multi_context_gradients_are_per_copy():
    p = gluon.Parameter('w', shape=(2,), init='ones')
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert p.data(mx.cpu(0))._t.data_ptr() != p.data(mx.cpu(1))._t.data_ptr()
    with mx.autograd.record():
        y = (p.data(mx.cpu(1)) * 3).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad(mx.cpu(0)).asnumpy(), [0, 0])
    np.testing.assert_array_equal(p.grad(mx.cpu(1)).asnumpy(), [3, 3])
    assert p.data(mx.cpu(1))._fresh_grad and not p.data(mx.cpu(0))._fresh_grad


def test_set_data_accepts_numpy_and_integer_parameters():
    p = gluon.Parameter('w', shape=(2,), init='zeros')
    p.initialize()
    p.set_data(np.array([1.5, 2.5], dtype=np.float32))
    np.testing.assert_array_equal(p.data().asnumpy(), [1.5, 2.5])
    q = gluon.Parameter('idx', shape=(2,), dtype='int32', init='zeros')
    q.initialize()
    assert q.data().dtype == np.int32 and q.grad().dtype == np.int32


def test_sparse_apis_of_dense_parameters():
    # row_sparse parameters are tested in test_sparse_params.py; csr storage is a known gap
    p = gluon.Parameter('w', shape=(2,), init='zeros')
    p.initialize()
    with pytest.raises(RuntimeError, match='storage type is default'):
        p.row_sparse_data(mx.nd.array([0]))
    with pytest.raises(MXNetNotImplementedError, match="grad_stype='csr'"):
        gluon.Parameter('w', shape=(2,), grad_stype='csr')


def test_parameter_dict_files_match_mxnet(tmp_path):
    cases = golden.load_module('gluon_cases')
    net = cases.mlp(gluon.nn)
    net.initialize()
    cases.set_params(net, 3, mx)
    out = str(tmp_path / 'pdict.params')
    net.collect_params().save(out)
    assert filecmp.cmp(out, golden.path('mlp_pdict.params'), shallow=False)
    other = cases.mlp(gluon.nn)
    other.collect_params().load(golden.path('mlp_pdict.params'))
    for a, b in zip(net.collect_params().values(), other.collect_params().values()):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())


def test_set_data_after_recording_is_read_at_backward_as_in_mxnet():
    # spectral norm's pattern: use a vector in the graph, then update it under pause(); MXNet 1.9.1's backward
    # reads the buffer as it is then: w.grad [[2,2,2],[2,2,2]], u.grad [[5,7,9]] (recorded with the oracle)
    p = mx.gluon.Parameter('u', shape=(1, 3), init=mx.init.One())
    p.initialize()
    w = mx.nd.array([[1., 2., 3.], [4., 5., 6.]])
    w.attach_grad()
    with mx.autograd.record():
        u = p.data()
        v = mx.nd.dot(u, w.T)
        with mx.autograd.pause():
            p.set_data(u * 2)
        loss = mx.nd.sum(v)
    loss.backward()
    assert w.grad.asnumpy().tolist() == [[2, 2, 2], [2, 2, 2]]
    assert p.grad().asnumpy().tolist() == [[5, 7, 9]]
    assert p.data().asnumpy().tolist() == [[2, 2, 2]]


def test_set_data_reaches_a_convolution_that_kept_its_weight():
    net = mx.gluon.nn.Conv2D(64, 3, in_channels=64)
    net.initialize()
    net.hybridize()
    x = mx.nd.random.uniform(shape=(1, 64, 8, 8))
    net(x).wait_to_read()
    net(x).wait_to_read()  # (a kept reordered or channels-last weight, where the layout is used)
    net.weight.set_data(mx.nd.zeros(net.weight.shape))
    assert np.abs(net(x).asnumpy()).max() == 0


@pytest.mark.parametrize('shape', [(4, 3), (700, 1024)])  # (the second: 0.7 to 5.6 MB, from their own mappings)
@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64', 'int32', 'uint8'])
def test_fresh_arrays_are_independent_writable_zeros(dtype, shape):
    # the data is the array the initializer wrote (no copy) and the gradient a zero buffer mapped when first
    # written: both behave as ordinary arrays, each of its own memory
    p = gluon.Parameter('w', shape=shape, dtype=dtype, init='zeros', grad_req='add')
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    for d, g in zip(p.list_data(), p.list_grad()):
        assert d.dtype == np.dtype(dtype) and g.dtype == np.dtype(dtype)
        assert not d.asnumpy().any() and not g.asnumpy().any()
    p.list_data()[0][:] = 1
    p.list_grad()[0][:] = 2
    assert not p.list_data()[1].asnumpy().any() and not p.list_grad()[1].asnumpy().any()
    p.zero_grad()
    assert not p.list_grad()[0].asnumpy().any()


def test_deferred_parameter_keeps_the_initialized_values():
    mx.random.seed(3)
    dense = gluon.nn.Dense(5)
    dense.initialize(mx.init.Xavier())
    dense(mx.nd.ones((2, 4)))
    w = dense.weight.data().asnumpy()
    mx.random.seed(3)
    expect = mx.nd.random.uniform(-np.sqrt(3 / 4.5), np.sqrt(3 / 4.5), shape=(5, 4)).asnumpy()
    assert np.array_equal(w, expect)
    with mx.autograd.record():
        y = dense(mx.nd.ones((2, 4))).sum()
    y.backward()
    assert np.array_equal(dense.weight.grad().asnumpy(), np.full((5, 4), 2, np.float32))


@pytest.mark.skipif(not hasattr(os, 'fork'), reason='needs fork')
def test_large_zero_arrays_are_private_to_a_forked_process():
    p = gluon.Parameter('w', shape=(1024, 1024), init='zeros')
    p.initialize()
    pid = os.fork()
    if pid == 0:  # the child writes its copy (through numpy: torch's thread pool is not for forked children)
        code = 1
        try:
            p.grad()._t.numpy()[:] = 5
            p.data()._t.detach().numpy()[:] = 5
            code = 0
        finally:
            os._exit(code)
    assert os.waitpid(pid, 0)[1] == 0
    assert not p.grad().asnumpy().any() and not p.data().asnumpy().any()


def test_data_grad_of_a_sparse_gradient_embedding_is_row_sparse():
    # MXNet 1.9.1: param.data().grad, like param.grad(), is the row_sparse gradient (looked-up rows, summed)
    net = mx.gluon.nn.Embedding(10, 3, sparse_grad=True)
    net.initialize()
    with mx.autograd.record():
        y = net(mx.nd.array([1, 3, 3])).sum()
    y.backward()
    g = net.weight.data().grad
    assert g.stype == 'row_sparse' and g.indices.asnumpy().tolist() == [1, 3]
    assert g.data.asnumpy().tolist() == [[1.0] * 3, [2.0] * 3]
    np.testing.assert_array_equal(g.asnumpy(), net.weight.grad().asnumpy())
