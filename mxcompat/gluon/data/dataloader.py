"""``DataLoader``: mini-batches from a Dataset, in the main process, in worker processes or in threads.

Differs from MXNet:

* Worker processes are forked (``multiprocessing`` 'fork' where the platform has it), each with its own task and
  result pipe instead of MXNet's ``multiprocessing.Pool``; a batch comes back as one pickle in which NDArrays
  travel as numpy buffers (not MXNet's shared-memory NDArrays). Batch ``k`` is built by worker
  ``k % num_workers``. Batches keep MXNet's contexts (``cpu_shared(0)`` from ``default_mp_batchify_fn``,
  ``cpu_pinned(pin_device_id)`` with ``pin_memory``); on CPU these are labels and pinning does nothing.
* The dataset and ``batchify_fn`` are handed to the workers when they start, so they need not be picklable.
* Each worker seeds torch, numpy and ``random`` from ``torch.initial_seed()``, the loader's creation order and
  its worker number (MXNet's workers all inherit the parent's random state) and runs torch with one thread.
* A worker that dies (killed, crashed) makes the waiting iteration raise ``MXNetError`` at once, naming its exit
  code, instead of hanging until ``timeout``; the loader then starts new workers for its next epoch. An exception
  raised by the dataset or ``batchify_fn`` in a worker is re-raised in the main process (with the worker's
  traceback as its cause) and the workers keep running (MXNet terminates its pool).
* Workers are stopped when neither the loader nor any of its iterators is referenced any more.
* A timeout raises ``DataLoaderTimeoutError``, an ``MXNetError`` that is also ``multiprocessing.TimeoutError``
  (what MXNet raises).
* Batching samples of different shapes or types raises ``MXNetValueError``/``MXNetTypeError`` naming the
  shapes; MXNet fails inside ``nd.stack`` or with a ``KeyError`` for object arrays.

MXNet's module-level helpers that libraries build on are here with MXNet's signatures: ``ForkingPickler``
(``multiprocessing``'s, with a reducer for NDArrays registered as MXNet does: an NDArray pickled by it travels as a
numpy buffer and comes back on ``cpu_shared(0)``, where MXNet passes a shared-memory handle), ``_worker_initializer``
/ ``_worker_fn`` (a ``multiprocessing.Pool`` worker that batchifies from the dataset given to the initializer and
returns the ``ForkingPickler`` bytes), ``_thread_worker_initializer`` / ``_thread_worker_fn``, ``_as_in_context``,
``default_batchify_fn`` / ``default_mp_batchify_fn`` and ``_MultiWorkerIter``. ``_MultiWorkerIter(worker_pool,
batchify_fn, batch_sampler, pin_memory, pin_device_id, worker_fn, prefetch, dataset, data_loader, timeout)`` keeps
MXNet's attributes (``_data_buffer`` of pending results by send index, ``_sent_idx``, ``_rcvd_idx``, ``_iter``,
``_push_next``), so subclasses written for MXNet (GluonCV's ``_RandomTransformMultiWorkerIter``) work: given a
``multiprocessing.Pool`` or ``ThreadPool`` it runs ``worker_fn`` there as MXNet does; given the DataLoader's own
workers it hands them the sample indices.
"""
import collections
import io
import itertools
import multiprocessing
import multiprocessing.connection
import multiprocessing.pool
import multiprocessing.reduction
import os
import pickle
import random
import signal
import time
import traceback

import numpy as np
import torch

from . import sampler as _sampler
from ... import ndarray as nd
from ...base import MXNetError, MXNetValueError, MXNetTypeError, MXNetAssertionError, unsupported
from ...context import Context, cpu_pinned
from ...ndarray.ndarray import NDArray, _wrap
from ...numpy import multiarray as _mx_np
from ...numpy.multiarray import _np_wrap
from ...util import set_np, is_np_array, is_np_shape, np_array, set_np_shape

