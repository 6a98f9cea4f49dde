"""Gluon's ``Trainer``: applies an optimizer to a set of Parameters, summing gradients across contexts.

Multi-context parameters go through ``mxcompat.kvstore`` as in MXNet (gradients summed, then every copy updated
identically; by default the update runs on the kvstore). Row_sparse weights always live in a kvstore that updates
them (``row_sparse_data`` pulls their rows); row_sparse gradients are pushed and pulled key by key, as in MXNet.
Differs from MXNet: with mxcompat's own stores and dense gradients all keys go to the store in one ``pushpull``
call per step (same result; a dist store then all-reduces a few flat buffers); custom ``KVStoreBase`` stores get
one call per parameter, as in MXNet.
"""
import os

import numpy as np

from .. import kvstore as _kvstore
from .. import optimizer as opt
from ..autograd import STATE as _AG
from ..ndarray.ndarray import NDArray
from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError
from .parameter import ParameterDict, Parameter, _check

__all__ = ['Trainer']


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore or None, update_on_kvstore), as MXNet's ``model._create_kvstore`` decides them."""
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None  # one device, one machine: nothing to aggregate
        else:
            kv = _kvstore.create(kvstore)
            if kvstore == 'local':
                max_size = max(int(np.prod(p.shape)) for p in arg_params.values())
                if max_size > 1024 * 1024 * 16:
                    update_on_kvstore = False
    elif hasattr(kvstore, 'pushpull') and hasattr(kvstore, 'type'):
        kv = kvstore
    else:
        raise MXNetTypeError('kvstore must be KVStore, str or None')
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore = update_on_kvstore and kv.is_capable('optimizer')
    return kv, update_on_kvstore


def _create_sparse_kvstore(kvstore):
    """The kvstore for row_sparse weights (they are always updated on it), as MXNet's
    ``model._create_sparse_kvstore``."""
    if isinstance(kvstore, _kvstore.KVStore):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = _kvstore.create(kvstore)
    else:
        raise MXNetTypeError("Cannot create '%s' KVStore with row_sparse parameters. The type must be KVStore or "
                             "str." % kvstore)
    if not kv.is_capable(_kvstore.KVStoreBase.OPTIMIZER):
        raise MXNetAssertionError('KVStore with sparse weight requires optimizer support. However, type(kv) does not '
                                  'support optimizer. Please consider other kvstore backends (e.g. dist_device) '
                                  'instead.')
    return kv, True


def _as_param_list(params):
    """Trainer's ``params`` argument as a list: a dict gives its values in sorted-key order (as MXNet)."""
    if isinstance(params, (dict, ParameterDict)):
        params = [params[name] for name in sorted(params.keys())]
    if not isinstance(params, (list, tuple)):
        raise MXNetValueError('First argument must be a list or dict of Parameters, got %s.' % type(params))
    for item in params:
        if not isinstance(item, Parameter):
            raise MXNetValueError('First argument must be a list or dict of Parameters, got list of %s.'
                                  % type(item))
    return list(params)


def _read_bytes(fname):
    with open(fname, 'rb') as f:
        return f.read()


def _write_bytes(fname, blob):
    with open(fname, 'wb') as f:
        f.write(blob)


_STALE_MSG = ('Gradient of Parameter `%s` on context %s has not been updated by backward since last `step`. This '
              'could mean a bug in your model that made it only use a subset of the Parameters (Blocks) for this '
              'iteration. If you are intentionally only using a subset, call step with ignore_stale_grad=True to '
              'suppress this warning and skip updating of Parameters with stale gradient')


