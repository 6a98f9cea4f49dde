"""mx.test_utils generator checks and random matrices, against MXNet 1.9.1 (golden: tests/fixtures/test_utils)."""
import json
import os

import numpy as np
import pytest

from mxcompat import test_utils as tu

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'test_utils',
                               'test_utils.json')))


def test_statistics_match_mxnet():
    s = GOLD['stats']
    from statistics import NormalDist
    buckets, probs = tu.gen_buckets_probs_with_ppf(
        lambda p: {0.0: -np.inf, 1.0: np.inf}.get(p) or NormalDist().inv_cdf(p), 5)
    np.testing.assert_allclose(np.array(buckets)[1:-1], np.array(s['buckets'])[1:-1], rtol=1e-9)
    assert probs == s['probs']

    def gen(n):
        return np.random.normal(0, 1.0, size=n)

    np.random.seed(3)
    p, obs, exp = tu.chi_square_check(gen, [tuple(b) for b in s['buckets']], s['probs'], nsamples=2000)
    assert obs.tolist() == s['chi2_cont'][1] and exp.tolist() == s['chi2_cont'][2]
    assert p == pytest.approx(s['chi2_cont'][0], rel=1e-9)
    np.random.seed(3)
    p, obs, exp = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2], [0.3, 0.3, 0.4], 1000)
    assert [obs.tolist(), exp.tolist()] == s['chi2_disc'][1:]
    assert p == pytest.approx(s['chi2_disc'][0], rel=1e-6)
    np.random.seed(3)
    got = [tu.mean_check(gen, 0, 1.0, nsamples=1000), tu.mean_check(gen, 0.5, 1.0, nsamples=1000),
           tu.var_check(gen, 1.0, nsamples=1000), tu.var_check(gen, 2.0, nsamples=1000)]
    assert [bool(g) for g in got] == [s['mean_check'], s['mean_check_bad'], s['var_check'], s['var_check_bad']]


def test_chi2_p_value_against_closed_form():
    # with 2 degrees of freedom the survival function is exp(-x/2)
    for x in (0.1, 1.0, 5.0, 20.0):
        assert tu.distributions._chi2_sf(x, 2) == pytest.approx(np.exp(-x / 2), rel=1e-12)


def test_verify_generator():
    buckets = [(-np.inf, 0.0), (0.0, np.inf)]
    np.random.seed(0)
    ps = tu.verify_generator(lambda n: np.random.normal(size=n), buckets, [0.5, 0.5], nsamples=2000, nrepeat=3)
    assert len(ps) == 3
    with pytest.raises(AssertionError, match='Generator test fails'):
        tu.verify_generator(lambda n: np.random.normal(1.0, size=n), buckets, [0.5, 0.5], nsamples=2000, nrepeat=3)


def test_generated_matrices_properties():
    np.random.seed(1)
    m = tu.new_matrix_with_real_eigvals_nd((2, 4, 4))
    assert m.shape == (2, 4, 4)
    for x in m:
        ev = np.linalg.eigvals(x)
        assert np.allclose(ev.imag, 0) and np.all(np.abs(ev.real) < 10)
    q = tu.new_orthonormal_matrix_2d(5)
    np.testing.assert_allclose(q.T @ q, np.eye(5), atol=1e-10)
    s = tu.new_sym_matrix_with_real_eigvals_nd((3, 4, 4))
    np.testing.assert_allclose(s, np.swapaxes(s, -1, -2), atol=1e-10)
