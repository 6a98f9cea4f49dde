"""``mx.io``: data iterators and their helpers."""
from . import io  # noqa: F401
from .io import (CSVIter, DataBatch, DataDesc, DataIter, ImageDetRecordIter, ImageRecordInt8Iter,  # noqa: F401
                 ImageRecordIter, ImageRecordIter_v1, ImageRecordUInt8Iter, ImageRecordUInt8Iter_v1, LibSVMIter,
                 MNISTIter, MXDataIter, NDArrayIter, PrefetchingIter, ResizeIter)
from . import utils  # noqa: F401
from .utils import _init_data, _getdata_by_idx, _has_instance  # noqa: F401
