"""mx.mod.SequentialModule against MXNet 1.9.1 (chained outputs, gradients through the chain, fit) and its rules."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetAssertionError, MXNetError

from .golden import as_json, approx_equal, assert_arrays_match, gold_json, module_scenarios, run


def test_steps_match_mxnet():
    """fc1+relu -> fc2+softmax: outputs, every parameter and input gradient, updated parameters, metric."""
    assert_arrays_match('sequential_steps')
    ours, gold = as_json(run('sequential_steps')['json']), gold_json('sequential_steps')
    assert ours['names'] == gold['names']
    assert approx_equal(ours['metric'], gold['metric'])


def test_fit_matches_mxnet():
    assert_arrays_match('sequential_fit')
    assert approx_equal(as_json(run('sequential_fit')['json'])['score'], gold_json('sequential_fit')['score'])


def test_python_loss_module_matches_mxnet():
    """A PythonLossModule at the end of the chain: its grad_func drives the gradients of the symbol modules."""
    assert_arrays_match('python_loss')
    ours, gold = as_json(run('python_loss')['json']), gold_json('python_loss')
    assert ours['names'] == gold['names']
    assert approx_equal(ours['metric'], gold['metric'])


def _chain(inputs_need_grad=False):
    mod1, mod2, params = module_scenarios._seq_modules(mx)
    seq = mx.mod.SequentialModule().add(mod1).add(mod2, take_labels=True, auto_wiring=True)
    seq.bind([('data', (4, 6))], [('softmax_label', (4,))], inputs_need_grad=inputs_need_grad)
    seq.init_params(arg_params=params)
    return seq, mod1, mod2


def test_chain_wiring_and_input_grads():
    seq, mod1, mod2 = _chain(inputs_need_grad=True)
    assert mod2.data_shapes == [('data', (4, 7))] and mod2.inputs_need_grad and mod1.inputs_need_grad
    assert seq.label_shapes == [('softmax_label', (4,))]
    x = np.random.RandomState(0).uniform(-1, 1, (4, 6)).astype(np.float32)
    seq.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array([0, 1, 2, 0])]))
    g = seq.get_input_grads()[0]
    assert g.shape == (4, 6)
    np.testing.assert_array_equal(g.asnumpy(), mod1.get_input_grads()[0].asnumpy())
    assert set(seq.get_params()[0]) == {'fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias'}


def test_without_take_labels_no_label_shapes():
    mod1, mod2, params = module_scenarios._seq_modules(mx, second='scores')
    seq = mx.mod.SequentialModule().add(mod1).add(mod2, auto_wiring=True)
    seq.bind([('data', (4, 6))], [('softmax_label', (4,))], for_training=False)
    seq.init_params(arg_params=params)
    assert seq.label_shapes is None and seq.output_shapes == [('fc2_output', (4, 3))]
    metric = mx.metric.create('acc')
    seq.forward(mx.io.DataBatch([mx.nd.ones((4, 6))], [mx.nd.zeros((4,))]), is_train=False)
    seq.update_metric(metric, [mx.nd.zeros((4,))])
    assert metric.num_inst == 0


def test_add_resets_state_and_install_monitor_reaches_all():
    seq, mod1, mod2 = _chain()
    mon = mx.monitor.Monitor(1)
    seq.install_monitor(mon)
    assert mon.exes == [mod1._exec_group.execs[0], mod2._exec_group.execs[0]]
    seq.add(mx.mod.PythonLossModule(data_names=('softmax_output',)))
    assert not (seq.binded or seq.params_initialized or seq.optimizer_initialized)
    assert seq.output_names == ['pyloss_output'] and seq.data_names == ['data']


def test_errors():
    seq = mx.mod.SequentialModule()
    assert seq.data_names == [] and seq.output_names == []
    with pytest.raises(MXNetAssertionError, match='Unknown meta "take_label"'):
        seq.add(mx.mod.PythonLossModule(), take_label=True)
    with pytest.raises(MXNetAssertionError, match='empty'):
        seq.bind([('data', (2, 6))])
    with pytest.raises(MXNetError, match='bind'):
        seq.data_shapes  # noqa: B018
    mod1, mod2, _ = module_scenarios._seq_modules(mx)
    seq = mx.mod.SequentialModule().add(mod1).add(mod2, take_labels=True, auto_wiring=True)
    with pytest.raises(MXNetAssertionError, match='for_training'):
        seq.bind([('data', (2, 6))], for_training=False, inputs_need_grad=True)
    with pytest.raises(MXNetAssertionError, match='Shared module'):
        seq.bind([('data', (2, 6))], shared_module=seq)
    with pytest.raises(MXNetAssertionError, match='bind'):
        seq.init_params()
    seq.bind([('data', (2, 6))], [('softmax_label', (2,))])
    with pytest.raises(MXNetError, match='init_params'):
        seq.forward(mx.io.DataBatch([mx.nd.ones((2, 6))]))
    seq.init_params()
    with pytest.raises(MXNetError, match='init_optimizer'):
        seq.update()
    with pytest.raises(MXNetAssertionError, match='inputs_need_grad'):
        seq.get_input_grads()


def test_duplicated_parameter_names_rejected():
    def fc(name_in):
        return mx.mod.Module(mx.sym.FullyConnected(mx.sym.Variable(name_in), num_hidden=6, name='fc'),
                             data_names=[name_in], label_names=None)

    seq = mx.mod.SequentialModule().add(fc('data')).add(fc('x'), auto_wiring=True)
    seq.bind([('data', (2, 6))])
    with pytest.raises(MXNetAssertionError, match='Duplicated parameter names: name "fc_weight" in layer 1'):
        seq.init_params()


def test_without_auto_wiring_names_must_match():
    mod1, _, _ = module_scenarios._seq_modules(mx)
    mod2 = mx.mod.Module(mx.sym.FullyConnected(mx.sym.Variable('relu1_output'), num_hidden=3, name='fc2'),
                         data_names=['relu1_output'], label_names=None)
    seq = mx.mod.SequentialModule().add(mod1).add(mod2)
    seq.bind([('data', (2, 6))])
    assert mod2.data_shapes == [('relu1_output', (2, 7))]
    bad = mx.mod.SequentialModule().add(module_scenarios._seq_modules(mx)[0]).add(
        mx.mod.Module(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc2'), label_names=None))
    with pytest.raises(MXNetError, match='data_names'):
        bad.bind([('data', (2, 6))])
