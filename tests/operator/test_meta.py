"""Shape inference on meta tensors without torch's slow-to-load pointwise meta kernels (mxcompat/operator/_meta.py):
the same shapes, dtypes, contiguity and errors as torch's own meta kernels, for every pointwise aten overload; and a
fresh process's first deferred initialization, hybridized forward and Module.bind do not load torch._dynamo.
No timing assertions (benchmarks/bench_startup.py times it)."""
import ast
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
from mxcompat.operator._meta_rules import RULES, bound

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


def _heavy_modules_after(code):
    """Which of torch._dynamo, torch._inductor and sympy a new process has loaded after running ``code``."""
    code += "\nprint(sorted(m for m in ('torch._dynamo', 'torch._inductor', 'sympy') if m in sys.modules))\n"
    r = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr
    return ast.literal_eval(r.stdout.strip().splitlines()[-1])


def test_first_deferred_forward_and_bind_do_not_load_dynamo_or_sympy():
    # torch._dynamo (~340 modules, 0.6 s) was loaded by the first pointwise meta kernel of a process, sympy (~490
    # modules, 0.5 s) by the first torch._check of a Python meta kernel (mm, addmm, convolution, the pools)
    code = textwrap.dedent('''
        import sys
        import mxcompat as mx
        from mxcompat.gluon import nn
        assert 'torch._dynamo' not in sys.modules and 'sympy' not in sys.modules, 'import mxcompat'
        for hybrid in (False, True):
            mlp = nn.HybridSequential()
            mlp.add(nn.Dense(16, activation='relu'), nn.Dense(4))
            cnn = nn.HybridSequential()
            cnn.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2), nn.AvgPool2D(2),
                    nn.Flatten(), nn.Dense(10), nn.Activation('tanh'))
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
        # an unrolled LSTM cell (concat of its steps' outputs), bound and run
        out, _ = mx.rnn.LSTMCell(8).unroll(3, mx.sym.var('data'), merge_outputs=True)
        out.simple_bind(mx.cpu(), data=(2, 3, 4)).forward()
        # a language model's graph (Embedding) and a Transformer block's normalization (LayerNorm), bound
        net = mx.sym.LayerNorm(mx.sym.Embedding(data, input_dim=10, output_dim=8), name='ln')
        net.simple_bind(mx.cpu(), data=(2, 5)).forward()
        # reductions, pick, tile and stack in a graph
        x = mx.sym.var('x')
        net = mx.sym.Group([mx.sym.max(x, axis=1), mx.sym.argmax(x, axis=1), mx.sym.tile(x, reps=(2, 1)),
                            mx.sym.stack(x, x), mx.sym.pick(x, mx.sym.var('i'))])
        net.simple_bind(mx.cpu(), x=(2, 5), i=(2,)).forward()
        # ranges: one_hot, arange_like (a Transformer's positions)
        net = mx.sym.Group([mx.sym.one_hot(mx.sym.var('label'), depth=4), mx.sym.contrib.arange_like(x, axis=1)])
        net.simple_bind(mx.cpu(), x=(2, 5), label=(3,)).forward()
        # InstanceNorm, norm (ord 1 and 2), 3-d and 1-d pooling (max, avg, 'full', global, channels-last global),
        # cumsum and gather_nd
        v, i = mx.sym.var('v'), mx.sym.var('i')
        net = mx.sym.Group([mx.sym.InstanceNorm(v), mx.sym.InstanceNorm(mx.sym.var('one'), name='in1'),
                            mx.sym.Pooling(v, kernel=(2, 2, 2), pool_type='max'),
                            mx.sym.Pooling(v, kernel=(3, 3, 3), stride=(2, 2, 2), pool_type='avg',
                                           pooling_convention='full'),
                            mx.sym.Pooling(v, kernel=(1, 1, 1), pool_type='max', global_pool=True),
                            mx.sym.Pooling(v, kernel=(1, 1, 1), pool_type='avg', global_pool=True, layout='NDHWC'),
                            mx.sym.Pooling(x, kernel=(2,), pool_type='max'),
                            mx.sym.Pooling(x, kernel=(3,), stride=(2,), pool_type='avg', pooling_convention='full'),
                            mx.sym.norm(x, ord=1, axis=1, keepdims=True), mx.sym.norm(x, axis=-1), mx.sym.norm(x),
                            mx.sym.cumsum(x, axis=1), mx.sym.cumsum(i), mx.sym.gather_nd(x, i)])
        net.simple_bind(mx.cpu(), v=(2, 3, 5, 6, 6), one=(2, 3, 1, 1), x=(2, 4, 7), i=(2, 6)).forward()
        for hybrid in (False, True):
            net = nn.HybridSequential()
            net.add(nn.Conv3D(4, 3), nn.InstanceNorm(), nn.MaxPool3D(2), nn.AvgPool3D(2, ceil_mode=True),
                    nn.GlobalAvgPool3D(), nn.Dense(3))
            net.initialize()
            if hybrid:
                net.hybridize()
            net(mx.nd.ones((2, 3, 8, 8, 8))).wait_to_read()
        # a training step: dropout (in-place div_), batch statistics, global pooling (mean), loss, backward, update
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Dropout(0.5), nn.GlobalAvgPool2D(), nn.Dense(3))
        net.initialize()
        net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), 'adam')
        with mx.autograd.record():
            loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(net(mx.nd.ones((2, 3, 6, 6))), mx.nd.array([0, 2]))
        loss.backward()
        trainer.step(2)
    ''')
    assert _heavy_modules_after(code) == []


