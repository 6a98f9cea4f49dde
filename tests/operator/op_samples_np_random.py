"""Samples for the NumPy samplers and the other operators behind ``mx.sym.np.random``, ``mx.sym.np.linalg.norm`` and
``mx.sym.npx`` (mxcompat/symbol/numpy/_random_ops.py, _linalg_ops.py, numpy_extension/_ops.py), for
tests/symbol/test_sym_vs_eager.py: importing this module adds them to ``op_samples.SAMPLES`` (the samplers to
``op_samples.RANDOM``: shapes and dtypes compared). Their values and draws against MXNet 1.9.1:
tests/symbol/test_numpy_random.py and test_numpy_extension.py."""
import numpy as np

import mxcompat.symbol.numpy  # noqa: F401  (registers the operators)
from mxcompat.symbol.numpy._random_ops import SAMPLERS
from tests.operator import op_samples
from tests.operator.op_samples import add, f, pos

add('_npi_uniform', ({}, {'low': 0.0, 'high': 1.0, 'size': (2, 3)}), ({'input1': f(2, 3)}, {'low': None, 'high': 2.0}))
add('_npi_normal', ({'input1': f(1, 3), 'input2': pos(2, 1)}, {'loc': None, 'scale': None}),
    ({}, {'loc': 1.0, 'scale': 2.0, 'size': (4,), 'dtype': 'float64'}))
add('_npi_gamma', ({}, {'shape': 2.0, 'scale': 1.0, 'size': (3,)}), ({'input1': pos(3)}, {'shape': None, 'scale': 2.0}))
add('_npi_logistic', ({}, {'loc': 0.0, 'scale': 1.0, 'size': (2, 3)}),
    ({'input1': pos(3)}, {'loc': 1.0, 'scale': None}))
add('_npi_gumbel', ({'input1': f(2, 1), 'input2': pos(3)}, {'loc': None, 'scale': None}))
add('_npi_exponential', ({'input1': pos(3)}, {'scale': None}), ({}, {'size': (2,)}))
add('_npi_rayleigh', ({'input1': pos(3)}, {'scale': None}))
add('_npi_weibull', ({'input1': pos(3)}, {'a': None}), ({}, {'a': 2.0, 'size': (2, 2)}))
add('_npi_pareto', ({'input1': pos(3)}, {'a': None}))
add('_npi_powerd', ({}, {'a': 2.0, 'size': (3,)}), ({'input1': pos(2, 3)}, {'a': None}))
add('_npi_bernoulli', ({}, {'prob': 0.5, 'logit': None, 'is_logit': False, 'size': (2, 3)}),
    ({'input1': f(2, 3)}, {'prob': None, 'logit': None, 'is_logit': True}))
add('_npi_choice', ({}, {'a': 5, 'size': (3,)}),
    ({'input1': f(4), 'input2': np.array([0.1, 0.2, 0.3, 0.4], np.float32)}, {'a': None, 'size': (2,),
                                                                            'weighted': True}))
add('_npi_uniform_n', ({'input1': f(3)}, {'low': None, 'high': 2.0, 'size': (2,)}))
add('_npi_normal_n', ({}, {'loc': 0.0, 'scale': 1.0, 'size': (2,)}))
op_samples.RANDOM.update(SAMPLERS)

add('_npi_norm', ({'data': f(2, 3)}, {'flag': -2}), ({'data': f(2, 3, 4)}, {'ord': 3, 'axis': (1,), 'keepdims': True}),
    ({'data': f(2, 3, 4)}, {'axis': (2, 1), 'flag': 1}), ({'data': f(3, 3)}, {'axis': (0, 1), 'flag': 2}))
add('_npx_constraint_check', ({'input': np.array([True, True])}, {'msg': 'all true'}))
