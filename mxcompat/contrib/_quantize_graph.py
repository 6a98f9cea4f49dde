"""MXNet 1.9.1's QuantizeGraph and SetCalibTableToQuantizedGraph passes (``MXQuantizeSymbol``,
``MXSetCalibTableToQuantizedSymbol``), written over mxcompat's Symbol nodes.

The pass visits the float32 graph in MXNet's order (depth-first post-order from the outputs):

* an operator with a quantized version (the table below: the quantized operators an MKLDNN CPU build of MXNet
  registers, the fused self-attention nodes among them), not excluded by node or operator name, is replaced by it:
  its inputs become quantized values (a ``_contrib_quantize_v2`` node named ``<input>[_<output>]_quantize`` with
  ``out_type`` the quantized dtype, shared between consumers; the output of a quantized producer is used as it
  is), followed by one (min, max) input pair per quantized input; operators whose quantized version gives int32
  get a ``_contrib_requantize`` node (``requantize_<name>``);
* any other node is copied; a quantized producer feeding it, or a graph output, gets a ``_contrib_dequantize``
  node (``<name>_dequantize``);
* in ``'smart'`` mode an operator that can be quantized but need not be (pooling, activation, flatten, ...) stays
  quantized only between operators that must be (convolution, fully connected) on both sides;
* quantize nodes of parameters quantized offline become variables ``<param>_quantize`` and
  ``<param>_quantize_min`` / ``_max``.

It also lists the layer outputs to calibrate (the inputs of quantize and requantize nodes, named as the float32 graph
names them), and writes a calibration table into the quantized graph as ``min_calib_range`` / ``max_calib_range``
attributes (``std::to_string`` of the floats, as MXNet).
"""
import numpy as np

from ..base import MXNetError
from ..operator import registry
from ..symbol.symbol import Symbol, _Node, _topo
from .amp._convert import _suffix

_MUST, _SUPPORT = 'must', 'support'


def _relu_only(attrs):
    return '_contrib_quantized_act' if attrs.get('act_type') == 'relu' else None


def _pooling(attrs):
    return '_contrib_quantized_pooling' if attrs.get('pool_type', 'max') in ('max', 'avg') else None


def _concat(attrs):
    return '_contrib_quantized_concat' if int(attrs.get('dim', 1)) > 0 else None


def _embedding(attrs):
    return '_contrib_quantized_embedding' if attrs.get('dtype', 'float32') == 'float32' else None


def _inner(node, op_name):
    """The ``op_name`` operators inside the fused node ``node``."""
    return [n for n in _topo(node.subgraphs[0]._outputs) if n.op is not None and n.op.name == op_name]


def _flag(node, key, inner_op=None):
    """A boolean attribute of a fused node, or of its ``inner_op`` operator (its own parameters live there)."""
    attrs = node.attrs
    if inner_op is not None:
        inner = _inner(node, inner_op)
        attrs = inner[0].attrs if inner else {}
    return attrs.get(key, 'false').lower() in ('true', '1')


def _sg_conv_float_inputs(node, granularity):
    """The weight, bias and BatchNorm inputs of a fused convolution stay float32: it quantizes them itself."""
    count = 1 + (not _flag(node, 'no_bias', 'Convolution')) + 4 * _flag(node, 'with_bn')
    return tuple(range(1, 1 + count))


def _sg_fc_float_inputs(node, granularity):
    """A fused FullyConnected's weight and bias are quantized offline, unless channel-wise (it does it itself)."""
    if granularity != 'channel-wise':
        return ()
    return (1,) if _flag(node, 'no_bias', 'FullyConnected') else (1, 2)


def _sg_conv_attrs(node, granularity):
    kernel = _inner(node, 'Convolution')
    if kernel and len(kernel[0].params()['kernel']) not in (2, 3):
        raise MXNetError('Check failed: k_ndims == 2U || k_ndims == 3U: Quantized Convolution of MKL-DNN supports '
                         '2D/3D kernel currently.Please exclude this layer from the quantized model.')
    return {'quantized': 'true'}


def _sg_fc_attrs(node, granularity):
    extra = {'quantized': 'True'}
    if granularity == 'channel-wise':
        extra['channel_wise_quantize'] = 'True'
    return extra


def _sg_selfatt_attrs(node, granularity):
    # (SgMKLDNNSelfAtt*QuantizedOp: the attributes kept, heads written back from its parsed value)
    return {'heads': str(node.params()['heads']), 'quantized': 'True'}


# float32 op -> (quantized op name, or a function of the attributes giving it or None; must or may be quantized;
# whether its int32 result is requantized; the input indices left in float32, or a function of (node,
# granularity) giving them; [a function of (node, granularity) giving the attributes added to the quantized node])
# The fused operators of MKL-DNN (_sg_mkldnn_*) stay themselves, with ``quantized`` set.
_RULES = {
    '_sg_mkldnn_conv': ('_sg_mkldnn_conv', _MUST, True, _sg_conv_float_inputs, _sg_conv_attrs),
    '_sg_mkldnn_fully_connected': ('_sg_mkldnn_fully_connected', _MUST, True, _sg_fc_float_inputs, _sg_fc_attrs),
    '_sg_mkldnn_selfatt_qk': ('_sg_mkldnn_selfatt_qk', _MUST, True, (), _sg_selfatt_attrs),
    '_sg_mkldnn_selfatt_valatt': ('_sg_mkldnn_selfatt_valatt', _MUST, True, (), _sg_selfatt_attrs),
    'Convolution': ('_contrib_quantized_conv', _MUST, True, ()),
    'FullyConnected': ('_contrib_quantized_fully_connected', _MUST, True, ()),
    'Activation': (_relu_only, _SUPPORT, False, ()),
    'Pooling': (_pooling, _SUPPORT, False, ()),
    'Flatten': ('_contrib_quantized_flatten', _SUPPORT, False, ()),
    'Concat': (_concat, _SUPPORT, False, ()),
    'elemwise_add': ('_contrib_quantized_elemwise_add', _SUPPORT, True, ()),
    'elemwise_mul': ('_contrib_quantized_elemwise_mul', _SUPPORT, True, ()),
    'BatchNorm': ('_contrib_quantized_batch_norm', _SUPPORT, False, None),  # (None: every input but the data)
    'Embedding': (_embedding, _SUPPORT, False, (0,)),
}
_NORMALIZE = {'flatten': 'Flatten', 'concat': 'Concat'}  # (aliases MXNet resolves to the same operator)


def _rule(node):
    if node.is_var:
        return None
    return _RULES.get(_NORMALIZE.get(node.op.name, node.op.name))


def _float_inputs(rule, node, granularity):
    keep = rule[3]
    if callable(keep):
        return keep(node, granularity)
    return tuple(range(1, len(node.inputs))) if keep is None else keep


def _quantized_name(rule, node):
    target = rule[0]
    return target(node.attrs) if callable(target) else target


def _op(name):
    op = registry.get(name)
    if op is None:
        raise MXNetError('quantize_graph: operator %s is not available in mxcompat' % name)
    return op


def _excluded_inside(node, excluded_nodes):
    """Whether a fused node holds an operator named in ``excluded_nodes`` (MXNet looks into the subgraph)."""
    return bool(node.subgraphs) and not node.is_control_flow() and any(
        not n.is_var and n.name in excluded_nodes for n in _topo(node.subgraphs[0]._outputs))


