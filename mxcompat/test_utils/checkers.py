"""The Symbol-based checkers: bind a Symbol with ``bind``/``simple_bind`` and check its outputs and gradients
(against numbers, finite differences, or other contexts and dtypes)."""
import importlib
import json
import time
import traceback
from collections import OrderedDict

import numpy as np
import torch

import mxcompat as mx
from ..ndarray.ndarray import array
from .compare import _host, assert_almost_equal
from .tolerances import default_context, default_dtype, default_numeric_eps, get_tolerance, get_tols

__all__ = ['simple_forward', 'numeric_grad', 'check_numeric_gradient', 'check_symbolic_forward',
           'check_symbolic_backward', 'check_speed', 'check_consistency', 'same_symbol_structure']


def _sorted_items(d):
    return sorted(d.items(), key=lambda kv: kv[0])


def _sorted_dict(d):
    return OrderedDict(_sorted_items(d))


def _symbol():
    """``mx.symbol``, looked up when a checker runs (``mxcompat/__init__`` imports this package before it)."""
    return importlib.import_module('mxcompat.symbol')


def _nd_from(v, ctx, dtype):
    """An NDArray from numpy ``v`` (``dtype="asnumpy"`` keeps v's dtype); an NDArray stays as it is."""
    if isinstance(v, np.ndarray):
        return mx.nd.array(v, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype)
    return v


def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """Argument name -> NDArray (sorted by name) from a list in ``sym.list_arguments()`` order or a dict."""
    assert isinstance(location, (dict, list, tuple))
    assert dtype == 'asnumpy' or dtype in (np.float16, np.float32, np.float64)
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location.keys()) != set(names):
            raise ValueError('Symbol arguments and keys of the given location do not match.symbol args:%s, '
                             'location.keys():%s' % (str(set(names)), str(set(location.keys()))))
    else:
        location = dict(zip(names, location))
    return _sorted_dict({k: _nd_from(v, ctx, dtype) for k, v in location.items()})


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    """Auxiliary state name -> NDArray from a list in ``sym.list_auxiliary_states()`` order or a dict."""
    assert dtype == 'asnumpy' or dtype in (np.float16, np.float32, np.float64)
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states.keys()) != set(names):
            raise ValueError('Symbol aux_states names and given aux_states do not match.symbol aux_names:%s, '
                             'aux_states.keys:%s' % (str(set(names)), str(set(aux_states.keys()))))
    elif isinstance(aux_states, (list, tuple)):
        aux_states = dict(zip(names, aux_states))
    return {k: mx.nd.array(v, ctx=ctx, dtype=_host(v).dtype if dtype == 'asnumpy' else dtype)
            for k, v in aux_states.items()}


def _inputs(sym, location, aux_states, ctx, dtype):
    """(ctx, arguments, auxiliary states) as NDArrays for a checker."""
    assert dtype == 'asnumpy' or dtype in (np.float16, np.float32, np.float64)
    ctx = default_context() if ctx is None else ctx
    return (ctx, _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype),
            _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype))


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Run ``sym`` on numpy ``inputs`` (by argument name); numpy output, or a list of them."""
    ctx = ctx or default_context()
    exe = sym.bind(ctx, args={k: array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def _differences_on_device(executor):
    """Whether numeric_grad keeps its finite differences on the executor's device (a GPU) and reads them once:
    reading each forward's output on the host would wait for the device twice per element."""
    return bool(executor.outputs) and executor.outputs[0].context.device_type == 'gpu'


