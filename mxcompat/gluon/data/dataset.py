"""Datasets: ``Dataset`` (with transform/filter/shard/take/sample), ``SimpleDataset``, ``ArrayDataset``,
``RecordFileDataset``."""
import os

from ...base import MXNetError, MXNetTypeError, MXNetAssertionError
from ... import ndarray as nd

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
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Shard ``index`` of ``num_shards`` contiguous parts; the first ``len % num_shards`` are one longer."""
        if index >= num_shards:
            raise MXNetAssertionError('Shard index of out bound: %d out of %d' % (index, num_shards))
        if num_shards <= 0:
            raise MXNetAssertionError('Number of shards must be greater than 0')
        if index < 0:
            raise MXNetAssertionError('Index must be non-negative')
        base, rest = divmod(len(self), num_shards)
        start = base * index + min(index, rest)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(base + (index < rest), start))

    def take(self, count):
        """The first ``count`` samples (all of them if ``count`` is None or larger than the dataset)."""
        if count is None or count > len(self):
            count = len(self)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields (drawn once, now)."""
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise MXNetTypeError('Invalid sampler type: %s. Expected gluon.data.Sampler instead.' % type(sampler))
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """Each sample passed through ``fn`` (a tuple sample is unpacked into arguments). ``lazy=False``
        transforms everything now into a ``SimpleDataset``."""
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """Like ``transform``, but ``fn`` gets and replaces only the first element of each sample."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """Wraps anything with ``len()`` and ``[]`` (a list, an array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """A class rather than a closure so that it pickles (for worker processes)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Sample ``i`` is ``(a[i], b[i], ...)`` (just ``a[i]`` for one array); the arrays (datasets, lists, numpy
    arrays, NDArrays) must have equal lengths. A 1-D NDArray is kept as numpy (as MXNet), so its samples are
    numpy scalars."""

    def __init__(self, *args):
        if not args:
            raise MXNetAssertionError('Needs at least 1 arrays')
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise MXNetAssertionError('All arrays must have the same length; array[0] has length %d while '
                                          'array[%d] has %d.' % (self._length, i + 1, len(data)))
            if isinstance(data, nd.NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The raw records (bytes) of a RecordIO ``.rec`` file, with its ``.idx`` index next to it."""

    def __init__(self, filename):
        from ... import recordio
        self.idx_file = os.path.splitext(filename)[0] + '.idx'
        self.filename = filename
        for path in (filename, self.idx_file):
            if not os.path.isfile(path):
                raise MXNetError('RecordFileDataset: %s does not exist (it needs %s and its index %s)'
                                 % (path, filename, self.idx_file))
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, 'r')

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)


class _DownloadedDataset(Dataset):
    """Base of the datasets MXNet downloads (MNIST, CIFAR): ``_get_data`` fills ``_data`` and ``_label``."""

    def __init__(self, root, transform):
        super().__init__()
        self._transform = transform
        self._data = None
        self._label = None
        self._root = os.path.expanduser(root)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError
