"""For every canonical registry operator: the symbolic result (``mx.sym.<op>``, saved to JSON, loaded, bound and
run) equals the eager result (``mx.nd.<op>``), forward in predict and training mode, input gradients for float
inputs, and auxiliary/updated states; ``infer_shape``/``infer_type`` agree with the eager outputs; the op in a
hybridized HybridBlock gives the eager result; each on cpu(0) and, where CUDA exists, on gpu(0), where the eager
result and gradients must also equal the CPU's (MXNet's check_consistency). Samples come from
tests/operator/op_samples.py; an op without one is listed in ``NO_SAMPLE`` with the reason, so coverage is
visible. Random ops compare shapes and dtypes only. Known bugs are listed with what differs and marked
xfail(strict=True), so each entry must go once it is fixed.
"""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.operator.registry import REGISTRY
from mxcompat.symbol.opinfo import NON_DIFFERENTIABLE
from tests.operator import op_samples
from tests.operator import op_samples_extra  # noqa: F401  (adds the samples of extra/contrib/detection ops)
from tests.operator import op_samples_np  # noqa: F401  (adds the samples of MXNet's NumPy-interface ops)
from tests.operator import op_samples_np_random  # noqa: F401  (the NumPy samplers, norm, npx's)
from tests.operator import op_samples_quantization  # noqa: F401  (the int8 quantization operators)

CANONICAL = sorted(k for k, op in REGISTRY.items() if op.name == k)

# Registry ops without a sample, and why.
_SPARSE = ('storage-type op: symbol graphs compute on dense values (cast_storage is the identity there); its sparse '
           'behaviour is checked in tests/ndarray/test_sparse.py')
NO_SAMPLE = {
    'cast_storage': _SPARSE, '_sparse_retain': _SPARSE, '_square_sum': _SPARSE, '_contrib_getnnz': _SPARSE,
    '_contrib_boolean_mask': 'its output shape depends on the mask values, so a symbol cannot infer it',
    '_npx_nonzero': 'its output shape depends on the values, so a symbol cannot infer it; checked in '
                    'tests/symbol/test_numpy_extension.py',
    'reset_arrays': 'it has no outputs (it zeroes its inputs in place); checked in tests/operator/test_extra_ops.py',
    **{op: 'its bodies are subgraphs, built by mx.sym.contrib.%s; checked against MXNet and the eager loops in '
           'tests/symbol/test_control_flow.py' % op[1:] for op in ('_foreach', '_while_loop', '_cond')},
    **{op: 'a fused node reads its subgraph, which only a loaded graph has; checked against MXNet in '
           'tests/operator/test_sg_mkldnn.py' for op in ('_sg_mkldnn_conv', '_sg_mkldnn_fully_connected')},
}

# Mismatches between the symbolic and the eager result: 'op' (every sample) or 'op#i' (sample i) -> what differs.
# Marked xfail(strict=True): the entry must go once the bug is fixed.
KNOWN_MISMATCH = {
    '_np_cumsum#3': 'a float input with an int output dtype: the bound executor asks autograd for an int output '
                    'and torch refuses ("Autograd not support dtype: Int")',
}

# Shape inference (infer_shape, infer_shape_partial) disagreeing with the eager outputs.
KNOWN_INFER_MISMATCH = {
    '_np_dot#0': "infer_shape_partial(a=(2, 3)) gives b (3, 0): the rule that gives a deferred Gluon weight its first "
                 "dimension (symbol/numpy/_ops.py _dot_param) assumes a 2-D b, where MXNet's shape function reads "
                 "b's declared dimensions",
    '_np_dot#1': "infer_shape_partial(a=(3,)) gives b (3, 0) for a 1-D b: as _np_dot#0",
}
# output shapes that depend on the input values: infer_shape cannot give them (MXNet's are dynamic too)
KNOWN_INFER_MISMATCH.update({'%s#%d' % (op, i): 'its output shape depends on the input values'
                             for op in ('_npi_unique', '_npi_bincount') for i in (0, 1)})


