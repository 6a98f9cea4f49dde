"""NDArray's operators are the registry's operators: ``a + b`` gives what ``mx.nd.broadcast_add(a, b)`` gives, ``a + 2``
what ``mx.nd._internal._plus_scalar(a, scalar=2)`` gives, ``2 - a`` what ``_rminus_scalar`` gives, ``a += b`` what
``broadcast_add(a, b, out=a)`` writes, errors included (MXNet's ndarray.py calls these operators)."""
import operator

import numpy as np
import pytest

import mxcompat as mx

DTYPES = ('float32', 'float16', 'int32', 'int64', 'uint8', 'bool')
SCALARS = (2, 2.5, -3, 0, -0.5, True, np.float32(1.5), np.int64(3), 2 ** 53 + 1)

# (Python operator, broadcast operator, scalar operator for ``a op s``, scalar operator for ``s op a``)
BINARY = [
    (operator.add, 'broadcast_add', '_plus_scalar', '_plus_scalar'),
    (operator.sub, 'broadcast_sub', '_minus_scalar', '_rminus_scalar'),
    (operator.mul, 'broadcast_mul', '_mul_scalar', '_mul_scalar'),
    (operator.truediv, 'broadcast_div', '_div_scalar', '_rdiv_scalar'),
    (operator.mod, 'broadcast_mod', '_mod_scalar', '_rmod_scalar'),
    (operator.pow, 'broadcast_power', '_power_scalar', '_rpower_scalar'),
    (operator.eq, 'broadcast_equal', '_equal_scalar', '_equal_scalar'),
    (operator.ne, 'broadcast_not_equal', '_not_equal_scalar', '_not_equal_scalar'),
    (operator.gt, 'broadcast_greater', '_greater_scalar', '_lesser_scalar'),
    (operator.ge, 'broadcast_greater_equal', '_greater_equal_scalar', '_lesser_equal_scalar'),
    (operator.lt, 'broadcast_lesser', '_lesser_scalar', '_greater_scalar'),
    (operator.le, 'broadcast_lesser_equal', '_lesser_equal_scalar', '_greater_equal_scalar'),
]
# mx.nd's functions of arrays and/or numbers over the same operators
FUNCTIONS = {'add': operator.add, 'subtract': operator.sub, 'multiply': operator.mul, 'divide': operator.truediv,
             'modulo': operator.mod, 'power': operator.pow, 'equal': operator.eq, 'not_equal': operator.ne,
             'greater': operator.gt, 'greater_equal': operator.ge, 'lesser': operator.lt,
             'lesser_equal': operator.le}
INPLACE = [(operator.iadd, 'broadcast_add', '_plus_scalar'), (operator.isub, 'broadcast_sub', '_minus_scalar'),
           (operator.imul, 'broadcast_mul', '_mul_scalar'), (operator.itruediv, 'broadcast_div', '_div_scalar'),
           (operator.imod, 'broadcast_mod', '_mod_scalar')]


def _data(values, dtype, ctx):
    a = np.array(values, dtype=np.float64)
    if dtype == 'uint8':
        a = np.abs(a)
    return mx.nd.array(a.astype(dtype), ctx=ctx, dtype=dtype)


def _lhs(dtype, ctx):
    return _data([[-3, 0, 5], [2, -1, 7.5]], dtype, ctx)


def _rhs(dtype, ctx, shape=(1, 3)):
    values = {(1, 3): [[2, -1, 0]], (4, 3): np.ones((4, 3)), (0, 3): np.ones((0, 3)), (2, 3): [[2, -1, 3], [1, 1, 4]]}
    return _data(values[shape], dtype, ctx)


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 -- which error, and its message, is what is compared
        return ('error', type(e), str(e))
    if not isinstance(r, mx.nd.NDArray):
        return ('value', type(r), r)
    return ('array', r.dtype, r.shape, r.context, r.asnumpy())


