"""``Module``: a Symbol trained and run on one or more contexts (data parallel), as MXNet's ``mx.mod.Module``.

Differs from MXNet: executors run torch.fx graphs; ``group2ctxs`` (model parallelism) and sparse parameters
are not supported and raise.
"""
import logging
import warnings

from ..base import MXNetError, MXNetValueError, unsupported
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from .base_module import BaseModule, _check_input_names
from .executor_group import ExecutorGroup, _desc

__all__ = ['Module']


class Module(BaseModule):
    """A module over one Symbol. ``context`` may be a list: the batch is split across the contexts."""

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        if group2ctxs:
            raise unsupported('mx.mod.Module', 'group2ctxs', 'model parallelism over devices is not implemented')
        context = cpu() if context is None else context
        self._context = [context] if isinstance(context, Context) else list(context)
        self._work_load_list = list(work_load_list) if work_load_list else [1] * len(self._context)
        if len(self._work_load_list) != len(self._context):
            raise MXNetValueError('work_load_list must have one entry per context')
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        inputs = self._data_names + self._label_names + self._state_names
        self._param_names = [n for n in symbol.list_arguments() if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        _check_input_names(symbol, self._data_names, 'data', True)
        _check_input_names(symbol, self._label_names, 'label', False)
        _check_input_names(symbol, self._state_names, 'state', True)
        _check_input_names(symbol, self._fixed_param_names, 'fixed_param', True)
        self._compression_params = compression_params
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (and ``.states``)."""
        from ..model import load_checkpoint
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = '%s-%04d.states' % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write the symbol, the parameters and (optionally) the optimizer states in MXNet's layout."""
        self._symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
        param_name = '%s-%04d.params' % (prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = '%s-%04d.states' % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    # -- properties ---------------------------------------------------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        self._need('binded')
        return self._data_shapes

    @property
    def label_shapes(self):
        self._need('binded')
        return self._label_shapes

    @property
    def output_shapes(self):
        self._need('binded')
        return [(n, o.shape) for n, o in zip(self._output_names, self._exec_group.get_outputs())] \
            if self._exec_group.execs[0].outputs else \
            list(zip(self._output_names, self._symbol.infer_shape(**dict(self._exec_group.data_shapes +
                                                                            self._exec_group.label_shapes))[1]))

    def _need(self, *flags):
        for f in flags:
            if not getattr(self, f):
                raise MXNetError('Module: %s is required first (call %s)'
                                 % (f, {'binded': 'bind()', 'params_initialized': 'init_params()',
                                        'optimizer_initialized': 'init_optimizer()'}[f]))

    # -- parameters ---------------------------------------------------------------------------------------------
    def get_params(self):
        self._need('params_initialized')
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialise parameters: copy from ``arg_params``/``aux_params`` where given, else ``initializer``."""
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. init_params call ignored.',
                          stacklevel=2)
            return
        self._need('binded')
        attrs = self._symbol.attr_dict()

        def fill(name, arr, given):
            desc = InitDesc(name, attrs.get(name, None))
            if given is not None:
                if name in given:
                    if given[name] is not arr:
                        given[name].copyto(arr)
                    return
                if not allow_missing:
                    raise MXNetError('%s is not presented' % name)
                if initializer is not None:
                    initializer(desc, arr)
            else:
                initializer(desc, arr)

        for name, arr in sorted(self._arg_params.items()):
            fill(name, arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            fill(name, arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def _assign_params(self, arg_params, aux_params, force_init, allow_extra):
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def _sync_params_from_devices(self):
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

    # -- binding ------------------------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req='write'):
        """Allocate executors for these input shapes (DataDesc list or (name, shape) pairs)."""
        from ..ndarray import ndarray as _nd
        if force_rebind:
            self._exec_group = None
            self.binded = False
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if not for_training and inputs_need_grad:
            raise MXNetValueError('inputs_need_grad needs for_training=True')
        self._data_shapes = [_desc(d) for d in data_shapes]
        self._label_shapes = [_desc(d) for d in label_shapes] if label_shapes else None
        names = [n for n, _ in self._data_shapes]
        if names != self._data_names:
            raise MXNetValueError('Data provided by data_shapes don\'t match names specified by data_names (%s vs. %s)'
                                  % (names, self._data_names))
        shared_group = shared_module._exec_group if shared_module is not None else None
        self._exec_group = ExecutorGroup(self._symbol, self._context, self._work_load_list, data_shapes,
                                         label_shapes if label_shapes and self._label_names else None,
                                         self._param_names, for_training, inputs_need_grad, shared_group,
                                         self._fixed_param_names, grad_req, self._state_names)
        self.binded = True
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            self._arg_params = {n: _nd.zeros(b[0].shape, dtype=b[0].dtype)
                                for n, b in zip(self._param_names, self._exec_group.param_arrays)}
            self._aux_params = {n: _nd.zeros(b[0].shape, dtype=b[0].dtype)
                                for n, b in zip(self._aux_names, self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

    def reshape(self, data_shapes, label_shapes=None):
        """Re-bind for new input shapes, keeping the parameters."""
        self._need('binded')
        self._data_shapes = [_desc(d) for d in data_shapes]
        self._label_shapes = [_desc(d) for d in label_shapes] if label_shapes else None
        self._exec_group.reshape(data_shapes, label_shapes if self._label_names else None)

    # -- optimizer --------------------------------------------------------------------------------------------
    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Create the optimizer (rescale_grad = 1/batch size) and the KVStore as MXNet decides."""
        from .. import optimizer as opt
        self._need('binded', 'params_initialized')
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kv, update_on_kv = _create_kvstore(kvstore, len(self._context), self._arg_params)
        batch_size = self._exec_group.batch_size
        if kv is not None and 'dist' in kv.type and '_sync' in kv.type:
            batch_size *= kv.num_workers
        rescale_grad = 1.0 / batch_size
        n_dev = len(self._context)
        if update_on_kv:
            idx2name = dict(enumerate(self._exec_group.param_names))
        else:
            idx2name = {i * n_dev + k: n for k in range(n_dev) for i, n in enumerate(self._exec_group.param_names)}
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            optimizer_params.setdefault('rescale_grad', rescale_grad)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **optimizer_params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise MXNetValueError('optimizer must be a name or an mx.optimizer.Optimizer')
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn('Optimizer created manually outside Module but rescale_grad is not normalized to '
                              '1.0/batch_size/num_workers (%s vs. %s). Is this intended?'
                              % (optimizer.rescale_grad, rescale_grad), stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._kvstore = kv
        self._update_on_kvstore = update_on_kv
        self._updater = None
        if kv is not None:
            if self._compression_params:
                kv.set_gradient_compression(self._compression_params)
            if update_on_kv:
                kv.set_optimizer(self._optimizer)
            for idx, name in enumerate(self._param_names):
                if update_on_kv:
                    kv.broadcast(name, self._arg_params[name], out=self._exec_group.param_arrays[idx])
                else:
                    kv.init(name, self._arg_params[name])
        if not update_on_kv:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        self._need('optimizer_initialized')
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            from .._fileio import write_atomic
            write_atomic(fname, [self._updater.get_states()], 'save optimizer states')

    def load_optimizer_states(self, fname):
        self._need('optimizer_initialized')
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
        else:
            from .._fileio import read_all
            self._updater.set_states(read_all(fname, 'load optimizer states'))

    # -- computation ------------------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run forward on one batch; re-binds first if its shapes differ from the bound ones."""
        self._need('binded', 'params_initialized')
        cur = tuple(s for _, s in self._data_shapes)
        new = tuple(tuple(d.shape) for d in data_batch.data)
        if cur != new:
            provided = getattr(data_batch, 'provide_data', None)
            dshapes = provided if provided else [(n, s) for (n, _), s in zip(self._data_shapes, new)]
            lshapes = getattr(data_batch, 'provide_label', None)
            if not lshapes and self._label_shapes and data_batch.label:
                lshapes = [(n, tuple(l.shape)) for (n, _), l in zip(self._label_shapes, data_batch.label)]
            self.reshape(dshapes, lshapes or None)
        self._exec_group.forward(data_batch, self.for_training if is_train is None else is_train)

    def backward(self, out_grads=None):
        self._need('binded', 'params_initialized')
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply the optimizer to every parameter (through the KVStore when it holds the optimizer)."""
        self._need('binded', 'params_initialized', 'optimizer_initialized')
        self._params_dirty = True
        params, grads, names = self._exec_group.param_arrays, self._exec_group.grad_arrays, self._param_names
        if self._update_on_kvstore:
            for i, (ws, gs) in enumerate(zip(params, grads)):
                if gs[0] is None:
                    continue
                self._kvstore.pushpull(names[i], gs, out=ws, priority=-i)
            return
        n_dev = len(self._context)
        per_dev = [[] for _ in range(n_dev)]
        for i, (ws, gs) in enumerate(zip(params, grads)):
            if gs[0] is None:
                continue
            if self._kvstore is not None:
                self._kvstore.pushpull(names[i], gs, priority=-i)
            for k, (w, g) in enumerate(zip(ws, gs)):
                per_dev[k].append((i * n_dev + k, g, w))
        for upd in per_dev:
            if upd:
                idx, g, w = zip(*upd)
                self._updater(list(idx), list(g), list(w))

    def get_outputs(self, merge_multi_context=True):
        self._need('binded', 'params_initialized')
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._need('binded', 'params_initialized')
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._need('binded')
        self._exec_group.install_monitor(mon)

    def get_states(self, merge_multi_context=True):
        if self._state_names:
            raise unsupported('Module.get_states', 'state_names', 'stateful modules are not implemented')
        return []

    def set_states(self, states=None, value=None):
        if self._state_names:
            raise unsupported('Module.set_states', 'state_names', 'stateful modules are not implemented')


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore or None, update_on_kvstore) as MXNet chooses them."""
    import os
    update_on_kv = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None or (isinstance(kvstore, str) and num_device == 1 and 'dist' not in kvstore):
        return None, False  # one device on one machine: no store needed
    from .. import kvstore as kvs
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
        if kvstore == 'local':
            biggest = max((v.size for v in arg_params.values()), default=0)
            if biggest > 1024 * 1024 * 16:
                update_on_kv = False
    else:
        raise MXNetValueError('kvstore must be KVStore, str or None')
    return kv, update_on_kv and kv.is_capable(kvs.KVStoreBase.OPTIMIZER)

