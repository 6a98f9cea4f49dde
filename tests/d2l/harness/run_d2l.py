"""D2L (d2l-en v1.0.3, the MXNet edition) section by section under real MXNet 1.9.1 and under mxcompat.

Not part of the pytest run (no file here is named test_*). It measures how far the book runs unchanged on mxcompat:
each section's MXNet code cells become one script, which runs under both, and the outputs are compared.

One command, from a d2l-en checkout (or a clone/mirror and a tag) to the report:

    python tests/d2l/harness/run_d2l.py all --source ~/d2l-en --work /tmp/d2l
    python tests/d2l/harness/run_d2l.py all --source /path/to/d2l-en.git@v1.0.3 --work /tmp/d2l

Later, after new commits, only mxcompat again (the oracle's outputs are kept in WORK/runs/oracle):

    python tests/d2l/harness/run_d2l.py run --impl mxcompat --work /tmp/d2l
    python tests/d2l/harness/run_d2l.py run --impl mxcompat --work /tmp/d2l --only preliminaries 'builders-guide__*'
    python tests/d2l/harness/run_d2l.py report --work /tmp/d2l        # compare again, rewrite the report

Steps (``all`` = prepare, run, report):
- prepare: convert.py turns every chapter's MXNet cells into WORK/scripts/CHAPTER__SECTION.py (cells tagged
  ``%%tab mxnet`` / ``%%tab all`` / a list naming mxnet, or ``#@tab`` in older chapters, untagged cells being
  MXNet's; a cell's last expression is displayed as a notebook does); d2l/__init__.py and d2l/mxnet.py are copied
  from the same source into WORK/d2lpkg (the book's own package, unchanged); make_data.py writes synthetic data
  sets in their original formats (FashionMNIST IDX files, the time machine text, fra-eng.zip, the Kaggle house
  CSVs) in size profiles; pandas is pip-installed with --target into WORK/pydeps-oracle and WORK/pydeps-mxcompat
  (a build for each interpreter's NumPy; neither environment is changed).
- run: each script runs in WORK/runs/IMPL/SECTION/work, with PYTHONPATH = stubs/ (matplotlib, matplotlib_inline,
  IPython.display, requests stand-ins: plotting is a no-op, downloads are served from the local data), this folder
  (the prelude the scripts import), WORK/d2lpkg and the deps folder; MXNET_HOME and the download hub point at the
  section's data profile (PROFILE_RULES: only data sizes shrink, never the book code); OMP_NUM_THREADS=1; a
  timeout (--timeout, 300 s). The oracle is ``--oracle-python script`` (default /root/.mxnet-oracle/bin/python,
  tools/oracle/setup.sh installs it); mxcompat is ``--mxcompat-python -m mxcompat script`` (default the repository's
  .venv) on the repository's committed HEAD, exported to WORK/mxcompat-COMMIT (--mxcompat-tree worktree: the files
  as they are). Both sides run from bytecode compiled beforehand, as installed packages do.
- report: WORK/report.md and report.json. Verdicts for mxcompat against the oracle's stdout: pass (same text,
  numbers within rtol 1e-4 / atol 1e-5; timings, object addresses and modules' file paths ignored) / numbers
  differ (same text, other numbers: expected where random draws differ) / output differs (the text differs; first
  differing line shown) / fails or timeout (first error: exception, message, innermost mxcompat frame, the book
  line and the d2l/mxnet.py line it came through; failures grouped by that first error) / fails as oracle (the
  same exception type after the same output) / runs (oracle did not).
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import convert  # noqa: E402
import make_data  # noqa: E402

CHAPTERS = ['preliminaries', 'linear-regression', 'linear-classification', 'multilayer-perceptrons',
            'builders-guide', 'convolutional-neural-networks', 'convolutional-modern', 'recurrent-neural-networks',
            'recurrent-modern', 'attention-mechanisms-and-transformers', 'computational-performance']
# the chapters with MXNet code of each release the harness knows, in the book's order (--release)
RELEASES = {
    'v1.0.3': CHAPTERS,
    'v0.17.6': ['preliminaries', 'linear-networks', 'multilayer-perceptrons', 'deep-learning-computation',
                'convolutional-neural-networks', 'convolutional-modern', 'recurrent-neural-networks',
                'recurrent-modern', 'attention-mechanisms', 'optimization', 'computational-performance',
                'computer-vision', 'natural-language-processing-pretraining',
                'natural-language-processing-applications', 'recommender-systems',
                'generative-adversarial-networks', 'appendix-mathematics-for-deep-learning'],
}
# data-size profile per chapter or section (first match wins); see make_data.PROFILES
PROFILE_RULES = [('convolutional-modern__batch-norm', 'micro'), ('convolutional-modern__*', 'nano'),
                 ('attention-mechanisms-and-transformers__vision-*', 'nano'),
                 ('recurrent-*', 'tiny'), ('optimization__lr-scheduler', 'micro'), ('*', 'small')]
# sections whose book code trains for longer than --timeout allows on one CPU thread under MXNet (the RNN chapters
# of v0.17.6 unroll 35 steps for 500 epochs; NLI with BERT fine-tunes for 5 batches of 512): their own limit, in
# seconds, when it is larger (first match wins)
TIMEOUT_RULES = [('recurrent-neural-networks__rnn-scratch', 1500), ('recurrent-modern__*', 1200),
                 ('attention-mechanisms__*', 1200),
                 ('natural-language-processing-applications__natural-language-inference-bert', 1500)]
NUM = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|[-+]?\binf\b')
TIMING = re.compile(r'\bsec\b|examples/sec|tokens/sec|\bms\b')
SHELL = re.compile(r'<<<d2l-shell.*?d2l-shell>>>\n?', re.S)
ADDR = re.compile(r' at 0x[0-9a-f]+')
# NumPy 2 (mxcompat's side) shows a NumPy scalar as np.float32(x) where NumPy 1.x (the oracle's) shows x
NP_SCALAR = re.compile(r'\bnp\.(?:float|int|uint|bool|complex|str)\w*\((.*?)\)')
# under python -m mxcompat a module may print as mxcompat.X where MXNet's prints as mxnet.X (the same module); printed
# id()s are addresses, as ' at 0x...' are
MODNAME = re.compile(r"<module 'mxcompat\.")
OBJ_ID = re.compile(r'(\bid\(\w+\)[^\n:]*: )\d+')
MODFILE = re.compile(r"(<module '[\w.]+' from )'[^']*'>")  # where each installation keeps its files


def profile_of(section):
    for pattern, prof in PROFILE_RULES:
        if fnmatch.fnmatch(section, pattern):
            return prof
    return 'small'


def timeout_of(args, section):
    for pattern, seconds in TIMEOUT_RULES:
        if fnmatch.fnmatch(section, pattern):
            return max(seconds, args.timeout)
    return args.timeout


def install_pandas(python, target):
    """pandas (needed by two sections) into ``target`` for ``python``, without touching its environment: a pandas
    built for the NumPy that interpreter has (pandas 2.0.3 for NumPy 1.x, 2.3.3 for NumPy 2), no dependencies but
    pandas' pure-Python ones."""
    if os.path.isdir(os.path.join(target, 'pandas')):
        return
    major = subprocess.run([python, '-c', 'import numpy; print(numpy.__version__.split(".")[0])'],
                           capture_output=True, text=True).stdout.strip()
    pandas = 'pandas==2.0.3' if major == '1' else 'pandas==2.3.3'
    subprocess.run([python, '-m', 'pip', 'install', '-q', '--no-deps', '--target', target, pandas, 'python-dateutil',
                    'pytz', 'tzdata', 'six'], check=False)


