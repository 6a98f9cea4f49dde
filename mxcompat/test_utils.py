"""``mx.test_utils``: the helpers MXNet's own tests and users' tests call.

Every public function of MXNet 1.9.1's ``test_utils`` is here with the same name and signature; the module also
offers the names MXNet's version imports (``np``, ``mx``, ``rnd``, ``npt``, ``ss``, ``Symbol``, ``use_np``, ...), so
``from mxnet.test_utils import *`` gives tests what they expect. Differs from MXNet:

- ``assert_almost_equal`` always compares on the host with numpy; numpy's print options are set only while the
  error message is built (MXNet leaves ``threshold=4, suppress=True`` set for the rest of the process).
- Sparse helpers raise ``MXNetNotImplementedError`` (sparse storage is not implemented), except
  ``shuffle_csr_column_indices``, which works on any object with ``indptr``/``indices`` (e.g. a scipy CSR matrix).
- ``download`` and the dataset helpers never use the network: they work when the files are already on disk and
  raise ``MXNetNotImplementedError`` naming the file otherwise.
- ``chi_square_check``/``verify_generator`` compute the p-value with torch, so scipy is not needed.
- The Symbol-based checkers (``check_numeric_gradient``, ``check_symbolic_forward``, ...) use ``mx.sym``'s
  ``bind``/``simple_bind`` Executor API and raise ``MXNetNotImplementedError`` while ``mx.sym`` is missing.
- ``check_gluon_hybridize_consistency`` runs in the legacy semantics (MXNet runs it under ``use_np``).
"""
# Module-level names mirror MXNet's test_utils (tests star-import them).
import bz2
import gzip
import importlib
import itertools
import json
import logging
import numbers
import os
import platform
import struct
import sys
import time
import traceback
import zipfile
from collections import OrderedDict
from contextlib import contextmanager

import torch
import numpy as np
import numpy.random as rnd

import mxcompat as mx
from .base import unsupported as _unsupported
from .context import Context, current_context
from .ndarray.ndarray import array
from .runtime import Features
from .util import use_np, getenv, setenv, get_cuda_compute_capability  # noqa: F401


# ---- defaults and tolerances ---------------------------------------------------------------------------------------

def default_dtype():
    """The dtype tests use by default (float32)."""
    return np.float32


def set_default_context(ctx):
    """Make ``ctx`` the current (default) context of this thread."""
    Context._default_ctx.value = ctx


def default_context():
    """The context tests run on: the current context (``set_default_context`` changes it)."""
    return current_context()


def _by_dtype(f16, f32, f64):
    tols = {np.dtype(np.float16): f16, np.dtype(np.float32): f32, np.dtype(np.float64): f64}
    for t in (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64):
        tols[np.dtype(t)] = 0
    return tols


def default_rtols():
    """Default relative tolerance per dtype."""
    return _by_dtype(1e-2, 1e-4, 1e-5)


def default_atols():
    """Default absolute tolerance per dtype."""
    return _by_dtype(1e-1, 1e-3, 1e-20)


def default_numeric_eps():
    """Default finite-difference step per dtype (powers of two)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype that decides the tolerance for ``dat``: float16 for float32 data on a GPU that uses TF32
    (compute capability >= 80, unless ``NVIDIA_TF32_OVERRIDE=0``), else ``dat.dtype``."""
    dtype = np.dtype(dat.dtype)
    ctx = getattr(dat, 'ctx', None)
    if dtype == np.float32 and ctx is not None and getattr(ctx, 'device_type', None) == 'gpu':
        try:
            tf32 = get_cuda_compute_capability(ctx) >= 80 and os.environ.get('NVIDIA_TF32_OVERRIDE') != '0'
        except Exception:  # no usable GPU: no TF32
            tf32 = False
        if tf32:
            return np.dtype(np.float16)
    return dtype


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number, else ``tol[dtype]`` or ``default_tol[dtype]`` for ``dat``'s effective dtype.

    Differs from MXNet: an integer dtype missing from the dicts gets 0 (MXNet raises KeyError)."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    if dtype in tol:
        return tol[dtype]
    if dtype not in default_tol and dtype.kind in 'biu':
        return 0
    return default_tol[dtype]


def _with_dtype(x):
    if isinstance(x, numbers.Number) or not hasattr(x, 'dtype'):
        return np.asarray(x)
    return x


def get_tols(x, y, rtol, atol):
    """(rtol, atol) to compare ``x`` with ``y``: the given ones, else the larger default of the two dtypes."""
    x, y = _with_dtype(x), _with_dtype(y)
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype`` (float64 unless given)."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype`` (float64 unless given)."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """``etol``, or 0."""
    return 0 if etol is None else etol


# ---- random data -----------------------------------------------------------------------------------------------------

def random_arrays(*shapes):
    """Standard-normal float32 numpy arrays, one per shape (a single array if one shape is given)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, **kwargs):
    """A list of uniform numpy arrays, one per shape; keywords ``low`` (0), ``high`` (1), ``dtype`` (float32)."""
    low = kwargs.pop('low', 0.0)
    high = kwargs.pop('high', 1.0)
    dtype = kwargs.pop('dtype', default_dtype())
    if kwargs:
        raise TypeError('Got unexpected argument/s : ' + str(kwargs.keys()))
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` elements of the sequence ``population`` in random order (numpy's global generator)."""
    assert 0 <= k <= len(population)
    order = np.random.permutation(len(population))[:k]
    return [population[int(pos)] for pos in order]


def _sorted_items(d):
    return sorted(d.items(), key=lambda kv: kv[0])


