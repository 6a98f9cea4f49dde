"""Runs the registered workloads on mxcompat, native torch and (optionally) real MXNet, one persistent worker
process per side, and reports median times and ratios.

Each side's worker imports only its own framework and gets the same thread settings. For every workload the
parent asks the workers in turn for one timed block (A B C A B C ...), so drift on a busy machine hits every side
alike; a block is ``number`` calls (calibrated per side, at least ``MIN_BLOCK`` seconds) followed by
``mx.nd.waitall()`` on the MXNet sides, with the garbage collector off as in ``timeit`` (and the objects of the
imported frameworks frozen out of it). Medians of the blocks are
reported. Workers talk JSON lines over stdin/stdout; their own prints go to stderr (kept in a temporary file and
shown when something fails).

    python -m benchmarks [--areas ops,symbol] [--size small] [--mxnet-python PATH] [--json out.json] ...
"""
import argparse
import datetime
import gc
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

from benchmarks import ratios as _ratios
from benchmarks import workloads as W

MIN_BLOCK = {'tiny': 0.0, 'small': 0.05, 'full': 0.2}
REPEAT = {'tiny': 1, 'small': 15, 'full': 25}
PROCESSES = {'tiny': 1, 'small': 3, 'full': 3}  # fresh worker processes per workload (see run)
LABEL = {'mxcompat': 'mxcompat', 'torch': 'torch', 'mxnet': 'MXNet'}
WORSE = 1.10  # --compare: a ratio more than 10% above the baseline's fails
# --malloc: glibc malloc settings given to every side's worker alike. 'retain' keeps freed memory in the process
# (no mmap for large blocks, no heap trimming): buffers of tens of MB that a step frees and allocates again (oneDNN
# RNN workspaces) are then not faulted in afresh each step, and which of them glibc happens to return to the
# kernel, a matter of each process's heap layout, stops varying from process to process.
MALLOC = {'default': {}, 'retain': {'MALLOC_MMAP_THRESHOLD_': '1073741824', 'MALLOC_TRIM_THRESHOLD_': '4294967296'}}


# ---- worker side --------------------------------------------------------------------------------------------------
def _cpu_clock():
    # this process's CPU time (every thread: MXNet's engine workers too) plus its waited-for children's (import)
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


TIMERS = {'wall': time.perf_counter, 'cpu': _cpu_clock}
CLOCK = [time.perf_counter]  # the worker's timer, set from --timer


def _autorange(step, sync, min_block):
    """Calls per block so that one block takes at least ``min_block`` seconds (1, 2, 5, 10, 20, 50, ...)."""
    number = 1
    while True:
        for factor in (1, 2, 5):
            n = number * factor
            if _block(step, sync, n) >= min_block:
                return n
        number *= 10


def _block(step, sync, number):
    enabled = gc.isenabled()
    gc.disable()
    try:
        clock = CLOCK[0]
        t0 = clock()
        for _ in range(number):
            step()
        sync()
        return clock() - t0
    finally:
        if enabled:
            gc.enable()


def _versions(side, mod):
    import numpy
    out = {'python': platform.python_version(), 'numpy': numpy.__version__,
           side: getattr(mod, '__mxcompat_version__', mod.__version__)}  # (mxcompat's __version__ is MXNet's API)
    if 'torch' in sys.modules:
        torch = sys.modules['torch']
        out['torch'] = torch.__version__
    return out


def _threads(side):
    keys = ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'MXNET_CPU_WORKER_NTHREADS') + tuple(MALLOC['retain'])
    out = {k: os.environ.get(k) for k in keys}
    if 'torch' in sys.modules:
        out['torch.get_num_threads'] = sys.modules['torch'].get_num_threads()
    return out


