"""Small sample inputs and attribute sets for the registry operators, for tests that run every op
(tests/symbol/test_sym_vs_eager.py).

``SAMPLES[op] = [(inputs, attrs), ...]``: ``inputs`` is a dict {input name: numpy array} in the op's input order
(only the inputs the attributes switch on), or a list of arrays for a variadic op; ``attrs`` are keyword arguments
as a user writes them. Values come from one seeded generator and are chosen inside each op's domain (positive for
log/sqrt, |x| < 1 for arcsin, integer-valued indices, well-conditioned matrices ...).

``RANDOM``: ops whose values are random (or uninitialised): only shapes and dtypes can be compared.
``STATEFUL``: ops that update some inputs in place (optimizer states): those inputs are compared too, and no
gradients are taken.
"""
import numpy as np

import mxcompat as mx

_rs = np.random.RandomState(20240611)


def f(*shape, lo=-1.0, hi=1.0, dtype=np.float32):
    """Uniform floats in [lo, hi)."""
    return _rs.uniform(lo, hi, shape).astype(dtype)


def pos(*shape, lo=0.5, hi=2.0):
    return f(*shape, lo=lo, hi=hi)


def nonzero(*shape):
    """Floats with |x| in [0.5, 2): safe divisors."""
    return (pos(*shape) * _rs.choice([-1.0, 1.0], shape)).astype(np.float32)


def ints(hi, *shape, lo=0, dtype=np.float32):
    """Integer values in [lo, hi) (float32 by default, as MXNet's index inputs usually are)."""
    return _rs.randint(lo, hi, shape).astype(dtype)


def distinct(*shape):
    """Floats with no ties (for sort/topk/argmax)."""
    n = int(np.prod(shape))
    return (_rs.permutation(n).astype(np.float32) / n - 0.5).reshape(shape)


def spd(n, batch=()):
    a = f(*batch, n, n)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)).astype(np.float32)


def lower_tri(n):
    return (np.tril(f(n, n)) + 2 * np.eye(n, dtype=np.float32)).astype(np.float32)


SAMPLES = {}


def add(name, *cases):
    SAMPLES.setdefault(name, []).extend(cases)


def unary(name, data=None, *attr_sets):
    add(name, *[({'data': f(2, 3) if data is None else data}, a) for a in (attr_sets or ({},))])


# ---- elementwise unary ---------------------------------------------------------------------------------------------
for _n in ('abs', 'arcsinh', 'arctan', 'cbrt', 'ceil', 'cos', 'cosh', 'degrees', 'erf', 'exp', 'expm1', 'fix',
           'floor', 'negative', 'radians', 'relu', 'rint', 'round', 'sigmoid', 'sign', 'sin', 'sinh', 'softsign',
           'square', 'tan', 'tanh', 'trunc', '_copy', 'BlockGrad', 'make_loss', 'ones_like', 'zeros_like',
           'shape_array', 'size_array', 'logical_not'):
    unary(_n, f(2, 3, lo=-2, hi=2))
for _n in ('arcsin', 'arccos', 'arctanh', 'erfinv'):
    unary(_n, f(2, 3, lo=-0.9, hi=0.9))
unary('arccosh', f(2, 3, lo=1.1, hi=3))
for _n in ('log', 'log10', 'log2', 'log1p', 'sqrt', 'rsqrt', 'rcbrt', 'reciprocal', 'gamma', 'gammaln', 'digamma'):
    unary(_n, pos(2, 3))
_special = np.array([[1.0, np.inf, -np.inf], [np.nan, 0.0, -2.0]], dtype=np.float32)
for _n in ('_contrib_isfinite', '_contrib_isinf', '_contrib_isnan'):
    unary(_n, _special)
unary('Flatten', f(2, 3, 2))
unary('smooth_l1', f(2, 3, lo=-2, hi=2), {}, {'scalar': 2.0})
unary('hard_sigmoid', f(2, 3, lo=-4, hi=4), {}, {'alpha': 0.3, 'beta': 0.4})
unary('clip', f(2, 3), {'a_min': -0.5, 'a_max': 0.5})
unary('Cast', f(2, 3), {'dtype': 'float64'}, {'dtype': 'int32'})
unary('amp_cast', f(2, 3), {'dtype': 'float16'}, {'dtype': 'float32'})

