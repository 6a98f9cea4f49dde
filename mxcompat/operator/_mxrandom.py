"""MXNet 1.9.1's CPU random numbers, bit for bit: its two kinds of ``std::mt19937`` engines and the samplers drawing
from them, computed with numpy over the engines' 32-bit outputs. The engines themselves and libstdc++'s canonical
numbers are in ``_mt19937``, the C library's math functions in ``_libm``; this module holds the process's engines,
the samplers and the switch between MXNet's streams and torch's (``set_streams``). Uniform values and float normal
and gamma values are drawn compiled where ``kernels._native`` can be built (the same numbers).

The engines (a CPU context's random "resources" in MXNet):

* the parallel generator (``kParallelRandom``): 1,024 engines, engine ``i`` seeded with ``base + i``. A call
  filling N values splits them over ``min(ceil(N / 64), 1024)`` engines in contiguous chunks of ``ceil(N /
  engines)`` (the last ones shorter or empty); each engine draws its chunk's values in order. The ``_random_*``,
  ``_random_*_like`` and ``_sample_*`` samplers, ``_random_randint``, ``_sample_unique_zipfian`` and Dropout's mask
  use it. Here the engines are the rows of one state array, twisted together (:class:`ParallelRandom`).
* the single engine of ``mshadow::Random<cpu>`` (``kRandom``): ``_sample_multinomial``, ``_shuffle`` and the
  ``mx.np.random`` samplers draw from it. Here numpy's ``MT19937`` with its legacy seeding, which is
  ``std::mt19937``'s ``init_genrand`` (:class:`Engine`).

A fresh process starts with both seeded from 0 (``base = 0``), as MXNet's does. ``mx.random.seed(s)`` reseeds them
from ``s * 127`` (mod 2**32: MXNet's seed magic), ``mx.random.seed(s, ctx)`` the parallel one from ``s * 127`` and
the single one from ``s``.

On those outputs, the distributions of the libstdc++ that built MXNet 1.9.1's wheel (GCC 4.8): a float canonical
number is an output / 2**32 rounded to float (1.0 when it rounds up: GCC 4.8 does not keep it below 1), a double
one (first + second * 2**32) / 2**64; a normal value is Marsaglia's polar method on canonical numbers (the
parallel generator's samplers make a fresh distribution per value, so the spare value is dropped; the single
engine's ``SampleGaussian`` one per call, so it uses both); integer ranges are drawn by rejection
("downscaling"). Where MXNet's kernels call the C library (``logf``, ``log``, ``pow``, ``powf``, ``expf``,
``tanf``, ``lgammaf``), the same functions are called: ``log``/``pow``/``exp`` through Python's ``math``, the float
ones through ctypes; ``logf``, the one of the float normal sampler, is glibc's algorithm vectorized (``_libm.logf``).

Values come out as numpy arrays; ``random_ops`` and ``nn`` wrap them. Nothing here is about devices: CUDA
samplers keep torch's generators (MXNet's GPU streams are Philox ones).
"""
import contextlib
import math
import os

import numpy as np

from ._mt19937 import (_F32, _F64, _U32, NUM_STATES, SEED_MAGIC, Engine, ParallelRandom, canonical, canonical_f32,
                       canonical_f64, outputs_per_uniform, uniform_int_downscale)
from ..kernels._libm import _pow, libm, log, logf, powf
from ..kernels._native import glibc


# ---- the engines of this process ---------------------------------------------------------------------------------
PARALLEL = ParallelRandom(0)   # the CPU context's parallel generator
SINGLE = Engine(0)             # the CPU context's mshadow::Random<cpu> engine
# MXNet's resources are per thread: custom operators (and the NumPy fallbacks built on them, as
# multivariate_normal) run on a worker thread whose own engines are seeded from 0 when it starts and never by
# mx.random.seed (called on the main thread)
CUSTOM_OP_PARALLEL = ParallelRandom(0)
CUSTOM_OP_SINGLE = Engine(0)


@contextlib.contextmanager
def custom_op_thread():
    """While a CustomOp's forward/backward runs, the samplers (and ``seed``) use the engines of MXNet's
    custom-operator worker thread instead of the main thread's."""
    global PARALLEL, SINGLE
    saved = PARALLEL, SINGLE
    PARALLEL, SINGLE = CUSTOM_OP_PARALLEL, CUSTOM_OP_SINGLE
    try:
        yield
    finally:
        PARALLEL, SINGLE = saved


def seed(seed_state, every_context=True):
    """``mx.random.seed(seed_state)`` (``every_context``) or ``mx.random.seed(seed_state, ctx)`` for the CPU
    engines: the parallel generator from ``seed_state * 127``, the single engine from the same or, with a context
    given, from ``seed_state`` itself (MXNet's ResourceManager::SeedRandom)."""
    s = int(seed_state) & _U32
    PARALLEL.seed(s * SEED_MAGIC)
    SINGLE.seed(s * SEED_MAGIC if every_context else s)


