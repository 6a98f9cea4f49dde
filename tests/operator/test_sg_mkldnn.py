"""_sg_mkldnn_conv and _sg_mkldnn_fully_connected (mxcompat/operator/_sg_mkldnn.py) against MXNet 1.9.1's oneDNN
kernels: the fused graphs of tests/fixtures/contrib/sg_mkldnn/sg_graphs.py and GluonCV 0.10.5's resnet50_v1_int8 and
mobilenet1.0_int8 graphs (goldens by gen_sg_mkldnn.py, run under the oracle). Quantized outputs are compared bit for
bit; float32 ones to float32 rounding (oneDNN sums the products in another order than torch)."""
import importlib.util
import json
import os
import pathlib
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from tests.libraries._run import needs, run_script

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'contrib' / 'sg_mkldnn'
sys.path.insert(0, str(FIX))
import sg_graphs  # noqa: E402

sys.path.remove(str(FIX))
GOLD = np.load(FIX / 'cases.npz')
NAMES = json.loads((FIX / 'names.json').read_text())
ZOO = np.load(FIX / 'zoo.npz')
ZOO_SHAPE = (1, 3, 32, 32)


def _run(sym, feed, ctx):
    args = {n: mx.nd.array(feed[n], dtype=feed[n].dtype, ctx=ctx) for n in sym.list_arguments()}
    aux = {n: mx.nd.array(feed[n], ctx=ctx) for n in sym.list_auxiliary_states()}
    exe = sym.bind(ctx, args, aux_states=aux, grad_req='null')
    return [o.asnumpy() for o in exe.forward(is_train=False)]


@pytest.mark.parametrize('name', sg_graphs.ALL)
def test_fused_op_matches_mxnet(name, ctx):
    sym = mx.sym.load_json(sg_graphs.graph_json(name))
    outs = _run(sym, sg_graphs.graph_inputs(name), ctx)
    assert len(outs) == len(NAMES[name]['outputs'])
    for i, out in enumerate(outs):
        want = GOLD['%s/%d' % (name, i)]
        assert out.dtype == want.dtype and out.shape == want.shape
        if 'fp32' in name:
            np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
        else:  # quantized (the float output of fcq_channel_s8_float too)
            np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize('name', sg_graphs.ALL)
def test_names_shapes_and_types_are_mxnets(name):
    sym = mx.sym.load_json(sg_graphs.graph_json(name))
    gold = NAMES[name]
    assert sym.list_arguments() == gold['arguments']
    assert sym.list_auxiliary_states() == gold['aux']
    assert sym.list_outputs() == gold['outputs']
    feed = sg_graphs.graph_inputs(name)
    given = {k: feed[k].shape for k in sg_graphs.quantized_inputs(name)}
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**given)
    assert [list(s) for s in arg_shapes] == gold['arg_shapes']
    assert [list(s) for s in aux_shapes] == gold['aux_shapes']
    assert [list(s) for s in out_shapes] == gold['out_shapes']
    _, out_types, _ = sym.infer_type(**dict.fromkeys(given, 'float32'))
    assert [np.dtype(t).name for t in out_types] == gold['out_types']


def test_json_round_trip_keeps_the_subgraph():
    text = sg_graphs.case_json('q_u8_bn_sum_s8_post')
    again = mx.sym.load_json(mx.sym.load_json(text).tojson())
    node = [n for n in json.loads(again.tojson())['nodes'] if n['op'] == '_sg_mkldnn_conv'][0]
    assert [n['op'] for n in node['subgraphs'][0]['nodes'] if n['op'] != 'null'] == \
        ['Convolution', 'BatchNorm', 'elemwise_add', 'Activation']
    assert 'subgraph' not in node['attrs']
    np.testing.assert_array_equal(_run(again, sg_graphs.case_inputs('q_u8_bn_sum_s8_post'), mx.cpu())[0],
                                  GOLD['q_u8_bn_sum_s8_post/0'])


def test_eager_call_without_a_subgraph_raises():
    # MXNet's call fails too (in its parameter parser); mxcompat names the missing subgraph
    with pytest.raises(MXNetError, match='_sg_mkldnn_conv: the node has no subgraph'):
        mx.nd._internal._sg_mkldnn_conv(mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((2, 2, 3, 3)), mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match='_sg_mkldnn_fully_connected: the node has no subgraph'):
        mx.nd._internal._sg_mkldnn_fully_connected(mx.nd.ones((1, 2)), mx.nd.ones((2, 2)), mx.nd.zeros((2,)))


def test_uint8_data_with_a_negative_range_raises():
    # quantize_v2 to uint8 without a calibrated range keeps the data's own (negative) minimum: MXNet's check fails
    name = 'q_u8_nobias_int32'
    feed = dict(sg_graphs.case_inputs(name))
    feed['x_data'] = np.random.RandomState(3).uniform(-2, 2, feed['x_data'].shape).astype(np.float32)
    with pytest.raises(MXNetError, match='Expect int8 when data_min < 0.0'):
        _run(mx.sym.load_json(sg_graphs.case_json(name)), feed, mx.cpu())


def _zoo_json(model):
    spec = importlib.util.find_spec('gluoncv')
    if spec is None:
        pytest.skip('gluoncv is not installed (its int8 model-zoo JSON files are read from the package)')
    return os.path.join(os.path.dirname(spec.origin), 'model_zoo', 'quantized', model + '-symbol.json')


