"""Start-up in new processes: ``import mxcompat``, and the first forward of a deferred-initialization Gluon model
(MLP, small CNN; imperative and hybridized), ``Module.bind`` and ``simple_bind`` against the second forward, beside
the same script in native torch (target, issue 37: the first forward at most 0.3 s more than the second).

    python -m pytest benchmarks/bench_startup.py --benchmark-json=/tmp/s.json && python benchmarks/ratios.py /tmp/s.json
    python benchmarks/bench_startup.py [--runs 5] [--mxnet-python PATH] [--scripts]
The second form prints each phase (median over ``--runs`` new processes, wall and CPU time): import, build, first
and second forward, first - second; ``--mxnet-python`` adds real MXNet 1.9.1's, ``--scripts`` the whole-process wall
time of the short training scripts in compat_examples/ (``python -m mxcompat script.py``, and under MXNet).
The scripts are ``benchmarks/workloads_startup.py``'s, which ``python -m benchmarks --areas startup`` also runs.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

if __name__ == '__main__':  # run as a file: the repository root on the path, as under pytest
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import workloads_startup as S  # noqa: E402
from benchmarks.runner import pytest_suite  # noqa: E402
from benchmarks.workloads import ROOT  # noqa: E402

test_workload = pytest_suite('startup')
SCRIPTS = ('gluon_mlp', 'module_mlp')


def phases(code, runs, python=None):
    """{'wall'|'cpu': {phase: median seconds}} over ``runs`` new processes, plus 'first-second'."""
    got = [S.run_script(code, python) for _ in range(runs)]
    out = {}
    for clock in ('wall', 'cpu'):
        med = {p: statistics.median(g[clock][i] for g in got) for i, p in enumerate(S.PHASES)}
        med['first-second'] = statistics.median(g[clock][2] - g[clock][3] for g in got)
        out[clock] = med
    return out


def script_wall(cmd, runs):
    """Median wall seconds of a whole process, output discarded."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=S._env(), check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--runs', type=int, default=5, help='new processes per script (default 5)')
    p.add_argument('--mxnet-python', help='python of an environment with the real MXNet 1.9.1')
    p.add_argument('--scripts', action='store_true', help='also time the compat_examples training scripts')
    a = p.parse_args(argv)
    sides = [('mxcompat', lambda m: S.mx_script(m), None), ('torch', S.torch_script, None)]
    if a.mxnet_python:
        sides.append(('MXNet', lambda m: S.mx_script(m, 'mxnet'), a.mxnet_python))
    print('median of %d new processes, seconds: wall (CPU)' % a.runs)
    print('%-12s %-9s %14s %14s %14s %14s %14s' % ('model', 'side', *S.PHASES, 'first-second'))
    for model in S.MODELS:
        for side, script, python in sides:
            r = phases(script(model), a.runs, python)
            print('%-12s %-9s' % (model, side) + ''.join(
                ' %6.3f (%5.3f)' % (r['wall'][k], r['cpu'][k]) for k in S.PHASES + ('first-second',)))
    if a.scripts:
        print('\nwhole script, median wall seconds of %d runs' % a.runs)
        for name in SCRIPTS:
            path = os.path.join('compat_examples', name + '.py')
            row = '%-12s mxcompat %6.2f' % (name, script_wall([sys.executable, '-m', 'mxcompat', path], a.runs))
            if a.mxnet_python:
                row += '   MXNet %6.2f' % script_wall([a.mxnet_python, path], a.runs)
            print(row)


if __name__ == '__main__':
    main()