def _sorted_dict(d):
    return OrderedDict(_sorted_items(d))


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a CSR matrix in place (``csr.indptr``/``csr.indices``)."""
    indptr, indices = csr.indptr, csr.indices
    for row in range(len(indptr) - 1):
        start, end = indptr[row], indptr[row + 1]
        part = np.array(indices[start:end])
        np.random.shuffle(part)
        indices[start:end] = part


def assign_each(the_input, function):
    """A float64 array of ``function(x)`` for each element x of ``the_input`` (a copy if ``function`` is None)."""
    if function is None:
        return np.array(the_input)
    src = np.asarray(the_input)
    out = np.zeros(src.shape)
    flat = out.reshape(-1)
    for i, v in enumerate(src.reshape(-1)):
        flat[i] = function(v)
    return out


def assign_each2(input1, input2, function):
    """A float64 array of ``function(x, y)`` over the elements of two same-shape arrays."""
    if function is None:
        return np.array(input1)
    a, b = np.asarray(input1), np.asarray(input2)
    assert a.shape == b.shape
    out = np.zeros(a.shape)
    flat = out.reshape(-1)
    for i, (x, y) in enumerate(zip(a.reshape(-1), b.reshape(-1))):
        flat[i] = function(x, y)
    return out


def create_2d_tensor(rows, columns, dtype=np.int64):
    """An NDArray of shape (rows, columns) whose row i is filled with i."""
    a = mx.nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return mx.nd.broadcast_to(a, shape=(a.shape[0], columns))


def create_vector(size, dtype=np.int64):
    """``mx.nd.arange(0, size)``."""
    return mx.nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """A float32 identity matrix NDArray."""
    return mx.nd.array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """Two stacked float32 identity matrices, shape (2, size, size)."""
    eye = np.eye(size, dtype=np.float32)
    return mx.nd.array(np.stack([eye, eye]))


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """A random sparse NDArray and its parts (see ``mx.nd.sparse._rand_sparse_ndarray``)."""
    return mx.nd.sparse._rand_sparse_ndarray(shape, stype, density, dtype, distribution, data_init, rsp_indices,
                                             modifier_func, shuffle_csr_indices, ctx or default_context())


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None, shuffle_csr_indices=False,
                 distribution=None, ctx=None):
    """A standard-normal NDArray (float32 unless ``dtype``); sparse ``stype`` is not supported."""
    ctx = ctx if ctx else default_context()
    if stype != 'default':
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, distribution=distribution,
                                   modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)[0]
    return mx.nd.array(random_arrays(shape), dtype=dtype, ctx=ctx)


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """A random sparse array (see ``mx.nd.sparse._create_sparse_array``)."""
    return mx.nd.sparse._create_sparse_array(shape, stype, data_init, rsp_indices, dtype, modifier_func, density,
                                             shuffle_csr_indices)


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                           shuffle_csr_indices=False):
    """A random sparse array, row_sparse with density 0 (see ``mx.nd.sparse._create_sparse_array_zd``)."""
    return mx.nd.sparse._create_sparse_array_zd(shape, stype, density, data_init, rsp_indices, dtype, modifier_func,
                                                shuffle_csr_indices)


def _draw_sides(limits, allow_zero_size):
    """One random side per upper limit, drawn in order, each in [1 (0 if allowed), limit]."""
    smallest = 0 if allow_zero_size else 1
    return tuple(rnd.randint(smallest, limit + 1) for limit in limits)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sides in [1 (0 if allowed), dim]."""
    return _draw_sides((dim0, dim1), allow_zero_size)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sides in [1 (0 if allowed), dim]."""
    return _draw_sides((dim0, dim1, dim2), allow_zero_size)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random ``num_dim``-d shape with sides in [1 (0 if allowed), dim] (Python ints; MXNet gives np.int64)."""
    low = 0 if allow_zero_size else 1
    return tuple(int(s) for s in rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random (x, y) with x in [x_low, x_high) and y in [y_low, y_high)."""
    return tuple(np.random.randint(lo, hi, dtype=np.int64) for lo, hi in ((x_low, x_high), (y_low, y_high)))


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce numpy array ``dat`` with ``numpy_reduce_func`` over an int, a list of ints or None (all axes)."""
    if axis is None:
        axes = list(range(dat.ndim))
    elif isinstance(axis, int):
        axes = [axis]
    else:
        axes = list(axis)
    # reduce the highest axis first so the lower axis numbers stay valid
    out = dat
    for ax in sorted(axes, reverse=True):
        out = numpy_reduce_func(out, axis=ax)
    if not keepdims:
        return out
    reduced = {ax % dat.ndim for ax in axes}
    return out.reshape(tuple(1 if d in reduced else size for d, size in enumerate(dat.shape)))


# ---- comparisons -----------------------------------------------------------------------------------------------------

def _host(x):
    """A numpy view of an NDArray (``asnumpy``), numpy array, scalar or nested list."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, 'asnumpy'):
        return x.asnumpy()
    return np.asarray(x)


def _find_max_violation(a, b, rtol, atol):
    """(index, value) of the largest |a-b| / (atol + rtol*|b|); equal values (also infinities) count 0."""
    absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
    violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    index = tuple(int(i) for i in np.unravel_index(np.argmax(violation), violation.shape))
    return index, np.max(violation)


def same(a, b):
    """Whether two arrays (numpy or NDArray) have the same shape and elements."""
    return np.array_equal(_host(a), _host(b))


def _err_msg(a, b, err_msg):
    import numpy.testing as npt  # reason: 70 ms to import, wanted only when an assertion fails
    options = dict(threshold=4, suppress=True)
    if np.lib.NumpyVersion(np.__version__) >= '2.0.0':
        options['legacy'] = '1.25'  # the array text of numpy 1.x, as with MXNet 1.9 (no 'shape=' in reprs)
    with np.printoptions(**options):
        return npt.build_err_msg([a, b], err_msg=err_msg)


def checkShapes(a, b):
    """Raise AssertionError unless ``a.shape == b.shape``."""
    if a.shape != b.shape:
        raise AssertionError(_err_msg(a, b, 'a.shape = {} and b.shape = {} are not equal'
                                            .format(str(a.shape), str(b.shape))))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """``np.allclose`` with MXNet's float64 default tolerances (rtol 1e-5, atol 1e-20)."""
    if not use_broadcast:
        checkShapes(a, b)
    return _allclose(_host(a), _host(b), get_rtol(rtol), get_atol(atol), equal_nan)


def locationError(a, b, index, names, maxError=False):
    """The 'Location of error: (i, j), a=..., b=...' line of a mismatch report."""
    maximum = 'maximum ' if maxError else ''
    return 'Location of %serror: %s, %s=%.8f, %s=%.8f' % (maximum, str(index), names[0], a[index], names[1], b[index])


def _mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches):
    """MXNet's failure text: the worst violation, the share of mismatching elements, the arrays. Like MXNet it
    also prints the ``mismatches[0]`` worst elements, and counts at most ``mismatches[1]`` (0: all)."""
    index, rel = _find_max_violation(a, b, rtol, atol)
    if index == ():
        return _err_msg(a, b, 'Error %f exceeds tolerance rtol=%e, atol=%e.\n' % (rel, rtol, atol))
    a, b = np.broadcast_arrays(a, b)
    print('\n*** Maximum errors for vector of size {}:  rtol={}, atol={}\n'.format(a.size, rtol, atol))
    worst_index, worst = index, rel
    a_tmp, b_tmp = a.copy(), b.copy()
    count = 1
    while count <= a.size:
        if count <= mismatches[0]:
            print('%3d: Error %f  %s' % (count, rel, locationError(a, b, index, names)))
        a_tmp[index] = b_tmp[index] = 0
        if np.allclose(a_tmp, b_tmp, rtol=rtol, atol=atol, equal_nan=equal_nan):
            break
        count += 1
        if count > mismatches[1] > 0:
            break
        index, rel = _find_max_violation(a_tmp, b_tmp, rtol, atol)
    degree = 'at least ' if count > mismatches[1] > 0 else ''
    return _err_msg(a, b, 'Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %s%f%%).\n%s'
                    % (worst, rtol, atol, degree, 100 * count / a.size,
                       locationError(a, b, worst_index, names, maxError=True)))


