"""``mx.io``: data iterators (``DataIter`` protocol, ``NDArrayIter``, ``ResizeIter``, ``PrefetchingIter``) and the
iterators MXNet implements in C++ (``CSVIter``, ``MNISTIter``, ``ImageRecordIter``, ``ImageDetRecordIter``),
here in Python.

Differs from MXNet: the C++-style iterators are ``MXDataIter`` objects over a Python batch source, so they
read local files only; each batch holds fresh arrays (MXNet recycles its buffers after ``prefetch_buffer``
batches). Arguments they do not know raise a warning (MXNet ignores them silently).
"""
import logging
import os
import struct
import threading
import warnings
from collections import namedtuple

import torch
import numpy as np

from ..base import MXNetError, cpp_log, parse_bool, parse_float_tuple, parse_tuple, unsupported
from ..ndarray import NDArray, array, concat, tile
from ..ndarray.ndarray import _wrap
from ..context import cpu
from . import _cxxrandom
from .utils import _init_data, _has_instance, _getdata_by_idx, _slice_along_batch_axis  # noqa: F401
from ..ndarray.sparse import CSRNDArray

__all__ = ['DataDesc', 'DataBatch', 'DataIter', 'ResizeIter', 'PrefetchingIter', 'NDArrayIter', 'MXDataIter',
           'CSVIter', 'MNISTIter']  # (the LibSVM and image record iterators: their modules, joined here by the package)


class DataDesc(namedtuple('DataDesc', ['name', 'shape'])):
    """Describes one input or label: a ``(name, shape)`` tuple that also carries ``dtype`` and ``layout``."""

    def __new__(cls, name, shape, dtype=np.float32, layout='NCHW'):
        desc = super().__new__(cls, name, shape)
        desc.dtype, desc.layout = dtype, layout
        return desc

    def __repr__(self):
        fields = (self.name, self.shape, self.dtype, self.layout)
        return 'DataDesc[' + ','.join('%s' % (f,) for f in fields) + ']'

    @staticmethod
    def get_batch_axis(layout):
        """Position of the batch axis 'N' in ``layout``: 0 without a layout, -1 if 'N' is absent."""
        return 0 if layout is None else layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """Build DataDescs from ``(name, shape)`` pairs; ``types``, when given, maps each name to its dtype."""
        dtype_of = None if types is None else dict(types)
        descs = []
        for entry in shapes:
            key, shp = entry[0], entry[1]
            descs.append(DataDesc(key, shp) if dtype_of is None else DataDesc(key, shp, dtype_of[key]))
        return descs


