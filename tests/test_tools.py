"""The repository holds its own tools (tools/): nothing outside it points at folders beside the checkout, and the
tools start. No network and no MXNet install here: tools/oracle/setup.sh is only checked for syntax."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# split so that this file does not match itself
FOREIGN = [b'../' + b'shared', b'/work/' + b'shared']


def test_no_tracked_file_points_outside_the_repository():
    try:
        r = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, capture_output=True, timeout=60)
    except FileNotFoundError:
        pytest.skip('git is not installed')
    if r.returncode:
        pytest.skip('not a git checkout')
    bad = []
    for path in r.stdout.decode().split('\0'):
        full = os.path.join(ROOT, path)
        if not path or path.startswith('tools/') or not os.path.isfile(full):
            continue
        with open(full, 'rb') as f:
            lines = f.read().splitlines()
        bad += ['%s:%d' % (path, i + 1) for i, line in enumerate(lines) if any(s in line for s in FOREIGN)]
    assert not bad, 'these refer to folders outside the repository (use tools/ instead): ' + ', '.join(bad)


def test_tool_scripts_are_executable_and_parse():
    scripts = ['tools/oracle/setup.sh', 'tools/oracle/mxrun', 'tools/gpu_bundle.sh', 'tools/gpu_check.sh',
               'tools/upstream.py']
    for s in scripts:
        assert os.access(os.path.join(ROOT, s), os.X_OK), s + ' is not executable'
    r = subprocess.run(['bash', '-n'] + scripts[:4], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_upstream_help():
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'upstream.py'), '--help'], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '--mxnet' in r.stdout and '--oracle' in r.stdout and '--failures' in r.stdout


def test_upstream_runs_a_test_file_from_a_git_directory(tmp_path):
    """A stand-in for apache/mxnet: one test file, read with git archive, that imports mxnet (mxcompat here) and
    nose (tools/stubs)."""
    src = tmp_path / 'mxnet'
    unittest_dir = src / 'tests' / 'python' / 'unittest'
    unittest_dir.mkdir(parents=True)
    for d in ('common', 'train'):  # the folders upstream.py takes besides unittest
        (src / 'tests' / 'python' / d).mkdir()
        (src / 'tests' / 'python' / d / '__init__.py').write_text('')
    (unittest_dir / 'test_fake.py').write_text(textwrap.dedent('''
        import mxnet as mx
        import mxcompat
        from nose.tools import assert_raises, raises, ok_

        def test_alias():
            ok_(mx is mxcompat)
            assert_raises(ZeroDivisionError, lambda: 1 / 0)
            assert mx.nd.ones((2,)).sum().asscalar() == 2

        @raises(ValueError)
        def test_raises():
            int('x')

        def test_bad():
            raise RuntimeError('boom')
    '''))
    git = ['git', '-C', str(src), '-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main']
    for cmd in (['init', '-q'], ['add', '.'], ['commit', '-q', '-m', 'fake']):
        subprocess.run(git + cmd, check=True, capture_output=True)
    results = tmp_path / 'results.json'
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'upstream.py'), '--mxnet', str(src / '.git'),
                        '--ref', 'HEAD', '--work', str(tmp_path / 'work'), '--results', str(results), '--failures',
                        'test_fake.py'], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert 'test_fake: 2 passed, 1 failed, 0 skipped' in r.stdout, r.stdout
    assert 'test_bad: RuntimeError: boom' in r.stdout, r.stdout
    assert json.loads(results.read_text()) == {'test_fake': {
        'test_alias': 'passed', 'test_raises': 'passed', 'test_bad': 'failed: RuntimeError: boom'}}


def test_upstream_runs_a_librarys_tests_in_its_checkout(tmp_path):
    """A stand-in for a library written for MXNet (as GluonNLP): its tests run where they are, with its own
    conftest.py and pytest.ini, through `python -m mxcompat -m pytest`; --pytest-args deselects by its markers."""
    lib = tmp_path / 'fakelib'
    (lib / 'tests' / 'unittest' / 'batchify').mkdir(parents=True)
    (lib / 'pytest.ini').write_text('[pytest]\nmarkers =\n    remote_required: needs the network\n')
    (lib / 'conftest.py').write_text('import mxnet\nSEEN_BY_CONFTEST = mxnet.__name__\n')
    (lib / 'tests' / 'unittest' / 'batchify' / 'test_pad.py').write_text(textwrap.dedent('''
        import pytest
        import mxnet as mx
        import mxcompat

        def test_alias():
            assert mx is mxcompat and mx.nd.ones((2,)).sum().asscalar() == 2

        def test_bad():
            raise ValueError('padded wrong')

        @pytest.mark.remote_required
        def test_download():
            raise OSError('no network here')
    '''))
    (lib / 'tests' / 'unittest' / 'test_corpus.py').write_text(textwrap.dedent('''
        import pytest

        @pytest.mark.remote_required
        def test_download():
            raise OSError('no network here')
    '''))
    results = tmp_path / 'results.json'
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'upstream.py'), '--library', str(lib),
                        '--work', str(tmp_path / 'work'), '--results', str(results), '--failures',
                        '--pytest-args=-m "not remote_required"', 'tests/unittest'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert 'tests/unittest/batchify/test_pad: 1 passed, 1 failed, 0 skipped' in r.stdout, r.stdout
    assert 'test_bad: ValueError: padded wrong' in r.stdout, r.stdout
    assert 'tests/unittest/test_corpus: 0 passed, 0 failed, 0 skipped' in r.stdout, r.stdout  # all deselected
    assert json.loads(results.read_text()) == {'tests/unittest/batchify/test_pad': {
        'test_alias': 'passed', 'test_bad': 'failed: ValueError: padded wrong'}, 'tests/unittest/test_corpus': {}}