def _allclose(a, b, rtol, atol, equal_nan, chunk=1 << 20):
    """``np.allclose``, a million elements at a time when the shapes match: the temporaries then stay in cache
    (134M float32 elements: ~0.65 s instead of ~1.6 s)."""
    if np.shape(a) != np.shape(b) or np.size(a) <= chunk:
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    a, b = np.reshape(a, -1), np.reshape(b, -1)
    return all(np.allclose(a[i:i + chunk], b[i:i + chunk], rtol=rtol, atol=atol, equal_nan=equal_nan)
               for i in range(0, a.size, chunk))


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError (MXNet's text: worst error, its location and values) unless
    ``|a - b| <= atol + rtol * |b|`` elementwise. Tolerances default by dtype (see ``get_tols``)."""
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if _allclose(a, b, rtol, atol, equal_nan):
        return
    raise AssertionError(_mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """``assert_almost_equal`` with numpy's ``assert_allclose`` defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=('a', 'b'), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like ``assert_almost_equal`` but passes while the share of mismatching elements is at most ``etol``."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    close = np.isclose(a, b, rtol=rtol, atol=atol)
    if 1 - np.count_nonzero(close) / close.size > etol:
        raise AssertionError(_mismatch_report(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=('a', 'b')):
    """``assert_almost_equal`` after zeroing the positions where either array is NaN."""
    lhs, rhs = np.array(_host(a)), np.array(_host(b))
    either_nan = np.isnan(lhs) | np.isnan(rhs)
    lhs[either_nan], rhs[either_nan] = 0, 0
    assert_almost_equal(lhs, rhs, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    raised = False
    try:
        f(*args, **kwargs)
    except exception_type:
        raised = True
    if not raised:
        raise AssertionError('%s did not raise %s' % (getattr(f, '__name__', f), exception_type))


def retry(n):
    """Decorator: run a stochastic test up to ``n`` times, until it raises no AssertionError."""
    assert n > 0

    def decorate(f):
        def wrapper(*args, **kwargs):
            for attempts_left in range(n - 1, -1, -1):
                try:
                    f(*args, **kwargs)
                except AssertionError:
                    if attempts_left == 0:
                        raise  # the last attempt failed too
                    mx.nd.waitall()  # let pending work finish before trying again
                else:
                    break
        return wrapper
    return decorate


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """``assert_almost_equal`` over two (nested) tuples of arrays; None on either side is skipped."""
    if t1 is None or t2 is None:
        return
    if not isinstance(t1, tuple):
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)
        return
    for pair in zip(t1, t2):
        compare_ndarray_tuple(*pair, rtol=rtol, atol=atol)


def same_array(array1, array2):
    """Whether two NDArrays share memory (adds 1 to ``array1`` and looks at ``array2``, then restores)."""
    array1[:] += 1
    try:
        followed = same(array1.asnumpy(), array2.asnumpy())
    finally:
        array1[:] -= 1
    return followed and same(array1.asnumpy(), array2.asnumpy())


def collapse_sum_like(a, shape):
    """Sum numpy array ``a`` over the axes that ``shape`` broadcasts along, giving an array of ``shape``."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    ndim_diff = len(a.shape) - len(shape)
    axes = list(range(ndim_diff))
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1
            axes.append(i + ndim_diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


@contextmanager
def discard_stderr():
    """Silence file descriptor 2 (C-level stderr too) inside a ``with`` block."""
    try:
        fileno = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # no real descriptor (e.g. a replaced stream)
        fileno = None
    if fileno is None:
        yield
        return
    saved = os.dup(fileno)
    try:
        with open(os.devnull, 'w') as bit_bucket:
            sys.stderr.flush()
            os.dup2(bit_bucket.fileno(), fileno)
            try:
                yield
            finally:
                sys.stderr.flush()
                os.dup2(saved, fileno)
    finally:
        os.close(saved)


@contextmanager
def environment(*args):
    """Set environment variables for a ``with`` block: ``environment(name, value)`` or ``environment({...})``;
    a value of None unsets. The previous values come back afterwards, also on error."""
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = dict(args[0])
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise AssertionError('Expecting one dict arg or two args: env var name and value')

    def swap(values):
        """Install ``values``; returns what they replaced."""
        replaced = {name: os.environ.get(name) for name in values}
        for name, value in values.items():
            setenv(name, value)
        return replaced

    restore = swap(env_vars)
    try:
        yield
    finally:
        mx.nd.waitall()  # queued work may still read the variables we changed
        swap(restore)


# ---- Symbol-based checkers (need mx.sym's bind/simple_bind Executor API) --------------------------------------------

def _symbol_module(api):
    """``mx.symbol`` once it provides Symbols; until then the checkers raise, naming themselves."""
    try:
        mod = importlib.import_module('mxcompat.symbol')
    except ImportError:
        mod = None
    if mod is None or not hasattr(mod, 'Variable') or not hasattr(mod, 'Symbol'):
        raise _unsupported('mx.test_utils.' + api, 'Symbol-based checking', 'mx.sym is not implemented yet')
    return mod


def _nd_from(v, ctx, dtype):
    """An NDArray from numpy ``v`` (``dtype="asnumpy"`` keeps v's dtype); an NDArray stays as it is."""
    if isinstance(v, np.ndarray):
        return mx.nd.array(v, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype)
    return v


def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """Argument name -> NDArray (sorted by name) from a list in ``sym.list_arguments()`` order or a dict."""
    assert isinstance(location, (dict, list, tuple))
    assert dtype == 'asnumpy' or dtype in (np.float16, np.float32, np.float64)
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location.keys()) != set(names):
            raise ValueError('Symbol arguments and keys of the given location do not match.symbol args:%s, '
                             'location.keys():%s' % (str(set(names)), str(set(location.keys()))))
    else:
        location = dict(zip(names, location))
    return _sorted_dict({k: _nd_from(v, ctx, dtype) for k, v in location.items()})


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    """Auxiliary state name -> NDArray from a list in ``sym.list_auxiliary_states()`` order or a dict."""
    assert dtype == 'asnumpy' or dtype in (np.float16, np.float32, np.float64)
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states.keys()) != set(names):
            raise ValueError('Symbol aux_states names and given aux_states do not match.symbol aux_names:%s, '
                             'aux_states.keys:%s' % (str(set(names)), str(set(aux_states.keys()))))
    elif isinstance(aux_states, (list, tuple)):
        aux_states = dict(zip(names, aux_states))
    return {k: mx.nd.array(v, ctx=ctx, dtype=_host(v).dtype if dtype == 'asnumpy' else dtype)
            for k, v in aux_states.items()}


def _inputs(api, sym, location, aux_states, ctx, dtype):
    """(ctx, arguments, auxiliary states) as NDArrays for a checker; raises while mx.sym is missing."""
    assert dtype == 'asnumpy' or dtype in (np.float16, np.float32, np.float64)
    _symbol_module(api)
    ctx = default_context() if ctx is None else ctx
    return (ctx, _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype),
            _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype))


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Run ``sym`` on numpy ``inputs`` (by argument name); numpy output, or a list of them."""
    ctx = ctx or default_context()
    exe = sym.bind(ctx, args={k: array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=default_dtype()):
    """Central-difference gradient of ``sum(executor.outputs[0])`` with respect to each float argument in
    ``location`` (name -> numpy array): one pair of forward passes per element. Differs from MXNet in speed only:
    each pass writes the one element it moves into the bound array (on its device) instead of the whole array."""
    assert dtype in (np.float16, np.float32, np.float64)
    grads = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = mx.nd.array(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order='C')
    # the auxiliary states are reset before every pass (a training forward moves them), from copies on the device
    aux = None if aux_states is None else {key: mx.nd.array(val, ctx=executor.aux_dict[key].context, dtype=dtype)
                                           for key, val in aux_states.items()}

    def run():
        if aux is not None:
            for key, val in aux.items():
                val.copyto(executor.aux_dict[key])
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0].asnumpy()

    for k, v in location.items():
        if v.dtype.kind != 'f':
            continue
        arr = executor.arg_dict[k]
        dense = arr.stype == 'default'
        original = v.copy()
        flat = v.reshape(-1)

        def put(i, at, value):
            flat[i] = value
            if dense:
                arr[at] = value  # (the one element, cast to the array's dtype as mx.nd.array(v) would)
            else:
                arr[:] = mx.nd.array(v, dtype=dtype)

        for i in range(flat.size):
            at = np.unravel_index(i, v.shape)
            put(i, at, flat[i] + eps / 2.0)
            f_plus = run()
            put(i, at, flat[i] - eps)  # (from the stored, rounded value, as MXNet's helper steps)
            f_minus = run()
            grads[k].reshape(-1)[i] = (f_plus - f_minus).sum() / eps
            flat[i] = original.reshape(-1)[i]
            if dense:
                arr[at] = flat[i]
        executor.arg_dict[k][:] = mx.nd.array(original, dtype=dtype)
    return grads


def _grad_req_of(grad_nodes, names):
    if grad_nodes is None:
        return list(names), {k: 'write' for k in names}
    if isinstance(grad_nodes, (list, tuple)):
        return list(grad_nodes), {k: 'write' for k in grad_nodes}
    if isinstance(grad_nodes, dict):
        return list(grad_nodes.keys()), dict(grad_nodes)
    raise ValueError('grad_nodes must be None, a list/tuple of names or a dict of name -> grad_req, got %r'
                     % (grad_nodes,))


def _compare_grad(req, name, expected, got, before, rtol, atol, names, equal_nan=False):
    """Check one gradient against ``expected`` for its grad_req ('write', 'add' or 'null')."""
    if req == 'write':
        assert_almost_equal(expected, got, rtol, atol, names, equal_nan=equal_nan)
    elif req == 'add':
        assert_almost_equal(expected, _host(got) - before, rtol, atol, names, equal_nan=equal_nan)
    elif req == 'null':
        assert_almost_equal(before, got, rtol, atol, names, equal_nan=equal_nan)
    else:
        raise ValueError('Invalid grad_req %s for argument %s' % (req, name))


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None, grad_nodes=None,
                           use_forward_train=True, ctx=None, grad_stype_dict=None, dtype=default_dtype()):
    """Compare the backward pass of ``sym`` with central finite differences of a random projection of its
    output. ``location``: argument values (list in ``list_arguments()`` order, or dict)."""
    assert dtype in (np.float16, np.float32, np.float64)
    symbol = _symbol_module('check_numeric_gradient')
    ctx, location, aux_states = _inputs('check_numeric_gradient', sym, location, aux_states, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux_states_npy = None if aux_states is None else {k: v.asnumpy() for k, v in aux_states.items()}
    grad_nodes, grad_req = _grad_req_of(grad_nodes, sym.list_arguments())

    _, out_shape, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    out = symbol.make_loss(sym * symbol.Variable('__random_proj'))
    # the projection's elements are kept away from 0, so finite differences keep their precision
    location = dict(list(location.items())
                    + [('__random_proj', mx.nd.array(np.random.rand(*out_shape[0]) + 0.1, ctx=ctx, dtype=dtype))])
    args_grad_npy = dict([(k, np.random.normal(0, 0.01, size=location[k].shape)) for k in grad_nodes]
                         + [('__random_proj', np.random.normal(0, 0.01, size=out_shape[0]))])
    args_grad = {k: mx.nd.array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()}
    if grad_stype_dict is not None:
        assert isinstance(grad_stype_dict, dict), 'grad_stype_dict must be a dict'
        for k, v in grad_stype_dict.items():
            if k in args_grad and v != 'default':
                args_grad[k] = args_grad[k].tostype(v)  # a gradient array of that storage type, as MXNet's

    executor = out.bind(ctx, grad_req=grad_req, args=location, args_grad=args_grad, aux_states=aux_states)
    if len(executor.arg_arrays) != len(location):
        raise ValueError('Executor arg_arrays and and location len do not match.Got %d inputs and %d locations'
                         % (len(executor.arg_arrays), len(location)))
    executor.forward(is_train=True)
    assert len(executor.outputs) == 1
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    if dtype in (np.float32, np.float16):
        assert eps >= 1e-5  # finite differences need precision
    executor.backward()
    symbolic_grads = executor.grad_dict
    numeric_gradients = numeric_grad(executor, location_npy, aux_states_npy, eps=eps,
                                     use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        _compare_grad(grad_req[name], name, numeric_gradients[name], symbolic_grads[name], args_grad_npy[name],
                      rtol, atol, ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Bind ``sym`` at ``location``, run forward (inference) and compare each output with ``expected``
    (list in output order, or dict by output name). Returns the outputs."""
    ctx, location, aux_states = _inputs('check_symbolic_forward', sym, location, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    args_grad_data = {k: mx.nd.zeros(v.shape, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype)
                      for k, v in location.items()}
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux_states)
    executor.forward(is_train=False)
    for name, expect, output in zip(sym.list_outputs(), expected, executor.outputs):
        assert_almost_equal(expect, output, rtol, atol, ('EXPECTED_%s' % name, 'FORWARD_%s' % name),
                            equal_nan=equal_nan)
    return executor.outputs


