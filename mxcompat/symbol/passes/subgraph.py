"""MXNet's oneDNN ("MKLDNN") subgraph backend for convolutions, on a lowered graph.

MXNet 1.9 built with oneDNN partitions every inference-only bound graph (all ``grad_req`` null) with its
``MKLDNN`` backend by default (``MXNET_SUBGRAPH_BACKEND``; ``NONE`` turns it off), and Gluon does the same for
``hybridize(backend='MKLDNN')`` or ``optimize_for(x, backend='MKLDNN')``. Its convolution pass fuses a 2-D
``Convolution`` with the ``BatchNorm`` that follows it (folded into the weight and bias), an ``elemwise_add`` after
that, and a final activation (``Activation`` relu/sigmoid/tanh, ``LeakyReLU`` leaky/gelu, ``clip`` from 0) into
one ``_sg_mkldnn_conv``, each link taken only when the previous result has no other reader. The folding changes
the results in their last bits, as it does in MXNet.

Here the chain becomes one node that runs ``kernels.fused_conv`` (the folded weight reordered once for oneDNN,
the addition and activation applied as oneDNN post-ops) where that path applies, and otherwise (a gradient is
recorded, training-mode BatchNorm, a geometry the packed convolution does not take) runs the original operators in
turn, so the fused graph stays correct for any call. ``MXNET_DISABLE_MKLDNN_CONV_OPT`` and
``MXNET_DISABLE_MKLDNN_FUSE_CONV_BN`` / ``_CONV_SUM`` / ``_CONV_RELU`` turn the pass or its links off, as in
MXNet. Softrelu activations, which torch's oneDNN post-ops lack, stay separate operators. With the CPU fast paths
or ``kernels.config.packed_conv`` off (see ``mxcompat.kernels``) nothing is fused.
"""
import os

import torch

from ... import _profstate, kernels
from ..._recording import STATE as _STATE
from ...operator import nn as _nn

__all__ = ['fuse_convolutions', 'executor_backend']

_PROF = _profstate.FLAGS


def _op(node):
    return getattr(node.target, '_mx_op', None) if node.op == 'call_function' else None


def _attrs(node):
    return node.target._mx_attrs


def _unary(node):
    """The oneDNN post-op (name, scalars, algorithm) of an activation node, or None."""
    name = _op(node)
    if name is None or len(node.args) != 1:
        return None
    attrs = _attrs(node)
    if name == 'Activation':
        act = attrs['act_type']
        return (act, [], '') if act in ('relu', 'sigmoid', 'tanh') else None
    if name == 'LeakyReLU':
        if attrs['act_type'] == 'leaky':
            return ('leaky_relu', [attrs['slope']], '')
        return ('gelu', [], 'none') if attrs['act_type'] == 'gelu' else None
    if name == 'clip' and attrs['a_min'] == 0:
        return ('hardtanh', [0.0, attrs['a_max']], '')
    return None


def _only_reader(node):
    """The one node that reads ``node``'s result, reading it once, or None."""
    users = list(node.users)
    if len(users) != 1:
        return None
    user = users[0]
    reads = list(user.args) + list(user.kwargs.values())
    return user if reads.count(node) == 1 else None


def _flag(name):
    return os.environ.get(name, '0') not in ('', '0')


def executor_backend():
    """Whether an inference-only Executor fuses its convolutions: MXNet's default subgraph backend is ``MKLDNN`` in
    its oneDNN builds (torch's CPU build has oneDNN); ``MXNET_SUBGRAPH_BACKEND=NONE`` turns it off."""
    backend = os.environ.get('MXNET_SUBGRAPH_BACKEND', 'MKLDNN' if kernels.cpu.ONEDNN_CONV else '')
    return backend == 'MKLDNN'


