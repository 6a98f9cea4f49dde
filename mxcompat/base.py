"""Errors and small helpers shared across mxcompat (MXNet's ``mxnet.base``).

Differs from MXNet: besides ``MXNetError`` (a ``RuntimeError``), errors that MXNet reports as ``ValueError``/
``TypeError``/``IndexError``/``KeyError``/``NotImplementedError`` are raised here as classes that subclass *both*
``MXNetError`` and the matching Python error, so either ``except`` clause catches them.
"""
import ast
import ctypes
import os
import sys
import time

import numpy as np

__all__ = ['MXNetError', 'MXNetValueError', 'MXNetTypeError', 'MXNetIndexError', 'MXNetKeyError',
           'MXNetNotImplementedError',
           'NotImplementedForSymbol', 'NotSupportedForSparseNDArray', 'string_types', 'numeric_types',
           'integer_types', 'py_str', 'data_dir']

string_types = (str,)
numeric_types = (float, int, np.generic)
mx_real_t = np.float32  # MXNet's default real type
integer_types = (int, np.integer)
py_str = lambda x: x.decode('utf-8') if isinstance(x, bytes) else x  # noqa: E731


class MXNetError(RuntimeError):
    """The error MXNet raises; a ``RuntimeError``."""


class MXNetValueError(MXNetError, ValueError):
    """An ``MXNetError`` that is also a ``ValueError`` (bad argument value)."""


class MXNetTypeError(MXNetError, TypeError):
    """An ``MXNetError`` that is also a ``TypeError`` (bad argument type or dtype)."""


class MXNetIndexError(MXNetError, IndexError):
    """An ``MXNetError`` that is also an ``IndexError``."""


class MXNetKeyError(MXNetError, KeyError):
    """An ``MXNetError`` that is also a ``KeyError`` (an unknown name where MXNet's frontend raises ``KeyError``)."""


class MXNetAssertionError(MXNetValueError, AssertionError):
    """A failed check that MXNet makes with ``assert``: catchable as ``AssertionError`` or ``MXNetValueError``."""


class MXNetNotImplementedError(MXNetError, NotImplementedError):
    """Raised for an MXNet API or argument that mxcompat does not support (yet); the message names it."""


class _AttributeGap(MXNetNotImplementedError, AttributeError):
    """A module or object attribute that is not there: an AttributeError (so ``hasattr`` and ``getattr`` with a
    default answer as with MXNet) that also names the gap, as a known gap's error does."""


class _NotAvailableFor(MXNetError):
    """A function called on a kind of array it does not work on; names the function, the operator, the args."""

    _kind = ''

    def __init__(self, function, alias, *args):
        super().__init__()
        self.alias = alias
        self.args = list(map(lambda a: str(type(a)), args))
        self.function = str(getattr(function, '__name__', function))

    def __str__(self):
        # e.g. 'Function f (namely operator "op") with arguments (<class ...>) is not ...'
        parts = ['Function ' + str(self.function)]
        parts += [' (namely operator "%s")' % (self.alias,)] if self.alias else []
        parts += [' with arguments (%s)' % ', '.join(self.args)] if self.args else []
        return ''.join(parts) + self._kind


class NotImplementedForSymbol(_NotAvailableFor):
    """Raised when a function is called on a Symbol that only works on NDArray."""

    _kind = ' is not implemented for Symbol and only available in NDArray.'


class NotSupportedForSparseNDArray(_NotAvailableFor):
    """Raised when a function is called on a sparse NDArray that only works on dense ones."""

    _kind = ' is not supported for SparseNDArray and only available in NDArray.'


def cpp_log(where, fmt, *args):
    """Print a line where MXNet's C++ core logs one (dmlc ``LOG(INFO)``): to stderr as ``[HH:MM:SS] where: text``,
    ``where`` being MXNet's source location. Unlike ``logging.info``, this leaves Python's logging unconfigured,
    so a script's later ``logging.basicConfig(level=...)`` still takes effect, as it does with MXNet."""
    sys.stderr.write('[%s] %s: %s\n' % (time.strftime('%H:%M:%S'), where, fmt % args if args else fmt))


def unsupported(api, what, why=''):
    """Build the error for a known gap: names the MXNet API and the argument or feature."""
    return MXNetNotImplementedError('%s: %s is not supported by mxcompat%s' % (api, what, ('; ' + why) if why else ''))


def missing_attribute(api, what, why=''):
    """``unsupported`` for an attribute lookup (a module's or an object's ``__getattr__``): also an AttributeError."""
    return _AttributeGap('%s: %s is not supported by mxcompat%s' % (api, what, ('; ' + why) if why else ''))