class DataBatch:
    """What an iterator yields: lists of data and label arrays with ``pad``, ``index``, ``bucket_key`` and the
    optional ``provide_data``/``provide_label`` descriptions."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        for what, arrays in (('Data', data), ('Label', label)):
            if arrays is not None:
                assert isinstance(arrays, (list, tuple)), what + ' must be list of NDArrays'
        self.data, self.label = data, label
        self.pad, self.index, self.bucket_key = pad, index, bucket_key
        self.provide_data, self.provide_label = provide_data, provide_label

    def __str__(self):
        shapes_of_data = [arr.shape for arr in self.data]
        shapes_of_label = [arr.shape for arr in self.label] if self.label else None
        return '%s: data shapes: %s label shapes: %s' % (type(self).__name__, shapes_of_data, shapes_of_label)


class DataIter:
    """Protocol of every iterator: ``next()`` hands out a DataBatch until StopIteration, ``reset()`` rewinds.

    Subclasses either override ``next`` or provide ``iter_next`` plus the four ``get*`` accessors.
    """

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def reset(self):
        """Rewind to the first batch (nothing to do in the base class)."""

    def next(self):
        """Advance and assemble a DataBatch from the ``get*`` accessors."""
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(), index=self.getindex())

    def iter_next(self):
        """Step forward one batch; a false value means the epoch is over."""

    def getdata(self):
        """Data arrays of the batch the iterator stands on."""

    def getlabel(self):
        """Label arrays of the batch the iterator stands on."""

    def getindex(self):
        """Indices of the examples in the batch; the base class has none."""
        return None

    def getpad(self):
        """Number of filler examples at the end of the batch."""


def _batch_field(field):
    """An accessor method returning ``field`` of the batch stored in ``self.current_batch``."""
    def accessor(self):
        return getattr(self.current_batch, field)
    accessor.__name__ = accessor.__qualname__ = 'get' + field
    return accessor


class _FromCurrentBatch:
    """Mixin: the four ``get*`` accessors read the batch held in ``self.current_batch``."""
    getdata = _batch_field('data')
    getlabel = _batch_field('label')
    getindex = _batch_field('index')
    getpad = _batch_field('pad')


class ResizeIter(_FromCurrentBatch, DataIter):
    """Wraps ``data_iter`` so that an epoch always has ``size`` batches: the inner iterator is rewound whenever it
    is exhausted early, and iteration stops after ``size`` batches even if it has more."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__(data_iter.batch_size)
        self.data_iter, self.size, self.reset_internal = data_iter, size, reset_internal
        self.provide_data, self.provide_label = data_iter.provide_data, data_iter.provide_label
        if hasattr(data_iter, 'default_bucket_key'):
            self.default_bucket_key = data_iter.default_bucket_key
        self.cur = 0
        self.current_batch = None

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def _pull(self):
        """One batch of the wrapped iterator, starting it over once if it has run dry."""
        try:
            return self.data_iter.next()
        except StopIteration:
            pass
        self.data_iter.reset()
        return self.data_iter.next()

    def iter_next(self):
        if self.cur >= self.size:
            return False
        self.current_batch = self._pull()
        self.cur += 1
        return True


