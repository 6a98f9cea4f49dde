"""Runs tests/fixtures/module/module_scenarios.py on mxcompat and compares with what MXNet 1.9.1 gave
(tests/fixtures/module/module.json + module.npz, written by gen_module.py)."""
import functools
import json
import os
import sys

import numpy as np

import mxcompat as mx

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'module')
sys.path.insert(0, FIX)
import module_scenarios  # noqa: E402

_JSON = json.load(open(os.path.join(FIX, 'module.json')))
_NPZ = np.load(os.path.join(FIX, 'module.npz'))


@functools.lru_cache(maxsize=None)
def run(name):
    """This scenario's result on mxcompat (computed once per test session)."""
    return module_scenarios.ALL[name](mx)


def gold_json(name):
    return _JSON[name]


def gold_arrays(name):
    prefix = name + '__'
    return {k[len(prefix):]: _NPZ[k] for k in _NPZ.files if k.startswith(prefix)}


def assert_arrays_match(name, rtol=1e-4, atol=1e-5):
    """Every array the scenario produced equals MXNet's (same keys, shapes and dtypes, close values)."""
    ours, gold = run(name)['arrays'], gold_arrays(name)
    assert sorted(ours) == sorted(gold)
    for key, want in gold.items():
        got = np.asarray(ours[key])
        assert got.shape == want.shape, (key, got.shape, want.shape)
        assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=key)


def approx_equal(a, b, rel=1e-4):
    """Structural equality of JSON values, with floats compared to ``rel``."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            abs(a - b) <= rel * max(1.0, abs(a), abs(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(approx_equal(x, y, rel) for x, y in zip(a, b))
    return a == b


def as_json(value):
    return json.loads(json.dumps(value))


def generator_functions(directory, filename):
    """The definitions of a golden generator in tests/fixtures/<directory> (its text up to ``cases = {}``),
    run here on mxcompat under the ``mxnet`` alias."""
    mx.install_alias(force=True)
    path = os.path.join(os.path.dirname(FIX), directory, filename)
    scope = {}
    exec(compile(open(path).read().split('\ncases = {}')[0], filename, 'exec'), scope)  # noqa: S102
    return scope
