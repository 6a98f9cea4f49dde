"""Gluon's ``Block``, ``HybridBlock`` and ``SymbolBlock``.

Hybridizing records ``hybrid_forward`` once with ``F = mx.sym`` (as MXNet does) and lowers the Symbol to one
``torch.fx.GraphModule`` (``mxcompat.symbol.lower``) that runs on the parameters' tensors; autograd flows through
it since those tensors are the parameters' leaves. Differs from MXNet: the graph does not depend on input shapes,
so one graph serves every input shape; ``static_alloc``/``static_shape``/``inline_limit``/bulk sizes are accepted
and have no effect; ``hybridize(backend=...)`` takes a ``torch.compile`` backend (``'inductor'``, ``'eager'``,
``'aot_eager'``) instead of MXNet's subgraph backends; ``optimize_for`` and ``register_op_hook`` on hybridized
blocks raise ``MXNetNotImplementedError``.
"""
import copy
import json
import operator
import re
import threading
import warnings
import weakref
from collections import OrderedDict, defaultdict

import numpy as np
import torch

from .. import name as _name
from .. import ndarray as _ndarray_mod
from .. import symbol as _symbol_mod
from .. import initializer
from ..autograd import STATE as _AG
from ..base import MXNetError, MXNetValueError, MXNetTypeError, unsupported
from ..ndarray.ndarray import NDArray, _wrap
from ..symbol import Symbol
from .parameter import (Parameter, ParameterDict, DeferredInitializationError, _check, _indent, _brief_print_list,
                        _nd_save, _nd_load)

__all__ = ['Block', 'HybridBlock', 'SymbolBlock']  # HookHandle is public in gluon.utils in MXNet

_TORCH_BACKENDS = ('inductor', 'eager', 'aot_eager')


