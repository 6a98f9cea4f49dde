"""Gluon's ``Block``, ``HybridBlock`` and ``SymbolBlock``.

Hybridizing records ``hybrid_forward`` once with ``F = mx.sym`` (as MXNet does) and compiles the Symbol with
``mxcompat.symbol.runner`` (the runner bound executors and ``mx.nd.CachedOp`` use too), which runs its
``torch.fx`` graph on the parameters' tensors; autograd flows through it since those tensors are the parameters'
leaves. Differs from MXNet: the graph does not depend on input shapes, so one graph serves every input shape;
``static_alloc``/``static_shape`` matter only on a GPU with ``MXNET_ENABLE_CUDA_GRAPHS=1``, where the calls are
replayed from CUDA graphs (``kernels.cuda_graphs``), and ``inline_limit``/bulk sizes have no effect;
``hybridize(backend=...)`` takes a ``torch.compile`` backend (``'inductor'``, ``'eager'``, ``'aot_eager'``) or
MXNet's ``'MKLDNN'`` (its oneDNN convolution fusion), the one subgraph backend ``optimize_for`` takes.
"""
import copy
import json
import os.path
import re
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import symbol as _symbol_mod
from .. import initializer
from ..base import MXNetError, MXNetNotImplementedError, MXNetValueError, MXNetTypeError, unsupported
from ..context import Context
from ..kernels import cuda_graphs
from ..ndarray.ndarray import NDArray, _wrap
from ..symbol import Symbol, runner as _runner
from ..util import is_np_array
from ..symbol.numpy import as_np as _as_np_symbol, _Symbol as _np_symbol
from ..numpy import ndarray as _np_ndarray
from ._block_scope import HookHandle, _BlockScope
from ._one_op import infer_from_rule
from ._nested import _flatten, _gather_type_ctx_info, _regroup
from ._npf import eager_F, symbolic_F, to_np
from ._torch_module import GluonModule
from .parameter import (Parameter, ParameterDict, DeferredInitializationError, _check, _indent, _brief_print_list,
                        _nd_save, _nd_load)

__all__ = ['Block', 'HybridBlock', 'SymbolBlock']  # HookHandle is public in gluon.utils in MXNet

# MXNet's subgraph backends that exist here: 'MKLDNN', its oneDNN convolution fusion (symbol/passes/subgraph.py)
_MXNET_BACKENDS = ('MKLDNN',)

_DEFAULT_CTX = Context._default_ctx  # the per-thread default-context state (``with ctx:`` sets its value)


class _Untraceable(MXNetError):
    """A NumPy-mode ``hybrid_forward`` used something ``mx.sym.np`` does not provide (the cause says what)."""


