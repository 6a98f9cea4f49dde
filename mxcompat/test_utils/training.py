"""Optimizer and Gluon consistency: two optimizers' updates, a block with and without ``hybridize()``."""
import itertools

import mxcompat as mx
from .arrays import rand_ndarray
from .compare import assert_almost_equal, compare_ndarray_tuple
from .tolerances import default_context

__all__ = ['compare_optimizer', 'check_gluon_hybridize_consistency']


def _optimizer_pair(shape, dtype, stype, density, ctx):
    """(dense copy, array of storage ``stype``) of one random array, as MXNet's compare_optimizer draws them."""
    if stype == 'default':
        a = mx.random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        return a.copyto(ctx), a
    if stype in ('row_sparse', 'csr'):
        a = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return a.copyto(ctx).tostype('default'), a
    raise Exception('type not supported yet')


def compare_optimizer(opt1, opt2, shape, dtype, w_stype='default', g_stype='default', rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Apply one update of ``opt1`` and ``opt2`` to the same random weight and gradient and compare the
    results (and states). A list of shapes checks ``opt2``'s multi-tensor update against ``opt1``."""
    ctx = default_context()
    if not isinstance(shape, list):
        assert ntensors == 1
        # opt1 gets dense copies, opt2 the arrays of the given storage (a sparse weight has every row stored)
        w1, w2 = _optimizer_pair(shape, dtype, w_stype, 1, ctx)
        g1, g2 = _optimizer_pair(shape, dtype, g_stype, None, ctx)
        copies = [(w1, g1), (w2, g2)]
        states = [opt.create_state_multi_precision(0, w) for opt, (w, _) in zip((opt1, opt2), copies)]
        if compare_states:
            compare_ndarray_tuple(*states)
        for opt, (w, g), state in zip((opt1, opt2), copies, states):
            opt.update_multi_precision(0, w, g, state)
        if compare_states:
            compare_ndarray_tuple(*states, rtol=rtol, atol=atol)
        assert_almost_equal(copies[0][0], copies[1][0], rtol=rtol, atol=atol)
        return
    # multi-tensor case: opt2 updates every tensor in one call, opt1 one tensor at a time
    ref_w = tuple(mx.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    ref_g = tuple(mx.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    multi_w = tuple(w.copy() for w in ref_w)
    multi_g = tuple(g.copy() for g in ref_g)
    indices = list(range(ntensors))
    multi_states = [opt2.create_state_multi_precision(0, multi_w[idx]) for idx in indices]
    opt2.update_multi_precision(indices, multi_w, multi_g, multi_states)
    for idx in indices:
        ref_state = opt1.create_state_multi_precision(idx, ref_w[idx])
        opt1.update_multi_precision(idx, ref_w[idx], ref_g[idx], ref_state)
        if compare_states:
            compare_ndarray_tuple(ref_state, multi_states[idx], rtol, atol)
        compare_ndarray_tuple(ref_w[idx], multi_w[idx], rtol, atol)


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1E-4, atol=1E-4):
    """Check that a HybridBlock built by ``net_builder(prefix='net_')`` gives the same outputs (and input
    gradients) with and without ``hybridize()``, and matches ``numpy_func`` if given. Inputs must not be random.
    Runs in the legacy semantics (MXNet runs it under ``use_np``)."""
    class _Saved(mx.init.Initializer):
        """Initializes every parameter from the values the first network got."""
        def __init__(self, values):
            super().__init__()
            self._values = values

        def _init_from_saved(self, name, arr):
            arr[:] = self._values[name]

        _init_weight = _init_bias = _init_gamma = _init_beta = _init_default = _init_from_saved

    reference = {'init': None, 'out': None, 'grads': None}

    def run_once(hybridize, with_grad):
        """Build a fresh network, run it once; returns (output, copies of the inputs)."""
        net = net_builder(prefix='net_')
        net.initialize(*(() if reference['init'] is None else (reference['init'],)))
        if hybridize:
            net.hybridize()
        inputs = [x.copy() for x in data_l]
        if not with_grad:
            out = net(*inputs)
        else:
            for x in inputs:
                x.attach_grad()
            with mx.autograd.record():
                out = net(*inputs)
            out.backward(out)
        if reference['init'] is None:
            reference['init'] = _Saved({k: v.data().asnumpy() for k, v in net.collect_params().items()})
        return out, inputs

    grad_modes = (False, True) if test_grad else (False,)
    for hybridize, with_grad in itertools.product((False, True), grad_modes):
        out, inputs = run_once(hybridize, with_grad)
        got = out.asnumpy()
        if reference['out'] is None:
            reference['out'] = got
        else:
            assert_almost_equal(got, reference['out'], rtol=rtol, atol=atol)
        if not with_grad:
            continue
        grads = [x.grad.asnumpy() for x in inputs]
        if reference['grads'] is None:
            reference['grads'] = grads
            continue
        for got_grad, want_grad in zip(grads, reference['grads']):
            assert_almost_equal(got_grad, want_grad, rtol=rtol, atol=atol)
    saved_out = reference['out']
    if numpy_func is not None:
        assert_almost_equal(saved_out, numpy_func(*[x.asnumpy() for x in data_l]), rtol=rtol, atol=atol)
