"""mxcompat.ndarray._codec: MXNet 1.9.1's NDArray file format (mx.nd.save / mx.nd.load, Gluon .params).

References: the golden files in tests/fixtures/ndarray_files, written by the real MXNet 1.9.1 (see the generator's
docstring), and hand-built V0/V1 records for the layouts MXNet 1.9.1 still reads but no longer writes.
"""
import contextlib
import importlib.util
import json
import math
import os
import pathlib
import struct
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.ndarray import _codec
from tests.conftest import oracle_runner

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'ndarray_files'
REPO = FIXTURES.parent.parent.parent


def _load_generator():
    spec = importlib.util.spec_from_file_location('gen_ndarray_files', FIXTURES / 'gen_ndarray_files.py')
    mod = importlib.util.module_from_spec(spec)
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ among the fixtures
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.dont_write_bytecode = dont_write
    return mod


GEN = _load_generator()
SIDECAR = GEN.load_sidecar(str(FIXTURES))
GOLDEN = sorted(SIDECAR['files'])
GOLDEN_FILES = [f for f in GOLDEN if SIDECAR['files'][f]['form'] != 'record']
GOLDEN_RECORDS = [f for f in GOLDEN if SIDECAR['files'][f]['form'] == 'record']

V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
ALL_DTYPES = [torch.float32, torch.float64, torch.float16, torch.uint8, torch.int32, torch.int8, torch.int64,
              torch.bool, torch.int16, torch.uint16, torch.uint32, torch.uint64, torch.bfloat16]


def _values(t):
    """Nested lists of a tensor's values, as the sidecar stores them (half types widened exactly)."""
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.to(torch.float64)
    elif t.dtype in (torch.uint16, torch.uint32):
        t = t.to(torch.int64)
    return t.tolist()


def _check_owned(t):
    assert isinstance(t, torch.Tensor)
    assert t.device.type == 'cpu' and t.is_contiguous()
    assert t.untyped_storage().nbytes() == t.numel() * t.element_size()


def _check_against_sidecar(loaded, fspec, fname):
    entries = fspec['entries']
    if fspec['form'] == 'record':
        arrays = [loaded]
    elif fspec['form'] == 'dict':
        assert isinstance(loaded, dict), fname
        assert list(loaded) == [e['name'] for e in entries]  # names and their order
        arrays = list(loaded.values())
    else:
        assert isinstance(loaded, list), fname
        arrays = loaded
    assert len(arrays) == len(entries)
    for arr, e in zip(arrays, entries):
        where = '%s %r' % (fname, e['name'])
        if e['stype'] == 'default':
            _check_owned(arr)
            assert str(arr.dtype) == 'torch.' + e['dtype'], where
            assert list(arr.shape) == e['shape'], where
            assert GEN._nan_equal(_values(arr), e['values']), where
        else:
            assert isinstance(arr, _codec.SparseRecord), where
            assert arr.stype == e['stype'] and list(arr.shape) == e['shape'], where
            _check_owned(arr.data)
            assert str(arr.data.dtype) == 'torch.' + e['dtype'], where
            assert GEN._nan_equal(_values(arr.data), e['data']), where
            aux_names = ('indptr', 'indices') if e['stype'] == 'csr' else ('indices',)
            assert len(arr.aux) == len(aux_names)
            for a, name in zip(arr.aux, aux_names):
                _check_owned(a)
                assert a.dtype == torch.int64 and a.tolist() == e[name], where
            assert GEN._nan_equal(_values(_densify(arr)), e['values']), where


def _densify(rec):
    dense = torch.zeros(rec.shape, dtype=rec.data.dtype)
    if rec.stype == 'row_sparse':
        dense[rec.aux[0]] = rec.data
    else:
        indptr, indices = rec.aux
        for row in range(rec.shape[0]):
            lo, hi = int(indptr[row]), int(indptr[row + 1])
            dense[row, indices[lo:hi]] = rec.data[lo:hi]
    return dense


def _golden_bytes(fname):
    return (FIXTURES / fname).read_bytes()


def _file(records, names=None):
    """A list file from hand-built record bytes."""
    out = struct.pack('<QQQ', 0x112, 0, len(records)) + b''.join(records)
    names = names or []
    out += struct.pack('<Q', len(names))
    for n in names:
        b = n.encode('utf-8')
        out += struct.pack('<Q', len(b)) + b
    return out


