"""Byte-compatible reading and writing of MXNet's NDArray files (``mx.nd.save``/``mx.nd.load``, Gluon ``.params``).

The layout, as MXNet 1.9.1 writes and reads it (``src/ndarray/ndarray.cc``, ``include/mxnet/tuple.h``,
``include/mxnet/base.h`` and dmlc-core's ``serializer.h``); every integer is little-endian:

file
    u64 0x112 (list magic), u64 reserved (written 0, never checked), u64 number of arrays, the array records,
    u64 number of names, then each name as u64 byte length + UTF-8 bytes. No names -> a list; otherwise there
    must be exactly one name per array -> a dict. Bytes after the names are ignored, as MXNet does.
shape (TShape)
    i32 ndim, then ndim x i64; ndim -1 (or a dimension of -1) means "unknown" in np-shape semantics.
array record, V2 (u32 0xF993FAC9, MXNet >= 0.12's default) and V3 (u32 0xF993FACA, written while np-shape
semantics are on)
    i32 storage type (0 dense, 1 row_sparse, 2 csr); for sparse the storage shape (the shape of the stored
    values); the shape; and when that shape means "none" (V2: ndim 0, V3: unknown) the record ends here.
    Then the context (i32 dev_type, i32 dev_id: cpu(0) is 1, 0), i32 type flag, for sparse one
    (i32 aux type flag, aux shape) pair per aux array, the values (storage shape, or shape when dense), and for
    sparse each aux array's values. csr's aux arrays are (indptr, indices), row_sparse's (indices,).
    V3 is V2 with numpy shape rules: 0-d and zero-size shapes are ordinary arrays; MXNet refuses sparse in V3.
array record, V1 (u32 0xF993FAC8, MXNet 0.11) and V0 (no magic, MXNet <= 0.10); read only
    dense only: shape, context, type flag, values. V0's shape is u32 ndim + ndim x u32 (its first word is the
    ndim, which is how a record with none of the magics is recognised). ndim 0 means "none".

A "none" array (MXNet's ``NDArray()``, no storage) loads as ``None``. MXNet 1.9.1 itself cannot save one
(``Unknown storage type-1``) and its Python ``load`` refuses one; ``dumps`` writes ``None`` as the V2 none record.
"""
import math
import os
import struct
import sys
from typing import NamedTuple

import numpy as np
import torch

from .._fileio import MXNetFileNotFoundError, get_fsspec, path_of, write_atomic
from ..base import MXNetError, MXNetTypeError, MXNetValueError, from_host
from ..util import _NP_SHAPE_OFF, _NP_SHAPE_THREAD

__all__ = ['SparseRecord', 'MXNetFileNotFoundError', 'dumps', 'loads', 'save_file', 'load_file',
           'dumps_record', 'loads_record']

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA

# mshadow::TypeFlag -> (MXNet dtype name, torch dtype). 8-11 are defined by mshadow but MXNet 1.9.1 cannot
# size them (its save/load fails with "Unknown type enum"); MXNet 2.x reads and writes them. torch < 2.3 has
# no uint16/uint32/uint64 (None here: such records then fail to load with a message saying so).
DTYPE_FLAGS = {
    0: ('float32', torch.float32),
    1: ('float64', torch.float64),
    2: ('float16', torch.float16),
    3: ('uint8', torch.uint8),
    4: ('int32', torch.int32),
    5: ('int8', torch.int8),
    6: ('int64', torch.int64),
    7: ('bool', torch.bool),
    8: ('int16', torch.int16),
    9: ('uint16', getattr(torch, 'uint16', None)),
    10: ('uint32', getattr(torch, 'uint32', None)),
    11: ('uint64', getattr(torch, 'uint64', None)),
    12: ('bfloat16', torch.bfloat16),
}
_FLAG_OF_TORCH = {td: flag for flag, (_, td) in DTYPE_FLAGS.items() if td is not None}
_INT_FLAGS = frozenset((3, 4, 5, 6, 8, 9, 10, 11))
_INT64_FLAG = 6

_STYPES = {0: 'default', 1: 'row_sparse', 2: 'csr'}
_STYPE_CODE = {'row_sparse': 1, 'csr': 2}
_NUM_AUX = {0: 0, 1: 1, 2: 2}
_DEV_TYPES = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
_CPU0 = struct.pack('<ii', 1, 0)

_LITTLE = sys.byteorder == 'little'


