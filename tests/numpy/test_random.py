"""mx.np.random and npx.random: result shapes, dtypes and errors as MXNet 1.9.1 gives them, and sample statistics
against MXNet's (golden files in tests/fixtures/np_random, with their generator)."""
import json
import os

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np, npx
from tests._fixtures import FIXTURES, load_generator
from tests.numpy._golden import check_same, check_signature, signatures

CASES = load_generator('np_random', 'np_random_cases.py')
GOLD = json.load(open(os.path.join(FIXTURES, 'np_random', 'np_random.json')))
OURS = {}

# Known differences from MXNet 1.9.1, with what mxcompat does instead.
KNOWN = {
    # MXNet broadcasts a (2, 1) parameter into size (3,) by reading past it; mxcompat requires NumPy broadcasting
    'np.random.uniform(np.zeros((2, 1)), 1, size=(3,))': {'error': ['MXNetError', 'ValueError']},
    # MXNet fails to allocate memory for a sample larger than the population; mxcompat says why
    'np.random.choice(5, 6, replace=False)': {'error': ['MXNetError', 'ValueError']},
}


def _ours():
    if not OURS:
        OURS.update(CASES.record_all(mx))
    return OURS


def _kinds(src):
    try:
        eval(src, {'mx': mx, 'np': np, 'npx': npx})  # noqa: S307
    except Exception as e:  # noqa: BLE001
        return CASES._error_kind(e)
    return None


@pytest.mark.parametrize('src', sorted(GOLD['shapes']))
def test_shapes_dtypes_errors(src):
    check_same(GOLD['shapes'][src], _ours()['shapes'][src])


@pytest.mark.parametrize('src', sorted(KNOWN))
def test_known_differences(src):
    npx.set_np()
    try:
        assert {'error': _kinds(src)} == KNOWN[src]
    finally:
        npx.reset_np()


@pytest.mark.parametrize('src', sorted(GOLD['stats']))
def test_statistics(src):
    (m, v), (gm, gv) = _ours()['stats'][src], GOLD['stats'][src]
    n = CASES.N
    # several standard errors of the mean, and a relative band for the variance (heavy tails: pareto, lognormal)
    assert abs(m - gm) <= 6 * (max(v, gv) / n) ** 0.5 + 1e-9, (m, gm)
    assert abs(v - gv) <= 0.1 * gv + 1e-9, (v, gv)


@pytest.mark.skipif(mx.random.get_streams() != 'mxnet', reason="MXNet's CPU streams are off (MXCOMPAT_RANDOM)")
@pytest.mark.parametrize('i', range(len(CASES.VALUES)), ids=CASES.VALUES)
def test_mxnet_numbers_after_a_seed(i):
    # the uniform-based samplers draw MXNet's single CPU engine's numbers and compute its kernels' formulas in
    # their C types (operator/_np_samplers.py): MXNet's numbers to the last bit
    onp.testing.assert_array_equal(_ours()['values'][i], GOLD['values'][i])


@pytest.mark.skipif(mx.random.get_streams() != 'mxnet', reason="MXNet's CPU streams are off (MXCOMPAT_RANDOM)")
@pytest.mark.parametrize('i', range(len(CASES.UNIFORM_BASED)), ids=CASES.UNIFORM_BASED)
def test_uniform_based_samplers_bit_for_bit(i):
    onp.testing.assert_array_equal(_ours()['uniform_based'][i], GOLD['uniform_based'][i])


@pytest.mark.skipif(mx.random.get_streams() != 'mxnet', reason="MXNet's CPU streams are off (MXCOMPAT_RANDOM)")
@pytest.mark.parametrize('i', range(len(CASES.EXACT)), ids=CASES.EXACT)
def test_mxnet_numbers_bit_for_bit(i):
    # normal (both values of each polar pair of one SampleGaussian call), gamma and what is built on them, and
    # Gluon's initializers in NumPy mode: MXNet's single-engine numbers to the last bit
    onp.testing.assert_array_equal(_ours()['exact'][i], GOLD['exact'][i])


@pytest.mark.skipif(mx.random.get_streams() != 'mxnet', reason="MXNet's CPU streams are off (MXCOMPAT_RANDOM)")
def test_normal_uses_both_values_of_each_pair_within_a_call():
    # MXNet 1.9.1 after mx.random.seed(0) (the legacy mx.nd.random.normal takes every other value instead)
    npx.set_np()
    try:
        mx.random.seed(0)
        assert np.random.normal(0, 1, size=(4,)).asnumpy().tolist() == onp.float32(
            [2.2122064, 1.1630787, 0.7740038, 0.4838046]).tolist()
        mx.random.seed(0)  # an odd count drops its last spare: the next call starts on a fresh pair
        a = onp.concatenate([np.random.normal(size=3).asnumpy(), np.random.normal(size=2).asnumpy()])
        mx.random.seed(0)
        b = np.random.normal(size=6).asnumpy()
        assert a[:3].tolist() == b[:3].tolist() and a[3:].tolist() == b[4:].tolist()
    finally:
        npx.reset_np()


