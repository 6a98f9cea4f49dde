"""Sparse arguments of bound symbols (mxcompat/symbol/passes/storage.py): output storage types, stored rows and
entries, values and gradients against MXNet 1.9.1 (tests/fixtures/sparse_executor/executor_cases.json, generator
beside it) and against the eager mx.nd path; which path a bound executor takes."""
import json
import os
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'sparse_executor')
sys.path.insert(0, HERE)
from executor_cases import CASES, setup, describe, describe_error  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, 'executor_cases.json')))['cases']


def _values(got, want, where):
    np.testing.assert_allclose(np.array(got, np.float64), np.array(want, np.float64), rtol=1e-5, atol=1e-6,
                               equal_nan=True, err_msg=where)


@pytest.mark.parametrize('expr', CASES)
def test_bound_symbol_matches_mxnet(expr):
    want = GOLDEN[expr]
    env = dict(setup(mx, np), mx=mx, np=np)
    try:
        got = describe(mx, np, eval(expr, env))
    except Exception as e:  # noqa: BLE001 (compared with the error MXNet raises)
        got = describe_error(mx, e)
    if 'error' in want:
        assert 'error' in got and got['mxnet_error'], (expr, got)
        if 'fix_gamma' in want['message']:
            assert 'fix_gamma=True is not supported for sparse ndarrays' in got['message']
        return
    assert 'error' not in got, (expr, got)
    assert len(got['outputs']) == len(want['outputs'])
    for i, (g, w) in enumerate(zip(got['outputs'], want['outputs'])):
        where = '%s: output %d' % (expr, i)
        assert (g['stype'], g['shape']) == (w['stype'], w['shape']), where
        assert g.get('rows') == w.get('rows') and g.get('entries') == w.get('entries'), (where, g, w)
        _values(g['value'], w['value'], where)
    for i, (g, w) in enumerate(zip(got.get('grads', []), want.get('grads', []))):
        # the gradient arrays hold the non-zero rows (entries): MXNet's backward kernels may store zero ones too
        where = '%s: gradient %d' % (expr, i)
        assert g['stype'] == w['stype'], where
        _values(g['value'], w['value'], where)
        assert set(g.get('rows', [])) <= set(w.get('rows', [])), (where, g, w)
        for gr, wr in zip(g.get('entries', []), w.get('entries', [])):
            assert set(gr) <= set(wr), (where, g, w)
    assert len(got.get('grads', [])) == len(want.get('grads', []))


# Each operator bound to sparse arguments gives what mx.nd gives eagerly: storage type, stored rows (entries), values.
_SYM_VS_ND = [
    ('sqrt', ('r',)), ('sqrt', ('a',)), ('relu', ('a',)), ('sigmoid', ('r',)), ('negative', ('r',)),
    ('elemwise_add', ('r', 'r2')), ('elemwise_mul', ('r', 'r2')), ('elemwise_mul', ('a', 'd')),
    ('elemwise_sub', ('a', 'a2')), ('_maximum', ('r', 'r2')), ('_hypot', ('a', 'a2')),
    ('_scatter_elemwise_div', ('r', 'z')), ('_scatter_elemwise_div', ('a', 'd')), ('broadcast_mul', ('a', 'd')),
    ('add_n', ('r', 'r2', 'r')), ('_copy', ('a',)), ('make_loss', ('r',)), ('BlockGrad', ('a',)),
]


def _structure(v):
    if v.stype == 'row_sparse':
        return v.indices.asnumpy().tolist()
    if v.stype == 'csr':
        return v.indptr.asnumpy().tolist(), v.indices.asnumpy().tolist()
    return None


@pytest.mark.parametrize('name, inputs', _SYM_VS_ND)
def test_bound_symbol_equals_eager(name, inputs):
    env = setup(mx, np)
    names = ['i%d' % k for k in range(len(inputs))]
    sym = (getattr(mx.sym, name, None) or getattr(mx.sym._internal, name))(*[mx.sym.var(n) for n in names])
    fn = getattr(mx.nd, name, None) or getattr(mx.nd._internal, name)
    eager = fn(*[env[k] for k in inputs])
    exe = sym.bind(mx.cpu(), args={n: env[k].copy() for n, k in zip(names, inputs)})
    got = exe.forward()[0]
    assert got.stype == eager.stype and _structure(got) == _structure(eager)
    np.testing.assert_array_equal(got.asnumpy(), eager.asnumpy())


@pytest.mark.parametrize('name, scalar', [('_mul_scalar', 3), ('_plus_scalar', 0), ('_plus_scalar', 1),
                                          ('_greater_scalar', 0.5), ('_scatter_minus_scalar', 2)])
def test_bound_scalar_operator_equals_eager(name, scalar):
    env = setup(mx, np)
    for x in (env['r'], env['a']):
        exe = getattr(mx.sym._internal, name)(mx.sym.var('x'), scalar=scalar).bind(mx.cpu(), args={'x': x.copy()})
        got, eager = exe.forward()[0], getattr(mx.nd._internal, name)(x, scalar=scalar)
        assert got.stype == eager.stype and _structure(got) == _structure(eager)
        np.testing.assert_array_equal(got.asnumpy(), eager.asnumpy())