# ---- binary, broadcasting and same-shape ---------------------------------------------------------------------------
for _n in ('add', 'sub', 'mul', 'maximum', 'minimum', 'hypot', 'equal', 'not_equal', 'greater', 'greater_equal',
           'lesser', 'lesser_equal', 'logical_and', 'logical_or', 'logical_xor'):
    add('broadcast_' + _n, ({'lhs': ints(3, 2, 3, lo=-1), 'rhs': ints(3, 1, 3, lo=-1)}, {}),
        ({'lhs': f(2, 1, 3), 'rhs': f(4, 1)}, {}))
add('broadcast_div', ({'lhs': f(2, 3), 'rhs': nonzero(1, 3)}, {}))
add('broadcast_mod', ({'lhs': f(2, 3, lo=-3, hi=3), 'rhs': nonzero(1, 3)}, {}))
add('broadcast_power', ({'lhs': pos(2, 3), 'rhs': f(1, 3)}, {}))
for _n in ('elemwise_add', 'elemwise_sub', 'elemwise_mul'):
    add(_n, ({'lhs': f(2, 3), 'rhs': f(2, 3)}, {}))
add('elemwise_div', ({'lhs': f(2, 3), 'rhs': nonzero(2, 3)}, {}))
for _n in ('_equal', '_not_equal', '_greater', '_greater_equal', '_lesser', '_lesser_equal', '_maximum', '_minimum',
           '_hypot', '_logical_and', '_logical_or', '_logical_xor'):
    add(_n, ({'lhs': ints(3, 2, 3, lo=-1), 'rhs': ints(3, 2, 3, lo=-1)}, {}))
add('_mod', ({'lhs': f(2, 3, lo=-3, hi=3), 'rhs': nonzero(2, 3)}, {}))
add('_power', ({'lhs': pos(2, 3), 'rhs': f(2, 3)}, {}))

# ---- scalar ops ----------------------------------------------------------------------------------------------------
for _n in ('plus', 'minus', 'rminus', 'mul', 'div', 'maximum', 'minimum', 'hypot', 'equal', 'not_equal', 'greater',
           'greater_equal', 'lesser', 'lesser_equal', 'logical_and', 'logical_or', 'logical_xor', 'mod', 'rmod'):
    add('_%s_scalar' % _n, ({'data': f(2, 3, lo=-2, hi=2)}, {'scalar': 0.5}),
        ({'data': ints(4, 2, 3, lo=-2)}, {'scalar': 1}))
add('_rdiv_scalar', ({'data': nonzero(2, 3)}, {'scalar': 2.0}))
add('_power_scalar', ({'data': pos(2, 3)}, {'scalar': 1.5}), ({'data': f(2, 3)}, {'scalar': 2}))
add('_rpower_scalar', ({'data': f(2, 3)}, {'scalar': 1.5}))

# ---- reductions, ordering ------------------------------------------------------------------------------------------
for _n in ('sum', 'mean', 'prod', 'max', 'min', 'nansum', 'nanprod'):
    unary(_n, f(2, 3, 4), {}, {'axis': 1, 'keepdims': True}, {'axis': (0, 2), 'exclude': True})
unary('norm', f(2, 3, 4), {}, {'ord': 1, 'axis': 1}, {'axis': (1, 2), 'keepdims': True})
unary('moments', f(2, 3, 4), {'axes': (1,)}, {'axes': (0, 2), 'keepdims': True})
unary('argmax', distinct(3, 4), {}, {'axis': 1}, {'axis': 0, 'keepdims': True})
unary('argmin', distinct(3, 4), {}, {'axis': 1})
unary('argmax_channel', distinct(3, 4))
unary('sort', distinct(3, 4), {}, {'axis': 0, 'is_ascend': False})
unary('argsort', distinct(3, 4), {}, {'axis': 0, 'dtype': 'int32'})
unary('topk', distinct(3, 4), {}, {'k': 2, 'ret_typ': 'both'}, {'k': 2, 'ret_typ': 'value', 'axis': 0},
      {'k': 2, 'ret_typ': 'mask'})