def test_numpy_mode_script_does_not_load_sympy():
    # torch.broadcast_shapes imports torch's symbolic shapes and sympy (~490 modules, 0.4 s) on first use: the first
    # np.random.uniform(size=...) of a D2L script paid it. A D2L-style script in NumPy mode, from its samplers to a
    # training step, a hybridized block, a CNN, an RNN and npx's operators, loads none of it
    code = textwrap.dedent('''
        import sys
        import mxcompat as mx
        from mxcompat import np, npx, autograd, gluon, init
        from mxcompat.gluon import nn
        npx.set_np()
        np.random.uniform(size=(2, 20)); np.random.normal(np.zeros(3), 1); np.random.randint(0, 10, (3,))
        np.random.multinomial(10, [0.2, 0.8]); np.random.choice(5, 3); np.random.shuffle(np.arange(5))
        np.random.multivariate_normal(np.zeros(2), np.eye(2), size=3)
        x = np.arange(12).reshape(3, 4)
        x[1:, 2], x[x > 5], np.concatenate([x, x]), np.linspace(0, 1, 5), np.meshgrid(np.arange(3), np.arange(2))
        np.dot(np.ones((2, 3)), np.ones((3,))), np.linalg.norm(np.ones((2, 3))), repr(x)
        net = nn.Sequential()
        net.add(nn.Dense(8, activation='relu'), nn.Dense(1))
        net.initialize(init.Normal(0.01))
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
        with autograd.record():
            loss = gluon.loss.L2Loss()(net(np.random.normal(0, 1, (10, 4))), np.random.normal(0, 1, (10, 1)))
        loss.backward()
        trainer.step(10)
        hybrid = nn.HybridSequential()
        hybrid.add(nn.Dense(8), nn.Dense(1))
        hybrid.initialize()
        hybrid.hybridize()
        hybrid(np.ones((2, 4)))
        cnn = nn.Sequential()
        cnn.add(nn.Conv2D(4, 3, padding=1, activation='relu'), nn.MaxPool2D(2), nn.BatchNorm(), nn.Dense(3))
        cnn.initialize(init.Xavier())
        cnn(np.ones((2, 1, 8, 8)))
        lstm = gluon.rnn.LSTM(8)
        lstm.initialize()
        lstm(np.ones((5, 2, 4)))
        npx.one_hot(np.array([0, 2]), 3), npx.softmax(np.ones((2, 3))), npx.batch_dot(np.ones((2, 3, 4)),
                                                                                     np.ones((2, 4, 5)))
        npx.sequence_mask(np.ones((2, 3, 4)), np.array([1, 2]), use_sequence_length=True, axis=1)
    ''')
    assert _heavy_modules_after(code) == []


