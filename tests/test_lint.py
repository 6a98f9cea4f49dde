"""ruff over the repository with the project's configuration (pyproject.toml: pycodestyle, pyflakes and McCabe
complexity at 15, exemptions per line with their reason). Skipped where ruff is not installed (it comes with the
``dev`` extra)."""
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ruff_is_clean():
    if importlib.util.find_spec('ruff') is None:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    r = subprocess.run([sys.executable, '-m', 'ruff', 'check', '--output-format', 'concise', '.'], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:]
