"""Data parallelism for Module: one executor per context, each bound to its slice of the batch."""
from collections import OrderedDict

import numpy as np

from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError, unsupported
from ..executor import copy_into
from ..io.io import DataDesc
from ..ndarray import ndarray as _nd
from ..ndarray.sparse import CSRNDArray
from ..context import Context
from ..metric import EvalMetric

_DENSE = _nd.NDArray
_BASE_UPDATE_DICT = EvalMetric.update_dict


def _desc(d):
    """A DataDesc (shape as a tuple) for a DataDesc, a (name, shape[, dtype, layout]) sequence or anything with
    .name/.shape; anything else raises ``MXNetTypeError`` (MXNet's TypeError from ``DataDesc(*d)``)."""
    if hasattr(d, 'name') and hasattr(d, 'shape'):
        return DataDesc(d.name, tuple(d.shape), getattr(d, 'dtype', np.float32), getattr(d, 'layout', 'NCHW'))
    if not isinstance(d, (list, tuple)) or not 2 <= len(d) <= 4:
        raise MXNetTypeError('data/label shapes must be DataDescs or (name, shape) pairs, got %r' % (d,))
    return DataDesc(d[0], tuple(d[1]), *d[2:])


def _layout_axis(d):
    layout = getattr(d, 'layout', None) or 'NCHW'
    return layout.find('N') if 'N' in layout else 0


def _merge(per_output, axes):
    """One array per output from the per-device copies: concatenated on its batch axis (-1: no batch axis,
    the first device's)."""
    merged = []
    for arrs, axis in zip(per_output, axes):
        merged.append(arrs[0] if len(arrs) == 1 or axis < 0 or arrs[0] is None
                      else _nd.concatenate(arrs, axis=axis))
    return merged


def split_batch(batch_size, work_load_list):
    """Slices of the batch for each device, proportional to ``work_load_list`` (MXNet's rounding)."""
    total = float(sum(work_load_list))
    sizes = [int(round(w * batch_size / total)) for w in work_load_list]
    diff = batch_size - sum(sizes)
    sizes[-1] += diff
    if any(s <= 0 for s in sizes):
        raise MXNetValueError('Too many slices: batch size %d cannot be split over %d devices (%s)'
                              % (batch_size, len(work_load_list), work_load_list))
    out, start = [], 0
    for s in sizes:
        out.append(slice(start, start + s))
        start += s
    return out


def prepare_group2ctxs(api, group2ctxs, contexts):
    """``group2ctxs`` as one {ctx_group: Context} per device (MXNet's normalisation), or Nones without it.

    Differs from MXNet: placement is only honoured as a context label, so every context involved must be a CPU
    (all CPU contexts are the one torch CPU device); GPU contexts raise."""
    n = len(contexts)
    if not group2ctxs:
        return [None] * n
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != n:
            raise MXNetValueError('%s: group2ctxs has %d entries, one per context (%d) is needed'
                                  % (api, len(group2ctxs), n))
        per_dev = [dict(g) for g in group2ctxs]
    elif isinstance(group2ctxs, dict):
        per_dev = [{} for _ in range(n)]
        for group, where in group2ctxs.items():
            where = [where] * n if isinstance(where, Context) else list(where)
            where = where * n if len(where) == 1 else where
            if len(where) != n:
                raise MXNetValueError('%s: group2ctxs[%r] should have 1 or %d contexts, got %d'
                                      % (api, group, n, len(where)))
            for d, c in zip(per_dev, where):
                d[group] = c
    else:
        raise MXNetValueError('%s: group2ctxs should be a dict of str to Context (or list of Context), '
                              'or a list of such dicts; got %s' % (api, type(group2ctxs).__name__))
    used = list(contexts) + [c for d in per_dev for c in d.values()]
    if any(not str(getattr(c, 'device_type', '')).startswith('cpu') for c in used):
        raise unsupported(api, 'group2ctxs with a non-CPU context',
                          'model parallelism over devices is not implemented (all-CPU groups are accepted)')
    return per_dev


