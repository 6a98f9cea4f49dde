"""compat_examples/kvstore_tour.py prints exactly what real MXNet 1.9.1 printed
(tests/fixtures/compat_examples/kvstore_tour.out, written by tests/fixtures/compat_examples/gen_outputs.sh)."""
from tests.conftest import example_output


def test_kvstore_tour_prints_what_mxnet_prints():
    got, want = example_output('kvstore_tour')
    assert got == want
