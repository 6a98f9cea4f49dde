"""mxcompat/symbol/opinfo.py: the shapes shape inference gives operators' parameter-like inputs."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError


def _multi_output():
    return mx.sym.SoftmaxOutput(mx.sym.Variable('d'), mx.sym.Variable('l'), multi_output=True)


@pytest.mark.parametrize('data,label', [((2, 3, 4, 5), (2, 20)), ((2, 3, 4), (2, 4)), ((2, 3), (2, 1))])
def test_softmax_output_multi_output_infers_mxnets_label_shape(data, label):
    # MXNet 1.9.1 infers (N, d2*...*dk) for the label of a multi_output SoftmaxOutput
    assert _multi_output().infer_shape(d=data)[0] == [data, label]


@pytest.mark.parametrize('label', [(2, 20), (2, 4, 5), (2, 1, 4, 5)])
def test_softmax_output_multi_output_takes_mxnets_three_label_forms(label):
    assert _multi_output().infer_shape(d=(2, 3, 4, 5), l=label)[0] == [(2, 3, 4, 5), label]


def test_softmax_output_multi_output_gradient_with_a_flat_label():
    # example/rcnn's RPN passes its label as (N, H*W*anchors) for data (N, 2, anchors*H, W)
    rs = np.random.RandomState(0)
    x = rs.randn(2, 3, 2, 2).astype('float32')
    lab = rs.randint(-1, 3, (2, 2, 2)).astype('float32')
    grads = []
    for shape in ((2, 4), (2, 2, 2)):
        ex = mx.sym.SoftmaxOutput(mx.sym.Variable('d'), mx.sym.Variable('l'), multi_output=True, use_ignore=True,
                                  normalization='valid').simple_bind(mx.cpu(), d=x.shape, l=shape)
        ex.arg_dict['d'][:] = x
        ex.arg_dict['l'][:] = lab.reshape(shape)
        ex.forward(is_train=True)
        ex.backward()
        grads.append(ex.grad_dict['d'].asnumpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_softmax_output_multi_output_rejects_other_sizes():
    with pytest.raises(MXNetError):
        _multi_output().infer_shape(d=(2, 3, 4, 5), l=(2, 4))


def test_softmax_output_takes_probabilities_of_the_datas_shape():
    # MXNet 1.9.1: a label of the data's own shape is a probability label (gradient: output - label); any other
    # shape than (N,) raises
    sym = mx.sym.SoftmaxOutput(mx.sym.Variable('d'), mx.sym.Variable('l'))
    assert sym.infer_shape(d=(4, 3), l=(4, 3))[0] == [(4, 3), (4, 3)]
    with pytest.raises(MXNetError):
        sym.infer_shape(d=(4, 3), l=(4, 2))
    rs = np.random.RandomState(0)
    x, p = rs.randn(4, 3).astype('float32'), rs.dirichlet([1, 1, 1], 4).astype('float32')
    ex = sym.simple_bind(mx.cpu(), d=(4, 3), l=(4, 3))
    ex.arg_dict['d'][:], ex.arg_dict['l'][:] = x, p
    out = ex.forward(is_train=True)[0].asnumpy()
    ex.backward()
    np.testing.assert_allclose(ex.grad_dict['d'].asnumpy(), out - p, rtol=1e-6)
