"""NDArrayIter over CSR inputs, against MXNet 1.9.1 (tests/fixtures/module_io, gen_module_io.py)."""
import json
import os

import numpy as np
import pytest
import mxcompat as mx

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures',
                                   'module_io', 'module_io.json')))['csr_iter']


def _csr():
    return mx.nd.array(np.array(GOLD['dense'], dtype=np.float32)).tostype('csr')


def test_csr_batches_are_dense_like_mxnet():
    it = mx.io.NDArrayIter(_csr(), np.arange(7), 3, last_batch_handle='discard')
    got = [[b.data[0].asnumpy().tolist(), b.data[0].stype, "<class 'numpy.%s'>" % b.data[0].dtype.__name__,
            b.label[0].asnumpy().tolist()] for b in it]
    assert got == GOLD['batches']
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_data] == GOLD['provide_data']


@pytest.mark.parametrize('handle', ['pad', 'roll_over'])
def test_csr_needs_discard(handle):
    assert GOLD['errors'][handle] == 'NotImplementedError'
    with pytest.raises(NotImplementedError, match='NDArrayIter'):
        mx.io.NDArrayIter(_csr(), np.arange(7), 3, last_batch_handle=handle)


@pytest.mark.parametrize('handle', ['pad', 'roll_over'])
def test_scipy_csr_needs_discard(handle):
    spsp = pytest.importorskip('scipy.sparse')  # scipy is optional (MXNet accepts its matrices)
    with pytest.raises(NotImplementedError, match='NDArrayIter'):
        mx.io.NDArrayIter({'data': spsp.csr_matrix(np.array(GOLD['dense']))}, None, 3, last_batch_handle=handle)


def test_csr_shuffle_keeps_rows_together():
    dense = np.array(GOLD['dense'], dtype=np.float32)
    np.random.seed(0)
    it = mx.io.NDArrayIter({'csr': mx.nd.sparse.csr_matrix(dense), 'dns': dense}, np.arange(7), 2, shuffle=True,
                           last_batch_handle='discard')
    assert isinstance(it.data[0][1], mx.nd.sparse.CSRNDArray)
    seen = 0
    for b in it:
        csr, dns = (a.asnumpy() for a in b.data)
        np.testing.assert_array_equal(csr, dns)
        np.testing.assert_array_equal(csr, dense[b.label[0].asnumpy().astype(int)])
        seen += 1
    assert seen == 3
