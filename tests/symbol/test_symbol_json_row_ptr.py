"""How many outputs each operator node keeps in its symbol JSON (``node_row_ptr``, hidden outputs included) and its
``list_outputs()``, against real MXNet 1.9.1 for every registry operator MXNet also has, with the attributes that
change the count (tests/fixtures/symbol_json/gen_row_ptr.py)."""
import importlib.util
import json
import os

import pytest

import mxcompat as mx
from mxcompat.operator import registry
from mxcompat.symbol import register

FIX = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'symbol_json')
_spec = importlib.util.spec_from_file_location('row_ptr_cases', os.path.join(FIX, 'row_ptr_cases.py'))
row_ptr_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(row_ptr_cases)
with open(os.path.join(FIX, 'row_ptr.json')) as _f:
    WANT = json.load(_f)

CASES = [c for c in WANT['cases'] if c[0] in registry.REGISTRY]
IDS = ['%s-%s' % (c[0], json.dumps(c[1], sort_keys=True, separators=(',', ':'))) for c in CASES]
BUILT = sorted(k for k, v in WANT['built'].items() if v[0] in registry.REGISTRY)

# Registry operators the sweep has no node of, because MXNet 1.9.1 cannot build one (each with why).
UNRECORDED = {
    # "Not enough argument to call operator": MXNet's symbol API cannot compose these updates
    **{op: 'not composable' for op in (
        'sgd_update', 'sgd_mom_update', 'nag_mom_update', 'mp_sgd_update', 'mp_sgd_mom_update',
        'mp_nag_mom_update', 'signsgd_update', 'signum_update', 'adam_update', 'rmsprop_update',
        'rmspropalex_update', 'ftrl_update', 'ftml_update', '_contrib_group_adagrad_update', '_adamw_update',
        '_mp_adamw_update', 'lamb_update_phase1', 'lamb_update_phase2', 'mp_lamb_update_phase1',
        'mp_lamb_update_phase2', 'fill_element_0index')},
    # MXNet's parameter check fails on its own attributes ("The stored type mismatch")
    'multi_sgd_mom_update': 'type mismatch', 'preloaded_multi_sgd_mom_update': 'type mismatch',
    '_npi_Custom': 'no symbol front end in MXNet',
    # MXNet's samplers take required parameters the sweep does not give; tests/symbol/test_numpy_random.py checks
    # their nodes' outputs against MXNet's
    **{op: 'required parameters' for op in (
        '_npi_uniform', '_npi_normal', '_npi_gamma', '_npi_logistic', '_npi_gumbel', '_npi_bernoulli', '_npi_choice',
        '_npi_uniform_n', '_npi_normal_n')},
    'reset_arrays': 'crashes MXNet',
    # quantized operators with required parameters: their nodes (inputs, outputs) are compared with MXNet's graphs
    # in tests/contrib/test_quantize_graph.py
    **{op: 'required parameters' for op in (
        '_contrib_quantized_act', '_contrib_quantized_conv', '_contrib_quantized_embedding',
        '_contrib_quantized_fully_connected', '_contrib_quantized_pooling')},
    # a fused node needs its subgraph (MXNet's own call fails without one): tests/operator/test_sg_mkldnn.py compares
    # its outputs, names and inferred shapes with MXNet's on loaded graphs
    '_sg_mkldnn_conv': 'needs a subgraph', '_sg_mkldnn_fully_connected': 'needs a subgraph',
    # (tests/operator/test_sg_mkldnn_selfatt.py: their outputs and names against MXNet's, float32 and quantized)
    '_sg_mkldnn_selfatt_qk': 'needs a subgraph', '_sg_mkldnn_selfatt_valatt': 'needs a subgraph',
}


def _function(op):
    return register.make_function(registry.get(op), op)


@pytest.mark.parametrize('case', CASES, ids=IDS)
def test_node_row_ptr_and_outputs(case):
    op, attrs, n_in, total, outputs = case
    got_total, got_outputs = row_ptr_cases.build(mx, _function(op), op, attrs, n_in)
    assert got_total == total, 'node_row_ptr counts %d outputs, MXNet %d' % (got_total, total)
    assert got_outputs == outputs


@pytest.mark.parametrize('label', BUILT)
def test_built_nodes(label):
    op, total, outputs = WANT['built'][label]
    (build,) = [b for lab, b in row_ptr_cases.BUILDERS[op] if lab == label]
    with mx.name.NameManager():
        got_total, got_outputs = row_ptr_cases.node_outputs(build(mx))
    assert got_total == total
    assert got_outputs == outputs


def test_every_registry_operator_is_swept():
    mxnet_ops = ({c[0] for c in WANT['cases']} | {v[0] for v in WANT['built'].values()} | set(WANT['not_built'])
                 | row_ptr_cases.CRASHES)
    recorded = {c[0] for c in CASES} | {WANT['built'][k][0] for k in BUILT}
    missing = {op for op in registry.REGISTRY if op in mxnet_ops and op not in recorded}
    assert missing == set(UNRECORDED)