def _same(got, want, where):
    assert got[:-1] == want[:-1] if got[0] == 'array' else got == want, '%s: %s != %s' % (where, got, want)
    if got[0] == 'array':
        g, w = got[-1], want[-1]
        np.testing.assert_array_equal(g, w, err_msg=where)
        if g.dtype.kind == 'f':  # (and the same zeros: -0.0 is not 0.0)
            assert (np.signbit(g) == np.signbit(w))[~np.isnan(g)].all(), where


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op,array_op,scalar_op,rscalar_op', BINARY, ids=[b[1] for b in BINARY])
def test_array_operator_is_the_broadcast_operator(ctx, op, array_op, scalar_op, rscalar_op, dtype):
    reg = getattr(mx.nd, array_op)
    a = _lhs(dtype, ctx)
    for shape in ((1, 3), (2, 3), (4, 3), (0, 3)):
        b = _rhs(dtype, ctx, shape)
        _same(_outcome(lambda: op(a, b)), _outcome(lambda: reg(a, b)), '%s %s' % (array_op, shape))
        _same(_outcome(lambda: op(b, a)), _outcome(lambda: reg(b, a)), '%s %s reversed' % (array_op, shape))
    other = _rhs('int32' if dtype != 'int32' else 'float32', ctx)  # (another dtype: MXNet's error)
    _same(_outcome(lambda: op(a, other)), _outcome(lambda: reg(a, other)), array_op + ' dtypes')


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op,array_op,scalar_op,rscalar_op', BINARY, ids=[b[1] for b in BINARY])
def test_scalar_operator_is_the_scalar_operator(ctx, op, array_op, scalar_op, rscalar_op, dtype):
    a = _lhs(dtype, ctx)
    for s in SCALARS:
        want = _outcome(lambda: getattr(mx.nd._internal, scalar_op)(a, scalar=s))
        _same(_outcome(lambda: op(a, s)), want, '%s %r' % (scalar_op, s))
        want = _outcome(lambda: getattr(mx.nd._internal, rscalar_op)(a, scalar=s))
        _same(_outcome(lambda: op(s, a)), want, '%s %r' % (rscalar_op, s))
    z = _data(np.ones((0, 3)), dtype, ctx)
    _same(_outcome(lambda: op(z, 2)), _outcome(lambda: getattr(mx.nd._internal, scalar_op)(z, scalar=2)), '0-size')


@pytest.mark.parametrize('name', sorted(FUNCTIONS))
def test_nd_functions_are_the_operators(ctx, name):
    f, op = getattr(mx.nd, name), FUNCTIONS[name]
    for dtype in ('float32', 'int32', 'bool'):
        a, b = _lhs(dtype, ctx), _rhs(dtype, ctx)
        _same(_outcome(lambda: f(a, b)), _outcome(lambda: op(a, b)), name)
        for s in (2, 2.5, True):
            _same(_outcome(lambda: f(a, s)), _outcome(lambda: op(a, s)), '%s %r' % (name, s))
            _same(_outcome(lambda: f(s, a)), _outcome(lambda: op(s, a)), '%s %r reversed' % (name, s))


def test_nd_functions_of_two_numbers_are_python_arithmetic():
    # as MXNet 1.9.1 gives them (its ndarray.py computes two numbers in Python)
    assert mx.nd.add(1, 2) == 3 and mx.nd.subtract(1, 3) == -2 and mx.nd.power(2, 3) == 8
    assert mx.nd.divide(1, 2) == 0.5 and mx.nd.divide(7, 2) == 3.5 and mx.nd.modulo(-5, 3) == 1
    assert mx.nd.maximum(1, 2.5) == 2.5 and mx.nd.minimum(1, 2.5) == 1
    assert (mx.nd.equal(1, 1), mx.nd.not_equal(1, 1), mx.nd.greater(3, 1), mx.nd.logical_and(1, 0)) == (1, 0, 1, 0)
    assert (mx.nd.logical_or(1, 0), mx.nd.logical_xor(2, 3)) == (1, 0)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('iop,array_op,scalar_op', INPLACE, ids=[i[1] for i in INPLACE])
