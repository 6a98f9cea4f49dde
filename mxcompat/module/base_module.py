"""``BaseModule``: the training loop (``fit``), ``score``, ``predict`` and ``iter_predict`` shared by modules."""
import logging
import time
import warnings

from ..base import MXNetError, MXNetValueError, _as_list
from .._checkpoint import BatchEndParam, save_params
from ..ndarray.ndarray import NDArray
from ..io import NDArrayIter
from ..initializer import Uniform
from .. import metric as _metric, ndarray as nd
from .executor_group import _desc


_PARAM_SUFFIXES = ('_weight', '_bias', '_gamma', '_beta')


def _check_input_names(symbol, names, typename, throw):
    """Every name in ``names`` must be an argument of ``symbol``: raise ``MXNetValueError`` (``throw``) or warn
    (``warnings.warn``), listing the non-parameter arguments, as MXNet."""
    args = symbol.list_arguments()
    missing = [name for name in names if name not in args]
    if not missing:
        return
    hint = '\n\t'.join(a for a in args if not a.endswith(_PARAM_SUFFIXES))
    for name in missing:
        msg = ("You created Module with Module(..., %s_names=%s) but input with name '%s' is not found in "
               'symbol.list_arguments(). Did you mean one of:\n\t%s' % (typename, str(names), name, hint))
        if throw:
            raise MXNetValueError(msg)
        warnings.warn(msg)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """``bind``/``reshape``'s inputs as DataDescs. Data names must match ``data_names`` (sorted; else
    ``MXNetValueError``); label names that do not match ``label_names`` (no labels given included) only warn, as
    MXNet's ``warnings.warn``."""
    data_shapes = [_desc(d) for d in data_shapes]
    label_shapes = None if label_shapes is None else [_desc(d) for d in label_shapes]
    for kind, names, descs in (('data', data_names, data_shapes), ('label', label_names, label_shapes or [])):
        if sorted(names) != sorted(d.name for d in descs):
            msg = "Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)" % (
                kind, kind, descs, list(names))
            if kind == 'data':
                raise MXNetValueError(msg)
            warnings.warn(msg)
    return data_shapes, label_shapes


def _check_module_names(symbol, data_names, label_names, state_names, fixed_param_names):
    """The four name checks a module makes on construction (only missing labels are merely logged)."""
    for names, kind, strict in ((data_names, 'data', True), (label_names, 'label', False),
                                (state_names, 'state', True), (fixed_param_names, 'fixed_param', True)):
        _check_input_names(symbol, names, kind, strict)


# state of a module that is neither bound nor initialised
_FRESH = dict(binded=False, for_training=False, inputs_need_grad=False, params_initialized=False,
              optimizer_initialized=False, _symbol=None, _total_exec_bytes=0)


