"""Stand-in for IPython.display: showing figures is a no-op."""
from _d2l_stub import Dummy


def display(*objs, **kwargs):
    return None


def clear_output(*args, **kwargs):
    return None


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    return Dummy