def _out_grads(out_grads, ctx, dtype):
    if isinstance(out_grads, (tuple, list)):
        return [_nd_from(g, ctx, dtype) for g in out_grads]
    if isinstance(out_grads, dict):
        return {k: _nd_from(g, ctx, dtype) for k, g in out_grads.items()}
    assert out_grads is None
    return None


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req='write', ctx=None, grad_stypes=None, equal_nan=False, dtype=default_dtype()):
    """Bind ``sym`` at ``location``, run forward (training) and backward with ``out_grads``, and compare the
    argument gradients with ``expected`` (list in argument order, or dict). Returns the gradient arrays."""
    ctx, location, aux_states = _inputs('check_symbolic_backward', sym, location, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    # gradient buffers start dirty (deterministically) so that 'add' and 'null' are checked
    args_grad_npy = {k: np.random.normal(size=np.shape(v)) for k, v in _sorted_items(expected)}
    args_grad_data = {}
    for k, v in args_grad_npy.items():
        args_grad_data[k] = mx.nd.array(v, ctx=ctx, dtype=_host(expected[k]).dtype if dtype == 'asnumpy' else dtype)
        if grad_stypes is not None and grad_stypes.get(k) not in (None, 'default'):
            args_grad_data[k] = args_grad_data[k].tostype(grad_stypes[k])  # as MXNet's, of that storage type
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux_states, grad_req=grad_req)
    executor.forward(is_train=True)
    executor.backward(_out_grads(out_grads, ctx, dtype))
    for name in expected:
        _compare_grad(grad_req[name], name, expected[name], args_grad_data[name], args_grad_npy[name], rtol, atol,
                      ('EXPECTED_%s' % name, 'BACKWARD_%s' % name), equal_nan=equal_nan)
    return args_grad_data


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ='whole', **kwargs):
    """Seconds per run of ``sym``: forward+backward (``typ='whole'``) or forward only (``'forward'``)."""
    _symbol_module('check_speed')
    bind_args = dict(ctx=default_context() if ctx is None else ctx, grad_req='write' if grad_req is None else grad_req)
    if location is not None:
        assert isinstance(location, dict), 'Expect dict, get "location"=%s' % str(location)
        exe = sym.simple_bind(**bind_args, **{k: v.shape for k, v in location.items()})
    else:
        exe = sym.simple_bind(**bind_args, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0) for k, arr in exe.arg_dict.items()}
    for name, value in location.items():
        target = exe.arg_dict[name]
        target[:] = value.astype(target.dtype)
    if typ not in ('whole', 'forward'):
        raise ValueError('typ can only be "whole" or "forward".')
    train = typ == 'whole'

    def step():
        exe.forward(is_train=train)
        if train:
            exe.backward(out_grads=exe.outputs)

    step()  # warm up
    for output in exe.outputs:
        output.wait_to_read()
    tic = time.time()
    for _ in range(N):
        step()
    mx.nd.waitall()
    return (time.time() - tic) / N


