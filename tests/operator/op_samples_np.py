"""Samples for the operators of MXNet's NumPy interface (mxcompat/symbol/numpy/_ops.py: ``_npi_add``, ``_np_sum``,
``_npx_reshape`` ...), for tests/symbol/test_sym_vs_eager.py: importing this module adds them to
``op_samples.SAMPLES``. The values against MXNet 1.9.1 are checked through Gluon in NumPy mode
(tests/gluon/test_np_mode_golden.py, exported graphs included) and by the mx.np function each op runs."""
import numpy as np

import mxcompat.symbol.numpy  # noqa: F401  (registers the operators)
from mxcompat.symbol.numpy._ops import UNARY
from tests.operator import op_samples
from tests.operator.op_samples import add, f, ints, nonzero, pos, distinct

_BINARY = ('add', 'subtract', 'multiply', 'equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal')
for _n in _BINARY:
    add('_npi_' + _n, ({'lhs': f(2, 3), 'rhs': f(1, 3)}, {}), ({'lhs': ints(3, 2, 3), 'rhs': ints(3, 2, 1)}, {}))
    add('_npi_%s_scalar' % _n, ({'data': f(2, 3)}, {'scalar': 0.5, 'is_int': False}),
        ({'data': ints(4, 2, 3, lo=-2, dtype=np.int32)}, {'scalar': 1, 'is_int': True}))
add('_npi_true_divide', ({'lhs': f(2, 3), 'rhs': nonzero(1, 3)}, {}))
add('_npi_true_divide_scalar', ({'data': f(2, 3)}, {'scalar': 2.0, 'is_int': False}))
add('_npi_rtrue_divide_scalar', ({'data': nonzero(2, 3)}, {'scalar': 2.0, 'is_int': False}))
add('_npi_power', ({'lhs': pos(2, 3), 'rhs': f(1, 3)}, {}))
add('_npi_power_scalar', ({'data': f(2, 3)}, {'scalar': 2, 'is_int': True}))
add('_npi_rpower_scalar', ({'data': f(2, 3)}, {'scalar': 1.5, 'is_int': False}))
add('_npi_mod', ({'lhs': f(2, 3, lo=-3, hi=3), 'rhs': nonzero(1, 3)}, {}))
add('_npi_mod_scalar', ({'data': f(2, 3, lo=-3, hi=3)}, {'scalar': 0.7, 'is_int': False}))
add('_npi_rmod_scalar', ({'data': nonzero(2, 3)}, {'scalar': 1.5, 'is_int': False}))
add('_npi_rsubtract_scalar', ({'data': f(2, 3)}, {'scalar': 2.0, 'is_int': False}))
add('_npi_subtract_scalar', ({'data': f(2, 3)}, {'scalar': 2.0, 'is_int': False}))
for _n in UNARY + ('absolute', 'negative'):
    if _n in ('log', 'log2', 'log10', 'log1p', 'sqrt', 'reciprocal'):
        data = pos(2, 3)
    elif _n in ('arcsin', 'arccos', 'arctanh'):
        data = f(2, 3, lo=-0.9, hi=0.9)
    elif _n == 'arccosh':
        data = f(2, 3, lo=1.1, hi=3)
    else:
        data = f(2, 3, lo=-2, hi=2)
    add('_npi_' + _n, ({'x': data}, {}))
for _n in ('relu', 'sigmoid'):
    add('_npx_' + _n, ({'data': f(2, 3, lo=-2, hi=2)}, {}))
add('_npi_where', ({'condition': ints(2, 2, 3), 'x': f(2, 3), 'y': f(1, 3)}, {}))
for _n in ('_np_sum', '_np_prod', '_npi_mean'):
    add(_n, ({'a': f(2, 3, 4)}, {}), ({'a': f(2, 3, 4)}, {'axis': (0, 2), 'keepdims': True}),
        ({'a': f(2, 3)}, {'axis': 1}))
