"""MXNet's asynchronous engine surface on torch.

On CUDA, torch already queues kernels asynchronously on each device's current stream, which is the behaviour
MXNet's engine gave: operations return at once and reading data (``asnumpy``, ``wait_to_read``, ``waitall``)
waits. Each ``gpu(i)`` context issues work on device i's current stream; the calls here synchronize it.
On CPU every operation is synchronous, so these calls return at once. Nothing here touches CUDA unless CUDA has
been initialised, so CPU-only machines never pay for it.

Errors MXNet reports asynchronously (an operator's runtime checks, such as a random sampler's parameter checks)
are deferred the same way: the operator returns a placeholder result marked as failed (``fail``), every result
computed from it is marked with the same failure, and the error is raised by the first read of any of them
(``asnumpy``, ``wait_to_read``, printing ...) or by ``waitall``, whichever comes first; after that none of them
raises again. Unmarked tensors never reach this code: the marking is a tensor subclass whose
``__torch_function__`` runs only when a failed tensor takes part in an operation.

Differs from MXNet: the operators writing into a failed array still run (MXNet skips them and leaves garbage);
a backward pass through a failed result marks every gradient below it (MXNet: those computed from failed data);
the shared random generator (``fail``'s ``rng``) carries a failure to later samples of the samplers and Dropout
masks, as MXNet's, but not to other random draws (shuffle, initializers); an operator that reads only its input's
shape (``shape_array``, ``random.normal_like``) gives an unmarked result.
"""
import torch

__all__ = ['waitall', 'wait_tensor', 'bulk', 'set_bulk_size']


def _cuda_live():
    return torch.cuda.is_available() and torch.cuda.is_initialized()


def wait_tensor(t):
    """Block until pending work producing tensor ``t`` has finished; raise its operator's deferred error, if any."""
    if type(t) is FailedTensor:
        t._mx_failure.check()
    if t.is_cuda:
        torch.cuda.current_stream(t.device).synchronize()


def waitall():
    """Block until all pending work on every device has finished; then raise the first deferred operator error
    not raised yet, forgetting all of them (as MXNet's WaitForAll)."""
    if _cuda_live():
        for i in range(torch.cuda.device_count()):
            torch.cuda.synchronize(i)
    if _PENDING:
        first = next((f.exc for f in _PENDING if f.exc is not None), None)
        for f in _PENDING:
            f.exc = None
        del _PENDING[:]
        RNG_FAILURES.clear()
        if first is not None:
            raise first


# ---- errors raised when a result is read ----------------------------------------------------------------------------
_PENDING = []  # the Failures not raised yet, oldest first


class Failure:
    """One operator's deferred error, shared by every tensor computed from its result. Raised once: afterwards
    (``exc`` None) the tensors carrying it read normally (and turn back into plain tensors when next used)."""

    __slots__ = ('exc', 'walk')

    def __init__(self, exc):
        self.exc = exc
        self.walk = None  # during a backward pass through a result carrying it: (nodes seen, leaves, hook handles)

    def check(self):
        exc = self.exc
        if exc is not None:
            self.exc = None
            _PENDING.remove(self)
            for k in [k for k, f in RNG_FAILURES.items() if f is self]:
                del RNG_FAILURES[k]
            raise exc


def fail(t, exc, rng=None):
    """Mark ``t``, the placeholder result of an operator that failed with ``exc``, and return it: ``exc`` is raised
    when ``t`` (or anything computed from it) is read, or by ``waitall``.

    ``rng``: the torch device of the random generator a failed sampler drew from. MXNet's samplers (and Dropout)
    share one generator state per device, its engine marks that state failed too, and so every later sample on
    the device carries the same failure until it is raised (``sample_rng``); a sampler that fails meanwhile joins
    it rather than adding its own."""
    f = rng_failure(rng) if rng is not None and RNG_FAILURES else None
    if f is None:
        f = Failure(exc)
        _PENDING.append(f)
        if rng is not None:
            RNG_FAILURES[_rng_key(rng)] = f
    _mark(t, f)
    return t


RNG_FAILURES = {}  # device -> the unraised Failure its random generator carries (empty when nothing failed)


def _rng_key(dev):
    return 'cpu' if dev.type == 'cpu' else str(dev)  # (all CPU contexts share one generator, as in MXNet)


def rng_failure(dev):
    f = RNG_FAILURES.get(_rng_key(dev))
    return f if f is not None and f.exc is not None else None


def sample_rng(result):
    """Mark a sampler's ``result`` (a tensor or tuple) with the failure its device's generator carries, if any.
    Samplers call it only while ``RNG_FAILURES`` is not empty."""
    first = result[0] if isinstance(result, (list, tuple)) else result
    f = rng_failure(first.device)
    if f is not None:
        for t in (result if isinstance(result, (list, tuple)) else (result,)):
            _mark(t, f)
    return result


def taint(dst, src):
    """Mark ``dst`` with the failure ``src`` carries (writes torch does not route through ``src``: ``t[k] = src``)."""
    f = src._mx_failure
    if f.exc is not None:
        _mark(dst, f)


def _mark(t, failure):
    cls = type(t)
    if cls is not FailedTensor:
        try:
            t.__class__ = FailedTensor
        except TypeError:  # a tensor subclass of another layout (torch's fake or functional tensors): left unmarked
            return
        t._mx_class = cls
    t._mx_failure = failure


