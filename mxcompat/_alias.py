"""Lets ``import mxnet`` (and ``import mxnet.gluon`` ...) give mxcompat's very module objects."""
import importlib
import importlib.abc
import importlib.util
import sys
from .ndarray.ndarray import NDArray
from .numpy import ndarray


class _MXNetAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``mxnet`` / ``mxnet.X`` and loads them as ``mxcompat`` / ``mxcompat.X``."""

    @staticmethod
    def _target(name):
        return 'mxcompat' + name[len('mxnet'):]

    def find_spec(self, name, path=None, target=None):
        if name != 'mxnet' and not name.startswith('mxnet.'):
            return None
        real = self._target(name)
        mod = sys.modules.get(real)
        if mod is None:
            try:
                spec = importlib.util.find_spec(real)
            except (ImportError, ValueError):
                return None
            if spec is None:
                return None
            is_pkg = spec.submodule_search_locations is not None
        else:
            is_pkg = hasattr(mod, '__path__')
        return importlib.util.spec_from_loader(name, self, is_package=is_pkg)

    # the mxcompat module's own spec while the import system handles its alias: it sets ``__spec__`` to the
    # alias's spec (name ``mxnet.X``) between create_module and exec_module
    _own_specs = {}

    def create_module(self, spec):
        module = importlib.import_module(self._target(spec.name))
        self._own_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # The module object is mxcompat's own, already executed: give it back its own spec, whose parent is its
        # ``__package__`` (else its relative imports warn "__package__ != __spec__.parent")
        own = self._own_specs.pop(getattr(module.__spec__, 'name', None), None)
        if own is not None:
            module.__spec__ = own


def _gluoncv_check(module):
    """GluonCV 0.10's ``import gluoncv`` also asks for PyTorch 1.4 <= torch < 2.0, for its separate PyTorch models
    (``gluoncv.torch``), and raises RuntimeError for a newer torch, which mxcompat itself needs. Its check then
    raises ImportError instead, the answer GluonCV takes as "PyTorch models unavailable": its MXNet API is imported
    (running on mxcompat), ``gluoncv.torch`` is not. ``torch.__version__`` is left as it is for all other code."""
    check = module._require_pytorch_version

    def _require_pytorch_version(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except RuntimeError as e:
            raise ImportError('%s (under mxcompat GluonCV runs its MXNet API; its PyTorch models need torch<2)'
                              % e) from e
    module._require_pytorch_version = _require_pytorch_version


# module of a library written for MXNet -> fix-up run right after the module executes, under the alias only
LIBRARY_FIXUPS = {'gluoncv.check': _gluoncv_check}


class _LibraryFixups(importlib.abc.MetaPathFinder):
    """Finds the modules of ``LIBRARY_FIXUPS`` with the other finders and runs their fix-up after they execute."""

    def find_spec(self, name, path=None, target=None):
        fix = LIBRARY_FIXUPS.get(name)
        if fix is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, 'exec_module'):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            fix(module)
        loader.exec_module = exec_module  # (this loader instance serves this one module)
        return spec


def install_alias(force=False):
    """Make ``import mxnet`` resolve to mxcompat.

    If a real ``mxnet`` is importable it is left alone unless ``force=True`` (``python -m mxcompat`` forces).
    Libraries written for MXNet that refuse the torch mxcompat needs get a fix-up on import (``LIBRARY_FIXUPS``:
    GluonCV's check for its separate PyTorch models).
    """
    if any(isinstance(f, _MXNetAlias) for f in sys.meta_path):
        return True
    if not force and 'mxnet' not in sys.modules:
        try:
            real = importlib.util.find_spec('mxnet')
        except (ImportError, ValueError):
            real = None
        if real is not None:
            return False
    if force:
        for k in [k for k in sys.modules if k == 'mxnet' or k.startswith('mxnet.')]:
            mod = sys.modules[k]
            if not getattr(mod, '__name__', '').startswith('mxcompat'):
                del sys.modules[k]
    sys.meta_path.insert(0, _MXNetAlias())
    sys.meta_path.insert(1, _LibraryFixups())
    # pickles then name the class as MXNet does, mxnet.ndarray.ndarray.NDArray, so real MXNet can load them
    NDArray.__module__ = 'mxnet.ndarray.ndarray'
    return True


def report_mxnet_paths():
    """Classes defined by mxcompat report MXNet's module paths (``<class 'mxnet.gluon.parameter.Parameter'>``,
    ``mxnet.numpy.ndarray``), as the scripts that ``python -m mxcompat`` runs print them. Done for such runs only:
    in a process that imports mxcompat by its own name, classes keep their real paths. Pickles then name the
    classes as MXNet does, which the alias resolves."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == 'mxcompat' or name.startswith('mxcompat.')):
            continue
        public = 'mxnet' + name[len('mxcompat'):]
        for obj in list(vars(module).values()):
            if isinstance(obj, type) and obj.__module__ == name:
                obj.__module__ = public
    ndarray.__module__ = 'mxnet.numpy'  # (MXNet's own: it sets the class's module to its namespace)
