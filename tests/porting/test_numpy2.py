"""NumPy-2 hazards in a legacy script's own code: ``python -m mxcompat check`` reports each with file:line and the
fix; ``python -m mxcompat script.py`` adds a one-line hint after the traceback when a script dies of one."""
import subprocess
import sys

from mxcompat.porting import check, numpy2

LEGACY = '''import numpy as np
import numpy
from numpy import float_, fromstring as fs
import mxnet as mx
a = np.int(3) + np.float(1) + np.long(2) + np.bool(1)
b = numpy.NaN, np.NINF, np.Inf
c = np.fromstring(b'abcd', dtype=np.uint8)
d = fs(b'ab', np.uint8, -1, '')
l = mx.nd.ones((2,))
print('%f' % l.mean().asnumpy())
print('epoch %d loss %.3f' % (1, l.asnumpy()))
print('{:f} {}'.format(l.asnumpy(), 2))
print(float(l.sum().asnumpy()), int(l.asnumpy()))
print(f'{l.asnumpy():.2f}')
e = np.asscalar(a), np.alltrue(a), np.product(a), np.round_(a), np.in1d(a, a), np.string_
'''

MODERN = '''import numpy as np
import mxnet as mx
l = mx.nd.ones((2,))
a = np.int64(1), np.float64(2), np.nan, -np.inf, np.bool_(True), np.str_('a'), np.prod([2]), np.isin(1, [1])
b = l.asscalar(), l.mean().asscalar(), '%f' % l.asnumpy()[0], '%f' % l.asnumpy().sum(), float(l.asnumpy().mean())
c = np.fromstring('1 2', sep=' '), np.frombuffer(b'ab', dtype=np.uint8), np.random.int, np.round(1.5)
d = '%s' % l.asnumpy(), '{}'.format(l.asnumpy()), '%s %d' % (l.asnumpy(), 1), f'{l.asnumpy()}', str(l.asnumpy())
int = float
e = int(3.5), l.asnumpy().tolist(), [float(v) for v in l.asnumpy()]
'''


def _found(tmp_path, text):
    script = tmp_path / 'legacy.py'
    script.write_text(text)
    report = check.check([str(script)])
    assert not report['errors']
    return script, report


def test_every_hazard_has_its_line_and_fix(tmp_path):
    script, report = _found(tmp_path, LEGACY)
    found = {(h['line'], h['name']): h['fix'] for h in report['numpy2']}
    assert found[(3, 'from numpy import float_')] == 'removed in NumPy 2; use np.float64'
    assert found[(5, 'np.int')] == 'removed in NumPy 1.24; use the builtin int (or np.int64)'
    assert found[(5, 'np.float')] == 'removed in NumPy 1.24; use the builtin float (or np.float64)'
    assert (5, 'np.long') not in found and (5, 'np.bool') not in found  # (NumPy 2 has them again)
    assert found[(6, 'numpy.NaN')] == 'removed in NumPy 2; use np.nan'
    assert found[(6, 'np.NINF')] == 'removed in NumPy 2; use -np.inf'
    assert found[(6, 'np.Inf')] == 'removed in NumPy 2; use np.inf'
    assert found[(7, 'np.fromstring')].startswith('np.frombuffer(data, dtype=...) (add .copy()')
    assert found[(8, 'fs')] == found[(7, 'np.fromstring')]  # an imported alias, sep='' is binary mode too
    for line, name in [(10, "'%f' % l.mean().asnumpy()"), (11, "'epoch %d loss %.3f' % (1, l.asnumpy())"),
                       (12, "'{:f} {}'.format(l.asnumpy(), 2)"), (13, 'float(l.sum().asnumpy())'),
                       (13, 'int(l.asnumpy())'), (14, '{l.asnumpy():.2f}')]:
        assert found[(line, name)] == numpy2.ASNUMPY_FIX and '.asscalar()' in numpy2.ASNUMPY_FIX
    assert found[(15, 'np.asscalar')].startswith('removed in NumPy 1.23; use a.item()')
    assert found[(15, 'np.alltrue')] == 'removed in NumPy 2; use np.all'
    assert found[(15, 'np.product')] == 'removed in NumPy 2; use np.prod'
    assert found[(15, 'np.round_')] == 'removed in NumPy 2; use np.round'
    assert found[(15, 'np.in1d')].startswith('removed in NumPy 2; use np.isin')
    assert found[(15, 'np.string_')] == 'removed in NumPy 2; use np.bytes_'
    assert len(found) == len(report['numpy2']) == 20
    text = check.format_text(report).splitlines()
    assert "%s:10  '%%f' %% l.mean().asnumpy()  numpy2: %s" % (script, numpy2.ASNUMPY_FIX) in text
    assert '%s:5  np.int  numpy2: removed in NumPy 1.24; use the builtin int (or np.int64)' % script in text
    assert report['verdict'].startswith('verdict: fails under NumPy 2 -- 20 NumPy-2 hazard(s)')
    assert check.main([str(script)]) == 1


def test_no_false_positives_on_modern_code(tmp_path):
    script, report = _found(tmp_path, MODERN)
    assert report['numpy2'] == []
    assert report['verdict'].startswith('verdict: should run')
    assert check.main([str(script)]) == 0


def _run(tmp_path, text):
    script = tmp_path / 'old.py'
    script.write_text(text)
    return subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], capture_output=True, text=True,
                          timeout=120), script


def test_runtime_hint_after_the_traceback(tmp_path):
    proc, script = _run(tmp_path, 'import numpy as np\nx = np.int\n')
    assert proc.returncode == 1
    err = proc.stderr.splitlines()
    assert err[0] == 'Traceback (most recent call last):' and any(e.startswith('AttributeError:') for e in err)
    hint = err[-1]
    assert hint.startswith('mxcompat: hint: NumPy 1.24 removed np.int; use the builtin int (or np.int64).')
    assert '`python -m mxcompat check %s`' % script in hint and "pip install 'numpy<1.24'" in hint

    proc, _ = _run(tmp_path, "import mxnet as mx\nprint('%f' % mx.nd.ones((2,)).asnumpy())\n")
    assert proc.returncode == 1
    assert 'TypeError: only' in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith('mxcompat: hint: NumPy 2 cannot convert an array of ndim > 0')
    assert '.asscalar()' in proc.stderr.splitlines()[-1]


def test_no_hint_for_other_errors(tmp_path):
    proc, _ = _run(tmp_path, 'import numpy as np\nx = np.no_such_name\n')
    assert proc.returncode == 1 and 'AttributeError' in proc.stderr and 'mxcompat: hint' not in proc.stderr
    assert numpy2.runtime_hint(ValueError('The binary mode of fromstring is removed, use frombuffer instead'),
                               's.py').startswith('mxcompat: hint: NumPy 2 removed the binary mode of np.fromstring')
    assert numpy2.runtime_hint(KeyError('int'), 's.py') is None
