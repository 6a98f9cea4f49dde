"""benchmarks/gpu.py's steps build and run on the CPU (its ``DEVICE`` switched), so a GPU run does not fail on them."""
import os

import pytest
import torch

import mxcompat as mx
from benchmarks import gpu


@pytest.mark.parametrize('model', ['mlp', 'lstm'])
def test_the_steps_run_on_the_cpu(model, monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    before = os.environ.get('MXNET_ENABLE_CUDA_GRAPHS')
    for hybridize, graphs in ((False, False), (True, False), (True, True)):
        step = gpu._gluon_step(mx, model, hybridize, graphs=graphs)
        step()
    assert os.environ.get('MXNET_ENABLE_CUDA_GRAPHS') == before  # (set for hybridize only)
    gpu._torch_step(torch, model)()


def test_the_batch_1_prediction_runs_on_the_cpu(monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    for graphs in (False, True):
        assert gpu._gluon_infer(mx, graphs=graphs)().shape == (1, 1000)


def test_the_amp_steps_run_on_the_cpu(tmp_path):
    # (amp.init changes the operators for the whole process: a subprocess, as benchmarks.gpu times them)
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ('import torch, mxcompat as mx\nfrom benchmarks import gpu\ngpu.DEVICE = "cpu"\n'
            'gpu._gluon_amp_step(mx, "mlp")()\ngpu._torch_amp_step(torch, "mlp")()\nprint("ok")')
    r = subprocess.run([sys.executable, '-c', code], cwd=root, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0 and r.stdout.strip().endswith('ok'), r.stderr[-2000:]


def test_the_adam_steps_run_on_the_cpu(monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    gpu._gluon_step(mx, 'mlp', True, adam=True)()
    gpu._torch_step(torch, 'mlp', adam=True)()
