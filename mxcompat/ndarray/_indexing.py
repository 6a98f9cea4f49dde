"""The analysis of NDArray index keys: MXNet's keys (NDArrays, lists, negative-step slices, integers among advanced
indices) translated into torch ones, and the writes through them that torch does not do as MXNet."""
import numpy as np
import torch

from .. import engine
from .._recording import STATE as _STATE
from ..base import MXNetIndexError, unsupported, from_host
from .ndarray import NDArray, _wrap, _NULL  # (ndarray.py imports this module at its end, once these exist)

_FULL = slice(None)


def _covers_all(key, shape):
    """Whether basic index ``key`` selects every element of an array of ``shape`` in order (positive steps);
    advanced indices never do."""
    items = key if type(key) is tuple else (key,)
    items = [k for k in items if k is not None]
    ell = [i for i, k in enumerate(items) if k is Ellipsis]
    if len(ell) > 1:
        return False
    if ell:
        items[ell[0]:ell[0] + 1] = [_FULL] * (len(shape) - len(items) + 1)
    if len(items) > len(shape):
        return False
    for k, n in zip(items, shape):
        if type(k) is slice:
            start, stop, step = k.indices(n)
            if step <= 0 or len(range(start, stop, step)) != n:
                return False
        elif not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and n == 1):
            return False
    return True


def _assign(t, k, v):
    if isinstance(v, torch.Tensor) and v.requires_grad and not _STATE.recording:
        v = v.detach()  # (outside record() the target joins no graph through a variable's value)
    if k is _FULL:
        if isinstance(v, torch.Tensor):
            t.copy_(v)
        else:
            t.fill_(v)
    elif not t.is_cpu and type(v) in (int, float, bool) and _basic(k):
        t[k].fill_(v)  # (a scalar into a device array: a fill kernel, no value tensor made on the host)
    else:
        t[k] = v
        if type(v) is engine.FailedTensor:  # (torch routes only the target through __torch_function__ here)
            engine.taint(t, v)


def _basic(k):
    """Whether torch key ``k`` holds only integers, slices, None and Ellipsis (``t[k]`` is a view)."""
    items = k if type(k) is tuple else (k,)
    return all(i is None or i is Ellipsis or type(i) is slice or (isinstance(i, (int, np.integer))
                                                                   and not isinstance(i, bool)) for i in items)


def _begin_end_key(begin, end, step):
    step = step or [None] * len(begin)
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))


def _index_key(key, t):
    """Translate an MXNet index into a torch one: NDArrays and lists become integer tensors."""
    if key is _FULL or type(key) is int:
        return key
    if type(key) is slice:
        return key
    if isinstance(key, NDArray):
        return key._t.long()
    if isinstance(key, tuple):
        if any(isinstance(k, (NDArray, list, np.ndarray)) for k in key):
            return _ints_as_advanced(
                tuple(_index_key(k, t) if isinstance(k, (NDArray, list, np.ndarray)) else k for k in key), t.device)
        return key
    if isinstance(key, (list, np.ndarray)):
        return from_host(np.asarray(key)).to(t.device).long()
    if isinstance(key, np.integer):
        return int(key)
    return key


def _ints_as_advanced(items, dev):
    """A torch index tuple (or list) with the integers among its advanced (tensor) indices made 1-element tensors.
    NumPy and MXNet count an integer in a key holding an advanced index as advanced too, so advanced indices that
    a slice, None or Ellipsis separates put their broadcast axes first; torch selects integers first, as basic
    indices (0-d tensors too). The two agree when the integers and tensors form one run of the key, or no tensor
    has axes: such keys come back as they are."""
    for k in items:  # (the common keys, without tensors, return at once)
        if isinstance(k, torch.Tensor):
            break
    else:
        return items
    first = last = -1
    n_adv = 0
    has_scalar = has_arr = False
    for pos, k in enumerate(items):
        if isinstance(k, torch.Tensor):
            if k.dim():
                has_arr = True
            elif k.dtype is torch.bool:
                continue
            else:
                has_scalar = True
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            has_scalar = True
        else:
            continue
        if first < 0:
            first = pos
        last = pos
        n_adv += 1
    if not (has_arr and has_scalar) or last - first + 1 == n_adv:
        return items
    new = [k if type(k) is slice or k is None or k is Ellipsis
           else (k.reshape(1) if k.dim() == 0 and k.dtype is not torch.bool else k) if isinstance(k, torch.Tensor)
           else torch.tensor([int(k)], device=dev) if not isinstance(k, (bool, np.bool_)) else k for k in items]
    return tuple(new) if type(items) is tuple else new


