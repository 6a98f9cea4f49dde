"""``mx.model.FeedForward``: MXNet's pre-Module estimator (fit / predict / score / save / load / create).

Lives apart from ``model.py`` because it sits above ``module`` and ``callback`` in the layer order, which import
``model``; ``mx.model.FeedForward`` loads it on first use. The training loop is MXNet 1.9.1's
``model._train_multi_device`` over a data-parallel set of executors (``executor_manager`` there): the same
parameter draws (``initializer(name, arr)`` over the arguments, then the auxiliary states), optimizer indices,
KVStore choice, log lines and callback arguments.
"""
import logging
import time
import warnings

import numpy as np

from .base import MXNetAssertionError, MXNetTypeError, MXNetValueError, mx_real_t
from .callback import LogValidationMetricsCallback
from .context import Context, cpu
from .initializer import Uniform
from .io import DataDesc, DataIter, NDArrayIter
from ._checkpoint import BatchEndParam, load_checkpoint, save_checkpoint
from .module.executor_group import _average_into, split_batch
from .module.module import _create_kvstore, _updater_calls
from .ndarray import ndarray as _nd
from .executor import copy_into
from . import metric as _metric, optimizer as opt, symbol as _sym

__all__ = ['FeedForward']

_DEPRECATED = ('\033[91mmxnet.model.FeedForward has been deprecated. '
               'Please use mxnet.mod.Module instead.\033[0m')


def _check_arguments(symbol):
    """MXNet's check that argument and auxiliary names are unique (ValueError naming the duplicate)."""
    for names, what in ((symbol.list_arguments(), 'argument'), (symbol.list_auxiliary_states(), 'auxiliary state')):
        seen = set()
        for name in names:
            if name in seen:
                raise MXNetValueError('FeedForward: duplicated %s name "%s" (give the layers distinct names); '
                                      'arguments are %s' % (what, name, names))
            seen.add(name)


def _callbacks(cbs, *args):
    """Call one callback, each of a list, or none (``None``)."""
    for cb in cbs if isinstance(cbs, list) else [cbs] if cbs else []:
        cb(*args)


