"""Samples for the operators of mxcompat/operator/extra_ops.py, contrib_ops.py and detection_ops.py, for
tests/symbol/test_sym_vs_eager.py: importing this module adds them to ``op_samples.SAMPLES`` (and marks the ops that
update inputs in place as STATEFUL). They are the cases of tests/fixtures/ops_extra/cases_ops_extra.py (checked
against MXNet 1.9.1 by tests/operator/test_extra_ops.py), converted to the op_samples format.
"""
import importlib.util
import os

import numpy as np

import mxcompat as mx
from mxcompat.operator.registry import REGISTRY
from tests.operator import op_samples

_spec = importlib.util.spec_from_file_location(
    'cases_ops_extra', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'ops_extra', 'cases_ops_extra.py'))
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)

# ops that write some inputs in place (states, zeroed arrays, moving statistics)
_STATEFUL = {'reset_arrays', 'lamb_update_phase1', 'mp_lamb_update_phase1', 'IdentityAttachKLSparseReg'}


def _sample(case):
    key, path, inputs, kwargs, grads, train = case
    attrs = {k: v for k, v in kwargs.items() if not k.startswith('_')}
    fn = _cases._resolve(mx.nd, path[4:] if path.startswith('sym:') else path)
    op = fn._op
    if op.variadic:
        return op.name, (list(inputs), attrs)
    names = op.input_names(op.parse_attrs(dict(attrs)))
    return op.name, ({n: np.asarray(a) for n, a in zip(names, inputs)}, attrs)


# listed in test_sym_vs_eager.NO_SAMPLE instead: a data-dependent output shape, and an op without outputs
_UNSAMPLED = {'_contrib_boolean_mask', 'reset_arrays'}

ADDED = []
for _case in _cases.cases():
    _name, _s = _sample(_case)
    if REGISTRY[_name].name != _name or _name in _UNSAMPLED:
        continue
    op_samples.add(_name, _s)
    ADDED.append(_name)
op_samples.STATEFUL |= {n for n in ADDED if n.endswith('_update') or n.startswith(('multi_', 'preloaded_', 'mp_'))}
op_samples.STATEFUL |= _STATEFUL & set(ADDED)

# ops with no MXNet golden (MXNet 1.9.1 has no CPU kernel or fails on CPU); test_extra_ops.py checks them with numpy
_f = op_samples.f
op_samples.add('_contrib_fft', ({'data': _f(2, 4)}, {}))
op_samples.add('_contrib_ifft', ({'data': _f(2, 8)}, {}))
op_samples.add('_contrib_count_sketch', ({'data': _f(2, 5), 'h': np.array([[0, 2, 1, 2, 0]], np.float32),
                                          's': np.array([[1, -1, 1, 1, -1]], np.float32)}, {'out_dim': 3}))
op_samples.add('_contrib_edge_id', ({'data': np.array([[0, 1], [2, 0]], np.float32),
                                     'u': np.array([0, 1, 1], np.float32), 'v': np.array([1, 0, 1], np.float32)}, {}))
op_samples.add('_contrib_group_adagrad_update', ({'weight': _f(3, 4), 'grad': _f(3, 4),
                                                  'history': op_samples.pos(3, 1)}, {'lr': 0.1}))
op_samples.add('amp_multicast', ([_f(2).astype(np.float16), _f(3)], {'num_outputs': 2}),
               ([_f(2).astype(np.float16), _f(3)], {'num_outputs': 2, 'cast_narrow': True}))
ADDED += ['_contrib_fft', '_contrib_ifft', '_contrib_count_sketch', '_contrib_edge_id',
          '_contrib_group_adagrad_update', 'amp_multicast']
op_samples.STATEFUL.add('_contrib_group_adagrad_update')
