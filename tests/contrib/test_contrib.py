import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError
from mxcompat.contrib import autograd as cag


def test_grad_and_loss_and_sections():
    x = mx.nd.array([1., 2., 3.])
    grads, loss = cag.grad_and_loss(lambda a, b: (a * a * b).sum(), argnum=0)(x, mx.nd.array([1., 1., 2.]))
    assert np.allclose(grads[0].asnumpy(), [2, 4, 12]) and loss.asscalar() == 23
    assert cag.grad(lambda a: (a * 3).sum())(x)[0].asnumpy().tolist() == [3, 3, 3]
    with cag.train_section():
        assert mx.autograd.is_training() and mx.autograd.is_recording()
        with cag.test_section():
            assert not mx.autograd.is_training() and not mx.autograd.is_recording()
    assert not mx.autograd.is_recording()
    with pytest.raises(TypeError):
        cag.backward(mx.nd.ones((1,)))


def test_amp_imports_and_converts_graphs():
    from mxcompat.contrib.amp import amp  # (the rest of amp: tests/contrib/test_amp.py, test_amp_convert.py)
    assert amp.convert_symbol(mx.sym.var('x')).list_outputs() == ['x_amp_cast_float32_output']


def test_contrib_namespaces_are_the_contrib_ops():
    assert mx.contrib.nd is mx.nd.contrib and mx.contrib.sym is mx.sym.contrib
    assert mx.contrib.nd.isnan(mx.nd.array([np.nan, 1.])).asnumpy().tolist() == [1, 0]


# (contrib.quantization is a module whose functions raise: tests/contrib/test_quantization.py)
@pytest.mark.parametrize('name', ['onnx', 'tensorboard'])
def test_missing_contrib_modules_raise_naming_themselves(name):
    with pytest.raises(MXNetNotImplementedError, match='mx.contrib.' + name):
        getattr(mx.contrib, name)
    with pytest.raises(AttributeError, match='no_such_module'):
        mx.contrib.no_such_module
