"""kernels/_native: the compiled parallel generator draws what the numpy code of operator/_mt19937 draws (both read
and advance the same engines, in any order of calls), normal and gamma values included, and so does the single
engine; it is built once into the cache folder, and MXCOMPAT_NATIVE=0 keeps everything on numpy. Skipped where no
C compiler is found."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from mxcompat.kernels import _native
from mxcompat.operator import _mt19937, _mxrandom as R

pytestmark = pytest.mark.skipif(_native.library() is None, reason='no compiled generator: %s' % _native.why_not())


def _parallel_call(gen, kind, n):
    """One call of kind ``kind`` filling ``n`` values on the parallel generator ``gen`` (R.PARALLEL)."""
    if kind == 'raw':
        return gen.fixed(n, 1)
    if kind == 'float':
        return gen.fixed(n, 1, np.float32, np.float32(3e-10), np.float32(-0.5))
    if kind == 'double':
        return gen.fixed(n, 2, np.float64, 2.0 ** -32)
    if kind == 'normal':
        return R.normal(n, np.array([0.25], np.float32), np.array([1.5], np.float32), np.float32)
    if kind == 'standard':
        return R.standard_normal(n, np.float32)
    if kind == 'gamma':
        return R.gamma(n, np.float32(2.5), np.float32(1.3), np.float32)
    if kind == 'gamma_below_1':  # (a uniform number more per value)
        return R.gamma(n, np.float32(0.4), np.float32(0.7), np.float32)
    rows = np.arange(min(R.NUM_STATES, n))  # a look ahead of the numpy code, part of it read
    ahead = gen.peek(rows, 9).copy()
    gen.skip(rows, 4)
    return ahead


def _single_call(engine, kind, n):
    """One call of kind ``kind`` drawing ``n`` values on the single engine ``engine`` (R.SINGLE)."""
    if kind == 'uniform':
        return R.single_uniform(n)
    if kind == 'normal':
        return R.single_normal(n)
    if kind == 'normal64':  # (numpy's path on both sides: it leaves outputs drawn ahead)
        return R.single_normal(n, np.float64)
    return engine.draw(n).copy()


def _draws(compiled, monkeypatch, calls, seed=12345, single=False):
    """The values of ``calls`` ([(kind, n)]) on a parallel generator seeded from ``seed`` (or on the single engine
    seeded with it), on either path."""
    with monkeypatch.context() as m:
        if not compiled:
            m.setitem(_native._STATE, 'lib', None)
        gen = _mt19937.Engine(seed) if single else _mt19937.ParallelRandom(seed)
        m.setattr(R, 'SINGLE' if single else 'PARALLEL', gen)
        call = _single_call if single else _parallel_call
        return [np.array(call(gen, kind, n)) for kind, n in calls]


@pytest.mark.parametrize('trial', range(4))
def test_compiled_and_numpy_draw_the_same_numbers(trial, monkeypatch):
    rng = np.random.default_rng(trial)
    kinds = ['raw', 'float', 'double', 'normal', 'standard', 'peek', 'gamma', 'gamma_below_1']
    calls = [(str(k), int(n)) for k, n in zip(rng.choice(kinds, 40), rng.integers(1, 200000, 40))]
    calls += [('raw', 64), ('normal', 65), ('float', 65536), ('standard', 65537), ('normal', 1), ('raw', 1000001),
              ('gamma', 65537), ('gamma_below_1', 63)]
    for a, b in zip(_draws(True, monkeypatch, calls, trial), _draws(False, monkeypatch, calls, trial)):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_normal_calls_that_end_anywhere_in_a_block(monkeypatch):
    # each engine's normal values end after an accepted attempt at any position of its block, some with an attempt
    # straddling two blocks: the next call must start with the next output (small calls of one engine, in a row)
    calls = [('normal', n) for n in list(range(1, 64)) * 3] + [('raw', 5), ('normal', 700), ('raw', 3)]
    for a, b in zip(_draws(True, monkeypatch, calls), _draws(False, monkeypatch, calls)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize('threads', [1, 2])
def test_normal_values_do_not_depend_on_threads(threads, monkeypatch):
    monkeypatch.setattr(_mt19937, '_PART_MIN', 500)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        got = _draws(True, monkeypatch, [('normal', 300001), ('standard', 5000)])
    finally:
        torch.set_num_threads(before)
    ref = _draws(False, monkeypatch, [('normal', 300001), ('standard', 5000)])
    assert all(np.array_equal(a, b) for a, b in zip(got, ref))


def _python(code, env):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **env)).stdout.strip()


def test_built_once_into_the_cache_folder_and_switched_off_by_the_environment(tmp_path):
    code = ('import os; from mxcompat.kernels import _native; lib = _native.library(); d = _native.cache_dir(); '
            'ext = _native.extension("npcall"); '
            'print(lib is not None, ext is not None, _native.why_not(), _native.why_not("npcall"), '
            'sorted(os.listdir(d)) if os.path.isdir(d) else None)')
    first = _python(code, {'MXCOMPAT_CACHE_DIR': str(tmp_path)})
    # the generator and mx.np's extension, one file each
    assert first.startswith("True True None None ['mt19937-") and first.count('.so') == 2 and "'npcall-" in first
    assert _python(code, {'MXCOMPAT_CACHE_DIR': str(tmp_path)}) == first  # (loaded, not built again)
    off = _python(code, {'MXCOMPAT_CACHE_DIR': str(tmp_path / 'other'), 'MXCOMPAT_NATIVE': '0'})
    assert off == 'False False MXCOMPAT_NATIVE is off MXCOMPAT_NATIVE is off None'  # (nothing built)


@pytest.mark.parametrize('trial', range(3))
def test_single_engine_compiled_and_numpy_draw_the_same_numbers(trial, monkeypatch):
    # mx.np.random's engine: the compiled samplers read first what the numpy code drew ahead and left unread
    rng = np.random.default_rng(trial)
    calls = [(str(k), int(n)) for k, n in zip(rng.choice(['uniform', 'normal', 'normal64', 'raw'], 40),
                                              rng.integers(1, 100000, 40))]
    calls += [('normal', 255), ('normal', 256), ('normal', 257), ('uniform', 100001), ('raw', 3), ('normal', 9999)]
    for a, b in zip(_draws(True, monkeypatch, calls, 4242, True), _draws(False, monkeypatch, calls, 4242, True)):
        assert a.dtype == b.dtype and np.array_equal(a, b)
