"""PyTorch interop: export to a standalone ``torch.nn.Module``, Gluon blocks inside PyTorch code, PyTorch modules
inside Gluon networks. mxcompat only (MXNet has no such API). ``GluonModule`` (a block inside PyTorch code) is
defined in ``gluon/_torch_module.py``, below ``gluon.block``, whose ``as_torch_module`` makes one; it is exported here.

``to_torch`` traces the lowered graph with ``make_fx`` (on fake tensors) so the module's generated code calls only
``torch.ops.aten`` operators and torch's own modules: it pickles, and runs in a process that never imports mxcompat.
The operators whose behaviour depends on the training mode become torch modules that follow ``.train()``/``.eval()``
(BatchNorm -> ``nn.BatchNorm*d``, Dropout -> ``nn.Dropout*``); a pickled GraphModule is re-traced when loaded, so a
Python-level branch on ``self.training`` would not survive.
Differences from running the block in mxcompat: in training mode BatchNorm updates its running statistics in the
forward pass (MXNet does it when the gradient arrives) and the running variance with the unbiased batch variance
(torch's rule; MXNet's uses the biased one); loss heads (SoftmaxOutput, ...RegressionOutput, SVMOutput, MakeLoss)
export their forward only, so their gradient is autograd's of that forward, not MXNet's loss gradient; in predict
mode BatchNorm's gradient is autograd's (MXNet's differs); a fix_gamma BatchNorm's gamma is frozen at 1 (MXNet
keeps the stored value and gives it a zero gradient).
"""
import inspect
import warnings

import numpy as np
import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

from . import autograd as _ag
from . import initializer
from .base import MXNetError, MXNetValueError, MXNetTypeError, parse_tuple, unsupported
from .executor import Executor
from .gluon._nested import _flatten
from .gluon._torch_module import GluonModule, _as_tensor, _ident
from .gluon.block import Block, HybridBlock
from .ndarray.ndarray import NDArray, _wrap
from .operator import nn_output, registry
from .symbol import Symbol
from .symbol.lower import lower

__all__ = ['to_torch', 'GluonModule', 'TorchBlock']

# ops whose gradient in MXNet is not autograd's of their forward: exported as that forward (with a warning)
_LOSS_HEADS = ('SoftmaxOutput', 'LinearRegressionOutput', 'MAERegressionOutput', 'LogisticRegressionOutput',
               'SVMOutput', 'MakeLoss')
# ops that cannot become torch-only code
_NOT_EXPORTABLE = {'Custom': 'its forward and backward are Python callbacks of an mx.operator.CustomOp'}


# ---- what to export: symbol, data names, parameter tensors, example inputs -------------------------------------
class _Source:
    __slots__ = ('sym', 'data_names', 'values', 'trainable', 'examples')

    def __init__(self, sym, data_names, values, trainable, examples):
        self.sym = sym                # the Symbol to export
        self.data_names = data_names  # argument names fed by the module's inputs, in order
        self.values = values          # {name: torch.Tensor} for every other argument and auxiliary state
        self.trainable = trainable    # names of arguments that get gradients
        self.examples = examples      # {data name: example tensor}


def _as_list(example_inputs):
    if example_inputs is None:
        return None
    if isinstance(example_inputs, (list, tuple)):
        return list(example_inputs)
    return [example_inputs]


