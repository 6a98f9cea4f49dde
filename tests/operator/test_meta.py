"""Shape inference on meta tensors without torch's slow-to-load pointwise meta kernels (mxcompat/operator/_meta.py):
the same shapes, dtypes, contiguity and errors as torch's own meta kernels, for every pointwise aten overload; and a
fresh process's first deferred initialization, hybridized forward and Module.bind do not load torch._dynamo.
No timing assertions (benchmarks/bench_startup.py times it)."""
import contextlib
import itertools
import os
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch

from mxcompat.operator._meta import _op_info, meta_inference

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TENSOR = ('Tensor', 'Optional[Tensor]')


def _pointwise_overloads():
    out = []
    for name in dir(torch.ops.aten):
        try:
            packet = getattr(torch.ops.aten, name)
        except Exception:  # noqa: BLE001 -- attributes of the namespace that are not operators
            continue
        for overload in getattr(packet, 'overloads', lambda: ())():
            op = getattr(packet, overload)
            if _op_info(op)[0] and any(str(a.type) in TENSOR for a in op._schema.arguments):
                out.append(op)
    return sorted(out, key=str)


POINTWISE = _pointwise_overloads()
DTYPES = [torch.float32, torch.float16, torch.int64, torch.uint8, torch.bool, torch.complex64]
MIXED = [torch.float32, torch.int64, torch.bool]
# the tensor arguments' shapes: equal, broadcast, with 0-d ones, zero-size, not broadcastable
SHAPES = [((2, 1), (1, 3), (3,)), ((), (2, 3), ()), ((0, 3), (3,), (1,)), ((2, 3), (4, 3), (2, 3))]
SCALARS = [2, 0.5, True]


def _args(op, shapes, dtypes, scalar, number_at=None):
    args, kwargs, i = [], {}, 0
    for a in op._schema.arguments:
        t = str(a.type)
        if t in TENSOR:  # (a Python number in place of tensor number_at, as torch's decompositions pass them)
            v = scalar if i == number_at else torch.empty(shapes[i], dtype=dtypes[i], device='meta')
            i += 1
        elif t == 'number':
            v = scalar
        elif a.has_default_value():
            continue
        elif t == 'Optional[str]':
            v = {2: 'floor', 0.5: 'trunc', True: None}[scalar]
        else:
            v = {'int': 1, 'float': 0.5, 'bool': False}.get(t)
            if v is None:
                return None
        (kwargs.__setitem__(a.name, v) if a.kwarg_only else args.append(v))
    return args, kwargs


def _outcome(op, args, kwargs, mode):
    try:
        with meta_inference() if mode else contextlib.nullcontext():
            r = op(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 -- which error is part of the comparison
        return type(e)
    return tuple(r.shape), r.dtype, r.is_contiguous(), r.device.type


@pytest.mark.parametrize('op', POINTWISE, ids=str)
def test_pointwise_results_equal_torch_meta_kernels(op):
    n = sum(str(a.type) in TENSOR for a in op._schema.arguments)
    dtype_sets = [(d,) * n for d in DTYPES] + list(itertools.islice(itertools.product(MIXED, repeat=n), 1, 5))
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        numbers = [None] + list(range(n)) * (n > 1)
        for shapes, dtypes, scalar, at in itertools.product(SHAPES, dtype_sets, SCALARS, numbers):
            made = _args(op, shapes, dtypes, scalar, at)
            if made is None:
                pytest.skip('%s takes an argument the sweep does not make' % op)
            args, kwargs = made
            assert _outcome(op, args, kwargs, True) == _outcome(op, args, kwargs, False), (shapes, dtypes, scalar, at)
            checked += 1
    assert checked


def test_the_sweep_covers_the_common_pointwise_ops():
    names = {str(op) for op in POINTWISE}
    assert {'aten.add.Tensor', 'aten.mul.Tensor', 'aten.mul.Scalar', 'aten.relu.default', 'aten.where.self',
            'aten.div.Tensor_mode', 'aten.clamp.default', 'aten.tanh.default', 'aten.eq.Scalar'} <= names


def test_non_pointwise_ops_and_errors_as_torch():
    x, w = torch.empty(8, 20, device='meta'), torch.empty(64, 20, device='meta')
    with meta_inference():
        assert torch.nn.functional.linear(x, w, torch.empty(64, device='meta')).shape == (8, 64)
        assert torch.log_softmax(x, 1).shape == (8, 20)
        assert x.detach().long().unsqueeze(1).dtype == torch.int64
        assert torch.cat([x, x]).shape == (16, 20)
        assert (1 - x).shape == (8, 20) and (x.t() + 1).stride() == (1, 20)  # non-contiguous: torch's own kernel
        with pytest.raises(RuntimeError, match='broadcast'):
            x + torch.empty(3, device='meta')
        with pytest.raises(RuntimeError):
            torch.nn.functional.linear(x, torch.empty(64, 21, device='meta'))
    assert torch._C._len_torch_dispatch_stack() == 0


def test_steps_aside_under_another_dispatch_mode():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Count(TorchDispatchMode):
        seen = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.seen.append(func)
            return func(*args, **(kwargs or {}))

    with Count(), meta_inference():
        torch.empty(2, device='meta') + 1
    assert torch.ops.aten.add.Tensor in Count.seen


def test_first_deferred_forward_and_bind_do_not_load_dynamo():
    # torch._dynamo (~340 modules, 0.6 s) was loaded by the first pointwise meta kernel of a process
    code = textwrap.dedent('''
        import sys
        import mxcompat as mx
        from mxcompat.gluon import nn
        assert 'torch._dynamo' not in sys.modules and 'sympy' not in sys.modules, 'import mxcompat'
        for hybrid in (False, True):
            mlp = nn.HybridSequential()
            mlp.add(nn.Dense(16, activation='relu'), nn.Dense(4))
            cnn = nn.HybridSequential()
            cnn.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2), nn.Flatten(),
                    nn.Dense(10), nn.Activation('tanh'))
            for net, x in ((mlp, mx.nd.ones((2, 5))), (cnn, mx.nd.ones((2, 3, 8, 8)))):
                net.initialize()
                if hybrid:
                    net.hybridize()
                net(x).wait_to_read()
        data = mx.sym.var('data')
        net = mx.sym.FullyConnected(data, num_hidden=8)
        net = mx.sym.SoftmaxOutput(mx.sym.Activation(net, act_type='sigmoid') * 2 + 1, name='softmax')
        mod = mx.mod.Module(net)
        mod.bind(data_shapes=[('data', (4, 6))], label_shapes=[('softmax_label', (4,))])
        mod.init_params()
        ex = net.simple_bind(mx.cpu(), data=(3, 6))
        print(sorted(m for m in ('torch._dynamo', 'torch._inductor') if m in sys.modules))
    ''')
    r = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == '[]'
