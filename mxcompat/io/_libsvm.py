"""mx.io.LibSVMIter: batches of LibSVM-format rows as CSRNDArrays.

The reader follows MXNet 1.9.1 (dmlc-core's libsvm parser and text InputSplit, MXNet's sparse batch loader):

* a line is ``label[:weight] [qid:N] index:value ...``; indices are 0-based unless the path carries
  ``?indexing_mode=1`` (1-based) or ``?indexing_mode=-1`` (1-based when no index is 0); the weight and qid are
  read and dropped; tokens are found the way dmlc does it (runs of ``0-9+-.eE``, anything else is skipped), and
  numbers are converted with dmlc's float32 arithmetic, so values match MXNet bit for bit;
* ``#`` starts a comment where a token may start, except at the start of a line: dmlc only honours a ``#`` there on
  the first line of the part it reads (on the other lines the ``e``/``E`` of a comment are read as numbers);
* ``num_parts``/``part_index`` split the bytes of the (concatenated) files into equal ranges, each moved to the next
  line start, as dmlc's InputSplit does; a directory means its non-empty files (sorted by name), ``;`` separates
  several paths;
* batches keep MXNet's round-robin end: the last batch is completed from the start of the data (``pad`` counts the
  borrowed rows) and the next epoch continues after them.

Differences: a feature index outside ``data_shape`` (or ``label_shape``) raises MXNetError when the file is read
(MXNet builds an invalid CSRNDArray that fails ``check_format`` or crashes later); a feature without ``:value``
raises (MXNet fails, or reads garbage when no feature of a parse block has a value); a comment-looking first line of
a part longer than dmlc's 16 MB chunk is not special-cased; ``?indexing_mode=-1`` looks at the whole part where
dmlc looks at each parse block (one per thread); the file is read whole at the first batch.
"""
import os
import re

import numpy as np

from ..base import MXNetError, unsupported
from ..context import cpu

_API = 'LibSVMIter'

# one token pair as dmlc's ParsePair reads it, after IgnoreCommentAndBlank (blanks, then '#' ends the line):
# skip non-number characters, a number run, blanks, then optionally ':' and a second number run
_NUM = r'[0-9+\-.eE]'
_NON = r'[^0-9+\-.eE]'
_PAIR = re.compile(r'[ \t]*(?![ \t])(?:#.*|%s*(%s+)[ \t]*(?:(:)%s*(%s*))?)' % (_NON, _NUM, _NON, _NUM))
# the label of a line that is not the first of the part: the '#' test sees the newline and does not fire
_LABEL = re.compile(r'%s*(%s+)[ \t]*(?:(:)%s*(%s*))?' % (_NON, _NUM, _NON, _NUM))
_QID = re.compile(r' *qid:%s*' % _NUM)
_FLOAT = re.compile(r'([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?)(\d*))?')
_UINT = re.compile(r'([+-]?)(\d*)')
_NEWLINE = re.compile(r'[\r\n]')

_F32 = np.float32
_MAX_DIGITS = 19  # fraction digits dmlc reads
_U64 = 1 << 64


def _scale(expon):
    s = _F32(1.0)
    while expon >= 8:
        s, expon = s * _F32(1e8), expon - 8
    while expon > 0:
        s, expon = s * _F32(10.0), expon - 1
    return s


_SCALES = np.array([_scale(e) for e in range(39)], np.float32)


def _slow_floats(tokens):
    """float32 values of number runs, computed as dmlc's ParseFloat<float> does (digits before the point as an
    integer, up to 19 fraction digits, a float scale of at most 1e38); any run, one at a time."""
    n = len(tokens)
    neg, pre, frac, pow10, has_point = np.zeros(n, bool), np.zeros(n, np.uint64), np.zeros(n, np.uint64), \
        np.ones(n, np.float64), np.zeros(n, bool)
    expon, divide = np.zeros(n, np.int64), np.zeros(n, bool)
    for k, tok in enumerate(tokens):
        sign, ip, fp, esign, ep = _FLOAT.match(tok).groups()
        neg[k] = sign == '-'
        pre[k] = int(ip) % _U64 if ip else 0
        if fp is not None:
            fp = fp[:_MAX_DIGITS]
            has_point[k], frac[k], pow10[k] = True, int(fp) if fp else 0, float(10 ** len(fp))
        if ep is not None:
            expon[k], divide[k] = min(int(ep) % (1 << 32) if ep else 0, 38), esign == '-'
    return _float32_value(neg, pre, has_point, frac, pow10, expon, divide)