ForkingPickler = multiprocessing.reduction.ForkingPickler  # MXNet re-exports it here (GluonNLP imports it)

__all__ = ['DataLoader']

_CPU_SHARED = Context('cpu_shared', 0)


class DataLoaderTimeoutError(MXNetError, multiprocessing.TimeoutError):
    """A worker did not deliver a batch within ``timeout`` seconds."""


# ---- batchify ------------------------------------------------------------------------------------------------------
def _stack(data, ctx):
    first = data[0]
    for i, d in enumerate(data):
        if not isinstance(d, NDArray):
            raise MXNetTypeError('default_batchify_fn: sample %d is a %s but sample 0 is an NDArray; all samples '
                                 'must be NDArrays to be stacked' % (i, type(d).__name__))
        if d.shape != first.shape:
            raise MXNetValueError('default_batchify_fn: cannot stack samples of shapes %s (sample 0) and %s '
                                  '(sample %d); pass a batchify_fn that pads them' % (first.shape, d.shape, i))
        if d.dtype != first.dtype:
            raise MXNetTypeError('default_batchify_fn: cannot stack samples of dtypes %s (sample 0) and %s '
                                 '(sample %d)' % (np.dtype(first.dtype).name, np.dtype(d.dtype).name, i))
    t = torch.stack([d._t for d in data])
    return _kind_wrap(t, first._ctx if ctx is None else ctx)


def _kind_wrap(t, ctx):
    """A batch array: an ``mx.np`` array under NumPy array semantics (as MXNet's batchify), else an NDArray."""
    return _np_wrap(t, ctx) if is_np_array() else _wrap(t, ctx)


def _from_numpy(data, ctx):
    try:
        arr = np.asarray(data)
    except ValueError as e:
        raise MXNetValueError('default_batchify_fn: samples of different shapes cannot be batched (%s); pass a '
                              'batchify_fn that pads them' % str(e).splitlines()[0]) from None
    if arr.dtype.kind not in 'biuf':
        raise MXNetTypeError('default_batchify_fn: cannot batch samples into an array of dtype %s (sample 0 is %r)'
                             % (arr.dtype, type(data[0]).__name__))
    return (_mx_np.array if is_np_array() else nd.array)(arr, dtype=arr.dtype, ctx=ctx)


def _batchify(data, ctx):
    if isinstance(data[0], NDArray):
        return _stack(data, ctx)
    if isinstance(data[0], tuple):
        return [_batchify(list(field), ctx) for field in zip(*data)]
    return _from_numpy(data, ctx)


def default_batchify_fn(data):
    """Stack a list of samples: NDArrays with ``nd.stack``, tuples field by field (into a list), anything else
    through ``numpy.asarray`` (keeping its dtype). Under NumPy array semantics the batches are ``mx.np`` arrays."""
    return _batchify(data, None)


def default_mp_batchify_fn(data):
    """``default_batchify_fn`` for worker processes: the batches are on ``cpu_shared(0)``, as in MXNet."""
    return _batchify(data, _CPU_SHARED)


def _as_in_context(data, ctx):
    """Move the NDArrays of a batch (nested lists/tuples become lists) to ``ctx``."""
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


# ---- workers ------------------------------------------------------------------------------------------------------
_NUMPY_DTYPES = frozenset([torch.float16, torch.float32, torch.float64, torch.uint8, torch.int8, torch.int16,
                           torch.int32, torch.int64, torch.bool])


def _rebuild_ndarray(arr, dev_type, dev_id, numpy_kind=False):
    return (_np_wrap if numpy_kind else _wrap)(torch.from_numpy(arr), Context(dev_type, dev_id))


