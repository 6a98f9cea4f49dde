"""MXNet 1.9.1's ``MKLDNN`` and ``MKLDNN_QUANTIZE`` subgraph backends, as a rewrite of the Symbol: what
``Symbol.get_backend_symbol`` and ``Symbol.optimize_for`` return (the graph MXNet writes, node for node).

A backend is a list of subgraph properties run in turn, each over the whole graph (MXNet's
``src/operator/subgraph/mkldnn/mkldnn_subgraph_property.cc``):

- ``MKLDNN``: identity (a ``_copy`` or a training-mode ``Dropout`` is dropped, the operator before it takes its
  place), convolution (``Convolution`` [+ ``BatchNorm``] [+ ``elemwise_add``] [+ activation] ->
  ``_sg_mkldnn_conv``), FullyConnected (+ one elementwise op -> ``_sg_mkldnn_fully_connected``), Transformer (each
  ``_contrib_interleaved_matmul_selfatt_qk`` / ``_valatt`` alone -> ``_sg_mkldnn_selfatt_qk`` / ``_valatt``, named
  ``sg_mkldnn_selfatt_qk_<id>``, with ``heads`` and ``quantized``/``enable_float_output`` False; off with
  ``MXNET_DISABLE_MKLDNN_TRANSFORMER_OPT``).
- ``MKLDNN_QUANTIZE``: identity, convolution and FullyConnected with their quantized activation rules, identity
  again, Transformer, then the post-quantization properties (``mkldnn_post_quantize`` beside this module).

Each property runs MXNet's generic partitioner (``src/operator/subgraph/build_subgraph.cc``): seeds in the graph's
depth-first order, a breadth-first growth asked of the property's selector, the cycle check that excludes a node
and retries, the subgraph's inputs cut into variables named ``<output name><count>`` in the topological order of
their entries, and the subgraph node wired in. Differences from MXNet:

- MXNet walks a node's readers in the order of a hash map keyed by node addresses; here they are walked in the
  reverse of the graph order, which is the order MXNet's map gives when a node has at most two readers (and gave
  in the three-reader cases tested). Only a FullyConnected with three or more readers, one of them a fusable
  elementwise op, could come out differently (the other selectors give the same graph in any order).
- MXNet reads its ``MXNET_DISABLE_MKLDNN_*`` switches once, when the library loads; here at each call.
- ``optimize_for`` with arrays: MXNet hands them to each property in the order of the graph's inputs before the
  first property ran, so when a property reorders them (a convolution's sum operand goes last) the next property's
  inference fails (``Shape inconsistent``); here arrays go by name and the partition succeeds. Types MXNet's
  inference rejects there (float64 data with float32 weights, float16 BatchNorm statistics) raise in MXNet; here
  the nodes are left unfused.
- Where MXNet's graph is malformed (a Convolution that is an output of the graph and also read by a BatchNorm: the
  subgraph holds the Convolution only, the node keeps the BatchNorm's inputs), the JSON differs in the versions of
  the moving statistics' entries (written 1 by MXNet, 0 here).

Checked against MXNet 1.9.1: tests/symbol/test_mkldnn_backend.py (goldens in tests/fixtures/symbol/mkldnn_backend).
"""
import collections
import os
import warnings

import numpy as np

from ...base import BFLOAT16_MARKER, MXNetError, MXNetTypeError, unsupported
from ...operator import registry
from .. import symbol as _symbol
from . import mkldnn_post_quantize

BACKENDS = ('MKLDNN', 'MKLDNN_QUANTIZE')
_TRANSFORMER_OPS = ('_contrib_interleaved_matmul_selfatt_qk', '_contrib_interleaved_matmul_selfatt_valatt')
_FC_ELTWISE = ('Activation', 'square', 'sqrt', 'exp', 'abs', 'clip', 'LeakyReLU')  # SupportMKLDNNFCEltwiseFusion
_MKLDNN_ACTS = ('relu', 'sigmoid', 'softrelu', 'tanh')  # SupportMKLDNNAct


def _env_int(name):
    v = os.environ.get(name)
    if v is None:
        return 0
    try:
        return int(v)
    except ValueError:
        raise MXNetError('environment variable %s=%r: an integer is expected' % (name, v)) from None