# ---- samplers of the parallel generator ------------------------------------------------------------------------
def canonical_call(n, ftype):
    """The canonical numbers of a call of the parallel generator filling ``n`` values of float type ``ftype``."""
    if ftype == _F32:  # (the outputs converted to float and scaled as they are read: no pass of their own)
        return PARALLEL.fixed(n, 1, _F32, _F32(2.0 ** -32)).reshape(n)
    raw = PARALLEL.fixed(n, 2)
    return canonical_f64(raw[:, 0], raw[:, 1])


def np_dtype(dtype):
    """A numpy dtype for a numpy or torch dtype (or its name)."""
    if not isinstance(dtype, (np.dtype, type, str)):
        dtype = str(dtype).replace('torch.', '')  # a torch.dtype: torch.float32 -> 'float32'
    return np.dtype(dtype)


def ftype(otype):
    """The float type a sampler of output type ``otype`` draws in (RandGenerator's FType: double for float16)."""
    return _F32 if np.dtype(otype) == _F32 else _F64


def _per_value(p, n):
    """Parameter array ``p`` (one entry per parameter set) spread over ``n`` values: value i takes entry
    i // ceil(n / len(p)), as MXNet's kernels index them."""
    p = np.asarray(p).ravel()
    if len(p) == 1:
        return p
    return np.repeat(p, 1 + (n - 1) // len(p))[:n]


def _ctype(itype, f):
    # arithmetic of a parameter (itype; float16 computed as float32) with a value of float type f
    i = _F32 if np.dtype(itype) == np.float16 else np.dtype(itype)
    return np.result_type(i, f)


def _itype(p):
    p = np.asarray(p)
    return np.dtype(_F32) if p.dtype == np.float16 else p.dtype


def to_output(v, otype):
    """Values computed in float or double as MXNet stores them in ``otype`` (float16: through float)."""
    otype = np.dtype(otype)
    if otype == np.float16:
        return np.asarray(v).astype(_F32).astype(np.float16)
    return np.asarray(v).astype(otype, copy=False)


def uniform(n, low, high, otype):
    """``low + (high - low) * u`` per value (``low``/``high``: parameter arrays of the input type)."""
    f = ftype(otype)
    low, high = np.asarray(low), np.asarray(high)
    c = _ctype(low.dtype, f)
    lo, hi = low.astype(_itype(low)), high.astype(_itype(high))
    if c == _F32 == f and lo.size == 1 and hi.size == 1:
        span = (hi - lo).ravel()[0]
        if not abs(span) < 2.0 ** -94 or span == 0:  # (then span / 2**32 is exact: one rounding, as u * span's)
            v = PARALLEL.fixed(n, 1, _F32, span * _F32(2.0 ** -32), lo.ravel()[0]).reshape(n)
            return to_output(v, otype)
    u = canonical_call(n, f)
    v = u.astype(c, copy=False)
    v *= _per_value(hi - lo, n).astype(c)  # (in place: the same roundings as lo + (hi - lo) * u)
    v += _per_value(lo, n).astype(c)
    return to_output(v, otype)


def _pairs(raw, f):
    """Outputs (..., 2) (float) or (..., 4) (double) of polar attempts -> (x, y, r2) in ``f``; x and y are
    2u - 1 of the attempt's two canonical numbers."""
    if f == _F32:
        xu, yu = canonical_f32(raw[..., 0]), canonical_f32(raw[..., 1])
    else:
        xu, yu = canonical_f64(raw[..., 0], raw[..., 1]), canonical_f64(raw[..., 2], raw[..., 3])
    x = f(2) * xu - f(1)  # exact in f (as libstdc++'s double subtraction rounded back to f)
    y = f(2) * yu - f(1)
    return x, y, x * x + y * y


def _polar_value(y, r2, f):
    """The polar method's returned value for accepted pairs: y * sqrt(-2 * log(r2) / r2), in ``f``."""
    lg = logf(r2) if f == _F32 else log(r2)
    return y * np.sqrt(f(-2) * lg / r2)


def standard_normal(n, f):
    """``n`` standard normal values (float type ``f``) of one call of the parallel generator. MXNet makes a fresh
    ``std::normal_distribution`` per value, so a value is the first accepted pair's y * mult (the spare x * mult is
    dropped): each engine's pairs are judged all at once, in windows of its next outputs."""
    step, counts = PARALLEL.split(n)
    out = np.empty(n, f)
    if not counts:
        return out
    if f == _F32 and PARALLEL.compiled('mx_normal_f32', n, step, len(counts), out, 1.0, 0.0):
        return out
    k = 4 if f == _F64 else 2  # outputs per attempt (a pair of canonical numbers)
    counts = np.array(counts, dtype=np.int64)
    offsets = np.arange(len(counts), dtype=np.int64) * step
    done = np.zeros(len(counts), dtype=np.int64)
    rows = np.arange(len(counts))
    while rows.size:
        rem = counts[rows] - done[rows]
        attempts = min(PARALLEL.PEEK // k, int(rem.max() * 1.35) + 16)  # pi/4 of the attempts are accepted
        x, y, r2 = _pairs(PARALLEL.peek(rows, attempts * k).reshape(len(rows), attempts, k), f)
        ok = (r2 <= 1) & (r2 != 0)
        cum = np.cumsum(ok, axis=1)
        finish = cum[:, -1] >= rem
        got = np.minimum(cum[:, -1], rem)
        used = np.where(finish, np.argmax(cum >= rem[:, None], axis=1) + 1, attempts)
        take = ok & (cum <= got[:, None])
        start = np.repeat(offsets[rows] + done[rows] - (np.cumsum(got) - got), got)
        out[start + np.arange(int(got.sum()))] = _polar_value(y[take], r2[take], f)
        PARALLEL.skip(rows, used * k)
        done[rows] += got
        rows = rows[~finish]
    return out


def normal(n, loc, scale, otype):
    """``z * scale + loc`` per value."""
    f = ftype(otype)
    loc, scale = np.asarray(loc), np.asarray(scale)
    c = _ctype(loc.dtype, f)
    if c == _F32 == f == np.dtype(otype) and loc.size == 1 and scale.size == 1:  # (scaled as drawn, compiled)
        step, counts = PARALLEL.split(n)
        out = np.empty(n, _F32)
        if not counts or PARALLEL.compiled('mx_normal_f32', n, step, len(counts), out, float(scale.ravel()[0]),
                                           float(loc.ravel()[0])):
            return out
    z = standard_normal(n, f)
    return to_output(z.astype(c) * _per_value(scale, n).astype(c) + _per_value(loc, n).astype(c), otype)


def exponential(n, lam, otype):
    """``-log(1 - u) / lam`` per value, in double."""
    f = ftype(otype)
    u = canonical_call(n, f)
    lam = _per_value(np.asarray(lam).astype(_itype(lam)), n).astype(_F64)
    with np.errstate(divide='ignore'):
        return to_output(-log(1.0 - u.astype(_F64)) / lam, otype)


def randint(n, low, high, otype):
    """``low + v % (high - low)`` per value, v = (first output << 31) + second (int64, C's remainder); ``low`` and
    ``high`` are int64."""
    raw = PARALLEL.fixed(n, 2).astype(np.uint64)
    v = ((raw[:, 0] << np.uint64(31)) + raw[:, 1]).view(np.int64)  # (wraps to negative past 2**63, as in C)
    low, high = np.int64(low), np.int64(high)
    return (low + np.fmod(v, high - low)).astype(otype)


# samplers whose values use a varying number of outputs: all engines of the call advance together, one value each
class _Window:
    """The next outputs of engines ``0 .. engines - 1`` of ``gen``, looked at ``width`` at a time, for samplers that
    read a few per value (:meth:`take` as the generator's); :meth:`close` marks those read."""

    def __init__(self, gen, engines, width=256):
        self._gen, self._rows, self._width = gen, np.arange(engines), width
        self._used = np.zeros(engines, np.int64)
        self._outputs = None

    def take(self, rows, m):
        if self._outputs is None or (self._used[rows] + m > self._width).any():
            self.close()
            self._outputs = self._gen.peek(self._rows, max(self._width, m))
        at = self._used[rows]
        self._used[rows] = at + m
        if m == 1:
            return self._outputs[rows, at][:, None]
        return self._outputs[rows[:, None], at[:, None] + np.arange(m)]

    def close(self):
        if self._outputs is not None:
            self._gen.skip(self._rows, self._used)
            self._outputs = None
            self._used[:] = 0


def _by_value(n, sample):
    """Run ``sample(engines, rows, value_indices)`` for the j-th value of every engine of a call filling ``n``
    values, j = 0, 1, ... (each engine's values in turn, all engines at once); returns the values in order."""
    step, counts = PARALLEL.split(n)
    counts = np.array(counts, dtype=np.int64)
    offsets = np.arange(len(counts), dtype=np.int64) * step
    out = None
    window = _Window(PARALLEL, len(counts))
    for j in range(step):
        rows = np.nonzero(counts > j)[0]
        vals = sample(window, rows, offsets[rows] + j)
        if out is None:
            out = np.empty(n, vals.dtype)
        out[offsets[rows] + j] = vals
    window.close()
    return out if out is not None else np.empty(0)


def _cursor_uniform(cur, rows, f):
    return canonical(cur.take(rows, outputs_per_uniform(f)), f)


def _cursor_normal(cur, rows, f):
    out = np.empty(len(rows), f)
    pend = np.arange(len(rows))
    k = 4 if f == _F64 else 2
    while pend.size:
        x, y, r2 = _pairs(cur.take(rows[pend], k), f)
        ok = (r2 <= 1) & (r2 != 0)
        if ok.any():
            out[pend[ok]] = _polar_value(y[ok], r2[ok], f)
        pend = pend[~ok]
    return out


def _gamma_values(cur, rows, a, b, f):
    """SampleGamma: one value per row (Marsaglia-Tsang), shape ``a`` and scale ``b`` (arrays of the parameter
    type), computed in float type ``f``."""
    a64 = a.astype(_F64)
    small = a < 1
    d = np.where(small, a64 + 2.0 / 3.0, a64 - 1.0 / 3.0).astype(f)
    k = np.sqrt(9.0 * d.astype(_F64)).astype(f)
    c = (1.0 / k.astype(_F64)).astype(f)
    sample = np.empty(len(rows), f)
    pend = np.arange(len(rows))
    while pend.size:
        z = _cursor_normal(cur, rows[pend], f)
        over = z > -k[pend]
        sel, z = pend[over], z[over]
        if sel.size:
            x = (1.0 + (c[sel] * z).astype(_F64)).astype(f)
            v = x * x * x
            u = _cursor_uniform(cur, rows[sel], f)
            with np.errstate(divide='ignore', invalid='ignore'):
                lhs = log(1.0 - u.astype(_F64))
                z64 = z.astype(_F64)
                rhs = 0.5 * z64 * z64 + d[sel].astype(_F64) * ((1.0 - v.astype(_F64)) + log(v))
            ok = lhs < rhs
            done = sel[ok]
            bb = b[done]
            sample[done] = ((d[done] * v[ok]).astype(np.result_type(f, bb.dtype)) * bb).astype(f)
            finished = np.zeros(len(rows), bool)
            finished[done] = True
            pend = pend[~finished[pend]]
    if small.any():
        sm = np.nonzero(small)[0]
        u = _cursor_uniform(cur, rows[sm], f)
        with np.errstate(divide='ignore'):  # shape 0 gives 1/0 = inf, as C++'s IEEE division: pow(u, inf) is 0
            e = (1.0 / a64[sm]).astype(f)
        sample[sm] = (sample[sm].astype(_F64) * _pow(u, e)).astype(f)
    return sample


_PI_F32 = _F32(3.1415926)


def _c_int(v):
    """``static_cast<int>`` of floats as x86 computes it: toward zero, and INT_MIN for NaN and values past int's
    range (an infinite or huge Poisson rate gives -2147483648, as in MXNet)."""
    ok = np.isfinite(v) & (v >= -2.0 ** 31) & (v < 2.0 ** 31)
    out = np.full(v.shape, -2 ** 31, np.int64)
    out[ok] = np.trunc(v[ok]).astype(np.int64)
    return out


def _poisson_values(cur, rows, lam):
    """SamplePoisson (float arithmetic): one value per row for rate ``lam`` (float32 array)."""
    out = np.zeros(len(rows), np.int64)
    small = lam < 12.0
    idx = np.nonzero(small)[0]
    if idx.size:
        t = libm().vector('expf', -lam[idx])
        prod = _cursor_uniform(cur, rows[idx], _F32)
        act = np.nonzero(prod > t)[0]
        while act.size:
            out[idx[act]] += 1
            prod[act] = prod[act] * _cursor_uniform(cur, rows[idx[act]], _F32)
            act = act[prod[act] > t[act]]
    idx = np.nonzero(~small)[0]
    if idx.size:
        with np.errstate(invalid='ignore', over='ignore'):  # (infinite rates: NaN, as in MXNet)
            _poisson_large(cur, rows[idx], lam[idx], out, idx)
    return out


def _poisson_large(cur, rows, lm, out, idx):
    """SamplePoisson's rejection method for rates of 12 and more (Numerical Recipes' ``poidev``), in float: the
    values for engines ``rows`` go to ``out[idx]``."""
    sq = np.sqrt(2.0 * lm.astype(_F64)).astype(_F32)
    loglam = log(lm).astype(_F32)
    g = lm * loglam - libm().vector('lgammaf', (lm.astype(_F64) + 1.0).astype(_F32))
    em = np.empty(len(rows), _F32)
    y = np.empty(len(rows), _F32)
    pend = np.arange(len(rows))
    while pend.size:
        todo = pend
        while todo.size:  # tan(pi * u) until sq * y + lambda >= 0
            y[todo] = libm().vector('tanf', _PI_F32 * _cursor_uniform(cur, rows[todo], _F32))
            em[todo] = sq[todo] * y[todo] + lm[todo]
            todo = todo[em[todo] < 0.0]
        e = em[pend] = np.floor(em[pend])
        inner = (e * loglam[pend] - libm().vector('lgammaf', (e.astype(_F64) + 1.0).astype(_F32))) - g[pend]
        yp = y[pend]
        t = (0.9 * (1.0 + (yp * yp).astype(_F64)) * libm().vector('expf', inner).astype(_F64)).astype(_F32)
        pend = pend[_cursor_uniform(cur, rows[pend], _F32) > t]
    out[idx] = _c_int(em)


def _taker(p, n):
    """value indices -> parameter values, for parameter array ``p`` spread over ``n`` values."""
    p = _per_value(p, n)
    return (lambda i: p[i]) if len(p) > 1 else (lambda i: np.repeat(p, len(i)))


def _accepts(lhs_arg, z, d, v):
    """Marsaglia-Tsang's test log(1 - u) < 0.5 z**2 + d (1 - V + log V), in double, with the C library's log: numpy's
    log everywhere, the C library's where the two sides come too close for numpy's last bits to decide."""
    z64, v64, d64 = z.astype(_F64), v.astype(_F64), d.astype(_F64) if isinstance(d, np.ndarray) else _F64(d)
    with np.errstate(divide='ignore', invalid='ignore'):
        lhs = np.log(lhs_arg)
        log_v = np.log(v64)
        rhs = 0.5 * z64 * z64 + d64 * ((1.0 - v64) + log_v)
        close = np.abs(lhs - rhs) <= 1e-12 * (np.abs(lhs) + 0.5 * z64 * z64 + np.abs(d64) * (np.abs(1.0 - v64)
                                                                                           + np.abs(log_v)))
    close &= np.isfinite(lhs) & np.isfinite(rhs)
    if close.any():
        sel = np.nonzero(close)[0]
        dd = d64[sel] if np.ndim(d64) else d64
        lhs[sel] = log(lhs_arg[sel])
        rhs[sel] = 0.5 * z64[sel] * z64[sel] + dd * ((1.0 - v64[sel]) + log(v64[sel]))
    return lhs < rhs


_fast_log = np.log  # the logarithm that guesses a gamma walk (checked after with the C library's)


def _gamma_constant(n, a, b, f):
    """SampleGamma for one shape ``a`` and scale ``b`` (parameter-type scalars) over a whole call, judged along
    each engine's outputs rather than value by value. In a window of each engine's next outputs, the attempt that
    would start at every position is worked out at once with numpy's logarithms (its first accepted polar pair, the
    uniform number after it when z > -k, the test) and each engine walks from attempt to attempt; then the attempts
    walked through are judged again with the C library's logarithms, and an engine whose walk took another turn
    stops before that attempt, which is drawn value by value (:func:`_gamma_values`)."""
    step, counts = PARALLEL.split(n)
    out = np.empty(n, f)
    if not counts:
        return out
    k = 1 if f == _F32 else 2            # outputs per canonical number
    a64 = float(a)
    small = a < 1
    d = f(a64 + 2.0 / 3.0 if small else a64 - 1.0 / 3.0)
    kk = f(math.sqrt(9.0 * float(d)))
    c = f(1.0 / float(kk))
    scale_type = np.result_type(f, np.asarray(b).dtype)
    counts = np.array(counts, dtype=np.int64)
    offsets = np.arange(len(counts), dtype=np.int64) * step
    done = np.zeros(len(counts), dtype=np.int64)
    rows = np.arange(len(counts))
    width = PARALLEL.PEEK
    never = np.int64(1) << 40

    def tested(z, ue):
        xv = (1.0 + (c * z).astype(_F64)).astype(f)
        v = xv * xv * xv
        return v, _accepts(1.0 - ue.astype(_F64), z, d, v)

    while rows.size:
        # (a value reads about 4 canonical numbers: a window a little longer than the values left need)
        raw = PARALLEL.peek(rows, min(width, k * (5 * int((counts[rows] - done[rows]).max()) + 32)))
        u = canonical_f32(raw) if f == _F32 else canonical_f64(raw[:, :-1], raw[:, 1:])
        n_u = u.shape[1]
        n_p = n_u - k  # positions a polar pair can start at
        x = f(2) * u[:, :n_p] - f(1)
        y = f(2) * u[:, k:k + n_p] - f(1)
        r2 = x * x + y * y
        ok = (r2 <= 1) & (r2 != 0)
        # the first accepted pair at or after each position, stepping a pair at a time
        nxt = np.where(ok, np.arange(n_p), never)
        for r in range(2 * k):
            lane = nxt[:, r::2 * k]
            lane[:] = np.minimum.accumulate(lane[:, ::-1], axis=1)[:, ::-1]

        nxt_f, y_f, r2_f, u_f = nxt.reshape(-1), y.reshape(-1), r2.reshape(-1), u.reshape(-1)
        row_p, row_u = np.arange(len(rows)) * n_p, np.arange(len(rows)) * n_u

        def attempt(rw, p):
            # (found, z > -k, accepted, end) of the attempts starting at p, with numpy's logarithms (flat indices:
            # cheaper than pairs of index arrays)
            qq = nxt_f[row_p[rw] + p]
            found = qq < never
            qq[~found] = 0
            at = row_p[rw] + qq
            r2q = r2_f[at]
            with np.errstate(divide='ignore', invalid='ignore'):
                z = (y_f[at] * np.sqrt(f(-2) * _fast_log(r2q.astype(_F64)).astype(f) / r2q)).astype(f)
            after = qq + 2 * k
            up = found & (z > -kk)
            over = up & (after < n_u)
            ue = u_f[row_u[rw] + np.minimum(after, n_u - 1)].astype(_F64)
            xv = (1.0 + (c * z).astype(_F64)).astype(f)
            v = (xv * xv * xv).astype(_F64)
            with np.errstate(divide='ignore', invalid='ignore'):
                acc = over & (_fast_log(1.0 - ue) < 0.5 * z.astype(_F64) ** 2 + float(d) * ((1.0 - v) + _fast_log(v)))
            end = after + k * up + (k * small) * acc
            fine = found & ((z <= -kk) | (after < n_u)) & ~(acc & small & (after + k >= n_u))
            return fine, over, acc, end

        # each engine walks from attempt to attempt
        rem = counts[rows] - done[rows]
        cur = np.zeros(len(rows), dtype=np.int64)
        got = np.zeros(len(rows), dtype=np.int64)
        seen = []
        live = np.arange(len(rows))
        while live.size:
            p = cur[live]
            inside = p < n_p
            live, p = live[inside], p[inside]
            if not live.size:
                break
            fine, over_a, acc_a, end = attempt(live, p)
            live, p, over_a, acc_a, end = live[fine], p[fine], over_a[fine], acc_a[fine], end[fine]
            seen.append((live, p, over_a, acc_a))
            got[live[acc_a]] += 1
            cur[live] = end
            live = live[got[live] < rem[live]]
        slow = np.zeros(len(rows), bool)
        if seen:
            sr, sp, so, sa = (np.concatenate(col) for col in zip(*seen))
            order = np.lexsort((np.arange(len(sr)), sr))  # each engine's attempts in the order it made them
            sr, sp, so, sa = sr[order], sp[order], so[order], sa[order]
            # the attempts again, with the C library's logarithms
            qq = nxt[sr, sp]
            z_e = _polar_value(y[sr, qq], r2[sr, qq], f)
            over_e = z_e > -kk
            v_e = np.zeros(len(sr), f)
            acc_e = np.zeros(len(sr), bool)
            t = np.nonzero(over_e)[0]
            if t.size:
                v_e[t], acc_e[t] = tested(z_e[t], u[sr[t], qq[t] + 2 * k])
            wrong = (over_e != so) | (acc_e != sa)
            keep = np.ones(len(sr), bool)
            if wrong.any():  # an engine stops before its first attempt judged otherwise
                first_wrong = np.full(len(rows), len(sr))
                np.minimum.at(first_wrong, sr[wrong], np.nonzero(wrong)[0])
                keep = np.arange(len(sr)) < first_wrong[sr]
                bad_rows = np.unique(sr[wrong])
                cur[bad_rows] = sp[first_wrong[bad_rows]]
                slow[bad_rows] = True
            took = keep & acc_e
            got = np.bincount(sr[took], minlength=len(rows))
            tr, tp, tz = sr[took], sp[took], v_e[took]
            vals = ((d * tz).astype(scale_type) * b).astype(f)
            if small:
                u2 = u[tr, nxt[tr, tp] + 3 * k]
                vals = (vals.astype(_F64) * _pow(u2, f(1.0 / a64))).astype(f)
            first = np.cumsum(got) - got
            out[np.repeat(offsets[rows] + done[rows] - first, got) + np.arange(len(tr))] = vals
        PARALLEL.skip(rows, cur)
        done[rows] += got
        if slow.any():  # one value drawn value by value where the walk took another turn
            sl = rows[slow]
            sl = sl[done[sl] < counts[sl]]
            if sl.size:
                out[offsets[sl] + done[sl]] = _gamma_values(PARALLEL, sl, np.full(len(sl), a), np.full(len(sl), b), f)
                done[sl] += 1
        rows = rows[done[rows] < counts[rows]]
    return out


def gamma(n, alpha, beta, otype):
    f = _F32 if np.dtype(otype) != np.float64 else _F64  # float16 draws in float
    alpha, beta = np.asarray(alpha).astype(_itype(alpha)), np.asarray(beta).astype(_itype(beta))
    if alpha.size == 1 and beta.size == 1:
        a, b = alpha.ravel()[0], beta.ravel()[0]
        if f == _F32 and a.dtype == b.dtype == _F32:  # (compiled where it can be: float shape and scale)
            step, counts = PARALLEL.split(n)
            out = np.empty(n, _F32)
            if not counts or PARALLEL.compiled('mx_gamma_f32', n, step, len(counts), out, float(a), float(b)):
                return to_output(out, otype)
        return to_output(_gamma_constant(n, a, b, f), otype)
    a, b = _taker(alpha, n), _taker(beta, n)
    return to_output(_by_value(n, lambda cur, rows, i: _gamma_values(cur, rows, a(i), b(i), f)), otype)


def poisson(n, lam, otype):
    lam = _taker(np.asarray(lam).astype(_F32), n)
    return _by_value(n, lambda cur, rows, i: _poisson_values(cur, rows, lam(i))).astype(otype)


def _poisson_mixture(n, x, y, rate, otype):
    """Poisson values whose rate is ``rate(engines, rows, x, y)`` (a gamma value) for each value's parameters."""
    x, y = _taker(x, n), _taker(y, n)
    return _by_value(n, lambda cur, rows, i: _poisson_values(cur, rows, rate(cur, rows, x(i), y(i)))).astype(otype)


def negative_binomial(n, k, p, otype):
    """Poisson(Gamma(k, (1 - p) / p)) per value, in float."""
    it = _itype(p)

    def rate(cur, rows, alpha, prob):
        with np.errstate(divide='ignore', invalid='ignore'):
            beta = ((1.0 - prob.astype(_F64)) / prob.astype(_F64)).astype(_F32)
        return _gamma_values(cur, rows, alpha.astype(it), beta.astype(it), _F32)
    return _poisson_mixture(n, np.asarray(k).astype(_F32), np.asarray(p).astype(_F32), rate, otype)


def generalized_negative_binomial(n, mu, alpha, otype):
    """Poisson(mu) where alpha is 0, else Poisson(Gamma(1 / alpha, alpha * mu)) per value."""
    it = _itype(mu)

    def rate(cur, rows, m, a):
        lam = m.astype(_F32)
        g = np.nonzero(a != 0)[0]
        if g.size:
            lam[g] = _gamma_values(cur, rows[g], (it.type(1) / a[g]).astype(it), (a[g] * m[g]).astype(it), _F32)
        return lam
    return _poisson_mixture(n, np.asarray(mu).astype(it), np.asarray(alpha).astype(it), rate, otype)


def dropout_mask(n, p, dtype, strict=False):
    """Dropout's mask for drop probability ``p``: (u <= pkeep) * (1 / pkeep) in float, pkeep = 1 - p
    (``strict``: u < pkeep, the mask of ``axes``), u the parallel generator's canonical number of the data type's
    float type, rounded to float."""
    dtype = np_dtype(dtype)
    f = ftype(dtype)
    u = canonical_call(n, f).astype(_F32, copy=False)
    pkeep = _F32(1) - _F32(p)
    keep = (u < pkeep) if strict else (u <= pkeep)
    with np.errstate(divide='ignore', invalid='ignore'):
        return to_output(keep.astype(_F32) * (_F32(1) / pkeep), dtype)


# ---- the single engine ---------------------------------------------------------------------------------------------
def single_uniform(n, f=_F32):
    """``n`` canonical numbers of the single engine (``mshadow::Random::SampleUniform``)."""
    if f == _F32:
        out = np.empty(n, _F32)
        if SINGLE.compiled('mx_single_uniform_f32', n, out):
            return out
    k = outputs_per_uniform(f)
    return canonical(SINGLE.draw(n * k).reshape(n, k), f)


def single_normal(n, f=_F32, engine=None):
    """``n`` standard normal values of float type ``f`` of one ``mshadow::Random::SampleGaussian`` call on the
    single engine (or ``engine``, e.g. ``CUSTOM_OP_SINGLE``). That call makes one ``std::normal_distribution`` for
    all its values, so each accepted polar pair gives two: y * mult, then the spare x * mult; an odd count's last
    spare is dropped with the distribution."""
    engine = SINGLE if engine is None else engine
    out = np.empty(n, f)
    if f == _F32 and glibc() and engine.compiled('mx_single_normal_f32', n, out):  # (glibc's logf, as MXNet's)
        return out
    k = 4 if f == _F64 else 2  # outputs per attempt (a pair of canonical numbers)
    need, got = (n + 1) // 2, 0  # accepted pairs
    while got < need:
        rem = need - got
        attempts = int(rem * 1.35) + 16  # pi/4 of the attempts are accepted
        raw = engine.draw(attempts * k)
        x, y, r2 = _pairs(raw.reshape(attempts, k), f)
        acc = np.nonzero((r2 <= 1) & (r2 != 0))[0][:rem]
        if len(acc) == rem:  # the outputs past the last accepted attempt wait for the next draw
            engine.unread(raw[(int(acc[-1]) + 1) * k:])
        lg = logf(r2[acc]) if f == _F32 else log(r2[acc])
        mult = np.sqrt(f(-2) * lg / r2[acc])
        vals = np.empty(2 * len(acc), f)
        vals[0::2] = y[acc] * mult
        vals[1::2] = x[acc] * mult
        end = min(2 * (got + len(acc)), n)
        out[2 * got:end] = vals[:end - 2 * got]
        got += len(acc)
    return out


def single_gamma(a, b):
    """MXNet's NumPy ``gamma`` sampler (np_gamma_op.h) on the single engine: one double sample per entry of ``a``
    (shape) and ``b`` (scale), arrays of the parameters' type (a number given as float32). Each round draws 2n
    double uniforms, then 2n double normals (one SampleUniform and one SampleGaussian call over the whole
    workspace, n the call's size); entry i makes one Marsaglia-Tsang attempt with uniforms 2i, 2i + 1 and normal
    2i. The entries rejected are attempted again in the next round, with the numbers of their slots."""
    n = len(a)
    out = np.empty(n, _F64)
    pend = np.arange(n)
    while pend.size:
        u = single_uniform(2 * n, _F64).reshape(n, 2)[pend]
        z = single_normal(2 * n, _F64).reshape(n, 2)[pend, 0]
        got = _np_gamma_attempt(a[pend], b[pend], u[:, 0], u[:, 1], z)
        out[pend] = got
        pend = pend[got < 0]
    return out


def _np_gamma_attempt(a, b, u, u2, z):
    """GammaTransform and GammaReduce of np_gamma_op.h in double (FType), with float ``logf``/``powf`` of the
    double values; -1 where rejected. float16 parameters (mshadow's half_t) round each operation with a double
    to half through float."""
    half = a.dtype == np.float16
    a64, small = a.astype(_F64), a < 1

    def h(x):  # the result of a half_t operation with another type: rounded to half through float
        return x.astype(_F32).astype(np.float16).astype(_F64) if half else x
    if half:
        af = a.astype(_F32)
        d = h(np.where(small, af + _F32(2.0 / 3.0), af - _F32(1.0 / 3.0)))
    else:
        d = np.where(small, a64 + 2.0 / 3.0, a64 - 1.0 / 3.0)
    c = 1.0 / np.sqrt(9.0 * d)
    ocn = 1 + c * z
    v = ocn * ocn * ocn
    zz = z * z
    with np.errstate(all='ignore'):
        lu = logf(u.astype(_F32)).astype(_F64)
        lv = logf(v.astype(_F32)).astype(_F64)
        ok = (v > 0) & ((u <= 1 - 0.0331 * zz * zz) | (lu < 0.5 * zz + d * (1 - v + lv)))
        dv = d * v
        sample = (dv.astype(_F32) * b.astype(_F32)).astype(np.float16).astype(_F64) if half else dv * b.astype(_F64)
    sample = np.where(ok & (sample > 0), sample, -1.0)
    sm = np.nonzero(small & (sample > 0))[0]
    if sm.size:
        inv = h((_F32(1) / a[sm].astype(_F32)).astype(_F64)) if half else 1.0 / a64[sm]
        sample[sm] = sample[sm] * powf(u2[sm].astype(_F32), inv.astype(_F32)).astype(_F64)
    return sample


def _uniform_ints(engine, highs):
    """``uniform_int_distribution(0, h)(engine)`` for each h of ``highs`` in turn (each below 2**32 - 1)."""
    out = np.empty(len(highs), np.int64)
    k = 0
    chunk = 1 << 16
    while k < len(highs):
        rest = highs[k:k + chunk]
        raw = engine.draw(len(rest))
        vals, ok = uniform_int_downscale(raw, rest)
        bad = len(rest) if ok.all() else int(np.argmin(ok))
        out[k:k + bad] = vals[:bad]
        if bad < len(rest):
            engine.unread(raw[bad + 1:])  # the rejected output is used up; the step draws again
        k += bad
    return out


def shuffle_order(n, one_dim):
    """The order ``_shuffle`` puts ``n`` items (or rows) in: a 1-D array as libstdc++ 4.8's ``std::shuffle``
    (i = 1 .. n-1 swapped with a position drawn from [0, i]), more dimensions by MXNet's own Fisher-Yates loop
    (i = n-1 .. 1 swapped with a row drawn from [0, i]); both with the single engine."""
    if n > _U32:
        raise ValueError('shuffle: more than 2**32 - 1 items')
    highs = np.arange(1, n, dtype=np.int64) if one_dim else np.arange(n - 1, 0, -1, dtype=np.int64)
    js = _uniform_ints(SINGLE, highs).tolist()
    order = list(range(n))
    for i, j in zip(highs.tolist(), js):
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def unique_zipfian(range_max, batch, n):
    """``_sample_unique_zipfian``: per row, log-uniform integers round(exp(u * log(range_max))) - 1 (u a double
    canonical number, rounding half away from zero) until ``n`` distinct ones came up; (samples, tries). Rows are
    spread over min(batch, 1024) engines in contiguous chunks, without the 64-value minimum."""
    samples = np.empty((batch, n), np.int64)
    tries = np.zeros(batch, np.int64)
    if batch <= 0 or n <= 0:
        return samples, tries
    engines = min(batch, NUM_STATES)
    step = (batch + engines - 1) // engines
    log_range = math.log(range_max)
    for b in range(batch):
        row = np.array([b // step])
        got, seen = [], set()
        while len(got) < n:
            block = min(max(64, 2 * (n - len(got))), PARALLEL.PEEK // 2)
            raw = PARALLEL.peek(row, 2 * block).reshape(block, 2)
            x = canonical_f64(raw[:, 0], raw[:, 1]) * log_range
            e = np.fromiter(map(math.exp, x.tolist()), _F64, block)
            vals = (np.floor(e + 0.5).astype(np.int64) - 1).tolist()  # (e >= 1: half away from zero)
            used = block
            for k, v in enumerate(vals):
                if v not in seen:
                    seen.add(v)
                    got.append(v)
                    if len(got) == n:
                        used = k + 1
                        break
            tries[b] += used
            PARALLEL.skip(row, 2 * used)
        samples[b] = got
    return samples, tries


# ---- which generators a CPU sampler uses ---------------------------------------------------------------------------
STREAMS = ('mxnet', 'torch')
_ACTIVE = ['mxnet']


def set_streams(kind):
    """Use MXNet's CPU streams ('mxnet', the default) or torch's generators ('torch') for CPU samplers from now
    on; returns the previous setting. CUDA samplers always use torch's."""
    if kind not in STREAMS:
        raise ValueError("random streams must be 'mxnet' or 'torch', got %r" % (kind,))
    prev = _ACTIVE[0]
    _ACTIVE[0] = kind
    return prev


def get_streams():
    return _ACTIVE[0]


def on(device):
    """Whether a sampler producing values on torch ``device`` draws from MXNet's streams."""
    return _ACTIVE[0] == 'mxnet' and getattr(device, 'type', device) == 'cpu'


def _from_environment():
    kind = os.environ.get('MXCOMPAT_RANDOM', 'mxnet').strip().lower() or 'mxnet'
    if kind not in STREAMS:
        raise ValueError("MXCOMPAT_RANDOM must be 'mxnet' (MXNet 1.9.1's CPU random numbers, the default) or "
                         "'torch' (torch's generators), got %r" % (os.environ['MXCOMPAT_RANDOM'],))
    _ACTIVE[0] = kind


_from_environment()