def worker_main(side, size, threads, timer='wall'):
    CLOCK[0] = TIMERS[timer]
    proto = os.fdopen(os.dup(1), 'w', buffering=1)
    os.dup2(2, 1)  # anything the workloads print, from Python or C, goes to stderr
    sys.stdout = sys.stderr

    def send(msg):
        proto.write(json.dumps(msg) + '\n')
        proto.flush()

    mod = W.side_module(side)
    if side != 'mxnet':
        import torch
        torch.set_num_threads(threads)
    W.load_all()
    gc.collect()
    gc.freeze()  # the frameworks' own objects never need scanning again: collections stay cheap (~ms, not ~0.3 s)
    send({'hello': {'side': side, 'executable': sys.executable, 'versions': _versions(side, mod),
                    'threads': _threads(side)}})
    live = {}
    for line in sys.stdin:
        msg = json.loads(line)
        cmd, name = msg['cmd'], msg.get('name')
        try:
            if cmd == 'quit':
                break
            if cmd == 'setup':
                w = W.REGISTRY[name]
                t0 = time.perf_counter()
                made = W.instantiate(w, side, size)
                if made is None:
                    send({'absent': True})
                    continue
                step, sync = made
                _block(step, sync, 1)  # warm-up: first-call costs (allocation, graph lowering, caches)
                number = 1 if size == 'tiny' else w.number or _autorange(step, sync, MIN_BLOCK[size])
                live[name] = (step, sync, number)
                send({'number': number, 'setup_seconds': time.perf_counter() - t0})
            elif cmd == 'run':
                step, sync, number = live[name]
                send({'seconds': _block(step, sync, number) / number})
            elif cmd == 'drop':
                live.pop(name, None)
                send({'dropped': name})
        except Exception:
            send({'error': traceback.format_exc()})


# ---- parent side --------------------------------------------------------------------------------------------------
class WorkerDied(RuntimeError):
    pass


class Worker:
    """One side's worker process."""

    def __init__(self, side, python, size, threads, timer='wall', malloc='default'):
        self.side, self.python, self.size, self.threads, self.timer = side, python, size, threads, timer
        self.malloc = malloc
        self.hello = None
        self._start()

    def _start(self):
        env = dict(os.environ)
        for key in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS'):
            env[key] = str(self.threads)
        env['MXNET_CPU_WORKER_NTHREADS'] = '1'  # MXNet's default: one engine worker per CPU device
        env.update(MALLOC[self.malloc])
        env['PYTHONPATH'] = os.pathsep.join(p for p in (W.ROOT, env.get('PYTHONPATH')) if p)
        self.log = tempfile.TemporaryFile(mode='w+')
        cmd = [self.python, '-m', 'benchmarks.runner', '--worker', self.side, '--size', self.size,
               '--threads', str(self.threads), '--timer', self.timer]
        self.proc = subprocess.Popen(cmd, cwd=W.ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1)

    def wait_hello(self):
        self.hello = self._read()['hello']
        return self.hello

    def call(self, cmd, name=None):
        try:
            self.proc.stdin.write(json.dumps({'cmd': cmd, 'name': name}) + '\n')
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied(self.stderr_tail())
        return self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise WorkerDied('%s worker exited with %s\n%s' % (self.side, self.proc.returncode, self.stderr_tail()))
        return json.loads(line)

    def stderr_tail(self, lines=15):
        self.log.seek(0)
        return ''.join(self.log.readlines()[-lines:])

    def restart(self):
        self.close()
        self._start()
        self.wait_hello()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({'cmd': 'quit'}) + '\n')
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


class Result:
    """Per-call seconds of each block of one workload on each side, plus the failures."""

    def __init__(self, workload, size):
        self.workload, self.size = workload, size
        self.times, self.number, self.errors = {}, {}, {}
        self.rounds = {}  # side -> the process round of each block

    def median(self, side):
        t = self.times.get(side)
        return statistics.median(t) if t else None

    def ratio(self, side, other):
        """``side`` over ``other``: the median of the ratios of blocks run one after the other (the blocks are
        interleaved, so a slow spell of the machine falls on both of a pair and cancels), or None."""
        a, b = self.times.get(side), self.times.get(other)
        if not a or not b:
            return None
        pairs = [x / y for x, y in zip(a, b) if y > 0]
        return statistics.median(pairs) if pairs else None

    def ratio_interval(self, side, other, level=0.95, resamples=2000):
        """A bootstrap interval (lo, hi) around ratio(), or None. Whole process rounds are drawn with replacement,
        since the blocks of one process share its luck (where its memory landed); blocks are drawn one by one
        when all ran in one round. With few rounds the interval is coarse: it can only say so much."""
        a, b = self.times.get(side), self.times.get(other)
        if not a or not b:
            return None
        groups = {}
        for x, y, r in zip(a, b, self.rounds.get(side) or [0] * len(a)):
            if y > 0:
                groups.setdefault(r, []).append(x / y)
        groups = list(groups.values())
        if len(groups) == 1:
            groups = [[p] for p in groups[0]]
        if len(groups) < 2:
            return None
        rng = random.Random(0)  # the same results give the same interval
        meds = sorted(statistics.median([p for g in rng.choices(groups, k=len(groups)) for p in g])
                      for _ in range(resamples))
        tail = (1 - level) / 2
        return meds[int(tail * resamples)], meds[math.ceil((1 - tail) * resamples) - 1]

    def spread(self):
        """The largest interquartile range over median among the sides (how far to trust the ratios), or None."""
        out = [(q[2] - q[0]) / q[1] for q in (statistics.quantiles(t, n=4, method='inclusive')
                                              for t in self.times.values() if len(t) > 1) if q[1] > 0]
        return max(out) if out else None


