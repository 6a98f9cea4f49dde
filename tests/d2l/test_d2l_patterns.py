"""D2L-style NumPy-mode usage (the book's Module / DataModule / Trainer pattern, scratch models with attached
gradients, Gluon layers on np arrays) gives MXNet 1.9.1's values: tests/fixtures/d2l/d2l_patterns.json, written by
gen_d2l_patterns.py under real MXNet from the scenarios in d2l_patterns_cases.py."""
import json
import os

import numpy as onp
import pytest

import mxcompat as mx
from tests._fixtures import FIXTURES, load_generator

CASES = load_generator('d2l', 'd2l_patterns_cases.py')
with open(os.path.join(FIXTURES, 'd2l', 'd2l_patterns.json')) as f:
    GOLD = json.load(f)['cases']


def _close(got, want, path=''):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], '%s.%s' % (path, k))
    elif isinstance(want, list) and want and isinstance(want[0], float):
        onp.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=path)
    elif isinstance(want, float):
        assert abs(got - want) <= 1e-5 + 1e-4 * abs(want), (path, got, want)
    else:
        assert got == want, (path, got, want)


@pytest.mark.parametrize('name', sorted(CASES.CASES))
def test_d2l_pattern_matches_mxnet(name, np_mode):
    _close(CASES.CASES[name](mx), GOLD[name], name)
