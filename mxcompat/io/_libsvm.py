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
from .io import MXDataIter, _open_local, _BATCH, _PREFETCH, _REQUIRED, _Params, _creator
from ..ndarray.sparse import csr_matrix

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
    integer, up to 19 fraction digits, a float scale of at most 1e38); one run at a time, for runs too long for
    _parse_floats."""
    n = len(tokens)
    neg, pre, frac, pow10, has_point = np.zeros(n, bool), np.zeros(n, np.uint64), np.zeros(n, np.uint64), \
        np.ones(n, np.float64), np.zeros(n, bool)
    expon, divide = np.zeros(n, np.int64), np.zeros(n, bool)
    for k, tok in enumerate(tokens):
        sign, ip, fp, esign, ep = _FLOAT.match(tok).groups()
        neg[k] = sign == '-'
        # an integer modulo 2**64 (2**32) depends on its last 64 (32) digits only, as 10**64 is a multiple of
        # 2**64; cutting also keeps Python's int() from refusing strings of more than 4300 digits
        pre[k] = int(ip[-64:]) % _U64 if ip else 0
        if fp is not None:
            fp = fp[:_MAX_DIGITS]
            has_point[k], frac[k], pow10[k] = True, int(fp) if fp else 0, float(10 ** len(fp))
        if ep is not None:
            expon[k], divide[k] = min(int(ep[-32:]) % (1 << 32) if ep else 0, 38), esign == '-'
    return _float32_value(neg, pre, has_point, frac, pow10, expon, divide)


def _float32_value(neg, pre, has_point, frac, pow10, expon, divide):
    """dmlc's float arithmetic on the parsed pieces of each number (steps that change no value are skipped)."""
    with np.errstate(over='ignore', under='ignore'):
        value = pre.astype(np.float32)
        if has_point.any():
            value = np.where(has_point, value + (frac.astype(np.float64) / pow10).astype(np.float32), value)
        top = expon == 38
        if top.any():
            value = np.where(top & ~divide & (value > _F32(3.402823466)), _F32(3.402823466), value)
            value = np.where(top & divide & (value < _F32(1.175494351)), _F32(1.175494351), value)
        if expon.any():  # a scale of 1 changes nothing
            scale = _SCALES[expon]
            value = np.where(divide, value / scale, value * scale).astype(np.float32)
    return np.where(neg, -value, value) if neg.any() else value


_P10F = np.array([float(10 ** k) for k in range(20)], np.float64)
_WIDE = 64  # longer runs are parsed one at a time: the vectorised parsers take a Python step per character position
_ZERO, _TEN = np.uint8(48), np.uint64(10)


class _Columns:
    """Number runs (given by their starts and lengths in a byte array) read one character position at a time,
    longest runs first, so that the runs still going at position j are a prefix and each character is read once."""

    def __init__(self, buf, starts, lens):
        self.buf = buf
        short = lens <= _WIDE
        self.long = np.flatnonzero(~short)
        self.order = np.flatnonzero(short)
        # a stable sort of uint8 keys is a radix sort
        self.order = self.order[np.argsort((_WIDE - lens[self.order]).astype(np.uint8), kind='stable')]
        self.n = len(self.order)
        self.starts = starts[self.order]
        self.active = self.n - np.cumsum(np.bincount(lens[self.order], minlength=1))  # runs longer than j

    def __iter__(self):
        """(j, m, characters j of the first m runs in order), for each position j that some run reaches."""
        for j, m in enumerate(self.active.tolist()):
            if m == 0:
                return
            yield j, m, self.buf[self.starts[:m] + j]

    def long_tokens(self, starts, lens):
        return [bytes(self.buf[s:s + n]).decode('latin-1') for s, n in zip(starts[self.long], lens[self.long])]


def _horner(acc, d, mask):
    """acc = 10 * acc + d where mask, wrapping modulo 2**64 as dmlc's unsigned arithmetic does."""
    np.multiply(acc, _TEN, out=acc, where=mask)
    np.add(acc, d, out=acc, where=mask)


# _parse_floats reads [sign]digits[.digits][(e|E)[sign]digits] with a state machine; like dmlc (and _FLOAT in
# _slow_floats) it stops at the first character that does not continue that form and ignores the rest of the run
_DIG, _DOT, _EXP, _PLUS, _MINUS, _OTHER = range(6)
_S0, _SINT, _SFRAC, _SE, _SEXP, _STOP = range(6)
_NO, _INT, _FRAC, _EXPDIG, _NEG, _DIVIDE, _POINT = range(7)  # what a character does to the number