# ---- MXNet's C API names (``mxnet.base``): the ctypes types, handles and helpers are ctypes' own; the library is not
# there, so a call into ``_LIB`` raises naming the function (code that only imports these names runs)
mx_int, mx_uint, mx_float = ctypes.c_int, ctypes.c_uint, ctypes.c_float
mx_float_p = ctypes.POINTER(mx_float)
NDArrayHandle = FunctionHandle = OpHandle = CachedOpHandle = SymbolHandle = ExecutorHandle = ctypes.c_void_p
DataIterCreatorHandle = DataIterHandle = KVStoreHandle = RecordIOHandle = RtcHandle = ctypes.c_void_p
CudaModuleHandle = CudaKernelHandle = ProfileHandle = DLPackHandle = ctypes.c_void_p


class _NoLib:
    """``mxnet.base._LIB``: MXNet's C library, which mxcompat does not have (its API is Python over torch)."""

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        raise unsupported('mxnet.base._LIB.%s' % name, "MXNet's C API", 'mxcompat has no libmxnet; use the Python API')


_LIB = _NoLib()


def check_call(ret):
    """MXNet's check of a C API return code: nonzero raises MXNetError (no C call of mxcompat returns one)."""
    if ret != 0:
        raise MXNetError('MXNet C API call returned %r' % (ret,))


def c_str(string):
    """``string`` as a NUL-terminated C string (ctypes.c_char_p of its UTF-8 bytes)."""
    return ctypes.c_char_p(string.encode('utf-8'))


def c_str_array(strings):
    """A ctypes array of C strings."""
    return (ctypes.c_char_p * len(strings))(*[s.encode('utf-8') for s in strings])


def c_array(ctype, values):
    """A ctypes array of ``ctype`` holding ``values``."""
    return (ctype * len(values))(*values)


def c_array_buf(ctype, buf):
    """A ctypes array of ``ctype`` over the buffer ``buf`` (no copy)."""
    return (ctype * len(buf)).from_buffer(buf)


def data_dir_default():
    """MXNet's default data directory (``~/.mxnet``)."""
    return os.path.join(os.path.expanduser('~'), '.mxnet')


def data_dir():
    """The data directory: ``$MXNET_HOME`` or ``~/.mxnet``."""
    return os.getenv('MXNET_HOME', data_dir_default())


def _as_list(obj):
    """A list/tuple stays as it is; anything else becomes a one-element list."""
    return obj if isinstance(obj, (list, tuple)) else [obj]


# ---- MXNet-style attribute parsing: operators accept attributes as Python values or as the strings
# ---- that symbol JSON stores ('(2, 3)', 'True', '0.5', 'float32', 'None').

def parse_bool(v):
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ('true', '1'):
            return True
        if s in ('false', '0'):
            return False
        raise MXNetValueError('Invalid boolean attribute %r' % v)
    return bool(v)


def parse_tuple(v, allow_none=True):
    """'(2, 3)', '[2,3]', '2', (2, 3), 2 -> (2, 3) / (2,); 'None' -> None."""
    if v is None:
        return None
    if isinstance(v, str):
        s = v.strip()
        if s in ('None', ''):
            return None if allow_none else ()
        v = ast.literal_eval(s.replace('L', '') if s[-1:] in ')]' else s)
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(None if x is None else int(x) for x in v)


def parse_float_tuple(v):
    if v is None:
        return None
    if isinstance(v, str):
        s = v.strip()
        if s in ('None', ''):
            return None
        v = ast.literal_eval(s)
    if isinstance(v, (int, float, np.number)):
        return (float(v),)
    return tuple(float(x) for x in v)


def parse_optional_int(v):
    if v is None or (isinstance(v, str) and v.strip() in ('None', '')):
        return None
    return int(float(v)) if isinstance(v, str) else int(v)


def parse_optional_float(v):
    if v is None or (isinstance(v, str) and v.strip() in ('None', '')):
        return None
    return float(v)


def parse_int_or_tuple(v):
    """An axis argument: int, tuple of ints, '(0,1)', '1', 'None' or ()."""
    if v is None:
        return None
    if isinstance(v, str):
        s = v.strip()
        if s in ('None', ''):
            return None
        v = ast.literal_eval(s)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return tuple(int(x) for x in v)


# ---- dtypes: MXNet names them as numpy types ('float32', np.float32, np.dtype); data lives in torch dtypes.
import torch  # noqa: E402  (kept below the pure-Python helpers on purpose: they are usable without torch)

