"""Imports every operator module in this package so their definitions register (new modules join by existing)."""
import importlib
import pkgutil

_CORE = {'registry', 'elemwise', 'shape_ops', 'init_ops', 'reduce', '_discover'}


def import_op_modules():
    pkg = __name__.rsplit('.', 1)[0]
    path = importlib.import_module(pkg).__path__
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if info.name not in _CORE and not info.name.startswith('test'):
            importlib.import_module(pkg + '.' + info.name)
