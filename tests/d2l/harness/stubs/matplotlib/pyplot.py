"""Stand-in for matplotlib.pyplot: every call is a no-op returning a Dummy."""
from _d2l_stub import Dummy, DummyArray
from matplotlib import rcParams  # noqa: F401


def subplots(nrows=1, ncols=1, squeeze=True, **kwargs):
    if not squeeze:  # always a 2-D grid, as matplotlib gives
        return Dummy(), DummyArray(DummyArray(Dummy() for _ in range(ncols)) for _ in range(nrows))
    if nrows > 1 and ncols > 1:  # (squeezed, a grid stays 2-D)
        return subplots(nrows, ncols, squeeze=False)
    n = nrows * ncols
    return Dummy(), (Dummy() if n == 1 else DummyArray(Dummy() for _ in range(n)))


def hist(x=None, *args, **kwargs):
    # one container of patches per data set when x is a list of sequences, as matplotlib gives
    many = isinstance(x, (list, tuple)) and len(x) > 0 and all(hasattr(v, '__len__') for v in x)
    return Dummy(), Dummy(), (DummyArray(Dummy() for _ in x) if many else DummyArray())


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    return Dummy()