class BaseModule:
    """The module interface; ``Module`` implements it for one symbol on one or more contexts."""

    def __init__(self, logger=logging):
        vars(self).update(_FRESH)
        self.logger = logger

    # -- loops --------------------------------------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """``forward(is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def _inference_batches(self, eval_data, num_batch, reset, sparse_row_id_fn):
        # shared by score/iter_predict: (index, batch) after an inference forward of each batch
        self._check_ready()
        if reset:
            eval_data.reset()
        limit = float('inf') if num_batch is None else num_batch
        for nbatch, batch in enumerate(eval_data):
            if nbatch >= limit:
                return
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            yield nbatch, batch

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None):
        """Evaluate ``eval_metric`` over ``eval_data``; returns its (name, value) pairs."""
        eval_metric = _as_metric(eval_metric)
        eval_metric.reset()
        seen = 0
        for nbatch, batch in self._inference_batches(eval_data, num_batch, reset, sparse_row_id_fn):
            self._update_metric_from(eval_metric, batch)
            seen = nbatch + 1
            _call_all(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
        _call_all(score_end_callback, BatchEndParam(epoch, seen, eval_metric, locals()))
        return eval_metric.get_name_value()

    def _update_metric_from(self, eval_metric, batch):
        if isinstance(batch, list):
            return self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
        return self.update_metric(eval_metric, batch.label)

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield (outputs without padding, batch index, batch) for each batch."""
        for nbatch, batch in self._inference_batches(eval_data, num_batch, reset, sparse_row_id_fn):
            keep = slice(0, -batch.pad) if batch.pad else slice(None)
            yield [o[keep] for o in self.get_outputs()], nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None):
        """Outputs over ``eval_data``: concatenated per output (``merge_batches``), or a list per batch.

        Differs from MXNet: an NDArray/numpy ``eval_data`` is wrapped in an ``NDArrayIter`` (batch size of the
        bound module) instead of being run as one batch."""
        if isinstance(eval_data, (NDArray, __import__('numpy').ndarray)):
            eval_data = NDArrayIter(eval_data, batch_size=self.data_shapes[0][1][0] if self.binded
                                    else eval_data.shape[0])
        per_batch = [[o.copy() for o in outs]
                     for outs, _, _ in self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not (per_batch and merge_batches):
            return per_batch
        widths = {len(b) for b in per_batch}
        if len(widths) > 1:
            raise MXNetError('Cannot merge batches, as num of outputs is not the same in mini-batches. '
                             'Maybe bucketing is used?')
        merged = [nd.concatenate(list(column)) for column in zip(*per_batch)]
        return merged if always_output_list or len(merged) != 1 else merged[0]

    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
            eval_end_callback=None, eval_batch_end_callback=None, initializer=None, arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0,
            num_epoch=None, validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """Train for ``num_epoch`` epochs over ``train_data`` (MXNet's loop, logging and callbacks).

        ``initializer=None`` means MXNet's default ``Uniform(0.01)``."""
        train_metric, val_metric = self._fit_setup(
            train_data, eval_metric, kvstore, optimizer, optimizer_params, initializer, arg_params, aux_params,
            allow_missing, force_rebind, force_init, num_epoch, validation_metric, monitor)
        for epoch in range(begin_epoch, num_epoch):
            started = time.time()
            totals = self._train_epoch(epoch, train_data, train_metric, monitor, batch_end_callback,
                                       sparse_row_id_fn)
            self._end_epoch(epoch, started, totals, epoch_end_callback, eval_data, val_metric, eval_end_callback,
                            eval_batch_end_callback)
            train_data.reset()

    def _fit_setup(self, train_data, eval_metric, kvstore, optimizer, optimizer_params, initializer, arg_params,
                   aux_params, allow_missing, force_rebind, force_init, num_epoch, validation_metric, monitor):
        """What ``fit`` does before its first epoch (bind, monitor, parameters, optimizer); returns the training
        metric (an EvalMetric) and the validation metric (as given)."""
        if num_epoch is None:
            raise MXNetError('please specify number of epochs')
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label, for_training=True,
                  force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=Uniform(0.01) if initializer is None else initializer,
                         arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        return _as_metric(eval_metric), eval_metric if validation_metric is None else validation_metric

    def _end_epoch(self, epoch, started, totals, epoch_end_callback, eval_data, val_metric, eval_end_callback,
                   eval_batch_end_callback):
        """What ``fit`` does after each epoch's batches: log, bring the devices in line, callbacks, validation."""
        log = self.logger.info
        for name, val in totals:
            log('Epoch[%d] Train-%s=%f', epoch, name, _metric._loggable(val))
        log('Epoch[%d] Time cost=%.3f', epoch, time.time() - started)
        # a get/set round trip, as MXNet does to bring every device copy in line
        synced = self.get_params()
        self.set_params(*synced)
        if epoch_end_callback is not None:
            for cb in _as_list(epoch_end_callback):
                cb(epoch, self.symbol, *synced)
        if eval_data is not None:
            scores = self.score(eval_data, val_metric, score_end_callback=eval_end_callback,
                                batch_end_callback=eval_batch_end_callback, epoch=epoch)
            for name, val in scores:
                log('Epoch[%d] Validation-%s=%f', epoch, name, _metric._loggable(val))

    def _train_epoch(self, epoch, train_data, eval_metric, monitor, batch_end_callback, sparse_row_id_fn,
                     local_totals=False):
        """One pass over ``train_data``; returns the metric's global values (local ones with ``local_totals``)
        taken after the last batch.

        The following batch is fetched (and prepared) before the current batch's callbacks run, as in MXNet."""
        eval_metric.reset()
        source = iter(train_data)
        queued = next(source, None)
        nbatch, totals = 0, []
        while queued is not None:
            batch = queued
            if monitor is not None:
                monitor.tic()
            self.forward_backward(batch)
            self.update()
            self._update_metric_from(eval_metric, batch)
            queued = next(source, None)
            if queued is not None:
                self.prepare(queued, sparse_row_id_fn=sparse_row_id_fn)
            if monitor is not None:
                monitor.toc_print()
            if queued is None:
                totals = eval_metric.get_name_value() if local_totals else eval_metric.get_global_name_value()
            if batch_end_callback is not None:
                _call_all(batch_end_callback, BatchEndParam(epoch, nbatch, eval_metric, locals()))
            nbatch += 1
        return totals

    def _check_ready(self):
        if not (self.binded and self.params_initialized):
            raise MXNetError('Module is not ready: call bind() and init_params() first')

    # -- interface the subclasses fill -------------------------------------------------------------------------
    @property
    def symbol(self):
        return self._symbol

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Nothing to prepare; a ``sparse_row_id_fn`` is not called and warns, as MXNet's BaseModule."""
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning('sparse_row_id_fn is not invoked for BaseModule.'))

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
        save_params(fname, *self.get_params())

    def load_params(self, fname):
        """Load parameters saved by ``save_params`` (or by MXNet)."""
        split = {'arg': {}, 'aux': {}}
        for key, value in nd.load(fname).items():
            kind, _, name = key.partition(':')
            if kind not in split:
                raise MXNetError('Invalid param file ' + fname)
            split[kind][name] = value
        arg_params, aux_params = split['arg'], split['aux']
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        return []

    def set_states(self, states=None, value=None):
        pass


def _call_all(callbacks, param):
    """Call one callback or each of a list with ``param``; None calls nothing."""
    for cb in () if callbacks is None else _as_list(callbacks):
        cb(param)


def _as_metric(eval_metric):
    return eval_metric if isinstance(eval_metric, _metric.EvalMetric) else _metric.create(eval_metric)
