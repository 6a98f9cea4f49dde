"""Models with Gluon RNN layers exported by real MXNet 1.9.1 (tests/fixtures/gluon_rnn/gen_rnn_export.py): their
graphs join the weights with ``_rnn_param_concat`` and start from ``_zeros`` states of unknown batch size. They
import with SymbolBlock.imports and bind in Module, and give MXNet's outputs at two batch sizes; the same models
exported here write MXNet's files."""
import filecmp
import importlib.util
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import gluon

from .rnn_golden import FIX

ARRAYS = np.load(os.path.join(FIX, 'rnn_export.npz'))
MODELS = ('lm', 'tagger', 'deferred')
_spec = importlib.util.spec_from_file_location('rnn_export_models', os.path.join(FIX, 'rnn_export_models.py'))
MADE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MADE)


def _files(name):
    return os.path.join(FIX, '%s-symbol.json' % name), os.path.join(FIX, '%s-0000.params' % name)


def test_fixtures_hold_mxnets_rnn_graph():
    ops = [n['op'] for n in json.load(open(_files('lm')[0]))['nodes']]
    assert '_rnn_param_concat' in ops and ops.count('_zeros') == 2


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('name', MODELS)
def test_symbolblock_imports(name, hybridize):
    sym_file, params = _files(name)
    net = gluon.SymbolBlock.imports(sym_file, ['data'], params)
    if hybridize:
        net.hybridize()
    for batch in (2, 3, 2):  # the begin states follow the batch size of each call
        y = net(mx.nd.array(ARRAYS['%s/x%d' % (name, batch)]))
        np.testing.assert_allclose(y.asnumpy(), ARRAYS['%s/y%d' % (name, batch)], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', MODELS)
def test_module_binds_the_exported_symbol(name):
    sym_file, params = _files(name)
    sym = mx.sym.load(sym_file)
    saved = mx.nd.load(params)
    args = {k[4:]: v for k, v in saved.items() if k.startswith('arg:')}
    x = ARRAYS['%s/x3' % name]
    mod = mx.mod.Module(sym, data_names=['data'], label_names=None)
    mod.bind(data_shapes=[('data', x.shape)], for_training=False)
    mod.set_params(args, {})
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), ARRAYS['%s/y3' % name], rtol=1e-5, atol=1e-6)


def test_rnn_param_concat_is_concat():
    a, b = mx.nd.array([1, 2]), mx.nd.array([3])
    np.testing.assert_array_equal(mx.nd._internal._rnn_param_concat(a, b, dim=0).asnumpy(), [1, 2, 3])
    with pytest.raises(mx.base.MXNetError, match=r'_rnn_param_concat.*\(2, 1\)'):
        mx.nd._internal._rnn_param_concat(mx.nd.ones((2, 2)), mx.nd.ones((2, 1)), dim=0)


@pytest.mark.parametrize('name', MODELS)
def test_export_writes_mxnets_files(name, tmp_path):
    with mx.name.NameManager():
        net = MADE.models(mx)[name]()
    net.initialize()
    net.hybridize()
    net(mx.nd.array(MADE.inputs(name, 2)))
    sym_file, params = _files(name)
    saved = mx.nd.load(params)
    for p in net.collect_params().values():
        p.set_data(saved['arg:' + p.name])
    prefix = str(tmp_path / name)
    net.export(prefix)
    assert json.load(open(prefix + '-symbol.json')) == json.load(open(sym_file))
    assert filecmp.cmp(prefix + '-0000.params', params, shallow=False)
    y = net(mx.nd.array(ARRAYS['%s/x3' % name]))
    np.testing.assert_allclose(y.asnumpy(), ARRAYS['%s/y3' % name], rtol=1e-5, atol=1e-6)


_cspec = importlib.util.spec_from_file_location('cell_export_models', os.path.join(FIX, 'cell_export_models.py'))
CELLS = importlib.util.module_from_spec(_cspec)
_cspec.loader.exec_module(CELLS)
CELL_ARRAYS = np.load(os.path.join(FIX, 'cell_export.npz'))


@pytest.mark.parametrize('name', sorted(CELLS.models(mx)))
def test_unrolled_cells_export_mxnets_graph(name, tmp_path):
    """Cells unrolled inside a hybridized block start from ``_zeros`` states of batch size 0, as in MXNet: the
    exported JSON is MXNet's, and the graph follows the batch size of each call."""
    with mx.name.NameManager():
        net = CELLS.models(mx)[name]()
    net.initialize()
    net.hybridize()
    net(mx.nd.array(CELLS.inputs(2)))
    saved = mx.nd.load(os.path.join(FIX, 'cell_%s-0000.params' % name))
    for p in net.collect_params().values():
        p.set_data(saved['arg:' + p.name])
    for batch in (2, 3, 2):
        y = net(mx.nd.array(CELLS.inputs(batch)))
        np.testing.assert_allclose(y.asnumpy(), CELL_ARRAYS['%s/y%d' % (name, batch)], rtol=1e-5, atol=1e-6)
    prefix = str(tmp_path / name)
    net.export(prefix)
    assert json.load(open(prefix + '-symbol.json')) == json.load(open(os.path.join(FIX, 'cell_%s-symbol.json' % name)))
    imported = gluon.SymbolBlock.imports(os.path.join(FIX, 'cell_%s-symbol.json' % name), ['data'],
                                         os.path.join(FIX, 'cell_%s-0000.params' % name))
    y = imported(mx.nd.array(CELLS.inputs(3)))
    np.testing.assert_allclose(y.asnumpy(), CELL_ARRAYS['%s/y3' % name], rtol=1e-5, atol=1e-6)
