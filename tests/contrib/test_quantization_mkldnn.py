"""MXNet 1.9.1's MKL-DNN quantization flow (quantize_model_mkldnn, quantize_net_v2, quantize_net) against what real
MXNet writes and computes: tests/fixtures/contrib/mkldnn_quantize (gen_mkldnn_quantize.py). The graph pass and the
post-quantization passes start from the graphs MXNet fused (``get_backend_symbol('MKLDNN_QUANTIZE')`` of a small
network and of gluon model_zoo networks), so they do not depend on mxcompat's own fusion pass; the end-to-end tests
do."""
import gzip
import json
import pathlib
import sys
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.symbol.passes import mkldnn_post_quantize as post
from mxcompat.contrib import quantization as q

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'contrib' / 'mkldnn_quantize'
sys.path.insert(0, str(FIX))
import gen_mkldnn_quantize as gen  # noqa: E402

sys.path.remove(str(FIX))
with gzip.open(FIX / 'graphs.json.gz', 'rt') as _f:
    GRAPHS = json.load(_f)
with gzip.open(FIX / 'flow.json.gz', 'rt') as _f:
    FLOW = json.load(_f)
OUTPUTS = np.load(FIX / 'flow.npz')


def _load(js):
    return mx.sym.load_json(json.dumps(js))


def _nodes(js):
    """(op, name, attributes, inputs, subgraphs) of each node, and the heads."""
    return [(n['op'], n['name'], n.get('attrs', {}), n['inputs'], json.dumps(n.get('subgraphs'), sort_keys=True))
            for n in js['nodes']], js['heads']


def _same_graph(ours, theirs, versions=True):
    """The same graph, calibration ranges to 1e-5 (they come from float32 layer outputs, whose last bits differ
    from MXNet's oneDNN kernels: docs/differences.md); the inputs' entry versions too unless ``versions`` is
    false."""
    (a, heads_a), (b, heads_b) = _nodes(ours), _nodes(theirs)
    assert heads_a == heads_b and len(a) == len(b)
    for (op, name, attrs, ins, subs), (op2, name2, attrs2, ins2, subs2) in zip(a, b):
        if not versions:
            ins, ins2 = [e[:2] for e in ins], [e[:2] for e in ins2]
        assert (op, name, ins, sorted(attrs), subs) == (op2, name2, ins2, sorted(attrs2), subs2)
        for k, v in attrs.items():
            if k.endswith('_calib_range'):
                assert float(v) == pytest.approx(float(attrs2[k]), rel=1e-5, abs=1e-6), (name, k)
            else:
                assert v == attrs2[k], (name, k)


def _backend_pass():
    """Whether mxcompat's Symbol.get_backend_symbol('MKLDNN_QUANTIZE') exists (the fusion pass)."""
    try:
        mx.sym.var('data').get_backend_symbol('MKLDNN_QUANTIZE')
    except NotImplementedError:
        return False
    return True


needs_fusion = pytest.mark.skipif(not _backend_pass(), reason="needs Symbol.get_backend_symbol('MKLDNN_QUANTIZE') "
                                  '(the MKL-DNN fusion pass, mxcompat/symbol/passes/mkldnn_backend.py)')


# ---- the quantization pass and the post-quantization passes on MXNet's fused graphs ------------------------------
@pytest.mark.parametrize('case', gen.GRAPH_CASES, ids=gen.graph_key)
def test_quantized_fused_graph_is_mxnets(case):
    net, qdtype, mode, gran, ex_syms, ex_ops = case
    gold = GRAPHS[gen.graph_key(case)]
    fused = _load(GRAPHS[net + '/fused'])
    offline = [n for n in fused.list_arguments() if n not in ('data', 'softmax_label')]
    qsym, calib = q._quantize_symbol(fused, mx.cpu(), excluded_symbols=list(ex_syms), excluded_operators=list(ex_ops),
                                     offline_params=offline, quantized_dtype=qdtype, quantize_mode=mode,
                                     quantize_granularity=gran)
    assert calib == gold['calib']
    assert _nodes(json.loads(qsym.tojson())) == _nodes(gold['qsym'])
    calibrated = q._calibrate_quantized_sym(qsym, gen.thresholds(calib))
    assert _nodes(json.loads(calibrated.tojson())) == _nodes(gold['calibrated'])
    # MKLDNN_QUANTIZE's post-quantization passes: requantize (and dequantize) fused, concat inputs' scales aligned
    assert _nodes(json.loads(post.apply(calibrated).tojson())) == _nodes(gold['final'])
    assert _nodes(json.loads(post.apply(qsym).tojson())) == _nodes(gold['final_uncalibrated'])
    assert _nodes(json.loads(qsym.tojson())) == _nodes(gold['qsym'])  # (apply works on a copy)