def _element_steps(executor, k, v, dtype, eps, run):
    """Moves each element of argument ``k`` (values ``v``) by +eps/2 and then -eps, as MXNet's helper steps, calling
    ``run(i, plus)`` after each move (``plus``: the first of the pair); puts the array back after."""
    arr = executor.arg_dict[k]
    dense = arr.stype == 'default'
    original = v.copy()
    flat = v.reshape(-1)

    def put(i, at, value):
        flat[i] = value
        if dense:
            arr[at] = value  # (the one element, cast to the array's dtype as mx.nd.array(v) would)
        else:
            arr[:] = mx.nd.array(v, dtype=dtype)

    for i in range(flat.size):
        at = np.unravel_index(i, v.shape)
        put(i, at, flat[i] + eps / 2.0)
        run(i, True)
        put(i, at, flat[i] - eps)  # (from the stored, rounded value)
        run(i, False)
        flat[i] = original.reshape(-1)[i]
        if dense:
            arr[at] = flat[i]
    executor.arg_dict[k][:] = mx.nd.array(original, dtype=dtype)


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=default_dtype()):
    """Central-difference gradient of ``sum(executor.outputs[0])`` with respect to each float argument in
    ``location`` (name -> numpy array): one pair of forward passes per element. Differs from MXNet in speed only:
    each pass writes the one element it moves into the bound array (on its device) instead of the whole array, and
    on a GPU the differences are summed there and read once per argument (MXNet reads every output on the host)."""
    assert dtype in (np.float16, np.float32, np.float64)
    grads = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = mx.nd.array(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order='C')
    # the auxiliary states are reset before every pass (a training forward moves them), from copies on the device
    aux = None if aux_states is None else {key: mx.nd.array(val, ctx=executor.aux_dict[key].context, dtype=dtype)
                                           for key, val in aux_states.items()}

    def forward():
        if aux is not None:
            for key, val in aux.items():
                val.copyto(executor.aux_dict[key])
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0]

    on_device = _differences_on_device(executor)
    for k, v in location.items():
        if v.dtype.kind != 'f':
            continue
        flat_grad, pending, diffs = grads[k].reshape(-1), {}, []

        def run(i, plus):
            if on_device:  # (a copy of the output on the device; the difference is summed there)
                out = forward().to_torch().detach()
                if plus:
                    pending['plus'] = out.clone()
                else:
                    diffs.append((pending.pop('plus') - out).sum())
            elif plus:
                pending['plus'] = forward().asnumpy()
            else:
                flat_grad[i] = (pending.pop('plus') - forward().asnumpy()).sum() / eps
        _element_steps(executor, k, v, dtype, eps, run)
        if diffs:
            flat_grad[:] = torch.stack(diffs).cpu().numpy() / eps
    return grads


def _grad_req_of(grad_nodes, names):
    if grad_nodes is None:
        return list(names), {k: 'write' for k in names}
    if isinstance(grad_nodes, (list, tuple)):
        return list(grad_nodes), {k: 'write' for k in grad_nodes}
    if isinstance(grad_nodes, dict):
        return list(grad_nodes.keys()), dict(grad_nodes)
    raise ValueError('grad_nodes must be None, a list/tuple of names or a dict of name -> grad_req, got %r'
                     % (grad_nodes,))