def _v0_record(shape, flag, payload, ctx=(1, 0)):
    return (struct.pack('<I%dI' % len(shape), len(shape), *shape) + struct.pack('<ii', *ctx)
            + struct.pack('<i', flag) + payload)


def _v1_record(shape, flag, payload, ctx=(1, 0)):
    return (struct.pack('<Ii%dq' % len(shape), V1, len(shape), *shape) + struct.pack('<ii', *ctx)
            + struct.pack('<i', flag) + payload)


def _random(dtype, shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype is torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -2 ** 62), min(info.max, 2 ** 62)
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


def _same(a, b):
    if isinstance(a, _codec.SparseRecord):
        return (isinstance(b, _codec.SparseRecord) and a.stype == b.stype and tuple(a.shape) == tuple(b.shape)
                and _same(a.data, b.data) and len(a.aux) == len(b.aux)
                and all(_same(x, y) for x, y in zip(a.aux, b.aux)))
    if a is None or b is None:
        return a is None and b is None
    return (a.dtype == b.dtype and a.shape == b.shape
            and bytes(a.reshape(-1).view(torch.uint8).numpy()) == bytes(b.reshape(-1).view(torch.uint8).numpy()))


# ---------------------------------------------------------------------------------------------------------
# golden files written by MXNet 1.9.1

@pytest.mark.parametrize('fname', GOLDEN_FILES)
def test_load_golden_file(fname):
    fspec = SIDECAR['files'][fname]
    _check_against_sidecar(_codec.load_file(str(FIXTURES / fname)), fspec, fname)
    _check_against_sidecar(_codec.loads(_golden_bytes(fname)), fspec, fname)
    _check_against_sidecar(_codec.loads(bytearray(_golden_bytes(fname))), fspec, fname)


@pytest.mark.parametrize('fname', GOLDEN_RECORDS)
def test_load_golden_pickle_record(fname):
    _check_against_sidecar(_codec.loads_record(_golden_bytes(fname)), SIDECAR['files'][fname], fname)


@pytest.mark.parametrize('fname', GOLDEN)
def test_our_bytes_equal_mxnet_bytes(fname):
    fspec = SIDECAR['files'][fname]
    records = GEN.spec_to_records(fspec)
    if fspec['form'] == 'record':
        ours = _codec.dumps_record(records, np_shape=fspec['np_shape'])
    else:
        ours = _codec.dumps(records, np_shape=fspec['np_shape'])
    assert ours == _golden_bytes(fname)


@pytest.mark.parametrize('fname', GOLDEN_FILES)
def test_golden_file_round_trips_through_our_reader_and_writer(fname, tmp_path):
    np_shape = SIDECAR['files'][fname]['np_shape']
    loaded = _codec.load_file(FIXTURES / fname)
    _codec.save_file(tmp_path / fname, loaded, np_shape=np_shape)
    assert (tmp_path / fname).read_bytes() == _golden_bytes(fname)


def test_golden_files_cover_the_brief():
    dtypes = {e['dtype'] for f in SIDECAR['files'].values() for e in f['entries']}
    assert dtypes >= {'float32', 'float64', 'float16', 'uint8', 'int8', 'int32', 'int64', 'bool', 'bfloat16'}
    stypes = {e['stype'] for f in SIDECAR['files'].values() for e in f['entries']}
    assert stypes == {'default', 'row_sparse', 'csr'}
    shapes = [e['shape'] for f in SIDECAR['files'].values() if f['np_shape'] for e in f['entries']]
    assert [] in shapes and any(0 in s for s in shapes)
    assert sum(p.stat().st_size for p in FIXTURES.iterdir()) < 200 * 1024


def test_empty_list_and_empty_dict_write_the_same_bytes():
    # MXNet writes no names for an empty dict, so it loads back as an empty list
    assert _codec.dumps([]) == _codec.dumps({}) == _golden_bytes('empty_list.nd')
    assert _codec.loads(_codec.dumps({})) == []


def test_bool_is_one_byte_per_value_with_flag_7():
    raw = _codec.dumps([torch.tensor([True, False, True])])
    # header(24) + magic, stype, ndim(12) + dim(8) + ctx(8) + flag(4) + data(3) + names(8)
    assert raw[52:56] == struct.pack('<i', 7) and raw[56:59] == b'\x01\x00\x01' and len(raw) == 67


