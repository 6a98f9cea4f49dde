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
