"""MXNet 1.9.1's post-quantization subgraph properties of its ``MKLDNN_QUANTIZE`` backend, applied to a quantized
graph (the one ``quantize_model`` / ``quantize_graph`` / ``calib_graph`` give from a fused float32 graph):
``apply(sym)`` returns a new Symbol with them applied, in MXNet's order:

* the Transformer property: a ``_sg_mkldnn_selfatt_qk`` / ``_sg_mkldnn_selfatt_valatt`` node followed by a calibrated
  ``_contrib_requantize`` takes its range, or ``enable_float_output`` where a ``_contrib_dequantize`` follows;
* ``SgMKLDNNPostQuantizeProperty``: a quantized ``_sg_mkldnn_conv`` or ``_contrib_quantized_elemwise_add`` followed by
  a calibrated requantize takes its range (``min_calib_range`` / ``max_calib_range``);
* ``SgMKLDNNFCPostQuantizeProperty``: as the Transformer one, for ``_sg_mkldnn_fully_connected``;
* ``ElemwiseMulPostQuantizeProperty``: as the Transformer one, for ``_contrib_quantized_elemwise_mul``;
* ``SgMKLDNNPostQuantizeAlignScaleProperty``: the calibrated producers of a ``_contrib_quantized_concat`` (through
  quantized pooling and concats between, each read by those alone) all get the widest range, 0 included.

The fused node keeps its name; what read the requantize (dequantize) reads it. MXNet's ``MXNET_DISABLE_MKLDNN_QFC_*``,
``MXNET_DISABLE_MKLDNN_QEM_*`` and ``MXNET_DISABLE_MKLDNN_QTRANSFORMER_*`` switches are read as MXNet reads them.

Differs from MXNet, in graphs its quantization pass does not make: a requantize read by a dequantize and by other
nodes is fused without the dequantize (MXNet's choice depends on the order of a hash map), and the scale alignment
does not check that a selection would close a cycle."""
import os

import numpy as np

from .. import symbol as _symbol

_REQUANTIZE, _DEQUANTIZE = '_contrib_requantize', '_contrib_dequantize'
_CONCAT, _POOLING = '_contrib_quantized_concat', '_contrib_quantized_pooling'


def _env_flag(name):
    return os.environ.get(name, '0').strip().lower() not in ('0', 'false', '')


def _op_name(node):
    return None if node.op is None else node.op.name


def _c_string(value):
    """A float range as MXNet writes it back: the C float of the attribute, through ``std::to_string``."""
    return '%f' % float(np.float32(float(value)))


def _calibrated(node):
    return 'min_calib_range' in node.attrs and 'max_calib_range' in node.attrs


def _quantized_conv(node):
    return node.attrs.get('quantized', 'false').lower() in ('true', '1')


class _Graph:
    """A graph being rewritten in place: its nodes in MXNet's order and their consumers."""

    def __init__(self, sym):
        self.outputs = list(sym._clone()._outputs)
        self.refresh()

    def refresh(self):
        self.order = _symbol._topo(self.outputs)
        self.consumers = {}
        for node in self.order:
            for src, _ in node.inputs:
                users = self.consumers.setdefault(id(src), [])
                if not any(u is node for u in users):
                    users.append(node)
        self.heads = {id(n) for n, _ in self.outputs}

    def only_consumer(self, node):
        """The one node reading ``node``, or None (several readers, none, or a graph output)."""
        users = self.consumers.get(id(node), [])
        return users[0] if len(users) == 1 and id(node) not in self.heads else None

    def redirect(self, old, new):
        """What read ``old``'s outputs reads ``new``'s of the same index."""
        for node in self.order:
            node.inputs = [(new, j) if src is old else (src, j) for src, j in node.inputs]
        self.outputs = [(new, j) if src is old else (src, j) for src, j in self.outputs]

    def symbol(self):
        return _symbol.Symbol(self.outputs)


def _set(node, **attrs):
    node.attrs.update(attrs)
    node._parsed = None


