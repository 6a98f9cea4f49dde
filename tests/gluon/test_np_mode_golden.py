"""Gluon in NumPy mode against MXNet 1.9.1: the D2L training scripts (linear and softmax regression, MLP, LeNet,
an LSTM language model), every layer eager and hybridized, the losses, optimizers, data and metrics of
tests/fixtures/gluon_np/np_cases.py, whose results under real MXNet gen_gluon_np.py stored; and a parameter file
written there in NumPy mode."""
import json
import os

import numpy as onp
import pytest

import mxcompat as mx

from .test_np_mode import _cases

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'gluon_np'))
cases = _cases()
GOLD = json.load(open(os.path.join(FIX, 'gluon_np.json')))
ARR = dict(onp.load(os.path.join(FIX, 'gluon_np.npz')))

# where MXNet 1.9.1 raises in NumPy mode and mxcompat computes (its legacy operators refuse mx.np arrays); the
# values are checked against legacy mode in test_np_mode.py
RUNS_HERE = {'layer:GroupNorm', 'layer:InstanceNorm', 'layer:ReflectionPad2D', 'loss:Hinge', 'loss:Huber',
             'loss:KLDiv', 'loss:Logistic', 'loss:SquaredHinge', 'metrics:acc'}


pytestmark = pytest.mark.usefixtures('np_mode')  # every test runs under npx.set_np()


def golden_arrays(name):
    lead = name + '|'
    return {k[len(lead):]: v for k, v in ARR.items() if k.startswith(lead)}


def compare(name, result, rtol=1e-5, atol=1e-6):
    arrays, info = result
    assert info == GOLD[name]
    want = golden_arrays(name)
    assert sorted(arrays) == sorted(want)
    for key, value in want.items():
        onp.testing.assert_allclose(arrays[key], value, rtol=rtol, atol=atol, err_msg='%s: %s' % (name, key))


@pytest.mark.parametrize('case,rtol,atol', [('linreg', 1e-5, 1e-6), ('softmax_regression', 1e-5, 1e-5),
                                            ('mlp', 1e-4, 1e-5), ('lenet', 1e-4, 1e-5), ('lstm_lm', 1e-4, 1e-6)])
def test_d2l_training(case, rtol, atol, tmp_path):
    compare(case, getattr(cases, case)(mx, str(tmp_path)), rtol, atol)


BLOCKS = [('layer', name) for name in cases.LAYER_NAMES] + [('loss', name) for name in cases.LOSS_NAMES]


@pytest.mark.parametrize('hybridize', [0, 1])
@pytest.mark.parametrize('what,name', BLOCKS, ids=['%s:%s' % b for b in BLOCKS])
def test_layer_or_loss(what, name, hybridize):
    key = '%s:%s:%d' % (what, name, hybridize)
    got = (cases.layer if what == 'layer' else cases.loss_case)(mx, name, bool(hybridize))
    if '%s:%s' % (what, name) in RUNS_HERE:
        assert 'error' in GOLD[key] and set(got[1]['kinds']) == {'np'}
        return
    compare(key, got)


@pytest.mark.parametrize('opt', cases.OPTIMIZERS)
def test_trainer(opt):
    compare('trainer:' + opt, cases.trainer(mx, opt))


def test_data(tmp_path):
    compare('data', cases.data(mx, str(tmp_path)))


def test_metrics():
    arrays, info = cases.metrics(mx)
    assert info == {} and GOLD['metrics'] == {'acc': 'TypeError'}  # (MXNet's Accuracy refuses mx.np arrays)
    want = golden_arrays('metrics')
    assert sorted(want) == sorted(set(arrays) - {'acc'})
    for key, value in want.items():
        onp.testing.assert_allclose(arrays[key], value, rtol=1e-6, err_msg=key)


def test_parameter_file_both_ways(tmp_path):
    # MXNet's NumPy-mode file loads here in both modes; ours, from the same values, is the same bytes
    path = os.path.join(FIX, 'mlp_np.params')
    net = cases.mlp_net(mx)
    net.load_parameters(path)
    got = cases.params_of(net)
    assert all(isinstance(p.data(), mx.np.ndarray) for p in net.collect_params().values())
    with mx.util.np_array(False):
        legacy = cases.mlp_net(mx)
        legacy.load_parameters(path)
        assert not any(isinstance(p.data(), mx.np.ndarray) for p in legacy.collect_params().values())
        for k, v in cases.params_of(legacy).items():
            onp.testing.assert_array_equal(v, got[k])
    mine = cases.mlp_net(mx)
    cases.fill(mx, mine, 13)
    for k, v in cases.params_of(mine).items():
        onp.testing.assert_array_equal(v, got[k])
    mine.save_parameters(str(tmp_path / 'mine.params'))
    assert open(str(tmp_path / 'mine.params'), 'rb').read() == open(path, 'rb').read()


def _nodes(path):
    """The graph of a symbol file with every operator's attributes parsed (MXNet and mxcompat spell some values
    differently: '[None, -1]' / '(None, -1)'), inputs without their versions."""
    from mxcompat.operator import registry
    graph = json.load(open(path))
    nodes = []
    for n in graph['nodes']:
        attrs = n.get('attrs', {})
        if n['op'] != 'null':
            attrs = registry.get(n['op']).parse_attrs(dict(attrs))
        # (an auxiliary state's input version: MXNet writes 2 for a hybridized block's graph, mxcompat 1)
        nodes.append((n['op'], n['name'], attrs, [i[:2] for i in n['inputs']]))
    return nodes, graph['attrs'], graph['arg_nodes'], graph['heads']


@pytest.mark.parametrize('which', cases.EXPORTS)
def test_export_writes_mxnets_files(which, tmp_path):
    out = cases.export_case(mx, which, str(tmp_path / which))
    onp.testing.assert_allclose(out, ARR['export:%s|out' % which], rtol=1e-5, atol=1e-6)
    mine = _nodes(str(tmp_path / (which + '-symbol.json')))
    assert mine == _nodes(os.path.join(FIX, 'export_%s-symbol.json' % which))
    assert mine[1]['is_np_shape'] == ['int', 1]
    assert open(str(tmp_path / (which + '-0000.params')), 'rb').read() == \
        open(os.path.join(FIX, 'export_%s-0000.params' % which), 'rb').read()


@pytest.mark.parametrize('which', cases.EXPORTS)
def test_imports_mxnets_export(which):
    _, shapes = cases.export_model(mx, which)
    names = 'data' if len(shapes) == 1 else ['data%d' % i for i in range(len(shapes))]
    prefix = os.path.join(FIX, 'export_' + which)
    block = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', names, prefix + '-0000.params')
    assert all(isinstance(p.data(), mx.np.ndarray) for p in block.collect_params().values())
    out = block(*cases.export_inputs(mx, shapes))
    assert isinstance(out, mx.np.ndarray)
    onp.testing.assert_allclose(out.asnumpy(), ARR['export:%s|out' % which], rtol=1e-5, atol=1e-6)
