"""operator/_mxrandom: MXNet's CPU engines against references made another way (numpy's own MT19937 per engine,
the scalar libstdc++ distributions of io/_cxxrandom, the C library called directly). The samplers' values are
checked against MXNet 1.9.1 in tests/ndarray/test_random_streams.py."""
import ctypes
import ctypes.util
import math

import numpy as np
import pytest
import torch

from mxcompat.io import _cxxrandom
from mxcompat.kernels import _libm as libm_module
from mxcompat.operator import _mt19937, _mxrandom as R

# every test on the compiled generator and on the numpy code (tests/conftest.py)
pytestmark = pytest.mark.usefixtures('random_engines')


def _reference(base):
    """Engine r of a parallel generator seeded from ``base``, one numpy MT19937 each: r -> next(n) outputs."""
    engines = {}

    def draw(r, n):
        if r not in engines:
            bits = np.random.MT19937(0)
            bits._legacy_seeding((base + r) & 0xFFFFFFFF)
            engines[r] = bits
        return engines[r].random_raw(n).astype(np.uint32)
    return draw


@pytest.mark.parametrize('trial', range(6))
def test_parallel_engines_read_as_independent_mt19937_streams(trial):
    rng = np.random.default_rng(trial)
    base = int(rng.integers(0, 2 ** 32))
    gen, ref = R.ParallelRandom(base), _reference(base)
    for _ in range(30):
        if rng.random() < 0.5:
            rows = np.sort(rng.choice(R.NUM_STATES, size=int(rng.integers(1, 30)), replace=False))
        else:
            rows = np.arange(int(rng.integers(1, R.NUM_STATES + 1)))
        if rng.random() < 0.5:  # any number of outputs (past the buffer: new blocks straight into the result)
            m = int(rng.integers(1, 6000))
            got = gen.take(rows, m)
            assert (got == np.stack([ref(r, m) for r in rows.tolist()])).all()
        else:  # look ahead, then read part of it (the rest is read again later)
            m = int(rng.integers(1, gen.PEEK + 1))
            got = gen.peek(rows, m).copy()
            used = rng.integers(0, m + 1, size=len(rows))
            gen.skip(rows, used)
            for row, r, u in zip(got, rows.tolist(), used.tolist()):
                assert (row[:u] == ref(r, u)).all()


@pytest.mark.parametrize('threads', [2, 3])
def test_engines_split_over_threads_read_the_same_streams(threads, monkeypatch):
    # a call's engines are shared out to torch's intra-op threads: each engine's outputs stay its own stream, for
    # aligned and scattered positions, raw and converted (scaled, shifted) outputs
    monkeypatch.setattr(_mt19937, '_PART_MIN', 500)  # (split small calls too)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        rng = np.random.default_rng(threads)
        gen, ref = R.ParallelRandom(99), _reference(99)
        one = R.ParallelRandom(99)
        for _ in range(12):
            rows = np.arange(int(rng.integers(300, R.NUM_STATES + 1)))
            m = int(rng.integers(2, 1500))
            if rng.random() < 0.5:
                got = gen.take(rows, m)
                assert (got == np.stack([ref(r, m) for r in rows.tolist()])).all()
                one.take(rows, m)
            else:
                scale, shift = np.float32(2.0 ** -31), np.float32(-1)
                got = gen.take(rows, m, np.empty((len(rows), m), np.float32), scale, shift)
                torch.set_num_threads(1)
                want = one.take(rows, m, np.empty((len(rows), m), np.float32), scale, shift)
                torch.set_num_threads(threads)
                assert np.array_equal(got, want)
                for r in rows.tolist():
                    ref(r, m)
    finally:
        torch.set_num_threads(before)


def test_a_forked_child_draws_on_threads_of_its_own(monkeypatch):
    # the engines' thread pool belongs to the process that made it: a child forked after it (DataLoader workers)
    # makes its own instead of handing work to threads it does not have
    import multiprocessing
    monkeypatch.setattr(_mt19937, '_PART_MIN', 500)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        gen = R.ParallelRandom(5)
        gen.take(np.arange(R.NUM_STATES), 100)  # (the pool now exists)
        want = R.ParallelRandom(5)
        want.take(np.arange(R.NUM_STATES), 100)
        want = want.take(np.arange(R.NUM_STATES), 300)
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue()
        child = ctx.Process(target=lambda: queue.put(gen.take(np.arange(R.NUM_STATES), 300)))
        child.start()
        try:
            got = queue.get(timeout=60)
            child.join(60)
        finally:
            if child.is_alive():
                child.kill()
    finally:
        torch.set_num_threads(before)
    assert child.exitcode == 0 and np.array_equal(got, want)


