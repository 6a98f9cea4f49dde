"""MXNet 1.9.1's CPU random engines, bit for bit: ``std::mt19937`` (seeding, twist, tempering) as one engine and as
the 1,024 engines of the parallel generator, computed with numpy; and libstdc++'s canonical numbers and integer
ranges on their 32-bit outputs. The samplers on top are in ``_mxrandom``.

* the parallel generator (``kParallelRandom``): 1,024 engines, engine ``i`` seeded with ``base + i``. A call
  filling N values splits them over ``min(ceil(N / 64), 1024)`` engines in contiguous chunks of ``ceil(N /
  engines)`` (the last ones shorter or empty); each engine draws its chunk's values in order. Here the engines are
  the rows of one state array, twisted together (:class:`ParallelRandom`). The engines of a big call are shared
  out to torch's intra-op threads, as MXNet runs them on its OpenMP threads; the values do not depend on how many.
* the single engine of ``mshadow::Random<cpu>`` (``kRandom``): numpy's ``MT19937`` with its legacy seeding, which
  is ``std::mt19937``'s ``init_genrand`` (:class:`Engine`).

Where the machine has a C compiler, the parallel generator's reads (``take``) and its float normal and gamma values,
and the single engine's float uniform and normal values, are drawn by the same algorithms compiled
(``kernels._native``, 4-11x faster), on the same states: the numpy code below and the compiled one give the same
numbers and can take turns on the same engines.

Canonical numbers are those of the libstdc++ that built MXNet 1.9.1's wheel (GCC 4.8): a float one is an output /
2**32 rounded to float (1.0 when it rounds up: GCC 4.8 does not keep it below 1), a double one (first + second *
2**32) / 2**64; integer ranges are drawn by rejection ("downscaling").
"""
import math
import os
import threading
from concurrent import futures

import numpy as np
import torch
from numpy.random.bit_generator import ISeedSequence

from ..kernels import _native

NUM_STATES = 1024     # engines of the parallel generator (RandGenerator<cpu>::kNumRandomStates)
MIN_PER_STATE = 64    # values an engine fills at least (kMinNumRandomPerThread)
SEED_MAGIC = 127      # ResourceManager's kRandMagic: a seed s becomes s * 127
_U32 = 0xFFFFFFFF
_EMPTY = np.empty(0, dtype=np.uint32)
_LOOKAHEAD = 2048     # outputs an engine draws at least at a time (numpy's call costs microseconds)
_COMPILED_MIN = 256   # values a call of the single engine draws at least for the compiled samplers to take it
_BLOCK_WORDS = 1 << 18  # words of the blocks laid side by side for engines at scattered positions, at a time
_F32 = np.float32
_F64 = np.float64


class _NoSeedSequence(ISeedSequence):
    """Numpy's bit generators start from a seed sequence; ours are reseeded with ``init_genrand`` right after they
    are made, so this one hands out zeros and spares numpy's hashing (a tenth of a millisecond an engine)."""

    def generate_state(self, n_words, dtype=np.uint32):
        return np.zeros(n_words, dtype=dtype)


_NO_SEED = _NoSeedSequence()


