"""View results made contiguous in a lowered graph (mxcompat/symbol/passes/contiguous.py)."""
import numpy as np
import torch

import mxcompat as mx
from mxcompat.symbol.lower import lower
from mxcompat.symbol.passes.contiguous import contiguous_views


def _methods(gm):
    return [(n.target, n.args[0].target._mx_op if n.args[0].op == 'call_function' and
             hasattr(n.args[0].target, '_mx_op') else n.args[0].target.__name__)
            for n in gm.graph.nodes if n.op == 'call_method']


def test_a_contiguous_call_follows_each_view_result_only():
    x = mx.sym.var('x')
    sym = mx.sym.exp(mx.sym.transpose(x)) + mx.sym.reshape(mx.sym.exp(x), shape=(-1, 2))
    gm = contiguous_views(lower(sym).graph_module)
    assert sorted(op for _, op in _methods(gm)) == ['Reshape', 'transpose']
    assert all(m == 'contiguous' for m, _ in _methods(gm))
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    out = gm(t)[0]
    want = (mx.nd.exp(mx.nd.transpose(mx.nd.array(t.numpy())))
            + mx.nd.reshape(mx.nd.exp(mx.nd.array(t.numpy())), shape=(-1, 2))).asnumpy()
    np.testing.assert_array_equal(out.numpy(), want)


def test_each_output_of_a_multi_output_view_is_made_contiguous():
    parts = mx.sym.split(mx.sym.var('x'), num_outputs=3, axis=1)
    gm = contiguous_views(lower(mx.sym.Group([parts[0], parts[2]])).graph_module)
    assert [getattr(n.args[0].target, '__name__', None) for n in gm.graph.nodes if n.op == 'call_method'] == \
        ['getitem'] * 3
    outs = gm(torch.arange(12, dtype=torch.float32).reshape(2, 6))
    assert all(o.is_contiguous() for o in outs)


def test_a_graph_without_views_is_unchanged():
    gm = lower(mx.sym.exp(mx.sym.var('x'))).graph_module
    code = gm.code
    assert contiguous_views(gm) is gm and gm.code == code