class _BatchPickler(pickle.Pickler):
    """Pickles dense CPU NDArrays as their numpy buffer (no extra copy on either side)."""

    def reducer_override(self, obj):
        if type(obj) is NDArray or type(obj) is _mx_np.ndarray:
            t = obj._t
            if t.device.type == 'cpu' and t.dtype in _NUMPY_DTYPES:
                arr = t.detach().contiguous().numpy()  # host: CPU only
                return _rebuild_ndarray, (arr, obj._ctx.device_type, obj._ctx.device_id,
                                          type(obj) is _mx_np.ndarray)
        return NotImplemented


def rebuild_ndarray(array):
    """An NDArray on ``cpu_shared(0)`` from the numpy array ``reduce_ndarray`` sent (MXNet's takes a shared-memory
    handle instead)."""
    return _wrap(torch.from_numpy(array), _CPU_SHARED)


def reduce_ndarray(data):
    """``ForkingPickler``'s reducer for NDArray: its values as a numpy buffer, rebuilt on ``cpu_shared(0)`` as MXNet
    rebuilds its shared-memory arrays. Dtypes numpy lacks (bfloat16) use the NDArray's own pickle."""
    t = data._t.detach()
    if t.dtype in _NUMPY_DTYPES:
        return rebuild_ndarray, (t.cpu().numpy(),)
    return data.__reduce__()


ForkingPickler.register(NDArray, reduce_ndarray)


def rebuild_np_ndarray(array):
    """``rebuild_ndarray`` for an ``mx.np`` array."""
    return _np_wrap(torch.from_numpy(array), _CPU_SHARED)


def reduce_np_ndarray(data):
    """``ForkingPickler``'s reducer for ``mx.np`` arrays (as ``reduce_ndarray``)."""
    t = data._t.detach()
    if t.dtype in _NUMPY_DTYPES:
        return rebuild_np_ndarray, (t.cpu().numpy(),)
    return data.__reduce__()


ForkingPickler.register(_mx_np.ndarray, reduce_np_ndarray)

_worker_dataset = None  # the dataset of a multiprocessing.Pool worker made with _worker_initializer


def _worker_initializer(dataset, active_shape, active_array):
    """A ``multiprocessing.Pool`` initializer (MXNet's): keeps ``dataset`` for ``_worker_fn`` and sets the NumPy
    semantics flags of the parent."""
    global _worker_dataset
    _worker_dataset = dataset
    set_np(shape=active_shape, array=active_array)


def _thread_worker_initializer(active_shape, active_array):
    """A ``ThreadPool`` initializer (MXNet's): sets the NumPy semantics flags of the parent."""
    set_np(shape=active_shape, array=active_array)


def _worker_fn(samples, batchify_fn, dataset=None):
    """MXNet's pool worker function: the batch of ``samples`` from the initializer's dataset (``dataset`` is
    ignored), as ``ForkingPickler`` bytes (``pickle.loads`` reads them)."""
    batch = batchify_fn([_worker_dataset[i] for i in samples])
    buf = io.BytesIO()
    ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump(batch)
    return buf.getvalue()


def _thread_semantics(shape, array):
    """A worker thread's initializer: the creating thread's NumPy shape and array semantics, for this thread only
    (``_thread_worker_initializer``'s ``set_np`` sets them for the whole process)."""
    if shape:
        set_np_shape(True)
    np_array(array).__enter__()  # (left open: the scope lasts as long as the thread)


def _thread_worker_fn(samples, batchify_fn, dataset):
    """MXNet's thread-pool worker function: the batch of ``samples`` from ``dataset``."""
    return batchify_fn([dataset[i] for i in samples])


class _RemoteTraceback(Exception):
    def __str__(self):
        return self.args[0]