def _float32_value(neg, pre, has_point, frac, pow10, expon, divide):
    """dmlc's float arithmetic on the parsed pieces of each number."""
    with np.errstate(over='ignore', under='ignore'):
        value = pre.astype(np.float32)
        value = np.where(has_point, value + (frac.astype(np.float64) / pow10).astype(np.float32), value)
        top = expon == 38
        value = np.where(top & ~divide & (value > _F32(3.402823466)), _F32(3.402823466), value)
        value = np.where(top & divide & (value < _F32(1.175494351)), _F32(1.175494351), value)
        scale = _SCALES[expon]
        value = np.where(divide, value / scale, value * scale).astype(np.float32)
    return np.where(neg, -value, value)


_P10 = np.array([10 ** k for k in range(20)], np.uint64)
_P10F = np.array([float(10 ** k) for k in range(20)], np.float64)
_FAR = 1 << 40


class _Chars:
    """The characters of many number runs at once, for vectorised parsing."""

    def __init__(self, tokens):
        self.n = n = len(tokens)
        self.lens = np.fromiter(map(len, tokens), np.int64, n)
        self.c = np.frombuffer(''.join(tokens).encode('latin-1'), np.uint8)
        self.starts = np.zeros(n, np.int64)
        np.cumsum(self.lens[:-1], out=self.starts[1:])
        self.tok = np.repeat(np.arange(n), self.lens)
        self.pos = np.arange(len(self.c)) - self.starts[self.tok]
        self.digit = (self.c >= 48) & (self.c <= 57)
        self.d = self.c.astype(np.uint64) - np.uint64(48)

    def count(self, mask):
        return np.add.reduceat(mask.astype(np.int64), self.starts)

    def first(self, mask):
        return np.minimum.reduceat(np.where(mask, self.pos, _FAR), self.starts)

    def number(self, mask, last):
        """Per run, the integer written by the digits under mask, the last of them at position ``last``."""
        k = np.clip(last[self.tok] - self.pos, 0, 19)
        return np.add.reduceat(np.where(mask, self.d * _P10[k], np.uint64(0)), self.starts)


def _parse_floats(tokens):
    """float32 values of number runs as dmlc reads them: runs of the plain form [sign]digits[.digits][e[sign]digits]
    are parsed with numpy, any other run one at a time."""
    if not tokens:
        return np.zeros(0, np.float32)
    tokens = [t or '0' for t in tokens] if '' in tokens else tokens
    ch = _Chars(tokens)
    c, pos, tok, lens, starts = ch.c, ch.pos, ch.tok, ch.lens, ch.starts
    dot, e, sign = c == 46, (c | 32) == 101, (c == 43) | (c == 45)
    dpos, epos = ch.first(dot), ch.first(e)
    lead = sign[starts]
    has_e = epos < lens
    after_e = np.where(has_e & (epos + 1 < lens), starts + epos + 1, starts)
    esign = has_e & (epos + 1 < lens) & sign[after_e]
    int_end = np.minimum(np.minimum(dpos, epos), lens)
    frac_end = np.minimum(epos, lens)
    in_int = ch.digit & (pos < int_end[tok])
    in_frac = ch.digit & (pos > dpos[tok]) & (pos < frac_end[tok]) & (pos <= dpos[tok] + _MAX_DIGITS)
    in_exp = ch.digit & (pos > epos[tok])
    nfrac = ch.count(in_frac)
    regular = ((ch.count(dot) <= 1) & (ch.count(e) <= 1) & (ch.count(sign) == lead + esign) & ~(dpos > epos)
               & (ch.count(in_int) <= 19) & (ch.count(in_exp) <= 9))
    pre = ch.number(in_int, int_end - 1)
    frac = ch.number(in_frac, dpos + nfrac)
    expon = np.minimum(ch.number(in_exp, lens - 1).astype(np.int64), 38)
    value = _float32_value(c[starts] == 45, pre, dpos < lens, frac, _P10F[nfrac], expon,
                           esign & (c[after_e] == 45))
    odd = np.flatnonzero(~regular)
    if len(odd):
        value[odd] = _slow_floats([tokens[i] for i in odd])
    return value


