"""Reductions (mxcompat/operator/reduce.py): goldens recorded from MXNet 1.9.1 (tests/fixtures/shape_ops/
gen_shape_ops.py: integer dtypes, exclude, negative axes, keepdims, empty axis tuple, arg* dtypes, norm, moments,
errors, gradients incl. max/min ties), numpy references over dtypes, and the documented gaps."""
import importlib.util
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError, MXNetValueError
from mxcompat.operator import registry

_spec = importlib.util.spec_from_file_location(
    'shape_ops_replay', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'shape_ops', 'shape_ops_replay.py'))
replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay)

test_against_mxnet, test_shape_inference_matches_mxnet = replay.golden_tests('reduce')
nd = mx.nd


def _data(shape, dtype, seed=0):
    rs = np.random.RandomState(seed)
    if np.dtype(dtype).kind == 'f':
        return rs.uniform(0.5, 1.5, size=shape).astype(dtype) * rs.choice([-1, 1], size=shape).astype(dtype)
    return rs.randint(-3, 4, size=shape).astype(dtype)


def _np_axes(axis, ndim, exclude):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    return tuple(a for a in range(ndim) if a not in axes) if exclude else axes


def _int_mean(a, axis, keepdims):
    s = np.sum(a, axis=axis, keepdims=keepdims, dtype=a.dtype)
    n = a.size // max(s.size, 1)
    return (np.trunc(s.astype('float64') / n)).astype(a.dtype)


NP_OPS = {'sum': np.sum, 'prod': np.prod, 'max': np.max, 'min': np.min, 'nansum': np.nansum, 'nanprod': np.nanprod,
          'mean': np.mean}


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'float16', 'int32', 'int64'))
@pytest.mark.parametrize('op', sorted(NP_OPS))
@pytest.mark.parametrize('axis, keepdims, exclude', [
    (None, False, False), (1, False, False), (-1, True, False), ((0, 2), False, False), ((), True, True),
    ((0, -1), False, True), (1, True, True)])
def test_against_numpy(dtype, op, axis, keepdims, exclude):
    a = _data((3, 4, 2), dtype)
    got = getattr(nd, op)(nd.array(a, dtype=dtype), axis=axis, keepdims=keepdims, exclude=exclude)
    axes = _np_axes(axis, 3, exclude)
    if not axes:
        want = a
    elif op == 'mean' and dtype.startswith('int'):
        want = _int_mean(a, axes, keepdims)
    else:  # integers: numpy accumulates in int64, and the cast back wraps as MXNet's own-dtype arithmetic does
        src = a if dtype.startswith('int') else a.astype('float64')
        want = np.asarray(NP_OPS[op](src, axis=axes, keepdims=keepdims)).astype(dtype)
    if want.ndim == 0:
        want = want.reshape(1)  # MXNet's legacy full reduction has shape (1,)
    g = got.asnumpy()
    assert g.shape == want.shape and g.dtype == want.dtype
    tol = {'float16': 1e-2, 'float32': 1e-5}.get(dtype, 1e-12)
    np.testing.assert_allclose(g.astype('float64'), want.astype('float64'), rtol=tol, atol=tol)


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'float16', 'int32', 'int64', 'uint8'))
@pytest.mark.parametrize('op', ['argmax', 'argmin'])
@pytest.mark.parametrize('axis, keepdims', [(None, False), (0, False), (-1, True), (None, True)])
def test_arg_against_numpy(dtype, op, axis, keepdims):
    a = np.random.RandomState(1).randint(0, 4, size=(3, 5)).astype(dtype)  # ties: the first index wins
    got = getattr(nd, op)(nd.array(a, dtype=dtype), axis=axis, keepdims=keepdims)
    want = np.asarray(getattr(np, op)(a, axis=axis, keepdims=keepdims)).astype(dtype)  # MXNet: input's dtype
    if want.ndim == 0:
        want = want.reshape(1)
    g = got.asnumpy()
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'float16'))
@pytest.mark.parametrize('ord', [1, 2])
@pytest.mark.parametrize('axis, keepdims', [(None, False), (1, True), ((0, 2), False), (-1, False)])
def test_norm_against_numpy(dtype, ord, axis, keepdims):
    a = _data((3, 4, 2), dtype)
    got = nd.norm(nd.array(a, dtype=dtype), ord=ord, axis=axis, keepdims=keepdims)
    axes = _np_axes(axis, 3, False)
    a64 = a.astype('float64')
    want = (np.sum(np.abs(a64), axis=axes, keepdims=keepdims) if ord == 1
            else np.sqrt(np.sum(a64 * a64, axis=axes, keepdims=keepdims))).astype(dtype)
    if want.ndim == 0:
        want = want.reshape(1)
    g = got.asnumpy()
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_allclose(g, want, rtol=1e-2 if dtype == 'float16' else 1e-5)


