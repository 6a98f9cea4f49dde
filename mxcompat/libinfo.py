"""``mx.libinfo``: where the native library and its headers are, and the MXNet version.

Differs from MXNet: there is no ``libmxnet``; the native code that runs mxcompat's operators is torch's. So
``find_lib_path()`` lists torch's shared libraries (``libtorch``, ``libtorch_cpu``, ``libc10`` and, where this torch
has them, its CUDA and Python-binding libraries: the files that exist in torch's ``lib`` folder) and
``find_include_path()`` is torch's C++ header folder. ``MXNET_LIBRARY_PATH`` and ``MXNET_INCLUDE_PATH`` are not
consulted (they would name an MXNet build, which mxcompat does not use). ``find_conf_path()`` raises as MXNet does
without TVM operators. ``__version__`` is the MXNet API version mxcompat implements; mxcompat's own version is
``mxcompat.__mxcompat_version__``.
"""
import os
import platform

__all__ = ['find_lib_path', 'find_include_path', 'find_conf_path']

__version__ = '1.9.1'

# torch's shared libraries, the umbrella ``torch`` library first (stems: ``libtorch.so``, ``torch.dll`` ...)
_TORCH_LIBS = ('torch', 'torch_cpu', 'c10', 'torch_cuda', 'c10_cuda', 'torch_python')


def _torch_dir():
    import torch  # reason: mxcompat/__init__.py reads libinfo first, before the import-time gc pause
    return os.path.dirname(os.path.abspath(torch.__file__))


def _file_names(name):
    """``name`` (``libX`` as MXNet spells a library) as this platform's shared-library file names."""
    if os.name == 'nt':
        return [(name[3:] if name.startswith('lib') else name) + '.dll']
    if platform.system() == 'Darwin':
        return [name + '.dylib', name + '.so']
    return [name + '.so']


def find_lib_path(prefix='libmxnet'):
    """The native libraries that run mxcompat: a list of paths to torch's shared libraries that exist.

    ``prefix='libmxnet'`` (the default) lists torch's own libraries; another prefix looks for that library in
    torch's ``lib`` folder. Raises ``RuntimeError`` listing the candidates when none exists, as MXNet does.
    """
    lib_dir = os.path.join(_torch_dir(), 'lib')
    names = ['lib' + stem for stem in _TORCH_LIBS] if prefix == 'libmxnet' else [prefix]
    candidates = [os.path.join(lib_dir, f) for name in names for f in _file_names(name)]
    found = [p for p in candidates if os.path.isfile(p)]
    if not found:
        raise RuntimeError('Cannot find the MXNet library.\nList of candidates:\n' + '\n'.join(candidates))
    return found


def find_include_path():
    """The C++ header folder of the native library: torch's ``include`` folder (with a trailing separator, as
    MXNet writes it). Raises ``RuntimeError`` when this torch installation has no headers."""
    path = os.path.join(_torch_dir(), 'include', '')
    if not os.path.isdir(path):
        raise RuntimeError('Cannot find the MXNet include path: torch has no headers at ' + path)
    return path


def find_conf_path(prefix='tvmop'):
    """The TVM operator configuration: mxcompat has no TVM operators, so this raises ``RuntimeError`` as MXNet
    does when none was built."""
    raise RuntimeError('Cannot find the TVM op config.\nmxcompat has no TVM operators (%s.conf); '
                       "mx.runtime.Features().is_enabled('TVM_OP') is False" % prefix)
