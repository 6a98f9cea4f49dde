"""mx.gluon.data.DataLoader against MXNet 1.9.1 (goldens: dataloader in gluon_data.json): batch order and values,
last_batch modes over epochs, batchify of tuples/lists/scalars, contexts with workers/threads/pin_memory, errors;
plus the worker processes' own behaviour (order, errors, a dying worker, timeout, shutdown)."""
import gc
import multiprocessing
import os
import time

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.gluon import data as gdata
from mxcompat.gluon.data import DataLoader
from mxcompat.gluon.data.dataloader import (DataLoaderTimeoutError, DataLoaderV1, default_batchify_fn,
                                            default_mp_batchify_fn)

from .golden import GOLD, same

G = GOLD['dataloader']
X = np.arange(20).reshape(10, 2)
Y = np.arange(10) * 0.5


def epochs(loader, n=1):
    return [list(loader) for _ in range(n)]


def mixed():
    return gdata.ArrayDataset(mx.nd.arange(6).reshape(3, 2), mx.nd.arange(3), [1, 2, 3], [0.5, 1.5, 2.5])


@pytest.mark.parametrize('mode', ['keep', 'discard', 'rollover'])
def test_last_batch_modes_over_three_epochs(mode):
    loader = DataLoader(gdata.ArrayDataset(X, Y), batch_size=3, last_batch=mode)
    assert len(loader) == G['last_' + mode]['len']
    same(epochs(loader, 3), G['last_' + mode]['epochs'])


def test_batch_sampler():
    bs = gdata.BatchSampler(gdata.SequentialSampler(10, 0), 4, 'discard')
    same(epochs(DataLoader(gdata.ArrayDataset(X, Y), batch_sampler=bs)), G['batch_sampler'])


@pytest.mark.parametrize('case', ['mixed', 'list', 'scalars', 'nested', 'custom_batchify'])
def test_batchify(case):
    ds = {'mixed': mixed(), 'list': [([1, 2], 0), ([3, 4], 1)], 'scalars': [True, False, True],
          'nested': [((1, 2.0), mx.nd.ones(2)), ((3, 4.0), mx.nd.zeros(2))], 'custom_batchify': list(range(5))}[case]
    kw = {'batchify_fn': lambda b: b} if case == 'custom_batchify' else {}
    same(epochs(DataLoader(ds, batch_size=3 if case == 'scalars' else 2, **kw)), G[case])


@pytest.mark.parametrize('case,kw', [('workers', {'num_workers': 2}),
                                     ('threads', {'num_workers': 2, 'thread_pool': True}),
                                     ('pinned', {'pin_memory': True}),
                                     ('pinned_workers', {'pin_memory': True, 'pin_device_id': 0, 'num_workers': 1})])
def test_workers_and_contexts(case, kw):
    same(epochs(DataLoader(mixed(), batch_size=2, **kw)), G[case])


def test_constructor_errors():
    ds = gdata.ArrayDataset(X, Y)
    e = G['errors']
    with pytest.raises(MXNetValueError, match='batch_size must be specified unless batch_sampler is specified'):
        DataLoader(ds)
    with pytest.raises(MXNetValueError, match='shuffle must not be specified if sampler is specified'):
        DataLoader(ds, 2, shuffle=True, sampler=gdata.SequentialSampler(10))
    with pytest.raises(MXNetValueError, match='must not be specified if batch_sampler is specified'):
        DataLoader(ds, 2, batch_sampler=gdata.BatchSampler(gdata.SequentialSampler(10), 2))
    with pytest.raises(AssertionError, match='timeout must be positive'):
        DataLoader(ds, 2, timeout=0)
    assert [e['no_batch_size'], e['shuffle_and_sampler'], e['batch_sampler_and_size'], e['timeout']] == \
        ['ValueError'] * 3 + ['AssertionError']


def test_batchify_errors():
    # MXNet: MXNetError from nd.stack for ragged NDArrays; KeyError (no dtype for object/str arrays) for the others
    assert (G['errors']['ragged_nd'], G['errors']['ragged_list'], G['errors']['strings']) == \
        ('MXNetError', 'KeyError', 'KeyError')
    with pytest.raises(MXNetValueError, match=r'default_batchify_fn: cannot stack samples of shapes \(2,\)'):
        list(DataLoader([mx.nd.ones(2), mx.nd.ones(3)], 2))
    with pytest.raises(MXNetValueError, match='samples of different shapes cannot be batched'):
        list(DataLoader([[1, 2], [3]], 2))
    with pytest.raises(MXNetTypeError, match='dtype <U1'):
        list(DataLoader(['a', 'b'], 2))
    with pytest.raises(MXNetTypeError, match='dtypes float32 .* and int32'):
        default_batchify_fn([mx.nd.ones(2), mx.nd.ones(2, dtype='int32')])
    with pytest.raises(MXNetTypeError, match='sample 1 is a int'):
        default_batchify_fn([mx.nd.ones(2), 3])


def test_default_batchify_functions():
    b = default_batchify_fn([(mx.nd.ones(2), 1), (mx.nd.zeros(2), 2)])
    assert isinstance(b, list) and b[0].shape == (2, 2) and b[1].dtype == np.int64
    m = default_mp_batchify_fn([np.float32(1), np.float32(2)])
    assert m.dtype == np.float32 and str(m.context) == 'cpu_shared(0)'