class Block:
    """Base class of all layers and models: a tree of child blocks with parameters named by prefix.

    Children and Parameters assigned as attributes are registered automatically.
    """

    # whether summary() gives this block a row of its own (containers, whose output is their last child's, do not)
    _summary_row = True

    def __init__(self, prefix=None, params=None):
        self._scope = _BlockScope(self)
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix[-1:] == '_' else self._prefix
        # hooks first: they are plain dicts, and __setattr__ below only registers Blocks and Parameters
        self._forward_pre_hooks = OrderedDict()
        self._forward_hooks = OrderedDict()
        self._reg_params = {}
        self._children = OrderedDict()

    def __repr__(self):
        body = '\n'.join('  ({}): {}'.format(attr, _indent(repr(val), 2))
                         for attr, val in vars(self).items() if isinstance(val, Block))
        return self.__class__.__name__ + '(\n' + body + '\n)'

    def __setattr__(self, name, value):
        """Register Blocks and Parameters assigned as attributes."""
        previous = getattr(self, name, None) if hasattr(self, name) else None
        if isinstance(previous, (Parameter, Block)) and not isinstance(value, type(previous)):
            raise MXNetTypeError('Changing attribute type for {name} from {type1} to {type2}is not allowed.'
                                 .format(name=name, type1=type(previous), type2=type(value)))
        if isinstance(value, Parameter):
            _check(name not in self._reg_params, "Overriding Parameter attribute %s is not allowed. If you want to "
                   "share parameters between blocks, please set 'params' at Block construction instead." % name)
            self._reg_params[name] = value
        elif isinstance(value, Block):
            self.register_child(value, name)
        super().__setattr__(name, value)

    @staticmethod
    def _holds_stray_block(container, known):
        """Whether a (nested) list/tuple/dict holds a Block that is not among ``known``."""
        stack = [container]
        while stack:
            item = stack.pop()
            if isinstance(item, Block):
                if item not in known:
                    return True
            elif isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend(item)
        return False

    def _check_container_with_block(self):
        known = set(self._children.values())
        for attr, val in vars(self).items():
            if attr == '_children' or not isinstance(val, (list, tuple, dict)) or not val or attr.startswith('__'):
                continue  # (most of a block's containers are empty hook and cache slots)
            if Block._holds_stray_block(val, known):
                warnings.warn('"{name}" is an unregistered container with Blocks. Note that Blocks inside the '
                              'list, tuple or dict will not be registered automatically. Make sure to register '
                              'them using register_child() or switching to nn.Sequential/nn.HybridSequential '
                              'instead. '.format(name=type(self).__name__ + '.' + attr), stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    prefix = property(lambda self: self._prefix, doc="This block's name prefix (e.g. ``dense0_``).")
    name = property(lambda self: self._name, doc='The prefix without its trailing underscore.')

    def name_scope(self):
        """``with self.name_scope():`` names children (and symbols) under this block's prefix."""
        return self._scope

    @property
    def params(self):
        """This block's own ParameterDict (children's parameters are not in it)."""
        return self._params

    def _walk(self):
        """This block, then every descendant depth first."""
        yield self
        for child in self._children.values():
            yield from child._walk()

    def collect_params(self, select=None):
        """A ParameterDict of this block's and all descendants' Parameters (those whose name matches the regular
        expression ``select``)."""
        keep = re.compile(select).match if select else (lambda _key: True)
        found = ParameterDict(self._params.prefix)
        for blk in self._walk():
            blk._check_container_with_block()
            found.update({key: p for key, p in blk.params.items() if keep(key)})
        return found

    def _collect_params_with_prefix(self, prefix=''):
        """{structural key: Parameter}, keys like ``features.1.weight``. Each child names its own (a fused RNN
        layer anywhere in the tree uses MXNet's ``_unfused`` keys)."""
        lead = prefix + '.' if prefix else ''
        found = {lead + attr: p for attr, p in self._reg_params.items()}
        for key, child in self._children.items():
            found.update(child._collect_params_with_prefix(lead + key))
        return found

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
                traced = bool(blk._cached_graph)
                if traced:
                    syms, out = blk._cached_graph
                    mdl.update(in_format=blk._in_format, out_format=blk._out_format,
                               inputs=[s.tojson() for s in syms], symbol=out.tojson())
                mdl['hybridized'] = traced
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
        key = str(len(self._children)) if name is None else name
        self._children[key] = block

    @staticmethod
    def _hooked(table, hook):
        handle = HookHandle()
        handle.attach(table, hook)
        return handle

    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` before each forward; returns a HookHandle."""
        return Block._hooked(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """``hook(block, inputs, outputs)`` after each forward; returns a HookHandle."""
        return Block._hooked(self._forward_hooks, hook)

    def apply(self, fn):
        """Call ``fn(block)`` on every descendant, then on this block; returns self."""
        # post-order: every block after all of its descendants, siblings in registration order
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
        for param in self.params.values():
            param.cast(dtype)

    def __call__(self, *args):
        if self._forward_pre_hooks:
            for pre in list(self._forward_pre_hooks.values()):
                pre(self, args)
        result = self.forward(*args)
        if self._forward_hooks:
            for post in list(self._forward_hooks.values()):
                post(self, args, result)
        if is_np_array():
            _check_all_np_outputs(result)
        return result

    def forward(self, *args):
        """Override with the computation on NDArrays."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all=False):
        """Pass the operator hook on to the children (only hybridized blocks run operators one by one in MXNet)."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def as_torch_module(self, *example_inputs):
        """This block as a ``torch.nn.Module`` sharing its parameters (mxcompat only; see
        ``mxcompat.interop.GluonModule``). ``example_inputs`` finish deferred initialization."""
        return GluonModule(self, *example_inputs)

    def summary(self, *inputs):
        """Print MXNet's table of each layer's output shape and parameter count (run on ``inputs``)."""
        def shapes_of(obj):
            # nesting is kept (as lists); arrays become their shapes
            if isinstance(obj, (list, tuple)):
                return [shapes_of(e) for e in obj]
            return obj.shape if isinstance(obj, NDArray) else obj

        def describe(obj):
            shapes = shapes_of(obj)
            text = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
            return text.replace('L', '')

        rows = OrderedDict(Input=dict(output_shape=describe(inputs), n_params=0, trainable=0, shared=0))
        counted = set()

        def record(block, _inputs, outputs):
            sizes = [(p, p.data().size) for p in block.params.values()]
            row = dict(output_shape=describe(outputs), n_params=sum(n for _, n in sizes),
                       trainable=sum(n for p, n in sizes if p.grad_req != 'null'),
                       shared=sum(n for p, n in sizes if p in counted))
            counted.update(p for p, _ in sizes)
            rows['%s-%i' % (type(block).__name__, len(rows))] = row

        handles = []

        def attach(block):
            _check(not isinstance(block, HybridBlock) or not block._active,
                   '"{}" must not be hybridized to print summary.'.format(block.name))
            if block._summary_row:
                handles.append(block.register_forward_hook(record))

        try:
            self.apply(attach)
            self(*inputs)
            layout = '{:>20}  {:>42} {:>15}'
            table = ['-' * 80, layout.format('Layer (type)', 'Output Shape', 'Param #'), '=' * 80]
            table += [layout.format(key, str(r['output_shape']), r['n_params']) for key, r in rows.items()]
            total = sum(r['n_params'] for r in rows.values())
            trainable = sum(r['trainable'] for r in rows.values())
            shared = sum(r['shared'] for r in rows.values())
            table += ['=' * 80,
                      'Parameters in forward computation graph, duplicate included',
                      '   Total params: %d' % total,
                      '   Trainable params: %d' % trainable,
                      '   Non-trainable params: %d' % (total - trainable),
                      'Shared params in forward computation graph: %d' % shared,
                      'Unique parameters in model: %d' % (total - shared),
                      '-' * 80]
            print('\n'.join(table))
        finally:
            while handles:
                handles.pop().detach()

def _check_all_np_outputs(out):
    """MXNet's check of a block's outputs in NumPy mode: a legacy array or symbol among them raises TypeError."""
    if isinstance(out, (NDArray, Symbol)):
        if not isinstance(out, (_np_ndarray, _np_symbol)):
            raise MXNetTypeError("Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` or "
                                 "`mxnet.symbol.numpy._Symbol`, while got output type %s" % type(out))
    elif isinstance(out, (list, tuple)):
        for o in out:
            _check_all_np_outputs(o)