def _first_error_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else 'failed'


def _rounds(reps, processes):
    """``reps`` blocks split as evenly as can be over at most ``processes`` rounds (each at least one block)."""
    n = max(1, min(processes, reps))
    return [reps // n + (i < reps % n) for i in range(n)]


def run(workloads, sides, size, repeat, threads, mxnet_python=None, log=sys.stderr, timer='wall', processes=1,
        malloc='default'):
    """Time every workload on every side, interleaved; returns (results, hello info per side).

    A workload's blocks are split over ``processes`` rounds, each in fresh worker processes (as pyperf spawns
    several): where the memory a process gets lands in the caches changes the speed of the same kernel from one
    process to the next (a torch sum took 36 to 59 us on a shared 2-vCPU machine), which blocks within one pair of
    processes cannot average out."""
    pythons = {'mxcompat': sys.executable, 'torch': sys.executable, 'mxnet': mxnet_python}
    workers = {s: Worker(s, pythons[s], size, threads, timer, malloc) for s in sides}  # they start up in parallel
    try:
        hello = {}
        for s, wk in workers.items():
            try:
                hello[s] = wk.wait_hello()
            except WorkerDied as e:
                raise SystemExit('the %s worker did not start (%s):\n%s' % (s, pythons[s], e))
        results = []
        first = True
        for w in workloads:
            t0 = time.perf_counter()
            res = Result(w, size)
            results.append(res)
            rep = 0
            for round_no, n in enumerate(_rounds(repeat if w.repeat is None else min(repeat, w.repeat), processes)):
                if not first and processes > 1:
                    _restart_all(workers.values())
                first = False
                ready = [s for s in sides if _safe(workers[s], res, 'setup')]
                active = [s for s in ready if s not in res.errors]
                for _ in range(n):
                    # the order of the sides rotates each block, so no side always follows the same other one (a
                    # side that leaves the machine busy, such as MXNet's engine threads, would otherwise slow only
                    # its successor)
                    k = rep % len(active) if active else 0
                    rep += 1
                    for s in active[k:] + active[:k]:
                        r = _safe(workers[s], res, 'run')
                        if r is None:
                            active.remove(s)
                        else:
                            res.times.setdefault(s, []).append(r['seconds'])
                            res.rounds.setdefault(s, []).append(round_no)
                for s in ready:  # free the workload's data (100 MB for save/load) in every worker that set it up
                    if workers[s].proc.poll() is None:
                        _safe(workers[s], res, 'drop')
            log.write('%-28s %s  (%.0f s)\n' % (w.name, '  '.join(
                '%s %s' % (LABEL[s], fmt_time(res.median(s)) if s in res.times else
                           ('error' if s in res.errors else '-')) for s in sides), time.perf_counter() - t0))
            log.flush()
        return results, hello
    finally:
        for wk in workers.values():
            wk.close()


def _restart_all(workers):
    """New processes for every side, started together."""
    workers = list(workers)
    for wk in workers:
        wk.close()
    for wk in workers:
        wk._start()
    for wk in workers:
        wk.wait_hello()


def _safe(worker, res, cmd):
    """One request; a failure is recorded on ``res`` (and a dead worker restarted) instead of raised."""
    name = res.workload.name
    try:
        r = worker.call(cmd, name)
    except WorkerDied as e:
        res.errors[worker.side] = 'worker died: %s' % _first_error_line(str(e))
        worker.restart()
        return None
    if 'error' in r:
        res.errors[worker.side] = _first_error_line(r['error'])
        sys.stderr.write('%s on %s failed:\n%s' % (name, worker.side, r['error']))
        return None
    if r.get('absent'):
        return None
    if cmd == 'setup':
        res.number[worker.side] = r['number']
    return r


# ---- reporting ----------------------------------------------------------------------------------------------------
def fmt_time(s):
    if s is None:
        return '-'
    for unit, scale in (('s', 1.0), ('ms', 1e-3), ('us', 1e-6)):
        if s >= scale:
            return '%.3g %s' % (s / scale, unit)
    return '%.3g ns' % (s * 1e9)


def _fmt_ratio(r, interval=None):
    if r is None:
        return '-'
    return '%.2f' % r if interval is None else '%.2f [%.2f-%.2f]' % (r, interval[0], interval[1])


def verdict(w, mx_s, torch_s, ratio=None):
    """'ok', 'MISS (...)' or '' when the workload has no target or a side is missing. Targets without slack are
    judged on ``ratio`` (the paired-block ratio) when given, else on the medians."""
    if w.target is None or mx_s is None or torch_s is None:
        return ''
    if ratio is not None and not w.slack:
        return 'ok' if ratio <= w.target else 'MISS +%.0f%%' % (100 * (ratio / w.target - 1))
    limit = w.limit(torch_s)
    if mx_s <= limit:
        return 'ok'
    if w.slack:
        return 'MISS +%.2f s' % (mx_s - limit)
    return 'MISS +%.0f%%' % (100 * (mx_s / limit - 1))


def target_text(w):
    if w.target is None:
        return ''
    if w.slack:
        return 'torch+%gs' % w.slack if w.target == 1 else '%gx+%gs' % (w.target, w.slack)
    return '<=%.2gx' % w.target


def machine_info():
    model = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as f:
            model = next(ln.split(':', 1)[1].strip() for ln in f if ln.startswith('model name'))
    except (OSError, StopIteration):
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    load = os.getloadavg() if hasattr(os, 'getloadavg') else None
    return {'node': platform.node(), 'processor': platform.processor(), 'machine': platform.machine(),
            'python_implementation': platform.python_implementation(), 'python_version': platform.python_version(),
            'release': platform.release(), 'system': platform.system(),
            'cpu': {'brand_raw': model, 'count': os.cpu_count(), 'usable': usable},
            'loadavg': list(load) if load else None}


def header(info, hello, size, threads, repeat, timer='wall', processes=1):
    cpu = info['cpu']
    lines = ['machine: %s, %d logical cores (%d usable), load average %s' % (
        cpu['brand_raw'], cpu['count'], cpu['usable'],
        ' '.join('%.1f' % x for x in info['loadavg']) if info['loadavg'] else '?')]
    for side, h in hello.items():
        v = ', '.join('%s %s' % kv for kv in h['versions'].items())
        t = h['threads']
        n = t.get('torch.get_num_threads', t.get('OMP_NUM_THREADS'))
        lines.append('%-9s %s; threads %s (OMP_NUM_THREADS=%s)' % (LABEL[side] + ':', v, n, t.get('OMP_NUM_THREADS')))
        tuned = ['%s=%s' % (k, t[k]) for k in MALLOC['retain'] if t.get(k) is not None]
        if tuned:
            lines[-1] += '; malloc %s' % ' '.join(tuned)
    lines.append('size %s, %d threads per side, %s interleaved blocks in %d process%s per side (times: medians; '
                 'ratios: median of the paired blocks\' ratios), %s time' % (
        size, threads, repeat, processes, '' if processes == 1 else 'es', {'wall': 'wall-clock', 'cpu': 'CPU'}[timer]))
    return '\n'.join(lines)


def table(results, sides):
    """The ratio table as text."""
    cols = ['workload'] + [LABEL[s] for s in sides]
    cols += ['mxc/torch'] if 'torch' in sides else []
    cols += ['mxc/MXNet'] if 'mxnet' in sides else []
    cols += ['IQR', 'target', '']
    rows = []
    notes = []
    for res in results:
        w = res.workload
        med = {s: res.median(s) for s in sides}
        row = [w.name] + [fmt_time(med[s]) if med[s] is not None else ('error' if s in res.errors else '-')
                          for s in sides]
        for other in ('torch', 'mxnet'):
            if other in sides:
                row.append(_fmt_ratio(res.ratio('mxcompat', other), res.ratio_interval('mxcompat', other)))
        spread = res.spread()
        row += ['-' if spread is None else '%.0f%%' % (100 * spread), target_text(w),
                verdict(w, med.get('mxcompat'), med.get('torch'), res.ratio('mxcompat', 'torch'))]
        rows.append(row)
        if w.nbytes and any(med.values()):
            size = w.nbytes(res.size)
            notes.append('%s throughput: %s' % (w.name, ', '.join(
                '%s %.0f MB/s' % (LABEL[s], size / med[s] / 1e6) for s in sides if med[s])))
        for s, err in res.errors.items():
            notes.append('%s on %s: %s' % (w.name, LABEL[s], err))
    widths = [max(len(str(r[i])) for r in rows + [cols]) for i in range(len(cols))]
    fmt = lambda r: '  '.join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i])
                              for i, c in enumerate(r)).rstrip()
    out = [fmt(cols), fmt(['-' * n for n in widths])] + [fmt(r) for r in rows]
    out += ['', 'IQR: the widest interquartile range of the blocks, over the median, among the sides',
            '[lo-hi]: 95% bootstrap interval of the ratio, drawing whole process rounds (--processes: more rounds, '
            'a truer interval)']
    return '\n'.join(out + notes)


