"""What the symbol graph needs to know about an operator beyond its registry entry: all its outputs (visible or not)
and their names, attributes given to the variables it creates, and the shapes of its parameter inputs."""
import torch

from ..base import MXNetError, parse_tuple
from ..operator import custom, _sg_mkldnn
from ..operator.elemwise import BINARY
from ..operator.shape_ops import reshape_data_from_output, transpose_data_from_output
from ..operator.rnn_op import rnn_input_shapes

def _numbered(n):
    return tuple('output%d' % i for i in range(n))


# op -> names of its outputs where they are not output (one) or output0, output1 ... (and of hidden ones after the
# visible ones), or rule(attrs) -> names or None for those
OUTPUT_NAMES = {
    'BatchNorm': ('output', 'mean', 'var'), 'BatchNorm_v1': ('output', 'mean', 'var'),
    '_contrib_SyncBatchNorm': ('output', 'mean', 'var'), '_contrib_BatchNormWithReLU': ('output', 'mean', 'var'),
    'LayerNorm': ('output', 'mean', 'std'),
    'Dropout': ('output', 'mask'),
    'GroupNorm': ('output', 'mean', 'std'),
    'InstanceNorm': ('output', 'mean', 'var'),
    'LeakyReLU': ('output', 'mask'),  # (the mask is visible with rrelu only)
    '_contrib_Proposal': ('output', 'score'), '_contrib_MultiProposal': ('output', 'score'),
    '_contrib_MultiBoxTarget': ('loc_target', 'loc_mask', 'cls_target'),
    '_npi_std': ('std',), '_npi_var': ('var',), '_npi_concatenate': ('out',), 'make_loss': ('loss',),
    # MXNet numbers the outputs of these by their count with the hidden ones: output0 for a single visible one
    'CTCLoss': _numbered(2), '_contrib_box_nms': _numbered(2), 'sort': _numbered(2),
    '_linalg_det': _numbered(3), '_npi_det': _numbered(3),
    'topk': lambda attrs: _numbered(2) if attrs.get('ret_typ') in ('value', 'both') else None,
    'SliceChannel': lambda attrs: _numbered(int(attrs.get('num_outputs', 1))),  # (one output too)
}


def _pooling_outputs(attrs):
    # MKLDNN keeps a workspace for the max pooling it runs: a kernel of 1 to 3 dimensions (given, global_pool or
    # not) in a channels-first layout (None is one)
    kernel = attrs.get('kernel') or ()
    mkldnn = 1 <= len(kernel) <= 3 and attrs.get('layout') in (None, 'NCW', 'NCHW', 'NCDHW')
    return 2 if mkldnn and attrs.get('pool_type', 'max') == 'max' else 1


# op -> how many outputs a node keeps, hidden ones included (nnvm's num_outputs; the visible ones are the
# registry's n_outputs, MXNet's FNumVisibleOutputs), as MXNet 1.9.1's CPU build with MKLDNN counts them: a count
# or rule(attrs) -> count. Other operators keep only their visible outputs. (tests/fixtures/symbol_json holds
# what MXNet counts for every operator.)
TOTAL_OUTPUTS = {
    'BatchNorm': 3, 'BatchNorm_v1': 3, '_contrib_SyncBatchNorm': 3,  # the batch mean and var
    '_contrib_BatchNormWithReLU': 4,  # and the ReLU's workspace
    'LayerNorm': 3, 'GroupNorm': 3, 'InstanceNorm': 3,  # mean and std (var)
    'Dropout': 2,  # the mask
    'LRN': 2,  # tmp_norm
    'L2Normalization': 2,  # the norm
    'Correlation': 3,  # the two padded inputs
    'BilinearSampler': 2,  # tmp
    'GridGenerator': 2,  # grid_dst
    'SpatialTransformer': 3,  # grid_dst, grid_src
    'ROIPooling': 2,  # maxidx
    '_contrib_DeformablePSROIPooling': 2,  # top_count
    '_contrib_Proposal': 2, '_contrib_MultiProposal': 2,  # the score, shown only with output_score
    '_contrib_box_nms': 2,  # the sorted indices
    'CTCLoss': 2,  # the gradient
    '_linalg_det': 3, '_npi_det': 3,  # the LU factors and pivots
    '_linalg_slogdet': 4, '_npi_slogdet': 4,  # the same after sign and logabsdet
    '_npi_std': 2, '_npi_var': 2,  # the mean
    'sort': 2,  # the indices
    'topk': lambda attrs: 2 if attrs.get('ret_typ') in ('value', 'both') else 1,  # indices behind the values
    'Pooling': _pooling_outputs,
}


