"""``mx.nd``: NDArray, creation functions and every registry operator as a function."""
import importlib

from .. import operator as _operator  # noqa: F401  (registers the operators)
from . import ndarray, _creation, register
from .ndarray import *  # noqa: F401,F403
from .ndarray import NDArray, waitall  # noqa: F401
from . import op, _internal, contrib, linalg, sparse, image  # noqa: F401
from . import random, utils  # noqa: F401
from .utils import save, load, load_frombuffer  # noqa: F401
from .op import *  # noqa: F401,F403

# ndarray.py, _creation.py, register.py, contrib.py and sparse/storage.py call these modules, which import them:
# they are handed over once loaded
ndarray._op, ndarray._internal, ndarray._sparse, _creation._sparse = op, _internal, sparse, sparse
register._sparse, contrib._op, sparse.storage._nd_op, sparse.storage._nd_internal = sparse, op, op, _internal

# nd.* defined by hand keep their definitions; the registry provides the rest.
for _k, _v in ndarray.__dict__.items():
    if _k in ndarray.__all__:
        globals()[_k] = _v

from .op import histogram, imdecode  # noqa: E402,F401  (Python-level functions, as in MXNet)


from ._gaps import module_getattr as _module_getattr  # noqa: E402
_gap = _module_getattr('nd', __name__)  # MXNet names mxcompat lacks: stubs that raise naming them


def __getattr__(name):
    # mx.nd.np / mx.nd.npx (MXNet's NumPy functions on arrays, the F.np / F.npx of hybrid_forward) are mx.np and
    # mx.npx, a layer above: imported on first use
    if name == 'np' or name == 'npx':
        found = globals()[name] = importlib.import_module('..numpy' if name == 'np' else '..numpy_extension',
                                                          __name__)
        return found
    return _gap(name)
