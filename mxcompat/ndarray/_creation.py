"""Creating NDArrays (``array``, ``zeros``, ``arange`` ...) and converting them from and to numpy, torch and DLPack.
Every name here is exported by ``ndarray.py`` too (MXNet's ``mxnet.ndarray.ndarray.zeros`` ...)."""
import numpy as np
import torch

from ..base import MXNetError, MXNetValueError, MXNetTypeError, to_torch_dtype, to_np_dtype, from_host
from ..context import Context, current_context, cpu
from ..util import _np_shape_level
from ..operator.elemwise import scalar_as
from ..operator.init_ops import arange_values, eye_values, linspace_values
from .ndarray import NDArray, _wrap, _object_new  # (ndarray.py imports this module at its end)

_F32 = torch.float32
_default_dtype = torch.get_default_dtype
_function_mode_on = torch._C._is_torch_function_mode_enabled

# The sparse package (it imports ndarray.py): mxcompat/ndarray/__init__.py binds it here once imported, as it does
# for ndarray.py.
_sparse = None


def _device_ctx(ctx):
    if ctx is None:
        ctx = current_context()
    elif isinstance(ctx, str):
        name, _, rest = ctx.partition('(')
        ctx = Context(name, int(rest.rstrip(')') or 0))
    return ctx, ctx.torch_device