def _from_block(block, example_inputs):
    if not isinstance(block, HybridBlock):
        raise unsupported('to_torch', 'a %s (not a HybridBlock)' % type(block).__name__,
                          'only hybridizable blocks have a graph to export')
    examples = _as_list(example_inputs)
    if examples is None:
        raise MXNetValueError('to_torch: example_inputs are needed to trace %s (one array per input)' % block.name)
    examples = [x if isinstance(x, NDArray) or x is None else NDArray(_as_tensor(x)) for x in examples]
    with _ag.pause():
        block(*examples)  # finishes deferred initialization (and traces a hybridized block)
    inputs, graph = block._cached_graph if block._cached_graph else block._trace(examples)
    data_names = [s.name for s in inputs]
    flat = [x for x in _flatten(examples, 'input')[0] if x is not None]
    if len(flat) != len(data_names):
        raise MXNetValueError('to_torch: %s takes %d inputs, got %d example inputs'
                              % (block.name, len(data_names), len(flat)))
    params = {p.name: p for p in block.collect_params().values()}
    params.update({p.name: p for is_data, p in block._cached_op_args if not is_data})
    values, trainable = {}, set()
    for name in graph.list_inputs():
        if name in data_names:
            continue
        if name not in params:
            raise MXNetValueError('to_torch: the graph of %s needs %r, which is neither an input nor a Parameter'
                                  % (block.name, name))
        p = params[name]
        values[name] = p.data()._t.detach()
        if p.grad_req != 'null':
            trainable.add(name)
    return _Source(graph, data_names, values, trainable,
                   {n: _as_tensor(x) for n, x in zip(data_names, flat)})


def _from_symbol(sym, arg_params, aux_params, example_inputs, data_names):
    args, auxs = sym.list_arguments(), sym.list_auxiliary_states()
    arg_params = {k: _as_tensor(v) for k, v in (arg_params or {}).items()}
    aux_params = {k: _as_tensor(v) for k, v in (aux_params or {}).items()}
    if data_names is None:  # the arguments without a value (those named in a dict of examples, and labels)
        data_names = [n for n in args if n not in arg_params]
        if isinstance(example_inputs, dict):
            data_names = [n for n in data_names if n in example_inputs or n.endswith('label')]
    missing = [n for n in auxs if n not in aux_params]
    if missing:
        raise MXNetValueError('to_torch: no value for auxiliary state(s) %s' % ', '.join(missing))
    unfed = [n for n in args if n not in arg_params and n not in data_names]
    if unfed:
        raise MXNetValueError('to_torch: no value for argument(s) %s' % ', '.join(unfed))
    if isinstance(example_inputs, dict):
        examples = {k: _as_tensor(v) for k, v in example_inputs.items()}
    else:
        given = _as_list(example_inputs) or []
        examples = {n: _as_tensor(x) for n, x in zip(data_names, given)}
    # inputs without an example: from a __shape__ attribute, else a loss head's label shaped like its data
    declared = {n.name: n.attrs.get('__shape__') for n in sym._nodes() if n.is_var}
    for n in data_names:
        if n not in examples and declared.get(n):
            examples[n] = torch.zeros(parse_tuple(declared[n]))
    lacking = [n for n in data_names if n not in examples]
    if lacking:
        shapes = {n: tuple(t.shape) for n, t in examples.items()}
        try:
            arg_shapes, _, _ = sym.infer_shape_partial(**shapes)
            inferred = dict(zip(args, arg_shapes))
        except MXNetError:
            inferred = {}
        for n in lacking:
            if inferred.get(n) and all(inferred[n]):
                examples[n] = torch.zeros(inferred[n])
        lacking = [n for n in data_names if n not in examples]
        if lacking:
            raise MXNetValueError('to_torch: give an example input (or shape) for %s' % ', '.join(lacking))
    values = dict(arg_params)
    values.update(aux_params)
    trainable = {n for n in args if n in arg_params and arg_params[n].is_floating_point()}
    return _Source(sym, list(data_names), values, trainable, examples)


