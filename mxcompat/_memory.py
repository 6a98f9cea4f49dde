"""Large CPU arrays on transparent huge pages.

A big embedding table and its optimizer state are read and written a few scattered rows at a time (a sparse
gradient's lazy update, a lookup); on 4 KB pages nearly every row costs a TLB miss. On Linux, Gluon parameter
arrays, ``simple_bind``'s arrays and optimizer states of ``kernels.config.huge_page_min_bytes`` and more (0 turns
the advice off, as do the CPU fast paths off: see ``mxcompat.kernels``) are advised ``MADV_HUGEPAGE``
before their pages are first written, so the kernel backs them with 2 MB pages where transparent huge pages are
enabled (``always`` or ``madvise``). Measured on a 1M x 64 float32 table, 2045 rows: gather 54 -> 27 us, row writes
(``index_copy_``) 190 -> 100 us, row additions (``index_add_``) 160 -> 70 us, one thread. Elsewhere, or when the
advice fails, nothing changes.

``host_zeros`` makes a big numpy array of zeros on a private anonymous mapping of its own: the system maps zero
pages as they are first written, so zeros never written (a gradient that backward replaces, a buffer an initializer
replaces) cost nothing, and none are cleared twice; the array starts on a 2 MB boundary and its whole 2 MB extents
are advised onto huge pages whatever its size (under the same switches), as a fresh 4 KB page costs about 1 us to
map on a virtual machine: 0.3 ms a MB, more than drawing the random numbers that fill it.
"""
import mmap
import ctypes
import ctypes.util
import math
import sys

import numpy as np
import torch

from .kernels import config

__all__ = ['zeros', 'copy_of', 'host_zeros']

_MADV_HUGEPAGE = 14
_PAGE = 1 << 21
_madvise = []  # [libc madvise or None], resolved on first use


def _advise_fn():
    if not _madvise:
        fn = None
        if sys.platform.startswith('linux'):
            try:
                fn = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True).madvise
                fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
                fn.restype = ctypes.c_int
            except (OSError, AttributeError):
                fn = None
        _madvise.append(fn)
    return _madvise[0]


def _wants_huge(shape, dtype, device):
    least = config.huge_page_min_bytes
    return (least > 0 and config.cpu_fast_paths and torch.device(device).type == 'cpu'
            and math.prod(shape) * dtype.itemsize >= least
            and _advise_fn() is not None)


def _advised_empty(shape, dtype):
    """An uninitialized CPU tensor whose whole 2 MB extents are advised MADV_HUGEPAGE (before any write: malloc maps
    blocks this big afresh, untouched)."""
    t = torch.empty(shape, dtype=dtype)
    start = (t.data_ptr() + _PAGE - 1) & ~(_PAGE - 1)
    end = (t.data_ptr() + t.numel() * t.element_size()) & ~(_PAGE - 1)
    if end > start:
        _advise_fn()(start, end - start, _MADV_HUGEPAGE)  # (a failure leaves ordinary pages)
    return t


def zeros(shape, dtype, device):
    """``torch.zeros(shape, dtype=dtype, device=device)``, on huge pages when big on CPU."""
    shape = tuple(shape)
    if not _wants_huge(shape, dtype, device):
        return torch.zeros(shape, dtype=dtype, device=device)
    return _advised_empty(shape, dtype).zero_()


def copy_of(value, device):
    """``value.to(device, copy=True)``, on huge pages when big on CPU."""
    if not _wants_huge(tuple(value.shape), value.dtype, device):
        return value.to(device, copy=True)
    return _advised_empty(tuple(value.shape), value.dtype).copy_(value)


MAPPED_MIN_BYTES = 1 << 20  # host_zeros maps arrays this big and bigger; smaller ones are numpy's (calloc)
_PRIVATE = getattr(mmap, 'MAP_PRIVATE', None)


def host_zeros(size, dtype):
    """A 1-D numpy array of ``size`` zeros of numpy ``dtype``: from ``MAPPED_MIN_BYTES`` on Linux, on a private
    anonymous mapping of its own (see the module docstring; private: a forked process writes its own copy), else
    ``np.zeros``."""
    dtype = np.dtype(dtype)
    nbytes = int(size) * dtype.itemsize
    if nbytes < MAPPED_MIN_BYTES or _PRIVATE is None:
        return np.zeros(size, dtype)
    huge = config.huge_page_min_bytes > 0 and config.cpu_fast_paths and hasattr(mmap, 'MADV_HUGEPAGE')
    region = mmap.mmap(-1, nbytes + (_PAGE if huge else 0), flags=_PRIVATE)
    start = 0
    if huge:  # (the extra 2 MB of address space is never touched: no memory behind it)
        start = -np.frombuffer(region, np.uint8, 1).ctypes.data % _PAGE
        whole = nbytes // _PAGE * _PAGE
        if whole:
            try:
                region.madvise(mmap.MADV_HUGEPAGE, start, whole)
            except OSError:
                pass  # (ordinary pages)
    return np.frombuffer(region, dtype, size, start)
