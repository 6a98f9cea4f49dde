"""Each case of tests/fixtures/symbol/symbol_cases.py gives what real MXNet 1.9.1 gave (symbol.json): JSON, names,
attributes, inferred shapes/dtypes, forward outputs, gradients and aux-state updates; MXNet's files load here."""
import json
import os
import sys

import numpy as np
import pytest

import mxcompat as mx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'symbol')
sys.path.insert(0, HERE)
from symbol_cases import CASES  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, 'symbol.json')))


def build(name):
    code, shapes = CASES[name]
    env = {'mx': mx}
    with mx.name.NameManager():
        exec(code, env)  # noqa: S102
    return env['out'], shapes


@pytest.mark.parametrize('name', sorted(CASES))
def test_structure_and_json(name):
    out, shapes = build(name)
    want = GOLDEN[name]
    assert out.list_arguments() == want['arguments']
    assert out.list_outputs() == want['outputs']
    assert out.list_auxiliary_states() == want['aux']
    assert out.list_inputs() == want['inputs']
    assert out.get_internals().list_outputs() == want['internals']
    assert out.attr_dict() == want['attr_dict']
    assert json.loads(out.tojson()) == want['json']


@pytest.mark.parametrize('name', sorted(CASES))
def test_inference(name):
    out, shapes = build(name)
    want = GOLDEN[name]
    got = out.infer_shape(**shapes)
    assert [None if x is None else [list(s) for s in x] for x in got] == want['infer_shape']
    types = out.infer_type(**{k: 'float32' for k in shapes})
    assert [None if x is None else [np.dtype(t).name for t in x] for x in types] == want['infer_type']


@pytest.mark.parametrize('name', sorted(CASES))
def test_forward_backward(name):
    out, shapes = build(name)
    want = GOLDEN[name]
    if 'forward' not in want:
        pytest.skip('MXNet could not infer all shapes for this case')
    names = out.list_arguments()
    arg_shapes, _, aux_shapes = out.infer_shape(**shapes)
    vals = {n: np.array(v, dtype=np.float32) for n, v in want['values'].items()}
    args = {n: mx.nd.array(v) for n, v in vals.items()}
    grads = {n: mx.nd.zeros(s) for n, s in zip(names, arg_shapes) if n != 'd'}
    reqs = {n: 'write' if n in grads else 'null' for n in names}
    aux = [mx.nd.ones(s) * 0.5 for s in aux_shapes]
    ex = out.bind(mx.cpu(), args, args_grad=grads, grad_req=reqs, aux_states=aux)
    outs = ex.forward(is_train=True)
    ex.backward([mx.nd.ones(o.shape, dtype=o.dtype) * (i + 1) for i, o in enumerate(outs)])
    for o, w in zip(outs, want['forward']):
        np.testing.assert_allclose(o.asnumpy(), np.array(w), rtol=1e-5, atol=1e-6)
    for n, w in want['grads'].items():
        np.testing.assert_allclose(ex.grad_dict[n].asnumpy(), np.array(w), rtol=1e-4, atol=1e-5, err_msg=n)
    for a, w in zip(ex.aux_arrays, want['aux_after']):
        np.testing.assert_allclose(a.asnumpy(), np.array(w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', sorted(CASES))
def test_mxnet_written_file_loads(name):
    sym = mx.sym.load(os.path.join(HERE, name + '-symbol.json'))
    want = GOLDEN[name]
    assert sym.list_arguments() == want['arguments'] and sym.list_outputs() == want['outputs']
    assert json.loads(sym.tojson()) == want['json']
    _, shapes = CASES[name]
    assert [None if x is None else [list(s) for s in x] for x in sym.infer_shape(**shapes)] == want['infer_shape']