def _parse_indices(tokens, what):
    """Feature indices as dmlc's ParseUnsignedInt reads them (a '-' sign is an error)."""
    if not tokens:
        return np.zeros(0, np.uint64)
    ch = _Chars(tokens)
    first = ch.c[ch.starts]
    if (first == 45).any():
        tok = tokens[int(np.argmax(first == 45))]
        raise MXNetError('%s: Check failed: sign == true (0 vs. 1) : negative feature index %r in %s'
                         % (_API, tok, what))
    lead = first == 43
    regular = (ch.count(ch.digit) == ch.lens - lead) & (ch.lens - lead <= 19)
    value = ch.number(ch.digit, ch.lens - 1)
    for i in np.flatnonzero(~regular):  # digits up to the first other character, modulo 2**64
        digits = _UINT.match(tokens[i]).group(2)
        value[i] = int(digits) % _U64 if digits else 0
    return value


def _parse_text(text, what):
    """Rows of a part: (labels float32, indptr int64, indices uint64, values float32)."""
    labels, counts, pairs = [], [], []
    for lineno, line in enumerate(_NEWLINE.split(text)):
        m = (_PAIR if lineno == 0 else _LABEL).match(line)
        if m is None or not m.group(1):
            continue
        labels.append(m.group(1))
        pos = m.end()
        q = _QID.match(line, pos)
        if q is not None:
            pos = q.end()
        found = _PAIR.findall(line, pos)  # (index, ':', value), or ('', '', '') for a comment
        if found and not found[-1][0]:
            found.pop()  # a comment runs to the end of the line, so it can only be the last match
        counts.append(len(found))
        pairs += found
    idx, colons, vals = zip(*pairs) if pairs else ((), (), ())
    if '' in colons:
        bad = colons.index('')
        raise MXNetError('%s: feature %r without a value in %s: features must be index:value'
                         % (_API, idx[bad], what))
    indptr = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    return _parse_floats(labels), indptr, _parse_indices(list(idx), what), _parse_floats(list(vals))


# ---- the files of a path and the byte range of one part (dmlc's text InputSplit) ----------------------------------
def _uri_args(api_path):
    """Split dmlc's ``path?key=value&...#cachefile`` into the path and the parser arguments."""
    if '#' in api_path:
        raise unsupported('mx.io.LibSVMIter', 'a #cachefile in %r' % api_path, 'dmlc disk caches are not ported')
    path, _, query = api_path.partition('?')
    args = {'format': 'libsvm', 'indexing_mode': 0}
    for item in query.split('&') if query else ():
        key, eq, value = item.partition('=')
        if not eq:
            raise MXNetError('%s: Invalid uri argument format for %r' % (_API, item))
        if key not in args:
            raise MXNetError("%s: Cannot find argument '%s', Possible Arguments: format, indexing_mode" % (_API, key))
        args[key] = value
    if args['format'] != 'libsvm':
        raise MXNetError('%s: Check failed: param_.format == "libsvm" (%s vs. libsvm)' % (_API, args['format']))
    try:
        args['indexing_mode'] = int(args['indexing_mode'])
    except ValueError:
        raise MXNetError('%s: Invalid Parameter format for indexing_mode expect int but value=%r'
                         % (_API, args['indexing_mode'])) from None
    return path, args


def _files(path):
    from .io import _open_local
    out = []
    for p in path.split(';'):
        local = p[len('file://'):] if p.startswith('file://') else p
        if os.path.isdir(local):
            names = sorted(os.listdir(local))
            out += [os.path.join(local, f) for f in names if os.path.isfile(os.path.join(local, f))]
        else:
            _open_local(_API, p).close()  # raises MXNet's error for a missing file or a remote URI
            out.append(local)
    out = [f for f in out if os.path.getsize(f) > 0]
    if not out:
        raise MXNetError('%s: Check failed: files_.size() != 0U (0 vs. 0) : Cannot find any files that matches the '
                         'URI pattern %s' % (_API, path))
    return out


