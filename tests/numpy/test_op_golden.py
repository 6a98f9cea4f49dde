"""mx.np's functions against MXNet 1.9.1's results (tests/fixtures/np_ops, with its generator): values, dtypes,
shapes, containers and the kinds of error raised, over every dtype, 0-d and zero-size arrays, broadcasting, Python
scalar operands, out= and the operators. The cases where mxcompat knowingly differs are listed with the reason."""
import json
import os
import warnings

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat import np
from tests._fixtures import FIXTURES, load_generator

CASES = load_generator('np_ops', 'np_ops_cases.py')
with open(os.path.join(FIXTURES, 'np_ops', 'np_ops.json')) as _f:
    GOLD = json.load(_f)['cases']

_LIMIT = 'MXNet 1.9.1 raises (a kernel it lacks); mxcompat computes NumPy\'s result'
_BLAS = 'MXNet 1.9.1 has float32/float64 BLAS products only; mxcompat computes other dtypes in their dtype'
_NUMPY2 = 'MXNet hands scalars to official NumPy: NumPy 2 gives another scalar type than the 1.23 MXNet ran with'
_UNDEFINED = 'an integer to a negative power: MXNet gives unspecified values, mxcompat truncates (0, or 1 / x)'
KNOWN = {
    'argsort:none': 'the order of equal elements: MXNet\'s sort is not stable, mxcompat\'s is',
    'around:f16': _LIMIT, 'cumsum:axis_neg': _LIMIT, 'expand_dims:tuple': _LIMIT, 'histogram:auto': _LIMIT,
    'histogram:list_bins': _LIMIT, 'insert:array_idx': _LIMIT, 'meshgrid:sparse': _LIMIT, 'repeat:list': _LIMIT,
    'sort:bool': _LIMIT, 'split:beyond': _LIMIT, 'split:neg_idx': _LIMIT,
    'dot:bool': _BLAS, 'dot:f16': _BLAS, 'dot:int': _BLAS, 'matmul:int': _BLAS, 'matmul:op_float16': _BLAS,
    'matmul:op_int32': _BLAS, 'outer:int': _BLAS, 'tensordot:int': _BLAS, 'vdot:int': _BLAS,
    'ceil:int_scalar': _NUMPY2, 'floor:int_scalar': _NUMPY2, 'trunc:int_scalar': _NUMPY2, 'fix:int_scalar': _NUMPY2,
    'fabs:int_scalar': _NUMPY2,
    'power:bool,py-3': _UNDEFINED, 'power:int32,py-3': _UNDEFINED, 'power:int64,py-3': _UNDEFINED,
    'power:uint8,py-3': _UNDEFINED,
    'mean:empty': 'MXNet gives 0 for the mean of nothing, mxcompat NaN (NumPy)',
    'mean:empty_axis0': 'MXNet gives 0 for the mean of nothing, mxcompat NaN (NumPy)',
    'prod:empty': 'MXNet gives 0 for the product of nothing, mxcompat 1 (NumPy)',
    'prod:empty_axis0': 'MXNet gives 0 for the product of nothing, mxcompat 1 (NumPy)',
    'sort:nan': 'MXNet leaves NaN where its comparisons put it, mxcompat sorts NaN last (NumPy)',
    'split:zero': 'MXNet divides by the 0 sections (ZeroDivisionError); mxcompat raises ValueError',
    'reshape:order_f': 'MXNet silently reshapes in C order; mxcompat refuses order=\'F\' (NotImplementedError)',
    'take:int': 'MXNet asserts that indices are an array; mxcompat takes an integer as NumPy does',
    'floor_divide:op_float16': 'MXNet\'s mx.np.ndarray has no //; mxcompat floor-divides',
    'floor_divide:op_float32': 'MXNet\'s mx.np.ndarray has no //; mxcompat floor-divides',
    'floor_divide:op_int32': 'MXNet\'s mx.np.ndarray has no //; mxcompat floor-divides',
    'ravel:method': 'a method of the array class (mx.np.ndarray.ravel exists here)',
    'true_divide:op_host_left': 'NumPy 2 calls this ufunc divide, which MXNet does not list: NumPy computes it',
    'argpartition:fallback': 'NumPy leaves the order within a partition unspecified; 2.4 orders it otherwise',
    'count_nonzero:fallback': _NUMPY2, 'histogram2d:fallback': 'NumPy 2 keeps float32 edges for float32 data',
    'result_type:fallback': 'MXNet fails to convert the dtype NumPy returns (TypeError); mxcompat returns it',
    'positive:0d': 'MXNet hands positive to official NumPy (a NumPy scalar for 0-d); mxcompat computes it',
    'positive:int8': 'MXNet hands positive to official NumPy and fails on int8; mxcompat computes it',
    'positive:list': 'MXNet hands positive to official NumPy (lists taken); mxcompat wants arrays',
    'positive:out': 'MXNet hands positive to official NumPy and recurses on out=; mxcompat writes out',
}
# names mxcompat provides that MXNet 1.9.1's mx.np lacks (NumPy's): checked against NumPy below
EXTRAS = ('deg2rad', 'rad2deg')
_OURS = {}


