"""``mx.image`` (also ``mx.img``): image decoding, augmentation, ``ImageIter`` and, from ``mx.image.detection``
(also ``mx.image.det``), ``ImageDetIter`` and the detection augmenters."""
from . import image  # noqa: F401
from .image import *  # noqa: F401,F403
from .image import _get_interp_method  # noqa: F401
from . import detection  # noqa: F401
from . import detection as det  # noqa: F401
from .detection import *  # noqa: F401,F403
