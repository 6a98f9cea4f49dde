"""mx.contrib.amp's graph conversions (convert_symbol, convert_model, convert_hybrid_block,
convert_bucketing_module) against MXNet 1.9.1.

The cases in tests/fixtures/amp/amp_convert_cases.py run here on mxcompat and were run on real MXNet by
gen_amp_convert.py: the converted graph's JSON (casts included) must be MXNet's character for character, the
parameters must take MXNet's dtypes, errors must be MXNet's kind, and the converted models' outputs must be MXNet's
(bfloat16) or the float32 model's to float16 tolerance (MXNet's CPU build cannot run float16 layers). The per-op
dtype rules the conversion uses (mxcompat/contrib/amp/_types.py) are checked against MXNet's type inference for
every operator sample."""
import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError
from mxcompat.contrib import amp
from mxcompat.contrib.amp import _convert, _types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'amp')
sys.path.insert(0, FIX)
import amp_convert_cases  # noqa: E402  (the shared cases live beside their fixtures)

with gzip.open(os.path.join(FIX, 'amp_convert_mxnet.json.gz'), 'rt') as _f:
    WANT = json.load(_f)
ARRAYS = dict(np.load(os.path.join(FIX, 'amp_convert_mxnet.npz')))
CASES = sorted(k for k in WANT if not k.startswith('__'))

@pytest.fixture(scope='module')
def got():
    return amp_convert_cases.run_all(mx, amp, WANT['__sources__'], fp16_forward=True)


@pytest.mark.parametrize('case', CASES)
def test_conversion_matches_mxnet(case, got):
    want, mine = WANT[case], got[case]
    if 'error' in want:
        assert 'error' in mine, 'MXNet raised %s, mxcompat did not' % (want['error'],)
        assert mine['error'][1] == want['error'][1], (mine['error'], want['error'])  # AssertionError or not
        return
    assert 'error' not in mine, mine.get('error')
    if 'json' in want:
        if isinstance(want['json'], dict):  # one graph per bucket
            assert sorted(mine['json']) == sorted(want['json'])
            for key in want['json']:
                assert mine['json'][key] == want['json'][key]
        else:
            assert mine['json'] == want['json']
    for key in ('dtypes', 'data_dtypes'):
        if key in want:
            assert mine[key] == want[key]


# MXNet's messages for the errors it raises; mxcompat's say the same
MESSAGES = {
    'sym/edge/take': 'Index type must be set for take operator',
    'sym/edge/take_param': 'Index type must be set for take operator',
    'sym/edge/dropout_param': 'input type to dropout is not specified',
    'sym/edge/extra_data_name': 'InferTypeKeyword argument name nonexistent not found',
    'sym/upstream/bad_overlap': 'Ops cannot be in two or more lists',
    'sym/upstream/bad_cond_overlap': 'Ops cannot be in two or more lists',
    'sym/upstream/bad_list': 'Can only choose ops from one of the three lists',
    'sym/upstream/bad_dtype': 'Only target_dtype float16 and bfloat16 are supported currently',
    'hybrid/not_hybridized': 'Please first call block.hybridize()',
}


@pytest.mark.parametrize('case', sorted(MESSAGES))
def test_errors_say_what_mxnet_says(case, got):
    assert MESSAGES[case] in WANT[case]['error'][2]
    assert MESSAGES[case] in got[case]['error'][2]


def test_errors_are_mxnet_errors(got):
    for case in CASES:
        if 'error' in WANT[case] and not WANT[case]['error'][1]:
            assert got[case]['error'][0] in ('MXNetError', 'RuntimeError'), (case, got[case]['error'])


OUTPUT_CASES = sorted({k.split('|')[0] for k in ARRAYS})


@pytest.mark.parametrize('case', OUTPUT_CASES)
def test_converted_outputs(case, got):
    mine = got[case]
    refs = sorted(k.split('|')[1] for k in ARRAYS if k.startswith(case + '|') and '|ref:' in k)
    assert refs
    for ref in refs:
        i = ref.split(':')[1]
        out = mine['out:' + i]
        want = ARRAYS['%s|out:%s' % (case, i)] if '%s|out:%s' % (case, i) in ARRAYS else None
        if want is not None:  # bfloat16: MXNet ran the converted model
            np.testing.assert_allclose(out, want, rtol=1e-2, atol=2e-3)
            np.testing.assert_allclose(out, ARRAYS['%s|%s' % (case, ref)], rtol=5e-2, atol=2e-2)
        else:  # float16: the float32 model's outputs
            np.testing.assert_allclose(out, ARRAYS['%s|%s' % (case, ref)], rtol=1e-2, atol=2e-3)