# Float inputs that an op refuses gradients for, as MXNet does (its backward checks their req is null).
NO_GRADIENT_INPUTS = {'_contrib_hawkesll': ('lags', 'valid_length', 'max_time'),  # its sufficient statistics
                      '_contrib_RROIAlign': ('data', 'rois')}  # forward only: its backward raises, as MXNet's


def _refuses_gradient(name, key):
    # key: the input's position (list samples) or name (dict samples)
    fixed = NO_GRADIENT_INPUTS.get(name)
    return bool(fixed) and (REGISTRY[name].inputs[key] if isinstance(key, int) else key) in fixed


# The op in a hybridized HybridBlock disagreeing with the eager result.
KNOWN_HYBRID_MISMATCH = {
}


def _cases(known=None):
    known = KNOWN_MISMATCH if known is None else known
    out = []
    for name in sorted(op_samples.SAMPLES):
        for i, sample in enumerate(op_samples.SAMPLES[name]):
            reason = known.get('%s#%d' % (name, i)) or known.get(name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(name, i, sample, id='%s#%d' % (name, i), marks=marks))
    return out


def _namespace(mod, name):
    return getattr(mod._internal if name.startswith('_') else mod, name)


def _arrays(inputs):
    """Fresh NDArrays (same dtype) for each input."""
    if isinstance(inputs, list):
        return [mx.nd.array(v, dtype=v.dtype) for v in inputs]
    return {k: mx.nd.array(v, dtype=v.dtype) for k, v in inputs.items()}


def _call_nd(name, arrays, attrs):
    op, fn = REGISTRY[name], _namespace(mx.nd, name)
    if isinstance(arrays, list) or op.variadic:
        return fn(*(arrays if isinstance(arrays, list) else arrays.values()), **attrs)
    names = list(arrays)
    if names == list(op.inputs[:len(names)]):
        return fn(*arrays.values(), **attrs)
    return fn(**arrays, **attrs)


def _symbol(name, inputs, attrs):
    op, fn = REGISTRY[name], _namespace(mx.sym, name)
    if isinstance(inputs, list):
        names = ['x%d' % i for i in range(len(inputs))]
        return fn(*[mx.sym.var(n) for n in names], **attrs), dict(zip(names, range(len(inputs))))
    if op.variadic:
        return fn(*[mx.sym.var(n) for n in inputs], **attrs), {n: n for n in inputs}
    return fn(**{n: mx.sym.var(n) for n in inputs}, **attrs), {n: n for n in inputs}


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _float(a):
    return np.issubdtype(a.dtype, np.floating)


def _heads(outs):
    rs = np.random.RandomState(7)
    return [rs.uniform(-1, 1, o.shape).astype(o.dtype) if _float(o) else None for o in outs]


def _same(got, want, what, values=True, tol=None):
    got, want = list(got), list(want)
    assert len(got) == len(want), '%s: %d vs %d arrays' % (what, len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        g = g.asnumpy() if hasattr(g, 'asnumpy') else g
        w = w.asnumpy() if hasattr(w, 'asnumpy') else w
        assert g.shape == w.shape, '%s %d: shape %s (symbol) vs %s (eager)' % (what, i, g.shape, w.shape)
        assert g.dtype == w.dtype, '%s %d: dtype %s (symbol) vs %s (eager)' % (what, i, g.dtype, w.dtype)
        if values:
            rtol, atol = (1e-5, 1e-6) if tol is None else tol(w.dtype)
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg='%s %d differs' % (what, i))


