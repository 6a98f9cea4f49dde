/* MXNet 1.9.1's parallel CPU generator (1,024 std::mt19937 engines) in C, for mxcompat.kernels._native.

   The engines are the rows of the caller's state array (uint32, 624 words a row) with each one's position in its
   current block (int64: the next output's word; 624 means used up, the next output twists first), exactly as
   mxcompat.operator._mt19937.ParallelRandom keeps them, so the numpy code and this one read and advance the same
   engines. Built with -ffp-contract=off: every float operation rounds on its own, as in MXNet's x86-64 wheel. */
#include <math.h>
#include <stdint.h>

#define MT_N 624
#define MT_M 397
#define UPPER 0x80000000u
#define LOWER 0x7fffffffu
#define MATRIX 0x9908b0dfu

static uint32_t mix(uint32_t hi, uint32_t lo, uint32_t far) {
    uint32_t y = (hi & UPPER) | (lo & LOWER);
    return far ^ (y >> 1) ^ ((y & 1u) ? MATRIX : 0u);
}

/* the next block: word i from the old words i and i + 1 and the (new past the end) word i + 397 */
static void twist(uint32_t *mt) {
    int i;
    for (i = 0; i < MT_N - MT_M; i++)
        mt[i] = mix(mt[i], mt[i + 1], mt[i + MT_M]);
    for (; i < MT_N - 1; i++)
        mt[i] = mix(mt[i], mt[i + 1], mt[i + MT_M - MT_N]);
    mt[MT_N - 1] = mix(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
}

static uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

static uint32_t next(uint32_t *mt, int64_t *pos) {
    if (*pos >= MT_N) {
        twist(mt);
        *pos = 0;
    }
    return temper(mt[(*pos)++]);
}

/* The next m outputs of the engine mt at *p into out: as uint32 (kind 0), or converted to float (1) or double (2),
   then times scale when has_scale, then plus shift when has_shift, each rounded in that type. A block is tempered
   and converted in one loop over its words (vectorized by the compiler). */
static void fill(uint32_t *mt, int64_t *pos, int64_t m, void *out, int kind, double scale, int has_scale,
                 double shift, int has_shift) {
    const float fs = has_scale ? (float)scale : 1.0f, fsh = (float)shift;
    const double ds = has_scale ? scale : 1.0;
    int64_t p = *pos;
    for (int64_t j = 0; j < m;) {
        if (p >= MT_N) {
            twist(mt);
            p = 0;
        }
        int64_t len = MT_N - p < m - j ? MT_N - p : m - j;
        const uint32_t *w = mt + p;
        if (kind == 0) {
            uint32_t *o = (uint32_t *)out + j;
            for (int64_t i = 0; i < len; i++)
                o[i] = temper(w[i]);
        } else if (kind == 1) {
            float *o = (float *)out + j;
            if (has_shift)
                for (int64_t i = 0; i < len; i++)
                    o[i] = (float)temper(w[i]) * fs + fsh;
            else
                for (int64_t i = 0; i < len; i++)
                    o[i] = (float)temper(w[i]) * fs;
        } else {
            double *o = (double *)out + j;
            if (has_shift)
                for (int64_t i = 0; i < len; i++)
                    o[i] = (double)temper(w[i]) * ds + shift;
            else
                for (int64_t i = 0; i < len; i++)
                    o[i] = (double)temper(w[i]) * ds;
        }
        p += len;
        j += len;
    }
    *pos = p;
}

/* The next m outputs of each engine rows[k] into out[k * m ...] (see fill). */
void mx_fill(uint32_t *states, int64_t *pos, const int64_t *rows, int64_t nrows, int64_t m, void *out, int kind,
             double scale, int has_scale, double shift, int has_shift) {
    const int64_t size = kind == 0 || kind == 1 ? 4 : 8;
    for (int64_t k = 0; k < nrows; k++)
        fill(states + rows[k] * MT_N, pos + rows[k], m, (char *)out + k * m * size, kind, scale, has_scale, shift,
             has_shift);
}

/* the values of accepted pairs (y, r2): y * sqrt(-2 * log(r2) / r2), times scale, plus shift, rounded step by step
   in float (MXNet's sampler: normal() * std + mean) */
static void polar_values(const float *ys, const float *r2s, int count, float scale, float shift, float *out) {
    float lg[256];
    for (int k = 0; k < count; k++)
        lg[k] = logf(r2s[k]);
    for (int k = 0; k < count; k++)
        out[k] = ys[k] * sqrtf(-2.0f * lg[k] / r2s[k]) * scale + shift;
}

/* A call of the parallel generator filling n standard normal floats, engine i the values i * step ... in order, for
   the engines e0 <= i < e1: libstdc++'s polar method on float canonical numbers (an output / 2**32), a fresh
   distribution per value (its spare value dropped), the C library's logf and sqrtf; each value then times scale
   plus shift (1 and 0 for standard normal values). For each block of an engine's
   outputs, the canonical numbers and the attempts' r2 are made in loops of their own (vectorized); the accepted
   pairs' values 256 at a time. */
void mx_normal_f32(uint32_t *states, int64_t *pos, int64_t n, int64_t step, int64_t e0, int64_t e1, float scale,
                   float shift, float *out) {
    const float two32 = 2.3283064365386963e-10f;  /* 2**-32 */
    float u[MT_N], r2b[MT_N / 2], ys[256], r2s[256];
    int idx[MT_N / 2], ok[MT_N / 2];
    for (int64_t i = e0; i < e1 && i * step < n; i++) {
        uint32_t *mt = states + i * MT_N;
        int64_t p = pos[i], j = i * step, end = (i + 1) * step < n ? (i + 1) * step : n;
        int64_t done = j;  /* values written out so far */
        int have = 0, at = 0, pending = 0, half = 0;
        float x = 0.0f;
        while (j < end) {
            if (p >= MT_N) {
                twist(mt);
                p = 0;
            }
            have = (int)(MT_N - p);  /* the rest of the block as 2u - 1 */
            for (int k = 0; k < have; k++)
                u[k] = 2.0f * ((float)temper(mt[p + k]) * two32) - 1.0f;
            p = MT_N;
            at = 0;
            if (half) {  /* an attempt whose x was the last number of the block before */
                float y = u[at++], r2 = x * x + y * y;
                half = 0;
                if (!(r2 > 1.0f || r2 == 0.0f)) {
                    if (pending == 256) {
                        polar_values(ys, r2s, pending, scale, shift, out + done);
                        done += pending;
                        pending = 0;
                    }
                    ys[pending] = y;
                    r2s[pending++] = r2;
                    j++;
                }
            }
            int pairs = (have - at) / 2;
            const float *v = u + at;
            for (int k = 0; k < pairs; k++)
                r2b[k] = v[2 * k] * v[2 * k] + v[2 * k + 1] * v[2 * k + 1];
            for (int k = 0; k < pairs; k++)
                ok[k] = (r2b[k] <= 1.0f) & (r2b[k] != 0.0f);
            int cnt = 0;  /* the accepted attempts' indices, without branches (a rejection is unpredictable) */
            for (int k = 0; k < pairs; k++) {
                idx[cnt] = k;
                cnt += ok[k];
            }
            int use = end - j < cnt ? (int)(end - j) : cnt;
            for (int q = 0; q < use; q++) {
                if (pending == 256) {
                    polar_values(ys, r2s, pending, scale, shift, out + done);
                    done += pending;
                    pending = 0;
                }
                ys[pending] = v[2 * idx[q] + 1];
                r2s[pending++] = r2b[idx[q]];
            }
            j += use;
            at += j < end ? 2 * pairs : use ? 2 * (idx[use - 1] + 1) : 0;  /* (finished: after the last accepted) */
            if (j < end && at < have) {
                x = u[at++];
                half = 1;
            }
        }
        polar_values(ys, r2s, pending, scale, shift, out + done);
        pos[i] = MT_N - (have - at);  /* the block's outputs not read are the engine's next ones */
    }
}

/* MXNet's single engine (mshadow::Random<cpu>): one std::mt19937 (mt, *pos as above) whose first outputs the numpy
   code may have drawn already: pre[0 .. npre) are read first; *used says how many of them were. */
static uint32_t single_next(const uint32_t *pre, int64_t npre, int64_t *used, uint32_t *mt, int64_t *pos) {
    if (*used < npre)
        return pre[(*used)++];
    return next(mt, pos);
}

/* n float canonical numbers (an output / 2**32) of the single engine: mshadow's SampleUniform. */
void mx_single_uniform_f32(const uint32_t *pre, int64_t npre, uint32_t *mt, int64_t *pos, int64_t n, float *out,
                           int64_t *used) {
    const float two32 = 2.3283064365386963e-10f;  /* 2**-32 */
    int64_t j = 0;
    *used = 0;
    for (; j < n && *used < npre; j++)
        out[j] = (float)pre[(*used)++] * two32;
    fill(mt, pos, n - j, out + j, 1, two32, 1, 0.0, 0);
}

/* n standard normal floats of one SampleGaussian call on the single engine: one std::normal_distribution for the
   call, so each accepted polar pair gives y * mult and then the spare x * mult (an odd n's last spare is dropped
   with the distribution); the C library's logf. */
void mx_single_normal_f32(const uint32_t *pre, int64_t npre, uint32_t *mt, int64_t *pos, int64_t n, float *out,
                          int64_t *used) {
    const float two32 = 2.3283064365386963e-10f;
    *used = 0;
    for (int64_t j = 0; j < n; j += 2) {
        float x, y, r2;
        do {
            x = 2.0f * ((float)single_next(pre, npre, used, mt, pos) * two32) - 1.0f;
            y = 2.0f * ((float)single_next(pre, npre, used, mt, pos) * two32) - 1.0f;
            r2 = x * x + y * y;
        } while (r2 > 1.0f || r2 == 0.0f);
        float mult = sqrtf(-2.0f * logf(r2) / r2);
        out[j] = y * mult;
        if (j + 1 < n)
            out[j + 1] = x * mult;
    }
}

/* A call of the parallel generator filling n gamma floats of shape a and scale b (float parameters), engine i the
   values i * step ... for e0 <= i < e1: MXNet's SampleGamma (Marsaglia and Tsang) as its CPU kernel computes it:
   d, k and c rounded to float; per attempt a standard normal z (the polar method, a fresh distribution); where
   z > -k, x = 1 + c z and V = x**3 in float and the test log(1 - u) < z**2 / 2 + d (1 - V + log V) in double with
   the C library's log; the value d V b in float, times pow(u', 1 / a) in double for a < 1. */
void mx_gamma_f32(uint32_t *states, int64_t *pos, int64_t n, int64_t step, int64_t e0, int64_t e1, float a, float b,
                  float *out) {
    const float two32 = 2.3283064365386963e-10f;
    const double a64 = (double)a;
    const int small = a < 1.0f;
    const float d = (float)(small ? a64 + 2.0 / 3.0 : a64 - 1.0 / 3.0);
    const float k = (float)sqrt(9.0 * (double)d);
    const float c = (float)(1.0 / (double)k);
    const double inv_a = (double)(float)(1.0 / a64);
    for (int64_t i = e0; i < e1 && i * step < n; i++) {
        uint32_t *mt = states + i * MT_N;
        int64_t *p = pos + i;
        int64_t end = (i + 1) * step < n ? (i + 1) * step : n;
        for (int64_t j = i * step; j < end; j++) {
            float value;
            for (;;) {
                float x, y, r2;
                do {
                    x = 2.0f * ((float)next(mt, p) * two32) - 1.0f;
                    y = 2.0f * ((float)next(mt, p) * two32) - 1.0f;
                    r2 = x * x + y * y;
                } while (r2 > 1.0f || r2 == 0.0f);
                float z = y * sqrtf(-2.0f * logf(r2) / r2);
                if (!(z > -k))
                    continue;
                float xv = (float)(1.0 + (double)(c * z));
                float v = xv * xv * xv;
                double ue = (double)((float)next(mt, p) * two32);
                double zd = (double)z, vd = (double)v;
                if (log(1.0 - ue) < 0.5 * zd * zd + (double)d * ((1.0 - vd) + log(vd))) {
                    value = d * v * b;
                    break;
                }
            }
            if (small)
                value = (float)((double)value * pow((double)((float)next(mt, p) * two32), inv_a));
            out[j] = value;
        }
    }
}
