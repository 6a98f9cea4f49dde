"""mxcompat/operator/detection_ops.py: behaviours beyond the golden cases in tests/fixtures/ops_extra."""
import os

import numpy as np

import mxcompat as mx

FIXTURES = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'ops_extra')


def test_multibox_target_hard_negative_mining_scores_as_mxnet():
    # Candidates whose background probabilities tie in float32 (class scores a few float32 steps apart): MXNet's CPU
    # kernel scores them in float32 with expf and keeps anchor order among ties, which decides the negatives picked
    # (golden: tests/fixtures/ops_extra/multibox_mining.py under MXNet 1.9.1)
    z = np.load(os.path.join(FIXTURES, 'multibox_mining.npz'))
    out = mx.nd.contrib.MultiBoxTarget(mx.nd.array(z['anchors']), mx.nd.array(z['label']), mx.nd.array(z['cls_pred']),
                                       overlap_threshold=0.5, negative_mining_ratio=3, negative_mining_thresh=0.5,
                                       ignore_label=-1)
    np.testing.assert_array_equal(out[2].asnumpy(), z['cls_target'])
    np.testing.assert_array_equal(out[1].asnumpy(), z['loc_mask'])
    np.testing.assert_allclose(out[0].asnumpy(), z['loc_target'], rtol=1e-5, atol=1e-6)
