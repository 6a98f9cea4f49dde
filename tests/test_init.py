"""The package import (mxcompat/__init__.py)."""
import subprocess
import sys


def _run(code):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300, check=True).stdout


def test_import_leaves_garbage_collection_as_it_found_it():
    # collection is paused while the package loads (it made the import 0.1-0.2 s slower) and then restored
    assert _run('import gc, mxcompat; print(gc.isenabled())').strip() == 'True'
    assert _run('import gc; gc.disable(); import mxcompat; print(gc.isenabled())').strip() == 'False'
    assert _run('import mxcompat; print([k for k in vars(mxcompat) if "gc" in k])').strip() == '[]'  # no leftovers