def _heal(t):
    t.__class__ = t._mx_class
    del t._mx_class, t._mx_failure


def _live_failure(args, found):
    """The first unraised Failure among the FailedTensors in ``args`` (nested lists, tuples and dicts); the
    tensors whose failure was raised already are turned back into plain tensors on the way."""
    for a in args:
        if type(a) is FailedTensor:
            f = a._mx_failure
            if f.exc is None:
                _heal(a)
            elif found is None:
                found = f
        elif isinstance(a, (list, tuple)):
            found = _live_failure(a, found)
        elif isinstance(a, dict):
            found = _live_failure(a.values(), found)
    return found


def _mark_results(r, failure, inputs):
    if isinstance(r, torch.Tensor):
        if not any(r is a for a in inputs):  # (an op handing back an unmarked input leaves it alone)
            _mark(r, failure)
            node = r.grad_fn
            if node is not None:  # (the hook holds the nodes below, not its own: no reference cycle)
                node.register_prehook(_backward_hook([m for m, _ in node.next_functions], failure))
    elif isinstance(r, (list, tuple)):
        for x in r:
            _mark_results(x, failure, inputs)


# Backward passes run in torch's C++ engine, out of __torch_function__'s reach. When one reaches the node of a
# failed result, the gradients of the variables below it are marked instead: as they are handed out (a hook on
# each variable: torch.autograd.grad's results) and where they were accumulated (``.grad``, when the pass ends).
# MXNet marks exactly the gradients computed from failed data; this marks every gradient below the failed node.
def _backward_hook(below, failure):
    def hook(grad_outputs):
        if failure.exc is None:
            return
        if failure.walk is None:
            failure.walk = (set(), [], [])
            torch.autograd.Variable._execution_engine.queue_callback(lambda: _backward_done(failure))
        seen, leaves, handles = failure.walk
        fresh = []
        _leaves_below(below, seen, fresh)
        leaves += fresh
        handles += [v.register_hook(_grad_hook(failure)) for v in fresh]
    return hook


def _leaves_below(nodes, seen, leaves):
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        v = getattr(n, 'variable', None)  # an AccumulateGrad node: the variable whose gradient it collects
        if v is not None:
            leaves.append(v)
        else:
            stack.extend(m for m, _ in n.next_functions)


def _grad_hook(failure):
    def hook(g):
        if failure.exc is None:
            return None
        g = g.view_as(g)  # (the engine may pass a caller's head gradient on unchanged: mark a view of it)
        _mark(g, failure)
        return g
    return hook


def _backward_done(failure):
    seen, leaves, handles = failure.walk
    failure.walk = None
    for h in handles:
        h.remove()
    if failure.exc is not None:
        for v in leaves:
            if v.grad is not None:
                _mark(v.grad, failure)


def _targets(func, args, kwargs):
    """The tensors an in-place or ``out=`` call writes."""
    out = kwargs.get('out')
    if out is not None:
        return out if isinstance(out, (list, tuple)) else (out,)
    name = getattr(func, '__name__', '')
    if args and (name.endswith('_') and not name.endswith('__') or name.startswith('__i') or name == '__setitem__'
                 or name in _IN_PLACE):
        a = args[0]
        return a if isinstance(a, (list, tuple)) else (a,)
    return ()


_IN_PLACE = frozenset(['set_'])
# torch calls that hand data to the host: the carried error is raised instead
_READS = frozenset(['numpy', 'item', 'tolist', '__bool__', '__float__', '__int__', '__index__', '__complex__',
                    '__array__', '__dlpack__', '__repr__', '__format__', 'equal', 'allclose', 'is_nonzero'])


class FailedTensor(torch.Tensor):
    """A tensor computed from the result of an operator whose error MXNet reports asynchronously
    (``_mx_failure``). Operations on it give FailedTensors carrying the same failure; reading its data raises it."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        failure = _live_failure(args, _live_failure(kwargs.values(), None))
        if failure is None:  # raised already: these are plain tensors again
            return func(*args, **kwargs)
        name = getattr(func, '__name__', '')
        if name in _READS:
            failure.check()
        with torch._C.DisableTorchFunctionSubclass():
            r = func(*args, **kwargs)
        if name == '__get__':  # an attribute (shape, dtype, grad ...): only the data's own views are marked
            if isinstance(r, torch.Tensor) and getattr(func.__self__, '__name__', '') in ('data', 'T', 'mT', 'H'):
                _mark(r, failure)
            return r
        for t in _targets(func, args, kwargs):
            if isinstance(t, torch.Tensor):
                _mark(t, failure)
        _mark_results(r, failure, args)
        return r


_bulk_size = 15


def set_bulk_size(size):
    """Accepted for compatibility (torch has no op bulking); returns the previous value."""
    global _bulk_size
    prev, _bulk_size = _bulk_size, int(size)
    return prev


class bulk:  # noqa: N801 (MXNet's name)
    """``with mx.engine.bulk(n):`` is accepted; torch does not bulk operations, so it has no effect."""

    def __init__(self, size):
        self._size = size
        self._old = None

    def __enter__(self):
        self._old = set_bulk_size(self._size)
        return self

    def __exit__(self, *exc):
        set_bulk_size(self._old)
