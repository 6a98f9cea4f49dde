"""``SequentialModule``: modules chained so each one's outputs are the next one's data.

Differs from MXNet: ``bind`` also records ``for_training``/``inputs_need_grad`` on the chain itself, so
``get_input_grads`` works (MXNet leaves them unset and its ``get_input_grads`` always fails its assertion).
"""
import copy
import logging

from ..base import MXNetAssertionError
from ..initializer import Uniform
from .base_module import BaseModule
from .python_module import _Checks

__all__ = ['SequentialModule']



class SequentialModule(_Checks, BaseModule):
    """A chain of modules. ``add(module, take_labels=True)`` gives that module the labels (and makes it count in
    ``update_metric``); ``auto_wiring=True`` renames the previous outputs to the module's data names."""

    META_TAKE_LABELS = 'take_labels'
    META_AUTO_WIRING = 'auto_wiring'

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module``; returns self. Un-binds the chain (bind and initialise again afterwards)."""
        for key in kwargs:
            self._require(key in self._meta_keys, 'Unknown meta "%s", a typo?' % key)
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    def _takes_labels(self, i):
        return bool(self._metas[i].get(self.META_TAKE_LABELS, False))

    # -- properties ---------------------------------------------------------------------------------------------
    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._need_bound()
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        self._need_bound()
        return self._label_shapes

    @property
    def output_shapes(self):
        self._need_bound()
        return self._modules[-1].output_shapes

    # -- parameters ---------------------------------------------------------------------------------------------
    def get_params(self):
        """The union of every module's parameters."""
        self._need_ready()
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialise every module; a parameter name used by two modules is an error."""
        if self.params_initialized and not force_init:
            return
        self._require(self.binded, 'call bind before initializing the parameters')
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                               allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        owners_arg, owners_aux = {}, {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            for owners, names in ((owners_arg, arg), (owners_aux, aux)):
                for name in names:
                    if name in owners:
                        j = owners[name]
                        raise MXNetAssertionError(
                            'Duplicated parameter names: name "%s" in layer %d (%s) is already used in layer %d '
                            '(%s).' % (name, i, type(module), j, type(self._modules[j])))
                    owners[name] = i
        self.params_initialized = True

    # -- binding ------------------------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req='write'):
        """Bind each module on the previous one's output shapes; modules after the first get input gradients."""
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if inputs_need_grad:
            self._require(for_training is True, 'inputs_need_grad needs for_training=True')
        self._require(shared_module is None, 'Shared module is not supported')
        self._require(len(self._modules) > 0, 'Attempting to bind an empty SequentialModule')
        self.binded = True
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes
        shapes = data_shapes
        anyone_takes_labels = False
        for i, module in enumerate(self._modules):
            labels = None
            if self._takes_labels(i):
                labels = label_shapes
                anyone_takes_labels = True
            if self._metas[i].get(self.META_AUTO_WIRING, False):
                names = module.data_names
                self._require(len(names) == len(shapes), 'auto_wiring: module %d takes %d inputs, the previous module '
                         'gives %d' % (i, len(names), len(shapes)))
                shapes = [(name, shape) for name, (_, shape) in zip(names, shapes)]
            module.bind(data_shapes=shapes, label_shapes=labels, for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and i > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        if not anyone_takes_labels:
            self._label_shapes = None

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """The same optimizer settings for every module (each gets its own optimizer object)."""
        self._need_ready()
        if self._optimizer_already_set(force_init):
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                                  force_init=force_init)
        self.optimizer_initialized = True

    # -- computation ------------------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Forward through the chain: a shallow copy of the batch carries each module's outputs to the next."""
        self._need_ready()
        batch = copy.copy(data_batch)
        last = len(self._modules) - 1
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i == last:
                break
            batch.data = module.get_outputs()
            if hasattr(batch, 'provide_data'):
                names = [name for name, _ in module.output_shapes]
                self._require(len(names) == len(batch.data), 'module %d gives %d outputs for %d output names'
                         % (i, len(batch.data), len(names)))
                batch.provide_data = [(name, x.shape) for name, x in zip(names, batch.data)]

    def backward(self, out_grads=None):
        """Backward from the last module; each module's input gradients are the previous one's out_grads."""
        self._need_ready()
        for i in range(len(self._modules) - 1, -1, -1):
            self._modules[i].backward(out_grads=out_grads)
            if i > 0:
                out_grads = self._modules[i].get_input_grads()

    def update(self):
        self._need_ready(optimizer=True)
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._need_ready()
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._need_ready()
        self._require(self.inputs_need_grad, 'bind with inputs_need_grad=True to get input gradients')
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` from every module added with ``take_labels=True``."""
        self._need_ready()
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._need_bound()
        for module in self._modules:
            module.install_monitor(mon)