class Trainer:
    """Updates ``params`` (a ParameterDict, dict or list of Parameters) with ``optimizer`` (a name with
    ``optimizer_params``, or an Optimizer) after each ``step(batch_size)``."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device', compression_params=None,
                 update_on_kvstore=None):
        self._params = _as_param_list(params)
        self._param2idx = {param.name: pos for pos, param in enumerate(self._params)}
        for param in self._params:
            param._set_trainer(self)
        self._contains_sparse_weight = any(param._stype != 'default' for param in self._params)
        self._contains_sparse_grad = any(param._grad_stype != 'default' for param in self._params)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        # the kvstore is made lazily (first step/update), from these wishes
        self._kvstore_params = dict(kvstore=kvstore, update_on_kvstore=update_on_kvstore)
        self._kvstore = None
        self._reset_kvstore()

    def _check_contexts(self):
        if not self._params:
            return None
        per_param = [param.list_ctx() for param in self._params]
        for param, ctx, before in zip(self._params[1:], per_param[1:], per_param):
            _check(ctx == before,
                   'All Parameters must be initialized on the same set of contexts, but Parameter %s is initialized '
                   'on %s while previous Parameters are initialized on %s.' % (param.name, str(ctx), str(before)))
        return per_param[0]

    def _init_optimizer(self, optimizer, optimizer_params):
        by_index = dict(enumerate(self._params))
        if not isinstance(optimizer, opt.Optimizer):
            self._optimizer = opt.create(optimizer, param_dict=by_index, **optimizer_params)
        else:
            _check(not optimizer_params,
                   'optimizer_params must be None if optimizer is an instance of Optimizer instead of str')
            optimizer.param_dict = by_index
            self._optimizer = optimizer
        # one updater (with its own states) per context
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    def _init_params(self):
        """Put the (initialized) parameters into the kvstore; deferred ones wait for their first forward."""
        _check(self._kv_initialized, 'Cannot initialize parameters in KVStore when KVStore is not initialized.')
        kv, pending = self._kvstore, self._params_to_init
        self._params_to_init = [param for param in pending if kv and param._deferred_init]
        if not kv:
            return
        for param in pending:
            if param._deferred_init:
                continue
            copies = param._check_and_get(param._data, list)
            key = self._param2idx[param.name]
            if param._stype != 'default':
                kv.init(key, copies[0])  # row_sparse_data pulls the rows it needs
                continue
            if _AG.recording:
                # a deferred parameter finished initializing in a recorded forward pass (one that pulls row_sparse
                # rows): its copies may already be in the graph, so write them as MXNet does, without bumping
                # torch's version counters
                copies = [NDArray._from_tensor(c._t.data, c._ctx) for c in copies]
            if hasattr(kv, 'broadcast'):
                kv.broadcast(key, copies[0], copies)
                continue
            kv.init(key, copies[0])
            kv.pull(key, copies)

    def _reset_kvstore(self):
        if self._kvstore and 'dist' in self._kvstore.type:
            raise MXNetValueError('Cannot reset distributed KVStore.')
        self._kvstore = self._distributed = self._update_on_kvstore = None
        self._kv_initialized = False
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        if self._contains_sparse_weight:
            kv, on_kv = self._sparse_weight_kvstore()
        elif self._contains_sparse_grad:
            kv, on_kv = self._sparse_grad_kvstore()
        else:
            kv, on_kv = self._dense_kvstore()
        if kv and self._compression_params:
            kv.set_gradient_compression(self._compression_params)
        if kv and on_kv:
            kv.set_optimizer(self._optimizer)  # before any key is pushed
        self._kvstore = kv if kv else None
        self._update_on_kvstore = on_kv if kv else None
        self._kv_initialized = True

    def _dense_kvstore(self):
        asked = self._kvstore_params['update_on_kvstore']
        lead_ctx = self._contexts[0]
        kv, on_kv = _create_kvstore(self._kvstore_params['kvstore'], len(self._contexts),
                                    {param.name: param.data(lead_ctx) for param in self._params})
        self._distributed = bool(kv) and 'dist' in kv.type
        if self._distributed and 'async' in kv.type:
            # asynchronous training only works with the optimizer on the store
            if asked is False:
                raise MXNetValueError('Please set update_on_kvstore=True when training in async mode.')
            on_kv = True
        if asked is not None:
            on_kv = asked
        store_can_update = kv is not None and kv.is_capable('optimizer')
        if on_kv and not store_can_update:
            if asked:
                raise MXNetValueError('Please set update_on_kvstore=False when training with {}'.format(type(kv)))
            on_kv = False
        return kv, on_kv

    def _sparse_weight_kvstore(self):
        """Row_sparse weights: always a kvstore, always updating (rows are pulled before forward)."""
        kv, on_kv = _create_sparse_kvstore(self._kvstore_params['kvstore'])
        self._distributed = 'dist' in kv.type
        if self._kvstore_params['update_on_kvstore'] is False:
            raise MXNetValueError('Cannot set update_on_kvstore=False when sparse weights are present.')
        return kv, on_kv

    def _sparse_grad_kvstore(self):
        """Dense weights, some row_sparse gradients: gradients are reduced on the store and the update runs here,
        unless the store is distributed (then it must update)."""
        asked = self._kvstore_params['update_on_kvstore']
        lead_ctx = self._contexts[0]
        kv, _ = _create_kvstore(self._kvstore_params['kvstore'], len(self._contexts),
                                {param.name: param.data(lead_ctx) for param in self._params})
        self._distributed = bool(kv) and 'dist' in kv.type
        on_kv = self._distributed
        if asked is not None:
            if asked is False and self._distributed:
                raise MXNetValueError('Cannot set update_on_kvstore=False on dist kvstore when sparse gradients are '
                                      'present.')
            on_kv = asked
        if kv is not None and not isinstance(kv, _kvstore.KVStore):
            raise MXNetValueError('Cannot use {} for multi-device training with sparse gradients'.format(type(kv)))
        return kv, on_kv

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Pull the rows ``row_id`` of ``parameter`` from the kvstore into ``out`` (all of it with ``full_idx``)."""
        self._ready()
        key = self._param2idx[parameter.name]
        if full_idx and 'dist' not in self._kvstore.type:
            _check(row_id.size == out.shape[0], 'row_id must list every row of %s' % parameter.name)
            self._kvstore.pull(key, out=out, priority=-key, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(key, out=out, row_ids=row_id, priority=-key)

    def _ready(self):
        """Create the kvstore and push the parameters into it, whichever is still to do."""
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    @property
    def learning_rate(self):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning('Optimizer has to be defined before its learning rate can be accessed.')
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning('Optimizer has not been initialized yet')

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate (raises UserWarning, as MXNet, when it uses an lr_scheduler)."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning('Optimizer has to be defined before its learning rate is mutated.')
        self._optimizer.set_learning_rate(lr)

    def _check_and_rescale_grad(self, scale):
        # a distributed store that updates keeps the factor it was given first
        frozen = self._kv_initialized and self._distributed and self._update_on_kvstore
        if frozen and scale != self._optimizer.rescale_grad:
            raise UserWarning('Possible change in the `batch_size` from previous `step` detected. Optimizer '
                              'gradient normalizing factor will not change w.r.t new batch_size when '
                              'update_on_kvstore=True and when distributed kvstore is used.')
        if isinstance(scale, NDArray):
            # MXNet's update operators parse the factor from the array's text: a 0-d mx.np array (D2L's
            # trainer.step(num_tokens)) is its number, any other array is refused (here kept as the float)
            if scale.ndim != 0:
                raise MXNetError('Trainer.step: batch_size gives the optimizer attribute rescale_grad an array of '
                                 'shape %s, not a number (MXNet: "Some trailing characters could not be parsed")'
                                 % (scale.shape,))
            scale = float(scale.item())
        self._optimizer.rescale_grad = scale

    def _forbid_on_kvstore(self, api):
        _check(not (self._kvstore and self._update_on_kvstore),
               '%s() when parameters are updated on kvstore is not supported. Try setting `update_on_kvstore` '
               'to False when creating trainer.' % api)

    def step(self, batch_size, ignore_stale_grad=False):
        """One update: gradients are summed across contexts, rescaled by ``1/batch_size`` and applied.
        ``batch_size`` may be a 0-d ``mx.np`` array; differs from MXNet: the optimizer's ``rescale_grad`` then holds
        the factor as a float, where MXNet keeps the array (its operators read the number from its text)."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._ready()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum the gradients over contexts (for ``update`` called separately; needs ``update_on_kvstore=False``)."""
        self._ready()
        self._forbid_on_kvstore('allreduce_grads')
        self._allreduce_grads()

    def update(self, batch_size, ignore_stale_grad=False):
        """Apply the optimizer to the (already reduced) gradients; needs ``update_on_kvstore=False``."""
        self._ready()
        self._forbid_on_kvstore('update')
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _trained(self):
        """(index, parameter) of the parameters that take gradients."""
        return [(pos, param) for pos, param in enumerate(self._params) if param.grad_req != 'null']

    def _allreduce_grads(self):
        if not self._kvstore:
            return
        if self._contains_sparse_grad:
            self._allreduce_grads_by_key()
            return
        trained = list(self._trained())
        on_kv = self._update_on_kvstore  # then the new weights come back into the parameters' arrays
        if isinstance(self._kvstore, _kvstore.KVStore) and trained:
            # mxcompat's own stores take every key in one call (a dist store all-reduces them in a few flat
            # buffers instead of one collective per parameter); the result is the same as key by key
            keys = [pos for pos, _ in trained]
            out = {'out': [p.list_data() for _, p in trained]} if on_kv else {}
            self._kvstore.pushpull(keys, [p.list_grad() for _, p in trained], **out)
            return
        for pos, param in trained:
            out = {'out': param.list_data()} if on_kv else {}
            self._kvstore.pushpull(pos, param.list_grad(), priority=-pos, **out)

    def _allreduce_grads_by_key(self):
        """MXNet's loop: row_sparse gradients are pushed, then the dense weights (updating on the store) or the
        gradients are pulled back; row_sparse weights are pulled later, by ``row_sparse_data``."""
        kv, on_kv = self._kvstore, self._update_on_kvstore
        for pos, param in self._trained():
            grads = param.list_grad()
            if grads[0].stype == 'default':
                out = {'out': param.list_data()} if on_kv else {}
                kv.pushpull(pos, grads, priority=-pos, **out)
                continue
            kv.push(pos, grads, priority=-pos)
            if param._stype == 'default':
                kv.pull(pos, param.list_data() if on_kv else grads, priority=-pos, ignore_sparse=self._distributed)

    def _update(self, ignore_stale_grad=False):
        scaler = getattr(self, '_amp_loss_scaler', None)
        if scaler is not None and scaler.has_overflow(self._params):
            return
        on_kv = bool(self._kvstore and self._update_on_kvstore)
        batches = [([], [], []) for _ in self._updaters]  # per context: indices, gradients, weights
        for pos, param in self._trained():
            weights = param._data
            if weights is None:
                param._check_and_get(weights, list)  # raises: not initialized
            # NDArray._fresh_grad of each weight, read from its tensor directly (once)
            fresh = [getattr(w._t, '_mx_fresh_grad', False) for w in weights]
            if not ignore_stale_grad and not all(fresh):
                raise UserWarning(_STALE_MSG % (param.name, str(weights[fresh.index(False)].context)))
            if on_kv:
                continue  # as in MXNet, the freshness flags are left as they are
            grads_of = param._grad
            if grads_of is None:
                grads_of = param.list_grad()  # (raises)
            for (keys, grads, targets), weight, grad, new in zip(batches, weights, grads_of, fresh):
                if new or not ignore_stale_grad:
                    keys.append(pos)
                    grads.append(grad)
                    targets.append(weight)
                    weight._t._mx_fresh_grad = False
        if on_kv:
            return
        for updater, (keys, grads, targets) in zip(self._updaters, batches):
            if keys:
                updater(keys, grads, targets)

    def save_states(self, fname):
        """Save the optimizer states (with the optimizer) to ``fname``."""
        _check(self._optimizer is not None, 'no optimizer')
        self._ready()
        if not self._update_on_kvstore:
            _write_bytes(fname, self._updaters[0].get_states(dump_optimizer=True))
            return
        _check(not self._params_to_init,
               'Cannot save trainer states when some parameters are not yet initialized in kvstore.')
        self._kvstore.save_optimizer_states(fname, dump_optimizer=True)

    def load_states(self, fname):
        """Load optimizer states saved by ``save_states`` (here or by MXNet); ``param_dict`` is this Trainer's."""
        self._ready()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            loaded = self._kvstore._updater.optimizer
        else:
            blob = _read_bytes(fname)
            lead, *others = self._updaters
            lead.set_states(blob)
            loaded = lead.optimizer
            for updater in others:  # every context shares the lead updater's optimizer
                updater.set_states(blob)
                updater.optimizer = loaded
        loaded.param_dict = dict(enumerate(self._params))
        self._optimizer = loaded
