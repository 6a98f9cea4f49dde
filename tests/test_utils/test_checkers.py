"""mx.test_utils Symbol-based checkers, on a minimal stand-in for the Symbol/Executor API and on mx.sym."""
import json
import types
from collections import OrderedDict

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import test_utils as tu

class FakeSymbol:
    """Just enough of MXNet's Symbol/Executor API for the checkers: a torch function of named inputs."""

    def __init__(self, fn, args, name, op):
        self.fn, self.args, self.name, self.op = fn, list(args), name, op

    def list_arguments(self):
        return list(self.args)

    def list_outputs(self):
        return [self.name + '_output']

    def list_auxiliary_states(self):
        return []

    def infer_shape(self, **shapes):
        out = self.fn({k: torch.zeros(shapes[k], dtype=torch.float64) for k in self.args})
        return [shapes[k] for k in self.args], [tuple(out.shape)], []

    def __mul__(self, other):
        args = self.args + [a for a in other.args if a not in self.args]
        return FakeSymbol(lambda t: self.fn(t) * other.fn(t), args, '_mul0', '_mul')

    def tojson(self):
        return json.dumps({'nodes': [{'op': 'null', 'name': a} for a in self.args] + [{'op': self.op}]})

    def bind(self, ctx, args, args_grad=None, grad_req='write', aux_states=None):
        if isinstance(args, (list, tuple)):
            args = dict(zip(self.args, args))
        return FakeExecutor(self, ctx, args, args_grad or {}, grad_req)

    def simple_bind(self, ctx, grad_req='write', type_dict=None, **shapes):
        type_dict = type_dict or {}
        args = {k: mx.nd.zeros(shapes[k], ctx=ctx, dtype=type_dict.get(k, np.float32)) for k in self.args}
        grads = {k: mx.nd.zeros(shapes[k], ctx=ctx, dtype=type_dict.get(k, np.float32)) for k in self.args}
        return FakeExecutor(self, ctx, args, grads, grad_req)


class FakeExecutor:
    def __init__(self, sym, ctx, args, grads, grad_req):
        self._sym, self._ctx = sym, ctx
        self.arg_dict = OrderedDict((k, args[k]) for k in sym.args)
        self.grad_dict = OrderedDict((k, grads.get(k)) for k in sym.args)
        self.aux_dict = {}
        self._req = {k: grad_req for k in sym.args} if isinstance(grad_req, str) else dict(grad_req)
        shape = sym.infer_shape(**{k: v.shape for k, v in self.arg_dict.items()})[1][0]
        self.outputs = [mx.nd.zeros(shape, ctx=ctx, dtype=next(iter(self.arg_dict.values())).dtype)]

    arg_arrays = property(lambda self: list(self.arg_dict.values()))
    grad_arrays = property(lambda self: list(self.grad_dict.values()))
    output_dict = property(lambda self: dict(zip(self._sym.list_outputs(), self.outputs)))

    def forward(self, is_train=False):
        self._inputs = {k: torch.tensor(v.asnumpy(), requires_grad=is_train) for k, v in self.arg_dict.items()}
        self._out = self._sym.fn(self._inputs)
        self.outputs[0][:] = self._out.detach().numpy()  # outputs are the executor's own buffers, as in MXNet

    def backward(self, out_grads=None):
        if out_grads is None:
            head = torch.ones_like(self._out)
        else:
            if isinstance(out_grads, dict):
                out_grads = [out_grads[k] for k in self._sym.list_outputs()]
            g = out_grads[0] if isinstance(out_grads, (list, tuple)) else out_grads
            head = torch.tensor(g.asnumpy(), dtype=self._out.dtype)
        names = [k for k in self._sym.args if self._req.get(k, 'null') != 'null']
        grads = torch.autograd.grad(self._out, [self._inputs[k] for k in names], head, allow_unused=True)
        for k, g in zip(names, grads):
            g = np.zeros(self.arg_dict[k].shape) if g is None else g.numpy()
            if self._req[k] == 'add':
                g = self.grad_dict[k].asnumpy() + g
            self.grad_dict[k][:] = g


def _variable(name, **kwargs):
    return FakeSymbol(lambda t: t[name], [name], name, 'null')


def _make_loss(s):
    return FakeSymbol(s.fn, s.args, 'makeloss0', 'MakeLoss')


@pytest.fixture
def fake_sym(monkeypatch):
    module = types.SimpleNamespace(Variable=_variable, make_loss=_make_loss, Symbol=FakeSymbol)
    monkeypatch.setattr(tu.checkers, '_symbol', lambda: module)
    return module


class _WrongGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x  # should be 2 * x


def _f(t):
    return torch.sin(t['x']) * t['y'] + t['x'] ** 2


def _sym_f():
    return FakeSymbol(_f, ['x', 'y'], 'f', 'f')


