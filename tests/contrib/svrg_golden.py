"""Runs tests/fixtures/svrg/svrg_scenarios.py on mxcompat and compares with what MXNet 1.9.1 gave
(tests/fixtures/svrg/svrg.json + svrg.npz, written by gen_svrg.py)."""
import functools
import json
import os
import sys

import numpy as np

import mxcompat as mx

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'svrg')
sys.path.insert(0, FIX)
import svrg_scenarios  # noqa: E402

with open(os.path.join(FIX, 'svrg.json')) as _f:
    _JSON = json.load(_f)
_NPZ = np.load(os.path.join(FIX, 'svrg.npz'))


@functools.lru_cache(maxsize=None)
def run(name):
    """This scenario's result on mxcompat (computed once per test session)."""
    return svrg_scenarios.ALL[name](mx)


def gold_json(name):
    return _JSON[name]


def assert_arrays_match(name, rtol=1e-5, atol=1e-5):
    """Every array the scenario produced equals MXNet's (same keys and shapes, close values)."""
    prefix = name + '__'
    gold = {k[len(prefix):]: _NPZ[k] for k in _NPZ.files if k.startswith(prefix)}
    ours = run(name)['arrays']
    assert sorted(ours) == sorted(gold)
    for key, want in gold.items():
        got = np.asarray(ours[key])
        assert got.shape == want.shape, (key, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=key)