class SparseRecord(NamedTuple):
    """A row_sparse or csr array as stored in the file.

    ``data`` holds the stored values (csr: ``(nnz,)``; row_sparse: ``(n_stored_rows,) + shape[1:]``);
    ``aux`` holds int64 tensors in MXNet's order: csr -> ``(indptr, indices)``, row_sparse -> ``(indices,)``.
    """
    stype: str
    shape: tuple
    data: torch.Tensor
    aux: tuple


# ---------------------------------------------------------------------------------------------------------
# writing

def _shape_bytes(shape):
    return struct.pack('<i%dq' % len(shape), len(shape), *shape)


def _raw_bytes(t):
    """The little-endian bytes of a CPU contiguous tensor, as a buffer sharing the tensor's memory."""
    if t.numel() == 0:
        return b''
    flat = t.reshape(-1)
    u8 = flat.view(torch.uint8).numpy()  # host: a CPU buffer
    if not _LITTLE and flat.element_size() > 1:
        u8 = u8.view('u%d' % flat.element_size()).byteswap().view(np.uint8)
    return u8.data


def _to_cpu_tensor(x, what):
    """``x`` as a CPU, contiguous, plain-strided tensor of a dtype MXNet's format has; ``what`` names it in errors."""
    if isinstance(x, np.ndarray):
        if x.dtype.byteorder not in ('=', '|'):
            x = x.astype(x.dtype.newbyteorder('='))
        try:
            x = from_host(np.ascontiguousarray(x))
        except TypeError as e:
            raise MXNetTypeError('cannot save %s: numpy dtype %s has no MXNet equivalent' % (what, x.dtype)) from e
    elif not isinstance(x, torch.Tensor):
        raise MXNetTypeError('cannot save %s: expected a torch.Tensor or SparseRecord, got %s'
                             % (what, type(x).__name__))
    t = x.detach()
    if t.layout != torch.strided:
        raise MXNetTypeError('cannot save %s: torch layout %s is not supported; pass a dense tensor or a '
                             'SparseRecord' % (what, t.layout))
    if t.dtype not in _FLAG_OF_TORCH:
        raise MXNetTypeError('cannot save %s: dtype %s has no MXNet type flag (supported: %s)'
                             % (what, t.dtype, ', '.join(str(td) for td in _FLAG_OF_TORCH)))
    if t.device.type != 'cpu':
        t = t.to('cpu')
    return t.resolve_neg().contiguous()


def _dense_chunks(t, magic):
    # magic, dense storage type, shape, cpu(0), type flag, values
    return [struct.pack('<Ii', magic, 0) + _shape_bytes(t.shape) + _CPU0 +
            struct.pack('<i', _FLAG_OF_TORCH[t.dtype]), _raw_bytes(t)]


def _sparse_chunks(rec, what):
    if rec.stype not in _STYPE_CODE:
        raise MXNetValueError("cannot save %s: SparseRecord stype must be 'row_sparse' or 'csr', got %r"
                              % (what, rec.stype))
    code = _STYPE_CODE[rec.stype]
    try:
        shape = tuple(int(d) for d in rec.shape)
    except (TypeError, ValueError) as e:
        raise MXNetValueError('cannot save %s: bad shape %r' % (what, rec.shape)) from e
    data = _to_cpu_tensor(rec.data, what + ' data')
    if not isinstance(rec.aux, (tuple, list)) or len(rec.aux) != _NUM_AUX[code]:
        raise MXNetValueError('cannot save %s: a %s record needs %d aux arrays (%s), got %r'
                              % (what, rec.stype, _NUM_AUX[code],
                                 'indptr, indices' if code == 2 else 'indices', rec.aux))
    aux = []
    for name, a in zip(('indptr', 'indices') if code == 2 else ('indices',), rec.aux):
        a = _to_cpu_tensor(a, '%s %s' % (what, name))
        if a.is_floating_point() or a.dtype is torch.bool or a.dim() != 1:
            raise MXNetValueError('cannot save %s: %s must be a 1-d integer tensor, got %s of shape %s'
                                  % (what, name, a.dtype, tuple(a.shape)))
        aux.append(a.to(torch.int64))  # MXNet's aux arrays are int64
    if any(d < 0 for d in shape):
        raise MXNetValueError('cannot save %s: negative dimension in shape %s' % (what, shape))
    if code == 2:  # csr
        ok = (len(shape) == 2 and data.dim() == 1 and aux[0].numel() == shape[0] + 1
              and aux[1].numel() == data.numel())
        expect = 'a 2-d shape, 1-d data, indptr of shape[0] + 1 entries and one index per value'
    else:
        ok = (len(shape) >= 1 and data.dim() == len(shape) and tuple(data.shape[1:]) == shape[1:]
              and data.shape[0] == aux[0].numel())
        expect = 'data of shape (len(indices),) + shape[1:]'
    if not ok:
        raise MXNetValueError('cannot save %s: inconsistent %s record: shape %s, data %s, aux %s; expected %s'
                              % (what, rec.stype, shape, tuple(data.shape),
                                 [tuple(a.shape) for a in aux], expect))
    head = (struct.pack('<Ii', V2_MAGIC, code) + _shape_bytes(data.shape) + _shape_bytes(shape) + _CPU0
            + struct.pack('<i', _FLAG_OF_TORCH[data.dtype])
            + b''.join(struct.pack('<i', _INT64_FLAG) + _shape_bytes(a.shape) for a in aux))
    return [head, _raw_bytes(data)] + [_raw_bytes(a) for a in aux]


