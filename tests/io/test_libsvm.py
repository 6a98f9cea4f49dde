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
from mxcompat.io import _libsvm

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


# ---- the whole-text fast path (_strict_rows) against the line-by-line parser (_exact_rows) ------------------------
DIGITS = list('0123456789')
NUMBER_CHARS = list('0123456789+-.eE')


def _number(rng):
    """A value or label as files write them, or an odd run of number characters."""
    r = rng.random()
    if r < 0.1:
        return ''.join(rng.choice(NUMBER_CHARS, rng.integers(1, 9)))
    if r < 0.15:
        return ''.join(rng.choice(DIGITS, rng.integers(18, 80)))  # past 19 digits and past the column parser's 64
    if r < 0.25:
        return str(rng.choice(['1e-45', '.5', '5.', '+3', '-0', '3.4028235e38', '1e39', '1e-39', '-1.17549435e-38',
                               '9' * 25 + 'e-60', '1e4294967297', '-.e', 'e', '.', '+', '-', '0.' + '3' * 30]))
    s = str(rng.choice(['', '+', '-'], p=[.6, .2, .2])) + ''.join(rng.choice(DIGITS, rng.integers(0, 6)))
    if rng.random() < 0.6:
        s += '.' + ''.join(rng.choice(DIGITS, rng.integers(0, 25)))
    if rng.random() < 0.3:
        s += str(rng.choice(['e', 'E', 'e-', 'E+', 'e+'])) + ''.join(rng.choice(DIGITS, rng.integers(0, 4)))
    return s or '0'


def _index(rng, negative=0.0):
    r = rng.random()
    if r < negative:
        return '-%d' % rng.integers(0, 9)
    if r < 0.08:
        return ''.join(rng.choice(list('0123456789+.eE'), rng.integers(1, 6)))
    if r < 0.12:
        return ''.join(rng.choice(DIGITS, rng.integers(18, 80)))
    return ('+' if rng.random() < 0.1 else '') + str(rng.integers(0, 10 ** rng.integers(1, 8)))


def _strict_text(rng, negative=0.0):
    """Lines ``label[:weight] index:value ...`` (or blank), with the spacing and line ends files have."""
    lines = []
    for _ in range(rng.integers(0, 12)):
        if rng.random() < 0.1:
            lines.append(str(rng.choice(['', ' ', '\t '])))
            continue
        line = ' ' * rng.integers(0, 2) + _number(rng) + (':' + _number(rng) if rng.random() < 0.2 else '')
        for _ in range(rng.integers(0, 9)):
            line += str(rng.choice([' ', '  ', '\t'])) + _index(rng, negative) + ':' + _number(rng)
        lines.append(line + str(rng.choice(['', ' ', '\t', ' \t '])))
    text = str(rng.choice(['\n', '\r\n', '\r'])).join(lines) + str(rng.choice(['', '\n', '\r\n']))
    return text.encode('latin-1')


def _rows(parse, *args):
    """The parsed rows with the floats as bits, the error message, or None (not in the fast path's form)."""
    try:
        rows = parse(*args)
    except MXNetError as e:
        return str(e)
    if rows is None:
        return None
    labels, indptr, indices, values = rows
    assert (labels.dtype, indptr.dtype, indices.dtype, values.dtype) == (np.float32, np.int64, np.uint64, np.float32)
    return labels.view(np.uint32).tolist(), indptr.tolist(), indices.tolist(), values.view(np.uint32).tolist()


def test_fast_path_matches_line_by_line_parser():
    rng = np.random.default_rng(7)
    errors = 0
    for k in range(400):
        data = _strict_text(rng, negative=0.02 if k % 4 == 0 else 0.0)
        fast, exact = _rows(_libsvm._strict_rows, data, 'w'), _rows(_libsvm._exact_rows, data.decode('latin-1'), 'w')
        assert fast is not None and fast == exact, data
        errors += isinstance(exact, str)
    assert 10 < errors < 100  # the negative-index error is raised the same way on both paths