def test_fixture_covers_every_entry_point():
    kinds = {c.split('/')[0] for c in CASES}
    assert kinds == {'sym', 'model', 'hybrid', 'bucketing'}
    assert len(OUTPUT_CASES) >= 10


# ---- the dtype rules ------------------------------------------------------------------------------------------------
TYPE_ROWS = WANT['__types__']


def _type_answer(sym, first, dtype):
    nodes = sym._nodes()
    try:
        types = _convert.infer_types(sym, {first: _types.CODES[dtype]})
    except MXNetError:
        return 'error'
    return {'inputs': {n.name: _types.NAMES.get(types.get((id(n), 0))) for n in nodes if n.is_var},
            'outputs': [_types.NAMES.get(types.get((id(n), i))) for n, i in sym._outputs]}


@pytest.mark.parametrize('row', TYPE_ROWS, ids=['%s#%d' % (r['op'], r['i']) for r in TYPE_ROWS])
def test_dtype_rules_follow_mxnet(row):
    sym = mx.sym.load_json(row['json'])
    first = sym._nodes()[-1].inputs[0][0].name
    for dtype in ('float16', 'float32', 'bfloat16'):
        assert _type_answer(sym, first, dtype) == row[dtype], dtype


def test_type_table_covers_the_op_samples():
    assert len({r['op'] for r in TYPE_ROWS}) > 300


# ---- beyond MXNet's cases -------------------------------------------------------------------------------------------
def test_conversion_leaves_the_input_symbol_alone():
    d = mx.sym.var('data')
    sym = mx.sym.FullyConnected(d, num_hidden=3, name='fc')
    before = sym.tojson()
    out = amp.convert_symbol(sym, data_names=['data'])
    assert sym.tojson() == before
    assert '__dtype__' not in json.loads(before)['nodes'][1].get('attrs', {})
    assert json.loads(out.tojson())['nodes'][1]['attrs']['__dtype__'] == '0'
    # oracle-checked: tojson() without remove_amp_cast=False leaves out the casts that nodes read, and keeps the
    # output's cast back to float32
    assert [n['op'] for n in json.loads(out.tojson())['nodes']] == ['null', 'null', 'null', 'FullyConnected',
                                                                    'amp_cast']


def test_converted_symbol_binds_and_runs_in_float16():
    d = mx.sym.var('data')
    sym = mx.sym.Activation(mx.sym.FullyConnected(d, num_hidden=3, name='fc'), act_type='relu', name='act')
    out = amp.convert_symbol(sym)
    x = mx.nd.array(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
    w = mx.nd.array(np.ones((3, 4), np.float32) / 4)
    b = mx.nd.zeros((3,))
    res = out.bind(mx.cpu(), {'data': x, 'fc_weight': w, 'fc_bias': b}).forward()[0]
    assert res.dtype == np.float32
    np.testing.assert_allclose(res.asnumpy(), sym.bind(mx.cpu(), {'data': x, 'fc_weight': w, 'fc_bias': b})
                               .forward()[0].asnumpy(), rtol=1e-3, atol=1e-3)


def test_export_of_a_converted_block_reloads(tmp_path):
    net = mx.gluon.nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(4, in_units=3), mx.gluon.nn.BatchNorm(in_channels=4))
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    net(x)
    conv = amp.convert_hybrid_block(net, ctx=mx.cpu(), cast_optional_params=True)
    assert conv.collect_params()['net_dense0_weight'].data().dtype == np.float16
    assert conv.collect_params()['net_batchnorm0_gamma'].data().dtype == np.float32
    want = conv(x).asnumpy()  # (export needs a forward pass first, as in MXNet)
    conv.export(str(tmp_path / 'm'), remove_amp_cast=False)
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / 'm-symbol.json'), ['data'], str(tmp_path / 'm-0000.params'))
    assert back.collect_params()['net_dense0_weight'].data().dtype == np.float16
    np.testing.assert_allclose(back(x).asnumpy(), want, rtol=1e-2, atol=1e-3)


def test_control_flow_graphs_are_a_gap():
    data = mx.sym.var('data')
    out, _ = mx.sym.contrib.foreach(lambda x, s: (x * 2, s), data, [mx.sym.var('s')])
    with pytest.raises(MXNetNotImplementedError, match='convert_symbol.*_foreach'):
        amp.convert_symbol(out)


def test_unknown_operator_names_in_lists_are_refused():
    sym = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    with pytest.raises(MXNetNotImplementedError, match='convert_symbol.*fp32_ops.*NoSuchOp'):
        amp.convert_symbol(sym, fp32_ops=['NoSuchOp'])