def test_bool_bytes_other_than_0_1_load_as_true():
    raw = _file([struct.pack('<Iiiq', V2, 0, 1, 3) + struct.pack('<iii', 1, 0, 7) + b'\x00\x02\xff'])
    assert _codec.loads(raw)[0].tolist() == [False, True, True]


# ---------------------------------------------------------------------------------------------------------
# round trips

@pytest.mark.parametrize('np_shape', [False, True], ids=['V2', 'V3'])
@pytest.mark.parametrize('dtype', ALL_DTYPES, ids=lambda d: str(d).replace('torch.', ''))
def test_round_trip_every_dtype(dtype, np_shape):
    arrays = [_random(dtype, (4, 5), 1), _random(dtype, (7,), 2), _random(dtype, (2, 0, 3), 3),
              _random(dtype, (3, 4), 4).t()]  # a non-contiguous view
    if np_shape:
        arrays.append(_random(dtype, (), 5))
    raw = _codec.dumps(arrays, np_shape=np_shape)
    back = _codec.loads(raw)
    assert isinstance(back, list) and len(back) == len(arrays)
    for a, b in zip(arrays, back):
        _check_owned(b)
        assert _same(a, b)
    magic = struct.unpack_from('<I', raw, 24)[0]
    assert magic == (V3 if np_shape else V2)


def test_round_trip_dict_keeps_names_and_order(tmp_path):
    d = {'z': torch.ones(2), 'a': torch.arange(6).reshape(2, 3), 'gr\u00fc\u00dfe \u03b1\u03b2': torch.zeros(1),
         '': torch.tensor([1.5], dtype=torch.float16)}
    _codec.save_file(tmp_path / 'd.params', d)
    back = _codec.load_file(tmp_path / 'd.params')
    assert list(back) == list(d)
    assert all(_same(d[k], back[k]) for k in d)


def test_round_trip_sparse():
    rsp = _codec.SparseRecord('row_sparse', (6, 2, 3), _random(torch.float32, (2, 2, 3)),
                              (torch.tensor([1, 4]),))
    csr = _codec.SparseRecord('csr', (3, 5), torch.tensor([1., 2., 3.], dtype=torch.float64),
                              (torch.tensor([0, 1, 1, 3]), torch.tensor([4, 0, 2])))
    empty = _codec.SparseRecord('csr', (2, 2), torch.zeros(0, dtype=torch.bfloat16),
                                (torch.zeros(3, dtype=torch.int64), torch.zeros(0, dtype=torch.int64)))
    back = _codec.loads(_codec.dumps({'r': rsp, 'c': csr, 'e': empty, 'dense': torch.ones(2)}))
    assert _same(back['r'], rsp) and _same(back['c'], csr) and _same(back['e'], empty)
    assert _same(back['dense'], torch.ones(2))


def test_sparse_aux_given_as_int32_is_written_as_int64():
    rec = _codec.SparseRecord('row_sparse', (3, 1), torch.ones(1, 1), (torch.tensor([2], dtype=torch.int32),))
    back = _codec.loads(_codec.dumps([rec]))[0]
    assert back.aux[0].dtype == torch.int64 and back.aux[0].tolist() == [2]


def test_sparse_aux_of_other_int_types_loads_as_int64():
    # the same record as MXNet would lay it out, with int32 (flag 4) aux arrays
    rec = (struct.pack('<Ii', V2, 1) + struct.pack('<iqq', 2, 1, 2) + struct.pack('<iqq', 2, 3, 2)
           + struct.pack('<iii', 1, 0, 0) + struct.pack('<iiq', 4, 1, 1)
           + np.array([[5, 6]], '<f4').tobytes() + np.array([2], '<i4').tobytes())
    back = _codec.loads(_file([rec]))[0]
    assert back.aux[0].dtype == torch.int64 and back.aux[0].tolist() == [2]
    assert back.data.tolist() == [[5., 6.]] and back.shape == (3, 2)


def test_single_array_is_saved_as_a_one_element_list():
    assert _codec.dumps(torch.ones(2)) == _codec.dumps([torch.ones(2)])
    rec = _codec.SparseRecord('row_sparse', (3, 1), torch.ones(1, 1), (torch.tensor([2]),))  # a tuple itself
    assert _codec.dumps(rec) == _codec.dumps([rec])


