"""Attribute parsing: MXNet's parser rejects unknown names, except on operators that have no parameters at all."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError


def test_parameterless_ops_ignore_extra_keywords_as_mxnet():
    a, b = mx.nd.ones((2, 3)), mx.nd.zeros((2, 1))
    # MXNet 1.9.1: broadcast_maximum(a, b, axis=1) -> (2, 3); relu(a, foo=1) and elemwise_add(a, a, foo=1) run
    assert mx.nd.broadcast_maximum(a, b, axis=1).shape == (2, 3)
    np.testing.assert_array_equal(mx.nd.relu(a, foo=1).asnumpy(), a.asnumpy())
    np.testing.assert_array_equal(mx.nd.elemwise_add(a, a, foo=1).asnumpy(), 2 * a.asnumpy())
    s = mx.sym.broadcast_maximum(mx.sym.var('a'), mx.sym.var('b'), axis=1)
    assert s.list_attr() == {'axis': '1'}  # kept on the node, as MXNet keeps it


def test_ops_with_parameters_reject_unknown_keywords():
    a = mx.nd.ones((2, 3))
    with pytest.raises(MXNetError, match="sum.*unknown argument 'foo'"):
        mx.nd.sum(a, foo=1)
    with pytest.raises(MXNetError, match="dot.*unknown argument 'foo'"):
        mx.nd.dot(a, a.T, foo=1)