class _Devices:
    """One executor per context over slices of the batch, sharing parameter names (MXNet's executor manager);
    with ``sym_gen``, one such set per bucket key, bound on the first bucket's parameter arrays."""

    def __init__(self, symbol, ctx, train_data, param_names, work_load_list, logger, sym_gen):
        logger.info('Start training with %s', str(ctx))
        if work_load_list is None:
            work_load_list = [1] * len(ctx)
        if not isinstance(work_load_list, list) or len(work_load_list) != len(ctx):
            raise MXNetAssertionError('FeedForward.fit: work_load_list must be a list of %d numbers (one per '
                                      'context), got %r' % (len(ctx), work_load_list))
        self.ctx, self.param_names, self.sym_gen = ctx, param_names, sym_gen
        self.slices = split_batch(train_data.batch_size, work_load_list)
        self.input_shapes = [{} for _ in ctx]  # per device, the largest shape each input was bound with
        self.base = self._bind(symbol, train_data, None)
        self.buckets = {train_data.default_bucket_key: self.base} if sym_gen is not None else {}
        self.current = self.base
        execs = self.base['execs']
        self.param_arrays = [[ex.arg_dict[n] for ex in execs] for n in param_names]
        self.grad_arrays = [[ex.grad_dict.get(n) for ex in execs] for n in param_names]
        self.aux_names = symbol.list_auxiliary_states()
        self.aux_arrays = [[ex.aux_dict[n] for ex in execs] for n in self.aux_names]

    def _bind(self, symbol, data, shared):
        _check_arguments(symbol)
        inputs = list(data.provide_data) + list(data.provide_label)
        reqs = {n: 'write' if n in self.param_names else 'null' for n in symbol.list_arguments()}
        types = {d[0]: d.dtype if isinstance(d, DataDesc) else mx_real_t for d in inputs}
        execs = []
        for i, (ctx, sl) in enumerate(zip(self.ctx, self.slices)):
            shapes = {d[0]: (sl.stop - sl.start,) + tuple(d[1][1:]) for d in inputs}
            self._note_input_sizes(i, symbol, shapes)
            execs.append(symbol.simple_bind(ctx, grad_req=reqs, type_dict=types,
                                            shared_exec=shared['execs'][i] if shared else None, **shapes))
        return {'execs': execs, 'data': [d[0] for d in data.provide_data],
                'label': [d[0] for d in data.provide_label]}

    def _note_input_sizes(self, device, symbol, shapes):
        """MXNet's warning when a bucket's input is larger than any bound before it on that device (MXNet then
        allocates a new buffer; a smaller one reuses the buffer there, which MXNet 1.9.1 fails to reshape)."""
        largest = self.input_shapes[device]
        for name in symbol.list_arguments():
            shape = shapes.get(name)
            if shape is None:
                continue
            if name in largest and np.prod(shape) > np.prod(largest[name]):
                logging.warning('bucketing: data "%s" has a shape %s, which is larger than already allocated shape '
                                '%s. Need to re-allocate. Consider putting default_bucket_key to be the bucket '
                                'taking the largest input for better memory sharing.', name, shape, largest[name])
            if name not in largest or np.prod(shape) > np.prod(largest[name]):
                largest[name] = shape

    def install_monitor(self, monitor):
        if self.sym_gen is not None:
            raise NotImplementedError('Monitoring is not implemented for bucketing')
        for ex in self.base['execs']:
            monitor.install(ex)

    def set_params(self, arg_params, aux_params):
        for ex in self.base['execs']:
            ex.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params, aux_params):
        """The mean of the devices' copies (on the CPU) into the dicts, in their dtypes."""
        for names, blocks, dst in ((self.param_names, self.param_arrays, arg_params),
                                   (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                mean = _nd.empty(block[0].shape, cpu(), dtype=block[0].dtype)
                _average_into(block, mean)
                mean.astype(dst[name].dtype).copyto(dst[name])

    def load_data_batch(self, batch):
        if self.sym_gen is not None:
            key = batch.bucket_key
            if key not in self.buckets:
                self.buckets[key] = self._bind(self.sym_gen(key), batch, self.base)
            self.current = self.buckets[key]
        for names, arrays in ((self.current['data'], batch.data), (self.current['label'], batch.label)):
            for name, src in zip(names, arrays):
                if src.shape[0] != self.slices[-1].stop:
                    raise MXNetAssertionError('Batch size miss match. Expected %d, got %d (input %s)'
                                              % (self.slices[-1].stop, src.shape[0], name))
                for ex, sl in zip(self.current['execs'], self.slices):
                    part = src if len(self.slices) == 1 else src[sl]
                    copy_into(ex.arg_dict[name], part.as_in_context(ex.arg_dict[name].context))

    def forward(self, is_train=False):
        for ex in self.current['execs']:
            ex.forward(is_train=is_train)

    def backward(self):
        for ex in self.current['execs']:
            ex.backward()

    def update_metric(self, eval_metric, labels):
        for ex, sl in zip(self.current['execs'], self.slices):
            eval_metric.update([lab[sl] for lab in labels], ex.outputs)


def _update(devices, kvstore, update_on_kvstore, updater, num_device):
    """One optimizer step over all parameters, as MXNet's ``_update_params(_on_kvstore)``."""
    params, grads, names = devices.param_arrays, devices.grad_arrays, devices.param_names
    if update_on_kvstore:
        for i, (ws, gs) in enumerate(zip(params, grads)):
            if gs[0] is not None:
                kvstore.pushpull(names[i], gs, out=ws, priority=-i)
        return
    if kvstore:
        for i, gs in enumerate(grads):
            if gs[0] is not None:
                kvstore.pushpull(names[i], gs, priority=-i)
    for idx, g, w in _updater_calls(params, grads, num_device):
        updater(list(idx), list(g), list(w))


def _init_updates(executor_manager, optimizer, kvstore, update_on_kvstore, arg_params):
    """Hand the optimizer to the store or make an updater (returned); give the store the initial weights."""
    updater = None
    if update_on_kvstore:
        kvstore.set_optimizer(optimizer)
    else:
        updater = opt.get_updater(optimizer)
    if kvstore:
        for name, dev_arrays in zip(executor_manager.param_names, executor_manager.param_arrays):
            if update_on_kvstore and arg_params[name].stype == 'default':
                kvstore.broadcast(name, arg_params[name], out=dev_arrays)
            else:
                kvstore.init(name, arg_params[name])
    return updater


def _evaluate(executor_manager, epoch, eval_data, eval_metric, eval_batch_end_callback, eval_end_callback):
    """The end-of-epoch pass over eval_data with the training executors (is_train=False). The callbacks get a
    BatchEndParam whose nbatch is the batch's index, then (eval_end_callback) the number of batches."""
    eval_metric.reset()
    eval_data.reset()
    seen = 0
    for batch in eval_data:
        executor_manager.load_data_batch(batch)
        executor_manager.forward(is_train=False)
        executor_manager.update_metric(eval_metric, batch.label)
        if eval_batch_end_callback is not None:
            _callbacks(eval_batch_end_callback, BatchEndParam(epoch, seen, eval_metric, locals()))
        seen += 1
    if eval_end_callback is not None:
        _callbacks(eval_end_callback, BatchEndParam(epoch, seen, eval_metric, locals()))
    eval_data.reset()


def _epoch_batches(train_data, epoch_size, epoch, logger):
    """The batches of one training epoch: one whole pass over ``train_data`` (then reset, logged), or with
    ``epoch_size`` that many batches, passing over the iterator's end as often as needed (each end reset and
    logged) and leaving it where the count is reached for the next epoch."""
    count = 0
    while True:
        for batch in train_data:
            count += 1
            yield batch
            if epoch_size is not None and count >= epoch_size:
                return
        logger.info('Epoch[%d] Resetting Data Iterator', epoch)
        train_data.reset()
        if epoch_size is None or count >= epoch_size:
            return


def _train(symbol, ctx, param_names, arg_params, aux_params, begin_epoch, end_epoch, epoch_size, optimizer,
           kvstore, update_on_kvstore, train_data, eval_data, eval_metric, epoch_end_callback, batch_end_callback,
           logger, work_load_list, monitor, eval_end_callback, eval_batch_end_callback, sym_gen):
    """MXNet's training loop over the devices (``model._train_multi_device``)."""
    logger = logger or logging
    executor_manager = _Devices(symbol, ctx, train_data, param_names, work_load_list, logger, sym_gen)
    if monitor:
        executor_manager.install_monitor(monitor)
    executor_manager.set_params(arg_params, aux_params)
    updater = _init_updates(executor_manager, optimizer, kvstore, update_on_kvstore, arg_params)

    train_data.reset()
    for epoch in range(begin_epoch, end_epoch):
        tic = time.time()
        eval_metric.reset()
        for nbatch, data_batch in enumerate(_epoch_batches(train_data, epoch_size, epoch, logger), 1):
            executor_manager.load_data_batch(data_batch)
            if monitor is not None:
                monitor.tic()
            executor_manager.forward(is_train=True)
            executor_manager.backward()
            _update(executor_manager, kvstore, update_on_kvstore, updater, len(ctx))
            if monitor is not None:
                monitor.toc_print()
            executor_manager.update_metric(eval_metric, data_batch.label)
            if batch_end_callback is not None:
                _callbacks(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
        logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)

        if epoch_end_callback or epoch + 1 == end_epoch:
            executor_manager.copy_to(arg_params, aux_params)
        _callbacks(epoch_end_callback, epoch, symbol, arg_params, aux_params)

        if eval_data:
            _evaluate(executor_manager, epoch, eval_data, eval_metric, eval_batch_end_callback, eval_end_callback)


class FeedForward:
    """MXNet's deprecated estimator for a network with one data input and one label (warns as MXNet does).

    Differs from MXNet: it does not derive from scikit-learn's ``BaseEstimator`` (MXNet does when scikit-learn
    is installed, which only adds ``get_params``/``set_params``/``__repr__``)."""

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
                 initializer=Uniform(0.01), numpy_batch_size=128, arg_params=None, aux_params=None,
                 allow_extra_params=False, begin_epoch=0, **kwargs):
        warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
        if isinstance(symbol, _sym.Symbol):
            self.symbol, self.sym_gen = symbol, None
        elif callable(symbol):
            self.symbol, self.sym_gen = None, symbol
        else:
            raise MXNetAssertionError('FeedForward: symbol must be a Symbol or a function of the bucket key, '
                                      'got %s' % type(symbol).__name__)
        self.arg_params, self.aux_params = arg_params, aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        self.ctx = [cpu()] if ctx is None else [ctx] if isinstance(ctx, Context) else ctx
        self.num_epoch, self.epoch_size = num_epoch, epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer, self.initializer = optimizer, initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        """Reject duplicated names; with ``allow_extra_params``, drop the given parameters the symbol lacks."""
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    @staticmethod
    def _is_data_arg(name):
        return name.endswith('data') or name.endswith('label')

    def _init_params(self, inputs, overwrite=False):
        """New CPU arrays for every non-input argument and auxiliary state: the given values where present
        (unless ``overwrite``), else ``initializer(name, arr)``, arguments first, in the symbol's order."""
        inputs = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in inputs]
        shapes = {d.name: d.shape for d in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**shapes)
        arg_types, _, aux_types = self.symbol.infer_type(**{d.name: d.dtype for d in inputs})
        if arg_shapes is None or arg_types is None:
            raise MXNetValueError('FeedForward: cannot infer the parameter shapes from the inputs %s' % shapes)
        arg_names = self.symbol.list_arguments()
        param_names = [n for n in arg_names if n not in shapes]
        aux_names = self.symbol.list_auxiliary_states()
        new_args = {n: _nd.zeros(s, dtype=t) for n, s, t in zip(arg_names, arg_shapes, arg_types)
                    if n in param_names}
        new_aux = {n: _nd.zeros(s, dtype=t) for n, s, t in zip(aux_names, aux_shapes, aux_types)}
        for new, given in ((new_args, self.arg_params), (new_aux, self.aux_params)):
            for name, arr in new.items():
                if given and name in given and not overwrite:
                    arr[:] = given[name][:]
                else:
                    self.initializer(name, arr)
        self.arg_params, self.aux_params = new_args, new_aux
        return arg_names, list(param_names), aux_names

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_pred_exec'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _init_predictor(self, input_shapes, type_dict=None):
        """Bind the prediction executor on the first context (kept while the argument shapes stay the same;
        the parameters are copied in when it is bound, as in MXNet)."""
        shapes = {name: arr.shape for name, arr in self.arg_params.items()}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            if arg_shapes is None:
                raise MXNetAssertionError('FeedForward: incomplete input shapes %s' % shapes)
            if list(arg_shapes) == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(self.ctx[0], grad_req='null', type_dict=type_dict, **shapes)
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        _check_arguments(self.symbol)
        self._pred_exec = pred_exec

    def _init_iter(self, X, y, is_train):
        """A DataIter as it is; numpy/NDArray X (and y: 1-D, or 2-D with one column) as an NDArrayIter of
        ``min(len(X), numpy_batch_size)``: shuffled with roll_over for training, in order (padded) otherwise."""
        if isinstance(X, (np.ndarray, _nd.NDArray)):
            if y is None:
                if is_train:
                    raise MXNetValueError('FeedForward: y must be specified when X is numpy.ndarray')
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, _nd.NDArray)):
                raise MXNetTypeError('FeedForward: y must be ndarray when X is numpy.ndarray, got %s'
                                     % type(y).__name__)
            if X.shape[0] != y.shape[0]:
                raise MXNetValueError('FeedForward: the numbers of data points (%d) and labels (%d) are not equal'
                                      % (X.shape[0], y.shape[0]))
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise MXNetValueError('FeedForward: label must be 1D or 2D (with 2nd dimension being 1), got '
                                      'shape %s' % (y.shape,))
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return NDArrayIter(X, y, batch_size, shuffle=True, last_batch_handle='roll_over')
            return NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, DataIter):
            raise MXNetTypeError('FeedForward: X must be DataIter, NDArray or numpy.ndarray, got %s'
                                 % type(X).__name__)
        return X

    def _init_eval_iter(self, eval_data):
        """eval_data as a DataIter: one as it is, or a (data, label) pair of arrays or lists."""
        if eval_data is None:
            return eval_data
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            data, label = eval_data
            if data is None:
                raise MXNetValueError('FeedForward: Eval data is NONE')
            if label is None and isinstance(data, DataIter):
                return data
            data = np.array(data) if isinstance(data, list) else data
            label = np.array(label) if isinstance(label, list) else label
            return self._init_iter(data, label, is_train=True)
        if not isinstance(eval_data, DataIter):
            raise MXNetTypeError('FeedForward: eval_data must be a DataIter or a (data, label) pair of '
                                 'NDArray/numpy.ndarray/list, got %s' % type(eval_data).__name__)
        return eval_data

    def _prepare_predict(self, X, reset):
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        # (only the symbol's names: MXNet's simple_bind ignores the others, mxcompat's rejects them)
        known = set(self.symbol.list_arguments())
        type_dict = {name: arr.dtype for name, arr in self.arg_params.items() if name in known}
        for d in X.provide_data:
            type_dict[d[0]] = d.dtype if isinstance(d, DataDesc) else mx_real_t
        self._init_predictor(X.provide_data, type_dict)
        inputs = [self._pred_exec.arg_dict[d[0]] for d in X.provide_data]
        return X, inputs

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """Outputs (numpy; a list for several outputs) over X on the first context, the last batch's padding
        removed; with ``return_data``, also the data and labels read."""
        X, inputs = self._prepare_predict(X, reset)
        ex = self._pred_exec
        outputs = [[] for _ in ex.outputs]
        data = [[] for _ in X.provide_data] if return_data else None
        label = [[] for _ in X.provide_label] if return_data else None
        for i, batch in enumerate(X):
            for dst, src in zip(inputs, batch.data):
                copy_into(dst, src.as_in_context(dst.context))
            ex.forward(is_train=False)
            real = X.batch_size - batch.pad
            for got, out in zip(outputs, ex.outputs):
                got.append(out[0:real].asnumpy())
            if return_data:
                for got, arr in zip(data, batch.data):
                    got.append(arr[0:real].asnumpy())
                for got, arr in zip(label, batch.label):
                    got.append(arr[0:real].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break

        def joined(lists):
            arrays = [np.concatenate(x) for x in lists]
            return arrays[0] if len(arrays) == 1 else arrays

        if return_data:
            return joined(outputs), joined(data), joined(label)
        return joined(outputs)

    def score(self, X, eval_metric='acc', num_batch=None, batch_end_callback=None, reset=True):
        """``eval_metric``'s value over X (padded rows included, as in MXNet)."""
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        X, inputs = self._prepare_predict(X, reset)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            for dst, src in zip(inputs, batch.data):
                copy_into(dst, src.as_in_context(dst.context))
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _callbacks(batch_end_callback, BatchEndParam(epoch=0, nbatch=i, eval_metric=eval_metric,
                                                             locals=locals()))
        return eval_metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric='acc', epoch_end_callback=None, batch_end_callback=None,
            kvstore='local', logger=None, work_load_list=None, monitor=None,
            eval_end_callback=LogValidationMetricsCallback(), eval_batch_end_callback=None):
        """Train for epochs ``begin_epoch`` .. ``num_epoch - 1`` (MXNet's loop, logs and callbacks)."""
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        self.kwargs['sym'] = self.symbol
        _, param_names, _ = self._init_params(list(data.provide_data) + list(data.provide_label))
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        kv, update_on_kvstore = _create_kvstore(kvstore, len(self.ctx), self.arg_params)
        n_dev = len(self.ctx)
        if update_on_kvstore:
            idx2name = dict(enumerate(param_names))
        else:
            idx2name = {i * n_dev + k: n for i, n in enumerate(param_names) for k in range(n_dev)}
        self.kwargs['param_idx2name'] = idx2name
        if isinstance(self.optimizer, str):
            batch_size = data.batch_size
            if kv and 'dist' in kv.type and '_async' not in kv.type:
                batch_size *= kv.num_workers
            optimizer = opt.create(self.optimizer, rescale_grad=1.0 / batch_size, **self.kwargs)
        elif isinstance(self.optimizer, opt.Optimizer):
            optimizer = self.optimizer
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        else:
            raise MXNetTypeError('FeedForward.fit: optimizer must be a name or an mx.optimizer.Optimizer, got %s'
                                 % type(self.optimizer).__name__)
        _train(self.symbol, self.ctx, param_names, self.arg_params, self.aux_params, self.begin_epoch,
               self.num_epoch, self.epoch_size, optimizer, kv, update_on_kvstore, data, eval_data, eval_metric,
               epoch_end_callback, batch_end_callback, logger, work_load_list, monitor, eval_end_callback,
               eval_batch_end_callback, self.sym_gen)

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch defaults to ``num_epoch``), as
        ``mx.model.save_checkpoint`` writes them."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise MXNetAssertionError('FeedForward.save: give epoch (num_epoch is None)')
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward from a checkpoint (``begin_epoch=epoch``); kwargs go to the constructor."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params, begin_epoch=epoch,
                           **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
               initializer=Uniform(0.01), eval_data=None, eval_metric='acc', epoch_end_callback=None,
               batch_end_callback=None, kvstore='local', logger=None, work_load_list=None,
               eval_end_callback=LogValidationMetricsCallback(), eval_batch_end_callback=None, **kwargs):
        """Construct a FeedForward and fit it (kwargs go to the constructor)."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size, optimizer=optimizer,
                            initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric, epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger,
                  work_load_list=work_load_list, eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
