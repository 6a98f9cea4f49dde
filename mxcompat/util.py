"""``mx.util``: NumPy-semantics switches, GPU queries, small decorators and environment helpers.

NumPy shape semantics (``set_np_shape``, ``np_shape``, ``use_np_shape``) work as in MXNet: per-thread or
global, read by symbol shape inference and symbol JSON. NumPy array semantics (``set_np``, ``np_array``,
``use_np``) make Gluon work with ``mx.np.ndarray``. GPU queries use torch; ``getenv``/``setenv`` use
``os.environ`` (there is no C runtime).
"""
import contextlib
import functools
import inspect
import logging
import os
import threading

import torch
import numpy as np

from .base import MXNetValueError

__all__ = ['makedirs', 'get_gpu_count', 'get_gpu_memory', 'set_np_shape', 'is_np_shape', 'np_shape', 'use_np_shape',
           'set_module', 'np_array', 'is_np_array', 'use_np_array', 'use_np', 'np_ufunc_legal_option',
           'wrap_np_unary_func', 'wrap_np_binary_func', 'set_np', 'reset_np', 'get_cuda_compute_capability',
           'getenv', 'setenv', 'set_np_default_dtype', 'is_np_default_dtype', 'np_default_dtype',
           'use_np_default_dtype']

# ufunc keyword arguments MXNet's numpy-compatible functions accept, with the only values they support.
_np_ufunc_default_kwargs = {'where': True, 'casting': 'same_kind', 'order': 'K', 'dtype': None, 'subok': True}


def makedirs(d):
    """Create directory ``d`` and its parents; an existing directory is fine."""
    os.makedirs(os.path.expanduser(d), exist_ok=True)


def get_gpu_count():
    """Number of CUDA devices torch sees (0 without CUDA)."""
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of GPU ``gpu_dev_id``, from ``torch.cuda.mem_get_info``."""
    if not torch.cuda.is_available():
        raise MXNetValueError('get_gpu_memory: CUDA is not available, so there is no GPU %d' % gpu_dev_id)
    if not 0 <= gpu_dev_id < torch.cuda.device_count():
        raise MXNetValueError('get_gpu_memory: no GPU %d (there are %d)' % (gpu_dev_id, torch.cuda.device_count()))
    free, total = torch.cuda.mem_get_info(gpu_dev_id)
    return int(free), int(total)


def get_cuda_compute_capability(ctx):
    """Compute capability of a GPU context as an int (70 for sm_70), from torch."""
    if ctx.device_type != 'gpu':
        raise ValueError('Expecting a gpu context to get cuda compute capability, while received ctx {}'.format(ctx))
    if not torch.cuda.is_available():
        raise RuntimeError('get_cuda_compute_capability(%s): CUDA is not available' % (ctx,))
    major, minor = torch.cuda.get_device_capability(ctx.device_id)
    return major * 10 + minor


# ---- NumPy shape semantics -------------------------------------------------------------------------------------
# MXNet keeps a per-thread flag and a process-wide one: set_np_shape(1 or True) turns on this thread's,
# set_np_shape(2) turns on both (threads started later see it), set_np_shape(0 or False) turns off both.
_NP_SHAPE_OFF, _NP_SHAPE_THREAD, _NP_SHAPE_GLOBAL = 0, 1, 2
_np_shape_local = threading.local()
_np_shape_global = [False]
_set_np_shape_logged = False


def _np_shape_level():
    """0 (off), 1 (on in this thread) or 2 (on in every thread), as MXNet's ``Imperative::is_np_shape``."""
    if _np_shape_global[0]:
        return _NP_SHAPE_GLOBAL
    return _NP_SHAPE_THREAD if getattr(_np_shape_local, 'on', False) else _NP_SHAPE_OFF


def is_np_shape():
    """Whether NumPy shape semantics are on: ``()`` is a scalar's shape, 0 a zero-size dimension and -1 an
    unknown one (in shape inference and symbol JSON)."""
    return bool(_np_shape_level())