class HookHandle:
    """Handle of a forward (pre-)hook: ``detach()`` (or leaving a ``with`` block) removes the hook."""

    _id = 0

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = HookHandle._id
        HookHandle._id += 1

    def attach(self, hooks_dict, hook):
        _check(not self._hooks_dict_ref, 'The same handle cannot be attached twice.')
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks is not None and self._id in hooks:
            del hooks[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref() if self._hooks_dict_ref is not None else None, self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


class _BlockScope:
    """The ``with block.name_scope():`` scope: children made inside get the block's prefix, and so do the symbols
    made inside (through ``mx.name.Prefix``)."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """(prefix, ParameterDict) of a new block: names come from the global name manager (``dense0_``) outside
        any scope, from the enclosing block's counters inside one."""
        current = getattr(_BlockScope._current, 'value', None)
        if current is None:
            if prefix is None:
                prefix = _name.NameManager.current.get(None, hint) + '_'
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = '%s%d_' % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, 'value', None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


# ---- nested inputs/outputs <-> flat lists -------------------------------------------------------------------------
def _flatten(args, inout_str):
    """(flat list, format): format 0 for one array, n > 1 for an n-output Symbol, -1 for None, lists for nesting."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        n = len(args.list_outputs())
        return [args], (n if n > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise MXNetValueError('When hybridized, the input of HybridBlock {} must be (nested) list of Symbol or '
                              'NDArray, but got {} of type {}'.format(inout_str, str(args), str(type(args))))
    flat, fmts = [], []
    for a in args:
        f, fmt = _flatten(a, inout_str)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    """Inverse of ``_flatten``."""
    def merge(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise MXNetValueError('Unsupported encoded format {}.'.format(fmt))
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise MXNetValueError('We do not support passing types that are not None when the initial '
                                          'HybridBlock has received NoneType and has been hybridized. Received '
                                          'arg = {}, fmt = {}.'.format(args[0], fmt))
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise MXNetValueError('When hybridized, the output of HybridBlock must be (nested) list of Symbol or '
                                  'NDArray, but got {} of type {}'.format(args, type(args)))
        ret = []
        for f in fmt:
            r, args = merge(args, f)
            ret.append(r)
        return ret, args
    return merge(args, fmt)[0]


def _gather_type_ctx_info(args):
    """(has Symbol, has NDArray, set of contexts, first context) over nested ``args``."""
    if isinstance(args, NDArray):
        return False, True, {args._ctx}, args._ctx
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_sym = has_nd = False
        ctxs, first = set(), None
        for a in args:
            s, n, c, f = _gather_type_ctx_info(a)
            has_sym, has_nd = has_sym or s, has_nd or n
            if first is None:
                first = f
            ctxs |= c
            if has_sym and has_nd:
                break
        return has_sym, has_nd, ctxs, first
    return False, False, set(), None


class Block:
    """Base class of all layers and models: a tree of child blocks with parameters named by prefix.

    Children and Parameters assigned as attributes are registered automatically.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith('_') else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        lines = ['  ({key}): {block}'.format(key=k, block=_indent(repr(b), 2))
                 for k, b in self.__dict__.items() if isinstance(b, Block)]
        return '{name}(\n{modstr}\n)'.format(name=self.__class__.__name__, modstr='\n'.join(lines))

    def __setattr__(self, name, value):
        """Register Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise MXNetTypeError('Changing attribute type for {name} from {type1} to {type2}is not allowed.'
                                     .format(name=name, type1=type(existing), type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            _check(name not in self._reg_params, "Overriding Parameter attribute %s is not allowed. If you want to "
                   "share parameters between blocks, please set 'params' at Block construction instead." % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(e) for e in data)
            if isinstance(data, dict):
                return any(unregistered(v) for v in data.values())
            if isinstance(data, Block):
                return data not in children
            return False
        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith('__') or k == '_children'):
                if unregistered(v):
                    warnings.warn('"{name}" is an unregistered container with Blocks. Note that Blocks inside the '
                                  'list, tuple or dict will not be registered automatically. Make sure to register '
                                  'them using register_child() or switching to nn.Sequential/nn.HybridSequential '
                                  'instead. '.format(name=self.__class__.__name__ + '.' + k), stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        return self._prefix

    @property
    def name(self):
        return self._name

    def name_scope(self):
        """``with self.name_scope():`` names children (and symbols) under this block's prefix."""
        return self._scope

    @property
    def params(self):
        """This block's own ParameterDict (children's parameters are not in it)."""
        return self._params

    def collect_params(self, select=None):
        """A ParameterDict of this block's and all descendants' Parameters (those whose name matches the regular
        expression ``select``)."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({k: v for k, v in self.params.items() if pattern.match(k)})
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=''):
        if prefix:
            prefix += '.'
        ret = {prefix + k: v for k, v in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    # -- files ----------------------------------------------------------------------------------------------------
    def save_parameters(self, filename, deduplicate=False):
        """Save the parameters under structural keys (``0.weight``, ``features.1.bias``)."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            first = {}
            for k, v in params.items():
                first[v] = k  # the last key of a shared Parameter wins, as in MXNet
            params = {k: v for v, k in first.items()}
        _nd_save(filename, {k: v._reduce() for k, v in params.items()})

    def save_params(self, filename):
        """Deprecated: save under full parameter names minus this block's prefix."""
        warnings.warn('save_params is deprecated. Please use save_parameters. Note that if you want load from '
                      'SymbolBlock later, please use export instead. For details, see '
                      'https://mxnet.apache.org/tutorials/gluon/save_load_params.html')
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as e:
            raise MXNetValueError('%s\nsave_params is deprecated. Using save_parameters may resolve this error.'
                                  % e) from None

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source='current'):
        """Load a file written by ``save_parameters`` (or, without ``.`` in its keys, by ``save_params``)."""
        loaded = _nd_load(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if isinstance(loaded, list) or not any('.' in k for k in loaded.keys()):
            del loaded
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            keys_of = defaultdict(list)
            for k, v in params.items():
                keys_of[v].append(k)
            for name, param in params.items():
                _check(any(p in loaded for p in keys_of[param]),
                       "Parameter '%s' is missing in file '%s', which contains parameters: %s. Set "
                       "allow_missing=True to ignore missing parameters."
                       % (name, filename, _brief_print_list(loaded.keys())))
        for name in loaded:
            if not ignore_extra and name not in params:
                raise MXNetValueError("Parameter '%s' loaded from file '%s' is not present in ParameterDict, which "
                                      "contains parameters %s. Set ignore_extra=True to ignore. "
                                      % (name, filename, _brief_print_list(self._params.keys())))
            if name in params:
                params[name]._load_init(loaded[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated: ``load_parameters``."""
        warnings.warn('load_params is deprecated. Please use load_parameters.')
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def save(self, prefix):
        """Write ``prefix-model.json`` (the block tree and any hybridized graphs) and ``prefix-model.params``."""
        model = {}

        def visit(blk, index, structure):
            mdl = {'orig_name': blk.name}
            structure[type(blk).__name__.lower() + str(index[0])] = mdl
            if isinstance(blk, HybridBlock):
                if blk._cached_graph:
                    mdl['in_format'] = blk._in_format
                    mdl['out_format'] = blk._out_format
                    syms, out = blk._cached_graph
                    mdl['inputs'] = [s.tojson() for s in syms]
                    mdl['symbol'] = out.tojson()
                    mdl['hybridized'] = True
                else:
                    mdl['hybridized'] = False
            children = {}
            mdl['children'] = children
            for ch_name, child in blk._children.items():
                index[0] += 1
                children[child.name] = ch_name
                visit(child, index, mdl)
        visit(self, [0], model)
        with open(prefix + '-model.json', 'w') as fp:
            json.dump(model, fp)
        self.save_parameters(prefix + '-model.params')

    def load(self, prefix):
        """Restore names (and hybridized graphs) saved by ``save`` into this identically built block, then its
        parameters."""
        with open(prefix + '-model.json') as fp:
            model = json.load(fp)

        def visit(blk, index, structure):
            mdl = structure[type(blk).__name__.lower() + str(index[0])]
            blk._name = mdl['orig_name']
            if isinstance(blk, HybridBlock) and mdl['hybridized']:
                blk._in_format = mdl['in_format']
                blk._out_format = mdl['out_format']
                blk._cached_graph = ([_symbol_mod.load_json(s) for s in mdl['inputs']],
                                     _symbol_mod.load_json(mdl['symbol']))
                blk._active = True
            for p in list(blk.params.keys()):
                param = blk.params._params.pop(p)
                blk.params._params[blk.name + '_' + p[len(blk.params._prefix):]] = param
            for child in blk._children.values():
                index[0] += 1
                visit(child, index, mdl)
            children = mdl['children']
            for ch_name in list(blk._children.keys()):
                child = blk._children.pop(ch_name)
                blk._children[children[child.name]] = child
        visit(self, [0], model)
        self.load_parameters(prefix + '-model.params')

    # -- structure ------------------------------------------------------------------------------------------------
    def register_child(self, block, name=None):
        """Register ``block`` as a child (attribute assignment does this automatically)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """``hook(block, inputs, outputs)`` after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Call ``fn(block)`` on every descendant, then on this block; returns self."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """Initialize all parameters (``collect_params().initialize(...)``)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize every HybridBlock child (a plain Block itself stays imperative)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast all parameters to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        """Override with the computation on NDArrays."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all=False):
        """Pass the operator hook on to the children (only hybridized blocks run operators one by one in MXNet)."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Print MXNet's table of each layer's output shape and parameter count (run on ``inputs``)."""
        from .nn.basic_layers import Sequential, HybridSequential
        summary = OrderedDict()
        seen = set()
        hooks = []

        def shape_str(args):
            def flat(a):
                if not isinstance(a, (list, tuple)):
                    return [a], 0
                out, fmts = [], []
                for e in a:
                    f, fmt = flat(e)
                    out.extend(f)
                    fmts.append(fmt)
                return out, fmts

            def regroup(a, fmt):
                if isinstance(fmt, int):
                    return (a[0], a[1:]) if fmt == 0 else (a[:fmt], a[fmt:])
                ret = []
                for f in fmt:
                    r, a = regroup(a, f)
                    ret.append(r)
                return ret, a
            values, fmts = flat(args)
            shapes = regroup([v.shape if isinstance(v, NDArray) else v for v in values], fmts)[0]
            s = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
            return s.replace('L', '')

        def add_hook(block):
            _check(not isinstance(block, HybridBlock) or not block._active,
                   '"{}" must not be hybridized to print summary.'.format(block.name))

            def hook(block, _, outputs):
                key = '%s-%i' % (block.__class__.__name__, len(summary))
                entry = summary[key] = OrderedDict()
                entry['output_shape'] = shape_str(outputs)
                n = 0
                entry['trainable'] = 0
                entry['shared'] = 0
                for p in block.params.values():
                    size = p.data().size
                    n += size
                    entry['trainable'] += 0 if p.grad_req == 'null' else size
                    if p in seen:
                        entry['shared'] += size
                    else:
                        seen.add(p)
                entry['n_params'] = n
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(hook))

        summary['Input'] = OrderedDict(output_shape=shape_str(inputs), n_params=0, trainable=0, shared=0)
        try:
            self.apply(add_hook)
            self(*inputs)
            fmt = '{:>20}  {:>42} {:>15}'
            print('-' * 80)
            print(fmt.format('Layer (type)', 'Output Shape', 'Param #'))
            print('=' * 80)
            total = trainable = shared = 0
            for layer, entry in summary.items():
                print(fmt.format(layer, str(entry['output_shape']), entry['n_params']))
                total += entry['n_params']
                trainable += entry['trainable']
                shared += entry['shared']
            print('=' * 80)
            print('Parameters in forward computation graph, duplicate included')
            print('   Total params: ' + str(total))
            print('   Trainable params: ' + str(trainable))
            print('   Non-trainable params: ' + str(total - trainable))
            print('Shared params in forward computation graph: ' + str(shared))
            print('Unique parameters in model: ' + str(total - shared))
            print('-' * 80)
        finally:
            for h in hooks:
                h.detach()


def _contiguous_views(gm):
    """Make the results of view operators (slice, transpose ...) contiguous, as the eager ``mx.nd`` calls do, so the
    ops after them see the same memory layout and the hybridized results equal the imperative ones bit for bit."""
    from ..operator import registry
    graph = gm.graph
    changed = False
    for node in list(graph.nodes):
        name = getattr(node.target, '_mx_op', None) if node.op == 'call_function' else None
        if name is None or not registry.get(name).view:
            continue
        getitems = [u for u in node.users if u.op == 'call_function' and u.target is operator.getitem]
        for src in getitems or [node]:
            with graph.inserting_after(src):
                fresh = graph.call_method('contiguous', (src,))
            src.replace_all_uses_with(fresh, delete_user_cb=lambda u, f=fresh: u is not f)
            changed = True
    if changed:
        graph.lint()
        gm.recompile()
    return gm


class _CachedOp:
    """A hybridized graph: the lowered fx module and, for each of its inputs (arguments then auxiliary states),
    either the index of a data input or the Parameter that feeds it."""

    __slots__ = ('graph_module', 'fn', 'slots', 'alias_outputs', 'n_out')

    def __init__(self, sym, slot_of, backend):
        from ..symbol.lower import lower
        from ..operator import registry
        low = lower(sym)
        self.graph_module = _contiguous_views(low.graph_module)
        self.slots = [slot_of[n] for n in low.arg_names + low.aux_names]
        self.n_out = len(low.output_names)
        # outputs that may share memory with an input (a placeholder, or a view op's result): copied at run time,
        # since MXNet's operators always return fresh arrays
        out_node = [n for n in self.graph_module.graph.nodes if n.op == 'output'][0]
        self.alias_outputs = []
        for i, n in enumerate(out_node.args[0]):
            op = getattr(n.target, '_mx_op', None) if n.op == 'call_function' else None
            if n.op in ('placeholder', 'call_method') or (op is not None and registry.get(op).view) or \
                    (n.op == 'call_function' and op is None):
                self.alias_outputs.append(i)
        self.fn = self.graph_module
        if backend is not None:
            self.fn = torch.compile(self.graph_module, backend=backend, dynamic=None)

    def __call__(self, tensors):
        if _AG.recording:
            outs = self.fn(*tensors)
        else:
            with torch.no_grad():
                outs = self.fn(*tensors)
        if self.alias_outputs:
            outs = list(outs)
            ptrs = {t.untyped_storage().data_ptr() for t in tensors}
            for i in self.alias_outputs:
                o = outs[i]
                if o.untyped_storage().data_ptr() in ptrs or not o.is_contiguous():
                    outs[i] = o.clone(memory_format=torch.contiguous_format)
        return outs


class HybridBlock(Block):
    """A Block whose computation is ``hybrid_forward(F, x, *args, **params)``, with ``F`` being ``mx.nd`` when run
    imperatively and ``mx.sym`` when traced; ``hybridize()`` runs the traced graph as one torch.fx module."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts = {}

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def _get_graph(self, *args):
        if not self._cached_graph:
            flat, self._in_format = _flatten(args, 'input')
            n_real = sum(a is not None for a in flat)
            if n_real == 0:
                raise MXNetValueError('All args are None and we do not support such a case. Received args={}'
                                      .format(args))
            inputs, syms = [], []
            for a in flat:
                if a is None:
                    inputs.append(None)
                    continue
                s = _symbol_mod.var('data%d' % len(syms) if n_real > 1 else 'data')
                inputs.append(s)
                syms.append(s)
            grouped = _regroup(inputs, self._in_format)
            params = {k: p.var() for k, p in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(_symbol_mod, *grouped, **params)
            out, self._out_format = _flatten(out, 'output')
            self._cached_graph = (syms, _symbol_mod.Group(out))
        return self._cached_graph

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        input_names = out.list_inputs()
        if self._cached_op_args:
            params = {p.name: p for is_arg, p in self._cached_op_args if not is_arg}
        else:
            params = self.collect_params()
        for name in input_names:
            _check(name in params or name in data_names, 'Unknown input to HybridBlock: %s' % name)
        used = set(input_names)
        if len([n for n in data_names if n in used]) != len(data_names):
            unused = ', '.join('%d-th' % i for n, i in data_names.items() if n not in used)
            warnings.warn('The %s input to HybridBlock is not used by any computation. Is this intended?' % unused,
                          stacklevel=4)
        unused_params = [n for n in params.keys() if n not in used]
        if unused_params:
            warnings.warn('Parameter %s is not used by any computation. Is this intended?'
                          % ', '.join(unused_params), stacklevel=4)
        flat, _ = _flatten(args, 'input')
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        slot_of = {}
        self._cached_op_args = []
        for name in input_names:
            if name in data_names:
                slot = (True, data_names[name])
            else:
                slot = (False, params[name])
            slot_of[name] = slot
            self._cached_op_args.append(slot)
        self._cached_op = _CachedOp(out, slot_of, self._backend)

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as e:
            raise MXNetValueError('Deferred initialization failed because shape cannot be inferred. {}'
                                  .format(e)) from None

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        op = self._cached_op
        if len(args) == 1 and type(args[0]) is NDArray and self._in_format == [0]:
            real = args  # the common case: one array in
        else:
            flat, fmt = _flatten(args, 'input')
            if fmt != self._in_format:
                n_in, n_got = len(self._in_format), len(fmt)
                if n_in > n_got:
                    valid = all(f == -1 for f in self._in_format[n_got:]) and fmt == self._in_format[:n_got]
                elif n_in < n_got:
                    valid = all(f == -1 for f in fmt[n_in:]) and fmt[:n_in] == self._in_format
                else:
                    valid = False
                if not valid:
                    raise MXNetValueError('The argument structure of HybridBlock does not match the cached version. '
                                          'Stored format = {}, input format = {}'.format(fmt, self._in_format))
            real = [a for a in flat if a is not None]
        ctx = real[0]._ctx
        tensors = [real[v]._t if is_data else v.data(ctx)._t for is_data, v in op.slots]
        try:
            outs = op(tensors)
        except MXNetError:
            raise
        except (RuntimeError, ValueError, IndexError, TypeError) as e:
            raise MXNetError('%s (hybridized): %s (input shapes %s)'
                             % (self.name, str(e).splitlines()[0], [a.shape for a in real])) from None
        outs = [_wrap(t, ctx) for t in outs]
        if self._out_format == 0:
            return outs[0]
        return _regroup(outs, self._out_format)

    def optimize_for(self, x, *args, backend=None, **kwargs):
        raise unsupported('HybridBlock.optimize_for', 'backend=%r' % (backend,),
                          "MXNet's subgraph backends do not exist here; use hybridize(backend='inductor')")

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise MXNetValueError('Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are '
                                  'using Sequential, please try HybridSequential instead.'
                                  % (str(block), str(type(block))))
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False, static_shape=False,
                  inline_limit=2, forward_bulk_size=None, backward_bulk_size=None, **kwargs):
        """Run as one torch.fx graph (``backend``: a torch.compile backend, or None for the plain graph).
        ``static_alloc``/``static_shape``/``inline_limit``/bulk sizes are accepted and have no effect."""
        if backend is not None and backend not in _TORCH_BACKENDS:
            raise unsupported('HybridBlock.hybridize', 'backend=%r' % (backend,),
                              'use one of %s (torch.compile) or None' % (_TORCH_BACKENDS,))
        if kwargs:
            raise unsupported('HybridBlock.hybridize', 'backend options %s' % sorted(kwargs))
        self._backend = backend
        self._active = active
        self._flags = [('static_alloc', static_alloc), ('static_shape', static_shape), ('inline_limit', inline_limit)]
        if forward_bulk_size is not None:
            self._flags.append(('forward_bulk_size', forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(('backward_bulk_size', backward_bulk_size))
        if clear:
            self._clear_cached_op()
        if active and self._forward_hooks or self._forward_pre_hooks:
            warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. If "{block}" is a '
                          'child of HybridBlock, the hooks will not take effect.'.format(block=self))
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, inline_limit=inline_limit,
                          forward_bulk_size=forward_bulk_size, backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def _infer_attrs(self, infer_fn, attr, *args):
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, 'input')
        real = [a for a in flat if a is not None]
        given = {i.name: getattr(j, attr) for i, j in zip(inputs, real)}
        arg_attrs, _, aux_attrs = getattr(out, infer_fn)(**given)
        if arg_attrs is None:
            partial = getattr(out, infer_fn + '_partial')(**given)
            names = out.list_arguments() + out.list_auxiliary_states()
            values = list(partial[0]) + list(partial[2])
            declared = {n.name: n.attrs.get('__shape__') for n in out._nodes() if n.is_var}
            unknown = ['%s: %s' % (n, declared.get(n) or v) for n, v in zip(names, values)
                       if not v or (attr == 'shape' and 0 in v)]
            raise MXNetValueError('Cannot decide %s for the following arguments (0s in shape means unknown '
                                  'dimensions). Consider providing them as input:\n\t%s'
                                  % ('shape' if attr == 'shape' else 'type', '\n\t'.join(unknown)))
        sdict = dict(zip(out.list_arguments(), arg_attrs))
        sdict.update(zip(out.list_auxiliary_states(), aux_attrs))
        for p in self.collect_params().values():
            setattr(p, attr, sdict[p.name])

    def infer_shape(self, *args):
        """Infer the parameters' shapes from the inputs' shapes."""
        self._infer_attrs('infer_shape', 'shape', *args)

    def infer_type(self, *args):
        """Infer the parameters' dtypes from the inputs' dtypes."""
        self._infer_attrs('infer_type', 'dtype', *args)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` keys), loadable by MXNet's and
        this SymbolBlock.imports. Needs a hybridized forward pass first."""
        if not self._cached_graph:
            raise MXNetError('Please first call block.hybridize() and then run forward with this block at least '
                             'once before calling export.')
        sym = self._cached_graph[1]
        sym.save('%s-symbol.json' % path, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for is_arg, param in self._cached_op_args:
            if is_arg:
                continue
            if param.name in arg_names:
                arg_dict['arg:' + param.name] = param._reduce()
            elif param.name in aux_names:
                arg_dict['aux:' + param.name] = param._reduce()
            else:
                warnings.warn('Parameter "{name}" is not found in the graph. '.format(name=param.name), stacklevel=3)
        _nd_save('%s-%04d.params' % (path, epoch), arg_dict)

    def register_op_hook(self, callback, monitor_all=False):
        raise unsupported('HybridBlock.register_op_hook', 'per-operator callbacks',
                          'the hybridized graph runs as one torch.fx module')

    def forward(self, x, *args):
        """Run ``hybrid_forward`` on NDArrays (or the hybridized graph), or trace it on Symbols."""
        if type(x) is NDArray and not args:
            ctx = x._ctx
        else:
            has_sym, has_nd, ctxs, ctx = _gather_type_ctx_info([x] + list(args))
            if has_sym and has_nd:
                raise MXNetValueError('In HybridBlock, we do not support mixed NDArrays and Symbols types for the '
                                      'input. Please check the type of the args.\n')
            if not has_sym and not has_nd:
                raise MXNetValueError('In HybridBlock, there must be one NDArray or one Symbol in the input. Please '
                                      'check the type of the args.\n')
            if has_sym:
                params = {k: p.var() for k, p in self._reg_params.items()}
                with self.name_scope():
                    return self.hybrid_forward(_symbol_mod, x, *args, **params)
            if self._active and len(ctxs) > 1:
                raise MXNetValueError('Find multiple contexts in the input, After hybridized, the HybridBlock only '
                                      'supports one input context. You can print the ele.ctx in the input arguments '
                                      'to inspect their contexts. Find all contexts = {}'.format(ctxs))
        with ctx:
            if self._active:
                return self._call_cached_op(x, *args)
            try:
                params = {k: p.data(ctx) for k, p in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for p in self.params.values():
                    p._finish_deferred_init()
                params = {k: p.data(ctx) for k, p in self._reg_params.items()}
            return self.hybrid_forward(_ndarray_mod, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override: the computation, written with ``F`` (``mx.nd`` or ``mx.sym``)."""
        raise NotImplementedError


def _common_prefix(names):
    if not names:
        return ''
    prefix = names[0]
    for n in names:
        i = 0
        while i < len(prefix) and i < len(n) and prefix[i] == n[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


def _infer_param_types(in_params, out_params, arg_params, aux_params, default_dtype=np.float32):
    arg_types = aux_types = None
    names, types = [], []
    known = True
    for p in in_params:
        t = p.infer_type()[0]
        if not t:
            known = False
            break
        names.append(p.name)
        types.append(t[0])
    if known:
        try:
            arg_types, _, aux_types = out_params.infer_type(**dict(zip(names, types)))
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params):
        arg_types = [default_dtype] * len(arg_params)
    if aux_types is None or len(aux_types) != len(aux_params):
        aux_types = [default_dtype] * len(aux_params)
    return arg_types, aux_types


class SymbolBlock(HybridBlock):
    """A HybridBlock made from a Symbol graph (``outputs``) and its input variables; every other variable becomes a
    Parameter. Always runs hybridized."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False, ignore_extra=False):
        """Load a model written by ``HybridBlock.export`` (here or in MXNet)."""
        sym = _symbol_mod.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [_symbol_mod.var(i, dtype=np.float32) for i in input_names]
        else:
            inputs = [_symbol_mod.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                                      dtype_source='saved')
        return ret

    def __repr__(self):
        out = self._cached_graph[1]
        modstr = '{block} : {numinputs} -> {numoutputs}'.format(block=out, numinputs=len(self._cached_graph[0]),
                                                                 numoutputs=len(out.list_outputs()))
        return '{name}(\n{modstr}\n)'.format(name=self.__class__.__name__, modstr=modstr)

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ''
        self._params = ParameterDict('', params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, 'input')
        out, self._out_format = _flatten(outputs, 'output')
        input_names = set()
        for s in syms:
            _check(len(s.get_internals().list_outputs()) == 1,
                   'Input symbols must be variable, but %s is an output of operators' % str(s))
            input_names.add(s.name)
        for o in out:
            for node in o._nodes():
                if node.is_var and node.attrs.get('__storage_type__') == '1':
                    raise unsupported('SymbolBlock', "Parameter '%s' with storage type 'row_sparse'" % node.name)
        out = _symbol_mod.Group(out) if len(out) > 1 else out[0]
        arg_params = out.list_arguments()
        aux_params = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_params, aux_params)
        for i, arg in enumerate(arg_params):
            if arg not in input_names:
                self.params.get(arg, allow_deferred_init=True, dtype=arg_types[i])
        for i, aux in enumerate(aux_params):
            if aux not in input_names:
                self.params.get(aux, grad_req='null', allow_deferred_init=True, dtype=aux_types[i])
        self._cached_graph = (syms, out)
        n = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {k[n:]: v for k, v in self._params.items()}

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            with x._ctx:
                return self._call_cached_op(x, *args)
        _check(isinstance(x, Symbol), 'HybridBlock requires the first argument to forward be either Symbol or '
               'NDArray, but got %s' % type(x))
        flat, in_fmt = _flatten([x] + list(args), 'input')
        _check(in_fmt == self._in_format, 'Invalid input format')
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)

    def _clear_cached_op(self):
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)
        if np.dtype(dtype).name == 'float16':
            # BatchNorm's parameters stay float32 (MXNet's fp16 BatchNorm needs them so)
            names = self._cached_graph[1].get_internals().list_inputs()
            for node in names:
                for var_name, stats in (('running_var', ('running_mean', 'gamma', 'beta')),
                                        ('moving_var', ('moving_mean', 'gamma', 'beta'))):
                    if node.endswith(var_name):
                        base = node[:-len(var_name)]
                        sibs = [base + t for t in stats]
                        if all(p in names for p in sibs):
                            self.params.get(node).cast('float32')
                            for s in sibs:
                                self.params.get(s).cast('float32')

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    def reset_ctx(self, ctx):
        params = self.collect_params()
        for is_arg, p in self._cached_op_args:
            if not is_arg and p.name not in params:
                p.reset_ctx(ctx)
        for p in params.values():
            p.reset_ctx(ctx)
