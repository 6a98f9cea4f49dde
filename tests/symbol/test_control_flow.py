"""mx.sym.contrib.foreach against MXNet 1.9.1 (tests/fixtures/control_flow, written by gen_control_flow.py): the
graph JSON with its subgraph, inferred shapes, forward outputs and gradients; MXNet's JSON loaded here; a Gluon
block looping with F.contrib.foreach, eager and hybridized."""
import json
import os
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetError, MXNetValueError

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'control_flow')
sys.path.insert(0, FIX)
import control_flow_cases as cases  # noqa: E402

with open(os.path.join(FIX, 'control_flow.json')) as _f:
    GOLD = json.load(_f)

_BUILT = {}


def _describe(name):
    if name not in _BUILT:
        cases.reset(mx)
        _BUILT[name] = cases.describe(mx, cases.CASES[name])
    return _BUILT[name]


def _close(got, want, what):
    np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(want, dtype=np.float64), rtol=1e-5,
                               atol=2e-6, err_msg=what)


def test_cases_match_golden_names():
    assert sorted(cases.CASES) == sorted(GOLD['cases'])


@pytest.mark.parametrize('name', sorted(cases.CASES))
def test_graph_and_shapes(name):
    sym, shapes, got = _describe(name)
    gold = GOLD['cases'][name]
    for key in ('arguments', 'outputs', 'graph'):
        assert got[key] == gold[key], key
    if name not in cases.NO_INFER:
        for key in ('arg_shapes', 'out_shapes', 'aux_shapes'):
            assert got[key] == gold[key], key
        return
    # MXNet 1.9.1 infers nothing here (cases.NO_INFER); mxcompat infers the shapes the graph runs with
    assert gold['arg_shapes'] is None
    assert got['arg_shapes'] == [list(shapes[n]) for n in got['arguments']]
    assert got['out_shapes'] == [list(np.shape(o)) for o in gold['forward']]


# Gradients checked against the eager loops (nd.contrib.foreach/while_loop/cond under autograd) instead of MXNet's:
# - cut_values: MXNet 1.9.1's _foreach backward is wrong when the body reads a value computed outside the loop by an
#   operator (a cut operator output, here fco_output): each step's state gradient gains the next step's (d2's
#   gradient is 16.25, 9.5, 5, 2 over the steps; central differences give 3.75, 3.5, 3, 2). Reading an outside
#   variable is right.
# - while_loop: MXNet's backward fails (cases.NO_GRADS).
# - cond_else, cond_multi: MXNet's _cond backward leaves the gradient of inputs only the branch not taken reads
#   unset (uninitialised memory: w's gradient came out -3 in one run and -8.7e26 in the next), so gen_control_flow.py
#   does not record them (cases.NO_GRADS).
def _eager_cut_values(nd, a):
    outside = nd.FullyConnected(a['z'], a['fco_weight'], a['fco_bias'], num_hidden=3)

    def body(x, states):
        b = states[0] * 0.5 + (nd.FullyConnected(x[0], a['fc_in_weight'], a['fc_in_bias'], num_hidden=3) + outside
                               + x[1])
        return [b, states[0]], [b]
    outs, states = nd.contrib.foreach(body, [a['d1'], a['d2']], [a['h']])
    return outs + states


def _eager_while_loop(nd, a):
    w = a['w']
    outside = w.exp()
    outs, loop_vars = nd.contrib.while_loop(
        lambda i, s: i < 100 + w, lambda i, s: (nd.broadcast_mul(s, outside), [i + 1, nd.broadcast_add(s, i * w)]),
        [a['i'], a['s']], max_iterations=5)
    return [outs] + loop_vars


def _eager_cond(threshold):
    def run(nd, a):
        outside = a['w'].exp()
        return [nd.contrib.cond(a['i'].sum() > threshold,
                                lambda: nd.broadcast_add(nd.broadcast_mul(a['s'], outside), a['w']),
                                lambda: nd.broadcast_sub(a['s'], a['w']))]
    return run


