"""MXNet 1.9.1 names of ``mx.np``, ``mx.np.linalg``, ``mx.np.random`` and ``mx.npx`` that mxcompat does not
provide, each with the reason.

Using one raises ``MXNetNotImplementedError`` naming it (the names MXNet hands to official NumPy are stubs made by
``fallback``; the others come from the module's ``__getattr__``). tests/numpy/test_coverage.py checks this table
against the names real MXNet 1.9.1 has (tests/fixtures/coverage/np_names.json).
"""
import numpy as _onp

from ..ndarray import _gaps as _nd_gaps

# MXNet hands these to official NumPy, which removed them in 1.20 (NEP 32): they fail in MXNet 1.9.1 as well
FINANCIAL = ('mirr', 'npv', 'ppmt', 'pv', 'rate')
_FINANCIAL = 'NumPy 1.20 removed it (NEP 32), so it fails in MXNet 1.9.1 too; the numpy_financial package has it'

GAPS = {
    'np': {n: _FINANCIAL for n in FINANCIAL},
    'np.linalg': {},
    'np.random': {},
    'npx': {},
}


def missing_in_numpy(name, replaced):
    """The reason ``mx.np.<name>`` (one of MXNet's NumPy fallbacks) is missing from the installed NumPy, or None
    where NumPy has it or ``replaced`` (a NumPy 2 replacement mxcompat computes it with) is given."""
    if name in GAPS['np']:
        return GAPS['np'][name]
    if hasattr(_onp, name) or replaced:
        return None
    return 'NumPy %s has no %s' % (_onp.__version__, name)


def module_getattr(namespace, module_name):
    """A module ``__getattr__`` giving the stubs of ``namespace``'s gaps (AttributeError for anything else)."""
    return _nd_gaps.module_getattr(namespace, module_name, GAPS)