def _dumps(obj):
    buf = io.BytesIO()
    _BatchPickler(buf, pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


def _worker_loop(dataset, batchify_fn, tasks, results, seed, inherited, parent):
    """A worker process: receives (task id, sample indices), sends back the pickled batch (or the error)."""
    for conn in inherited:  # the parent's pipe ends (so that they close when the parent exits)
        conn.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    np.random.seed(seed % (2 ** 32))
    random.seed(seed)
    while True:
        try:
            if not tasks.poll(1.0):
                if os.getppid() != parent:
                    return  # the main process is gone
                continue
            tid, samples = pickle.loads(tasks.recv_bytes())
        except (EOFError, OSError):
            return
        try:
            payload = _dumps((tid, True, batchify_fn([dataset[i] for i in samples])))
        except Exception as e:  # noqa: BLE001 (sent to the main process and re-raised there)
            tb = _RemoteTraceback('\n"""\n%s"""' % traceback.format_exc())
            try:
                payload = _dumps((tid, False, (e, tb)))
            except Exception:  # noqa: BLE001 (an exception that does not pickle)
                payload = _dumps((tid, False, (MXNetError('%s: %s' % (type(e).__name__, e)), tb)))
        try:
            results.send_bytes(payload)
        except (BrokenPipeError, OSError):
            return


_POOL_COUNT = itertools.count(1)


class _ProcessWorkers:
    """``num_workers`` forked processes, each with its own task and result pipe (no lock is shared, so a worker
    can be stopped at any time). Task ``k`` goes to worker ``k % num_workers``; results are kept by task id."""

    def __init__(self, num_workers, dataset, batchify_fn):
        methods = multiprocessing.get_all_start_methods()
        mpctx = multiprocessing.get_context('fork' if 'fork' in methods else None)
        seed = torch.initial_seed() + 1000003 * next(_POOL_COUNT)
        self.batchify_fn = batchify_fn
        self._procs, self._tasks, self._results = [], [], []
        self._conn_index = {}
        self._done = {}  # task id -> (ok, batch or (error, remote traceback))
        self._dropped = set()
        self._next_tid = 0
        self._queued = [collections.deque() for _ in range(num_workers)]
        self._inflight = [0] * num_workers
        self.broken = None
        for wid in range(num_workers):
            task_r, task_w = mpctx.Pipe(duplex=False)
            res_r, res_w = mpctx.Pipe(duplex=False)
            inherited = self._tasks + self._results + [task_w, res_r]
            p = mpctx.Process(target=_worker_loop, daemon=True,
                              args=(dataset, batchify_fn, task_r, res_w, seed + wid, inherited, os.getpid()))
            p.start()
            task_r.close()
            res_w.close()
            self._procs.append(p)
            self._tasks.append(task_w)
            self._results.append(res_r)
            self._conn_index[res_r] = wid
            self._conn_index[p.sentinel] = wid

    def submit(self, samples):
        self._check()
        tid = self._next_tid
        self._next_tid += 1
        wid = tid % len(self._procs)
        self._queued[wid].append(pickle.dumps((tid, list(samples)), pickle.HIGHEST_PROTOCOL))
        self._pump(wid)
        return tid

    def _pump(self, wid):
        # A worker gets a task while it is idle, or a small one while it works on one: a send then never blocks
        # on a worker that is itself blocked sending a result the main process is not reading yet.
        queue = self._queued[wid]
        while queue and (self._inflight[wid] == 0 or (self._inflight[wid] == 1 and len(queue[0]) < 16384)):
            try:
                self._tasks[wid].send_bytes(queue.popleft())
            except (BrokenPipeError, OSError):
                self._dead(wid)
            self._inflight[wid] += 1

    def _check(self):
        if self.broken is not None:
            raise MXNetError(self.broken)

    def _dead(self, wid):
        p = self._procs[wid]
        p.join(1)
        self.broken = ('DataLoader: worker process %d exited unexpectedly with exit code %s; its batches are lost'
                       % (p.pid, p.exitcode))
        self.shutdown()
        self._check()

    def _receive(self, timeout):
        ready = multiprocessing.connection.wait(self._results + [p.sentinel for p in self._procs], timeout)
        exited = []
        for r in ready:
            wid = self._conn_index[r]
            if r is not self._results[wid]:
                exited.append(wid)
                continue
            try:
                data = r.recv_bytes()
            except (EOFError, OSError):
                self._dead(wid)
            self._inflight[wid] -= 1
            self._store(data)
            self._pump(wid)
        for wid in exited:  # keep what the worker sent before it exited, then report it
            while self._results[wid].poll():
                try:
                    self._store(self._results[wid].recv_bytes())
                except (EOFError, OSError):  # poll() is also true at end of file: nothing more was sent
                    break
            self._dead(wid)

    def _store(self, data):
        tid, ok, obj = pickle.loads(data)
        if tid in self._dropped:
            self._dropped.discard(tid)
        else:
            self._done[tid] = (ok, obj)

    def get(self, tid, timeout):
        """The batch of task ``tid``, waiting at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while tid not in self._done:
            self._check()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DataLoaderTimeoutError(
                    'DataLoader: a worker did not deliver a batch within timeout=%s seconds. The transform may be '
                    'too slow (raise `timeout`), or the workers may be stuck (try fewer `num_workers`).' % timeout)
            self._receive(remaining)
        ok, obj = self._done.pop(tid)
        if not ok:
            err, tb = obj
            raise err from tb
        return obj

    def drop(self, tids):
        """Forget tasks whose iterator was abandoned (their results are thrown away when they arrive)."""
        for tid in tids:
            if self._done.pop(tid, None) is None:
                self._dropped.add(tid)

    def shutdown(self):
        for p in self._procs:
            if p.is_alive():
                p.terminate()
        for p in self._procs:
            p.join(5)
        for c in self._tasks + self._results:
            c.close()
        self._procs, self._tasks, self._results = [], [], []
        if self.broken is None:
            self.broken = 'DataLoader: the worker processes were shut down'

    def __del__(self):
        try:
            if self._procs:
                self.shutdown()
        except Exception:  # noqa: BLE001,S110 (interpreter shutdown)
            pass


class _ThreadWorkers:
    """``thread_pool=True``: a ``ThreadPool`` whose threads build batches directly."""

    broken = None

    def __init__(self, num_workers, dataset, batchify_fn):
        # the threads build batches under this thread's NumPy semantics (a use_np scope is per thread)
        self._pool = multiprocessing.pool.ThreadPool(num_workers, _thread_semantics, (is_np_shape(), is_np_array()))
        self._dataset, self.batchify_fn = dataset, batchify_fn
        self._pending = {}
        self._next_tid = 0

    def submit(self, samples):
        tid = self._next_tid
        self._next_tid += 1
        self._pending[tid] = self._pool.apply_async(_thread_worker_fn, (samples, self.batchify_fn, self._dataset))
        return tid

    def get(self, tid, timeout):
        try:
            return self._pending.pop(tid).get(timeout)
        except multiprocessing.TimeoutError:
            raise DataLoaderTimeoutError('DataLoader: a worker thread did not deliver a batch within timeout=%s '
                                         'seconds; the transform may be too slow (raise `timeout`).'
                                         % timeout) from None

    def drop(self, tids):
        for tid in tids:
            self._pending.pop(tid, None)

    def shutdown(self):
        self._pool.terminate()

    def __del__(self):
        try:
            self._pool.terminate()
        except Exception:  # noqa: BLE001,S110 (interpreter shutdown)
            pass


class _Task:
    """A batch handed to the DataLoader's own workers, read as a ``multiprocessing`` AsyncResult is."""

    __slots__ = ('workers', 'tid')

    def __init__(self, workers, tid):
        self.workers, self.tid = workers, tid

    def get(self, timeout=None):
        return self.workers.get(self.tid, 120 if timeout is None else timeout)


class _MultiWorkerIter:
    """One epoch over a worker pool: keeps ``prefetch`` + 1 batches in flight and returns them in sampler order.

    MXNet's signature and attributes. ``worker_pool`` is the DataLoader's own workers (which are handed the sample
    indices and batchify them with their own ``batchify_fn``), or a ``multiprocessing.Pool``/``ThreadPool`` on which
    ``worker_fn(indices, batchify_fn, dataset)`` runs, as in MXNet (its result is ``pickle.loads``-ed when
    ``dataset`` is None). It holds the pool, so the workers outlive a deleted loader while the iteration goes on.
    """

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False, pin_device_id=0,
                 worker_fn=_worker_fn, prefetch=0, dataset=None, data_loader=None, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer = {}  # send index -> pending batch (``get(timeout)``)
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(batch_sampler)
        self._worker_fn = worker_fn
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader
        self._timeout = timeout
        self._own = isinstance(worker_pool, (_ProcessWorkers, _ThreadWorkers))
        if self._own and (worker_fn not in (_worker_fn, _thread_worker_fn)
                          or batchify_fn is not worker_pool.batchify_fn):
            raise unsupported('gluon.data.dataloader._MultiWorkerIter', 'a worker_fn or batchify_fn other than '
                              "the DataLoader's on the DataLoader's own workers",
                              'pass a multiprocessing.Pool (or ThreadPool) as worker_pool to run them')
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        return self

    def _push_next(self):
        """Hand the next batch of indices to the workers."""
        indices = next(self._iter, None)
        if indices is None:
            return
        if self._own:
            pending = _Task(self._worker_pool, self._worker_pool.submit(indices))
        else:
            pending = self._worker_pool.apply_async(self._worker_fn, (indices, self._batchify_fn, self._dataset))
        self._data_buffer[self._sent_idx] = pending
        self._sent_idx += 1

    def __next__(self):
        self._push_next()  # keep the pipeline full before waiting on the oldest batch
        if self._rcvd_idx == self._sent_idx:
            raise StopIteration
        pending = self._data_buffer.pop(self._rcvd_idx)
        self._rcvd_idx += 1
        if isinstance(pending, _Task):
            batch = pending.get(self._timeout)
        else:
            batch = self._get_from_pool(pending)
        if self._pin_memory:
            batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
        return batch

    def _get_from_pool(self, pending):
        # a multiprocessing pool, as MXNet reads it: a timeout raises (DataLoaderTimeoutError is also
        # multiprocessing's TimeoutError); another error terminates the pool, then raises
        try:
            batch = pending.get(self._timeout)
        except multiprocessing.TimeoutError:
            raise DataLoaderTimeoutError(
                'DataLoader: a worker did not deliver a batch within timeout=%s seconds. The transform may be too '
                'slow (raise `timeout`).' % self._timeout) from None
        except Exception:
            self._worker_pool.terminate()
            raise
        return pickle.loads(batch) if self._dataset is None else batch

    next = __next__

    def __del__(self):
        # batches of the DataLoader's own workers not read: their results are thrown away when they arrive
        try:
            tids = [t.tid for t in self._data_buffer.values() if isinstance(t, _Task)]
            if tids:
                self._worker_pool.drop(tids)
        except Exception:  # noqa: BLE001,S110 (interpreter shutdown)
            pass


def _make_batch_sampler(dataset, batch_size, shuffle, sampler, last_batch, batch_sampler):
    """The loader's BatchSampler: the one given, or one built from the other arguments (MXNet's checks)."""
    if batch_sampler is not None:
        if batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise MXNetValueError('batch_size, shuffle, sampler and last_batch must not be specified if '
                                  'batch_sampler is specified.')
        return batch_sampler
    if batch_size is None:
        raise MXNetValueError('batch_size must be specified unless batch_sampler is specified')
    if sampler is None:
        kind = _sampler.RandomSampler if shuffle else _sampler.SequentialSampler
        sampler = kind(len(dataset))
    elif shuffle:
        raise MXNetValueError('shuffle must not be specified if sampler is specified')
    return _sampler.BatchSampler(sampler, batch_size, last_batch or 'keep')


class DataLoader:
    """Loads mini-batches of a dataset (a Dataset, or a numpy/NDArray array, or a list).

    Arguments as MXNet 1.9.1's: ``batch_size``/``shuffle``/``sampler``/``last_batch`` or a ``batch_sampler``;
    ``batchify_fn`` (default ``default_batchify_fn``, ``default_mp_batchify_fn`` with workers); ``num_workers``
    worker processes (threads with ``thread_pool=True``), ``prefetch`` batches in flight (default
    ``2 * num_workers``), ``timeout`` seconds per batch; ``pin_memory`` puts batches on
    ``cpu_pinned(pin_device_id)``; ``auto_reload`` starts prefetching the next epoch when one ends.
    See the module docstring for how the workers differ from MXNet's.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120, auto_reload=False):
        if not timeout > 0:
            raise MXNetAssertionError('timeout must be positive, given {}'.format(timeout))
        self._dataset, self._timeout, self._thread_pool = dataset, timeout, thread_pool
        self._pin_memory, self._pin_device_id = pin_memory, pin_device_id
        self._batch_sampler = _make_batch_sampler(dataset, batch_size, shuffle, sampler, last_batch, batch_sampler)
        self._num_workers = max(num_workers, 0)
        self._prefetch = 2 * self._num_workers if prefetch is None else max(0, int(prefetch))
        if batchify_fn is None:
            batchify_fn = default_batchify_fn if num_workers <= 0 else default_mp_batchify_fn
        self._batchify_fn = batchify_fn
        self._worker_pool = self._start_pool() if self._num_workers else None
        self.auto_reload = auto_reload
        self._iter = self._prefetch_iter() if auto_reload else None

    def _start_pool(self):
        kind = _ThreadWorkers if self._thread_pool else _ProcessWorkers
        return kind(self._num_workers, self._dataset, self._batchify_fn)

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        # a prefetched iterator serves exactly one epoch: take it (or make one) and forget it
        epoch = self._prefetch_iter() if self._iter is None else self._iter
        self._iter = None
        yield from epoch
        if self.auto_reload and self._iter is None:
            self.refresh()  # start prefetching the next epoch right away

    def _local_batches(self):
        """Batches made in this process (``num_workers=0``)."""
        pin_to = cpu_pinned(self._pin_device_id) if self._pin_memory else None
        for indices in self._batch_sampler:
            batch = self._batchify_fn([self._dataset[k] for k in indices])
            yield batch if pin_to is None else _as_in_context(batch, pin_to)

    def _prefetch_iter(self):
        if not self._num_workers:
            return self._local_batches()
        pool = self._worker_pool
        if pool is None or getattr(pool, 'broken', None) is not None:
            self._worker_pool = self._start_pool()  # a worker died in an earlier epoch: start afresh
        # (MXNet also passes data_loader=self, to keep its pool alive: the iterator holds the workers itself)
        return _MultiWorkerIter(self._worker_pool, self._batchify_fn, self._batch_sampler,
                                pin_memory=self._pin_memory, pin_device_id=self._pin_device_id,
                                worker_fn=_thread_worker_fn if self._thread_pool else _worker_fn,
                                prefetch=self._prefetch, dataset=self._dataset if self._thread_pool else None,
                                timeout=self._timeout)

    def refresh(self):
        """Start a new epoch's iterator now (prefetching begins)."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drop the prefetched iterator; the next ``iter()`` starts a fresh one."""
        self._iter = None


class DataLoaderV1(DataLoader):
    """MXNet's older loader interface (no ``prefetch``/``thread_pool``/``timeout``); same machinery here."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0):
        super().__init__(dataset, batch_size, shuffle, sampler, last_batch, batch_sampler, batchify_fn, num_workers,
                         pin_memory, pin_device_id)