def _source(obj, example_inputs, data_names, arg_params, aux_params):
    if isinstance(obj, Block):
        return _from_block(obj, example_inputs)
    if isinstance(obj, Executor):
        sym = obj._symbol
        arg_dict, aux_dict = obj.arg_dict, obj.aux_dict
        if data_names is None:
            data_names = [n for n in sym.list_arguments() if n == 'data' or n.endswith(('_data', 'label'))]
        params = {n: a for n, a in arg_dict.items() if n not in data_names}
        examples = example_inputs if example_inputs is not None else {n: arg_dict[n] for n in data_names}
        return _from_symbol(sym, params, aux_dict, examples, data_names)
    if hasattr(obj, 'get_params') and hasattr(obj, 'symbol') and hasattr(obj, 'data_names'):  # a bound Module
        a, x = obj.get_params()
        names = list(obj.data_names) + list(getattr(obj, 'label_names', None) or [])
        shapes = example_inputs
        if shapes is None and getattr(obj, 'data_shapes', None):
            descs = list(obj.data_shapes) + list(obj.label_shapes or [])
            shapes = {d[0]: torch.zeros(tuple(d[1])) for d in descs}  # DataDesc or (name, shape)
        return _from_symbol(obj.symbol, a, x, shapes, [n for n in obj.symbol.list_arguments() if n in names])
    if isinstance(obj, Symbol):
        return _from_symbol(obj, arg_params, aux_params, example_inputs, data_names)
    raise MXNetTypeError('to_torch: expected a HybridBlock, SymbolBlock, Symbol, Executor or Module, got %s'
                         % type(obj).__name__)


# ---- tracing ------------------------------------------------------------------------------------------------------
def _head_forward(op_name, attrs):
    """The forward of a loss head (MXNet's backward of it is not autograd's: see the module docstring)."""
    if op_name == 'SoftmaxOutput':
        return lambda data, label: nn_output._softmax_out_forward(data, attrs['multi_output'],
                                                                  attrs['preserve_shape'])
    if op_name == 'LogisticRegressionOutput':
        return lambda data, label: torch.sigmoid(data)
    if op_name == 'MakeLoss':
        return lambda data: data.clone()
    return lambda data, label: data.clone()


_MODE_READERS = {}


def _reads_mode(bound):
    """Whether an operator's implementation looks at the training mode (then it is traced in both modes)."""
    op_name = bound._mx_op
    if op_name not in _MODE_READERS:
        try:
            src = inspect.getsource(registry.get(op_name).impl)
        except (OSError, TypeError):
            src = 'training'
        _MODE_READERS[op_name] = 'training' in src or 'STATE' in src
    return _MODE_READERS[op_name]


class _TraceError(MXNetError):
    pass


@torch.library.custom_op('mxcompat_export::leaf', mutates_args=())
def _leaf_marker(x: torch.Tensor, index: int) -> torch.Tensor:
    """Stands for torch module ``index`` while tracing; replaced by a ``call_module`` node afterwards."""
    return x.clone()


@_leaf_marker.register_fake
def _(x, index):
    return torch.empty_like(x)


_DROPOUT_MODULES = {(3, (2,)): torch.nn.Dropout1d, (4, (2, 3)): torch.nn.Dropout2d, (5, (2, 3, 4)): torch.nn.Dropout3d}
_BN_MODULES = {2: torch.nn.BatchNorm1d, 3: torch.nn.BatchNorm1d, 4: torch.nn.BatchNorm2d, 5: torch.nn.BatchNorm3d}


def _leaf_name(node):
    """The torch module's name: the MXNet operator's node name without Gluon's ``_fwd``."""
    name = node.target.__name__[3:]  # 'op_' + the MXNet node name
    return name[:-len('_fwd')] if name.endswith('_fwd') else name


