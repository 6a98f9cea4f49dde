"""numpy/_fastcall: the compiled stand-ins of mx.np's functions give what the Python functions behind them give
(values, dtypes, the dtype and context the result records, autograd's graph and bookkeeping, errors) for every kind
of operand, in and out of ``autograd.record()``; they introspect, pickle and copy as the functions do; and
MXCOMPAT_NATIVE=0 leaves the Python functions alone. The comparisons call the Python function (``fallback``)
directly, so its own fast paths, the ones that run where the extension cannot be built, are checked here too."""
import copy
import functools
import inspect
import os
import pickle
import subprocess
import sys

import numpy as onp
import pytest
import torch

import mxcompat as mx
from mxcompat import autograd, np
from mxcompat._recording import STATE
from mxcompat.numpy import _fastcall

pytestmark = pytest.mark.skipif(_fastcall.extension() is None,
                                reason='mx.np fast paths not compiled: %s' % _fastcall.why_not())

DTYPES = ('float32', 'float64', 'float16', 'int32', 'int64', 'int8', 'uint8', 'bool')
BINARY = ('add', 'subtract', 'multiply', 'true_divide', 'power', 'maximum', 'minimum', 'mod', 'equal', 'not_equal',
          'less', 'greater_equal')
OPERATORS = ('__add__', '__sub__', '__mul__', '__truediv__', '__pow__', '__mod__', '__eq__', '__ne__', '__lt__',
             '__ge__')
UNARY = ('exp', 'negative', 'abs', 'sqrt', 'tanh', 'floor', 'isnan', 'sum')
UNARY_METHODS = ('__neg__', '__abs__')


def _array(dtype, shape=(3, 4), seed=0, known=True, ctx=None):
    """A fresh array; ``known``: its dtype recorded (``_dt``) as after an operator, else unset as a wrapped tensor."""
    rs = onp.random.RandomState(seed)
    a = np.array((rs.uniform(-2, 3, shape) * (1 if dtype.startswith('float') else 4)).astype(dtype), ctx=ctx)
    a._dt = a._t.dtype if known else None
    return a


def _outcome(fn, make):
    """What ``fn(*make())`` gives: ('ok', result, arrays recorded) or ('error', type, message)."""
    args = make()
    before = len(STATE.recorded)
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 (the errors are compared)
        return 'error', type(e), str(e)
    return 'ok', r, len(STATE.recorded) - before


def _check_same(fast, make):
    got, want = _outcome(fast, make), _outcome(fast.fallback, make)
    assert got[0] == want[0], (got, want)
    if got[0] == 'error':
        assert got[1:] == want[1:]
        return
    r, w = got[1], want[1]
    assert type(r) is type(w) and got[2] == want[2]
    if not isinstance(w, np.ndarray):
        assert r == w
        return
    assert r._dt is w._dt and r._ctx == w._ctx and r._t.dtype is w._t.dtype and r.shape == w.shape
    torch.testing.assert_close(r._t.detach(), w._t.detach(), rtol=0, atol=0, equal_nan=True)
    assert r._t.requires_grad == w._t.requires_grad
    assert type(r._t.grad_fn).__name__ == type(w._t.grad_fn).__name__


def _operands(dtype):
    """Second operands for an array of ``dtype``: arrays of each dtype and of other shapes, numbers, other kinds."""
    yield from ((lambda d=d: _array(d, seed=1)) for d in DTYPES)
    yield lambda: _array(dtype, seed=1, known=False)
    yield lambda: _array(dtype, shape=(4,), seed=2)
    yield lambda: _array(dtype, shape=(2, 4), seed=2)  # (does not broadcast: the error)
    yield from ((lambda v=v: v) for v in (2, -3, 2.5, 0.0, True, onp.float32(1.5), [1, 2, 3, 4], None))
    yield lambda: mx.nd.ones((3, 4))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name', BINARY + OPERATORS)
def test_binary_functions_and_operators(name, dtype):
    fast = getattr(np.ndarray if name.startswith('__') else np, name)
    assert type(fast).__name__ == 'Fast'
    for first in (lambda: _array(dtype), lambda: _array(dtype, known=False)):
        for second in _operands(dtype):
            _check_same(fast, lambda: (first(), second()))
    _check_same(fast, lambda: (2.0, _array(dtype)))  # (an array second only)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name', UNARY + UNARY_METHODS)