def prepare(args):
    src = convert.Source(args.source)
    if not args.no_pandas:
        install_pandas(args.oracle_python, args.oracle_deps)
        install_pandas(args.mxcompat_python, args.mxcompat_deps)
    scripts = os.path.join(args.work, 'scripts')
    shutil.rmtree(scripts, ignore_errors=True)
    convert.main([args.source, scripts] + RELEASES[args.release])
    # the book's figures and sample images: sections read them as ../img/NAME from their chapter folder, so each
    # run's folder gets a link to WORK/img beside its work folder (run_one)
    img = os.path.join(args.work, 'img')
    for path in src.list():
        if path.startswith('img/') and not path.endswith(('.svg', '.graffle')):
            dest = os.path.join(img, path[len('img/'):])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, 'wb') as f:
                f.write(src.read_bytes(path))
    pkg = os.path.join(args.work, 'd2lpkg', 'd2l')
    os.makedirs(pkg, exist_ok=True)
    for name in ('__init__.py', 'mxnet.py'):
        with open(os.path.join(pkg, name), 'w', encoding='utf-8') as f:
            f.write(src.read('d2l/' + name))
    make_data.main([os.path.join(args.work, 'data')])


def sections(args):
    names = sorted(f[:-3] for f in os.listdir(os.path.join(args.work, 'scripts')) if f.endswith('.py'))
    order = {c: i for i, c in enumerate(RELEASES[args.release])}
    names.sort(key=lambda n: (order.get(n.split('__')[0], 99), n))
    if args.only:
        names = [n for n in names if any(n.startswith(o + '__') or fnmatch.fnmatch(n, o) for o in args.only)]
    return names


