"""MXNet contexts mapped onto torch devices.

``cpu(i)``, ``cpu_pinned(i)`` and ``cpu_shared(i)`` all keep their MXNet label while the data lives on the one torch
CPU device; ``gpu(i)`` maps to ``cuda:i`` and raises ``MXNetError`` when CUDA (or that device) is absent.
"""
import threading
import warnings

import torch

from .base import MXNetError

__all__ = ['Context', 'cpu', 'gpu', 'cpu_pinned', 'num_gpus', 'gpu_memory_info', 'current_context']

_CPU_DEVICE = torch.device('cpu')


class _DefaultCtx(threading.local):
    def __init__(self):
        super().__init__()
        self.value = None
        self.stack = []  # previous defaults of the open ``with ctx:`` blocks (one context may be entered twice)


class _ContextType(type):
    """Gives ``Context`` MXNet's deprecated class-level ``default_ctx`` (read and assign, with a warning)."""

    _DEPRECATED = ('Context.default_ctx has been deprecated. Please use Context.current_context() instead. '
                   'Please use test_utils.set_default_context to set a default context')

    @property
    def default_ctx(cls):
        warnings.warn(cls._DEPRECATED, DeprecationWarning, stacklevel=2)
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, ctx):
        warnings.warn(cls._DEPRECATED, DeprecationWarning, stacklevel=2)
        Context._default_ctx.value = ctx


class Context(metaclass=_ContextType):
    """An MXNet device context. ``torch_device`` gives the torch device it maps to (mxcompat only)."""

    devtype2str = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
    devstr2type = {'cpu': 1, 'gpu': 2, 'cpu_pinned': 3, 'cpu_shared': 5}
    _default_ctx = _DefaultCtx()
    __slots__ = ('device_typeid', 'device_id', '_device')

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid, self.device_id = device_type.device_typeid, device_type.device_id
        else:
            if device_type not in Context.devstr2type:
                raise MXNetError('Invalid device type %r; expected one of %s'
                                 % (device_type, sorted(Context.devstr2type)))
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = int(device_id)
        self._device = None

    @property
    def device_type(self):
        return Context.devtype2str[self.device_typeid]

    @property
    def torch_device(self):
        """The torch device this context's data lives on."""
        d = self._device
        if d is None:
            if self.device_typeid == 2:
                if not torch.cuda.is_available():
                    raise MXNetError('Context %s: CUDA is not available on this machine (torch %s was built %s); '
                                     'use mx.cpu() instead' % (self, torch.__version__,
                                                               'with CUDA' if torch.version.cuda else 'for CPU only'))
                if self.device_id >= torch.cuda.device_count():
                    raise MXNetError('Context %s: there are only %d GPU(s)' % (self, torch.cuda.device_count()))
                d = torch.device('cuda', self.device_id)
            else:
                d = _CPU_DEVICE
            self._device = d
        return d

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __str__(self):
        return '%s(%d)' % (self.device_type, self.device_id)

    __repr__ = __str__

    def __enter__(self):
        d = Context._default_ctx
        d.stack.append(d.value)
        d.value = self
        return self

    def __exit__(self, ptype, value, trace):
        d = Context._default_ctx
        d.value = d.stack.pop()

    def empty_cache(self):
        """Releases cached device memory (``torch.cuda.empty_cache`` on GPU, nothing on CPU)."""
        if self.device_typeid == 2 and torch.cuda.is_available():
            with torch.cuda.device(self.device_id):
                torch.cuda.empty_cache()

    def __reduce__(self):
        return (Context, (self.device_type, self.device_id))

    @staticmethod
    def current_context():
        """The default context (same as ``mx.context.current_context()``)."""
        return current_context()


def cpu(device_id=0):
    """A CPU context. All ``cpu(i)`` share the torch CPU device; the id is a label, as it is in MXNet."""
    return Context('cpu', device_id)


def cpu_pinned(device_id=0):
    """A pinned-CPU context (data lives on the torch CPU device)."""
    return Context('cpu_pinned', device_id)


def gpu(device_id=0):
    """A GPU context, mapped to ``cuda:device_id``. Creating it never fails; using it without CUDA raises."""
    return Context('gpu', device_id)


def num_gpus():
    """Number of CUDA devices torch sees."""
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def gpu_memory_info(device_id=0):
    """(free, total) bytes of a GPU."""
    if not torch.cuda.is_available():
        raise MXNetError('gpu_memory_info: CUDA is not available')
    return torch.cuda.mem_get_info(device_id)


def current_context():
    """The default context: the innermost ``with ctx:`` block, else ``cpu(0)``."""
    v = Context._default_ctx.value
    if v is None:
        v = Context._default_ctx.value = Context('cpu', 0)
    return v


def context_of(device):
    """The MXNet context for a torch device (``cuda:i`` -> ``gpu(i)``, else ``cpu(0)``)."""
    if device.type == 'cuda':
        return Context('gpu', device.index or 0)
    return Context('cpu', 0)
