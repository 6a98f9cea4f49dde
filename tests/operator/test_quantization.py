"""The int8 quantization operators against MXNet 1.9.1's CPU (oneDNN) kernels, bit for bit: integer outputs
exactly, min/max outputs exactly (tests/fixtures/operator/quantization/gen_quantization.py), eagerly and through a
bound symbol."""
import json
import os
import re

import numpy as np
import pytest

import mxcompat as mx

HERE = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'operator', 'quantization')
with open(os.path.join(HERE, 'quantization_cases.json')) as _f:
    CASES = json.load(_f)
GOLD = np.load(os.path.join(HERE, 'quantization_goldens.npz'))


def _inputs(case, ctx):
    return [mx.nd.array(GOLD['%s/in%d' % (case['name'], i)], dtype=GOLD['%s/in%d' % (case['name'], i)].dtype,
                        ctx=ctx) for i in range(case['n_in'])]


def _check(case, outs):
    assert len(outs) == case['n_out']
    for i, o in enumerate(outs):
        want = GOLD['%s/out%d' % (case['name'], i)]
        got = o.asnumpy()
        assert got.dtype == want.dtype, (case['name'], i, got.dtype, want.dtype)
        assert got.shape == want.shape, (case['name'], i, got.shape, want.shape)
        if case['op'] == '_contrib_calibrate_entropy' and i == 1:
            # the divergence: MXNet sums float32 terms p * logf(p / q); its logf and numpy's log can differ in the
            # last bit of a term, so the value agrees to float32 rounding (the threshold, output 0, is exact)
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=case['name'])
            continue
        np.testing.assert_array_equal(got, want, err_msg='%s output %d' % (case['name'], i))


def _nd_fn(op):
    return getattr(mx.nd.contrib, op[len('_contrib_'):])


def _error_fragment(case):
    # the words of MXNet's message (after its "MXNetError: Check failed: ... : " prefix) up to its first
    # punctuation
    msg = case['error'].split(' : ')[-1]
    if msg.startswith('MXNetError: '):
        msg = msg[len('MXNetError: '):]
    return re.escape(re.split(r'[.(]| for now', msg)[0].strip())


def _call(fn, case, inputs):
    # a variadic op (quantized_concat: arg0, arg1 ..., arg0_min ...) takes its inputs in order, the others by name
    if case['inputs'][0] == 'arg0':
        return fn(*inputs, **case['attrs'])
    return fn(**dict(zip(case['inputs'], inputs)), **case['attrs'])


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_eager(case, ctx):
    if case['error']:
        with pytest.raises(mx.base.MXNetError, match=_error_fragment(case)):
            _call(_nd_fn(case['op']), case, _inputs(case, ctx))
        return
    outs = _call(_nd_fn(case['op']), case, _inputs(case, ctx))
    _check(case, outs if isinstance(outs, (list, tuple)) else [outs])


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_symbol(case, ctx):
    names = ['x%d' % i for i in range(case['n_in'])]
    fn = getattr(mx.sym.contrib, case['op'][len('_contrib_'):])
    sym = _call(fn, case, [mx.sym.Variable(n) for n in names])
    assert sym.list_inputs() == names
    arrays = dict(zip(names, _inputs(case, ctx)))
    aux = sym.list_auxiliary_states()  # (BatchNorm's moving statistics)
    exe = sym.bind(ctx, {n: a for n, a in arrays.items() if n not in aux}, aux_states=[arrays[n] for n in aux])
    if case['error']:
        with pytest.raises(mx.base.MXNetError, match=_error_fragment(case)):
            exe.forward()[0].asnumpy()
        return
    _check(case, exe.forward())
    # the symbol's inferred dtypes and shapes are the outputs'
    shapes = {n: GOLD['%s/in%d' % (case['name'], i)].shape for i, n in enumerate(names)}
    dtypes = {n: GOLD['%s/in%d' % (case['name'], i)].dtype for i, n in enumerate(names)}
    _, out_shapes, _ = sym.infer_shape(**shapes)
    _, out_types, _ = sym.infer_type(**dtypes)
    for i, (s, t) in enumerate(zip(out_shapes, out_types)):
        want = GOLD['%s/out%d' % (case['name'], i)]
        assert tuple(s) == want.shape and np.dtype(t) == want.dtype, (case['name'], i, s, t)