def test_compressed_csr_path_is_kept_for_csr_data():
    # a Module's linear model: csr data without a gradient stays compressed (never densified); outputs are dense
    x, w = mx.sym.var('x', stype='csr'), mx.sym.var('w')
    net = mx.sym.SoftmaxOutput(mx.sym.dot(x, w), mx.sym.var('label'))
    exe = net.simple_bind(mx.cpu(), x=(3, 1000), w=(1000, 2), label=(3,), grad_req={'x': 'null', 'w': 'write',
                                                                                   'label': 'null'})
    data = mx.nd.sparse.csr_matrix(([1., 2., 3.], [5, 70, 999], [0, 1, 2, 3]), shape=(3, 1000))
    exe.forward(is_train=True, x=data, w=mx.nd.ones((1000, 2)), label=mx.nd.array([0, 1, 0]))
    exe.backward()
    assert exe._any_csr and not exe._sparse_run
    assert exe.arg_dict['x']._dense is None and exe.outputs[0].stype == 'default'
    assert exe.grad_dict['w'].stype == 'row_sparse' and exe.grad_dict['w'].indices.asnumpy().tolist() == [5, 70, 999]


def test_compressed_csr_results_are_csr_outputs():
    # MXNet 1.9.1: _scatter_plus_scalar(csr) and csr * inf are csr (the unstored zeros stay zero)
    c = mx.nd.sparse.csr_matrix(np.array([[0, 2], [3, 0]], dtype='float32'))
    lhs = mx.sym.var('lhs', stype='csr')
    for sym, want in [(mx.sym._internal._scatter_plus_scalar(lhs, 9), [[0, 11], [12, 0]]),
                      (mx.sym.sqrt(mx.sym._internal._scatter_minus_scalar(lhs, scalar=-3)), [[0, 5 ** 0.5],
                                                                                             [6 ** 0.5, 0]]),
                      (lhs * float('inf'), [[0, np.inf], [np.inf, 0]])]:
        exe = sym.bind(mx.cpu(), args={'lhs': c})
        out = exe.forward()[0]
        assert exe._any_csr and not exe._sparse_run and exe.arg_dict['lhs']._dense is None
        assert out.stype == 'csr' and out.indptr.asnumpy().tolist() == [0, 1, 2]
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def test_csr_reader_without_a_compressed_rule_takes_the_sparse_run():
    # elemwise_add(csr, csr) has no rule in the compressed path but a csr result in MXNet: the sparse run gives it
    a = mx.nd.sparse.csr_matrix(np.array([[0, 2], [3, 0]], dtype='float32'))
    exe = mx.sym.elemwise_add(mx.sym.var('x'), mx.sym.var('y')).bind(mx.cpu(), args={'x': a, 'y': a.copy()})
    out = exe.forward()[0]
    assert exe._sparse_run and not exe._any_csr and out.stype == 'csr'
    np.testing.assert_array_equal(out.asnumpy(), [[0, 4], [6, 0]])
    dense = mx.sym.sum(mx.sym.var('x')).bind(mx.cpu(), args={'x': a})  # (a dense reader: compressed path)
    assert dense._any_csr and not dense._sparse_run


def test_dense_graphs_take_neither_path():
    exe = mx.sym.sqrt(mx.sym.var('x')).bind(mx.cpu(), args={'x': mx.nd.ones((2, 2))},
                                             args_grad={'x': mx.nd.zeros((2, 2))})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 2)))
    assert not exe._any_csr and not exe._sparse_run and type(exe.outputs[0]) is mx.nd.NDArray


def test_sparse_outputs_stay_the_same_arrays_across_forwards():
    env = setup(mx, np)
    exe = mx.sym.sqrt(mx.sym.var('x')).bind(mx.cpu(), args={'x': env['r'].copy()})
    first = exe.forward()[0]
    assert first.stype == 'row_sparse' and first.indices.asnumpy().tolist() == [1, 2]
    new = mx.nd.sparse.row_sparse_array((np.array([[4, 0, 0]], np.float32), [3]), shape=(4, 3))
    second = exe.forward(x=new)[0]  # (copied into the bound array with its rows)
    assert second is first and exe.arg_dict['x'].indices.asnumpy().tolist() == [3]
    assert first.indices.asnumpy().tolist() == [3] and first.asnumpy()[3].tolist() == [2, 0, 0]


def test_gradients_into_sparse_arrays_write_and_add():
    env = setup(mx, np)
    g = mx.nd.sparse.zeros('row_sparse', (4, 3))
    exe = mx.sym.square(mx.sym.var('x')).bind(mx.cpu(), args={'x': env['r'].copy()}, args_grad={'x': g},
                                              grad_req='add')
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((4, 3)))
    assert g.stype == 'row_sparse' and g.indices.asnumpy().tolist() == [1]  # (its non-zero rows)
    np.testing.assert_array_equal(g.asnumpy(), 2 * 2 * env['r'].asnumpy())


def test_batchnorm_with_fix_gamma_rejects_sparse_inputs():
    # MXNet 1.9.1 (storage inference of BatchNorm): 'fix_gamma=True is not supported for sparse ndarrays'
    env = setup(mx, np)
    sym = mx.sym.BatchNorm(mx.sym.var('x'), fix_gamma=True, name='bn')
    exe = sym.bind(mx.cpu(), args={'x': env['r'], 'bn_gamma': mx.nd.ones(3), 'bn_beta': mx.nd.zeros(3)},
                   aux_states=[mx.nd.zeros(3), mx.nd.ones(3)])
    with pytest.raises(MXNetError, match='fix_gamma=True is not supported for sparse ndarrays'):
        exe.forward()
    with pytest.raises(MXNetError, match='fix_gamma=True is not supported for sparse ndarrays'):
        mx.nd.BatchNorm(env['r'], mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3))
