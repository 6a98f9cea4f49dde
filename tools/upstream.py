#!/usr/bin/env python3
"""Runs Apache MXNet 1.9's own Python unit tests (tests/python/unittest) against mxcompat, or against the real
MXNet 1.9.1 with --oracle (which shows what passes on this machine at all).

    tools/upstream.py --mxnet ~/src/mxnet test_ndarray test_gluon      # or set MXNET_SRC
    tools/upstream.py --mxnet ~/src/mxnet --oracle --results oracle.json all
    tools/upstream.py --mxnet ~/src/mxnet --baseline oracle.json --failures test_ndarray

The tests come from a checkout of github.com/apache/mxnet, never from this repository: DIR is either a work tree
(its tests/python is used as it is) or a git directory, read with `git archive REF` (REF: v1.9.x). They are copied to
a scratch folder, where a conftest.py puts tools/stubs (a `nose` stand-in) on sys.path and, against mxcompat,
makes `import mxnet` give mxcompat's modules (`mxcompat.install_alias`; mxcompat from this checkout). Run it with a
Python that has mxcompat's dev extra (`pip install -e '.[dev]'`: pytest-timeout, scipy); --oracle uses the
environment of tools/oracle/setup.sh. Prints 'N passed, M failed, K skipped' per file and the totals at the end;
writes {file: {test: 'passed' | 'skipped' | 'failed: <last line of the error>'}} to --results. A --baseline (the
results of an --oracle run) adds to each file's line how many of the tests that pass on real MXNet pass here.

A library written for MXNet (GluonNLP, GluonCV, Keras-MXNet) is tested the same way with --library DIR, its checkout:
the tests run where they are, from DIR, with the library's own conftest.py and pytest.ini, against mxcompat through
`python -m mxcompat -m pytest` (the library installed for --python) or under the real MXNet with --oracle. FILE is a
test file or folder relative to DIR; give the library's markers with --pytest-args:

    tools/upstream.py --library gluon-nlp --oracle --python ORACLE_PY --results nlp-oracle.json tests/unittest
    tools/upstream.py --library gluon-nlp --python VENV_PY --baseline nlp-oracle.json --failures \
        --pytest-args='-m "not remote_required and not gpu"' tests/unittest
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
PARTS = ['tests/python/unittest', 'tests/python/common', 'tests/python/train']
CONFTEST = '''import os, sys
sys.path.insert(0, {stubs!r})
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'train'))
'''
ALIAS = '''sys.path.insert(0, {root!r})
import mxcompat
mxcompat.install_alias(force=True)
'''


def extract(src, ref, dest):
    """Copies the test folders of the MXNet checkout ``src`` to ``dest``; returns the unittest folder there."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    if os.path.isdir(os.path.join(src, PARTS[0])):
        for part in PARTS:
            if os.path.isdir(os.path.join(src, part)):
                shutil.copytree(os.path.join(src, part), os.path.join(dest, part))
    else:
        r = subprocess.run(['git', '-C', src, 'archive', ref] + PARTS, capture_output=True)
        if r.returncode:
            sys.exit('upstream.py: cannot read %s from %s: %s' % (ref, src, r.stderr.decode().strip()))
        subprocess.run(['tar', '-x', '-C', dest], input=r.stdout, check=True)
    return os.path.join(dest, PARTS[0])


def outcomes(xml_path):
    """{test name: 'passed' | 'skipped' | 'failed: <last line of the error>'} from pytest's JUnit XML."""
    per = {}
    for case in ET.parse(xml_path).getroot().iter('testcase'):
        kinds = {child.tag: child for child in case}
        bad = kinds.get('failure', kinds.get('error'))
        if bad is None:
            per[case.get('name')] = 'skipped' if 'skipped' in kinds else 'passed'
            continue
        e_lines = [line[1:].strip() for line in (bad.text or '').splitlines() if line.startswith('E ')]
        last = e_lines[-1] if e_lines else ((bad.get('message') or '').strip().splitlines() or ['?'])[-1]
        per[case.get('name')] = 'failed: ' + last[:200]
    return per


