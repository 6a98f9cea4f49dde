"""Stand-in for matplotlib: plotting is a no-op in the D2L harness."""
from _d2l_stub import Dummy

rcParams = {}
__version__ = '0.0-d2l-harness'


def use(*args, **kwargs):
    return None


def __getattr__(name):
    if name.startswith('__') or name == 'pyplot':  # the submodule is imported, not faked
        raise AttributeError(name)
    return Dummy()
