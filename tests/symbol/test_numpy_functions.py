"""``mx.sym.np``'s functions against real MXNet 1.9.1 (tests/fixtures/sym_np, written by gen_sym_np.py from the
calls in sym_np_cases.py): each call's graph nodes equal MXNet's (operators, node names, attributes, inputs), a
hybridized NumPy-mode block running it gives MXNet's values and input gradients, and exported files read both ways.
"""
import json
import os
import sys

import numpy as onp
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'sym_np')
sys.path.insert(0, HERE)
import sym_np_cases  # noqa: E402

with open(os.path.join(HERE, 'sym_np.json')) as _f:
    GOLDEN = json.load(_f)
ARRAYS = dict(onp.load(os.path.join(HERE, 'sym_np.npz')))
CASES = sorted(sym_np_cases.CASES)


def _graph(fn, n_inputs):
    return sym_np_cases.graph_of(mx, fn, n_inputs)


@pytest.mark.parametrize('case', CASES)
def test_graph_equals_mxnets(np_mode, case):
    fn, inputs, _ = sym_np_cases.CASES[case]
    golden = GOLDEN[case]
    if 'graph_error' in golden:
        kind, message = golden['graph_error']
        with pytest.raises(Exception) as info:
            _graph(fn, len(inputs))
        assert kind in [c.__name__ for c in type(info.value).__mro__] or \
            (kind == 'MXNetError' and isinstance(info.value, MXNetError)), (kind, info.value)
        return
    assert _graph(fn, len(inputs)) == golden['graph']


def _block(fn):
    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, *xs):
            return fn(F, *xs)
    return Block()


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _run(fn, inputs, grad, hybridize=True):
    blk = _block(fn)
    if hybridize:
        blk.hybridize()
    xs = [mx.np.array(a, dtype=a.dtype) for a in inputs]
    grads = []
    if grad:
        for x in xs:
            if x.dtype.kind == 'f':
                x.attach_grad()
        with mx.autograd.record():
            outs = _as_list(blk(*xs))
        mx.autograd.backward([o for o in outs if o.dtype.kind == 'f'])
        grads = [x.grad.asnumpy() if x.dtype.kind == 'f' else None for x in xs]
    else:
        outs = _as_list(blk(*xs))
    if hybridize:
        assert blk._cached_graph, 'the block ran imperatively'
    # (mx.np.shares_memory gives a Python bool imperatively, a boolean array in a graph)
    return [o.asnumpy() if hasattr(o, 'asnumpy') else onp.asarray(o) for o in outs], grads


def _close(got, want, what):
    assert (got.shape, got.dtype) == (want.shape, want.dtype), what
    if want.dtype.kind == 'f':
        onp.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=what)
    else:
        onp.testing.assert_array_equal(got, want, err_msg=what)


# cases MXNet 1.9.1 cannot run hybridized (a backward it lacks or fails in, or a crash): the golden values are its
# imperative mx.np results where it has them (no gradients), else mxcompat's own imperative ones
_MXNET_FAILS = sorted(c for c in CASES if 'run_error' in GOLDEN[c] and 'graph_error' not in GOLDEN[c])


# gradients where mxcompat's mx.np (imperative, and so the graph) differs from MXNet 1.9.1: MXNet's operators give
# zero gradients (no backward of their own) or a wrong one; here they equal mxcompat's imperative gradients
GRAD_DIFFERS = {
    'arctan2_rscalar': "MXNet's _npi_rarctan2_scalar backward gives -x/(s^2+x^2), not d/dx arctan2(s, x) = "
                       "-s/(s^2+x^2)",
    'atleast_1d': 'MXNet gives zero gradients', 'atleast_2d_many': 'MXNet gives zero gradients',
    'atleast_3d': 'MXNet gives zero gradients', 'percentile': 'MXNet gives zero gradients',
    'percentile_axis': 'MXNet gives zero gradients', 'percentile_q': 'MXNet gives zero gradients',
    'quantile': 'MXNet gives zero gradients', 'quantile_q': 'MXNet gives zero gradients',
}


