"""``python -m mxcompat convert``: real MXNet 1.9.1 export files to a torch module (pickle, torch.export, ONNX)."""
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
import torch

from mxcompat.porting import convert

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'gluon')
SYM, PARAMS = os.path.join(FIX, 'cnn-symbol.json'), os.path.join(FIX, 'cnn-0000.params')
INFO = json.load(open(os.path.join(FIX, 'cnn.json')))
X = np.array(INFO['x'], np.float32)
HAS_ONNX = all(importlib.util.find_spec(p) is not None for p in ('onnx', 'onnxscript'))

CHILD = r'''
import sys
sys.path.append(sys.argv[1])
try:
    import mxcompat  # noqa: F401
    raise SystemExit('mxcompat is importable in the child')
except ImportError:
    pass
import numpy as np, torch
m = torch.load('model.pt', weights_only=False)
x = torch.from_numpy(np.load('x.npy'))
np.save('y.npy', m(x).detach().numpy())
'''


def test_convert_pickle_loads_without_mxcompat(tmp_path, capsys):
    out = tmp_path / 'model.pt'
    assert convert.main([SYM, PARAMS, '-o', str(out), '--shape', 'data=2,3,8,8']) == 0
    assert 'wrote %s: inputs data(2, 3, 8, 8), outputs hybridsequential0_dense0_fwd_output, 305 parameters' % out \
        in capsys.readouterr().out
    np.save(str(tmp_path / 'x.npy'), X)
    (tmp_path / 'child.py').write_text(CHILD)
    proc = subprocess.run([sys.executable, '-I', '-S', 'child.py', sysconfig.get_paths()['purelib']],
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=120,
                          env={'PATH': os.environ.get('PATH', '')})
    assert proc.returncode == 0, proc.stderr[-2000:]
    # the output real MXNet 1.9.1 computed for these files
    np.testing.assert_allclose(np.load(str(tmp_path / 'y.npy')), INFO['imported_y'], rtol=1e-5, atol=1e-5)


def test_convert_torch_export(tmp_path):
    out = tmp_path / 'model.pt2'
    assert convert.main([SYM, PARAMS, '-o', str(out), '--shape', 'data=2,3,8,8', '--export']) == 0
    program = torch.export.load(str(out))
    y = program.module()(torch.from_numpy(X))
    np.testing.assert_allclose(y.detach().numpy(), INFO['imported_y'], rtol=1e-5, atol=1e-5)


def test_convert_dynamic_batch(tmp_path):
    out = tmp_path / 'model.pt2'
    assert convert.main([SYM, PARAMS, '-o', str(out), '--shape', 'data=2,3,8,8', '--export', '--dynamic-batch']) == 0
    program = torch.export.load(str(out))
    x = torch.from_numpy(np.concatenate([X, X[:1]]))
    y = program.module()(x).detach().numpy()
    np.testing.assert_allclose(y[:2], INFO['imported_y'], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y[2], INFO['imported_y'][0], rtol=1e-5, atol=1e-5)


def test_convert_api_and_errors(tmp_path, capsys, monkeypatch):
    module, examples = convert.convert(SYM, PARAMS, {'data': (2, 3, 8, 8)})
    assert [tuple(e.shape) for e in examples] == [(2, 3, 8, 8)]
    assert sorted(module.mxnet_names.values()) == sorted(p[0] for p in INFO['imported_params'])
    assert convert.main([SYM, PARAMS, '-o', str(tmp_path / 'm.pt')]) == 1
    assert 'give an example input (or shape) for data' in capsys.readouterr().err
    assert convert.main([SYM, PARAMS, '-o', str(tmp_path / 'm.pt'), '--shape', 'data']) == 1
    assert '--shape takes NAME=D1,D2' in capsys.readouterr().err
    real = importlib.util.find_spec
    hidden = {'onnx', 'onnxscript'}  # as on a machine without them (CI), whatever this one has
    monkeypatch.setattr(importlib.util, 'find_spec', lambda name, *a: None if name in hidden else real(name))
    assert convert.main([SYM, PARAMS, '-o', str(tmp_path / 'm.onnx'), '--shape', 'data=2,3,8,8', '--onnx']) == 1
    assert 'ONNX export needs the onnx and onnxscript packages (pip install onnx onnxscript)' in capsys.readouterr().err
    hidden = {'onnxscript'}
    assert convert.main([SYM, PARAMS, '-o', str(tmp_path / 'm.onnx'), '--shape', 'data=2,3,8,8', '--onnx']) == 1
    err = capsys.readouterr().err
    assert 'onnxscript package (pip install onnxscript)' in err or 'onnx and onnxscript packages' in err
    assert not (tmp_path / 'm.onnx').exists()


@pytest.mark.skipif(not HAS_ONNX, reason='onnx and onnxscript are not installed')
def test_convert_onnx(tmp_path):
    import onnx
    out = tmp_path / 'model.onnx'
    assert convert.main([SYM, PARAMS, '-o', str(out), '--shape', 'data=2,3,8,8', '--onnx']) == 0
    model = onnx.load(str(out))
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ['data']
    assert [o.name for o in model.graph.output] == ['hybridsequential0_dense0_fwd_output']
    assert {'Conv', 'MaxPool', 'Gemm'} <= {n.op_type for n in model.graph.node}


@pytest.mark.slow
@pytest.mark.skipif(not HAS_ONNX, reason='onnx and onnxscript are not installed')
@pytest.mark.parametrize('name', ['resnet18_v1', 'mobilenet0.25'])
def test_model_zoo_onnx(tmp_path, name):
    import onnx
    import mxcompat as mx
    from mxcompat.gluon.model_zoo import vision
    net = vision.get_model(name, classes=10)
    net.initialize()
    module = mx.to_torch(net, mx.nd.ones((1, 3, 64, 64)))
    convert.export_onnx(module, (torch.ones(1, 3, 64, 64),), str(tmp_path / 'm.onnx'))
    onnx.checker.check_model(onnx.load(str(tmp_path / 'm.onnx')))
