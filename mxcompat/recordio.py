"""``mx.recordio``: MXNet's RecordIO files (``.rec`` + ``.idx``), byte-compatible with MXNet 1.9.1 (dmlc-core format).

A record on disk is ``magic (0xced7230a, little-endian) | lrec | payload | zero padding to 4 bytes`` with
``lrec = cflag << 29 | length``. A payload that holds the magic at a 4-byte-aligned offset is split there into
parts flagged 1 (first), 2 (middle) and 3 (last), the magic itself being dropped; readers put it back.

Differs from MXNet: the files are read and written in Python (no C++ handle), so only local paths (and ``file://``)
are supported; images are encoded and decoded with Pillow instead of OpenCV (``pack_img``/``unpack_img``, which keep
OpenCV's BGR channel order for numpy images).
"""
import numbers
import os
import struct
from collections import namedtuple

import numpy as np

from .base import MXNetError, unsupported
from ._imagecodec import decode_numpy, encode_numpy

__all__ = ['MXRecordIO', 'MXIndexedRecordIO', 'IRHeader', 'pack', 'unpack', 'pack_img', 'unpack_img']

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack('<I', _MAGIC)
_LEN_MASK = (1 << 29) - 1


def _local_path(uri, api):
    if isinstance(uri, bytes):
        uri = uri.decode('utf-8')
    uri = os.fspath(uri)
    if uri.startswith('file://'):
        return uri[len('file://'):]
    if '://' in uri:
        raise unsupported(api, 'the URI %r' % uri, 'only local files are read and written')
    return uri


def _encode_record(buf):
    """The bytes dmlc's RecordIOWriter writes for one payload."""
    n = len(buf)
    if n >= 1 << 29:
        raise MXNetError('RecordIO only accept record less than 2^29 bytes')
    lower = n & ~3
    words = np.frombuffer(buf, dtype='<u4', count=lower // 4) if lower else np.empty(0, '<u4')
    cuts = (np.flatnonzero(words == _MAGIC) * 4).tolist()
    out = []
    start = 0
    for pos in cuts:  # each aligned magic ends one part; the magic itself is not stored
        out += [_MAGIC_BYTES, struct.pack('<I', (1 if start == 0 else 2) << 29 | (pos - start)), buf[start:pos]]
        start = pos + 4
    out += [_MAGIC_BYTES, struct.pack('<I', (3 if cuts else 0) << 29 | (n - start)), buf[start:], b'\0' * (-n % 4)]
    return b''.join(out)


class MXRecordIO:
    """Sequential reader (``flag='r'``) or writer (``flag='w'``) of a RecordIO file.

    As in MXNet: pickling closes this object and the copy reopens the file; reading or writing from another
    process than the one that opened the file raises ``RuntimeError``.
    """

    def __init__(self, uri, flag):
        self.uri = uri
        self.flag = flag
        self.pid = None
        self.is_open = False
        self._f = None
        self.open()

    def open(self):
        """Open the file (truncating it for ``'w'``)."""
        if self.flag == 'w':
            mode, self.writable = 'wb', True
        elif self.flag == 'r':
            mode, self.writable = 'rb', False
        else:
            raise ValueError('Invalid flag %s' % self.flag)
        path = _local_path(self.uri, 'mx.recordio.MXRecordIO')
        try:
            self._f = open(path, mode)
        except OSError as e:
            raise MXNetError('LocalFileSystem: Open "%s": %s' % (path, e.strerror)) from None
        self.pid = os.getpid()
        self.is_open = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    def __getstate__(self):
        is_open = self.is_open
        self.close()
        d = dict(self.__dict__)
        d['is_open'] = is_open
        d.pop('_f', None)
        return d

    def __setstate__(self, d):
        was_open = d['is_open']
        self.__dict__ = d
        self._f = None
        self.is_open = False
        if was_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != os.getpid():
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError('Forbidden operation in multiple processes')

    def close(self):
        """Close the file; closing twice is allowed."""
        if not self.is_open:
            return
        self._f.close()
        self._f = None
        self.is_open = False
        self.pid = None

    def reset(self):
        """Go back to the first record (a writer truncates the file)."""
        self.close()
        self.open()

    def write(self, buf):
        """Append ``buf`` (bytes) as one record."""
        assert self.writable
        self._check_pid(allow_reset=False)
        if isinstance(buf, str):
            raise TypeError('bytes or integer address expected instead of str instance')
        self._f.write(_encode_record(bytes(buf)))

    def read(self):
        """The next record as bytes, or None at the end of the file."""
        assert not self.writable
        self._check_pid(allow_reset=False)
        parts = []
        while True:
            head = self._f.read(8)
            if not head:
                if parts:
                    raise MXNetError('Invalid RecordIO File: the file ends inside a split record')
                return None
            if len(head) != 8:
                raise MXNetError('Check failed: nread == sizeof(header): Invalid RecordIO File')
            magic, lrec = struct.unpack('<II', head)
            if magic != _MAGIC:
                raise MXNetError('Check failed: header[0] == RecordIOWriter::kMagic: Invalid RecordIO File')
            cflag, length = lrec >> 29, lrec & _LEN_MASK
            padded = (length + 3) & ~3
            data = self._f.read(padded)
            if len(data) != padded:
                raise MXNetError('Invalid RecordIO File upper_align=%d' % padded)
            parts.append(data[:length])
            if cflag in (0, 3):
                return _MAGIC_BYTES.join(parts)


class MXIndexedRecordIO(MXRecordIO):
    """RecordIO with random access through an index file of ``key\\toffset`` lines."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = idx_path
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for line in iter(self.fidx.readline, ''):
                fields = line.strip().split('\t')
                key = self.key_type(fields[0])
                self.idx[key] = int(fields[1])
                self.keys.append(key)

    def close(self):
        if not self.is_open:
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        d = super().__getstate__()
        d['fidx'] = None
        return d

    def seek(self, idx):
        """Move the read position to the record stored under key ``idx``."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        self._f.seek(self.idx[idx])

    def tell(self):
        """The write position (bytes written so far)."""
        assert self.writable
        return self._f.tell()

    def read_idx(self, idx):
        """The record stored under key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Append ``buf`` as a record and index it under key ``idx``."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write('%s\t%d\n' % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple('HEADER', ['flag', 'label', 'id', 'id2'])
IRHeader.__doc__ = """Image-record header: flag (number of float labels; 0: one scalar label), label, id, id2."""
_IR_FORMAT = 'IfQQ'
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Prefix ``s`` with an image-record header; an array label is stored as float32 values after the header."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """Split a record into its ``IRHeader`` and payload (the label is a float32 array when ``flag > 0``)."""
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def unpack_img(s, iscolor=-1):
    """The header and the decoded image as a numpy uint8 array in OpenCV's layout (BGR / BGRA / HxW gray).

    ``iscolor`` follows ``cv2.imdecode``: -1 keeps the stored channels, 0 gives grayscale, 1 gives BGR.
    Differs from MXNet: decodes with Pillow, not OpenCV (JPEG pixels may differ slightly; PNG is exact).
    """
    header, s = unpack(s)
    return header, decode_numpy(bytes(s), iscolor, bgr=True)


def pack_img(header, img, quality=95, img_fmt='.jpg'):
    """Encode ``img`` (numpy uint8, OpenCV BGR order) as JPEG (quality 1-100) or PNG (compression 0-9), then pack.

    Differs from MXNet: encodes with Pillow, so the bytes differ from OpenCV's; decoded PNG pixels are identical.
    """
    return pack(header, encode_numpy(img, quality, img_fmt))