def test_argument_errors_are_assertion_errors():
    sym = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    for kwargs in ({'target_dtype': np.float16}, {'target_dtype_ops': ('FullyConnected',)},
                   {'excluded_sym_names': 'fc'}, {'conditional_fp32_ops': [('Activation', 'act_type', 'relu')]}):
        with pytest.raises(AssertionError):
            amp.convert_symbol(sym, **kwargs)
    with pytest.raises(AssertionError):
        amp.convert_symbol(mx.nd.ones((2,)))
    with pytest.raises(AssertionError):
        amp.convert_model(sym, [], {})
    with pytest.raises(AssertionError):
        amp.convert_hybrid_block(mx.sym.var('x'))


_ORACLE_SCRIPT = '''
import sys
import numpy as np
import mxnet as mx
from mxnet.contrib import amp
p, x = sys.argv[1], mx.nd.array(np.load(sys.argv[2]))
blk = mx.gluon.SymbolBlock.imports(p + '-symbol.json', ['data'], p + '-0000.params')
np.save(p + '-y.npy', mx.nd.amp_cast(blk(x), dtype='float32').asnumpy())
net = mx.gluon.nn.HybridSequential(prefix='net_')
with net.name_scope():
    net.add(mx.gluon.nn.Dense(4, in_units=3), mx.gluon.nn.BatchNorm(in_channels=4), mx.gluon.nn.Dense(2, in_units=4))
net.initialize()
for name, param in net.collect_params().items():  # the same values, back in float32
    param.set_data(mx.nd.amp_cast(blk.collect_params()[name].data(), dtype='float32'))
net.hybridize()
net(x)
conv = amp.convert_hybrid_block(net, target_dtype='bfloat16', ctx=mx.cpu(), cast_optional_params=True)
conv(x)
conv.export(p + '-mx', remove_amp_cast=False)
'''


def _bf16_block():
    net = mx.gluon.nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(4, in_units=3), mx.gluon.nn.BatchNorm(in_channels=4),
                mx.gluon.nn.Dense(2, in_units=4))
    net.initialize()
    amp_convert_cases._fill_params(mx, net.collect_params())
    net.hybridize()
    return net


@pytest.mark.oracle
def test_converted_exports_load_both_ways(tmp_path):
    """A bfloat16 conversion exported here loads and runs in real MXNet; MXNet's export of the same conversion
    loads here, with MXNet's files."""
    from tests.conftest import oracle_runner
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    net = _bf16_block()
    net(mx.nd.array(x))
    conv = amp.convert_hybrid_block(net, target_dtype='bfloat16', ctx=mx.cpu(), cast_optional_params=True)
    y = mx.nd.amp_cast(conv(mx.nd.array(x)), dtype='float32').asnumpy()
    prefix = str(tmp_path / 'm')
    conv.export(prefix, remove_amp_cast=False)
    np.save(str(tmp_path / 'x.npy'), x)
    script = tmp_path / 'load.py'
    script.write_text(_ORACLE_SCRIPT)
    r = subprocess.run([oracle_runner(), str(script), prefix, str(tmp_path / 'x.npy')], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(prefix + '-y.npy'), y, rtol=1e-2, atol=1e-3)
    with open(prefix + '-mx-symbol.json') as f:
        assert f.read() == conv._cached_graph[1].tojson(remove_amp_cast=False)
    back = mx.gluon.SymbolBlock.imports(prefix + '-mx-symbol.json', ['data'], prefix + '-mx-0000.params')
    for name, param in back.collect_params().items():
        assert param.data()._t.dtype == conv.collect_params()[name].data()._t.dtype, name
    np.testing.assert_allclose(mx.nd.amp_cast(back(mx.nd.array(x)), dtype='float32').asnumpy(), y, rtol=1e-2,
                               atol=1e-3)


def test_bfloat16_marker_in_symbols():
    # oracle-checked: amp.bfloat16 is 'bfloat16' in an op's dtype attribute and type code 12 on a variable
    node = json.loads(mx.sym.amp_cast(mx.sym.var('d'), dtype=amp.bfloat16, name='c').tojson(False))['nodes'][-1]
    assert node['attrs'] == {'dtype': 'bfloat16'}
    assert mx.sym.var('v', dtype=amp.bfloat16).attr('__dtype__') == '12'
    x = mx.sym.var('x', __dtype__='-1')  # -1 is an unknown dtype
    assert x.infer_type_partial() == ([None], [None], [])