def _has_neg_step(key):
    if type(key) is slice:
        return key.step is not None and key.step < 0
    return isinstance(key, tuple) and any(type(k) is slice and k.step is not None and k.step < 0 for k in key)


def _has_advanced(key):
    return isinstance(key, tuple) and any(isinstance(k, (NDArray, list, np.ndarray)) for k in key)


def _unflip_key(key, shape):
    """A tuple key with negative-step slices and advanced indices -> (the key for the array flipped along those
    slices' axes, the slices now with positive steps; the axes to flip). Slices stay slices, so the axes the
    advanced indices give land where they would."""
    for k in key:
        if (isinstance(k, (NDArray, np.ndarray)) and np.dtype(k.dtype) == np.bool_) or (
                type(k) is list and any(type(e) is bool for e in k)):
            raise unsupported('NDArray indexing', 'a negative-step slice combined with a boolean index')
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_axes > len(shape):
        raise MXNetIndexError('too many indices (%d) for array with %d dimensions' % (n_axes, len(shape)))
    ell = [i for i, k in enumerate(key) if k is Ellipsis]
    if ell:
        key = key[:ell[0]] + (slice(None),) * (len(shape) - n_axes) + key[ell[0] + 1:]
    new, axes, axis = [], [], 0
    for k in key:
        if k is not None:
            if type(k) is slice and k.step is not None and k.step < 0:
                n = shape[axis]
                idx = range(*k.indices(n))
                k = slice(n - 1 - idx[0], n - idx[-1], -k.step) if len(idx) else slice(0, 0)
                axes.append(axis)
            axis += 1
        new.append(k)
    return tuple(new), axes


def _assign_flipped(arr, key, value):
    """``arr[key] = value`` for a key with negative-step slices and advanced indices: written into a copy of the
    array flipped along those slices' axes, through positive steps, then copied back."""
    t = arr._t
    key, axes = _unflip_key(key, t.shape)
    tmp = _wrap(t.flip(axes), arr._ctx)
    tmp[key] = value
    with torch.no_grad() if t.requires_grad and not _STATE.recording else _NULL:
        t.copy_(tmp._t.flip(axes))


def _flipped_value(key, v, t):
    """A basic key with negative-step slices and the value assigned through it -> (the key with positive steps,
    the value broadcast to the indexed shape and flipped to match)."""
    key, flips = _positive_steps(key, t.shape)
    view_shape = t[key].shape
    v = (v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=t.dtype, device=t.device))
    extra = v.dim() - len(view_shape)
    if extra > 0 and all(d == 1 for d in v.shape[:extra]):  # leading size-1 axes drop, as without flips
        v = v.reshape(v.shape[extra:])
    return key, v.expand(view_shape).flip(flips)


def _positive_steps(key, shape):
    """A basic key (no advanced indices) with negative-step slices -> (same key with positive steps, output axes
    to flip)."""
    key = key if isinstance(key, tuple) else (key,)
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - n_axes) + key[i + 1:]
    new, flips, axis, out_axis = [], [], 0, 0
    for k in key:
        if k is None:
            new.append(k)
            out_axis += 1
            continue
        if type(k) is slice and k.step is not None and k.step < 0:
            idx = range(*k.indices(shape[axis]))
            k = slice(idx[-1], idx[0] + 1, -k.step) if len(idx) else slice(0, 0)
            flips.append(out_axis)
        new.append(k)
        axis += 1
        if type(k) is slice:
            out_axis += 1
    return tuple(new), flips
