"""``mx.contrib.io``: ``DataLoaderIter``, a gluon ``DataLoader`` seen as an ``mx.io`` DataIter (for Module)."""
import numpy as np

from ..base import MXNetTypeError, MXNetValueError
from ..io import DataDesc, DataIter
from .. import ndarray as nd

__all__ = ['DataLoaderIter']


class DataLoaderIter(DataIter):
    """Iterates ``loader`` (which yields ``(data, label)`` batches) as DataBatches of ``data`` and ``label`` cast
    to ``dtype``. ``batch_size`` and ``provide_data``/``provide_label`` come from the loader's first batch; a
    shorter batch (``last_batch='keep'``) is padded up to ``batch_size`` and reports the filler count as ``pad``.

    As in MXNet, a padded batch is float32 whatever ``dtype`` is. Differs from MXNet: the filler rows are zeros
    (MXNet leaves them uninitialised); a loader that yields nothing, or something other than pairs, raises
    ``MXNetValueError`` here (MXNet: ``StopIteration``/unpacking errors), an unknown ``dtype`` raises
    ``MXNetTypeError`` at construction, and a batch larger than the first raises ``MXNetValueError``."""

    def __init__(self, loader, data_name='data', label_name='softmax_label', dtype='float32'):
        super().__init__()
        try:
            np.dtype(dtype)
        except TypeError:
            raise MXNetTypeError('DataLoaderIter: unknown dtype %r' % (dtype,)) from None
        self._loader = loader
        self._iter = iter(loader)
        first = next(self._iter, None)
        if first is None:
            raise MXNetValueError('DataLoaderIter: the loader yielded no batch')
        if not isinstance(first, (list, tuple)) or len(first) != 2:
            raise MXNetValueError('DataLoaderIter: the loader must yield (data, label) pairs, got %s'
                                  % (type(first).__name__ if not isinstance(first, (list, tuple))
                                     else '%d items' % len(first)))
        # the first batch fixes the batch size and the shapes announced; iteration then starts afresh
        self.provide_data, self.provide_label = ([DataDesc(name, arr.shape, dtype)]
                                                 for name, arr in zip((data_name, label_name), first))
        self.batch_size, self.dtype = first[0].shape[0], dtype
        self._current_batch = None
        self.reset()

    def reset(self):
        """Start a new pass over the loader."""
        self._iter = iter(self._loader)

    def iter_next(self):
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, which):
        arr = self._current_batch[which]
        pad = self.getpad()
        if pad == 0:
            return [arr.astype(self.dtype)]
        if pad < 0:
            raise MXNetValueError('DataLoaderIter: a batch of %d exceeds the batch size %d set by the first batch'
                                  % (arr.shape[0], self.batch_size))
        out = nd.zeros((self.batch_size,) + tuple(arr.shape[1:]))
        out[:arr.shape[0]] = arr.astype(self.dtype)
        return [out]

    def getdata(self):
        return self._padded(0)

    def getlabel(self):
        return self._padded(1)

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
