"""The two optimizers behind ``SVRGModule``: ``_SVRGOptimizer`` routes each key either to the user's optimizer or,
for the ``<param>_full`` keys that hold full gradients in the KVStore, to ``_AssignmentOptimizer``.

Both are registered (as ``_svrgoptimizer`` and ``_assignmentoptimizer``) when ``mx.contrib`` is imported.
"""
from ...base import MXNetError, MXNetTypeError
from ...optimizer import Optimizer, create, register

__all__ = ['_AssignmentOptimizer', '_SVRGOptimizer']

# the keyword arguments of Optimizer.__init__: _SVRGOptimizer keeps these for itself (and passes all to the inner one)
_BASE_PARAMS = ('rescale_grad', 'param_idx2name', 'wd', 'clip_gradient', 'learning_rate', 'lr_scheduler', 'sym',
                'begin_num_update', 'multi_precision', 'param_dict')


class _UnknownIndexError(MXNetError, KeyError):
    """An index that ``param_idx2name`` does not name (MXNet raises a bare ``KeyError``)."""

    def __str__(self):
        return str(self.args[0])


@register
class _AssignmentOptimizer(Optimizer):
    """Stores the pushed value as the weight (``weight[:] = grad``): how SVRGModule sums full gradients across
    devices and workers in a KVStore. No state, no rescaling."""

    def update(self, index, weight, grad, state):
        weight[:] = grad


@register
class _SVRGOptimizer(Optimizer):
    """Wraps ``default_optimizer`` (a name, built with every keyword given here, or an Optimizer instance, used as
    is) and an ``_AssignmentOptimizer``; ``update``/``create_state`` go to the latter for full-gradient keys.

    Differs from MXNet: a full-gradient key is a name ``P_full`` where ``P`` is itself a name in
    ``param_idx2name``; MXNet sends every name that merely contains ``"full"`` (``fullyconnected0_weight``, the
    default name of an unnamed FullyConnected layer, included) to the assignment rule, which replaces such weights
    by their gradients. An index ``param_idx2name`` does not know raises ``MXNetError`` (also a ``KeyError``)."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{k: v for k, v in kwargs.items() if k in _BASE_PARAMS})
        if isinstance(default_optimizer, str):
            self.default_opt = create(default_optimizer, **kwargs)
        elif isinstance(default_optimizer, Optimizer):
            self.default_opt = default_optimizer
        else:
            raise MXNetTypeError('_SVRGOptimizer: default_optimizer must be an optimizer name or an '
                                 'mx.optimizer.Optimizer, got %s' % type(default_optimizer).__name__)
        self.aux_opt = create(_AssignmentOptimizer.__name__)

    def _check_index(self, index):
        """The parameter name of ``index`` (an index of ``param_idx2name``, or already a name in it)."""
        names = self.idx2name
        if index in names.values():
            return index
        if index not in names:
            raise _UnknownIndexError('_SVRGOptimizer: index %r is not in param_idx2name (%s)'
                                     % (index, sorted(map(str, names.values()))))
        return names[index]

    def _rule_for(self, index):
        name = self._check_index(index)
        full = isinstance(name, str) and name.endswith('_full') and name[:-len('_full')] in self.idx2name.values()
        return self.aux_opt if full else self.default_opt

    def update(self, index, weight, grad, state):
        self._rule_for(index).update(index, weight, grad, state)

    def create_state(self, index, weight):
        return self._rule_for(index).create_state(index, weight)
