"""mx.contrib.io.DataLoaderIter against MXNet 1.9.1 (golden batches recorded by tests/fixtures/svrg/gen_svrg.py for
last_batch keep/discard/rollover and dtype float32/float16), plus what differs on purpose and the errors."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.contrib.io import DataLoaderIter
from mxcompat.gluon.data import ArrayDataset, DataLoader

from .svrg_golden import assert_arrays_match, gold_json, run


def test_batches_match_mxnet():
    """Data and label values (padded rows excluded: MXNet leaves them uninitialised), pad, shapes, dtypes,
    index, provide_data/provide_label and batch_size."""
    assert_arrays_match('loader_batches', rtol=0, atol=0)
    assert run('loader_batches')['json'] == gold_json('loader_batches')


def _loader(n=10, batch_size=4, last_batch='keep'):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    return DataLoader(ArrayDataset(x, np.arange(n, dtype=np.float32)), batch_size=batch_size, last_batch=last_batch)


def test_padding_rows_are_zero_and_a_padded_batch_is_float32():
    it = DataLoaderIter(_loader(), dtype='float16')
    last = list(it)[-1]
    assert last.pad == 2 and last.data[0].shape == (4, 2) and last.label[0].shape == (4,)
    assert last.data[0].dtype == np.float32  # as MXNet: the padded copy is float32 whatever dtype is
    assert last.data[0].asnumpy()[2:].tolist() == [[0, 0], [0, 0]] and last.label[0].asnumpy().tolist() == [8, 9, 0, 0]


def test_module_trains_from_it():
    """A DataLoaderIter feeds Module.fit (its provide_data/provide_label bind the module)."""
    data = mx.sym.Variable('data')
    out = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(data, num_hidden=1, name='fc'), name='lro')
    mod = mx.mod.Module(out, data_names=['data'], label_names=['lro_label'])
    it = DataLoaderIter(_loader(), label_name='lro_label')
    assert [tuple(d) for d in it.provide_data] == [('data', (4, 2))]
    mod.fit(it, eval_metric='mse', num_epoch=1)
    assert mod.get_params()[0]['fc_weight'].shape == (1, 2)


def test_errors():
    with pytest.raises(MXNetError, match='no batch'):
        DataLoaderIter([])
    with pytest.raises(MXNetError, match=r'\(data, label\) pairs'):
        DataLoaderIter([mx.nd.ones((2, 2))])
    with pytest.raises(MXNetError, match=r'\(data, label\) pairs, got 3 items'):
        DataLoaderIter([(mx.nd.ones((2, 2)), mx.nd.ones(2), mx.nd.ones(2))])
    with pytest.raises(TypeError, match='unknown dtype'):
        DataLoaderIter(_loader(), dtype='float17')
    it = DataLoaderIter([(mx.nd.ones((2, 2)), mx.nd.ones(2)), (mx.nd.ones((3, 2)), mx.nd.ones(3))])
    it.next()
    with pytest.raises(MXNetError, match='exceeds the batch size 2'):
        it.next()
