"""``mx.contrib``: the legacy ``contrib.autograd`` API, and ``contrib.nd``/``contrib.sym`` (the registry's
``_contrib_*`` operators). ``contrib.amp``, ``onnx``, ``quantization``, ``tensorboard`` and ``text`` raise when used."""
from . import autograd, amp  # noqa: F401
from ..ndarray import contrib as ndarray  # noqa: F401
from ..ndarray import contrib as nd  # noqa: F401
from ..symbol import contrib as symbol  # noqa: F401
from ..symbol import contrib as sym  # noqa: F401