def _record_chunks(x, np_shape, what):
    if x is None:
        if np_shape:
            raise MXNetValueError('cannot save %s: a none array (None) has no np-shape (V3) encoding that '
                                  'MXNet can read; save with np_shape=False' % what)
        return [struct.pack('<Iii', V2_MAGIC, 0, 0)]  # V2, dense, ndim 0: "none"
    if isinstance(x, SparseRecord):
        if np_shape:
            raise MXNetValueError('cannot save %s: MXNet allows only dense (default storage) arrays in np-shape '
                                  '(V3) files, got %s; save with np_shape=False' % (what, x.stype))
        return _sparse_chunks(x, what)
    t = _to_cpu_tensor(x, what)
    if not np_shape and t.dim() == 0:
        raise MXNetValueError('cannot save %s: it is 0-d (shape ()), and in MXNet\'s default (V2) records '
                              'ndim 0 means "no array"; save with np_shape=True (V3 records, as MXNet does '
                              'under mx.npx.set_np()) or reshape it to (1,)' % what)
    return _dense_chunks(t, V3_MAGIC if np_shape else V2_MAGIC)


def _encode(arrays, np_shape):
    """All the file's pieces (bytes and memoryviews), every array converted before anything is written."""
    if isinstance(arrays, (torch.Tensor, SparseRecord, np.ndarray)):  # like mx.nd.save(fname, one_array)
        names, values, labels = [], [arrays], ['array 0']
    elif isinstance(arrays, dict):
        names = list(arrays.keys())
        for k in names:
            if not isinstance(k, str):
                raise MXNetTypeError('save only accepts dict str->array; key %r is a %s' % (k, type(k).__name__))
        values = list(arrays.values())
        labels = ['array %r' % k for k in names]
    elif isinstance(arrays, (list, tuple)):
        names, values = [], list(arrays)
        labels = ['array %d' % i for i in range(len(values))]
    else:
        raise MXNetTypeError('save needs a list/tuple of arrays or a dict str->array, got %s'
                             % type(arrays).__name__)
    chunks = [struct.pack('<QQQ', LIST_MAGIC, 0, len(values))]
    for x, what in zip(values, labels):
        chunks.extend(_record_chunks(x, np_shape, what))
    encoded = [k.encode('utf-8') for k in names]
    chunks.append(struct.pack('<Q', len(encoded)) + b''.join(struct.pack('<Q', len(b)) + b for b in encoded))
    return chunks


def dumps(arrays, np_shape=False):
    """The bytes ``mx.nd.save`` writes for ``arrays`` (a list/tuple, or a dict str -> array).

    An array is a ``torch.Tensor`` (any device; copied to CPU), a ``SparseRecord``, or ``None`` (a none array).
    ``np_shape=True`` writes V3 records (what MXNet writes under np-shape semantics: 0-d arrays allowed,
    dense only); otherwise V2 records, MXNet's default, which cannot hold a 0-d array.
    """
    return b''.join(_encode(arrays, np_shape))


def dumps_record(x, np_shape=False):
    """One array record without the file header: the bytes MXNet pickles an NDArray as
    (``NDArray.__getstate__()['handle']``, from ``MXNDArraySaveRawBytes``)."""
    return b''.join(_record_chunks(x, np_shape, 'the array'))


# ---------------------------------------------------------------------------------------------------------
# reading