@pytest.mark.parametrize('model', ['resnet50_v1_int8', 'mobilenet1.0_int8'])
def test_gluoncv_int8_graphs_match_mxnet(model):
    sym = mx.sym.load(_zoo_json(model))
    arg_shapes, _, aux_shapes = sym.infer_shape(data=ZOO_SHAPE)
    feed = sg_graphs.zoo_params(dict(zip(sym.list_arguments(), arg_shapes)),
                                dict(zip(sym.list_auxiliary_states(), aux_shapes)))
    feed['data'] = np.random.RandomState(1).uniform(-1, 1, ZOO_SHAPE).astype(np.float32)
    deq = [n for n in sym.get_internals().list_outputs() if 'dequantize' in n]
    logits, features = _run(mx.sym.Group([sym, sym.get_internals()[deq[0]]]), feed, mx.cpu())
    np.testing.assert_array_equal(features, ZOO[model + '/features'])  # every int8 layer, bit for bit
    # the float32 FullyConnected: sums of 1024/2048 products of size ~1..40 in another order (logits up to ~60)
    np.testing.assert_allclose(logits, ZOO[model], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize('model', ['resnet50_v1_int8', 'mobilenet1.0_int8'])
def test_gluoncv_get_model_builds_and_runs(model, tmp_path):
    # as a GluonCV user builds it: get_model(<int8 name>, pretrained=False), parameters loaded from a file
    needs('gluoncv')
    sym = mx.sym.load(_zoo_json(model))
    arg_shapes, _, aux_shapes = sym.infer_shape(data=ZOO_SHAPE)
    params = sg_graphs.zoo_params(dict(zip(sym.list_arguments(), arg_shapes)),
                                  dict(zip(sym.list_auxiliary_states(), aux_shapes)))
    mx.nd.save(str(tmp_path / 'p.params'), {k: mx.nd.array(v) for k, v in params.items()})
    np.save(tmp_path / 'x.npy', np.random.RandomState(1).uniform(-1, 1, ZOO_SHAPE).astype(np.float32))
    out = run_script(tmp_path, '''
        import numpy as np
        import mxnet as mx
        from gluoncv.model_zoo import get_model
        net = get_model(%r, pretrained=False)
        net.collect_params().load('p.params', ctx=mx.cpu())
        np.save('out.npy', net(mx.nd.array(np.load('x.npy'))).asnumpy())
        print(type(net).__name__)
    ''' % model)
    assert 'SymbolBlock' in out
    np.testing.assert_allclose(np.load(tmp_path / 'out.npy'), ZOO[model], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize('chain', ['bn_relu', 'bn_add_relu', 'add_leaky', 'clip', 'relu_then_add'])
def test_float_fused_conv_on_the_packed_path_gives_the_operators_values(chain, monkeypatch):
    # A float32 _sg_mkldnn_conv from get_backend_symbol('MKLDNN') runs on the kept, reordered folded weight
    # (kernels.fused_conv) where it applies: the same values as its operators in turn (fast paths off)
    from mxcompat import kernels
    rs = np.random.RandomState(0)
    data = mx.sym.var('data')
    x = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=64, name='conv')
    if chain.startswith('bn'):
        x = mx.sym.BatchNorm(x, name='bn', fix_gamma=False)
    if chain == 'relu_then_add':
        x = mx.sym.Activation(x, act_type='relu') + mx.sym.var('other')
    elif 'add' in chain:
        x = x + mx.sym.var('other')
    if chain.endswith('relu') or chain == 'relu_then_add':
        x = mx.sym.Activation(x, act_type='relu')
    elif chain == 'add_leaky':
        x = mx.sym.LeakyReLU(x, act_type='leaky', slope=0.1)
    elif chain == 'clip':
        x = mx.sym.clip(x, 0, 0.5)
    fused = x.get_backend_symbol('MKLDNN')
    assert any(n['op'] == '_sg_mkldnn_conv' for n in __import__('json').loads(fused.tojson())['nodes'])
    shapes = {'data': (2, 64, 14, 14), 'other': (2, 64, 14, 14)}  # (sizes the packed path takes)
    arg_shapes, _, aux_shapes = x.infer_shape(**{k: v for k, v in shapes.items() if k in x.list_arguments()})
    args = {n: mx.nd.array(rs.uniform(-1, 1, s)) for n, s in zip(x.list_arguments(), arg_shapes)}
    aux = {n: mx.nd.array(rs.uniform(0.5, 1.5, s)) for n, s in zip(x.list_auxiliary_states(), aux_shapes)}

    packed = []
    monkeypatch.setattr(kernels, 'fused_conv', lambda *a: packed.append(1) or kernels.cpu.fused_conv(*a))

    def run():
        ex = fused.bind(mx.cpu(), {k: v for k, v in args.items() if k in fused.list_arguments()},
                        aux_states={k: v for k, v in aux.items() if k in fused.list_auxiliary_states()},
                        grad_req='null')
        return ex.forward(is_train=False)[0].asnumpy()
    fast = run()
    assert len(packed) == 1  # (relu_then_add: MXNet's partitioner fuses the convolution and relu only)
    with kernels.policy(cpu_fast_paths=False):
        slow = run()
    np.testing.assert_allclose(fast, slow, rtol=1e-5, atol=1e-4)  # (float32 sums of 576 products, another order)
