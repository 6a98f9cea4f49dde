"""mx.mod.PythonModule / PythonLossModule on their own (the chained case is in test_sequential_module.py)."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError


def _batch():
    return mx.io.DataBatch([mx.nd.array([[0.2, 0.8], [0.6, 0.4]])], [mx.nd.array([1, 1])])


def test_loss_module_forward_backward_metric():
    loss = mx.mod.PythonLossModule(name='l', grad_func=lambda s, y: (s - 1).asnumpy())
    assert loss.output_names == ['l_output'] and loss.data_names == ['data']
    loss.bind([('data', (2, 2))], [('softmax_label', (2,))])
    assert loss.binded and loss.output_shapes == [('l_output', (2, 2))]
    assert loss.data_shapes == [('data', (2, 2))] and loss.label_shapes == [('softmax_label', (2,))]
    assert loss.get_params() == ({}, {})
    loss.init_params()
    loss.init_optimizer()
    loss.set_params({}, {})
    loss.forward_backward(_batch())
    loss.update()
    grad = loss.get_input_grads()[0]
    assert isinstance(grad, mx.nd.NDArray)
    np.testing.assert_allclose(grad.asnumpy(), [[-0.8, -0.2], [-0.4, -0.6]], rtol=1e-6)
    metric = mx.metric.create('acc')
    loss.update_metric(metric, _batch().label)
    assert metric.get() == ('accuracy', 0.5)
    with pytest.raises(RuntimeError, match='presliced'):
        loss.update_metric(metric, [_batch().label], pre_sliced=True)


def test_loss_module_inference_keeps_previous_labels():
    loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s)
    loss.bind([('data', (2, 2))], for_training=False)
    loss.forward(_batch())
    assert loss._labels is None and loss.get_outputs()[0].shape == (2, 2)
    metric = mx.metric.create('acc')
    loss.update_metric(metric, _batch().label)  # no labels bound: nothing to update
    assert metric.num_inst == 0
    with pytest.raises(MXNetAssertionError, match='for_training'):
        loss.backward()


def test_errors():
    with pytest.raises(MXNetAssertionError):
        mx.mod.PythonLossModule(data_names=('a', 'b'))
    with pytest.raises(MXNetAssertionError, match='callable'):
        mx.mod.PythonLossModule(grad_func=3)
    loss = mx.mod.PythonLossModule()
    with pytest.raises(MXNetAssertionError, match='write'):
        loss.bind([('data', (2, 2))], grad_req='add')
    with pytest.raises(MXNetAssertionError, match='data_names'):
        loss.bind([('x', (2, 2))])
    with pytest.raises(MXNetAssertionError, match='label_names'):
        loss.bind([('data', (2, 2))], [('y', (2,))])
    loss.bind([('data', (2, 2))], [('softmax_label', (2,))])
    loss.forward(_batch())
    with pytest.raises(NotImplementedError):
        loss.backward()
    with pytest.raises(MXNetAssertionError, match='out_grads'):
        loss.backward(out_grads=[mx.nd.ones((2, 2))])
    with pytest.raises(MXNetAssertionError, match='merge_multi_context'):
        loss.get_outputs(merge_multi_context=False)
    with pytest.raises(NotImplementedError):
        loss.install_monitor(mx.monitor.Monitor(1))
    with pytest.raises(NotImplementedError):
        mx.mod.PythonModule(['data'], None, ['out']).bind([('data', (2, 2))])


def test_custom_python_module_subclass():
    class Double(mx.mod.PythonModule):
        def _compute_output_shapes(self):
            return [('double_output', self._data_shapes[0][1])]

        def forward(self, data_batch, is_train=None):
            self._out = data_batch.data[0] * 2

        def get_outputs(self, merge_multi_context=True):
            return [self._out]

    mod = Double(('data',), None, ['double_output'])
    assert mod.data_names == ['data']
    mod.bind([('data', (2, 2))])
    mod.bind([('data', (2, 2))])  # already bound: a warning only
    mod.forward(_batch())
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), [[0.4, 1.6], [1.2, 0.8]], rtol=1e-6)
