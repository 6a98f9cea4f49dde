"""mxcompat: the Apache MXNet 1.x Python API on PyTorch.

``import mxcompat as mx`` gives MXNet's namespaces. To run an unchanged ``import mxnet`` script, use
``python -m mxcompat script.py`` or call :func:`mxcompat.install_alias` first.
"""
__version__ = '0.1.0'

import gc as _gc

# Importing makes tens of thousands of lasting objects; the full collections they would set off, each walking
# torch's whole heap, took 0.1-0.2 s of a 0.2-0.3 s import. Collection resumes (if it was on) once we are loaded.
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from . import base  # noqa: F401
    from .base import MXNetError  # noqa: F401
    from .context import Context, cpu, gpu, cpu_pinned, num_gpus, gpu_memory_info, current_context  # noqa: F401
    from . import context, engine, autograd  # noqa: F401
    from . import name, attribute  # noqa: F401
    from .attribute import AttrScope  # noqa: F401
    from . import ndarray  # noqa: F401
    from . import ndarray as nd  # noqa: F401
    from . import random  # noqa: F401
    from . import test_utils  # noqa: F401
    from . import util  # noqa: F401
    from .util import (is_np_shape, set_np_shape, np_shape, use_np_shape, is_np_array, np_array,  # noqa: F401
                       use_np_array, use_np)
    from ._alias import install_alias  # noqa: F401
    from . import _planned

    _planned.install(globals())
finally:
    if _gc_was_enabled:
        _gc.enable()
    del _gc, _gc_was_enabled


def __getattr__(attr):
    if attr == 'to_torch':  # imported on first use: tracing pulls in torch's fake-tensor machinery
        from .interop import to_torch
        return to_torch
    return _planned.missing(attr)