_HAS_TIMEOUT = {}


def has_pytest_timeout(python):
    """Whether ``python`` has pytest-timeout (the dev extra): without it files run with no per-test limit."""
    if python not in _HAS_TIMEOUT:
        found = subprocess.run([python, '-c', 'import pytest_timeout'], capture_output=True).returncode == 0
        if not found:
            sys.stderr.write('upstream.py: pytest-timeout is not installed for %s: no per-test time limit\n' % python)
        _HAS_TIMEOUT[python] = found
    return _HAS_TIMEOUT[python]


def run_file(python, udir, name, args, env, xml_path=None, runner=('-m', 'pytest')):
    xml_path = xml_path or os.path.join(udir, '..', name + '.xml')
    limit = ['--timeout=%d' % args.timeout] if has_pytest_timeout(python) else []
    cmd = [python] + list(runner) + ['-q'] + limit + shlex.split(args.pytest_args) + ['--junitxml=' + xml_path,
                                                                                      name + '.py']
    try:
        r = subprocess.run(cmd, cwd=udir, env=env, capture_output=True, text=True, timeout=args.file_timeout)
        log, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        log, rc = 'the file ran past --file-timeout %ds' % args.file_timeout, -1
    if rc == 5:  # pytest's "no tests ran": all deselected (--pytest-args -m ...), which is no failure
        return {}
    per = outcomes(xml_path) if os.path.exists(xml_path) else {}
    if rc not in (0, 1) or not per:  # not collected, interrupted or killed: one failure for the whole file
        per = {'<collection>': 'failed: ' + ' | '.join(log.strip().splitlines()[-3:])[:300]}
    return per


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    p.add_argument('files', nargs='+', metavar='FILE',
                   help="test files of tests/python/unittest, with or without .py ('all': every test_*.py)")
    p.add_argument('--mxnet', metavar='DIR', default=os.environ.get('MXNET_SRC'),
                   help='apache/mxnet work tree or git directory (default: $MXNET_SRC)')
    p.add_argument('--library', metavar='DIR', help="a library's checkout: run its tests (FILE relative to DIR) there")
    p.add_argument('--pytest-args', default='', metavar='ARGS', help='more pytest arguments, as one string')
    p.add_argument('--ref', default='v1.9.x', help='branch or commit read from a git directory (default: v1.9.x)')
    p.add_argument('--oracle', action='store_true', help='run under the real MXNet 1.9.1 instead of mxcompat')
    p.add_argument('--python', help='interpreter that runs the tests (default: this one; with --oracle, '
                                    "tools/oracle/setup.sh's)")
    p.add_argument('--failures', action='store_true', help='print each failing test with the last line of its error')
    p.add_argument('--results', metavar='FILE', help='results JSON (default: WORK/compat.json or WORK/oracle.json)')
    p.add_argument('--merge', action='store_true', help='keep the other files already in --results')
    p.add_argument('--baseline', metavar='FILE', help='results JSON of an --oracle run to compare with')
    p.add_argument('--work', metavar='WORK', default=os.path.join(tempfile.gettempdir(), 'mxcompat-upstream'),
                   help='scratch folder (default: %(default)s)')
    p.add_argument('--timeout', type=int, default=60, help='seconds per test (default: 60)')
    p.add_argument('--file-timeout', type=int, default=1200, help='seconds per file (default: 1200)')
    args = p.parse_args(argv)
    if args.library:
        return run_library(p, args)
    if not args.mxnet:
        p.error('say where the MXNet sources are: --mxnet DIR or MXNET_SRC, a work tree or git directory of '
                'github.com/apache/mxnet (e.g. git clone -b v1.9.x --depth 1 https://github.com/apache/mxnet)')

    target = 'oracle' if args.oracle else 'compat'
    python = args.python or sys.executable
    if args.oracle and not args.python:
        python = subprocess.run([os.path.join(TOOLS, 'oracle', 'setup.sh')], check=True, stdout=subprocess.PIPE,
                                text=True).stdout.strip()
    udir = extract(args.mxnet, args.ref, os.path.join(args.work, target))
    with open(os.path.join(udir, 'conftest.py'), 'w') as f:
        f.write(CONFTEST.format(stubs=os.path.join(TOOLS, 'stubs')))
        if target == 'compat':
            f.write(ALIAS.format(root=ROOT))
    with open(os.path.join(udir, 'pytest.ini'), 'w') as f:  # also keeps pytest from finding an ini file above
        f.write('[pytest]\naddopts = -p no:cacheprovider -p no:randomly -W ignore\n')
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    for k, v in (('OMP_NUM_THREADS', '1'), ('MXNET_TEST_SEED', '42'), ('MXNET_MODULE_SEED', '42')):
        env.setdefault(k, v)

    files = [f[:-3] if f.endswith('.py') else f for f in args.files]
    if files == ['all']:
        files = sorted(f[:-3] for f in os.listdir(udir) if f.startswith('test_') and f.endswith('.py'))
    results_path = args.results or os.path.join(args.work, target + '.json')
    report(files, results_path, args, lambda name: run_file(python, udir, name, args, env))


