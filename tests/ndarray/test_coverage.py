"""Public-name coverage of mx.nd: every name MXNet 1.9.1 has (tests/fixtures/coverage/nd_names.json, written by
gen_coverage.py under real MXNet) is either provided or listed in mxcompat/ndarray/_gaps.py with its reason, where
using it raises MXNetNotImplementedError naming it."""
import json
import os

import pytest

import mxcompat as mx
from mxcompat.ndarray._gaps import GAPS
from tests import _coverage

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, '..', 'fixtures', 'coverage', 'nd_names.json')) as _f:
    NAMES = json.load(_f)['names']


def coverage():
    """{namespace: (provided, total)} and the overall figure, as the README reports it."""
    return _coverage.coverage(NAMES, GAPS)


@pytest.mark.parametrize('ns', sorted(NAMES))
def test_every_mxnet_name_is_provided_or_a_listed_gap(ns):
    _coverage.check_namespace(ns, NAMES[ns], GAPS)


def test_gaps_list_only_names_mxnet_has():
    for ns, gaps in GAPS.items():
        assert not set(gaps) - set(NAMES[ns]), sorted(set(gaps) - set(NAMES[ns]))


def test_unknown_names_still_raise_attribute_error():
    assert not hasattr(mx.nd, 'no_such_function') and not hasattr(mx.nd.contrib, 'no_such_function')


def test_coverage_figure():
    per, (provided, total) = coverage()
    assert total == sum(len(v) for v in NAMES.values())
    assert provided / total > 0.9, per  # the README quotes the exact figure


if __name__ == '__main__':
    per, (provided, total) = coverage()
    for ns in sorted(per):
        print('%-12s %d / %d' % (ns, *per[ns]))
    print('mx.nd total  %d / %d (%.1f%%)' % (provided, total, 100.0 * provided / total))
