"""``BaseModule``: the training loop (``fit``), ``score``, ``predict`` and ``iter_predict`` shared by modules."""
import logging
import time
import warnings

from ..base import MXNetError, _as_list
from ..model import BatchEndParam


def _check_input_names(symbol, names, typename, throw):
    """MXNet's check that data/label names are arguments of the symbol."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith('_weight') and not a.endswith('_bias')
                      and not a.endswith('_gamma') and not a.endswith('_beta')]
        msg = ('You created Module with Module(..., %s_names=%s) but input with name \'%s\' is not found in '
               'symbol.list_arguments(). Did you mean one of:\n\t%s'
               % (typename, str(names), name, '\n\t'.join(candidates)))
        if throw:
            raise MXNetError(msg)
        logging.warning(msg)


class BaseModule:
    """The module interface; ``Module`` implements it for one symbol on one or more contexts."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- loops --------------------------------------------------------------------------------------------------
    def forward_backward(self, data_batch):
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None):
        """Evaluate ``eval_metric`` over ``eval_data``; returns its (name, value) pairs."""
        from .. import metric as _metric
        self._check_ready()
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        done = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            self._update_metric_from(eval_metric, batch)
            _call_all(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
            done += 1
        _call_all(score_end_callback, BatchEndParam(epoch, done, eval_metric, locals()))
        return eval_metric.get_name_value()

    def _update_metric_from(self, eval_metric, batch):
        if isinstance(batch, list):
            self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
        else:
            self.update_metric(eval_metric, batch.label)

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield (outputs without padding, batch index, batch) for each batch."""
        self._check_ready()
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            yield [o[0:o.shape[0] - pad] for o in self.get_outputs()], nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None):
        """Outputs over ``eval_data``: concatenated per output (``merge_batches``), or a list per batch."""
        from .. import ndarray as nd
        from ..ndarray.ndarray import NDArray
        if isinstance(eval_data, (NDArray, __import__('numpy').ndarray)):
            from ..io import NDArrayIter
            eval_data = NDArrayIter(eval_data, batch_size=self.data_shapes[0][1][0] if self.binded
                                    else eval_data.shape[0])
        per_batch = [[o.copy() for o in outs]
                     for outs, _, _ in self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not per_batch:
            return per_batch
        if not merge_batches:
            return per_batch
        n = len(per_batch[0])
        if any(len(b) != n for b in per_batch):
            raise MXNetError('Cannot merge batches, as num of outputs is not the same in mini-batches. '
                             'Maybe bucketing is used?')
        merged = [nd.concatenate([b[i] for b in per_batch]) for i in range(n)]
        if n == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
            eval_end_callback=None, eval_batch_end_callback=None, initializer=None, arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0,
            num_epoch=None, validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """Train for ``num_epoch`` epochs over ``train_data`` (MXNet's loop, logging and callbacks)."""
        from .. import metric as _metric
        from ..initializer import Uniform
        if num_epoch is None:
            raise MXNetError('please specify number of epochs')
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label, for_training=True,
                  force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer if initializer is not None else Uniform(0.01),
                         arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            batches = iter(train_data)
            try:
                upcoming = next(batches)
            except StopIteration:
                upcoming = None
            last = upcoming is None
            name_values = []
            while not last:
                batch = upcoming
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(batch)
                self.update()
                self._update_metric_from(eval_metric, batch)
                try:
                    upcoming = next(batches)
                    self.prepare(upcoming, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    last = True
                if monitor is not None:
                    monitor.toc_print()
                if last:
                    name_values = eval_metric.get_global_name_value()
                _call_all(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
                nbatch += 1
            for name, val in name_values:
                self.logger.info('Epoch[%d] Train-%s=%f', epoch, name, val)
            self.logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)
            arg_params_, aux_params_ = self.get_params()
            self.set_params(arg_params_, aux_params_)
            for cb in _as_list(epoch_end_callback) if epoch_end_callback is not None else ():
                cb(epoch, self.symbol, arg_params_, aux_params_)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info('Epoch[%d] Validation-%s=%f', epoch, name, val)
            train_data.reset()

    def _check_ready(self):
        if not (self.binded and self.params_initialized):
            raise MXNetError('Module is not ready: call bind() and init_params() first')

    # -- interface the subclasses fill -------------------------------------------------------------------------
    @property
    def symbol(self):
        return self._symbol

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Nothing to prepare for dense parameters (row_sparse pulls are not supported)."""
        if sparse_row_id_fn is not None:
            from ..base import unsupported
            raise unsupported('Module.prepare', 'sparse_row_id_fn', 'sparse parameters are not supported')

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Assign parameter values: through ``init_params`` when every value is required, else through the
        module's ``_assign_params`` (unless already initialised and not ``force_init``)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. set_params call ignored.',
                          stacklevel=2)
            return
        self._assign_params(arg_params, aux_params, force_init, allow_extra)

    def _assign_params(self, arg_params, aux_params, force_init, allow_extra):
        """Assign possibly incomplete parameters; modules without their own way go through ``init_params``."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params, allow_missing=True,
                         force_init=force_init, allow_extra=allow_extra)

    def save_params(self, fname):
        """Save parameters with MXNet's ``arg:``/``aux:`` keys."""
        from ..model import save_params
        save_params(fname, *self.get_params())

    def load_params(self, fname):
        """Load parameters saved by ``save_params`` (or by MXNet)."""
        from .. import ndarray as nd
        save_dict = nd.load(fname)
        arg_params, aux_params = {}, {}
        for k, value in save_dict.items():
            arg_type, _, name = k.partition(':')
            if arg_type == 'arg':
                arg_params[name] = value
            elif arg_type == 'aux':
                aux_params[name] = value
            else:
                raise MXNetError('Invalid param file ' + fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        return []

    def set_states(self, states=None, value=None):
        pass


def _call_all(callbacks, param):
    if callbacks is None:
        return
    for cb in _as_list(callbacks):
        cb(param)