class _Bound:
    """The sample's symbol, saved to MXNet's JSON and loaded back (attributes parsed from their strings), bound to
    fresh copies of the inputs, with gradients for the float arguments of differentiable ops."""

    def __init__(self, name, inputs, attrs, ctx):
        sym, self.var_of = _symbol(name, inputs, attrs)
        self.sym = mx.sym.load_json(sym.tojson(remove_amp_cast=False))
        assert (self.sym.list_inputs(), self.sym.list_outputs()) == (sym.list_inputs(), sym.list_outputs())
        arrays = _arrays(inputs)
        unknown = [n for n in self.sym.list_inputs() if n not in self.var_of]
        assert not unknown, 'the symbol made variables %s that the sample does not give' % unknown
        args = {n: arrays[self.var_of[n]] for n in self.sym.list_arguments()}
        aux = {n: arrays[self.var_of[n]] for n in self.sym.list_auxiliary_states()}
        # (binding with gradients through an op MXNet cannot differentiate raises, as in MXNet: tested elsewhere)
        differentiable = (name not in op_samples.RANDOM and name not in op_samples.STATEFUL
                          and name not in NON_DIFFERENTIABLE)
        self.grad = {n: mx.nd.zeros(a.shape, dtype=a.dtype) for n, a in args.items()
                     if differentiable and _float(a.asnumpy()) and not _refuses_gradient(name, self.var_of[n])}
        self.ex = self.sym.bind(ctx, args, args_grad=self.grad or None,
                                grad_req={n: 'write' if n in self.grad else 'null' for n in args}, aux_states=aux)
        self.keys = list(range(len(arrays))) if isinstance(arrays, list) else list(arrays)
        self.state = [arrays[k] for k in self.keys]

    def reset(self, inputs):
        for k, a in zip(self.keys, self.state):
            a[:] = inputs[k]


def _values(arrays):
    return list(arrays) if isinstance(arrays, list) else list(arrays.values())


@pytest.mark.parametrize('name,index,sample', _cases(KNOWN_INFER_MISMATCH))
def test_symbol_inference(name, index, sample):
    """infer_shape / infer_type from all input shapes and dtypes give the eager outputs'; from the first argument
    alone, whatever is inferred agrees with the sample."""
    inputs, attrs = sample
    eager = [o.asnumpy() for o in _as_list(_call_nd(name, _arrays(inputs), attrs))]
    sym, var_of = _symbol(name, inputs, attrs)
    sym = mx.sym.load_json(sym.tojson(remove_amp_cast=False))
    given = {n: (inputs[k].shape, inputs[k].dtype) for n, k in var_of.items()}
    names, aux_names = sym.list_arguments(), sym.list_auxiliary_states()
    args, outs, aux = sym.infer_shape(**{n: s for n, (s, _) in given.items()})
    assert outs == [o.shape for o in eager], 'infer_shape outputs %s, eager %s' % (outs, [o.shape for o in eager])
    assert args == [given[n][0] for n in names] and aux == [given[n][0] for n in aux_names]
    args, outs, aux = sym.infer_type(**{n: t for n, (_, t) in given.items()})
    assert [np.dtype(t) for t in outs] == [o.dtype for o in eager], 'infer_type outputs %s, eager %s' % (
        outs, [o.dtype for o in eager])
    if not names:
        return
    args, outs, aux = sym.infer_shape_partial(**{names[0]: given[names[0]][0]})
    for n, s in zip(names + aux_names, args + aux):
        assert not s or tuple(s) == given[n][0], 'infer_shape_partial(%s) gave %s %s for the sample\'s %s' % (
            names[0], n, s, given[n][0])
    for i, (s, o) in enumerate(zip(outs, eager)):
        assert not s or tuple(s) == o.shape, 'infer_shape_partial output %d: %s vs eager %s' % (i, s, o.shape)


@pytest.mark.parametrize('name,index,sample', _cases())
def test_symbol_equals_eager(name, index, sample, ctx):
    with ctx:
        _symbol_equals_eager(name, sample, ctx)