def _env_bool(name):
    v = os.environ.get(name)
    if v is None:
        return False
    low = v.strip().lower()
    if low in ('1', 'true'):
        return True
    if low in ('0', 'false'):
        return False
    raise MXNetError('environment variable %s=%r: a boolean is expected' % (name, v))


def _op(node):
    return None if node.is_var else node.op.name


def _act_supported(node, quantize):
    act = node.params()['act_type']
    return act == 'relu' if quantize else act in _MKLDNN_ACTS


def _supports_attr(attr):
    """SupportMKLDNNAttr: with no inferred attributes (get_backend_symbol) every node qualifies; else the node must
    dispatch to its oneDNN kernel with a float32/bfloat16 first input of 1 to 5 dimensions."""
    if attr is None:
        return True
    dispatch_ex, dtype, ndim = attr
    return dispatch_ex and dtype in ('float32', 'bfloat16') and ndim is not None and 1 <= ndim <= 5


# ---- the selectors (MXNet's SubgraphSelector of each property) ----------------------------------------------------
class _IdentitySelector:
    """SgMKLDNNIdentitySelector: an identity op and the operator that produces its input."""

    def __init__(self):
        self.matched, self.found = [], False

    def select(self, node, attr):  # noqa: ARG002
        op = _op(node)
        if op == '_copy' or (op == 'Dropout' and node.params()['mode'] == 'training'):
            self.matched = [node]
            return True
        return False

    def select_input(self, node, inp, attr):  # noqa: ARG002
        if self.found or inp.is_var:
            return False
        self.matched.append(inp)
        self.found = True
        return True

    def select_output(self, node, out, attr):  # noqa: ARG002
        return False

    def filter(self, cands):
        if self.found and len(cands) == len(self.matched):
            return cands
        return []

    def reset(self):
        seed = self.matched[0]
        self.__init__()
        self.select(seed, None)


_FAIL, _START, _BN, _SUM, _SUCCESS = range(5)


class _ChainSelector:
    """What the convolution and FullyConnected selectors share: a chain grown from the seed through its readers."""

    def __init__(self, *config):
        self.config = config
        self.status, self.matched = _FAIL, []

    def select_input(self, node, inp, attr):  # noqa: ARG002
        return False

    def _branch(self, node):
        """``node`` is not the chain's last node (it has another reader): cut the chain after it, and stop."""
        if any(m is node for m in self.matched):
            while self.matched[-1] is not node:
                self.matched.pop()
        self.status = _SUCCESS
        return False

    def _take(self, node, status):
        self.matched.append(node)
        self.status = status
        return True

    def reset(self):
        seed = self.matched[0]
        self.__init__(*self.config)
        self.select(seed, None)


class _ConvSelector(_ChainSelector):
    """SgMKLDNNConvSelector: Convolution -> BatchNorm -> elemwise_add -> activation, each step optional."""

    def select(self, node, attr):
        if _op(node) == 'Convolution' and len(node.params()['kernel']) in (2, 3) and _supports_attr(attr):
            self.status = _SUCCESS if self.config[0]['all'] else _START
            self.matched = [node]
            return True
        return False

    def select_output(self, node, out, attr):  # noqa: ARG002
        if self.matched[-1] is not node:
            return self._branch(node)
        if self.status in (_FAIL, _SUCCESS) or out.is_var:
            return False
        op, (f, quantize) = _op(out), self.config
        if self.status == _START and not f['bn'] and op == 'BatchNorm':
            return self._take(out, _BN)
        if self.status in (_START, _BN) and not f['sum'] and op == 'elemwise_add':
            return self._take(out, _SUM)
        if not f['act'] and op == 'Activation':
            if _act_supported(out, quantize):
                return self._take(out, _SUCCESS)
        elif not f['act'] and op == 'LeakyReLU':
            if out.params()['act_type'] in ('leaky', 'gelu'):
                return self._take(out, _SUCCESS)
        elif not f['act'] and op == 'clip':
            # (MXNet leaves int8 conv+sum+relu6 alone)
            if not (quantize and self.status == _SUM) and out.params()['a_min'] == 0.0:
                return self._take(out, _SUCCESS)
        self.status = _SUCCESS
        return False

    def filter(self, cands):
        if self.status == _FAIL:
            return []
        ids = {id(c) for c in cands}
        return [m for m in self.matched if id(m) in ids]