# ---- shapes --------------------------------------------------------------------------------------------------------
unary('Reshape', f(2, 3, 2), {'shape': (3, -1)}, {'shape': (0, -1)}, {'shape': (-3, 2)})
unary('expand_dims', f(2, 3), {'axis': 1}, {'axis': -1})
unary('squeeze', f(2, 1, 3, 1), {}, {'axis': 1})
unary('transpose', f(2, 3, 4), {}, {'axes': (1, 0, 2)})
unary('SwapAxis', f(2, 3, 4), {'dim1': 0, 'dim2': 2})
unary('broadcast_to', f(1, 3), {'shape': (2, 3)})
unary('broadcast_axis', f(1, 3, 1), {'axis': 0, 'size': 2}, {'axis': (0, 2), 'size': (2, 2)})
add('broadcast_like', ({'lhs': f(1, 3), 'rhs': f(2, 3)}, {}))
add('reshape_like', ({'lhs': f(2, 3), 'rhs': f(3, 2)}, {}))
unary('tile', f(2, 3), {'reps': (2, 1)}, {'reps': (2,)})
unary('repeat', f(2, 3), {'repeats': 2}, {'repeats': 2, 'axis': 1})
unary('reverse', f(2, 3), {'axis': 0}, {'axis': 1})
unary('slice', f(3, 4), {'begin': (0, 1), 'end': (2, 3)}, {'begin': (None, 3), 'end': (None, 0), 'step': (1, -1)})
unary('slice_axis', f(3, 4), {'axis': 1, 'begin': 0, 'end': 2}, {'axis': 0, 'begin': 1, 'end': None})
add('slice_like', ({'data': f(3, 4), 'shape_like': f(2, 3)}, {}), ({'data': f(3, 4), 'shape_like': f(2, 3)},
                                                                    {'axes': (1,)}))
