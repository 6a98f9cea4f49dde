"""``BucketingModule``: one ``Module`` per bucket key (e.g. sequence length), all sharing parameters and optimizer.

Differs from MXNet: ``save_checkpoint`` writes each bucket's symbol as generated under a fresh ``NameManager``
(the symbol that was bound), where MXNet calls ``sym_gen`` bare, so automatic names can differ there.
``group2ctxs`` raises, as in ``Module``.
"""
import logging

import numpy as np

from ..base import MXNetAssertionError, MXNetError, unsupported
from ..initializer import Uniform
from ..name import NameManager
from .base_module import BaseModule, _check_input_names
from .module import Module
from .python_module import _Checks

__all__ = ['BucketingModule']


def _load_require(cond, msg):
    if not cond:
        raise MXNetAssertionError('BucketingModule: ' + msg)


class BucketingModule(_Checks, BaseModule):
    """Switches between per-bucket ``Module`` s; ``sym_gen(key)`` returns ``(symbol, data_names, label_names)``.

    Every bucket is bound with the default bucket's module as ``shared_module``: same parameter arrays, same
    optimizer and updater states. The batch's ``bucket_key`` picks the bucket in ``forward``.
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None, work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        self._require(default_bucket_key is not None, 'default_bucket_key is required')
        if group2ctxs:
            raise unsupported('mx.mod.BucketingModule', 'group2ctxs',
                              'model parallelism over devices is not implemented')
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._fixed_param_names = list(fixed_param_names or [])
        self._state_names = list(state_names or [])
        _check_input_names(symbol, list(data_names or []), 'data', True)
        _check_input_names(symbol, list(label_names or []), 'label', False)
        _check_input_names(symbol, self._state_names, 'state', True)
        _check_input_names(symbol, self._fixed_param_names, 'fixed_param', True)
        self._compression_params = compression_params
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _call_sym_gen(self, key):
        with NameManager():
            return self._sym_gen(key)

    def _new_module(self, symbol, data_names, label_names, **kwargs):
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      work_load_list=self._work_load_list, fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params, **kwargs)

    # -- properties ---------------------------------------------------------------------------------------------
    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        return self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        self._need_bound()
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._need_bound()
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._need_bound()
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The current bucket's symbol."""
        self._need_bound()
        return self._curr_module.symbol

    # -- parameters ---------------------------------------------------------------------------------------------
    def get_params(self):
        if not self.params_initialized:
            raise MXNetError('BucketingModule: call init_params() first')
        mod = self._curr_module
        mod._params_dirty = self._params_dirty
        if mod.binded:
            params = mod.get_params()
        else:  # loaded from a checkpoint and not bound yet: the loaded values are the parameters
            params = mod._arg_params, mod._aux_params
        self._params_dirty = False
        return params

    def _assign_params(self, arg_params, aux_params, force_init, allow_extra):
        self._curr_module.set_params(arg_params, aux_params, allow_missing=True, force_init=force_init,
                                     allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialise the (shared) parameters through the current bucket's module."""
        if self.params_initialized and not force_init:
            return
        self._require(self.binded, 'call bind before initializing the parameters')
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                      allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        self._need_ready()
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._need_ready()
        self._curr_module.set_states(states, value)

    # -- binding --------------------------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req='write'):
        """Bind the default bucket (other buckets are bound on first use by ``switch_bucket``)."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self._require(shared_module is None, 'shared_module for BucketingModule is not supported')
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        module = self._buckets.get(self._default_bucket_key)
        if module is None:
            symbol, data_names, label_names = self._call_sym_gen(self._default_bucket_key)
            module = self._new_module(symbol, data_names, label_names)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key`` current, creating and binding its module (sharing the default one's arrays)."""
        self._require(self.binded, 'call bind before switching bucket')
        module = self._buckets.get(bucket_key)
        if module is None:
            symbol, data_names, label_names = self._call_sym_gen(bucket_key)
            module = self._new_module(symbol, data_names, label_names)
            self._bind_shared(module, data_shapes, label_shapes)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        elif not module.binded:
            self._bind_shared(module, data_shapes, label_shapes)
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    def _bind_shared(self, module, data_shapes, label_shapes):
        module.bind(data_shapes, label_shapes, self._curr_module.for_training, self._curr_module.inputs_need_grad,
                    force_rebind=False, shared_module=self._buckets[self._default_bucket_key],
                    grad_req=self._grad_req)

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Create the optimizer on the current bucket; every other bucket borrows it."""
        self._need_ready()
        if self._optimizer_already_set(force_init):
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    # -- computation ------------------------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket ahead of time (the current bucket stays current)."""
        self._need_ready()
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to ``data_batch.bucket_key`` (binding it if new), then run its forward."""
        self._need_ready()
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._need_ready()
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        self._need_ready(optimizer=True)
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._need_ready()
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._need_ready()
        self._require(self.inputs_need_grad, 'bind with inputs_need_grad=True to get input gradients')
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._need_ready()
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install ``mon`` on every bucket's executors, including buckets bound later."""
        self._need_bound()
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    # -- checkpoints --------------------------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """Write ``prefix-%04d.params``, ``prefix-<key>-symbol.json`` per bucket and ``prefix.buckets`` (int32 keys)."""
        from .. import ndarray as nd
        self._require(len(self._buckets) > 0, 'Empty BucketingModule cannot be saved')
        self.save_params('%s-%04d.params' % (prefix, epoch))
        for key in self._buckets:
            symbol = self._call_sym_gen(key)[0]
            symbol.save('%s-%s-symbol.json' % (prefix, key), remove_amp_cast=remove_amp_cast)
        nd.save('%s.buckets' % prefix, nd.array(list(self._buckets.keys()), dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from ``save_checkpoint``'s files; bind it before use."""
        from .. import ndarray as nd
        from .. import symbol as sym
        from ..model import load_params
        _load_require(sym_gen is not None, 'sym_gen is required for loading BucketingModule')
        _load_require(default_bucket_key is not None, 'default_bucket_key is required for loading BucketingModule')
        keys = [int(k) for k in nd.load('%s.buckets' % prefix)[0].asnumpy().astype('int32')]
        symbols = {k: sym.load('%s-%s-symbol.json' % (prefix, k)) for k in keys}
        arg_params, aux_params = load_params(prefix, epoch)
        return BucketingModule._from_symbols(symbols, sym_gen, default_bucket_key, arg_params, aux_params,
                                             lambda key: key, kwargs)

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None, aux_params=None,
                  **kwargs):
        """A BucketingModule from ``{bucket_key: symbol}`` and shared parameter dicts; bind it before use.

        As in MXNet, every bucket takes its data/label names from ``sym_gen(default_bucket_key)``.
        """
        _load_require(sym_dict is not None, 'sym_dict needs to be provided for BucketingModule.load_dict')
        _load_require(arg_params is not None, 'arg_params need to be provided for BucketingModule.load_dict')
        _load_require(aux_params is not None, 'aux_params need to be provided for BucketingModule.load_dict')
        _load_require(default_bucket_key is not None,
                 'default_bucket_key needs to be provided for BucketingModule.load_dict')
        return BucketingModule._from_symbols(sym_dict, sym_gen, default_bucket_key, arg_params, aux_params,
                                             lambda key: default_bucket_key, kwargs)

    @staticmethod
    def _from_symbols(symbols, sym_gen, default_bucket_key, arg_params, aux_params, names_key, kwargs):
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key, symbol in symbols.items():
            _, data_names, label_names = sym_gen(names_key(key))
            mod._buckets[key] = Module(symbol, data_names, label_names, **kwargs)
            if key == default_bucket_key:
                mod._curr_module = mod._buckets[key]
        if mod._curr_module is None:
            raise MXNetError('BucketingModule: default_bucket_key %r is not among the saved buckets %s'
                             % (default_bucket_key, list(symbols)))
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod
