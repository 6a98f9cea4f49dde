"""Elementwise operators (mxcompat/operator/elemwise.py): MXNet's ``%`` (x % 0 is 0 for every dtype, Python's sign
rule otherwise) in its NDArray, registry and symbol forms, with values and gradients recorded from MXNet 1.9.1
(tests/fixtures/ops_conformance/gen_ops_conformance.py), and a bound-symbol gradient through integer outputs."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx

with open(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'ops_conformance', 'goldens.json')) as _f:
    GOLD = json.load(_f)['mod']
A = [5, -5, 5, -5, 0, 7, -7]
B = [0, 0, 3, 3, 2, -2, -2]


@pytest.mark.parametrize('dt', ['int32', 'int64', 'float32', 'float64'])
def test_mod_matches_mxnet(dt):
    a, b = mx.nd.array(A, dtype=dt), mx.nd.array(B, dtype=dt)
    g = GOLD[dt]
    cases = {'elemwise': a % b, 'broadcast': mx.nd.broadcast_mod(a.reshape((7, 1)), b.reshape((1, 7))),
             'scalar0': a % 0, 'scalar3': a % 3, 'rscalar': 7 % b}
    for key, got in cases.items():
        assert got.dtype == np.dtype(dt), key
        np.testing.assert_array_equal(got.asnumpy(), np.array(g[key], dtype=dt), err_msg=key)
    # the registry forms used by symbols and F in hybridized blocks
    np.testing.assert_array_equal(mx.nd._internal._mod(a, b).asnumpy(), np.array(g['elemwise'], dtype=dt))
    np.testing.assert_array_equal(mx.nd._internal._rmod_scalar(b, scalar=7).asnumpy(), np.array(g['rscalar'], dt))
    np.testing.assert_array_equal(mx.nd.modulo(a, b).asnumpy(), np.array(g['elemwise'], dtype=dt))
    c = a.copy()
    c %= b
    np.testing.assert_array_equal(c.asnumpy(), np.array(g['elemwise'], dtype=dt))


def test_mod_gradient_matches_mxnet():
    g = GOLD['grad']
    a, b = mx.nd.array(g['a']), mx.nd.array(g['b'])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = a % b
    y.backward(mx.nd.array(g['head']))
    np.testing.assert_array_equal(y.asnumpy(), np.array(g['out'], np.float32))
    np.testing.assert_array_equal(a.grad.asnumpy(), np.array(g['da'], np.float32))  # 1 even where b == 0
    finite = [i for i, v in enumerate(g['db']) if v is not None]
    np.testing.assert_array_equal(b.grad.asnumpy()[finite], np.array([g['db'][i] for i in finite], np.float32))
    assert not np.isfinite(b.grad.asnumpy()[[i for i, v in enumerate(g['db']) if v is None]]).any()


def test_mod_gradient_broadcasts_against_finite_differences():
    rng = np.random.RandomState(0)
    an = rng.uniform(1, 5, (3, 4))
    bn = rng.uniform(0.7, 2, (1, 4))
    a, b = mx.nd.array(an, dtype='float64'), mx.nd.array(bn, dtype='float64')
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.broadcast_mod(a, b)
    y.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), np.ones_like(an))
    np.testing.assert_allclose(b.grad.asnumpy(), (-np.floor(an / bn)).sum(0, keepdims=True))
    eps = 1e-6
    fd = (np.mod(an, bn + eps) - np.mod(an, bn - eps)).sum(0, keepdims=True) / (2 * eps)
    np.testing.assert_allclose(b.grad.asnumpy(), fd, rtol=1e-5)


def test_symbol_mod_of_integer_casts_has_zero_gradients():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    c = mx.sym.cast(a, dtype='int32') % mx.sym.cast(b, dtype='int32')
    ga, gb = mx.nd.ones((2, 3)) * 7, mx.nd.ones((2, 3)) * 7
    exe = c.bind(mx.cpu(), args={'a': mx.nd.array([[5, 6, 7], [1, 2, 3]]), 'b': mx.nd.array([[2, 0, 3], [1, 1, 1]])},
                 args_grad=[ga, gb])
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3), dtype='int32')])
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [[1, 0, 1], [0, 0, 0]])
    assert not ga.asnumpy().any() and not gb.asnumpy().any()


@pytest.mark.parametrize('op', ['shape_array', 'size_array'])
def test_shape_and_size_array_gradients_are_zero(op):
    x = mx.sym.var('x')
    y = getattr(mx.sym, op)(x)
    xg = mx.nd.ones((2, 3)) * 5
    exe = y.bind(mx.cpu(), args={'x': mx.nd.ones((2, 3))}, args_grad={'x': xg})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones(exe.outputs[0].shape, dtype='int64')])
    want = [2, 3] if op == 'shape_array' else [6]
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), want)
    assert exe.outputs[0].dtype == np.int64
    assert not xg.asnumpy().any()


def test_numpy_dtype_spellings():
    assert mx.nd.array([1, 2], dtype='half').dtype == np.float16
    assert mx.nd.zeros((2,), dtype='double').dtype == np.float64
    assert mx.nd.cast(mx.nd.ones(2), dtype='half').dtype == np.float16
    with pytest.raises(mx.base.MXNetTypeError, match="Unknown dtype 'foo'"):
        mx.nd.zeros((2,), dtype='foo')


def test_cbrt_and_rcbrt_values_and_gradients_as_mxnet():
    # MXNet 1.9.1 (oracle): gradients 2 / (3 cbrt(x)^2) and -2 / (3 cbrt(x) x) for a head of 2: inf, -inf at 0
    for op, grads in (('cbrt', [np.inf, 1 / 6, 1 / 6, 1.0582674]), ('rcbrt', [-np.inf, -1 / 24, -1 / 24, -1.6798947])):
        x = mx.nd.array([0, 8, -8, 0.5])
        x.attach_grad()
        with mx.autograd.record():
            y = getattr(mx.nd, op)(x)
        y.backward(mx.nd.ones((4,)) * 2)
        np.testing.assert_allclose(x.grad.asnumpy(), np.array(grads, np.float32), rtol=1e-6)  # (head 2)
    np.testing.assert_allclose(mx.nd.cbrt(mx.nd.array([0, 8, -8, 0.5])).asnumpy(), [0, 2, -2, 0.7937005], rtol=1e-6)
    ints = mx.nd.array([8, -27, 9, 1, 0, 1000, 64], dtype='int32')  # truncated, exact on perfect cubes
    assert mx.nd.cbrt(ints).asnumpy().tolist() == [2, -3, 2, 1, 0, 10, 4]
    assert mx.nd.rcbrt(ints).asnumpy().tolist()[:4] == [0, 0, 0, 1]


def test_gamma_and_gammaln_at_poles_and_negative_arguments_as_mxnet():
    # MXNet 1.9.1 (oracle), head gradient 2: gamma is negative on (-1, 0), inf at 0 and nan at negative integers;
    # the gradients use psi(x) = +inf at the poles
    x = [0, -1, -2, 0.5, -0.5, 3]
    want = {'gamma': ([np.inf, np.nan, np.nan, 1.7724538, -3.544908, 2.0],
                      [np.inf, np.nan, np.nan, -6.960464, -0.25870678, 3.6911378]),
            'gammaln': ([np.inf, np.inf, np.inf, 0.5723649, 1.2655121, 0.6931472],
                        [np.inf, np.inf, np.inf, -3.9270215, 0.07297983, 1.8455687])}
    for op, (values, grads) in want.items():
        a = mx.nd.array(x)
        a.attach_grad()
        with mx.autograd.record():
            y = getattr(mx.nd, op)(a)
        y.backward(mx.nd.ones((6,)) * 2)
        np.testing.assert_allclose(y.asnumpy(), values, rtol=1e-6)
        np.testing.assert_allclose(a.grad.asnumpy(), grads, rtol=1e-6)


@pytest.mark.parametrize('name', ['maximum', 'broadcast_maximum', '_maximum', 'minimum', 'broadcast_minimum',
                                  '_minimum'])
def test_maximum_minimum_give_a_tie_gradient_to_lhs(name):
    # MXNet 1.9.1 (oracle), head gradient 2: a tie sends all of it to lhs (maximum: lhs where lhs >= rhs, rhs where
    # lhs < rhs; minimum: lhs where lhs <= rhs), where torch splits it; nan propagates in the forward
    fn = getattr(mx.nd, name, None) or getattr(mx.nd._internal, name)
    a, b = mx.nd.array([1., 2., 3.]), mx.nd.array([1., 1., 4.])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = fn(a, b)
    y.backward(mx.nd.ones(3) * 2)
    want = ([2, 2, 0], [0, 0, 2]) if 'max' in name else ([2, 0, 2], [0, 2, 0])
    np.testing.assert_array_equal(a.grad.asnumpy(), want[0])
    np.testing.assert_array_equal(b.grad.asnumpy(), want[1])
    nan = fn(mx.nd.array([np.nan, 1, np.nan]), mx.nd.array([1, np.nan, np.nan])).asnumpy()
    assert np.isnan(nan).all()


# ---- scatter forms (MXNet's elemwise_scatter_op) ------------------------------------------------------------------
def test_scatter_ops_on_dense_arrays(ctx):
    # MXNet 1.9.1: on default storage they are elemwise_div, _plus_scalar and _minus_scalar (0/0 is nan)
    x = mx.nd.array([[1, 2], [0, 0], [0, 0], [6, 8]], ctx=ctx)
    y = mx.nd.array([[2, 4], [1, 1], [3, 0], [5, 5]], ctx=ctx)
    np.testing.assert_allclose(mx.nd._internal._scatter_elemwise_div(x, y).asnumpy(),
                               [[0.5, 0.5], [0, 0], [0, np.nan], [1.2, 1.6]], rtol=1e-6)
    np.testing.assert_array_equal(mx.nd._internal._scatter_plus_scalar(x, 9).asnumpy(),
                                  [[10, 11], [9, 9], [9, 9], [15, 17]])
    np.testing.assert_array_equal(mx.nd._internal._scatter_minus_scalar(x, scalar=1.5).asnumpy(),
                                  [[-0.5, 0.5], [-1.5, -1.5], [-1.5, -1.5], [4.5, 6.5]])
    i = mx.nd.array([[1, 2], [3, 4]], dtype='int32', ctx=ctx)
    got = mx.nd._internal._scatter_plus_scalar(i, 2.7)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.asnumpy(), [[3, 4], [5, 6]])
    with pytest.raises(mx.base.MXNetError, match='_scatter_elemwise_div'):
        mx.nd._internal._scatter_elemwise_div(x, mx.nd.ones((4, 1), ctx=ctx))


def test_scatter_ops_symbolic_gradients(ctx):
    # MXNet 1.9.1: the gradients of elemwise_div and of a copy
    x, y = mx.sym.var('x'), mx.sym.var('y')
    s = mx.sym._internal._scatter_elemwise_div(x, y) + mx.sym._internal._scatter_minus_scalar(x, 2)
    exe = s.simple_bind(ctx, x=(2, 2), y=(2, 2))
    exe.forward(is_train=True, x=mx.nd.array([[1, 2], [3, 4]]), y=mx.nd.array([[2, 2], [1, 8]]))
    exe.backward(mx.nd.array([[1, 2], [3, 4]], ctx=ctx))
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [[-0.5, 1], [4, 2.5]])
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), [[1.5, 3], [6, 4.5]])
    np.testing.assert_allclose(exe.grad_dict['y'].asnumpy(), [[-0.25, -1], [-9, -0.25]])


# MXNet's Cast gradient crosses integer dtypes (the head gradient cast back to the input's dtype), through the float
# stand-ins of mxcompat's integer autograd (_intgrad.py). MXNet's test_cast.
@pytest.mark.parametrize('src, dst', [('int32', 'float32'), ('float32', 'int32'), ('float32', 'uint8'),
                                      ('float32', 'bool'), ('int32', 'int64')])
def test_cast_gradient_across_integer_dtypes(src, dst):
    x = np.array([[-2.7, 1.5, 3.2], [9.9, -0.4, 4.0]])
    exe = mx.sym.Cast(mx.sym.var('x', dtype=src), dtype=dst).simple_bind(mx.cpu(), x=(2, 3))
    exe.arg_arrays[0][:] = x
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(x, dtype=dst))
    # MXNet 1.9.1: x.astype(dst).astype(src)
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), x.astype(dst).astype(src))


def test_scatter_ops_on_row_sparse_compute_stored_rows_only():  # (ndarray/sparse/functions.py's rules)
    lhs = mx.nd.sparse.row_sparse_array((np.array([[1, 2], [0, 0], [6, 8]], np.float32), [0, 2, 3]), shape=(4, 2))
    rhs = mx.nd.array([[2, 4], [1, 1], [3, 0], [5, 5]])
    # MXNet 1.9.1: row_sparse results with the lhs's rows [0, 2, 3]; row 1 stays an unstored 0
    for got, want in [(mx.nd._internal._scatter_plus_scalar(lhs, 9), [[10, 11], [0, 0], [9, 9], [15, 17]]),
                      (mx.nd._internal._scatter_elemwise_div(lhs, rhs), [[0.5, 0.5], [0, 0], [0, np.nan], [1.2, 1.6]])]:
        assert got.stype == 'row_sparse'
        np.testing.assert_array_equal(got.indices.asnumpy(), [0, 2, 3])
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


# ---- clip: float32 bounds parsed as MXNet parses them, compared in C++'s promoted type -----------------------------
INF, NAN = float('inf'), float('nan')
F32 = [1, 5, -2, 1e38, -3e38]
# (dtype, data, a_min, a_max, what MXNet 1.9.1 returns, or None where it raises 'Out of range value' / a format
# error); CLIP_SCRIPT prints the same table from real MXNet (the oracle test)
CLIP_CASES = [
    ('float32', F32, 0, '3.4028235e+38', [1, 5, 0, 9.999999680285692e+37, 0]),  # Keras-MXNet's string bound
    ('float32', [INF, -INF, NAN, 3.4e38, -3.4e38], '-3.4028235e+38', '3.4028235e+38',
     [INF, -INF, NAN, 3.3999999521443642e+38, -3.3999999521443642e+38]),  # those bounds parse as +-inf
    ('float32', [INF, -INF, 3.4e38], -3.4028234663852886e+38, 3.4028234663852886e+38, [INF, -INF, 3.4e38]),
    ('float32', [1], '1e38', '1e38', [1.0000000694406173e+38]),  # (a_min = a_max: the parsed value itself)
    ('float32', [1], '3e38', '3e38', [3.0000002083218518e+38]),
    ('float32', [1], '1e-20', '1e-20', [9.999999682655225e-21]),
    ('float32', [1], '1.2e-38', '1.2e-38', [1.199999978106707e-38]),
    ('float32', [1], '123456789012', '123456789012', [123456790528.0]),
    ('float32', [1], '1e11', '1e11', [99999997952.0]),
    ('float32', [1], '3402823.5e32', '3402823.5e32', [INF]),
    ('float32', [1], '-99e37', '-99e37', [-INF]),
    ('float32', [1, 5, -2], -5, 2 ** 70, [0, 0, -2]),  # MXNet's integer part wraps at 2**64
    ('float32', [1, 5, -2], '+2', '5.', [2, 5, 2]),
    ('float32', [1, 5, -2], ' 2', '2f', [2, 2, 2]),
    ('float32', F32, 3, 1, [3, 1, 3, 1, 3]),  # a_min > a_max
    ('float32', F32, 0, 'nan', [1, 5, 0, 1e38, 0]),  # a NaN bound clips nothing
    ('float32', F32, 0, 0.1, [0.10000000149011612, 0.10000000149011612, 0, 0.10000000149011612, 0]),
    ('float64', [1, 16777217, -2, 1e300], 0, 16777217, [1, 16777216, 0, 16777216]),
    ('float64', [1, 16777217, -2, 1e300], 0, '16777217.5', [1, 16777216, 0, 16777216]),
    ('float64', [1, 16777217, -2, 1e300], 0, 0.1, [0.10000000149011612, 0.10000000149011612, 0, 0.10000000149011612]),
    ('int32', [1, 5, -2, 2 ** 31 - 1, 16777217], 0, '3.4028235e+38', [1, 5, 0, 2 ** 31 - 1, 16777217]),
    ('int32', [1, 5, -2, 2 ** 31 - 1, 16777217], 0, 2.5, [1, 2, 0, 2, 2]),
    ('int32', [1, 5, -2, 2 ** 31 - 1, 16777217], 0, 16777217, [1, 5, 0, 16777216, 16777217]),  # compared in float32
    ('int32', [1, 5, -2, 2 ** 31 - 1, 16777217], 0, 'inf', [1, 5, 0, 2 ** 31 - 1, 16777217]),
    ('int64', [1, 5, -2, 2 ** 40 + 1], 0, 2 ** 40, [1, 5, 0, 2 ** 40 + 1]),
    ('uint8', [1, 5, 200], 0, 300, [1, 5, 200]),
    ('uint8', [1, 5, 200], 0, 2.5, [1, 2, 2]),
    ('float16', [1, 5, 60000], 0, 70000, [1, 5, 60000]),
    ('float16', [1, 5, 60000], 0, 2.0001, [1, 2, 2]),
    ('float32', [1], 0, '1e39', None),
    ('float32', [1], 0, 1e39, None),
    ('float32', [1], 0, '99e37', None),  # beyond float32 as a decimal
    ('float32', [1], 0, '3.40282357e+38', None),
    ('float32', [1], 0, '1e-38', None),  # below float32's normal range
    ('float32', [1], 0, '1e-40', None),
    ('float32', [1], 0, '2x', None),
    ('float32', [1], 0, '2 ', None),
    ('float32', [1], 0, '0x10', None),
    ('float32', [1], 0, '', None),
    ('float32', [1], 0, True, None),
    ('float32', [1], 0, 'infin', None),
]


def _clip_result(mod, dtype, data, a_min, a_max):
    try:
        return mod.nd.clip(mod.nd.array(data, dtype=dtype), a_min, a_max).asnumpy().astype(np.float64).tolist()
    except mod.base.MXNetError:
        return None


@pytest.mark.parametrize('dtype, data, a_min, a_max, want', CLIP_CASES)
def test_clip_bounds_and_comparisons_as_mxnet(dtype, data, a_min, a_max, want):
    got = _clip_result(mx, dtype, data, a_min, a_max)
    if want is None:
        assert got is None
        with pytest.raises(ValueError, match='a_max'):  # (MXNetValueError: also an MXNetError, as MXNet raises)
            mx.nd.clip(mx.nd.array(data, dtype=dtype), a_min, a_max)
    else:
        np.testing.assert_array_equal(np.array(got), np.array(want, dtype=dtype).astype(np.float64))


def test_clip_string_bounds_in_symbols_and_gradient():
    x = mx.nd.array([1, 5, -2, 3e38, INF])
    s = mx.sym.clip(mx.sym.var('d'), a_min=0, a_max='3.4028235e+38')
    assert s.list_attr() == {'a_min': '0', 'a_max': '3.4028235e+38'}
    want = np.array([1, 5, 0, 3e38, INF], dtype=np.float32)  # a_max parses as +inf: inf is not clipped
    np.testing.assert_array_equal(s.eval(d=x)[0].asnumpy(), want)
    np.testing.assert_array_equal(mx.sym.load_json(s.tojson()).eval(d=x)[0].asnumpy(), want)
    with pytest.raises(mx.base.MXNetError, match='a_max'):  # MXNet refuses it when the symbol is made
        mx.sym.clip(mx.sym.var('d'), a_min=0, a_max=1e39)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.clip(x, 0, '3.4028235e+38')
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [1, 1, 0, 1, 1])  # MXNet 1.9.1's clip gradient


CLIP_SCRIPT = r'''
import json, sys
import numpy as np
import mxnet as mx
cases = json.loads(sys.argv[1])
out = []
for dtype, data, a_min, a_max, _ in cases:
    float('0')  # (clears the C library's range flag, which MXNet's parser reads: each case as in a fresh process)
    try:
        out.append(mx.nd.clip(mx.nd.array(data, dtype=dtype), a_min, a_max).asnumpy().astype(np.float64).tolist())
    except mx.base.MXNetError:
        out.append(None)
print(json.dumps(out))
'''


@pytest.mark.oracle
def test_clip_table_is_what_mxnet_returns(tmp_path):
    import subprocess
    from tests.conftest import oracle_runner
    script = tmp_path / 'clip.py'
    script.write_text(CLIP_SCRIPT)
    # (json carries 2 ** 70 and True as they are; inf/nan as Infinity/NaN)
    r = subprocess.run([oracle_runner(), str(script), json.dumps(CLIP_CASES)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    theirs = json.loads(r.stdout.strip().splitlines()[-1])
    for case, want in zip(CLIP_CASES, theirs):
        got = _clip_result(mx, *case[:4])
        assert (got is None) == (want is None), case
        if want is not None:
            np.testing.assert_array_equal(np.array(got), np.array(want), err_msg=str(case))