class _Builder:
    """Builds the torch-only graph: the lowered graph traced with ``make_fx`` into aten calls (on fake tensors, so
    shapes are those of the example inputs), except the operators whose behaviour depends on the training mode,
    which become torch's own modules (``nn.BatchNorm*d``, ``nn.Dropout*``) so that ``.train()``/``.eval()`` switch
    them, also in a process that loads the pickled module."""

    def __init__(self, src, low, fake, dynamic=False):
        self.src, self.low = src, low
        # the values only serve for shapes: fake tensors make tracing cheap; with ``dynamic`` the first axis of
        # every input is a symbol, so the graph computes shapes from the batch size instead of baking it in
        self.dynamic = dynamic
        self.fake_mode = FakeTensorMode(shape_env=ShapeEnv() if dynamic else None) if fake or dynamic else None
        self.root = torch.nn.Module()
        self.used = set()
        self.mxnet_names = {}  # torch name (parameter, buffer) -> MXNet name
        self.leaves = []       # (kind, lowered node, attrs) of the torch modules, by marker index
        self.heads = []
        self.names = low.arg_names + low.aux_names
        self.placeholders = dict(zip([n for n in low.graph_module.graph.nodes if n.op == 'placeholder'],
                                     self.names))

    def register(self, owner, attr, mx_name, prefix=''):
        t = self.src.values[mx_name].detach().clone()
        if mx_name in self.low.aux_names:
            owner.register_buffer(attr, t)
        else:
            owner.register_parameter(attr, torch.nn.Parameter(
                t, requires_grad=mx_name in self.src.trainable and t.is_floating_point()))
        self.mxnet_names[prefix + attr] = mx_name

    def mark(self, n, kind, attrs):
        """Point lowered node ``n`` at a function that calls the leaf marker (the module comes after tracing)."""
        index = len(self.leaves)
        self.leaves.append((kind, n, attrs))
        if kind == 'BatchNorm':
            axis = attrs['axis']

            def fn(data, *_stats):
                ax = axis % data.dim()
                x = data.movedim(ax, 1) if ax != 1 else data
                y = torch.ops.mxcompat_export.leaf(x, index)
                return y.movedim(1, ax) if ax != 1 else y
        else:
            def fn(data):
                return torch.ops.mxcompat_export.leaf(data, index)
        fn.__name__ = fn.__qualname__ = n.target.__name__
        n.target = fn

    def prepare(self):
        gm = self.low.graph_module
        mode_ops = set()
        for n in gm.graph.nodes:
            op_name = getattr(n.target, '_mx_op', None) if n.op == 'call_function' else None
            if op_name is None:
                continue
            attrs = n.target._mx_attrs
            if op_name in _NOT_EXPORTABLE:
                raise unsupported('to_torch', 'operator %s' % op_name, _NOT_EXPORTABLE[op_name])
            if op_name == 'BatchNorm' and not attrs['use_global_stats']:
                if attrs['output_mean_var']:
                    raise unsupported('to_torch', 'BatchNorm with output_mean_var=True')
                self.mark(n, 'BatchNorm', attrs)
            elif op_name == 'Dropout' and attrs['mode'] == 'training' and attrs['p'] > 0:
                self.mark(n, 'Dropout', attrs)
            elif op_name in _LOSS_HEADS:
                fn = _head_forward(op_name, attrs)
                fn.__name__ = fn.__qualname__ = n.target.__name__
                n.target = fn
                self.heads.append(op_name)
            elif _reads_mode(n.target):
                mode_ops.add(op_name)
        gm.recompile()
        return gm, mode_ops

    def trace(self, gm, training):
        vals = [self.src.examples[n] if n in self.src.examples else self.src.values.get(n) for n in self.names]
        missing = [n for n, v in zip(self.names, vals) if v is None]
        if missing:
            raise MXNetValueError('to_torch: the graph needs input %r; pass an example for it' % missing[0])
        saved = _ag.STATE.training
        _ag.STATE.training = training
        try:
            with torch.no_grad():
                if self.fake_mode is None:
                    return make_fx(gm)(*[v.clone() for v in vals])
                fakes = [self._fake(n, v) for n, v in zip(self.names, vals)]
                with self.fake_mode:
                    return make_fx(gm, tracing_mode='symbolic' if self.dynamic else 'real')(*fakes)
        except MXNetError:
            raise
        except Exception as e:  # noqa: BLE001 -- tracing failures are reported as to_torch errors
            raise _TraceError('to_torch: tracing the graph failed: %s' % str(e).splitlines()[0]) from None
        finally:
            _ag.STATE.training = saved

    def _fake(self, name, value):
        if not self.dynamic:
            return self.fake_mode.from_tensor(value)
        if name in self.src.examples and value.dim():
            sizes = [DimDynamic.DYNAMIC] + [DimDynamic.STATIC] * (value.dim() - 1)
            return self.fake_mode.from_tensor(value, symbolic_context=StatelessSymbolicContext(dynamic_sizes=sizes))
        return self.fake_mode.from_tensor(value, static_shapes=True)

    def leaf_module(self, index, x):
        kind, n, attrs = self.leaves[index]
        if kind == 'Dropout':
            axes = tuple(sorted(a % x.dim() for a in attrs['axes']))
            if not axes:
                module = torch.nn.Dropout(attrs['p'])
            elif (x.dim(), axes) in _DROPOUT_MODULES:
                module = _DROPOUT_MODULES[(x.dim(), axes)](attrs['p'])
            else:
                raise unsupported('to_torch', 'Dropout with axes=%s on %d-d data' % (attrs['axes'], x.dim()),
                                  'torch has channel dropout (axes = all spatial axes) only')
            name = _ident(_leaf_name(n), self.used)
            self.root.add_module(name, module)
            return name
        if x.dim() not in _BN_MODULES:
            raise unsupported('to_torch', 'BatchNorm on %d-d data' % x.dim())
        # torch's momentum weighs the new batch statistic, MXNet's the running one
        module = _BN_MODULES[x.dim()](x.shape[1], eps=attrs['eps'], momentum=1.0 - attrs['momentum'])
        del module.weight, module.bias, module.running_mean, module.running_var
        name = _ident(_leaf_name(n), self.used)
        self.root.add_module(name, module)
        for attr, a in zip(('weight', 'bias', 'running_mean', 'running_var'), n.args[1:5]):
            if len(a.users) > 1 or a not in self.placeholders:
                raise unsupported('to_torch', 'BatchNorm sharing %r with other operators'
                                  % self.placeholders.get(a, a.name), 'torch modules own their parameters')
            self.register(module, attr, self.placeholders[a], name + '.')
        if attrs['fix_gamma']:  # gamma acts as 1 (and is not trained), as in MXNet
            with torch.no_grad():
                module.weight.fill_(1.0)
            module.weight.requires_grad_(False)
        return name

    def build(self):
        gm, mode_ops = self.prepare()
        traced = self.trace(gm, False)
        if mode_ops and traced.code != self.trace(gm, True).code:
            raise unsupported('to_torch', 'operator(s) %s as used here' % ', '.join(sorted(mode_ops)),
                              'they behave differently in training mode and have no torch module equivalent here')
        graph = torch.fx.Graph()
        env = {}
        phs = dict(zip(self.names, [p for p in traced.graph.nodes if p.op == 'placeholder']))
        # a loss head's label is not needed by the forward pass: not an input of the module
        self.data_names = [n for n in self.src.data_names if phs[n].users or not n.endswith('label')]
        inputs = {name: graph.placeholder(_ident(name, self.used)) for name in self.data_names}
        for name, ph in phs.items():
            if name in inputs:
                env[ph] = inputs[name]
            elif ph.users:
                attr = _ident(name, self.used)
                self.register(self.root, attr, name)
                env[ph] = graph.get_attr(attr)
            else:
                env[ph] = None  # owned by a torch module, or unused
        for node in traced.graph.nodes:
            if node.op in ('placeholder',):
                continue
            if node.op == 'get_attr':  # constants make_fx created
                attr = _ident(node.target, self.used)
                setattr(self.root, attr, getattr(traced, node.target))
                env[node] = graph.get_attr(attr)
            elif node.op == 'call_function' and node.target is torch.ops.mxcompat_export.leaf.default:
                x, index = node.args
                name = self.leaf_module(index, x.meta['val'])
                env[node] = graph.call_module(name, (env[x],))
            elif node.op == 'output':
                outs = list(node.args[0])
                outs = [env[o] for o in outs]
                graph.output(outs[0] if len(outs) == 1 else tuple(outs))
            else:
                env[node] = graph.node_copy(node, lambda a: env[a])
        if self.heads:
            warnings.warn("to_torch: %s exported as forward only: its gradient in the exported module is autograd's "
                          "of that forward, not MXNet's loss gradient" % ', '.join(sorted(set(self.heads))),
                          stacklevel=3)
        out = torch.fx.GraphModule(self.root, graph, class_name='MXNetModule')
        out.graph.eliminate_dead_code()
        out.graph.lint()
        out.recompile()
        out.mxnet_names = self.mxnet_names
        out.mxnet_inputs = list(self.data_names)
        out.mxnet_input_shapes = [tuple(self.src.examples[n].shape) for n in self.data_names]
        out.mxnet_outputs = list(self.low.output_names)
        return out.eval()


