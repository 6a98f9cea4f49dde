"""HybridBlock.export and SymbolBlock: a CNN exported by real MXNet 1.9.1 loads here and gives MXNet's output; the
same CNN exported here gives MXNet's files (params byte for byte) and loads in real MXNet (oracle test); the shared
SymbolBlock scenarios; the hybrid_export example prints what MXNet prints."""
import contextlib
import filecmp
import io
import json
import subprocess

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import gluon
from mxcompat.gluon import nn

from . import golden
from tests.conftest import example_output

INFO = json.load(open(golden.path('cnn.json')))
X = np.array(INFO['x'], np.float32)
set_params = golden.load_module('gluon_cases').set_params


@pytest.mark.parametrize('name', golden.scenario_names('symbolblock'))
def test_scenario_against_mxnet(name, tmp_path):
    golden.check_scenario(name, tmp_path)


def _cnn():
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(), nn.Flatten(),
                    nn.Dense(5))
    return net


def test_imports_files_exported_by_mxnet():
    blk = gluon.SymbolBlock.imports(golden.path('cnn-symbol.json'), ['data'], golden.path('cnn-0000.params'))
    np.testing.assert_allclose(blk(mx.nd.array(X)).asnumpy(), INFO['imported_y'], rtol=1e-5, atol=1e-6)
    assert repr(blk) == INFO['symbolblock_repr']
    params = [[k, None if p.shape is None else list(p.shape), np.dtype(p.dtype).name, p.grad_req]
              for k, p in blk.collect_params().items()]
    assert params == INFO['imported_params']
    blk.hybridize()
    with mx.autograd.record():
        y = blk(mx.nd.array(X))
    y.backward()
    assert blk.collect_params()['hybridsequential0_dense0_weight'].grad().asnumpy().any()


def _export_ours(tmp_path):
    net = _cnn()
    net.initialize()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        net.summary(mx.nd.array(X))
    set_params(net, 4, mx)
    net.hybridize()
    y = net(mx.nd.array(X))
    prefix = str(tmp_path / 'cnn')
    net.export(prefix)
    return prefix, y, buf.getvalue()


def test_export_writes_mxnets_files(tmp_path):
    prefix, y, summary = _export_ours(tmp_path)
    np.testing.assert_allclose(y.asnumpy(), INFO['y'], rtol=1e-5, atol=1e-6)
    assert summary == INFO['summary']
    assert filecmp.cmp(prefix + '-0000.params', golden.path('cnn-0000.params'), shallow=False)
    ours = json.load(open(prefix + '-symbol.json'))
    theirs = json.load(open(golden.path('cnn-symbol.json')))
    # Known difference (mxcompat/symbol): MXNet numbers each mutation of an auxiliary variable in its input entry's
    # version field (2 here: BatchNorm's moving stats were used by the deferred-init trace and the hybridized one);
    # mxcompat always writes 1. MXNet ignores the field when loading.
    for node in theirs['nodes']:
        for entry in node['inputs']:
            if entry[2] != 0:
                entry[2] = 1
    assert ours == theirs
    blk = gluon.SymbolBlock.imports(prefix + '-symbol.json', 'data', prefix + '-0000.params')
    np.testing.assert_allclose(blk(mx.nd.array(X)).asnumpy(), y.asnumpy(), rtol=1e-6)


@pytest.mark.oracle
def test_export_loads_in_real_mxnet(tmp_path):
    from tests.conftest import oracle_runner
    prefix, y, _ = _export_ours(tmp_path)
    np.save(str(tmp_path / 'x.npy'), X)
    code = ('import mxnet as mx, numpy as np, sys\n'
            'p = sys.argv[1]\n'
            "blk = mx.gluon.SymbolBlock.imports(p + '-symbol.json', ['data'], p + '-0000.params')\n"
            "np.save(p + '-y.npy', blk(mx.nd.array(np.load(sys.argv[2]))).asnumpy())\n")
    script = tmp_path / 'load.py'
    script.write_text(code)
    r = subprocess.run([oracle_runner(), str(script), prefix, str(tmp_path / 'x.npy')], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(prefix + '-y.npy'), y.asnumpy(), rtol=1e-5, atol=1e-6)


def test_hybrid_export_example_prints_what_mxnet_prints():
    got, want = example_output('hybrid_export')
    assert got == want