_TO_LINE_START = re.compile(rb'[^\r\n]*(?:[\r\n]+|$)')


def _line_start(data, pos):
    """dmlc's SeekRecordBegin from pos: past the next newline run (reading at least one character)."""
    return _TO_LINE_START.match(data, pos).end()


def _part_text(path, part_index, num_parts):
    """The text of part ``part_index`` of ``num_parts`` byte ranges of the files, files joined by newlines."""
    contents = []
    for f in _files(path):
        with open(f, 'rb') as fh:
            contents.append(fh.read())
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in contents])]).tolist()
    total = offsets[-1]
    step = (total + num_parts - 1) // num_parts
    begin, end = min(step * part_index, total), min(step * (part_index + 1), total)
    if begin == end:
        return ''

    def adjust(pos):  # a position inside a file moves to the next line start of that file
        k = int(np.searchsorted(offsets, pos, side='right')) - 1
        if pos == offsets[k]:
            return pos
        return offsets[k] + _line_start(contents[k], pos - offsets[k])

    begin, end = adjust(begin), adjust(end)
    pieces = []
    for k, c in enumerate(contents):
        lo, hi = max(begin, offsets[k]), min(end, offsets[k + 1])
        if lo < hi:
            pieces.append(c[lo - offsets[k]:hi - offsets[k]])
    return b'\n'.join(pieces).decode('latin-1')


class _Part:
    """The parsed rows of one part of a LibSVM file set, checked against the number of columns."""

    def __init__(self, api_path, p, columns, what):
        path, args = _uri_args(api_path)
        labels, indptr, indices, values = _parse_text(_part_text(path, p.part_index, p.num_parts), what)
        mode = args['indexing_mode']
        if mode > 0 or (mode < 0 and len(indices) and indices.min() > 0):
            indices = indices - np.uint64(1)  # 0 becomes 2**64 - 1, out of range below, as in MXNet
        if len(indices) and int(indices.max()) >= columns:
            bad = int(np.argmax(indices >= np.uint64(columns)))
            row = int(np.searchsorted(indptr, bad, side='right')) - 1
            raise MXNetError('%s: feature index %d of row %d of %s is out of range for shape (%d,) (MXNet builds an '
                             'invalid CSRNDArray here)' % (_API, int(indices[bad]), row, what, columns))
        self.labels, self.indptr, self.indices, self.values = labels, indptr, indices.astype(np.int64), values
        self.rows = len(labels)

    def csr(self, rows):
        """(values, indices, indptr) of the given rows, in order."""
        starts, stops = self.indptr[rows], self.indptr[rows + 1]
        lengths = stops - starts
        indptr = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(lengths, out=indptr[1:])
        take = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])
        return self.values[take], self.indices[take], indptr


class _SparseBatches:
    """MXNet's sparse batch loader over the rows of a part: full batches; the last one is completed from the first
    rows (pad = rows borrowed) and the next epoch starts after them. Yields (data, label, pad, index)."""

    def __init__(self, p, data, label):
        self.p, self.data, self.label = p, data, label
        self.pos, self.num_overflow = 0, 0

    def before_first(self):
        if self.num_overflow == 0:
            self.pos = 0
        else:
            self.num_overflow = 0

    def next(self):
        bs, n = self.p.batch_size, self.data.rows
        if self.num_overflow != 0 or self.pos >= n:
            return None
        rows = np.arange(self.pos, min(self.pos + bs, n))
        self.pos = rows[-1] + 1
        pad = 0
        if len(rows) < bs:
            pad = bs - len(rows)
            self.num_overflow = pad
            if pad > n:
                raise MXNetError('%s: Check failed: sparse_base_->Next(): number of input must be bigger than batch '
                                 'size' % _API)
            rows = np.concatenate([rows, np.arange(pad)])
            self.pos = pad
        if self.label is None:
            label = self.data.labels[rows]
        else:
            if rows.max() >= self.label.rows:
                raise MXNetError("%s: Check failed: label_parser_->Next(): Data LibSVM's row is smaller than the "
                                 "number of rows in label_libsvm" % _API)
            label = self.label.csr(rows)
        return self.data.csr(rows), label, pad, rows.astype(np.uint64)


