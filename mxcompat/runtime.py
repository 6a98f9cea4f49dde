"""``mx.runtime``: which features are available, with MXNet 1.9's feature names.

Differs from MXNet: there is no compiled library to ask, so each feature reports what this torch build and machine
provide: CUDA/CUDNN/NCCL from torch's CUDA runtime, MKLDNN/OPENMP/LAPACK/BLAS_* from torch's build, CPU_* and F16C
from the CPU's flags. Features mxcompat does not provide (CUDA_RTC, TENSORRT, OPENCV, CAFFE, PROFILER, DIST_KVSTORE,
CXX14, INT64_TENSOR_SIZE, SIGNAL_HANDLER, DEBUG, TVM_OP, JEMALLOC, SSE) report False.
"""
import collections
import platform
import re

__all__ = ['Feature', 'feature_list', 'Features']

# MXNet 1.9's feature names, in its order.
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


def _blas():
    import torch
    found = re.search(r'BLAS_INFO=(\w+)', torch.__config__.show())
    info = found.group(1).lower() if found else ''
    return {'BLAS_MKL': info == 'mkl', 'BLAS_OPEN': info in ('open', 'openblas'), 'BLAS_ATLAS': info == 'atlas',
            'BLAS_APPLE': info in ('accelerate', 'veclib')}


def _detect():
    import torch
    cuda = torch.cuda.is_available()
    nccl = False
    if cuda:
        try:
            import torch.distributed as dist
            nccl = dist.is_available() and dist.is_nccl_available()
        except ImportError:
            nccl = False
    found = {'CUDA': cuda, 'CUDNN': cuda and torch.backends.cudnn.is_available(), 'NCCL': nccl,
             'OPENMP': torch.backends.openmp.is_available(), 'MKLDNN': torch.backends.mkldnn.is_available(),
             'LAPACK': bool(getattr(torch._C, 'has_lapack', False))}
    found.update(_blas())
    flags = _cpu_flags()
    found.update({k: flag in flags for k, flag in _CPU_FLAGS.items()})
    return found


def feature_list():
    """A list of :class:`Feature`, one per MXNet 1.9 feature name, in MXNet's order."""
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
