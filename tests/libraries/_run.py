"""Runs a script using a library written for MXNet as a user would, ``python -m mxcompat script.py``, where that
library is installed (the ``libraries`` extra); tests using it are skipped otherwise."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def needs(*modules):
    """Skips the calling test unless every module in ``modules`` can be found (nothing is imported here)."""
    for name in modules:
        if importlib.util.find_spec(name) is None:
            pytest.skip('%s is not installed (pip install -e .[libraries])' % name)


def run_script(tmp_path, text, env=None):
    """stdout of ``python -m mxcompat`` running ``text``; fails with its stderr when it fails."""
    script = tmp_path / 'use_library.py'
    script.write_text(textwrap.dedent(text))
    full_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''), MPLBACKEND='Agg')
    full_env.update(env or {})
    r = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], cwd=str(tmp_path), env=full_env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    return r.stdout
