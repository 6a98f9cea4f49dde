"""Legacy Module/Executor training on each device: the same script on gpu(0) gives the CPU's losses and weights.
Weights start from fixed arrays (initializers draw from each device's own generator); data comes from numpy."""
import numpy as np
import pytest

import mxcompat as mx
from tests.conftest import same_on_devices


def _mlp():
    data = mx.sym.var('data')
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name='fc1'), act_type='relu')
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=4, name='fc2'), name='softmax')


def _params(shapes, seed=0):
    rs = np.random.RandomState(seed)
    return {k: mx.nd.array(rs.uniform(-0.3, 0.3, s)) for k, s in shapes.items()}


def _data(n=64, d=8, classes=4, seed=1):
    rs = np.random.RandomState(seed)
    x = rs.randn(n, d).astype(np.float32)
    y = (np.abs(x[:, :classes]).argmax(1)).astype(np.float32)
    return x, y


def _module_fit(ctx):
    x, y = _data()
    it = mx.io.NDArrayIter(x, y, batch_size=16, label_name='softmax_label')
    mod = mx.mod.Module(_mlp(), context=ctx)
    shapes = {'fc1_weight': (16, 8), 'fc1_bias': (16,), 'fc2_weight': (4, 16), 'fc2_bias': (4,)}
    metric = mx.metric.create(['acc', 'ce'])
    scores = []
    mod.fit(it, num_epoch=3, arg_params=_params(shapes), optimizer='sgd',
            optimizer_params={'learning_rate': 0.5, 'momentum': 0.9}, eval_metric=metric,
            epoch_end_callback=lambda epoch, sym, arg, aux: scores.append(metric.get()[1]))
    arg, _ = mod.get_params()
    assert all(a.context == mx.cpu() for a in arg.values())  # get_params copies to the CPU, as MXNet's
    out = {k: v.asnumpy() for k, v in arg.items()}
    out['scores'] = np.array(scores, dtype=np.float64)
    out['predict'] = mod.predict(mx.io.NDArrayIter(x, batch_size=16)).asnumpy()
    return out


def test_module_fit(ctx):
    res = same_on_devices(_module_fit, ctx)
    acc, ce = res['scores'][:, 0], res['scores'][:, 1]
    assert ce[-1] < ce[0] and acc[-1] >= acc[0]


def _perplexity(ctx):
    rs = np.random.RandomState(3)
    pred = mx.nd.array(rs.dirichlet(np.ones(5), size=12), ctx=ctx)
    label = mx.nd.array(rs.randint(0, 5, 12))  # labels stay on the CPU, as a data iterator gives them
    m = mx.metric.Perplexity(ignore_label=0)
    m.update([label], [pred])
    acc = mx.metric.Accuracy()
    acc.update([label], [pred])
    return {'ppl': np.array(m.get()[1]), 'acc': np.array(acc.get()[1])}


def test_metrics_read_labels_from_another_device(ctx):
    same_on_devices(_perplexity, ctx)


def _executor_steps(ctx):
    x, y = _data()
    ex = _mlp().simple_bind(ctx, data=(16, 8), softmax_label=(16,))
    for k, v in _params({'fc1_weight': (16, 8), 'fc1_bias': (16,), 'fc2_weight': (4, 16),
                         'fc2_bias': (4,)}).items():
        v.copyto(ex.arg_dict[k])
    losses = []
    for step in range(8):
        b = slice(16 * (step % 4), 16 * (step % 4 + 1))
        ex.arg_dict['data'][:] = x[b]
        ex.arg_dict['softmax_label'][:] = y[b]
        prob = ex.forward(is_train=True)[0]
        losses.append(-np.log(prob.asnumpy()[np.arange(16), y[b].astype(int)]).mean())
        ex.backward()
        for k in ('fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias'):
            mx.nd.sgd_update(ex.arg_dict[k], ex.grad_dict[k], lr=0.1, out=ex.arg_dict[k])
    return {'losses': np.array(losses), 'fc1_weight': ex.arg_dict['fc1_weight'].asnumpy()}


def test_bound_executor_steps(ctx):
    res = same_on_devices(_executor_steps, ctx)
    assert res['losses'][-1] < res['losses'][0]


def _unrolled_lstm(ctx):
    # the unrolled cell's begin state is made inside the graph (zeros with no ctx): it must land on the
    # executor's device, as in MXNet
    cell = mx.rnn.LSTMCell(8, prefix='lstm_')
    outputs, _ = cell.unroll(5, mx.sym.var('data'), layout='NTC', merge_outputs=True)
    net = mx.sym.MakeLoss(mx.sym.sum(outputs))
    ex = net.simple_bind(ctx, data=(3, 5, 4))
    rs = np.random.RandomState(2)
    for k, a in ex.arg_dict.items():
        a[:] = rs.uniform(-0.5, 0.5, a.shape)
    out = ex.forward(is_train=True)[0].asnumpy()
    ex.backward()
    return {'out': out, 'grad': ex.grad_dict['lstm_i2h_weight'].asnumpy()}


def test_unrolled_cell_begin_state_on_the_executor_device(ctx):
    same_on_devices(_unrolled_lstm, ctx)


@pytest.mark.gpu
def test_head_gradients_from_the_cpu_are_copied():
    ex = (mx.sym.var('x') * 2).simple_bind(mx.gpu(0), x=(2, 3))
    ex.arg_dict['x'][:] = 1
    ex.forward(is_train=True)
    ex.backward([mx.nd.ones((2, 3), ctx=mx.cpu())])
    assert ex.grad_dict['x'].context == mx.gpu(0)
    assert ex.grad_dict['x'].asnumpy().tolist() == [[2.0] * 3] * 2
