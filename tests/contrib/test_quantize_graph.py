"""MXNet 1.9.1's quantization graph pass (mx.contrib.quantization's _quantize_symbol / _calibrate_quantized_sym)
against the graphs real MXNet writes: tests/fixtures/contrib/quantization/graph.json (gen_graph.py; the networks
are in nets.py)."""
import json
import pathlib
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.contrib import _quantize_graph as qg

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'contrib' / 'quantization'
sys.path.insert(0, str(FIX))
import nets  # noqa: E402

sys.path.remove(str(FIX))
GOLD = json.loads((FIX / 'graph.json').read_text())


def _key(case):
    net, qdtype, mode, ex_syms, ex_ops = case
    return '%s/%s/%s/%s/%s' % (net, qdtype, mode, ','.join(ex_syms), ','.join(ex_ops))


def _graph(js):
    return [(n['op'], n['name'], n.get('attrs', {}), n['inputs']) for n in js['nodes']], js['heads']


@pytest.mark.parametrize('case', nets.CASES, ids=_key)
def test_quantized_graph_is_mxnets(case):
    net, qdtype, mode, ex_syms, ex_ops = case
    with mx.name.NameManager():  # (operators named automatically count from 0, as in the generator's process)
        sym = nets.NETS[net](mx)
    params = [n for n in sym.list_arguments() if n not in ('data', 'softmax_label')]
    qsym, calib = qg.quantize_symbol(sym, ex_syms, ex_ops, params, qdtype, mode)
    gold = GOLD[_key(case)]
    assert calib == gold['calib']
    assert _graph(json.loads(qsym.tojson())) == _graph(gold['qsym'])
    th = {name: (-1.0 - 0.37 * i, 2.0 + 0.123456789 * i) for i, name in enumerate(calib)}
    assert _graph(json.loads(qg.set_calib_table(qsym, th).tojson())) == _graph(gold['calibrated'])


def _flow():
    sys.path.insert(0, str(FIX))
    try:
        import gen_flow
    finally:
        sys.path.remove(str(FIX))
    return gen_flow


FLOW = _flow()
FLOW_JSON = json.loads((FIX / 'flow.json').read_text())
FLOW_NPZ = np.load(FIX / 'flow.npz')


def _same_graph(ours, theirs):
    """Equal graphs, the calibration ranges to 1e-5: they come from the float32 layer outputs, whose last bits
    differ from MXNet's oneDNN kernels (docs/differences.md)."""
    (a, heads_a), (b, heads_b) = _graph(ours), _graph(theirs)
    assert heads_a == heads_b and len(a) == len(b)
    for (op, name, attrs, ins), (op2, name2, attrs2, ins2) in zip(a, b):
        assert (op, name, ins, sorted(attrs)) == (op2, name2, ins2, sorted(attrs2))
        for k, v in attrs.items():
            if k.endswith('_calib_range'):
                assert float(v) == pytest.approx(float(attrs2[k]), rel=1e-5, abs=1e-6), (name, k)
            else:
                assert v == attrs2[k], (name, k)


@pytest.mark.parametrize('case', FLOW.FLOW, ids=lambda c: '%s/%s/%s/%s' % (c[0], c[3], c[4], c[5]))
def test_quantize_model_is_mxnets(case):
    # the whole flow: graph pass, calibration on data ('naive' min/max, 'entropy' KL thresholds) and the weights
    # quantized offline
    net, shape, kind, qdtype, mode, calib = case
    key = '%s/%s/%s/%s' % (net, qdtype, mode, calib)
    sym, args, auxs, calib_data, test = FLOW.inputs(mx, net, shape, kind)
    it = mx.io.NDArrayIter(calib_data, np.zeros(len(calib_data), 'f'), batch_size=shape[0])
    qsym, qargs, _ = mx.contrib.quantization.quantize_model(
        sym, args, auxs, ctx=mx.cpu(), calib_mode=calib, calib_data=None if calib == 'none' else it,
        quantized_dtype=qdtype, quantize_mode=mode)
    _same_graph(json.loads(qsym.tojson()), FLOW_JSON[key])
    want = {k[len(key) + 5:]: FLOW_NPZ[k] for k in FLOW_NPZ.files if k.startswith(key + '/arg/')}
    assert sorted(qargs) == sorted(want)
    for k, v in want.items():
        got = qargs[k].asnumpy()
        assert got.dtype == v.dtype and np.array_equal(got, v), k
    if key + '/error' not in FLOW_JSON:  # (our own quantized model runs too: its ranges differ in the last digits)
        scores = FLOW_NPZ[key + '/output']
        np.testing.assert_allclose(FLOW.run(mx, qsym, qargs, auxs, test), scores, atol=0.02 * abs(scores).max())