class _FCSelector(_ChainSelector):
    """SgMKLDNNFCSelector: FullyConnected and the first of its readers MXNet visits, when that is a fusable
    elementwise op (the Filter keeps every candidate)."""

    def select(self, node, attr):
        if _op(node) == 'FullyConnected' and _supports_attr(attr):
            self.status = _SUCCESS if self.config[0] else _START
            self.matched = [node]
            return True
        return False

    def select_output(self, node, out, attr):  # noqa: ARG002
        if self.status in (_FAIL, _SUCCESS) or out.is_var:
            return False
        if self.matched[-1] is not node:
            return self._branch(node)
        op, quantize = _op(out), self.config[1]
        take = ((op == 'Activation' and _act_supported(out, quantize))
                or (op == 'LeakyReLU' and out.params()['act_type'] in ('leaky', 'elu', 'gelu'))
                or (not quantize and op in ('square', 'sqrt', 'exp'))
                or op == 'abs'
                or (op == 'clip' and out.params()['a_min'] == 0.0))
        if take:
            return self._take(out, _SUCCESS)
        self.status = _SUCCESS
        return False

    def filter(self, cands):
        return [] if self.status == _FAIL else cands


class _TransformerSelector:
    """SgMKLDNNTransformerSelector: an interleaved self-attention matmul, alone."""

    def select(self, node, attr):  # noqa: ARG002
        return _op(node) in _TRANSFORMER_OPS

    def select_input(self, node, inp, attr):  # noqa: ARG002
        return False

    def select_output(self, node, out, attr):  # noqa: ARG002
        return False

    def filter(self, cands):
        return cands

    def reset(self):
        pass


# ---- the properties (MXNet's SubgraphProperty: which selector, the node made, how it is wired) --------------------
def _dfs_ops(node):
    """The operator nodes of the subgraph ending at ``node``, depth-first post-order (nnvm's DFSVisit)."""
    return [n for n in _symbol._topo([(node, 0)]) if not n.is_var]


def _is_identity(node):
    return _op(node) in ('_copy', 'Dropout')


class _Property:
    """What MXNet's SubgraphProperty does unless a property says otherwise."""
    disable_env = None

    def connect_outputs(self, n, refs):
        for ref in refs:
            ref.set((n, ref.get()[1]))

    def connect_inputs(self, n, refs, orig):  # noqa: ARG002
        n.inputs = list(orig)


def _fused_node(op, parts, attrs, last, subgraph_id):
    """A fused operator's node ``sg_mkldnn_<parts>_<id>`` holding the subgraph that ends at ``last``."""
    name = 'sg_mkldnn_%s_%d' % ('_'.join(parts), subgraph_id)
    return _symbol._Node(registry.get(op), name, attrs, (), (_symbol.Symbol([(last, 0)]),))


class _Identity(_Property):
    name = 'MKLDNN Identity optimization passs'

    def selector(self):
        return _IdentitySelector()

    def create(self, outputs, selector, subgraph_id):  # noqa: ARG002
        ident = None
        for node, _ in outputs:
            if _is_identity(node):
                ident = node
        if ident is None:
            raise MXNetError('MKLDNN identity pass: no identity node among the subgraph outputs')
        org = [n for n in _symbol._topo([(ident, 0)]) if not _is_identity(n)][-1]
        return _symbol._Node(org.op, org.name, org.attrs, (), org.subgraphs)

    def connect_outputs(self, n, refs):
        for ref in refs:
            node, idx = ref.get()
            if _is_identity(node):
                idx = node.inputs[0][1]
            ref.set((n, idx))


