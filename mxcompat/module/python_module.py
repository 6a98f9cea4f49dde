"""``PythonModule`` (a module written in Python, without parameters) and ``PythonLossModule``.

Differs from MXNet: ``bind`` sets ``binded`` (MXNet never does, so ``score``/``predict`` refused to run on a
bare PythonModule) and the MXNet ``assert`` checks raise ``MXNetAssertionError`` (still an ``AssertionError``).
"""
import logging

from ..base import MXNetAssertionError, MXNetError
from ..initializer import Uniform
from .base_module import BaseModule
from .. import ndarray as nd

__all__ = ['PythonModule', 'PythonLossModule']


class _Checks:
    """MXNet's order checks (bind, then init_params, then init_optimizer) for modules that delegate to others."""

    def _require(self, cond, msg):
        """MXNet's ``assert``: raises MXNetAssertionError (an AssertionError) naming the module class."""
        if not cond:
            raise MXNetAssertionError('%s: %s' % (type(self).__name__, msg))

    def _need_bound(self):
        if not self.binded:
            raise MXNetError('%s: call bind() first' % type(self).__name__)

    def _need_ready(self, optimizer=False):
        self._need_bound()
        for flag, call in (('params_initialized', 'init_params'), ('optimizer_initialized', 'init_optimizer')):
            if not getattr(self, flag) and (flag == 'params_initialized' or optimizer):
                raise MXNetError('%s: call %s() first' % (type(self).__name__, call))

    def _optimizer_already_set(self, force_init):
        """MXNet's rule: a second init_optimizer without force_init only warns."""
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return True
        return False


def _attr(name, doc):
    """A read-only property returning ``self.<name>``."""
    return property(lambda self: getattr(self, name), doc=doc)


class PythonModule(_Checks, BaseModule):
    """Base for modules computed in Python: no parameters, no optimizer. Subclasses give
    ``_compute_output_shapes``, ``forward``, ``backward``, ``get_outputs`` and ``get_input_grads``."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)

        def as_list(names):  # tuples become lists, other values are kept as given (MXNet's rule)
            return list(names) if isinstance(names, tuple) else names
        self._data_names, self._label_names = as_list(data_names), as_list(label_names)
        self._output_names = output_names
        vars(self).update(dict.fromkeys(('_data_shapes', '_label_shapes', '_output_shapes')))

    data_names = _attr('_data_names', 'Names of the data inputs.')
    output_names = _attr('_output_names', 'Names of the outputs.')
    data_shapes = _attr('_data_shapes', 'Data shapes given to bind (None before).')
    label_shapes = _attr('_label_shapes', 'Label shapes given to bind, or None.')
    output_shapes = _attr('_output_shapes', 'From _compute_output_shapes at bind time.')

    def get_params(self):
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Nothing to initialise."""

    def update(self):
        """Nothing to update."""

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """No optimizer needed."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and this module's outputs (when bound with labels)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError('PythonModule does not support presliced labels')
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req='write'):
        """Record the shapes (names must equal ``data_names``/``label_names``) and compute the output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self._require(grad_req == 'write', 'Python module only support write gradient')
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._require(len(data_shapes) == len(self._data_names) and
                 [d[0] for d in data_shapes] == list(self._data_names),
                 'PythonModule.bind: data_shapes %s do not match data_names %s' % (data_shapes, self._data_names))
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            self._require(self._label_names is not None and len(self._label_names) == len(label_shapes) and
                     [d[0] for d in label_shapes] == list(self._label_names),
                     'PythonModule.bind: label_shapes %s do not match label_names %s'
                     % (label_shapes, self._label_names))
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """The ``(name, shape)`` list of outputs, from ``self._data_shapes`` / ``self._label_shapes``."""
        raise NotImplementedError()


class PythonLossModule(PythonModule):
    """A loss as a module: the output is the input scores; ``backward`` calls ``grad_func(scores, labels)``."""

    def __init__(self, name='pyloss', data_names=('data',), label_names=('softmax_label',), logger=logging,
                 grad_func=None):
        super().__init__(data_names, label_names, [name + '_output'], logger=logger)
        for names, kind in ((data_names, 'data'), (label_names, 'label')):
            self._require(len(names) == 1, 'PythonLossModule takes one %s input' % kind)
        self._require(grad_func is None or callable(grad_func), 'grad_func must be callable')
        self._name, self._grad_func = name, grad_func
        # filled by forward / backward
        self._scores = self._labels = self._scores_grad = None

    def _compute_output_shapes(self):
        return [(self._name + '_output', self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        """Keep the scores (and, when training, the labels)."""
        self._scores = data_batch.data[0]
        training = self.for_training if is_train is None else is_train
        if training:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        self._require(merge_multi_context is True, 'PythonLossModule: merge_multi_context must be True')
        return [self._scores]

    def backward(self, out_grads=None):
        self._require(out_grads is None, 'For a loss module, out_grads should be None')
        self._require(self.for_training, 'PythonLossModule: bind with for_training=True to run backward')
        self._backward_impl()

    def _backward_impl(self):
        """The gradient of the scores: ``grad_func(scores, labels)`` (an NDArray or anything ``nd.array`` takes)."""
        if self._grad_func is None:
            raise NotImplementedError('PythonLossModule: pass grad_func or override _backward_impl')
        raw = self._grad_func(self._scores, self._labels)
        self._scores_grad = raw if isinstance(raw, nd.NDArray) else nd.array(raw)

    def get_input_grads(self, merge_multi_context=True):
        self._require(merge_multi_context is True, 'PythonLossModule: merge_multi_context must be True')
        return [self._scores_grad]

    def install_monitor(self, mon):
        raise NotImplementedError()