def _mark(order, excluded_nodes, excluded_ops, mode):
    """{id(node): quantized op name} of the nodes to quantize (MarkQuantizedNodes)."""
    chosen, must, support, consumers = {}, [], set(), {}
    for node in order:
        for src, _ in node.inputs:
            consumers.setdefault(id(src), []).append(node)
        rule = _rule(node)
        if rule is None or node.name in excluded_nodes or node.op.name in excluded_ops:
            continue
        if _excluded_inside(node, excluded_nodes):
            continue
        qname = _quantized_name(rule, node)
        if qname is None:
            continue
        chosen[id(node)] = qname
        (must.append(node) if rule[1] == _MUST else support.add(id(node)))
    if mode == 'full':
        return chosen
    if mode != 'smart':
        raise MXNetError('unrecognized quantize mode: %s' % mode)
    reached = {}
    for bit, step in ((1, lambda n: [src for src, _ in n.inputs]), (2, lambda n: consumers.get(id(n), []))):
        queue = list(must)
        while queue:
            node = queue.pop(0)
            for nxt in step(node):
                if id(nxt) in support:
                    reached[id(nxt)] = reached.get(id(nxt), 0) | bit
                    queue.append(nxt)
    for key in support:
        if reached.get(key, 0) != 3:
            del chosen[key]
    return chosen


class _Pass:
    def __init__(self, chosen, qdtype, granularity='tensor-wise'):
        self.chosen, self.qdtype, self.granularity = chosen, qdtype, granularity
        self.mirror = {}        # id(float32 node) -> node of the new graph standing for it
        self.origin = {}        # id(new node) -> float32 node it stands for
        self.quantized_in = {}  # (id(float32 node), index) -> quantize node made for that value
        self.ops = {name: _op(name) for name in ('_contrib_quantize_v2', '_contrib_requantize', '_contrib_dequantize')}

    def _entry(self, src, j):
        return self.mirror[id(src)], j

    def _quantize_input(self, src, j):
        key = (id(src), j)
        if key not in self.quantized_in:
            suffix = '' if self.mirror[id(src)].is_var else _suffix(src, j)
            self.quantized_in[key] = _Node(self.ops['_contrib_quantize_v2'], src.name + suffix + '_quantize',
                                           {'out_type': self.qdtype}, [self._entry(src, j)])
        return self.quantized_in[key]

    def _quantized(self, node):
        rule = _rule(node)
        keep = _float_inputs(rule, node, self.granularity)
        attrs = dict(node.attrs, **rule[4](node, self.granularity)) if len(rule) > 4 else node.attrs
        new = _Node(_op(self.chosen[id(node)]), 'quantized_' + node.name, attrs, subgraphs=node.subgraphs)
        ranges = []
        for i, (src, j) in enumerate(node.inputs):
            mirror = self.mirror[id(src)]
            if i in keep:
                new.inputs.append((mirror, j))
                continue
            if id(src) in self.chosen:  # (a quantized producer: its value, then its (min, max) outputs)
                producer = mirror.inputs[0][0] if mirror.op is self.ops['_contrib_dequantize'] else mirror
                new.inputs.append((producer, j))
                ranges += [(producer, 1 + 2 * j), (producer, 2 + 2 * j)]
            else:
                q = self._quantize_input(src, j)
                new.inputs.append((q, 0))
                ranges += [(q, 1), (q, 2)]
        new.inputs += ranges
        if rule[2]:
            new = _Node(self.ops['_contrib_requantize'], 'requantize_' + node.name, {'out_type': self.qdtype},
                        [(new, 0), (new, 1), (new, 2)])
        return new

    def _dequantize(self, src, j):
        mirror = self.mirror[id(src)]
        if mirror.op is self.ops['_contrib_dequantize']:
            return mirror
        deq = _Node(self.ops['_contrib_dequantize'], src.name + '_dequantize', {},
                    [(mirror, j), (mirror, 1 + 2 * j), (mirror, 2 + 2 * j)])
        self.mirror[id(src)] = deq
        self.origin[id(deq)] = src
        return deq

    def _copy(self, node):
        new = _Node(node.op, node.name, node.attrs, subgraphs=node.subgraphs)
        for src, j in node.inputs:
            if id(src) in self.chosen:
                new.inputs.append((self._dequantize(src, j), 0))
            else:
                new.inputs.append(self._entry(src, j))
        return new

    def run(self, order, outputs):
        for node in order:
            new = self._quantized(node) if id(node) in self.chosen else self._copy(node)
            self.mirror[id(node)] = new
            self.origin[id(new)] = node
        outs = []
        for src, j in outputs:
            outs.append((self._dequantize(src, j), 0) if id(src) in self.chosen else self._entry(src, j))
        return outs