def _make_iter_class():
    from .io import MXDataIter

    class LibSVMDataIter(MXDataIter):
        """MXDataIter whose data (and label, with ``label_libsvm``) are CSRNDArrays."""

        def __init__(self, handle, shapes, **kwargs):
            self._shapes = shapes
            super().__init__(handle, **kwargs)

        def getdata(self):
            from ..ndarray.sparse import csr_matrix
            return csr_matrix(self._cur(0), shape=self._shapes[0], ctx=cpu(0))

        def getlabel(self):
            if self._shapes[1] is None:  # dense labels, the first number of each line
                return super().getlabel()
            from ..ndarray.sparse import csr_matrix
            return csr_matrix(self._cur(1), shape=self._shapes[1], ctx=cpu(0))

    return LibSVMDataIter


_ITER_CLASS = []


def libsvm_iter(kwargs):
    from .io import _BATCH, _PREFETCH, _REQUIRED, _Params
    spec = dict({'data_libsvm': ('string', _REQUIRED), 'data_shape': ('Shape(tuple)', _REQUIRED),
                 'label_libsvm': ('string', 'NULL'), 'label_shape': ('Shape(tuple)', (1,)),
                 'num_parts': ('int', 1), 'part_index': ('int', 0)}, **_BATCH, **_PREFETCH)
    p = _Params(_API, kwargs, spec)
    if len(p.data_shape) != 1:
        raise MXNetError('%s: Check failed: param_.data_shape.ndim() == 1 (%d vs. 1) : dimension of data_shape is '
                         'expected to be 1' % (_API, len(p.data_shape)))
    if p.num_parts <= 0:
        raise MXNetError('%s: Check failed: param_.num_parts > 0 (%d vs. 0) : number of parts should be positive'
                         % (_API, p.num_parts))
    if p.part_index < 0:
        raise MXNetError('%s: Check failed: param_.part_index >= 0 (%d vs. 0) : part index should be non-negative'
                         % (_API, p.part_index))
    if p.part_index >= p.num_parts:
        raise MXNetError('%s: Check failed: part < nsplit: invalid input parameter for InputSplit::Create (part_index '
                         '%d, num_parts %d)' % (_API, p.part_index, p.num_parts))
    label_size = int(np.prod(p.label_shape))
    if p.label_libsvm != 'NULL':
        if label_size <= 1:
            raise MXNetError('%s: Check failed: param_.label_shape.Size() > 1 (%d vs. 1) : label_shape is not expected '
                             'to be (1,) when param_.label_libsvm is set.' % (_API, label_size))
        if len(p.label_shape) != 1:
            raise unsupported('mx.io.LibSVMIter', 'label_shape=%s with label_libsvm' % (p.label_shape,),
                              'MXNet returns a CSRNDArray of more than 2 dimensions there; give a 1-d label_shape')
    elif label_size != 1:
        raise MXNetError('%s: Check failed: param_.label_shape.Size() == 1 (%d vs. 1) : label_shape is expected to be '
                         '(1,) when param_.label_libsvm is NULL' % (_API, label_size))
    if not p.round_batch:
        raise MXNetError("%s: sparse batch loader doesn't support round_batch == false yet" % _API)
    if p.batch_size <= 0:
        raise MXNetError('%s: batch_size must be positive, got %d (MXNet crashes)' % (_API, p.batch_size))
    data = _Part(p.data_libsvm, p, p.data_shape[0], 'data_libsvm %s' % p.data_libsvm)
    label = None
    if p.label_libsvm != 'NULL':
        label = _Part(p.label_libsvm, p, p.label_shape[0], 'label_libsvm %s' % p.label_libsvm)
    if p.dtype not in (None, 'float32'):
        raise MXNetError('%s: Check failed: mshadow::DataType<DType>::kFlag == type_flag_: TBlob.get_with_shape: data '
                         'type do not match specified type.Expected: %s v.s. given float (LibSVMIter reads float32 '
                         'only; dtype=%s)' % (_API, p.dtype, p.dtype))
    if not _ITER_CLASS:
        _ITER_CLASS.append(_make_iter_class())
    shapes = ((p.batch_size, p.data_shape[0]), (p.batch_size, p.label_shape[0]) if label is not None else None)
    return _ITER_CLASS[0](_SparseBatches(p, data, label), shapes, **kwargs)