class Engine:
    """One ``std::mt19937``: its 32-bit outputs (uint32), drawn ahead in blocks; the ones not used yet wait for
    the next draw."""

    __slots__ = ('_bits', '_ahead')

    def __init__(self, seed=5489):
        self._bits = np.random.MT19937(_NO_SEED)
        self.seed(seed)

    def seed(self, seed):
        """``engine.seed(seed)`` (the seed taken modulo 2**32)."""
        self._bits._legacy_seeding(int(seed) & _U32)
        self._ahead = _EMPTY

    def draw(self, n):
        """The next ``n`` outputs (uint32)."""
        ahead = self._ahead
        if len(ahead) < n:
            fresh = self._bits.random_raw(max(n - len(ahead), _LOOKAHEAD)).astype(np.uint32)
            ahead = np.concatenate((ahead, fresh)) if len(ahead) else fresh
        self._ahead = ahead[n:]
        return ahead[:n]

    def unread(self, values):
        """Give back the last outputs drawn (``values``, in order): the next draw starts with them."""
        if len(values):
            self._ahead = np.concatenate((values, self._ahead)) if len(self._ahead) else values

    def compiled(self, name, n, out):
        """Fill float32 ``out`` (``n`` values) with the compiled sampler ``name`` of kernels/native/mt19937.c on
        this engine (the outputs drawn ahead first); False where that does not apply (not built, or too few values
        to pay for handing the state over: a few microseconds)."""
        lib = _native.library()
        if lib is None or n < _COMPILED_MIN:
            return False
        state = self._bits.state['state']
        key = np.array(state['key'], dtype=np.uint32)
        pos = np.array([state['pos']], dtype=np.int64)
        ahead = np.ascontiguousarray(self._ahead, dtype=np.uint32)
        used = np.zeros(1, dtype=np.int64)
        getattr(lib, name)(ahead.ctypes.data, len(ahead), key.ctypes.data, pos.ctypes.data, n, out.ctypes.data,
                           used.ctypes.data)
        self._bits.state = {'bit_generator': 'MT19937', 'state': {'key': key, 'pos': int(pos[0])}}
        self._ahead = self._ahead[int(used[0]):]
        return True


# ---- std::mt19937 on many engines at once ---------------------------------------------------------------------------
_N = 624  # state words of mt19937, and outputs per twist
_UPPER, _LOWER, _MATRIX = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)


def _init_states(seeds):
    """mt19937 states (one row each) seeded with ``init_genrand(seed)``, as ``std::mt19937(seed)`` is."""
    seeds = np.asarray(seeds, dtype=np.uint64) & _U32
    if len(seeds) <= 16:  # numpy's legacy seeding is init_genrand: cheaper per engine than the loop below
        states = np.empty((len(seeds), _N), np.uint32)
        for i, sd in enumerate(seeds.tolist()):
            _SEEDER._legacy_seeding(sd)
            states[i] = _SEEDER.state['state']['key']
        return states
    states = np.empty((len(seeds), _N), np.uint32)
    x = seeds.astype(np.uint32)
    states[:, 0] = x
    for i in range(1, _N):
        x = np.uint32(1812433253) * (x ^ (x >> np.uint32(30))) + np.uint32(i)
        states[:, i] = x
    return states


_SEEDER = np.random.MT19937(_NO_SEED)


def _twist(mt, scratch):
    """mt19937's next state, in place, for every row of ``mt``. Word i becomes ``x ^ t(i)``: ``t(i)``, from the old
    words i and i + 1 alone, is ``(y >> 1) ^ (y & 1) * MATRIX`` for ``y`` the upper bit of word i and the lower 31
    of word i + 1; ``x`` the word 397 ahead, new past the end. All the ``t`` are computed first, as passes over the
    whole state read as one flat run (faster than the rows' stretches: 0.80 -> 0.68 ms for 1,024 engines, one
    thread); then the words in three stretches whose ``x`` are known, then the last (its i + 1 is the new word 0).
    With ``q = (w >> 1) ^ (w & 1) * MATRIX`` of each old word, ``t(i)`` is ``q(i + 1)`` with bit 30 taken from
    ``q(i)`` (MATRIX's bit 30 is 0). ``scratch``: flat uint32 arrays of at least mt's size (no temporaries: fresh
    pages cost more than the arithmetic)."""
    rows = mt.shape[0]
    size = rows * _N
    old = mt.reshape(size)  # (only read: a copy would do for an mt with rows apart)
    q, odd, t = scratch[0][:size], scratch[1][:size], scratch[2][:size - 1]
    np.right_shift(old, np.uint32(1), out=q)
    np.bitwise_and(old, np.uint32(1), out=odd)
    odd *= _MATRIX
    q ^= odd
    np.bitwise_xor(q[:-1], q[1:], out=t)
    t &= np.uint32(0x40000000)
    t ^= q[1:]  # (word 623 of each row takes the next row's word 0 here: it is done apart below)
    t = scratch[2][:size].reshape(rows, _N)
    for lo, hi, far in ((0, 227, 397), (227, 454, 0), (454, 623, 227)):
        np.bitwise_xor(t[:, lo:hi], mt[:, far:far + hi - lo], out=mt[:, lo:hi])
    y = (mt[:, 623] & _UPPER) | (mt[:, 0] & _LOWER)
    mt[:, 623] = mt[:, 396] ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * _MATRIX)