def _symbol_equals_eager(name, sample, ctx):
    inputs, attrs = sample
    values = name not in op_samples.RANDOM
    b = _Bound(name, inputs, attrs, ctx)
    # predict mode: no recording, forward(is_train=False)
    arrays = _arrays(inputs)
    eager = _as_list(_call_nd(name, arrays, attrs))
    _same(b.ex.forward(is_train=False), eager, 'predict output', values)
    _same(b.state, _values(arrays), 'inputs after predict', values)
    # training mode, with gradients of the float arguments
    b.reset(inputs)
    arrays = _arrays(inputs)
    for n in b.grad:
        arrays[b.var_of[n]].attach_grad()
    with mx.autograd.record():
        eager = _as_list(_call_nd(name, arrays, attrs))
    _same(b.ex.forward(is_train=True), eager, 'training output', values)
    if b.grad:
        heads = _heads([o.asnumpy() for o in eager])
        pairs = _head_pairs(eager, heads)
        if pairs:
            mx.autograd.backward([o for o, _ in pairs], [h for _, h in pairs])
        b.ex.backward([None if h is None else mx.nd.array(h, dtype=h.dtype) for h in heads])
        names = sorted(b.grad)
        _same([b.grad[n] for n in names], [arrays[b.var_of[n]].grad for n in names], 'gradient of %s' % names)
    _same(b.state, _values(arrays), 'inputs after training', values)


class _OpBlock(mx.gluon.HybridBlock):
    """A HybridBlock calling one op on its inputs (``F`` is mx.nd, or mx.sym once hybridized)."""

    def __init__(self, name, keys, attrs):
        super().__init__()
        self._op_name, self._keys, self._attrs = name, keys, attrs

    def hybrid_forward(self, F, *xs):
        op, fn = REGISTRY[self._op_name], _namespace(F, self._op_name)
        if op.variadic or isinstance(self._keys[0], int):
            return fn(*xs, **self._attrs)
        return fn(**dict(zip(self._keys, xs)), **self._attrs)


@pytest.mark.parametrize('name,index,sample', [c for c in _cases(KNOWN_HYBRID_MISMATCH) if len(c.values[2][0])])
def test_hybridized_equals_eager(name, index, sample, ctx):
    """The op inside a hybridized HybridBlock (one traced, lowered graph), predict mode; ops with inputs."""
    with ctx:
        _hybridized_equals_eager(name, sample)


def _hybridized_equals_eager(name, sample):
    inputs, attrs = sample
    arrays = _arrays(inputs)
    eager = _as_list(_call_nd(name, arrays, attrs))
    net = _OpBlock(name, list(range(len(arrays))) if isinstance(arrays, list) else list(arrays), attrs)
    net.hybridize()
    fresh = _values(_arrays(inputs))
    _same(_as_list(net(*fresh)), eager, 'hybridized output', name not in op_samples.RANDOM)
    _same(fresh, _values(arrays), 'inputs after the hybridized call', name not in op_samples.RANDOM)


# The op on gpu(0) disagreeing with the op on cpu(0): 'op' or 'op#i' -> what differs. xfail(strict=True) on CUDA.
KNOWN_DEVICE_MISMATCH = {
    '_np_cumsum#3': 'fails on both devices, as in KNOWN_MISMATCH: recording a float input through an int output '
                    'raises ("Autograd not support dtype: Int")',
    '_npi_eigh#0': "eigenvectors' signs are the solver's choice (LAPACK on the CPU, cuSOLVER on CUDA), in MXNet too: "
                   'columns come out negated, and so do their gradients',
}

# A case whose float64 output is computed from float32 values: 'op#i' -> (rtol, atol) of the float32 math behind it.
DEVICE_TOL = {
    'softmax#3': (3e-7, 1e-9),  # float32 data, float64 output: CUDA's expf is within 2 ulp, glibc's is exact
}


def _device_tol(dtype):
    # different kernels sum in different orders; TF32 is off for this comparison (see the test)
    return {np.dtype(np.float16): (1e-2, 1e-3), np.dtype(np.float32): (1e-4, 1e-5)}.get(np.dtype(dtype), (1e-7, 1e-9))


def _head_pairs(outs, heads):
    """(output, head gradient) of the eager outputs backward starts from: those in the recorded graph, with their
    head of ``heads``, or ones where it is None (an integer output: a cast of a float input, whose float stand-in is
    in torch's graph, _intgrad.py), as the bound executor's backward takes a None head."""
    pairs = []
    for o, h in zip(outs, heads):
        if o.to_torch().requires_grad and h is not None:
            pairs.append((o, mx.nd.array(h, dtype=h.dtype)))
        elif getattr(o._t, '_mx_grad_surrogate', None) is not None:
            pairs.append((o, mx.nd.ones(o.shape, dtype=o.dtype) if h is None else mx.nd.array(h, dtype=h.dtype)))
    return pairs