add('_np_sum', ({'a': ints(4, 2, 3, dtype=np.int32)}, {'axis': 0, 'dtype': 'float32'}))
for _n in ('_np_max', '_np_min'):
    add(_n, ({'a': distinct(2, 3, 4)}, {}), ({'a': distinct(2, 3, 4)}, {'axis': 1, 'keepdims': True}))
for _n in ('_npi_var', '_npi_std'):
    add(_n, ({'a': f(3, 4)}, {}), ({'a': f(3, 4)}, {'axis': 0, 'ddof': 1}))
for _n in ('_npi_argmax', '_npi_argmin'):
    add(_n, ({'data': distinct(3, 4)}, {'axis': 1}), ({'data': distinct(3, 4)}, {'axis': 0, 'keepdims': True}))
add('_np_dot', ({'a': f(2, 3), 'b': f(3, 4)}, {}), ({'a': f(3), 'b': f(3)}, {}))
add('_np_reshape', ({'a': f(2, 3, 4)}, {'newshape': (4, -1)}))
add('_npx_reshape', ({'a': f(2, 1, 4)}, {'newshape': (-2, -3, -4)}), ({'a': f(2, 3, 4)}, {'newshape': (-2, -1)}))
add('_np_transpose', ({'a': f(2, 3, 4)}, {}), ({'a': f(2, 3, 4)}, {'axes': (1, 0, 2)}))
add('_np_squeeze', ({'a': f(2, 1, 3, 1)}, {}), ({'a': f(2, 1, 3, 1)}, {'axis': 1}))
add('_npi_broadcast_to', ({'array': f(1, 3)}, {'shape': (2, 3)}))
add('_np_copy', ({'a': f(2, 3)}, {}))
add('_npi_concatenate', ([f(2, 3), f(1, 3)], {'axis': 0}), ([f(2, 3), f(2, 1)], {'axis': 1}))
add('_npi_stack', ([f(2, 3), f(2, 3)], {'axis': 1}))
add('_npi_full_like', ({'a': f(2, 3)}, {'fill_value': 1.5}), ({'a': ints(3, 2, 3, dtype=np.int32)},
                                                               {'fill_value': 2, 'dtype': 'float32'}))
add('_npi_zeros', ({}, {'shape': (2, 3)}))
add('_npi_ones', ({}, {'shape': (2, 3), 'dtype': 'int32'}))
add('_npi_arange', ({}, {'start': 1, 'stop': 7, 'step': 2}))
add('_np_roll', ({'data': f(2, 3)}, {'shift': 1}), ({'data': f(2, 3)}, {'shift': (1, -1), 'axis': (0, 1)}))
add('_npi_hsplit', ({'data': f(2, 4)}, {'indices': (), 'sections': 2}), ({'data': f(5)}, {'indices': (0, 2)}))
add('_npi_tensordot', ({'a': f(2, 3, 4), 'b': f(4, 3, 2)}, {'a_axes_summed': (1, 2), 'b_axes_summed': (1, 0)}))
add('_npi_tensordot_int_axes', ({'a': f(2, 3, 4), 'b': f(3, 4, 2)}, {'axes': 2}), ({'a': f(2), 'b': f(3)},
                                                                                  {'axes': 0}))
_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=np.float32)
for _n in ('_npi_det', '_npi_inv', '_npi_cholesky', '_npi_slogdet', '_npi_eigvalsh', '_npi_eigh'):
    add(_n, ({'A': _SPD}, {}))
add('_npi_eigvals', ({'A': _SPD}, {}))
add('_npi_eig', ({'A': _SPD}, {}))
add('_npi_svd', ({'A': f(2, 3)}, {}))
add('_npi_pinv_scalar_rcond', ({'A': f(3, 2)}, {}))
add('_npi_solve', ({'a': _SPD, 'b': f(3, 2)}, {}))
add('_npi_tensorinv', ({'a': np.eye(6, dtype=np.float32).reshape(6, 2, 3) * 2 + 0.1}, {'ind': 1}))
add('_npi_tensorsolve', ({'a': (np.eye(6, dtype=np.float32) * 2 + 0.1).reshape(2, 3, 6), 'b': f(2, 3)}, {}))

