"""The dataloader module's helpers that GluonCV and GluonNLP build on, with MXNet 1.9.1's signatures and behaviour:
``ForkingPickler`` (NDArrays come back on cpu_shared(0)), ``_worker_initializer``/``_worker_fn`` on a
``multiprocessing.Pool``, ``_thread_worker_fn`` on a ``ThreadPool``, and ``_MultiWorkerIter`` subclassed as
GluonCV's random-transform loader does. Expected values were printed by real MXNet 1.9.1 (SCRIPT below, which the
``oracle`` test runs in both)."""
import inspect
import io
import multiprocessing
import multiprocessing.pool
import multiprocessing.reduction
import pickle

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError
from mxcompat.gluon import data as gdata
from mxcompat.gluon.data import dataloader as dl
from tests.conftest import run_both

# MXNet 1.9.1's signatures (inspect.signature there; worker_fn's default is the module's _worker_fn)
SIGNATURES = {
    '_MultiWorkerIter': ['worker_pool', 'batchify_fn', 'batch_sampler', 'pin_memory', 'pin_device_id', 'worker_fn',
                         'prefetch', 'dataset', 'data_loader', 'timeout'],
    '_worker_fn': ['samples', 'batchify_fn', 'dataset'],
    '_thread_worker_fn': ['samples', 'batchify_fn', 'dataset'],
    '_worker_initializer': ['dataset', 'active_shape', 'active_array'],
    '_thread_worker_initializer': ['active_shape', 'active_array'],
    '_as_in_context': ['data', 'ctx'],
    'default_batchify_fn': ['data'],
    'default_mp_batchify_fn': ['data'],
    'reduce_ndarray': ['data'],
}


def _dataset():
    return gdata.ArrayDataset(mx.nd.arange(10).reshape((10, 1)), mx.nd.arange(10))


def _sampler():
    return gdata.BatchSampler(gdata.SequentialSampler(10), 4, 'keep')


def _labels(batches):
    return [b[1].asnumpy().tolist() for b in batches]


LABELS = [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0]]


def test_signatures_match_mxnet():
    for name, params in SIGNATURES.items():
        assert list(inspect.signature(getattr(dl, name)).parameters) == params, name
    assert inspect.signature(dl._MultiWorkerIter).parameters['worker_fn'].default is dl._worker_fn
    assert dl._worker_dataset is None  # set only in the processes of a pool made with _worker_initializer


def test_forking_pickler_is_multiprocessings_and_ndarrays_come_back_on_cpu_shared():
    assert dl.ForkingPickler is multiprocessing.reduction.ForkingPickler
    buf = io.BytesIO()
    dl.ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump([mx.nd.array([1, 2, 3]), (mx.nd.ones((2, 2), dtype='int32'),)])
    a, (b,) = pickle.loads(buf.getvalue())
    assert a.asnumpy().tolist() == [1, 2, 3] and a.dtype == np.float32 and a.context == mx.Context('cpu_shared', 0)
    assert b.asnumpy().tolist() == [[1, 1], [1, 1]] and b.dtype == np.int32 and b.context == mx.Context('cpu_shared', 0)
    c = pickle.loads(dl.ForkingPickler.dumps(mx.nd.array([1.5], dtype='bfloat16')))  # no numpy dtype: own pickle
    assert c.asnumpy().astype(np.float32).tolist() == [1.5]


def test_multiprocessing_pool_with_mxnets_worker_functions():
    ds = _dataset()
    with multiprocessing.Pool(2, initializer=dl._worker_initializer, initargs=[ds, False, False]) as pool:
        it = dl._MultiWorkerIter(pool, dl.default_mp_batchify_fn, _sampler(), pin_memory=False, prefetch=2)
        batches = list(it)
        assert len(it) == 3 and _labels(batches) == LABELS
        assert [b[0].shape for b in batches] == [(4, 1), (4, 1), (2, 1)]
        assert {b[0].context for b in batches} == {mx.Context('cpu_shared', 0)}
        # every argument positionally, as MXNet's signature orders them
        it = dl._MultiWorkerIter(pool, dl.default_batchify_fn, _sampler(), True, 0, dl._worker_fn, 1, None, None, 120)
        out = list(it)
        assert _labels(out) == LABELS and out[0][0].context == mx.cpu_pinned(0) == out[0][1].context


def test_thread_pool_with_mxnets_thread_worker_fn():
    ds = _dataset()
    pool = multiprocessing.pool.ThreadPool(2, initializer=dl._thread_worker_initializer, initargs=(False, False))
    try:
        it = dl._MultiWorkerIter(pool, dl.default_batchify_fn, _sampler(), worker_fn=dl._thread_worker_fn,
                                 dataset=ds, prefetch=1)
        assert _labels(it) == LABELS
        assert (it._rcvd_idx, it._sent_idx, it._data_buffer) == (3, 3, {})
    finally:
        pool.terminate()


def _transform_worker(samples, scale, batchify_fn):
    # a pool worker in the style of GluonCV's random-transform loader: its own arguments, ForkingPickler bytes back
    batch = batchify_fn([dl._worker_dataset[i] * scale for i in samples])
    return bytes(dl.ForkingPickler.dumps(batch))


class _ScaledIter(dl._MultiWorkerIter):
    """Subclasses _MultiWorkerIter as GluonCV's _RandomTransformMultiWorkerIter does: the base is built without
    prefetch, then _push_next (overridden) feeds MXNet's _data_buffer / _sent_idx through the pool."""

    def __init__(self, scales, worker_pool, batchify_fn, batch_sampler, pin_memory=False, pin_device_id=0,
                 worker_fn=_transform_worker, prefetch=0):
        super(_ScaledIter, self).__init__(worker_pool, batchify_fn, batch_sampler, pin_memory=pin_memory,
                                          worker_fn=worker_fn, prefetch=0)
        self._scales = scales
        self._pin_device_id = pin_device_id
        for _ in range(prefetch):
            self._push_next()

    def _push_next(self):
        r = next(self._iter, None)
        if r is None:
            return
        scale = self._scales[self._sent_idx % len(self._scales)]
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(self._worker_fn,
                                                                          (r, scale, self._batchify_fn))
        self._sent_idx += 1


