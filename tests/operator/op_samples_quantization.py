"""Samples for the int8 quantization operators (mxcompat/operator/quantization.py), for
tests/symbol/test_sym_vs_eager.py: importing this module adds them to ``op_samples.SAMPLES``. They are the cases of
tests/fixtures/operator/quantization/ (checked against MXNet 1.9.1 by tests/operator/test_quantization.py) that
MXNet runs, the first two of each operator."""
import json
import os

import numpy as np

from tests.operator import op_samples

_HERE = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'operator', 'quantization')

ADDED = []
with open(os.path.join(_HERE, 'quantization_cases.json')) as _f:
    _CASES = json.load(_f)
_GOLD = np.load(os.path.join(_HERE, 'quantization_goldens.npz'))
_BY_OP = {}
for _c in _CASES:
    if _c['error'] is None and len(_BY_OP.setdefault(_c['op'], [])) < 2:
        _BY_OP[_c['op']].append(({n: _GOLD['%s/in%d' % (_c['name'], i)] for i, n in enumerate(_c['inputs'])},
                                 dict(_c['attrs'])))
for _op, _samples in sorted(_BY_OP.items()):
    op_samples.add(_op, *_samples)
    ADDED.append(_op)
