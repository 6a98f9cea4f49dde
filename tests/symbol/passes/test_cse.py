"""MXNet's common-subexpression elimination on a Symbol (mxcompat/symbol/passes/cse.py)."""
import mxcompat as mx
from mxcompat.symbol.passes.cse import eliminate_common_expr


def _ops(sym):
    return [n.op.name for n in sym._nodes() if not n.is_var]


def test_identical_nodes_merge_and_repeated_outputs_become_copies():
    # MXNet 1.9.1's get_optimized_symbol() of this group: exp, _plus_scalar, _copy
    x = mx.sym.var('x')
    a, b = mx.sym.exp(x, name='a'), mx.sym.exp(x, name='b')
    merged = eliminate_common_expr(mx.sym.Group([a + 1, b + 1]))
    assert _ops(merged) == ['exp', '_plus_scalar', '_copy']
    assert merged.list_inputs() == ['x']


def test_random_and_stateful_nodes_never_merge():
    # MXNet's pass skips operators that draw random numbers or keep state (samplers, BatchNorm's moving
    # statistics): two such nodes on the same inputs stay two (two Dropouts in MXNet 1.9.1's optimized symbol)
    x = mx.sym.var('x')
    drop = mx.sym.Group([mx.sym.Dropout(x, p=0.5, name='d1'), mx.sym.Dropout(x, p=0.5, name='d2')])
    noise = mx.sym.Group([mx.sym.random.uniform(shape=(2,), name='u1'), mx.sym.random.uniform(shape=(2,), name='u2')])
    g, b, m, v = (mx.sym.var(n) for n in 'gbmv')
    bn = mx.sym.Group([mx.sym.BatchNorm(x, g, b, m, v, name='bn1'), mx.sym.BatchNorm(x, g, b, m, v, name='bn2')])
    assert _ops(eliminate_common_expr(drop)) == ['Dropout', 'Dropout']
    assert _ops(eliminate_common_expr(noise)) == ['_random_uniform', '_random_uniform']
    assert _ops(eliminate_common_expr(bn)) == ['BatchNorm', 'BatchNorm']


def test_different_attributes_do_not_merge():
    x = mx.sym.var('x')
    sym = mx.sym.Group([mx.sym.sum(x, axis=0), mx.sym.sum(x, axis=1)])
    assert _ops(eliminate_common_expr(sym)) == ['sum', 'sum']
