"""mx.np.linalg: results, types, dtypes and errors as MXNet 1.9.1 gives them (golden file in
tests/fixtures/np_linalg, with its generator), gradients, and the known differences."""
import json
import os

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np
from tests._fixtures import FIXTURES, load_generator
from tests.numpy._golden import check_record, check_signature, signatures

CASES = load_generator('np_linalg', 'np_linalg_cases.py')
GOLD = json.load(open(os.path.join(FIXTURES, 'np_linalg', 'np_linalg.json')))
OURS = {}

# Where MXNet 1.9.1 raises for a bug or a limitation (or gives a value NumPy does not define), mxcompat computes
# NumPy's result; each entry is what mxcompat gives instead.
KNOWN = {
    'norm_vec_inf': 2.0, 'norm_vec_minf': 0.0,             # MXNet: 'inf norm handled in front-end', never handled
    'norm_3d_axes_2': [22.4093, 61.7859],                  # MXNet's svd wants rows <= columns
    'svd_tall': None,                                      # the same: computed, K = N
    'norm_int': 5.0,                                       # MXNet's integer norm gives 4 for [[3, 4]]
    'norm_matrix_ord_3': 'ValueError',                     # MXNet gives 26 (an order NumPy refuses)
}


def _ours():
    if not OURS:
        OURS.update(CASES.record_all(mx))
    return OURS


@pytest.mark.parametrize('name', sorted(set(GOLD) - set(KNOWN)))
def test_golden(name):
    check_record(GOLD[name], _ours()[name], values=not name.endswith(':meta'), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize('name', sorted(KNOWN))
def test_known_differences(name):
    assert 'error' in GOLD[name] or name == 'norm_int' or name == 'norm_matrix_ord_3'
    ours, want = _ours()[name], KNOWN[name]
    if want == 'ValueError':
        assert 'ValueError' in ours['error']
    elif want is None:
        assert 'error' not in ours
    else:
        onp.testing.assert_allclose(ours['outputs'][0]['values'], want, rtol=1e-4)


def test_every_case_recorded():
    assert set(GOLD) == set(CASES.CASES)


def test_names_match_mxnet():
    names = ('cholesky cond det eig eigh eigvals eigvalsh fallback_linalg inv lstsq matrix_power matrix_rank '
             'multi_dot norm pinv qr slogdet solve svd tensorinv tensorsolve').split()
    assert [n for n in names if not hasattr(np.linalg, n)] == []


def test_svd_reconstructs_tall_matrices():
    a = np.array(onp.random.RandomState(0).randn(5, 3).astype('float32'))
    ut, l, v = np.linalg.svd(a)
    assert (ut.shape, l.shape, v.shape) == ((5, 3), (3,), (3, 3))
    onp.testing.assert_allclose(np.matmul(ut * l, v).asnumpy(), a.asnumpy(), atol=1e-5)


def test_results_agree_with_numpy():
    r = onp.random.RandomState(1)
    a = r.randn(4, 4) + 4 * onp.eye(4)
    x = np.array(a, dtype='float64')
    onp.testing.assert_allclose(np.linalg.inv(x).asnumpy(), onp.linalg.inv(a))
    onp.testing.assert_allclose(np.linalg.pinv(x).asnumpy(), onp.linalg.pinv(a), atol=1e-12)
    onp.testing.assert_allclose(np.linalg.matrix_power(x, -3).asnumpy(), onp.linalg.matrix_power(a, -3))
    onp.testing.assert_allclose(np.linalg.cond(x, 'nuc'), onp.linalg.cond(a, 'nuc'))
    for ord_ in [None, 'fro', 'nuc', 1, -1, 2, -2, onp.inf, -onp.inf]:
        onp.testing.assert_allclose(np.linalg.norm(x, ord_).asnumpy(), onp.linalg.norm(a, ord_))
    for ord_ in [None, 0, 1, -1, 2, 3, 0.5, onp.inf, -onp.inf]:
        onp.testing.assert_allclose(np.linalg.norm(x, ord_, axis=0).asnumpy(), onp.linalg.norm(a, ord_, axis=0))
    b = r.randn(6, 3)
    got, want = np.linalg.lstsq(np.array(b), np.array(b[:, 0] + 1.), rcond=None), onp.linalg.lstsq(
        b, b[:, 0] + 1., rcond=None)
    for g, w in zip(got, want):
        onp.testing.assert_allclose(onp.asarray(g.asnumpy() if hasattr(g, 'asnumpy') else g), w, atol=1e-5)


def test_fallback_names_are_in_fallback_linalg():
    assert np.linalg.qr is np.linalg.fallback_linalg.qr
    assert sorted(np.linalg.fallback_linalg.__all__) == ['cond', 'lstsq', 'matrix_power', 'matrix_rank',
                                                         'multi_dot', 'qr']


def test_errors_name_the_function():
    with pytest.raises(mx.base.MXNetError, match='linalg.inv'):
        np.linalg.inv(np.zeros((2, 2)))
    with pytest.raises(NotImplementedError):
        np.linalg.qr(np.eye(2), mode='raw')


@pytest.mark.parametrize('name, params', sorted(signatures('np.linalg').items()))
def test_signature_is_mxnets(name, params):
    check_signature(np.linalg, name, params)
