"""mx.init: deterministic behaviour against goldens from MXNet 1.9.1 (fixtures/initializer), random
initializers by bounds and statistics (their numbers come from torch's generator)."""
import json
import logging
import os
import sys
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import initializer as init_mod
from mxcompat.base import MXNetError

HERE = os.path.join(os.path.dirname(__file__), 'fixtures', 'initializer')
sys.path.insert(0, HERE)
from det_init import make_det, run, verbose_calls  # noqa: E402

GOLD = json.load(open(os.path.join(HERE, 'initializer.json')))


Det = make_det(mx)


def assert_same_outcome(got, want, check_message=True):
    if 'error' in want:
        assert 'error' in got, 'expected %s, got %r' % (want['error'], got)
        err = got['error']
        py = {'ValueError': ValueError, 'TypeError': TypeError, 'AssertionError': AssertionError,
              'NotImplementedError': NotImplementedError, 'MXNetError': MXNetError}[want['error']]
        assert isinstance(err, py), (err, want)
        assert isinstance(err, MXNetError) or want['error'] in ('NotImplementedError',), type(err)
        if check_message:
            assert str(err).startswith(want['message'].split('.')[0]), (str(err), want['message'])
    else:
        assert 'ok' in got, got
        assert got['ok'] == want['ok']


def test_namespaces():
    assert mx.init is mx.initializer
    assert mx.init.Xavier is init_mod.Xavier
    assert isinstance(mx.init.InitDesc('a'), str)


INITS = {
    'Zero()': lambda: mx.init.Zero(), 'One()': lambda: mx.init.One(), 'Constant(0.5)': lambda: mx.init.Constant(0.5),
    'Constant(nd)': lambda: mx.init.Constant(mx.nd.array([[1, 2], [3, 4]])),
    'Uniform()': lambda: mx.init.Uniform(), 'Uniform(0.1)': lambda: mx.init.Uniform(0.1),
    'Normal(0.5)': lambda: mx.init.Normal(0.5), 'Orthogonal()': lambda: mx.init.Orthogonal(),
    'Orthogonal(2.0, "normal")': lambda: mx.init.Orthogonal(2.0, 'normal'), 'Xavier()': lambda: mx.init.Xavier(),
    'Xavier("gaussian", "in", 2.34)': lambda: mx.init.Xavier('gaussian', 'in', 2.34),
    'MSRAPrelu()': lambda: mx.init.MSRAPrelu(), 'MSRAPrelu("out", 0.1)': lambda: mx.init.MSRAPrelu('out', 0.1),
    'Bilinear()': lambda: mx.init.Bilinear(), 'LSTMBias()': lambda: mx.init.LSTMBias(),
    'LSTMBias(0.5)': lambda: mx.init.LSTMBias(0.5),
    'FusedRNN(None, 3, 2, "lstm", True)': lambda: mx.init.FusedRNN(None, 3, 2, 'lstm', True),
    'FusedRNN(Xavier(), 4, 1, "gru")': lambda: mx.init.FusedRNN(mx.init.Xavier(), 4, 1, 'gru'),
}


@pytest.mark.parametrize('key', sorted(GOLD['dumps']))
def test_dumps(key):
    assert INITS[key]().dumps() == GOLD['dumps'][key]


@pytest.mark.parametrize('spec', sorted(GOLD['create']))
def test_create(spec):
    def make():
        i = mx.init.create(spec, 1.5) if spec == 'constant' else mx.init.create(spec)
        return [type(i).__name__, i.dumps()]
    assert_same_outcome(run(make), GOLD['create'][spec])


def test_create_other_forms():
    assert mx.init.create({'initializer': 'normal', 'sigma': 2.0}).dumps() == GOLD['create_dict']['ok']
    one = mx.init.One()
    assert mx.init.create(one) is one
    assert_same_outcome(run(lambda: mx.init.create(mx.init.One(), 1)), GOLD['create_instance_extra'])
    for dumped in GOLD['dumps'].values():  # every dump recreates an equal initializer
        assert mx.init.create(dumped).dumps() == dumped


def test_eq_and_hash():
    got = [mx.init.Normal(0.5) == mx.init.Normal(0.5), mx.init.Normal(0.5) == mx.init.Normal(0.4),
           mx.init.Zero() == mx.init.One()]
    assert got == GOLD['eq']
    with pytest.raises(TypeError):
        hash(mx.init.One())  # MXNet defines __eq__ only