def test_reseeding_starts_the_engines_again():
    gen = R.ParallelRandom(7)
    first = gen.take(np.arange(3), 700)
    gen.take(np.arange(1024), 5)
    gen.seed(7)
    assert (gen.take(np.arange(3), 700) == first).all()
    gen.seed(8)
    assert (gen.take(np.array([0]), 5) == first[1, :5]).all()  # engine i is seeded with base + i


@pytest.mark.parametrize('seeds', [np.arange(5), np.arange(1000, 1040), np.array([0xFFFFFFFF, 2 ** 31, 12345] * 7)])
def test_init_states_is_init_genrand(seeds):
    states = _mt19937._init_states(seeds.astype(np.uint64))
    for s, state in zip(seeds.tolist(), states):
        bits = np.random.MT19937(0)
        bits._legacy_seeding(s)
        assert (bits.state['state']['key'] == state).all()


@pytest.mark.parametrize('n,step,counts', [
    (1, 1, [1]), (63, 63, [63]), (64, 64, [64]), (65, 33, [33, 32]), (1000, 63, [63] * 15 + [55]),
    (65536, 64, [64] * 1024), (65537, 65, [65] * 1008 + [17]), (100000, 98, [98] * 1020 + [40]),
    (65600, 65, [65] * 1009 + [15])])
def test_split_is_launch_rngs(n, step, counts):
    # min(ceil(n / 64), 1024) engines, ceil(n / engines) values each; engines past the end fill none
    assert R.ParallelRandom.split(n) == (step, counts)
    assert sum(counts) == n


def test_canonical_numbers():
    raw = np.array([0, 1, 2 ** 31, 2 ** 32 - 129, 2 ** 32 - 128, 2 ** 32 - 1], dtype=np.uint32)
    u = R.canonical_f32(raw)
    assert u.dtype == np.float32
    assert u.tolist() == [0.0, 2.0 ** -32, 0.5, np.float32(1 - 2 ** -24), 1.0, 1.0]  # GCC 4.8: 1.0 is kept
    d = R.canonical_f64(raw[:3], raw[3:])
    np.testing.assert_array_equal(d, (raw[:3].astype(float) + raw[3:].astype(float) * 2 ** 32) / 2 ** 64)
    g = _cxxrandom.MT19937(99)
    mine = R.Engine(99)
    ref = [float(_cxxrandom.canonical_float(g)) for _ in range(1000)]
    got = R.canonical_f32(mine.draw(1000)).tolist()
    assert [min(v, float(np.float32(1 - 2 ** -24))) for v in got] == ref  # (_cxxrandom keeps them below 1)


def test_uniform_ints_are_libstdcxx_downscaling():
    g, mine = _cxxrandom.MT19937(5), R.Engine(5)
    highs = np.array([1, 2, 6, 99, 2 ** 20, 2 ** 31 + 7, 4000000000] * 40, dtype=np.int64)
    got = R._uniform_ints(mine, highs)
    assert got.tolist() == [_cxxrandom.uniform_int(g, 0, int(h)) for h in highs]
    assert (mine.draw(3) == np.array([g(), g(), g()])).all()  # rejected draws used up alike


def test_shuffle_orders():
    R.SINGLE.seed(21)
    one_dim = R.shuffle_order(50, True)
    g = _cxxrandom.MT19937(21)
    assert one_dim.tolist() == _cxxrandom.shuffle(list(range(50)), g)  # std::shuffle: i = 1 .. n-1
    R.SINGLE.seed(21)
    rows = R.shuffle_order(50, False)
    g = _cxxrandom.MT19937(21)
    ref = list(range(50))
    for i in range(49, 0, -1):  # MXNet's own loop: i = n-1 .. 1
        j = _cxxrandom.uniform_int(g, 0, i)
        ref[i], ref[j] = ref[j], ref[i]
    assert rows.tolist() == ref