class PrefetchingIter(_FromCurrentBatch, DataIter):
    """Read the next batch of each of ``iters`` in background threads; batches are concatenated side by side.

    ``rename_data`` / ``rename_label``: one ``{old_name: new_name}`` dict per iterator.
    Differs from MXNet: an error raised inside a prefetching thread is re-raised by ``next()`` (MXNet hangs).
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        self.iters = iters if isinstance(iters, list) else [iters]
        self.n_iter = len(self.iters)
        assert self.n_iter > 0
        self.rename_data, self.rename_label = rename_data, rename_label
        self.batch_size = self.provide_data[0][1][0]
        # handshake per worker: the worker fills its slot after ``data_taken``, then signals ``data_ready``
        self.data_ready = [threading.Event() for _ in self.iters]
        self.data_taken = [threading.Event() for _ in self.iters]
        self.started = True
        self.current_batch = None
        self.next_batch = [None] * self.n_iter
        self._errors = [None] * self.n_iter
        self._request_all()
        self.prefetch_threads = []
        for slot in range(self.n_iter):
            worker = threading.Thread(target=self._prefetch, args=(slot,), daemon=True)
            self.prefetch_threads.append(worker)
            worker.start()

    def _prefetch(self, slot):
        source = self.iters[slot]
        while True:
            self.data_taken[slot].wait()
            if not self.started:
                return
            fetched, failure = None, None
            try:
                fetched = source.next()
            except StopIteration:
                pass
            except Exception as exc:  # noqa: BLE001  (handed to the consumer)
                failure = exc
            self.next_batch[slot] = fetched
            if failure is not None:
                self._errors[slot] = failure
            self.data_taken[slot].clear()
            self.data_ready[slot].set()

    def __del__(self):
        self.started = False
        for ev in getattr(self, 'data_taken', ()):
            ev.set()
        for worker in getattr(self, 'prefetch_threads', ()):
            if worker is not threading.current_thread():
                worker.join(timeout=5)

    def _wait_all(self):
        for ev in self.data_ready:
            ev.wait()

    def _request_all(self):
        """Let every worker fetch its next batch."""
        for ev in self.data_ready:
            ev.clear()
        for ev in self.data_taken:
            ev.set()

    def _renamed(self, renames, descs_of):
        if renames is None:
            return sum([descs_of(it) for it in self.iters], [])
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc) else DataDesc(*x)
                     for x in descs_of(it)] for r, it in zip(renames, self.iters)], [])

    @property
    def provide_data(self):
        return self._renamed(self.rename_data, lambda it: it.provide_data)

    @property
    def provide_label(self):
        return self._renamed(self.rename_label, lambda it: it.provide_label)

    def _raise_errors(self):
        for i, e in enumerate(self._errors):
            if e is not None:
                self._errors[i] = None
                raise e

    def reset(self):
        self._wait_all()
        self._errors = [None] * self.n_iter
        for source in self.iters:
            source.reset()
        self._request_all()

    def iter_next(self):
        self._wait_all()
        self._raise_errors()
        parts = self.next_batch
        if parts[0] is None:
            assert all(part is None for part in parts), 'Number of entry mismatches between iterators'
            return False
        lead = parts[0]
        assert all(part.pad == lead.pad for part in parts), 'Number of entry mismatches between iterators'
        data = [arr for part in parts for arr in part.data]
        label = [arr for part in parts for arr in part.label]
        self.current_batch = DataBatch(data, label, lead.pad, lead.index,
                                       provide_data=self.provide_data, provide_label=self.provide_label)
        self._request_all()
        return True

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return self.current_batch


class NDArrayIter(DataIter):
    """Batches over in-memory arrays (NDArray, numpy, h5py.Dataset; a list or a dict of them).

    ``last_batch_handle``: 'pad' fills the last batch from the start ('getpad' says how many), 'discard' drops
    it, 'roll_over' carries the remainder into the first batch of the next epoch. numpy inputs become
    float32 NDArrays, and so does every input once shuffled (as in MXNet).
    CSRNDArray / scipy csr_matrix inputs need last_batch_handle='discard'; their batches are dense NDArrays
    (as MXNet 1.9.1's slice_axis storage fallback makes them).
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle='pad', data_name='data',
                 label_name='softmax_label', layout='NCHW'):
        super().__init__(batch_size)
        if last_batch_handle not in ('pad', 'discard', 'roll_over'):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over', got %r"
                             % (last_batch_handle,))
        self.shuffle, self.last_batch_handle, self.layout = shuffle, last_batch_handle, layout
        sources = _init_data(data, allow_empty=False, default_name=data_name)
        targets = _init_data(label, allow_empty=True, default_name=label_name)
        self.data, self.label = sources, targets
        if last_batch_handle != 'discard' and _has_instance(sources + targets, CSRNDArray):
            raise NotImplementedError("NDArrayIter: CSRNDArray (or scipy.sparse.csr_matrix) inputs need "
                                      "last_batch_handle='discard', got %r" % (last_batch_handle,))
        self.data_list = [arr for _, arr in sources + targets]  # the original arrays, before any shuffle
        self.num_source = len(self.data_list)
        self.num_data = sources[0][1].shape[0]
        self.idx = np.arange(self.num_data)
        self._cache_data = self._cache_label = None  # tail kept by roll_over for the next epoch
        self._dense = None  # see _dense_sources
        self.cursor = -batch_size
        self.reset()  # shuffles when asked

    def _descs(self, pairs):
        axis = self.layout.find('N')
        return [DataDesc(k, tuple(v.shape[:axis]) + (self.batch_size,) + tuple(v.shape[axis + 1:]),
                         _np_type(v.dtype), layout=self.layout) for k, v in pairs]

    @property
    def provide_data(self):
        """DataDescs of the data, with the batch size on the layout's 'N' axis."""
        return self._descs(self.data)

    @property
    def provide_label(self):
        """DataDescs of the labels."""
        return self._descs(self.label)

    def hard_reset(self):
        """Rewind and forget any rolled-over data."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = self._cache_label = None

    def _has_leftover(self):
        """True when the previous epoch stopped on a short tail that roll_over carries forward."""
        return (self.last_batch_handle == 'roll_over'
                and self.num_data - self.batch_size < self.cursor < self.num_data)

    def reset(self):
        if self.shuffle:
            self._shuffle_data()
        # with a carried-over tail the cursor goes negative: the cached remainder opens the new epoch
        start = self.cursor - self.num_data if self._has_leftover() else 0
        self.cursor = start - self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if self.iter_next():
            c = self.cursor
            if 0 <= c <= self.num_data - self.batch_size and type(self) is NDArrayIter:
                # a whole batch inside the data (only an epoch's first and last batches may need more)
                dense = self._dense_sources()
                if dense is not None:
                    n = self.batch_size  # (narrow_copy: the rows copied in one call, half a slice and clone's time)
                    data, label = [[NDArray._from_tensor(t.narrow_copy(0, c, n), ctx) for t, ctx in part]
                                   for part in dense]
                    return DataBatch(data=data, label=label, pad=0, index=None)
            data, label = self.getdata(), self.getlabel()
            if data[0].shape[self.layout.find('N')] == self.batch_size:
                return DataBatch(data=data, label=label, pad=self.getpad(), index=None)
            # a short final batch (discard/roll_over): remember it for roll_over and end the epoch
            self._cache_data, self._cache_label = data, label
        raise StopIteration

    def _dense_sources(self):
        """``([(tensor, ctx)] of the data, the same of the labels)`` when every source is a dense NDArray batched
        on axis 0, else None; kept while ``self.data``/``self.label`` are the same lists (a shuffle replaces them)
        holding the same tensors."""
        cached = self._dense
        if (cached is not None and cached[0] is self.data and cached[1] is self.label
                and all(a._t is t for a, t in cached[3])):
            return cached[2]
        arrays = [v for _, v in self.data + self.label]
        parts = None
        if self.layout.find('N') == 0 and all(type(v) is NDArray for v in arrays):
            parts = tuple([(v._t, v._ctx) for _, v in src] for src in (self.data, self.label))
        self._dense = (self.data, self.label, parts, [(v, v._t) for v in arrays] if parts else [])
        return parts

    def _getdata(self, data_source, start=None, end=None):
        """Examples ``start:end`` (batch axis) of every array in ``data_source``; an open end runs to the last."""
        assert start is not None or end is not None, 'should at least specify start or end'
        if end is None:
            end = data_source[0][1].shape[0] if data_source else 0
        window = slice(start or 0, end)
        batch_axis = self.layout.find('N')
        pieces = []
        for _, source in data_source:
            if isinstance(source, (np.ndarray, NDArray)):
                pieces.append(_slice_along_batch_axis(source, window, batch_axis))
                continue
            # h5py reads indices in increasing order only; the reordering is MXNet's (exact when unshuffled)
            picked = self.idx[window]
            pieces.append(array(source[sorted(picked.tolist())][np.argsort(picked, kind='stable')]))
        return pieces

    def _concat(self, first_data, second_data):
        if not first_data or not second_data:
            return first_data if first_data else second_data
        assert len(first_data) == len(second_data), 'data source should contain the same size'
        return [concat(a, b, dim=self.layout.find('N')) for a, b in zip(first_data, second_data)]

    def _tile(self, data, repeats):
        return [tile(d, reps=(repeats,) + (1,) * (d.ndim - 1)) for d in data]

    def _rolling_in(self):
        return self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0

    def _overrunning(self):
        return self.last_batch_handle == 'pad' and self.cursor + self.batch_size > self.num_data

    def _take_cache(self):
        """Hand out (and drop) the tail cached at the end of the previous epoch: data first, then label."""
        if self._cache_data is not None:
            cached, self._cache_data = self._cache_data, None
        else:
            cached, self._cache_label = self._cache_label, None
        return cached

    def _wrap_around(self, data_source, count):
        """``count`` leading examples, repeating the whole set as often as needed."""
        whole, rest = divmod(count, self.num_data)
        if whole == 0:
            return self._getdata(data_source, end=count)
        filler = self._tile(self._getdata(data_source, end=self.num_data), whole)
        if rest:
            filler = self._concat(filler, self._getdata(data_source, end=rest))
        return filler

    def _batchify(self, data_source):
        assert self.cursor < self.num_data, 'DataIter needs reset.'
        if self._rolling_in():
            assert self._cache_data is not None or self._cache_label is not None, \
                'next epoch should have cached data'
            head = self._take_cache()
            return self._concat(head, self._getdata(data_source, end=self.cursor + self.batch_size))
        if self._overrunning():
            tail = self._getdata(data_source, start=self.cursor)
            return self._concat(tail, self._wrap_around(data_source, self.getpad()))
        return self._getdata(data_source, self.cursor, min(self.cursor + self.batch_size, self.num_data))

    def getdata(self):
        return self._batchify(self.data)

    def getlabel(self):
        return self._batchify(self.label)

    def getpad(self):
        if self._overrunning():
            return self.cursor + self.batch_size - self.num_data
        return -self.cursor if self._rolling_in() else 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = _getdata_by_idx(self.data, self.idx)
        self.label = _getdata_by_idx(self.label, self.idx)


def _np_type(dtype):
    """MXNet reports dtypes as numpy type classes (np.float32), h5py as np.dtype."""
    return dtype if isinstance(dtype, type) else np.dtype(dtype).type


# ---- the iterators MXNet implements in C++ ----------------------------------------------------------------------
class MXDataIter(DataIter):
    """An iterator over a batch source (MXNet: a C++ iterator handle): provides ``data_name``/``label_name``
    descriptions taken from its first batch, which is loaded at construction.

    ``handle`` has ``before_first()`` and ``next()`` returning ``(data, label, pad, index)`` numpy arrays or
    None at the end.
    """

    def __init__(self, handle, data_name='data', label_name='softmax_label', **_):
        super().__init__()
        self.handle = handle
        self._current = None
        # debug mode (see debug_skip_load) and whether the first batch has been handed out since a reset
        self._debug_skip_load, self._debug_at_begin = False, True
        # read one batch right away: the descriptions are taken from it, and next() returns it first
        self.first_batch = None
        head = self.next()
        self.first_batch = head
        x, y = head.data[0], head.label[0]
        self.batch_size = x.shape[0]
        self.provide_data = [DataDesc(data_name, x.shape, x.dtype)]
        self.provide_label = [DataDesc(label_name, y.shape, y.dtype)]

    def debug_skip_load(self):
        """Keep returning the first batch (to time a network without data loading)."""
        logging.info('Set debug_skip_load to be true, will simply return first batch')
        self._debug_skip_load = True

    def reset(self):
        self.handle.before_first()
        self.first_batch, self._debug_at_begin = None, True

    def _advance(self):
        self._current = self.handle.next()
        return self._current is not None

    def _batch(self):
        return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(), index=self.getindex())

    def next(self):
        replay = self._debug_skip_load and not self._debug_at_begin
        if not replay:
            pending = self.first_batch
            if pending is not None:
                self.first_batch = None
                return pending
            self._debug_at_begin = False
            if not self._advance():
                raise StopIteration
        return self._batch()

    def iter_next(self):
        if self.first_batch is not None:
            return True
        return self._advance()

    def _cur(self, i):
        if self._current is None:
            raise MXNetError('MXDataIter: there is no current batch (call next() or iter_next() first)')
        return self._current[i]

    def getdata(self):
        return _wrap(_torch_from(self._cur(0)), cpu(0))

    def getlabel(self):
        label = self._cur(1)
        if label.ndim > 1 and label.shape[1] == 1:  # MXNet's C API flattens (N, 1, ...) labels to (N,)
            label = label.reshape(label.shape[0])
        return _wrap(_torch_from(label), cpu(0))

    def getindex(self):
        index = self._cur(3)
        return None if index is None or not len(index) else index.copy()

    def getpad(self):
        return int(self._cur(2))


def _torch_from(a):
    return torch.from_numpy(np.array(a))


_REQUIRED = object()


class _Params:
    """MXNet's dmlc parameter parsing for an iterator: values may be Python objects or their str() forms."""

    def __init__(self, api, kwargs, spec, extra=()):
        self.api = api
        unknown = sorted(set(kwargs) - set(spec) - set(extra) - {'data_name', 'label_name'})
        if unknown:
            warnings.warn('%s: ignoring unknown argument(s) %s (MXNet ignores them too)' % (api, ', '.join(unknown)),
                          stacklevel=4)
        for name, (kind, default) in spec.items():
            if name not in kwargs:
                if default is _REQUIRED:
                    raise MXNetError('%s: Required parameter %s of %s is not presented' % (api, name, kind))
                setattr(self, name, default)
                continue
            setattr(self, name, self._parse(name, kind, kwargs[name]))

    def _parse(self, name, kind, v):
        try:
            if kind == 'string':
                return os.fspath(v) if not isinstance(v, str) and hasattr(v, '__fspath__') else str(v)
            if kind == 'boolean':
                return parse_bool(v)
            if kind == 'int':
                return int(float(v)) if isinstance(v, str) else int(v)
            if kind == 'float':
                return float(v)
            if kind == 'Shape(tuple)':
                return parse_tuple(v)
            if kind == 'tuple of <float>':
                return parse_float_tuple(v)
            if kind == 'tuple of <int>':
                return tuple(int(x) for x in parse_float_tuple(v))
            if kind == 'int or None':
                return None if v is None or str(v) == 'None' else int(v)
            if kind == 'float or None':
                return None if v is None or str(v) == 'None' else float(v)
            if kind == 'dtype':
                return None if v is None or str(v) == 'None' else np.dtype(v).name
            if isinstance(kind, tuple):  # an enum
                s = str(v)
                if s not in kind:
                    raise ValueError('expected one of %s' % (kind,))
                return s
        except (TypeError, ValueError) as e:
            raise MXNetError('%s: Invalid Parameter format for %s expect %s but value=%r (%s)'
                             % (self.api, name, kind, v, e)) from None
        raise AssertionError(kind)