def test_post_quantize_switches_as_mxnet(monkeypatch):
    # MXNET_DISABLE_MKLDNN_QFC_FLOAT_OUTPUT keeps the requantized int8 output of the last FullyConnected
    case = ('tiny', 'int8', 'smart', 'tensor-wise', (), ())
    gold = GRAPHS[gen.graph_key(case)]
    calibrated = _load(gold['calibrated'])
    monkeypatch.setenv('MXNET_DISABLE_MKLDNN_QFC_FLOAT_OUTPUT', '1')
    nodes = {n['name']: n for n in json.loads(post.apply(calibrated).tojson())['nodes']}
    fc = nodes['quantized_sg_mkldnn_fully_connected_3']
    assert 'enable_float_output' not in fc['attrs'] and 'min_calib_range' in fc['attrs']
    assert 'sg_mkldnn_fully_connected_3_dequantize' in nodes
    monkeypatch.setenv('MXNET_DISABLE_MKLDNN_QFC_FUSE_ALL', '1')
    nodes = {n['name']: n for n in json.loads(post.apply(calibrated).tojson())['nodes']}
    assert 'requantize_sg_mkldnn_fully_connected_3' in nodes


def test_one_dimensional_fused_convolution_is_not_quantized_as_mxnet():
    data = mx.sym.var('data')
    sub = mx.sym.Convolution(data, num_filter=2, kernel=(3,), name='conv')
    js = json.loads(sub.tojson())
    fused = {'nodes': [{'op': 'null', 'name': 'data', 'inputs': []},
                       {'op': 'null', 'name': 'conv_weight', 'inputs': []},
                       {'op': 'null', 'name': 'conv_bias', 'inputs': []},
                       {'op': '_sg_mkldnn_conv', 'name': 'sg_mkldnn_conv_0', 'subgraphs': [js],
                        'inputs': [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}],
             'arg_nodes': [0, 1, 2], 'heads': [[3, 0, 0]], 'attrs': {'mxnet_version': ['int', 10901]}}
    with pytest.raises(MXNetError, match='supports 2D/3D kernel'):
        q._quantize_symbol(_load(fused), mx.cpu(), offline_params=['conv_weight', 'conv_bias'])


# ---- the quantized graphs run as MXNet's -----------------------------------------------------------------------
def _flow_inputs(net):
    sym = _load(GRAPHS[net + '/fp32'])
    shape = gen.ZOO.get(net, gen.TINY_SHAPE)
    args, auxs = gen.params(mx, sym, shape)
    calib, test = gen.batches(shape)
    return sym, shape, args, auxs, calib, test


FLOW_IDS = [gen.flow_key(c) for c in gen.FLOW]
SLOW_FLOW = [pytest.param(c, marks=pytest.mark.slow) if c[4] == 'entropy' and c[0] != 'tiny' else c
             for c in gen.FLOW]


@pytest.mark.parametrize('case', gen.FLOW, ids=FLOW_IDS)
def test_mxnets_quantized_graph_runs_bit_for_bit(case):
    # MXNet's final graph (fused int8 convolutions and FullyConnected, requantization fused, float output) with the
    # parameters quantized offline as quantize_model does: every output as MXNet's, bit for bit
    key = gen.flow_key(case)
    sym, shape, args, auxs, calib, test = _flow_inputs(case[0])
    final = _load(FLOW[key]['final'])
    qargs = q._quantize_params(final, args, {})
    assert sorted(qargs) == FLOW[key]['qargs']
    outs = gen.run(mx, final, qargs, auxs, test)
    assert len(outs) == len([k for k in OUTPUTS.files if k.startswith(key + '/out')])
    for i, out in enumerate(outs):
        np.testing.assert_array_equal(out, OUTPUTS['%s/out%d' % (key, i)])


@pytest.mark.parametrize('case', SLOW_FLOW, ids=FLOW_IDS)
def test_quantize_model_of_fused_graph_is_mxnets(case):
    # quantize_model on MXNet's fused graph (calibrated on the same data) and the post-quantization passes give
    # MXNet's graphs, calibration ranges to float rounding; the outputs then agree to within a step of the int8
    # grid (a range a few ulps apart can round a value to the next level)
    net, qdtype, mode, gran, calib_mode = case
    key = gen.flow_key(case)
    sym, shape, args, auxs, calib, test = _flow_inputs(net)
    it = mx.io.NDArrayIter(calib, batch_size=shape[0])
    pre, qargs, _ = q.quantize_model(_load(GRAPHS[net + '/fused']), args, auxs, ctx=mx.cpu(), calib_mode=calib_mode,
                                     calib_data=None if calib_mode == 'none' else it, label_names=None,
                                     quantized_dtype=qdtype, quantize_mode=mode, quantize_granularity=gran)
    _same_graph(json.loads(pre.tojson()), FLOW[key]['pre'])
    final = post.apply(pre)
    _same_graph(json.loads(final.tojson()), FLOW[key]['final'])
    assert sorted(qargs) == FLOW[key]['qargs']
    out = gen.run(mx, final, qargs, auxs, test)[0]
    gold = OUTPUTS[key + '/out0']
    np.testing.assert_allclose(out, gold, rtol=0, atol=0.03 * np.abs(gold).max())


@pytest.mark.parametrize('i', range(len(gen.histogram_inputs())))
def test_entropy_histograms_are_mxnets(i):
    # MXNet's collector under its NumPy 1 (float32 bins, float64 widening): the same counts, edges and range
    collector = q._LayerHistogramCollector(num_bins=8001 + 2 * i, include_layer=['x'])
    for a in gen.histogram_inputs()[i]:
        collector.collect('x', a)
    hist, edges, lo, hi, th = collector.hist_dict['x']
    np.testing.assert_array_equal(hist, OUTPUTS['histogram%d/hist' % i])
    np.testing.assert_array_equal(edges, OUTPUTS['histogram%d/edges' % i])
    assert edges.dtype == OUTPUTS['histogram%d/edges' % i].dtype
    assert [float(lo), float(hi), float(th)] == OUTPUTS['histogram%d/range' % i].tolist()


# ---- the public functions -----------------------------------------------------------------------------------------
def test_quantize_model_mkldnn_wants_one_cpu_context():
    sym = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    with pytest.raises(ValueError, match='only support Intel cpu platform with MKL-DNN Backend'):
        q.quantize_model_mkldnn(sym, {}, {}, ctx=mx.gpu(0), calib_mode='none')
    with pytest.raises(ValueError, match='currently only supports single ctx'):
        q.quantize_model_mkldnn(sym, {}, {}, ctx=[mx.cpu()], calib_mode='none')


def test_quantize_net_v2_needs_shapes():
    net = mx.gluon.nn.HybridSequential()
    with pytest.raises(ValueError, match='data_shapes required'):
        q.quantize_net_v2(net, calib_data=None, calib_mode='none')
    with warnings.catch_warnings(record=True) as w, pytest.raises(ValueError, match='data_shapes required'):
        warnings.simplefilter('always')
        q.quantize_net(net, quantized_dtype='auto', exclude_layers=None, calib_data=None, calib_mode='none')
    assert 'please use quantize_net_v2' in str(w[0].message)


def test_dataloader_batches_become_a_dataiter():
    data = mx.nd.array(np.arange(24, dtype='f').reshape(6, 4))
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(data, mx.nd.zeros(6)), batch_size=2)
    it, shapes = q._as_data_iter(loader)
    assert [(d.name, d.shape) for d in shapes] == [('data', (2, 4)), ('data0', (2,))]
    assert it.batch_size == 2
    batches = list(it)
    assert len(batches) == 3 and np.array_equal(batches[1].data[0].asnumpy(), data.asnumpy()[2:4])
    it.reset()
    assert len(list(it)) == 3