class _Reader:
    """Sequential reads from a bytes-like buffer or a file object of known size; errors name the source."""

    def __init__(self, source, buf=None, fileobj=None, size=None):
        self.source = source
        self.mv = memoryview(buf).cast('B') if buf is not None else None
        self.f = fileobj
        self.size = len(self.mv) if buf is not None else size
        self.pos = 0
        self.np_shape = None  # the np-shape level loading runs under (util._np_shape_level), None: no check

    def error(self, msg, at=None):
        return MXNetError('Invalid NDArray file format: cannot load %s: %s (at byte offset %d of %d)'
                          % (self.source, msg, self.pos if at is None else at, self.size))

    def remaining(self):
        return self.size - self.pos

    def need(self, n, what):
        if n > self.size - self.pos:
            raise self.error('truncated: %s needs %d bytes but only %d remain' % (what, n, self.size - self.pos))

    def read(self, n, what):
        self.need(n, what)
        if self.mv is not None:
            b = self.mv[self.pos:self.pos + n]
        else:
            b = self.f.read(n)
            if len(b) != n:
                raise self.error('truncated: %s needs %d bytes but the file ended' % (what, n))
        self.pos += n
        return b

    def unpack(self, fmt, what):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt), what))

    def fill(self, dst, what):
        """Read exactly ``len(dst)`` bytes into the writable uint8 numpy array ``dst``."""
        n = dst.nbytes
        self.need(n, what)
        if n == 0:
            return
        if self.mv is not None:
            dst[:] = np.frombuffer(self.mv, np.uint8, n, self.pos)
        else:
            view = memoryview(dst).cast('B')
            got = 0
            while got < n:
                k = self.f.readinto(view[got:])
                if not k:
                    raise self.error('truncated: %s needs %d bytes but the file ended' % (what, n))
                got += k
        self.pos += n


def _read_shape(r, what, legacy_u32=False, ndim=None):
    """A shape as a tuple, or None for ndim -1 (unknown)."""
    if ndim is None:
        (ndim,) = r.unpack('<i', what + ' ndim')
    if ndim == -1 and not legacy_u32:
        return None
    if ndim < 0:
        raise r.error('%s has ndim %d' % (what, ndim), r.pos - 4)
    if legacy_u32:
        r.need(4 * ndim, '%s (%d dims)' % (what, ndim))
        return r.unpack('<%dI' % ndim, what)
    r.need(8 * ndim, '%s (%d dims)' % (what, ndim))
    return r.unpack('<%dq' % ndim, what)


def _read_values(r, flag, shape, what):
    name, tdtype = DTYPE_FLAGS[flag]
    numel = math.prod(shape)
    itemsize = tdtype.itemsize
    r.need(numel * itemsize, '%s (%d x %s)' % (what, numel, name))
    if tdtype is torch.bool:
        raw = torch.empty(numel, dtype=torch.uint8)
        r.fill(raw.numpy(), what)  # host: a CPU buffer
        return raw.ne(0).reshape(shape)  # normalise: any non-zero byte is True
    t = torch.empty(numel, dtype=tdtype)
    u8 = t.view(torch.uint8).numpy()  # host: a CPU buffer
    r.fill(u8, what)
    if not _LITTLE and itemsize > 1:
        u8.view('u%d' % itemsize).byteswap(inplace=True)
    return t.reshape(shape)


def _read_flag(r, what):
    at = r.pos
    (flag,) = r.unpack('<i', what)
    if flag not in DTYPE_FLAGS:
        raise r.error('unknown dtype flag %d in %s (known: %s)'
                      % (flag, what, ', '.join('%d=%s' % (f, n) for f, (n, _) in DTYPE_FLAGS.items())), at)
    if DTYPE_FLAGS[flag][1] is None:
        raise r.error('%s is %s, which this torch %s does not have (torch >= 2.3 does)'
                      % (what, DTYPE_FLAGS[flag][0], torch.__version__), at)
    return flag


def _read_context(r, what):
    at = r.pos
    dev_type, _ = r.unpack('<ii', what + ' context')
    if dev_type not in _DEV_TYPES:
        raise r.error('unknown device type %d in %s context' % (dev_type, what), at)


def _check_dims(r, shape, what, allow_unknown):
    """V3: a dim of -1 means unknown (-> None); anything else negative is corrupt."""
    for d in shape:
        if d == -1 and allow_unknown:
            return False
        if d < 0:
            raise r.error('%s has a negative dimension: %s' % (what, shape))
    return True