_PREFETCH = {'prefetch_buffer': ('int', 4), 'ctx': (('cpu', 'gpu'), 'gpu'), 'dtype': ('dtype', None)}
_BATCH = {'batch_size': ('int', _REQUIRED), 'round_batch': ('boolean', True)}


def _creator(name, fn):
    def create(*args, **kwargs):
        it = fn(**kwargs)  # MXNet builds the iterator first, so a missing argument is reported before this
        if args:
            raise TypeError('%s can only accept keyword arguments' % name)
        return it
    create.__name__ = create.__qualname__ = name
    create.__doc__ = fn.__doc__
    return create


def _open_local(api, path, mode='rb'):
    if '://' in path and not path.startswith('file://'):
        raise unsupported(api, 'the URI %r' % path, 'only local files are read')
    path = path[len('file://'):] if path.startswith('file://') else path
    try:
        return open(path, mode)
    except OSError as e:
        raise MXNetError('%s: LocalFileSystem.GetPathInfo: %s error: %s' % (api, path, e.strerror)) from None


def _list_files(api, path):
    """A file, or every file of a directory (sorted), as dmlc's InputSplit reads them."""
    if os.path.isdir(path):
        return [os.path.join(path, f) for f in sorted(os.listdir(path)) if os.path.isfile(os.path.join(path, f))]
    _open_local(api, path).close()
    return [path]


