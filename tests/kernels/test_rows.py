"""mxcompat.kernels.rows: a sparse gradient's rows summed and a lazy update's rows written by numpy on CPU, bit for
bit the torch forms they replace (``config.numpy_rows`` off)."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import kernels
from mxcompat.kernels import rows as krows
from mxcompat.ndarray.sparse import summed_rows


def _coo(rows, values, n):
    return torch.sparse_coo_tensor(torch.as_tensor(rows, dtype=torch.int64)[None], values,
                                   (n,) + tuple(values.shape[1:]), check_invariants=False)


def _both(g):
    fast = summed_rows(g)
    with kernels.policy(numpy_rows=False):
        slow = summed_rows(g)
    return fast, slow


def _assert_same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.numpy().view(np.uint8), b.numpy().view(np.uint8))


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('tail', [(), (5,), (2, 3)])
def test_summed_rows_equal_the_torch_form(dtype, tail):
    rs = np.random.RandomState(0)
    rows = rs.randint(0, 40, 300)  # many repeats, in no order
    values = torch.from_numpy(rs.randn(300, *tail) * 10.0 ** rs.randint(-8, 8, (300,) + tail)).to(dtype)
    values[::7] = -0.0  # a -0.0 alone sums to +0.0 (added to zero); with others it is one more term
    (r1, v1), (r2, v2) = _both(_coo(rows, values, 50))
    assert torch.equal(r1, r2) and r1.tolist() == sorted(set(rows.tolist()))
    _assert_same_bits(v1, v2)
    assert krows.summed_rows(torch.as_tensor(rows), values) is not None  # (the rule applied)


def test_summed_rows_add_in_the_gradient_order():
    # 1e8 + 1 - 1e8 is 0 in float32, 1e8 - 1e8 + 1 is 1: the entries of a row are added in their order in g
    values = torch.tensor([[1e8], [5.0], [1.0], [-1e8], [2.0]])
    (rows, total), _ = _both(_coo([3, 1, 3, 3, 0], values, 4))
    assert rows.tolist() == [0, 1, 3] and total.flatten().tolist() == [2.0, 5.0, 0.0]
    (rows, total), _ = _both(_coo([3, 3, 1, 3, 0], torch.tensor([[1e8], [-1e8], [5.0], [1.0], [2.0]]), 4))
    assert total.flatten().tolist() == [2.0, 5.0, 1.0]


def test_summed_rows_signed_zero_and_single_rows():
    values = torch.tensor([[-0.0, 1.0], [-0.0, -0.0], [2.0, -0.0]])
    (rows, total), (_, slow) = _both(_coo([9, 4, 7], values, 10))
    assert rows.tolist() == [4, 7, 9]
    _assert_same_bits(total, slow)
    assert not torch.signbit(total).any()  # every -0.0 became +0.0, as 0 + (-0.0)


def test_sort_keys_is_stable_and_falls_back():
    rs = np.random.RandomState(1)
    for keys in (rs.randint(0, 30, 500), rs.randint(0, 1 << 20, 2048), np.array([1 << 60, 5, 1 << 60, 5]),
                 np.array([3]), np.array([-2, 5, -2, 0])):
        keys = keys.astype(np.int64)
        order, ordered = krows._sort_keys(keys)
        want = np.argsort(keys, kind='stable')
        assert np.array_equal(order, want) and np.array_equal(ordered, keys[want])


@pytest.mark.parametrize('repeats', [0, 1, 5, 400])
def test_summed_rows_with_few_and_many_repeats(repeats):
    rs = np.random.RandomState(repeats)
    distinct = rs.choice(100000, 600, replace=False)
    rows = np.concatenate((distinct, rs.choice(distinct, repeats)))
    rs.shuffle(rows)
    values = torch.from_numpy((rs.randn(rows.size, 3) * 10.0 ** rs.randint(-6, 6, (rows.size, 3)))
                              .astype(np.float32))
    values[rs.rand(rows.size) < 0.2] = -0.0
    (r1, v1), (r2, v2) = _both(_coo(rows, values, 100000))
    assert torch.equal(r1, r2) and r1.numel() == 600
    _assert_same_bits(v1, v2)


def test_summed_rows_rule_applies_only_where_it_can():
    rows = torch.tensor([2, 0, 2])
    assert krows.summed_rows(rows, torch.ones(3, 2, dtype=torch.float16)) is None  # (float types only)
    assert krows.summed_rows(rows, torch.ones(3, 2, requires_grad=True)) is None  # (a recorded gradient)
    assert krows.summed_rows(rows.to(torch.int32), torch.ones(3, 2)) is None
    assert krows.summed_rows(torch.tensor([], dtype=torch.int64), torch.ones(0, 2)) is None
    with kernels.policy(cpu_fast_paths=False):
        assert kernels.summed_rows(rows, torch.ones(3, 2)) is None
    r, v = summed_rows(_coo([2, 0, 2], torch.ones(3, 2, dtype=torch.float16), 3))  # the torch form
    assert r.tolist() == [0, 2] and v.tolist() == [[1, 1], [2, 2]]


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.int64])
def test_index_copy_rows_equals_index_copy(dtype):
    rs = np.random.RandomState(2)
    table = torch.from_numpy(rs.randn(100, 4) * 100).to(dtype)
    rows = torch.from_numpy(np.sort(rs.choice(100, 30, replace=False)))
    src = torch.from_numpy(rs.randn(30, 4) * 100).to(dtype)
    want = table.clone().index_copy_(0, rows, src)
    version = table._version
    assert kernels.index_copy_rows_(table, rows, src) is table
    assert torch.equal(table, want) and table._version > version  # (autograd sees the write)


def test_index_copy_rows_on_a_leaf_and_where_numpy_cannot_write():
    w = torch.zeros(6, 2, requires_grad=True)
    with torch.no_grad():
        kernels.index_copy_rows_(w, torch.tensor([4, 1]), torch.ones(2, 2))
    assert w.detach().sum(1).tolist() == [0, 2, 0, 0, 2, 0]
    strided = torch.zeros(2, 6).t()  # not contiguous: torch's index_copy_
    assert krows.put_rows(strided, torch.tensor([3]), torch.ones(1, 2)) is None
    kernels.index_copy_rows_(strided, torch.tensor([3]), torch.ones(1, 2))
    assert strided.sum(1).tolist() == [0, 0, 0, 2, 0, 0]
    assert krows.put_rows(torch.zeros(4, 2), torch.tensor([1]), torch.ones(1, 2, dtype=torch.float64)) is None


def _embedding_step(momentum, **kwargs):
    rs = np.random.RandomState(0)
    x = mx.nd.array(rs.randint(0, 30, (16, 3)))  # repeated rows
    y = mx.nd.array(rs.randint(0, 2, 16))
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Embedding(60, 4, sparse_grad=True), mx.gluon.nn.Dense(2))
    mx.random.seed(3)
    net.initialize(mx.init.Normal(0.1))
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', dict(learning_rate=0.5, momentum=momentum, **kwargs))
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    out = []
    for _ in range(3):
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        g = net[0].weight.grad()
        out += [g.indices.asnumpy(), g.data.asnumpy()]
        trainer.step(16)
    out += [p.data().asnumpy() for p in net.collect_params().values()]
    out += [s.asnumpy() for s in trainer._updaters[0].states.values() if s is not None]
    return out


@pytest.mark.parametrize('kwargs', [dict(momentum=0.9), dict(momentum=0.0), dict(momentum=0.9, wd=0.01),
                                    dict(momentum=0.9, clip_gradient=0.01)])
def test_gluon_lazy_sgd_step_same_bits_with_the_rule_off(kwargs):
    fast = _embedding_step(**kwargs)
    with kernels.policy(numpy_rows=False):
        slow = _embedding_step(**kwargs)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))