def _eager_cond_multi(nd, a):
    x = a['x']
    scale = x.sum(axis=1, keepdims=True)
    return nd.contrib.cond(a['p'] > 0,
                           lambda: [nd.FullyConnected(x, a['fc_weight'], a['fc_bias'], num_hidden=3), x * 2],
                           lambda: [nd.broadcast_mul(x, scale), x - 1])


EAGER_GRADS = {'cut_values': _eager_cut_values, 'while_loop': _eager_while_loop, 'cond_else': _eager_cond(5),
               'cond_multi': _eager_cond_multi}


def _eager_grads(name, shapes):
    """The case's gradients from its eager twin under autograd, for arguments seeded as ``execute`` seeds them."""
    arrays = {k: mx.nd.array(cases._arg_values(k, tuple(s), 0)) for k, s in shapes.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        heads = EAGER_GRADS[name](mx.nd, arrays)
    mx.autograd.backward(heads, [mx.nd.ones(h.shape) for h in heads])
    return {k: a.grad.asnumpy() for k, a in arrays.items()}


@pytest.mark.parametrize('name', sorted(cases.CASES))
def test_forward_and_gradients(name):
    sym, shapes, _ = _describe(name)
    eager = name in EAGER_GRADS
    got = cases.execute(mx, sym, shapes, grads=eager or name not in cases.NO_GRADS)
    gold = GOLD['cases'][name]
    assert len(got['forward']) == len(gold['forward'])
    for i, (g, w) in enumerate(zip(got['forward'], gold['forward'])):
        _close(g, w, 'output %d' % i)
    want = _eager_grads(name, dict(zip(sym.list_arguments(), sym.infer_shape(**shapes)[0]))) if eager \
        else gold.get('grads', {})
    assert sorted(got.get('grads', {})) == sorted(want)
    for k, w in want.items():
        _close(got['grads'][k], w, 'gradient of %s' % k)
    if name == 'cut_values':
        assert not np.allclose(got['grads']['d2'], gold['grads']['d2']), "MXNet's gradients now agree: drop the case"


@pytest.mark.parametrize('name', sorted(cases.CASES))
def test_loads_mxnet_json(name):
    """MXNet's JSON of the loop (its subgraph nested in the node) loads, writes back the same and runs the same."""
    gold = GOLD['cases'][name]
    sym = mx.sym.load_json(json.dumps(gold['graph']))
    assert json.loads(sym.tojson()) == gold['graph']
    got = cases.execute(mx, sym, _describe(name)[1], grads=False)
    for i, (g, w) in enumerate(zip(got['forward'], gold['forward'])):
        _close(g, w, 'output %d' % i)


def test_small_graph_json_text_is_mxnets():
    """Lists of at most 10 items are written on one line, as MXNet's writer does (node_row_ptr included)."""
    sym, _, _ = _describe('simple')
    text = sym.tojson()
    assert '"node_row_ptr": [0, 1, 2, 3, 5]' in text
    assert '"subgraphs": [\n        {\n          "nodes": [\n            {\n' in text


@pytest.mark.parametrize('mode', ['eager', 'hybrid'])
def test_gluon_block_with_foreach(mode):
    outs, grad, graph = cases.gluon_loop(mx, mode == 'hybrid')
    gold = GOLD['gluon'][mode]
    for i, (g, w) in enumerate(zip(outs, gold['outputs'])):
        _close(g, w, 'output %d' % i)
    _close(grad, gold['weight_grad'], 'dense weight gradient')
    assert graph == gold['graph']


def test_foreach_matches_the_eager_loop():
    rng = np.random.RandomState(0)
    x, s = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (3,))

    def body(F):
        return lambda xt, st: (F.sin(xt) * st[0], [st[0] + xt])
    outs, states = mx.sym.contrib.foreach(body(mx.sym), mx.sym.var('x'), [mx.sym.var('s')])
    got = mx.sym.Group([outs] + states).eval(x=mx.nd.array(x), s=mx.nd.array(s))
    want_out, want_states = mx.nd.contrib.foreach(body(mx.nd), mx.nd.array(x), [mx.nd.array(s)])
    np.testing.assert_allclose(got[0].asnumpy(), want_out.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), want_states[0].asnumpy(), rtol=1e-6)