def run_one(args, impl, section):
    out = os.path.join(args.work, 'runs', impl, section)
    shutil.rmtree(out, ignore_errors=True)
    work = os.path.join(out, 'work')
    os.makedirs(work)
    if os.path.isdir(os.path.join(args.work, 'img')):
        os.symlink(os.path.join(args.work, 'img'), os.path.join(out, 'img'))
    prof = os.path.join(args.work, 'data', profile_of(section))
    deps = args.oracle_deps if impl == 'oracle' else args.mxcompat_deps
    path = [os.path.join(HERE, 'stubs'), HERE, os.path.join(args.work, 'd2lpkg'), deps]
    if impl == 'mxcompat' and args.mxcompat_tree == 'head':
        path.insert(0, os.path.join(args.work, 'mxcompat-' + args.head_commit))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), MXNET_HOME=os.path.join(prof, 'mxnet_home'),
               D2L_HARNESS_HUB=os.path.join(prof, 'hub'), OMP_NUM_THREADS='1', PYTHONHASHSEED='0',
               PYTHONUNBUFFERED='1')
    script = os.path.join(args.work, 'scripts', section + '.py')
    cmd = ([args.oracle_python, script] if impl == 'oracle'
           else [args.mxcompat_python, '-m', 'mxcompat', script])
    t0 = time.time()
    with open(os.path.join(out, 'stdout'), 'w') as fo, open(os.path.join(out, 'stderr'), 'w') as fe:
        try:
            rc = subprocess.run(cmd, cwd=work, env=env, stdout=fo, stderr=fe,
                                timeout=timeout_of(args, section)).returncode
        except subprocess.TimeoutExpired:
            rc = 'timeout'
    meta = {'section': section, 'impl': impl, 'rc': rc, 'seconds': round(time.time() - t0, 1),
            'profile': profile_of(section)}
    if impl == 'mxcompat':
        meta['mxcompat_commit'] = args.head_commit
        meta['mxcompat_tree'] = args.mxcompat_tree
    with open(os.path.join(out, 'meta.json'), 'w') as f:
        json.dump(meta, f)
    return meta