class _Conv(_Property):
    name = 'MKLDNN convolution optimization pass'
    disable_env = 'MXNET_DISABLE_MKLDNN_CONV_OPT'

    def __init__(self, quantize):
        self.quantize = quantize
        f = {k: _env_int('MXNET_DISABLE_MKLDNN_FUSE_CONV_' + e) for k, e in (('bn', 'BN'), ('act', 'RELU'),
                                                                             ('sum', 'SUM'))}
        f['all'] = f['bn'] and f['act'] and f['sum']
        self.flags = f

    def selector(self):
        return _ConvSelector(self.flags, self.quantize)

    def create(self, outputs, selector, subgraph_id):  # noqa: ARG002
        last = outputs[0][0]
        parts, attrs, with_sum = [], {}, False
        for node in _dfs_ops(last):
            op = node.op.name
            if op == 'Convolution':
                parts.append('conv')
            elif op == 'BatchNorm':
                parts.append('bn')
                attrs['with_bn'] = 'true'
            elif op == 'elemwise_add':
                parts.append('add')
                attrs['with_sum'] = 'true'
                with_sum = True
            elif op in ('Activation', 'LeakyReLU', 'clip'):
                parts.append('act')
                attrs['with_postsum_act' if with_sum else 'with_act'] = 'true'
        return _fused_node('_sg_mkldnn_conv', parts, attrs, last, subgraph_id)

    def connect_outputs(self, n, refs):
        for ref in refs:
            ref.set((n, 0))

    def connect_inputs(self, n, refs, orig):
        # the sum's other operand goes last: the chain is made the add's first input
        seen = set()
        for node in _dfs_ops(n.subgraphs[0]._outputs[0][0]):
            seen.add(id(node))
            if node.op.name == 'elemwise_add' and id(node.inputs[1][0]) in seen:
                node.inputs[0], node.inputs[1] = node.inputs[1], node.inputs[0]
                refs[:] = refs[1:] + refs[:1]
                orig[:] = orig[1:] + orig[:1]
        n.inputs = list(orig)


class _FC(_Property):
    name = 'MKLDNN FullyConnected optimization pass'
    disable_env = 'MXNET_DISABLE_MKLDNN_FC_OPT'

    def __init__(self, quantize):
        self.quantize = quantize
        self.no_eltwise = _env_bool('MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE')

    def selector(self):
        return _FCSelector(self.no_eltwise, self.quantize)

    def create(self, outputs, selector, subgraph_id):  # noqa: ARG002
        last = outputs[0][0]
        parts, attrs = [], {}
        for node in _dfs_ops(last):
            if node.op.name == 'FullyConnected':
                parts.append('fully_connected')
            elif node.op.name in _FC_ELTWISE:
                parts.append('eltwise')
                attrs['with_eltwise'] = 'True'
        return _fused_node('_sg_mkldnn_fully_connected', parts, attrs, last, subgraph_id)


class _Transformer(_Property):
    name = 'MKLDNN Transformer optimization pass'
    disable_env = 'MXNET_DISABLE_MKLDNN_TRANSFORMER_OPT'

    def selector(self):
        return _TransformerSelector()

    def create(self, outputs, selector, subgraph_id):  # noqa: ARG002
        last = outputs[0][0]
        kind = last.op.name[len('_contrib_interleaved_matmul_'):]  # selfatt_qk / selfatt_valatt
        attrs = {'heads': str(last.params()['heads']), 'quantized': 'False', 'enable_float_output': 'False'}
        return _fused_node('_sg_mkldnn_' + kind, [kind], attrs, last, subgraph_id)


def properties(backend):
    """The properties of ``backend`` in MXNet's registration order; None stands for the post-quantization ones."""
    if backend == 'MKLDNN':
        return [_Identity(), _Conv(False), _FC(False), _Transformer()]
    return [_Identity(), _Conv(True), _FC(True), _Identity(), _Transformer(), None]


# ---- the generic partitioner (build_subgraph.cc) ------------------------------------------------------------------
class _Ref:
    """A place holding a node entry (MXNet's NodeEntry*): an input slot of a node, or one of the graph's outputs."""

    __slots__ = ('seq', 'k')

    def __init__(self, seq, k):
        self.seq, self.k = seq, k

    @property
    def key(self):
        return (id(self.seq), self.k)

    def get(self):
        return self.seq[self.k]

    def set(self, entry):
        self.seq[self.k] = entry


