"""Checks of random generators (mean, variance, chi-square) and random matrices with known spectra."""
import numpy as np
import torch

__all__ = ['gen_buckets_probs_with_ppf', 'mean_check', 'var_check', 'chi_square_check', 'verify_generator',
           'new_matrix_with_real_eigvals_2d', 'new_matrix_with_real_eigvals_nd', 'new_orthonormal_matrix_2d',
           'new_sym_matrix_with_real_eigvals_2d', 'new_sym_matrix_with_real_eigvals_nd']


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equal-probability buckets [(ppf(i/n), ppf((i+1)/n))] and their probabilities."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of ``generator(nsamples)`` is within 3 standard errors of ``mu``."""
    sample_mean = np.array(generator(nsamples)).mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return (sample_mean > mu - bound) and (sample_mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance of ``generator(nsamples)`` is within 3 standard errors of ``sigma**2``."""
    sample_var = np.array(generator(nsamples)).var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return (sample_var > sigma ** 2 - bound) and (sample_var < sigma ** 2 + bound)


def _chi2_sf(stat, dof):
    """P(X > stat) for a chi-square X with ``dof`` degrees of freedom (the regularized upper gamma)."""
    return float(torch.special.gammaincc(torch.tensor(dof / 2.0, dtype=torch.float64),
                                         torch.tensor(stat / 2.0, dtype=torch.float64)))


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Chi-square test of ``generator(nsamples)`` against bucket probabilities ``probs``. ``buckets``: ascending,
    disjoint (low, high) ranges for a continuous distribution, or the possible values of a discrete one.
    Returns (p value, observed counts, expected counts)."""
    assert isinstance(buckets, list)
    samples = generator(nsamples)
    assert len(probs) == len(buckets)
    continuous = isinstance(buckets[0], (list, tuple))
    if continuous:
        edges = np.zeros((len(buckets) * 2,), dtype=np.float32)
        for i, (low, high) in enumerate(buckets):
            assert low <= high
            if i < len(buckets) - 1:
                assert high <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = low, high
        # an odd position means inside bucket pos // 2; an even one falls between buckets
        ids = np.searchsorted(edges, samples, side='right') // 2
    else:
        ids = np.array(samples)
    expected_freq = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    obs_freq = np.zeros(shape=len(buckets), dtype=np.int64)
    for i, bucket in enumerate(buckets):
        obs_freq[i] = (ids == (i if continuous else bucket)).sum()
    stat = float(np.sum((obs_freq - expected_freq) ** 2 / expected_freq.astype(np.float64)))
    return _chi2_sf(stat, len(buckets) - 1), obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Run ``chi_square_check`` ``nrepeat`` times; raise AssertionError unless at least ``success_rate`` of the
    p values exceed ``alpha``. Returns the p values."""
    results = [chi_square_check(generator=generator, buckets=buckets, probs=probs, nsamples=nsamples)
               for _ in range(nrepeat)]
    p_values = [r[0] for r in results]
    if (np.array(p_values) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError('Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s.\nbuckets=%s, '
                             'probs=%s' % (str(p_values), str([r[1] for r in results]), str([r[2] for r in results]),
                                           str(buckets), str(probs)))
    return p_values


# ---- matrices with known spectra (numpy) -----------------------------------------------------------------------------

def new_matrix_with_real_eigvals_2d(n):
    """A well-conditioned n x n matrix with real eigenvalues in (-10, 10): Q^-1 D Q with Q a scaled
    Householder reflection of condition number < 3."""
    while True:
        d = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1., 1., n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(np.eye(n) - 2 * np.matmul(v, v.T), d)
        if np.linalg.cond(q, 2) < 3:
            break
    return np.matmul(np.matmul(np.linalg.inv(q), np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def _stack_square(shape, make_one):
    """``make_one(n)`` called once per leading index of ``shape`` (..., n, n), stacked into that shape."""
    batch = int(np.prod(shape[:-2], dtype=np.int64))
    return np.stack([make_one(shape[-1]) for _ in range(batch)]).reshape(shape)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of ``new_matrix_with_real_eigvals_2d`` matrices of ``shape`` (..., n, n)."""
    return _stack_square(shape, new_matrix_with_real_eigvals_2d)


def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix (Q of the QR decomposition of X^T X)."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix Q^T D Q with eigenvalues in (-10, 10)."""
    q = new_orthonormal_matrix_2d(n)
    return np.matmul(np.matmul(q.T, np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of ``new_sym_matrix_with_real_eigvals_2d`` matrices of ``shape`` (..., n, n)."""
    return _stack_square(shape, new_sym_matrix_with_real_eigvals_2d)