def export_head(args):
    """The mxcompat repository's committed HEAD, copied to WORK/mxcompat-COMMIT (other people's uncommitted edits in
    the working tree are left out); returns the commit's short hash."""
    git = ['git', '-C', args.mxcompat_repo]
    commit = subprocess.run(git + ['rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    if args.mxcompat_tree == 'head':
        dest = os.path.join(args.work, 'mxcompat-' + commit)
        if not os.path.isdir(dest):
            os.makedirs(dest + '.tmp', exist_ok=True)
            archive = subprocess.run(git + ['archive', commit, 'mxcompat'], capture_output=True, check=True).stdout
            subprocess.run(['tar', '-x', '-C', dest + '.tmp'], input=archive, check=True)
            os.rename(dest + '.tmp', dest)
    else:
        commit += '+worktree'
    return commit


def byte_compile(python, *folders):
    """Compile the Python files of ``folders`` for ``python``, as an installed package is: a run then reads the
    bytecode instead of compiling every module it imports (half a second for mxcompat, and for d2l's package
    each run), whatever PYTHONDONTWRITEBYTECODE says."""
    subprocess.run([python, '-m', 'compileall', '-q'] + [f for f in folders if os.path.isdir(f)], check=True,
                   stdout=subprocess.DEVNULL)


def run(args):
    impls = ['oracle', 'mxcompat'] if args.impl == 'both' else [args.impl]
    args.head_commit = export_head(args) if 'mxcompat' in impls else None
    shared = [os.path.join(HERE, 'stubs'), HERE, os.path.join(args.work, 'd2lpkg')]
    if 'oracle' in impls:
        byte_compile(args.oracle_python, *shared)
    if 'mxcompat' in impls:
        tree = (os.path.join(args.work, 'mxcompat-' + args.head_commit) if args.mxcompat_tree == 'head'
                else args.mxcompat_repo)
        byte_compile(args.mxcompat_python, os.path.join(tree, 'mxcompat'), *shared)
    jobs = [(impl, s) for s in sections(args) for impl in impls]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(run_one, args, impl, s): (impl, s) for impl, s in jobs}
        for fut in concurrent.futures.as_completed(futs):
            m = fut.result()
            print('%-9s %-70s rc=%-8s %6.1fs' % (m['impl'], m['section'], m['rc'], m['seconds']), flush=True)


# ---- comparison ---------------------------------------------------------------------------------------------------
def _normalize(text):
    text = MODFILE.sub(r"\1'?'>", ADDR.sub(' at 0x?', SHELL.sub('<shell output>\n', text)))
    text = NP_SCALAR.sub(r'\1', OBJ_ID.sub(r'\1?', MODNAME.sub("<module 'mxnet.", text)))
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _numbers_close(a, b, rtol, atol):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if x != x and y != y:
        return True
    return abs(x - y) <= atol + rtol * abs(y)


def compare(expected, actual, rtol=1e-4, atol=1e-5):
    """('pass' | 'numbers differ' | 'output differs', first differing line pair or None)."""
    e, a = _normalize(expected), _normalize(actual)
    if e == a:
        return 'pass', None
    skel_e = [NUM.sub('#', x.replace(' ', '')) for x in e]
    skel_a = [NUM.sub('#', x.replace(' ', '')) for x in a]
    if skel_e != skel_a:
        for i, (x, y) in enumerate(zip(skel_e, skel_a)):
            if x != y:
                return 'output differs', (e[i], a[i])
        i = min(len(e), len(a))
        return 'output differs', (e[i] if i < len(e) else '<end>', a[i] if i < len(a) else '<end>')
    for x, y in zip(e, a):
        if TIMING.search(x):
            continue
        ne, na = NUM.findall(x), NUM.findall(y)
        if not all(_numbers_close(p, q, rtol, atol) for p, q in zip(ne, na)):
            return 'numbers differ', (x, y)
    return 'pass', None


FRAME = re.compile(r'^  File "(.*)", line (\d+), in (.*)$')


def first_error(stderr, script):
    """The uncaught exception of a failed run: type, message, innermost mxcompat frame, innermost book line."""
    lines = stderr.splitlines()
    start = max((i for i, x in enumerate(lines) if x.startswith('Traceback (most recent call last)')), default=None)
    if start is None:
        tail = [x for x in lines if x.strip()][-3:]
        return {'type': 'no traceback', 'message': ' | '.join(tail)[:300], 'mxcompat_frame': None, 'book_line': None}
    frames, exc = [], ''
    i = start + 1
    while i < len(lines):
        m = FRAME.match(lines[i])
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith('    ') else ''
            frames.append((m.group(1), int(m.group(2)), m.group(3), code))
        elif lines[i] and not lines[i].startswith(' '):
            exc = '\n'.join(lines[i:])
            break
        i += 1
    exc_line = exc.splitlines()[0] if exc else ''
    etype, _, msg = exc_line.partition(':')
    mx = [f for f in frames if '/mxcompat/' in f[0] and not f[0].endswith('/mxcompat/__main__.py')]
    book = [f for f in frames if os.path.basename(f[0]) == os.path.basename(script)]
    d2l = [f for f in frames if f[0].endswith(os.path.join('d2l', 'mxnet.py'))]
    first_mx = None
    if mx:
        # the innermost mxcompat frame, as path-in-repo:line (function)
        f = mx[-1]
        first_mx = '%s:%d (%s)' % (f[0][f[0].rfind('/mxcompat/') + 1:], f[1], f[2])
    return {'type': etype.strip(), 'message': msg.strip()[:300], 'mxcompat_frame': first_mx,
            'book_line': ('%s  [script line %d]' % (book[-1][3], book[-1][1])) if book else None,
            'd2l_line': ('%s  [d2l/mxnet.py:%d %s]' % (d2l[-1][3], d2l[-1][1], d2l[-1][2])) if d2l else None}


def _read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except OSError:
        return None


def _meta(args, impl, s):
    text = _read(os.path.join(args.work, 'runs', impl, s, 'meta.json'))
    return json.loads(text) if text else None


def _fails_alike(args, s, mo, error, out_m):
    """Whether the oracle failed too, with the same exception type after the same output (a section that needs
    what the machine lacks, such as several GPUs, or code the book has for other frameworks only)."""
    if mo is None or mo['rc'] in (0, 'timeout') or error.get('type') in (None, 'timeout', 'no traceback'):
        return False
    out_o = _read(os.path.join(args.work, 'runs', 'oracle', s, 'stdout')) or ''
    err_o = _read(os.path.join(args.work, 'runs', 'oracle', s, 'stderr')) or ''
    return first_error(err_o, s + '.py')['type'] == error['type'] and compare(out_o, out_m)[0] == 'pass'


def report(args):
    rows, fails = [], []
    for s in sections(args):
        mo, mm = _meta(args, 'oracle', s), _meta(args, 'mxcompat', s)
        row = {'section': s, 'profile': profile_of(s),
               'oracle': None if mo is None else ('runs' if mo['rc'] == 0 else 'fails rc=%s' % mo['rc']),
               'oracle_s': mo and mo['seconds'], 'mxcompat_s': mm and mm['seconds'], 'verdict': 'not run',
               'detail': None}
        if mm is not None:
            out_m = _read(os.path.join(args.work, 'runs', 'mxcompat', s, 'stdout')) or ''
            err_m = _read(os.path.join(args.work, 'runs', 'mxcompat', s, 'stderr')) or ''
            if mm['rc'] != 0:
                row['verdict'] = 'fails' if mm['rc'] != 'timeout' else 'timeout'
                if mm['rc'] == 'timeout':
                    row['detail'] = {'type': 'timeout', 'message': 'over %ss' % timeout_of(args, s),
                                     'mxcompat_frame': None, 'book_line': None}
                else:
                    row['detail'] = first_error(err_m, s + '.py')
                if _fails_alike(args, s, mo, row['detail'], out_m):
                    row['verdict'] = 'fails as oracle'
                else:
                    fails.append(row)
            elif mo is None or mo['rc'] != 0:
                row['verdict'] = 'runs (oracle did not)'
            else:
                out_o = _read(os.path.join(args.work, 'runs', 'oracle', s, 'stdout')) or ''
                row['verdict'], diff = compare(out_o, out_m)
                row['detail'] = diff and {'oracle': diff[0][:200], 'mxcompat': diff[1][:200]}
        rows.append(row)
    with open(os.path.join(args.work, 'report.json'), 'w') as f:
        json.dump(rows, f, indent=1)
    lines = ['| section | data | oracle | oracle s | mxcompat | mxcompat s | first error / first difference |',
             '|---|---|---|---|---|---|---|']
    for r in rows:
        d = r['detail']
        if d and 'type' in d:
            detail = '%s: %s @ %s; book: %s' % (d['type'], d['message'][:160], d.get('mxcompat_frame'),
                                               d.get('book_line') or d.get('d2l_line'))
        elif d:
            detail = 'oracle `%s` / mxcompat `%s`' % (d['oracle'][:80], d['mxcompat'][:80])
        else:
            detail = ''
        lines.append('| %s | %s | %s | %s | %s | %s | %s |' % (r['section'], r['profile'], r['oracle'], r['oracle_s'],
                                                          r['verdict'], r['mxcompat_s'], detail.replace('|', '\\|')))
    counts = {}
    for r in rows:
        counts[r['verdict']] = counts.get(r['verdict'], 0) + 1
    lines += ['', 'verdicts: ' + ', '.join('%s %d' % kv for kv in sorted(counts.items())), '']
    groups = {}
    for r in fails:
        d = r['detail']
        message = re.sub(r"`[^`]*`|'[^']*'|\d+", '…', d['message'])[:120]
        key = '%s: %s @ %s' % (d['type'], message, d.get('mxcompat_frame') or 'raised outside mxcompat')
        groups.setdefault(key, []).append(r['section'])
    lines.append('## failures grouped by first error (%d sections)' % len(fails))
    for key, secs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append('- [%d] %s: %s' % (len(secs), key, ', '.join(secs)))
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(args.work, 'report.md'), 'w') as f:
        f.write(text)
    print(text)


