"""mx.np's per-call fast paths in C (``kernels/native/npcall.c``, built on first use by ``kernels._native``).

On 8x8 arrays the interpreter's work in a Python function of ``mx.np`` (its bytecode, its keywords' dict) costs a
third of the torch call it makes. :func:`fast` puts a compiled stand-in in front of such a function: it computes the
function's common case exactly as the function's own Python fast path does (the same torch call, the result wrapped
with the same dtype, context and autograd handling) and hands every other call to the Python function. The Python
functions stay the definition, and run alone where the extension cannot be built (no C compiler or no Python
headers) or ``MXCOMPAT_NATIVE=0`` is set."""
import torch

from .._recording import STATE, track_recorded
from ..kernels import _native
from .multiarray import ndarray

_NAME = 'npcall'
_READY = []


def extension():
    """The compiled module, set up for ``mx.np.ndarray``; None where it cannot be had (:func:`why_not` says why)."""
    ext = _native.extension(_NAME)
    if ext is not None and not _READY:
        ext.setup(ndarray, STATE, track_recorded, torch.bool, torch.reshape)
        _READY.append(True)
    return ext


def why_not():
    return _native.why_not(_NAME)


def fast(mode, fallback, fn=None, number_fn=None, third=None, direct=(), numeric=(), result_dt=...):
    """``fallback`` (a Python function or method of mx.np) with its common case computed in C, or ``fallback``
    itself without the extension. ``mode`` is one of npcall's paths: 'BINARY' and 'COMPARE' (``fn`` on two arrays of
    one dtype of ``direct``, ``number_fn`` on an array of a dtype of ``numeric`` and a Python number), 'UNARY' (``fn``;
    ``result_dt``: the dtype the result records, ``...`` for the input's), 'DOT' (``fn``, ``number_fn``, ``third``:
    torch.mm, torch.mv, torch.matmul), 'GETITEM' (an int index) and 'RESHAPE' (positional arguments)."""
    ext = extension()
    if ext is None:
        return fallback
    f = ext.Fast(getattr(ext, mode), fallback, fn, number_fn, third, tuple(direct), tuple(numeric), result_dt)
    f.__dict__.update(getattr(fallback, '__dict__', {}))
    for name in ('__module__', '__name__', '__qualname__', '__doc__'):
        setattr(f, name, getattr(fallback, name, None))
    f.__wrapped__ = fallback  # (inspect.signature reads the Python function's)
    return f
