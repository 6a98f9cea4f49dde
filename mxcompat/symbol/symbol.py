"""Symbol: MXNet's declarative graph, as a DAG of registry operators.

A Symbol is a list of outputs ``(node, index)``; a node is a variable or an operator call with MXNet's string
attributes. Binding lowers the graph to one ``torch.fx.GraphModule`` (see ``lower.py``). The JSON written by
``tojson``/``save`` is MXNet 1.x's format and loads in real MXNet; JSON written by MXNet (including the older
``param``/``attr`` layouts) loads here.
"""
import json
from numbers import Number

import torch
import numpy as np

from ..attribute import AttrScope
from ..base import (BFLOAT16_CODE, BFLOAT16_MARKER, MXNetError, MXNetValueError, MXNetTypeError, DTYPE_NP2MX,
                    parse_tuple, string_types, to_torch_dtype, to_np_dtype)
from ..name import NameManager
from ..operator import registry
from ..util import _np_shape_level
from . import _monitor_names, opinfo
from .opinfo import aux_vars as _aux_vars
from .infer import infer
from ..context import current_context
from ..base import unsupported, dtype_name, NotImplementedForSymbol
from .._fileio import read_text, write_text
from .passes import mkldnn_backend as _mkldnn_backend

__all__ = ['Symbol', 'var', 'Variable', 'Group', 'load', 'load_json', 'fromjson']

_STYPE_ID = {'default': 0, 'row_sparse': 1, 'csr': 2}

# The operator modules generated over Symbol (so they import this one): mxcompat/symbol/__init__.py binds them here
# once it has imported them, before any Symbol arithmetic can run, as the ndarray package does for NDArray.
_op = _internal = None


_FUSED = 'subgraph'  # the parameter of a fused operator that receives its subgraph (operator/_sg_mkldnn.py)


class _Node:
    """One graph node: ``op`` is an OpDef (None for a variable); ``attrs`` are MXNet's string attributes."""

    __slots__ = ('op', 'name', 'attrs', 'inputs', '_parsed', 'subgraphs', '__weakref__')

    def __init__(self, op, name, attrs=None, inputs=(), subgraphs=()):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)  # [(node, output index)]
        self._parsed = None
        self.subgraphs = subgraphs  # Symbols: the body of a control-flow node (control_flow.py)

    @property
    def is_var(self):
        return self.op is None

    def params(self):
        """Operator parameters parsed (cached); dunder attributes are not parameters. A fused operator
        (``_sg_mkldnn_conv``: it has a ``subgraph`` parameter) gets its subgraph's operators and attributes there."""
        if self._parsed is None:
            attrs = {k: v for k, v in self.attrs.items() if not (k.startswith('__') and k.endswith('__'))}
            if self.subgraphs and _FUSED in self.op.params:
                attrs[_FUSED] = tuple((n.op.name, tuple(sorted(n.attrs.items())))
                                      for n in _topo(self.subgraphs[0]._outputs) if not n.is_var)
            self._parsed = self.op.parse_attrs(attrs)
        return self._parsed

    def is_control_flow(self):
        """Whether the node runs its subgraphs (foreach, while_loop, cond), rather than being a fused operator
        that only reads its subgraph's attributes."""
        return bool(self.subgraphs) and _FUSED not in self.op.params

    def num_visible(self):
        return 1 if self.op is None else self.op.n_outputs(self.params())

    def num_outputs(self):
        if self.op is None:
            return 1
        return opinfo.total_outputs(self.op, self.params(), self.num_visible())

    def output_names(self):
        if self.op is None:
            return [self.name]
        return ['%s_%s' % (self.name, n) if self.name else n
                for n in opinfo.output_names(self.op, self.params(), self.num_visible())][:self.num_outputs()]

    def op_args(self, values):
        """Values for this node's inputs laid out as the op's implementation takes them: inputs the attributes
        switch off (``bias`` with ``no_bias``) become None."""
        if self.op.variadic:
            return list(values)
        present = self.input_names()
        if len(present) == len(self.op.inputs):
            return list(values)
        by_name = dict(zip(present, values))
        out = [by_name.get(iname) for iname in self.op.inputs]
        while out and out[-1] is None:
            out.pop()
        return out

    def input_names(self):
        return self.op.input_names(self.params(), len(self.inputs))

    def monitor_names(self, executor=False):
        """What MXNet's monitors call this operator node's arrays: (for each input, the names it is reported
        under; the output names). Inputs are ``<node>_<input name>``, or ``<node>_input<i>`` for operators that do
        not name their inputs in MXNet 1.9 (``_monitor_names``). Op hooks (``executor=False``) name outputs
        ``<node>_<output name>``, or ``<node>_<i>`` for operators that do not name their outputs; executors use
        ``list_outputs`` names and report an input that is a variable under the variable's name first."""
        op = self.op.name
        if op in _monitor_names.NO_INPUT_NAMES:
            ins = ['%s_input%d' % (self.name, i) for i in range(len(self.inputs))]
        else:
            ins = ['%s_%s' % (self.name, n) for n in self.input_names()]
        if executor:
            ins = [[src.name, n] if src.is_var else [n] for (src, _), n in zip(self.inputs, ins)]
            return ins, self.output_names()
        if op in _monitor_names.NO_OUTPUT_NAMES:
            outs = ['%s_%d' % (self.name, i) for i in range(self.num_visible())]
        else:
            outs = self.output_names()
        return [[n] for n in ins], outs


