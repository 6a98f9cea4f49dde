"""``mx.test_utils``: the helpers MXNet's own tests and users' tests call.

Every public function of MXNet 1.9.1's ``test_utils`` is here with the same name and signature; the package also
offers the names MXNet's module imports (``np``, ``mx``, ``rnd``, ``npt``, ``ss``, ``Symbol``, ``use_np``, ...), so
``from mxnet.test_utils import *`` gives tests what they expect. Differs from MXNet:

- The star import also gives ``importlib``, ``itertools`` and ``torch``.
- ``assert_almost_equal`` always compares on the host with numpy; numpy's print options are set only while the
  error message is built (MXNet leaves ``threshold=4, suppress=True`` set for the rest of the process).
- ``download`` and the dataset helpers never use the network: they work when the files are already on disk and
  raise ``MXNetNotImplementedError`` naming the file otherwise.
- ``chi_square_check``/``verify_generator`` compute the p-value with torch, so scipy is not needed.
- ``check_gluon_hybridize_consistency`` runs in the legacy semantics (MXNet runs it under ``use_np``).

| module | what |
| --- | --- |
| ``tolerances.py`` | default dtype and context, tolerances per dtype |
| ``arrays.py`` | random arrays (dense and sparse), shapes, small numpy helpers |
| ``compare.py`` | ``assert_almost_equal`` and the other comparisons |
| ``checkers.py`` | the Symbol-based checkers (numeric gradient, symbolic forward/backward, speed, consistency) |
| ``training.py`` | optimizer and Gluon hybridize consistency |
| ``system.py`` | environment variables, stderr, platform checks |
| ``datasets.py`` | downloads and datasets from local files, ``DummyIter`` |
| ``distributions.py`` | generator checks (mean, variance, chi-square) and matrices with known spectra |
"""
# The module-level names of MXNet's test_utils, which tests star-import along with the helpers; importlib,
# itertools and torch are mxcompat's own additions.
import bz2  # noqa: F401
import errno  # noqa: F401
import gzip  # noqa: F401
import importlib
import itertools  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401
import platform  # noqa: F401
import struct  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import torch  # noqa: F401
import numpy as np  # noqa: F401
import numpy.random as rnd  # noqa: F401

import mxcompat as mx  # noqa: F401
from ..context import Context, current_context  # noqa: F401
from ..ndarray.ndarray import array  # noqa: F401
from ..runtime import Features  # noqa: F401
from ..util import use_np, getenv, setenv, get_cuda_compute_capability  # noqa: F401

from . import arrays, checkers, compare, datasets, distributions, system, tolerances, training
from .arrays import *  # noqa: F401,F403
from .checkers import *  # noqa: F401,F403
from .compare import *  # noqa: F401,F403
from .datasets import *  # noqa: F401,F403
from .distributions import *  # noqa: F401,F403
from .system import *  # noqa: F401,F403
from .tolerances import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403

_MODULE_NAMES = ['bz2', 'errno', 'gzip', 'importlib', 'itertools', 'json', 'logging', 'numbers', 'os', 'platform',
                 'struct', 'sys', 'time', 'traceback', 'zipfile', 'OrderedDict', 'contextmanager', 'torch', 'np', 'rnd',
                 'mx', 'Context', 'current_context', 'array', 'Features', 'use_np', 'getenv', 'setenv',
                 'get_cuda_compute_capability']

# names resolved on first use: optional packages (None when missing) and namespaces mxcompat imports after this one
_LAZY = ('npt', 'ss', 'requests', 'Symbol', 'np_symbol', 'DummyIter')

# ``from mxnet.test_utils import *`` gives every public name (MXNet's module has no __all__ of its own)
__all__ = (_MODULE_NAMES + [name for module in (tolerances, arrays, compare, checkers, training, system, datasets,
                                                distributions) for name in module.__all__] + list(_LAZY))


def _lazy(name):
    if name == 'npt':
        return importlib.import_module('numpy.testing')
    if name in ('ss', 'requests'):
        try:
            return importlib.import_module('scipy.stats' if name == 'ss' else 'requests')
        except ImportError:
            return None
    if name == 'Symbol':
        return importlib.import_module('mxcompat.symbol').Symbol
    if name == 'np_symbol':
        return importlib.import_module('mxcompat.symbol.numpy')._Symbol
    return datasets._make_dummy_iter()


def __getattr__(name):
    if name in _LAZY:
        value = _lazy(name)
        globals()[name] = value
        return value
    raise AttributeError("module 'mxnet.test_utils' has no attribute %r" % name)