def test_inputs_that_need_converting():
    x = torch.ones(3, requires_grad=True) * 2
    assert _same(_codec.loads(_codec.dumps([x]))[0], torch.full((3,), 2.))
    assert _same(_codec.loads(_codec.dumps([np.arange(4, dtype='>i4')]))[0], torch.arange(4, dtype=torch.int32))
    neg = torch.ones(2, dtype=torch.complex64).conj().imag  # a tensor with the negative bit set
    assert neg.is_neg()
    assert _same(_codec.loads(_codec.dumps([neg]))[0], torch.full((2,), -0.0))


@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')
def test_cuda_tensor_is_written_as_cpu0():
    raw = _codec.dumps([torch.ones(2, device='cuda')])
    assert raw == _codec.dumps([torch.ones(2)])


def test_record_round_trip_and_trailing_bytes():
    t = torch.arange(6, dtype=torch.int64).reshape(2, 3)
    raw = _codec.dumps_record(t)
    assert _same(_codec.loads_record(raw), t)
    assert _same(_codec.loads_record(raw + b'junk'), t)  # MXNDArrayLoadFromRawBytes ignores the rest too
    assert _same(_codec.loads(_codec.dumps([t]) + b'junk')[0], t)  # so does MXNDArrayLoadFromBuffer


def test_loads_copies_out_of_the_buffer():
    buf = bytearray(_codec.dumps([torch.ones(4)]))
    t = _codec.loads(buf)[0]
    buf[-24:-8] = b'\x00' * 16
    assert t.tolist() == [1., 1., 1., 1.]


# ---------------------------------------------------------------------------------------------------------
# none arrays, np-shape rules, legacy records

def test_zero_d_needs_np_shape():
    with pytest.raises(MXNetValueError, match=r"array 1: .*0-d.*np_shape=True"):
        _codec.dumps([torch.ones(2), torch.tensor(3.)])
    with pytest.raises(MXNetValueError, match=r"array 'w': .*0-d"):
        _codec.dumps({'w': torch.tensor(3.)})
    assert _codec.loads(_codec.dumps([torch.tensor(3.)], np_shape=True))[0].shape == ()


def test_v3_allows_only_dense():
    rec = _codec.SparseRecord('row_sparse', (2, 1), torch.ones(1, 1), (torch.tensor([0]),))
    with pytest.raises(MXNetValueError, match='only dense'):
        _codec.dumps([rec], np_shape=True)
    bad = _file([struct.pack('<Ii', V3, 1) + struct.pack('<iq', 1, 1)])
    with pytest.raises(MXNetError, match='row_sparse array in a V3'):
        _codec.loads(bad)


def test_none_arrays():
    # V2: storage type 0, ndim 0 and nothing else (MXNet's V2 reader returns NDArray() there)
    raw = _file([struct.pack('<Iii', V2, 0, 0), _v0_record((1,), 0, struct.pack('<f', 2.))])
    assert _codec.loads(raw)[0] is None and _codec.loads(raw)[1].tolist() == [2.]
    assert _codec.dumps([None, torch.tensor([2.])]) == _file([struct.pack('<Iii', V2, 0, 0),
                                                              _codec.dumps_record(torch.tensor([2.]))])
    # V3: an unknown shape (ndim -1, or a dimension of -1)
    assert _codec.loads(_file([struct.pack('<Iii', V3, 0, -1)]))[0] is None
    assert _codec.loads(_file([struct.pack('<Iiiqq', V3, 0, 2, 3, -1)]))[0] is None
    with pytest.raises(MXNetValueError, match='none array'):
        _codec.dumps([None], np_shape=True)
    # V2 sparse none: the storage shape is still there
    rsp_none = struct.pack('<Ii', V2, 1) + struct.pack('<iq', 1, 0) + struct.pack('<i', 0)
    assert _codec.loads(_file([rsp_none]))[0] is None


def test_legacy_v0_records():
    f32 = np.arange(6, dtype='<f4')
    i64 = np.array([-1, 2 ** 40], dtype='<i8')
    raw = _file([_v0_record((2, 3), 0, f32.tobytes()),
                 _v0_record((2,), 6, i64.tobytes(), ctx=(2, 1)),  # saved from gpu(1): loads on CPU
                 struct.pack('<I', 0),  # ndim 0: a none array, nothing follows
                 _v0_record((1, 0), 3, b'')],
                names=['a', 'b', 'c', 'd'])
    back = _codec.loads(raw)
    assert list(back) == ['a', 'b', 'c', 'd']
    assert back['a'].dtype == torch.float32 and back['a'].tolist() == f32.reshape(2, 3).tolist()
    assert back['b'].dtype == torch.int64 and back['b'].tolist() == i64.tolist()
    assert back['c'] is None
    assert back['d'].dtype == torch.uint8 and back['d'].shape == (1, 0)


