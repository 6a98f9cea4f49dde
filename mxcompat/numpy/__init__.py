"""``mx.np``: MXNet 1.9.1's NumPy-compatible interface on torch tensors.

``mx.np.ndarray`` is a subclass of ``mx.nd.NDArray`` with NumPy semantics (see ``multiarray``); the functions
compute natively on torch (so autograd records them) with MXNet's dtype rules. A name of MXNet's ``mx.np`` that
is not provided (``_gaps``) raises ``MXNetNotImplementedError`` naming it when used.
"""
import numpy as _onp

from . import _gaps
from .multiarray import *  # noqa: F401,F403
from .multiarray import ndarray  # noqa: F401
from ._op import *  # noqa: F401,F403
from ._reduction import *  # noqa: F401,F403
from ._manip import *  # noqa: F401,F403
from ._function_base import *  # noqa: F401,F403
from . import fallback  # noqa: F401
from .fallback import *  # noqa: F401,F403
from . import _dispatch  # noqa: F401 (binds ndarray.__array_function__ / __array_ufunc__)
from . import _internal  # noqa: F401 (mx.nd.np._internal's boolean-mask assignment)
from . import random  # noqa: F401
from . import linalg  # noqa: F401

# dtypes and constants are NumPy's own objects, as in MXNet
bool_ = _onp.bool_
bool = _onp.bool_  # noqa: A001 (MXNet's name)
int8, uint8, int32, int64 = _onp.int8, _onp.uint8, _onp.int32, _onp.int64
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
pi, e, euler_gamma = _onp.pi, _onp.e, _onp.euler_gamma
inf = PINF = _onp.inf
NINF = -_onp.inf
nan = NAN = NaN = _onp.nan
PZERO, NZERO = 0.0, -0.0
newaxis = None
finfo, iinfo = _onp.finfo, _onp.iinfo
set_printoptions = _onp.set_printoptions


# MXNet's names mxcompat lacks give stubs that raise naming them; any other name is an AttributeError, as in MXNet
__getattr__ = _gaps.module_getattr('np', __name__)