@needs_fusion
@pytest.mark.parametrize('case', SLOW_FLOW, ids=FLOW_IDS)
def test_quantize_model_mkldnn_is_mxnets(case):
    net, qdtype, mode, gran, calib_mode = case
    key = gen.flow_key(case)
    sym, shape, args, auxs, calib, test = _flow_inputs(net)
    _same_graph(json.loads(sym.get_backend_symbol('MKLDNN_QUANTIZE').tojson()), GRAPHS[net + '/fused'])
    it = mx.io.NDArrayIter(calib, batch_size=shape[0])
    final, qargs, _ = q.quantize_model_mkldnn(sym, args, auxs, ctx=mx.cpu(), calib_mode=calib_mode,
                                              calib_data=None if calib_mode == 'none' else it, label_names=None,
                                              quantized_dtype=qdtype, quantize_mode=mode, quantize_granularity=gran)
    _same_graph(json.loads(final.tojson()), FLOW[key]['final'])
    out = gen.run(mx, final, qargs, auxs, test)[0]
    gold = OUTPUTS[key + '/out0']
    np.testing.assert_allclose(out, gold, rtol=0, atol=0.03 * np.abs(gold).max())


@needs_fusion
@pytest.mark.slow
@pytest.mark.parametrize('case', gen.NET_V2, ids=gen.v2_key)
def test_quantize_net_v2_is_mxnets(case, tmp_path):
    net, qdtype, mode, gran, calib_mode, ex_layers, ex_match, ex_ops = case
    key = 'v2/' + gen.v2_key(case)
    from mxcompat.gluon.model_zoo import vision
    with mx.name.NameManager():
        block = vision.get_model(net)
    block.initialize()
    shape = gen.ZOO[net]
    block(mx.nd.zeros(shape))
    sym = _load(GRAPHS[net + '/fp32'])
    args, auxs = gen.params(mx, sym, shape)
    for name, p in block.collect_params().items():
        p.set_data(args[name] if name in args else auxs[name])
    calib, test = gen.batches(shape)
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(mx.nd.array(calib), mx.nd.zeros(len(calib))),
                                      batch_size=shape[0])
    qnet = q.quantize_net_v2(block, quantized_dtype=qdtype, quantize_mode=mode, quantize_granularity=gran,
                             exclude_layers=ex_layers, exclude_layers_match=ex_match, exclude_operators=ex_ops,
                             calib_data=None if calib_mode == 'none' else loader, calib_mode=calib_mode,
                             data_shapes=[mx.io.DataDesc('data', shape)] if calib_mode == 'none' else None,
                             ctx=mx.cpu())
    assert isinstance(qnet, mx.gluon.SymbolBlock)
    out = qnet(mx.nd.array(test)).asnumpy()
    qnet.export(str(tmp_path / 'q'))
    # (MXNet's SymbolBlock writes version 2 for the BatchNorm statistics a fused convolution reads, mxcompat 1)
    _same_graph(json.loads((tmp_path / 'q-symbol.json').read_text()), FLOW[key]['final'], versions=False)
    gold = OUTPUTS[key + '/out0']
    np.testing.assert_allclose(out, gold, rtol=0, atol=0.03 * np.abs(gold).max())


