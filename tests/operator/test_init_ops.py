"""Array-creating operators (mxcompat/operator/init_ops.py): arange values and dtypes against MXNet 1.9.1
(tests/fixtures/ops_conformance/gen_ops_conformance.py: integer dtypes truncate start and step, uint8 wraps, float32
computed in float32), arange/zeros/ones in symbols with shapes completed by inference, and the infer_range gap."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError

with open(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'ops_conformance', 'goldens.json')) as _f:
    ARANGE = json.load(_f)['arange']


@pytest.mark.parametrize('dtype', sorted({c['dtype'] for c in ARANGE}))
def test_arange_matches_mxnet(dtype):
    for case in (c for c in ARANGE if c['dtype'] == dtype):
        got = mx.nd.arange(*case['args'], repeat=case['repeat'], dtype=dtype)
        assert got.dtype == np.dtype(case['out_dtype'])
        np.testing.assert_array_equal(got.asnumpy(), np.array(case['values'], dtype=case['out_dtype']),
                                      err_msg=str(case['args']))
        s = mx.sym.arange(*case['args'], repeat=case['repeat'], dtype=dtype)
        assert s.infer_shape()[1] == [(len(case['values']),)]
        out = s.bind(mx.cpu(), {}).forward()[0]
        np.testing.assert_array_equal(out.asnumpy(), got.asnumpy())


def test_arange_infer_range_shape_from_consumer_and_gap():
    s = mx.sym.elemwise_add(mx.sym.arange(start=0, stop=None, infer_range=True), mx.sym.zeros(shape=[5]))
    assert s.infer_shape()[1] == [(5,)]
    with pytest.raises(MXNetNotImplementedError, match='infer_range'):
        s.bind(mx.cpu(), args={}).forward()


def test_creation_shapes_completed_through_transpose():
    # legacy shapes: -1 and 0 are unknown dimensions, filled in from the consumers when binding
    for left, right in (([2, 3], [-1, -1]), ([2, -1], [3, -1]), ([2, 3], [0, 2])):
        b = mx.sym.ones(shape=left) + mx.sym.transpose(mx.sym.zeros(shape=right))
        out = b.bind(mx.cpu(), args={}).forward()[0]
        assert out.shape == (2, 3)
        np.testing.assert_array_equal(out.asnumpy(), np.ones((2, 3), np.float32))
    assert mx.sym.full(shape=(2, 3), val=2, dtype='int32').infer_type()[1] == [np.int32]
