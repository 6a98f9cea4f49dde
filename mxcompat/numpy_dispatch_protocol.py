"""``mxnet.numpy_dispatch_protocol``: the NumPy functions and ufuncs that ``mx.np.ndarray`` dispatches to
``mx.np`` (NEP 18's ``__array_function__``, NEP 13's ``__array_ufunc__``; see ``mxcompat.numpy._dispatch``),
under MXNet's names."""
import functools

import numpy as _onp

from .numpy import _dispatch

# MXNet's lists, less the names the installed NumPy lacks (NumPy 2 removed sometrue, round_ and product: there is
# no NumPy function of that name to dispatch)
_NUMPY_ARRAY_FUNCTION_LIST = [n for n in _dispatch.ARRAY_FUNCTIONS if _dispatch._lookup(_onp, n) is not None]
_NUMPY_ARRAY_UFUNC_LIST = [n for n in _dispatch.ARRAY_UFUNCS if _dispatch._lookup(_onp, n) is not None]


def _implements(numpy_function):
    """Decorator: dispatch ``numpy_function`` given ``mx.np`` arrays to the decorated function."""
    def decorator(func):
        return _dispatch.implements(numpy_function, func)
    return decorator


def _protocol_runner(func):
    @functools.wraps(func)
    def run(*args, **kwargs):
        try:
            func(*args, **kwargs)
        except Exception as e:
            raise RuntimeError('%s failed under the NumPy dispatch protocol: %s: %s'
                               % (func.__name__, type(e).__name__, e)) from e
    return run


# Every supported NumPy (>= 1.17) has both protocols; the decorators run ``func`` and report its exception as
# a RuntimeError naming it, as MXNet's do.
with_array_function_protocol = _protocol_runner
with_array_ufunc_protocol = _protocol_runner