class _BatchLoader:
    """MXNet's BatchLoader: groups single instances into batches; with ``round_batch`` the last batch is completed
    from the start of the data and the next epoch continues after those borrowed instances."""

    def __init__(self, source, batch_size, round_batch, api):
        self.source, self.batch_size, self.round_batch, self.api = source, batch_size, round_batch, api
        self.num_overflow = 0
        self.buffers = None
        self.index = np.zeros(batch_size, np.uint64)

    def before_first(self):
        if not self.round_batch or self.num_overflow == 0:
            self.source.before_first()
        else:
            self.num_overflow = 0

    def _put(self, top, inst):
        index, parts = inst
        if self.buffers is None:  # buffers are reused: rows a short batch does not fill keep old values
            self.buffers = [np.zeros((self.batch_size,) + p.shape, p.dtype) for p in parts]
        for buf, p in zip(self.buffers, parts):
            buf[top] = p
        self.index[top] = index

    def next(self):
        if self.num_overflow != 0:
            return None
        top = 0
        while top < self.batch_size:
            inst = self.source.next()
            if inst is None:
                break
            self._put(top, inst)
            top += 1
        if top == 0:
            return None
        pad = 0
        if top < self.batch_size:
            if self.round_batch:
                self.source.before_first()
                while top < self.batch_size:
                    inst = self.source.next()
                    if inst is None:
                        raise MXNetError('%s: number of input must be bigger than batch size' % self.api)
                    self._put(top, inst)
                    top += 1
                    self.num_overflow += 1
                pad = self.num_overflow
            else:
                pad = self.batch_size - top
        return self.buffers[0].copy(), self.buffers[1].copy(), pad, self.index.copy()


