"""``Module``: a Symbol trained and run on one or more contexts (data parallel), as MXNet's ``mx.mod.Module``.

Differs from MXNet: executors run torch.fx graphs; ``group2ctxs`` (model parallelism) is accepted only when
every context is a CPU (placement is then just the arrays' context label) and raises for GPU contexts.
"""
import logging
import os
import warnings

from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from .base_module import BaseModule, _check_module_names, _parse_data_desc
from .executor_group import ExecutorGroup, prepare_group2ctxs
from .._checkpoint import load_checkpoint
from ..ndarray import ndarray as _nd
from ..ndarray.ndarray import NDArray
from .._fileio import read_all, write_atomic
from .. import kvstore as kvs, optimizer as opt

__all__ = ['Module']

_STYPES = {'0': 'default', '1': 'row_sparse', '2': 'csr'}  # MXNet's storage-type enum in '__storage_type__'


class Module(BaseModule):
    """A module over one Symbol. ``context`` may be a list: the batch is split across the contexts."""

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        ctxs = cpu() if context is None else context
        self._context = [ctxs] if isinstance(ctxs, Context) else list(ctxs)
        prepare_group2ctxs('mx.mod.Module', group2ctxs, self._context)  # raises early for GPU groups
        self._group2ctxs = group2ctxs
        loads = list(work_load_list) if work_load_list else [1] * len(self._context)
        if len(loads) != len(self._context):
            raise MXNetValueError('work_load_list must have one entry per context')
        self._work_load_list = loads
        self._symbol = symbol
        self._compression_params = compression_params
        # the four name lists (None -> empty), then what the symbol's arguments leave for parameters
        named = {key: list(val or []) for key, val in (('_data_names', data_names), ('_label_names', label_names),
                                                       ('_state_names', state_names),
                                                       ('_fixed_param_names', fixed_param_names))}
        vars(self).update(named)
        _check_module_names(symbol, *named.values())
        not_params = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [arg for arg in symbol.list_arguments() if arg not in not_params]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        # nothing bound, initialised or optimised yet
        vars(self).update(dict.fromkeys(('_arg_params', '_aux_params', '_optimizer', '_kvstore', '_updater',
                                         '_update_on_kvstore', '_preload_opt_states', '_grad_req', '_exec_group',
                                         '_data_shapes', '_label_shapes')))
        self._params_dirty = False
        self._update_plan = None  # (param arrays, grad arrays, the updater calls they make): see update()

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (and ``.states``)."""
        sym, *params = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params, mod._aux_params = params
        mod.params_initialized = True
        mod._preload_opt_states = _ckpt_file(prefix, epoch, 'states') if load_optimizer_states else None
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write the symbol, the parameters and (optionally) the optimizer states in MXNet's layout."""
        self._symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
        jobs = [('params', self.save_params, 'Saved checkpoint to "%s"')]
        if save_optimizer_states:
            jobs.append(('states', self.save_optimizer_states, 'Saved optimizer state to "%s"'))
        for ext, write, note in jobs:
            target = _ckpt_file(prefix, epoch, ext)
            write(target)
            logging.info(note, target)

    # -- properties ---------------------------------------------------------------------------------------------
    data_names = property(lambda self: self._data_names, doc='Names of the data inputs.')
    label_names = property(lambda self: self._label_names, doc='Names of the label inputs.')
    output_names = property(lambda self: self._output_names, doc="The symbol's outputs.")
    data_shapes = property(lambda self: self._when_bound(self._data_shapes), doc='DataDesc list (bound only).')
    label_shapes = property(lambda self: self._when_bound(self._label_shapes), doc='DataDesc list or None.')

    @property
    def output_shapes(self):
        """(name, shape) per output: from the last forward, else inferred from the bound input shapes."""
        group = self._when_bound(self._exec_group)
        if group.execs[0].outputs:
            return [(n, o.shape) for n, o in zip(self._output_names, group.get_outputs())]
        inferred = self._symbol.infer_shape(**dict(group.data_shapes + group.label_shapes))[1]
        return list(zip(self._output_names, inferred))

    def _when_bound(self, value):
        self._need('binded')
        return value

    def _need(self, *flags):
        for f in flags:
            if not getattr(self, f):
                raise MXNetError('Module: %s is required first (call %s)'
                                 % (f, {'binded': 'bind()', 'params_initialized': 'init_params()',
                                        'optimizer_initialized': 'init_optimizer()'}[f]))

    # -- parameters ---------------------------------------------------------------------------------------------
    def get_params(self):
        """(arg_params, aux_params), refreshed from the devices after updates."""
        self._need('params_initialized')
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialise parameters: copy from ``arg_params``/``aux_params`` where given, else ``initializer``.

        A name missing from a given dict raises ``MXNetError`` (MXNet: RuntimeError) unless ``allow_missing``."""
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. init_params call ignored.',
                          stacklevel=2)
            return
        self._need('binded')
        attrs = None  # (the symbol's attributes, read when an initializer first needs them)
        for source, target in ((arg_params, self._arg_params), (aux_params, self._aux_params)):
            for name in sorted(target):
                arr = target[name]
                known = source is not None and name in source
                if known:
                    if source[name] is not arr:
                        source[name].copyto(arr)
                    continue
                if source is not None and not allow_missing:
                    raise MXNetError('%s is not presented' % name)
                if source is None or initializer is not None:
                    if attrs is None:
                        attrs = self._symbol.attr_dict()
                    initializer(InitDesc(name, attrs.get(name, None)), arr)
        self._params_dirty = False
        self.params_initialized = True
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
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self._exec_group, self.binded = None, False
        if inputs_need_grad and not for_training:
            raise MXNetValueError('inputs_need_grad needs for_training=True')
        self.for_training, self.inputs_need_grad, self._grad_req = for_training, inputs_need_grad, grad_req
        # MXNet compares sorted names; data_shapes' order is used
        self._data_shapes, self._label_shapes = _parse_data_desc(self._data_names, self._label_names,
                                                                 data_shapes, label_shapes or None)
        shared_group = None if shared_module is None else shared_module._exec_group
        group = ExecutorGroup(self._symbol, self._context, self._work_load_list, data_shapes,
                              label_shapes if label_shapes and self._label_names else None,
                              self._param_names, for_training, inputs_need_grad, shared_group,
                              self._fixed_param_names, grad_req, self._state_names, self._group2ctxs)
        self._exec_group = group
        self.binded = True
        if shared_module is None and self.params_initialized:
            group.set_params(self._arg_params, self._aux_params)
        elif shared_module is None:
            # host-side copies start at zero, shaped like the first device's arrays; a variable declared with
            # stype='row_sparse'/'csr' gets a host copy of that storage type, as MXNet's executor gives it
            attrs = self._symbol.attr_dict()

            def zeros_like(names, per_device):
                return {n: _nd.zeros(arrs[0].shape, dtype=arrs[0].dtype,
                                     stype=_STYPES.get(attrs.get(n, {}).get('__storage_type__'), 'default'))
                        for n, arrs in zip(names, per_device)}
            self._arg_params = zeros_like(self._param_names, group.param_arrays)
            self._aux_params = zeros_like(self._aux_names, group.aux_arrays)
        else:
            self._arg_params, self._aux_params = shared_module._arg_params, shared_module._aux_params
            self.params_initialized = True
            if shared_module.optimizer_initialized:
                self.borrow_optimizer(shared_module)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Check ``sparse_row_id_fn`` as MXNet does, warning where MXNet warns (parameters not updated on a
        KVStore; a named parameter not row_sparse). Differs from MXNet: every device holds its parameters whole
        (row_sparse ones too), so the rows it names need no pull."""
        if not self.binded:
            self._need('binded')
        if sparse_row_id_fn is None:
            return
        if not self._kvstore or not self._update_on_kvstore:
            warnings.warn(UserWarning('Parameters are not updated in the KVStore. No need to call sparse_row_id_fn.'))
            return
        row_ids = sparse_row_id_fn(data_batch)
        if not isinstance(row_ids, dict):
            raise MXNetAssertionError('Expected dict output from sparse_row_id_fn, got %s' % type(row_ids).__name__)
        attrs = self._symbol.attr_dict()
        for name in row_ids:
            self._exec_group.param_names.index(name)  # an unknown name raises ValueError, as MXNet's lookup
            # the declared storage type: the devices' arrays are dense here
            if _STYPES.get(attrs.get(name, {}).get('__storage_type__')) != 'row_sparse':
                warnings.warn(UserWarning("%s.stype is not 'row_sparse'. No need to perform row_sparse_pull." % name))

    def reshape(self, data_shapes, label_shapes=None):
        """Re-bind for new input shapes, keeping the parameters."""
        self._need('binded')
        self._data_shapes, self._label_shapes = _parse_data_desc(self._data_names, self._label_names,
                                                                 data_shapes, label_shapes or None)
        self._exec_group.reshape(data_shapes, label_shapes if self._label_names else None)

    # -- optimizer --------------------------------------------------------------------------------------------
    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Create the optimizer (rescale_grad = 1/batch size) and the KVStore as MXNet decides."""
        self._need('binded', 'params_initialized')
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kv, update_on_kv = _create_kvstore(kvstore, len(self._context), self._arg_params)
        rescale_grad = self._default_rescale_grad(kv)
        optimizer = self._build_optimizer(optimizer, optimizer_params, rescale_grad,
                                          self._optimizer_index(update_on_kv))
        self._optimizer, self._kvstore, self._update_on_kvstore = optimizer, kv, update_on_kv
        if kv is not None:
            self._attach_kvstore(kv, update_on_kv)
        self._updater = None if update_on_kv else opt.get_updater(optimizer)
        self.optimizer_initialized = True
        pending, self._preload_opt_states = self._preload_opt_states, None
        if pending is not None:
            self.load_optimizer_states(pending)

    def _default_rescale_grad(self, kv):
        """1 / (batch size x workers of a synchronous distributed store): gradients are sums over the batch."""
        workers = kv.num_workers if kv is not None and 'dist' in kv.type and '_sync' in kv.type else 1
        return 1.0 / (self._exec_group.batch_size * workers)

    def _optimizer_index(self, update_on_kv):
        """Optimizer index -> parameter name: one index per parameter on the store, else one per (param, device)."""
        names = self._exec_group.param_names
        if update_on_kv:
            return dict(enumerate(names))
        n_dev = len(self._context)
        return {i * n_dev + k: n for i, n in enumerate(names) for k in range(n_dev)}

    def _build_optimizer(self, optimizer, optimizer_params, rescale_grad, idx2name):
        if isinstance(optimizer, str):
            kwargs = dict(optimizer_params)
            kwargs.setdefault('rescale_grad', rescale_grad)
            return opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **kwargs)
        if not isinstance(optimizer, opt.Optimizer):
            raise MXNetValueError('optimizer must be a name or an mx.optimizer.Optimizer')
        if optimizer.rescale_grad != rescale_grad:
            warnings.warn('Optimizer created manually outside Module but rescale_grad is not normalized to '
                          '1.0/batch_size/num_workers (%s vs. %s). Is this intended?'
                          % (optimizer.rescale_grad, rescale_grad), stacklevel=3)
        if not optimizer.idx2name:
            optimizer.idx2name = dict(idx2name)
        return optimizer

    def _attach_kvstore(self, kv, update_on_kv):
        # the store either runs the optimizer (weights broadcast to the devices) or only sums gradients
        if self._compression_params:
            kv.set_gradient_compression(self._compression_params)
        if update_on_kv:
            kv.set_optimizer(self._optimizer)
            for name, dev_arrays in zip(self._param_names, self._exec_group.param_arrays):
                kv.broadcast(name, self._arg_params[name], out=dev_arrays)
        else:
            for name in self._param_names:
                kv.init(name, self._arg_params[name])

    def borrow_optimizer(self, shared_module):
        """Share ``shared_module``'s optimizer, KVStore and updater."""
        for attr in ('_optimizer', '_kvstore', '_update_on_kvstore', '_updater'):
            setattr(self, attr, getattr(shared_module, attr))
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        self._need('optimizer_initialized')
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            write_atomic(fname, [self._updater.get_states()], 'save optimizer states')

    def load_optimizer_states(self, fname):
        self._need('optimizer_initialized')
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
        else:
            self._updater.set_states(read_all(fname, 'load optimizer states'))

    # -- computation ------------------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run forward on one batch; re-binds first if its shapes differ from the bound ones."""
        if not (self.binded and self.params_initialized):
            self._need('binded', 'params_initialized')
        cur = self._data_shapes
        arrays = data_batch.data
        if len(cur) != len(arrays) or any(s != (d._t.shape if type(d) is NDArray else tuple(d.shape))
                                          for (_, s), d in zip(cur, arrays)):
            new = [tuple(d.shape) for d in arrays]
            provided = getattr(data_batch, 'provide_data', None)
            dshapes = provided if provided else [(n, s) for (n, _), s in zip(self._data_shapes, new)]
            lshapes = getattr(data_batch, 'provide_label', None)
            if not lshapes and self._label_shapes and data_batch.label:
                lshapes = [(n, tuple(l.shape)) for (n, _), l in zip(self._label_shapes, data_batch.label)]
            self.reshape(dshapes, lshapes or None)
        self._exec_group.forward(data_batch, self.for_training if is_train is None else is_train)

    def backward(self, out_grads=None):
        if not (self.binded and self.params_initialized):
            self._need('binded', 'params_initialized')
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply the optimizer to every parameter (through the KVStore when it holds the optimizer)."""
        if not (self.binded and self.params_initialized and self.optimizer_initialized):
            self._need('binded', 'params_initialized', 'optimizer_initialized')
        self._params_dirty = True
        params, grads, names = self._exec_group.param_arrays, self._exec_group.grad_arrays, self._param_names
        if self._update_on_kvstore:
            for i, (ws, gs) in enumerate(zip(params, grads)):
                if gs[0] is None:
                    continue
                self._kvstore.pushpull(names[i], gs, out=ws, priority=-i)
            return
        if self._kvstore is not None:
            for i, gs in enumerate(grads):
                if gs[0] is not None:
                    self._kvstore.pushpull(names[i], gs, priority=-i)
        plan = self._update_plan
        if plan is None or plan[0] is not params or plan[1] is not grads:
            plan = self._update_plan = (params, grads, _updater_calls(params, grads, len(self._context)))
        for idx, g, w in plan[2]:
            self._updater(list(idx), list(g), list(w))  # (fresh lists: an updater may keep or change them)

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
        """The state inputs (``state_names``) as one list of per-device arrays per state; as in MXNet 1.9.1,
        ``merge_multi_context=True`` raises."""
        self._need('binded', 'params_initialized')
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the state inputs from ``states`` (as ``get_states`` returns them, merged or per device) or fill
        them all with the scalar ``value``; exactly one of the two."""
        self._need('binded', 'params_initialized')
        self._exec_group.set_states(states, value)


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore or None, update_on_kvstore) as MXNet chooses them."""
    update_on_kv = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None or (isinstance(kvstore, str) and num_device == 1 and 'dist' not in kvstore):
        return None, False  # one device on one machine: no store needed
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
        if kvstore == 'local':
            biggest = max((v.size for v in arg_params.values()), default=0)
            if biggest > 1024 * 1024 * 16:
                update_on_kv = False
    else:
        raise MXNetTypeError('kvstore must be KVStore, str or None, got %s' % type(kvstore).__name__)
    return kv, update_on_kv and kv.is_capable(kvs.KVStoreBase.OPTIMIZER)


def _ckpt_file(prefix, epoch, ext):
    return '%s-%04d.%s' % (prefix, epoch, ext)


def _updater_calls(params, grads, n_dev):
    """The updater calls ``Module.update`` makes, one per device: ``(indices, grads, weights)`` of every parameter
    that has a gradient, index ``i * n_dev + k`` for parameter i on device k (MXNet's numbering)."""
    per_dev = [([], [], []) for _ in range(n_dev)]
    for i, (ws, gs) in enumerate(zip(params, grads)):
        if gs[0] is None:
            continue
        for k, (w, g) in enumerate(zip(ws, gs)):
            indices, dev_grads, dev_weights = per_dev[k]
            indices.append(i * n_dev + k)
            dev_grads.append(g)
            dev_weights.append(w)
    return [call for call in per_dev if call[0]]