@pytest.mark.parametrize('granularity', ['tensor-wise', 'channel-wise'])
def test_uint8_calibrated_fully_connected_keeps_mxnets_weight_dtypes(granularity):
    # A fused FullyConnected calibrated to uint8: its weight and bias are int8 (tensor-wise) or float32
    # (channel-wise), as MXNet 1.9.1 infers and writes them (checked on it), never the data's uint8; the model binds
    # and runs (MXNet's mkl/test_subgraph.py test_single_fc / test_fc_eltwise with quantized_dtype='uint8').
    rs = np.random.RandomState(0)
    sym = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc'), act_type='relu')
    args = {'fc_weight': mx.nd.array(rs.uniform(-1, 1, (4, 6))), 'fc_bias': mx.nd.array(rs.uniform(-1, 1, (4,)))}
    x = mx.nd.array(rs.uniform(0, 1, (5, 6)))
    qsym, qargs, qaux = q.quantize_model_mkldnn(
        sym, args, {}, ctx=mx.cpu(), calib_mode='naive', calib_data=mx.io.NDArrayIter(x, batch_size=5),
        num_calib_examples=5, quantized_dtype='uint8', quantize_granularity=granularity, label_names=None)
    want = np.int8 if granularity == 'tensor-wise' else np.float32
    arg_types = dict(zip(qsym.list_arguments(), qsym.infer_type(data='float32')[0]))
    for name in qargs:
        if not name.endswith(('_min', '_max')):
            assert arg_types[name] == want and qargs[name].dtype == want, name
    mod = mx.mod.Module(qsym, label_names=None, context=mx.cpu())
    mod.bind(for_training=False, data_shapes=[('data', (5, 6))])
    mod.set_params(qargs, qaux)
    mod.forward(mx.io.DataBatch([x]), is_train=False)
    ref = np.maximum(x.asnumpy() @ args['fc_weight'].asnumpy().T + args['fc_bias'].asnumpy(), 0)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), ref, atol=0.03)


