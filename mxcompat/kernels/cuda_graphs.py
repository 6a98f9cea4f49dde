"""CUDA graphs for hybridized blocks of static shapes: MXNet 1.9's ``MXNET_ENABLE_CUDA_GRAPHS=1``.

Where MXNet captures the op segments of a symbolic model or of a block hybridized with ``static_alloc=True,
static_shape=True`` on a GPU (``src/executor/cuda_graphs.h``), a :class:`GraphCache` does so for a hybridized
block's whole graph: per call signature (input shapes, dtypes and devices, which inputs want a gradient, whether
autograd records, train or predict mode) the first call runs as usual (MXNet's "run conventionally" first: it also
warms up cuBLAS and cuDNN), the second captures and replays, later ones replay. A recorded call captures the forward
and the backward (``torch.cuda.make_graphed_callables``), a call outside ``autograd.record()`` the forward alone.

What is kept as MXNet keeps it:
- off unless ``MXNET_ENABLE_CUDA_GRAPHS=1`` (MXNet's default: a graph holds its own memory per signature, and a
  block whose operators cannot be captured pays one failed capture);
- outputs are new arrays at every call (MXNet's cached op makes fresh outputs): the graph's are copied out;
- parameters, auxiliary states (BatchNorm's moving statistics) and random draws are read and written in place by
  every replay, so optimizer updates, ``set_data`` and Dropout's fresh masks are seen.

Differences: a signature whose capture fails (a host read inside an operator, an operator torch cannot capture)
runs as usual from then on, with one warning naming the block and the reason; a parameter that gets a new array
(``initialize(force_reinit=True)``, ``reset_ctx``) drops that signature's graph, captured again at its next call;
a graphed backward cannot be differentiated again (``create_graph``); at most ``MAX_SIGNATURES`` signatures are
captured per block, later ones run as usual.
"""
import os
import warnings

import torch

__all__ = ['GraphCache', 'enabled', 'MAX_SIGNATURES']

MAX_SIGNATURES = 8
_FAILED = 'failed'  # (a signature that runs as usual for good)


def enabled():
    """Whether ``MXNET_ENABLE_CUDA_GRAPHS`` asks for CUDA graphs (read when a block is hybridized)."""
    return os.environ.get('MXNET_ENABLE_CUDA_GRAPHS', '0').strip().lower() in ('1', 'true')


def _release_generators(device):
    """Puts the device's default CUDA generator back out of capture mode after a failed capture. A capture that
    torch cannot end (an invalidated stream capture) skips the generator's capture epilogue, and every later
    random draw on the device would then raise "Offset increment outside graph capture encountered unexpectedly".
    The generator goes on from the same seed and offset, on a fresh copy of its state."""
    gen = torch.cuda.default_generators[device.index if device.index is not None else torch.cuda.current_device()]
    gen.graphsafe_set_state(gen.clone_state())


class _Graph:
    """One captured signature: ``run(tensors)`` replays it; ``fixed``: (index, data pointer) of the inputs read in
    place (a parameter's array that moves invalidates the graph)."""
    __slots__ = ('run', 'fixed')

    def __init__(self, run, fixed):
        self.run, self.fixed = run, fixed


class GraphCache:
    """The captured graphs of one block. ``fixed[i]``: input ``i`` is a Parameter's array or an auxiliary state,
    captured in place; the others (data) are copied into the graph's own input buffers at each replay.
    ``captures`` counts the graphs captured so far."""

    def __init__(self, owner, fixed):
        self.owner = owner
        self.fixed = tuple(fixed)
        self.captures = 0
        self._graphs = {}
        self._warned = False

    def __call__(self, fn, tensors, recording, training):
        """``fn(*tensors)``'s outputs (a list) from this signature's graph, or None where the caller runs ``fn``
        as usual (first sight of a signature, a failed capture, not CUDA, autocast on). ``recording``: whether
        autograd records the call (its backward is then captured too); ``training``: MXNet's train mode, which
        the operators read as the graph runs."""
        if not tensors or not all(isinstance(t, torch.Tensor) and t.is_cuda for t in tensors) \
                or torch.is_autocast_enabled('cuda'):
            return None
        key = (recording, bool(training), tuple((t.shape, t.dtype, t.device, t.requires_grad) for t in tensors))
        graph = self._graphs.get(key)
        if graph is None:  # first sight: run as usual, capture at the next call
            if len(self._graphs) < MAX_SIGNATURES:
                self._graphs[key] = False
            return None
        if graph is _FAILED:
            return None
        if graph is False:
            graph = self._capture(key, fn, tensors, recording)
            if graph is None:
                return None
        for i, ptr in graph.fixed:
            if tensors[i].data_ptr() != ptr:  # a parameter got a new array: capture again next time
                self._graphs[key] = False
                return None
        return graph.run(tensors)

    def _capture(self, key, fn, tensors, recording):
        try:
            graph = (self._capture_training if recording else self._capture_inference)(fn, tensors)
        except Exception as e:  # noqa: BLE001 (any failure of capture: the signature runs as usual)
            _release_generators(tensors[0].device)
            self._graphs[key] = _FAILED
            if not self._warned:
                self._warned = True
                warnings.warn('%s: MXNET_ENABLE_CUDA_GRAPHS: this graph cannot be captured as a CUDA graph (%s: %s); '
                              'it runs without one' % (self.owner, type(e).__name__, str(e).splitlines()[0]
                                                       if str(e) else ''), stacklevel=4)
            return None
        self._graphs[key] = graph
        self.captures += 1
        return graph

    def _surface(self, tensors):
        """The graph's own inputs: the parameters' arrays themselves (as new leaves on the same memory), copies of
        the data. A parameter itself would bring its gradient accumulator, which an earlier step's graph (a loss
        still referenced) keeps alive with the stream it was made on: the captured backward would then have to wait
        on that stream, which invalidates the capture ("operation would make the legacy stream depend on a
        capturing blocking stream"). A new leaf gets its accumulator inside the capture."""
        return tuple((t.detach().requires_grad_(True) if t.requires_grad else t) if self.fixed[i]
                     else t.detach().clone().requires_grad_(t.requires_grad) for i, t in enumerate(tensors))

    def _fixed_ptrs(self, tensors):
        return tuple((i, t.data_ptr()) for i, t in enumerate(tensors) if self.fixed[i])

    def _capture_inference(self, fn, tensors):
        static = self._surface(tensors)
        graph = torch.cuda.CUDAGraph()
        torch.cuda.synchronize()
        with torch.no_grad(), torch.cuda.graph(graph):
            outs = tuple(fn(*static))
        data = [i for i in range(len(static)) if not self.fixed[i]]

        def run(tensors):
            for i in data:
                static[i].copy_(tensors[i])
            graph.replay()
            return [o.clone() for o in outs]
        return _Graph(run, self._fixed_ptrs(tensors))

    def _capture_training(self, fn, tensors):
        static = self._surface(tensors)
        # (the first, conventional call warmed up cuBLAS and cuDNN: no warm-up runs, whose BatchNorm updates and
        # random draws would otherwise happen once more)
        graphed = torch.cuda.make_graphed_callables(lambda *ts: tuple(fn(*ts)), static, num_warmup_iters=0,
                                                    allow_unused_input=True)

        def run(tensors):
            return [o.clone() for o in graphed(*tensors)]
        return _Graph(run, self._fixed_ptrs(tensors))