def _topo(outputs):
    """Nodes reachable from ``outputs`` in MXNet's order (depth-first post-order over inputs)."""
    order, seen = [], set()
    for root, _ in outputs:
        if id(root) in seen:
            continue
        stack = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0 and id(node) in seen:
                continue
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen:
                    stack.append((child, 0))
            else:
                if id(node) not in seen:
                    seen.add(id(node))
                    order.append(node)
    return order


def gradient_inputs(sym):
    """Names of the variables a non-zero gradient can reach from the outputs (others' gradients are zero, so
    executors need not record anything for them). Raises, as MXNet's gradient pass does, when such a gradient
    would have to pass through an operator MXNet cannot differentiate."""
    live = {id(n) for n, _ in sym._outputs}
    names = set()
    for n in reversed(sym._nodes()):
        if id(n) not in live:
            continue
        if n.is_var:
            names.add(n.name)
            continue
        if n.op.name in opinfo.NON_DIFFERENTIABLE:
            raise MXNetError("Operator %s is non-differentiable because it didn't register FGradient attribute."
                             % n.op.name)
        if n.op.name not in opinfo.GRADIENT_STOP:
            live.update(id(s) for s, _ in n.inputs)
    return names


def _attr_str(v):
    if isinstance(v, str):
        return v
    if isinstance(v, type) and issubclass(v, np.generic) or isinstance(v, np.dtype):
        return 'bfloat16' if np.dtype(v) == BFLOAT16_MARKER else np.dtype(v).name
    if isinstance(v, list):  # str() of the list, as MXNet stores it: axes=[1, 0, 2] stays '[1, 0, 2]'
        return '[' + ', '.join(repr(x) if isinstance(x, str) else _attr_str(x) for x in v) + ']'
    if isinstance(v, tuple):
        return '(' + ', '.join(_attr_str(x) for x in v) + (',)' if len(v) == 1 else ')')
    if hasattr(v, 'dtype') and not isinstance(v, np.ndarray) and str(type(v)).find('torch') >= 0:
        return str(v)
    try:
        if isinstance(v, torch.dtype):
            return dtype_name(v)
    except ImportError:  # pragma: no cover
        pass
    return str(v)