def total_outputs(op, attrs, n_visible):
    """All outputs of a node as MXNet 1.9.1's CPU build (with MKLDNN) counts them in its JSON ``node_row_ptr``."""
    rule = TOTAL_OUTPUTS.get(op.name)
    if rule is None:
        return n_visible
    return max(rule(attrs) if callable(rule) else rule, n_visible)


# attributes a freshly created input variable gets (MXNet's FSetInputVarAttrOnCompose)
VAR_ATTRS = {
    'BatchNorm': {'moving_mean': {'__init__': '["zero", {}]'}, 'moving_var': {'__init__': '["one", {}]'}},
    'LeakyReLU': {'gamma': {'__init__': '["Constant", {"value": 0.25}]'}},
}


def _declared_names(op, attrs):
    """Output names the registry entry gives (``output_names=``, a list or a function of the attributes),
    else this table's."""
    if op.output_names is not None:
        return list(op.output_names(attrs) if callable(op.output_names) else op.output_names)
    names = OUTPUT_NAMES.get(op.name)
    return names(attrs) if callable(names) else names


def output_names(op, attrs, n_visible):
    names = _declared_names(op, attrs)
    if names is not None:
        return list(names)
    if n_visible == 1:
        return ['output']
    return ['output%d' % i for i in range(n_visible)]


