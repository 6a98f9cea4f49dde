"""The comparison runner: reporting, JSON, --compare and the plot on synthetic results; one real run end to end on
tiny sizes (two workers). No timing assertions."""
import json
import os
import subprocess
import sys
import xml.dom.minidom

import pytest

from benchmarks import ratios
from benchmarks import runner as R
from benchmarks import workloads as W

ALL = W.load_all()


def _result(name, **times):
    res = R.Result(ALL[name], 'small')
    for side, t in times.items():
        res.times[side] = list(t)
        res.number[side] = 10
    return res


def _results():
    return [_result('ops:dot', mxcompat=[2.0, 2.2, 2.1], torch=[1.0, 1.0, 1.1], mxnet=[4.0, 4.0, 4.0]),
            _result('import:import_time', mxcompat=[2.5, 2.6, 2.4], torch=[2.0, 2.0, 2.0]),
            _result('save_load:nd_save', mxcompat=[0.2], torch=[0.1], mxnet=[0.1])]


def test_table_ratios_and_verdicts():
    text = R.table(_results(), ['mxcompat', 'torch', 'mxnet'])
    lines = {ln.split()[0]: ln for ln in text.splitlines() if ln[:1].isalpha()}
    assert '2.00' in lines['ops:dot'] and '0.53' in lines['ops:dot'] and 'MISS +82%' in lines['ops:dot']
    assert 'torch+0.3s' in lines['import:import_time'] and 'MISS +0.20 s' in lines['import:import_time']
    assert 'nd_save throughput: mxcompat 524 MB/s, torch 1049 MB/s, MXNet 1049 MB/s' in text
    assert R.verdict(ALL['ops:dot'], 1.05, 1.0) == 'ok'
    assert R.verdict(ALL['save_load:nd_save'], 5.0, 1.0) == ''


def test_ratios_pair_the_interleaved_blocks():
    # a slow spell (blocks 2 and 4) hits both sides of a pair: the paired ratio sees 1.2 throughout
    res = _result('ops:dot', mxcompat=[1.2, 2.4, 1.2, 2.4, 2.4], torch=[1.0, 2.0, 1.0, 2.0, 1.0])
    assert res.ratio('mxcompat', 'torch') == 1.2
    assert res.ratio('mxcompat', 'mxnet') is None
    assert R.verdict(ALL['ops:dot'], 2.4, 1.0, res.ratio('mxcompat', 'torch')) == 'MISS +9%'


def test_ratio_interval_draws_whole_process_rounds():
    # three processes: one fast for mxcompat (0.8), two at 1.0 and 1.2; blocks within a process agree, so the
    # interval spans the processes' ratios and not the (tight) block-to-block spread
    res = _result('ops:dot', mxcompat=[0.8, 0.8, 1.0, 1.0, 1.2, 1.2], torch=[1.0] * 6)
    res.rounds['mxcompat'] = [0, 0, 1, 1, 2, 2]
    lo, hi = res.ratio_interval('mxcompat', 'torch')
    assert (lo, hi) == (0.8, 1.2)
    assert res.ratio_interval('mxcompat', 'torch') == (lo, hi)  # seeded: the same results, the same interval
    # one round: the blocks are drawn one by one
    one = _result('ops:dot', mxcompat=[1.0, 1.1, 0.9, 1.0, 1.05], torch=[1.0] * 5)
    lo, hi = one.ratio_interval('mxcompat', 'torch')
    assert 0.9 <= lo <= one.ratio('mxcompat', 'torch') <= hi <= 1.1
    assert _result('ops:dot', mxcompat=[1.0], torch=[1.0]).ratio_interval('mxcompat', 'torch') is None
    assert res.ratio_interval('mxcompat', 'mxnet') is None
    line = next(ln for ln in R.table([res], ['mxcompat', 'torch']).splitlines() if ln.startswith('ops:dot'))
    assert '1.00 [0.80-1.20]' in line


def test_errors_are_listed():
    res = _result('ops:dot', torch=[1.0])
    res.errors['mxcompat'] = 'MXNetError: boom'
    text = R.table([res], ['mxcompat', 'torch'])
    assert 'error' in text and 'ops:dot on mxcompat: MXNetError: boom' in text


def test_json_is_pytest_benchmark_shaped_and_compare_flags(tmp_path):
    doc = R.to_json(_results(), R.machine_info(), {}, 'small', 1)
    b = doc['benchmarks'][0]
    assert (b['group'], b['extra_info']['side'], b['stats']['median'], b['stats']['rounds']) == ('ops:dot', 'mxcompat',
                                                                                                2.1, 3)
    for key in ('min', 'max', 'mean', 'stddev', 'iqr', 'q1', 'q3', 'ops', 'iterations', 'outliers'):
        assert key in b['stats']
    path = tmp_path / 'b.json'
    path.write_text(json.dumps(doc))
    assert ratios.ratios(str(path))[0][0] == 'import:import_time'
    assert {g: round(ratios.ratio(s, 'torch'), 3) for g, s in ratios.side_medians(doc).items()} == {
        'ops:dot': 2.1, 'import:import_time': 1.25, 'save_load:nd_save': 2.0}
    assert not any(row[-1] for row in R.compare(doc, doc))
    dot = next(b for b in doc['benchmarks'] if b['group'] == 'ops:dot' and b['extra_info']['side'] == 'mxcompat')
    assert dot['extra_info']['paired_ratio'] == {'torch': 2.0, 'mxnet': 0.525}
    lo, hi = dot['extra_info']['paired_ratio_interval']['torch']
    assert lo <= 2.0 <= hi
    worse = json.loads(json.dumps(doc))
    for b in worse['benchmarks']:
        if b['group'] == 'ops:dot' and b['extra_info']['side'] == 'mxcompat':
            b['stats']['median'] *= 1.2
            b['extra_info']['paired_ratio'] = {k: v * 1.2 for k, v in b['extra_info']['paired_ratio'].items()}
    flagged = [(g, name) for g, name, _, _, bad in R.compare(worse, doc) if bad]
    assert flagged == [('ops:dot', 'mxcompat/torch'), ('ops:dot', 'mxcompat/MXNet')]
    assert 'WORSE' in R.compare_text(R.compare(worse, doc))
    for d in (doc, worse):  # documents without paired ratios (older runs, pytest-benchmark's) compare medians
        for b in d['benchmarks']:
            b['extra_info'].pop('paired_ratio', None)
    assert [(g, name) for g, name, _, _, bad in R.compare(worse, doc) if bad] == flagged


