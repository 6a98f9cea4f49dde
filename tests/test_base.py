"""``mxnet.base``'s C API names: the ctypes types, handles and helpers as MXNet defines them; calls into ``_LIB``
(MXNet's C library, which mxcompat does not have) raise naming the function."""
import ctypes

import pytest

from mxcompat import base


def test_ctypes_names_are_mxnets():
    assert base.mx_uint is ctypes.c_uint and base.mx_int is ctypes.c_int and base.mx_float is ctypes.c_float
    assert base.SymbolHandle is ctypes.c_void_p and base.NDArrayHandle is ctypes.c_void_p
    assert base.c_str('ab').value == b'ab'
    assert list(base.c_array(base.mx_uint, [1, 2, 3])) == [1, 2, 3]
    assert [s for s in base.c_str_array(['x', 'yz'])] == [b'x', b'yz']
    base.check_call(0)
    with pytest.raises(base.MXNetError):
        base.check_call(-1)


def test_calls_into_the_c_library_raise_naming_the_function():
    # MXNet's own tests import these names (mkl/test_subgraph.py); only a call needs the library
    with pytest.raises(NotImplementedError, match=r'_LIB\.MXSymbolCreateFromJSON'):
        base._LIB.MXSymbolCreateFromJSON
    with pytest.raises(AttributeError):
        base._LIB.__wrapped__