# ---- self-attention: the Transformer property's fused nodes in the int8 flow ------------------------------------
# (goldens: tests/fixtures/contrib/sg_mkldnn_selfatt/gen_sg_mkldnn_selfatt.py, MXNet's mkl test_selfatt_* flow)
SA_FIX = FIX.parent / 'sg_mkldnn_selfatt'
sys.path.insert(0, str(SA_FIX))
import gen_sg_mkldnn_selfatt as sa_gen  # noqa: E402

sys.path.remove(str(SA_FIX))
SA_FLOW = json.loads((SA_FIX / 'flow.json').read_text())
SA_OUT = np.load(SA_FIX / 'flow.npz')
SA_RUNS = [c[0] for c in sa_gen.FLOW if 'error' not in SA_FLOW[c[0]]]


def _sa_qargs(name):
    return {k: SA_OUT['%s/qarg/%s' % (name, k)] for k in SA_FLOW[name]['qargs']}


@pytest.mark.parametrize('name', SA_RUNS)
def test_mxnets_quantized_selfatt_graph_runs_as_mxnet(name):
    # MXNet's final graph (int8 self-attention nodes with their requantization fused) with its quantized
    # parameters: bit for bit, except a float LayerNorm at the end (float32 rounding)
    data, _ = sa_gen.flow_inputs(name)
    sym = mx.sym.load_json(SA_FLOW[name]['quantized'])
    ops = [n['op'] for n in json.loads(SA_FLOW[name]['quantized'])['nodes']]
    assert any(op.startswith('_sg_mkldnn_selfatt') for op in ops)
    assert ('_contrib_requantize' in ops) == name.endswith('_nocalib')  # (fused where calibrated)
    out = sa_gen.forward(mx, sym, dict(data, **_sa_qargs(name)))[0]
    gold = SA_OUT[name + '/quantized']
    if name.startswith('bert'):
        np.testing.assert_allclose(out, gold, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(out, gold)


@pytest.mark.parametrize('quantize', ['quantize_model', 'quantize_model_mkldnn'])
@pytest.mark.parametrize('name', [c[0] for c in sa_gen.FLOW])
def test_selfatt_flow_is_mxnets(name, quantize):
    # the fused graph (mxcompat's MKLDNN_QUANTIZE), quantize_model with naive calibration and the post-quantization
    # pass give MXNet's graph (ranges to float rounding) and its output to within a step of the int8 grid; where
    # MXNet's int8 attention maps meet the valatt kernel (uint8 only), the run raises as MXNet's does
    sym = mx.sym.load_json(SA_FLOW[name]['input'])
    data, params = sa_gen.flow_inputs(name)
    if quantize == 'quantize_model':
        qsym, qargs = sa_gen.quantize_flow(mx, name, sym, data, params)
    else:
        qdtype = next(c for c in sa_gen.FLOW if c[0] == name)[3]
        calib = 'none' if name.endswith('_nocalib') else 'naive'
        qsym, qargs, _ = q.quantize_model_mkldnn(
            sym, {k: mx.nd.array(v) for k, v in params.items()}, {}, ctx=mx.cpu(), calib_mode=calib,
            calib_data=sa_gen.calib_iter(mx, data) if calib == 'naive' else None, data_names=tuple(data),
            label_names=None, num_calib_examples=1, quantized_dtype=qdtype, quantize_mode='full')
    _same_graph(json.loads(qsym.tojson()), json.loads(SA_FLOW[name]['quantized']))
    assert sorted(qargs) == SA_FLOW[name]['qargs']
    feed = dict(data, **{k: v.asnumpy() for k, v in qargs.items()})
    if 'error' in SA_FLOW[name]:
        assert 'Type inconsistent, Provided = int8, inferred type = uint8' in SA_FLOW[name]['error']
        with pytest.raises(MXNetError, match='attention must be uint8, got int8'):
            sa_gen.forward(mx, qsym, feed)
        return
    out = sa_gen.forward(mx, qsym, feed)[0]
    gold, ref = SA_OUT[name + '/quantized'], SA_OUT[name + '/float']
    np.testing.assert_allclose(out, gold, rtol=0, atol=0.03 * np.abs(gold).max())
    np.testing.assert_allclose(sa_gen.forward(mx, sym, dict(data, **params))[0], ref, rtol=1e-5, atol=1e-5)


@needs_fusion
@pytest.mark.parametrize('name', [c[0] for c in sa_gen.NET_V2])
def test_quantize_net_v2_of_selfatt_block_is_mxnets(name, tmp_path):
    qnet, out = sa_gen.quantize_block(mx, name)
    qnet.export(str(tmp_path / 'q'))
    # (known difference, mxcompat/symbol/register.py: an unnamed mx.sym.contrib.X node is named after _contrib_X,
    # MXNet's after X)
    ours = (tmp_path / 'q-symbol.json').read_text().replace('blk__contrib_interleaved', 'blk_interleaved')
    _same_graph(json.loads(ours), json.loads(SA_FLOW['v2/' + name]['quantized']), versions=False)
    gold = SA_OUT['v2/%s/out' % name]
    np.testing.assert_allclose(out, gold, rtol=0, atol=0.03 * np.abs(gold).max())


@pytest.mark.parametrize('key', sorted(k for k, v in SA_FLOW.items() if 'env' in v))
def test_selfatt_post_quantize_switches_are_mxnets(key, monkeypatch):
    # MXNET_DISABLE_MKLDNN_QTRANSFORMER_FLOAT_OUTPUT keeps the calibrated int8 output and its dequantize;
    # MXNET_DISABLE_MKLDNN_QTRANSFORMER_FUSE_ALL keeps the requantize
    name, switch = key.split('/')
    monkeypatch.setenv(switch, '1')
    data, params = sa_gen.flow_inputs(name)
    qsym, qargs = sa_gen.quantize_flow(mx, name, mx.sym.load_json(SA_FLOW[name]['input']), data, params)
    _same_graph(json.loads(qsym.tojson()), json.loads(SA_FLOW[key]['quantized']))
    assert qsym.tojson() != SA_FLOW[name]['quantized']
    out = sa_gen.forward(mx, qsym, dict(data, **{k: v.asnumpy() for k, v in qargs.items()}))[0]
    gold = SA_OUT[key + '/quantized']
    np.testing.assert_allclose(out, gold, rtol=0, atol=0.03 * np.abs(gold).max())
