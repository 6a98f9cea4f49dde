"""HybridBlock.register_op_hook against MXNet 1.9.1 (tests/fixtures/op_hook: golden_op_hook.json from
gen_op_hook.py; the operator-name table from gen_monitor_names.py)."""
import json
import os
import sys
import warnings

import numpy as np
import pytest

import mxcompat as mx

FIX = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'op_hook')
sys.path.insert(0, FIX)
from op_hook_cases import ALL, run  # noqa: E402

with open(os.path.join(FIX, 'golden_op_hook.json')) as f:
    GOLDEN = json.load(f)


@pytest.mark.parametrize('case', sorted(ALL))
def test_names_operators_and_shapes_match_mxnet(case):
    """Every call, in MXNet's order: node name (``_input<i>`` / ``_<i>`` where MXNet's operator does not name its
    inputs or outputs), MXNet's operator name, and the array's shape."""
    assert run(mx, ALL[case], lambda a: list(a.shape)) == GOLDEN[case]


def _dense_relu():
    net = mx.gluon.nn.HybridSequential(prefix='dense_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(2), mx.gluon.nn.Activation('relu'))
    net.initialize()
    net.hybridize()
    return net


def test_outputs_only_by_default_and_values_are_the_arrays():
    net, calls = _dense_relu(), []
    net.register_op_hook(lambda name, op, arr: calls.append((name, op, arr.asnumpy())))
    x = mx.nd.array(np.arange(6).reshape(2, 3) - 2.5)
    y = net(x)
    assert [c[:2] for c in calls] == [(b'dense_dense0_fwd_output', b'FullyConnected'),
                                      (b'dense_relu0_fwd_output', b'Activation')]
    np.testing.assert_array_equal(calls[1][2], y.asnumpy())
    np.testing.assert_allclose(calls[0][2], net[0](x).asnumpy(), rtol=1e-6)


def test_hook_under_record_keeps_gradients():
    net, calls = _dense_relu(), []
    net.register_op_hook(lambda name, op, arr: calls.append(name), monitor_all=True)
    w = np.array([[0.1, 0.2, 0.3], [-0.3, -0.2, -0.4]], dtype=np.float32)
    net[0].weight.set_data(mx.nd.array(w))
    net[0].bias.set_data(mx.nd.array([0.1, 0.1]))
    x = np.array([[1, 2, 3], [-1, 0, 2]], dtype=np.float32)
    with mx.autograd.record():
        y = net(mx.nd.array(x))
    y.backward()
    assert len(calls) == 6
    active = (x @ w.T + 0.1) > 0  # d sum(relu(x w^T + b)) / dw = active^T x
    assert active.any() and not active.all()
    np.testing.assert_allclose(net[0].weight.grad().asnumpy(), active.T.astype(np.float32) @ x, rtol=1e-6)
    np.testing.assert_allclose(net[0].bias.grad().asnumpy(), active.sum(0), rtol=1e-6)


def test_static_alloc_warns_as_mxnet():
    net = _dense_relu()
    net.hybridize(static_alloc=True)
    net.register_op_hook(lambda *a: None)
    with pytest.warns(UserWarning, match='register_op_hook is experimental'):
        net(mx.nd.ones((2, 3)))
    plain = _dense_relu()
    plain.register_op_hook(lambda *a: None)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        plain(mx.nd.ones((2, 3)))


def test_not_hybridized_runs_no_hook():
    """MXNet runs op hooks only in cached ops: an imperative block reports nothing."""
    net, calls = _dense_relu(), []
    net.hybridize(active=False)
    net.register_op_hook(lambda *a: calls.append(a))
    net(mx.nd.ones((2, 3)))
    assert calls == []
