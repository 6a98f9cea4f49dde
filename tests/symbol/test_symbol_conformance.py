"""Symbol behaviours checked against MXNet 1.9.1 (expected values taken from the oracle, see each test)."""
import json

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError


def test_get_children_of_a_group():
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data=data, name='fc1', num_hidden=10)
    fc2 = mx.sym.FullyConnected(data=fc1, name='fc2', num_hidden=100)
    kids = fc2.get_children()
    assert kids.list_outputs() == ['fc1_output', 'fc2_weight', 'fc2_bias']
    assert kids.get_children().list_outputs() == ['data', 'fc1_weight', 'fc1_bias']
    assert kids['fc2_weight'].get_children() is None
    sliced = mx.sym.SliceChannel(data, num_outputs=3, name='slice')
    assert sliced.get_children().list_outputs() == ['data']  # one node, listed once


def test_gen_atomic_symbol():
    s = mx.sym.RNN(mx.sym.var('data'), mx.sym.var('param'), mx.sym.var('h0'), mx.sym.var('h1'), state_size=10,
                   num_layers=2, bidirectional=True, state_outputs=True, mode='lstm')
    atomic = s._gen_atomic_symbol()
    assert atomic.list_arguments() == []
    assert atomic.list_outputs() == ['output', 'state_output', 'statecell_output']
    fc = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3, name='fc')._gen_atomic_symbol()
    assert (fc.list_arguments(), fc.list_outputs()) == ([], ['output'])


def test_fluent_method_named_after_alias():
    with mx.name.NameManager():
        data = mx.sym.var('data')
        assert data.broadcast_axes(axis=(2,), size=(5,)).name == 'broadcast_axes0'
        assert data.broadcast_to(shape=(5, 17, 47)).name == 'broadcast_to0'


def test_attr_argument_reaches_implicit_variables():
    data = mx.sym.Variable('data', attr={'mood': 'angry'})
    op = mx.sym.Convolution(data=data, name='conv', kernel=(1, 1), num_filter=1, attr={'__mood__': 'so so'},
                            lr_mult=1)
    want = {'num_filter': '1', 'kernel': '(1, 1)', '__mood__': 'so so', '__lr_mult__': '1', 'lr_mult': '1'}
    assert op.attr_dict() == {'data': {'mood': 'angry'}, 'conv_weight': want, 'conv_bias': want, 'conv': want}


def test_infer_type_partial_keeps_unknown_inputs():
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data=mx.sym.Cast(data=data, dtype='float32'), name='fc1', num_hidden=128)
    mlp = mx.sym.SoftmaxOutput(data=fc1, name='softmax')
    assert mlp.infer_type_partial() == ([None, np.float32, np.float32, np.float32], [np.float32], [])
    assert mlp.infer_type() == (None, None, None)
    assert mlp.infer_type(data=np.float16)[0] == [np.float16, np.float32, np.float32, np.float32]


def test_infer_shape_partial_keeps_unknown_dims():
    data = mx.sym.Variable('data', shape=(1, 0, 0, 0))
    weight = mx.sym.Variable('weight')
    conv = mx.sym.Convolution(data=mx.sym.cast(data, dtype='float16'), weight=mx.sym.cast(weight, dtype='float16'),
                              pad=(3, 3), num_filter=64, stride=(2, 2), no_bias=True, kernel=(7, 7))
    args = dict(zip(conv.list_arguments(), conv.infer_shape_partial()[0]))
    assert args == {'data': (1, 0, 0, 0), 'weight': (64, 0, 7, 7)}


@pytest.mark.parametrize('layout,shape,want', [(None, (5, 21, 32, 32), (5, 10, 32, 32)),
                                               ('NHWC', (5, 32, 32, 21), (5, 32, 32, 10))])
