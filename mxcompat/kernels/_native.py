"""mxcompat's C code, compiled with the machine's C compiler on first use (about a second, once: the libraries are
kept in ``$MXCOMPAT_CACHE_DIR``, by default ``~/.cache/mxcompat``):

- ``native/mt19937.c``, MXNet's parallel CPU generator, loaded with ctypes (:func:`library`). It draws the same
  numbers as the numpy code of ``operator._mt19937`` (the engines' states are shared), three to ten times faster,
  and lets other threads run meanwhile.
- ``native/npcall.c``, a CPython extension with mx.np's per-call fast paths (:func:`extension`, used by
  ``numpy._fastcall``); it also needs Python's headers.

Where there is no C compiler, a build fails, or ``MXCOMPAT_NATIVE=0`` is set, :func:`library` and :func:`extension`
are None and the Python code does everything, with the same results. The normal sampler calls the C library's
``logf``, as MXNet does: it is used only on glibc, whose ``logf`` the numpy path reproduces (``kernels._libm``);
elsewhere the numpy path keeps glibc's values.
"""
import ctypes
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading

_NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'native')
_SOURCE = os.path.join(_NATIVE, 'mt19937.c')
# every float operation rounded on its own (no fused multiply-adds), as MXNet's x86-64 build computes
_FLAGS = ['-O3', '-fPIC', '-shared', '-ffp-contract=off', '-fno-fast-math', '-fno-math-errno']
_BUILD_SECONDS = 120
_LOCK = threading.Lock()
# 'lib': the loaded library or None, once looked for; 'why': the reason when None; ('ext', name), ('why', name):
# the same for an extension
_STATE = {}


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


def _build(cc, source, flags, suffix):
    """The path of ``source`` compiled with ``flags``, building it when absent (written to a temporary name and
    moved into place: processes building at once each finish with a whole file)."""
    with open(source, 'rb') as f:
        text = f.read()
    key = hashlib.sha256(b'\0'.join([text, ' '.join(flags).encode(), cc.encode(), platform.machine().encode(),
                                     sys.platform.encode(), suffix.encode()])).hexdigest()[:16]
    stem = os.path.splitext(os.path.basename(source))[0]
    folder = cache_dir()
    path = os.path.join(folder, '%s-%s%s' % (stem, key, suffix))
    if os.path.exists(path):
        return path
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix='.%s-' % stem, suffix=suffix, dir=folder)
    os.close(fd)
    try:
        subprocess.run([cc] + flags + ['-o', tmp, source, '-lm'], check=True, capture_output=True,
                       timeout=_BUILD_SECONDS)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def _compiler_or_why():
    """(the C compiler, None), or (None, why mxcompat's C code is not built here)."""
    if os.environ.get('MXCOMPAT_NATIVE', '1').strip().lower() in ('0', 'false', 'no', 'off'):
        return None, 'MXCOMPAT_NATIVE is off'
    cc = _compiler()
    return (cc, None) if cc is not None else (None, 'no C compiler found')


def _failure(source, e):
    detail = getattr(e, 'stderr', b'') or b''
    return 'building %s failed: %s %s' % (source, e, detail.decode(errors='replace')[-500:])


def _load():
    cc, why = _compiler_or_why()
    if cc is None:
        return None, why
    try:
        lib = ctypes.CDLL(_build(cc, _SOURCE, _FLAGS, '.dll' if sys.platform == 'win32' else '.so'))
    except (OSError, subprocess.SubprocessError) as e:
        return None, _failure(_SOURCE, e)
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


def why_not(name=None):
    """Why :func:`library` (or, given a name, :func:`extension`) is None; None when it is loaded."""
    if name is not None:
        extension(name)
        return _STATE[('why', name)]
    library()
    return _STATE['why']


def glibc():
    """Whether the C library is glibc (whose ``logf`` MXNet's normal sampler draws with)."""
    if 'glibc' not in _STATE:
        _STATE['glibc'] = platform.libc_ver()[0] == 'glibc'
    return _STATE['glibc']


def _load_extension(name):
    cc, why = _compiler_or_why()
    if cc is None:
        return None, why
    include = sysconfig.get_paths().get('include')
    if not include or not os.path.exists(os.path.join(include, 'Python.h')):
        return None, "Python's headers (Python.h) are not installed"
    source = os.path.join(_NATIVE, name + '.c')
    flags = ['-O2', '-fPIC', '-shared', '-I' + include] + (['-undefined', 'dynamic_lookup']
                                                            if sys.platform == 'darwin' else [])
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]  # (names the interpreter's ABI)
    try:
        path = _build(cc, source, flags, suffix)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (OSError, ImportError, subprocess.SubprocessError) as e:
        return None, _failure(source, e)
    return module, None


def extension(name):
    """The CPython extension built from ``native/<name>.c`` (a module), or None where it cannot be had (see
    :func:`why_not`)."""
    if ('ext', name) not in _STATE:
        with _LOCK:
            if ('ext', name) not in _STATE:
                _STATE[('ext', name)], _STATE[('why', name)] = _load_extension(name)
    return _STATE[('ext', name)]
