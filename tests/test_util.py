"""mx.util: NumPy shape, array and default-dtype semantics on/off; GPU and environment helpers; ufunc keyword
checks as MXNet 1.9.1."""
import json
import os

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import util

GOLD = json.load(open(os.path.join(os.path.dirname(__file__), 'fixtures', 'test_utils', 'test_utils.json')))


def test_bound_as_mx_util():
    assert mx.util is util


def test_legacy_semantics_are_the_state():
    assert [util.is_np_shape(), util.is_np_array(), util.set_np_shape(False)] == GOLD['misc']['util_state']
    with util.np_shape(False), util.np_array(False):
        assert not util.is_np_shape() and not util.is_np_array()
    util.reset_np()
    util.set_np(shape=False, array=False)


@pytest.fixture(autouse=True)
def _legacy_after():
    yield
    util.reset_np()


def test_numpy_array_semantics_switch_on_and_off():
    util.set_np()
    assert util.is_np_shape() and util.is_np_array() and not util.is_np_default_dtype()
    with util.np_array(False):
        assert not util.is_np_array()
        with util.np_array(True):
            assert util.is_np_array()
    assert util.is_np_array()
    util.reset_np()
    assert not util.is_np_shape() and not util.is_np_array()
    util.set_np(dtype=True)
    assert util.is_np_default_dtype()
    util.reset_np()
    assert not util.is_np_default_dtype()

    @util.use_np
    def inside():
        return util.is_np_shape(), util.is_np_array()
    assert inside() == (True, True) and not util.is_np_array()


def test_numpy_shape_semantics_switch_on_and_off():
    assert util.set_np_shape(True) is False and util.is_np_shape() is True
    assert mx.is_np_shape() and mx.util.set_np_shape(False) is True and not mx.is_np_shape()
    util.set_np(shape=True, array=False)
    assert util.is_np_shape() and not util.is_np_array()
    util.reset_np()
    assert not util.is_np_shape()
    with mx.np_shape(True):
        assert util.is_np_shape()
    assert not util.is_np_shape()


def test_set_np_array_without_shape_is_a_value_error_like_mxnet():
    kind, msg = GOLD['errors']['set_np_bad']
    with pytest.raises(ValueError, match=msg):
        util.set_np(shape=False, array=True)


def test_use_np_shape_and_use_np_array_run_in_their_scopes():
    @util.use_np
    def f(x):
        return x, util.is_np_array(), util.is_np_shape()

    @util.use_np_shape
    class Block:
        def __init__(self):
            self.v = util.is_np_shape()

        @property
        def value(self):
            return util.is_np_shape()

        @staticmethod
        def make():
            return util.is_np_shape()

    @util.use_np_array
    def g():
        return util.is_np_array()

    assert f.__name__ == 'f'
    assert Block().v and Block().value and Block.make() and not util.is_np_shape()
    assert f(1) == (1, True, True) and g() is True and not util.is_np_array()
    with pytest.raises(TypeError, match='use_np_shape can only decorate'):
        util.use_np_shape(3)


def test_set_module():
    @util.set_module('mxnet.numpy')
    def h():
        pass

    assert h.__module__ == 'mxnet.numpy'
    assert util.set_module(None)(h) is h


def test_np_ufunc_legal_option_matches_mxnet():
    values = {'None': None, 'False': False, 'unsafe': 'unsafe', 'bogus': 'bogus', 'C': 'C', '1': 1,
              'float32': 'float32', "<class 'numpy.float64'>": np.float64, 'complex64': 'complex64'}
    for key, value, legal in GOLD['misc']['ufunc_legal']:
        assert util.np_ufunc_legal_option(key, values[value]) == legal, (key, value)


def unary(x, out=None):
    return ('u', x, out)


def binary(x1, x2, out=None):
    return ('b', x1, x2, out)


def test_wrap_np_funcs_match_mxnet():
    wu, wb = util.wrap_np_unary_func(unary), util.wrap_np_binary_func(binary)
    assert wu.__name__ == 'unary' and wb.__name__ == 'binary'
    assert wu(1, casting='same_kind', where=True) == ('u', 1, None)
    assert wb(1, 2, out=5, subok=True) == ('b', 1, 2, 5)
    g = GOLD['errors']
    cases = {'unary_bad_key': lambda: wu(1, foo=1), 'unary_legal': lambda: wu(1, casting='unsafe'),
             'unary_not_understood': lambda: wu(1, casting='bogus'), 'binary_legal': lambda: wb(1, 2, dtype='float32')}
    for key, call in cases.items():
        with pytest.raises(Exception) as e:
            call()
        assert [type(e.value).__name__, str(e.value)] == g[key], key
    assert g['binary_not_understood'] is None and wb(1, 2, subok=1) == ('b', 1, 2, None)
    with pytest.raises(TypeError, match='subok 2 not understood'):
        wb(1, 2, subok=2)


def test_gpu_queries_follow_torch():
    assert util.get_gpu_count() == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match='CUDA is not available'):
            util.get_gpu_memory(0)
    with pytest.raises(ValueError, match='Expecting a gpu context'):
        util.get_cuda_compute_capability(mx.cpu())


def test_getenv_setenv_makedirs(tmp_path):
    name = 'MXCOMPAT_UTIL_TEST'
    util.setenv(name, 'v')
    assert util.getenv(name) == 'v' == os.environ[name]
    util.setenv(name, None)
    assert util.getenv(name) is None and name not in os.environ
    d = tmp_path / 'a' / 'b'
    util.makedirs(str(d))
    util.makedirs(str(d))
    assert d.is_dir()
