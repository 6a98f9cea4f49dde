"""MXNet's asynchronous engine surface on torch.

On CUDA, torch already queues kernels asynchronously on each device's current stream, which is the behaviour
MXNet's engine gave: operations return at once and reading data (``asnumpy``, ``wait_to_read``, ``waitall``)
waits. Each ``gpu(i)`` context issues work on device i's current stream; the calls here synchronize it.
On CPU every operation is synchronous, so these calls return at once. Nothing here touches CUDA unless CUDA has
been initialised, so CPU-only machines never pay for it.
"""
import torch

__all__ = ['waitall', 'wait_tensor', 'bulk', 'set_bulk_size']


def _cuda_live():
    return torch.cuda.is_available() and torch.cuda.is_initialized()


def wait_tensor(t):
    """Block until pending work producing tensor ``t`` has finished."""
    if t.is_cuda:
        torch.cuda.current_stream(t.device).synchronize()


def waitall():
    """Block until all pending work on every device has finished."""
    if _cuda_live():
        for i in range(torch.cuda.device_count()):
            torch.cuda.synchronize(i)


_bulk_size = 15


def set_bulk_size(size):
    """Accepted for compatibility (torch has no op bulking); returns the previous value."""
    global _bulk_size
    prev, _bulk_size = _bulk_size, int(size)
    return prev


class bulk:  # noqa: N801 (MXNet's name)
    """``with mx.engine.bulk(n):`` is accepted; torch does not bulk operations, so it has no effect."""

    def __init__(self, size):
        self._size = size
        self._old = None

    def __enter__(self):
        self._old = set_bulk_size(self._size)
        return self

    def __exit__(self, *exc):
        set_bulk_size(self._old)