def test_json_roundtrip(ctx):
    # a quantized graph as MXNet writes it: attributes as strings
    data = mx.sym.Variable('data')
    q = mx.sym.contrib.quantize_v2(data, out_type='int8', min_calib_range=-1.0, max_calib_range=1.0)
    f = mx.sym.contrib.quantized_flatten(q[0], q[1], q[2])
    dq = mx.sym.contrib.dequantize(f[0], f[1], f[2])
    sym = mx.sym.load_json(dq.tojson())
    x = mx.nd.array(np.linspace(-1.2, 1.2, 24, dtype=np.float32).reshape(2, 3, 4), ctx=ctx)
    got = sym.bind(ctx, {'data': x}).forward()[0].asnumpy()
    q8, lo, hi = mx.nd.contrib.quantize_v2(x, out_type='int8', min_calib_range=-1.0, max_calib_range=1.0)
    want = mx.nd.contrib.dequantize(q8, lo, hi).asnumpy().reshape(2, 12)
    np.testing.assert_array_equal(got, want)


def test_errors(ctx):
    x = mx.nd.ones((2, 3), ctx=ctx)
    with pytest.raises(mx.base.MXNetError, match='_contrib_dequantize'):
        mx.nd.contrib.dequantize(x, mx.nd.array([-1.0]), mx.nd.array([1.0]))
    with pytest.raises(mx.base.MXNetError, match="out_type"):
        mx.nd.contrib.quantize(x, mx.nd.array([-1.0]), mx.nd.array([1.0]), out_type='int32')
    q = mx.nd.ones((1, 1, 2, 2), dtype='int8', ctx=ctx)
    with pytest.raises(mx.base.MXNetError, match='pool_type'):
        mx.nd.contrib.quantized_pooling(q, mx.nd.array([-1.0]), mx.nd.array([1.0]), kernel=(2, 2),
                                        pool_type='sum')
    with pytest.raises(mx.base.MXNetError, match='relu'):
        mx.nd.contrib.quantized_act(q, mx.nd.array([-1.0]), mx.nd.array([1.0]), act_type='tanh')


def test_shapes_inferred_through_quantized_ops(ctx):
    # as in a quantized LSTM cell: a begin state of unknown batch (0) meets data of a known one after a chain of
    # quantized ops; MXNet's shape functions carry the batch back through them
    state = mx.sym.zeros(shape=(0, 4))
    q = mx.sym.contrib.quantize_v2(state, min_calib_range=-1.0, max_calib_range=1.0)
    fc = mx.sym.contrib.quantized_fully_connected(data=q[0], min_data=q[1], max_data=q[2], num_hidden=3,
                                                  no_bias=True, name='fc')
    rq = mx.sym.contrib.requantize(fc[0], fc[1], fc[2], min_calib_range=-1.0, max_calib_range=1.0)
    out = mx.sym.elemwise_add(mx.sym.contrib.dequantize(rq[0], rq[1], rq[2]), mx.sym.Variable('x'))
    arg_shapes, out_shapes, _ = out.infer_shape(x=(5, 3))
    assert dict(zip(out.list_arguments(), arg_shapes)) == {'fc_weight': (3, 4), 'fc_min_weight': (1,),
                                                           'fc_max_weight': (1,), 'x': (5, 3)}
    assert out_shapes == [(5, 3)]
    x = mx.nd.ones((5, 3), ctx=ctx)
    w = mx.nd.ones((3, 4), dtype='int8', ctx=ctx)
    exe = out.bind(ctx, {'x': x, 'fc_weight': w, 'fc_min_weight': mx.nd.array([-1.0], ctx=ctx),
                         'fc_max_weight': mx.nd.array([1.0], ctx=ctx)})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), np.ones((5, 3), np.float32))


def test_batch_norm_needs_its_range_when_it_runs(ctx):
    # MXNet's kernel refuses a missing calibrated range when it runs; shape and type inference go on
    bn = mx.sym.contrib.quantized_batch_norm(data=mx.sym.Variable('data'), min_data=mx.sym.Variable('lo'),
                                             max_data=mx.sym.Variable('hi'), name='bn')
    _, out_shapes, aux_shapes = bn.infer_shape(data=(2, 3, 4, 4))
    assert out_shapes == [(2, 3, 4, 4), (1,), (1,)] and aux_shapes == [(3,), (3,)]
    f = mx.nd.ones((3,), ctx=ctx)
    with pytest.raises(mx.base.MXNetError, match='min_calib_range or max_calib_range is not available'):
        mx.nd.contrib.quantized_batch_norm(mx.nd.ones((2, 3, 4, 4), dtype='int8', ctx=ctx), f, f, f, f,
                                           mx.nd.array([-1.0], ctx=ctx), mx.nd.array([1.0], ctx=ctx))