def _eager_with_grads(name, inputs, attrs):
    """Outputs and input gradients (seeded with fixed heads) of the op run eagerly in the current context."""
    arrays = _arrays(inputs)
    keys = list(range(len(arrays))) if isinstance(arrays, list) else list(arrays)
    differentiable = (name not in op_samples.RANDOM and name not in op_samples.STATEFUL
                      and name not in NON_DIFFERENTIABLE)
    sym, var_of = _symbol(name, inputs, attrs)
    aux = {var_of[n] for n in sym.list_auxiliary_states()}  # (moving statistics and the like take no gradient)
    wanted = [k for k in keys if differentiable and _float(inputs[k]) and k not in aux
              and not _refuses_gradient(name, k)]
    for k in wanted:
        arrays[k].attach_grad()
    with mx.autograd.record():
        outs = _as_list(_call_nd(name, arrays, attrs))
    heads = _heads([o.asnumpy() for o in outs])
    pairs = _head_pairs(outs, heads)
    if wanted and pairs:
        mx.autograd.backward([o for o, _ in pairs], [h for _, h in pairs])
    grads = [arrays[k].grad for k in wanted if pairs]
    return outs, grads, _values(arrays)


@pytest.mark.gpu
@pytest.mark.parametrize('name,index,sample', _cases(KNOWN_DEVICE_MISMATCH))
def test_gpu_equals_cpu(name, index, sample):
    """MXNet's check_consistency: outputs, input gradients and updated inputs on gpu(0) equal cpu(0)'s."""
    inputs, attrs = sample
    values = name not in op_samples.RANDOM
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        with mx.cpu(0):
            want = _eager_with_grads(name, inputs, attrs)
        with mx.gpu(0):
            got = _eager_with_grads(name, inputs, attrs)
    for what, g, w in zip(('output', 'gradient', 'input after the call'), got, want):
        for a in g:
            assert a.context == mx.gpu(0), '%s on %s, not gpu(0)' % (what, a.context)
        _same(g, w, 'gpu vs cpu ' + what, values, lambda dtype: DEVICE_TOL.get('%s#%d' % (name, index))
              if np.dtype(dtype) == np.float64 and '%s#%d' % (name, index) in DEVICE_TOL else _device_tol(dtype))


def test_every_op_is_sampled_or_listed():
    sampled = set(op_samples.SAMPLES)
    assert not sampled - set(REGISTRY), 'samples for unknown ops: %s' % sorted(sampled - set(REGISTRY))
    assert not [n for n in sampled if REGISTRY[n].name != n], 'samples must use canonical names, not aliases'
    assert not sampled & set(NO_SAMPLE), 'ops listed in NO_SAMPLE have samples: %s' % sorted(sampled & set(NO_SAMPLE))
    missing = sorted(set(CANONICAL) - sampled - set(NO_SAMPLE))
    assert not missing, 'ops with neither a sample nor a NO_SAMPLE entry: %s' % missing
    assert not set(NO_SAMPLE) - set(CANONICAL), 'stale NO_SAMPLE entries: %s' % sorted(set(NO_SAMPLE) - set(CANONICAL))
    stale = [k for k in list(KNOWN_MISMATCH) + list(KNOWN_INFER_MISMATCH) + list(KNOWN_HYBRID_MISMATCH)
             + list(KNOWN_DEVICE_MISMATCH) if k.split('#')[0] not in sampled]
    assert not stale, 'KNOWN_MISMATCH entries without a sample: %s' % stale


def test_sample_coverage():
    sampled = [n for n in CANONICAL if n in op_samples.SAMPLES]
    assert len(sampled) >= 0.9 * len(CANONICAL), '%d of %d ops sampled' % (len(sampled), len(CANONICAL))
