"""``GluonModule``: a HybridBlock as a ``torch.nn.Module`` (``Block.as_torch_module``; also
``mxcompat.interop.GluonModule``). mxcompat only. It runs the block's lowered graph, so it needs only the graph
runner, not the tracing machinery of ``mxcompat.interop``, which builds on this module.
"""
import re

import numpy as np
import torch
import torch.fx

from .. import autograd as _ag
from ..base import MXNetError, MXNetValueError, MXNetTypeError, unsupported, from_host
from ..ndarray.ndarray import NDArray
from ..symbol.lower import _ident as _lower_ident
from ..symbol.runner import lower_graph
from ._nested import _flatten

__all__ = ['GluonModule']


def _as_tensor(x):
    if isinstance(x, NDArray):
        return x._t.detach()
    if isinstance(x, torch.Tensor):
        return x.detach()
    if isinstance(x, np.ndarray):
        return from_host(x)
    raise MXNetTypeError('to_torch: example inputs must be NDArrays, torch.Tensors or numpy arrays, got %s'
                         % type(x).__name__)


def _ident(name, used):
    """A unique Python identifier for ``name`` that does not shadow a GraphModule attribute."""
    s = re.sub(r'\W', '_', name)
    if hasattr(torch.fx.GraphModule, s) or s in ('training', 'mxnet_names'):
        name = 'p_' + s
    return _lower_ident(name, used)


class GluonModule(torch.nn.Module):
    """A HybridBlock as a ``torch.nn.Module``: its Parameters appear as ``nn.Parameter``s sharing their memory
    (so ``torch.optim`` updates the block), auxiliary states as buffers. Inputs and outputs are torch tensors; the
    module's ``training`` flag selects MXNet's training mode. Runs mxcompat (it does not pickle standalone: use
    ``mxcompat.to_torch`` for that)."""

    def __init__(self, block, *example_inputs):
        super().__init__()
        if not callable(getattr(block, '_trace', None)):  # not a HybridBlock (this module is below gluon.block)
            raise unsupported('Block.as_torch_module', 'a %s (not a HybridBlock)' % type(block).__name__,
                              'only hybridizable blocks have a graph to run')
        examples = [x if isinstance(x, NDArray) else NDArray(_as_tensor(x)) for x in example_inputs]
        if examples:
            with _ag.pause():
                block(*examples)
        if block._cached_graph:
            inputs, graph = block._cached_graph
        elif examples:
            inputs, graph = block._trace(examples)
        else:
            raise MXNetValueError('as_torch_module: %s has not run yet; pass example inputs' % block.name)
        self._block_name = block.name
        low = lower_graph(graph)  # the plain graph a hybridized block runs
        self.graph_module = low.graph_module
        params = {p.name: p for p in block.collect_params().values()}
        params.update({p.name: p for is_data, p in block._cached_op_args if not is_data})
        data_pos = {s.name: i for i, s in enumerate(inputs)}
        self._slots = []
        self.mxnet_names = {}
        used = set(dir(torch.nn.Module)) | {'graph_module'}
        aux = set(low.aux_names)
        for name in low.arg_names + low.aux_names:
            if name in data_pos:
                self._slots.append((True, data_pos[name]))
                continue
            if name not in params:
                raise MXNetValueError('as_torch_module: %r is neither an input nor a Parameter' % name)
            p = params[name]
            try:
                t = p.data()._t.detach()  # shares memory with the Parameter
            except MXNetError as e:
                raise MXNetValueError('as_torch_module: Parameter %r is not initialized (%s); initialize the '
                                      'block and pass example inputs' % (name, str(e).splitlines()[0])) from None
            attr = _ident(name, used)
            if name in aux:
                self.register_buffer(attr, t)
            else:
                self.register_parameter(attr, torch.nn.Parameter(t, requires_grad=p.grad_req != 'null'))
            self.mxnet_names[attr] = name
            self._slots.append((False, attr))
        self._n_inputs = len(inputs)

    def forward(self, *inputs):
        flat = [x for x in _flatten([NDArray(t) if isinstance(t, torch.Tensor) else t for t in inputs],
                                    'input')[0] if x is not None]
        if len(flat) != self._n_inputs:
            raise MXNetValueError('%s (as torch module): expected %d inputs, got %d'
                                  % (self._block_name, self._n_inputs, len(flat)))
        tensors = [flat[v]._t if is_data else getattr(self, v) for is_data, v in self._slots]
        state = _ag.STATE
        saved = state.training, state.torch_grads
        state.training, state.torch_grads = self.training, True  # torch's autograd may differentiate this run
        try:
            outs = self.graph_module(*tensors)
        finally:
            state.training, state.torch_grads = saved
        return outs[0] if len(outs) == 1 else tuple(outs)