class Symbol:
    """A symbolic graph (one or more outputs)."""

    __slots__ = ('_outputs', '__weakref__')
    __array_priority__ = 1000.0  # numpy defers to our reflected operators, as with MXNet's Symbol

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # -- structure --------------------------------------------------------------------------------------------
    def _single_node(self):
        """The node behind all outputs, or None when they come from several nodes (a group)."""
        nodes = {id(n): n for n, _ in self._outputs}
        return next(iter(nodes.values())) if len(nodes) == 1 else None

    @property
    def name(self):
        node = self._single_node()
        return None if node is None else node.name

    def __repr__(self):
        name = self.name
        if name is None:
            return '<Symbol group [%s]>' % ', '.join(Symbol([o]).name for o in self._outputs)
        return '<Symbol %s>' % name

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __len__(self):
        return len(self._outputs)

    def __array__(self, dtype=None, copy=None):
        """A Symbol is one numpy object, not a sequence: ``np.repeat([sym1, sym2], 3)`` (MXNet's GPU tests do
        this) is an object array of Symbols. Without this numpy would descend ``sym[0][0]...`` (each output is a
        Symbol of length 1) until its dimension limit, an error under numpy >= 1.24; MXNet ran on older numpy,
        which fell back to an object array there after a deprecation warning."""
        if dtype is not None and np.dtype(dtype) != np.dtype(object):
            raise MXNetTypeError('a Symbol has no values: it converts to a numpy object array only, not %s'
                                 % np.dtype(dtype))
        out = np.empty((), dtype=object)
        out[()] = self
        return out

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            idx = [i for i, n in enumerate(names) if n == index]
            if len(idx) > 1:
                raise MXNetValueError('There are multiple outputs with name "%s"' % index)
            if not idx:
                raise MXNetValueError('Cannot find output that matches name "%s"' % index)
            index = idx[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not isinstance(index, int):
            raise MXNetTypeError('Symbol only support integer index to fetch i-th output')
        if index >= len(self._outputs) or index < -len(self._outputs):
            raise MXNetIndexError_('Symbol index %d out of range (%d outputs)' % (index, len(self._outputs)))
        return Symbol([self._outputs[index]])

    def _nodes(self):
        return _topo(self._outputs)

    def list_arguments(self):
        nodes = self._nodes()
        aux = _aux_vars(nodes)
        return [n.name for n in nodes if n.is_var and id(n) not in aux]

    def list_auxiliary_states(self):
        nodes = self._nodes()
        aux = _aux_vars(nodes)
        return [n.name for n in nodes if n.is_var and id(n) in aux]

    def list_inputs(self):
        return [n.name for n in self._nodes() if n.is_var]

    def list_outputs(self):
        out = []
        for node, i in self._outputs:
            out.append(node.output_names()[i] if not node.is_var else node.name)
        return out

    def get_internals(self):
        outs = []
        for n in self._nodes():
            for i in range(n.num_visible() if n.op is not None else 1):
                outs.append((n, i))
        return Symbol(outs)

    def get_children(self):
        """The inputs of this symbol's output nodes (each node once, in output order); None when there are none."""
        seen, ins = set(), []
        for node, _ in self._outputs:
            if id(node) not in seen:
                seen.add(id(node))
                ins.extend(node.inputs)
        return Symbol(ins) if ins else None

    def _gen_atomic_symbol(self):
        """A new unnamed, input-less node with the op and attributes of this symbol's (first) output node."""
        node = self._outputs[0][0]
        if node.is_var:
            raise MXNetError('_gen_atomic_symbol: %s is a variable, not an operator' % node.name)
        # as in MXNet: no name and no inputs, only the op and its attributes (and a control-flow node's bodies)
        new = _Node(node.op, '', node.attrs, (), node.subgraphs)
        return Symbol([(new, i) for i in range(new.num_visible())])

    # -- attributes -------------------------------------------------------------------------------------------
    def attr(self, key):
        node = self._single_node()
        if node is None:
            return None
        attrs = node.attrs
        v = attrs.get(key)
        return attrs.get(_hide_key(key)) if v is None else v

    def list_attr(self, recursive=False):
        if recursive:
            raise MXNetValueError('Symbol.list_attr with recursive=True has been deprecated. Please use '
                                  'attr_dict instead.')
        node = self._single_node()
        return {} if node is None else _with_plain_keys(node.attrs)

    def attr_dict(self):
        out = {}
        for n in self._nodes():
            if n.attrs:
                out[n.name] = _with_plain_keys(n.attrs)
        return out

    def _set_attr(self, **kwargs):
        for k, v in kwargs.items():
            if not isinstance(v, string_types):
                raise MXNetValueError('Set Attr only accepts string values')
        for node, _ in self._outputs:
            node.attrs.update({_hide_key(k): v for k, v in kwargs.items()})
            node._parsed = None

    # -- composition ------------------------------------------------------------------------------------------
    def __copy__(self):
        return self._clone()

    def __deepcopy__(self, memo):
        return self._clone()

    def _clone(self, replace=None):
        """A copy of the graph; ``replace`` maps variable names to symbols substituted for them."""
        replace = replace or {}
        mapping = {}  # id(old node) -> new node, or (node, index) for a variable replaced by another output

        def resolve(src, i):
            m = mapping[id(src)]
            return m if isinstance(m, tuple) else (m, i)

        for n in self._nodes():
            if n.is_var and n.name in replace:
                mapping[id(n)] = replace[n.name]._outputs[0]
            else:
                mapping[id(n)] = _Node(n.op, n.name, n.attrs, [resolve(s, i) for s, i in n.inputs], n.subgraphs)
        return Symbol([resolve(n, i) for n, i in self._outputs])

    def __call__(self, *args, **kwargs):
        """Compose: replace this symbol's free variables by the given symbols (positionally or by name)."""
        name = kwargs.pop('name', None)
        s = self._clone()
        s._compose(*args, name=name, **kwargs)
        return s

    def _compose(self, *args, **kwargs):
        name = kwargs.pop('name', None)
        if args and kwargs:
            raise MXNetTypeError('compose only accept input Symbols either as positional or keyword arguments, '
                                 'not both')
        for a in list(args) + list(kwargs.values()):
            if not isinstance(a, Symbol):
                raise MXNetTypeError('Compose expect `Symbol` as arguments')
        if args:
            names = self.list_arguments()
            if len(args) > len(names):
                raise MXNetValueError('compose: too many positional arguments')
            kwargs = dict(zip(names, args))
        new = self._clone(kwargs)
        self._outputs = new._outputs
        if name and len(self._outputs) == 1:
            self._outputs[0][0].name = name

    # -- operators --------------------------------------------------------------------------------------------
    def _bin(self, other, op_name, scalar_name, reverse_scalar=None):
        if isinstance(other, Symbol):
            return getattr(_internal, op_name)(self, other)
        if isinstance(other, Number):
            return getattr(_internal, reverse_scalar or scalar_name)(self, scalar=other)
        raise MXNetTypeError('type %s not supported' % str(type(other)))

    def __add__(self, other):
        return self._bin(other, '_Plus', '_PlusScalar')

    __radd__ = __add__
    __iadd__ = __add__

    def __sub__(self, other):
        return self._bin(other, '_Minus', '_MinusScalar')

    __isub__ = __sub__

    def __rsub__(self, other):
        return self._bin(other, '_Minus', None, '_RMinusScalar')

    def __mul__(self, other):
        return self._bin(other, '_Mul', '_MulScalar')

    __rmul__ = __mul__
    __imul__ = __mul__

    def __truediv__(self, other):
        return self._bin(other, '_Div', '_DivScalar')

    __div__ = __truediv__
    __idiv__ = __truediv__
    __itruediv__ = __truediv__

    def __rtruediv__(self, other):
        return self._bin(other, '_Div', None, '_RDivScalar')

    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return self._bin(other, '_Mod', '_ModScalar')

    def __rmod__(self, other):
        return self._bin(other, '_Mod', None, '_RModScalar')

    def __pow__(self, other):
        return self._bin(other, '_Power', '_PowerScalar')

    def __rpow__(self, other):
        return self._bin(other, '_Power', None, '_rpower_scalar')

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return self.abs()

    def __eq__(self, other):
        return self._bin(other, '_equal', '_equal_scalar')

    def __ne__(self, other):
        return self._bin(other, '_not_equal', '_not_equal_scalar')

    def __gt__(self, other):
        return self._bin(other, '_greater', '_greater_scalar')

    def __ge__(self, other):
        return self._bin(other, '_greater_equal', '_greater_equal_scalar')

    def __lt__(self, other):
        return self._bin(other, '_lesser', '_lesser_scalar')

    def __le__(self, other):
        return self._bin(other, '_lesser_equal', '_lesser_equal_scalar')

    __hash__ = object.__hash__

    def __bool__(self):
        raise NotImplementedForSymbol_(self.__bool__, 'bool')

    def __getstate__(self):
        return {'handle': self.tojson()}

    def __setstate__(self, state):
        self._outputs = load_json(state['handle'])._outputs

    # -- shape and type inference ------------------------------------------------------------------------------
    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes); (None, None, None) when some shape stays unknown."""
        res = self._infer_shape_impl(False, *args, **kwargs)
        if res[1] is None:
            return None, None, None
        return res

    def infer_shape_partial(self, *args, **kwargs):
        """Like ``infer_shape``; unknown shapes are reported as ``()``."""
        return self._infer_shape_impl(True, *args, **kwargs)

    def _infer_shape_impl(self, partial, *args, **kwargs):
        known = _known(self, args, kwargs, 'infer_shape')
        shapes, _ = infer(self, known, {}, partial)
        return shapes

    def infer_type(self, *args, **kwargs):
        """(arg_types, out_types, aux_types) as numpy types; (None, None, None) when incomplete."""
        known = _known(self, args, kwargs, 'infer_type')
        known = {k: to_torch_dtype(v) for k, v in known.items() if v is not None}
        _, types = infer(self, {}, known, False)
        return types

    def infer_type_partial(self, *args, **kwargs):
        known = _known(self, args, kwargs, 'infer_type')
        known = {k: to_torch_dtype(v) for k, v in known.items() if v is not None}
        _, types = infer(self, {}, known, True)
        return types

    # -- serialization ----------------------------------------------------------------------------------------
    def tojson(self, remove_amp_cast=True):
        """MXNet 1.x symbol JSON (nnvm graph with ``mxnet_version``); as in MXNet, the amp_cast/amp_multicast
        nodes AMP inserted are left out unless ``remove_amp_cast=False``."""
        return _to_json(self._without_amp_casts() if remove_amp_cast else self)

    def save(self, fname, remove_amp_cast=True):
        """Write ``tojson(remove_amp_cast)`` to ``fname`` (atomically)."""
        write_text(fname, self.tojson(remove_amp_cast), 'save symbol file')

    def _without_amp_casts(self):
        """A copy in which each node reading an amp_cast/amp_multicast output reads the input it casts instead, as
        MXNet's RemoveAmpCast pass rewires them: a cast that is an output of the graph stays."""
        nodes = self._nodes()
        if not any(n.op is not None and n.op.name in ('amp_cast', 'amp_multicast') for n in nodes):
            return self
        mapping = {}  # id(old node) -> new node, or the list of entries a cast node's outputs stand for
        casts = {}  # id(old cast node) -> the cast node itself, its inputs rewired (for the graph's outputs)

        def resolve(src, i):
            m = mapping[id(src)]
            return m[i] if isinstance(m, list) else (m, i)

        for n in nodes:
            inputs = [resolve(src, i) for src, i in n.inputs]
            if n.op is not None and n.op.name in ('amp_cast', 'amp_multicast'):
                mapping[id(n)] = inputs
                casts[id(n)] = _Node(n.op, n.name, n.attrs, inputs, n.subgraphs)
            else:
                mapping[id(n)] = _Node(n.op, n.name, n.attrs, inputs, n.subgraphs)
        return Symbol([(casts[id(n)], i) if id(n) in casts else resolve(n, i) for n, i in self._outputs])

    def debug_str(self):
        lines = []
        for n in self._nodes():
            if n.is_var:
                lines.append('Variable:%s' % n.name)
            else:
                lines.append('Op:%s, Name=%s' % (n.op.name, n.name))
                lines.append('Inputs:')
                for i, (s, j) in enumerate(n.inputs):
                    lines.append('\targ[%d]=%s(%d)' % (i, s.name, j))
                if n.attrs:
                    lines.append('Attrs:')
                    for k, v in n.attrs.items():
                        lines.append('\t%s=%s' % (k, v))
        return '\n'.join(lines) + '\n'

    # -- execution --------------------------------------------------------------------------------------------
    def simple_bind(self, ctx, grad_req='write', type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """Allocate arrays from input shapes (and ``type_dict``) and bind; returns an Executor."""
        from ..executor import simple_bind  # reason: bind returns an Executor, a layer above
        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx, shared_arg_names, shared_exec,
                           shared_buffer, **kwargs)

    def bind(self, ctx, args, args_grad=None, grad_req='write', aux_states=None, group2ctx=None, shared_exec=None):
        """Bind to given arrays; returns an Executor running one torch.fx graph."""
        from ..executor import Executor  # reason: bind returns an Executor, a layer above
        return Executor(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def _bind(self, *a, **k):
        return self.bind(*a, **k)

    def eval(self, ctx=None, **kwargs):
        """Bind to the given NDArrays and run forward; returns the outputs."""
        ex = self.bind(ctx or current_context(), kwargs)
        return ex.forward()

    def squeeze(self, axis=None, inplace=False, **kwargs):  # noqa: ARG002 (MXNet's signature)
        """``mx.sym.squeeze(self, axis=axis)``: as in MXNet, ``axis`` is always passed, so the node records
        ``axis='None'`` when none is given."""
        return _op.squeeze(self, axis=axis, **kwargs)

    def gradient(self, wrt):
        raise unsupported('Symbol.gradient', 'symbolic gradients', 'bind the symbol and call backward instead')

    def optimize_for(self, backend, args=None, aux=None, ctx=None, shape_dict=None, type_dict=None, stype_dict=None,
                     skip_infer=False, **kwargs):
        """The graph partitioned for ``backend``: ``'MKLDNN'`` or ``'MKLDNN_QUANTIZE'``, as MXNet 1.9.1's CPU build
        writes it (``mxcompat/symbol/passes/mkldnn_backend.py``); other backends raise. As in MXNet, the properties'
        ``MXNET_DISABLE_MKLDNN_*_OPT`` switches are not read here (get_backend_symbol reads them), and with ``args``
        or ``aux`` the shapes and types are inferred first: a Convolution or FullyConnected is fused only with a
        float32/bfloat16 first input of 1 to 5 dimensions, on a CPU context. ``dedup_subgraph=True`` gives each
        distinct input entry one variable. Arguments the new graph no longer has leave ``args``/``aux``."""
        return _mkldnn_backend.optimize_for(self, backend, args, aux, ctx or current_context(), shape_dict, type_dict,
                                            stype_dict, skip_infer, kwargs)

    def get_backend_symbol(self, backend):
        """The graph partitioned for ``backend``: ``'MKLDNN'`` or ``'MKLDNN_QUANTIZE'``, node for node as MXNet
        1.9.1's CPU build writes it, its ``MXNET_DISABLE_MKLDNN_*`` switches included (read at each call, not at
        start-up); see ``mxcompat/symbol/passes/mkldnn_backend.py`` for what differs (the Transformer property is
        not written: a graph it would change raises). Other backends raise."""
        return _mkldnn_backend.partition(self, backend)


class MXNetIndexError_(MXNetError, IndexError):
    pass


def NotImplementedForSymbol_(fn, alias):
    return NotImplementedForSymbol(fn, alias)


# Attributes MXNet stores as __key__ and also reports under their plain name.
HIDDEN_KEYS = ('ctx_group', 'lr_mult', 'wd_mult', 'force_mirroring', 'mirror_stage')


def _with_plain_keys(attrs):
    out = dict(attrs)
    for k in HIDDEN_KEYS:
        v = attrs.get('__%s__' % k)
        if v is not None:
            out[k] = v
    return out


def _hide_key(k):
    return '__%s__' % k if k in HIDDEN_KEYS else k


def _known(sym, args, kwargs, what):
    names = sym.list_arguments()
    if args and kwargs:
        raise MXNetValueError('Can only specify known argument shapes either by positional or kwargs way.')
    if args:
        return {n: a for n, a in zip(names, args) if a is not None}
    return {k: v for k, v in kwargs.items() if v is not None}


# ---- creating symbols ------------------------------------------------------------------------------------------
def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None,
        profiler_scope=None, **kwargs):
    """A named variable (an input or parameter of the graph)."""
    if not isinstance(name, string_types):
        raise MXNetTypeError('Expect a string for variable `name`')
    attr = AttrScope.current.get(attr)
    for v in (attr or {}).values():  # (as MXNet's _set_attr: var's attr= takes strings only, unlike an op's)
        if not isinstance(v, string_types):
            raise MXNetValueError('Set Attr only accepts string values')
    attr = {} if attr is None else {_hide_key(k): str(v) for k, v in attr.items()}
    if shape is not None:
        attr['__shape__'] = str(shape)
    if lr_mult is not None:
        attr['__lr_mult__'] = str(lr_mult)
    if wd_mult is not None:
        attr['__wd_mult__'] = str(wd_mult)
    if dtype is not None:
        t = to_torch_dtype(dtype)
        attr['__dtype__'] = str(BFLOAT16_CODE if t is torch.bfloat16 else DTYPE_NP2MX[np.dtype(to_np_dtype(t))])
    if init is not None:
        attr['__init__'] = init if isinstance(init, string_types) else init.dumps()
    if stype is not None:
        attr['__storage_type__'] = str(_STYPE_ID[stype])
    if profiler_scope is not None:
        attr['__profiler_scope__'] = profiler_scope
    for k, v in kwargs.items():
        if k.startswith('__') and k.endswith('__'):
            attr[k] = str(v)
        else:
            raise MXNetValueError('Attribute name=%s is not supported. Additional attributes must start and end '
                                  'with double underscores, e.g, __yourattr__' % k)
    return Symbol([(_Node(None, name, attr), 0)])