def _offline(outputs, offline_params, quantize_op):
    """Replace the quantize nodes of offline parameters by variables (<name>, <name>_min, <name>_max)."""
    made = {}
    for node in _topo(outputs):
        for i, (src, j) in enumerate(node.inputs):
            if src.op is quantize_op and src.inputs[0][0].is_var and src.inputs[0][0].name in offline_params:
                key = (id(src), j)
                if key not in made:
                    made[key] = _Node(None, src.name + ('', '_min', '_max')[j])
                node.inputs[i] = (made[key], 0)
    return outputs


def _output_name(node, index):
    return node.output_names()[index]


def quantize_symbol(sym, excluded_symbols=(), excluded_operators=(), offline_params=(), quantized_dtype='int8',
                    quantize_mode='smart', quantize_granularity='tensor-wise'):
    """(quantized Symbol, names of the layer outputs to calibrate) of the float32 ``sym``, as MXNet's
    ``MXQuantizeSymbol`` gives them. ``quantize_granularity='channel-wise'`` concerns the fused FullyConnected
    (``channel_wise_quantize``: its weight and bias stay float32)."""
    outputs = list(sym._outputs)
    order = _topo(outputs)
    chosen = _mark(order, set(excluded_symbols), set(excluded_operators), quantize_mode)
    run = _Pass(chosen, quantized_dtype, quantize_granularity)
    outs = run.run(order, outputs)
    if offline_params:
        outs = _offline(outs, set(offline_params), run.ops['_contrib_quantize_v2'])
    calib = []
    for node in _topo(outs):
        if node.op is run.ops['_contrib_quantize_v2']:
            src, j = node.inputs[0]
            calib.append(src.name if src.is_var else _output_name(run.origin.get(id(src), src), j))
        elif node.op is run.ops['_contrib_requantize']:
            calib.append(_output_name(run.origin[id(node)], node.inputs[0][1]))
        elif node.op is not None and node.op.name == '_contrib_quantized_batch_norm':
            calib.append(_output_name(run.origin[id(node)], 0))
    return Symbol(outs), calib


def _calib_key(entry):
    node, j = entry
    name = _output_name(node, j)
    return name[len('quantized_'):] if node.name.startswith('quantized_') else name


def _c_float(v):
    """A threshold (a number or a one-element array) as the C float MXNet hands its pass."""
    return float(np.float32(np.asarray(v).reshape(-1)[0]))


def set_calib_table(qsym, th_dict):
    """A copy of ``qsym`` whose quantize/requantize nodes (and quantized BatchNorm) carry ``min_calib_range`` /
    ``max_calib_range`` from ``th_dict`` ({layer output name: (min, max)})."""
    out = qsym._clone()
    # (the keys are read from qsym's nodes: the copies, parsed only later, take the new attributes)
    for node, copy in zip(qsym._nodes(), out._nodes()):
        if node.op is None:
            continue
        if node.op.name in ('_contrib_quantize_v2', '_contrib_requantize'):
            key = _calib_key(node.inputs[0])
        elif node.op.name == '_contrib_quantized_batch_norm':
            key = _calib_key((node, 0))
        else:
            continue
        if key in th_dict:
            lo, hi = th_dict[key]
            copy.attrs['min_calib_range'] = '%f' % _c_float(lo)
            copy.attrs['max_calib_range'] = '%f' % _c_float(hi)
    return out