@pytest.mark.parametrize('data', [
    b'', b'\n\r\n', b'  \t\n', b'1', b'1\n', b'-1:0.5', b'1 0:1 \r\n\r\n2 3:4\t\r\n', b'1 0:1\r2 3:4\r',
    b'  1\t0:1e-45  2:.5 3:5.\n\n0 \n', b'+1:2 3:+4e+2 5:-.5E-3\n', b'1 0:' + b'7' * 70 + b' 1:0.' + b'3' * 70,
    b'e 0:e 1:- 2:+ 3:1.2.3 4:1e5e3 5:--1\n'])
def test_fast_path_forms(data):
    fast = _rows(_libsvm._strict_rows, data, 'w')
    assert fast is not None and fast == _rows(_libsvm._exact_rows, data.decode('latin-1'), 'w')


# text outside the strict form, and what the line-by-line parser made of it before the fast path existed
OTHER_FORMS = [
    (b'# head 1:2\n1 0:1 # note 2:3\n#x 1:2e1\n', ([1, 1], [0, 1, 1], [0], [1])),  # a '#' is a comment on line 1
    (b'1 qid:3 0:1 2:2.5\n', ([1], [0, 2], [0, 2], [1, 2.5])),
    (b'1 0 : 2\n3 :4  1:\t5\n', ([1, 3], [0, 1, 2], [0, 1], [2, 5])),
    (b'1:0.5  3:4\tx 5:6\n', ([1], [0, 2], [3, 5], [4, 6])),
    (b'\xe91 0:1\n', ([1], [0, 1], [0], [1])),
    (b':1 0:2\n', ([1], [0, 1], [0], [2])),
    (b'1 0:1:\n', ([1], [0, 1], [0], [1])),
    (b'1 2:3e#1\n', ([1], [0, 1], [2], [3])),
    (b'1 0:+1\x0b 2:5\n', ([1], [0, 2], [0, 2], [1, 5])),
    (b'1 0:1:2\n', "feature '2' without a value"),
    (b'1 2\n', "feature '2' without a value"),
    (b'1,5 2:3\n', "feature '5' without a value"),
]


@pytest.mark.parametrize('data, expected', OTHER_FORMS)
def test_other_forms_go_line_by_line(data, expected):
    assert _libsvm._strict_rows(data, 'w') is None
    got = _rows(_libsvm._parse_text, data, 'w')
    assert got == _rows(_libsvm._exact_rows, data.decode('latin-1'), 'w')
    if isinstance(expected, str):
        assert expected in got
    else:
        labels, indptr, indices, values = expected
        assert got == (np.float32(labels).view(np.uint32).tolist(), indptr, indices,
                       np.float32(values).view(np.uint32).tolist())


def test_vectorised_numbers_match_one_at_a_time():
    rng = np.random.default_rng(3)
    tokens = [_number(rng) for _ in range(3000)]
    tokens += [''.join(rng.choice(NUMBER_CHARS, rng.integers(0, 30))) for _ in range(3000)] + ['']
    got = _libsvm._parse_floats(*_libsvm._runs(tokens))
    want = _libsvm._slow_floats(tokens)  # the per-run reader, regular-expression based
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()

    def index(tok):  # an optional '+', the digits up to the first other character, modulo 2**64
        value = 0
        for ch in tok[1:] if tok[0] == '+' else tok:
            if not ch.isdigit():
                break
            value = (value * 10 + int(ch)) % 2 ** 64
        return value
    tokens = [_index(rng) for _ in range(3000)] + ['+', '++5', '+1e3', '9' * 5000]
    assert _libsvm._parse_indices(*_libsvm._runs(tokens), 'w').tolist() == [index(t) for t in tokens]
    # more than the 4300 digits Python's int() reads; 2**64 divides 10**64, so the last 64 digits decide
    np.testing.assert_array_equal(_libsvm._parse_floats(*_libsvm._runs(['1' * 5000, '2e' + '1' * 5000])),
                                  _libsvm._slow_floats([str(int('1' * 64)), '2e38']))
    with pytest.raises(MXNetError, match="negative feature index '-3' in w"):
        _libsvm._parse_indices(*_libsvm._runs(['1', '-3', '-4']), 'w')
