"""Gluon's ``Trainer``: applies an optimizer to a set of Parameters, summing gradients across contexts.

Multi-context parameters go through ``mxcompat.kvstore`` as in MXNet (gradients summed, then every copy updated
identically; by default the update runs on the kvstore). Differs from MXNet: while ``mxcompat.kvstore`` cannot be
imported, a small in-process stand-in (``_LocalKVStore``) does the same summing and updating for
``'local'``/``'device'`` stores; ``'dist_*'`` stores then raise. Sparse parameters are not supported.
"""
import importlib
import os

import numpy as np
import torch

from .. import optimizer as opt
from ..base import MXNetTypeError, MXNetValueError, unsupported
from .parameter import ParameterDict, Parameter, _check

__all__ = ['Trainer']


class _LocalKVStore:
    """Stand-in for ``kv.create('local'|'device')`` on one machine: init/broadcast, pushpull (gradients summed
    over the given arrays), and updates on the store when an optimizer is set."""

    OPTIMIZER = 'optimizer'

    def __init__(self, kvtype):
        self.type = kvtype
        self._store = {}
        self._updater = None
        self.rank = 0
        self.num_workers = 1

    def is_capable(self, capability):
        return capability == self.OPTIMIZER

    def set_gradient_compression(self, compression_params):
        raise unsupported('Trainer', 'compression_params', 'gradient compression needs mxcompat.kvstore')

    def set_optimizer(self, optimizer):
        self._updater = opt.get_updater(optimizer)

    def broadcast(self, key, value, out):
        with torch.no_grad():
            self._store[key] = value._t.detach().clone()
            for o in out:
                o._t.copy_(self._store[key])

    def pushpull(self, key, value, out=None, priority=0):
        with torch.no_grad():
            total = value[0]._t.detach().clone()
            for v in value[1:]:
                total.add_(v._t.to(total.device))
            if out is None:
                for v in value:
                    v._t.copy_(total)
                return
            from ..ndarray.ndarray import NDArray
            stored = self._store[key]
            w = NDArray._from_tensor(stored, value[0]._ctx)
            self._updater(key, NDArray._from_tensor(total, value[0]._ctx), w)
            for o in out:
                o._t.copy_(stored)

    def save_optimizer_states(self, fname, dump_optimizer=False):
        with open(fname, 'wb') as f:
            f.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        with open(fname, 'rb') as f:
            self._updater.set_states(f.read())


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore or None, update_on_kvstore), as MXNet's ``model._create_kvstore`` decides them."""
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None  # one device, one machine: nothing to aggregate
        else:
            try:
                kvs = importlib.import_module('mxcompat.kvstore')
                kv = kvs.create(kvstore)
            except ModuleNotFoundError as e:
                if e.name != 'mxcompat.kvstore' or 'dist' in kvstore:
                    raise
                kv = _LocalKVStore(kvstore)
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