def test_convolution_data_shape_from_output(layout, shape, want):
    dshape = (0, 10, 0, 0) if layout is None else (0, 0, 0, 10)
    a = mx.sym.Variable('a', shape=dshape)
    kw = {} if layout is None else {'layout': layout}
    b = mx.sym.Convolution(data=a, num_filter=21, kernel=(3, 3), dilate=(1, 1), pad=(1, 1), **kw)
    d = b + mx.sym.Variable('c', shape=shape)
    if layout is not None:  # (NHWC convolution is not run here: only the inference is checked)
        shapes = dict(zip(d.list_arguments(), d.infer_shape_partial()[0]))
    else:
        shapes = dict(zip(d.list_arguments(), d.infer_shape()[0]))
    assert shapes['a'] == want


def test_identity_with_attr_like_rhs():
    w = mx.sym.Variable('weight')
    wt = mx.sym.broadcast_add(w, mx.sym.Variable('wshift', shape=(1,)))
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(data=mx.sym.Variable('data'), weight=wt, num_hidden=11, no_bias=True)
    args = dict(zip(net.list_arguments(), net.infer_shape(data=(7, 100))[0]))
    assert args['weight'] == (11, 100)
    # eager: lhs unchanged, no gradient to rhs (MXNet 1.9.1: a.grad 2s, b.grad 0s)
    a, b = mx.nd.ones((2, 3)), mx.nd.zeros((2, 3))
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd._internal._identity_with_attr_like_rhs(a * 2, b)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), np.full((2, 3), 2, np.float32))
    np.testing.assert_array_equal(a.grad.asnumpy(), np.full((2, 3), 2, np.float32))
    np.testing.assert_array_equal(b.grad.asnumpy(), np.zeros((2, 3), np.float32))
    with pytest.raises(MXNetError, match='_identity_with_attr_like_rhs'):
        mx.nd._internal._identity_with_attr_like_rhs(a, mx.nd.ones((3, 2)))


def test_infer_shape_with_integer_index_input():
    y = mx.sym.batch_take(mx.sym.var('x'), mx.sym.var('idx'))
    assert y.infer_shape(x=(10, 10), idx=(10,))[1] == [(10,)]


def test_multi_output_node_has_name_and_attrs():
    with mx.name.NameManager():
        s = mx.sym.RNN(mx.sym.var('data'), mx.sym.var('p'), mx.sym.var('h'), state_size=3, num_layers=1, mode='gru',
                       state_outputs=True)
    assert (repr(s), s.name, s.attr('mode')) == ('<Symbol rnn0>', 'rnn0', 'gru')
    assert s.list_attr() == {'state_outputs': 'True', 'mode': 'gru', 'num_layers': '1', 'state_size': '3'}
    g = mx.sym.Group([mx.sym.var('a'), mx.sym.var('b')])
    assert (repr(g), g.name, g.list_attr(), g.attr('x')) == ('<Symbol group [a, b]>', None, {}, None)


def test_symbol_keywords_an_op_has_no_input_for():
    # MXNet 1.9.1 (checked with the oracle): an op without inputs drops them, one with inputs refuses them
    s = mx.sym.random.randn(data=mx.sym.ones((2, 3)), loc=10.0, scale=0.5)
    assert s.list_arguments() == [] and 'data' not in s.tojson()
    assert mx.sym.zeros(shape=(2,), data=mx.sym.var('d')).list_arguments() == []
    with pytest.raises(MXNetError, match='keyword argument name foo not found'):
        mx.sym.relu(data=mx.sym.var('x'), foo=mx.sym.var('y'))