class _Prefetched:
    """The PrefetcherIter stage: casts every output array to ``dtype`` when given."""

    def __init__(self, loader, dtype):
        self.loader, self.dtype = loader, dtype

    def before_first(self):
        self.loader.before_first()

    def next(self):
        b = self.loader.next()
        if b is None or self.dtype is None:
            return b
        return (b[0].astype(self.dtype), b[1].astype(self.dtype)) + tuple(b[2:])


class _CSVRows:
    """One instance per CSV row: (row number, (data reshaped to data_shape, label))."""

    def __init__(self, p, dtype):
        self.p, self.dtype = p, dtype
        self.data = self._read(p.data_csv)
        self.label = self._read(p.label_csv) if p.label_csv != 'NULL' else None
        self.pos = 0

    def _read(self, path):
        rows = []
        for f in _list_files('CSVIter', path):
            with _open_local('CSVIter', f, 'r') as fh:
                rows += [line for line in (ln.strip() for ln in fh) if line]
        return rows

    def _row(self, line, shape, what):
        try:
            vals = np.array(line.split(','), dtype=self.dtype) if self.dtype.kind == 'f' else \
                np.array([int(float(x)) if ('.' in x or 'e' in x.lower()) else int(x) for x in line.split(',')],
                         dtype=self.dtype)
        except ValueError as e:
            raise MXNetError('CSVIter: cannot parse %s row %r (%s)' % (what, line, e)) from None
        size = int(np.prod(shape))
        if vals.size != size:
            raise MXNetError('CSVIter: Check failed: row.length == shape.Size() (%d vs. %d) : The data size in CSV '
                             'do not match size of shape: specified shape=[%s], the csv row-length=%d'
                             % (vals.size, size, ','.join(map(str, shape)), vals.size))
        return vals.reshape(shape)

    def before_first(self):
        self.pos = 0

    def next(self):
        i = self.pos
        if i >= len(self.data):
            return None
        self.pos += 1
        data = self._row(self.data[i], self.p.data_shape, 'data')
        if self.label is None:
            label = np.zeros(1, self.dtype)
        else:
            if i >= len(self.label):
                raise MXNetError("CSVIter: Data CSV's row is smaller than the number of rows in label_csv")
            label = self._row(self.label[i], self.p.label_shape, 'label')
        return i, (data, label)


