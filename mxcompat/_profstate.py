"""Whether ``mx.profiler`` is collecting, as read by the operator paths.

The eager and graph operator paths each read one flag (one attribute check when profiling is off) and, only
while it is on, run the operator inside ``torch.profiler.record_function(<MXNet operator name>)`` so torch's
trace shows MXNet's names. ``mxcompat.profiler`` sets the flags.
"""
from torch.autograd.profiler import record_function


class _Flags:
    __slots__ = ('imperative', 'symbolic')

    def __init__(self):
        self.imperative = False  # eager mx.nd operators and NDArray arithmetic
        self.symbolic = False  # operators of bound symbols and hybridized blocks (the fx graphs)


FLAGS = _Flags()


def run(name, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` as a profiler range called ``name``."""
    with record_function(name):
        return fn(*args, **kwargs)
