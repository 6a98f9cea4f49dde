"""Every registered benchmark workload runs once on tiny sizes, on mxcompat and on its torch twin, so none can rot.
No timing assertions."""
import os
import subprocess
import sys

import pytest

from benchmarks import workloads as W

ALL = W.load_all()


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('name', list(ALL))
def test_runs_once_on_tiny(name, side):
    made = W.instantiate(ALL[name], side, 'tiny')
    assert made is not None, '%s has no %s version' % (name, side)
    step, sync = made
    step()
    sync()


def test_registry_contract():
    assert set(W.areas_of(ALL.values())) >= {'tiny', 'ops', 'symbol', 'save_load', 'import', 'optimizer', 'module',
                                            'gluon'}
    for name, w in ALL.items():
        assert name == '%s:%s' % (w.area, name.split(':', 1)[1])
        assert w.twin is not None, name
        assert w.doc, name + ' needs a one-line description'
        assert w.target is None or w.limit(1.0) == pytest.approx(w.target + w.slack)
    with pytest.raises(ValueError, match='registered twice'):
        W.workload('tiny', name='add')(lambda mx, size: None)
    with pytest.raises(ValueError, match='unknown area'):
        W.select(['nope'])
    assert [w.name for w in W.select(['ops'], ['dot'])] == ['ops:dot']


def test_optimizer_shapes_come_from_bench_optimizer():
    shapes = W.resnet18_shapes()
    assert len(shapes) == 62 and shapes[0] == (64, 3, 7, 7) and shapes[-1] == (1000,)


def test_importable_without_torch_or_mxcompat():
    # the real MXNet's environment has neither: the workers there import these modules
    code = ("import sys; sys.modules['torch'] = None; sys.modules['mxcompat'] = None; "
            "import benchmarks, benchmarks.workloads, benchmarks.runner, benchmarks.ratios; "
            "benchmarks.workloads.load_all()")
    subprocess.run([sys.executable, '-c', code], cwd=W.ROOT, check=True,
                   env=dict(os.environ, PYTHONPATH=W.ROOT))
