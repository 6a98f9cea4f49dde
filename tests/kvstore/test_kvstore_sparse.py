"""KVStore with row_sparse values: init/push/pull, row_sparse_pull and the updater, as MXNet 1.9.1 does them
(outputs checked against runs of the real MXNet; the expected values here are numpy-derived)."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError

W = np.arange(12, dtype=np.float32).reshape(4, 3)


def _store():
    kv = mx.kv.create()
    kv.init('w', mx.nd.array(W).tostype('row_sparse'))
    return kv


def test_row_sparse_pull_stores_the_requested_rows():
    kv = _store()
    out = mx.nd.sparse.zeros('row_sparse', (4, 3))
    kv.row_sparse_pull('w', out=out, row_ids=mx.nd.array([3, 1, 1]))
    assert out.stype == 'row_sparse'
    assert out.indices.asnumpy().tolist() == [1, 3]  # unique and sorted
    want = np.zeros_like(W)
    want[[1, 3]] = W[[1, 3]]
    np.testing.assert_array_equal(out.asnumpy(), want)
    kv.row_sparse_pull('w', out=out, row_ids=mx.nd.array([], dtype='int64'))
    assert out.indices.asnumpy().tolist() == [] and not out.asnumpy().any()


def test_row_sparse_pull_lists_and_shared_row_ids():
    kv = mx.kv.create()
    kv.init([5, 7], [mx.nd.array(W), mx.nd.array(W * 2)])
    outs = [[mx.nd.sparse.zeros('row_sparse', (4, 3)) for _ in range(2)] for _ in range(2)]
    ids = [[mx.nd.array([0]), mx.nd.array([2, 3])], [mx.nd.array([1]), mx.nd.array([1])]]
    kv.row_sparse_pull([5, 7], out=outs, row_ids=ids)
    assert [o.indices.asnumpy().tolist() for o in outs[0] + outs[1]] == [[0], [2, 3], [1], [1]]
    np.testing.assert_array_equal(outs[1][0].asnumpy()[1], W[1] * 2)
    # one row_ids for a list of outputs: every output gets the same rows (MXNet pulls once and copies)
    same = [mx.nd.sparse.zeros('row_sparse', (4, 3)) for _ in range(3)]
    kv.row_sparse_pull(5, out=same, row_ids=mx.nd.array([2]))
    assert [o.indices.asnumpy().tolist() for o in same] == [[2]] * 3
    np.testing.assert_array_equal(same[2].asnumpy()[2], W[2])


def test_row_sparse_pull_errors():
    kv = _store()
    with pytest.raises(MXNetError, match='row_sparse'):
        kv.row_sparse_pull('w', out=mx.nd.zeros((4, 3)), row_ids=mx.nd.array([1]))
    with pytest.raises(MXNetError, match='shape'):
        kv.row_sparse_pull('w', out=mx.nd.sparse.zeros('row_sparse', (5, 3)), row_ids=mx.nd.array([1]))
    with pytest.raises(MXNetError):
        kv.row_sparse_pull(3, out=mx.nd.sparse.zeros('row_sparse', (4, 3)), row_ids=mx.nd.array([1]))


def test_push_row_sparse_values_are_summed():
    kv = mx.kv.create()
    kv.init(3, mx.nd.zeros((4, 3)))
    g = mx.nd.sparse.row_sparse_array(([[1., 1, 1]], [2]), shape=(4, 3))
    h = mx.nd.sparse.row_sparse_array(([[1., 2, 3], [4, 5, 6]], [0, 2]), shape=(4, 3))
    kv.push(3, [g, h, g])
    out = mx.nd.zeros((4, 3))
    kv.pull(3, out=out)
    np.testing.assert_array_equal(out.asnumpy(), 2 * g.asnumpy() + h.asnumpy())
    # a dense and a row_sparse value of one key
    kv.push(3, [g, mx.nd.ones((4, 3))])
    kv.pull(3, out=out)
    np.testing.assert_array_equal(out.asnumpy(), g.asnumpy() + 1)


def test_pull_into_row_sparse_outputs():
    kv = _store()
    o = mx.nd.sparse.zeros('row_sparse', (4, 3))
    with pytest.warns(UserWarning, match='row_sparse_pull'):
        kv.pull('w', out=o)  # ignored, as MXNet does
    assert not o.asnumpy().any()
    kv.pull('w', out=o, ignore_sparse=False)
    assert o.indices.asnumpy().tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(o.asnumpy(), W)


def test_updater_gets_row_sparse_values():
    kv = _store()
    seen = []

    def upd(key, recv, local):
        seen.append((key, recv.stype, local.stype, recv.indices.asnumpy().tolist()))
        local += recv

    kv._set_updater(upd)
    g = mx.nd.sparse.row_sparse_array(([[1., 1, 1]], [2]), shape=(4, 3))
    kv.push('w', [g, g])
    kv.push('w', g)
    assert seen == [(b'w', 'row_sparse', 'row_sparse', [2])] * 2
    out = mx.nd.zeros((4, 3))
    kv.pull('w', out=out)
    want = W.copy()
    want[2] += 3
    np.testing.assert_array_equal(out.asnumpy(), want)