@pytest.mark.skipif(mx.random.get_streams() != 'mxnet', reason="MXNet's CPU streams are off (MXCOMPAT_RANDOM)")
def test_numpy_mode_initializers_draw_through_np_random():
    # MXNet's Normal/Uniform/Xavier call mx.np.random.* when NumPy semantics are on: the single engine's numbers
    npx.set_np()
    try:
        mx.random.seed(3)
        net = mx.gluon.nn.Dense(4, in_units=5)
        net.initialize(mx.init.Normal(0.5))
        mx.random.seed(3)
        onp.testing.assert_array_equal(net.weight.data().asnumpy(), np.random.normal(0, 0.5, size=(4, 5)).asnumpy())
    finally:
        npx.reset_np()


def test_chisquare_keeps_mxnet_scale():
    # MXNet 1.9.1 samples gamma(df / 2, 1 / 2): mean df / 4
    assert abs(GOLD['stats']['np.random.chisquare(4, size=N)'][0] - 1.0) < 0.05


def test_seed_reproduces_and_follows_mx_random_seed():
    mx.random.seed(5)
    a = [np.random.uniform(size=4), np.random.normal(size=4), np.random.randint(0, 9, size=4),
         np.random.gamma(2., size=3), np.random.choice(7, 3), npx.random.bernoulli(0.5, size=6)]
    npx.random.seed(5)
    b = [np.random.uniform(size=4), np.random.normal(size=4), np.random.randint(0, 9, size=4),
         np.random.gamma(2., size=3), np.random.choice(7, 3), npx.random.bernoulli(0.5, size=6)]
    for x, y in zip(a, b):
        assert x.asnumpy().tolist() == y.asnumpy().tolist()


def test_small_uniform_draws_equal_mx_nd_randoms():
    # after a seed, MXNet's single engine (np.random) and the first engine of its parallel generator (mx.nd.random)
    # start alike: up to 64 values the two give the same numbers, here as in MXNet
    mx.random.seed(42)
    a = np.random.uniform(size=5).asnumpy()
    mx.random.seed(42)
    b = mx.nd.random.uniform(shape=5).asnumpy()
    onp.testing.assert_array_equal(a, b)
    mx.random.seed(42)
    e = np.random.exponential(size=5).asnumpy()
    onp.testing.assert_allclose(e, -onp.log(b), rtol=1e-6)


def test_gradients_reach_array_parameters():
    loc, scale = np.array([1., 2.]), np.array([0.5, 3.])
    loc.attach_grad()
    scale.attach_grad()
    with mx.autograd.record():
        y = np.random.normal(loc, scale, size=(1000, 2))
    y.backward()
    onp.testing.assert_allclose(loc.grad.asnumpy(), [1000., 1000.])
    z = (y.asnumpy() - loc.asnumpy()) / scale.asnumpy()
    onp.testing.assert_allclose(scale.grad.asnumpy(), z.sum(0), rtol=1e-4)


@pytest.mark.parametrize('name', sorted(GOLD['grads']))
def test_gradients_of_array_parameters_as_mxnet(name):
    # zeros where MXNet's sampler gives none (uniform, power, gamma, beta, chisquare); the others to float rounding
    onp.testing.assert_allclose(_ours()['grads'][name], GOLD['grads'][name], rtol=1e-5, atol=1e-6)


def test_shuffle_in_place_rows():
    a = np.arange(10).reshape(5, 2)
    np.random.shuffle(a)
    h = a.asnumpy()
    assert sorted(h[:, 0].tolist()) == [0., 2., 4., 6., 8.] and (h[:, 1] == h[:, 0] + 1).all()


def test_out_and_ctx():
    out = np.zeros((2, 3))
    r = np.random.uniform(size=(2, 3), out=out)
    assert r is out and (out.asnumpy() > 0).any()
    assert np.random.uniform(size=2, ctx='cpu(1)').ctx == mx.cpu(1)
    assert np.random.normal(np.zeros(2, ctx=mx.cpu(2))).ctx == mx.cpu(2)


def test_choice_values():
    a = np.array([10., 20., 30.])
    r = np.random.choice(a, (50,), p=np.array([0., 1., 0.]))
    assert set(r.asnumpy().tolist()) == {20.}
    r = np.random.choice(5, 5, replace=False).asnumpy()
    assert sorted(r.tolist()) == [0, 1, 2, 3, 4]
    counts = np.random.multinomial(7, [0.5, 0.5], size=4).asnumpy()
    assert (counts.sum(1) == 7).all()


@pytest.mark.parametrize('name, params', sorted(signatures('np.random').items()))
def test_signature_is_mxnets(name, params):
    check_signature(np.random, name, params)


def test_dir_lists_what_mxnets_module_lists():
    # D2L's lookup-api section prints dir(np.random): MXNet's module shows its samplers and _mx_nd_np, no helpers
    names = dir(mx.np.random)
    assert [n for n in names if not n.startswith('__')] == ['_mx_nd_np'] + sorted(mx.np.random.__all__)
    assert mx.np.random._mx_nd_np is mx.np