def test_package_does_not_call_torch_broadcast_shapes():
    # (see above: numpy's broadcast_shapes gives the same answer without the imports)
    package = os.path.join(ROOT, 'mxcompat')
    calls = []
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith('.py'):
                with open(os.path.join(folder, name)) as f:
                    calls += ['%s:%d' % (os.path.relpath(os.path.join(folder, name), ROOT), i)
                              for i, line in enumerate(f, 1) if 'torch.broadcast_shapes(' in line]
    assert not calls, calls


# -- the non-pointwise ops answered by rule (mxcompat/operator/_meta_rules.py) ---------------------------------------
def _m(shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device='meta')


def _full(r):
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return tuple((tuple(t.shape), t.dtype, t.stride(), t.device.type) for t in rs)


def _compare(op, args, kwargs=None, rules=RULES):
    """The same result (shape, dtype, strides) or error type under meta_inference as from torch's meta kernel;
    whether the rule (of ``rules``) answered."""
    kwargs = kwargs or {}
    full = bound(op, args, kwargs)
    answered = full is not None and rules[op](*full) is not None
    outcomes = []
    for mode in (True, False):
        try:
            with meta_inference() if mode else contextlib.nullcontext():
                outcomes.append(_full(op(*args, **kwargs)))
        except Exception as e:  # noqa: BLE001 -- which error is part of the comparison
            outcomes.append(type(e))
    assert outcomes[0] == outcomes[1], (op, [getattr(a, 'shape', a) for a in args], kwargs)
    return answered, outcomes[1]


FLOATS = [torch.float32, torch.float16, torch.float64, torch.bfloat16]
OTHER = [torch.int64, torch.uint8, torch.complex64]


@pytest.mark.slow
def test_matmul_rules_equal_torch_meta_kernels():
    a, answered = torch.ops.aten, 0
    mats = [(8, 20), (20, 64), (1, 20), (0, 20), (64, 20), (3, 8, 20), (20,)]
    dtypes = [(d, d) for d in FLOATS + OTHER] + [(torch.float32, torch.float64), (torch.int64, torch.float32)]
    for (s1, s2), (d1, d2) in itertools.product(itertools.product(mats, mats), dtypes):
        x, y = _m(s1, d1), _m(s2, d2)
        answered += _compare(a.mm.default, [x, y])[0]
        answered += _compare(a.mm.default, [x, y.t()] if y.dim() == 2 else [x, y])[0]
        if s1 != (8, 20) and d1 != torch.float32:
            continue
        for bias in ((64,), (1,), (8, 64), (8, 1), (), (3,), (2, 8, 64), (64, 8)):
            for beta, alpha in ((1, 1), (0, 1), (0.5, 2.0)):
                answered += _compare(a.addmm.default, [_m(bias, d1), x, y], dict(beta=beta, alpha=alpha))[0]
    batches = [(2, 8, 20), (2, 20, 5), (1, 20, 5), (3, 20, 5), (2, 0, 20), (8, 20)]
    for s1, s2 in itertools.product(batches, batches):
        for d2 in (torch.float32, torch.float64):
            answered += _compare(a.bmm.default, [_m(s1), _m(s2, d2)])[0]
    assert answered > 100