def _kernel_params(attrs, data, deconv=False):
    kernel = parse_tuple(attrs['kernel'])
    nf = int(attrs['num_filter'])
    ng = int(attrs.get('num_group', 1))
    layout = attrs.get('layout') or 'None'
    cax = 1 if layout in ('None', 'NCW', 'NCHW', 'NCDHW') else len(data) - 1
    cin = data[cax]
    if deconv:
        w = (cin, nf // ng) + tuple(kernel)
    else:
        w = (nf, cin // ng) + tuple(kernel)
    if cax != 1:  # channels-last layouts keep the weight channels last too
        w = (w[0],) + tuple(kernel) + (w[1],)
    return {'weight': w, 'bias': (nf,)}


def _fc(attrs, data):
    nh = int(attrs['num_hidden'])
    flatten = str(attrs.get('flatten', True)) in ('True', 'true', '1')
    k = 1
    if flatten:
        for s in data[1:]:
            k *= s
    else:
        k = data[-1]
    return {'weight': (nh, k), 'bias': (nh,)}


def _channel_axis(attrs, data):
    return int(attrs.get('axis', 1)) % len(data)


def _bn(attrs, data):
    c = data[_channel_axis(attrs, data)]
    return {'gamma': (c,), 'beta': (c,), 'moving_mean': (c,), 'moving_var': (c,)}


def _ln(attrs, data):
    c = data[int(attrs.get('axis', -1)) % len(data)]
    return {'gamma': (c,), 'beta': (c,)}


def _in(attrs, data):
    return {'gamma': (data[1],), 'beta': (data[1],)}


def _gn(attrs, data):
    g = int(attrs.get('num_groups', 1))
    return {'gamma': (g,), 'beta': (g,)}


def _embed(attrs, data):
    return {'weight': (int(attrs['input_dim']), int(attrs['output_dim']))}


def _prelu(attrs, data):
    if attrs.get('act_type') == 'prelu':
        return {'gamma': (data[1] if len(data) > 1 else 1,)}
    return {}


def _upsampling(attrs, data):
    if attrs.get('sample_type') != 'bilinear':
        return {}
    scale = int(attrs.get('scale', 1))
    k = 2 * scale - scale % 2
    return {'weight': (data[1], 1, k, k)}


def _regression_label(attrs, data):
    # MXNet's regression heads take a (N,) label for (N, 1) data, else a label shaped like the data
    if len(data) == 2 and data[1] == 1:
        return {'label': (data[0],)}
    return {'label': tuple(data)}


def _same_batch_and_size(given, want):
    """MXNet's regression heads accept any label with the data's batch size and element count."""
    size = lambda s: __import__('math').prod(s)  # noqa: E731
    return given[0] == want[0] and size(given) == size(want)


def _softmax_label(attrs, data):
    multi = str(attrs.get('multi_output', False)) in ('True', 'true', '1')
    preserve = str(attrs.get('preserve_shape', False)) in ('True', 'true', '1')
    if multi:  # MXNet's default is (N, d2*...*dk); it also takes (N, d2, ..., dk) and (N, 1, d2, ..., dk)
        return {'label': (data[0], __import__('math').prod(data[2:]))}
    if preserve:
        return {'label': tuple(data[:-1])}
    return {'label': (data[0],)}


def _svm_label(attrs, data):
    return {'label': (data[0],)}


def _rnn(attrs, data):
    # the flat parameter vector and the initial states of the fused RNN op (MXNet's RNNShape, with projection)
    return rnn_input_shapes(attrs, data)


# op -> f(attrs (strings or values), data_shape) -> {input name: shape}, for parameters inferred from the data
PARAM_SHAPES = {
    'Custom': custom.param_shapes,
    'FullyConnected': _fc,
    'Convolution': lambda a, d: _kernel_params(a, d),
    'Convolution_v1': lambda a, d: _kernel_params(a, d),
    'Deconvolution': lambda a, d: _kernel_params(a, d, deconv=True),
    '_contrib_SyncBatchNorm': _bn, '_contrib_BatchNormWithReLU': _bn,
    'IdentityAttachKLSparseReg': lambda a, d: {'moving_avg': (d[1],)} if len(d) > 1 else {},
    '_contrib_DeformableConvolution': lambda a, d: _kernel_params(a, d),
    '_contrib_ModulatedDeformableConvolution': lambda a, d: _kernel_params(a, d),
    'BatchNorm': _bn, 'BatchNorm_v1': _bn, 'LayerNorm': _ln, 'InstanceNorm': _in, 'GroupNorm': _gn, 'Embedding': _embed,
    '_contrib_SparseEmbedding': _embed,
    'LeakyReLU': _prelu, 'SoftmaxOutput': _softmax_label, 'LinearRegressionOutput': _regression_label,
    'LogisticRegressionOutput': _regression_label, 'MAERegressionOutput': _regression_label,
    'SVMOutput': _svm_label, 'UpSampling': _upsampling, 'RNN': _rnn,
}

# MXNet's quantized operators: every min/max input is (1,); weights (and bias) as the float operator's
_RANGES = ('min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias', 'max_bias', 'min_range', 'max_range',
           'lhs_min', 'lhs_max', 'rhs_min', 'rhs_max')


def _quantized(rule=None):
    def shapes(attrs, data):
        out = dict.fromkeys(_RANGES, (1,))
        if rule is not None:
            out.update(rule(attrs, data))
        return out
    return shapes


PARAM_SHAPES.update({
    '_contrib_quantized_fully_connected': _quantized(_fc),
    '_contrib_quantized_conv': _quantized(lambda a, d: _kernel_params(a, d)),
    '_contrib_quantized_embedding': _quantized(_embed),
    '_contrib_quantized_batch_norm': _quantized(_bn),
    '_contrib_quantized_concat': lambda a, d: {'arg%d_%s' % (i, m): (1,) for i in range(int(a['num_args']))
                                               for m in ('min', 'max')},
    **{op: _quantized() for op in ('_contrib_dequantize', '_contrib_requantize', '_contrib_quantize',
                                   '_contrib_quantized_flatten', '_contrib_quantized_act',
                                   '_contrib_quantized_pooling', '_contrib_quantized_elemwise_add',
                                   '_contrib_quantized_elemwise_mul')}})

# the fused oneDNN convolution: weights, BatchNorm parameters and ranges from its subgraph's Convolution
PARAM_SHAPES['_sg_mkldnn_conv'] = _sg_mkldnn.param_shapes
PARAM_SHAPES['_sg_mkldnn_fully_connected'] = _sg_mkldnn.fc_param_shapes

# op -> {input: f(given_shape, inferred_shape) -> bool}: inputs whose given shape may differ from the inferred one
COMPATIBLE = {op: {'label': _same_batch_and_size}
              for op in ('LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput')}
# MXNet only fills PReLU's gamma when it is unknown: (1,), (C,) or any shape broadcasting against data goes
# SoftmaxOutput's label: with multi_output any of MXNet's three forms (same batch and element count; MXNet checks the
# exact dimensions too)
COMPATIBLE['SoftmaxOutput'] = {'label': _same_batch_and_size}
# op -> the input that may also have the data's own shape (SoftmaxOutput: probabilities as labels)
DATA_SHAPED = {'SoftmaxOutput': 'label'}
COMPATIBLE['LeakyReLU'] = {'gamma': lambda given, inferred: True}
# FullyConnected's bias may be given as (num_hidden, 1) as well as (num_hidden,)
COMPATIBLE['FullyConnected'] = {'bias': lambda given, inferred: tuple(given) == tuple(inferred) + (1,)}

# op -> input name -> the dtype that input always has, whatever the others' (MXNet's type functions assign it)
INPUT_DTYPES = {'_contrib_hawkesll': {'marks': torch.int32}}
INPUT_DTYPES.update({op: dict(dict.fromkeys(_RANGES, torch.float32), weight=torch.int8, bias=torch.int8)
                     for op in ('_contrib_quantized_fully_connected', '_contrib_quantized_conv',
                                '_contrib_quantized_embedding', '_contrib_dequantize', '_contrib_requantize',
                                '_contrib_quantize', '_contrib_quantized_flatten', '_contrib_quantized_act',
                                '_contrib_quantized_pooling', '_contrib_quantized_elemwise_add',
                                '_contrib_quantized_elemwise_mul')})

INPUT_DTYPES['_sg_mkldnn_conv'] = dict.fromkeys(('weight', 'bias', 'gamma', 'beta', 'mean', 'var', 'data_min',
                                                 'data_max', 'sum_min', 'sum_max'), torch.float32)
_SG_FC_RANGES = dict.fromkeys(('min_data', 'max_data', 'min_weight', 'max_weight', 'min_bias', 'max_bias'),
                              torch.float32)


def _sg_fc_input_dtypes(params):
    """_sg_mkldnn_fully_connected's fixed input dtypes: the ranges float32; a quantized one's weight and bias int8,
    or float32 with ``channel_wise_quantize`` (whatever the data's, uint8 included); unquantized, the data's."""
    if not params.get('quantized'):
        return _SG_FC_RANGES
    wb = torch.float32 if params.get('channel_wise_quantize') else torch.int8
    return dict(_SG_FC_RANGES, weight=wb, bias=wb)


# (a function of the op's parameters where the dtypes depend on them)
INPUT_DTYPES['_sg_mkldnn_fully_connected'] = _sg_fc_input_dtypes


class _RangeInputs(dict):
    """quantized_concat's inputs arg<i>_min / arg<i>_max (as many as num_args): float32."""

    def __contains__(self, name):
        return name.endswith(('_min', '_max'))

    def __getitem__(self, name):
        return torch.float32

    def __bool__(self):
        return True


INPUT_DTYPES['_contrib_quantized_concat'] = _RangeInputs()
INPUT_DTYPES['_contrib_quantized_batch_norm'] = dict(dict.fromkeys(_RANGES, torch.float32),
                                                     **dict.fromkeys(('gamma', 'beta', 'moving_mean', 'moving_var'),
                                                                     torch.float32))


# ---- two-way shape inference ---------------------------------------------------------------------------------
# ops (beyond those whose registry entry says same_shape) whose listed inputs always have output 0's shape
SAME_SHAPE = {name: ('data',) for name in (
    'Activation', 'LeakyReLU', 'softmax', 'log_softmax', 'softmin', 'SoftmaxActivation', 'Dropout', 'BatchNorm',
    'LayerNorm', 'InstanceNorm', 'GroupNorm', 'L2Normalization', 'LRN', 'SoftmaxOutput', 'LinearRegressionOutput',
    'LogisticRegressionOutput', 'MAERegressionOutput', 'MakeLoss', 'BlockGrad', 'identity', '_copy')}


# ops whose input i always has output i's shape (amp_multicast casts each input to its own output)
SAME_SHAPE_PAIRS = frozenset(['amp_multicast'])


def same_shape_pairs(op, n_inputs, n_outputs):
    """Pairs (input i, output i) of always-equal shapes."""
    if op.name not in SAME_SHAPE_PAIRS:
        return []
    return [(i, i) for i in range(min(n_inputs, n_outputs))]


def same_shape_inputs(op, names):
    spec = op.same_shape if op.same_shape is not None else SAME_SHAPE.get(op.name)
    if spec is None:
        return []
    return list(range(len(names))) if spec == '*' else [i for i, n in enumerate(names) if n in spec]


def dim_links(op, params, in_ndims, out_ndims):
    """Pairs ((input index, dim), (output index, dim)) of dimensions that are always equal."""
    name = op.name
    if not in_ndims or in_ndims[0] is None:
        return []
    if name in ('FullyConnected', 'Convolution', 'Convolution_v1', 'Deconvolution', 'Flatten',
                '_contrib_quantized_fully_connected', '_contrib_quantized_conv', '_contrib_quantized_flatten'):
        return [((0, 0), (0, 0))]
    if name in ('Pooling', 'Pooling_v1', '_contrib_quantized_pooling'):
        return [((0, 0), (0, 0)), ((0, 1), (0, 1))]
    if name == '_contrib_quantized_concat':  # (its data inputs, not their ranges after them)
        n, dim = int(params.get('num_args', 0)), params.get('dim', 1) % in_ndims[0]
        return [((j, i), (0, i)) for j, nd in enumerate(in_ndims[:n]) if nd is not None
                for i in range(nd) if i != dim]
    if name in ('Embedding', '_contrib_SparseEmbedding', '_contrib_quantized_embedding'):
        return [((0, i), (0, i)) for i in range(in_ndims[0])]
    if name == 'SliceChannel':
        axis = params.get('axis', 1) % in_ndims[0]
        squeeze = params.get('squeeze_axis', False)
        out = []
        for k in range(len(out_ndims)):
            for i in range(in_ndims[0]):
                if i != axis:
                    out.append(((0, i), (k, i - 1 if squeeze and i > axis else i)))
        return out
    if name in CONCATS:
        dim = params.get('dim', 1) % in_ndims[0]
        return [((j, i), (0, i)) for j, nd in enumerate(in_ndims) if nd is not None
                for i in range(nd) if i != dim]
    return []


def _conv_data_from_output(params, data, out):
    """Convolution's data shape completed from its output: batch always, a spatial size where the stride is 1
    (MXNet fills in the same dimensions)."""
    k = params.get('kernel') or ()
    nsp = len(k)
    if len(data) != nsp + 2 or len(out) != nsp + 2:
        return data
    stride = params.get('stride') or (1,) * nsp
    dilate = params.get('dilate') or (1,) * nsp
    pad = params.get('pad') or (0,) * nsp
    layout = params.get('layout')
    start = 2 if layout is None or layout[1] == "C" else 1  # first spatial dim: NC* or N*C layouts
    sp = list(data)
    for i in range(nsp):
        j = start + i
        if not sp[j] and out[j] and stride[i] == 1:
            sp[j] = out[j] - 1 + dilate[i] * (k[i] - 1) + 1 - 2 * pad[i]
    return tuple(sp)


# op name -> rule(params, data shape, output shape) -> data shape with more dimensions known
DATA_FROM_OUTPUT = {'Convolution': _conv_data_from_output, 'Convolution_v1': _conv_data_from_output,
                    'Reshape': reshape_data_from_output,
                    'transpose': transpose_data_from_output}


def _rnn_param_concat_inputs(params, ins, out):
    """``_rnn_param_concat``'s inputs of unknown size along ``dim`` share the output's size there minus the
    others' evenly (MXNet's RNNParamConcatShape; plain Concat fills none): how a Gluon RNN layer's deferred
    first-layer weights (both directions) get their input size. Shapes in the legacy form (0 unknown, None an
    unknown shape)."""
    if not out or not all(out):
        return ins
    dim = params.get('dim', 1) % len(out)
    unknown = [j for j, s in enumerate(ins) if s is None or len(s) != len(out) or not s[dim]]
    rest = out[dim] - sum(s[dim] for k, s in enumerate(ins) if k not in unknown)
    if not unknown or rest <= 0 or rest % len(unknown):
        return ins
    ins = list(ins)
    for j in unknown:
        base = ins[j] if ins[j] is not None and len(ins[j]) == len(out) else (0,) * len(out)
        ins[j] = base[:dim] + (rest // len(unknown),) + base[dim + 1:]
    return ins


# operators that join their inputs along ``dim`` (their output's size there is the sum of the inputs')
CONCATS = frozenset(['Concat', '_rnn_param_concat'])
# op name -> rule(params, input shapes, output shape) -> input shapes with more dimensions known
INPUTS_FROM_OUTPUT = {'_rnn_param_concat': _rnn_param_concat_inputs}


def _broadcast_partial(params, ins):
    """A broadcasting binary op's output from partial input shapes (-1 an unknown dimension), as MXNet's
    BinaryBroadcastShape gives it: the inputs right-aligned, a dimension unknown on either side is unknown in the
    output (even against a 1), else the two sizes broadcast. Shapes of unknown rank give nothing."""
    lhs, rhs = ins
    if lhs is None or rhs is None:
        return None
    nd = max(len(lhs), len(rhs))
    lhs = (1,) * (nd - len(lhs)) + tuple(lhs)
    rhs = (1,) * (nd - len(rhs)) + tuple(rhs)
    out = []
    for l, r in zip(lhs, rhs):
        if l < 0 or r < 0:
            out.append(-1)
        elif l == r or r == 1:
            out.append(l)
        elif l == 1:
            out.append(r)
        else:
            raise MXNetError('operands could not be broadcast together with shapes %s %s' % (ins[0], ins[1]))
    return [tuple(out)]


# op name -> rule(params, input shapes with -1 for an unknown dimension) -> output shapes, for inputs not all
# complete: where running the op with unknown dimensions as 0 cannot tell what MXNet's shape function tells
PARTIAL_SHAPES = {'broadcast_' + stem: _broadcast_partial for stem in BINARY}


# Operators MXNet cannot differentiate (no gradient registered): binding with gradients through them fails.
NON_DIFFERENTIABLE = frozenset(['batch_take', 'argmax_channel', 'khatri_rao'])
# Operators whose gradient is zero whatever comes in: gradients stop there.
GRADIENT_STOP = frozenset(['BlockGrad', 'zeros_like', 'ones_like', 'shape_array', 'size_array'])
# Operators that draw random numbers (or are stateful): common-subexpression elimination never merges them.
NONDETERMINISTIC_PREFIXES = ('_random_', '_sample_', 'random_', 'sample_', '_shuffle', 'Dropout', 'RNN',
                             '_contrib_quantize', 'Custom',
                             # the NumPy samplers (symbol/numpy/_random_ops.py)
                             '_npi_uniform', '_npi_normal', '_npi_gamma', '_npi_logistic', '_npi_gumbel',
                             '_npi_exponential', '_npi_rayleigh', '_npi_weibull', '_npi_pareto', '_npi_powerd',
                             '_npi_bernoulli', '_npi_choice')


def aux_vars(nodes):
    """Variables used as auxiliary-state inputs (BatchNorm's moving stats)."""
    aux = set()
    for n in nodes:
        if n.op is not None and n.op.aux:
            names = n.input_names()
            for (src, _), iname in zip(n.inputs, names):
                if iname in n.op.aux and src.is_var:
                    aux.add(id(src))
    return aux
