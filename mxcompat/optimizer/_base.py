"""The ``Optimizer`` base class, the optimizer registry (``register``/``create``) and the ``Test`` optimizer.

Same attributes, defaults and bookkeeping as MXNet 1.9.1 (so optimizers pickled by MXNet load here). Differs from
MXNet: the warning printed when ``learning_rate`` overrides the scheduler's ``base_lr`` is a ``UserWarning``.
"""
import functools
import warnings

import numpy as np
import torch

from .. import _memory
from ..base import MXNetValueError, MXNetTypeError, incompatible_attr
from ..registry import add_class
from ..ndarray import sparse as _sparse
from ..ndarray.sparse.updates import lazy_rows  # noqa: F401  (the optimizers import it from here)
from ..ndarray.ndarray import NDArray
from ..autograd import _without_grad
from ..operator import optimizer_updates as _ops

__all__ = ['Optimizer', 'register', 'create', 'Test']


def inplace(fn):
    """Run ``fn`` with torch's gradient recording off (weights may be leaves that require grad); cheaper than
    ``torch.no_grad()`` as a decorator."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        return _without_grad(fn, *args, **kwargs)
    return run


def zeros_state(weight, dtype=None, stype='default'):
    """A zero NDArray shaped like ``weight`` on its context (its dtype unless ``dtype``), of storage ``stype``
    (MXNet gives several optimizers' states the weight's storage type)."""
    if stype != 'default':
        return _sparse.zeros(stype, weight.shape, ctx=weight._ctx, dtype=weight.dtype if dtype is None else dtype)
    t = weight._t
    return NDArray._from_tensor(_memory.zeros(t.shape, t.dtype if dtype is None else dtype, t.device), weight._ctx)


_SPARSE = _sparse.BaseSparseNDArray


def is_rsp(x):
    """Whether ``x`` is a row_sparse NDArray."""
    return isinstance(x, _sparse.RowSparseNDArray)


def check_arrays(opt, weights, grads):
    """MXNet's checks on the arrays of an update: NDArrays (AssertionError, as MXNet) and equal shapes
    (MXNetValueError), and floating-point weights for the rules whose MXNet update is a fused operator taking
    those only (MXNetTypeError naming the operator and dtype). Returns whether any array is sparse (rules without a
    sparse form then update the dense values, as MXNet's storage fallback does)."""
    sparse = False
    for w, g in zip(weights, grads):
        if type(w) is NDArray and type(g) is NDArray and w._t.shape == g._t.shape and w._t.is_floating_point():
            continue  # (the common case, checked first)
        if not isinstance(w, NDArray) or not isinstance(g, NDArray):
            raise AssertionError('%s.update: weight and grad must be NDArrays, got %s and %s'
                                 % (type(opt).__name__, type(w).__name__, type(g).__name__))
        if isinstance(w, _SPARSE) or isinstance(g, _SPARSE):
            sparse = True
            same = w.shape == g.shape  # (without building the dense values)
        else:
            same = w._t.shape == g._t.shape
        if not same:
            raise incompatible_attr('%s.update' % type(opt).__name__, 1, list(w.shape), list(g.shape),
                                    MXNetValueError, ' (weight and grad shapes differ)')
        if not np.issubdtype(w.dtype, np.floating):
            err = opt._integer_weight_error(w)
            if err is not None:
                raise err
    return sparse


def incompatible_dtypes(opt, op, index, expected, got):
    """MXNet's type-inference error for an update whose float32 state meets an integer weight or gradient."""
    return incompatible_attr('%s (%s.update)' % (op, type(opt).__name__), index, np.dtype(expected).name,
                             np.dtype(got).name, note=' (the optimizer\'s states are float32)')


def preprocess_grad(opt, g, w=None, wd=0.0):
    """MXNet's NDArray-level gradient preprocessing: ``g * rescale_grad`` (``+ wd * w`` when ``w`` is given), then
    clipped when ``clip_gradient`` is not None (the fused kernels instead clip only when it is truthy). Returns a
    new tensor."""
    g = g * opt.rescale_grad
    if w is not None:
        g = g + wd * w
    if opt.clip_gradient is not None:
        g = g.clamp_(-opt.clip_gradient, opt.clip_gradient)
    return g


def begin_update(opt, index, weight, grad):
    """Check the arrays, count the update, and return ``(lr, wd)`` for ``index``."""
    check_arrays(opt, (weight,), (grad,))
    opt._update_count(index)
    return opt._get_lr(index), opt._get_wd(index)


def mp_warning(name):
    warnings.warn('Accumulating with float16 in optimizer can lead to poor accuracy or slow convergence. '
                  'Consider using multi_precision=True option of the %s optimizer' % name)


class Optimizer:
    """Base class of the optimizers: learning rate (or ``lr_scheduler``), weight decay, gradient rescaling and
    clipping, per-parameter multipliers (``set_lr_mult``/``set_wd_mult``, ``param_dict``, or ``__lr_mult__`` /
    ``__wd_mult__`` attributes of ``sym``), update counting, and float32 master weights for float16 parameters
    (``multi_precision``)."""

    opt_registry = {}

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None and lr_scheduler.base_lr != learning_rate:
            # MXNet prints the warning object to stdout rather than raising it through ``warnings``
            print(UserWarning('learning rate from ``lr_scheduler`` has been overwritten by '
                              '``learning_rate`` in optimizer.'))
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise AssertionError('param_idx2name should be a dict of param indexes to names.')
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- registry -------------------------------------------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Register an Optimizer subclass under its lower-cased class name (for ``create``)."""
        if not isinstance(klass, type):
            raise AssertionError('register expects a class, got %r' % (klass,))
        return add_class(Optimizer.opt_registry, klass, 'optimizer')

    @staticmethod
    def create_optimizer(name, **kwargs):
        """Instantiate the optimizer registered as ``name`` (case-insensitive) with ``kwargs``."""
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is None:
            raise MXNetValueError('Cannot find optimizer %s' % name)
        return klass(**kwargs)

    # -- learning rate ---------------------------------------------------------------------------------------------
    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate; raises ``UserWarning`` (as MXNet) when an ``lr_scheduler`` is in use."""
        if self.lr_scheduler is not None:
            raise UserWarning('LRScheduler of the optimizer has already been defined. Note that set_learning_rate '
                              'can mutate the value of the learning rate of the optimizer only when the '
                              'LRScheduler of the optimizer is undefined.')
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """Deprecated in MXNet: raises ``DeprecationWarning``; use ``set_lr_mult``."""
        raise DeprecationWarning

    def _sym_mults(self, key):
        out = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    out[name] = float(attr[name][key])
        return out

    def set_lr_mult(self, args_lr_mult):
        """Per-parameter learning-rate multipliers, by name (with ``sym``) or index; ``__lr_mult__`` attributes of
        ``sym``'s arguments come first."""
        self.lr_mult = self._sym_mults('__lr_mult__')
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Per-parameter weight-decay multipliers; names in ``param_idx2name`` not ending in ``_weight`` or
        ``_gamma`` get 0, then ``__wd_mult__`` attributes of ``sym``, then ``args_wd_mult``."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith(('_weight', '_gamma'))}
        self.wd_mult.update(self._sym_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        """Switch the per-index update counts to those of device ``device_id``."""
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})

    def _update_count(self, index):
        """Count one more update of ``index`` (an index or a list of them) and of ``num_update``."""
        counts = self._index_update_count
        for idx in index if isinstance(index, (list, tuple)) else (index,):
            n = counts.get(idx, self.begin_num_update) + 1
            counts[idx] = n
            if n > self.num_update:
                self.num_update = n

    def _scaled(self, base, indices, kind):
        mults = self.lr_mult if kind == 'lr_mult' else self.wd_mult
        params = self.param_dict
        if not (params or mults) and type(base) is float:
            return [base] * len(indices)  # (every multiplier is 1)
        out = []
        for index in indices:
            v = base
            if params and index in params:
                v *= getattr(params[index], kind)
            elif index in mults:
                v *= mults[index]
            elif index in self.idx2name:
                v *= mults.get(self.idx2name[index], 1.0)
            out.append(v)
        return out

    def _get_lrs(self, indices):
        """Learning rates for ``indices``: the current rate times each parameter's multiplier."""
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return self._scaled(lr, indices, 'lr_mult')

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """Weight decays for ``indices``: ``wd`` times each parameter's multiplier."""
        return self._scaled(self.wd, indices, 'wd_mult')

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    # -- states and updates ---------------------------------------------------------------------------------------
    def _float_op(self):
        """The MXNet operator this rule's update runs when it takes floating-point weights only (integer weights
        then raise), else None."""
        return None

    def _integer_weight_error(self, weight):
        """The error MXNet 1.9.1's update raises for an integer ``weight``, or None where the update runs (its
        NDArray arithmetic then casts every Python scalar to the weight's dtype)."""
        op = self._float_op()
        if op is None:
            return None
        return MXNetTypeError('Operator %s (%s.update): this operation supports floating point types only, not %s '
                              '(the weight)' % (op, type(self).__name__, np.dtype(weight.dtype).name))

    def create_state(self, index, weight):
        """The auxiliary state of one weight (None here; subclasses return NDArrays or tuples of them)."""

    def create_state_multi_precision(self, index, weight):
        """``create_state``, or ``(float32 master copy, state of the copy)`` for a float16 weight with
        ``multi_precision``."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master, self.create_state(index, master))
        if weight.dtype == np.float16:
            mp_warning(type(self).__name__)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad`` and ``state``."""
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        """``update``, through the float32 master copy for float16 weights with ``multi_precision``."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            _ops.flush()  # (an update queued for a multi-tensor batch runs before the copy reads the master)
            with torch.no_grad():
                weight._t.copy_(master._t)
        else:
            self.update(index, weight, grad, state)

    # -- pickling: param_dict holds gluon Parameters and is not saved (the Trainer sets it again) ------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        del state['param_dict']
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


class AggregatedUpdates:
    """Mixin of the rules whose ``update`` also takes lists (SGD, LARS, LAMB): both entry points go to
    ``_update_impl``, with float32 master copies when the (first) weight is float16 and ``multi_precision``."""

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        w0 = weight[0] if isinstance(index, (tuple, list)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self.multi_precision and w0.dtype == np.float16)


register = Optimizer.register
create = Optimizer.create_optimizer


@register
class Test(Optimizer):
    """The test optimizer: ``weight += rescale_grad * grad`` and the state becomes a copy of the weight."""

    def create_state(self, index, weight):
        return zeros_state(weight, torch.float32)

    @inplace
    def update(self, index, weight, grad, state):
        weight._t.add_(grad._t * self.rescale_grad)
        state._t.copy_(weight._t)