def _libm(name, ctype):
    fn = getattr(ctypes.CDLL(ctypes.util.find_library('m')), name)
    fn.restype, fn.argtypes = ctype, [ctype]
    return np.frompyfunc(fn, 1, 1)


@pytest.mark.skipif(not ctypes.util.find_library('m'), reason='needs the C library libm')
def test_logf_and_log_are_the_c_librarys():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.random(100000).astype(np.float32), 1 - rng.random(20000).astype(np.float32) * 0.1,
                        rng.random(20000).astype(np.float32) * 1e-6, rng.random(20000).astype(np.float32) * 1e4,
                        np.array([1.0, 0.5, 2.0, 1e-30], np.float32)])
    hard = np.arange(np.float32(0.88).view(np.uint32), np.float32(0.95).view(np.uint32), 3,
                     dtype=np.uint32).view(np.float32)  # |log x| in [1/16, 1/8): glibc's logf errs most there
    x = np.concatenate([x[x > 0], hard])
    assert (R.logf(x) == _libm('logf', ctypes.c_float)(x).astype(np.float32)).all()
    d = rng.random(50000)
    assert (R.log(d) == _libm('log', ctypes.c_double)(d).astype(np.float64)).all()


@pytest.mark.skipif(not ctypes.util.find_library('m'), reason='needs the C library libm')
def test_vectorized_powf_is_the_c_librarys_bit_for_bit():
    # x ** y in double rounded to float, the C library asked where glibc's error bound leaves the rounding in doubt
    # (and for x <= 0, zeros, infinities and NaN): the weibull/power samplers' and gamma's powf
    fn = getattr(ctypes.CDLL(ctypes.util.find_library('m')), 'powf')
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    rng = np.random.default_rng(5)
    n = 100000
    x = np.concatenate([rng.random(n), rng.random(n) * 20, np.exp(rng.uniform(-80, 80, n)), rng.uniform(-3, 3, n),
                        [0.0, 1.0, np.inf, np.nan, 2.0, 0.5]]).astype(np.float32)
    y = np.concatenate([rng.uniform(0.05, 5, n), 1 / rng.uniform(0.01, 10, n), rng.uniform(-2, 2, n),
                        rng.integers(-5, 6, n), [0.5, np.nan, 0.5, 1.0, 200.0, -200.0]]).astype(np.float32)
    with np.errstate(all='ignore'):
        want = np.frompyfunc(fn, 2, 1)(x, y).astype(np.float32)
        got = libm_module.powf(x, y)
    assert ((got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))).all()


@pytest.mark.skipif(not ctypes.util.find_library('m'), reason='needs the C library libm')
def test_vectorized_logf_is_the_c_librarys_bit_for_bit():
    # glibc's algorithm in numpy (tools/logf_check.py compares every positive float); the special values, 1 and
    # the few results too near a rounding boundary come from the C library itself
    c_logf = _libm('logf', ctypes.c_float)
    specials = np.array([0.0, -0.0, -1.0, -1e-40, np.inf, -np.inf, np.nan, 1.0, 1e-45, 1e-40, 1.17e-38,
                         3.4e38, 2.0, 0.5, np.nextafter(np.float32(1), np.float32(2))], np.float32)
    rng = np.random.default_rng(8)
    bits = rng.integers(1, 0x7f800000, 300000, dtype=np.uint32)
    for x in (specials, bits.view(np.float32), rng.random(300000).astype(np.float32)):
        with np.errstate(all='ignore'):
            want = c_logf(x).astype(np.float32)
        assert (libm_module.logf(x).view(np.uint32) == want.view(np.uint32)).all()
        assert (libm_module._logf_by_doubt(x, True).view(np.uint32) == want.view(np.uint32)).all()
    x = rng.random(1000000).astype(np.float32)
    wide, ulps = libm_module._logf_wide(x[(x > 0) & (x != 1)])
    assert libm_module._near_boundary(wide, ulps).sum() < 20  # (about one in ten million asked of the C library)