def test_legacy_v1_records():
    f16 = np.array([[0.5, -1], [2, 65504]], dtype='<f2')
    raw = _file([_v1_record((2, 2), 2, f16.tobytes()),
                 struct.pack('<Ii', V1, 0),  # ndim 0: none
                 _v1_record((3,), 5, np.array([-1, 0, 1], 'i1').tobytes())])
    back = _codec.loads(raw)
    assert back[0].dtype == torch.float16 and back[0].tolist() == f16.tolist()
    assert back[1] is None
    assert back[2].dtype == torch.int8 and back[2].tolist() == [-1, 0, 1]


def test_v2_records_with_gpu_context_load_on_cpu():
    rec = struct.pack('<Iiiq', V2, 0, 1, 2) + struct.pack('<iii', 2, 3, 1) + np.array([1.5, 2], '<f8').tobytes()
    t = _codec.loads(_file([rec]))[0]
    assert t.device.type == 'cpu' and t.dtype == torch.float64 and t.tolist() == [1.5, 2.]


# ---------------------------------------------------------------------------------------------------------
# corrupt input

@pytest.mark.parametrize('fname', ['list_dtypes.nd', 'csr.nd', 'np_shape.nd', 'row_sparse.nd', 'dict_params.nd'])
def test_every_truncation_raises(fname):
    raw = _golden_bytes(fname)
    for n in range(len(raw)):
        with pytest.raises(MXNetError, match=r"cannot load <trunc>: .*(truncated|fit)"):
            _codec.loads(raw[:n], source='<trunc>')


def test_truncated_file_names_the_file(tmp_path):
    p = tmp_path / 'cut.params'
    raw = _golden_bytes('list_dtypes.nd')
    for n in (0, 7, 30, 100, len(raw) - 9, len(raw) - 1):
        p.write_bytes(raw[:n])
        with pytest.raises(MXNetError, match=r"cannot load '.*cut\.params'.*(truncated|cannot fit)"):
            _codec.load_file(p)


def _good():
    return bytearray(_codec.dumps([torch.ones(2, 3)]))


@pytest.mark.parametrize('patch, message', [
    ((0, struct.pack('<Q', 0x113)), 'bad magic 0x113'),
    ((0, b'PK\x03\x04'), 'bad magic'),
    ((16, struct.pack('<Q', 2 ** 40)), 'array count 1099511627776 cannot fit'),
    ((24, struct.pack('<I', 0xF993FACB)), 'not an NDArray record'),
    ((28, struct.pack('<i', 5)), 'unknown storage type 5'),
    ((32, struct.pack('<i', -2)), 'ndim -2'),
    ((32, struct.pack('<i', -1)), 'ndim -1, which a V2 record cannot hold'),
    ((36, struct.pack('<q', -3)), 'negative dimension'),
    ((36, struct.pack('<q', 2 ** 40)), r'truncated: array 0 values \(3298534883328 x float32\)'),
    ((52, struct.pack('<i', 4)), 'unknown device type 4'),
    ((60, struct.pack('<i', 13)), 'unknown dtype flag 13'),
    ((60, struct.pack('<i', -1)), 'unknown dtype flag -1'),
    ((88, struct.pack('<Q', 3)), '3 names for 1 arrays'),
])
def test_corrupt_buffers_raise(patch, message):
    raw = _good()
    at, data = patch
    raw[at:at + len(data)] = data
    with pytest.raises(MXNetError, match=r"cannot load <bad>: .*" + message):
        _codec.loads(bytes(raw), source='<bad>')


def test_corrupt_names_raise():
    raw = _file([_codec.dumps_record(torch.ones(1))], names=['x'])
    assert _codec.loads(raw)['x'].tolist() == [1.]
    with pytest.raises(MXNetError, match=r"cannot load <n>: truncated: name 0 \(9 bytes\)"):
        _codec.loads(raw[:-9] + struct.pack('<Q', 9) + b'x', source='<n>')
    bad_utf8 = raw[:-9] + struct.pack('<Q', 1) + b'\xff'
    with pytest.raises(MXNetError, match='not valid UTF-8'):
        _codec.loads(bad_utf8)


