"""``mx.io``: data iterators and their helpers."""
from . import io  # noqa: F401
from .io import (CSVIter, DataBatch, DataDesc, DataIter, MNISTIter, MXDataIter, NDArrayIter,  # noqa: F401
                 PrefetchingIter, ResizeIter)
from ._libsvm import LibSVMIter
from ._image_record import (ImageRecordIter, ImageRecordInt8Iter, ImageRecordIter_v1, ImageRecordUInt8Iter,
                            ImageRecordUInt8Iter_v1)
from ._image_det_record import ImageDetRecordIter
from . import utils  # noqa: F401
from .utils import _init_data, _getdata_by_idx, _has_instance  # noqa: F401

# MXNet registers its C++ iterators in mxnet.io.io; these are written in their own modules
for _it in (LibSVMIter, ImageRecordIter, ImageRecordInt8Iter, ImageRecordIter_v1, ImageRecordUInt8Iter,
            ImageRecordUInt8Iter_v1, ImageDetRecordIter):
    setattr(io, _it.__name__, _it)
    io.__all__.append(_it.__name__)
del _it
