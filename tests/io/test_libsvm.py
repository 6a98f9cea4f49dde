"""mxcompat.io.LibSVMIter (mxcompat/io/_libsvm.py).

References: batches and errors recorded from the real MXNet 1.9.1 in tests/fixtures/io_libsvm/io_libsvm.json
(see gen_io_libsvm.py, which also wrote the input files).
"""
import json
import pathlib
import re

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'io_libsvm'
GOLD = json.loads((FIX / 'io_libsvm.json').read_text())
# the configurations of gen_io_libsvm.py (paths relative to the fixture directory)
CONFIGS = {k: v['kwargs'] for k, v in GOLD['configs'].items()}
ERRORS = {k: v['kwargs'] for k, v in GOLD['errors'].items() if v and 'kwargs' in v}
UNSORTED = {'odd', 'one_based', 'auto_based'}  # files whose rows list indices out of order (kept as MXNet does)
# the part of MXNet's message we check (the rest names C++ source lines or differs in wording)
KEY = {'no_batch_size': 'Required parameter batch_size', 'dtype_float64': 'data type do not match',
       'dtype_int32': 'data type do not match', 'negative_index': 'sign == true',
       'uri_unknown_arg': "Cannot find argument 'foo'"}


def _fixture_paths(kw, monkeypatch):
    monkeypatch.chdir(FIX)  # MXNet was run from the fixture directory with these relative paths
    return dict(kw)


def _as_record(a):
    out = {'stype': a.stype, 'shape': list(a.shape), 'dtype': np.dtype(a.dtype).name}
    if a.stype == 'csr':
        out.update(indices=a.indices.asnumpy().tolist(), indptr=a.indptr.asnumpy().tolist(),
                   bits=a.data.asnumpy().view(np.uint32).tolist())
    else:
        out['bits'] = a.asnumpy().view(np.uint32).tolist()
    return out


@pytest.mark.parametrize('name', sorted(CONFIGS))
def test_batches_match_mxnet(name, monkeypatch):
    gold = GOLD['configs'][name]
    it = mx.io.LibSVMIter(**_fixture_paths(CONFIGS[name], monkeypatch))
    assert repr(it.provide_data) == gold['provide_data']
    assert repr(it.provide_label) == gold['provide_label']
    assert it.batch_size == gold['batch_size']
    for epoch in gold['epochs']:
        got = []
        for b in it:
            assert isinstance(b.data[0], mx.nd.sparse.CSRNDArray)
            if name not in UNSORTED:
                b.data[0].check_format(True)
            got.append({'data': _as_record(b.data[0]), 'label': _as_record(b.label[0]), 'pad': b.pad,
                        'index': b.index.tolist()})
            assert b.index.dtype == np.uint64
        assert got == epoch
        it.reset()


def test_dense_views_and_getters(monkeypatch):
    it = mx.io.LibSVMIter(**_fixture_paths(CONFIGS['b3'], monkeypatch))
    b = it.next()
    np.testing.assert_array_equal(b.data[0].asnumpy(), np.array([[0.5, 0, 1.2], [0, 0, 0], [0.6, 2.4, 1.2]],
                                                                np.float32))
    assert it.iter_next()
    assert it.getdata().stype == 'csr' and it.getlabel().stype == 'default' and it.getpad() == 1
    np.testing.assert_array_equal(it.getlabel().asnumpy(), [4, 5, 1])
    assert not it.iter_next()


@pytest.mark.parametrize('name', sorted(ERRORS))
def test_errors_match_mxnet(name, monkeypatch):
    gold = GOLD['errors'][name]
    assert gold['type'] == 'MXNetError'
    key = KEY.get(name) or re.sub(r'^MXNetError: (\[[^\]]*\] \S+: )?', '', gold['message']).split(' : ')[-1]
    key = key.split(' (')[0] if name.startswith('part') or name == 'num_parts_0' else key
    with pytest.raises(MXNetError) as info:
        for _ in mx.io.LibSVMIter(**_fixture_paths(ERRORS[name], monkeypatch)):
            pass
    assert key.strip() in str(info.value), (key, str(info.value))
    assert 'LibSVMIter' in str(info.value)


def test_index_out_of_range_raises_early(monkeypatch):
    # MXNet yields a CSRNDArray whose check_format fails (GOLD['errors']['index_out_of_range']); we raise on reading
    assert 'kCSRIdxErr' in GOLD['errors']['index_out_of_range']['message']
    monkeypatch.chdir(FIX)
    with pytest.raises(MXNetError, match=r'LibSVMIter: feature index 2 of row 0 .* out of range for shape \(2,\)'):
        mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(2,), batch_size=5)
    with pytest.raises(MXNetError, match='label_libsvm.*out of range'):
        mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), label_libsvm='label.t', label_shape=(2,),
                         batch_size=2)
    with pytest.raises(MXNetError, match='out of range'):  # 0 in a 1-based file
        mx.io.LibSVMIter(data_libsvm='data.t?indexing_mode=1', data_shape=(3,), batch_size=2)


def test_known_gaps_and_extra_checks(tmp_path, monkeypatch):
    monkeypatch.chdir(FIX)
    with pytest.raises(MXNetNotImplementedError, match='LibSVMIter.*cachefile'):
        mx.io.LibSVMIter(data_libsvm='data.t#cache', data_shape=(3,), batch_size=2)
    with pytest.raises(MXNetNotImplementedError, match='LibSVMIter.*label_shape'):
        mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), label_libsvm='label.t', label_shape=(3, 1),
                         batch_size=2)
    with pytest.raises(MXNetNotImplementedError, match='LibSVMIter'):
        mx.io.LibSVMIter(data_libsvm='s3://bucket/data.t', data_shape=(3,), batch_size=2)
    with pytest.raises(MXNetError, match='LibSVMIter: batch_size must be positive'):  # MXNet crashes
        mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=0)
    bad = tmp_path / 'novalue.t'
    bad.write_text('1 0:1 2\n')  # MXNet: dmlc "Check failed: offset.back() == value.size()"
    with pytest.raises(MXNetError, match='without a value'):
        mx.io.LibSVMIter(data_libsvm=str(bad), data_shape=(3,), batch_size=1)
    with pytest.raises(TypeError, match='keyword'):
        mx.io.LibSVMIter('data.t', data_libsvm='data.t', data_shape=(3,), batch_size=2)


def test_larger_file_and_parts_cover_all_rows(tmp_path):
    rng = np.random.default_rng(0)
    dense = np.where(rng.random((257, 40)) < 0.2, rng.integers(-99, 99, (257, 40)) / 8, 0).astype(np.float32)
    path = tmp_path / 'big.t'
    path.write_text(''.join('%d %s\n' % (i, ' '.join('%d:%r' % (j, float(v)) for j, v in enumerate(row) if v))
                            for i, row in enumerate(dense)))
    seen = []
    for part in range(4):
        it = mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(40,), batch_size=16, num_parts=4, part_index=part)
        for b in it:
            rows = b.label[0].asnumpy().astype(int)[:16 - b.pad]
            np.testing.assert_array_equal(b.data[0].asnumpy()[:16 - b.pad], dense[rows])
            seen += rows.tolist()
    assert seen == list(range(257))