def test_corrupt_sparse_records_raise():
    base = struct.pack('<Ii', V2, 2) + struct.pack('<iq', 1, 1) + struct.pack('<iqq', 2, 1, 1) \
        + struct.pack('<iii', 1, 0, 0)
    float_aux = base + struct.pack('<iiq', 0, 1, 2)
    with pytest.raises(MXNetError, match='aux 0 has dtype float32'):
        _codec.loads(_file([float_aux]))
    two_d_aux = base + struct.pack('<iiqq', 6, 2, 1, 2)
    with pytest.raises(MXNetError, match='aux 0 shape must be 1-d'):
        _codec.loads(_file([two_d_aux]))


def test_loads_type_errors():
    with pytest.raises(MXNetTypeError, match='got str'):
        _codec.loads('abc')
    with pytest.raises(MXNetTypeError, match='bytes-like'):
        _codec.loads(123)


# ---------------------------------------------------------------------------------------------------------
# what dumps refuses

@pytest.mark.parametrize('arrays, exc, message', [
    ({1: torch.ones(1)}, MXNetTypeError, 'key 1 is a int'),
    ('abc', MXNetTypeError, 'got str'),
    ([[1.0, 2.0]], MXNetTypeError, 'array 0: expected a torch.Tensor or SparseRecord, got list'),
    ([torch.ones(1, dtype=torch.complex64)], MXNetTypeError, 'complex64 has no MXNet type flag'),
    ([torch.ones(2, 2).to_sparse()], MXNetTypeError, 'layout torch.sparse_coo'),
    ([_codec.SparseRecord('coo', (2,), torch.ones(1), ())], MXNetValueError, "stype must be 'row_sparse' or 'csr'"),
    ([_codec.SparseRecord('csr', (2, 2), torch.ones(1), (torch.tensor([0, 1, 1]),))], MXNetValueError,
     'needs 2 aux arrays'),
    ([_codec.SparseRecord('csr', (2, 2), torch.ones(1), (torch.tensor([0, 1]), torch.tensor([0])))],
     MXNetValueError, 'inconsistent csr record'),
    ([_codec.SparseRecord('row_sparse', (4, 3), torch.ones(2, 2), (torch.tensor([0, 1]),))], MXNetValueError,
     'inconsistent row_sparse record'),
    ([_codec.SparseRecord('row_sparse', (4, 3), torch.ones(1, 3), (torch.tensor([0.5]),))], MXNetValueError,
     'indices must be a 1-d integer tensor'),
])
def test_dumps_rejects(arrays, exc, message):
    with pytest.raises(exc, match=message):
        _codec.dumps(arrays)


# ---------------------------------------------------------------------------------------------------------
# files: atomic writes, paths, fsspec

class _Exploding(torch.Tensor):
    """A tensor whose conversion for saving fails."""

    def detach(self):
        raise RuntimeError('boom: cannot convert')


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith('.tmp'))


def test_save_file_replaces_atomically(tmp_path):
    target = tmp_path / 'model.params'
    _codec.save_file(str(target), {'w': torch.ones(3)})
    assert _leftovers(tmp_path) == []
    old = target.read_bytes()

    bad = {'w': torch.zeros(3), 'x': torch.ones(2).as_subclass(_Exploding)}
    with pytest.raises(RuntimeError, match='boom'):
        _codec.save_file(target, bad)
    assert target.read_bytes() == old and _leftovers(tmp_path) == []

    with pytest.raises(RuntimeError, match='boom'):
        _codec.save_file(tmp_path / 'new.params', [torch.ones(2).as_subclass(_Exploding)])
    assert not (tmp_path / 'new.params').exists() and _leftovers(tmp_path) == []


def test_save_file_failing_mid_write_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / 'model.params'
    _codec.save_file(target, [torch.ones(3)])
    old = target.read_bytes()
    written = []

    def failing_fsync(fd):
        written.append(os.fstat(fd).st_size)
        raise OSError(28, 'No space left on device')

    monkeypatch.setattr(_codec.os, 'fsync', failing_fsync)
    with pytest.raises(MXNetError, match=r"cannot save NDArray file '.*model\.params'.*No space left"):
        _codec.save_file(target, [torch.arange(1000.)])
    assert written and written[0] > len(old)  # the new content had been written to the temporary file
    assert target.read_bytes() == old and _leftovers(tmp_path) == []