_NP2TORCH = {
    np.dtype('float32'): torch.float32, np.dtype('float64'): torch.float64, np.dtype('float16'): torch.float16,
    np.dtype('uint8'): torch.uint8, np.dtype('int8'): torch.int8, np.dtype('int16'): torch.int16,
    np.dtype('int32'): torch.int32, np.dtype('int64'): torch.int64, np.dtype('bool'): torch.bool,
    np.dtype('uint16'): torch.uint16, np.dtype('uint32'): torch.uint32, np.dtype('uint64'): torch.uint64,
}
_TORCH2NP = {v: k.type for k, v in _NP2TORCH.items()}
_TORCH2NP[torch.bfloat16] = np.float32  # numpy has no bfloat16; reported as its storage-free float32 cousin
_NAME2TORCH = {k.name: v for k, v in _NP2TORCH.items()}
_NAME2TORCH['bfloat16'] = torch.bfloat16
BFLOAT16_MARKER = np.dtype([('bfloat16', np.uint16)])  # MXNet's numpy marker for bfloat16 (amp.bfloat16)
_NP2TORCH[BFLOAT16_MARKER] = torch.bfloat16
# MXNet's integer dtype flags (mshadow type codes), used by the file formats and infer_type; bfloat16's (12) has no
# numpy type of its own
DTYPE_MX2NP = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32, 5: np.int8, 6: np.int64,
               7: np.bool_, 8: np.int16, 9: np.uint16, 10: np.uint32, 11: np.uint64}
BFLOAT16_CODE = 12
DTYPE_NP2MX = {np.dtype(v): k for k, v in DTYPE_MX2NP.items()}
FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def _np_dtype_or_none(name):
    try:
        return np.dtype(name)
    except TypeError:
        return None


def to_torch_dtype(dtype, default=torch.float32):
    """Any MXNet dtype spelling (None, 'float32', np.float32, np.dtype, torch.dtype, bool) -> torch.dtype."""
    if dtype is None:
        return default
    if isinstance(dtype, torch.dtype):
        return dtype
    if isinstance(dtype, str):
        t = _NAME2TORCH.get(dtype)
        if t is None:
            if dtype in ('None', ''):
                return default
            t = _NP2TORCH.get(_np_dtype_or_none(dtype))  # other numpy spellings ('half', 'f4'), as MXNet's frontend
            if t is None:
                raise MXNetTypeError('Unknown dtype %r; MXNet accepts %s' % (dtype, ', '.join(sorted(_NAME2TORCH))))
        return t
    try:
        return _NP2TORCH[np.dtype(dtype)]
    except (TypeError, KeyError):
        raise MXNetTypeError('Unknown dtype %r' % (dtype,)) from None


def to_np_dtype(tdtype):
    """torch.dtype -> the numpy type class MXNet reports (np.float32, ...)."""
    return _TORCH2NP[tdtype]


def from_host(a):
    """A CPU tensor of the numpy array ``a``: sharing its buffer where ``a`` is C-contiguous and writable, else of a
    C-ordered copy (which keeps a 0-d array 0-d, as ``np.ascontiguousarray`` does not). Unlike ``torch.from_numpy``
    it takes a contiguous array with a negative stride on a length-1 axis (``x[:, ::-1]`` of a column: NumPy calls
    it contiguous, torch refuses any negative stride)."""
    if not (a.flags.c_contiguous and a.flags.writeable):
        return torch.from_numpy(a.copy(order='C'))
    if 1 in a.shape and min(a.strides) < 0:
        return torch.from_numpy(a.reshape(-1)).view(a.shape)  # (the same memory, read with standard strides)
    return torch.from_numpy(a)


def device_values(values, dtype, device):
    """A 1-D tensor of the Python numbers ``values`` on ``device``. A CUDA one is copied from pinned memory without
    waiting: ``torch.tensor(values, device='cuda')`` waits for everything queued on the device first."""
    t = torch.tensor(values, dtype=dtype)
    if device.type != 'cuda':
        return t.to(device)
    return t.pin_memory().to(device, non_blocking=True)


def dtype_name(tdtype):
    """torch.dtype -> MXNet's name for it ('float32')."""
    return 'bfloat16' if tdtype is torch.bfloat16 else np.dtype(_TORCH2NP[tdtype]).name


def incompatible_attr(op, index, expected, got, error=MXNetTypeError, note=''):
    """MXNet's type or shape inference error for input ``index`` of operator ``op`` (``error``: MXNetTypeError for
    dtypes, MXNetValueError for shapes)."""
    return error('Operator %s: Incompatible attr in node at %d-th input: expected %s, got %s%s'
                 % (op, index, expected, got, note))
