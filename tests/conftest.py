"""Test-wide helpers. Tests marked `oracle` run only where the real MXNet 1.9.1 is already installed
(tools/oracle/setup.sh puts it in $MXNET_ORACLE or ~/.mxnet-oracle), or where MXCOMPAT_MXRUN names a runner."""
import os
import subprocess
import sys

import pytest
import torch

import mxcompat as mx
from mxcompat.kernels import _native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def oracle_runner():
    """The command that runs a script under real MXNet 1.9.1, or None when it is not installed here."""
    explicit = os.environ.get('MXCOMPAT_MXRUN')
    if explicit:
        return explicit if os.path.exists(explicit) else None
    env = os.environ.get('MXNET_ORACLE') or os.path.join(os.path.expanduser('~'), '.mxnet-oracle')
    mxrun = os.path.join(ROOT, 'tools', 'oracle', 'mxrun')
    if os.path.exists(os.path.join(env, 'bin', 'python')) and os.path.exists(mxrun):
        return mxrun
    return None


def example_output(name):
    """(what ``python -m mxcompat compat_examples/<name>.py`` prints, what real MXNet 1.9.1 printed for it:
    tests/fixtures/compat_examples/<name>.out written by gen_outputs.sh). Fails when the script fails."""
    r = subprocess.run([sys.executable, '-m', 'mxcompat', os.path.join('compat_examples', name + '.py')], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(ROOT, 'tests', 'fixtures', 'compat_examples', name + '.out')) as f:
        return r.stdout, f.read()


def run_both(script_text, tmp_path, name='script.py'):
    """(mxcompat's, real MXNet 1.9.1's) completed processes of one script run under each (an ``oracle`` test)."""
    script = tmp_path / name
    script.write_text(script_text)
    ours = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    theirs = subprocess.run([oracle_runner(), str(script)], capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0, ours.stderr
    assert theirs.returncode == 0, theirs.stderr
    return ours, theirs


def same_on_devices(run, ctx, rtol=1e-4, atol=1e-5):
    """``run(ctx)`` (a dict of arrays), with cuDNN's TF32 off; on a GPU also ``run(cpu(0))``, which it must equal."""
    import numpy as np
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):  # (cuDNN's TF32 rounds at 1e-3)
        got = run(ctx)
    if ctx.device_type == 'gpu':
        want = run(mx.cpu())
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=atol, err_msg=k)
    return got


@pytest.fixture(autouse=True)
def _raise_deferred_errors():
    """Each test ends with ``waitall`` (as MXNet's own tests do through ``with_seed``), so an operator error one
    test left unread cannot surface in the next one through the shared random generator."""
    yield
    mx.nd.waitall()


@pytest.fixture(autouse=True)
def _legacy_semantics_after():
    """Each test ends with MXNet's legacy semantics (NumPy shape, array and default-dtype switches off), so a test
    that turned them on (``npx.set_np()``) cannot change the next one's shapes and arrays."""
    yield
    if mx.util.is_np_shape() or mx.util.is_np_array() or mx.util.is_np_default_dtype():
        mx.util.reset_np()


@pytest.fixture
def np_mode():
    """NumPy shape and array semantics on for the test (``npx.set_np()``; ``_legacy_semantics_after`` turns them off
    again)."""
    mx.npx.set_np()
    yield


@pytest.fixture(params=['compiled', 'numpy'])
def random_engines(request, monkeypatch):
    """MXNet's CPU streams drawn by the compiled generator (kernels._native; skipped where it cannot be built), then
    by the numpy code: the same values are expected of both."""
    if _native.library() is None:
        if request.param == 'compiled':
            pytest.skip('the compiled generator is not available here: %s' % _native.why_not())
    elif request.param == 'numpy':
        monkeypatch.setitem(_native._STATE, 'lib', None)
        monkeypatch.setenv('MXCOMPAT_NATIVE', '0')  # (and in the processes a test starts)
    return request.param


# One test body on every device there is: ``ctx`` is cpu(0), then gpu(0) where CUDA exists (skipped elsewhere).
@pytest.fixture(params=['cpu', pytest.param('gpu', marks=pytest.mark.gpu)])
def ctx(request):
    return mx.cpu(0) if request.param == 'cpu' else mx.gpu(0)


def pytest_collection_modifyitems(config, items):
    if not torch.cuda.is_available():
        no_gpu = pytest.mark.skip(reason='needs CUDA (torch.cuda.is_available() is False)')
        for item in items:
            if 'gpu' in item.keywords:
                item.add_marker(no_gpu)
    if oracle_runner() is None:
        skip = pytest.mark.skip(reason='real MXNet 1.9.1 is not installed (run tools/oracle/setup.sh)')
        for item in items:
            if 'oracle' in item.keywords:
                item.add_marker(skip)
