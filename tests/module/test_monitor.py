"""mx.monitor.Monitor against MXNet 1.9.1's stat lines (values and layout) on a small Module."""
import logging
import re

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetTypeError

from .golden import as_json, gold_json, run

CASES = ['mon%d' % i for i in range(5)]


def _values(text):
    """The numbers in a stat text such as '0.5\t' or '[0.1 0.2]\t'."""
    return [float(v) for v in re.findall(r'[-+0-9.eE]+', text)]


def _same_line(ours, gold):
    """Same step and name, same text layout, values equal to float32 rounding."""
    assert ours[:2] == gold[:2]
    assert ours[2].endswith('\t') and ours[2].startswith('[') == gold[2].startswith('[')
    np.testing.assert_allclose(_values(ours[2]), _values(gold[2]), rtol=2e-6, atol=1e-7, err_msg=str(gold))


# gradients MXNet never computes here (``data`` is bound with grad_req null, a label gets none): MXNet's monitor
# reports whatever its buffer holds at that moment, we report zeros
UNCOMPUTED = {'fc_0_backward_output0', 'softmax_backward_output1'}


def _outputs_and_args(lines, name_of):
    """With monitor_all, the lines both report alike: every forward line (operator inputs, under MXNet's names,
    and outputs), backward outputs and toc's six argument lines (MXNet also reports backward inputs)."""
    body = lines[:-6]
    first_bw = next((i for i, l in enumerate(body) if '_backward_' in name_of(l)), len(body))
    fwd_end = max(i for i in range(first_bw) if '_output' in name_of(body[i])) + 1  # (a backward input may come first)
    return body[:fwd_end] + [l for l in body[fwd_end:] if '_output' in name_of(l)] + lines[-6:]


def _compare(ours, gold):
    assert [l[1] for l in ours] == [l[1] for l in gold]
    for o, g in zip(ours, gold):
        if o[1] in UNCOMPUTED:
            assert not any(_values(o[2])), o
        else:
            _same_line(o, g)


@pytest.mark.parametrize('case', CASES)
def test_stat_lines_match_mxnet(case):
    """toc() after forward/backward/update for 3 batches and toc_print() after an inference forward: every
    operator output, every backward output and every argument, in MXNet's order, with MXNet's values."""
    ours, gold = as_json(run('monitor_cases')['json'][case]), gold_json('monitor_cases')[case]
    assert ours['step'] == gold['step']
    pick = (lambda lines, name_of: _outputs_and_args(lines, name_of)) if case == 'mon1' else (lambda l, n: l)
    assert len(ours['steps']) == len(gold['steps'])
    for ours_step, gold_step in zip(ours['steps'], gold['steps']):
        _compare(pick(ours_step, lambda l: l[1]), pick(gold_step, lambda l: l[1]))
    gold_printed = pick(gold['printed'], lambda l: l.split()[2])
    ours_printed = pick(ours['printed'], lambda l: l.split()[2])
    assert len(ours_printed) == len(gold_printed)
    for o, g in zip(ours_printed, gold_printed):
        assert o[:46] == g[:46]  # 'Batch: {:7d} {:30s} '
        np.testing.assert_allclose(_values(o[46:]), _values(g[46:]), rtol=2e-6)


@pytest.mark.xfail(strict=True, reason='monitor_all: MXNet also reports each backward operator\'s inputs')
def test_all_stat_names_match_mxnet_with_monitor_all():
    ours, gold = as_json(run('monitor_cases')['json']['mon1']), gold_json('monitor_cases')['mon1']
    assert [[l[1] for l in s] for s in ours['steps']] == [[l[1] for l in s] for s in gold['steps']]


def _bound_module():
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2, name='fc'),
                                        name='lro')
    mod = mx.mod.Module(net, label_names=['lro_label'])
    mod.bind([('data', (1, 2))], [('lro_label', (1, 2))])
    mod.init_params()
    return mod


def test_interval_pattern_and_print(caplog):
    mod = _bound_module()
    mon = mx.monitor.Monitor(2, pattern='fc_w.*')
    mod.install_monitor(mon)
    batch = mx.io.DataBatch([mx.nd.ones((1, 2))], [mx.nd.ones((1, 2))])
    seen = []
    for _ in range(4):
        mon.tic()
        mod.forward(batch, is_train=False)
        seen.append([(s, n) for s, n, _ in mon.toc()])
    assert seen == [[(1, 'fc_weight')], [], [(3, 'fc_weight')], []]
    mod.set_params({'fc_weight': mx.nd.full((2, 2), 0.75), 'fc_bias': mx.nd.zeros((2,))}, {})
    with caplog.at_level(logging.INFO):
        mon.tic()
        mon.toc_print()
    assert caplog.messages == ['Batch: {:7d} {:30s} {:s}'.format(5, 'fc_weight', '0.75\t')]


def test_callback_names_and_stat_lists():
    mon = mx.monitor.Monitor(1, stat_func=lambda x: [x.sum(), x.max()])
    mon.tic()
    mon.stat_helper(b'node_output', mx.nd.array([1.0, 2.0]))
    mon.stat_helper('other', mx.nd.array([[1.0, 2.0], [3.0, 4.0]]))
    assert mon.toc() == [(1, 'node_output', '3.0\t2.0\t'), (1, 'other', '10.0\t4.0\t')]
    assert mon.toc() == []
    mon.stat_helper('ignored', mx.nd.ones((1,)))  # not between tic and toc
    assert mon.queue == []


def test_bad_stat_func():
    mon = mx.monitor.Monitor(1, stat_func=lambda x: 3.0)
    mon.tic()
    mon.stat_helper('a', mx.nd.ones((2,)))
    with pytest.raises(MXNetTypeError, match='stat_func'):
        mon.toc()


def test_module_forward_with_a_new_shape_keeps_the_executor_monitor():
    # MXNet 1.9.1 reshapes a Module's executors for a batch of another shape and they keep the monitor callback
    # (upstream test_operator.test_monitor_with_variable_input_shape, whose callback reads C handles)
    dshape = (1, 3, 10, 10)
    sym = mx.sym.Convolution(mx.sym.Variable('data', shape=dshape), kernel=(1, 1), num_filter=1, name='conv')
    mod = mx.mod.Module(symbol=sym, label_names=None)
    mod.bind(for_training=False, data_shapes=[('data', dshape)])
    mod.init_params()
    seen = {}
    mod._exec_group.execs[0].set_monitor_callback(lambda name, arr: seen.setdefault(name, arr.shape),
                                                  monitor_all=True)
    batch = next(iter(mx.io.NDArrayIter(data=mx.nd.ones((1, 3, 10, 14)), batch_size=1)))
    mod.forward(batch, is_train=False)
    assert seen == {'data': (1, 3, 10, 14), 'conv_data': (1, 3, 10, 14), 'conv_weight': (1, 3, 1, 1),
                    'conv_bias': (1,), 'conv_output': (1, 1, 10, 14)}