def _stats(data, number):
    data = sorted(data)
    n = len(data)
    mean = statistics.fmean(data)
    stddev = statistics.stdev(data) if n > 1 else 0.0
    q1, _, q3 = statistics.quantiles(data, n=4, method='inclusive') if n > 1 else (data[0],) * 3
    iqr = q3 - q1
    lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    return {'min': data[0], 'max': data[-1], 'mean': mean, 'stddev': stddev, 'rounds': n,
            'median': statistics.median(data), 'iqr': iqr, 'q1': q1, 'q3': q3,
            'iqr_outliers': sum(1 for x in data if x < lo or x > hi),
            'stddev_outliers': sum(1 for x in data if abs(x - mean) > stddev),
            'outliers': '%d;%d' % (sum(1 for x in data if abs(x - mean) > stddev),
                                   sum(1 for x in data if x < lo or x > hi)),
            'ld15iqr': min(x for x in data if x >= lo), 'hd15iqr': max(x for x in data if x <= hi),
            'ops': 1.0 / mean if mean else 0.0, 'total': sum(data), 'iterations': number}


def _commit():
    try:
        sha = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=W.ROOT, capture_output=True, text=True).stdout.strip()
        dirty = bool(subprocess.run(['git', 'status', '--porcelain'], cwd=W.ROOT, capture_output=True,
                                    text=True).stdout.strip())
        return {'id': sha, 'dirty': dirty, 'project': 'mxcompat'}
    except OSError:
        return {}


