"""A do-nothing object for the plotting and notebook stand-ins: any attribute, call or item gives another one."""


class Dummy:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return Dummy()

    def __getattr__(self, name):
        if name.startswith('__') and name.endswith('__'):
            raise AttributeError(name)
        return Dummy()

    def __getitem__(self, key):
        return Dummy()

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


class DummyArray(list):
    """What ``plt.subplots(r, c)`` gives for its axes: r*c dummies, in rows when both are above 1 (``a[i, j]``
    indexes as NumPy's object array does; flatten() gives the dummies in order)."""

    def __getitem__(self, key):
        if isinstance(key, tuple):
            item = self
            for k in key:
                item = list.__getitem__(item, k)
            return item
        return list.__getitem__(self, key)

    def flatten(self):
        return DummyArray(x for row in self for x in (row if isinstance(row, DummyArray) else [row]))

    ravel = flatten

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        flat = self.flatten()
        if len(shape) == 1:
            return flat
        cols = len(flat) // shape[0] if shape[-1] == -1 else shape[-1]
        return DummyArray(DummyArray(flat[i:i + cols]) for i in range(0, len(flat), cols))