def test_shuffle():
    np.random.seed(0)
    loader = DataLoader(gdata.ArrayDataset(X, Y), 4, shuffle=True)
    assert len(loader) == G['shuffle_len']
    a = np.concatenate([b[0].asnumpy() for b in loader])
    assert sorted(a[:, 0].tolist()) == X[:, 0].tolist()
    b = np.concatenate([b[0].asnumpy() for b in loader])
    assert not np.array_equal(a, b)


class _Slow(gdata.Dataset):
    """Sample i after a delay that makes later batches finish first."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        time.sleep(0.02 * ((12 - i) % 4))
        return mx.nd.full((3,), i)


@pytest.mark.parametrize('thread_pool', [False, True])
def test_workers_keep_sampler_order(thread_pool):
    loader = DataLoader(_Slow(), batch_size=2, num_workers=3, thread_pool=thread_pool)
    for _ in range(2):
        got = [b.asnumpy()[:, 0].tolist() for b in loader]
        assert got == [[2.0 * k, 2.0 * k + 1] for k in range(6)]


def test_auto_reload_prefetches():
    loader = DataLoader(_Slow(), batch_size=4, num_workers=2, thread_pool=True, auto_reload=True)
    assert loader._iter is not None  # the first epoch is already being prefetched
    assert len(list(loader)) == 3 and loader._iter is not None  # and the next one after the last batch
    lazy = DataLoader(_Slow(), batch_size=4, num_workers=2, thread_pool=True)
    assert lazy._iter is None
    assert len(list(lazy)) == 3 and lazy._iter is None


class _Fails(gdata.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError('bad sample %d' % i)
        return i


def test_worker_exception_is_reraised_and_workers_survive():
    loader = DataLoader(_Fails(), batch_size=2, num_workers=2)
    for _ in range(2):
        with pytest.raises(KeyError, match='bad sample 3') as info:
            list(loader)
        assert 'Traceback' in str(info.value.__cause__)  # the worker's traceback


class _Dies(gdata.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5 and multiprocessing.current_process().name != 'MainProcess':
            os._exit(7)
        return i


def test_dead_worker_raises_at_once_and_next_epoch_restarts():
    loader = DataLoader(_Dies(), batch_size=2, num_workers=2, timeout=60)
    t0 = time.monotonic()
    with pytest.raises(MXNetError, match='exited unexpectedly with exit code 7'):
        list(loader)
    assert time.monotonic() - t0 < 20
    it = iter(loader)
    assert next(it).asnumpy().tolist() == [0, 1]  # new workers


class _Sleeps(gdata.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(3)
        return i


@pytest.mark.parametrize('thread_pool', [False, True])
def test_timeout(thread_pool):
    loader = DataLoader(_Sleeps(), batch_size=1, num_workers=1, timeout=0.3, thread_pool=thread_pool)
    t0 = time.monotonic()
    with pytest.raises(DataLoaderTimeoutError, match='timeout=0.3') as info:
        next(iter(loader))
    assert time.monotonic() - t0 < 2.5
    assert isinstance(info.value, MXNetError) and isinstance(info.value, multiprocessing.TimeoutError)


def test_workers_stop_when_unreferenced_and_outlive_a_deleted_loader():
    loader = DataLoader(mx.nd.ones(5), batch_size=2, num_workers=2, batchify_fn=lambda b: b)
    procs = list(loader._worker_pool._procs)
    it = iter(loader)
    del loader
    gc.collect()
    assert next(it) is not None and all(p.is_alive() for p in procs)  # MXNet's test_dataloader_scope
    del it
    gc.collect()
    for p in procs:
        p.join(5)
    assert not any(p.is_alive() for p in procs)


def test_abandoned_iterator_does_not_disturb_the_next_epoch():
    loader = DataLoader(np.arange(20), batch_size=2, num_workers=2)
    it = iter(loader)
    next(it)
    del it
    assert [b.asnumpy().tolist() for b in loader][:2] == [[0, 1], [2, 3]]
    assert loader._worker_pool._done == {}  # results of the abandoned iterator were dropped


class _Random(gdata.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return np.random.rand()


def test_workers_have_distinct_random_streams():
    vals = [b.asnumpy()[0] for b in DataLoader(_Random(), batch_size=1, num_workers=2)]
    assert vals[0] != vals[1]  # batch 0 and 1 come from different workers


def test_datasets_and_batchify_need_not_pickle():
    loader = DataLoader(gdata.SimpleDataset(list(range(6))).transform(lambda x: x * 2), batch_size=3,
                        num_workers=2, batchify_fn=lambda b: mx.nd.array(b) + 1)
    assert [b.asnumpy().tolist() for b in loader] == [[1, 3, 5], [7, 9, 11]]


def test_large_batches_and_index_lists_do_not_block():
    # task messages and results larger than a pipe's buffer, several in flight per worker
    loader = DataLoader(np.zeros((60000, 4), dtype=np.float32), batch_size=20000, num_workers=2, prefetch=4,
                        timeout=20)
    assert [b.shape for b in loader] == [(20000, 4)] * 3


def test_v1_interface():
    loader = DataLoaderV1(gdata.ArrayDataset(X, Y), batch_size=4, last_batch='discard')
    assert len(loader) == 2 and [b[0].shape for b in loader] == [(4, 2), (4, 2)]