def test_check_numeric_gradient(fake_sym):
    np.random.seed(0)
    loc = [np.random.uniform(-1, 1, (2, 3)), np.random.uniform(-1, 1, (2, 3))]
    tu.check_numeric_gradient(_sym_f(), loc, rtol=1e-2, atol=1e-3)
    tu.check_numeric_gradient(_sym_f(), {'x': loc[0], 'y': loc[1]}, grad_nodes={'x': 'write', 'y': 'add'},
                              rtol=1e-2, atol=1e-3)
    tu.check_numeric_gradient(_sym_f(), loc, grad_nodes=['x'], rtol=1e-2, atol=1e-3, dtype=np.float64,
                              numeric_eps=1e-5)
    wrong = FakeSymbol(lambda t: _WrongGrad.apply(t['x']), ['x'], 'w', 'w')
    with pytest.raises(AssertionError, match='Location of maximum error: .*NUMERICAL_x=.*BACKWARD_x='):
        tu.check_numeric_gradient(wrong, [loc[0]], rtol=1e-2, atol=1e-3)
    with pytest.raises(ValueError, match='do not match'):
        tu.check_numeric_gradient(_sym_f(), {'x': loc[0]})


def test_numeric_grad_is_central_difference(fake_sym):
    exe = _sym_f().bind(mx.cpu(), args={'x': mx.nd.zeros((3,), dtype='float64'),
                                        'y': mx.nd.zeros((3,), dtype='float64')})
    x, y = np.array([0.1, 0.5, -0.3]), np.array([2.0, -1.0, 0.5])
    g = tu.numeric_grad(exe, {'x': x.copy(), 'y': y.copy()}, eps=1e-6, dtype=np.float64)
    np.testing.assert_allclose(g['x'], np.cos(x) * y + 2 * x, rtol=1e-6)
    np.testing.assert_allclose(g['y'], np.sin(x), rtol=1e-6)
    assert exe.arg_dict['x'].asnumpy().tolist() == x.tolist()  # restored


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_numeric_grad_summed_on_the_device_equals_the_host_sums(ctx, dtype, monkeypatch):
    # on a GPU the differences stay on the device and are read once per argument; forced here on the CPU too
    from mxcompat.test_utils import checkers
    sym = mx.sym.FullyConnected(mx.sym.var('x'), mx.sym.var('w'), num_hidden=3, no_bias=True)
    sym = mx.sym.tanh(mx.sym.BatchNorm(sym, fix_gamma=False, name='bn'))
    rs = np.random.RandomState(0)
    loc = {'x': rs.uniform(-1, 1, (4, 5)), 'w': rs.uniform(-1, 1, (3, 5))}
    grads = []
    for on_device in (False, True):
        monkeypatch.setattr(checkers, '_differences_on_device', lambda exe: on_device or exe.outputs[0].context
                            .device_type == 'gpu')
        exe = sym.simple_bind(ctx, x=(4, 5), w=(3, 5), bn_gamma=(3,), bn_beta=(3,), type_dict={'x': dtype})
        exe.arg_dict['bn_gamma'][:] = 1
        grads.append(tu.numeric_grad(exe, {k: v.copy() for k, v in loc.items()}, eps=1e-3, dtype=dtype))
        assert exe.arg_dict['w'].asnumpy().tolist() == loc['w'].astype(dtype).tolist()  # restored
    for k in loc:
        np.testing.assert_allclose(grads[1][k], grads[0][k], rtol=1e-5 if dtype == np.float64 else 2e-3,
                                   atol=1e-6 if dtype == np.float64 else 2e-3, err_msg=k)


def test_check_symbolic_forward_backward(fake_sym):
    x, y = np.array([[0.1, 0.5]]), np.array([[2.0, -1.0]])
    outs = tu.check_symbolic_forward(_sym_f(), [x, y], [np.sin(x) * y + x ** 2])
    assert outs[0].shape == (1, 2)
    tu.check_symbolic_forward(_sym_f(), {'x': x, 'y': y}, {'f_output': np.sin(x) * y + x ** 2}, dtype='asnumpy')
    with pytest.raises(AssertionError, match='EXPECTED_f_output'):
        tu.check_symbolic_forward(_sym_f(), [x, y], [np.sin(x) * y])
    og = np.array([[1.0, 2.0]])
    gx, gy = og * (np.cos(x) * y + 2 * x), og * np.sin(x)
    tu.check_symbolic_backward(_sym_f(), [x, y], [og], [gx, gy])
    tu.check_symbolic_backward(_sym_f(), [x, y], [og], {'x': gx, 'y': gy}, grad_req='add')
    tu.check_symbolic_backward(_sym_f(), [x, y], {'f_output': og}, {'x': gx, 'y': gy},
                               grad_req={'x': 'write', 'y': 'null'})
    with pytest.raises(AssertionError, match='BACKWARD_y'):
        tu.check_symbolic_backward(_sym_f(), [x, y], [og], [gx, gy + 1])
    tu.check_symbolic_backward(_sym_f(), [x, y], [og], [gx, gy], grad_stypes={'x': 'row_sparse'})