def _smaller_dtype(dt1, dt2):
    """The less precise of two dtypes (dt1 if dt2 is None)."""
    return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2


def _report(raise_on_err, err, header):
    print(header)
    traceback.print_exc()
    if raise_on_err:
        raise err
    print(str(err))


def check_consistency(sym, ctx_list, scale=1.0, grad_req='write', arg_params=None, aux_params=None, rtol=None,  # noqa: C901 (MXNet's check_consistency signature: one branch per option)
                      atol=None, raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Check that ``sym`` (or one symbol per entry) gives the same outputs and gradients for every entry of
    ``ctx_list`` (dicts of ``simple_bind`` arguments: ctx, input shapes, type_dict). Returns the ground truth."""
    symbol = _symbol_module('check_consistency')
    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if isinstance(sym, symbol.Symbol) else list(sym)
    assert len(syms) == len(ctx_list)
    arg_names, output_names = syms[0].list_arguments(), syms[0].list_outputs()
    for other in syms[1:]:
        assert other.list_arguments() == arg_names
        assert other.list_outputs() == output_names
    exe_list = [one.simple_bind(grad_req=grad_req, **bind) for one, bind in zip(syms, ctx_list)]

    def random_value(shape):
        if use_uniform:
            bound = 0.92 * scale
            return np.random.uniform(low=-bound, high=bound, size=shape).astype(rand_type)
        return np.random.normal(size=shape, scale=scale).astype(rand_type)

    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    first = exe_list[0]
    # draw in sorted name order so that a seeded run is reproducible
    for key, arr in _sorted_items(first.arg_dict):
        if key not in arg_params:
            arg_params[key] = random_value(arr.shape)
    for key in first.aux_dict:
        aux_params.setdefault(key, 0)
    for exe in exe_list:
        for values, targets in ((arg_params, exe.arg_dict), (aux_params, exe.aux_dict)):
            for key, arr in targets.items():
                arr[:] = values[key]
        if grad_req == 'add':
            for grad in exe.grad_arrays:
                grad[:] = np.zeros(grad.shape, dtype=grad.dtype)

    for exe in exe_list:
        exe.forward(is_train=False)
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    gt_idx = int(np.argmax([d.itemsize for d in dtypes]))  # the first most precise executor is the reference

    def truth():
        # read after each pass, so executors that return fresh output arrays work too
        if ground_truth is not None:
            return ground_truth
        found = dict(exe_list[gt_idx].output_dict)
        if grad_req != 'null':
            found.update(exe_list[gt_idx].grad_dict)
        return found

    gt = truth()
    for i, exe in enumerate(exe_list):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names, exe.outputs):
            try:
                assert_almost_equal(arr, gt[name], rtol=rtol, atol=atol, equal_nan=equal_nan)
            except AssertionError as e:
                _report(raise_on_err, e, 'Predict Err: ctx %d vs ctx %d at %s' % (i, gt_idx, name))

    if grad_req != 'null':
        for exe in exe_list:
            exe.forward(is_train=True)
        # every executor gets the first executor's outputs, cast to the least precise dtype, as head gradients
        least = [out.dtype for out in exe_list[0].outputs]
        for exe in exe_list:
            least = [_smaller_dtype(out.dtype, dt) for out, dt in zip(exe.outputs, least)]
        golden = [out.astype(dt).asnumpy() for out, dt in zip(exe_list[0].outputs, least)]
        for exe in exe_list:
            exe.backward([mx.nd.array(g, ctx=out.context, dtype=out.dtype) for g, out in zip(golden, exe.outputs)])
        gt = truth()
        others = [(i, exe) for i, exe in enumerate(exe_list) if i != gt_idx]
        for i, exe in others:
            for name, arr in zip(output_names + arg_names, exe.outputs + exe.grad_arrays):
                gtarr = gt[name]
                if gtarr is None:
                    assert arr is None
                    continue
                try:
                    rt, at = rtol, atol
                    # float16 data makes float32 gradients (e.g. BatchNorm's gamma) as imprecise as float16
                    arr_dt, gt_dt = _smaller_dtype(arr.dtype, dtypes[i]), _smaller_dtype(gtarr.dtype, dtypes[gt_idx])
                    if arr_dt != arr.dtype or gt_dt != gtarr.dtype:
                        rt, at = get_tols(arr.astype(arr_dt), gtarr.astype(gt_dt), rtol, atol)
                    assert_almost_equal(arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan)
                except AssertionError as e:
                    _report(raise_on_err, e, 'Train Err: {} {} ctx {} vs {} {} ctx {} at {}'.format(
                        np.dtype(arr.dtype).name, arr.context, i, np.dtype(gtarr.dtype).name, gtarr.context,
                        gt_idx, name))
    return gt


def same_symbol_structure(sym1, sym2):
    """Whether the nodes of two symbols' graphs have the same operators, node by node."""
    nodes1 = json.loads(sym1.tojson())['nodes']
    nodes2 = json.loads(sym2.tojson())['nodes']
    return all(n1['op'] == n2['op'] for n1, n2 in zip(nodes1, nodes2))


def _optimizer_pair(shape, dtype, stype, density, ctx):
    """(dense copy, array of storage ``stype``) of one random array, as MXNet's compare_optimizer draws them."""
    if stype == 'default':
        a = mx.random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        return a.copyto(ctx), a
    if stype in ('row_sparse', 'csr'):
        a = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return a.copyto(ctx).tostype('default'), a
    raise Exception('type not supported yet')


def compare_optimizer(opt1, opt2, shape, dtype, w_stype='default', g_stype='default', rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Apply one update of ``opt1`` and ``opt2`` to the same random weight and gradient and compare the
    results (and states). A list of shapes checks ``opt2``'s multi-tensor update against ``opt1``."""
    ctx = default_context()
    if not isinstance(shape, list):
        assert ntensors == 1
        # opt1 gets dense copies, opt2 the arrays of the given storage (a sparse weight has every row stored)
        w1, w2 = _optimizer_pair(shape, dtype, w_stype, 1, ctx)
        g1, g2 = _optimizer_pair(shape, dtype, g_stype, None, ctx)
        copies = [(w1, g1), (w2, g2)]
        states = [opt.create_state_multi_precision(0, w) for opt, (w, _) in zip((opt1, opt2), copies)]
        if compare_states:
            compare_ndarray_tuple(*states)
        for opt, (w, g), state in zip((opt1, opt2), copies, states):
            opt.update_multi_precision(0, w, g, state)
        if compare_states:
            compare_ndarray_tuple(*states, rtol=rtol, atol=atol)
        assert_almost_equal(copies[0][0], copies[1][0], rtol=rtol, atol=atol)
        return
    # multi-tensor case: opt2 updates every tensor in one call, opt1 one tensor at a time
    ref_w = tuple(mx.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    ref_g = tuple(mx.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    multi_w = tuple(w.copy() for w in ref_w)
    multi_g = tuple(g.copy() for g in ref_g)
    indices = list(range(ntensors))
    multi_states = [opt2.create_state_multi_precision(0, multi_w[idx]) for idx in indices]
    opt2.update_multi_precision(indices, multi_w, multi_g, multi_states)
    for idx in indices:
        ref_state = opt1.create_state_multi_precision(idx, ref_w[idx])
        opt1.update_multi_precision(idx, ref_w[idx], ref_g[idx], ref_state)
        if compare_states:
            compare_ndarray_tuple(ref_state, multi_states[idx], rtol, atol)
        compare_ndarray_tuple(ref_w[idx], multi_w[idx], rtol, atol)


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1E-4, atol=1E-4):
    """Check that a HybridBlock built by ``net_builder(prefix='net_')`` gives the same outputs (and input
    gradients) with and without ``hybridize()``, and matches ``numpy_func`` if given. Inputs must not be random.
    Runs in the legacy semantics (MXNet runs it under ``use_np``)."""
    class _Saved(mx.init.Initializer):
        """Initializes every parameter from the values the first network got."""
        def __init__(self, values):
            super().__init__()
            self._values = values

        def _init_from_saved(self, name, arr):
            arr[:] = self._values[name]

        _init_weight = _init_bias = _init_gamma = _init_beta = _init_default = _init_from_saved

    reference = {'init': None, 'out': None, 'grads': None}

    def run_once(hybridize, with_grad):
        """Build a fresh network, run it once; returns (output, copies of the inputs)."""
        net = net_builder(prefix='net_')
        net.initialize(*(() if reference['init'] is None else (reference['init'],)))
        if hybridize:
            net.hybridize()
        inputs = [x.copy() for x in data_l]
        if not with_grad:
            out = net(*inputs)
        else:
            for x in inputs:
                x.attach_grad()
            with mx.autograd.record():
                out = net(*inputs)
            out.backward(out)
        if reference['init'] is None:
            reference['init'] = _Saved({k: v.data().asnumpy() for k, v in net.collect_params().items()})
        return out, inputs

    grad_modes = (False, True) if test_grad else (False,)
    for hybridize, with_grad in itertools.product((False, True), grad_modes):
        out, inputs = run_once(hybridize, with_grad)
        got = out.asnumpy()
        if reference['out'] is None:
            reference['out'] = got
        else:
            assert_almost_equal(got, reference['out'], rtol=rtol, atol=atol)
        if not with_grad:
            continue
        grads = [x.grad.asnumpy() for x in inputs]
        if reference['grads'] is None:
            reference['grads'] = grads
            continue
        for got_grad, want_grad in zip(grads, reference['grads']):
            assert_almost_equal(got_grad, want_grad, rtol=rtol, atol=atol)
    saved_out = reference['out']
    if numpy_func is not None:
        assert_almost_equal(saved_out, numpy_func(*[x.asnumpy() for x in data_l]), rtol=rtol, atol=atol)


# ---- platform ------------------------------------------------------------------------------------------------------

def is_aarch64_run():
    """Whether the machine is aarch64."""
    return platform.machine() == 'aarch64'


def is_cd_run():
    """Whether this is a Continuous Delivery run (``CD_JOB=1``)."""
    return os.environ.get('CD_JOB') == '1'


def list_gpus():
    """``range`` over the GPU ids torch sees (empty without CUDA)."""
    return range(mx.util.get_gpu_count())


_features = Features()


def has_tvm_ops():
    """False: mxcompat has no TVM-generated operators."""
    return _features.is_enabled('TVM_OP')


def is_op_runnable():
    """True: without TVM operators every operator runs on every context."""
    return True


def get_im2rec_path(home_env='MXNET_HOME'):
    """``$MXNET_HOME/tools/im2rec.py`` if that file exists; mxcompat ships no im2rec.py."""
    if home_env in os.environ:
        path = os.path.join(os.environ[home_env], 'tools', 'im2rec.py')
        if os.path.isfile(path):
            return path
    raise _unsupported('mx.test_utils.get_im2rec_path', 'tools/im2rec.py',
                       'mxcompat does not ship the im2rec tool; set $%s to an MXNet checkout that has it' % home_env)


# ---- downloads: only files already on disk --------------------------------------------------------------------------

def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """The local file name for ``url`` (``fname``/``dirname`` as in MXNet) if that file already exists.
    Differs from MXNet: mxcompat never downloads; a missing file (or ``overwrite=True``) raises."""
    assert retries >= 0, 'Number of retries should be at least 0'
    fname = url.split('/')[-1] if fname is None else fname
    if dirname is not None:
        fname = os.path.join(dirname, fname)
    folder = os.path.dirname(fname) if dirname is None else dirname
    if folder and not os.path.exists(folder):
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            raise OSError('failed to create ' + folder)
    if not overwrite and os.path.exists(fname):
        logging.info('%s exists, skipping download', fname)
        return fname
    raise _unsupported('mx.test_utils.download', 'downloading %s' % url,
                       'mxcompat does not use the network; put the file at %s first' % os.path.abspath(fname))


def _default_models():
    """MXNet's model name -> {'symbol': url, 'params': url} table (data.mxnet.io)."""
    base = 'http://data.mxnet.io/models/'
    paths = {'imagenet1k-inception-bn': ('imagenet/inception-bn/', 'Inception-BN', '0126')}
    for depth in (18, 34, 50, 101, 152):
        paths['imagenet1k-resnet-%d' % depth] = ('imagenet/resnet/%d-layers/' % depth, 'resnet-%d' % depth, '0000')
    for name in ('50', '101', '101-64x4d'):
        paths['imagenet1k-resnext-' + name] = ('imagenet/resnext/%s-layers/' % name.split('-')[0],
                                               'resnext-' + name, '0000')
    paths['imagenet11k-resnet-152'] = ('imagenet-11k/resnet-152/', 'resnet-152', '0000')
    for depth in ('152', '50'):
        paths['imagenet11k-place365ch-resnet-' + depth] = ('imagenet-11k-place365-ch/', 'resnet-' + depth, '0000')
    return {name: {'symbol': base + d + f + '-symbol.json', 'params': base + d + f + '-%s.params' % epoch}
            for name, (d, f, epoch) in paths.items()}


def download_model(model_name, dst_dir='./', meta_info=None):
    """(path prefix, 0) for a model whose ``<dst_dir>/<model_name>-symbol.json`` and ``-0000.params`` files are
    already there; (None, 0) for a name neither ``meta_info`` nor MXNet's model list has. Nothing is downloaded."""
    meta_info = dict(_default_models() if meta_info is None else meta_info)
    if model_name not in meta_info:
        return (None, 0)
    if not os.path.isdir(dst_dir):
        os.mkdir(dst_dir)
    urls = dict(meta_info[model_name])
    prefix = os.path.join(dst_dir, model_name)
    for key, suffix, complaint in (('symbol', '-symbol.json', 'missing symbol url'),
                                   ('params', '-0000.params', 'mssing parameter file url')):
        assert key in urls, complaint
        download(urls[key], prefix + suffix)
    return (prefix, 0)


_MNIST_URL = 'http://data.mxnet.io/data/mnist/'


def _read_mnist(label_url, image_url):
    with gzip.open(download(label_url)) as flbl:
        struct.unpack('>II', flbl.read(8))
        label = np.frombuffer(flbl.read(), dtype=np.int8)
    with gzip.open(download(image_url), 'rb') as fimg:
        _, _, rows, cols = struct.unpack('>IIII', fimg.read(16))
        image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), rows, cols)
        image = image.reshape(image.shape[0], 1, 28, 28).astype(np.float32) / 255
    return label, image


def get_mnist():
    """MNIST as a dict of numpy arrays (train/test data and labels), from the four ``*-ubyte.gz`` files in the
    current directory (mxcompat does not download them)."""
    train_lbl, train_img = _read_mnist(_MNIST_URL + 'train-labels-idx1-ubyte.gz',
                                       _MNIST_URL + 'train-images-idx3-ubyte.gz')
    test_lbl, test_img = _read_mnist(_MNIST_URL + 't10k-labels-idx1-ubyte.gz', _MNIST_URL + 't10k-images-idx3-ubyte.gz')
    return {'train_data': train_img, 'train_label': train_lbl, 'test_data': test_img, 'test_label': test_lbl}


def get_mnist_pkl():
    """Needs ``data/mnist.pkl.gz`` to exist already."""
    if not os.path.isdir('data'):
        os.makedirs('data')
    if not os.path.exists('data/mnist.pkl.gz'):
        download('http://deeplearning.net/data/mnist/mnist.pkl.gz', dirname='data')


def _extract_zip_into_data(url, wanted):
    if not os.path.isdir('data'):
        os.makedirs('data')
    if not all(os.path.exists(os.path.join('data', f)) for f in wanted):
        with zipfile.ZipFile(download(url, dirname='data')) as zf:
            zf.extractall('data')


def get_mnist_ubyte():
    """Unpacks ``data/mnist.zip`` into ``data/`` unless the four ubyte files are there already."""
    _extract_zip_into_data('http://data.mxnet.io/mxnet/data/mnist.zip',
                           ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
                            't10k-labels-idx1-ubyte'])


