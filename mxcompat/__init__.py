"""mxcompat: the Apache MXNet 1.x Python API on PyTorch.

``import mxcompat as mx`` gives MXNet's namespaces. To run an unchanged ``import mxnet`` script, use
``python -m mxcompat script.py`` or call :func:`mxcompat.install_alias` first.

``__version__`` is the MXNet API version mxcompat implements, '1.9.1' (libraries check it, e.g. GluonCV wants
``mxnet>=1.4.0,<2.0.0``); mxcompat's own release is ``__mxcompat_version__`` (pyproject.toml's version).
"""
import gc as _gc
import os
import re
from importlib import metadata

from .libinfo import __version__  # noqa: F401 ('1.9.1': the one place that names it)

# Importing makes tens of thousands of lasting objects; the full collections they would set off, each walking
# torch's whole heap, took 0.1-0.2 s of a 0.2-0.3 s import. Collection resumes (if it was on) once we are loaded.
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from . import base, libinfo  # noqa: F401
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
    from . import numpy_op_signature  # noqa: F401  (gives mx.np's functions MXNet's documented signatures)
finally:
    if _gc_was_enabled:
        _gc.enable()
    del _gc, _gc_was_enabled


def _own_version():
    """mxcompat's release: the version in pyproject.toml beside the package (a source checkout, where that file is
    the one source of truth), else the installed distribution's metadata, which was built from it."""
    pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'pyproject.toml')
    try:
        with open(pyproject, encoding='utf-8') as f:
            text = f.read()
    except OSError:
        text = ''
    project = re.search(r'^\[project\]\s*$(.*?)(?=^\[|\Z)', text, re.M | re.S)
    if project and re.search(r'^name\s*=\s*["\']mxcompat["\']', project.group(1), re.M):
        found = re.search(r'^version\s*=\s*["\']([^"\']+)["\']', project.group(1), re.M)
        if found:
            return found.group(1)
    return metadata.version('mxcompat')


def __getattr__(attr):
    if attr == '__mxcompat_version__':  # looked up on first use: reading the metadata takes tens of milliseconds
        globals()[attr] = version = _own_version()
        return version
    if attr == 'to_torch':  # imported on first use: tracing pulls in torch's fake-tensor machinery
        from .interop import to_torch  # reason: interop loads torch's fake-tensor machinery: on first use
        return to_torch
    return _planned.missing(attr)
