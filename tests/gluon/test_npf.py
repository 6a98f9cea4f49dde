"""Gluon in NumPy mode: the ``F`` a ``hybrid_forward`` gets (mxcompat/gluon/_npf.py)."""
import os
import subprocess
import sys
import textwrap

import pytest

import mxcompat as mx
from mxcompat import np, npx
from mxcompat.gluon import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Probe(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(2)
        self.seen = []

    def hybrid_forward(self, F, x):
        self.seen.append((F.__name__, repr(F)))
        return F.npx.relu(self.dense(x))


def test_F_prints_as_the_module_it_stands_for():
    # MXNet 1.9.1 prints F as its module: "<module 'mxnet.ndarray' from '.../mxnet/ndarray/__init__.py'>", and
    # "<module 'mxnet.symbol' from ...>" when hybridized (D2L's hybridize section prints it)
    npx.set_np()
    try:
        net = _Probe()
        net.initialize()
        net(np.ones((1, 3)))
        net.hybridize()
        net(np.ones((1, 3)))
    finally:
        npx.reset_np()
    assert net.seen == [
        ('mxcompat.ndarray', "<module 'mxcompat.ndarray' from %r>" % mx.ndarray.__file__),
        ('mxcompat.symbol', "<module 'mxcompat.symbol' from %r>" % mx.symbol.__file__)]


@pytest.mark.slow  # (a fresh process)
def test_F_under_python_m_mxcompat_names_mxnet(tmp_path):
    script = tmp_path / 'f.py'
    script.write_text(textwrap.dedent('''
        from mxnet import np, npx
        from mxnet.gluon import nn
        npx.set_np()
        class Net(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                print(F.__name__, repr(F).split(' from ')[0], x)
                return x
        net = Net()
        net(np.ones((1,)))
        net.hybridize()
        net(np.ones((1,)))
    '''))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    r = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # MXNet 1.9.1's lines
    assert r.stdout.splitlines() == ["mxnet.ndarray <module 'mxnet.ndarray' [1.]",
                                     "mxnet.symbol <module 'mxnet.symbol' <_Symbol data>"]