# mx.sym.np's functions of element-wise math, reductions, shapes and creation (their operators)
for _n in ('isnan', 'isinf', 'isposinf', 'isneginf', 'isfinite'):
    add('_npi_' + _n, ({'x': np.array([0.5, np.nan, np.inf, -np.inf, -1.0], np.float32)}, {}))
add('_npi_bitwise_not', ({'x': ints(9, 2, 3, lo=-4, dtype=np.int32)}, {}))
add('_npi_around', ({'x': f(2, 3, lo=-3, hi=3)}, {}), ({'x': f(2, 3, lo=-3, hi=3)}, {'decimals': 1}))
add('_npi_nan_to_num', ({'data': np.array([0.5, np.nan, np.inf, -np.inf], np.float32)}, {}),
    ({'data': np.array([0.5, np.nan, np.inf, -np.inf], np.float32)}, {'nan': 1.0, 'posinf': 9.0, 'neginf': -9.0}))
for _n, _x in (('arctan2', 'x'), ('hypot', 'x'), ('copysign', 'lhs'), ('ldexp', 'lhs')):
    _names = ('x1', 'x2') if _x == 'x' else ('lhs', 'rhs')
    add('_npi_' + _n, ({_names[0]: f(2, 3), _names[1]: nonzero(1, 3)}, {}))
for _n in ('arctan2', 'copysign', 'ldexp', 'rarctan2', 'rcopysign', 'rldexp'):
    add('_npi_%s_scalar' % _n, ({'data': f(2, 3)}, {'scalar': 1.5, 'is_int': False}),
        ({'data': f(2, 3)}, {'scalar': 2, 'is_int': True}))
for _n in ('lcm', 'bitwise_and', 'bitwise_or', 'bitwise_xor'):
    add('_npi_' + _n, ({'lhs': ints(9, 2, 3, lo=1, dtype=np.int32), 'rhs': ints(9, 1, 3, lo=1, dtype=np.int32)}, {}))
    add('_npi_%s_scalar' % _n, ({'data': ints(9, 2, 3, lo=1, dtype=np.int32)}, {'scalar': 6, 'is_int': True}))
add('_npi_matmul', ({'a': f(2, 3), 'b': f(3, 4)}, {}), ({'a': f(2, 2, 3), 'b': f(3, 2)}, {}))
for _n in ('_np_all', '_np_any'):
    add(_n, ({'data': ints(2, 2, 3)}, {}), ({'data': ints(2, 2, 3)}, {'axis': 1, 'keepdims': True}))
add('_npi_average', ({'a': f(2, 3)}, {'weighted': False}), ({'a': f(2, 3), 'weights': pos(2, 3)}, {'axis': 1}),
    ({'a': f(2, 3), 'weights': pos(3)}, {'axis': 1, 'returned': True}))
add('_npi_percentile', ({'a': distinct(3, 4)}, {'q_scalar': 30.0}),
    ({'a': distinct(3, 4), 'q': np.array([20.0, 75.0], np.float32)}, {'axis': 1, 'interpolation': 'midpoint'}))
add('_np_trace', ({'data': f(3, 4)}, {}), ({'data': f(2, 3, 4)}, {'offset': 1, 'axis1': 1, 'axis2': 2}))
add('_npi_diff', ({'a': f(3, 4)}, {}), ({'a': f(4, 3)}, {'n': 2, 'axis': 0}))
add('_npi_ediff1d', ({'input1': f(5)}, {'to_begin_scalar': 1.0}),
    ({'input1': f(5), 'input2': f(2), 'input3': f(3)}, {'to_begin_arr_given': True, 'to_end_arr_given': True}))
add('_npi_bincount', ({'data': ints(6, 8, dtype=np.int64)}, {'minlength': 7}),
    ({'data': ints(6, 8, dtype=np.int64), 'weights': f(8)}, {'minlength': 7, 'has_weights': True}))
