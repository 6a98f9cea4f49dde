"""compat_examples/ndarray_tour.py prints exactly what real MXNet 1.9.1 printed (fixture from gen_outputs.sh)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'compat_examples')


@pytest.mark.parametrize('name', ['ndarray_tour', 'module_mlp', 'matrix_factorization_viz', 'conv_summary',
                                  'bucketing_lstm_free'])
def test_example_prints_what_mxnet_prints(name):
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, '-m', 'mxcompat', os.path.join('compat_examples', name + '.py')], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    want = open(os.path.join(FIX, name + '.out')).read()
    assert r.stdout == want
