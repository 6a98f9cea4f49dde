"""``mx.contrib.amp``: automatic mixed precision (see ``amp.py``). ``from mxnet.contrib.amp import amp`` also works."""
from .amp import *  # noqa: F401,F403
from .amp import bfloat16, list_fp16_ops, convert_bucketing_module, LossScaler  # noqa: F401
from . import amp, lists, loss_scaler  # noqa: F401