def to_json(results, info, hello, size, threads, timer='wall', processes=1):
    """pytest-benchmark's JSON layout (group = workload, extra_info.side = side), readable by ratios.py."""
    try:
        from importlib.metadata import version
        pb = version('pytest-benchmark')
    except Exception:
        pb = '5.2.3'
    benches, errors = [], []
    for res in results:
        w = res.workload
        for s, data in res.times.items():
            extra = {'side': s, 'area': w.area, 'size': size, 'threads': threads, 'timer': timer,
                     'processes': processes, 'target': w.target, 'slack': w.slack, 'doc': w.doc}
            if w.nbytes:
                extra['nbytes'] = w.nbytes(size)
            if s == 'mxcompat':  # the paired-block ratios the table shows (compare() prefers them to the medians')
                extra['paired_ratio'] = {o: res.ratio(s, o) for o in res.times if o != s}
                extra['paired_ratio_interval'] = {o: res.ratio_interval(s, o) for o in res.times if o != s}
            benches.append({
                'group': w.name, 'name': '%s[%s]' % (w.name, s), 'fullname': 'benchmarks/workloads.py::%s[%s]' % (
                    w.name, s), 'params': {'side': s, 'size': size}, 'param': s, 'extra_info': extra,
                'options': {'disable_gc': True, 'timer': {'wall': 'perf_counter', 'cpu': 'process_time'}[timer],
                            'min_rounds': len(data), 'max_time': 0,
                            'min_time': MIN_BLOCK[size], 'warmup': True},
                'stats': _stats(data, res.number.get(s, 1))})
        errors += [{'group': w.name, 'side': s, 'error': e} for s, e in res.errors.items()]
    info = dict(info, sides=hello)
    return {'machine_info': info, 'commit_info': _commit(), 'benchmarks': benches, 'errors': errors,
            'datetime': datetime.datetime.now(datetime.timezone.utc).isoformat(), 'version': pb}