def test_convolution_rule_equals_torch_meta_kernel():
    a, answered = torch.ops.aten, 0
    cases = []
    for n, (cin, groups), k, s, p, d in itertools.product(
            (1, 2, 3), ((3, 1), (4, 2), (0, 1), (6, 3)), (1, 3, 5), (1, 2, [2, 1, 1]), (0, 1, 2), (1, 2)):
        spatial = (7, 6, 5)[:n]
        def lst(v):
            return v[:n] if isinstance(v, list) else [v]
        x, w = _m((2, cin) + spatial), _m((8, max(cin // groups, 1)) + (k,) * n)
        for transposed, op in ((False, []), (True, [0] * n), (True, [1] * n), (True, [])):
            wt = _m((cin, 4) + (k,) * n) if transposed else w
            cases.append(([x, wt, _m(8), lst(s), lst(p), lst(d), transposed, op, groups], {}))
    cases += [([_m((2, 3, 5, 5)), _m((8, 3, 3)), None, [1], [0], [1], False, [], 1], {}),   # wrong weight rank
              ([_m((2, 3, 5, 5)), _m((8, 2, 3, 3)), None, [1], [0], [1], False, [], 1], {}),  # channels
              ([_m((2, 3, 2, 2)), _m((8, 3, 3, 3)), None, [1], [0], [1], False, [], 1], {}),  # kernel too big
              ([_m((2, 3, 5, 5)), _m((8, 3, 3, 3)), None, [0], [0], [1], False, [], 1], {}),  # zero stride
              ([_m((2, 3, 5, 5), torch.float64), _m((8, 3, 3, 3)), None, [1], [0], [1], False, [], 1], {}),
              ([_m((2, 3, 5, 5), torch.int64), _m((8, 3, 3, 3), torch.int64), None, [1], [0], [1], False, [], 1], {}),
              ([_m((2, 3, 5, 5)), _m((8, 3, 3, 3)), None, [1, 1, 1], [0], [1], False, [], 1], {})]
    for args, kwargs in cases:
        answered += _compare(a.convolution.default, args, kwargs)[0]
    assert answered > 300


@pytest.mark.slow
def test_pool_and_softmax_rules_equal_torch_meta_kernels():
    a, answered = torch.ops.aten, 0
    shapes = [(2, 3, 8, 8), (3, 7, 6), (2, 1, 5, 5), (2, 3, 1, 1), (1, 1, 1, 1), (0, 3, 4, 4), (2, 0, 4, 4),
              (3, 0, 4), (2, 3, 8), (4, 4)]
    for shape, dtype in itertools.product(shapes, FLOATS + OTHER[:2]):
        x = _m(shape, dtype)
        for k, s, p, dl, ceil in itertools.product(([2], [3, 2], [1], [0], [3, 3, 3]), ([], [1], [2, 1], [0]),
                                                   ([0], [1], [1, 0], [2]), ([1], [2]), (False, True)):
            answered += _compare(a.max_pool2d_with_indices.default, [x, k, s, p, dl, ceil])[0]
            if dl == [1]:
                for divisor in (None, 0, 3):
                    answered += _compare(a.avg_pool2d.default, [x, k, s, p, ceil, True, divisor])[0]
        for dim in (0, -1, 5):
            for op in (a._softmax.default, a._log_softmax.default):
                for half in (False, True):
                    answered += _compare(op, [x, dim, half])[0]
    # other layouts: channels-last ones (the result too), a transposed one, a 1-d pool's NWC data made (N, C, 1, W)
    for x in (_m((2, 3, 8, 8)).to(memory_format=torch.channels_last), _m((2, 3, 8, 8)).transpose(2, 3),
              _m((2, 1, 8, 8)).to(memory_format=torch.channels_last), _m((2, 8, 3)).movedim(-1, 1).unsqueeze(2),
              _m((2, 3, 1, 8)).to(memory_format=torch.channels_last), _m((0, 3, 4, 4)).permute(0, 2, 3, 1)):
        for k, s in (([2], []), ([1, 2], [1, 2]), ([3], [2])):
            answered += _compare(a.max_pool2d_with_indices.default, [x, k, s])[0]
            answered += _compare(a.avg_pool2d.default, [x, k, s])[0]
    assert answered > 1000


@pytest.mark.slow
def test_3d_pool_rules_equal_torch_meta_kernels():
    a, answered = torch.ops.aten, 0
    shapes = [(2, 3, 6, 6, 6), (3, 5, 4, 4), (2, 1, 4, 5, 6), (2, 3, 1, 1, 1), (0, 3, 4, 4, 4), (2, 0, 4, 4, 4),
              (3, 0, 4, 4), (2, 3, 2, 6, 6), (4, 4, 4)]
    windows = list(itertools.product(([2], [3, 2, 2], [1], [0], [2, 2], [3]), ([], [1], [2, 1, 1], [0]),
                                     ([0], [1], [1, 0, 0], [2]), (False, True)))
    for shape, dtype in itertools.product(shapes, FLOATS + OTHER[:2]):
        x = _m(shape, dtype)
        for i, (k, s, p, ceil) in enumerate(windows):
            if dtype not in (torch.float32, torch.float16) and i % 4:
                continue  # (the other dtypes: a quarter of the windows)
            for dl in ([1], [2]):
                answered += _compare(a.max_pool3d_with_indices.default, [x, k, s, p, dl, ceil])[0]
            for divisor in (None, 0, 3):
                answered += _compare(a.avg_pool3d.default, [x, k, s, p, ceil, True, divisor])[0]
            answered += _compare(a.avg_pool3d.default, [x, k, s, p, ceil, False])[0]
    # other layouts: channels-last ones (the max pool's result too), NDHWC data moved to (N, C, D, H, W), transposed
    for x in (_m((2, 3, 4, 6, 6)).to(memory_format=torch.channels_last_3d), _m((2, 4, 4, 4, 3)).movedim(-1, 1),
              _m((2, 1, 4, 4, 4)).to(memory_format=torch.channels_last_3d), _m((2, 3, 4, 6, 6)).transpose(3, 4),
              _m((0, 3, 4, 4, 4)).movedim(1, -1), _m((3, 4, 4, 5)).movedim(0, -1)):
        for k, s in (([2], []), ([1, 2, 2], [1, 2, 2]), ([3], [2])):
            answered += _compare(a.max_pool3d_with_indices.default, [x, k, s])[0]
            answered += _compare(a.avg_pool3d.default, [x, k, s])[0]
    assert answered > 2000


def test_rules_answer_the_common_layers():
    a = torch.ops.aten
    x, w = _m((8, 20)), _m((64, 20))
    x5 = _m((2, 3, 8, 8, 8))
    for op, *args in ((a.addmm.default, [_m(64), x, w.t()]), (a.mm.default, [x, w.t()]),
                      (a.convolution.default, [_m((4, 3, 28, 28)), _m((8, 3, 3, 3)), _m(8), [1, 1], [0, 0], [1, 1],
                                               False, [0, 0], 1]),
                      (a.max_pool2d_with_indices.default, [_m((4, 8, 26, 26)), [2, 2], [2, 2], [0, 0], [1, 1], False]),
                      (a.avg_pool2d.default, [_m((4, 8, 26, 26)), [2, 2], [2, 2], [0, 0], False, True, None]),
                      (a._softmax.default, [x, 1, False]),
                      # InstanceNorm, norm, 3-d pooling, cumsum, gather_nd
                      (a.native_batch_norm.default, [_m((1, 6, 20)), _m(6), _m(6), None, None, True, 0.0, 1e-3]),
                      (a.var_mean.correction, [_m((2, 3, 1)), [2]], dict(correction=0, keepdim=True)),
                      (a.sum.dim_IntList, [_m((2, 3, 4)), [1], True], dict(dtype=torch.float32)),
                      (a.linalg_vector_norm.default, [_m((2, 3, 4)), 2, [1]]),
                      (a.max_pool3d_with_indices.default, [x5, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], True]),
                      (a.avg_pool3d.default, [x5, [3, 3, 3], [2, 2, 2], [1, 1, 1], True, True, None]),
                      (a.cumsum.default, [_m((2, 3)), 1], dict(dtype=torch.float32)),
                      (a.index.Tensor, [_m((3, 4, 5)), [_m(6, torch.int64), _m(6, torch.int64)]])):
        assert _compare(op, *args)[0], op


def test_empty_like_and_reduction_rules_equal_torch_meta_kernels():
    a, answered = torch.ops.aten, 0
    shapes = [(2, 3, 4), (), (5,), (2, 1, 4, 4), (1, 1, 1, 1), (0, 3), (2, 3, 4, 5)]
    for shape, dtype in itertools.product(shapes, FLOATS + OTHER):
        x = _m(shape, dtype)
        layouts = [x] + ([x.transpose(0, 1)] if x.dim() > 1 else []) + \
            ([x.to(memory_format=torch.channels_last)] if x.dim() == 4 else [])
        for t in layouts:
            for kw in ({}, dict(dtype=torch.float64), dict(memory_format=torch.preserve_format),
                       dict(memory_format=torch.contiguous_format), dict(memory_format=torch.channels_last),
                       dict(device='meta'), dict(device='cpu')):
                answered += _compare(a.empty_like.default, [t], kw)[0]
            for dims in ([0], [-1], [0, 1], [1, 0], [0, 0], [3], [], None, [0, 2]):
                for keepdim in (False, True):
                    for kw in ({}, dict(dtype=torch.float64)):
                        for op in (a.sum.dim_IntList, a.mean.dim):
                            answered += _compare(op, [t, dims, keepdim], kw)[0]
    assert answered > 500


def test_cat_rule_equals_torch_meta_kernel():
    a, answered = torch.ops.aten, 0
    shapes = [(2, 3), (2, 5), (4, 3), (2, 3, 4, 5), (2, 3, 4, 6), (1, 3, 4, 5), (2, 1, 4, 5), (0, 3), (0,), (5,),
              (2, 3, 4), (2, 3, 4, 5, 2)]
    for (s1, s2), dtypes in itertools.product(itertools.product(shapes, shapes),
                                              [(torch.float32,) * 2, (torch.float16,) * 2, (torch.int64,) * 2,
                                               (torch.float32, torch.float64)]):
        x, y = _m(s1, dtypes[0]), _m(s2, dtypes[1])
        for dim in (0, 1, -1, 3, -5):
            answered += _compare(a.cat.default, [[x, y], dim])[0]
            answered += _compare(a.cat.default, [[x, y, x], dim])[0]
    for x in (_m((2, 3, 4, 5)).to(memory_format=torch.channels_last), _m((2, 3, 4)).transpose(0, 1)):
        for dim in (0, 1):
            assert RULES[a.cat.default]([x, x], dim) is None  # (torch's kernel: its own layout)
    _compare(a.cat.default, [[], 0])
    _compare(a.cat.default, [[_m(())], 0])
    assert answered >= 300


def test_layer_norm_and_embedding_rules_equal_torch_meta_kernels():
    a, answered = torch.ops.aten, 0
    for shape, dtype in itertools.product([(2, 3, 4), (4,), (2, 3, 4, 5), (0, 4), (2, 0)], FLOATS + OTHER[:1]):
        x = _m(shape, dtype)
        for norm in ([4], [3, 4], [5], [], [4, 5], [2, 3, 4]):
            for w, b in ((None, None), (_m(norm, dtype), _m(norm, dtype)), (_m(norm, dtype), None),
                         (_m([7], dtype), None), (None, _m(norm))):
                answered += _compare(a.native_layer_norm.default, [x, norm, w, b, 1e-5])[0]
    _compare(a.native_layer_norm.default, [_m((2, 3, 4)).transpose(0, 1), [4], None, None, 1e-5])
    for wshape, wdtype in itertools.product([(10, 4), (10,), (0, 4), (10, 4, 2)], [torch.float32, torch.float16]):
        for ishape, idtype in itertools.product([(2, 3), (), (5,), (0,)],
                                                [torch.int64, torch.int32, torch.float32, torch.uint8]):
            answered += _compare(a.embedding.default, [_m(wshape, wdtype), _m(ishape, idtype)])[0]
            answered += _compare(a.embedding.default, [_m(wshape, wdtype), _m(ishape, idtype), 0, True, False])[0]
    assert answered > 100


def test_reduction_repeat_stack_and_gather_rules_equal_torch_meta_kernels():
    a, answered = torch.ops.aten, 0
    shapes = [(2, 3, 4), (), (5,), (2, 1, 4, 4), (0, 3), (2, 3, 4, 5)]
    for shape, dtype in itertools.product(shapes, FLOATS + OTHER[:2]):
        x = _m(shape, dtype)
        for t in [x] + ([x.transpose(0, 1)] if x.dim() > 1 else []):
            for dims in ([0], [-1], [0, 1], [0, 0], [3], []):
                for keepdim in (False, True):
                    for op in (a.amax.default, a.amin.default):
                        answered += _compare(op, [t, dims, keepdim])[0]
            for dim in (0, -1, 2, 4, None):
                for keepdim in (False, True):
                    for op in (a.argmax.default, a.argmin.default):
                        answered += _compare(op, [t, dim, keepdim])[0]
            for reps in ([2, 1, 3], [1], [2, 2, 2, 2], [0, 1, 1], [3, 1, 1, 1, 2]):
                answered += _compare(a.repeat.default, [t, reps])[0]
            for dim in (0, -1, 1, 5):
                answered += _compare(a.stack.default, [[t, t], dim])[0]
                answered += _compare(a.stack.default, [[t, _m(shape, torch.float64)], dim])[0]
            for ishape, idtype in itertools.product([(2, 2, 4), (1, 3, 4), (2, 3, 9), (2,), (3, 3, 4)],
                                                    [torch.int64, torch.int32]):
                for dim in (0, 1, -1, 3):
                    answered += _compare(a.gather.default, [t, dim, _m(ishape, idtype)])[0]
    assert answered > 500


INTS = [torch.int32, torch.int8, torch.bool]


@pytest.mark.slow
def test_norm_and_cumsum_rules_equal_torch_meta_kernels():
    # norm: sum (ord 1, in the data's dtype) and linalg_vector_norm (ord 2); InstanceNorm on one spatial element:
    # var_mean
    a, answered = torch.ops.aten, 0
    shapes = [(2, 3, 4), (), (5,), (2, 1, 4), (1, 1), (0, 3), (2, 3, 4, 5)]
    for shape, dtype in itertools.product(shapes, FLOATS + OTHER + INTS):
        x = _m(shape, dtype)
        for t in [x] + ([x.transpose(0, 1)] if x.dim() > 1 else []):
            for dims in ([1], [-1], [0, 2], [2, 0], [0, 0], [3], [], None):
                for keepdim in (False, True):
                    for kw in ({}, dict(dtype=torch.int64), dict(dtype=torch.int32), dict(dtype=torch.float16),
                               dict(dtype=torch.bool), dict(dtype=torch.complex64)):
                        answered += _compare(a.sum.dim_IntList, [t, dims, keepdim], kw)[0]
                        answered += _compare(a.mean.dim, [t, dims, keepdim], kw)[0]
                    for correction in (0, 1, None, 0.5):
                        answered += _compare(a.var_mean.correction, [t, dims],
                                             dict(correction=correction, keepdim=keepdim))[0]
                    for ord, kw in ((2, {}), (1, {}), (2.5, {}), (0, {}), (-1, {}), (float('inf'), {}),
                                    (2, dict(dtype=torch.float64))):
                        answered += _compare(a.linalg_vector_norm.default, [t, ord, dims, keepdim], kw)[0]
            for dim in (0, 1, -1, 2, 4, -5):
                for kw in ({}, dict(dtype=torch.float32), dict(dtype=torch.int64), dict(dtype=torch.int8),
                           dict(dtype=torch.float64), dict(dtype=torch.complex64), dict(dtype=torch.bool)):
                    answered += _compare(a.cumsum.default, [t, dim], kw)[0]
    assert answered > 3000


def test_batch_norm_rule_equals_torch_meta_kernel():
    # instance_norm's batch statistics over a (1, N * C, spatial...) view
    a, answered = torch.ops.aten, 0
    for shape, dtype in itertools.product([(1, 6, 20), (2, 3, 4, 5), (4, 3), (2, 1, 1, 1), (1, 6, 1), (0, 3, 4),
                                           (2, 0, 4), (2, 3, 2, 2, 2), (5,)], FLOATS + OTHER[:1]):
        x = _m(shape, dtype)
        c = shape[1] if len(shape) > 1 else 5
        for t in [x] + ([x.transpose(-1, -2)] if x.dim() > 2 else []):
            for w, b in ((None, None), (_m(c, dtype), _m(c, dtype)), (_m(c), _m(c)), (_m(c, torch.float64), None),
                         (_m(7, dtype), None), (None, _m((1, c), dtype)), (_m(c, torch.int64), None)):
                for training in (True, False):
                    answered += _compare(a.native_batch_norm.default, [t, w, b, None, None, training, 0.1, 1e-3])[0]
                    stats = _m(c, torch.float32)
                    answered += _compare(a.native_batch_norm.default, [t, w, b, stats, stats, training, 0.1, 1e-5])[0]
    assert answered > 100


def test_index_rule_equals_torch_meta_kernel():
    # advanced indexing: gather_nd's data[idx[0], ..., idx[m - 1]], x[:, i] and the forms torch lays out otherwise
    a, answered = torch.ops.aten, 0
    for shape, dtype in itertools.product([(3, 4, 5), (2, 1, 4, 4), (6,), (3, 1), (0, 4), (3, 0, 2), (2, 3, 4, 5)],
                                          [torch.float32, torch.float16, torch.int64, torch.bool]):
        x = _m(shape, dtype)
        for t in [x] + ([x.transpose(0, 1)] if x.dim() > 1 else []):
            for ishapes in ([(6,)], [(6,), (6,)], [(2, 3), (3,)], [(2, 1), (1, 3), (3,)], [(2, 3), (4,)], [()],
                            [(0,)], [(6,)] * 5, [(1, 1, 2)] * 2):
                for idtype in (torch.int64, torch.int32, torch.int16, torch.uint8, torch.bool, torch.float32):
                    indices = [_m(i, idtype) for i in ishapes]
                    for nones in ((), (0,), (0, 1), (1,), (3,), (0, 2)):
                        given = list(indices)
                        for at in nones:
                            given.insert(at, None)
                        answered += _compare(a.index.Tensor, [t, given])[0]
    _compare(a.index.Tensor, [_m((3, 4)), []])
    _compare(a.index.Tensor, [_m(()), [_m(2, torch.int64)]])
    _compare(a.index.Tensor, [_m((3, 4)), [_m((2, 2), torch.int64)[:, 0]]])  # (non-contiguous indices)
    assert answered > 300


def test_arange_rule_equals_torch_meta_kernel():
    a, answered = torch.ops.aten, 0
    from mxcompat.operator._meta_rules import FACTORY_RULES
    bounds = [(5,), (0,), (-3,), (2.5,), (0, 5), (5, 0), (0, 10, 3), (10, 0, -3), (0, 10, -1), (0.0, 1.0, 0.1),
              (1, 2.5, 0.5), (0, 5, 0), (-2.5, 2.5, 0.7), (0, 1e6, 7)]
    for b, dtype in itertools.product(bounds, [None, torch.float32, torch.float64, torch.float16, torch.int64,
                                               torch.int32, torch.uint8]):
        op = (a.arange.default, a.arange.start, a.arange.start_step)[len(b) - 1]
        kw = dict(device='meta') if dtype is None else dict(device='meta', dtype=dtype)
        answered += _compare(op, list(b), kw, FACTORY_RULES)[0]
    for op, b in ((a.arange.default, (5,)), (a.arange.start, (1, 5)), (a.arange.start_step, (1, 5, 2))):
        for kw in (dict(dtype=torch.int64, layout=torch.strided, device='meta', pin_memory=False),
                   dict(dtype=torch.float32, device='meta', pin_memory=False)):
            with meta_inference():
                got = _full(op(*b, **kw))
            assert got == _full(op(*b, **kw)), (op, kw)  # (every keyword given: each reaches its place)
    with meta_inference():  # (only the meta device is answered by rule)
        assert torch.arange(4).device.type == 'cpu' and torch.arange(4).tolist() == [0, 1, 2, 3]
    assert answered > 30


INPLACE = sorted((op for op in (getattr(getattr(torch.ops.aten, n), o) for n in ('div_', 'mul_', 'add_', 'sub_',
                                                                                 'clamp_', 'relu_', 'pow_')
                                for o in getattr(torch.ops.aten, n).overloads())
                  if _op_info(op)[3]), key=str)


@pytest.mark.parametrize('op', INPLACE, ids=str)
def test_inplace_pointwise_results_equal_torch_meta_kernels(op):
    # in place: the result is the first argument itself, where torch's kernel accepts the call
    checked = 0
    for shape, other, dtype, odt in itertools.product(((2, 3), (2, 1), ()), ((2, 3), (3,), (1,), (4,)),
                                                      DTYPES, (None, torch.float64)):
        x = torch.empty(shape, dtype=dtype, device='meta')
        made = _args(op, (shape, other, other), (dtype, odt or dtype, odt or dtype), 2)
        if made is None:
            pytest.skip('%s takes an argument the sweep does not make' % op)
        args, kwargs = made
        args[0] = x
        got = []
        for mode in (True, False):
            try:
                with meta_inference() if mode else contextlib.nullcontext():
                    r = op(*args, **kwargs)
                got.append((r is x, tuple(r.shape), r.dtype, r.stride()))
            except Exception as e:  # noqa: BLE001 -- which error is part of the comparison
                got.append(type(e))
        assert got[0] == got[1], (shape, other, dtype, odt)
        checked += 1
    assert checked and {'aten.div_.Scalar', 'aten.mul_.Tensor'} <= {str(o) for o in INPLACE}