add('Concat', ([f(2, 3), f(2, 2)], {'dim': 1}), ([f(2, 3), f(1, 3)], {'dim': 0}))
add('_rnn_param_concat', ([f(4), f(2)], {'dim': 0}), ([f(2, 3), f(1, 3)], {'dim': 0}))
add('stack', ([f(2, 3), f(2, 3)], {'axis': 1}), ([f(2, 3), f(2, 3), f(2, 3)], {}))
add('add_n', ([f(2, 3), f(2, 3), f(2, 3)], {}))
unary('SliceChannel', f(2, 4), {'num_outputs': 2}, {'num_outputs': 2, 'axis': 0, 'squeeze_axis': True})
unary('_split_v2', f(2, 4), {'indices': (0, 1), 'axis': 1}, {'indices': (), 'sections': 2, 'axis': 1})
unary('depth_to_space', f(1, 4, 2, 2), {'block_size': 2})
unary('space_to_depth', f(1, 1, 4, 4), {'block_size': 2})
unary('diag', f(3, 3), {}, {'k': 1})
unary('Pad', f(1, 1, 3, 3), {'mode': 'constant', 'pad_width': (0, 0, 0, 0, 1, 1, 1, 1), 'constant_value': 2.0},
      {'mode': 'edge', 'pad_width': (0, 0, 0, 0, 1, 1, 1, 1)},
      {'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 1, 1, 1, 1)})

# ---- indexing ------------------------------------------------------------------------------------------------------
add('take', ({'a': f(4, 3), 'indices': ints(4, 2, 2)}, {}), ({'a': f(4, 3), 'indices': ints(3, 2)}, {'axis': 1}),
    ({'a': f(4, 3), 'indices': np.array([-1, 5], np.float32)}, {'mode': 'wrap'}))
add('batch_take', ({'a': f(3, 4), 'indices': ints(4, 3, dtype=np.int32)}, {}))
add('pick', ({'data': f(3, 4), 'index': ints(4, 3)}, {}), ({'data': f(3, 4), 'index': ints(3, 4)},
                                                           {'axis': 0, 'keepdims': True}))
add('one_hot', ({'indices': ints(4, 3)}, {'depth': 4}), ({'indices': ints(4, 2, 2)},
                                                         {'depth': 4, 'on_value': 2, 'dtype': 'int32'}))
add('gather_nd', ({'data': f(3, 4), 'indices': np.array([[0, 2, 1], [1, 3, 0]], np.float32)}, {}))
add('scatter_nd', ({'data': f(3), 'indices': np.array([[0, 2, 1], [1, 3, 0]], np.float32)}, {'shape': (3, 4)}))
add('where', ({'condition': ints(2, 2, 3), 'x': f(2, 3), 'y': f(2, 3)}, {}))
add('_slice_assign', ({'lhs': f(3, 4), 'rhs': f(2, 2)}, {'begin': (0, 1), 'end': (2, 3)}))
add('_slice_assign_scalar', ({'data': f(3, 4)}, {'scalar': 2.0, 'begin': (1, 0), 'end': (3, 2)}))
add('fill_element_0index', ({'lhs': f(3, 4), 'mhs': f(3), 'rhs': ints(4, 3)}, {}))

# ---- linear algebra ------------------------------------------------------------------------------------------------
add('dot', ({'lhs': f(2, 3), 'rhs': f(3, 4)}, {}), ({'lhs': f(3, 2), 'rhs': f(4, 3)},
                                                    {'transpose_a': True, 'transpose_b': True}))
add('batch_dot', ({'lhs': f(2, 2, 3), 'rhs': f(2, 3, 4)}, {}), ({'lhs': f(2, 3, 2), 'rhs': f(2, 3, 4)},
                                                                {'transpose_a': True}))
add('khatri_rao', ([f(2, 3), f(4, 3)], {}))
add('_linalg_gemm', ({'A': f(2, 3), 'B': f(3, 4), 'C': f(2, 4)}, {'alpha': 2.0, 'beta': 0.5}),
    ({'A': f(3, 2), 'B': f(3, 4), 'C': f(2, 4)}, {'transpose_a': True}))
add('_linalg_gemm2', ({'A': f(2, 3), 'B': f(3, 4)}, {}), ({'A': f(2, 3), 'B': f(4, 3)},
                                                          {'transpose_b': True, 'alpha': 0.5}))
add('_linalg_potrf', ({'A': spd(3)}, {}), ({'A': spd(3, (2,))}, {}))
add('_linalg_potri', ({'A': lower_tri(3)}, {}))
add('_linalg_trmm', ({'A': lower_tri(3), 'B': f(3, 2)}, {}), ({'A': lower_tri(3), 'B': f(2, 3)},
                                                              {'rightside': True, 'transpose': True}))
add('_linalg_trsm', ({'A': lower_tri(3), 'B': f(3, 2)}, {}), ({'A': lower_tri(3), 'B': f(2, 3)},
                                                              {'rightside': True, 'alpha': 2.0}))
add('_linalg_syrk', ({'A': f(2, 3)}, {}), ({'A': f(2, 3)}, {'transpose': True, 'alpha': 0.5}))
add('_linalg_gelqf', ({'A': f(2, 3)}, {}))
add('_linalg_syevd', ({'A': spd(3)}, {}))
add('_linalg_inverse', ({'A': spd(3)}, {}))
add('_linalg_det', ({'A': spd(3)}, {}))
add('_linalg_slogdet', ({'A': f(3, 3) + 3 * np.eye(3, dtype=np.float32)}, {}))
add('_linalg_sumlogdiag', ({'A': spd(3)}, {}))
add('_linalg_extractdiag', ({'A': f(3, 3)}, {}), ({'A': f(3, 3)}, {'offset': 1}))
add('_linalg_makediag', ({'A': f(3)}, {}), ({'A': f(2, 3)}, {'offset': -1}))
add('_linalg_extracttrian', ({'A': f(3, 3)}, {}), ({'A': f(3, 3)}, {'lower': False, 'offset': 1}))
add('_linalg_maketrian', ({'A': f(6)}, {}), ({'A': f(3)}, {'lower': False, 'offset': 1}))

# ---- neural network ------------------------------------------------------------------------------------------------
add('FullyConnected', ({'data': f(2, 3), 'weight': f(4, 3), 'bias': f(4)}, {'num_hidden': 4}),
    ({'data': f(2, 2, 3), 'weight': f(4, 3)}, {'num_hidden': 4, 'no_bias': True, 'flatten': False}))
add('Convolution', ({'data': f(1, 2, 5, 5), 'weight': f(3, 2, 3, 3), 'bias': f(3)}, {'kernel': (3, 3),
                                                                                     'num_filter': 3}),
    ({'data': f(1, 2, 5, 5), 'weight': f(4, 1, 3, 3)}, {'kernel': (3, 3), 'num_filter': 4, 'num_group': 2,
                                                       'stride': (2, 2), 'pad': (1, 1), 'no_bias': True}),
    ({'data': f(2, 2, 6), 'weight': f(3, 2, 3), 'bias': f(3)}, {'kernel': (3,), 'num_filter': 3, 'dilate': (2,)}))
add('Deconvolution', ({'data': f(1, 2, 3, 3), 'weight': f(2, 3, 3, 3)}, {'kernel': (3, 3), 'num_filter': 3}),
    ({'data': f(1, 2, 3, 3), 'weight': f(2, 2, 2, 2), 'bias': f(2)},
     {'kernel': (2, 2), 'num_filter': 2, 'stride': (2, 2), 'no_bias': False}))
unary('Pooling', f(1, 2, 4, 4), {'kernel': (2, 2), 'stride': (2, 2)},
      {'kernel': (3, 3), 'pool_type': 'avg', 'pad': (1, 1)}, {'pool_type': 'max', 'global_pool': True},
      {'kernel': (2, 2), 'pool_type': 'sum'})
add('BatchNorm', ({'data': f(2, 3, 4), 'gamma': pos(3), 'beta': f(3), 'moving_mean': f(3), 'moving_var': pos(3)},
                  {}),
    ({'data': f(2, 3, 2, 2), 'gamma': pos(3), 'beta': f(3), 'moving_mean': f(3), 'moving_var': pos(3)},
     {'fix_gamma': False, 'momentum': 0.5}),
    ({'data': f(2, 3, 4), 'gamma': pos(4), 'beta': f(4), 'moving_mean': f(4), 'moving_var': pos(4)},
     {'axis': -1, 'use_global_stats': True, 'fix_gamma': False}))
add('LayerNorm', ({'data': f(2, 3), 'gamma': pos(3), 'beta': f(3)}, {}),
    ({'data': f(2, 3, 4), 'gamma': pos(3), 'beta': f(3)}, {'axis': 1, 'eps': 1e-3}))
add('InstanceNorm', ({'data': f(2, 3, 4), 'gamma': pos(3), 'beta': f(3)}, {}))
add('GroupNorm', ({'data': f(2, 4, 3), 'gamma': pos(2), 'beta': f(2)}, {'num_groups': 2}))
unary('L2Normalization', f(2, 3, 4), {}, {'mode': 'channel'}, {'mode': 'spatial'})
unary('LRN', f(1, 4, 3, 3), {'nsize': 3})
for _act in ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'):
    unary('Activation', f(2, 3, lo=-3, hi=3), {'act_type': _act})
unary('LeakyReLU', f(2, 3, lo=-2, hi=2), {}, {'act_type': 'elu', 'slope': 0.5}, {'act_type': 'selu'},
      {'act_type': 'gelu'})
add('LeakyReLU', ({'data': f(2, 3, 4), 'gamma': f(3)}, {'act_type': 'prelu'}))
unary('softmax', f(2, 3), {}, {'axis': 0, 'temperature': 2.0})
add('softmax', ({'data': f(2, 3), 'length': np.array([2, 3], np.int32)}, {'use_length': True}))
unary('log_softmax', f(2, 3), {}, {'axis': 0})
unary('softmin', f(2, 3), {}, {'temperature': 0.5})
unary('SoftmaxActivation', f(2, 3, 4), {}, {'mode': 'channel'})
add('Embedding', ({'data': ints(5, 2, 3), 'weight': f(5, 4)}, {'input_dim': 5, 'output_dim': 4}))
add('SoftmaxOutput', ({'data': f(3, 4), 'label': ints(4, 3)}, {}),
    ({'data': f(3, 4), 'label': np.array([0, -1, 2], np.float32)}, {'use_ignore': True, 'normalization': 'valid'}))
for _n in ('LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput'):
    add(_n, ({'data': f(3, 2), 'label': f(3, 2)}, {}), ({'data': f(3, 1), 'label': f(3)}, {'grad_scale': 2.0}))
add('SVMOutput', ({'data': f(3, 4), 'label': ints(4, 3)}, {}), ({'data': f(3, 4), 'label': ints(4, 3)},
                                                                {'use_linear': True, 'margin': 0.5}))
unary('MakeLoss', f(2, 3), {}, {'grad_scale': 0.5})
add('CTCLoss', ({'data': f(5, 2, 4), 'label': np.array([[1, 2, 0], [3, 3, 1]], np.float32)}, {}),
    ({'data': f(5, 2, 4), 'label': np.array([[1, 2, 0], [3, 1, 0]], np.float32),
      'data_lengths': np.array([5, 4], np.float32)}, {'use_data_lengths': True}))
for _n in ('SequenceLast', 'SequenceMask', 'SequenceReverse'):
    unary(_n, f(4, 2, 3))
    add(_n, ({'data': f(4, 2, 3), 'sequence_length': np.array([2, 4], np.float32)}, {'use_sequence_length': True}))
add('SequenceMask', ({'data': f(2, 4, 3), 'sequence_length': np.array([1, 3], np.float32)},
                     {'use_sequence_length': True, 'axis': 1, 'value': -1.0}))
add('UpSampling', ([f(1, 2, 3, 3)], {'scale': 2, 'sample_type': 'nearest'}),
    ([f(1, 2, 2, 2), f(1, 2, 4, 4)], {'scale': 2, 'sample_type': 'nearest', 'multi_input_mode': 'sum'}),
    ([f(1, 2, 3, 3), f(2, 1, 4, 4)], {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 2}))
add('ROIPooling', ({'data': f(1, 2, 6, 6), 'rois': np.array([[0, 0, 0, 3, 3], [0, 1, 2, 5, 5]], np.float32)},
                   {'pooled_size': (2, 2), 'spatial_scale': 1.0}))
add('BilinearSampler', ({'data': f(1, 2, 4, 4), 'grid': f(1, 2, 3, 3, lo=-0.9, hi=0.9)}, {}))
add('GridGenerator', ({'data': f(1, 6)}, {'transform_type': 'affine', 'target_shape': (3, 3)}),
    ({'data': f(1, 2, 3, 3)}, {'transform_type': 'warp'}))
add('SpatialTransformer', ({'data': f(1, 2, 4, 4), 'loc': np.array([[0.9, 0.1, 0.0, -0.1, 0.8, 0.1]], np.float32)},
                           {'target_shape': (3, 3), 'transform_type': 'affine', 'sampler_type': 'bilinear'}))
unary('Dropout', f(2, 3), {'p': 0.5}, {'p': 0.3, 'mode': 'always'})

add('RNN', ({'data': f(3, 2, 4), 'parameters': f(220, lo=-0.3, hi=0.3), 'state': f(1, 2, 5),
             'state_cell': f(1, 2, 5)}, {'state_size': 5, 'num_layers': 1, 'mode': 'lstm', 'state_outputs': True}),
    ({'data': f(3, 2, 4), 'parameters': f(165, lo=-0.3, hi=0.3), 'state': f(1, 2, 5)},
     {'state_size': 5, 'num_layers': 1, 'mode': 'gru'}),
    ({'data': f(3, 2, 4), 'parameters': f(110, lo=-0.3, hi=0.3), 'state': f(2, 2, 5)},
     {'state_size': 5, 'num_layers': 1, 'mode': 'rnn_tanh', 'bidirectional': True, 'state_outputs': True}))

# ---- creation ------------------------------------------------------------------------------------------------------
add('_zeros', ({}, {'shape': (2, 3)}), ({}, {'shape': (2,), 'dtype': 'int32'}))
add('_ones', ({}, {'shape': (2, 3)}), ({}, {'shape': (3,), 'dtype': 'float64'}))
add('_full', ({}, {'shape': (2, 3), 'value': 2.5}), ({}, {'shape': (2,), 'value': 3, 'dtype': 'int64'}))
add('_empty', ({}, {'shape': (2, 3)}))
add('_arange', ({}, {'start': 1, 'stop': 7, 'step': 2}), ({}, {'start': 0, 'stop': 3, 'repeat': 2,
                                                               'dtype': 'int32'}))
add('_eye', ({}, {'N': 3}), ({}, {'N': 2, 'M': 4, 'k': 1}))
add('_linspace', ({}, {'start': 0, 'stop': 1, 'num': 5}), ({}, {'start': 0, 'stop': 1, 'num': 4,
                                                                'endpoint': False}))

# ---- random --------------------------------------------------------------------------------------------------------
for _n, _a in (('uniform', {}), ('normal', {'loc': 1.0, 'scale': 2.0}), ('exponential', {}), ('gamma', {}),
               ('poisson', {'lam': 3.0}), ('negative_binomial', {'k': 2, 'p': 0.5}),
               ('generalized_negative_binomial', {})):
    add('_random_' + _n, ({}, dict(_a, shape=(2, 3))), ({}, dict(_a, shape=(4,), dtype='float64')))
    add('_random_%s_like' % _n, ({'data': f(2, 3)}, _a))
add('_random_randint', ({}, {'low': 0, 'high': 5, 'shape': (2, 3)}))
add('_sample_unique_zipfian', ({}, {'range_max': 50, 'shape': (2, 8)}))
for _n, _ins in (('uniform', ('low', 'high')), ('normal', ('mu', 'sigma')), ('gamma', ('alpha', 'beta')),
                 ('exponential', ('lam',)), ('poisson', ('lam',)), ('negative_binomial', ('k', 'p')),
                 ('generalized_negative_binomial', ('mu', 'alpha'))):
    _vals = {'low': f(2, lo=-1, hi=0), 'high': f(2, lo=1, hi=2), 'k': ints(4, 2, lo=1),
             'p': f(2, lo=0.2, hi=0.8)}
    add('_sample_' + _n, ({k: _vals.get(k, pos(2)) for k in _ins}, {}),
        ({k: _vals.get(k, pos(2)) for k in _ins}, {'shape': (3,)}))
add('_sample_multinomial', ({'data': np.array([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]], np.float32)}, {}),
    ({'data': np.array([[0.2, 0.3, 0.5]], np.float32)}, {'shape': (4,), 'get_prob': True}))
unary('_shuffle', f(4, 3))
for _n in ('brightness', 'contrast', 'saturation', 'hue'):
    add('_image_random_' + _n, ({'data': f(4, 4, 3, lo=0, hi=1)}, {'min_factor': 0.5, 'max_factor': 1.5}))
add('_image_random_color_jitter', ({'data': f(4, 4, 3, lo=0, hi=1)},
                                   {'brightness': 0.2, 'contrast': 0.2, 'saturation': 0.2, 'hue': 0.1}))
add('_image_random_lighting', ({'data': f(4, 4, 3, lo=0, hi=1)}, {'alpha_std': 0.1}))
add('_image_random_flip_left_right', ({'data': f(4, 4, 3)}, {}))
add('_image_random_flip_top_bottom', ({'data': f(4, 4, 3)}, {}))

# ---- more dtypes and attribute corners -----------------------------------------------------------------------------
add('where', ({'condition': np.array([1, 0], np.float32), 'x': f(2, 3), 'y': f(2, 3)}, {}))
add('broadcast_add', ({'lhs': ints(5, 2, 3, dtype=np.int32), 'rhs': ints(5, 1, 3, dtype=np.int32)}, {}))
add('_plus_scalar', ({'data': ints(5, 2, 3, dtype=np.int32)}, {'scalar': 1.5}))
add('_mul_scalar', ({'data': f(2, 3, dtype=np.float64)}, {'scalar': 3}))
add('sum', ({'data': ints(5, 2, 3, dtype=np.int32)}, {'axis': 0}))
add('argmax', ({'data': ints(9, 3, 4, dtype=np.int32)}, {'axis': 1}))
add('Cast', ({'data': ints(5, 2, 3, dtype=np.int32)}, {'dtype': 'float16'}))
add('FullyConnected', ({'data': f(2, 3, dtype=np.float64), 'weight': f(4, 3, dtype=np.float64),
                        'bias': f(4, dtype=np.float64)}, {'num_hidden': 4}))
add('Deconvolution', ({'data': f(1, 2, 3, 3), 'weight': f(2, 2, 3, 3)},
                      {'kernel': (3, 3), 'num_filter': 2, 'stride': (2, 2), 'adj': (1, 1)}),
    ({'data': f(1, 2, 3, 3), 'weight': f(2, 2, 3, 3)},
     {'kernel': (3, 3), 'num_filter': 2, 'stride': (2, 2), 'target_shape': (7, 7)}))
add('Pooling', ({'data': pos(1, 2, 5, 5)}, {'kernel': (2, 2), 'pool_type': 'lp', 'p_value': 2}),
    ({'data': f(1, 2, 5, 5)}, {'kernel': (2, 2), 'stride': (2, 2), 'pooling_convention': 'full'}),
    ({'data': f(1, 2, 5)}, {'kernel': (3,), 'pool_type': 'avg', 'count_include_pad': False, 'pad': (1,)}))
add('Reshape', ({'data': f(2, 3, 4)}, {'shape': (-4, 1, 2, -2)}), ({'data': f(2, 3, 4)},
                                                                  {'shape': (-1, 0), 'reverse': True}))
add('take', ({'a': f(4, 3), 'indices': ints(4, 3, dtype=np.int32)}, {'mode': 'raise'}))
add('topk', ({'data': distinct(3, 4)}, {'k': 3, 'is_ascend': True, 'ret_typ': 'both', 'dtype': 'int32'}))
add('SoftmaxOutput', ({'data': f(2, 3, 4), 'label': ints(3, 2, 4)}, {'multi_output': True}),
    ({'data': f(2, 3, 4), 'label': ints(4, 2, 3)}, {'preserve_shape': True, 'grad_scale': 2.0}))
add('softmax', ({'data': f(2, 3)}, {'dtype': 'float64'}))
add('log_softmax', ({'data': f(2, 3)}, {'temperature': 3.0}))
add('Embedding', ({'data': ints(5, 2, 3, dtype=np.int32), 'weight': f(5, 4)}, {'input_dim': 5, 'output_dim': 4}))
add('one_hot', ({'indices': ints(4, 3, dtype=np.int64)}, {'depth': 3}))
add('pick', ({'data': f(3, 4), 'index': np.array([-1, 5, 2], np.float32)}, {'mode': 'wrap'}))
add('squeeze', ({'data': f(1, 3, 1)}, {'axis': (0, 2)}))

RANDOM = {n for n in SAMPLES if n.startswith(('_random_', '_sample_', '_image_random_'))} | {
    'Dropout', '_shuffle', '_empty'}

# ---- images --------------------------------------------------------------------------------------------------------
_img = ints(256, 4, 4, 3, dtype=np.uint8)
add('_image_to_tensor', ({'data': _img}, {}), ({'data': f(2, 4, 4, 3, lo=0, hi=255)}, {}))
add('_image_normalize', ({'data': f(3, 4, 4)}, {'mean': (0.5, 0.4, 0.3), 'std': (0.2, 0.3, 0.4)}))
add('_image_flip_left_right', ({'data': _img}, {}), ({'data': f(4, 4, 3)}, {}))
add('_image_flip_top_bottom', ({'data': _img}, {}))
add('_image_crop', ({'data': _img}, {'x': 1, 'y': 0, 'width': 2, 'height': 3}))
add('_image_resize', ({'data': _img}, {'size': (2, 2)}), ({'data': f(4, 4, 3, lo=0, hi=1)},
                                                          {'size': (3, 2), 'interp': 0}))
add('_image_adjust_lighting', ({'data': f(4, 4, 3, lo=0, hi=1)}, {'alpha': (0.1, 0.2, 0.3)}))

# ---- optimizer updates: they write their states in place -----------------------------------------------------------
_wg = lambda: {'weight': f(2, 3), 'grad': f(2, 3)}  # noqa: E731
add('sgd_update', (_wg(), {'lr': 0.1}), (_wg(), {'lr': 0.1, 'wd': 0.01, 'clip_gradient': 0.5}))
add('sgd_mom_update', (dict(_wg(), mom=f(2, 3)), {'lr': 0.1, 'momentum': 0.9}))
add('nag_mom_update', (dict(_wg(), mom=f(2, 3)), {'lr': 0.1, 'momentum': 0.9}))
add('signsgd_update', (_wg(), {'lr': 0.1}))
add('signum_update', (dict(_wg(), mom=f(2, 3)), {'lr': 0.1, 'momentum': 0.9, 'wd_lh': 0.01}))
add('adam_update', (dict(_wg(), mean=f(2, 3), var=pos(2, 3)), {'lr': 0.01}))
add('rmsprop_update', (dict(_wg(), n=pos(2, 3)), {'lr': 0.01}))
add('rmspropalex_update', (dict(_wg(), n=pos(2, 3), g=f(2, 3), delta=f(2, 3)), {'lr': 0.01}))
add('ftml_update', (dict(_wg(), d=pos(2, 3), v=pos(2, 3), z=f(2, 3)), {'lr': 0.01, 't': 2}))
add('ftrl_update', (dict(_wg(), z=f(2, 3), n=pos(2, 3)), {'lr': 0.1}))
STATEFUL = {n for n in SAMPLES if n.endswith('_update')}


# ---- Custom: a registered legacy custom operator with an aux state -------------------------------------------------
class _ScaleCount(mx.operator.CustomOp):
    def __init__(self, scale):
        super(_ScaleCount, self).__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * self.scale + in_data[1])
        aux[0][:] = aux[0] + 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale)
        self.assign(in_grad[1], req[1], out_grad[0])