def test_random_symbol_of_unknown_shape_takes_its_shape_from_inference():
    # legacy semantics: shape () is unknown to the random ops; binding fills it from the consumer (MXNet 1.9.1)
    y = mx.sym.random.normal(loc=10.0, scale=0.5, dtype="float16") + mx.sym.var("X")
    assert y.infer_shape(X=(2, 3)) == ([(2, 3)], [(2, 3)], [])
    ex = y.bind(mx.cpu(), {'X': mx.nd.zeros((2, 3), dtype='float16')})
    out = ex.forward()[0]
    assert out.shape == (2, 3) and out.dtype == np.float16 and abs(out.asnumpy().mean() - 10) < 1.5
    with pytest.raises(MXNetError, match='shape must be given'):
        mx.nd.random.normal(loc=1.0, shape=())  # imperative: MXNet fails too
    y = mx.sym.random.uniform(shape=(0, 3))
    assert y.infer_shape_partial() == ([], [(0, 3)], [])
    assert json.loads(mx.sym.random.normal(loc=1.0).tojson())['nodes'][0]['attrs'] == {'loc': '1.0', 'scale': '1'}
    assert mx.nd.random.normal().shape == (1,)  # NDArrays: (1,) by default, as in MXNet


def test_explicit_none_attributes_are_written_as_mxnet_writes_them():
    # MXNet 1.9.1 keeps every attribute passed, None included ('None'), and parses 'None' back as unset
    d = mx.sym.var('data')
    rnn = mx.sym.RNN(d, mx.sym.var('p'), mx.sym.var('s'), mx.sym.var('c'), state_size=4, num_layers=1, mode='lstm',
                     projection_size=None, lstm_state_clip_min=None)
    assert json.loads(rnn.tojson())['nodes'][-1]['attrs'] == {
        'lstm_state_clip_min': 'None', 'mode': 'lstm', 'num_layers': '1', 'projection_size': 'None', 'state_size': '4'}
    conv = mx.sym.Convolution(d, kernel=(3, 3), num_filter=2, cudnn_tune=None, layout=None)
    assert json.loads(conv.tojson())['nodes'][-1]['attrs'] == {
        'cudnn_tune': 'None', 'kernel': '(3, 3)', 'layout': 'None', 'num_filter': '2'}
    assert json.loads(mx.sym.sum(d, axis=None).tojson())['nodes'][-1]['attrs'] == {'axis': 'None'}
    assert json.loads(d.reshape(-1).tojson())['nodes'][-1]['attrs'] == {'shape': '-1'}
    assert json.loads(d.squeeze().tojson())['nodes'][-1]['attrs'] == {'axis': 'None'}  # the method passes axis
    back = mx.sym.load_json(conv.tojson())
    assert back.infer_shape(data=(1, 1, 5, 5))[1] == [(1, 2, 3, 3)]


def test_concat_partial_inference_as_mxnet():
    # MXNet 1.9.1: an input of unknown size along the joined axis leaves the output's size there unknown; Concat
    # never fills such an input back from the output, _rnn_param_concat shares what is left evenly
    a, b = mx.sym.var('a'), mx.sym.var('b')
    assert mx.sym.Concat(a, b, dim=0).infer_shape_partial(a=(2, 3), b=(0, 3))[1] == [(0, 3)]
    c = mx.sym.elemwise_add(mx.sym.Concat(a, b, dim=0), mx.sym.var('e'))
    assert c.infer_shape_partial(a=(2, 3), b=(0, 3), e=(5, 3)) == ([(2, 3), (0, 3), (5, 3)], [(5, 3)], [])
    r = mx.sym.elemwise_add(mx.sym._internal._rnn_param_concat(a, b, mx.sym.var('f'), dim=0), mx.sym.var('e'))
    assert r.infer_shape_partial(a=(4,), b=(0,), f=(0,), e=(10,)) == ([(4,), (3,), (3,), (10,)], [(10,)], [])


@pytest.mark.parametrize('lhs,rhs,out', [((0, 4, 2), (0, 0, 0), (0, 0, 0)), ((0, 4, 2), (0, 1, 0), (0, 4, 0)),
                                          ((0, 4, 2), (3, 1, 2), (0, 4, 2)), ((2, 0), (1, 3), (2, 0)),
                                          ((0, 4, 1), (5, 4, 2), (0, 4, 2)), ((0, 4), (3, 1, 1), (3, 0, 4))])