class _FusedConv:
    """The callable of a fused chain: ``(data, weight[, bias][, gamma, beta, mean, var][, other])``."""

    def __init__(self, conv, bn, add, act):
        attrs = _attrs(conv)
        self.conv_fn, self.has_bias = conv.target, not attrs['no_bias']
        stride, dilate, pad, _ = _nn._spatial_args('Convolution', attrs['kernel'], 4, attrs['stride'],
                                                  attrs['dilate'], attrs['pad'], attrs['layout'])
        self.geometry = (tuple(stride), tuple(pad), tuple(dilate))
        self.num_group = attrs['num_group']
        self.bn_fn = None if bn is None else bn.target
        if bn is not None:
            b = _attrs(bn)
            self.bn_attrs = (b['eps'], b['fix_gamma'])
            self.global_stats = b['use_global_stats']
        # the addition: its callable and whether the convolution's result is its left operand
        self.add_fn = None if add is None else add.target
        self.add_left = add is not None and add.args[0] is (conv if bn is None else bn)
        self.act_fn, self.unary = (None, None) if act is None else (act.target, _unary(act))
        self.__name__ = self.__qualname__ = 'sg_mkldnn_conv'

    def __call__(self, data, weight, *rest):
        rest = list(rest)
        bias = rest.pop(0) if self.has_bias else None
        bn = rest[:4] if self.bn_fn is not None else None
        other = rest[4 if bn is not None else 0] if self.add_fn is not None else None
        stride, pad, dilate = self.geometry
        if (bn is None or self.global_stats or not _STATE.training) and data.dim() == 4 and \
                kernels.fused_conv_applies(data, weight, bias, stride, pad, dilate, self.num_group,
                                           () if bn is None else bn, recording=_nn._recording()) and \
                (other is None or kernels.cpu.fits_conv_output(other, data, weight, stride, pad)):
            folded = None if bn is None else tuple(bn) + self.bn_attrs
            # after an addition torch's oneDNN convolution takes relu only: other activations run on its result
            after = other is not None and self.unary is not None and self.unary[0] != 'relu'
            unary = None if after else self.unary
            if _PROF.symbolic:  # while mx.profiler runs: one range named as MXNet's fused operator
                out = _profstate.run('_sg_mkldnn_conv', kernels.fused_conv, data, weight, bias, stride, pad, dilate,
                                     folded, other, unary)
            else:
                out = kernels.fused_conv(data, weight, bias, stride, pad, dilate, folded, other, unary)
            return self.act_fn(out) if after else out
        return self._unfused(data, weight, bias, bn, other)

    def _unfused(self, data, weight, bias, bn, other):
        x = self.conv_fn(data, weight) if bias is None else self.conv_fn(data, weight, bias)
        if bn is not None:
            x = self.bn_fn(x, *bn)
        if other is not None:
            x = self.add_fn(x, other) if self.add_left else self.add_fn(other, x)
        return x if self.act_fn is None else self.act_fn(x)


def fuse_convolutions(gm):
    """A copy of the lowered module ``gm`` with MXNet's oneDNN convolution chains fused (see the module docstring),
    or ``gm`` itself when none qualifies, ``MXNET_DISABLE_MKLDNN_CONV_OPT`` is set or ``kernels.onednn_fusion()``
    is false."""
    no_bn, no_sum, no_act = (_flag('MXNET_DISABLE_MKLDNN_FUSE_CONV_' + k) for k in ('BN', 'SUM', 'RELU'))
    if not kernels.onednn_fusion() or _flag('MXNET_DISABLE_MKLDNN_CONV_OPT') or (no_bn and no_sum and no_act):
        return gm
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    changed = False
    for conv in list(graph.nodes):
        if _op(conv) != 'Convolution' or len(_attrs(conv)['kernel']) != 2 or \
                _attrs(conv)['layout'] not in (None, 'NCHW') or conv.kwargs:
            continue
        chain, params = [conv], list(conv.args)
        bn = add = act = None
        nxt = _only_reader(conv)
        if not no_bn and nxt is not None and _op(nxt) == 'BatchNorm' and nxt.args[0] is conv and \
                len(nxt.args) == 5 and _attrs(nxt)['axis'] in (1, -3) and not _attrs(nxt)['output_mean_var']:
            bn, params = nxt, params + list(nxt.args[1:])
            chain.append(bn)
            nxt = _only_reader(bn)
        if not no_sum and nxt is not None and _op(nxt) == 'elemwise_add' and len(nxt.args) == 2:
            add = nxt
            params.append(add.args[1] if add.args[0] is chain[-1] else add.args[0])
            chain.append(add)
            nxt = _only_reader(add)
        if not no_act and nxt is not None and _unary(nxt) is not None:
            act = nxt
            chain.append(act)
        if len(chain) == 1:
            continue
        last = chain[-1]
        with graph.inserting_before(last):
            fused = graph.call_function(_FusedConv(conv, bn, add, act), tuple(params))
        last.replace_all_uses_with(fused)
        for node in reversed(chain):
            graph.erase_node(node)
        changed = True
    if not changed:
        return gm
    graph.lint()
    return torch.fx.GraphModule(gm, graph)