@pytest.mark.parametrize('case', CASES)
def test_hybridized_block_gives_mxnets_values(np_mode, case):
    fn, inputs, grad = sym_np_cases.CASES[case]
    golden = GOLDEN[case]
    if 'graph_error' in golden:
        pytest.skip('MXNet 1.9.1 has no graph of it (test_graph_equals_mxnets checks the error)')
    if 'run_error' in golden:
        outs, grads = _run(fn, inputs, grad)
        if 'eager_outputs' in golden:
            want = [ARRAYS['%s:eager%d' % (case, i)] for i in range(len(golden['eager_outputs']))]
        else:
            want, _ = _run(fn, inputs, False, hybridize=False)
        assert len(outs) == len(want)
        for i, (o, w) in enumerate(zip(outs, want)):
            _close(o, w, '%s output %d' % (case, i))
        if grad:
            _, eager_grads = _run(fn, inputs, grad, hybridize=False)
            for i, (g, w) in enumerate(zip(grads, eager_grads)):
                if w is not None:
                    _close(g, w, '%s gradient %d' % (case, i))
        return
    outs, grads = _run(fn, inputs, grad)
    assert [[list(o.shape), str(o.dtype)] for o in outs] == golden['outputs']
    if case in sym_np_cases.SHAPE_ONLY:
        return
    for i, o in enumerate(outs):
        _close(o, ARRAYS['%s:out%d' % (case, i)], '%s output %d' % (case, i))
    if case in GRAD_DIFFERS:
        _, eager_grads = _run(fn, inputs, grad, hybridize=False)
        for i, (g, w) in enumerate(zip(grads, eager_grads)):
            if w is not None:
                _close(g, w, '%s gradient %d' % (case, i))
        assert not all(onp.allclose(g, ARRAYS['%s:grad%d' % (case, i)]) for i, g in enumerate(grads)
                       if g is not None), 'now MXNet\'s gradients: take %s out of GRAD_DIFFERS' % case
        return
    for i, g in enumerate(grads):
        if g is not None:
            _close(g, ARRAYS['%s:grad%d' % (case, i)], '%s gradient %d' % (case, i))


def test_mxnet_exported_block_loads_and_runs(np_mode):
    # export_net-symbol.json / -0000.params: MXNet 1.9.1's export of a block using cumsum, flip, fabs, tril, matmul,
    # hstack, repeat, tile, eye, sort, rot90, pad, hypot and diff
    net = mx.gluon.SymbolBlock.imports(os.path.join(HERE, 'export_net-symbol.json'), ['data'],
                                       os.path.join(HERE, 'export_net-0000.params'))
    out = net(mx.np.array(sym_np_cases.EXPORT_INPUT))
    _close(out.asnumpy(), ARRAYS['export_net:out'], 'export_net')


def test_export_round_trip_writes_mxnets_graph(np_mode, tmp_path):
    net = sym_np_cases.export_net(mx)
    net.hybridize()
    x = mx.np.array(sym_np_cases.EXPORT_INPUT)
    out = net(x)
    assert net._cached_graph
    _close(out.asnumpy(), ARRAYS['export_net:out'], 'export_net hybridized')
    net.export(str(tmp_path / 'net'))
    with open(str(tmp_path / 'net-symbol.json')) as f:
        ours = json.load(f)
    with open(os.path.join(HERE, 'export_net-symbol.json')) as f:
        theirs = json.load(f)
    assert [(n['op'], n['name'], n.get('attrs', {}), n['inputs']) for n in ours['nodes']] == \
        [(n['op'], n['name'], n.get('attrs', {}), n['inputs']) for n in theirs['nodes']]
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / 'net-symbol.json'), ['data'],
                                        str(tmp_path / 'net-0000.params'))
    _close(back(x).asnumpy(), ARRAYS['export_net:out'], 'export_net read back')


def test_deg2rad_and_rad2deg_have_no_symbol_as_in_mxnet(np_mode):
    # MXNet 1.9.1's mx.sym.np.deg2rad / rad2deg raise AttributeError (sym_np.json's graph_error); here the error is
    # also an MXNetNotImplementedError, so a hybridized block using them runs its hybrid_forward imperatively
    x = mx.sym.var('x').as_np_ndarray()
    for fn in (mx.sym.np.deg2rad, mx.sym.np.rad2deg):
        with pytest.raises(AttributeError):
            fn(x)
        with pytest.raises(MXNetNotImplementedError, match=fn.__name__):
            fn(x)
    blk = _block(lambda F, a: F.np.deg2rad(a) + F.np.rad2deg(a))
    blk.hybridize()
    a = mx.np.array(sym_np_cases.A)
    out = blk(a)
    assert not blk._cached_graph
    _close(out.asnumpy(), onp.deg2rad(sym_np_cases.A) + onp.rad2deg(sym_np_cases.A), 'deg2rad + rad2deg')


def test_symbol_operators_and_methods_as_mxnets():
    # MXNet 1.9.1's _Symbol has no ~ & | ^ @ (TypeError, as checked there), has num_outputs, and refuses item
    # assignment; the methods it turns off raise AttributeError (sym_np.json's method_* cases)
    x = mx.sym.var('x').as_np_ndarray()
    for op in (lambda: ~x, lambda: x & x, lambda: x | 1, lambda: x ^ x, lambda: x @ x):
        with pytest.raises(TypeError):
            op()
    assert x.num_outputs == 1 and mx.sym.np.unique(x, return_counts=True).num_outputs == 2
    with pytest.raises(NotImplementedError):
        x[0] = 1
    for name in ('tile', 'flip', 'diag', 'pad', 'split_v2', 'topk', 'one_hot', 'broadcast_to'):
        with pytest.raises(AttributeError, match=name):
            getattr(x, name)()