def set_np_shape(active):
    """Turn NumPy shape semantics on (True/1: this thread; 2: every thread) or off (both); returns the previous
    state. Only symbols (inference, JSON) and array creation depend on it: ``mx.nd`` operators keep their legacy
    behaviour, as MXNet's legacy operators mostly do."""
    global _set_np_shape_logged
    level = int(active)
    if level not in (_NP_SHAPE_OFF, _NP_SHAPE_THREAD, _NP_SHAPE_GLOBAL):
        raise MXNetValueError('set_np_shape: expected False/True or 0/1/2, got %r' % (active,))
    if level and not _set_np_shape_logged:
        logging.info('NumPy-shape semantics activated: () is a scalar shape, 0 a zero-size dimension, '
                     '-1 an unknown dimension.')
        _set_np_shape_logged = True
    prev = is_np_shape()
    if level == _NP_SHAPE_GLOBAL:
        _np_shape_global[0] = True
        _np_shape_local.on = True
    elif level == _NP_SHAPE_THREAD:
        _np_shape_local.on = True
    else:
        _np_shape_global[0] = False
        _np_shape_local.on = False
    return prev


@contextlib.contextmanager
def _shape_semantics(active):
    """Sets NumPy shape semantics to ``active`` inside the block (None: leaves them), then puts back what was
    there."""
    if active is None:
        yield
        return
    before = set_np_shape(active)
    try:
        yield
    finally:
        if before != active:
            set_np_shape(before)


def np_shape(active=True):
    """A ``with`` scope with NumPy shape semantics on (``active=True``) or off."""
    return _shape_semantics(active)