Variable = var


def Group(symbols, create_fn=Symbol):
    """One symbol whose outputs are the outputs of all ``symbols``."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise MXNetTypeError('Expected a list of symbols as input')
    outs = []
    for s in symbols:
        outs.extend(s._outputs)
    return create_fn(outs)


def make_op_symbol(op, hint, inputs, attrs, name, input_names=None, attr=None):
    """Create an op node; missing parameter inputs become variables named ``<name>_<input>``. ``attr`` (the
    functions' ``attr=`` dict, any values) joins the attribute scope's, so the implicit variables carry it too."""
    # MXNet adds the scope's and ``attr``'s entries to the operator's own arguments, over them, and stores each
    # value as str(value): attr={'__init__': mx.init.Xavier()} keeps the object's str(), {'lr_mult': 2} is '2'
    # and {'num_hidden': 5} replaces num_hidden (var's attr= and _set_attr take strings only)
    extra = {_hide_key(k): str(v) for k, v in AttrScope.current.get(attr).items()}
    # an explicit None is kept ('None', as MXNet writes it)
    str_attrs = {_hide_key(k): _attr_str(v) for k, v in attrs.items()}
    str_attrs.update(extra)
    node_name = NameManager.current.get(name, hint)
    node = _Node(op, node_name, str_attrs)
    params = node.params()  # validates the attributes now, as MXNet does when the symbol is created
    names = input_names or op.input_names(params, len(inputs) if op.variadic else None)
    ins = []
    var_attrs = opinfo.VAR_ATTRS.get(op.name, {})
    values = list(inputs) + [None] * (len(names) - len(inputs)) if op.variadic else [inputs.get(n) for n in names]
    for iname, s in zip(names, values):
        if s is None:
            vattr = dict(node.attrs)
            vattr.update(var_attrs.get(iname, {}))
            s = Symbol([(_Node(None, '%s_%s' % (node_name, iname), vattr), 0)])
        if len(s._outputs) != 1:
            raise MXNetValueError('Operator %s: input %s must be a single-output symbol, got %d outputs'
                                  % (op.name, iname, len(s._outputs)))
        ins.append(s._outputs[0])
    node.inputs = ins
    n = node.num_visible()
    return Symbol([(node, i) for i in range(n)])


# ---- JSON ------------------------------------------------------------------------------------------------------
def _to_json(sym):
    graph = _graph_dict(sym)
    attrs = {'mxnet_version': ['int', 10901]}
    np_level = _np_shape_level()
    if np_level:  # MXNet marks graphs written under NumPy shape semantics (1: this thread's flag, 2: global)
        attrs['is_np_shape'] = ['int', np_level]
    graph['attrs'] = attrs
    return _json_graph(graph, 0)


def _graph_dict(sym, fused=False):
    """MXNet's graph fields for ``sym`` (subgraphs of control-flow nodes included, without ``attrs``). In the
    subgraph of a fused operator (``fused``) every entry has version 0: the partitioner reads it through variables
    it makes, that no operator has written."""
    nodes = sym._nodes()
    index = {id(n): i for i, n in enumerate(nodes)}
    aux = _aux_vars(nodes)
    out_nodes, arg_nodes, row_ptr = [], [], [0]
    for i, n in enumerate(nodes):
        d = {'op': 'null' if n.is_var else n.op.name, 'name': n.name}
        if n.attrs:
            d['attrs'] = {k: n.attrs[k] for k in sorted(n.attrs)}  # MXNet keeps attributes in a sorted map
        ins = []
        aux_names = set(n.op.aux) if n.op is not None else set()
        in_names = n.input_names() if n.op is not None else []
        for j, (src, k) in enumerate(n.inputs):
            version = 1 if (not fused and src.is_var and id(src) in aux and j < len(in_names)
                            and in_names[j] in aux_names) else 0
            ins.append([index[id(src)], k, version])
        d['inputs'] = ins
        if n.subgraphs:
            d['subgraphs'] = [_graph_dict(g, _FUSED in n.op.params) for g in n.subgraphs]
        out_nodes.append(d)
        if n.is_var:
            arg_nodes.append(i)
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    heads = [[index[id(n)], k, 0] for n, k in sym._outputs]
    return {'nodes': out_nodes, 'arg_nodes': arg_nodes, 'node_row_ptr': row_ptr, 'heads': heads}


# MXNet's JSON layout (dmlc's writer): ", " then a new line and two spaces per level between the items of an object
# or array written on several lines; nodes and subgraphs always take several lines, other lists when they hold more
# than 10 items, attribute maps when they hold more than one.
def _json_graph(g, level):
    items = [('nodes', _json_seq([_json_node(d, level + 2) for d in g['nodes']], level + 1, True))]
    items += [(k, _json_seq([_inline_list(v) for v in g[k]], level + 1))
              for k in ('arg_nodes', 'node_row_ptr', 'heads')]
    if 'attrs' in g:
        items.append(('attrs', _json_obj([(k, _inline_list(v)) for k, v in sorted(g['attrs'].items())], level + 1)))
    return _json_obj(items, level, True)


def _json_node(d, level):
    items = [('op', json.dumps(d['op'])), ('name', json.dumps(d['name']))]
    if 'attrs' in d:
        items.append(('attrs', _json_obj([(k, json.dumps(v)) for k, v in d['attrs'].items()], level + 1)))
    items.append(('inputs', _json_seq([_inline_list(e) for e in d['inputs']], level + 1)))
    if 'subgraphs' in d:
        items.append(('subgraphs', _json_seq([_json_graph(g, level + 2) for g in d['subgraphs']], level + 1, True)))
    return _json_obj(items, level, True)


def _json_obj(items, level, multi=None):
    parts = ['%s: %s' % (json.dumps(k), v) for k, v in items]
    return '{%s}' % _json_join(parts, level, len(parts) > 1 if multi is None else multi)


def _json_seq(values, level, multi=None):
    return '[%s]' % _json_join(values, level, len(values) > 10 if multi is None else multi)


def _json_join(parts, level, multi):
    if not multi or not parts:
        return ', '.join(parts)
    pad = '\n' + '  ' * (level + 1)
    return ', '.join(pad + p for p in parts) + '\n' + '  ' * level


def _inline_list(v):
    return json.dumps(v, separators=(', ', ': '))


def load_json(json_str):
    """A Symbol from MXNet's JSON (1.x format, and the older ``param``/``attr`` node layouts)."""
    try:
        graph = json.loads(json_str)
    except ValueError as e:
        raise MXNetError('load_json: invalid JSON: %s' % e) from None
    if not isinstance(graph, dict) or 'nodes' not in graph:
        raise MXNetError('load_json: not an MXNet symbol JSON (no "nodes")')
    sym = _graph_symbol(graph)
    if _np_shape_level() and not _json_is_np_shape(graph):
        _legacy_shape_attrs_to_numpy(sym)
    return sym


def _graph_symbol(graph):
    """The Symbol of one parsed JSON graph (the subgraphs of control-flow nodes too)."""
    nodes = []
    for i, d in enumerate(graph['nodes']):
        attrs = {}
        for key in ('param', 'attr', 'attrs'):  # older files split parameters ('param') and attributes ('attr')
            if isinstance(d.get(key), dict):
                attrs.update({k: str(v) for k, v in d[key].items()})
        op_name = d.get('op', 'null')
        op = None if op_name == 'null' else registry.get(op_name)
        node = _Node(op, d['name'], attrs)
        ins = []
        for inp in d.get('inputs', []):
            src = nodes[inp[0]]
            ins.append((src, inp[1] if len(inp) > 1 else 0))
        node.inputs = ins
        node.subgraphs = tuple(_graph_symbol(g) for g in d.get('subgraphs') or ())
        nodes.append(node)
    heads = graph.get('heads')
    if heads is None:
        raise MXNetError('load_json: no "heads" in the graph')
    return Symbol([(nodes[h[0]], h[1] if len(h) > 1 else 0) for h in heads])


def _json_is_np_shape(graph):
    """Whether a graph JSON says it was written under NumPy shape semantics (``"is_np_shape": ["int", 1]``)."""
    flag = (graph.get('attrs') or {}).get('is_np_shape')
    try:
        return bool(int(flag[1] if isinstance(flag, (list, tuple)) else flag))
    except (TypeError, ValueError, IndexError):
        return False


def _legacy_shape_attrs_to_numpy(sym):
    """Loading a legacy graph under NumPy shape semantics, as MXNet does: variables' ``__shape__`` attributes are
    rewritten in NumPy form (a 0 dimension becomes -1, unknown; ``()`` becomes ``None``, unknown ndim), printed
    as MXNet prints shapes (``[128,-1]``)."""
    for n in sym._nodes():
        if n.is_var and '__shape__' in n.attrs:
            shape = parse_tuple(n.attrs['__shape__'])
            if not shape:
                n.attrs['__shape__'] = 'None'
            else:
                n.attrs['__shape__'] = '[%s]' % ','.join(str(d if d and d > 0 else -1) for d in shape)


fromjson = load_json


def load(fname):
    """Load a symbol from an MXNet JSON file (local path or any fsspec URL)."""
    return load_json(read_text(fname, 'load symbol file'))

