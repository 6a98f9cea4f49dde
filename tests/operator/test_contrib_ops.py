"""mxcompat/operator/contrib_ops.py: behaviours beyond the golden cases in tests/fixtures/ops_extra."""
import numpy as np

import mxcompat as mx


def test_index_array_of_zero_dim_array_is_empty():
    # MXNet (numpy shape semantics): a 0-d array has no axes to index, so each of its (one) elements gets an empty
    # index vector: shape (0,); eager and symbolic, with a zero gradient (upstream test_index_array)
    with mx.np_shape(True):
        assert mx.nd.contrib.index_array(mx.nd.ones(())).shape == (0,)
        assert mx.nd.contrib.index_array(mx.nd.ones((0, 0, 0))).shape == (0, 0, 0, 3)
        assert mx.nd.contrib.index_array(mx.nd.ones((2, 3)), axes=()).shape == (2, 3, 0)  # MXNet 1.9.1 too
        data = mx.sym.Variable('data')
        ex = mx.sym.contrib.index_array(data).bind(mx.cpu(), {'data': mx.nd.array(np.ones(()))},
                                                  args_grad={'data': mx.nd.ones(())})
        out = ex.forward(is_train=True)[0]
        assert out.shape == (0,) and out.dtype == np.int64
        ex.backward([mx.nd.ones((0,))])
        assert ex.grad_arrays[0].asnumpy() == 0
