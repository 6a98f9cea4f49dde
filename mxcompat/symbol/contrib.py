"""``mx.sym.contrib``: operators filed under this namespace (filled from the registry by ``op.py``), rand_zipfian
and the control-flow builders foreach, while_loop and cond (``control_flow.py``)."""
from ..ndarray.contrib import zipfian as _zipfian
from .control_flow import foreach, while_loop, cond  # noqa: F401
from . import random


def rand_zipfian(true_classes, num_sampled, range_max):
    """Symbolic ``mx.nd.contrib.rand_zipfian``: three symbols (sampled classes, expected count of
    ``true_classes``, expected count of the samples)."""
    return _zipfian(random.uniform, true_classes, num_sampled, range_max)