def test_svg_plot(tmp_path):
    path = str(tmp_path / 'r.svg')
    R.draw_bars(R.plot_bars(_results(), ['mxcompat', 'torch', 'mxnet']), path)
    svg = xml.dom.minidom.parse(path)
    assert len(svg.getElementsByTagName('rect')) >= 5


def _run(args, tmp_path):
    return subprocess.run([sys.executable, '-m', 'benchmarks'] + args, cwd=W.ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=W.ROOT), timeout=300)


def test_end_to_end_tiny(tmp_path):
    out, svg = str(tmp_path / 'o.json'), str(tmp_path / 'o.svg')
    p = _run(['--size', 'tiny', '--areas', 'tiny,ops', '-k', 'add,dot', '--json', out, '--plot', svg,
              '--compare', os.path.join(W.ROOT, 'benchmarks', 'baseline.json')], tmp_path)
    assert 'tiny:add' in p.stdout and 'ops:dot' in p.stdout and 'machine:' in p.stdout, p.stdout + p.stderr
    doc = json.load(open(out))
    assert sorted((b['group'], b['extra_info']['side']) for b in doc['benchmarks']) == [
        ('ops:dot', 'mxcompat'), ('ops:dot', 'torch'), ('tiny:add', 'mxcompat'), ('tiny:add', 'torch')]
    assert doc['errors'] == [] and os.path.getsize(svg) > 0
    assert 'compared with' in p.stdout  # tiny timings are single calls: whether they are flagged is not asserted
    assert p.returncode in (0, 1)


def test_bad_area_is_reported(tmp_path):
    p = _run(['--areas', 'nope'], tmp_path)
    assert p.returncode != 0 and 'unknown area(s) nope' in p.stderr


def test_pytest_benchmark_reads_the_json(tmp_path):
    pytest.importorskip('pytest_benchmark')
    doc = R.to_json(_results(), R.machine_info(), {}, 'small', 1)
    (tmp_path / '0001_run.json').write_text(json.dumps(doc))
    p = subprocess.run([sys.executable, '-c', 'from pytest_benchmark.cli import main; main()', 'compare',
                        str(tmp_path / '0001_run.json'), '--group-by=group', '--columns=median'],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert p.returncode == 0 and 'ops:dot[mxcompat]' in p.stdout, p.stdout + p.stderr


def test_cpu_clock_counts_this_process_and_its_children():
    t0 = R.TIMERS['cpu']()
    sum(i * i for i in range(200000))
    subprocess.run([sys.executable, '-c', 'sum(i * i for i in range(2000000))'], check=True)
    assert R.TIMERS['cpu']() - t0 > 0.02


def test_blocks_are_split_over_rounds():
    assert R._rounds(21, 3) == [7, 7, 7]
    assert R._rounds(7, 3) == [3, 2, 2]
    assert R._rounds(2, 3) == [1, 1]
    assert R._rounds(5, 1) == [5]


def test_each_round_runs_in_fresh_worker_processes(tmp_path):
    out = str(tmp_path / 'o.json')
    p = _run(['--size', 'tiny', '--areas', 'ops', '-k', 'dot', '--repeat', '3', '--processes', '3', '--json', out],
             tmp_path)
    assert p.returncode == 0 and '3 processes per side' in p.stdout, p.stdout + p.stderr
    doc = json.load(open(out))
    assert [b['options']['min_rounds'] for b in doc['benchmarks']] == [3, 3]
    assert [b['extra_info']['processes'] for b in doc['benchmarks']] == [3, 3]


def test_run_records_the_process_round_of_each_block():
    import io
    results, _ = R.run([ALL['ops:dot']], ['mxcompat', 'torch'], 'tiny', 4, 1, log=io.StringIO(), processes=2)
    assert results[0].rounds == {'mxcompat': [0, 0, 1, 1], 'torch': [0, 0, 1, 1]}


def test_restart_all_gives_new_processes():
    workers = [R.Worker(s, sys.executable, 'tiny', 1) for s in ('mxcompat', 'torch')]
    try:
        for wk in workers:
            wk.wait_hello()
        before = [wk.proc.pid for wk in workers]
        R._restart_all(workers)
        assert all(wk.proc.poll() is None for wk in workers)
        assert not set(before) & {wk.proc.pid for wk in workers}
    finally:
        for wk in workers:
            wk.close()


def test_malloc_retain_reaches_every_side(tmp_path):
    out = str(tmp_path / 'o.json')
    p = _run(['--size', 'tiny', '--areas', 'ops', '-k', 'dot', '--malloc', 'retain', '--json', out], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count('malloc MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296') == 2
    sides = json.load(open(out))['machine_info']['sides']
    for side in ('mxcompat', 'torch'):
        assert sides[side]['threads']['MALLOC_TRIM_THRESHOLD_'] == '4294967296'