def get_cifar10():
    """Unpacks ``data/cifar10.zip`` into ``data/`` unless ``data/cifar/{train,test}.{rec,lst}`` exist."""
    _extract_zip_into_data('http://data.mxnet.io/mxnet/data/cifar10.zip',
                           ['cifar/train.rec', 'cifar/test.rec', 'cifar/train.lst', 'cifar/test.lst'])


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, val) ``mx.io.MNISTIter`` over the ubyte files of ``get_mnist_ubyte``."""
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat, num_parts=num_parts,
                  part_index=part_index)
    train = mx.io.MNISTIter(image='data/train-images-idx3-ubyte', label='data/train-labels-idx1-ubyte',
                            shuffle=True, **common)
    val = mx.io.MNISTIter(image='data/t10k-images-idx3-ubyte', label='data/t10k-labels-idx1-ubyte', **common)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """Unpack ``data_dir/data_origin_name`` (which must exist, or be the file of ``url`` in ``data_dir``)."""
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(data_origin_name) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Decompress ``data_dir/data_origin_name`` into ``data_dir/data_name`` (then delete the former) unless the
    latter exists; the compressed file must already be there."""
    data_name = os.path.join(data_dir, data_name)
    if not os.path.exists(data_name):
        data_origin_name = download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(data_origin_name, 'rb') as src, open(data_name, 'wb') as dst:
            for line in src:
                dst.write(line)
        os.remove(data_origin_name)