_CSV_SPEC = dict({'data_csv': ('string', _REQUIRED), 'data_shape': ('Shape(tuple)', _REQUIRED),
                  'label_csv': ('string', 'NULL'), 'label_shape': ('Shape(tuple)', (1,))}, **_BATCH, **_PREFETCH)


def _csv_iter(**kwargs):
    """Batches of rows of a CSV file (or of every file in a directory), each reshaped to ``data_shape``.

    Labels come from ``label_csv`` (zeros without it). ``round_batch`` (default True) completes the last batch
    from the start, and the next epoch then continues after the borrowed rows. ``dtype``: float32 (default),
    int32 or int64.
    """
    p = _Params('CSVIter', kwargs, _CSV_SPEC)
    if p.dtype not in (None, 'float32', 'int32', 'int64'):
        raise MXNetError('CSVIter: Check failed: false: %s is not supported for CSVIter' % p.dtype)
    rows = _CSVRows(p, np.dtype(p.dtype or 'float32'))
    loader = _BatchLoader(rows, p.batch_size, p.round_batch, 'CSVIter')
    return MXDataIter(_Prefetched(loader, p.dtype), **kwargs)


_MNIST_SPEC = dict({'image': ('string', './train-images-idx3-ubyte'), 'label': ('string', './train-labels-idx1-ubyte'),
                    'batch_size': ('int', 128), 'shuffle': ('boolean', True), 'flat': ('boolean', False),
                    'seed': ('int', 0), 'silent': ('boolean', False), 'num_parts': ('int', 1),
                    'part_index': ('int', 0)}, **_PREFETCH)