def _check_semantics(r, v3, what):
    """MXNet's rule: np-shape (V3) records load only under np-shape semantics, and other records not under
    np-shape semantics turned on for this thread alone (on globally, they load)."""
    if v3 and r.np_shape == _NP_SHAPE_OFF:
        raise MXNetError('cannot load %s: %s was saved in np shape semantics (a V3 record) and must be loaded in '
                         'the same semantics (mx.util.set_np_shape(True)), as MXNet requires' % (r.source, what))
    if not v3 and r.np_shape == _NP_SHAPE_THREAD:
        raise MXNetError('cannot load %s: %s was not saved in np shape semantics but is being loaded in them '
                         '(turned on for this thread): load it under np_shape(False), as MXNet requires'
                         % (r.source, what))


def _read_record(r, i):  # noqa: C901 (one branch per field of MXNet's NDArray record)
    what = 'array %d' % i
    start = r.pos
    (magic,) = r.unpack('<I', what + ' header')
    _check_semantics(r, magic == V3_MAGIC, what)
    if magic not in (V2_MAGIC, V3_MAGIC):
        # V1 (int64 shape) or V0 (the word just read is the ndim of a uint32 shape); dense only.
        if magic == V1_MAGIC:
            shape = _read_shape(r, what + ' shape')
            if shape is None:
                raise r.error('%s (V1 record) has ndim -1' % what, r.pos - 4)
        else:
            if 4 * magic > r.remaining():
                raise r.error('%s: not an NDArray record (its first word 0x%08x is none of the V1/V2/V3 magics, '
                              'and as a legacy V0 ndim it does not fit in the remaining %d bytes)'
                              % (what, magic, r.remaining()), start)
            shape = _read_shape(r, what + ' shape', legacy_u32=True, ndim=magic)
        if len(shape) == 0:
            return None  # legacy "none" array
        _check_dims(r, shape, what + ' shape', False)
        _read_context(r, what)
        flag = _read_flag(r, what + ' dtype flag')
        return _read_values(r, flag, shape, what + ' values')

    v3 = magic == V3_MAGIC
    at = r.pos
    (stype,) = r.unpack('<i', what + ' storage type')
    if stype not in _STYPES:
        raise r.error('%s has unknown storage type %d (known: 0 default, 1 row_sparse, 2 csr)' % (what, stype), at)
    if v3 and stype != 0:
        raise r.error('%s is a %s array in a V3 (np-shape) record; MXNet allows only dense arrays there'
                      % (what, _STYPES[stype]), at)
    nad = _NUM_AUX[stype]
    sshape = None
    if nad:
        sshape = _read_shape(r, what + ' storage shape')
        if sshape is None or not _check_dims(r, sshape, what + ' storage shape', False):
            raise r.error('%s has an unknown storage shape' % what)
    shape = _read_shape(r, what + ' shape')
    if v3:
        if shape is None or not _check_dims(r, shape, what + ' shape', True):
            return None  # unknown shape: "none"
    else:
        if shape is None:
            raise r.error('%s shape has ndim -1, which a V2 record cannot hold' % what)
        if len(shape) == 0:
            return None  # V2: ndim 0 is "none"
        _check_dims(r, shape, what + ' shape', False)
    _read_context(r, what)
    flag = _read_flag(r, what + ' dtype flag')
    if not nad:
        return _read_values(r, flag, shape, what + ' values')

    aux_flags, aux_shapes = [], []
    for k in range(nad):
        aux_what = '%s aux %d' % (what, k)
        at = r.pos
        aflag = _read_flag(r, aux_what + ' dtype flag')
        if aflag not in _INT_FLAGS:
            raise r.error('%s has dtype %s; aux arrays hold integer indices' % (aux_what, DTYPE_FLAGS[aflag][0]), at)
        ashape = _read_shape(r, aux_what + ' shape')
        if ashape is None or len(ashape) != 1 or ashape[0] < 0:
            raise r.error('%s shape must be 1-d, got %s' % (aux_what, ashape))
        aux_flags.append(aflag)
        aux_shapes.append(ashape)
    data = _read_values(r, flag, sshape, what + ' values')
    aux = tuple(_read_values(r, f, s, '%s aux %d values' % (what, k)).to(torch.int64)
                for k, (f, s) in enumerate(zip(aux_flags, aux_shapes)))
    return SparseRecord(_STYPES[stype], tuple(shape), data, aux)


