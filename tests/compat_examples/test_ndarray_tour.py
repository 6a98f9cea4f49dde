"""compat_examples/ndarray_tour.py prints exactly what real MXNet 1.9.1 printed (fixture from gen_outputs.sh)."""

import pytest
from tests.conftest import example_output


@pytest.mark.parametrize('name', ['ndarray_tour', 'module_mlp', 'matrix_factorization_viz', 'conv_summary',
                                  'bucketing_lstm_free'])
def test_example_prints_what_mxnet_prints(name):
    got, want = example_output(name)
    assert got == want
