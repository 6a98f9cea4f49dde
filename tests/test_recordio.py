"""mxcompat.recordio: MXNet 1.9.1's RecordIO (.rec/.idx) byte format, pack/unpack and pack_img/unpack_img.

References: files written by the real MXNet 1.9.1 in tests/fixtures/recordio (see gen_recordio.py, which also
records the hand check that MXNet reads the files mxcompat writes).
"""
import json
import os
import pathlib
import pickle
import random
import struct

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = pathlib.Path(__file__).resolve().parent / 'fixtures' / 'recordio'
GOLD = json.loads((FIX / 'recordio.json').read_text())
DEC = np.load(FIX / 'decoded.npz')
PAYLOADS = [bytes.fromhex(p) for p in GOLD['payloads']]
MAGIC = struct.pack('<I', 0xced7230a)


def test_read_mxnet_indexed_file():
    r = mx.recordio.MXIndexedRecordIO(str(FIX / 'mx_records.idx'), str(FIX / 'mx_records.rec'), 'r')
    assert r.keys == GOLD['keys']
    assert r.idx == dict(zip(GOLD['keys'], GOLD['tells'][:-1]))
    order = list(zip(GOLD['keys'], PAYLOADS))
    random.Random(0).shuffle(order)
    for key, payload in order:
        assert r.read_idx(key) == payload
    r.close()


def test_read_mxnet_file_sequentially_and_reset():
    r = mx.recordio.MXRecordIO(str(FIX / 'mx_records.rec'), 'r')
    assert [r.read() for _ in PAYLOADS] == PAYLOADS
    assert r.read() is None and r.read() is None
    r.reset()
    assert r.read() == PAYLOADS[0]


def test_write_is_byte_identical_to_mxnet(tmp_path):
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'a.idx'), str(tmp_path / 'a.rec'), 'w')
    tells = [w.tell()]
    for key, payload in zip(GOLD['keys'], PAYLOADS):
        w.write_idx(key, payload)
        tells.append(w.tell())
    w.close()
    assert tells == GOLD['tells']
    assert (tmp_path / 'a.rec').read_bytes() == (FIX / 'mx_records.rec').read_bytes()
    assert (tmp_path / 'a.idx').read_bytes() == (FIX / 'mx_records.idx').read_bytes()


def test_split_records_layout():
    # 'abcd' MAGIC 'efgh' is stored as two parts: cflag 1 (length 4) and cflag 3 (length 4)
    data = (FIX / 'mx_records.rec').read_bytes()
    pos = GOLD['tells'][5]
    first = struct.unpack('<II', data[pos:pos + 8])
    assert first == (0xced7230a, (1 << 29) | 4)
    second = struct.unpack('<II', data[pos + 12:pos + 20])
    assert second == (0xced7230a, (3 << 29) | 4)


@pytest.mark.parametrize('seed', range(5))
def test_random_payloads_roundtrip(tmp_path, seed):
    rng = np.random.RandomState(seed)
    payloads = []
    for _ in range(20):
        words = rng.randint(0, 4, size=rng.randint(0, 40))
        parts = [MAGIC if w == 0 else bytes(rng.randint(0, 256, size=rng.randint(0, 9)).astype(np.uint8))
                 for w in words]
        payloads.append(b''.join(parts))
    w = mx.recordio.MXRecordIO(str(tmp_path / 'r.rec'), 'w')
    for p in payloads:
        w.write(p)
    w.close()
    raw = (tmp_path / 'r.rec').read_bytes()
    assert len(raw) % 4 == 0
    r = mx.recordio.MXRecordIO(str(tmp_path / 'r.rec'), 'r')
    assert [r.read() for _ in payloads] == payloads
    assert r.read() is None


def test_upstream_style_roundtrips(tmp_path):
    frec, fidx = str(tmp_path / 'x.rec'), str(tmp_path / 'x.idx')
    w = mx.recordio.MXIndexedRecordIO(fidx, frec, 'w')
    for i in range(255):
        w.write_idx(i, bytes(chr(i), 'utf-8'))
    del w
    r = mx.recordio.MXIndexedRecordIO(fidx, frec, 'r')
    keys = list(r.keys)
    assert sorted(keys) == list(range(255))
    random.Random(1).shuffle(keys)
    for i in keys:
        assert r.read_idx(i) == bytes(chr(i), 'utf-8')


def test_key_type_and_bytearray(tmp_path):
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'k.idx'), str(tmp_path / 'k.rec'), 'w', key_type=str)
    w.write_idx('a', bytearray(b'xyz'))
    w.write_idx(7, memoryview(b'q'))
    w.close()
    assert (tmp_path / 'k.idx').read_text() == 'a\t0\n7\t12\n'
    r = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'k.idx'), str(tmp_path / 'k.rec'), 'r', key_type=str)
    assert r.keys == ['a', '7'] and r.read_idx('7') == b'q'


