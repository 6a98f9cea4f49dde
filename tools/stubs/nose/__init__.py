"""The parts of the retired ``nose`` package that MXNet 1.9's own tests import; tools/upstream.py and
tools/gpu_bundle.sh put this folder on their ``sys.path``."""
import sys
from unittest import SkipTest  # noqa: F401


def runmodule():
    """``python test_x.py`` (the tests' ``__main__`` block): run the file with pytest instead."""
    import pytest
    raise SystemExit(pytest.main([sys.argv[0]]))