def _build(src, dynamic_batch):
    shapes = {n: tuple(t.shape) for n, t in src.examples.items()}
    if dynamic_batch:
        try:
            module = _Builder(src, lower(src.sym, shapes), fake=True, dynamic=True).build()
        except _TraceError as e:
            raise MXNetError('%s (with dynamic_batch=True; the graph may need a fixed batch size)' % e) from None
        _check_other_batch(src, module)
        module.mxnet_dynamic_batch = True
        return module
    try:
        module = _Builder(src, lower(src.sym, shapes), fake=True).build()
    except _TraceError:  # an operator that needs real values (data-dependent shapes): trace on the real ones
        module = _Builder(src, lower(src.sym, shapes), fake=False).build()
    module.mxnet_dynamic_batch = False
    return module


def _check_other_batch(src, module):
    """A dynamic-batch module must give mxcompat's predict-mode result for another batch size too (an operator
    whose code depends on the batch size would have been traced for the example's only)."""
    grown = {n: torch.cat([t, t[:1]]) if t.dim() else t for n, t in src.examples.items()}
    low = lower(src.sym, {n: tuple(t.shape) for n, t in grown.items()})
    feed = [grown[n] if n in grown else src.values[n].clone() for n in low.arg_names + low.aux_names]
    saved = _ag.STATE.training
    _ag.STATE.training = False
    try:
        with torch.no_grad():
            want = low.graph_module(*feed)
            got = module(*[grown[n] for n in module.mxnet_inputs])
    except Exception as e:  # noqa: BLE001 -- reported as the reason dynamic_batch is refused
        raise MXNetError('to_torch: dynamic_batch=True: the traced graph fails for another batch size (%s)'
                         % str(e).splitlines()[0]) from None
    finally:
        _ag.STATE.training = saved
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got):
        if w.shape != g.shape or not torch.allclose(w, g, rtol=1e-4, atol=1e-5, equal_nan=True):
            raise MXNetError('to_torch: dynamic_batch=True: the graph depends on the batch size; export with a '
                             'fixed batch size (dynamic_batch=False)')


