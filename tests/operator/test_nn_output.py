"""Loss heads (SoftmaxOutput, *RegressionOutput, SVMOutput, MakeLoss) and CTCLoss against MXNet 1.9.1 goldens:
their gradients are MXNet's whatever the head gradient is."""
import importlib.util
import os

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.operator import registry

_spec = importlib.util.spec_from_file_location(
    'nn_replay', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'nn', 'nn_replay.py'))
nn_replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nn_replay)
CASES = nn_replay.cases(('SoftmaxOutput', 'Softmax', 'LinearRegressionOutput', 'LogisticRegressionOutput',
                         'MAERegressionOutput', 'SVMOutput', 'MakeLoss', 'CTCLoss'))


@pytest.mark.parametrize('c', CASES, ids=[c['name'] for c in CASES])
def test_against_mxnet(c):
    nn_replay.replay(c)


def test_loss_heads_without_recording_are_plain_forwards():
    x = mx.nd.array([[1.0, 2.0], [0.0, 0.0]])
    np.testing.assert_allclose(mx.nd.SoftmaxOutput(x, mx.nd.array([0, 1])).asnumpy().sum(1), [1, 1], rtol=1e-6)
    np.testing.assert_allclose(mx.nd.MakeLoss(x).asnumpy(), x.asnumpy())
    np.testing.assert_allclose(mx.nd.LogisticRegressionOutput(x, x).asnumpy(), 1 / (1 + np.exp(-x.asnumpy())),
                               rtol=1e-6)


def test_head_gradient_is_ignored():
    x = mx.nd.array([[1.0, 2.0, 0.5]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SoftmaxOutput(x, mx.nd.array([2]))
    y.backward(mx.nd.ones((1, 3)) * 7)
    p = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    np.testing.assert_allclose(x.grad.asnumpy()[0], p - [0, 0, 1], rtol=1e-5)


def test_label_gets_zero_gradient():
    x, lab = mx.nd.array([[1.0, 2.0]]), mx.nd.array([[0.5, 0.5]])
    x.attach_grad()
    lab.attach_grad()
    with mx.autograd.record():
        y = mx.nd.LinearRegressionOutput(x, lab)
    y.backward()
    np.testing.assert_allclose(lab.grad.asnumpy(), [[0, 0]])


def _infer(op, shapes, **attrs):
    o = registry.get(op)
    return o.infer(shapes, [torch.float32] * len(shapes),
                   o.parse_attrs(attrs))


def test_infer_shapes():
    assert _infer('SoftmaxOutput', [(4, 5), (4,)])[0] == [(4, 5)]
    assert _infer('SoftmaxOutput', [(2, 4, 3), (2, 3)], multi_output=True)[0] == [(2, 4, 3)]
    assert _infer('LinearRegressionOutput', [(4, 1), (4,)])[0] == [(4, 1)]
    assert _infer('MakeLoss', [(3, 2)])[0] == [(3, 2)]
    assert _infer('CTCLoss', [(6, 2, 4), (2, 3)])[0] == [(2,)]


@pytest.mark.parametrize('op, shapes, attrs', [
    ('LinearRegressionOutput', [(4, 3), (4, 2)], {}),
    ('MAERegressionOutput', [(4, 3), (3, 4)], {}),
    ('SVMOutput', [(4, 3), (3,)], {}),
    ('CTCLoss', [(6, 2, 4), (3, 3)], {}),
    ('SoftmaxOutput', [(4,), (4,)], {}),
])
def test_bad_shapes_name_the_op(op, shapes, attrs):
    with pytest.raises(MXNetError, match=op):
        _infer(op, shapes, **attrs)


def test_bad_choice_names_the_op():
    with pytest.raises(MXNetError, match='SoftmaxOutput.*normalization'):
        mx.nd.SoftmaxOutput(mx.nd.ones((2, 2)), mx.nd.ones(2), normalization='mean')
