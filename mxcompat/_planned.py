"""MXNet namespaces mxcompat does not provide yet: using one raises an error that names it."""
import importlib

from .base import unsupported

# MXNet top-level name -> (module path inside mxcompat, alias attribute names)
NAMESPACES = {
    'symbol': ('symbol', ('sym',)), 'gluon': ('gluon', ()), 'module': ('module', ('mod',)),
    'kvstore': ('kvstore', ('kv',)), 'initializer': ('initializer', ('init',)), 'optimizer': ('optimizer', ()),
    'metric': ('metric', ()), 'lr_scheduler': ('lr_scheduler', ()), 'callback': ('callback', ()),
    'io': ('io', ()), 'recordio': ('recordio', ()), 'model': ('model', ()), 'visualization': ('visualization',
                                                                                               ('viz',)),
    'image': ('image', ('img',)), 'name': ('name', ()), 'attribute': ('attribute', ()), 'executor': ('executor', ()),
    'profiler': ('profiler', ()), 'util': ('util', ()), 'rnn': ('rnn', ()), 'monitor': ('monitor', ('mon',)),
    'contrib': ('contrib', ()), 'operator': ('operator', ()), 'registry': ('registry', ()),
    'runtime': ('runtime', ()), 'numpy': ('numpy', ('np',)), 'numpy_extension': ('numpy_extension', ('npx',)),
    'library': ('library', ()), 'rtc': ('rtc', ()),
}
# why a namespace that mxcompat does not have is missing, where there is more to say than "not yet"
_WHY = {'library': 'MXNet C++ extension libraries (built against lib_api.h: custom operators, subgraph properties, '
                   'graph passes) cannot be loaded into mxcompat',
        'rtc': "CUDA runtime compilation of MXNet kernel source (CudaModule) is not ported; write the kernel as a "
               "torch operation or a CustomOp"}
_ALIASES = {alias: ns for ns, (_, aliases) in NAMESPACES.items() for alias in aliases}


def install(g):
    """Import each namespace that exists in the package and bind it (and its aliases) in ``g``."""
    for ns, (path, aliases) in NAMESPACES.items():
        try:
            mod = importlib.import_module('mxcompat.' + path)
        except ModuleNotFoundError as e:
            if e.name != 'mxcompat.' + path:
                raise
            continue
        g[ns] = mod
        for a in aliases:
            g[a] = mod


def missing(name):
    ns = _ALIASES.get(name, name)
    if ns in NAMESPACES:
        raise unsupported('mx.' + name, 'the namespace', _WHY.get(ns, 'it is not implemented in this version of '
                                                                     'mxcompat'))
    raise AttributeError("module 'mxnet' has no attribute %r" % name)
