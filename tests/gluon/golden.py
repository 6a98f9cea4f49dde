"""Loads the Gluon fixtures (tests/fixtures/gluon, written by gen_gluon.py under real MXNet 1.9.1) and runs the
shared scenarios under mxcompat."""
import importlib.util
import json
import os

import numpy as np

import mxcompat as mx

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'gluon'))
ROOT = os.path.abspath(os.path.join(FIX, '..', '..', '..'))


def load_module(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(FIX, name + '.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


scenarios = load_module('gluon_scenarios')
SCENARIO_GOLD = json.load(open(os.path.join(FIX, 'scenarios.json')))


def scenario_names(*groups):
    return [n for n in scenarios.SCENARIOS if n.split('.')[0] in groups]


def check_scenario(name, tmp_path, known=None):
    """Run scenario ``name`` and compare with MXNet's outcome. ``known``: {name: (reason, check(outcome))} for
    scenarios where mxcompat differs on purpose or by a gap outside gluon; their outcome must still differ."""
    got = scenarios.run(mx, np, name, str(tmp_path))
    want = SCENARIO_GOLD[name]
    if known and name in known:
        reason, check = known[name]
        assert scenarios.mismatch(got, want), 'known difference fixed (%s): remove it from the table' % reason
        assert check(got), got
        return
    m = scenarios.mismatch(got, want)
    assert m is None, m


def path(name):
    return os.path.join(FIX, name)
