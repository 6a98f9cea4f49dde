"""compat_examples/kvstore_tour.py prints exactly what real MXNet 1.9.1 printed
(tests/fixtures/compat_examples/kvstore_tour.out, written by tests/fixtures/compat_examples/gen_outputs.sh)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_kvstore_tour_prints_what_mxnet_prints():
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, '-m', 'mxcompat', os.path.join('compat_examples', 'kvstore_tour.py')],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(ROOT, 'tests', 'fixtures', 'compat_examples', 'kvstore_tour.out')) as f:
        assert r.stdout == f.read()
