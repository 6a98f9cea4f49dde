"""mx.np / mx.npx: importable, every use raises naming the API (mxcompat has the legacy mx.nd semantics only)."""
import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError


def test_np_and_npx_import_and_name_the_missing_api():
    assert mx.np is mx.numpy and mx.npx is mx.numpy_extension
    with pytest.raises(MXNetNotImplementedError, match=r'mx\.np\.zeros'):
        mx.np.zeros((2,))
    with pytest.raises(MXNetNotImplementedError, match=r'mx\.npx\.relu'):
        mx.npx.relu
    with pytest.raises(MXNetNotImplementedError, match=r'mx\.np\.ndarray'):
        mx.np.ndarray((2,))


def test_no_legacy_array_is_an_np_array():
    assert not isinstance(mx.nd.ones((2,)), mx.np.ndarray)


def test_set_np_shape_works_array_raises():
    mx.npx.set_np(shape=False, array=False)
    mx.npx.reset_np()
    assert not mx.npx.is_np_array() and not mx.npx.is_np_shape()
    mx.npx.set_np(shape=True, array=False)
    try:
        assert mx.npx.is_np_shape() and mx.util.is_np_shape() and not mx.npx.is_np_array()
    finally:
        mx.npx.reset_np()
    assert not mx.util.is_np_shape()
    with pytest.raises(MXNetNotImplementedError, match='array=True'):
        mx.npx.set_np()
    with pytest.raises(MXNetNotImplementedError, match='dtype=True'):
        mx.npx.set_np(shape=True, array=False, dtype=True)
    assert not mx.util.is_np_shape()