def _fuse_requantize(graph, select, float_output_env=None):
    """Nodes ``select`` accepts, read only by a calibrated requantize, take its range; where that requantize is read
    only by a dequantize (and ``float_output_env`` is not set), they give float32 instead (``enable_float_output``)."""
    float_output = float_output_env is not None and not _env_flag(float_output_env)
    changed = False
    for node in list(graph.order):
        if not select(node):
            continue
        req = graph.only_consumer(node)
        if req is None or _op_name(req) != _REQUANTIZE or not _calibrated(req):
            continue
        deq = graph.only_consumer(req) if float_output else None
        if deq is not None and _op_name(deq) == _DEQUANTIZE:
            _set(node, enable_float_output='True')
            graph.redirect(deq, node)
        else:
            _set(node, min_calib_range=_c_string(req.attrs['min_calib_range']),
                 max_calib_range=_c_string(req.attrs['max_calib_range']))
            graph.redirect(req, node)
        changed = True
    if changed:
        graph.refresh()


def _align_group(graph, head, taken):
    """The calibrated nodes SgMKLDNNConcatPostQuantizeSelector gathers from the quantized concat ``head``: through
    quantized concats and poolings (and after the head, when it has one reader), the producers read by those
    alone."""
    follow_outputs = len(graph.consumers.get(id(head), [])) <= 1
    visited, labelled, matched = {id(head)}, {id(head)}, []
    queue = [head]

    def free(node):
        return id(node) not in labelled and id(node) not in taken

    while queue:
        cur = queue.pop(0)
        if id(cur) not in visited:
            continue
        for src, _ in cur.inputs:
            if src.is_var or not free(src):
                continue
            if any(id(u) not in visited for u in graph.consumers.get(id(src), [])):
                continue
            if _calibrated(src):
                matched.append(src)
            elif _op_name(src) in (_CONCAT, _POOLING):
                visited.add(id(src))
            else:
                continue
            labelled.add(id(src))
            queue.append(src)
        for user in graph.consumers.get(id(cur), []) if follow_outputs else ():
            if free(user) and _op_name(user) in (_CONCAT, _POOLING):
                visited.add(id(user))
                labelled.add(id(user))
                queue.append(user)
    return matched


def _align_scales(graph):
    """SgMKLDNNPostQuantizeAlignScaleProperty: the calibrated producers of each quantized concat get one range,
    the widest of theirs and 0."""
    taken = set()  # calibrated nodes already aligned with an earlier concat
    for head in graph.order:
        if _op_name(head) != _CONCAT:
            continue
        matched = _align_group(graph, head, taken)
        if len(matched) < 2:
            continue
        lo = hi = np.float32(0)
        for node in matched:
            lo = min(lo, np.float32(float(node.attrs['min_calib_range'])))
            hi = max(hi, np.float32(float(node.attrs['max_calib_range'])))
        for node in matched:
            _set(node, min_calib_range='%f' % float(lo), max_calib_range='%f' % float(hi))
            taken.add(id(node))


def apply(sym):
    """A copy of the quantized ``sym`` with the post-quantization fusions of ``MKLDNN_QUANTIZE`` applied."""
    graph = _Graph(sym)
    if not _env_flag('MXNET_DISABLE_MKLDNN_QTRANSFORMER_FUSE_ALL'):
        _fuse_requantize(graph, lambda n: _op_name(n) in ('_sg_mkldnn_selfatt_qk', '_sg_mkldnn_selfatt_valatt'),
                         'MXNET_DISABLE_MKLDNN_QTRANSFORMER_FLOAT_OUTPUT')
    _fuse_requantize(graph, lambda n: (_op_name(n) == '_sg_mkldnn_conv' and _quantized_conv(n))
                     or _op_name(n) == '_contrib_quantized_elemwise_add')
    if not _env_flag('MXNET_DISABLE_MKLDNN_QFC_FUSE_ALL'):
        _fuse_requantize(graph, lambda n: _op_name(n) == '_sg_mkldnn_fully_connected',
                         'MXNET_DISABLE_MKLDNN_QFC_FLOAT_OUTPUT')
    if not _env_flag('MXNET_DISABLE_MKLDNN_QEM_FUSE_ALL'):
        _fuse_requantize(graph, lambda n: _op_name(n) == '_contrib_quantized_elemwise_mul',
                         'MXNET_DISABLE_MKLDNN_QEM_FLOAT_OUTPUT')
    _align_scales(graph)
    return graph.symbol()
