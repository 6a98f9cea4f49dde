"""Public-name coverage of mx.np, mx.np.linalg, mx.np.random and mx.npx: every name MXNet 1.9.1 has
(tests/fixtures/coverage/np_names.json, written by gen_np_coverage.py under real MXNet) is either provided or
listed in mxcompat/numpy/_gaps.py with its reason, where using it raises MXNetNotImplementedError naming it; and
mx.np's own functions take MXNet's parameters, in MXNet's order."""
import inspect
import json
import os

import pytest

import mxcompat as mx
from mxcompat.base import MXNetNotImplementedError
from mxcompat.numpy import fallback
from mxcompat.numpy._gaps import GAPS
from tests import _coverage

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, '..', 'fixtures', 'coverage', 'np_names.json')) as _f:
    _DATA = json.load(_f)
NAMES, SIGNATURES = _DATA['names'], _DATA['signatures']

# mx.np functions whose parameters knowingly differ from what MXNet 1.9.1 shows, with the reason
SIGNATURE_DIFFERENCES = {
    'set_printoptions': "NumPy's own function, as in MXNet (NumPy 2 names its parameters)",
}


def coverage():
    """{namespace: (provided, total)} and the overall figure."""
    return _coverage.coverage(NAMES, GAPS)


@pytest.mark.parametrize('ns', sorted(NAMES))
def test_every_mxnet_name_is_provided_or_a_listed_gap(ns):
    _coverage.check_namespace(ns, NAMES[ns], GAPS)


@pytest.mark.parametrize('ns', sorted(NAMES))
def test_provided_names_are_not_listed(ns):
    mod = _coverage.module(ns)
    for name in GAPS.get(ns, {}):
        with pytest.raises(MXNetNotImplementedError):
            getattr(mod, name)(None)


def test_gaps_list_only_names_mxnet_has():
    for ns, gaps in GAPS.items():
        assert not set(gaps) - set(NAMES[ns]), sorted(set(gaps) - set(NAMES[ns]))


def test_unknown_names_raise_attribute_error():
    assert not hasattr(mx.np, 'no_such_function')
    assert not hasattr(mx.np.linalg, 'no_such_function') and not hasattr(mx.np.random, 'no_such_function')


def _params(sig):
    """Parameter names, without ``*args``/``**kwargs`` (MXNet's generated operators take ``**kwargs``)."""
    return [p.split('=')[0] for p in sig if not p.startswith('*')]


@pytest.mark.parametrize('name', sorted(n for n in NAMES['np'] if SIGNATURES.get('np.' + n)
                                        and n not in fallback.FALLBACK and n not in GAPS['np']))
def test_mx_np_signatures(name):
    # MXNet's parameters come first, in its order (mxcompat may add trailing ones: ctx=, NumPy's ufunc keywords)
    if name in SIGNATURE_DIFFERENCES:
        pytest.skip(SIGNATURE_DIFFERENCES[name])
    ours = _params([str(p) for p in inspect.signature(getattr(mx.np, name)).parameters.values()])
    theirs = _params(SIGNATURES['np.' + name])
    assert ours[:len(theirs)] == theirs, (ours, theirs)


def test_coverage_figure():
    per, (provided, total) = coverage()
    assert total == sum(len(v) for v in NAMES.values())
    assert provided / total > 0.95, per


if __name__ == '__main__':
    per, (provided, total) = coverage()
    for ns in sorted(per):
        print('%-10s %d / %d' % (ns, *per[ns]))
    print('total      %d / %d (%.1f%%)' % (provided, total, 100.0 * provided / total))
