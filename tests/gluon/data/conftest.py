"""Run each test with cpu(0) as the default context: the goldens record MXNet's default-context batches, and a test
elsewhere may leave another default behind."""
import pytest

import mxcompat as mx


@pytest.fixture(autouse=True)
def _cpu0_default():
    with mx.Context('cpu', 0):
        yield