def _ours():
    if not _OURS:
        with warnings.catch_warnings():  # (NumPy's and torch's warnings for NaN results and empty reductions)
            warnings.simplefilter('ignore')
            _OURS.update(CASES.record_all(mx))
    return _OURS


def _same_item(o, g):
    """None if result items ``o`` (mxcompat) and ``g`` (MXNet) agree, else what differs."""
    kinds = {'numpy.bool': 'numpy.bool_'}
    if kinds.get(o.get('t'), o.get('t')) != kinds.get(g.get('t'), g.get('t')):
        return 'type %s, MXNet %s' % (o.get('t'), g.get('t'))
    if 's' in g:
        if (o['s'], o['d']) != (g['s'], g['d']):
            return 'shape/dtype %s %s, MXNet %s %s' % (o['s'], o['d'], g['s'], g['d'])
        if (o.get('nf') or [''] * len(o['v'])) != (g.get('nf') or [''] * len(g['v'])):
            return 'non-finite values %s, MXNet %s' % (o.get('nf'), g.get('nf'))
        tol = 2e-2 if g['d'] == 'float16' else 1e-4
        if not onp.allclose(o['v'], g['v'], rtol=tol, atol=tol):
            return 'values %s, MXNet %s' % (o['v'][:8], g['v'][:8])
        return None
    if o.get('py') != g.get('py') and not (isinstance(o.get('py'), float) and isinstance(g.get('py'), float)
                                           and abs(o['py'] - g['py']) < 1e-5):
        return 'value %s, MXNet %s' % (o.get('py'), g.get('py'))
    return None


def difference(o, g):
    """None if records ``o`` (mxcompat) and ``g`` (MXNet) agree: the same kinds of error (at least MXNet's), or the
    same container and items."""
    if 'error' in g:
        if 'error' not in o:
            return 'MXNet raises %s, mxcompat gives a result' % g['error']
        if not set(g['error']) <= set(o['error']):
            return 'error kinds %s, MXNet %s' % (o['error'], g['error'])
        return None
    if 'error' in o:
        return 'mxcompat raises %s' % o['error']
    if o['c'] != g['c'] or len(o['o']) != len(g['o']):
        return 'container %s of %d, MXNet %s of %d' % (o['c'], len(o['o']), g['c'], len(g['o']))
    for a, b in zip(o['o'], g['o']):
        d = _same_item(a, b)
        if d:
            return d
    return None


FUNCTIONS = sorted({n.split(':')[0] for n in GOLD} - set(EXTRAS))


@pytest.mark.parametrize('fn', FUNCTIONS)
def test_golden(fn):
    ours = _ours()
    bad = {}
    for name in sorted(n for n in GOLD if n.split(':')[0] == fn and n not in KNOWN):
        d = difference(ours[name], GOLD[name])
        if d:
            bad[name] = '%s -> %s' % (CASES.CASES[name], d)
    assert not bad, '\n'.join('%s: %s' % kv for kv in bad.items())


@pytest.mark.parametrize('name', sorted(KNOWN))
def test_known_differences_still_differ(name):
    # a case that starts matching MXNet must leave the table
    assert difference(_ours()[name], GOLD[name]) is not None, name


def test_every_case_recorded():
    assert set(GOLD) == set(CASES.CASES)


@pytest.mark.parametrize('fn', EXTRAS)
def test_extras_equal_numpy(fn):
    x = onp.array([[-2., -1.25, 0.], [0.25, 1., 180.]], dtype='float32')
    r = getattr(np, fn)(np.array(x))
    onp.testing.assert_allclose(r.asnumpy(), getattr(onp, fn)(x), rtol=1e-6)
    assert r.dtype == onp.float32