def _temper(mt, out, tmp):
    """The 624 outputs of each state row of ``mt``, into ``out`` (``tmp``: scratch of the same shape)."""
    np.right_shift(mt, np.uint32(11), out=tmp)
    np.bitwise_xor(mt, tmp, out=out)
    np.left_shift(out, np.uint32(7), out=tmp)
    tmp &= np.uint32(0x9D2C5680)
    out ^= tmp
    np.left_shift(out, np.uint32(15), out=tmp)
    tmp &= np.uint32(0xEFC60000)
    out ^= tmp
    np.right_shift(out, np.uint32(18), out=tmp)
    out ^= tmp
    return out


def _rows(rows):
    """``rows`` (sorted row numbers) as a slice when they are consecutive: views instead of copies."""
    if isinstance(rows, slice):
        return rows
    if len(rows) and rows[-1] - rows[0] + 1 == len(rows):
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def _runs(rows, pos, most=16):
    """The stretches of ``rows`` (sorted) that are consecutive engines at one position ``pos``, as [(first index,
    past-last index)], or None for more than ``most`` of them."""
    if len(rows) and pos[0] == pos[-1] and rows[-1] - rows[0] + 1 == len(rows) and (pos == pos[0]).all():
        return [(0, len(rows))]  # (the common case: one stretch)
    cut = np.flatnonzero((np.diff(rows) != 1) | (np.diff(pos) != 0)) + 1
    if len(cut) >= most:
        return None
    return list(zip([0] + cut.tolist(), cut.tolist() + [len(rows)]))


def _convert(raw, dst, scale=None, shift=None, work=None):
    """Outputs ``raw`` converted to dst's dtype into ``dst``, times ``scale`` and then plus ``shift`` when given,
    each rounded in that dtype (the conversion first: a pass of its own costs less than numpy's casting inside a
    multiplication). ``work``: a contiguous array of dst's dtype and raw's shape to compute in, for a ``dst``
    whose rows lie apart (a pass over those costs four over contiguous memory: one copy at the end)."""
    at = dst if work is None else work
    np.copyto(at, raw, casting='unsafe')
    if scale is not None:
        np.multiply(at, scale, out=at, dtype=at.dtype)
    if shift is not None:
        np.add(at, shift, out=at, dtype=at.dtype)
    if work is not None:
        np.copyto(dst, work)
    return dst


def _scaled(raw, dtype, scale, shift):
    """Outputs ``raw`` converted to ``dtype`` (a new array), times ``scale``, plus ``shift`` (see _convert)."""
    if scale is None and shift is None:
        return raw
    return _convert(raw, np.empty(raw.shape, dtype), scale, shift)


_NATIVE_KINDS = {np.dtype(np.uint32): 0, np.dtype(np.float32): 1, np.dtype(np.float64): 2}


class _Scratch(threading.local):
    """Each thread's flat uint32 buffers (0, 1: the twist's; 2, 3: the tempering's, 2 the twist's too: a twist runs
    between temperings; 4: blocks laid side by side), made on first use."""

    @property
    def bufs(self):
        bufs = self.__dict__.get('_bufs')
        if bufs is None:
            bufs = self._bufs = [np.empty(NUM_STATES * _N, np.uint32) for _ in range(4)] + [_EMPTY]
        return bufs


_PART_MIN = 1 << 18   # values a thread fills at least when a call's engines are split over threads
_WORKERS = [None, 0]  # (the thread pool, the process that made it: a forked child makes its own)


