"""``SVRGModule``: a ``Module`` trained with stochastic variance reduced gradients (SVRG).

A second module (``_mod_aux``) keeps a snapshot of the weights, taken every ``update_freq`` epochs together with the
average gradient over the whole training set (the "full gradient"). Each update then uses
``grad(current weights, batch) - grad(snapshot, batch) + full gradient`` in place of the batch gradient.
"""
import logging
import time

from ...base import MXNetError, MXNetTypeError, MXNetValueError
from ...context import cpu
from ...initializer import Uniform
from ...module.module import Module, _create_kvstore
from ... import ndarray as nd, optimizer as opt
from .svrg_optimizer import _SVRGOptimizer

__all__ = ['SVRGModule']


class SVRGModule(Module):
    """``Module`` with SVRG updates; ``update_freq`` (a positive int) is how many epochs pass between full-gradient
    passes in ``fit``.

    As in MXNet 1.9.1: the full gradient of a pass is added onto the previous pass's average before it is averaged
    (the running sums are never cleared), the padding of the last batch is taken off the batch count, and with
    several devices and a KVStore holding the optimizer ``init_optimizer`` zeroes the weights on the devices (they
    are back after the first update; the store keeps the real ones). Differs from MXNet: see ``_SVRGOptimizer`` for
    which keys take the assignment rule; parameters without gradients (``fixed_param_names``) are left out of the
    SVRG sums (MXNet fails on them); a second ``init_optimizer`` without ``force_init`` is ignored with a warning as
    in ``Module`` (MXNet re-creates the SVRG state and fails on a KVStore)."""

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',), logger=logging, context=cpu(),
                 work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None, update_freq=None):
        spec = dict(data_names=data_names, label_names=label_names, logger=logger, context=context,
                    work_load_list=work_load_list, fixed_param_names=fixed_param_names, state_names=state_names,
                    group2ctxs=group2ctxs, compression_params=compression_params)
        super().__init__(symbol, **spec)
        if not isinstance(update_freq, int):
            raise MXNetTypeError('SVRGModule: update_freq must be an int, the number of epochs between full '
                                 'gradient passes; got %r' % (update_freq,))
        if update_freq <= 0:
            raise MXNetValueError('SVRGModule: update_freq must be a positive int, the number of epochs between '
                                  'full gradient passes; got %d' % update_freq)
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, **spec)
        self._param_dict = None  # per device: parameter name -> full gradient (set by init_optimizer)
        self._ctx_len = len(self._context)

    # -- binding: both modules ------------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req='write'):
        """Bind this module, and the snapshot module too when ``for_training``."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind, shared_module,
                     grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                               shared_module, grad_req)

    def reshape(self, data_shapes, label_shapes=None):
        """Reshape both modules (the snapshot module only if bound)."""
        super().reshape(data_shapes, label_shapes=label_shapes)
        if self._mod_aux.binded:
            self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    # -- optimizer --------------------------------------------------------------------------------------------
    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Install an ``_SVRGOptimizer`` around ``optimizer``; with a KVStore, also a ``<param>_full`` key per
        parameter where the devices' (and workers') full gradients are summed."""
        self._need('binded', 'params_initialized')
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        arg_params = self.get_params()[0]
        self._param_dict = [{name: nd.zeros(arr.shape, ctx=ctx, dtype=arr.dtype) for name, arr in arg_params.items()}
                            for ctx in self._context]
        svrg = self._create_optimizer(_SVRGOptimizer.__name__, optimizer, kvstore, optimizer_params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg, optimizer_params=optimizer_params,
                               force_init=force_init)
        if self._kvstore is None:
            return
        group = self._exec_group
        for idx, (name, on_devices) in enumerate(zip(group.param_names, group.param_arrays)):
            self._kvstore.init(name + '_full', nd.zeros(self._arg_params[name].shape))
            if self._update_on_kvstore:
                self._kvstore.pull(name + '_full', on_devices, priority=-idx)  # (MXNet 1.9.1 does this too)

    def _create_optimizer(self, optimizer, default_opt, kvstore, optimizer_params):
        """The ``optimizer`` (``_SVRGOptimizer``) around ``default_opt``, its index->name map extended by a
        ``<param>_full`` entry per parameter."""
        kv, update_on_kv = _create_kvstore(kvstore, self._ctx_len, self._arg_params)
        idx2name = self._optimizer_index(update_on_kv)
        for name in self._param_dict[0]:
            idx2name[max(idx2name, default=-1) + 1] = name + '_full'
        params = dict(optimizer_params)
        params.setdefault('rescale_grad', self._default_rescale_grad(kv))
        params.update(default_optimizer=default_opt, param_idx2name=idx2name)
        return opt.create(optimizer, **params)

    # -- computation ------------------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Forward on this module; with ``is_train=True`` also on the snapshot module."""
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        """Backward on this module, and on the snapshot module when it is bound."""
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """Replace each gradient by its SVRG form, then update as ``Module.update``."""
        self._need('binded', 'params_initialized', 'optimizer_initialized')
        self._update_svrg_gradients()
        super().update()

    def _per_param_grads(self, module):
        """(device index, parameter index, name, gradient) of ``module`` for parameters that have gradients."""
        group = module._exec_group
        for k in range(self._ctx_len):
            for i, name in enumerate(group.param_names):
                grad = group.grad_arrays[i][k]
                if grad is not None:
                    yield k, i, name, grad

    def _update_svrg_gradients(self):
        snapshot = self._mod_aux._exec_group.grad_arrays
        for k, i, name, grad in self._per_param_grads(self):
            self._svrg_grads_update_rule(grad, snapshot[i][k], self._param_dict[k][name])

    @staticmethod
    def _svrg_grads_update_rule(g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """In place: ``g_curr_batch_curr_weight - g_curr_batch_special_weight + g_special_weight_all_batch``."""
        g_curr_batch_curr_weight -= g_curr_batch_special_weight
        g_curr_batch_curr_weight += g_special_weight_all_batch
        return g_curr_batch_curr_weight

    def update_full_grads(self, train_data):
        """Snapshot the current weights into the auxiliary module and average its gradients over one pass of
        ``train_data`` (resets it first); with a KVStore, the devices' and workers' averages are combined there."""
        self._need('optimizer_initialized')
        if not self._mod_aux.binded:
            raise MXNetError('SVRGModule.update_full_grads: the module must be bound with for_training=True')
        self._mod_aux.set_params(*self.get_params())
        train_data.reset()
        nbatch, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for k, _, name, grad in self._per_param_grads(self._mod_aux):
                self._param_dict[k][name] += grad
            padding = batch.pad or 0
        if nbatch == 0:
            raise MXNetValueError('SVRGModule.update_full_grads: train_data yielded no batch')
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in self._mod_aux._exec_group.param_names:
            per_device = [self._param_dict[k][name] for k in range(self._ctx_len)]
            for avg in per_device:
                avg /= true_num_batch
            if self._kvstore:
                self._accumulate_kvstore(name, per_device)

    def _accumulate_kvstore(self, key, value):
        """Sum ``value`` (one array per device) over devices and workers in the store's ``<key>_full`` entry."""
        self._kvstore.push(key + '_full', value)
        self._kvstore._barrier()
        self._kvstore.pull(key + '_full', value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key, value):
        """Each device's full gradient becomes the summed ``value`` divided by the number of devices."""
        for k in range(self._ctx_len):
            self._param_dict[k][key] = value[k] / self._ctx_len

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """``prepare`` on both modules."""
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)

    # -- training loop -------------------------------------------------------------------------------------------
    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None, batch_end_callback=None,
            kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None, aux_params=None,
            allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0, num_epoch=None,
            validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """``Module.fit`` with a full-gradient pass (``update_full_grads``) at the start of every epoch that is a
        multiple of ``update_freq``. As MXNet's SVRGModule.fit: ``train_data`` is reset at the start of each epoch
        (not at its end), and the logged training metric is the metric's local value after the last batch."""
        train_metric, val_metric = self._fit_setup(
            train_data, eval_metric, kvstore, optimizer, optimizer_params, initializer, arg_params, aux_params,
            allow_missing, force_rebind, force_init, num_epoch, validation_metric, monitor)
        for epoch in range(begin_epoch, num_epoch):
            train_metric.reset()
            started = time.time()
            if epoch % self.update_freq == 0:
                self.update_full_grads(train_data)
            train_data.reset()
            totals = self._train_epoch(epoch, train_data, train_metric, monitor, batch_end_callback,
                                       sparse_row_id_fn, local_totals=True)
            self._end_epoch(epoch, started, totals, epoch_end_callback, eval_data, val_metric, eval_end_callback,
                            eval_batch_end_callback)
