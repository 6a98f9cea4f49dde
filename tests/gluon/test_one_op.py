"""Deferred shapes of one-operator layers from the operator's rule (mxcompat/gluon/_one_op.py): the same shapes,
values and errors as tracing the layer's graph."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.gluon import nn
from mxcompat.gluon import _one_op

LAYERS = [
    (lambda: nn.Conv1D(4, 3), (2, 3, 9)),
    (lambda: nn.Conv3D(4, 2, layout='NDHWC'), (1, 4, 4, 4, 3)),
    (lambda: nn.Conv2D(6, (3, 2), strides=2, padding=1, groups=2), (2, 4, 8, 7)),
    (lambda: nn.Conv2D(6, 3, layout='NHWC', use_bias=False), (1, 8, 8, 5)),
    (lambda: nn.Conv3D(4, 2, dilation=2), (1, 3, 6, 6, 6)),
    (lambda: nn.Conv2DTranspose(6, 3, strides=2, output_padding=1, groups=3), (2, 6, 5, 5)),
    (lambda: nn.Conv1DTranspose(4, 3), (2, 5, 7)),
    (lambda: nn.Conv2D(8, 3, activation='relu'), (1, 3, 8, 8)),
    (lambda: nn.Dense(5), (4, 3, 2)),
    (lambda: nn.Dense(5, flatten=False, use_bias=False), (4, 3, 2)),
    (lambda: nn.Dense(5, activation='tanh', in_units=6), (4, 6)),
    (lambda: nn.BatchNorm(), (2, 3, 4, 4)),
    (lambda: nn.BatchNorm(axis=-1, scale=False), (2, 4, 4, 3)),
    (lambda: nn.BatchNorm(axis=2, center=False), (2, 3, 7)),
    (lambda: nn.LayerNorm(), (2, 3, 5)),
    (lambda: nn.LayerNorm(axis=1), (2, 3, 5)),
]


def _traced(monkeypatch):
    monkeypatch.setattr(_one_op, 'infer_from_rule', lambda layer, args: False)
    monkeypatch.setattr(mx.gluon.block, 'infer_from_rule', lambda layer, args: False)


def _run(make, shape, hybridize=False):
    mx.random.seed(3)
    layer = make()
    layer.initialize(mx.init.Xavier())
    if hybridize:
        layer.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, shape))
    out = layer(x).asnumpy()
    return {k[len(layer.prefix):]: (p.shape, p.data().asnumpy()) for k, p in layer.collect_params().items()}, out


@pytest.mark.parametrize('case', range(len(LAYERS)))
def test_same_shapes_and_values_as_the_traced_graph(case, monkeypatch):
    make, shape = LAYERS[case]
    calls = []
    real = _one_op.infer_from_rule

    def spy(layer, args):
        done = real(layer, args)
        calls.append(done)
        return done
    monkeypatch.setattr(mx.gluon.block, 'infer_from_rule', spy)
    deferred = any(0 in p.shape for p in make().collect_params().values())
    direct, out = _run(make, shape)
    assert calls == ([True] if deferred else [])  # (the rule gave the shapes: nothing was traced)
    with monkeypatch.context() as m:
        _traced(m)
        traced, want = _run(make, shape)
    assert direct.keys() == traced.keys()
    for name in direct:
        assert direct[name][0] == traced[name][0], name
        np.testing.assert_array_equal(direct[name][1], traced[name][1])
    np.testing.assert_array_equal(out, want)


def test_hybridized_layer_gets_the_same_shapes(monkeypatch):
    got, out = _run(LAYERS[2][0], LAYERS[2][1], hybridize=True)
    _traced(monkeypatch)
    want, expected = _run(LAYERS[2][0], LAYERS[2][1], hybridize=True)
    assert {k: v[0] for k, v in got.items()} == {k: v[0] for k, v in want.items()}
    np.testing.assert_array_equal(out, expected)


def _error(make, shape):
    layer = make()
    layer.initialize()
    with pytest.raises(mx.base.MXNetError) as info:
        layer(mx.nd.ones(shape))
    return type(info.value), str(info.value)


@pytest.mark.parametrize('make, shape', [
    (lambda: nn.Conv2D(4, 5), (1, 3, 3, 3)),        # kernel larger than the input
    (lambda: nn.Conv2D(4, 3), (1, 3, 8)),           # wrong rank
    (lambda: nn.Conv2D(4, 3, groups=2), (1, 3, 8, 8)),  # channels not divisible by the groups
])
def test_bad_input_fails_as_the_traced_graph_does(make, shape, monkeypatch):
    direct = _error(make, shape)
    _traced(monkeypatch)
    assert direct == _error(make, shape)


def test_declared_shape_that_disagrees_is_left_to_the_graph(monkeypatch):
    # in_units given and wrong: the rule's shape does not fit the declared one; the graph reports it
    make = lambda: nn.Dense(3, in_units=4)  # noqa: E731
    direct = _error(make, (2, 5))
    _traced(monkeypatch)
    assert direct == _error(make, (2, 5))


def test_overridden_forward_is_traced():
    class Twice(nn.Conv2D):
        def hybrid_forward(self, F, x, weight, bias=None):
            return super().hybrid_forward(F, x + x, weight, bias)
    assert Twice(4, 3)._one_op() is None
    assert nn.Conv2D(4, 3)._one_op()[0] == 'Convolution'
    layer = Twice(4, 3)
    layer.initialize()
    assert layer(mx.nd.ones((1, 2, 5, 5))).shape == (1, 4, 3, 3)
    assert layer.weight.shape == (4, 2, 3, 3)
