"""``python -m mxcompat check``: the static porting report over compat_examples/ and over deliberately unsupported
calls; it parses the scripts and runs none of them."""
import json
import os
import subprocess
import sys

import pytest

from mxcompat.porting import check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(os.path.join('compat_examples', f) for f in os.listdir(os.path.join(ROOT, 'compat_examples'))
                  if f.endswith('.py'))

BAD = '''import mxnet as mx
from mxnet import nd, gluon
from mxnet.gluon import nn
import mxnet.ndarray as F
from mxnet.gluon.nn import Dense as D
open('ran.txt', 'w').write('the script was run')
y = mx.nd.contrib.quantize_asym((2,))
z = F.no_such_op(nd.ones((2,)))
q = mx.nd.contrib.quantized_rnn
h = mx.autograd.get_symbol
k = mx.kv.create('dist_async')
layer = D(3)
v = nd.ones((2,)).asnumpy()
'''


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def _rows(report):
    return {(r['line'], r['name']): (r['status'], r['detail']) for r in report['uses']}


def test_compat_examples_are_supported():
    report = check.check(EXAMPLES)
    assert not report['errors']
    assert report['summary'][check.UNSUPPORTED] == 0
    assert report['summary'][check.SUPPORTED] > 100
    assert report['verdict'].startswith('verdict: should run')
    text = check.format_text(report).splitlines()
    assert 'compat_examples/gluon_mlp.py:18  nn.Dense  supported' in text
    assert 'compat_examples/ndarray_tour.py:65  mx.nd.dot  supported' in text
    assert ("compat_examples/kvstore_tour.py:35  mx.kv.create  supported-with-differences ('dist_async' is applied "
            "synchronously (torch.distributed); other types as MXNet)") in text
    assert text[-1] == report['verdict']
    # every API named resolves to a real mxcompat object
    assert {r['api'].split('.')[0] for r in report['uses']} == {'mxnet'}


def test_unsupported_calls_are_named_with_their_error(tmp_path):
    script = tmp_path / 'port_me.py'
    script.write_text(BAD)
    report = check.check([str(script)])
    rows = _rows(report)
    status, detail = rows[(7, 'mx.nd.contrib.quantize_asym')]
    assert status == check.UNSUPPORTED and detail.startswith(
        'MXNetNotImplementedError: mx.nd.contrib.quantize_asym: this function is not supported by mxcompat; this')
    status, detail = rows[(8, 'F.no_such_op')]
    assert status == check.UNSUPPORTED and "has no attribute 'no_such_op'" in detail
    assert rows[(8, 'nd.ones')] == (check.SUPPORTED, '')
    assert rows[(9, 'mx.nd.contrib.quantized_rnn')][0] == check.UNSUPPORTED
    status, detail = rows[(10, 'mx.autograd.get_symbol')]
    assert status == check.UNSUPPORTED
    assert detail.startswith('MXNetNotImplementedError: mx.autograd.get_symbol:') and 'HybridBlock' in detail
    assert rows[(11, 'mx.kv.create')][0] == check.DIFFERENT
    assert rows[(12, 'D')] == (check.SUPPORTED, '')  # a name imported from mxnet.gluon.nn
    assert rows[(5, 'mxnet.gluon.nn.Dense')] == (check.SUPPORTED, '')
    assert not any(line == 13 and name != 'nd.ones' for line, name in rows)  # methods on values: not reported
    assert report['verdict'] == ('verdict: will fail -- 4 unsupported use(s) of 4 API(s); 8 supported, '
                                 '1 with differences')
    assert not (tmp_path / 'ran.txt').exists()


def test_cli_text(tmp_path):
    script = tmp_path / 'port_me.py'
    script.write_text(BAD)
    proc = subprocess.run([sys.executable, '-m', 'mxcompat', 'check', str(script)], capture_output=True, text=True,
                          cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith('verdict: will fail')
    assert ('%s:7  mx.nd.contrib.quantize_asym  unsupported: MXNetNotImplementedError: mx.nd.contrib.quantize_asym'
            % script) in proc.stdout
    assert not (tmp_path / 'ran.txt').exists()


def test_json_and_exit_codes(tmp_path, capsys):
    assert check.main(['--json'] + EXAMPLES[:2]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report['files'] == EXAMPLES[:2] and report['summary']['unsupported'] == 0
    assert set(report['uses'][0]) == {'file', 'line', 'col', 'name', 'api', 'status', 'detail'}
    broken = tmp_path / 'broken.py'
    broken.write_text('import mxnet as mx\ndef f(:\n')
    assert check.main([str(broken)]) == 2
    out = capsys.readouterr().out
    assert 'SyntaxError' in out and out.strip().endswith('(parse errors)')
    assert check.main([]) == 2
    assert 'usage' in capsys.readouterr().err
    assert check.main([str(tmp_path / 'missing.py')]) == 2
    assert 'no such file' in capsys.readouterr().err


def test_running_a_script_still_works(tmp_path):
    script = tmp_path / 'hello.py'
    script.write_text('import mxnet as mx\nprint(mx.nd.ones((2,)).sum().asscalar())\n')
    proc = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == '2.0'


def test_stub_detection():
    assert check.resolve('mxnet.autograd.get_symbol')[0] == check.UNSUPPORTED
    assert check.resolve('mxnet.gluon.HybridBlock.optimize_for')[0] == check.DIFFERENT
    assert check.resolve('mxnet.nd.array') == (check.SUPPORTED, '')
    assert check.resolve('mxnet.random.seed')[0] == check.DIFFERENT
    assert check.resolve('mxnet.gluon.nn.Dense.hybridize')[0] == check.SUPPORTED
    # MXNet's C API names import (ctypes types and helpers); calls into the library itself are reported
    assert check.resolve('mxnet.base.check_call') == (check.SUPPORTED, '')
    status, detail = check.resolve('mxnet.base._LIB.MXGetVersion')
    assert status == check.UNSUPPORTED and 'mxnet.base._LIB.MXGetVersion' in detail