def test_unused_data_or_state_is_refused():
    with pytest.raises(MXNetAssertionError, match='does not use the data input'):
        mx.sym.contrib.foreach(lambda x, s: (s[0] * 2, [s[0] + 1]), mx.sym.var('x'), [mx.sym.var('s')])
    with pytest.raises(MXNetAssertionError, match='does not use the state input'):
        mx.sym.contrib.foreach(lambda x, s: (x * 2, [x + 1]), mx.sym.var('x'), [mx.sym.var('s')])


def test_state_nesting_must_be_kept():
    with pytest.raises(MXNetValueError, match='nested as'):
        mx.sym.contrib.foreach(lambda x, s: (x, [[s[0] + x]]), mx.sym.var('x'), [mx.sym.var('s')])


def test_no_steps_and_no_subgraph_raise():
    outs, _ = mx.sym.contrib.foreach(lambda x, s: (x + s[0], [s[0]]), mx.sym.var('x'), [mx.sym.var('s')])
    with pytest.raises(MXNetError, match='no steps'):
        outs.eval(x=mx.nd.empty((0, 2)), s=mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match='_foreach: its body is a subgraph'):
        mx.nd._internal._foreach(mx.nd.ones((2,)), num_outputs=1, num_out_data=1, in_state_locs=(),
                                 in_data_locs=(0,), remain_locs=())


@pytest.mark.parametrize('layout, valid', cases.UNROLLS, ids=['%s-%s' % u for u in cases.UNROLLS])
@pytest.mark.parametrize('mode', ['eager', 'hybrid'])
def test_gluon_dynamic_unroll(layout, valid, mode):
    """gluon.contrib.rnn's dynamic_unroll of an LSTMCell: a Python loop eagerly, MXNet's foreach graph when
    hybridized (the exported JSON is MXNet's)."""
    outs, grad, graph = cases.gluon_unroll(mx, mode == 'hybrid', layout, valid)
    gold = GOLD['unroll']['%s-%s-%s' % (layout, valid, mode)]
    for i, (g, w) in enumerate(zip(outs, gold['outputs'])):
        _close(g, w, 'output %d' % i)
    _close(grad, gold['weight_grad'], 'i2h weight gradient')
    assert graph == gold['graph']


def test_while_loop_rows_past_the_last_step_are_zeros():
    """MXNet leaves them unset; mxcompat writes zeros (as its mx.nd.contrib.while_loop). A loop whose condition
    fails at once still has max_iterations rows of the step outputs' shape."""
    def step(F):
        return lambda i, s: (F.broadcast_mul(s, i), [i + 1, s + 1])
    outs, loop_vars = mx.sym.contrib.while_loop(lambda i, s: i < 3, step(mx.sym), [mx.sym.var('i'), mx.sym.var('s')],
                                                max_iterations=5)
    sym = mx.sym.Group([outs] + loop_vars)
    got = sym.eval(i=mx.nd.array([1]), s=mx.nd.array([1, 2]))
    np.testing.assert_array_equal(got[0].asnumpy(), [[1, 2], [4, 6], [0, 0], [0, 0], [0, 0]])
    assert got[1].asscalar() == 3
    np.testing.assert_array_equal(got[2].asnumpy(), [3, 4])
    want_out, _ = mx.nd.contrib.while_loop(lambda i, s: i < 3, step(mx.nd), [mx.nd.array([1]), mx.nd.array([1, 2])],
                                           max_iterations=5)
    np.testing.assert_array_equal(got[0].asnumpy(), want_out.asnumpy())
    none = sym.eval(i=mx.nd.array([7]), s=mx.nd.array([1, 2]))
    np.testing.assert_array_equal(none[0].asnumpy(), np.zeros((5, 2)))
    np.testing.assert_array_equal(none[2].asnumpy(), [1, 2])