def test_register_and_alias():
    @mx.init.register
    @mx.init.alias('my_init_alias')
    class MyInitForTest(mx.init.Initializer):
        def __init__(self, v=2.0):
            super().__init__(v=v)
            self.v = v

        def _init_weight(self, _, arr):
            arr[:] = self.v

    a = mx.nd.zeros((2,))
    mx.init.create('myinitfortest', v=5.0)(mx.init.InitDesc('w_weight'), a)
    assert a.asnumpy().tolist() == [5.0, 5.0]
    assert type(mx.init.create('MY_INIT_ALIAS')) is MyInitForTest
    with pytest.warns(UserWarning, match='overriding'):
        mx.init.register(MyInitForTest)
    with pytest.raises(AssertionError, match='subclass of Initializer'):
        mx.init.register(int)


def _dispatch(path, name, attrs=None):
    def f():
        shape = (1, 1, 2, 4) if name.startswith('upsampling') else (6,)
        arr = mx.nd.full(shape, 9.0)
        desc = mx.init.InitDesc(name, attrs) if path == 'desc' else name
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            Det()(desc, arr)
        return arr.asnumpy().ravel().tolist()
    return run(f)


@pytest.mark.parametrize('name', sorted(GOLD['dispatch_desc']))
def test_dispatch_initdesc(name):
    assert_same_outcome(_dispatch('desc', name), GOLD['dispatch_desc'][name], check_message=False)
    if 'error' in GOLD['dispatch_desc'][name]:
        assert str(_dispatch('desc', name)['error']).startswith('Unknown initialization pattern for %s.' % name)


@pytest.mark.parametrize('name', sorted(GOLD['dispatch_legacy']))
def test_dispatch_legacy(name):
    assert_same_outcome(_dispatch('legacy', name), GOLD['dispatch_legacy'][name], check_message=False)


def test_legacy_warns_and_checks_types():
    with pytest.warns(DeprecationWarning, match='InitDesc'):
        Det()('fc_bias', mx.nd.zeros((2,)))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert_same_outcome(run(lambda: Det()(3, mx.nd.zeros((2,)))), GOLD['legacy_bad_name'])
        assert_same_outcome(run(lambda: Det()('fc_weight', np.zeros((2,)))), GOLD['legacy_bad_arr'])


@pytest.mark.parametrize('key', sorted(GOLD['dispatch_attr']))
def test_dispatch_init_attr(key):
    spec, name = key.split('/')
    init = {'json_constant': '["constant", {"value": 3.0}]', 'ones': 'ones'}.get(spec) or mx.init.Constant(-2.0)
    assert_same_outcome(_dispatch('desc', name, {'__init__': init}), GOLD['dispatch_attr'][key])


def test_global_init_filled_in():
    d = mx.init.InitDesc('fc_weight')
    g = Det()
    g(d, mx.nd.zeros((2, 2)))
    assert (d.global_init is g) == GOLD['global_init_set']


@pytest.mark.parametrize('shape', sorted(GOLD['bilinear']))
def test_bilinear(shape):
    shp = tuple(json.loads(shape.replace('(', '[').replace(')', ']')))
    a = mx.nd.zeros(shp)
    mx.init.Bilinear()(mx.init.InitDesc('up_weight'), a)
    assert a.asnumpy().ravel().tolist() == GOLD['bilinear'][shape]
    with pytest.raises(MXNetError, match='4-D'):
        mx.init.Bilinear()(mx.init.InitDesc('up_weight'), mx.nd.zeros((2, 3)))


@pytest.mark.parametrize('key', sorted(GOLD['lstmbias']))
def test_lstmbias(key):
    fb, n = key.split('/')
    a = mx.nd.full((int(n),), 7.0)
    mx.init.LSTMBias(float(fb))(mx.init.InitDesc('lstm_i2h_weight'), a)
    assert a.asnumpy().tolist() == GOLD['lstmbias'][key]