def test_inplace_operator_writes_the_operator_result(ctx, iop, array_op, scalar_op, dtype):
    """``a op= x`` is MXNet's ``op(a, x, out=a)``: the operator's result written into ``a`` where it has a's dtype and
    shape; otherwise the operator's error, or an MXNetError for a result that does not fit."""
    a = _lhs(dtype, ctx)
    cases = [(_rhs(dtype, ctx, shape), getattr(mx.nd, array_op)) for shape in ((1, 3), (2, 3), (4, 3))]
    cases.append((_rhs('int32' if dtype != 'int32' else 'float32', ctx), getattr(mx.nd, array_op)))
    cases += [(s, lambda x, y, n=scalar_op: getattr(mx.nd._internal, n)(x, scalar=y)) for s in SCALARS]
    for other, reg in cases:
        want = _outcome(lambda: reg(a, other))
        c = a.copy()
        got = _outcome(lambda: iop(c, other))
        where = '%s %r' % (array_op, other)
        if dtype == 'bool' and not isinstance(other, mx.nd.NDArray):
            # (a bool array with a number computes in int64, which MXNet refuses to write into a bool out=)
            assert got[0] == 'error' and issubclass(got[1], mx.base.MXNetError) and 'int64' in got[2], where
        elif want[0] == 'error':
            _same(got, want, where)
        elif want[1] != a.dtype or want[2] != a.shape:
            assert got[0] == 'error' and issubclass(got[1], mx.base.MXNetError), where
            np.testing.assert_array_equal(c.asnumpy(), a.asnumpy(), err_msg=where + ': a failed write changed a')
        else:
            assert got[0] == 'array', where
            _same(_outcome(lambda: c), want, where)


@pytest.mark.parametrize('dtype', DTYPES)
def test_negative_is_times_minus_one(ctx, dtype):
    # MXNet's -a is _mul_scalar(a, scalar=-1.0): a bool array gives int64
    a = _lhs(dtype, ctx)
    _same(_outcome(lambda: -a), _outcome(lambda: mx.nd._internal._mul_scalar(a, scalar=-1.0)), 'negative')
    if dtype == 'bool':
        assert (-a).dtype == np.int64 and (-a).asnumpy().tolist() == [[-1, 0, -1], [-1, -1, -1]]


@pytest.mark.parametrize('dtype', DTYPES)
def test_abs_is_the_abs_operator(ctx, dtype):
    a = _lhs(dtype, ctx)
    _same(_outcome(lambda: abs(a)), _outcome(lambda: mx.nd.abs(a)), 'abs')


def test_scalars_are_floats_as_in_mxnet():
    # MXNet passes float(scalar) to the scalar operators: int64 arrays see 2**53 + 1 as 2**53 (checked on 1.9.1)
    big = mx.nd.array([1, 2, 3], dtype='int64')
    assert (big + (2 ** 53 + 1)).asnumpy().tolist() == [2 ** 53 + 1, 2 ** 53 + 2, 2 ** 53 + 3]
    assert ((2 ** 53 + 1) - big).asnumpy().tolist() == [2 ** 53 - 1, 2 ** 53 - 2, 2 ** 53 - 3]


def test_bool_arrays_refused_by_binary_operators_as_in_mxnet():
    b = mx.nd.array([1, 0, 1], dtype='bool')
    for expr in (lambda: b + b, lambda: b == b, lambda: b < b, lambda: mx.nd.elemwise_add(b, b)):
        with pytest.raises(mx.base.MXNetError, match='does not support boolean type'):
            expr()
    assert (b + 2).dtype == np.int64 and (b == 1).asnumpy().tolist() == [1, 0, 1]
    with pytest.raises(mx.base.MXNetError, match='int64'):
        b += 1