def test_broadcast_partial_inference_keeps_the_rank(lhs, rhs, out):
    # MXNet 1.9.1 (oracle): a dimension unknown on either side stays unknown (even against a 1), the others
    # broadcast; the output keeps the larger rank (Keras-MXNet builds its graphs on such partial shapes)
    a, b = mx.sym.var('a'), mx.sym.var('b')
    for op in (mx.sym.broadcast_sub, mx.sym.broadcast_mul, mx.sym.broadcast_greater):
        assert op(a, b).infer_shape_partial(a=lhs, b=rhs) == ([lhs, rhs], [out], [])
    with pytest.raises(MXNetError):
        mx.sym.broadcast_add(a, b).infer_shape_partial(a=(0, 4, 2), b=(0, 3, 2))


def test_symbol_samplers_attributes_as_mxnet():
    # MXNet 1.9.1: mx.sym.random.multinomial returns the samples and their log-probabilities by default
    # (get_prob=True, unlike mx.nd's), and a sampler leaves out the shape it was not given
    x = mx.sym.var('x')
    m = mx.sym.random.multinomial(x)
    assert len(m.list_outputs()) == 2
    assert json.loads(m.tojson())['nodes'][-1]['attrs'] == {'dtype': 'int32', 'get_prob': 'True'}
    assert 'attrs' not in json.loads(mx.sym.random.normal(x, x).tojson())['nodes'][-1]


# ---- symbols as MXNet 1.9's GPU operator tests build them (tests/python/gpu/test_operator_gpu.py) --------------------
def test_variadic_op_without_inputs_creates_its_arguments():
    # MXNet 1.9.1: a variadic op given fewer Symbols than num_args makes the rest variables <name>_arg<i>
    assert mx.sym.Concat(name='concat', num_args=2).list_arguments() == ['concat_arg0', 'concat_arg1']
    s = mx.sym.ElementWiseSum(name='ews', num_args=3)
    assert s.list_arguments() == ['ews_arg0', 'ews_arg1', 'ews_arg2']
    assert s.infer_shape(ews_arg2=(2, 3)) == ([(2, 3)] * 3, [(2, 3)], [])
    s = mx.sym.Concat(mx.sym.var('a'), num_args=3, name='x2', dim=1)
    assert s.list_arguments() == ['a', 'x2_arg1', 'x2_arg2']
    assert s.infer_shape(a=(2, 1), x2_arg1=(2, 2), x2_arg2=(2, 3)) == ([(2, 1), (2, 2), (2, 3)], [(2, 6)], [])
    exe = mx.sym.Concat(name='concat', num_args=2, dim=0).simple_bind(
        mx.cpu(), concat_arg0=(1, 2), concat_arg1=(2, 2),
        type_dict={'concat_arg0': np.float64, 'concat_arg1': np.float64})
    assert exe.arg_arrays[0].dtype == np.float64 and exe.outputs[0].shape == (3, 2)
    exe.forward(concat_arg0=np.array([[1, 2]]), concat_arg1=np.array([[3, 4], [5, 6]]))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [[1, 2], [3, 4], [5, 6]])
    # the GPU test's form, on cpu
    ctx_list = [{'ctx': mx.cpu(0), 'concat_arg1': (2, 10), 'concat_arg0': (2, 10),
                 'type_dict': {'concat_arg0': dt, 'concat_arg1': dt}} for dt in (np.float64, np.float32)]
    mx.test_utils.check_consistency(mx.sym.Concat(name='concat', num_args=2), ctx_list)


def test_variadic_op_input_count_errors():
    # MXNet 1.9.1: "value 0 for Parameter num_args should be greater equal to 1", and nnvm's "Incorrect number of
    # arguments, requires 1, provided 2"
    with pytest.raises(MXNetError, match='greater equal to 1'):
        mx.sym.Concat(name='c')
    with pytest.raises(MXNetError, match='requires 1, provided 2'):
        mx.sym.stack(mx.sym.var('a'), mx.sym.var('b'), num_args=1)


