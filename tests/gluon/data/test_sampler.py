"""mx.gluon.data samplers against MXNet 1.9.1 (goldens: samplers in gluon_data.json)."""
import numpy as np
import pytest

from mxcompat.base import MXNetValueError
from mxcompat.gluon import data as gdata
from mxcompat.gluon.data.sampler import IntervalSampler

from .golden import GOLD

G = GOLD['samplers']


def test_sequential():
    s = gdata.SequentialSampler(5, 3)
    assert list(s) == G['seq'] and len(s) == G['seq_len']
    assert list(gdata.SequentialSampler(4)) == [0, 1, 2, 3]


def test_random_is_a_permutation_from_numpy_random():
    s = gdata.RandomSampler(50)
    assert len(s) == 50 and sorted(s) == list(range(50))
    np.random.seed(3)
    a = list(s)
    np.random.seed(3)
    assert list(s) == a  # drawn from numpy's global generator, as MXNet
    assert list(s) != a  # a new order each epoch


@pytest.mark.parametrize('mode', ['keep', 'discard', 'rollover'])
def test_batch_sampler_three_epochs(mode):
    bs = gdata.BatchSampler(gdata.SequentialSampler(10), 3, mode)
    for ref in G['batch_' + mode]:
        assert len(bs) == ref['len']
        assert [list(b) for b in bs] == ref['batches']


def test_batch_sampler_bad_last_batch():
    bad = gdata.BatchSampler(gdata.SequentialSampler(10), 3, 'bogus')
    with pytest.raises(MXNetValueError, match="last_batch must be one of 'keep', 'discard', or 'rollover'"):
        len(bad)
    with pytest.raises(ValueError):
        list(bad)
    assert G['batch_bad_len'] == G['batch_bad_iter'] == 'ValueError'
    # no remainder: MXNet never looks at last_batch
    assert [list(b) for b in gdata.BatchSampler(gdata.SequentialSampler(9), 3, 'bogus')] == G['batch_bad_even']


def test_interval_sampler():
    assert list(IntervalSampler(13, 3)) == G['interval']
    s = IntervalSampler(13, 3, rollover=False)
    assert list(s) == G['interval_norollover'] and len(s) == G['interval_norollover_len']
    with pytest.raises(AssertionError, match='Interval 5 must be smaller than or equal to length 3'):
        IntervalSampler(3, 5)
    assert G['interval_err'] == 'AssertionError'


def test_filter_sampler():
    s = gdata.FilterSampler(lambda x: x % 3 == 0, gdata.SimpleDataset(list(range(10))))
    assert list(s) == G['filter'] and len(s) == len(G['filter'])


def test_base_sampler_is_abstract():
    with pytest.raises(NotImplementedError):
        iter(gdata.Sampler())
    with pytest.raises(NotImplementedError):
        len(gdata.Sampler())
