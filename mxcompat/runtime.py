"""``mx.runtime``: which features are available, with MXNet 1.9.1's feature names.

Differs from MXNet: there is no compiled library to ask, so each feature reports what this torch build, this
machine and mxcompat provide, rather than how a libmxnet was compiled:

* CUDA, CUDNN, NCCL: torch can use them here (``torch.cuda.is_available()``, and with it
  ``torch.backends.cudnn.is_available()`` / ``torch.distributed.is_nccl_available()``).
* OPENMP, MKLDNN, LAPACK, BLAS_*: torch's build (``torch.backends``, ``torch.__config__``); DEBUG: torch is a
  debug build.
* CPU_* and F16C: the CPU's own flags (torch picks its kernels for the CPU at run time; MXNet reports the flags it
  was compiled with).
* DIST_KVSTORE: ``dist_*`` kvstores run on ``torch.distributed`` where it is available; INT64_TENSOR_SIZE: arrays
  index with 64-bit sizes (torch's); PROFILER: ``mx.profiler`` works (on ``torch.profiler``); OPENCV: ``mx.image``
  can decode, encode and resize images (Pillow is installed: mxcompat's image functions use it, not OpenCV).
* Not provided, so False: CUDA_RTC, TENSORRT, SSE (MXNet's own SSE build switch), JEMALLOC, CAFFE, CXX14,
  SIGNAL_HANDLER (no crash handler is installed), TVM_OP.
"""
import collections
import importlib.util
import platform
import re

import torch
import torch.distributed as dist

__all__ = ['Feature', 'feature_list', 'Features']

# MXNet 1.9.1's feature names, in its order.
_NAMES = ('CUDA', 'CUDNN', 'NCCL', 'CUDA_RTC', 'TENSORRT', 'CPU_SSE', 'CPU_SSE2', 'CPU_SSE3', 'CPU_SSE4_1',
          'CPU_SSE4_2', 'CPU_SSE4A', 'CPU_AVX', 'CPU_AVX2', 'OPENMP', 'SSE', 'F16C', 'JEMALLOC', 'BLAS_OPEN',
          'BLAS_ATLAS', 'BLAS_MKL', 'BLAS_APPLE', 'LAPACK', 'MKLDNN', 'OPENCV', 'CAFFE', 'PROFILER', 'DIST_KVSTORE',
          'CXX14', 'INT64_TENSOR_SIZE', 'SIGNAL_HANDLER', 'DEBUG', 'TVM_OP')

# feature -> flag in /proc/cpuinfo
_CPU_FLAGS = {'CPU_SSE': 'sse', 'CPU_SSE2': 'sse2', 'CPU_SSE3': 'pni', 'CPU_SSE4_1': 'sse4_1', 'CPU_SSE4_2': 'sse4_2',
              'CPU_SSE4A': 'sse4a', 'CPU_AVX': 'avx', 'CPU_AVX2': 'avx2', 'F16C': 'f16c'}


class Feature(object):
    """A feature: ``name`` and ``enabled``."""

    __slots__ = ('_name', '_enabled')

    def __init__(self, name, enabled):
        self._name = name
        self._enabled = bool(enabled)

    @property
    def name(self):
        return self._name

    @property
    def enabled(self):
        return self._enabled

    def __repr__(self):
        return ('✔ ' if self._enabled else '✖ ') + self._name


def _cpu_flags():
    if platform.machine() not in ('x86_64', 'AMD64', 'i386', 'i686'):
        return set()
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('flags'):
                    return set(line.split(':', 1)[1].split())
    except OSError:
        pass
    return set()


def _blas(config):
    found = re.search(r'BLAS_INFO=(\w+)', config)
    info = found.group(1).lower() if found else ''
    return {'BLAS_MKL': info == 'mkl', 'BLAS_OPEN': info in ('open', 'openblas'), 'BLAS_ATLAS': info == 'atlas',
            'BLAS_APPLE': info in ('accelerate', 'veclib')}


def _installed(module):
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _detect():
    config = torch.__config__.show()
    cuda = torch.cuda.is_available()
    dist_ok = dist.is_available()
    found = {'CUDA': cuda, 'CUDNN': cuda and torch.backends.cudnn.is_available(),
             'NCCL': cuda and dist_ok and dist.is_nccl_available(),
             'OPENMP': torch.backends.openmp.is_available(), 'MKLDNN': torch.backends.mkldnn.is_available(),
             'LAPACK': bool(getattr(torch._C, 'has_lapack', False)),
             'DEBUG': 'BUILD_TYPE=Debug' in config,
             'DIST_KVSTORE': dist_ok, 'INT64_TENSOR_SIZE': True, 'PROFILER': True,
             'OPENCV': _installed('PIL')}
    found.update(_blas(config))
    flags = _cpu_flags()
    found.update({k: flag in flags for k, flag in _CPU_FLAGS.items()})
    return found


def feature_list():
    """A list of :class:`Feature`, one per MXNet 1.9.1 feature name, in MXNet's order."""
    found = _detect()
    return [Feature(name, found.get(name, False)) for name in _NAMES]


class Features(collections.OrderedDict):
    """The singleton ordered dict of feature name -> :class:`Feature`."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            inst = super(Features, cls).__new__(cls)
            super(Features, inst).__init__([(f.name, f) for f in feature_list()])
            cls.instance = inst
        return cls.instance

    def __init__(self):  # filled once in __new__; a second Features() must not clear it
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether feature ``feature_name`` (case-insensitive) is enabled; RuntimeError for an unknown name."""
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(feature_name, list(self)))
        return self[feature_name].enabled
