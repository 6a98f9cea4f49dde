"""``BucketingModule``: one ``Module`` per bucket key (e.g. sequence length), all sharing parameters and optimizer.

Differs from MXNet: ``save_checkpoint`` writes each bucket's symbol as generated under a fresh ``NameManager``
(the symbol that was bound), where MXNet calls ``sym_gen`` bare, so automatic names can differ there.
``group2ctxs`` is handled as in ``Module`` (all-CPU only).
"""
import logging

import numpy as np

from ..base import MXNetAssertionError, MXNetError
from ..initializer import Uniform
from ..name import NameManager
from .base_module import BaseModule, _check_module_names
from .module import Module
from .python_module import _Checks
from ..context import Context, cpu
from .. import symbol as sym, ndarray as nd
from .._checkpoint import load_params
from .executor_group import prepare_group2ctxs

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
        ctxs = cpu() if context is None else context
        prepare_group2ctxs('mx.mod.BucketingModule', group2ctxs, [ctxs] if isinstance(ctxs, Context) else ctxs)
        self._sym_gen, self._default_bucket_key = sym_gen, default_bucket_key
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        default_sym, data_names, label_names = self._call_sym_gen(default_bucket_key)
        _check_module_names(default_sym, list(data_names or []), list(label_names or []), self._state_names,
                            self._fixed_param_names)
        # what every per-bucket Module is built with (see _new_module)
        self._context, self._work_load_list = context, work_load_list
        self._group2ctxs, self._compression_params = group2ctxs, compression_params
        self._reset_bind()
        self._monitor = self._grad_req = None
        self._params_dirty = False

    def _reset_bind(self):
        """Forget every bucket's module (used by ``bind(force_rebind=True)``)."""
        self.binded, self._buckets = False, {}
        self._curr_module = self._curr_bucket_key = None

    def _call_sym_gen(self, key):
        with NameManager():
            return self._sym_gen(key)

    def _new_module(self, key):
        """An unbound Module for bucket ``key`` from ``sym_gen``."""
        sym, data_names, label_names = self._call_sym_gen(key)
        return Module(sym, data_names, label_names, logger=self.logger, context=self._context,
                      work_load_list=self._work_load_list, fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    def _current(self):
        self._need_bound()
        return self._curr_module

    def _ready(self, optimizer=False):
        """The current bucket's module, once bound and initialised (and with an optimizer if asked)."""
        self._need_ready(optimizer=optimizer)
        return self._curr_module

    # -- properties ---------------------------------------------------------------------------------------------
    @property
    def data_names(self):
        """The current bucket's data names; before bind, those ``sym_gen`` gives for the default key."""
        return self._curr_module.data_names if self.binded else self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        default_sym = self._call_sym_gen(self._default_bucket_key)[0]
        return default_sym.list_outputs()

    data_shapes = property(lambda self: self._current().data_shapes, doc="The current bucket's data shapes.")
    label_shapes = property(lambda self: self._current().label_shapes, doc="The current bucket's label shapes.")
    output_shapes = property(lambda self: self._current().output_shapes, doc="The current bucket's outputs.")
    symbol = property(lambda self: self._current().symbol, doc="The current bucket's symbol.")

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
        if force_init or not self.params_initialized:
            self._require(self.binded, 'call bind before initializing the parameters')
            self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                          allow_missing=allow_missing, force_init=force_init,
                                          allow_extra=allow_extra)
            self.params_initialized, self._params_dirty = True, False

    def get_states(self, merge_multi_context=True):
        return self._ready().get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._ready().set_states(states, value)

    # -- binding --------------------------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req='write'):
        """Bind the default bucket (other buckets are bound on first use by ``switch_bucket``).

        Parameters already held are read out first and put back after a re-bind."""
        saved = self.get_params() if self.params_initialized else None
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self._require(shared_module is None, 'shared_module for BucketingModule is not supported')
        key = self._default_bucket_key
        self.binded, self.for_training, self.inputs_need_grad, self._grad_req = (True, for_training,
                                                                                 inputs_need_grad, grad_req)
        module = self._buckets[key] if key in self._buckets else self._new_module(key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self._buckets[key] = module
        self._curr_module, self._curr_bucket_key = module, key
        if saved is not None:
            self.set_params(*saved)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key`` current, creating and binding its module (sharing the default one's arrays)."""
        self._require(self.binded, 'call bind before switching bucket')
        known = bucket_key in self._buckets
        module = self._buckets[bucket_key] if known else self._new_module(bucket_key)
        if not module.binded:
            lead = self._curr_module
            module.bind(data_shapes, label_shapes, lead.for_training, lead.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key], grad_req=self._grad_req)
        if not known:
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module, self._curr_bucket_key = module, bucket_key

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Create the optimizer on the current bucket; every other bucket borrows it."""
        owner = self._ready()
        if self._optimizer_already_set(force_init):
            return
        owner.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for other in [m for m in self._buckets.values() if m is not owner]:
            other.borrow_optimizer(owner)
        self.optimizer_initialized = True

    # -- computation ------------------------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket ahead of time (the current bucket stays current)."""
        self._ready()
        back_to = self._curr_bucket_key
        self._switch_to_batch(data_batch).prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(back_to, None, None)

    def _switch_to_batch(self, data_batch):
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        return self._curr_module

    def forward(self, data_batch, is_train=None):
        """Switch to ``data_batch.bucket_key`` (binding it if new), then run its forward."""
        self._ready()
        self._switch_to_batch(data_batch).forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._ready().backward(out_grads=out_grads)

    def update(self):
        module = self._ready(optimizer=True)
        self._params_dirty = True
        module.update()

    def get_outputs(self, merge_multi_context=True):
        return self._ready().get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        module = self._ready()
        self._require(self.inputs_need_grad, 'bind with inputs_need_grad=True to get input gradients')
        return module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._ready().update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install ``mon`` on every bucket's executors, including buckets bound later."""
        self._need_bound()
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    # -- checkpoints --------------------------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """Write ``prefix-%04d.params``, ``prefix-<key>-symbol.json`` per bucket and ``prefix.buckets`` (int32 keys)."""
        keys = list(self._buckets)
        self._require(bool(keys), 'Empty BucketingModule cannot be saved')
        self.save_params('%s-%04d.params' % (prefix, epoch))
        for key in keys:
            self._call_sym_gen(key)[0].save('%s-%s-symbol.json' % (prefix, key), remove_amp_cast=remove_amp_cast)
        nd.save('%s.buckets' % prefix, nd.array(keys, dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from ``save_checkpoint``'s files; bind it before use."""
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