@pytest.mark.parametrize('dtype', ('float32', 'float64'))
def test_moments_against_numpy(dtype):
    a = _data((3, 4, 2), dtype)
    mean, var = nd.moments(nd.array(a, dtype=dtype), axes=(0, 2), keepdims=True)
    np.testing.assert_allclose(mean.asnumpy(), a.mean(axis=(0, 2), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), a.var(axis=(0, 2), keepdims=True), rtol=1e-5)
    assert mean.dtype == var.dtype == np.dtype(dtype)


def test_max_min_gradient_goes_to_every_tie():
    # MXNet gives each maximal element the full gradient; torch would split it
    x = nd.array([[1, 3, 3], [2, 2, 2]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.max(x, axis=1) + nd.min(x, axis=1)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[1, 1, 1], [2, 2, 2]])


def test_gradients_against_finite_differences():
    a = _data((2, 3), 'float64')
    for f in (lambda t: nd.norm(t, axis=1), lambda t: nd.prod(t, axis=0), lambda t: nd.moments(t, axes=(1,))[1],
              lambda t: nd.mean(t, axis=1, keepdims=True)):
        x = nd.array(a, dtype='float64')
        x.attach_grad()
        with mx.autograd.record():
            y = nd.sum(f(x))
        y.backward()
        eps = 1e-6
        num = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            d = np.zeros_like(a)
            d[i] = eps
            num[i] = (nd.sum(f(nd.array(a + d, dtype='float64'))).asscalar()
                      - nd.sum(f(nd.array(a - d, dtype='float64'))).asscalar()) / (2 * eps)
        np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-5, atol=1e-8)


def test_known_gaps_and_extensions():
    with pytest.raises(MXNetNotImplementedError, match='norm'):
        nd.norm(nd.array([1, 2], dtype='int32'))  # ord=2 on integers: MXNet's value is an integer-division artifact
    # out_dtype casts the result (MXNet 1.9.1 fails at run time on CPU for a dtype other than the input's)
    out = nd.norm(nd.array([3, 4]), out_dtype='float64')
    assert out.dtype == np.float64 and out.asnumpy().tolist() == [5.0]
    with pytest.raises(MXNetValueError, match='norm'):
        nd.norm(nd.array([3, 4]), out_dtype='uint8')


def test_aliases_and_defaults():
    for alias, name in (('sum_axis', 'sum'), ('max_axis', 'max'), ('min_axis', 'min')):
        assert registry.get(alias) is registry.get(name)
    assert registry.get('sum').parse_attrs({}) == {'axis': None, 'keepdims': False, 'exclude': False}
    assert registry.get('sum').parse_attrs({'axis': '(0, 1)'})['axis'] == (0, 1)
    assert registry.get('norm').parse_attrs({}) == {'ord': 2, 'axis': None, 'out_dtype': None, 'keepdims': False}
    assert registry.get('moments').parse_attrs({'axes': '(1,)'}) == {'axes': (1,), 'keepdims': False}
    o = registry.get('moments')
    assert o.n_outputs(o.parse_attrs({'axes': 1})) == 2


def test_full_reductions_have_shape_one():
    x = nd.ones((2, 3))
    for f in (nd.sum, nd.mean, nd.max, nd.prod, nd.norm, nd.argmax, nd.argmin, nd.nansum):
        assert f(x).shape == (1,)
    assert nd.sum(x, keepdims=True).shape == (1, 1)
    assert nd.sum(x, axis=(0, 1), exclude=True).shape == (2, 3)  # nothing left to reduce: a copy


@pytest.mark.parametrize('op', ('sum', 'mean', 'nansum'))
def test_int_axis_calls_take_the_bound_path_with_the_same_results(op):
    # ``nd.sum(x, axis=1)`` runs the op's bound function (OpDef.bind, cached per attribute values); an axis given
    # as a tuple runs the general implementation: both must agree, including where the bound function falls back
    f = getattr(nd, op)
    for dtype in ('float32', 'float16', 'int32'):  # (a cached runner reused across dtypes: ints take the general path)
        for shape in ((3, 4, 5), (6,)):  # (1-D: the full reduction gives shape (1,))
            x = nd.array(_data(shape, dtype), dtype=dtype)
            for axis in (0, -1, len(shape) - 1):
                got = f(x, axis=axis)
                want = f(x, axis=(axis,))  # (a tuple: the general reduction)
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    x = nd.array(_data((3, 4), 'float32'))
    assert f(x, axis=[1]).shape == (3,)  # an unhashable value: parsed every call, never cached
    assert f(x, axis=(0, 1)).shape == (1,)  # several axes: no bound function, the general path
    with pytest.raises(MXNetValueError, match='exceeds'):
        f(x, axis=2)  # out of range: the bound function hands over to the general checks
    with pytest.raises(MXNetValueError, match='exceeds'):
        f(x, axis=2)  # (again, from the cache)