def _parts(rows, m):
    """How many threads fill ``rows`` engines' ``m`` values each: torch's intra-op thread count (MXNet's samplers
    run their engines on its OpenMP threads), fewer for a call too small to pay for the hand-off."""
    return max(1, min(torch.get_num_threads(), rows, rows * m // _PART_MIN))


def _workers():
    if _WORKERS[0] is None or _WORKERS[1] != os.getpid():
        _WORKERS[:] = [futures.ThreadPoolExecutor(max(1, (os.cpu_count() or 2) - 1), 'mxcompat-random'), os.getpid()]
    return _WORKERS[0]


def _in_parts(count, parts, run):
    """``run(a, b)`` for ``parts`` consecutive ranges of ``count`` engines: the first on this thread, the others on
    the worker threads; returns when all are done (the engines' states are whole again before anything is
    raised)."""
    cut = [count * i // parts for i in range(parts + 1)]
    jobs = [_workers().submit(run, a, b) for a, b in zip(cut[1:-1], cut[2:])]
    try:
        run(0, cut[1])
    finally:
        futures.wait(jobs)
    for job in jobs:
        job.result()


class ParallelRandom:
    """MXNet's parallel CPU generator: ``NUM_STATES`` engines, engine ``i`` seeded with ``base + i``.

    As ``std::mt19937`` keeps it, an engine is its 624-word state and the position of its next output in the block
    that state gives (``_pos``; 624: used up, the next output twists first). The states are the rows of one array:
    a call twists and tempers all its engines together, straight into the result (only the outputs it reads are
    tempered). :meth:`peek` works on copies and keeps the states it twisted, for :meth:`skip` to take. An engine is
    seeded when a call first reaches it after ``seed``."""

    PEEK = 3 * _N + 1  # the most outputs :meth:`peek` hands out at once (the window of the samplers that look ahead)

    def __init__(self, base=0):
        self._mt = np.zeros((NUM_STATES, _N), dtype=np.uint32)
        self._pos = np.full(NUM_STATES, _N, dtype=np.int64)
        self._epochs = np.zeros(NUM_STATES, dtype=np.int64)
        self._epoch = 0
        self._scratch = _Scratch()
        self._peeked = None
        self.seed(base)

    def seed(self, base):
        self._base = int(base) & _U32
        self._epoch += 1
        self._seeded = 0  # (engines seeded from this base so far)
        self._peeked = None

    def _fresh(self, rows):
        """Seed the engines of ``rows`` (sorted row numbers) that this seed has not reached yet."""
        if self._seeded == NUM_STATES:
            return
        stale = rows[self._epochs[rows] != self._epoch]
        if stale.size:
            self._mt[stale] = _init_states(self._base + stale.astype(np.uint64))
            self._epochs[stale] = self._epoch
            self._pos[stale] = _N
            self._seeded += stale.size

    def _space(self, i, shape):
        """This thread's scratch array ``i`` (see _Scratch) as a contiguous uint32 array of ``shape``."""
        bufs = self._scratch.bufs
        size = math.prod(shape)
        if bufs[i].size < size:
            bufs[i] = np.empty(size, np.uint32)
        return bufs[i][:size].reshape(shape)

    def _emit(self, words, dst, scale, shift):
        """Temper the state words ``words`` (rows, w) into ``dst`` (rows, w) of any dtype; each output converted to
        dst's dtype is multiplied by ``scale`` and then added ``shift`` when given (in that dtype), on the way: while
        the block is in the cache."""
        if scale is None and shift is None and dst.dtype == np.uint32:
            _temper(words, dst, self._space(3, words.shape))
            return
        raw = _temper(words, self._space(2, words.shape), self._space(3, words.shape))
        work = None
        if not dst.flags.c_contiguous and dst.dtype.itemsize == 4:  # (the tempering's scratch is free again)
            work = self._space(3, words.shape).view(dst.dtype)
        _convert(raw, dst, scale, shift, work)

    def _read_aligned(self, sel, p, m, dst, scale, shift, commit):
        """The next ``m`` outputs of the engines ``sel`` (a slice or index array of rows), all at position ``p``, into
        ``dst``. Reading (``commit``) advances them; else the states after each twist are returned (copies)."""
        mt = self._mt[sel]  # (a view for a slice: twisted in place)
        a = min(_N - p, m)
        if a > 0:
            self._emit(mt[:, p:p + a], dst[:, :a], scale, shift)
        saved, copied, ln = [], isinstance(sel, slice) is False, a
        while a < m:
            if not commit and not copied:
                mt, copied = mt.copy(), True
            _twist(mt, self._scratch.bufs)
            if not commit:
                saved.append(mt.copy())
            ln = min(_N, m - a)
            self._emit(mt[:, :ln], dst[:, a:a + ln], scale, shift)
            a += ln
        if commit:
            if not isinstance(sel, slice) and m > _N - p:
                self._mt[sel] = mt
            self._pos[sel] = p + m if m <= _N - p else ln
        return saved

    def _read_scattered(self, rows, pos, m, out, at_out, scale, shift, commit):
        """The next ``m`` outputs of engines ``rows`` at many different positions ``pos`` into the rows ``at_out`` of
        ``out``. The engines whose current block holds their ``m`` outputs temper just those words; the others, a
        few at a time, lay their blocks from the current one on side by side, and each one's window is cut out of
        them. Reading (``commit``) advances the engines; else returns (the rows that twisted, as indices into
        ``rows``; the states after each twist)."""
        inside = np.flatnonzero(pos + m <= _N)
        if inside.size:
            # (each engine's window copied whole from a view of every window: a gather per word costs 8x more)
            words = np.lib.stride_tricks.sliding_window_view(self._mt, m, axis=1)[rows[inside], pos[inside]]
            got = _temper(words, self._space(2, words.shape), self._space(3, words.shape))
            out[at_out[inside]] = _scaled(got, out.dtype, scale, shift)
            if commit:
                self._pos[rows[inside]] = pos[inside] + m
        need = np.flatnonzero(pos + m > _N)
        if not need.size:
            return need, []
        twists = (pos[need] + m - 1) // _N  # (each engine's last output lies that many twists on)
        most = int(twists.max())
        saved = [] if commit else [np.empty((need.size, _N), np.uint32) for _ in range(most)]
        step = max(1, _BLOCK_WORDS // ((most + 1) * _N))
        for c0 in range(0, need.size, step):
            sub, tw = need[c0:c0 + step], twists[c0:c0 + step]
            sel, at = rows[sub], pos[sub]
            reach = int(at.max()) + m  # (the words the windows reach, counted from the current block's first)
            first = int(at.min())
            blocks = self._space(4, (len(sub), -(-reach // _N) * _N))
            mt = self._mt[sel]
            _temper(mt[:, first:], blocks[:, first:_N], self._space(3, (len(sub), _N - first)))
            for t in range(1, (most if saved else int(tw.max())) + 1):
                _twist(mt, self._scratch.bufs)
                if saved:
                    saved[t - 1][c0:c0 + len(sub)] = mt
                else:
                    done = tw == t
                    self._mt[sel[done]] = mt[done]
                cols = min(_N, reach - t * _N)
                if cols > 0:
                    _temper(mt[:, :cols], blocks[:, t * _N:t * _N + cols], self._space(3, (len(sub), cols)))
            win = np.lib.stride_tricks.sliding_window_view(blocks, m, axis=1)[np.arange(len(sub)), at]
            dst = _rows(at_out[sub])
            if isinstance(dst, slice):
                _convert(win, out[dst], scale, shift)
            else:
                out[dst] = _scaled(win, out.dtype, scale, shift)
        if commit:
            self._pos[rows[need]] = pos[need] + m - twists * _N
        return need, saved

    def _fill(self, rows, m, out, scale, commit, shift=None):
        """The next ``m`` outputs of each engine of ``rows`` into ``out`` (len(rows), m); reads them (``commit``) or
        remembers the states twisted, for :meth:`skip`."""
        self._fresh(rows)
        if commit and self._native(rows, m, out, scale, shift):
            return out
        pos = self._pos[rows]
        # a few outputs of engines at many positions are cheaper read by index; of one or two stretches (a call
        # after calls of other sizes), by slices
        runs = _runs(rows, pos, 16 if m > 64 or len(rows) <= 8 else 2)
        parts = []
        if runs is None:
            parts.append(self._read_scattered(rows, pos, m, out, np.arange(len(rows)), scale, shift, commit))
        for i0, i1 in runs or ():
            r0 = int(rows[i0])
            saved = self._read_aligned(slice(r0, r0 + i1 - i0), int(pos[i0]), m, out[i0:i1], scale, shift, commit)
            parts.append((np.arange(i0, i1), saved))
        if not commit:
            self._peeked = (rows, pos, parts)
        return out

    def _native(self, rows, m, out, scale, shift):
        """Read the next ``m`` outputs of the engines ``rows`` into ``out`` with the compiled generator (see
        kernels._native); False where it does not apply (not built, an ``out`` of another dtype or layout)."""
        lib = _native.library()
        kind = _NATIVE_KINDS.get(out.dtype)
        if (lib is None or kind is None or kind == 0 and (scale is not None or shift is not None)
                or not out.flags.c_contiguous or out.shape != (len(rows), m)):
            return False
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        lib.mx_fill(self._mt.ctypes.data, self._pos.ctypes.data, rows.ctypes.data, len(rows), m, out.ctypes.data,
                    kind, 0.0 if scale is None else float(scale), scale is not None,
                    0.0 if shift is None else float(shift), shift is not None)
        return True

    def compiled(self, name, n, step, engines, out, *params):
        """A call filling ``n`` floats into ``out`` (engine i the values i * step ...) with the compiled sampler
        ``name`` of kernels/native/mt19937.c (``mx_normal_f32``: standard normal values times a scale plus a shift;
        ``mx_gamma_f32``: gamma values of a shape and a scale), its float ``params`` after the engine range; the
        engines shared out to threads as :meth:`take`'s. False where it does not apply (not built, or a C library
        other than glibc, whose ``logf`` the polar method calls as MXNet does)."""
        lib = _native.library()
        if lib is None or not _native.glibc():
            return False
        fn = getattr(lib, name)
        self._fresh(np.arange(engines))
        self._peeked = None
        mt, pos, dst = self._mt.ctypes.data, self._pos.ctypes.data, out.ctypes.data
        _in_parts(engines, _parts(engines, step), lambda a, b: fn(mt, pos, n, step, a, b, *params, dst))
        return True

    def _commit(self, rows, pos, counts, parts):
        # engines at ``pos`` that read ``counts`` outputs: each takes the state after the twists it needed
        counts = np.asarray(counts, dtype=np.int64)
        left = _N - pos
        new = pos + counts
        for idx, saved in parts:
            c, lf = counts[idx], left[idx]
            twists = np.where(c <= lf, 0, (c - lf + _N - 1) // _N)
            for t, state in enumerate(saved, 1):
                who = np.nonzero(twists == t)[0]
                if who.size:
                    self._mt[rows[idx[who]]] = state[who]
            more = twists > 0
            new[idx[more]] = (c - lf - (twists - 1) * _N)[more]
        self._pos[rows] = new

    def peek(self, rows, m):
        """The next ``m`` (at most ``PEEK``) outputs of each engine of ``rows`` (sorted row numbers), left unread:
        shape (len(rows), m)."""
        return self._fill(rows, m, np.empty((len(rows), m), np.uint32), None, False)

    def skip(self, rows, counts):
        """Mark ``counts`` outputs of each engine of ``rows`` read (after :meth:`peek` of those rows)."""
        counts = np.broadcast_to(np.asarray(counts, dtype=np.int64), (len(rows),))
        peeked, self._peeked = self._peeked, None
        if peeked is None or peeked[0] is not rows and not np.array_equal(peeked[0], rows):
            most = int(counts.max(initial=0))  # (no peek of these rows just before: look as far ahead now)
            self._fill(rows, most, np.empty((len(rows), most), np.uint32), None, False)
            peeked, self._peeked = self._peeked, None
        self._commit(rows, peeked[1], counts, peeked[2])

    def take(self, rows, m, out=None, scale=None, shift=None):
        """The next ``m`` outputs of each engine of ``rows``, read: (len(rows), m), written into ``out`` when given
        (a contiguous array of any dtype: the outputs are converted as they are copied, multiplied by ``scale``
        and then added ``shift`` in that dtype when given)."""
        if out is None:
            out = np.empty((len(rows), m), np.uint32 if scale is None else np.asarray(scale).dtype)
        if m <= 0 or not len(rows):
            return out
        self._peeked = None
        parts = _parts(len(rows), m)
        if parts == 1 or not out.flags.c_contiguous:
            return self._fill(rows, m, out, scale, True, shift)
        self._fresh(rows)  # (here: the threads below then only read the seeding's bookkeeping)
        _in_parts(len(rows), parts, lambda a, b: self._fill(rows[a:b], m, out[a:b], scale, True, shift))
        return out

    @staticmethod
    def split(n):
        """(values per engine, the number each engine fills) for a call filling ``n`` values (LaunchRNG): engines
        past the last value fill none and are left out."""
        if n <= 0:
            return 0, []
        engines = min((n + MIN_PER_STATE - 1) // MIN_PER_STATE, NUM_STATES)
        step = (n + engines - 1) // engines
        full, rest = divmod(n, step)
        return step, [step] * full + ([rest] if rest else [])

    def fixed(self, n, k, dtype=np.uint32, scale=None, shift=None):
        """The outputs of a call filling ``n`` values with ``k`` outputs each: a new array of shape (n, k), in the
        values' order (converted to ``dtype``, multiplied by ``scale`` and then added ``shift`` in it when given)."""
        step, counts = self.split(n)
        out = np.empty(n * k, dtype)
        full = n // step if counts else 0
        if full:
            self.take(np.arange(full), step * k, out[:full * step * k].reshape(full, step * k), scale, shift)
        if full < len(counts):
            self.take(np.array([full]), counts[-1] * k, out[full * step * k:].reshape(1, counts[-1] * k), scale,
                      shift)
        return out.reshape(n, k)


# ---- libstdc++'s canonical numbers and ranges ------------------------------------------------------------------
def canonical_f32(raw):
    """``generate_canonical<float, 24>``: an output / 2**32, rounded to float. GCC 4.8's version does not keep it
    below 1: an output of 2**32 - 128 or more gives 1.0 (as MXNet 1.9.1's uniform does, once in 2**25)."""
    u = raw.astype(_F32)  # (rounded once, to nearest: the conversion of a 32-bit value to float is exact-then-round)
    u *= _F32(2.0 ** -32)
    return u


def canonical_f64(first, second):
    """``generate_canonical<double, 53>``: (first + second * 2**32) / 2**64 in double (1.0 possible, as above)."""
    u = first.astype(_F64) + second.astype(_F64) * 4294967296.0
    u *= 2.0 ** -64
    return u


def canonical(raw, ftype):
    """Canonical numbers of float type ``ftype`` from outputs ``raw`` of shape (..., 1) (float) or (..., 2)."""
    if ftype == _F32:
        return canonical_f32(raw[..., 0])
    return canonical_f64(raw[..., 0], raw[..., 1])


def outputs_per_uniform(ftype):
    return 1 if ftype == _F32 else 2


def uniform_int_downscale(raw, high):
    """``uniform_int_distribution(0, high)`` for each output in ``raw`` (high < 2**32 - 1), by libstdc++'s
    rejection: (value, accepted). ``high`` may be an array matching ``raw``."""
    erange = np.asarray(high, dtype=np.uint64) + 1
    scaling = np.uint64(_U32) // erange
    past = erange * scaling
    raw = raw.astype(np.uint64)
    return raw // scaling, raw < past