def arguments(doc, work, only_help, source_help, source=None, timeout=300, jobs=1):
    """The command line the harnesses share (this one, the tutorials' and The Straight Dope's): the command, the
    source, the work folder, what to run where, and both interpreters; each harness adds its own options."""
    p = argparse.ArgumentParser(description=doc.split('\n')[0])
    p.add_argument('command', choices=['prepare', 'run', 'report', 'all'])
    p.add_argument('--source', default=source, help=source_help)
    p.add_argument('--work', default=work)
    p.add_argument('--only', nargs='*', help=only_help)
    p.add_argument('--impl', choices=['oracle', 'mxcompat', 'both'], default='both')
    p.add_argument('--timeout', type=int, default=timeout)
    p.add_argument('--jobs', type=int, default=jobs)
    p.add_argument('--oracle-python', default='/root/.mxnet-oracle/bin/python')
    repo = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
    if not os.path.isdir(os.path.join(repo, 'mxcompat')):
        repo = '/work/main'
    p.add_argument('--mxcompat-repo', default=repo)
    p.add_argument('--mxcompat-python', default=os.path.join(repo, '.venv', 'bin', 'python'))
    p.add_argument('--mxcompat-tree', choices=['head', 'worktree'], default='head',
                   help="head: the repository's committed HEAD (exported); worktree: the files as they are now")
    return p


def main(argv=None):
    p = arguments(__doc__, '/tmp/d2l', 'chapters (e.g. preliminaries) or section globs',
                  'd2l-en checkout directory or GITDIR@REV (prepare/all)', timeout=300, jobs=2)
    p.add_argument('--release', choices=sorted(RELEASES), default='v1.0.3',
                   help="the book's release that --source holds (its chapter list)")
    p.add_argument('--oracle-deps', help='folder put on PYTHONPATH for the oracle (default WORK/pydeps-oracle)')
    p.add_argument('--mxcompat-deps', help='folder put on PYTHONPATH for mxcompat (default WORK/pydeps-mxcompat)')
    p.add_argument('--no-pandas', action='store_true', help='prepare: do not pip-install pandas into the deps folders')
    args = p.parse_args(argv)
    args.oracle_deps = args.oracle_deps or os.path.join(args.work, 'pydeps-oracle')
    args.mxcompat_deps = args.mxcompat_deps or os.path.join(args.work, 'pydeps-mxcompat')
    if args.command in ('prepare', 'all'):
        if not args.source:
            p.error('prepare needs --source')
        prepare(args)
    if args.command in ('run', 'all'):
        run(args)
    if args.command in ('report', 'all', 'run'):
        report(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