def test_logf_doubt_is_the_distance_to_a_rounding_boundary():
    # the bits of the double logarithm flag every value whose exact logarithm may lie, within the measured error of
    # the C library's logf (or 1e-15 of it), on the other side of the boundary between two floats
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.random(400000), 1 - rng.random(50000) * 1e-3, rng.random(20000) * 1e-30,
                        rng.random(20000) * 1e30]).astype(np.float32)
    wide = np.log(x[x > 0].astype(np.float64))
    near = wide.astype(np.float32)
    side = np.nextafter(near, np.where(wide > near, np.float32(np.inf), np.float32(-np.inf)))
    boundary = (near.astype(np.float64) + side.astype(np.float64)) * 0.5
    e = np.frexp(wide)[1] - libm_module._LOGF_DOUBT_FROM
    known = (e >= 0) & (e < len(libm_module._LOGF_DOUBT))
    bound = np.where(known, libm_module._LOGF_DOUBT[np.clip(e, 0, len(libm_module._LOGF_DOUBT) - 1)], np.inf)
    must = (np.abs(wide - boundary) <= np.maximum(bound, 1e-15 * np.abs(wide))) & (wide != 0)
    flagged = libm_module._logf_doubtful(wide)
    assert (flagged >= must).all()
    assert flagged.sum() <= must.sum() * 1.01 + 10  # (and hardly more: the 1e-15 floor rounded up to 9.01 units)
    assert not libm_module._logf_doubtful(np.array([0.0, np.inf, -np.inf, np.nan])).any()


def test_pow_of_two_is_the_c_librarys():
    rng = np.random.default_rng(6)
    x = np.concatenate([rng.random(20000).astype(np.float32), np.ldexp(np.float32(1), -np.arange(140))])
    x = x.astype(np.float64)
    assert (R._pow(x, 2.0) == np.array([math.pow(v, 2.0) for v in x.tolist()])).all()
    d = rng.random(2000)  # (doubles: their squares are not exact, the C library is asked)
    assert (R._pow(d, 2.0) == np.array([math.pow(v, 2.0) for v in d.tolist()])).all()


@pytest.mark.parametrize('low,high', [(-0.25, 0.25), (3.0, 3.0), (0.0, 2.0 ** -100), (-1e30, 3e38), (1.5, -2.0)])
def test_uniform_scales_as_it_converts(low, high):
    # one rounding of raw * (span / 2**32), as MXNet's low + (high - low) * u with u = raw / 2**32
    R.seed(11)
    got = R.uniform(5000, np.float32([low]), np.float32([high]), np.float32)
    R.seed(11)
    u = R.canonical_f32(R.PARALLEL.fixed(5000, 1).reshape(-1))
    with np.errstate(over='ignore'):
        span = np.float32(high) - np.float32(low)
        want = u * span + np.float32(low)
    assert (got.view(np.uint32) == want.view(np.uint32)).all()
    R.seed(0)


def test_seed_sets_both_kinds_of_engine():
    R.seed(3)
    assert R.PARALLEL._base == 3 * 127
    a = R.SINGLE.draw(4)
    R.seed(3, every_context=False)  # mx.random.seed(3, ctx): the single engine from 3 itself
    b = R.SINGLE.draw(4)
    assert (a == R.Engine(381).draw(4)).all() and (b == R.Engine(3).draw(4)).all()
    R.seed(0)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [0.5, 2.0])
def test_gamma_walk_corrects_its_guesses(monkeypatch, dtype, shape):
    # a gamma call with one shape walks each engine's outputs with numpy's logarithms and checks the walk with the
    # C library's; with a guessing logarithm that errs, every corrected turn must still give the values drawn one
    # at a time
    n = 3000

    def one_at_a_time():
        R.seed(17)
        a, b = np.full(1, shape, np.float32), np.full(1, 1.5, np.float32)
        return R._by_value(n, lambda cur, rows, i: R._gamma_values(cur, rows, np.repeat(a, len(i)),
                                                                    np.repeat(b, len(i)), dtype))
    want = one_at_a_time()
    monkeypatch.setattr(R, '_fast_log', lambda x: np.log(x) * (1 + 0.05))
    R.seed(17)
    got = R.gamma(n, np.float32([shape]), np.float32([1.5]), dtype)
    assert (got.view('u%d' % got.itemsize) == want.view('u%d' % want.itemsize)).all()
    R.seed(0)
