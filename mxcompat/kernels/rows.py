"""CPU rules for the rows of a sparse gradient: summing a COO gradient's entries per row, and writing rows back
into a big table (a lazy update's weight and states).

A 1M x 64 embedding's training step on one thread looks up 2048 rows; its gradient holds 2045 distinct ones.
Summing them through torch (sort, boolean masks, ``index_add_`` into zeros) took ~96 us; here (a sort of packed
keys, numpy's ``take`` and, for the repeated rows only, ``np.add.at``) ~45 us. Writing 2045 rows of 64 float32
into a 1M-row table on huge pages: ``index_copy_`` ~50 us (its indexing loop runs per value), numpy's row
assignment ~20 us; ``index_add_`` ~33 us against a gather, the kernel's own add and that assignment.

The functions take CPU tensors with ``config.cpu_fast_paths`` on (``mxcompat.kernels`` checks) and return None
where their rule does not apply; the values are the bits of the torch forms in ``ndarray/sparse``.
"""
import numpy as np
import torch

from ._tracing import untraced

__all__ = ['summed_rows', 'put_rows']

_FLOATS = (torch.float32, torch.float64)
_NUMPY = {torch.float32: np.float32, torch.float64: np.float64, torch.int64: np.int64, torch.int32: np.int32,
          torch.float16: np.float16, torch.int8: np.int8, torch.uint8: np.uint8, torch.bool: np.bool_}


def _plain(t):
    """Whether ``t`` is a plain (not traced, not recorded) dense tensor numpy can view."""
    return (t.layout == torch.strided and t.dtype in _NUMPY and not t.requires_grad and untraced(t))


def _sort_keys(r):
    """(order, sorted keys) of the 1-D int64 array ``r``, the order stable: one sort of packed (key, position)
    values, ~6 us for 2048 keys against ~17 for numpy's stable argsort; that argsort where a key is negative or
    the packed values would overflow int64."""
    n = r.size
    bits = max(n - 1, 1).bit_length()
    if not n or r.min() < 0 or r.max() >= (1 << (62 - bits)):
        order = np.argsort(r, kind='stable')
        return order, r[order]
    packed = np.left_shift(r, bits)
    packed |= np.arange(n, dtype=np.int64)
    packed.sort()
    return packed & ((1 << bits) - 1), packed >> bits


def summed_rows(rows, values):
    """``ndarray.sparse.storage.summed_rows`` of the COO gradient with these row indices (int64 ``(n,)``) and
    values (float32 or float64 ``(n, ...)``): (distinct rows sorted, their sums), each row's entries added to zero
    in their order. None where the rule does not apply."""
    if not (rows.dtype == torch.int64 and rows.dim() == 1 and values.dtype in _FLOATS and values.dim() >= 1
            and values.shape[0] == rows.numel() and rows.numel() and _plain(rows) and _plain(values)
            and rows.is_cpu and values.is_cpu):
        return None
    r, v = rows.numpy(), values.numpy()  # host: CPU tensors (checked above)
    order, ordered = _sort_keys(r)
    n = r.size
    first = np.empty(n, np.bool_)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    single = bool(first.all())
    lead = order if single else order[first]
    total = v.take(lead, axis=0)
    total += v.dtype.type(0)  # (the sum starts from zero: an entry -0.0 alone sums to +0.0)
    if not single:
        later = ~first
        ordered, repeated = ordered[first], ordered[later]
        slot = np.searchsorted(ordered, repeated)  # (few repeats: cheaper than a running count of every entry)
        np.add.at(total, slot, v.take(order[later], axis=0))  # (in order, one entry after another)
    return torch.from_numpy(ordered), torch.from_numpy(total)


def put_rows(dst, rows, src):
    """``dst.index_copy_(0, rows, src)`` for distinct ``rows``, as numpy's row assignment; returns ``dst``, or None
    where the rule does not apply (``dst`` not a contiguous CPU tensor numpy can view, dtypes differ)."""
    if not (dst.is_cpu and src.is_cpu and rows.is_cpu and dst.dtype == src.dtype and dst.dim() >= 1
            and rows.dtype == torch.int64 and dst.is_contiguous() and dst.layout == torch.strided
            and dst.dtype in _NUMPY and untraced(dst) and _plain(rows) and src.layout == torch.strided):
        return None
    d = dst.detach()
    d.numpy()[rows.numpy()] = src.detach().numpy()  # host: CPU tensors (checked above)
    torch.autograd.graph.increment_version(dst)
    return dst