def _decode(r, np_shape=None):
    r.np_shape = np_shape
    at = r.pos
    magic, _reserved = r.unpack('<QQ', 'file header')
    if magic != LIST_MAGIC:
        raise r.error('bad magic 0x%x (an MXNet NDArray file starts with 0x%x)' % (magic, LIST_MAGIC), at)
    at = r.pos
    (count,) = r.unpack('<Q', 'array count')
    if count > r.remaining() // 4:  # the smallest record (a V0 none array) is 4 bytes
        raise r.error('array count %d cannot fit in the remaining %d bytes' % (count, r.remaining()), at)
    arrays = [_read_record(r, i) for i in range(count)]
    at = r.pos
    (n_names,) = r.unpack('<Q', 'name count')
    if n_names not in (0, count):
        raise r.error('%d names for %d arrays (must be 0 or one per array)' % (n_names, count), at)
    names = []
    for i in range(n_names):
        (n,) = r.unpack('<Q', 'name %d length' % i)
        at = r.pos
        raw = r.read(n, 'name %d (%d bytes)' % (i, n))
        try:
            names.append(bytes(raw).decode('utf-8'))
        except UnicodeDecodeError as e:
            raise r.error('name %d is not valid UTF-8 (%s)' % (i, e), at) from None
    if not names:
        return arrays
    return dict(zip(names, arrays))


def loads(buf, source='<buffer>', np_shape=None):
    """Parse the bytes of an MXNet NDArray file (what ``mx.nd.load_frombuffer`` does).

    Returns a list (the file has no names) or a dict of CPU tensors / ``SparseRecord``s / ``None`` (none arrays),
    each owning its memory. A truncated or corrupt buffer raises ``MXNetError`` naming ``source``. ``np_shape``,
    the np-shape level of the caller (``util._np_shape_level()``), refuses records saved in other semantics as
    MXNet does; None loads every record.
    """
    if isinstance(buf, str):
        raise MXNetTypeError('loads needs bytes (the file contents), got str; to load a file use load_file')
    try:
        mv = memoryview(buf)
    except TypeError:
        raise MXNetTypeError('loads needs a bytes-like object, got %s' % type(buf).__name__) from None
    return _decode(_Reader(source, buf=mv), np_shape)


def loads_record(buf, source='<buffer>'):
    """Parse one array record without the file header (an MXNet NDArray pickle's ``handle`` bytes, what
    ``MXNDArrayLoadFromRawBytes`` reads): a tensor, a ``SparseRecord`` or ``None``. Trailing bytes are ignored,
    as MXNet does."""
    try:
        mv = memoryview(buf)
    except TypeError:
        raise MXNetTypeError('loads_record needs a bytes-like object, got %s' % type(buf).__name__) from None
    return _read_record(_Reader(source, buf=mv), 0)


# ---------------------------------------------------------------------------------------------------------
# files

def save_file(fname, arrays, np_shape=False):
    """Write ``arrays`` to ``fname`` as ``mx.nd.save`` does (see ``dumps``), atomically (see ``_fileio``)."""
    chunks = _encode(arrays, np_shape)  # every conversion happens before the target is touched
    write_atomic(fname, chunks, 'save NDArray file')


def load_file(fname, np_shape=None):
    """Load an MXNet NDArray file (``mx.nd.load``): a list or a dict, as ``loads`` returns.

    Local files are read straight into the tensors' memory; paths with a scheme go through fsspec.
    Errors are ``MXNetError``s naming the file (``MXNetFileNotFoundError`` when it does not exist).
    """
    path, remote = path_of(fname)
    source = repr(os.fspath(fname))
    if remote:
        fsspec = get_fsspec(path, 'load NDArray file')
        try:
            with fsspec.open(path, 'rb') as f:
                data = f.read()
        except FileNotFoundError as e:
            raise MXNetFileNotFoundError('cannot load NDArray file %s: no such file' % source) from e
        except OSError as e:
            raise MXNetError('cannot load NDArray file %s: %s' % (source, e)) from e
        return loads(data, source=source, np_shape=np_shape)
    try:
        f = open(path, 'rb')
    except FileNotFoundError as e:
        raise MXNetFileNotFoundError('cannot load NDArray file %s: no such file' % source) from e
    except OSError as e:
        raise MXNetError('cannot load NDArray file %s: %s' % (source, e)) from e
    with f:
        try:
            size = os.fstat(f.fileno()).st_size
            return _decode(_Reader(source, fileobj=f, size=size), np_shape)
        except OSError as e:
            raise MXNetError('cannot load NDArray file %s: %s' % (source, e)) from e