@mx.operator.register('_op_samples_scale')
class _ScaleCountProp(mx.operator.CustomOpProp):
    def __init__(self, scale='1'):
        super(_ScaleCountProp, self).__init__()
        self.scale = float(scale)

    def list_arguments(self):
        return ['data', 'bias']

    def list_auxiliary_states(self):
        return ['count']

    def infer_shape(self, in_shape):
        return in_shape[:2], [in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return _ScaleCount(self.scale)


add('Custom', ({'data': f(2, 3), 'bias': f(2, 3), 'count': np.zeros(1, np.float32)},
               {'op_type': '_op_samples_scale', 'scale': 2.5}))
add('_identity_with_attr_like_rhs', ({'lhs': f(2, 3), 'rhs': f(2, 3)}, {}))
# (after the others: new samples here leave the seeded values of those above unchanged)
add('_scatter_elemwise_div', ({'lhs': f(2, 3), 'rhs': nonzero(2, 3)}, {}))
add('_scatter_plus_scalar', ({'data': f(2, 3)}, {'scalar': 1.5}))
add('_scatter_minus_scalar', ({'data': ints(5, 2, 3, dtype=np.int32)}, {'scalar': 2}))
add('_sg_mkldnn_selfatt_qk', ({'queries_keys_values': f(4, 2, 12)}, {'heads': 2}))
add('_sg_mkldnn_selfatt_valatt', ({'queries_keys_values': f(4, 2, 12), 'attention': pos(4, 4, 4)}, {'heads': 2}))
