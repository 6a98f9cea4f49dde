"""Loads tests/fixtures/gluon_rnn (written by gen_gluon_rnn.py under real MXNet 1.9.1) and its scenario module."""
import importlib.util
import json
import os

import numpy as np

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'gluon_rnn'))

_spec = importlib.util.spec_from_file_location('rnn_scenarios', os.path.join(FIX, 'rnn_scenarios.py'))
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)

ARRAYS = dict(np.load(os.path.join(FIX, 'gluon_rnn.npz')))
FACTS = json.load(open(os.path.join(FIX, 'gluon_rnn.json')))


def expected(group, key):
    """{name: array} recorded by MXNet for one scenario."""
    lead = '%s/%s/' % (group, key)
    return {k[len(lead):]: v for k, v in ARRAYS.items() if k.startswith(lead)}


def compare(got, want, rtol=1e-4, atol=1e-5):
    assert sorted(got) == sorted(want)
    for name, ref in want.items():
        assert got[name].shape == ref.shape, name
        assert got[name].dtype == ref.dtype, name
        np.testing.assert_allclose(got[name], ref, rtol=rtol, atol=atol, err_msg=name)
