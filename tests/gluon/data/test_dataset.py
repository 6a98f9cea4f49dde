"""mx.gluon.data datasets (Dataset methods, SimpleDataset, ArrayDataset, RecordFileDataset) against MXNet 1.9.1
(goldens: datasets and vision.record in gluon_data.json)."""
import pickle

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.gluon import data as gdata

from .golden import GOLD, tiny_files

G = GOLD['datasets']


def items(ds):
    return [ds[i] for i in range(len(ds))]


@pytest.mark.parametrize('n', [9, 10])
def test_shard(n):
    s = gdata.SimpleDataset(list(range(n)))
    assert [items(s.shard(4, i)) for i in range(4)] == G['shard%d' % n]


def test_shard_errors():
    a = gdata.SimpleDataset(list(range(10)))
    for args, msg in (((4, 4), 'Shard index of out bound: 4 out of 4'), ((0, 0), 'out of 0'),
                      ((4, -1), 'Index must be non-negative')):
        with pytest.raises(AssertionError, match=msg):
            a.shard(*args)
    assert G['shard_err'] == ['AssertionError'] * 3


def test_take_filter_sample():
    a = gdata.SimpleDataset(list(range(10)))
    assert [items(a.take(3)), len(a.take(None)), len(a.take(100))] == G['take']
    assert items(a.transform(lambda x: x * 3).filter(lambda x: x % 2 == 0)) == G['filter']
    assert items(a.sample(gdata.SequentialSampler(3, 4))) == G['sample']
    with pytest.raises(TypeError, match='Invalid sampler type'):
        a.sample([1, 2])
    assert G['sample_err'] == 'TypeError'


def test_iterating_a_dataset_stops_at_its_end():
    a = gdata.SimpleDataset(list(range(10))).filter(lambda x: x % 10 == 0)
    assert list(a) == [0]  # the Python iteration protocol ends with IndexError, as upstream tests rely on


def test_transform_and_transform_first():
    pairs = gdata.ArrayDataset(list(range(4)), [10 * i for i in range(4)])
    assert [list(s) for s in items(pairs.transform(lambda x, y: (y, x)))] == G['transform']
    eager = pairs.transform(lambda x, y: (x + y,), lazy=False)
    assert isinstance(eager, gdata.SimpleDataset)
    assert [list(s) for s in items(eager)] == G['transform_eager']
    assert [list(s) for s in items(pairs.transform_first(lambda x: -x))] == G['transform_first']
    single = gdata.SimpleDataset(list(range(10)))
    assert items(single.transform_first(lambda x: x + 100)) == G['transform_first_single']


def test_transform_lazy_calls_fn_on_each_access():
    calls = []
    ds = gdata.SimpleDataset([1, 2]).transform(lambda x: calls.append(x) or x)
    ds[0], ds[0]
    assert calls == [1, 1]
    calls.clear()
    gdata.SimpleDataset([1, 2]).transform(lambda x: calls.append(x) or x, lazy=False)
    assert calls == [1, 2]


def _neg(x):
    return -x


def test_transform_first_pickles():
    ds = gdata.ArrayDataset([1, 2], [3, 4]).transform_first(_neg)
    assert pickle.loads(pickle.dumps(ds))[1] == (-2, 4)


def test_array_dataset():
    x = np.random.uniform(size=(10, 20))
    y = np.random.uniform(size=(10,))
    ds = gdata.ArrayDataset(x, y)
    assert len(ds) == 10
    np.testing.assert_array_equal(ds[3][0], x[3])
    assert ds[3][1] == y[3]
    single = gdata.ArrayDataset(x)
    np.testing.assert_array_equal(single[2], x[2])
    nd1 = gdata.ArrayDataset(mx.nd.arange(3), mx.nd.ones((3, 2)))
    s0, s1 = nd1[0]
    assert [type(s0).__name__, str(s0.dtype), type(s1).__name__] == G['array_nd1']  # 1-D NDArray -> numpy


def test_array_dataset_errors():
    with pytest.raises(AssertionError, match=r'array\[0\] has length 2 while array\[2\] has 1'):
        gdata.ArrayDataset([1, 2], [1])
    with pytest.raises(AssertionError, match='Needs at least 1 arrays'):
        gdata.ArrayDataset()
    assert G['array_err'] == G['array_empty_err'] == 'AssertionError'


def test_base_dataset_is_abstract():
    with pytest.raises(NotImplementedError):
        gdata.Dataset()[0]
    with pytest.raises(NotImplementedError):
        len(gdata.Dataset())


def test_record_file_dataset(tmp_path):
    prefix = str(tmp_path / 'imgs')
    tiny_files.write_record(prefix, mx.recordio)
    ds = gdata.RecordFileDataset(prefix + '.rec')
    assert len(ds) == GOLD['vision']['record']['len']
    assert [len(ds[i]) for i in range(len(ds))] == GOLD['vision']['record']['raw_len']
    header, img = mx.recordio.unpack(ds[1])
    assert header.label == 1.5 and img[:4] == b'\x89PNG'


def test_record_file_dataset_missing(tmp_path):
    with pytest.raises(MXNetError, match=r'missing\.idx'):
        gdata.RecordFileDataset(str(tmp_path / 'missing.rec'))