def test_errors(tmp_path):
    with pytest.raises(ValueError, match='Invalid flag x'):
        mx.recordio.MXRecordIO(str(tmp_path / 'a.rec'), 'x')
    with pytest.raises(MXNetError, match='No such file'):
        mx.recordio.MXRecordIO(str(tmp_path / 'missing' / 'a.rec'), 'r')
    w = mx.recordio.MXRecordIO(str(tmp_path / 'a.rec'), 'w')
    with pytest.raises(TypeError, match='bytes'):
        w.write('text')
    with pytest.raises(AssertionError):
        w.read()
    w.close()
    w.close()  # closing twice is fine
    (tmp_path / 'bad.rec').write_bytes(b'\0' * 8)
    with pytest.raises(MXNetError, match='Invalid RecordIO'):
        mx.recordio.MXRecordIO(str(tmp_path / 'bad.rec'), 'r').read()
    (tmp_path / 'short.rec').write_bytes(MAGIC + b'\x05\0\0\0ab')
    with pytest.raises(MXNetError, match='upper_align=8'):
        mx.recordio.MXRecordIO(str(tmp_path / 'short.rec'), 'r').read()
    r = mx.recordio.MXIndexedRecordIO(str(FIX / 'mx_records.idx'), str(FIX / 'mx_records.rec'), 'r')
    with pytest.raises(KeyError):
        r.read_idx(12345)
    with pytest.raises(AssertionError):
        r.tell()
    with pytest.raises(MXNetNotImplementedError, match='s3://bucket/x.rec'):
        mx.recordio.MXRecordIO('s3://bucket/x.rec', 'r')


def test_pickle_reopens_and_closes_original():
    r = mx.recordio.MXIndexedRecordIO(str(FIX / 'mx_records.idx'), str(FIX / 'mx_records.rec'), 'r')
    r.read()
    r2 = pickle.loads(pickle.dumps(r))
    assert not r.is_open  # as in MXNet, pickling closes the original
    assert r2.is_open and r2.read() == PAYLOADS[0] and r2.read_idx(GOLD['keys'][3]) == PAYLOADS[3]
    r2.close()
    r3 = pickle.loads(pickle.dumps(r2))
    assert not r3.is_open


def test_other_process_guard(monkeypatch):
    r = mx.recordio.MXIndexedRecordIO(str(FIX / 'mx_records.idx'), str(FIX / 'mx_records.rec'), 'r')
    pid = os.getpid()
    monkeypatch.setattr(os, 'getpid', lambda: pid + 1)
    with pytest.raises(RuntimeError, match='multiple processes'):
        r.read()
    assert r.read_idx(GOLD['keys'][2]) == PAYLOADS[2]  # seek reopens the file in the new process


def test_pack_bytes_match_mxnet():
    H = mx.recordio.IRHeader
    packed = [mx.recordio.pack(H(0, 3.5, 7, 0), b'payload'), mx.recordio.pack(H(5, 2, 8, 1), b'scalar-int-label'),
              mx.recordio.pack(H(0, [1, 2.5, -3], 9, 0), b'multi'),
              mx.recordio.pack(H(0, np.arange(4, dtype=np.float64), 10, 2), b'')]
    assert [p.hex() for p in packed] == GOLD['packed_hex']


def test_unpack_mxnet_records():
    r = mx.recordio.MXRecordIO(str(FIX / 'mx_pack.rec'), 'r')
    for expect in GOLD['unpacked']:
        header, s = mx.recordio.unpack(r.read())
        assert (header.flag, header.id, header.id2, len(s)) == (expect['flag'], expect['id'], expect['id2'],
                                                               expect['len'])
        if header.flag:
            assert header.label.dtype == np.float32 and header.label.tolist() == expect['label']
        else:
            assert header.label == expect['label']
    assert type(mx.recordio.IRHeader(0, 1, 2, 3)).__name__ == 'HEADER'


def _mx_pack_records():
    r = mx.recordio.MXRecordIO(str(FIX / 'mx_pack.rec'), 'r')
    return [r.read() for _ in GOLD['unpacked']]


@pytest.mark.parametrize('iscolor', [-1, 0, 1])
@pytest.mark.parametrize('i', [4, 5, 6])
def test_unpack_img_matches_mxnet(i, iscolor):
    header, img = mx.recordio.unpack_img(_mx_pack_records()[i], iscolor)
    ref = DEC['unpack_img_%d_%d' % (i, iscolor)]
    assert img.dtype == np.uint8 and img.shape == ref.shape
    if i == 6:  # JPEG: a different libjpeg build may round a few pixels differently
        assert np.abs(img.astype(int) - ref).max() <= 3
    else:
        np.testing.assert_array_equal(img, ref)


def test_pack_img_png_roundtrip_exact():
    bgr, gray = DEC['png_bgr'], DEC['png_gray']
    s = mx.recordio.pack_img(mx.recordio.IRHeader(0, [1, 2], 12, 0), bgr, quality=3, img_fmt='.png')
    header, img = mx.recordio.unpack_img(s)
    assert header.flag == 2 and header.label.tolist() == [1, 2] and header.id == 12
    np.testing.assert_array_equal(img, bgr)
    np.testing.assert_array_equal(mx.recordio.unpack_img(mx.recordio.pack_img((0, 1, 2, 0), gray, img_fmt='.PNG'))[1],
                                  gray)
    # the PNG keeps OpenCV's BGR order: decoding it as RGB reverses the channels
    rgb = mx.image.imdecode(mx.recordio.unpack(s)[1]).asnumpy()
    np.testing.assert_array_equal(rgb, bgr[:, :, ::-1])


def test_pack_img_jpeg():
    bgr = DEC['unpack_img_6_1']  # a smooth-enough image for JPEG
    s = mx.recordio.pack_img((0, 5.0, 13, 0), bgr, quality=95, img_fmt='.jpg')
    assert mx.recordio.unpack(s)[1][:2] == b'\xff\xd8'
    img = mx.recordio.unpack_img(s, 1)[1]
    assert img.shape == bgr.shape and np.abs(img.astype(int) - bgr).mean() < 12
    with pytest.raises(AssertionError, match='failed to encode'):
        mx.recordio.pack_img((0, 1, 2, 0), bgr, img_fmt='.unknownfmt')