def test_save_file_keeps_umask_permissions(tmp_path):
    target = tmp_path / 'p.params'
    _codec.save_file(target, [torch.ones(1)])
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_save_file_through_a_symlink_updates_its_target(tmp_path):
    real = tmp_path / 'real.params'
    _codec.save_file(real, [torch.ones(1)])
    link = tmp_path / 'link.params'
    link.symlink_to(real)
    _codec.save_file(link, [torch.zeros(2)])
    assert link.is_symlink() and _codec.load_file(real)[0].tolist() == [0., 0.]


def test_path_forms(tmp_path):
    p = tmp_path / 'a.params'
    _codec.save_file(p, [torch.ones(1)])
    assert _codec.load_file(p)[0].tolist() == [1.]
    assert _codec.load_file('file://' + str(p))[0].tolist() == [1.]
    _codec.save_file('file://' + str(tmp_path / 'b.params'), [torch.ones(2)])
    assert _codec.load_file(str(tmp_path / 'b.params'))[0].tolist() == [1., 1.]


def test_missing_files(tmp_path):
    missing = tmp_path / 'nope.params'
    with pytest.raises(_codec.MXNetFileNotFoundError, match=r"cannot load NDArray file '.*nope\.params'") as e:
        _codec.load_file(missing)
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, MXNetError)
    with pytest.raises(MXNetError, match=r"cannot load NDArray file '.*'"):
        _codec.load_file(tmp_path)  # a directory
    with pytest.raises(_codec.MXNetFileNotFoundError, match=r"cannot save NDArray file '.*no_dir.*'"):
        _codec.save_file(tmp_path / 'no_dir' / 'x.params', [torch.ones(1)])
    (tmp_path / 'a_dir').mkdir()
    with pytest.raises(MXNetError, match=r"cannot save NDArray file '.*a_dir'"):
        _codec.save_file(tmp_path / 'a_dir', [torch.ones(1)])
    assert _leftovers(tmp_path) == []


def test_fsspec_memory_filesystem():
    fsspec = pytest.importorskip('fsspec')
    url = 'memory://mxcompat-test/codec/model.params'
    data = {'w': torch.arange(6.).reshape(2, 3), 'b': torch.ones(2, dtype=torch.int64)}
    _codec.save_file(url, data)
    with fsspec.open(url, 'rb') as f:
        assert f.read() == _codec.dumps(data)
    back = _codec.load_file(url)
    assert list(back) == ['w', 'b'] and all(_same(back[k], data[k]) for k in data)
    with pytest.raises(_codec.MXNetFileNotFoundError, match='memory://mxcompat-test/codec/nope'):
        _codec.load_file('memory://mxcompat-test/codec/nope')
    with fsspec.open('memory://mxcompat-test/codec/cut', 'wb') as f:
        f.write(_codec.dumps(data)[:40])
    with pytest.raises(MXNetError, match=r"cannot load 'memory://mxcompat-test/codec/cut'.*truncated"):
        _codec.load_file('memory://mxcompat-test/codec/cut')
    fsspec.filesystem('memory').rm('/mxcompat-test', recursive=True)


def test_remote_path_without_fsspec(monkeypatch):
    monkeypatch.setitem(sys.modules, 'fsspec', None)  # makes `import fsspec` raise ImportError
    hint = r"install fsspec \(pip install fsspec and the filesystem's package, e\.g\. s3fs\)"
    with pytest.raises(MXNetError, match=r"'s3://bucket/model\.params'.*" + hint):
        _codec.save_file('s3://bucket/model.params', [torch.ones(1)])
    with pytest.raises(MXNetError, match=r"'hdfs://nn/x\.params'.*" + hint):
        _codec.load_file('hdfs://nn/x.params')


# ---------------------------------------------------------------------------------------------------------
# the real MXNet reads what we write

