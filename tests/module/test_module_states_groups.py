"""Module state_names/set_states/get_states, CPU group2ctxs, output layouts and sparse parameter storage,
against MXNet 1.9.1 (tests/fixtures/module_io, gen_module_io.py)."""
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetNotImplementedError, MXNetValueError

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures',
                                   'module_io', 'module_io.json')))


def _state_module():
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=4, prefix='lstm_l%d_' % i))
    begin = stack.begin_state(func=mx.sym.Variable)
    _, states = stack.unroll(3, begin_state=begin, inputs=mx.sym.Variable('data'))
    names = [s.name for s in begin]
    mod = mx.mod.Module(mx.sym.Group(states), context=[mx.cpu(0), mx.cpu(1)], label_names=None,
                        state_names=names)
    mod.bind(data_shapes=[('data', (5, 3, 2))], label_shapes=None, for_training=False)
    mod.init_params(mx.init.Constant(0.1))
    return mod, names


def test_states_roundtrip():
    gold = GOLD['states']
    mod, names = _state_module()
    assert names == gold['names']
    batch = mx.io.DataBatch(data=[mx.nd.array(np.linspace(-1, 1, 30).reshape(5, 3, 2))], label=[])
    mod.set_states(value=1)
    got = [a for dev in mod.get_states(merge_multi_context=False) for a in dev]
    assert all((a.asnumpy() == 1).all() for a in got)
    mod.forward(batch)
    o1 = mod.get_outputs()
    np.testing.assert_allclose([o.asnumpy() for o in o1], gold['out1'], rtol=1e-5, atol=1e-6)
    mod.set_states(states=mod.get_outputs(merge_multi_context=False))
    mod.forward(batch)
    np.testing.assert_allclose([o.asnumpy() for o in mod.get_outputs()], gold['out2'], rtol=1e-5, atol=1e-6)
    # the arrays handed out before are the state arrays themselves (MXNet aliases them too)
    for a, want in zip(got, gold['after_value'], strict=True):
        np.testing.assert_allclose(a.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert [[list(a.shape) for a in dev] for dev in mod.get_states(merge_multi_context=False)] == \
        gold['per_dev_shapes']


def test_states_errors():
    mod, _ = _state_module()
    with pytest.raises(MXNetAssertionError, match='get_states'):
        mod.get_states()
    with pytest.raises(MXNetValueError, match='set_states'):
        mod.set_states()
    with pytest.raises(MXNetValueError, match='set_states'):
        mod.set_states(states=[], value=1)
    with pytest.raises(MXNetValueError, match='set_states'):
        mod.set_states(value=mx.nd.ones((1,)))


def _grouped():
    with mx.AttrScope(ctx_group='dev1'):
        a = mx.sym.Variable('a') * 2
    with mx.AttrScope(ctx_group='dev2'):
        b = mx.sym.Variable('b')
        c = a + b
    return c


def test_group2ctxs_cpu_is_a_label():
    gold = GOLD['group2ctxs']
    mod = mx.mod.Module(_grouped(), context=[mx.cpu(0)], data_names=['a', 'b'], label_names=None,
                        group2ctxs={'dev1': mx.cpu(1), 'dev2': mx.cpu(2)})
    mod.bind(data_shapes=[['a', (2, 3)], ['b', (2, 3)]], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 3)), mx.nd.ones((2, 3))]), is_train=True)
    mod.backward([mx.nd.ones((2, 3)) * 3])
    g = mod.get_input_grads()
    assert [str(x.context) for x in g] == gold['ctx']
    assert [x.asnumpy().tolist() for x in g] == gold['grads']
    assert mod.get_outputs()[0].asnumpy().tolist() == gold['out']


def test_group2ctxs_gpu_and_bad_lengths_raise():
    with pytest.raises(MXNetNotImplementedError, match='group2ctxs'):
        mx.mod.Module(_grouped(), data_names=['a', 'b'], label_names=None, group2ctxs={'dev1': mx.gpu(0)})
    with pytest.raises(MXNetNotImplementedError, match='BucketingModule.*group2ctxs'):
        mx.mod.BucketingModule(lambda k: (_grouped(), ('a', 'b'), None), default_bucket_key=1,
                               group2ctxs=[{'dev1': mx.gpu(1)}])
    with pytest.raises(MXNetValueError, match='group2ctxs'):
        mx.mod.Module(_grouped(), context=[mx.cpu(0), mx.cpu(1)], data_names=['a', 'b'], label_names=None,
                      group2ctxs={'dev1': [mx.cpu(1)] * 3})


def test_tnc_layout_merges_on_batch_axis():
    gold = GOLD['layout']
    sym = mx.sym.Activation(data=mx.sym.Variable('data'), act_type='relu', __layout__='TNC')
    mod = mx.mod.Module(sym, ('data',), None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[mx.io.DataDesc('data', (3, 4, 2), layout='TNC')], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch(data=[mx.nd.array(gold['x'])], label=None))
    mod.backward([mx.nd.array(np.arange(24).reshape(3, 4, 2))])
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), gold['out'], rtol=1e-6)
    assert [list(o.shape) for o in mod.get_outputs(merge_multi_context=False)[0]] == gold['per_dev']
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), gold['grad'], rtol=1e-6)


def test_row_sparse_parameter_keeps_stype():
    v = mx.sym.var('v', shape=(6, 1), init=mx.init.Uniform(scale=.1), stype='row_sparse')
    model = mx.sym.dot(lhs=mx.sym.var('data', stype='csr'), rhs=v)
    mod = mx.mod.Module(model, data_names=['data'], label_names=None)
    mod.bind(data_shapes=[('data', (4, 6))])
    mod.init_params()
    assert mod._arg_params['v'].stype == GOLD['stype']['v']
    assert np.abs(mod._arg_params['v'].asnumpy()).sum() > 0