def _read_idx_header(f, n, api):
    head = f.read(4 * n)
    if len(head) != 4 * n:
        raise MXNetError('%s: invalid mnist format' % api)
    return struct.unpack('>%di' % n, head)


class _MNISTSource:
    def __init__(self, p):
        self.p = p
        if p.batch_size < 1:
            raise MXNetError('MNISTIter: batch_size should be >= 1')
        if not (p.num_parts > 0 and 0 <= p.part_index < p.num_parts):
            raise MXNetError('MNISTIter: Check failed: part_index %d, num_parts %d' % (p.part_index, p.num_parts))
        with _open_local('MNISTIter', p.image) as f:
            _, count, rows, cols = _read_idx_header(f, 4, 'MNISTIter')
            start, end = self._part(count)
            f.seek(16 + start * rows * cols)
            raw = np.frombuffer(f.read((end - start) * rows * cols), np.uint8)
        if raw.size != (end - start) * rows * cols:
            raise MXNetError('MNISTIter: the image file is shorter than its header says')
        self.images = raw.reshape(end - start, rows, cols).astype(np.float32) * np.float32(1.0 / 256.0)
        with _open_local('MNISTIter', p.label) as f:
            _, count = _read_idx_header(f, 2, 'MNISTIter')
            start, end = self._part(count)
            f.seek(8 + start)
            labels = np.frombuffer(f.read(end - start), np.uint8)
        self.labels = labels.astype(np.float32)
        if p.shuffle:
            order = _cxxrandom.shuffle(list(range(len(self.labels))), _cxxrandom.MT19937(p.seed))
            self.images, self.labels = self.images[order], self.labels[order]
        self.loc = 0
        if not p.silent:
            # MXNet prints the flat shape as an mshadow Shape2 '(n,k)', the 4-d one as a TShape '[n,1,h,w]',
            # from two LOG lines of iter_mnist.cc
            if p.flat:
                where, shape = 109, '(%d,%d)' % (p.batch_size, rows * cols)
            else:
                where, shape = 112, '[%d,1,%d,%d]' % (p.batch_size, rows, cols)
            cpp_log('../src/io/iter_mnist.cc:%d' % where,
                    'MNISTIter: load %d images, shuffle=%d, shape=%s', len(self.images), p.shuffle, shape)

    def _part(self, count):
        return (int(count / self.p.num_parts * self.p.part_index),
                int(count / self.p.num_parts * (self.p.part_index + 1)))

    def before_first(self):
        self.loc = 0

    def next(self):
        b = self.p.batch_size
        if self.loc + b > len(self.images):
            return None
        img = self.images[self.loc:self.loc + b]
        img = img.reshape(b, -1) if self.p.flat else img[:, None]
        label = self.labels[self.loc:self.loc + b].reshape(b, 1)
        self.loc += b
        return img, label, 0, np.zeros(b, np.uint64)


def _mnist_iter(**kwargs):
    """Batches of MNIST digits from idx files: data (N, 1, 28, 28), or (N, 784) with ``flat``, scaled by 1/256;
    labels (N,). Only full batches. ``shuffle`` (default True) orders the images as MXNet does for ``seed``."""
    p = _Params('MNISTIter', kwargs, _MNIST_SPEC)
    return MXDataIter(_Prefetched(_MNISTSource(p), p.dtype), **kwargs)


CSVIter = _creator('CSVIter', _csv_iter)
MNISTIter = _creator('MNISTIter', _mnist_iter)
