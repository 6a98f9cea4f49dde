"""Checks shared by the public-name coverage tests (tests/ndarray/test_coverage.py, tests/numpy/test_coverage.py):
every name MXNet 1.9.1 has is provided, or listed as a gap whose use raises MXNetNotImplementedError naming it."""
import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError


def module(ns):
    """``mx.<ns>`` (a dotted namespace such as 'nd.contrib')."""
    m = mx
    for part in ns.split('.'):
        m = getattr(m, part)
    return m


def coverage(names, gaps):
    """{namespace: (provided, total)} and the overall (provided, total)."""
    per = {ns: (sum(n not in gaps.get(ns, {}) for n in listed), len(listed)) for ns, listed in names.items()}
    return per, (sum(p for p, _ in per.values()), sum(t for _, t in per.values()))


def check_namespace(ns, names, gaps):
    """Every one of ``names`` exists in ``mx.<ns>`` and is callable; each listed gap raises, naming itself."""
    mod = module(ns)
    listed = gaps.get(ns, {})
    for name in names:
        obj = getattr(mod, name)  # never AttributeError: provided, or a stub for a listed gap
        assert callable(obj), 'mx.%s.%s' % (ns, name)
        if name in listed:
            with pytest.raises(MXNetNotImplementedError, match=r'mx\.%s\.%s' % (ns.replace('.', r'\.'), name)):
                obj(None)