def _decorate(func, scope, api):
    """Wrap a function, or every method/property of a class, so that calling it enters ``scope(True)``."""
    if inspect.isclass(func):
        members = inspect.getmembers(func, predicate=lambda f: inspect.isfunction(f) or inspect.ismethod(f)
                                     or isinstance(f, property))
        for name, member in members:
            if isinstance(member, property):
                setattr(func, name, property(_decorate(member.__get__, scope, api), member.__set__,
                                             member.__delattr__, member.__doc__))
            else:
                setattr(func, name, _decorate(member, scope, api))
        return func
    if callable(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with scope(True):
                return func(*args, **kwargs)
        return wrapper
    raise TypeError('{} can only decorate classes and callable objects, while received a {}'
                    .format(api, type(func)))


def use_np_shape(func):
    """Decorator: the function (or every method and property of the class) runs inside ``np_shape(True)``."""
    return _decorate(func, np_shape, 'use_np_shape')


# ---- NumPy array semantics ---------------------------------------------------------------------------------
# ``set_np()`` turns them on for the process; ``np_array(active)`` scopes override that in one thread. With them on,
# Gluon creates ``mx.np.ndarray`` parameters and outputs. NumPy default dtypes (float64, int64 for creation
# functions) are a separate process-wide switch, as in MXNet.
_np_array_global = [False]
_np_array_local = threading.local()
_np_default_dtype = [False]


class _NumpyArrayScope(object):
    """``with np_array(active):`` NumPy array semantics on or off in this thread inside the block."""

    def __init__(self, is_np_array):  # noqa: F811
        self._is_np_array = bool(is_np_array)
        self._old = None

    def __enter__(self):
        self._old = getattr(_np_array_local, 'value', None)
        _np_array_local.value = self._is_np_array
        return self

    def __exit__(self, ptype, value, trace):
        _np_array_local.value = self._old


def np_array(active=True):
    """A scope with NumPy array semantics on (``active=True``) or off in this thread."""
    return _NumpyArrayScope(active)


def is_np_array():
    """Whether NumPy array semantics are on: Gluon then creates ``mx.np.ndarray`` parameters and outputs."""
    local = getattr(_np_array_local, 'value', None)
    return _np_array_global[0] if local is None else local


def use_np_array(func):
    """Decorator: the function (or every method and property of the class) runs inside ``np_array(True)``."""
    return _decorate(func, np_array, 'use_np_array')


def use_np(func):
    """``use_np_shape(use_np_array(func))``."""
    return use_np_shape(use_np_array(func))


def _set_np_array(active):
    prev = is_np_array()
    _np_array_global[0] = bool(active)
    _np_array_local.value = None
    return prev


def set_np(shape=True, array=True, dtype=False):
    """Turn NumPy shape and array semantics on or off (``dtype=True``: NumPy's float64/int64 default dtypes for
    creation functions, off by default as in MXNet)."""
    if not shape and array:
        raise ValueError('NumPy Shape semantics is required in using NumPy array semantics.')
    _set_np_array(array)
    set_np_shape(shape)
    set_np_default_dtype(dtype)


def reset_np():
    """Deactivate NumPy shape, array and default-dtype semantics."""
    set_np(shape=False, array=False, dtype=False)


def set_np_default_dtype(is_np_default_dtype=True):
    """Whether creation functions default to NumPy's float64 (True) or MXNet's float32 (False); returns the
    previous state."""
    prev = _np_default_dtype[0]
    _np_default_dtype[0] = bool(is_np_default_dtype)
    return prev


def is_np_default_dtype():
    """Whether creation functions default to float64 (``set_np(dtype=True)``)."""
    return _np_default_dtype[0]


@contextlib.contextmanager
def np_default_dtype(active=True):
    """A ``with`` scope with NumPy default dtypes on (``active=True``) or off."""
    before = set_np_default_dtype(active)
    try:
        yield
    finally:
        set_np_default_dtype(before)


def use_np_default_dtype(func):
    """Decorator: the function (or every method of the class) runs inside ``np_default_dtype(True)``."""
    return _decorate(func, np_default_dtype, 'use_np_default_dtype')


def set_module(module):
    """Decorator that sets ``__module__`` of a function or class (unless ``module`` is None)."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


def _sanity_check_params(func_name, unsupported_params, param_dict):
    for name in unsupported_params:
        if name in param_dict:
            raise NotImplementedError('function {} does not support parameter {}'.format(func_name, name))


_LEGAL_DTYPES = {'int8', 'uint8', 'int32', 'int64', 'float16', 'float32', 'float64'}


def np_ufunc_legal_option(key, value):
    """Whether ``key=value`` is a legal NumPy ufunc keyword argument (MXNet's rules)."""
    if key == 'where':
        return True
    if key == 'casting':
        return value in ('no', 'equiv', 'safe', 'same_kind', 'unsafe')
    if key == 'order':
        return isinstance(value, str)
    if key == 'dtype':
        legal_types = (np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64)
        return value in _LEGAL_DTYPES if isinstance(value, str) else any(value is t for t in legal_types)
    if key == 'subok':
        return isinstance(value, bool)
    return False


def _check_ufunc_kwargs(kwargs, name, unary):
    for key, value in kwargs.items():
        if key not in _np_ufunc_default_kwargs:
            raise TypeError("{} is an invalid keyword to function '{}'".format(key, name))
        if value != _np_ufunc_default_kwargs[key]:
            if np_ufunc_legal_option(key, value):
                if unary:
                    raise NotImplementedError('{}={} is not implemented yet for operator {}'.format(key, value, name))
                raise NotImplementedError('{}={} is not implemented yet'.format(key, value))
            if unary:
                raise TypeError('{}={} not understood for operator {}'.format(key, value, name))
            raise TypeError('{} {} not understood'.format(key, value))


def wrap_np_unary_func(func):
    """Decorator for ``func(x, out=None)``: accepts NumPy's ufunc keywords only at their default values."""
    @functools.wraps(func)
    def wrapper(x, out=None, **kwargs):
        _check_ufunc_kwargs(kwargs, func.__name__, True)
        return func(x, out=out)
    return wrapper


def wrap_np_binary_func(func):
    """Decorator for ``func(x1, x2, out=None)``: accepts NumPy's ufunc keywords only at their default values."""
    @functools.wraps(func)
    def wrapper(x1, x2, out=None, **kwargs):
        _check_ufunc_kwargs(kwargs, func.__name__, False)
        return func(x1, x2, out=out)
    return wrapper


def getenv(name):
    """The value of environment variable ``name`` (None if unset); reads ``os.environ``."""
    return os.environ.get(name)


def setenv(name, value):
    """Set (or, with ``value=None``, unset) environment variable ``name`` in ``os.environ``."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