def _entry_order(heads):
    """TopSortEntries: each entry's position, the order in which a depth-first walk from the outputs finishes it."""
    order, visited = {}, set()

    def mark(ref):
        order.setdefault(ref.key, len(order))

    for k, (node, _) in enumerate(heads):
        stack = []
        if id(node) not in visited:
            stack.append([node, 0, _Ref(heads, k)])
            visited.add(id(node))
        else:
            mark(_Ref(heads, k))
        while stack:
            top = stack[-1]
            node, i, ref = top
            if i == len(node.inputs):
                mark(ref)
                stack.pop()
                continue
            top[1] += 1
            src = node.inputs[i][0]
            if id(src) not in visited:
                visited.add(id(src))
                stack.append([src, 0, _Ref(node.inputs, i)])
            else:
                mark(_Ref(node.inputs, i))
    return order


def _output_name(entry):
    node, idx = entry
    return node.name if node.is_var else node.output_names()[idx]


class _Partition:
    """One run of BuildSubgraph with one property over the graph whose outputs are ``heads`` (changed in place)."""

    def __init__(self, heads, prop, attr_of, dedup):
        self.heads, self.prop, self.attr_of, self.dedup = heads, prop, attr_of, dedup
        self.nodes = _symbol._topo(heads)
        self.nid = {id(n): i for i, n in enumerate(self.nodes)}
        self.label = [-1] * len(self.nodes)
        # each node's readers, in the order they were met: {id(reader): [reader, [input slots]]}
        self.outs = [collections.OrderedDict() for _ in self.nodes]
        for n in self.nodes:
            for i, (src, _) in enumerate(n.inputs):
                self.outs[self.nid[id(src)]].setdefault(id(n), [n, []])[1].append(i)
        self.order = _entry_order(heads)

    def _attr(self, node):
        return None if self.attr_of is None else self.attr_of(node)

    def run(self):
        found = []
        for i, node in enumerate(self.nodes):
            sel = self.prop.selector()
            if self.label[i] != -1 or not sel.select(node, self._attr(node)):
                continue
            pre = self._preselect(sel, len(found), i)
            kept = sel.filter([self.nodes[j] for j in pre])
            kept_ids = {id(n) for n in kept}
            for j in pre:
                if id(self.nodes[j]) not in kept_ids:
                    self.label[j] = -1
            if kept:
                found.append((sorted(self.nid[id(n)] for n in kept), sel))
        for sid, (sub, sel) in enumerate(found):
            self._create(sub, sel, sid)

    def _preselect(self, sel, label, snid):
        excluded, n_excluded, count = set(), 0, 0
        max_retry = len(self.nodes) ** 2
        sub = None
        while sub is None and count < max_retry:
            sub = self._label(sel, label, snid, excluded)
            if sub is None:
                if len(excluded) == n_excluded:
                    break
                n_excluded = len(excluded)
                sel.reset()
            count += 1
        if sub is None:  # a loop is always found: the seed alone
            self.label[snid] = label
            sub = [snid]
        return sub

    def _label(self, sel, label, snid, excluded):
        """LabelSubgraph: grow breadth-first from the seed; None (and a node excluded) when the subgraph would close
        a loop through the rest of the graph."""
        sub, border = self._grow(sel, label, snid, excluded)
        excluded_id = self._loop_breaker(sub, border)
        if excluded_id != -1:
            excluded.add(excluded_id)
            for j in sub:
                self.label[j] = -1
            return None
        return sorted(sub)

    def _grow(self, sel, label, snid, excluded):
        """The nodes the selector takes, and the nodes around them: {outside node: ([subgraph nodes reading it],
        [subgraph nodes it reads])}."""
        nodes, nid, lab = self.nodes, self.nid, self.label
        lab[snid] = label
        queue, sub, border = collections.deque([snid]), [], {}
        while queue:
            cur = queue.popleft()
            sub.append(cur)
            cn = nodes[cur]
            for src, _ in cn.inputs:
                s = nid[id(src)]
                if lab[s] == -1 and s not in excluded and sel.select_input(cn, src, self._attr(src)):
                    lab[s] = label
                    queue.append(s)
                elif lab[s] == -1:
                    border.setdefault(s, ([], []))[0].append(cur)
            for reader, _ in reversed(list(self.outs[cur].values())):
                s = nid[id(reader)]
                if lab[s] == -1 and s not in excluded and sel.select_output(cn, reader, self._attr(reader)):
                    lab[s] = label
                    queue.append(s)
                elif lab[s] == -1:
                    border.setdefault(s, ([], []))[1].append(cur)
        return sub, border

    def _loop_breaker(self, sub, border):
        """The node to exclude so that no path leaves the subgraph and comes back into it (-1: none)."""
        nodes = self.nodes
        in_sub = {id(nodes[j]) for j in sub}

        def is_ancestor(anc, desc):  # (MXNet's bounded walk: at most as many steps as the graph has nodes)
            if anc == desc:
                return True
            stack, count = [nodes[desc]], 0
            while stack and count < len(nodes):
                count += 1
                top = stack.pop()
                if top is nodes[anc]:
                    return True
                stack.extend(src for src, _ in top.inputs if id(src) not in in_sub)
            return False

        outside = sorted(border)
        excluded_id = -1
        for a, k in enumerate(outside):
            feeds, fed_by = (sorted(x) for x in border[k])
            if feeds and fed_by:
                excluded_id = max(excluded_id, feeds[-1], fed_by[-1])
            elif fed_by:
                for k2 in outside[a + 1:]:
                    feeds2 = sorted(border[k2][0])
                    if feeds2 and is_ancestor(k, k2):
                        excluded_id = max(excluded_id, fed_by[-1], feeds2[-1])
        return excluded_id

    def _create(self, sub, sel, sid):
        """CreateSubgraphNode: cut the subgraph's inputs into variables and wire the property's node in."""
        nodes, nid, lab = self.nodes, self.nid, self.label
        label = lab[sub[0]]
        by_order = lambda ref: self.order[ref.key]  # noqa: E731
        ins = []
        for j in sub:
            n = nodes[j]
            for k, (src, _) in enumerate(n.inputs):
                if id(src) not in nid or lab[nid[id(src)]] != label:
                    ins.append(_Ref(n.inputs, k))
        ins.sort(key=by_order)
        orig, uniq_orig, uniq_ins = self._cut(ins)
        outs = []
        for j in sub:
            for reader, slots in self.outs[j].values():
                if id(reader) not in nid or lab[nid[id(reader)]] != label:
                    outs.extend(_Ref(reader.inputs, k) for k in slots)
        outs.extend(_Ref(self.heads, k) for k, (node, _) in enumerate(self.heads)
                    if id(node) in nid and lab[nid[id(node)]] == label)
        outs.sort(key=by_order)
        entries = [r.get() for r in outs]
        if self.dedup:
            entries = [e for i, e in enumerate(entries) if i == 0 or e[0] is not entries[i - 1][0]
                       or e[1] != entries[i - 1][1]]
        n = self.prop.create(entries, sel, sid)
        if n is None:
            for ref, e in zip(ins, orig):
                ref.set(e)
            return
        self.prop.connect_outputs(n, outs)
        if self.dedup:
            self.prop.connect_inputs(n, uniq_ins, uniq_orig)
        else:
            self.prop.connect_inputs(n, ins, orig)
        members = {id(nodes[j]) for j in sub}
        for i, (src, _) in enumerate(n.inputs):
            self.order.setdefault((id(n.inputs), i), self.order[ins[i].key])
            if id(src) in nid:
                readers = self.outs[nid[id(src)]]
                for m in members:
                    readers.pop(m, None)
                readers.setdefault(id(n), [n, []])[1].append(i)

    def _cut(self, ins):
        """CutGraphInputs: each input entry replaced by a new variable ``<output name><count>`` (one per distinct
        entry name under ``dedup_subgraph``)."""
        orig, uniq_orig, uniq_ins = [], [], []
        made, count = {}, {}
        for ref in ins:
            e = ref.get()
            orig.append(e)
            name = _output_name(e)
            if name not in count:
                count[name] = 0
                uniq_orig.append(e)
                uniq_ins.append(ref)
                made[name] = (_symbol._Node(None, name + '0'), 0)
            else:
                count[name] += 1
            ref.set(made[name] if self.dedup else (_symbol._Node(None, '%s%d' % (name, count[name])), 0))
        return orig, uniq_orig, uniq_ins