# ---- statistics ------------------------------------------------------------------------------------------------------

def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equal-probability buckets [(ppf(i/n), ppf((i+1)/n))] and their probabilities."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of ``generator(nsamples)`` is within 3 standard errors of ``mu``."""
    sample_mean = np.array(generator(nsamples)).mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return (sample_mean > mu - bound) and (sample_mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance of ``generator(nsamples)`` is within 3 standard errors of ``sigma**2``."""
    sample_var = np.array(generator(nsamples)).var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return (sample_var > sigma ** 2 - bound) and (sample_var < sigma ** 2 + bound)


def _chi2_sf(stat, dof):
    """P(X > stat) for a chi-square X with ``dof`` degrees of freedom (the regularized upper gamma)."""
    return float(torch.special.gammaincc(torch.tensor(dof / 2.0, dtype=torch.float64),
                                         torch.tensor(stat / 2.0, dtype=torch.float64)))


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Chi-square test of ``generator(nsamples)`` against bucket probabilities ``probs``. ``buckets``: ascending,
    disjoint (low, high) ranges for a continuous distribution, or the possible values of a discrete one.
    Returns (p value, observed counts, expected counts)."""
    assert isinstance(buckets, list)
    samples = generator(nsamples)
    assert len(probs) == len(buckets)
    continuous = isinstance(buckets[0], (list, tuple))
    if continuous:
        edges = np.zeros((len(buckets) * 2,), dtype=np.float32)
        for i, (low, high) in enumerate(buckets):
            assert low <= high
            if i < len(buckets) - 1:
                assert high <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = low, high
        # an odd position means inside bucket pos // 2; an even one falls between buckets
        ids = np.searchsorted(edges, samples, side='right') // 2
    else:
        ids = np.array(samples)
    expected_freq = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    obs_freq = np.zeros(shape=len(buckets), dtype=np.int64)
    for i, bucket in enumerate(buckets):
        obs_freq[i] = (ids == (i if continuous else bucket)).sum()
    stat = float(np.sum((obs_freq - expected_freq) ** 2 / expected_freq.astype(np.float64)))
    return _chi2_sf(stat, len(buckets) - 1), obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Run ``chi_square_check`` ``nrepeat`` times; raise AssertionError unless at least ``success_rate`` of the
    p values exceed ``alpha``. Returns the p values."""
    results = [chi_square_check(generator=generator, buckets=buckets, probs=probs, nsamples=nsamples)
               for _ in range(nrepeat)]
    p_values = [r[0] for r in results]
    if (np.array(p_values) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError('Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s.\nbuckets=%s, '
                             'probs=%s' % (str(p_values), str([r[1] for r in results]), str([r[2] for r in results]),
                                           str(buckets), str(probs)))
    return p_values


# ---- matrices with known spectra (numpy) -----------------------------------------------------------------------------

def new_matrix_with_real_eigvals_2d(n):
    """A well-conditioned n x n matrix with real eigenvalues in (-10, 10): Q^-1 D Q with Q a scaled
    Householder reflection of condition number < 3."""
    while True:
        d = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1., 1., n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(np.eye(n) - 2 * np.matmul(v, v.T), d)
        if np.linalg.cond(q, 2) < 3:
            break
    return np.matmul(np.matmul(np.linalg.inv(q), np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def _stack_square(shape, make_one):
    """``make_one(n)`` called once per leading index of ``shape`` (..., n, n), stacked into that shape."""
    batch = int(np.prod(shape[:-2], dtype=np.int64))
    return np.stack([make_one(shape[-1]) for _ in range(batch)]).reshape(shape)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of ``new_matrix_with_real_eigvals_2d`` matrices of ``shape`` (..., n, n)."""
    return _stack_square(shape, new_matrix_with_real_eigvals_2d)


def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix (Q of the QR decomposition of X^T X)."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix Q^T D Q with eigenvalues in (-10, 10)."""
    q = new_orthonormal_matrix_2d(n)
    return np.matmul(np.matmul(q.T, np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of ``new_sym_matrix_with_real_eigvals_2d`` matrices of ``shape`` (..., n, n)."""
    return _stack_square(shape, new_sym_matrix_with_real_eigvals_2d)


# ---- names resolved on first use (optional packages, namespaces being built) ----------------------------------------

def _make_dummy_iter():
    class DummyIter(mx.io.DataIter):
        """A data iterator that returns the first batch of ``real_iter`` forever (for speed tests)."""

        def __init__(self, real_iter):
            super().__init__()
            self.real_iter = real_iter
            # keep the wrapped iterator's description, then take its first batch once
            for attr in ('batch_size', 'provide_data', 'provide_label'):
                setattr(self, attr, getattr(real_iter, attr))
            self.the_batch = next(real_iter)

        def next(self):
            return self.the_batch

        def __iter__(self):
            return self

    return DummyIter


def _lazy(name):
    if name == 'npt':
        return importlib.import_module('numpy.testing')
    if name in ('ss', 'requests'):
        try:
            return importlib.import_module('scipy.stats' if name == 'ss' else 'requests')
        except ImportError:
            return None
    if name == 'Symbol':
        return _symbol_module('Symbol').Symbol
    if name == 'np_symbol':
        return importlib.import_module('mxcompat.symbol.numpy')._Symbol
    if name == 'DummyIter':
        return _make_dummy_iter()
    raise AttributeError(name)


_LAZY = ('npt', 'ss', 'requests', 'Symbol', 'np_symbol', 'DummyIter')


def __getattr__(name):
    if name == '__all__':
        # ``from mxnet.test_utils import *`` takes every public name, as MXNet's module has no __all__;
        # names whose package or namespace is not available are left out.
        names = [k for k in globals() if not k.startswith('_')]
        for k in _LAZY:
            try:
                __getattr__(k)
            except Exception:
                continue
            names.append(k)
        return names
    if name in _LAZY:
        value = _lazy(name)
        globals()[name] = value
        return value
    raise AttributeError("module 'mxnet.test_utils' has no attribute %r" % name)