def test_simple_forward_check_speed_structure(fake_sym):
    out = tu.simple_forward(_sym_f(), x=np.array([0.5]), y=np.array([2.0]))
    np.testing.assert_allclose(out, np.sin(0.5) * 2 + 0.25, rtol=1e-6)
    assert tu.check_speed(_sym_f(), N=2, x=(2, 2), y=(2, 2)) > 0
    assert tu.check_speed(_sym_f(), location={'x': np.ones((2, 2)), 'y': np.ones((2, 2))}, N=2, typ='forward') > 0
    with pytest.raises(ValueError, match='typ'):
        tu.check_speed(_sym_f(), N=1, typ='bad', x=(1,), y=(1,))
    assert tu.same_symbol_structure(_sym_f(), _sym_f())
    assert not tu.same_symbol_structure(_sym_f(), _sym_f() * _variable('z'))


def test_check_consistency(fake_sym):
    ctx_list = [{'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float64, 'y': np.float64}},
                {'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float32, 'y': np.float32}}]
    np.random.seed(0)
    gt = tu.check_consistency(_sym_f(), ctx_list)
    assert set(gt) == {'f_output', 'x', 'y'}
    bad = FakeSymbol(lambda t: _f(t) + (0.1 if t['x'].dtype == torch.float32 else 0.0), ['x', 'y'], 'f', 'f')
    with pytest.raises(AssertionError):
        tu.check_consistency([_sym_f(), bad], ctx_list)
    tu.check_consistency([_sym_f(), bad], ctx_list, raise_on_err=False)


def test_checkers_with_real_mx_sym():
    sym = mx.sym
    x, y = sym.Variable('x'), sym.Variable('y')
    s = sym.sin(x) * y + x * x
    np.random.seed(0)
    loc = [np.random.uniform(-1, 1, (2, 3)), np.random.uniform(-1, 1, (2, 3))]
    tu.check_numeric_gradient(s, loc, rtol=1e-2, atol=1e-3)
    tu.check_symbolic_forward(s, loc, [np.sin(loc[0]) * loc[1] + loc[0] ** 2])
    expected = [np.cos(loc[0]) * loc[1] + 2 * loc[0], np.sin(loc[0])]
    tu.check_symbolic_backward(s, loc, [np.ones((2, 3))], expected, grad_req='add')
    tu.check_symbolic_backward(s, loc, [np.ones((2, 3))], expected, grad_req={'x': 'write', 'y': 'null'})
    with pytest.raises(AssertionError, match='BACKWARD_x'):
        tu.check_symbolic_backward(s, loc, [np.ones((2, 3))], [expected[0] * 2, expected[1]])
    ctx_list = [{'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float64, 'y': np.float64}},
                {'ctx': mx.cpu(0), 'x': (2, 3), 'y': (2, 3), 'type_dict': {'x': np.float32, 'y': np.float32}}]
    tu.check_consistency(s, ctx_list)
    assert tu.same_symbol_structure(s, s) and not tu.same_symbol_structure(s, sym.cos(x) * y + x * x)
    fc = sym.FullyConnected(sym.Variable('data'), num_hidden=4, name='fc')
    tu.check_numeric_gradient(fc, [np.random.rand(2, 3), np.random.rand(4, 3), np.random.rand(4)], rtol=1e-2,
                              atol=1e-2)


def test_symbolic_backward_gradient_arrays_take_the_asked_storage_type():
    """grad_stypes / grad_stype_dict give gradient arrays of that storage type, as MXNet's helpers do: a dot of a
    csr by a weight sends the weight a row_sparse gradient."""
    x, w = mx.sym.var('x', stype='csr'), mx.sym.var('w')
    sym = mx.sym.dot(x, w)
    xs = mx.nd.array([[0, 1, 0], [0, 0, 0]]).tostype('csr')
    ws = np.arange(6, dtype=np.float32).reshape((3, 2))
    head = np.ones((2, 2), dtype=np.float32)
    grad_w = np.array([[0, 0], [1, 1], [0, 0]], dtype=np.float32)
    grads = mx.test_utils.check_symbolic_backward(sym, {'x': xs, 'w': ws}, [head], {'w': grad_w},
                                                  grad_req={'x': 'null', 'w': 'write'},
                                                  grad_stypes={'w': 'row_sparse'})
    assert grads['w'].stype == 'row_sparse'
    assert grads['w'].asnumpy().tolist() == grad_w.tolist()