def partition(sym, backend, attr_of=None, dedup=False, honour_disable=True):
    """``sym`` with ``backend``'s properties applied (a new graph; ``sym`` is not changed). ``attr_of(heads)``, when
    given, returns for that graph a function of a node giving (dispatched to oneDNN, first input's dtype name, its
    number of dimensions), as MXNet has them after inference in ``optimize_for`` with arguments; disabled
    properties run anyway unless ``honour_disable`` (only ``get_backend_symbol`` reads that switch)."""
    if backend not in BACKENDS:
        raise unsupported('Symbol.get_backend_symbol', 'backend=%r' % (backend,),
                          'the subgraph backends written are %s' % ', '.join(BACKENDS))
    heads = list(sym._clone()._outputs)
    for prop in properties(backend):
        if prop is None:
            heads = list(mkldnn_post_quantize.apply(_symbol.Symbol(heads))._outputs)
            continue
        if honour_disable and prop.disable_env and _env_int(prop.disable_env):
            continue
        _Partition(heads, prop, None if attr_of is None else attr_of(heads), dedup).run()
    return _symbol.Symbol(heads)


def inferred_attrs(sym, args, aux, shape_dict, type_dict, on_cpu):
    """For ``partition``'s ``attr_of``: shapes and types inferred from the arrays given (then ``shape_dict`` and
    ``type_dict`` for the arguments not given), per graph. Only a Convolution's or FullyConnected's first input is
    looked at (the only nodes whose selectors read them); a type or shape left unknown does not qualify."""
    shapes, types = {}, {}
    for d in (args, aux):
        for k, v in d.items():
            if v is not None:
                shapes[k], types[k] = tuple(v.shape), v.dtype
    for k, v in shape_dict.items():
        shapes.setdefault(k, tuple(v))
    for k, v in type_dict.items():
        types.setdefault(k, v)

    def attr_of(heads):
        readers = [n for n in _symbol._topo(heads) if _op(n) in ('Convolution', 'FullyConnected')]
        if not readers:
            return lambda node: None
        probe = _symbol.Symbol([n.inputs[0] for n in readers])
        names = set(probe.list_inputs())
        _, out_shapes, _ = probe.infer_shape_partial(**{k: v for k, v in shapes.items() if k in names})
        _, out_types, _ = probe.infer_type_partial(**{k: v for k, v in types.items() if k in names})
        found = {}
        for n, shp, typ in zip(readers, out_shapes, out_types):
            ndim = len(shp) if shp and all(d > 0 for d in shp) else None
            name = None if typ is None else 'bfloat16' if np.dtype(typ) == BFLOAT16_MARKER else np.dtype(typ).name
            found[id(n)] = (on_cpu, name, ndim)
        return lambda node: found.get(id(node), (on_cpu, None, None))
    return attr_of