def compare(current, baseline, threshold=WORSE):
    """Rows (workload, ratio name, baseline, current, flagged) for every ratio present in both JSON documents."""
    cur, base = _ratios.side_medians(current), _ratios.side_medians(baseline)
    paired_now, paired_base = _paired(current), _paired(baseline)
    rows = []
    for group in cur:
        for other in ('torch', 'mxnet'):
            r_now = paired_now.get((group, other)) or _ratios.ratio(cur[group], other)
            r_base = paired_base.get((group, other)) or _ratios.ratio(base.get(group, {}), other)
            if r_now is not None and r_base is not None:
                rows.append((group, 'mxcompat/' + LABEL[other], r_base, r_now, r_now > r_base * threshold))
    return rows


def _paired(doc):
    """{(workload, other side): paired-block ratio} recorded by to_json (older documents have none)."""
    out = {}
    for b in doc['benchmarks']:
        for other, r in (b.get('extra_info', {}).get('paired_ratio') or {}).items():
            if r is not None:
                out[(b['group'], other)] = r
    return out


def _timers(doc):
    return {b.get('extra_info', {}).get('timer', 'wall') for b in doc['benchmarks']}


def compare_text(rows):
    out = ['%-28s %-16s %9s %9s %8s' % ('workload', 'ratio', 'baseline', 'now', 'change')]
    for g, name, b, n, bad in rows:
        out.append('%-28s %-16s %9.2f %9.2f %+7.0f%%%s' % (g, name, b, n, 100 * (n / b - 1),
                                                          '  WORSE' if bad else ''))
    return '\n'.join(out)


def plot_bars(results, sides):
    """(workload, 'vs <side>', ratio) of every ratio of a run."""
    bars = []
    for res in results:
        for other in ('torch', 'mxnet'):
            r = res.ratio('mxcompat', other) if other in sides else None
            if r is not None:
                bars.append((res.workload.name, 'vs ' + LABEL[other], r))
    return bars