@pytest.mark.parametrize('case', FLOW.FLOW, ids=lambda c: '%s/%s/%s/%s' % (c[0], c[3], c[4], c[5]))
def test_mxnets_quantized_model_runs_to_its_numbers(case):
    # MXNet's own quantized symbol and parameters, run here: the int8 operators' results bit for bit (or MXNet's
    # refusal at the forward pass)
    net, shape, kind, qdtype, mode, calib = case
    key = '%s/%s/%s/%s' % (net, qdtype, mode, calib)
    _, _, auxs, _, test = FLOW.inputs(mx, net, shape, kind)
    qsym = mx.sym.load_json(json.dumps(FLOW_JSON[key]))
    qargs = {k[len(key) + 5:]: mx.nd.array(FLOW_NPZ[k], dtype=FLOW_NPZ[k].dtype)
             for k in FLOW_NPZ.files if k.startswith(key + '/arg/')}
    if key + '/error' in FLOW_JSON:
        message = FLOW_JSON[key + '/error']
        with pytest.raises(mx.base.MXNetError) as e:
            FLOW.run(mx, qsym, qargs, auxs, test)
        assert [w for w in ('uint8', 'calib_range') if w in message] == \
            [w for w in ('uint8', 'calib_range') if w in str(e.value)], (message, str(e.value))
        return
    np.testing.assert_array_equal(FLOW.run(mx, qsym, qargs, auxs, test), FLOW_NPZ[key + '/output'])


def test_quantize_graph_then_calib_graph_is_quantize_model():
    # the two-step flow (a collector filled through the executor's monitor) gives quantize_model's result
    q = mx.contrib.quantization
    net, shape, kind, qdtype, mode, calib = next(c for c in FLOW.FLOW if c[0] == 'conv_bn_pool_fc' and c[5] == 'naive')
    sym, args, auxs, calib_data, _ = FLOW.inputs(mx, net, shape, kind)
    qsym, qargs, qauxs, collector = q.quantize_graph(sym, args, auxs, ctx=mx.cpu(), calib_mode='naive',
                                                     quantized_dtype=qdtype, quantize_mode=mode)
    assert qauxs is auxs and isinstance(collector, q._LayerOutputMinMaxCollector)
    it = mx.io.NDArrayIter(calib_data, np.zeros(len(calib_data), 'f'), batch_size=shape[0])
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(for_training=False, data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.set_params(args, auxs)
    q._collect_layer_statistics(mod, it, collector)
    csym, cargs, _ = q.calib_graph(qsym, args, auxs, collector, calib_mode='naive', quantized_dtype=qdtype)
    it.reset()
    msym, margs, _ = q.quantize_model(sym, args, auxs, ctx=mx.cpu(), calib_mode='naive', calib_data=it,
                                      quantized_dtype=qdtype, quantize_mode=mode)
    assert csym.tojson() == msym.tojson()
    assert sorted(cargs) == sorted(margs) and all(np.array_equal(cargs[k].asnumpy(), margs[k].asnumpy())
                                                  for k in cargs)


def test_combine_histogram_widens_by_whole_bins():
    q = mx.contrib.quantization
    rs = np.random.RandomState(3)
    a, b = rs.uniform(-1, 1, 500), rs.uniform(-3, 2.5, 400)
    th_a = max(abs(a.min()), abs(a.max()))
    hist, edges = np.histogram(a, bins=11, range=(-th_a, th_a))
    th_b = max(abs(b.min()), abs(b.max()))
    out, out_edges, lo, hi, th = q.combine_histogram((hist, edges, a.min(), a.max(), th_a), b, b.min(), b.max(), th_b)
    step = 2 * th_a / 11
    grow = int((th_b - th_a) // step + 1)
    assert len(out) == 11 + 2 * grow and th == pytest.approx(th_a + grow * step)
    assert out.sum() == 900 and (lo, hi) == (min(a.min(), b.min()), max(a.max(), b.max()))
    assert np.array_equal(out - np.histogram(b, bins=len(out), range=(-th, th))[0],
                          np.concatenate([np.zeros(grow, int), hist, np.zeros(grow, int)]))
    # a narrower array adds into the old bins
    same = q.combine_histogram((hist, edges, a.min(), a.max(), th_a), a / 2, a.min() / 2, a.max() / 2, th_a / 2)
    assert same[4] == th_a and np.array_equal(same[0], hist + np.histogram(a / 2, bins=11, range=(-th_a, th_a))[0])
