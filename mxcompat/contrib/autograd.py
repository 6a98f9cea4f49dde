"""``mx.contrib.autograd``: MXNet's first autograd API (``train_section``, ``compute_gradient``, ``grad_and_loss``),
kept for old scripts; the same machinery as ``mx.autograd``."""
import functools

from .. import autograd as _ag
from ..base import MXNetTypeError
from ..ndarray.ndarray import NDArray, _wrap

__all__ = ['set_is_training', 'TrainingStateScope', 'train_section', 'test_section', 'mark_variables', 'backward',
           'compute_gradient', 'grad_and_loss', 'grad']


def set_is_training(is_train):
    """Turn training mode and recording on or off together; returns the previous state."""
    prev = _ag.set_training(is_train)
    _ag.set_recording(is_train)
    return prev


class TrainingStateScope:
    """``with`` block in which training (and recording) is ``enter_state``."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._scope = None

    def __enter__(self):
        self._scope = _ag._Scope(self._enter_state, self._enter_state)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)


def train_section():
    """Record and train inside the block."""
    return TrainingStateScope(True)


def test_section():
    """Neither record nor train inside the block."""
    return TrainingStateScope(False)


mark_variables = _ag.mark_variables


def backward(outputs, out_grads=None, retain_graph=False):
    """Gradients of a list of outputs into the marked variables."""
    if not isinstance(outputs, (list, tuple)):
        raise MXNetTypeError('outputs must be a list or tuple of NDArrays')
    _ag.backward(list(outputs), out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """``backward(outputs)``."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wrap ``func`` to return (gradients of the chosen arguments, its outputs)."""

    @functools.wraps(func)
    def wrapped(*args):
        picks = range(len(args)) if argnum is None else (argnum if isinstance(argnum, list) else [argnum])
        chosen = [args[i] for i in picks]
        if any(not isinstance(x, NDArray) for x in chosen):
            raise MXNetTypeError('type of autograd input should NDArray.')
        grads = [_wrap(x._t.new_zeros(x._t.shape), x._ctx) for x in chosen]
        mark_variables(chosen, grads)
        with train_section():
            outputs = func(*args)
            compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap ``func`` to return the gradients of the chosen arguments."""
    both = grad_and_loss(func, argnum)

    @functools.wraps(func)
    def wrapped(*args):
        return both(*args)[0]
    return wrapped