def _float_machine():
    klass = np.full(256, _OTHER, np.uint8)
    klass[48:58], klass[ord('.')], klass[[ord('e'), ord('E')]] = _DIG, _DOT, _EXP
    klass[ord('+')], klass[ord('-')] = _PLUS, _MINUS
    goto, does = np.full((6, 6), _STOP, np.uint8), np.full((6, 6), _NO, np.uint8)
    for state, char, to, action in [
            (_S0, _DIG, _SINT, _INT), (_S0, _PLUS, _SINT, _NO), (_S0, _MINUS, _SINT, _NEG),
            (_S0, _DOT, _SFRAC, _POINT), (_S0, _EXP, _SE, _NO),
            (_SINT, _DIG, _SINT, _INT), (_SINT, _DOT, _SFRAC, _POINT), (_SINT, _EXP, _SE, _NO),
            (_SFRAC, _DIG, _SFRAC, _FRAC), (_SFRAC, _EXP, _SE, _NO),
            (_SE, _DIG, _SEXP, _EXPDIG), (_SE, _PLUS, _SEXP, _NO), (_SE, _MINUS, _SEXP, _DIVIDE),
            (_SEXP, _DIG, _SEXP, _EXPDIG)]:
        goto[state, char], does[state, char] = to, action
    return klass, goto.ravel(), does.ravel()


_CLASS, _GOTO, _DOES = _float_machine()


def _parse_floats(buf, starts, lens):
    """float32 values of the number runs buf[starts:starts+lens] as dmlc's ParseFloat<float> reads them (an empty
    run reads 0), all runs at once."""
    cols = _Columns(buf, starts, lens)
    n = cols.n
    state, nfrac = np.zeros(n, np.uint8), np.zeros(n, np.uint8)
    pre, frac, expon = np.zeros(n, np.uint64), np.zeros(n, np.uint64), np.zeros(n, np.uint64)
    flags = {_NEG: np.zeros(n, bool), _DIVIDE: np.zeros(n, bool), _POINT: np.zeros(n, bool)}
    for _, m, c in cols:
        step = state[:m] * np.uint8(6) + _CLASS[c]
        state[:m] = _GOTO[step]
        does = _DOES[step]
        d = c - _ZERO
        for action, acc in ((_INT, pre), (_EXPDIG, expon)):
            mask = does == action
            if mask.any():
                _horner(acc[:m], d, mask)
        mask = does == _FRAC
        if mask.any():
            mask &= nfrac[:m] < _MAX_DIGITS  # later fraction digits are not read
            nfrac[:m] += mask
            _horner(frac[:m], d, mask)
        for action, flag in flags.items():
            mask = does == action
            if mask.any():
                flag[:m] |= mask
    expon = np.minimum(expon & np.uint64(0xFFFFFFFF), np.uint64(38)).astype(np.int64)  # dmlc's exponent is 32 bits
    value = _float32_value(flags[_NEG], pre, flags[_POINT], frac, _P10F[nfrac], expon, flags[_DIVIDE])
    out = np.empty(len(starts), np.float32)
    out[cols.order] = value
    if len(cols.long):
        out[cols.long] = _slow_floats(cols.long_tokens(starts, lens))
    return out


def _parse_indices(buf, starts, lens, what):
    """Feature indices (non-empty runs) as dmlc's ParseUnsignedInt reads them: an optional '+' (a '-' is an
    error), then the digits up to the first other character, modulo 2**64."""
    if len(starts) and (buf[starts] == 45).any():
        k = int(np.argmax(buf[starts] == 45))
        tok = bytes(buf[starts[k]:starts[k] + lens[k]]).decode('latin-1')
        raise MXNetError('%s: Check failed: sign == true (0 vs. 1) : negative feature index %r in %s'
                         % (_API, tok, what))
    cols = _Columns(buf, starts, lens)
    value, going = np.zeros(cols.n, np.uint64), np.ones(cols.n, bool)
    for j, m, c in cols:
        d = c - _ZERO
        digit = d < 10
        live = going[:m]
        live &= (digit | (c == 43)) if j == 0 else digit
        if not live.any():
            break
        _horner(value[:m], d, live & digit if j == 0 else live)
    out = np.empty(len(starts), np.uint64)
    out[cols.order] = value
    for k, tok in zip(cols.long, cols.long_tokens(starts, lens)):
        digits = _UINT.match(tok).group(2)
        out[k] = int(digits[-64:]) % _U64 if digits else 0
    return out