class Trainer:
    """Updates ``params`` (a ParameterDict, dict or list of Parameters) with ``optimizer`` (a name with
    ``optimizer_params``, or an Optimizer) after each ``step(batch_size)``."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device', compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[k] for k in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise MXNetValueError('First argument must be a list or dict of Parameters, got %s.' % type(params))
        self._params = []
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise MXNetValueError('First argument must be a list or dict of Parameters, got list of %s.'
                                      % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            _check(contexts is None or contexts == ctx,
                   'All Parameters must be initialized on the same set of contexts, but Parameter %s is initialized '
                   'on %s while previous Parameters are initialized on %s.' % (param.name, str(ctx), str(contexts)))
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = {i: p for i, p in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            _check(not optimizer_params,
                   'optimizer_params must be None if optimizer is an instance of Optimizer instead of str')
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    def _init_params(self):
        """Put the (initialized) parameters into the kvstore; deferred ones wait for their first forward."""
        _check(self._kv_initialized, 'Cannot initialize parameters in KVStore when KVStore is not initialized.')
        waiting = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    waiting.append(param)
                    continue
                arrays = param._check_and_get(param._data, list)
                idx = self._param2idx[param.name]
                if hasattr(self._kvstore, 'broadcast'):
                    self._kvstore.broadcast(idx, arrays[0], arrays)
                else:
                    self._kvstore.init(idx, arrays[0])
                    self._kvstore.pull(idx, arrays)
        self._params_to_init = waiting

    def _reset_kvstore(self):
        if self._kvstore and 'dist' in self._kvstore.type:
            raise MXNetValueError('Cannot reset distributed KVStore.')
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        config = self._kvstore_params
        arg_arrays = {p.name: p.data(self._contexts[0]) for p in self._params}
        kvstore, update_on_kvstore = _create_kvstore(config['kvstore'], len(self._contexts), arg_arrays)
        self._distributed = 'dist' in kvstore.type if kvstore else False
        if self._distributed and 'async' in kvstore.type:
            update_on_kvstore = True
            if config['update_on_kvstore'] is False:
                raise MXNetValueError('Please set update_on_kvstore=True when training in async mode.')
        if config['update_on_kvstore'] is not None:
            update_on_kvstore = config['update_on_kvstore']
        if update_on_kvstore and (kvstore is None or not kvstore.is_capable('optimizer')):
            if config['update_on_kvstore']:
                raise MXNetValueError('Please set update_on_kvstore=False when training with {}'
                                      .format(type(kvstore)))
            update_on_kvstore = False
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _ready(self):
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
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning('Possible change in the `batch_size` from previous `step` detected. Optimizer '
                                  'gradient normalizing factor will not change w.r.t new batch_size when '
                                  'update_on_kvstore=True and when distributed kvstore is used.')
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One update: gradients are summed across contexts, rescaled by ``1/batch_size`` and applied."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._ready()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum the gradients over contexts (for ``update`` called separately; needs ``update_on_kvstore=False``)."""
        self._ready()
        _check(not (self._kvstore and self._update_on_kvstore),
               'allreduce_grads() when parameters are updated on kvstore is not supported. Try setting '
               '`update_on_kvstore` to False when creating trainer.')
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            return
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            if self._update_on_kvstore:
                self._kvstore.pushpull(i, param.list_grad(), out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, param.list_grad(), priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """Apply the optimizer to the (already reduced) gradients; needs ``update_on_kvstore=False``."""
        self._ready()
        _check(not (self._kvstore and self._update_on_kvstore),
               'update() when parameters are updated on kvstore is not supported. Try setting `update_on_kvstore` '
               'to False when creating trainer.')
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        scaler = getattr(self, '_amp_loss_scaler', None)
        if scaler is not None and scaler.has_overflow(self._params):
            return
        on_kv = self._kvstore and self._update_on_kvstore
        updates = [[] for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            data = param._check_and_get(param._data, list)
            if not ignore_stale_grad:
                for arr in data:
                    if not arr._fresh_grad:
                        raise UserWarning(
                            'Gradient of Parameter `%s` on context %s has not been updated by backward since last '
                            '`step`. This could mean a bug in your model that made it only use a subset of the '
                            'Parameters (Blocks) for this iteration. If you are intentionally only using a subset, '
                            'call step with ignore_stale_grad=True to suppress this warning and skip updating of '
                            'Parameters with stale gradient' % (param.name, str(arr.context)))
            if on_kv:
                continue  # as in MXNet, the freshness flags are left as they are
            for upd, arr, grad in zip(updates, data, param.list_grad()):
                if not ignore_stale_grad or arr._fresh_grad:
                    upd.append((i, grad, arr))
                    arr._fresh_grad = False
        if on_kv:
            return
        for updater, upd in zip(self._updaters, updates):
            if upd:
                idx, grads, weights = zip(*upd)
                updater(list(idx), list(grads), list(weights))

    def save_states(self, fname):
        """Save the optimizer states (with the optimizer) to ``fname``."""
        _check(self._optimizer is not None, 'no optimizer')
        self._ready()
        if self._update_on_kvstore:
            _check(not self._params_to_init,
                   'Cannot save trainer states when some parameters are not yet initialized in kvstore.')
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            with open(fname, 'wb') as f:
                f.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Load optimizer states saved by ``save_states`` (here or by MXNet)."""
        self._ready()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, 'rb') as f:
                states = f.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: p for i, p in enumerate(self._params)}
