"""``mx.image`` (also ``mx.img``): image decoding, augmentation and ``ImageIter``.

Differs from MXNet: the detection submodule (``ImageDetIter``, ``CreateDetAugmenter`` and the ``Det*Aug`` classes)
is not provided; using one of its names raises an error that says so.
"""
from . import image  # noqa: F401
from .image import *  # noqa: F401,F403
from .image import _get_interp_method  # noqa: F401
from ..base import unsupported as _unsupported

_DETECTION = ('detection', 'det', 'ImageDetIter', 'CreateDetAugmenter', 'CreateMultiRandCropAugmenter',
              'DetAugmenter', 'DetBorrowAug', 'DetRandomSelectAug', 'DetHorizontalFlipAug', 'DetRandomCropAug',
              'DetRandomPadAug')


def __getattr__(name):
    if name in _DETECTION:
        raise _unsupported('mx.image.' + name, 'object detection data loading', 'mx.image.detection is not ported')
    raise AttributeError("module 'mxnet.image' has no attribute %r" % name)