class HybridBlock(Block):
    """A Block whose computation is ``hybrid_forward(F, x, *args, **params)``, with ``F`` being ``mx.nd`` when run
    imperatively and ``mx.sym`` when traced; ``hybridize()`` runs the traced graph as one torch.fx module."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        HybridBlock._clear_cached_op(self)  # the base version: SymbolBlock's keeps a graph it has not made yet
        self._active = False
        self._in_format = self._out_format = None
        # hybridize() options: the torch.compile backend and MXNet's flags (static_alloc and static_shape turn on
        # CUDA graphs with MXNET_ENABLE_CUDA_GRAPHS=1; the others are kept without effect)
        self._backend, self._backend_opts, self._flags = None, {}, []
        self._cuda_graphs = False  # (hybridize() with static_alloc and static_shape, MXNET_ENABLE_CUDA_GRAPHS=1)
        # register_op_hook's callback, run by the hybridized graph
        self._callback, self._monitor_all = None, False

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()  # a new child changes the graph

    def _trace(self, args):
        """Record ``hybrid_forward`` on Symbols standing for ``args``: (input variables, grouped outputs)."""
        flat, self._in_format = _flatten(args, 'input')
        present = [i for i, a in enumerate(flat) if a is not None]
        if not present:
            raise MXNetValueError('All args are None and we do not support such a case. Received args={}'
                                  .format(args))
        if len(present) == 1:
            names = ['data']
        else:
            names = ['data%d' % k for k in range(len(present))]
        variables = [_symbol_mod.var(n) for n in names]
        np_mode = is_np_array()
        if np_mode:  # (NumPy symbols, as MXNet records a block in NumPy mode)
            variables = [_as_np_symbol(v) for v in variables]
        placed = [None] * len(flat)
        for i, v in zip(present, variables):
            placed[i] = v
        kwargs = {key: p.var() for key, p in self._reg_params.items()}
        with self.name_scope():
            try:
                traced = self.hybrid_forward(symbolic_F(), *_regroup(placed, self._in_format), **kwargs)
            except MXNetNotImplementedError as e:
                if not np_mode:
                    raise
                raise _Untraceable() from e
        outputs, self._out_format = _flatten(traced, 'output')
        if len({isinstance(o, _np_symbol) for o in outputs}) > 1:  # (MXNet's _check_same_symbol_type)
            raise MXNetTypeError('Found both classic symbol (mx.sym.Symbol) and numpy symbol (mx.sym.np._Symbol) in '
                                 'outputs: convert them to one type (as_np_ndarray() or as_nd_ndarray() on each)')
        return variables, _symbol_mod.Group(outputs)

    def _get_graph(self, *args):
        if not self._cached_graph:
            self._cached_graph = self._trace(args)
        return self._cached_graph

    def _warn_unused(self, data_names, params, used):
        idle_inputs = ['%d-th' % i for n, i in data_names.items() if n not in used]
        if idle_inputs:
            warnings.warn('The %s input to HybridBlock is not used by any computation. Is this intended?'
                          % ', '.join(idle_inputs), stacklevel=5)
        idle_params = [n for n in params if n not in used]
        if idle_params:
            warnings.warn('Parameter %s is not used by any computation. Is this intended?'
                          % ', '.join(idle_params), stacklevel=5)

    def _ensure_initialized(self, params, names, args):
        """Finish deferred initialization of the graph's parameters (inferring shapes from ``args`` if needed)."""
        needed = [params[n] for n in names if n in params]
        try:
            for p in needed:
                p.data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            for p in needed:
                p._finish_deferred_init()

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        input_names = out.list_inputs()
        if self._cached_op_args:  # rebuilding: keep the Parameters the graph was made with
            params = {p.name: p for is_data, p in self._cached_op_args if not is_data}
        else:
            params = self.collect_params()
        unknown = [n for n in input_names if n not in params and n not in data_names]
        _check(not unknown, 'Unknown input to HybridBlock: %s' % (unknown[0] if unknown else ''))
        self._warn_unused(data_names, params, set(input_names))
        self._ensure_initialized(params, input_names, args)
        slots = [(True, data_names[n]) if n in data_names else (False, params[n]) for n in input_names]
        self._cached_op_args = slots
        op = self._cached_op = _runner.compile(out, backend=self._backend)
        slot_of = dict(zip(input_names, slots))
        self._cached_op_slots = [slot_of[n] for n in op.input_names]  # (in the order the graph takes its inputs)
        if self._cuda_graphs:
            op.graphs = cuda_graphs.GraphCache(self.name, [not is_data for is_data, _ in self._cached_op_slots])

    def _one_op(self):
        """(operator name, attributes, [(op input name, Parameter or None for the data)]) for a layer whose
        ``hybrid_forward`` runs just that operator on its input and Parameters, else None (see ``_one_op.py``)."""
        return None

    def _deferred_infer_shape(self, *args):
        if infer_from_rule(self, args):
            return
        try:
            self.infer_shape(*args)
        except MXNetNotImplementedError:
            raise  # a known gap names itself: keep its kind
        except Exception as err:
            raise MXNetValueError('Deferred initialization failed because shape cannot be inferred. {}'
                                  .format(err)) from None

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
        tensors = [real[v]._t if is_data else v.data(ctx)._t for is_data, v in self._cached_op_slots]
        # the graph runs on its inputs' context: operators without inputs (zeros, random draws) place arrays there
        try:
            if self._callback is None:
                outs = op(tensors, ctx)
            else:
                outs = self._run_hooked(op, tensors, ctx)
        except MXNetError:
            raise
        except (RuntimeError, ValueError, IndexError, TypeError) as e:
            raise MXNetError('%s (hybridized): %s (input shapes %s)'
                             % (self.name, str(e).splitlines()[0], [a.shape for a in real])) from None
        outs = [_wrap(t, ctx) for t in outs]
        if is_np_array():  # (a SymbolBlock run in NumPy mode)
            outs = to_np(outs)
        if self._out_format == 0:
            return outs[0]
        return _regroup(outs, self._out_format)

    def _run_hooked(self, op, tensors, ctx):
        """Run the plain graph node by node, calling the op hook ``callback(name, op name, array)`` as MXNet's
        cached ops do (names as bytes; see ``_Node.monitor_names``)."""
        if dict(self._flags).get('static_alloc') or dict(self._flags).get('static_shape'):
            warnings.warn('register_op_hook is experimental when static_alloc=True / static_shape=True '
                          ' and may not work correctly')
        callback = self._callback

        def report(node, name, t):
            callback(name.encode(), node.op.name.encode(), NDArray._from_tensor(t.detach(), ctx))
        return op.run_monitored(tensors, report, self._monitor_all, ctx)

    def optimize_for(self, x, *args, backend=None, clear=False, static_alloc=False, static_shape=False,
                     inline_limit=2, forward_bulk_size=None, backward_bulk_size=None, **kwargs):
        """Hybridize with ``backend`` and build the graph for inputs like ``x, *args`` without running it.
        Differs from MXNet: the one subgraph backend is ``'MKLDNN'`` (its convolution fusion, applied to inference
        calls; recorded calls run the operators unfused, where MXNet's fused operator has no backward), and
        ``export`` afterwards writes the unpartitioned graph."""
        if not backend:
            raise MXNetValueError('Must specify "backend" to optimize_for')
        if backend not in _MXNET_BACKENDS:
            raise unsupported('HybridBlock.optimize_for', 'backend=%r' % (backend,),
                              "the subgraph backends here are %s; use hybridize(backend='inductor') for "
                              'torch.compile' % (_MXNET_BACKENDS,))
        self.hybridize(True, backend, clear, static_alloc, static_shape, inline_limit, forward_bulk_size,
                       backward_bulk_size, **kwargs)
        if self._check_inputs([x] + list(args)) is None:
            raise unsupported('HybridBlock.optimize_for', 'Symbol inputs', 'pass NDArrays like the real inputs')
        with x.context:
            self._build_cache(x, *args)

    def _clear_cached_op(self):
        """Forget the traced graph and its compiled form (the next hybridized call traces again)."""
        self._cached_graph, self._cached_op, self._cached_op_args, self._cached_op_slots = (), None, [], []
        self._np_untraceable = None  # why a NumPy-mode trace failed (the block then runs imperatively)

    def register_child(self, block, name=None):
        if isinstance(block, HybridBlock):
            super().register_child(block, name)
            self._clear_cached_op()
            return
        raise MXNetValueError('Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are '
                              'using Sequential, please try HybridSequential instead.' % (block, type(block)))

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False, static_shape=False,
                  inline_limit=2, forward_bulk_size=None, backward_bulk_size=None, **kwargs):
        """Run as one torch.fx graph (``backend``: a torch.compile backend, or None for the plain graph).
        ``static_alloc=True, static_shape=True`` with ``MXNET_ENABLE_CUDA_GRAPHS=1`` replays CUDA graphs on a GPU, as
        MXNet's; ``inline_limit``/bulk sizes are accepted and have no effect."""
        if backend is not None and backend not in _runner.TORCH_BACKENDS + _MXNET_BACKENDS:
            raise unsupported('HybridBlock.hybridize', 'backend=%r' % (backend,),
                              'use one of %s (torch.compile), %s or None' % (_runner.TORCH_BACKENDS, _MXNET_BACKENDS))
        if kwargs:
            raise unsupported('HybridBlock.hybridize', 'backend options %s' % sorted(kwargs))
        self._backend, self._active = backend, active
        optional = (('forward_bulk_size', forward_bulk_size), ('backward_bulk_size', backward_bulk_size))
        self._flags = [('static_alloc', static_alloc), ('static_shape', static_shape), ('inline_limit', inline_limit)]
        self._flags += [flag for flag in optional if flag[1] is not None]
        self._cuda_graphs = bool(static_alloc and static_shape and backend is None and cuda_graphs.enabled())
        if clear:
            self._clear_cached_op()
        has_hooks = bool(self._forward_hooks) and active or bool(self._forward_pre_hooks)
        if has_hooks:
            warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. If "{block}" is a '
                          'child of HybridBlock, the hooks will not take effect.'.format(block=self))
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, inline_limit=inline_limit,
                          forward_bulk_size=forward_bulk_size, backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def infer_shape(self, *args):
        """Infer the parameters' shapes from the inputs' shapes (see ``_infer_attrs``)."""
        self._infer_attrs('infer_shape', 'shape', *args)

    def infer_type(self, *args):
        """Infer the parameters' dtypes from the inputs' dtypes (see ``_infer_attrs``)."""
        self._infer_attrs('infer_type', 'dtype', *args)

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
        graph_vars = out.list_arguments() + out.list_auxiliary_states()
        found = dict(zip(graph_vars, list(arg_attrs) + list(aux_attrs)))
        for param in self.collect_params().values():
            setattr(param, attr, found[param.name])

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` keys), loadable by MXNet's and
        this SymbolBlock.imports. Needs a hybridized forward pass first."""
        if self._np_untraceable:
            raise unsupported('HybridBlock.export', 'export in NumPy mode of this block',
                              'its hybrid_forward runs imperatively since it could not be recorded with NumPy '
                              'symbols: %s' % self._np_untraceable)
        if not self._cached_graph:
            raise MXNetError('Please first call block.hybridize() and then run forward with this block at least '
                             'once before calling export.')
        graph = self._cached_graph[1]
        graph.save('%s-symbol.json' % path, remove_amp_cast=remove_amp_cast)
        kind_of = dict.fromkeys(graph.list_auxiliary_states(), 'aux')
        kind_of.update(dict.fromkeys(graph.list_arguments(), 'arg'))
        saved = {}
        for param in (v for is_data, v in self._cached_op_args if not is_data):
            kind = kind_of.get(param.name)
            if kind is None:
                warnings.warn('Parameter "{name}" is not found in the graph. '.format(name=param.name), stacklevel=3)
            else:
                saved['%s:%s' % (kind, param.name)] = param._reduce()
        _nd_save('%s-%04d.params' % (path, epoch), saved)

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(node_name, op_name, array)`` for every operator's outputs (``monitor_all``: its inputs
        first) whenever this block runs hybridized, with MXNet's node and operator names (as bytes, like
        MXNet). As in MXNet, the hook is set on this block and its direct children. Differs from MXNet: ``array``
        is an NDArray, not a C handle; a hooked graph runs node by node (slower), also under ``backend=``."""
        self._callback, self._monitor_all = callback, monitor_all
        for child in self._children.values():
            child._callback, child._monitor_all = callback, monitor_all

    def forward(self, x, *args):
        """Run ``hybrid_forward`` on NDArrays (or the hybridized graph), or trace it on Symbols."""
        if type(x) is NDArray and not args:
            ctx = x._ctx  # the common case: one array in
        else:
            ctx = self._check_inputs([x] + list(args))
            if ctx is None:  # symbolic inputs: compose this block into the caller's graph
                kwargs = {key: p.var() for key, p in self._reg_params.items()}
                with self.name_scope():
                    return self.hybrid_forward(symbolic_F(), x, *args, **kwargs)
        if _DEFAULT_CTX.value is ctx:  # already the default context (a parent block or the caller entered it)
            if self._active and self._np_untraceable is None:
                return self._hybridized_call(ctx, x, *args)
            if not self._reg_params:  # (a container or an activation: no parameters to look up)
                return self.hybrid_forward(eager_F(), x, *args)
            return self.hybrid_forward(eager_F(), x, *args, **self._imperative_params(ctx, x, *args))
        with ctx:
            if self._active and self._np_untraceable is None:
                return self._hybridized_call(ctx, x, *args)
            return self.hybrid_forward(eager_F(), x, *args, **self._imperative_params(ctx, x, *args))

    def _hybridized_call(self, ctx, x, *args):
        """The graph's result; in NumPy mode, a block whose ``hybrid_forward`` uses what ``mx.sym.np`` lacks runs
        imperatively from then on (same values), remembering why for ``export``."""
        try:
            return self._call_cached_op(x, *args)
        except _Untraceable as e:
            self._clear_cached_op()
            self._np_untraceable = str(e.__cause__)
        return self.hybrid_forward(eager_F(), x, *args, **self._imperative_params(ctx, x, *args))

    def _check_inputs(self, inputs):
        """The context of NDArray ``inputs`` (None for Symbols); refuses mixed, empty or (hybridized) multi-context
        inputs."""
        has_sym, has_nd, ctxs, first = _gather_type_ctx_info(inputs)
        if has_sym == has_nd:
            if has_sym:
                raise MXNetValueError('In HybridBlock, we do not support mixed NDArrays and Symbols types for the '
                                      'input. Please check the type of the args.\n')
            raise MXNetValueError('In HybridBlock, there must be one NDArray or one Symbol in the input. Please '
                                  'check the type of the args.\n')
        if has_sym:
            return None
        if len(ctxs) > 1 and self._active:
            raise MXNetValueError('Find multiple contexts in the input, After hybridized, the HybridBlock only '
                                  'supports one input context. You can print the ele.ctx in the input arguments '
                                  'to inspect their contexts. Find all contexts = {}'.format(ctxs))
        return first

    def _imperative_params(self, ctx, *args):
        """{attribute name: NDArray on ``ctx``} of this block's own Parameters, finishing deferred initialization
        (shapes inferred from ``args``) when needed."""
        try:
            return {key: p.data(ctx) for key, p in self._reg_params.items()}
        except DeferredInitializationError:
            pass
        self._deferred_infer_shape(*args)
        for p in self.params.values():
            p._finish_deferred_init()
        return {key: p.data(ctx) for key, p in self._reg_params.items()}

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override: the computation, written with ``F`` (``mx.nd`` or ``mx.sym``)."""
        raise NotImplementedError


def _common_prefix(names):
    """The longest string every one of ``names`` starts with ('' for no names)."""
    return os.path.commonprefix(list(names))


def _infer_param_types(in_params, out_params, arg_params, aux_params, default_dtype=np.float32):
    """(argument dtypes, auxiliary dtypes) of ``out_params`` inferred from the inputs' declared dtypes; a side that
    cannot be inferred (or has the wrong length) falls back to ``default_dtype`` throughout."""
    declared = {}
    for var in in_params:
        known = var.infer_type()[0]
        if not known:
            declared = None
            break
        declared[var.name] = known[0]
    inferred = (None, None, None)
    if declared is not None:
        try:
            inferred = out_params.infer_type(**declared)
        except MXNetError:
            pass

    def settle(types, wanted):
        return list(types) if types is not None and len(types) == len(wanted) else [default_dtype] * len(wanted)
    return settle(inferred[0], arg_params), settle(inferred[2], aux_params)


class SymbolBlock(HybridBlock):
    """A HybridBlock made from a Symbol graph (``outputs``) and its input variables; every other variable becomes a
    Parameter. Always runs hybridized."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False, ignore_extra=False):
        """Load a model written by ``HybridBlock.export`` (here or in MXNet)."""
        names = [input_names] if isinstance(input_names, str) else input_names
        # without a parameter file float32 inputs make the dtypes inferable; with one, the saved dtypes decide
        extra = {'dtype': np.float32} if param_file is None else {}
        block = SymbolBlock(_symbol_mod.load(symbol_file), [_symbol_mod.var(n, **extra) for n in names])
        if param_file is not None:
            block.collect_params().load(param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                                        dtype_source='saved')
        return block

    def __repr__(self):
        inputs, graph = self._cached_graph
        return '%s(\n%s : %d -> %d\n)' % (type(self).__name__, graph, len(inputs), len(graph.list_outputs()))

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ''
        self._params = ParameterDict('', params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        in_syms, self._in_format = _flatten(inputs, 'input')
        out_syms, self._out_format = _flatten(outputs, 'output')
        for s in in_syms:
            _check(len(s.get_internals().list_outputs()) == 1,
                   'Input symbols must be variable, but %s is an output of operators' % str(s))
        fed = {s.name for s in in_syms}
        sparse = [node.name for o in out_syms for node in o._nodes()
                  if node.is_var and node.attrs.get('__storage_type__') == '1']
        _check(not sparse, "SymbolBlock doesn't support Parameter '%s' because its storage type is 'row_sparse'."
               % (sparse[0] if sparse else ''))
        graph = out_syms[0] if len(out_syms) == 1 else _symbol_mod.Group(out_syms)
        self._declare_params(in_syms, graph, fed)
        self._cached_graph = (in_syms, graph)
        cut = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {full[cut:]: p for full, p in self._params.items()}

    def _declare_params(self, in_syms, graph, fed):
        """A deferred Parameter for every graph variable that is not an input (auxiliary states get no gradient),
        with the dtype inferred from the inputs'."""
        args, auxs = graph.list_arguments(), graph.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(in_syms, graph, args, auxs)
        for names, dtypes, extra in ((args, arg_types, {}), (auxs, aux_types, {'grad_req': 'null'})):
            for vname, dtype in zip(names, dtypes):
                if vname not in fed:
                    self.params.get(vname, allow_deferred_init=True, dtype=dtype, **extra)

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
        """Move every Parameter (including any the cached graph holds beyond ``collect_params``) to ``ctx``."""
        owned = self.collect_params()
        extra = [v for is_data, v in self._cached_op_args if not is_data and v.name not in owned]
        for param in extra + list(owned.values()):
            param.reset_ctx(ctx)