def test_constant_values():
    a = mx.nd.zeros((2, 2))
    mx.init.Constant(mx.nd.array([[1, 2], [3, 4]]))(mx.init.InitDesc('c_weight'), a)
    assert a.asnumpy().ravel().tolist() == GOLD['constant_nd']
    b = mx.nd.zeros((2, 3), dtype='float64')
    mx.init.Constant(0.1)(mx.init.InitDesc('c_weight'), b)
    assert b.dtype == np.float64 and b.asnumpy().ravel().tolist() == GOLD['constant_f64']
    c = mx.nd.zeros((2,))
    mx.init.Constant(np.array([5, 6]))(mx.init.InitDesc('c_weight'), c)
    assert c.asnumpy().tolist() == [5.0, 6.0]


@pytest.mark.parametrize('key', sorted(GOLD['fused']))
def test_fused_rnn_layout(key):
    mode, ni, h, layers, bi, fb, explicit = [p.split('=')[-1] for p in key.split('/')]
    ni, h, layers, bi, fb, explicit = int(ni), int(h), int(layers), bi == 'True', float(fb), explicit == 'True'
    b = 2 if bi else 1
    m = {'lstm': 4, 'gru': 3}.get(mode, 1)
    total = (ni + h + 2) * h * m * b + (layers - 1) * m * h * (h + b * h + 2) * b
    arr = mx.nd.zeros((total,))
    fused = mx.init.FusedRNN(Det() if explicit else None, h, layers, mode, bi, fb)
    Det()(mx.init.InitDesc('rnn_parameters', {'__init__': fused if explicit else fused.dumps()}), arr)
    assert arr.asnumpy().tolist() == GOLD['fused'][key]


def test_fused_rnn_errors():
    bad = mx.init.FusedRNN(None, 2, 1, 'lstm').dumps()
    with pytest.raises(MXNetError, match='Invalid parameters size'):
        Det()(mx.init.InitDesc('rnn_parameters', {'__init__': bad}), mx.nd.zeros((7,)))
    assert 'error' in GOLD['fused_bad_size']
    with pytest.raises(MXNetError, match='mode'):
        Det()(mx.init.InitDesc('p', {'__init__': mx.init.FusedRNN(None, 2, 1, 'bogus')}), mx.nd.zeros((48,)))
    # a dumped inner initializer string is accepted (and round-trips)
    f = mx.init.FusedRNN('["constant", {"value": 0.5}]', 2, 1, 'rnn_tanh')
    arr = mx.nd.zeros(((3 + 2 + 2) * 2,))
    Det()(mx.init.InitDesc('p', {'__init__': f}), arr)
    assert arr.asnumpy()[:10].tolist() == [0.5] * 10 and arr.asnumpy()[10:].tolist() == [0.0] * 4


def test_verbose_logging(caplog):
    with caplog.at_level(logging.INFO):
        verbose_calls(mx)
    assert [r.getMessage() for r in caplog.records] == GOLD['verbose']
    init = mx.init.One()
    assert init.set_verbosity(True) is init


@pytest.mark.parametrize('key, fn', [
    ('xavier_vector', lambda: mx.init.Xavier()(mx.init.InitDesc('v_weight'), mx.nd.zeros((3,)))),
    ('xavier_bad_factor', lambda: mx.init.Xavier(factor_type='x')(mx.init.InitDesc('w_weight'), mx.nd.zeros((3, 3)))),
    ('xavier_bad_rnd', lambda: mx.init.Xavier(rnd_type='x')(mx.init.InitDesc('w_weight'), mx.nd.zeros((3, 3)))),
    ('base_weight', lambda: mx.init.Initializer()(mx.init.InitDesc('w_weight'), mx.nd.zeros((3, 3)))),
    ('mixed_nomatch', lambda: mx.init.Mixed(['a.*'], [mx.init.One()])('b_weight', mx.nd.zeros((2,)))),
])
def test_errors(key, fn):
    # MXNet's own messages for Mixed / the abstract base are not kept word for word
    assert_same_outcome(run(fn), GOLD[key], check_message=key not in ('mixed_nomatch', 'base_weight'))