def test_unary_functions_and_methods(name, dtype):
    fast = getattr(np.ndarray if name.startswith('__') else np, name)
    assert type(fast).__name__ == 'Fast'
    for make in (lambda: (_array(dtype),), lambda: (_array(dtype, known=False),), lambda: (_array(dtype, (0, 3)),),
                 lambda: (2.5,), lambda: (mx.nd.ones((2,)),), lambda: (_array(dtype), None)):
        _check_same(fast, make)


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'int32'))
def test_dot_getitem_reshape(dtype, ctx):
    arr = functools.partial(_array, ctx=ctx)
    a, v = (lambda: arr(dtype, (3, 4))), (lambda: arr(dtype, (4,), seed=3))
    for make in (lambda: (a(), arr(dtype, (4, 2), seed=3)), lambda: (a(), v()), lambda: (v(), v()),
                 lambda: (arr(dtype, (2, 3, 4)), v()), lambda: (a(), arr(dtype, (2, 4, 5))),
                 lambda: (a(), arr('float64' if dtype != 'float64' else 'float32', (4, 2))),
                 lambda: (a(), a()), lambda: (arr(dtype, ()), v()), lambda: (a(), 2)):
        _check_same(np.dot, make)
        _check_same(np.ndarray.dot, make)
    for key in (0, 2, -1, 3, -4, True, slice(1, 2), (1, 2), onp.int64(1)):
        _check_same(np.ndarray.__getitem__, lambda: (a(), key))
        _check_same(np.ndarray.__getitem__, lambda: (arr(dtype, ()), key))
    for shape in ((4, 3), ((4, 3),), ([2, 6],), (12,), (-1,), (5, 3), ((2, -1),), (onp.int64(12),), ()):
        _check_same(np.ndarray.reshape, lambda: (a(),) + shape)
        _check_same(np.ndarray.reshape, lambda: (a()[:, 1:3],) + shape)


def test_autograd_records_through_the_compiled_paths(ctx):
    def run(via):
        x = _array('float32', ctx=ctx)
        w = _array('float32', (4, 2), seed=5, ctx=ctx)
        for p in (x, w):
            p.attach_grad()
        with autograd.record():
            h = via(np.exp)(via(np.dot)(x, w))
            y = via(np.sum)(via(np.multiply)(h, 2.0) + via(np.ndarray.reshape)(h, 6, 1)[:3] * h[0][0])
        y.backward()
        n = len(STATE.recorded)
        return x.grad.asnumpy(), w.grad.asnumpy(), y.item(), n
    fast, slow = run(lambda f: f), run(lambda f: f.fallback)
    for g, h in zip(fast, slow):
        assert onp.array_equal(g, h)
    # outside record() a variable's result is detached, as the Python path does
    x = _array('float32', ctx=ctx)
    x.attach_grad()
    assert not np.exp(x)._t.requires_grad and not (x + x)._t.requires_grad and not x[0]._t.requires_grad


def test_comparisons_under_record_take_the_python_path():
    x = _array('float32')
    x.attach_grad()
    with autograd.record():
        _check_same(np.less, lambda: (x, _array('float32', seed=1)))
        _check_same(np.ndarray.__eq__, lambda: (x, 0.5))


def test_subclasses_take_the_python_path():
    class Sub(np.ndarray):
        __slots__ = ()
    a = _array('float32')
    s = Sub(a._t.clone())
    s._dt = a._dt
    _check_same(np.add, lambda: (s, a))
    _check_same(np.ndarray.__getitem__, lambda: (s, 1))


def test_introspection_pickling_and_copies_as_the_python_functions():
    for name in ('add', 'exp', 'dot', 'sum', 'less'):
        fast = getattr(np, name)
        py = fast.fallback
        assert (fast.__name__, fast.__qualname__, fast.__doc__, fast.__module__) == \
            (py.__name__, py.__qualname__, py.__doc__, py.__module__)
        assert inspect.signature(fast) == inspect.signature(py) and repr(fast) == repr(py)
        assert pickle.loads(pickle.dumps(fast)) is fast and copy.deepcopy(fast) is fast
    a = _array('float32')
    assert a.__add__(a).shape == (3, 4) and np.ndarray.__add__.__get__(a)(1.0).shape == (3, 4)
    assert a.reshape.__self__ is a and np.ndarray.reshape.__get__(None, np.ndarray) is np.ndarray.reshape
    assert np.add.method is np.ndarray.__add__


def test_switched_off_by_the_environment():
    code = ('import mxcompat; from mxcompat import np; from mxcompat.numpy import _fastcall; '
            'print(type(np.add).__name__, type(np.ndarray.__getitem__).__name__, _fastcall.why_not())')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, MXCOMPAT_NATIVE='0')).stdout.strip()
    assert out == 'function function MXCOMPAT_NATIVE is off'
