"""multi_sum_sq squares float16 values as MXNet's kernel of each device does: in float16 on the CPU (then summed in
float32), in float32 on a GPU (MXNet's CUDA kernel casts each value to float first)."""
import numpy as np

import mxcompat as mx


def test_float16_squares_follow_the_device(ctx):
    rs = np.random.RandomState(0)
    w = (rs.rand(5000) * 10).astype(np.float16)
    got = mx.nd.multi_sum_sq(mx.nd.array(w, ctx=ctx, dtype='float16'), num_arrays=1).asnumpy()[0]
    if ctx.device_type == 'gpu':
        want = (w.astype(np.float32) ** 2).sum(dtype=np.float64)
    else:
        want = (w * w).astype(np.float32).sum(dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=2e-6)