def run_library(p, args):
    """--library: the test files of a library written for MXNet, run in its checkout under its own configuration."""
    target = 'oracle' if args.oracle else 'compat'
    if args.oracle and not args.python:
        p.error('--library --oracle needs --python: an interpreter with the real MXNet 1.9.1 and the library')
    python = args.python or sys.executable
    lib = os.path.abspath(args.library)
    files = []
    for f in args.files:
        if os.path.isdir(os.path.join(lib, f)):
            files += sorted(os.path.relpath(os.path.join(d, n), lib) for d, _, names in os.walk(os.path.join(lib, f))
                            for n in names if n.startswith('test_') and n.endswith('.py'))
        else:
            files.append(f)
    files = [f[:-3] if f.endswith('.py') else f for f in files]
    xml_dir = os.path.join(args.work, target)
    os.makedirs(xml_dir, exist_ok=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    env.setdefault('OMP_NUM_THREADS', '1')
    runner = ('-m', 'pytest', '-p', 'no:cacheprovider')
    if not args.oracle:  # mxcompat of this checkout, `import mxnet` aliased to it
        env['PYTHONPATH'] = ROOT + os.pathsep + env.get('PYTHONPATH', '')
        runner = ('-m', 'mxcompat') + runner
    results_path = args.results or os.path.join(args.work, target + '.json')
    report(files, results_path, args, lambda name: run_file(
        python, lib, name, args, env, os.path.join(xml_dir, name.replace(os.sep, '_') + '.xml'), runner))


def report(files, results_path, args, run):
    """Runs each file (``run(name)`` -> {test: outcome}), printing its line and keeping ``results_path`` current."""
    results = {}
    if args.merge and os.path.exists(results_path):
        with open(results_path) as f:
            results = json.load(f)
    baseline = {}
    if args.baseline:
        with open(args.baseline) as f:
            baseline = json.load(f)
    totals = [0, 0]
    for name in files:
        per = results[name] = run(name)
        passed = {t for t, v in per.items() if v == 'passed'}
        failed = sum(v.startswith('failed') for v in per.values())
        totals[0] += len(passed)
        totals[1] += failed
        line = '%s: %d passed, %d failed, %d skipped' % (name, len(passed), failed, len(per) - len(passed) - failed)
        ref = {t for t, v in baseline.get(name, {}).items() if v == 'passed'}
        if ref:
            line += '; %d/%d of those passing on real MXNet' % (len(ref & passed), len(ref))
        print(line, flush=True)
        if args.failures:
            for t, v in sorted(per.items()):
                if v.startswith('failed'):
                    print('    %s: %s' % (t, v[len('failed: '):]), flush=True)
        with open(results_path, 'w') as f:
            json.dump(results, f, indent=0, sort_keys=True)
    print('%d passed, %d failed' % tuple(totals))


if __name__ == '__main__':
    main()