def array(source_array, ctx=None, dtype=None):
    """A new NDArray from an array-like. The dtype defaults to float32, or to the source's for an NDArray."""
    ctx, dev = _device_ctx(ctx)
    if isinstance(source_array, NDArray):
        if getattr(source_array, '_np_array', False):  # (MXNet's legacy array() refuses mx.np arrays)
            raise MXNetTypeError('mx.nd.array: got an mx.np.ndarray; call its as_nd_ndarray()')
        if type(source_array) is not NDArray and source_array.stype != 'default':  # a sparse copy  [sparse hook]
            return _sparse.array(source_array, ctx=ctx, dtype=dtype)
        td = source_array._t.dtype if dtype is None else to_torch_dtype(dtype)
        return _wrap(source_array._t.detach().to(device=dev, dtype=td, copy=True), ctx)
    td = to_torch_dtype(dtype)
    if isinstance(source_array, torch.Tensor):
        return _wrap(source_array.detach().to(device=dev, dtype=td, copy=True), ctx)
    if not isinstance(source_array, np.ndarray):
        try:
            source_array = np.array(source_array, dtype=to_np_dtype(td) if td is not torch.bfloat16 else None)
        except Exception:
            if type(source_array).__module__.startswith('scipy.sparse'):  # a csr copy, as MXNet  [sparse hook]
                return _sparse.array(source_array, ctx=ctx, dtype=dtype)
            raise MXNetTypeError('source_array must be array like object, got %s' % type(source_array)) from None
    if source_array.dtype == object:
        raise MXNetTypeError('source_array must be array like object')
    return _wrap(from_host(source_array).to(device=dev, dtype=td, copy=True), ctx)


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array (float32 unless ``dtype``)."""
    if stype not in (None, 'default'):
        return _sparse.zeros(stype, shape, ctx=ctx, dtype=dtype)
    ctx, dev = _device_ctx(ctx)
    return _wrap(torch.empty(_shape(shape), dtype=to_torch_dtype(dtype), device=dev), ctx)


def cast_storage(data, stype, out=None, name=None):
    """``data`` with storage type ``stype`` ('default', 'row_sparse', 'csr') as a new array.  [sparse hook]"""
    return _sparse.cast_storage(data, stype, out=out, name=name)


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros (float32 unless ``dtype``). As in MXNet, a zero-size or 0-d shape needs NumPy shape
    semantics."""
    if stype not in (None, 'default'):
        return _sparse.zeros(stype, shape, ctx=ctx, dtype=dtype, **kwargs)
    return _filled('zeros', torch.zeros, 0, shape, ctx, dtype, kwargs)


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones (float32 unless ``dtype``). As in MXNet, a zero-size or 0-d shape needs NumPy shape
    semantics."""
    return _filled('ones', torch.ones, 1, shape, ctx, dtype, kwargs)


def _check_known(op, shape):
    """MXNet's legacy shape semantics: a creation op's shape with a 0 (or ``()``) is unknown, so its shape
    inference fails; under NumPy shape semantics those are zero-size and 0-d arrays."""
    dims = _shape(shape)
    if (not dims or 0 in dims) and not _np_shape_level():
        raise MXNetError('Operator %s inferring shapes failed: shape %s is unknown under legacy shape semantics '
                         '(0 and () mean unknown); turn on NumPy shape semantics (mx.np_shape(True)) for '
                         'zero-size and 0-d arrays' % (op, dims))


def _filled(name, make, value, shape, ctx, dtype, kwargs):
    if type(shape) is tuple:
        if not shape or 0 in shape:
            _check_known('_' + name, shape)
    elif type(shape) is not int or shape == 0:
        _check_known('_' + name, shape)  # (a shape given as a list or numpy values is checked once converted)
    if dtype is None and not kwargs and (ctx is None or type(ctx) is Context) and _default_dtype() is _F32:
        # hot path: the default dtype, a Context or the default one (torch parses separate sizes faster than a
        # tuple: zeros(8, 8) costs 70% of zeros((8, 8)); and a device keyword only where one is needed)
        c = ctx if ctx is not None else (Context._default_ctx.value or current_context())
        dev = c.torch_device if c.device_typeid == 2 else None
        t = None
        if type(shape) is tuple and shape and not _function_mode_on():
            try:
                t = make(*shape) if dev is None else make(*shape, device=dev)
            except TypeError:
                pass
        if t is None:
            t = make(shape) if dev is None else make(shape, device=dev)
        a = _object_new(NDArray)
        a._t = t
        a._ctx = c
        return a
    out = kwargs.pop('out', None)
    if kwargs:
        _no_kwargs(name, kwargs)
    if out is not None:
        out[:] = value
        return out
    ctx, dev = _device_ctx(ctx)
    if dtype is None and dev.type == 'cpu' and _default_dtype() is _F32:
        return _wrap(make(shape), ctx)  # the common case, without torch's slower keyword parsing
    return _wrap(make(shape, dtype=to_torch_dtype(dtype), device=dev), ctx)


def full(shape, val, ctx=None, dtype=None, out=None):
    """An array filled with ``val`` (float32 unless ``dtype``)."""
    if out is not None:
        out[:] = val
        return out
    dims = _shape(shape)
    if not dims:
        _check_known('_full', dims)  # (as in MXNet, a zero-size shape is filled: nothing to infer)
    ctx, dev = _device_ctx(ctx)
    td = to_torch_dtype(dtype)
    return _wrap(torch.full(dims, scalar_as(val, td), dtype=td, device=dev), ctx)


def _no_kwargs(name, kwargs):
    if kwargs:
        raise MXNetTypeError('%s: unknown arguments %s' % (name, ', '.join(sorted(kwargs))))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times (float32 unless ``dtype``)."""
    ctx, dev = _device_ctx(ctx)
    return _wrap(arange_values(start, stop, step, repeat, to_torch_dtype(dtype), dev), ctx)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-D array with ones on the k-th diagonal."""
    _no_kwargs('eye', kwargs)
    ctx, dev = _device_ctx(ctx)
    return _wrap(eye_values(N, M, k, to_torch_dtype(dtype), dev), ctx)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """``num`` evenly spaced values from start to stop."""
    ctx, dev = _device_ctx(ctx)
    return _wrap(linspace_values(start, stop, num, endpoint, to_torch_dtype(dtype), dev), ctx)


def concatenate(arrays, axis=0, always_copy=True):
    """Join arrays along an existing axis."""
    if not arrays:
        raise MXNetValueError('concatenate: need at least one array')
    if len(arrays) == 1 and not always_copy:
        return arrays[0]
    return _wrap(torch.cat([a._t for a in arrays], dim=axis), arrays[0]._ctx)


def moveaxis(tensor, source, destination):
    """Move axes of an array to new positions."""
    src = source if isinstance(source, int) else tuple(source)
    dst = destination if isinstance(destination, int) else tuple(destination)
    try:
        return _wrap(torch.movedim(tensor._t, src, dst).contiguous(), tensor._ctx)
    except (IndexError, RuntimeError, TypeError) as e:  # (TypeError: an int with a list)
        raise MXNetValueError('moveaxis: source %s / destination %s invalid for an array of ndim %d (%s)'
                              % (source, destination, tensor.ndim, str(e).splitlines()[0])) from None


def onehot_encode(indices, out):
    """One-hot encode ``indices`` into ``out`` (deprecated in MXNet; use ``one_hot``)."""
    n = out.shape[1]
    out[:] = 0
    out._t.scatter_(1, indices._t.long().reshape(-1, 1), 1)
    del n
    return out


def from_numpy(ndarray, zero_copy=True):
    """An NDArray sharing memory with a C-contiguous numpy array (``zero_copy``), else a copy."""
    if not isinstance(ndarray, np.ndarray):
        raise MXNetTypeError('from_numpy: expected a numpy.ndarray, got %s' % type(ndarray))
    if zero_copy:
        if not ndarray.flags['C_CONTIGUOUS']:
            raise MXNetValueError('from_numpy: zero_copy needs a C-contiguous array')
        t = torch.from_numpy(ndarray.reshape(-1)).view(ndarray.shape)  # (flat first: a length-1 axis may have a
        # negative stride, which torch refuses)
        ndarray.flags.writeable = False  # as MXNet: the NDArray now owns the memory; numpy may only read it
        return _wrap(t, cpu(0))
    return array(ndarray, dtype=ndarray.dtype)


def from_torch(tensor, ctx=None):
    """An NDArray sharing memory with ``tensor`` (no copy). mxcompat only."""
    return NDArray(tensor, ctx)


def from_dlpack(dlpack):
    """An NDArray sharing memory with a DLPack capsule or an object exposing ``__dlpack__``."""
    return NDArray(torch.utils.dlpack.from_dlpack(dlpack))


def to_dlpack_for_read(data):
    return data.to_dlpack_for_read()


def to_dlpack_for_write(data):
    return data.to_dlpack_for_write()
