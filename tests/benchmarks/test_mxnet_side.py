"""Every registered workload but the import time (the same code as mxcompat's with another module name, and two
MXNet imports are slow) runs once on tiny sizes under the real MXNet 1.9.1, in its own environment through the
runner's worker, when the oracle is installed. No timing assertions."""
import os

import pytest

from benchmarks import runner as R
from benchmarks import workloads as W

AREAS = [a for a in W.areas_of(W.load_all().values()) if a != 'import']


def _oracle_python():
    env = os.environ.get('MXNET_ORACLE') or os.path.join(os.path.expanduser('~'), '.mxnet-oracle')
    return os.path.join(env, 'bin', 'python')


@pytest.mark.slow
@pytest.mark.oracle
def test_every_workload_runs_on_real_mxnet():
    if not os.path.exists(_oracle_python()):
        pytest.skip('no oracle python at %s' % _oracle_python())
    with open(os.devnull, 'w') as quiet:
        results, hello = R.run(W.select(AREAS), ['mxnet'], 'tiny', 1, 1, _oracle_python(), log=quiet)
    assert hello['mxnet']['versions']['mxnet'] == '1.9.1'
    assert {r.workload.name: r.errors for r in results if r.errors} == {}
    assert all(r.times.get('mxnet') for r in results)