def test_legacy_ops_infer_their_parameter_shapes():
    # MXNet 1.9.1's inferred shapes
    s = mx.sym.Convolution_v1(num_filter=3, kernel=(3, 3), pad=(1, 1), cudnn_off=True, name='conv')
    assert s.infer_shape(conv_data=(2, 2, 7, 7)) == ([(2, 2, 7, 7), (3, 2, 3, 3), (3,)], [(2, 3, 7, 7)], [])
    s = mx.sym.Convolution_v1(num_filter=4, kernel=(2, 2), num_group=2, no_bias=True, name='c2')
    assert s.infer_shape(c2_data=(2, 6, 5, 5)) == ([(2, 6, 5, 5), (4, 3, 2, 2)], [(2, 4, 4, 4)], [])
    x = mx.sym.var('x')
    p = mx.sym.Pooling_v1(mx.sym.Convolution_v1(x, num_filter=4, kernel=(3, 3), pad=(1, 1), name='cv'),
                          kernel=(2, 2), stride=(2, 2), name='pv')
    assert p.infer_shape(x=(2, 3, 8, 8)) == ([(2, 3, 8, 8), (4, 3, 3, 3), (4,)], [(2, 4, 4, 4)], [])
    s = mx.sym.contrib.BatchNormWithReLU(name='bn')
    assert s.infer_shape(bn_data=(2, 3, 4, 4)) == ([(2, 3, 4, 4), (3,), (3,)], [(2, 3, 4, 4)], [(3,), (3,)])
    s = mx.sym.IdentityAttachKLSparseReg(name='kl')
    assert s.infer_shape(kl_data=(2, 3)) == ([(2, 3)], [(2, 3)], [(3,)])
    # the GPU test compares the legacy and current convolutions bound from the data's shape alone
    ctx_list = [{'ctx': mx.cpu(0), 'conv_data': (2, 2, 7, 7), 'type_dict': {'conv_data': np.float32}}] * 2
    syms = [mx.sym.Convolution_v1(num_filter=3, kernel=(3, 3), pad=(1, 1), name='conv'),
            mx.sym.Convolution(num_filter=3, kernel=(3, 3), pad=(1, 1), name='conv')]
    mx.test_utils.check_consistency(syms, ctx_list)


def test_symbols_are_single_numpy_objects():
    # MXNet's check_consistency_NxM repeats a list of symbols with np.repeat: with numpy >= 1.24 that needs a Symbol
    # to be one object, not a sequence of (single-output) Symbols nested to numpy's dimension limit
    s1, s2 = mx.sym.var('a') + 1, mx.sym.Group([mx.sym.var('b'), mx.sym.var('c')])
    r = np.repeat([s1, s2], 3)
    assert r.shape == (6,) and r.dtype == object
    assert [x is s1 for x in r] == [True] * 3 + [False] * 3 and all(x is s2 for x in r[3:])
    assert np.asarray(s1).shape == () and np.asarray(s1)[()] is s1
    with pytest.raises(TypeError):
        np.asarray(s1, dtype=np.float32)
    # numpy scalars and arrays defer to the Symbol's operators (MXNet 1.9.1: a Symbol; TypeError "type <class
    # 'numpy.ndarray'> not supported")
    assert isinstance(np.float32(2) * s1, mx.sym.Symbol) and isinstance(np.int64(3) - s1, mx.sym.Symbol)
    with pytest.raises(TypeError, match='not supported'):
        np.ones(2) * s1


def test_symbol_functions_drop_out():
    """The generated symbol functions accept (and drop) ``out``, as the sparse operator tests pass it (MXNet 1.9.1:
    ``mx.sym.sparse.elemwise_add(l, r, out=l).list_arguments()`` is ['l', 'r'])."""
    l, r = mx.sym.var('l'), mx.sym.var('r')
    s = mx.sym.sparse.elemwise_add(l, r, out=l)
    assert s.list_arguments() == ['l', 'r']
