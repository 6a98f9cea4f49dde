"""``mx.contrib``: the legacy ``contrib.autograd`` API, ``contrib.nd``/``contrib.sym`` (the registry's
``_contrib_*`` operators), ``contrib.io`` (``DataLoaderIter``), ``contrib.svrg_optimization`` (``SVRGModule``) and
``contrib.text`` (vocabulary and token embeddings). ``contrib.amp``, ``onnx``, ``quantization`` and ``tensorboard``
raise when used."""
from . import autograd, amp  # noqa: F401
from . import io, svrg_optimization, text  # noqa: F401
from ..ndarray import contrib as ndarray  # noqa: F401
from ..ndarray import contrib as nd  # noqa: F401
from ..symbol import contrib as symbol  # noqa: F401
from ..symbol import contrib as sym  # noqa: F401
