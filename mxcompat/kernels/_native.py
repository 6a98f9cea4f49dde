"""MXNet's parallel CPU generator compiled: ``native/mt19937.c`` built with the machine's C compiler on first use
(about half a second, once: the library is kept in ``$MXCOMPAT_CACHE_DIR``, by default ``~/.cache/mxcompat``) and
loaded with ctypes. It draws the same numbers as the numpy code of ``operator._mt19937`` (the engines' states are
shared), three to ten times faster, and lets other threads run meanwhile.

Where there is no C compiler, the build fails, or ``MXCOMPAT_NATIVE=0`` is set, :func:`library` is None and the
numpy code draws everything. The normal sampler calls the C library's ``logf``, as MXNet does: it is used only on
glibc, whose ``logf`` the numpy path reproduces (``kernels._libm``); elsewhere the numpy path keeps glibc's values.
"""
import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'native', 'mt19937.c')
# every float operation rounded on its own (no fused multiply-adds), as MXNet's x86-64 build computes
_FLAGS = ['-O3', '-fPIC', '-shared', '-ffp-contract=off', '-fno-fast-math', '-fno-math-errno']
_BUILD_SECONDS = 120
_LOCK = threading.Lock()
_STATE = {}  # 'lib': the loaded library or None, once looked for; 'why': the reason when None


def _compiler():
    """The C compiler: $CC, else the one Python was built with, else ``cc``; None when none is on PATH."""
    for cand in (os.environ.get('CC'), (sysconfig.get_config_var('CC') or '').split()[:1], 'cc', 'gcc'):
        name = cand[0] if isinstance(cand, list) and cand else cand
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def cache_dir():
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.environ.get('MXCOMPAT_CACHE_DIR') or os.path.join(base, 'mxcompat')


def _build(cc):
    """The path of the compiled library, building it when absent (written to a temporary name and moved into place:
    processes building at once each finish with a whole file)."""
    with open(_SOURCE, 'rb') as f:
        source = f.read()
    key = hashlib.sha256(b'\0'.join([source, ' '.join(_FLAGS).encode(), cc.encode(), platform.machine().encode(),
                                     sys.platform.encode()])).hexdigest()[:16]
    folder = cache_dir()
    path = os.path.join(folder, 'mt19937-%s%s' % (key, '.dll' if sys.platform == 'win32' else '.so'))
    if os.path.exists(path):
        return path
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix='.mt19937-', suffix='.so', dir=folder)
    os.close(fd)
    try:
        subprocess.run([cc] + _FLAGS + ['-o', tmp, _SOURCE, '-lm'], check=True, capture_output=True,
                       timeout=_BUILD_SECONDS)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def _load():
    if os.environ.get('MXCOMPAT_NATIVE', '1').strip().lower() in ('0', 'false', 'no', 'off'):
        return None, 'MXCOMPAT_NATIVE is off'
    cc = _compiler()
    if cc is None:
        return None, 'no C compiler found'
    try:
        lib = ctypes.CDLL(_build(cc))
    except (OSError, subprocess.SubprocessError) as e:
        detail = getattr(e, 'stderr', b'') or b''
        return None, 'building %s failed: %s %s' % (_SOURCE, e, detail.decode(errors='replace')[-500:])
    ptr, i64, dbl, cint = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_int
    lib.mx_fill.restype = None
    lib.mx_fill.argtypes = [ptr, ptr, ptr, i64, i64, ptr, cint, dbl, cint, dbl, cint]
    for name in ('mx_single_uniform_f32', 'mx_single_normal_f32'):
        getattr(lib, name).restype = None
        getattr(lib, name).argtypes = [ptr, i64, ptr, ptr, i64, ptr, ptr]
    lib.mx_gamma_f32.restype = None
    lib.mx_gamma_f32.argtypes = [ptr, ptr, i64, i64, i64, i64, ctypes.c_float, ctypes.c_float, ptr]
    lib.mx_normal_f32.restype = None
    lib.mx_normal_f32.argtypes = [ptr, ptr, i64, i64, i64, i64, ctypes.c_float, ctypes.c_float, ptr]
    return lib, None


def library():
    """The compiled generator (ctypes library), or None where it cannot be had (see :func:`why_not`)."""
    if 'lib' not in _STATE:
        with _LOCK:
            if 'lib' not in _STATE:
                _STATE['lib'], _STATE['why'] = _load()
    return _STATE['lib']


def why_not():
    """Why :func:`library` is None (None when it is loaded)."""
    library()
    return _STATE['why']


def glibc():
    """Whether the C library is glibc (whose ``logf`` MXNet's normal sampler draws with)."""
    if 'glibc' not in _STATE:
        _STATE['glibc'] = platform.libc_ver()[0] == 'glibc'
    return _STATE['glibc']