def draw_bars(bars, path):
    """Bar chart of the ratios (log scale): matplotlib when installed, else a hand-written SVG (.svg only)."""
    if not bars:
        raise SystemExit('--plot: no ratios to draw')
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        if not path.endswith('.svg'):
            raise SystemExit('--plot %s: matplotlib is not installed; ask for an .svg file instead' % path)
        with open(path, 'w') as f:
            f.write(svg_bars(bars))
        return
    names = list(dict.fromkeys(b[0] for b in bars))
    kinds = list(dict.fromkeys(b[1] for b in bars))
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(names) * len(kinds) + 1))
    h = 0.8 / len(kinds)
    for k, kind in enumerate(kinds):
        ys = [names.index(n) + k * h for n, kd, _ in bars if kd == kind]
        ax.barh(ys, [r for _, kd, r in bars if kd == kind], height=h, label='mxcompat ' + kind)
    ax.set_yticks([i + 0.4 - h / 2 for i in range(len(names))], names)
    ax.invert_yaxis()
    ax.set_xscale('log')
    ax.axvline(1.0, color='k', lw=0.8)
    ax.set_xlabel('time ratio (lower is better for mxcompat)')
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def svg_bars(bars):
    """A horizontal log-scale bar chart of (label, kind, ratio) as SVG text."""
    colors = ['#4c72b0', '#dd8452', '#55a868']
    kinds = list(dict.fromkeys(b[1] for b in bars))
    lo = min(0.5, min(r for _, _, r in bars))
    hi = max(2.0, max(r for _, _, r in bars))
    left, width, row = 230, 460, 16
    x = lambda r: left + width * (math.log(r) - math.log(lo)) / (math.log(hi) - math.log(lo))
    height = row * len(bars) + 70
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (left + width + 60, height),
           '<text x="%d" y="14">mxcompat time / other time (log scale; left of 1 = mxcompat faster)</text>' % left]
    for i, (name, kind, r) in enumerate(bars):
        y = 24 + i * row
        x0, x1 = x(1.0), x(r)
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
            min(x0, x1), y, abs(x1 - x0), row - 3, colors[kinds.index(kind) % len(colors)]))
        out.append('<text x="%d" y="%d" text-anchor="end">%s %s</text>' % (left - 6, y + row - 5, name, kind))
        out.append('<text x="%.1f" y="%d">%.2f</text>' % (max(x0, x1) + 3, y + row - 5, r))
    bottom = 24 + len(bars) * row
    out.append('<line x1="%.1f" y1="20" x2="%.1f" y2="%d" stroke="black"/>' % (x(1.0), x(1.0), bottom))
    k0, k1 = math.ceil(math.log2(lo)), math.floor(math.log2(hi))
    for k in range(k0, k1 + 1, 1 if k1 - k0 <= 8 else 2):
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (x(2.0 ** k), bottom + 14, 2.0 ** k))
    for k, kind in enumerate(kinds):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">mxcompat %s</text>'
                   % (left + 120 * k, bottom + 24, colors[k % len(colors)], left + 120 * k + 14, bottom + 33, kind))
    return '\n'.join(out + ['</svg>\n'])


# ---- pytest-benchmark suites (bench_*.py) -------------------------------------------------------------------------
def pytest_bench(benchmark, name, side, size=None):
    """Time workload ``name`` on ``side`` in this process under pytest-benchmark (BENCH_SIZE, default 'small')."""
    size = size or os.environ.get('BENCH_SIZE', 'small')
    w = W.load_all()[name]
    step, sync = W.instantiate(w, side, size)
    benchmark.group = name
    benchmark.extra_info.update(side=side, area=w.area, size=size)
    if w.number or w.repeat:  # slow workloads: a few rounds of one call
        benchmark.pedantic(lambda: (step(), sync()), rounds=w.repeat or 5, iterations=1, warmup_rounds=1)
    else:
        benchmark(step)
        sync()


def pytest_suite(*areas):
    """A pytest test function over the workloads of ``areas`` x the sides mxcompat and torch (real MXNet lives in
    another environment: use ``python -m benchmarks --mxnet-python``)."""
    import pytest
    names = [w.name for w in W.select(list(areas))]

    @pytest.mark.parametrize('side', ['mxcompat', 'torch'])
    @pytest.mark.parametrize('name', names)
    def test_workload(benchmark, name, side):
        pytest_bench(benchmark, name, side)
    return test_workload