def _runs(tokens):
    """The number runs of a list of strings as (bytes, starts, lengths), for the parsers above."""
    lens = np.fromiter(map(len, tokens), np.int64, len(tokens))
    starts = np.zeros(len(tokens), np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    return np.frombuffer(''.join(tokens).encode('latin-1'), np.uint8), starts, lens


def _kind_table():
    """The characters of the strict common form: 1 of a number, 2 ':', 3 blank, 4 newline; anything else (0) is not
    in it. A bytes.translate table, which maps text several times faster than numpy indexing does."""
    table = bytearray(256)
    for chars, kind in ((b'0123456789+-.eE', 1), (b':', 2), (b' \t', 3), (b'\r\n', 4)):
        for c in chars:
            table[c] = kind
    return bytes(table)


_KIND = _kind_table()


def _strict_rows(data, what):
    """The rows of text in the strict common form -- each line blank or ``label[:weight] index:value ...`` with
    blanks between the pairs, no blank around ':', and no character but number characters, ':', blanks and
    newlines -- found with whole-text operations; None for other text. With no '#' the first line of a part is read
    like the others, and with no 'q' there is no qid, so the line-by-line parser would find the same number runs."""
    kind = data.translate(_KIND)
    if b'\0' in kind:
        return None
    a, kind = np.frombuffer(data, np.uint8), np.frombuffer(kind, np.uint8)
    num = kind == 1
    edges = np.flatnonzero(np.diff(num, prepend=False, append=False))
    starts, lens = edges[::2], edges[1::2] - edges[::2]
    colon = np.flatnonzero(kind == 2)
    if len(colon) and (colon[0] == 0 or colon[-1] == len(a) - 1 or not (num[colon - 1] & num[colon + 1]).all()):
        return None  # a ':' not between two number characters
    # a run right after a ':' is a weight or a value (a tail); others are a label or an index (a head). The first
    # character is not a ':' (checked above), so starts - 1 = -1 for a run at 0 does not make it a tail.
    tail = kind[starts - 1] == 2
    if (tail[1:] & tail[:-1]).any():
        return None  # 'a:b:c'
    starts_line = np.zeros(len(starts) + 1, bool)  # the first run of a line (and one past the last run)
    starts_line[np.searchsorted(starts, np.flatnonzero(kind == 4))] = True
    starts_line[0] = True
    head = np.flatnonzero(~tail)
    first = starts_line[head]  # a line's first run is a head, its label
    feat = head[~first]
    if len(feat) and (feat[-1] + 1 == len(starts) or not tail[feat + 1].all()):
        return None  # an index without ':value'
    label = head[first]
    indptr = np.append(np.flatnonzero(first) - np.arange(len(label)), len(feat))  # heads before a label, less labels
    return (_parse_floats(a, starts[label], lens[label]), indptr.astype(np.int64),
            _parse_indices(a, starts[feat], lens[feat], what), _parse_floats(a, starts[feat + 1], lens[feat + 1]))


def _parse_text(data, what):
    """Rows of a part (bytes): (labels float32, indptr int64, indices uint64, values float32)."""
    rows = _strict_rows(data, what)
    return rows if rows is not None else _exact_rows(data.decode('latin-1'), what)


def _exact_rows(text, what):
    """_parse_text line by line, for any text."""
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
    return (_parse_floats(*_runs(labels)), indptr, _parse_indices(*_runs(list(idx)), what),
            _parse_floats(*_runs(list(vals))))


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
    """The bytes of part ``part_index`` of ``num_parts`` byte ranges of the files, files joined by newlines."""
    contents = []
    for f in _files(path):
        with open(f, 'rb') as fh:
            contents.append(fh.read())
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in contents])]).tolist()
    total = offsets[-1]
    step = (total + num_parts - 1) // num_parts
    begin, end = min(step * part_index, total), min(step * (part_index + 1), total)
    if begin == end:
        return b''

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
    return b'\n'.join(pieces)


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

    class LibSVMDataIter(MXDataIter):
        """MXDataIter whose data (and label, with ``label_libsvm``) are CSRNDArrays."""

        def __init__(self, handle, shapes, **kwargs):
            self._shapes = shapes
            super().__init__(handle, **kwargs)

        def getdata(self):
            return csr_matrix(self._cur(0), shape=self._shapes[0], ctx=cpu(0))

        def getlabel(self):
            if self._shapes[1] is None:  # dense labels, the first number of each line
                return super().getlabel()
            return csr_matrix(self._cur(1), shape=self._shapes[1], ctx=cpu(0))

    return LibSVMDataIter


_ITER_CLASS = []


def libsvm_iter(kwargs):
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


def _libsvm_iter(**kwargs):
    """Batches of LibSVM rows (``label index:value ...``, 0-based indices) from ``data_libsvm``: data is a
    CSRNDArray (batch_size, data_shape[0]); labels are the first number of each line (dense), or CSR rows of
    ``label_libsvm`` with ``label_shape``. Only ``round_batch=True``: the last batch is completed from the start and
    the next epoch continues after the borrowed rows. See mxcompat/io/_libsvm.py for what differs from MXNet."""
    return libsvm_iter(kwargs)


LibSVMIter = _creator('LibSVMIter', _libsvm_iter)