def optimize_for(sym, backend, args, aux, ctx, shape_dict, type_dict, stype_dict, skip_infer, options):
    """``Symbol.optimize_for`` for the MKLDNN backends (see its docstring)."""
    if backend not in BACKENDS:
        raise unsupported('Symbol.optimize_for', 'backend=%r' % (backend,),
                          'the subgraph backends written are %s' % ', '.join(BACKENDS))
    for what, d in (('args', args), ('aux', aux)):
        if d is not None and not isinstance(d, dict):
            raise MXNetTypeError('optimize_for: %s must be a dict of str to NDArray, got %s' % (what, type(d)))
    del stype_dict  # (every operator these backends fuse takes dense arrays)
    attr_of = None
    if (args or aux) and not skip_infer:
        attr_of = inferred_attrs(sym, args or {}, aux or {}, shape_dict or {}, type_dict or {},
                                 ctx.device_type == 'cpu')
    dedup = str(options.get('dedup_subgraph', '')) == 'True'
    new = partition(sym, backend, attr_of, dedup, honour_disable=False)
    for d, old_names, new_names in ((args, sym.list_arguments(), new.list_arguments()),
                                    (aux, sym.list_auxiliary_states(), new.list_auxiliary_states())):
        gone = set(old_names) - set(new_names)
        if gone and d is not None:
            for k in gone:
                d.pop(k, None)
        elif gone:
            warnings.warn('A param was deleted during optimization, but no args dictionary was provided.\n'
                          'Please ensure that your model weights match the newly optimized model.')
    return new
