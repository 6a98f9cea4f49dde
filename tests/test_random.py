"""``mx.random`` (mxcompat/random.py): seeding."""
import os
import subprocess
import sys

import pytest
import torch

import mxcompat as mx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# an RNN layer's dropout draws from torch's generator; under MXNet 1.9.1 two fresh processes print the same numbers
_SCRIPT = '''
import torch
import mxcompat as mx
from mxcompat import autograd
from mxcompat.gluon import rnn
first = mx.nd.random.uniform().asscalar()
net = rnn.GRU(4, num_layers=2, dropout=0.5)
net.initialize()
with autograd.record():
    y = net(mx.nd.ones((3, 2, 5)))
print(torch.initial_seed(), repr(float(y.sum().asscalar())), repr(float(first)))
'''


@pytest.mark.slow  # (fresh processes)
def test_fresh_processes_repeat_their_numbers():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    runs = [subprocess.run([sys.executable, '-c', _SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    seed, _, first_uniform = runs[0].stdout.split()
    assert runs[0].stdout == runs[1].stdout
    assert seed == '0'
    assert first_uniform == '0.54881352186203'  # MXNet 1.9.1's first mx.nd.random.uniform() in a fresh process


def test_seed_reseeds_torch():
    mx.random.seed(7)
    a = torch.rand(3)
    mx.random.seed(7)
    assert torch.equal(a, torch.rand(3)) and torch.initial_seed() == 7