@pytest.mark.oracle
def test_real_mxnet_loads_our_files(tmp_path):
    # every golden file, rewritten by us
    GEN.write_ours(str(tmp_path))
    spec = GEN.load_sidecar(str(tmp_path))
    # plus larger random arrays of every dtype MXNet 1.9.1 can read, V2 and V3, list and dict
    mx_dtypes = [d for d in ALL_DTYPES if d not in (torch.int16, torch.uint16, torch.uint32, torch.uint64)]

    def entry(name, t):
        return {'name': name, 'stype': 'default', 'dtype': str(t.dtype).replace('torch.', ''),
                'shape': list(t.shape), 'values': _values(t)}

    extra = {
        'random_v2_list.nd': (False, [_random(d, (3, 17), i) for i, d in enumerate(mx_dtypes)]),
        'random_v2_dict.params': (False, {'p%d' % i: _random(d, (2, 3, 4), 50 + i).transpose(0, 2)
                                          for i, d in enumerate(mx_dtypes)}),
        'random_v3_list.nd': (True, [_random(d, shape, 80 + i) for i, d in enumerate(mx_dtypes)
                                     for shape in ((), (0, 4), (5,))]),
    }
    for fname, (np_shape, arrays) in extra.items():
        _codec.save_file(tmp_path / fname, arrays, np_shape=np_shape)
        items = arrays.items() if isinstance(arrays, dict) else [(None, a) for a in arrays]
        spec['files'][fname] = {'np_shape': np_shape, 'form': 'dict' if isinstance(arrays, dict) else 'list',
                                'entries': [entry(k, v) for k, v in items]}
    with open(tmp_path / 'expected.json', 'w') as f:
        json.dump(spec, f)
    proc = subprocess.run([oracle_runner(), str(FIXTURES / 'gen_ndarray_files.py'), '--check', str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'all %d files load in MXNet 1.9.1' % len(spec['files']) in proc.stdout


# ---------------------------------------------------------------------------------------------------------
# sanity of the helpers used above

def test_nan_equal_helper():
    assert GEN._nan_equal([math.nan, -0.0, 1], [math.nan, -0.0, 1])
    assert not GEN._nan_equal([0.0], [-0.0]) and not GEN._nan_equal([True], [1]) and not GEN._nan_equal([1], [1, 2])


# ---------------------------------------------------------------------------------------------------------
# mx.nd.save / load and NumPy shape semantics

def test_np_shape_files_load_only_under_np_shape(tmp_path):
    p = tmp_path / 'np.nd'
    p.write_bytes(_golden_bytes('np_shape.nd'))  # written by MXNet 1.9.1 under np_shape(True): V3 records
    with mx.util.np_shape(True):
        loaded = mx.nd.load(str(p))
    assert loaded
    with pytest.raises(MXNetError, match='np shape semantics'):
        mx.nd.load(str(p))
    with pytest.raises(MXNetError, match='np shape semantics'):
        mx.nd.load_frombuffer(p.read_bytes())


def test_legacy_files_refused_under_thread_local_np_shape(tmp_path):
    """MXNet's rule (checked against MXNet 1.9.1): a file of legacy (V2) records does not load while np-shape
    semantics are on for this thread only (np_shape(True), set_np_shape(True), npx.set_np(array=False)), and
    loads in other threads and once they are off."""
    p = tmp_path / 'v2.nd'
    mx.nd.save(str(p), [mx.nd.ones((2, 3)), mx.nd.empty((0, 4))])
    for scope in (lambda: mx.util.np_shape(True), lambda: _np_set(mx)):
        with scope():
            with pytest.raises(MXNetError, match='not saved in np shape semantics'):
                mx.nd.load(str(p))
            with pytest.raises(MXNetError, match='not saved in np shape semantics'):
                mx.nd.load_frombuffer(p.read_bytes())
            other = []
            t = threading.Thread(target=lambda: other.append(mx.nd.load(str(p))))
            t.start()
            t.join()
            assert [a.shape for a in other[0]] == [(2, 3), (0, 4)]
    assert [a.shape for a in mx.nd.load(str(p))] == [(2, 3), (0, 4)]


@contextlib.contextmanager
def _np_set(mx):
    mx.npx.set_np(shape=True, array=False)
    try:
        yield
    finally:
        mx.npx.reset_np()


def test_save_under_np_shape_writes_v3_zero_size_and_scalars(tmp_path):
    p = tmp_path / 'z.nd'
    with mx.util.np_shape(True):
        mx.nd.save(str(p), {'a': mx.nd.zeros((0, 3)), 'b': mx.nd.full((), 2.5)})
        back = mx.nd.load(str(p))
    assert struct.unpack('<I', p.read_bytes()[24:28])[0] == 0xF993FACA
    assert back['a'].shape == (0, 3) and back['b'].shape == () and back['b'].asscalar() == 2.5
    mx.nd.save(str(p), [mx.nd.empty((0, 3))])  # legacy semantics: a V2 record with no values
    assert struct.unpack('<I', p.read_bytes()[24:28])[0] == 0xF993FAC9
    assert mx.nd.load(str(p))[0].shape == (0, 3)
