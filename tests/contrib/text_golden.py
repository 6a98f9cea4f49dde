"""Shared by tests/contrib/test_text.py and tests/gluon/contrib/test_data_text.py: the scenarios of
tests/fixtures/text/text_scenarios.py and the facts real MXNet 1.9.1 gave for them (text.json, gen_text.py)."""
import importlib.util
import json
import math
import os

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'text'))
_spec = importlib.util.spec_from_file_location('text_scenarios', os.path.join(FIX, 'text_scenarios.py'))
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)
with open(os.path.join(FIX, 'text.json')) as _f:
    FACTS = json.load(_f)


def same(got, want, where=''):
    """Assert JSON-like ``got`` equals ``want``, floats to float32 precision (tuples compare as lists)."""
    if isinstance(want, float) or isinstance(got, float):
        assert isinstance(got, (int, float)) and math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-7), (where, got, want)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (where, got, want)
        for k in want:
            same(got[k], want[k], '%s/%s' % (where, k))
    elif isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, '%s[%d]' % (where, i))
    else:
        assert got == want, (where, got, want)