def to_torch(block_or_symbol, example_inputs=None, data_names=None, arg_params=None, aux_params=None,
             dynamic_batch=False):
    """A self-contained ``torch.fx.GraphModule`` computing ``block_or_symbol`` (mxcompat only).

    Accepts a HybridBlock (including SymbolBlock), a bound Executor or Module, or a Symbol with ``arg_params``/
    ``aux_params``. ``example_inputs`` (arrays, one per input; a dict by name for symbols) fix the traced shapes:
    the module accepts inputs of those shapes only, or with ``dynamic_batch=True`` any size of their first axis
    (checked once against mxcompat with a larger batch; refused when the graph depends on the batch size).
    Parameters become ``nn.Parameter``s named after MXNet's; BatchNorm and Dropout become ``nn.BatchNorm*d`` /
    ``nn.Dropout*`` submodules named after the MXNet layer, holding gamma/beta as ``weight``/``bias`` and the
    moving statistics as buffers (``module.mxnet_names`` maps every torch name to the MXNet one). The module is
    returned in eval mode (MXNet's predict mode); ``.train()`` selects MXNet's training behaviour.
    """
    src = _source(block_or_symbol, example_inputs, data_names, arg_params, aux_params)
    return _build(src, dynamic_batch)


# ---- a Gluon block used from PyTorch ------------------------------------------------------------------------------
def as_torch_module(block, *example_inputs):
    """``block.as_torch_module(*example_inputs)``: see :class:`GluonModule`."""
    return GluonModule(block, *example_inputs)


