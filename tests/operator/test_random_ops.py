"""Random sampling operators: names and parameters as MXNet 1.9.1 registers them, shapes/dtypes/contexts, ranges,
moments within loose bounds (fixed seeds, large samples), per-element parameters, multinomial, shuffle, errors."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.operator import registry

nd = mx.nd
N = 200000


def _check_moments(x, mean, var, n_sigma=6.0, var_rtol=0.05):
    x = np.asarray(x, dtype=np.float64).ravel()
    assert abs(x.mean() - mean) < n_sigma * np.sqrt(var / x.size) + 1e-12, (x.mean(), mean)
    assert abs(x.var() - var) <= var_rtol * var + 1e-12, (x.var(), var)


# ---- registry names --------------------------------------------------------------------------------------------------
RANDOM_PARAMS = {
    'uniform': ['low', 'high'], 'normal': ['loc', 'scale'], 'gamma': ['alpha', 'beta'], 'exponential': ['lam'],
    'poisson': ['lam'], 'negative_binomial': ['k', 'p'], 'generalized_negative_binomial': ['mu', 'alpha'],
    'randint': ['low', 'high'],
}
SAMPLE_INPUTS = {
    'uniform': ('low', 'high'), 'normal': ('mu', 'sigma'), 'gamma': ('alpha', 'beta'), 'exponential': ('lam',),
    'poisson': ('lam',), 'negative_binomial': ('k', 'p'), 'generalized_negative_binomial': ('mu', 'alpha'),
}


@pytest.mark.parametrize('dist', sorted(RANDOM_PARAMS))
def test_random_op_names_aliases_and_params(dist):
    op = registry.get('_random_' + dist)
    assert op.inputs == () and op.param_names == RANDOM_PARAMS[dist] + ['shape', 'ctx', 'dtype']
    assert getattr(nd, 'random_' + dist)._op is op
    assert getattr(nd._internal, '_random_' + dist)._op is op
    if dist in ('uniform', 'normal'):  # MXNet's deprecated top-level names
        assert getattr(nd, dist)._op is op
    if dist != 'randint':
        like = registry.get('_random_%s_like' % dist)
        assert like.inputs == ('data',) and like.param_names == RANDOM_PARAMS[dist]
        assert getattr(nd.random, dist + '_like')._op is like


@pytest.mark.parametrize('dist', sorted(SAMPLE_INPUTS))
def test_sample_op_names_and_inputs(dist):
    op = registry.get('_sample_' + dist)
    assert op.inputs == SAMPLE_INPUTS[dist] and op.param_names == ['shape', 'dtype']
    assert getattr(nd, 'sample_' + dist)._op is op


def test_other_names_and_defaults():
    assert nd.sample_multinomial._op is registry.get('_sample_multinomial')
    assert registry.get('_sample_multinomial').defaults == {'shape': (), 'get_prob': False, 'dtype': torch.int32}
    assert nd.shuffle._op is registry.get('_shuffle') and registry.get('_shuffle').inputs == ('data',)
    assert registry.get('_random_uniform').defaults == {'low': 0.0, 'high': 1.0, 'shape': (), 'ctx': None,
                                                        'dtype': None}
    assert registry.get('_random_negative_binomial').defaults['k'] == 1
    assert 'low' not in registry.get('_random_randint').defaults  # required, as in MXNet


# ---- shapes, dtypes, contexts ----------------------------------------------------------------------------------------
@pytest.mark.parametrize('dist,params', [('uniform', {}), ('normal', {}), ('gamma', {}), ('exponential', {}),
                                         ('poisson', {}), ('negative_binomial', {'p': 0.5}),
                                         ('generalized_negative_binomial', {})])
@pytest.mark.parametrize('dtype', [None, 'float16', 'float32', 'float64'])
def test_random_op_shape_dtype_ctx(dist, params, dtype):
    kw = dict(params, shape=(2, 3), ctx=mx.cpu(1))
    if dtype is not None:
        kw['dtype'] = dtype
    out = getattr(nd, 'random_' + dist)(**kw)
    assert out.shape == (2, 3) and out.dtype == np.dtype(dtype or 'float32') and out.context == mx.cpu(1)


def test_ctx_as_string_and_default_context():
    assert nd.uniform(shape=(2,), ctx='cpu(3)').context == mx.cpu(3)
    with mx.cpu(2):
        assert nd.random_normal(shape=(2,)).context == mx.cpu(2)
    assert nd.random_randint(low=0, high=3, shape=4).dtype == np.int32
    assert nd.random_randint(low=0, high=3, shape=4, dtype='int64').dtype == np.int64


def test_like_ops_follow_data():
    for dt in ('float16', 'float32', 'float64'):
        out = nd.random.uniform_like(nd.zeros((3, 4), dtype=dt), low=2, high=3)
        assert out.shape == (3, 4) and out.dtype == np.dtype(dt)
        v = out.asnumpy()
        assert (v >= 2).all() and (v <= 3).all()
    x = nd.random.poisson_like(nd.zeros((5,), ctx=mx.cpu(1)), lam=3)
    assert x.context == mx.cpu(1) and (x.asnumpy() == np.round(x.asnumpy())).all()


# ---- ranges and moments (fixed seed: deterministic) ------------------------------------------------------------------
@pytest.mark.parametrize('dist,params,mean,var,check', [
    ('uniform', {'low': -2.0, 'high': 3.0}, 0.5, 25 / 12, lambda v: (v >= -2).all() and (v < 3).all()),
    ('normal', {'loc': 1.5, 'scale': 2.0}, 1.5, 4.0, None),
    ('gamma', {'alpha': 2.5, 'beta': 0.5}, 1.25, 0.625, lambda v: (v > 0).all()),
    ('gamma', {'alpha': 0.3, 'beta': 2.0}, 0.6, 1.2, lambda v: (v >= 0).all()),
    ('exponential', {'lam': 4.0}, 0.25, 0.0625, lambda v: (v >= 0).all()),
    ('poisson', {'lam': 3.0}, 3.0, 3.0, lambda v: (v >= 0).all() and (v == np.round(v)).all()),
    ('poisson', {'lam': 40.0}, 40.0, 40.0, None),
    ('negative_binomial', {'k': 3, 'p': 0.4}, 4.5, 11.25, lambda v: (v >= 0).all() and (v == np.round(v)).all()),
    ('generalized_negative_binomial', {'mu': 2.0, 'alpha': 0.5}, 2.0, 4.0, lambda v: (v == np.round(v)).all()),
    ('generalized_negative_binomial', {'mu': 2.0, 'alpha': 0.0}, 2.0, 2.0, None),
])
def test_random_moments(dist, params, mean, var, check):
    mx.random.seed(123)
    v = getattr(nd, 'random_' + dist)(shape=(N,), dtype='float64', **params).asnumpy()
    if check is not None:
        assert check(v)
    _check_moments(v, mean, var)


def test_randint_range_and_moments():
    mx.random.seed(5)
    v = nd.random_randint(low=-3, high=7, shape=(N,)).asnumpy()
    assert v.min() == -3 and v.max() == 6
    _check_moments(v, 1.5, (10 ** 2 - 1) / 12)


def test_defaults_of_degenerate_parameters():
    # MXNet's defaults: negative_binomial(k=1, p=1) and poisson(lam=0) give zeros; uniform(1, 1) gives 1
    assert (nd.random_negative_binomial(shape=(50,)).asnumpy() == 0).all()
    assert (nd.random_poisson(lam=0, shape=(50,)).asnumpy() == 0).all()
    assert (nd.random_uniform(low=1, high=1, shape=(5,)).asnumpy() == 1).all()
    assert (nd.random_negative_binomial(k=0, p=0.5, shape=(50,)).asnumpy() == 0).all()


# ---- per-element parameters (_sample_*) ------------------------------------------------------------------------------
def test_sample_shapes_and_dtypes():
    lo, hi = nd.array([[0., 10.], [20., 30.]]), nd.array([[1., 11.], [21., 31.]])
    out = nd.sample_uniform(lo, hi, shape=(3, 4))
    assert out.shape == (2, 2, 3, 4) and out.dtype == np.float32
    v = out.asnumpy()
    for i in range(2):
        for j in range(2):
            block = v[i, j]
            assert (block >= lo.asnumpy()[i, j]).all() and (block < hi.asnumpy()[i, j]).all()
    assert nd.sample_normal(lo, hi).shape == (2, 2)
    assert nd.sample_normal(lo, hi, shape=5, dtype='float64').dtype == np.float64
    # float64 parameters still give float32 unless dtype says otherwise, as MXNet
    assert nd.sample_gamma(lo.astype('float64'), hi.astype('float64')).dtype == np.float32
    # integer parameters are accepted (Poisson rates)
    p = nd.sample_poisson(nd.array([1, 50], dtype='int32'), shape=(10,))
    assert p.shape == (2, 10) and p.dtype == np.float32
    assert nd.sample_exponential(nd.ones((2,), ctx=mx.cpu(4))).context == mx.cpu(4)


@pytest.mark.parametrize('dist,inputs,mean,var', [
    ('normal', ([0., 100.], [1., 3.]), [0., 100.], [1., 9.]),
    ('gamma', ([2., 9.], [1., 0.5]), [2., 4.5], [2., 2.25]),
    ('exponential', ([1., 10.],), [1., 0.1], [1., 0.01]),
    ('poisson', ([2., 30.],), [2., 30.], [2., 30.]),
    ('negative_binomial', ([2., 5.], [0.5, 0.8]), [2., 1.25], [4., 1.5625]),
    ('generalized_negative_binomial', ([3., 4.], [0., 0.25]), [3., 4.], [3., 8.]),
    ('uniform', ([-1., 5.], [1., 6.]), [0., 5.5], [1 / 3, 1 / 12]),
])
def test_sample_moments_per_parameter(dist, inputs, mean, var):
    mx.random.seed(11)
    out = getattr(nd, 'sample_' + dist)(*[nd.array(x, dtype='float64') for x in inputs], shape=(N // 2,),
                                        dtype='float64')
    assert out.shape == (2, N // 2)
    v = out.asnumpy()
    for i in range(2):
        _check_moments(v[i], mean[i], var[i])


def test_sample_passes_no_gradient_to_parameters():
    x = nd.array([1., 2.])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.sample_normal(x, nd.ones(2), shape=(3,))
        z = (y * 2).sum() + (x * x).sum()
    z.backward()
    assert x.grad.asnumpy().tolist() == [2., 4.]  # only the x * x term, as MXNet's zero gradient


# ---- multinomial -----------------------------------------------------------------------------------------------------
def test_multinomial_shapes_dtypes_and_frequencies():
    p = nd.array([[0., 0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1, 0.]])
    assert nd.sample_multinomial(p).shape == (2,) and nd.sample_multinomial(p).dtype == np.int32
    assert nd.sample_multinomial(p, shape=(2, 3)).shape == (2, 2, 3)
    assert nd.sample_multinomial(nd.array([0.5, 0.5])).shape == (1,)
    assert nd.sample_multinomial(nd.array([0.5, 0.5]), shape=(3,)).shape == (3,)
    for dt in ('uint8', 'float16', 'float64'):
        assert nd.sample_multinomial(p, dtype=dt).dtype == np.dtype(dt)
    mx.random.seed(3)
    s = nd.sample_multinomial(p, shape=(N // 4,)).asnumpy()
    for row, probs in zip(s, p.asnumpy()):
        freq = np.bincount(row, minlength=5) / row.size
        assert np.abs(freq - probs).max() < 0.01
    assert (s[0] != 0).all() and (s[1] != 4).all()  # zero-probability categories never drawn


def test_multinomial_get_prob_and_gradient():
    p = nd.array([[0.2, 0.8], [0.6, 0.4]], dtype='float64')
    p.attach_grad()
    with mx.autograd.record():
        idx, logp = nd.sample_multinomial(p, shape=(6,), get_prob=True)
    assert idx.dtype == np.int32 and logp.dtype == np.float64 and logp.shape == (2, 6)
    i = idx.asnumpy()
    np.testing.assert_allclose(logp.asnumpy(), np.log(np.take_along_axis(p.asnumpy(), i, 1)))
    logp.backward()
    counts = np.stack([np.bincount(r, minlength=2) for r in i])
    np.testing.assert_allclose(p.grad.asnumpy(), counts / p.asnumpy())  # d log p[idx] / dp, summed


def test_multinomial_unnormalized_rows_follow_the_cdf():
    mx.random.seed(0)
    s = nd.sample_multinomial(nd.array([[0.1, 0.1]]), shape=(2000,)).asnumpy()
    # MXNet searches the cumulative sums without normalizing: a draw past the total gives index k
    assert set(np.unique(s)) == {0, 1, 2}
    assert 0.7 < (s == 2).mean() < 0.9


# ---- shuffle ---------------------------------------------------------------------------------------------------------
def test_shuffle_permutes_first_axis_only():
    mx.random.seed(1)
    x = nd.arange(40).reshape((10, 4))
    y = nd.shuffle(x)
    assert y.shape == (10, 4) and y.dtype == x.dtype
    rows = y.asnumpy()
    assert sorted(map(tuple, rows)) == sorted(map(tuple, x.asnumpy()))
    assert (rows[:, 1:] - rows[:, :1] == [1, 2, 3]).all()
    assert not (rows == x.asnumpy()).all()
    assert nd.shuffle(nd.arange(1)).asnumpy().tolist() == [0.]
    x.attach_grad()
    with mx.autograd.record():
        y = nd.shuffle(x)
    with pytest.raises(MXNetError):  # not differentiable, as in MXNet
        y.backward()


# ---- seeding ---------------------------------------------------------------------------------------------------------
def test_seed_reproduces_every_op():
    calls = [lambda: nd.random_uniform(shape=(5,)), lambda: nd.random_normal(shape=(5,)),
             lambda: nd.random_gamma(alpha=0.5, shape=(5,)), lambda: nd.random_poisson(lam=3, shape=(5,)),
             lambda: nd.random_randint(low=0, high=100, shape=(5,)),
             lambda: nd.sample_negative_binomial(nd.array([3.]), nd.array([0.3]), shape=(5,)),
             lambda: nd.sample_multinomial(nd.array([0.3, 0.7]), shape=(5,)),
             lambda: nd.shuffle(nd.arange(10))]
    mx.random.seed(42)
    a = [c().asnumpy() for c in calls]
    mx.random.seed(42)
    b = [c().asnumpy() for c in calls]
    mx.random.seed(43)
    c = [f().asnumpy() for f in calls[:2]]
    for x, y in zip(a, b):
        assert (x == y).all()
    assert not (a[0] == c[0]).all() and not (a[1] == c[1]).all()


# ---- inference for symbols -------------------------------------------------------------------------------------------
@pytest.mark.parametrize('name,shapes,dtypes,attrs,want', [
    ('_random_uniform', [], [], {'shape': (2, 3), 'dtype': 'float16'}, ([(2, 3)], [torch.float16])),
    ('_random_randint', [], [], {'low': 0, 'high': 5, 'shape': 4}, ([(4,)], [torch.int32])),
    ('_sample_gamma', [(3,), (3,)], [torch.float64] * 2, {'shape': (2,)}, ([(3, 2)], [torch.float32])),
    ('_random_normal_like', [(4, 5)], [torch.float64], {}, ([(4, 5)], [torch.float64])),
    ('_sample_multinomial', [(2, 3)], [torch.float32], {'shape': (4,), 'get_prob': True},
     ([(2, 4), (2, 4)], [torch.int32, torch.float32])),
    ('_shuffle', [(5, 2)], [torch.int64], {}, ([(5, 2)], [torch.int64])),
])
def test_shape_and_dtype_inference(name, shapes, dtypes, attrs, want):
    op = registry.get(name)
    out = op.infer(shapes, dtypes, op.parse_attrs(attrs))
    assert (list(map(tuple, out[0])), list(out[1])) == want


# ---- errors ----------------------------------------------------------------------------------------------------------
ERRORS = [
    (lambda: nd.random_uniform(), MXNetValueError, 'inferring shapes failed'),
    (lambda: nd.random_uniform(shape=(2, 0)), MXNetValueError, 'inferring shapes failed'),
    (lambda: nd.random_uniform(low=2, high=1, shape=2), MXNetValueError, 'low must be less or equal to high'),
    (lambda: nd.random_normal(scale=0, shape=2), MXNetValueError, 'scale parameter in gaussian'),
    (lambda: nd.random_gamma(alpha=0, shape=2), MXNetValueError, 'alpha parameter in gamma'),
    (lambda: nd.random_gamma(beta=-1, shape=2), MXNetValueError, 'beta parameter in gamma'),
    (lambda: nd.random_exponential(lam=0, shape=2), MXNetValueError, 'lambda parameter in exponential'),
    (lambda: nd.random_poisson(lam=-1, shape=2), MXNetValueError, 'lambda parameter in poisson'),
    (lambda: nd.random_negative_binomial(k=-1, p=0.5, shape=2), MXNetValueError, 'k parameter'),
    (lambda: nd.random_negative_binomial(k=1.5, p=0.5, shape=2), MXNetValueError, "argument 'k'"),
    (lambda: nd.random_generalized_negative_binomial(mu=-1, shape=2), MXNetValueError, 'mu parameter'),
    (lambda: nd.random_generalized_negative_binomial(alpha=-1, shape=2), MXNetValueError, 'alpha parameter'),
    (lambda: nd.random_normal(shape=2, dtype='int32'), MXNetValueError, 'Invalid Input'),
    (lambda: nd.random_randint(low=0, high=5, shape=2, dtype='float32'), MXNetValueError, 'Invalid Input'),
    (lambda: nd.random_randint(shape=2), MXNetValueError, 'required arguments'),
    (lambda: nd.random_randint(low=5, high=3, shape=2), MXNetValueError, 'low must be less or equal'),
    (lambda: nd.random_randint(low=3, high=3, shape=2), MXNetValueError, 'high must be greater'),
    (lambda: nd.random_uniform(shape=2, foo=1), MXNetValueError, 'unknown argument'),
    (lambda: nd.sample_uniform(nd.ones(2), nd.ones(3)), MXNetValueError, 'inferring shapes failed'),
    (lambda: nd.sample_uniform(nd.ones(2), nd.ones(2, dtype='float64')), MXNetTypeError, 'Incompatible attr'),
    (lambda: nd.sample_normal(nd.ones(2), nd.ones(2), shape=(0,)), MXNetValueError, 'non-zero'),
    (lambda: nd.sample_normal(nd.ones(2), nd.ones(2), dtype='int32'), MXNetValueError, 'Invalid Input'),
    (lambda: nd.sample_multinomial(nd.ones(2, dtype='int32')), MXNetTypeError, 'floating point'),
    (lambda: nd.sample_multinomial(nd.ones(2), dtype='int64'), MXNetValueError, 'Invalid Input'),
    (lambda: nd.random.normal_like(nd.zeros((2,), dtype='int32')), MXNetTypeError, 'floating point'),
]


@pytest.mark.parametrize('call,exc,msg', ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_name_the_operator(call, exc, msg):
    # (parameter checks surface at the next read or waitall, as MXNet's engine reports them: tests/test_engine_errors)
    with pytest.raises(exc) as info:
        call()
        mx.nd.waitall()
    assert msg in str(info.value) and 'Operator _' in str(info.value)


def test_sample_unique_zipfian():
    mx.random.seed(3)
    classes, tries = mx.nd._internal._sample_unique_zipfian(793472, shape=(4, 8192))
    assert classes.shape == (4, 8192) and tries.shape == (4,)
    assert classes.dtype == np.int64 and tries.dtype == np.int64
    c = classes.asnumpy()
    for row, n in zip(c, tries.asnumpy()):
        assert np.unique(row).size == 8192 and row.min() >= 0 and row.max() < 793472
        assert 14500 < n < 17000  # the draws it took (MXNet's own test bounds)
    small, tries = mx.nd._internal._sample_unique_zipfian(5, shape=(3, 5))  # every class, in the order drawn
    assert (np.sort(small.asnumpy(), 1) == np.arange(5)).all() and (tries.asnumpy() >= 5).all()
    mx.random.seed(7)
    a = mx.nd._internal._sample_unique_zipfian(100, shape=(2, 10))[0].asnumpy()
    mx.random.seed(7)
    assert (mx.nd._internal._sample_unique_zipfian(100, shape=(2, 10))[0].asnumpy() == a).all()
    s = mx.sym._internal._sample_unique_zipfian(range_max=50, shape=(2, 8))
    assert s.infer_shape() == ([], [(2, 8), (2,)], []) and s.infer_type()[1] == [np.int64, np.int64]
    with pytest.raises(MXNetError, match='cannot exceed'):  # (raised when the result is read, as in MXNet)
        mx.nd._internal._sample_unique_zipfian(5, shape=(1, 6))[0].asnumpy()
    with pytest.raises(MXNetError, match='2-D'):
        mx.nd._internal._sample_unique_zipfian(5, shape=(6,))


def test_symbolic_rand_zipfian_matches_the_ndarray_one():
    true = mx.nd.array([1, 3, 7], dtype='int32')
    mx.random.seed(11)
    want = mx.nd.contrib.rand_zipfian(true, 50, 20)
    outs = mx.sym.contrib.rand_zipfian(mx.sym.var('t'), 50, 20)
    ex = mx.sym.Group(list(outs)).bind(mx.cpu(), {'t': true})
    mx.random.seed(11)
    got = ex.forward()
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy())
    p = np.log((np.arange(20) + 2.0) / (np.arange(20) + 1.0)) / np.log(21)  # P(class) of the log-uniform law
    np.testing.assert_allclose(got[1].asnumpy(), 50 * p[[1, 3, 7]])
    np.testing.assert_allclose(got[2].asnumpy(), 50 * p[got[0].asnumpy()])