class ExecutorGroup:
    """Executors of one symbol on several contexts, sharing the parameter names and the batch split."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, fixed_param_names=None, grad_req='write',
                 state_names=None, group2ctxs=None):
        self.symbol = symbol
        self.group2ctxs = prepare_group2ctxs('mx.mod.Module', group2ctxs, contexts)
        self.contexts = contexts
        self.workload = workload
        self.param_names = list(param_names)
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.fixed_param_names = set(fixed_param_names or ())
        self.state_names = list(state_names or ())
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.grad_req_spec = grad_req
        # batch axis of each output, from its '__layout__' attribute (as MXNet): merging and out_grads use it
        self.output_layouts = [-1 if lay and 'N' not in lay else lay.find('N') if lay else 0
                               for lay in (symbol[i].attr('__layout__') for i in range(len(symbol.list_outputs())))]
        # per device, the arrays of non-parameter arguments (inputs), shared by name with the groups bound
        # against this one (``shared_group``), as MXNet's shared_data_arrays
        self.shared_data_arrays = shared_group.shared_data_arrays if shared_group is not None \
            else [{} for _ in contexts]
        self.execs = []
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_req(self, data_names):
        """MXNet's rule: a string applies to parameters and (with inputs_need_grad) data; a list gives every
        argument's in order; a dict overrides the defaults (write for parameters, data per inputs_need_grad)."""
        spec = self.grad_req_spec if self.for_training else 'null'
        if isinstance(spec, (list, tuple)):
            if len(spec) != len(self.arg_names):
                raise MXNetValueError('grad_req has %d entries for %d arguments (%s)'
                                      % (len(spec), len(self.arg_names), ', '.join(self.arg_names)))
            return dict(zip(self.arg_names, spec))
        if not isinstance(spec, (str, dict)):
            raise MXNetValueError('grad_req must be one of str, list, tuple, or dict.')
        default = 'write' if isinstance(spec, dict) else spec
        reqs = {}
        for name in self.arg_names:
            if name in self.param_names:
                reqs[name] = 'null' if name in self.fixed_param_names else default
            elif name in data_names:
                reqs[name] = default if self.inputs_need_grad else 'null'
            else:
                reqs[name] = 'null'
        if isinstance(spec, dict):
            reqs.update(spec)
        return reqs

    def bind_exec(self, data_shapes, label_shapes, shared_group=None):
        self.data_shapes = [_desc(d) for d in data_shapes]
        self.label_shapes = [_desc(d) for d in label_shapes] if label_shapes else []
        self.data_names = [n for n, _ in self.data_shapes]
        self.label_names = [n for n, _ in self.label_shapes]
        self.batch_axis = [_layout_axis(d) for d in data_shapes]
        self.label_axis = [_layout_axis(d) for d in label_shapes or []]
        self.batch_size = self.data_shapes[0][1][self.batch_axis[0]]
        self.slices = split_batch(self.batch_size, self.workload)
        reqs = self.grad_req = self._grad_req(self.data_names)
        # the inputs' dtypes, as MXNet binds them: a DataDesc's (float16 data makes a float16 executor), float32 for
        # a (name, shape) pair; the other arguments' are inferred from them and the variables' __dtype__ attributes
        type_dict = {d.name: d.dtype for d in self.data_shapes + self.label_shapes if d.dtype is not None}
        self.execs = []
        for i, ctx in enumerate(self.contexts):
            n = self.slices[i].stop - self.slices[i].start
            shapes = {}
            for (name, shape), axis in zip(self.data_shapes + self.label_shapes,
                                           self.batch_axis + self.label_axis):
                s = list(shape)
                s[axis] = n
                shapes[name] = tuple(s)
            shared = shared_group.execs[i] if shared_group is not None else None
            ex = self.symbol.simple_bind(ctx, grad_req=reqs, type_dict=type_dict, shared_exec=shared,
                                         **shapes)
            self._share_inputs(ex, self.shared_data_arrays[i])
            self._label_groups(ex, self.group2ctxs[i])
            self.execs.append(ex)
        self.param_arrays = [[ex.arg_dict[n] for ex in self.execs] for n in self.param_names]
        self.grad_arrays = [[ex.grad_dict.get(n) for ex in self.execs] for n in self.param_names] \
            if self.for_training else []
        self.aux_arrays = [[ex.aux_dict[n] for ex in self.execs] for n in self.aux_names]
        self.input_grad_arrays = [[ex.grad_dict.get(n) for ex in self.execs] for n in self.data_names] \
            if self.inputs_need_grad else []

    def _share_inputs(self, ex, store):
        """Bind the executor's non-parameter arguments to the arrays of that name in ``store`` (same shape and
        dtype), and record the ones it newly allocated there."""
        for j, (name, arr) in enumerate(ex.arg_dict.items()):
            if name in self.param_names:
                continue
            kept = store.get(name)
            if kept is not None and kept.shape == arr.shape and kept.dtype == arr.dtype and kept.stype == arr.stype:
                ex.arg_arrays[j] = kept
            else:
                store[name] = arr

    def _label_groups(self, ex, group2ctx):
        """Give the arrays of variables in a ``ctx_group`` their group's context (a label: all CPU)."""
        if not group2ctx:
            return
        for name, attrs in self.symbol.attr_dict().items():
            where = group2ctx.get(attrs.get('__ctx_group__'))
            if where is None:
                continue
            for arrays in (ex.arg_dict, ex.grad_dict, ex.aux_dict):
                if arrays.get(name) is not None:
                    arrays[name]._ctx = where

    def reshape(self, data_shapes, label_shapes):
        if [_desc(d) for d in data_shapes] == self.data_shapes and \
                [_desc(d) for d in (label_shapes or [])] == self.label_shapes:
            return
        old = self.execs
        self.bind_exec(data_shapes, label_shapes)
        for ex_old, ex_new in zip(old, self.execs):  # keep the trained parameters and the monitor (as MXNet)
            ex_new._monitor = ex_old._monitor
            for n in self.param_names + self.aux_names:
                src = ex_old.arg_dict.get(n, ex_old.aux_dict.get(n))
                dst = ex_new.arg_dict.get(n, ex_new.aux_dict.get(n))
                if src is not None and dst is not None and src.shape == dst.shape:
                    dst._t = src._t
            new_grads = ex_new.grad_dict
            for n, g in ex_old.grad_dict.items():
                new = new_grads.get(n)
                if n in self.param_names and g is not None and new is not None and g.shape == new.shape:
                    new._t = g._t
        # (param_arrays, grad_arrays and aux_arrays, listed by bind_exec, hold these same NDArrays)

    # -- parameters -------------------------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        for ex in self.execs:
            ex.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Average the copies on all devices into the given dicts (MXNet's rule)."""
        for name, block in zip(self.param_names, self.param_arrays):
            _average_into(block, arg_params[name])
        for name, block in zip(self.aux_names, self.aux_arrays):
            _average_into(block, aux_params[name])

    # -- running ----------------------------------------------------------------------------------------------
    def _load(self, arrays, names, is_label):
        for j, name in enumerate(names):
            src = arrays[j]
            axis = (self.label_axis if is_label else self.batch_axis)[j]
            for ex, sl in zip(self.execs, self.slices):
                dst = ex.arg_arrays[ex._arg_index[name]]
                part = src if len(self.execs) == 1 else _slice_axis(src, axis, sl)
                if type(part) is _DENSE and type(dst) is _DENSE and part._t.shape == dst._t.shape:
                    dst._t.copy_(part._t)  # (the usual batch: copy_into's dense case)
                elif isinstance(part, _nd.NDArray):
                    if part.shape != dst.shape:
                        raise MXNetValueError('Module: %s has shape %s, bound as %s' % (name, part.shape,
                                                                                          dst.shape))
                    copy_into(dst, part)
                else:
                    dst[:] = np.asarray(part)

    def forward(self, data_batch, is_train):
        self._load(data_batch.data, self.data_names, False)
        if is_train and self.label_names and data_batch.label is not None:
            self._load(data_batch.label, self.label_names, True)
        elif self.label_names and data_batch.label is not None and len(data_batch.label) == len(self.label_names):
            self._load(data_batch.label, self.label_names, True)
        for ex in self.execs:
            ex.forward(is_train=is_train)

    def backward(self, out_grads=None):
        if not self.for_training:
            raise MXNetError('re-bind with for_training=True to run backward')
        for i, (ex, sl) in enumerate(zip(self.execs, self.slices)):
            grads = None
            if out_grads is not None:
                grads = [g if len(self.execs) == 1 else _slice_axis(g, axis, sl)
                         for g, axis in zip(out_grads, self.output_layouts)]
            ex.backward(out_grads=grads)

    def get_outputs(self, merge_multi_context=True):
        outs = [[ex.outputs[i] for ex in self.execs] for i in range(len(self.execs[0].outputs))]
        return _merge(outs, self.output_layouts) if merge_multi_context else outs

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise MXNetError('bind with inputs_need_grad=True to get input gradients')
        if merge_multi_context:
            return _merge(self.input_grad_arrays, self.batch_axis)
        return self.input_grad_arrays

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        out_names = self.execs[0]._lowered.output_names
        for i, (ex, sl) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_i = labels[i]
            elif len(self.execs) == 1:
                labels_i = labels
            else:
                axes = self.label_axis or [0] * len(labels)
                labels_i = [_slice_axis(lab, axis, sl) for lab, axis in zip(labels, axes)]
            if (type(eval_metric).update_dict is _BASE_UPDATE_DICT and eval_metric.output_names is None
                    and eval_metric.label_names is None and len(labels_i) == len(self.label_names)
                    and len(ex.outputs) == len(out_names)):
                eval_metric.update(list(labels_i), list(ex.outputs))  # (what update_dict hands on, without the dicts)
                continue
            eval_metric.update_dict(OrderedDict(zip(self.label_names, labels_i)),
                                    OrderedDict(zip(out_names, ex.outputs)))

    def _per_device(self, names):
        return [[ex.arg_dict[n] for ex in self.execs] for n in names]

    def get_states(self, merge_multi_context=True):
        if merge_multi_context:  # MXNet 1.9.1 asserts the same
            raise MXNetAssertionError('get_states: merge_multi_context=True is not supported for get_states yet')
        return self._per_device(self.state_names)

    def set_states(self, states=None, value=None):
        if states is not None:
            if value is not None:
                raise MXNetValueError('set_states: only one of states and value can be specified')
            if len(states) != len(self.state_names):
                raise MXNetValueError('set_states: %d states given, the module has %d (%s)'
                                      % (len(states), len(self.state_names), self.state_names))
            for src, dsts in zip(states, self._per_device(self.state_names)):
                if isinstance(src, (list, tuple)):  # one array per device
                    for s, d in zip(src, dsts):
                        s.copyto(d)
                    continue
                for d, sl in zip(dsts, self.slices):  # a merged array: each device takes its batch slice
                    part = src if len(dsts) == 1 else _slice_axis(src, 0, sl)
                    d[:] = part if isinstance(part, _nd.NDArray) else np.asarray(part)
            return
        if value is None:
            raise MXNetValueError('set_states: one of states and value must be specified')
        if isinstance(value, _nd.NDArray):
            raise MXNetValueError('set_states: value must be a scalar, got an NDArray')
        for dsts in self._per_device(self.state_names):
            for d in dsts:
                d[:] = value

    def install_monitor(self, mon):
        for ex in self.execs:
            mon.install(ex)


def _slice_axis(arr, axis, sl):
    if isinstance(arr, CSRNDArray) and axis == 0:
        return arr[sl]
    if isinstance(arr, _nd.NDArray):
        idx = [slice(None)] * arr.ndim
        idx[axis] = sl
        return _nd.NDArray._from_tensor(arr._t[tuple(idx)], arr.context)
    idx = [slice(None)] * np.ndim(arr)
    idx[axis] = sl
    return np.asarray(arr)[tuple(idx)]


def _average_into(block, dst):
    if len(block) == 1:
        dst._t.copy_(block[0]._t.to(dst._t.device))
        return
    acc = block[0]._t.to(dst._t.device, copy=True)
    for w in block[1:]:
        acc.add_(w._t.to(dst._t.device))
    dst._t.copy_(acc / len(block))


class DataParallelExecutorGroup(ExecutorGroup):
    """MXNet's name and argument order for ``ExecutorGroup`` (``logger`` is accepted and unused)."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, logger=None, fixed_param_names=None, grad_req='write',
                 state_names=None, group2ctxs=None):
        super().__init__(symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                         inputs_need_grad, shared_group=shared_group, fixed_param_names=fixed_param_names,
                         grad_req=grad_req, state_names=state_names, group2ctxs=group2ctxs)

