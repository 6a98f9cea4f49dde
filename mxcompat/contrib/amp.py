"""``mx.contrib.amp``: automatic mixed precision is not provided (importing works; using it raises).
The module also answers ``from mxnet.contrib.amp import amp``."""
import sys as _sys

from ..base import unsupported


def _gap(name):
    def f(*args, **kwargs):
        raise unsupported('mx.contrib.amp.' + name, 'automatic mixed precision',
                          'cast the model with block.cast("float16") or use torch.autocast on the torch module')
    f.__name__ = name
    return f


init = _gap('init')
init_trainer = _gap('init_trainer')
scale_loss = _gap('scale_loss')
unscale = _gap('unscale')
convert_model = _gap('convert_model')
convert_hybrid_block = _gap('convert_hybrid_block')
convert_symbol = _gap('convert_symbol')
list_fp16_ops = _gap('list_fp16_ops')

amp = _sys.modules[__name__]  # ``from mxnet.contrib.amp import amp`` (MXNet's package holds a module amp)
