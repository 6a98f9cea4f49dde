"""Data parallelism for Module: one executor per context, each bound to its slice of the batch."""
import numpy as np

from ..base import MXNetError, MXNetValueError
from ..ndarray import ndarray as _nd


def _desc(d):
    """(name, shape) of a DataDesc, a (name, shape) pair or anything with .name/.shape."""
    if hasattr(d, 'name') and hasattr(d, 'shape'):
        return d.name, tuple(d.shape)
    name, shape = d[0], d[1]
    return name, tuple(shape)


def _layout_axis(d):
    layout = getattr(d, 'layout', None) or 'NCHW'
    return layout.find('N') if 'N' in layout else 0


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


class ExecutorGroup:
    """Executors of one symbol on several contexts, sharing the parameter names and the batch split."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, fixed_param_names=None, grad_req='write',
                 state_names=None):
        self.symbol = symbol
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
        self.execs = []
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_req(self, data_names):
        reqs = {}
        for name in self.arg_names:
            if not self.for_training:
                reqs[name] = 'null'
            elif name in self.param_names:
                if name in self.fixed_param_names:
                    reqs[name] = 'null'
                elif isinstance(self.grad_req_spec, dict):
                    reqs[name] = self.grad_req_spec.get(name, 'write')
                else:
                    reqs[name] = self.grad_req_spec
            elif name in data_names:
                reqs[name] = 'write' if self.inputs_need_grad else 'null'
            else:
                reqs[name] = 'null'
        return reqs

    def bind_exec(self, data_shapes, label_shapes, shared_group=None):
        self.data_shapes = [_desc(d) for d in data_shapes]
        self.label_shapes = [_desc(d) for d in label_shapes] if label_shapes else []
        self.data_names = [n for n, _ in self.data_shapes]
        self.label_names = [n for n, _ in self.label_shapes]
        self.batch_axis = [_layout_axis(d) for d in data_shapes]
        self.batch_size = self.data_shapes[0][1][self.batch_axis[0]]
        self.slices = split_batch(self.batch_size, self.workload)
        reqs = self._grad_req(self.data_names)
        # dtypes declared by DataDesc inputs (float16 data makes a float16 executor, as in MXNet)
        type_dict = {d.name: d.dtype for d in list(data_shapes) + list(label_shapes or [])
                     if getattr(d, 'dtype', None) is not None and hasattr(d, 'name')}
        self.execs = []
        for i, ctx in enumerate(self.contexts):
            n = self.slices[i].stop - self.slices[i].start
            shapes = {}
            for (name, shape), axis in zip(self.data_shapes + self.label_shapes,
                                           self.batch_axis + [0] * len(self.label_shapes)):
                s = list(shape)
                s[axis] = n
                shapes[name] = tuple(s)
            shared = shared_group.execs[i] if shared_group is not None else None
            ex = self.symbol.simple_bind(ctx, grad_req=reqs, type_dict=type_dict or None, shared_exec=shared,
                                         **shapes)
            self.execs.append(ex)
        self.param_arrays = [[ex.arg_dict[n] for ex in self.execs] for n in self.param_names]
        self.grad_arrays = [[ex.grad_dict.get(n) for ex in self.execs] for n in self.param_names] \
            if self.for_training else []
        self.aux_arrays = [[ex.aux_dict[n] for ex in self.execs] for n in self.aux_names]
        self.input_grad_arrays = [[ex.grad_dict[n] for ex in self.execs] for n in self.data_names] \
            if self.inputs_need_grad else []

    def reshape(self, data_shapes, label_shapes):
        if [_desc(d) for d in data_shapes] == self.data_shapes and \
                [_desc(d) for d in (label_shapes or [])] == self.label_shapes:
            return
        old = self.execs
        self.bind_exec(data_shapes, label_shapes)
        for ex_old, ex_new in zip(old, self.execs):  # keep the trained parameters
            for n in self.param_names + self.aux_names:
                src = ex_old.arg_dict.get(n, ex_old.aux_dict.get(n))
                dst = ex_new.arg_dict.get(n, ex_new.aux_dict.get(n))
                if src is not None and dst is not None and src.shape == dst.shape:
                    dst._t = src._t
            for n, g in ex_old.grad_dict.items():
                if n in self.param_names and n in ex_new.grad_dict and g.shape == ex_new.grad_dict[n].shape:
                    ex_new.grad_dict[n]._t = g._t
        self.param_arrays = [[ex.arg_dict[n] for ex in self.execs] for n in self.param_names]
        self.grad_arrays = [[ex.grad_dict.get(n) for ex in self.execs] for n in self.param_names] \
            if self.for_training else []
        self.aux_arrays = [[ex.aux_dict[n] for ex in self.execs] for n in self.aux_names]

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
            axis = 0 if is_label else self.batch_axis[j]
            for ex, sl in zip(self.execs, self.slices):
                dst = ex.arg_dict[name]
                part = src if len(self.execs) == 1 else _slice_axis(src, axis, sl)
                if isinstance(part, _nd.NDArray):
                    if part.shape != dst.shape:
                        raise MXNetValueError('Module: %s has shape %s, bound as %s' % (name, part.shape,
                                                                                          dst.shape))
                    dst._t.copy_(part._t)
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
                grads = [g if len(self.execs) == 1 else _slice_axis(g, 0, sl) for g in out_grads]
            ex.backward(out_grads=grads)

    def get_outputs(self, merge_multi_context=True):
        outs = [[ex.outputs[i] for ex in self.execs] for i in range(len(self.execs[0].outputs))]
        if merge_multi_context:
            return [o[0] if len(o) == 1 else _nd.concatenate(o, axis=0) for o in outs]
        return outs

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise MXNetError('bind with inputs_need_grad=True to get input gradients')
        if merge_multi_context:
            return [g[0] if len(g) == 1 else _nd.concatenate(g, axis=0) for g in self.input_grad_arrays]
        return self.input_grad_arrays

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        from collections import OrderedDict
        out_names = self.symbol.list_outputs()
        for i, (ex, sl) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_i = labels[i]
            elif len(self.execs) == 1:
                labels_i = labels
            else:
                labels_i = [_slice_axis(l, 0, sl) for l in labels]
            eval_metric.update_dict(OrderedDict(zip(self.label_names, labels_i)),
                                    OrderedDict(zip(out_names, ex.outputs)))

    def install_monitor(self, mon):
        for ex in self.execs:
            mon.install(ex)


def _slice_axis(arr, axis, sl):
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
        if group2ctxs:
            from ..base import unsupported
            raise unsupported('DataParallelExecutorGroup', 'group2ctxs',
                              'model parallelism over devices is not implemented')
        super().__init__(symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                         inputs_need_grad, shared_group=shared_group, fixed_param_names=fixed_param_names,
                         grad_req=grad_req, state_names=state_names)

