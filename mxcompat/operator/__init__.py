"""MXNet's ``mx.operator`` namespace, and the operator registry every ``mx.nd``/``mx.sym`` op is defined in.

Importing this package registers all operators (``registry.REGISTRY``).
"""
from . import registry  # noqa: F401
from . import elemwise, shape_ops, init_ops, reduce  # noqa: F401  (each registers its operators)
from ._discover import import_op_modules

import_op_modules()
from .custom import (CustomOp, CustomOpProp, register, get_all_registered_operators,  # noqa: E402,F401
                     get_operator_arguments, OperatorArguments, PythonOp, NumpyOp, NDArrayOp)