def test_gluoncv_style_subclass_of_multi_worker_iter():
    ds = gdata.SimpleDataset(list(range(10)))
    with multiprocessing.Pool(2, initializer=dl._worker_initializer, initargs=[ds, False, False]) as pool:
        it = _ScaledIter([1, 10], pool, dl.default_mp_batchify_fn, _sampler(), pin_memory=True, prefetch=2)
        out = list(it)
    assert [b.asnumpy().tolist() for b in out] == [[0, 1, 2, 3], [40, 50, 60, 70], [8, 9]]
    assert {b.context for b in out} == {mx.cpu_pinned(0)}


@pytest.mark.parametrize('thread_pool', [False, True])
def test_the_loaders_own_iterator_carries_mxnets_arguments(thread_pool):
    ds = _dataset()
    loader = gdata.DataLoader(ds, batch_size=4, num_workers=2, thread_pool=thread_pool)
    assert loader._prefetch == 4 and loader._iter is None and loader._batchify_fn is dl.default_mp_batchify_fn
    it = loader._prefetch_iter()
    assert type(it) is dl._MultiWorkerIter and it._timeout == 120
    assert it._worker_fn is (dl._thread_worker_fn if thread_pool else dl._worker_fn)
    assert it._dataset is (ds if thread_pool else None)
    assert _labels(it) == LABELS


def test_a_pool_given_to_the_loader_is_used_as_mxnet_uses_it():
    # code written for MXNet may put a multiprocessing.Pool made with _worker_initializer on a loader
    ds = _dataset()
    loader = gdata.DataLoader(ds, batch_size=4)
    with multiprocessing.Pool(1, initializer=dl._worker_initializer, initargs=[ds, False, False]) as pool:
        loader._num_workers, loader._worker_pool = 1, pool
        assert _labels(loader) == LABELS


def test_the_loaders_own_workers_refuse_another_worker_fn():
    loader = gdata.DataLoader(_dataset(), batch_size=4, num_workers=1, thread_pool=True)
    with pytest.raises(MXNetNotImplementedError, match='_MultiWorkerIter'):
        dl._MultiWorkerIter(loader._worker_pool, loader._batchify_fn, _sampler(), worker_fn=_transform_worker)
    with pytest.raises(MXNetNotImplementedError, match='batchify_fn'):
        dl._MultiWorkerIter(loader._worker_pool, lambda b: b, _sampler())


def _fails(samples, batchify_fn, dataset):
    raise KeyError('sample %d' % samples[0])


def test_an_error_in_a_pool_worker_is_raised_and_the_pool_terminated():
    pool = multiprocessing.pool.ThreadPool(1)
    try:
        it = dl._MultiWorkerIter(pool, dl.default_batchify_fn, _sampler(), worker_fn=_fails, dataset=_dataset())
        with pytest.raises(KeyError, match='sample 0'):
            next(it)
        with pytest.raises(ValueError):  # MXNet terminates the pool
            pool.apply_async(len, ([],))
    finally:
        pool.terminate()


SCRIPT = r'''
import io, multiprocessing, pickle
from multiprocessing.pool import ThreadPool
import mxnet as mx
from mxnet.gluon.data import dataloader as dl
buf = io.BytesIO()
dl.ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump([mx.nd.array([1, 2, 3]), (mx.nd.ones((2, 2), dtype='int32'),)])
a, (b,) = pickle.loads(buf.getvalue())
print(a.asnumpy().tolist(), a.context, b.asnumpy().tolist(), b.dtype.__name__, b.context)
ds = mx.gluon.data.ArrayDataset(mx.nd.arange(10).reshape((10, 1)), mx.nd.arange(10))
bs = mx.gluon.data.BatchSampler(mx.gluon.data.SequentialSampler(10), 4, 'keep')
pool = multiprocessing.Pool(2, initializer=dl._worker_initializer, initargs=[ds, False, False])
it = dl._MultiWorkerIter(pool, dl.default_mp_batchify_fn, bs, pin_memory=False, prefetch=2)
print(len(it), [(x[0].shape, str(x[0].context), x[1].asnumpy().tolist()) for x in it])
out = list(dl._MultiWorkerIter(pool, dl.default_batchify_fn, bs, True, 0, dl._worker_fn, 1, None, None, 120))
print(out[0][0].context, out[0][1].context)
pool.terminate()
tp = ThreadPool(2)
it = dl._MultiWorkerIter(tp, dl.default_batchify_fn, bs, worker_fn=dl._thread_worker_fn, dataset=ds, prefetch=1)
print([x[1].asnumpy().tolist() for x in it], it._rcvd_idx, it._sent_idx, it._data_buffer)
tp.terminate()
for tp_ in (False, True):
    loader = mx.gluon.data.DataLoader(ds, batch_size=4, num_workers=2, thread_pool=tp_)
    it = loader._prefetch_iter()
    print(loader._prefetch, loader._iter, it._worker_fn is (dl._thread_worker_fn if tp_ else dl._worker_fn),
          it._dataset is (ds if tp_ else None), it._timeout, [x[1].asnumpy().tolist() for x in it])
'''


@pytest.mark.oracle
def test_script_prints_what_mxnet_prints(tmp_path):
    ours, theirs = run_both(SCRIPT, tmp_path, 'dataloader_api.py')
    assert ours.stdout == theirs.stdout
