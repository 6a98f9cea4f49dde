"""``mx.npx``: MXNet 1.9.1's NumPy-extension namespace.

The neural-network and other operators (``npx.fully_connected``, ``npx.convolution``, ``npx.softmax`` ...) are the
operator registry's definitions behind ``mx.nd`` taking ``mx.np`` arrays (see ``_op``); ``npx.reshape``,
``npx.nonzero`` and ``npx.constraint_check`` are MXNet's npx-only operators. Also the semantics switches
(``set_np``/``reset_np``/``is_np_array``/``is_np_shape``), the contexts, ``waitall``, ``save``/``load`` (MXNet's
file format), ``npx.random`` and ``npx.image``. A name MXNet's ``npx`` does not have raises ``AttributeError``.
"""
from ..context import Context, cpu, gpu, cpu_pinned, num_gpus, gpu_memory_info, current_context  # noqa: F401
from ..util import is_np_shape, is_np_array, set_np, reset_np, get_cuda_compute_capability  # noqa: F401
from ..ndarray.ndarray import waitall  # noqa: F401
from . import _op  # noqa: F401
from ._op import *  # noqa: F401,F403
from . import image, random, utils  # noqa: F401
from .utils import save, load  # noqa: F401
