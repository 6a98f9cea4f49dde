"""``mx.contrib``: the legacy ``contrib.autograd`` API, ``contrib.nd``/``contrib.sym`` (the registry's
``_contrib_*`` operators), ``contrib.io`` (``DataLoaderIter``) and ``contrib.svrg_optimization`` (``SVRGModule``).
``contrib.amp``, ``onnx``, ``quantization``, ``tensorboard`` and ``text`` raise when used."""
from . import autograd, amp  # noqa: F401
from . import io, svrg_optimization  # noqa: F401
from ..ndarray import contrib as ndarray  # noqa: F401
from ..ndarray import contrib as nd  # noqa: F401
from ..symbol import contrib as symbol  # noqa: F401
from ..symbol import contrib as sym  # noqa: F401
