"""The random numbers of MXNet's C++ data iterators: ``std::mt19937`` and the libstdc++ distributions on top of it.

MXNet's MNISTIter and ImageRecordIter shuffle and augment with these; reproducing them gives the same order and
the same random crops/mirrors as MXNet 1.9.1 (single decoding thread) for the same seeds.
"""
import math

import numpy as np

_RANGE = 0xFFFFFFFF  # mt19937's max() - min()
_F32_2_32 = np.float32(4294967296.0)


class MT19937:
    """``std::mt19937(seed)``: 32-bit outputs (numpy's legacy seeding is the same ``init_genrand``)."""

    def __init__(self, seed=5489):
        self.seed(seed)

    def seed(self, seed):
        """Reseed, as ``engine.seed(seed)`` (the seed is taken modulo 2**32)."""
        self._rs = np.random.RandomState(int(seed) & 0xFFFFFFFF)
        self._buf = []

    def __call__(self):
        if not self._buf:
            self._buf = self._rs.randint(0, 1 << 32, size=256, dtype=np.uint32).tolist()[::-1]
        return self._buf.pop()


def uniform_int(g, a, b):
    """``std::uniform_int_distribution<>(a, b)(g)`` as libstdc++ computes it (downscaling by rejection)."""
    urange = b - a
    if urange < _RANGE:
        erange = urange + 1
        scaling = _RANGE // erange
        past = erange * scaling
        ret = g()
        while ret >= past:
            ret = g()
        return a + ret // scaling
    if urange == _RANGE:
        return a + g()
    while True:  # upscaling: combine draws
        tmp = (_RANGE + 1) * uniform_int(g, 0, urange // (_RANGE + 1))
        ret = tmp + g()
        if tmp <= ret <= urange:
            return a + ret


def shuffle(seq, g):
    """``std::shuffle(seq.begin(), seq.end(), g)`` in place, as the libstdc++ that built MXNet 1.9.1 does it: one
    draw per position (newer libstdc++ draws two positions at a time and gives another order)."""
    for i in range(1, len(seq)):
        j = uniform_int(g, 0, i)
        seq[i], seq[j] = seq[j], seq[i]
    return seq


def canonical_float(g):
    """``std::generate_canonical<float, 24>(g)``: one draw / 2**32 in float, kept below 1."""
    r = np.float32(g()) / _F32_2_32
    return r if r < 1 else np.nextafter(np.float32(1), np.float32(0))


def uniform_float(g, a, b):
    """``std::uniform_real_distribution<float>(a, b)(g)``."""
    a, b = np.float32(a), np.float32(b)
    return canonical_float(g) * (b - a) + a


def bernoulli(g, p):
    """``std::bernoulli_distribution(p)(g)``: a 53-bit canonical double from two draws."""
    lo, hi = g(), g()
    r = (float(lo) + float(hi) * 4294967296.0) / 18446744073709551616.0
    if r >= 1:
        r = math.nextafter(1.0, 0.0)
    return r < p


class NormalFloat:
    """``std::normal_distribution<float>(mean, stddev)`` (Marsaglia polar method, keeps the spare value)."""

    def __init__(self, mean, stddev):
        self.mean, self.stddev = np.float32(mean), np.float32(stddev)
        self._saved = None

    def __call__(self, g):
        if self._saved is not None:
            ret, self._saved = self._saved, None
        else:
            one, two = np.float32(1), np.float32(2)
            while True:
                x = two * canonical_float(g) - one
                y = two * canonical_float(g) - one
                r2 = x * x + y * y
                if 0 < r2 <= 1:
                    break
            mult = np.float32(np.sqrt(np.float32(-2) * np.log(r2) / r2))
            self._saved = x * mult
            ret = y * mult
        return ret * self.stddev + self.mean