def _compare_grad(req, name, expected, got, before, rtol, atol, names, equal_nan=False):
    """Check one gradient against ``expected`` for its grad_req ('write', 'add' or 'null')."""
    if req == 'write':
        assert_almost_equal(expected, got, rtol, atol, names, equal_nan=equal_nan)
    elif req == 'add':
        assert_almost_equal(expected, _host(got) - before, rtol, atol, names, equal_nan=equal_nan)
    elif req == 'null':
        assert_almost_equal(before, got, rtol, atol, names, equal_nan=equal_nan)
    else:
        raise ValueError('Invalid grad_req %s for argument %s' % (req, name))


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None, grad_nodes=None,
                           use_forward_train=True, ctx=None, grad_stype_dict=None, dtype=default_dtype()):
    """Compare the backward pass of ``sym`` with central finite differences of a random projection of its
    output. ``location``: argument values (list in ``list_arguments()`` order, or dict)."""
    assert dtype in (np.float16, np.float32, np.float64)
    symbol = _symbol()
    ctx, location, aux_states = _inputs(sym, location, aux_states, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux_states_npy = None if aux_states is None else {k: v.asnumpy() for k, v in aux_states.items()}
    grad_nodes, grad_req = _grad_req_of(grad_nodes, sym.list_arguments())

    _, out_shape, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    out = symbol.make_loss(sym * symbol.Variable('__random_proj'))
    # the projection's elements are kept away from 0, so finite differences keep their precision
    location = dict(list(location.items())
                    + [('__random_proj', mx.nd.array(np.random.rand(*out_shape[0]) + 0.1, ctx=ctx, dtype=dtype))])
    args_grad_npy = dict([(k, np.random.normal(0, 0.01, size=location[k].shape)) for k in grad_nodes]
                         + [('__random_proj', np.random.normal(0, 0.01, size=out_shape[0]))])
    args_grad = {k: mx.nd.array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()}
    if grad_stype_dict is not None:
        assert isinstance(grad_stype_dict, dict), 'grad_stype_dict must be a dict'
        for k, v in grad_stype_dict.items():
            if k in args_grad and v != 'default':
                args_grad[k] = args_grad[k].tostype(v)  # a gradient array of that storage type, as MXNet's

    executor = out.bind(ctx, grad_req=grad_req, args=location, args_grad=args_grad, aux_states=aux_states)
    if len(executor.arg_arrays) != len(location):
        raise ValueError('Executor arg_arrays and and location len do not match.Got %d inputs and %d locations'
                         % (len(executor.arg_arrays), len(location)))
    executor.forward(is_train=True)
    assert len(executor.outputs) == 1
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    if dtype in (np.float32, np.float16):
        assert eps >= 1e-5  # finite differences need precision
    executor.backward()
    symbolic_grads = executor.grad_dict
    numeric_gradients = numeric_grad(executor, location_npy, aux_states_npy, eps=eps,
                                     use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        _compare_grad(grad_req[name], name, numeric_gradients[name], symbolic_grads[name], args_grad_npy[name],
                      rtol, atol, ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Bind ``sym`` at ``location``, run forward (inference) and compare each output with ``expected``
    (list in output order, or dict by output name). Returns the outputs."""
    ctx, location, aux_states = _inputs(sym, location, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    args_grad_data = {k: mx.nd.zeros(v.shape, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype)
                      for k, v in location.items()}
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux_states)
    executor.forward(is_train=False)
    for name, expect, output in zip(sym.list_outputs(), expected, executor.outputs):
        assert_almost_equal(expect, output, rtol, atol, ('EXPECTED_%s' % name, 'FORWARD_%s' % name),
                            equal_nan=equal_nan)
    return executor.outputs


def _out_grads(out_grads, ctx, dtype):
    if isinstance(out_grads, (tuple, list)):
        return [_nd_from(g, ctx, dtype) for g in out_grads]
    if isinstance(out_grads, dict):
        return {k: _nd_from(g, ctx, dtype) for k, g in out_grads.items()}
    assert out_grads is None
    return None


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req='write', ctx=None, grad_stypes=None, equal_nan=False, dtype=default_dtype()):
    """Bind ``sym`` at ``location``, run forward (training) and backward with ``out_grads``, and compare the
    argument gradients with ``expected`` (list in argument order, or dict). Returns the gradient arrays."""
    ctx, location, aux_states = _inputs(sym, location, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    # gradient buffers start dirty (deterministically) so that 'add' and 'null' are checked
    args_grad_npy = {k: np.random.normal(size=np.shape(v)) for k, v in _sorted_items(expected)}
    args_grad_data = {}
    for k, v in args_grad_npy.items():
        args_grad_data[k] = mx.nd.array(v, ctx=ctx, dtype=_host(expected[k]).dtype if dtype == 'asnumpy' else dtype)
        if grad_stypes is not None and grad_stypes.get(k) not in (None, 'default'):
            args_grad_data[k] = args_grad_data[k].tostype(grad_stypes[k])  # as MXNet's, of that storage type
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux_states, grad_req=grad_req)
    executor.forward(is_train=True)
    executor.backward(_out_grads(out_grads, ctx, dtype))
    for name in expected:
        _compare_grad(grad_req[name], name, expected[name], args_grad_data[name], args_grad_npy[name], rtol, atol,
                      ('EXPECTED_%s' % name, 'BACKWARD_%s' % name), equal_nan=equal_nan)
    return args_grad_data


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ='whole', **kwargs):
    """Seconds per run of ``sym``: forward+backward (``typ='whole'``) or forward only (``'forward'``)."""
    bind_args = dict(ctx=default_context() if ctx is None else ctx, grad_req='write' if grad_req is None else grad_req)
    if location is not None:
        assert isinstance(location, dict), 'Expect dict, get "location"=%s' % str(location)
        exe = sym.simple_bind(**bind_args, **{k: v.shape for k, v in location.items()})
    else:
        exe = sym.simple_bind(**bind_args, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0) for k, arr in exe.arg_dict.items()}
    for name, value in location.items():
        target = exe.arg_dict[name]
        target[:] = value.astype(target.dtype)
    if typ not in ('whole', 'forward'):
        raise ValueError('typ can only be "whole" or "forward".')
    train = typ == 'whole'

    def step():
        exe.forward(is_train=train)
        if train:
            exe.backward(out_grads=exe.outputs)

    step()  # warm up
    for output in exe.outputs:
        output.wait_to_read()
    tic = time.time()
    for _ in range(N):
        step()
    mx.nd.waitall()
    return (time.time() - tic) / N


def _smaller_dtype(dt1, dt2):
    """The less precise of two dtypes (dt1 if dt2 is None)."""
    return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2


def _report(raise_on_err, err, header):
    print(header)
    traceback.print_exc()
    if raise_on_err:
        raise err
    print(str(err))


def check_consistency(sym, ctx_list, scale=1.0, grad_req='write', arg_params=None, aux_params=None, rtol=None,  # noqa: C901 (MXNet's check_consistency signature: one branch per option)
                      atol=None, raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Check that ``sym`` (or one symbol per entry) gives the same outputs and gradients for every entry of
    ``ctx_list`` (dicts of ``simple_bind`` arguments: ctx, input shapes, type_dict). Returns the ground truth."""
    symbol = _symbol()
    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if isinstance(sym, symbol.Symbol) else list(sym)
    assert len(syms) == len(ctx_list)
    arg_names, output_names = syms[0].list_arguments(), syms[0].list_outputs()
    for other in syms[1:]:
        assert other.list_arguments() == arg_names
        assert other.list_outputs() == output_names
    exe_list = [one.simple_bind(grad_req=grad_req, **bind) for one, bind in zip(syms, ctx_list)]

    def random_value(shape):
        if use_uniform:
            bound = 0.92 * scale
            return np.random.uniform(low=-bound, high=bound, size=shape).astype(rand_type)
        return np.random.normal(size=shape, scale=scale).astype(rand_type)

    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    first = exe_list[0]
    # draw in sorted name order so that a seeded run is reproducible
    for key, arr in _sorted_items(first.arg_dict):
        if key not in arg_params:
            arg_params[key] = random_value(arr.shape)
    for key in first.aux_dict:
        aux_params.setdefault(key, 0)
    for exe in exe_list:
        for values, targets in ((arg_params, exe.arg_dict), (aux_params, exe.aux_dict)):
            for key, arr in targets.items():
                arr[:] = values[key]
        if grad_req == 'add':
            for grad in exe.grad_arrays:
                grad[:] = np.zeros(grad.shape, dtype=grad.dtype)

    for exe in exe_list:
        exe.forward(is_train=False)
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    gt_idx = int(np.argmax([d.itemsize for d in dtypes]))  # the first most precise executor is the reference

    def truth():
        # read after each pass, so executors that return fresh output arrays work too
        if ground_truth is not None:
            return ground_truth
        found = dict(exe_list[gt_idx].output_dict)
        if grad_req != 'null':
            found.update(exe_list[gt_idx].grad_dict)
        return found

    gt = truth()
    for i, exe in enumerate(exe_list):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names, exe.outputs):
            try:
                assert_almost_equal(arr, gt[name], rtol=rtol, atol=atol, equal_nan=equal_nan)
            except AssertionError as e:
                _report(raise_on_err, e, 'Predict Err: ctx %d vs ctx %d at %s' % (i, gt_idx, name))

    if grad_req != 'null':
        for exe in exe_list:
            exe.forward(is_train=True)
        # every executor gets the first executor's outputs, cast to the least precise dtype, as head gradients
        least = [out.dtype for out in exe_list[0].outputs]
        for exe in exe_list:
            least = [_smaller_dtype(out.dtype, dt) for out, dt in zip(exe.outputs, least)]
        golden = [out.astype(dt).asnumpy() for out, dt in zip(exe_list[0].outputs, least)]
        for exe in exe_list:
            exe.backward([mx.nd.array(g, ctx=out.context, dtype=out.dtype) for g, out in zip(golden, exe.outputs)])
        gt = truth()
        others = [(i, exe) for i, exe in enumerate(exe_list) if i != gt_idx]
        for i, exe in others:
            for name, arr in zip(output_names + arg_names, exe.outputs + exe.grad_arrays):
                gtarr = gt[name]
                if gtarr is None:
                    assert arr is None
                    continue
                try:
                    rt, at = rtol, atol
                    # float16 data makes float32 gradients (e.g. BatchNorm's gamma) as imprecise as float16
                    arr_dt, gt_dt = _smaller_dtype(arr.dtype, dtypes[i]), _smaller_dtype(gtarr.dtype, dtypes[gt_idx])
                    if arr_dt != arr.dtype or gt_dt != gtarr.dtype:
                        rt, at = get_tols(arr.astype(arr_dt), gtarr.astype(gt_dt), rtol, atol)
                    assert_almost_equal(arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan)
                except AssertionError as e:
                    _report(raise_on_err, e, 'Train Err: {} {} ctx {} vs {} {} ctx {} at {}'.format(
                        np.dtype(arr.dtype).name, arr.context, i, np.dtype(gtarr.dtype).name, gtarr.context,
                        gt_idx, name))
    return gt


def same_symbol_structure(sym1, sym2):
    """Whether the nodes of two symbols' graphs have the same operators, node by node."""
    nodes1 = json.loads(sym1.tojson())['nodes']
    nodes2 = json.loads(sym2.tojson())['nodes']
    return all(n1['op'] == n2['op'] for n1, n2 in zip(nodes1, nodes2))
