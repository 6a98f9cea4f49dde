"""``mx.sym``: symbolic graphs of registry operators, MXNet JSON, binding to torch.fx executors."""
from .. import operator as _operator  # noqa: F401  (registers the operators)
from . import symbol  # noqa: F401
from .symbol import Symbol, var, Variable, Group, load, load_json, fromjson  # noqa: F401
from . import op, _internal, contrib, linalg, random, image, sparse  # noqa: F401
from .op import *  # noqa: F401,F403
from .op import zeros, ones, full, arange, eye, linspace, pow, power, maximum, minimum, hypot  # noqa: F401
from .op import split_v2, histogram  # noqa: F401  (Python-level functions, as in MXNet)
symbol._op, symbol._internal = op, _internal  # symbol.py's Symbol methods call these generated modules
from . import numpy, numpy_extension  # noqa: E402,F401  (mx.sym.np, mx.sym.npx)
np, npx = numpy, numpy_extension
