"""mx.test_utils as a namespace: the star import gives MXNet 1.9.1's module-level names (golden:
tests/fixtures/test_utils/star_names.json), the lazily resolved ones included."""
import json
import os
import subprocess
import sys

import numpy as np

import mxcompat as mx
from mxcompat import test_utils as tu

STAR = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'test_utils',
                                   'star_names.json')))


def _star():
    ns = {}
    exec('from mxcompat.test_utils import *', ns)
    ns.pop('__builtins__')
    return ns


def test_star_import_gives_mxnet_module_names():
    ns = _star()
    assert sorted(set(STAR) - set(ns)) == []
    # mxcompat's own additions; no submodule of the package and no private name comes along
    assert sorted(set(ns) - set(STAR)) == ['importlib', 'itertools', 'torch']
    assert ns['array'] is mx.nd.array and ns['mx'] is mx and ns['npt'] is np.testing and ns['rnd'] is np.random
    assert ns['assert_almost_equal'] is tu.compare.assert_almost_equal


def test_lazy_names():
    ns = _star()
    assert ns['Symbol'] is mx.sym.Symbol and ns['np_symbol'] is mx.sym.np._Symbol
    assert issubclass(ns['DummyIter'], mx.io.DataIter)
    try:
        import scipy.stats as ss
    except ImportError:  # scipy is optional: then ss is None, as the names of missing packages are
        ss = None
    assert ns['ss'] is ss


def test_dummy_iter_repeats_the_first_batch():
    it = mx.io.NDArrayIter(np.arange(12, dtype=np.float32).reshape(6, 2), batch_size=2)
    dummy = tu.DummyIter(it)
    assert dummy.batch_size == 2 and dummy.provide_data == it.provide_data
    first = dummy.next()
    assert iter(dummy) is dummy and dummy.next() is first and next(dummy) is first
    assert first.data[0].asnumpy().tolist() == [[0, 1], [2, 3]]


def test_mxnet_alias_names_the_same_modules(tmp_path):
    script = tmp_path / 'alias.py'
    script.write_text('import mxcompat, mxnet.test_utils, mxnet.test_utils.compare as c\n'
                      'assert mxnet.test_utils is mxcompat.test_utils and c is mxcompat.test_utils.compare\n')
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get('PYTHONPATH', ''))
    r = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