def _conv_bn_params():
    with mx.name.NameManager():
        sym = amp_convert_cases.conv_bn(mx)
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(2, 3, 6, 6))
    args = {n: s for n, s in zip(sym.list_arguments(), arg_shapes) if n not in ('data', 'softmax_label')}
    return (sym, amp_convert_cases._seeded_dict(mx, args),
            amp_convert_cases._seeded_dict(mx, dict(zip(sym.list_auxiliary_states(), aux_shapes)), 11))


def test_converted_symbol_with_batchnorm_binds_with_mxnet_dtypes():
    sym, args, auxs = _conv_bn_params()
    x = mx.nd.array(np.linspace(-1, 1, 216, dtype=np.float32).reshape(2, 3, 6, 6))
    want = sym.bind(mx.cpu(), dict(args, data=x, softmax_label=mx.nd.zeros((2,))), aux_states=auxs).forward()[0]
    conv = amp.convert_symbol(sym)
    ex = conv.simple_bind(mx.cpu(), data=(2, 3, 6, 6), softmax_label=(2,), grad_req='null',
                          type_dict={'data': np.float32})
    # BatchNorm's parameters and statistics stay float32 behind a float16 convolution, as MXNet infers them
    assert ex.arg_dict['bn0_gamma'].dtype == np.float32 and ex.aux_dict['bn0_moving_var'].dtype == np.float32
    assert ex.arg_dict['conv0_weight'].dtype == np.float32  # (cast in the graph)
    ex.copy_params_from(args, auxs)
    out = ex.forward(is_train=False, data=x)[0]
    np.testing.assert_allclose(out.asnumpy(), want.asnumpy(), rtol=1e-2, atol=2e-3)


def _module_outputs(sym, args, auxs, data_shapes):
    mod = mx.mod.Module(sym, data_names=['data'], label_names=['softmax_label'], context=mx.cpu())
    mod.bind(data_shapes=data_shapes, label_shapes=[mx.io.DataDesc('softmax_label', (2,))], for_training=False)
    mod.set_params(args, auxs)
    x = mx.nd.array(np.linspace(-1, 1, 216, dtype=np.float32).reshape(2, 3, 6, 6))
    mod.forward(mx.io.DataBatch([x], [mx.nd.zeros((2,))]), is_train=False)
    return mod.get_outputs()[0].asnumpy()


@pytest.mark.parametrize('target', ['float16', 'bfloat16'])
def test_converted_model_runs_in_a_module(target):
    sym, args, auxs = _conv_bn_params()
    want = _module_outputs(sym, dict(args), dict(auxs), [mx.io.DataDesc('data', (2, 3, 6, 6))])
    conv, cargs, cauxs = amp.convert_model(sym, args, auxs, target_dtype=target, cast_optional_params=True)
    assert cargs['conv0_weight']._t.dtype is (mx.nd.zeros((1,), dtype='float16')._t.dtype if target == 'float16'
                                              else mx.nd.amp_cast(mx.nd.zeros((1,)), dtype='bfloat16')._t.dtype)
    got = _module_outputs(conv, cargs, cauxs, [mx.io.DataDesc('data', (2, 3, 6, 6))])
    np.testing.assert_allclose(got, want, rtol=5e-2, atol=2e-2 if target == 'bfloat16' else 2e-3)


def test_converted_model_in_a_module_bound_with_plain_shapes():
    sym, args, auxs = _conv_bn_params()
    conv, cargs, cauxs = amp.convert_model(sym, args, auxs, cast_optional_params=True)
    _module_outputs(conv, cargs, cauxs, [('data', (2, 3, 6, 6))])


def test_converted_multicast_graph_runs():
    d, scale = mx.sym.var('data'), mx.sym.var('scale')
    sym = mx.sym.elemwise_mul(mx.sym.FullyConnected(d, num_hidden=3, name='fc'), scale, name='mul')
    conv = amp.convert_symbol(sym)
    ops = [n['op'] for n in json.loads(conv.tojson(remove_amp_cast=False))['nodes']]
    assert ops.count('amp_multicast') == 1  # the scale's dtype is unknown to the pass
    arrays = {'data': mx.nd.array(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)),
              'fc_weight': mx.nd.array(np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(3, 4)),
              'fc_bias': mx.nd.ones((3,)), 'scale': mx.nd.array(np.full((2, 3), 1.5, np.float32))}
    out = conv.bind(mx.cpu(), arrays).forward()[0]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), sym.bind(mx.cpu(), arrays).forward()[0].asnumpy(), rtol=1e-2, atol=1e-3)