def test_mixed():
    a = mx.nd.zeros((2, 3))
    mx.init.Mixed(['.*bias', '.*'], [mx.init.Constant(2.0), mx.init.One()])('fc_bias', a)
    assert a.asnumpy().ravel().tolist() == GOLD['mixed_values']
    b = mx.nd.zeros((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        mx.init.Mixed(['.*bias', '.*'], [mx.init.Constant(2.0), mx.init.One()])('fc_weight', b)
    assert (b.asnumpy() == 1).all()
    with pytest.raises(AssertionError):
        mx.init.Mixed(['a', 'b'], [mx.init.One()])


def test_load(tmp_path, caplog):
    params = {'arg:fc_weight': mx.nd.array([[1, 2], [3, 4]]), 'aux:bn_moving_mean': mx.nd.array([5, 6]),
              'plain': mx.nd.array([7])}
    fname = str(tmp_path / 'p.params')
    mx.nd.save(fname, params)
    for src in (params, fname):
        ld = mx.init.Load(src, default_init=mx.init.Constant(9.0), verbose=True)
        assert sorted(ld.param) == ['bn_moving_mean', 'fc_weight', 'plain']
        a = mx.nd.zeros((2, 2))
        with caplog.at_level(logging.INFO):
            ld(mx.init.InitDesc('fc_weight'), a)
            b = mx.nd.zeros((3,))
            ld(mx.init.InitDesc('other_weight'), b)
        assert a.asnumpy().tolist() == [[1, 2], [3, 4]] and b.asnumpy().tolist() == [9, 9, 9]
        assert 'Initialized fc_weight by loading' in caplog.text
        assert 'Initialized other_weight by default' in caplog.text
        with pytest.raises(AssertionError, match='Shape mismatch'):
            ld('fc_weight', mx.nd.zeros((3,)))
    with pytest.raises(AssertionError, match='no default Initializer'):
        mx.init.Load(params)('missing', mx.nd.zeros((1,)))
    with pytest.raises(AssertionError):
        mx.init.Load([1, 2])


# ---- random initializers: bounds, statistics, reproducibility

def _fill(init, name, shape, dtype='float32'):
    a = mx.nd.zeros(shape, dtype=dtype)
    init(mx.init.InitDesc(name), a)
    return a.asnumpy()


def test_uniform_and_normal_statistics():
    x = _fill(mx.init.Uniform(0.1), 'w_weight', (200, 250))
    assert x.dtype == np.float32 and np.abs(x).max() <= np.float32(0.1)
    assert abs(x.mean()) < 2e-3 and abs(x.std() - 0.1 / np.sqrt(3)) < 2e-3 and np.abs(x).max() > 0.099
    y = _fill(mx.init.Normal(0.5), 'w_weight', (200, 250))
    assert abs(y.mean()) < 1e-2 and abs(y.std() - 0.5) < 1e-2
    d = _fill(mx.init.Normal(), 'w_weight', (100, 100), dtype='float64')
    assert abs(d.std() - 0.01) < 5e-4
    b = _fill(mx.init.Uniform(), 'w_bias', (10,))  # biases stay 0 for random initializers
    assert (b == 0).all()
    h = _fill(mx.init.Normal(1.0), 'w_weight', (100, 100), dtype='float16')
    assert h.dtype == np.float16 and abs(h.astype(np.float64).std() - 1) < 0.05
    with pytest.raises(MXNetError, match='Uniform: random initialization needs a float'):  # MXNet: a dtype check
        _fill(mx.init.Uniform(), 'w_weight', (2, 2), dtype='int32')


def test_seed_reproducible():
    mx.random.seed(7)
    a = _fill(mx.init.Xavier(), 'w_weight', (5, 6))
    mx.random.seed(7)
    b = _fill(mx.init.Xavier(), 'w_weight', (5, 6))
    assert (a == b).all()


XAVIER_CASES = [((64, 32), 'avg', 3), ((64, 32), 'in', 3), ((64, 32), 'out', 2.0),
                ((16, 8, 3, 3), 'avg', 3), ((16, 8, 3, 5), 'in', 2), ((20, 4, 3, 3, 3), 'out', 1.5)]


@pytest.mark.parametrize('shape, factor_type, magnitude', XAVIER_CASES)
def test_xavier_scale_formula(shape, factor_type, magnitude, monkeypatch):
    # MXNet: fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:])
    rf = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    fan_in, fan_out = shape[1] * rf, shape[0] * rf
    factor = {'avg': (fan_in + fan_out) / 2.0, 'in': fan_in, 'out': fan_out}[factor_type]
    want = np.sqrt(magnitude / factor)
    calls = []
    monkeypatch.setattr(init_mod, '_draw', lambda arr, kind, a, b, who: calls.append((kind, a, b)))
    for rnd in ('uniform', 'gaussian'):
        mx.init.Xavier(rnd, factor_type, magnitude)(mx.init.InitDesc('w_weight'), mx.nd.zeros(shape))
    assert calls == [('uniform', -want, want), ('normal', 0, want)]
    assert init_mod.xavier_scale(shape, factor_type, float(magnitude)) == want


@pytest.mark.parametrize('shape, factor_type, magnitude', XAVIER_CASES[::2])
def test_xavier_draws(shape, factor_type, magnitude):
    s = init_mod.xavier_scale(shape, factor_type, float(magnitude))
    x = _fill(mx.init.Xavier('uniform', factor_type, magnitude), 'w_weight', shape)
    assert np.abs(x).max() <= np.float32(s) and np.abs(x).max() > 0.9 * s
    g = _fill(mx.init.Xavier('gaussian', factor_type, magnitude), 'w_weight', shape)
    assert abs(g.std() / s - 1) < 0.1


def test_msraprelu(monkeypatch):
    calls = []
    monkeypatch.setattr(init_mod, '_draw', lambda arr, kind, a, b, who: calls.append((kind, a, b)))
    mx.init.MSRAPrelu('in', 0.1)(mx.init.InitDesc('c_weight'), mx.nd.zeros((8, 4, 3, 3)))
    assert calls == [('normal', 0, np.sqrt((2. / (1 + 0.1 ** 2)) / (4 * 9)))]


@pytest.mark.parametrize('shape, rand_type', [((4, 6), 'uniform'), ((6, 4), 'normal'), ((3, 2, 2, 2), 'uniform'),
                                              ((5, 5), 'normal')])
def test_orthogonal(shape, rand_type):
    w = _fill(mx.init.Orthogonal(2.0, rand_type), 'w_weight', shape).reshape(shape[0], -1) / 2.0
    rows, cols = w.shape
    gram = w @ w.T if rows <= cols else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)
    with pytest.raises(MXNetError, match='rand_type'):
        mx.init.Orthogonal(rand_type='bad')(mx.init.InitDesc('w_weight'), mx.nd.zeros((2, 2)))


def test_quantized_weight():
    a = mx.nd.zeros((5,), dtype='int8')
    Det()(mx.init.InitDesc('conv_weight_quantize'), a)
    v = a.asnumpy()
    assert (v == v[0]).all() and -127 <= v[0] < 127


def test_init_leaf_with_grad():
    a = mx.nd.zeros((3, 4))
    a.attach_grad()
    mx.init.Xavier()(mx.init.InitDesc('w_weight'), a)
    mx.init.One()(mx.init.InitDesc('w_bias'), a)
    assert (a.asnumpy() == 0).all()  # a bias is zeroed
    mx.init.Uniform()(mx.init.InitDesc('w_weight'), a)
    with mx.autograd.record():
        y = (a * 2).sum()
    y.backward()
    assert (a.grad.asnumpy() == 2).all()


def test_prelu_gamma_starts_at_a_quarter():
    # MXNet's LeakyReLU gives its implicit gamma variable __init__ = Constant(0.25)
    sym = mx.sym.LeakyReLU(data=mx.sym.var('data'), act_type='prelu', name='lrelu')
    assert sym.attr_dict()['lrelu_gamma']['__init__'] == '["Constant", {"value": 0.25}]'
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[('data', (10, 10))])
    mod.init_params()
    assert (list(mod.get_params()[0].values())[0].asnumpy() == 0.25).all()


@pytest.mark.parametrize('init', [mx.init.Xavier(), mx.init.Normal(0.5), mx.init.Uniform(0.3), mx.init.One()])
def test_fresh_array_takes_the_same_values(init):
    # _initialize_fresh lets a random initializer hand a new array its samples' tensor instead of copying them;
    # the values are those written in place into an ordinary array, and an ordinary array keeps its tensor
    desc = mx.init.InitDesc('fc_weight')
    mx.random.seed(11)
    kept = mx.nd.zeros((6, 5))
    t = kept._t
    init(desc, kept)
    assert kept._t is t
    mx.random.seed(11)
    fresh = init_mod._initialize_fresh(init, desc, mx.nd.zeros((6, 5)))
    assert np.array_equal(fresh.asnumpy(), kept.asnumpy())
    fresh[:] = 7  # an ordinary, writable array
    assert (fresh.asnumpy() == 7).all()
    assert init_mod._FRESH.arr is None