# ---- command line -------------------------------------------------------------------------------------------------
def parse_args(argv):
    p = argparse.ArgumentParser(prog='python -m benchmarks', description=__doc__.split('\n\n')[0])
    p.add_argument('--areas', help='comma-separated areas (default: all): ' + ', '.join(W.areas_of(W.select())))
    p.add_argument('-k', '--workloads', help='comma-separated substrings of workload names to keep')
    p.add_argument('--size', choices=W.SIZES, default='small')
    p.add_argument('--mxnet-python', help='python of an environment with the real MXNet (adds the MXNet column)')
    p.add_argument('--repeat', type=int, help='timed blocks per side (default: tiny 1, small 15, full 25; '
                   'slow workloads cap it)')
    p.add_argument('--processes', type=int, help='fresh worker processes per workload and side, the blocks '
                   'split among them (default: tiny 1, small and full 3)')
    p.add_argument('--threads', type=int, default=1, help='threads per side: torch.set_num_threads and '
                   'OMP/MKL_NUM_THREADS (default 1)')
    p.add_argument('--timer', choices=sorted(TIMERS), default='wall', help="wall: elapsed time (default); cpu: "
                   "the worker's CPU time, all threads and waited-for children: steadier on a shared machine, blind "
                   "to I/O waits")
    p.add_argument('--malloc', choices=sorted(MALLOC), default='default', help="glibc malloc settings for every "
                   "side alike: default (the environment's), or retain (freed memory stays in the process: see "
                   "MALLOC in benchmarks/runner.py)")
    p.add_argument('--no-torch', action='store_true', help='skip the native torch side')
    p.add_argument('--json', help='write pytest-benchmark-compatible JSON here')
    p.add_argument('--plot', help='bar chart of the ratios (.svg always; .png etc. need matplotlib)')
    p.add_argument('--compare', help='a JSON written by --json; exits 1 if any ratio is >10%% worse than there')
    p.add_argument('--device', choices=('cpu', 'cuda'), default='cpu', help="cuda: the GPU workloads of "
                   "benchmarks/gpu.py in one process (CUDA-event medians; -k picks its models, --repeat its steps, "
                   "--profile adds kernel counts); the same table, --json, --plot and --compare")
    p.add_argument('--profile', action='store_true', help=argparse.SUPPRESS)
    p.add_argument('--worker', choices=W.SIDES, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def gpu_main(args):
    """``--device cuda``: benchmarks.gpu's rows, written as the CPU runs write theirs."""
    from benchmarks import gpu
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, 'gpu.json')
        argv = ['--json', raw] + (['--models', args.workloads] if args.workloads else []) + (
            ['--steps', str(args.repeat)] if args.repeat else []) + (['--profile'] if args.profile else [])
        status = gpu.main(argv)
        if not os.path.exists(raw):
            return status
        with open(raw) as f:
            doc = gpu.to_benchmark_json(json.load(f))
    doc.update(commit_info=_commit(), datetime=datetime.datetime.now(datetime.timezone.utc).isoformat())
    return _finish(args, doc, [(b['group'], 'vs torch', b['extra_info']['paired_ratio']['torch'])
                               for b in doc['benchmarks'] if 'paired_ratio' in b['extra_info']], status)


def _finish(args, doc, bars, status):
    """--json, --plot and --compare of a run's document; the exit status."""
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(doc, f, indent=1)
    if args.plot:
        draw_bars(bars, args.plot)
    if doc['errors']:
        status = 1
    if args.compare:
        with open(args.compare) as f:
            baseline = json.load(f)
        rows = compare(doc, baseline)
        print('\ncompared with %s (flagged: ratio more than %d%% above the baseline)' % (
            args.compare, round(100 * (WORSE - 1))))
        if _timers(baseline) - _timers(doc):
            print('note: the baseline was timed with --timer %s, this run with --timer %s' % (
                '/'.join(sorted(_timers(baseline))), '/'.join(sorted(_timers(doc)))))
        print(compare_text(rows))
        if any(r[-1] for r in rows):
            status = 1
    return status


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.device == 'cuda':
        return gpu_main(args)
    if args.worker:
        worker_main(args.worker, args.size, args.threads, args.timer)
        return 0
    split = lambda s: [x.strip() for x in s.split(',') if x.strip()] if s else None
    try:
        workloads = W.select(split(args.areas), split(args.workloads))
    except ValueError as e:
        raise SystemExit(str(e))
    if not workloads:
        raise SystemExit('no workload selected')
    sides = ['mxcompat'] + ([] if args.no_torch else ['torch']) + (['mxnet'] if args.mxnet_python else [])
    repeat = args.repeat or REPEAT[args.size]
    processes = args.processes or PROCESSES[args.size]
    info = machine_info()
    t0 = time.perf_counter()
    results, hello = run(workloads, sides, args.size, repeat, args.threads, args.mxnet_python, timer=args.timer,
                         processes=processes, malloc=args.malloc)
    print()
    print(header(info, hello, args.size, args.threads, repeat, args.timer, processes))
    print()
    print(table(results, sides))
    print('\n%d workloads in %.0f s' % (len(results), time.perf_counter() - t0))
    doc = to_json(results, info, hello, args.size, args.threads, args.timer, processes)
    return _finish(args, doc, plot_bars(results, sides), 0)


if __name__ == '__main__':
    sys.exit(main())