def test_condition_needs_one_element():
    out = mx.sym.contrib.cond(mx.sym.var('p'), lambda: mx.sym.var('x') + 1, lambda: mx.sym.var('x') - 1)
    assert out.eval(p=mx.nd.array([2]), x=mx.nd.ones((2,)))[0].asnumpy().tolist() == [2, 2]
    with pytest.raises(MXNetError, match='_cond .*one element, got shape \\(2,\\)'):
        out.eval(p=mx.nd.ones((2,)), x=mx.nd.ones((2,)))


def test_branch_outputs_must_agree():
    with pytest.raises(MXNetValueError, match='Number of outputs differs'):
        mx.sym.contrib.cond(mx.sym.var('p'), lambda: [mx.sym.var('x'), mx.sym.var('x')], lambda: mx.sym.var('x'))
    with pytest.raises(MXNetValueError, match='at least one Symbol to loop over'):
        mx.sym.contrib.foreach(lambda x, s: (s[0], [s[0]]), [], [mx.sym.var('s')])
    with pytest.raises(MXNetValueError, match='max_iterations should be specified'):
        mx.sym.contrib.while_loop(lambda i: i < 3, lambda i: (i, [i + 1]), [mx.sym.var('i')])


@pytest.mark.parametrize('hybridize', [False, True])
def test_gluon_block_with_while_loop_and_cond(hybridize):
    """A HybridBlock looping with F.contrib.while_loop and branching with F.contrib.cond gives the same values
    and gradients eagerly and hybridized (one graph with a _while_loop and a _cond node)."""
    class Block(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(3, in_units=3)

        def hybrid_forward(self, F, x, n):
            outs, (_, h) = F.contrib.while_loop(lambda i, h: i < n, lambda i, h: (h, [i + 1, F.tanh(self.dense(h))]),
                                                [F.zeros((1,)), x], max_iterations=4)
            return F.contrib.cond(F.sum(h) > 0, lambda: h * 2, lambda: h - outs.sum(axis=0))

    results = []
    for mode in (False, hybridize):
        net = Block(prefix='block_')
        net.initialize(mx.init.Constant(0.1))
        if mode:
            net.hybridize()
        x = mx.nd.array(np.linspace(-1, 1, 6).reshape(2, 3))
        with mx.autograd.record():
            y = net(x, mx.nd.array([3]))
        y.backward()
        results.append((y.asnumpy(), net.dense.weight.grad().asnumpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_symbolblock_imports_mxnets_exported_loop(tmp_path):
    """The Gluon loop as real MXNet exported it (its _foreach node) imports into SymbolBlock and runs the same."""
    path = tmp_path / 'loop-symbol.json'
    path.write_text(json.dumps(GOLD['gluon']['hybrid']['graph']))
    net = mx.gluon.SymbolBlock.imports(str(path), ['data0', 'data1'])
    net.initialize()  # deferred: the weights' shapes are inferred through the loop body at the first call
    rng = np.random.RandomState(3)  # the values gluon_loop sets, drawn in its order
    params = net.collect_params()
    params['loop_dense0_weight'].set_data(mx.nd.array(rng.uniform(-1, 1, (4, 3))))
    params['loop_dense0_bias'].set_data(mx.nd.array(rng.uniform(-1, 1, (4,))))
    x, h = mx.nd.array(rng.uniform(-1, 1, (5, 2, 3))), mx.nd.array(rng.uniform(-1, 1, (2, 4)))
    outs, last = net(x, h)
    _close(outs.asnumpy().round(6), GOLD['gluon']['hybrid']['outputs'][0], 'outputs')
    _close(last.asnumpy().round(6), GOLD['gluon']['hybrid']['outputs'][1], 'final state')