add('_npi_polyval', ({'p': f(3), 'x': f(2, 3)}, {}))
add('_npi_unique', ({'data': ints(4, 8)}, {}), ({'data': ints(4, 8)}, {'return_index': True, 'return_counts': True}))
add('_npi_delete', ({'arr': f(3, 4)}, {'int_ind': 1, 'axis': 1}),
    ({'arr': f(3, 4)}, {'start': 0, 'stop': 4, 'step': 2, 'axis': 1}))
add('_npi_insert_scalar', ({'arr': f(3, 4)}, {'val': 2.0, 'int_ind': 1}),
    ({'arr': f(3, 4), 'values': f(4)}, {'int_ind': 1, 'axis': 0}))
add('_npi_insert_slice', ({'arr': f(3, 4), 'values': f(2, 4)}, {'start': 0, 'stop': 2, 'step': 1, 'axis': 0}))
add('_npi_insert_tensor', ({'arr': f(3, 4), 'values': f(3, 2), 'obj': np.array([0, 2], np.int64)}, {'axis': 1}))
for _n in ('_np_diag', '_np_diagflat'):
    add(_n, ({'data': f(3)}, {}), ({'data': f(3, 4)}, {'k': 1}))
add('_np_diagonal', ({'data': f(3, 4)}, {}), ({'data': f(2, 3, 4)}, {'offset': -1, 'axis1': 2, 'axis2': 0}))
add('_npi_diag_indices_from', ({'data': f(3, 3)}, {}))
add('_npi_flip', ({'data': f(2, 3, 4)}, {'axis': (0, 2)}))
add('_np_moveaxis', ({'a': f(2, 3, 4)}, {'source': 0, 'destination': -1}))
add('_npi_rot90', ({'data': f(2, 3, 4)}, {}), ({'data': f(2, 3, 4)}, {'k': 3, 'axes': (1, 2)}))
add('_npi_tril', ({'data': f(3, 4)}, {}), ({'data': f(3, 4)}, {'k': -1}))
add('_npi_pad', ({'data': f(2, 3)}, {'pad_width': ((1, 0), (0, 2))}),
    ({'data': f(2, 3)}, {'pad_width': ((1, 1), (2, 1)), 'mode': 'reflect'}),
    ({'data': f(2, 3)}, {'pad_width': ((1, 1), (1, 1)), 'mode': 'maximum'}))
add('_npi_einsum', ([f(2, 3), f(3, 4)], {'subscripts': 'ij,jk->ik'}), ([f(3, 3)], {'subscripts': 'ii->i'}))
add('_npi_share_memory', ({'a': f(2, 3), 'b': f(2, 3)}, {}))
for _n in ('_np_atleast_1d', '_np_atleast_2d', '_np_atleast_3d'):
    add(_n, ([f(3), f(2, 3)], {}))
for _n in ('_npi_column_stack', '_npi_hstack', '_npi_vstack', '_npi_dstack'):
    add(_n, ([f(2, 3), f(2, 3)], {}))
add('_npi_dsplit', ({'data': f(2, 3, 4)}, {'indices': (), 'sections': 2}),
    ({'data': f(2, 3, 4)}, {'indices': (0, 1, 3)}))
add('_npi_eye', ({}, {'N': 3}), ({}, {'N': 3, 'M': 4, 'k': 1, 'dtype': 'int32'}))
add('_npi_identity', ({}, {'shape': (3, 3)}))
add('_npi_indices', ({}, {'dimensions': (2, 3)}))
add('_npi_logspace', ({}, {'start': 0.0, 'stop': 2.0, 'num': 5}), ({}, {'start': 1.0, 'stop': 3.0, 'num': 4,
                                                                       'endpoint': False, 'base': 2.0}))
for _n in ('_npi_hanning', '_npi_hamming', '_npi_blackman'):
    add(_n, ({}, {'M': 5}))

ADDED = sorted(n for n in op_samples.SAMPLES if n.startswith(('_np_', '_npi_', '_npx_')))
