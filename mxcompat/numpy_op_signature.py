"""``mxnet.numpy_op_signature``: MXNet's lookup of the ``mx.np`` / ``mx.npx`` function behind a registered
operator name (``_np_sum`` is ``mx.np.sum``, ``_np__random_shuffle`` ``mx.np.random.shuffle``), and on import, as
in MXNet, each such function gets the signature ``mxnet._numpy_op_doc`` documents for its operator."""
import inspect

from . import _numpy_op_doc
from . import numpy as _mx_np
from . import numpy_extension as _mx_npx

# operator-name prefix -> (module, submodule prefixes), as MXNet's base.py has them
_ROOTS = {'_np_': (_mx_np, ('_random_', '_linalg_')), '_npx_': (_mx_npx, ('_image_', '_random_'))}


def _get_builtin_op(op_name):
    """The function of operator ``op_name`` (None unless it starts with ``_np_`` or ``_npx_``); ValueError when the
    module has no such function."""
    prefix = next((p for p in _ROOTS if op_name.startswith(p)), None)
    if prefix is None:
        return None
    module, submodules = _ROOTS[prefix]
    rest = op_name[len(prefix):]
    sub = next((s for s in submodules if rest.startswith(s)), '')
    if sub:
        module = getattr(module, sub[1:-1], None)
        if module is None:
            raise ValueError('%s: no submodule %s in %s' % (op_name, sub[1:-1], _mx_np.__name__))
        rest = rest[len(sub):]
    try:
        return getattr(module, rest)
    except (AttributeError, NotImplementedError):
        raise ValueError('%s: no function %s in %s' % (op_name, rest, module.__name__)) from None


def _register_op_signatures():
    for op_name, doc in vars(_numpy_op_doc).items():
        if not op_name.startswith(('_np_', '_npx_')) or not callable(doc):
            continue
        try:
            op = _get_builtin_op(op_name)
        except ValueError:  # (a function another part of mxcompat does not provide)
            continue
        try:
            op.__signature__ = inspect.signature(doc)
        except AttributeError:  # (not a Python function)
            pass


_register_op_signatures()