# ---- a PyTorch module used in Gluon -------------------------------------------------------------------------------
class _FromTensor(initializer.Initializer):
    """Initializes a Parameter with a copy of a torch tensor's value."""

    def __init__(self, tensor):
        super().__init__()
        self._tensor = tensor

    def _init_weight(self, _, arr):
        arr._t.copy_(self._tensor.detach())

    _init_bias = _init_gamma = _init_beta = _init_default = _init_weight

    def __call__(self, desc, arr):
        self._init_weight(desc, arr)

    def dumps(self):
        return '["fromtorch", {}]'

class TorchBlock(HybridBlock):
    """Any ``torch.nn.Module`` as a Gluon block (mxcompat only). Its parameters become Gluon Parameters
    (``prefix`` + the module's parameter name with ``.`` as ``_``), initialized from the module's values by
    ``initialize()`` and seen by ``collect_params`` and ``Trainer``; its buffers stay in the module. The block
    calls the module on the inputs' tensors with the Parameters' arrays substituted
    (``torch.func.functional_call``), and sets the module's train/eval mode from ``autograd``'s training
    state. It runs imperatively only: hybridizing a network containing it raises."""

    def __init__(self, module, prefix=None, params=None):
        if not isinstance(module, torch.nn.Module):
            raise MXNetTypeError('TorchBlock: expected a torch.nn.Module, got %s' % type(module).__name__)
        super().__init__(prefix=prefix, params=params)
        object.__setattr__(self, '_module', module)
        self._torch_names = {}
        with self.name_scope():
            for tname, tp in module.named_parameters():
                key = tname.replace('.', '_')
                p = self.params.get(key, shape=tuple(tp.shape), dtype=np.dtype(str(tp.dtype).split('.')[-1]),
                                    init=_FromTensor(tp), grad_req='write' if tp.requires_grad else 'null')
                self._torch_names[tname] = p
                self._reg_params[key] = p

    @property
    def module(self):
        """The wrapped ``torch.nn.Module``."""
        return self._module

    def hybridize(self, active=True, **kwargs):
        if active:
            raise unsupported('TorchBlock.hybridize', 'hybridizing a wrapped torch.nn.Module',
                              'use the torch module directly, or mxcompat.to_torch on the Gluon parts')

    def forward(self, x, *args):
        inputs = [x] + list(args)
        if not all(isinstance(a, NDArray) for a in inputs):
            raise unsupported('TorchBlock', 'symbolic inputs (hybridize)',
                              'a torch.nn.Module has no MXNet graph; keep this block imperative')
        ctx = x._ctx
        values = {tname: p.data(ctx)._t for tname, p in self._torch_names.items()}
        own = dict(self._module.named_parameters())
        with torch.no_grad():  # keep the module's own parameters pointing at the Gluon arrays (the Trainer's)
            for tname, t in values.items():
                if own[tname].data_ptr() != t.data_ptr():
                    own[tname].data = t.detach()
        self._module.train(_ag.STATE.training)
        out = torch.func.functional_call(self._module, values, tuple(a._t for a in inputs))
        if isinstance(out, torch.Tensor):
            return _wrap(out, ctx)
        if isinstance(out, (list, tuple)):
            return type(out)(_wrap(o, ctx) if isinstance(o, torch.Tensor) else o for o in out)
        raise MXNetTypeError('TorchBlock: the module returned %s; expected tensors' % type(out).__name__)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise unsupported('TorchBlock', 'symbolic inputs (hybridize)',
                          'a torch.nn.Module has no MXNet graph; keep this block imperative')

    def __repr__(self):
        return 'TorchBlock(\n  %s\n)' % repr(self._module).replace('\n', '\n  ')
