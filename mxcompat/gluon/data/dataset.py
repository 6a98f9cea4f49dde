"""Datasets: ``Dataset`` (with transform/filter/shard/take/sample), ``SimpleDataset``, ``ArrayDataset``,
``RecordFileDataset``."""
import os

from ...base import MXNetError, MXNetTypeError, MXNetAssertionError
from ... import ndarray as nd, recordio
from .sampler import Sampler, SequentialSampler, FilterSampler

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'RecordFileDataset']


class Dataset:
    """Base class: subclasses define ``__getitem__`` and ``__len__``. Numpy and NDArray arrays can be used as
    datasets directly."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true (evaluated now, on the transformed samples if lazy)."""
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Shard ``index`` of ``num_shards`` contiguous parts; the first ``len % num_shards`` are one longer."""
        checks = ((index < num_shards, 'Shard index of out bound: %d out of %d' % (index, num_shards)),
                  (num_shards > 0, 'Number of shards must be greater than 0'),
                  (index >= 0, 'Index must be non-negative'))
        failed = [message for ok, message in checks if not ok]
        if failed:
            raise MXNetAssertionError(failed[0])
        per_shard, longer = divmod(len(self), num_shards)
        # the `longer` first shards take one extra sample each
        first = index * per_shard + min(index, longer)
        return _SampledDataset(self, SequentialSampler(per_shard + int(index < longer), first))

    def take(self, count):
        """The first ``count`` samples (all of them if ``count`` is None or larger than the dataset)."""
        total = len(self)
        return _SampledDataset(self, SequentialSampler(total if count is None else min(count, total)))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields (drawn once, now)."""
        if isinstance(sampler, Sampler):
            return _SampledDataset(self, sampler)
        raise MXNetTypeError('Invalid sampler type: %s. Expected gluon.data.Sampler instead.' % type(sampler))

    def transform(self, fn, lazy=True):
        """Each sample passed through ``fn`` (a tuple sample is unpacked into arguments). ``lazy=False``
        transforms everything now into a ``SimpleDataset``."""
        view = _LazyTransformDataset(self, fn)
        return view if lazy else SimpleDataset(list(map(view.__getitem__, range(len(view)))))

    def transform_first(self, fn, lazy=True):
        """Like ``transform``, but ``fn`` gets and replaces only the first element of each sample."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class _View(Dataset):
    """Reads through ``self._data``, which gives the length; subclasses map an index to a sample."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)


class SimpleDataset(_View):
    """Wraps anything with ``len()`` and ``[]`` (a list, an array)."""

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(_View):
    def __init__(self, data, fn):
        super().__init__(data)
        self._fn = fn

    def __getitem__(self, idx):
        sample = self._data[idx]
        return self._fn(*(sample if isinstance(sample, tuple) else (sample,)))


class _TransformFirstClosure:
    """A class rather than a closure so that it pickles (for worker processes)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        head = self._fn(x)
        return (head, *args) if args else head


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._sampler, self._dataset = sampler, dataset
        self._indices = list(sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]

    def __len__(self):
        return len(self._sampler)


def _vector_to_numpy(data):
    # MXNet keeps a 1-D NDArray as numpy, so its samples come out as numpy scalars
    return data.asnumpy() if isinstance(data, nd.NDArray) and data.ndim == 1 else data


class ArrayDataset(Dataset):
    """Sample ``i`` is ``(a[i], b[i], ...)`` (just ``a[i]`` for one array); the arrays (datasets, lists, numpy
    arrays, NDArrays) must have equal lengths. A 1-D NDArray is kept as numpy (as MXNet), so its samples are
    numpy scalars."""

    def __init__(self, *args):
        if not args:
            raise MXNetAssertionError('Needs at least 1 arrays')
        lengths = [len(arr) for arr in args]
        self._length = lengths[0]
        for pos, n in enumerate(lengths):
            if n != self._length:
                # MXNet's message counts the offending array from 1 (array[0] is the reference)
                raise MXNetAssertionError('All arrays must have the same length; array[0] has length %d while '
                                          'array[%d] has %d.' % (self._length, pos + 1, n))
        self._data = [_vector_to_numpy(arr) for arr in args]

    def __len__(self):
        return self._length

    def __getitem__(self, idx):
        row = tuple(column[idx] for column in self._data)
        return row if len(row) > 1 else row[0]


class RecordFileDataset(Dataset):
    """The raw records (bytes) of a RecordIO ``.rec`` file, with its ``.idx`` index next to it."""

    def __init__(self, filename):
        self.filename = filename
        self.idx_file = os.path.splitext(filename)[0] + '.idx'
        missing = [f for f in (filename, self.idx_file) if not os.path.isfile(f)]
        if missing:
            raise MXNetError('RecordFileDataset: %s does not exist (it needs %s and its index %s)'
                             % (missing[0], filename, self.idx_file))
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, 'r')

    def __len__(self):
        return len(self._record.keys)

    def __getitem__(self, idx):
        key = self._record.keys[idx]
        return self._record.read_idx(key)


class _DownloadedDataset(Dataset):
    """Base of the datasets MXNet downloads (MNIST, CIFAR): ``_get_data`` fills ``_data`` and ``_label``."""

    def __init__(self, root, transform):
        super().__init__()
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data = self._label = None
        self._get_data()

    def __len__(self):
        return len(self._label)

    def __getitem__(self, idx):
        pair = (self._data[idx], self._label[idx])
        return pair if self._transform is None else self._transform(*pair)

    def _get_data(self):
        raise NotImplementedError
