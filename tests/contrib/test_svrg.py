"""mx.contrib.svrg_optimization: SVRGModule and its optimizers against MXNet 1.9.1 (golden scenarios recorded by
tests/fixtures/svrg/gen_svrg.py), plus the rules where mxcompat differs on purpose and the argument errors."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.contrib.svrg_optimization.svrg_module import SVRGModule
from mxcompat.contrib.svrg_optimization.svrg_optimizer import _AssignmentOptimizer, _SVRGOptimizer

from .svrg_golden import assert_arrays_match, gold_json, run, svrg_scenarios


def _log_values(lines):
    """'Epoch[0] Train-mse=29.992619' -> ('Epoch[0] Train-mse', 29.992619)."""
    return [(head, float(val)) for head, val in (line.rsplit('=', 1) for line in lines)]


def _assert_log_matches(name):
    ours, gold = _log_values(run(name)['json']['log']), _log_values(gold_json(name)['log'])
    assert [h for h, _ in ours] == [h for h, _ in gold]
    np.testing.assert_allclose([v for _, v in ours], [v for _, v in gold], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', ['fit_one_device', 'fit_one_device_momentum_wd', 'fit_two_devices_kvstore',
                                  'fit_two_devices_local_updates', 'fit_dataloader'])
def test_fit_matches_mxnet(name):
    """Weights after every epoch, the full gradients, the metric after every batch and the logged metrics."""
    assert_arrays_match(name)
    _assert_log_matches(name)
    assert run(name)['json']['optimizer'] == gold_json(name)['optimizer'] == '_SVRGOptimizer'


def test_manual_steps_match_mxnet():
    """update_full_grads (its running sums are not cleared between passes, as in MXNet), the SVRG-corrected
    gradient of one batch, an Optimizer instance as the inner rule."""
    assert_arrays_match('manual_steps')
    assert run('manual_steps')['json'] == gold_json('manual_steps')


def test_unnamed_fullyconnected_trains_like_a_named_one():
    """A known difference: MXNet routes every key containing 'full' (here fullyconnected0_weight) to the
    assignment rule and its weights blow up; here only the '<param>_full' keys go there."""
    named = svrg_scenarios._fit(mx, 'named', num_epoch=2)
    unnamed = svrg_scenarios._fit(mx, 'unnamed', num_epoch=2, fc_name='fullyconnected0')
    for part in ('weight', 'bias'):
        np.testing.assert_allclose(unnamed['arrays']['final_fullyconnected0_' + part],
                                   named['arrays']['final_fc1_' + part], rtol=1e-6)


def test_bind_binds_the_snapshot_module_for_training_only():
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=1)
    mod = SVRGModule(net, data_names=['data'], label_names=None, update_freq=2)
    with pytest.raises(TypeError, match='DataDescs or'):  # MXNet's test_module_bind
        mod.bind(data_shapes=['data', mx.nd.zeros(shape=(2, 1))])
    mod.bind(data_shapes=[('data', (2, 1))])
    assert mod.binded and mod._mod_aux.binded
    pred = SVRGModule(net, data_names=['data'], label_names=None, update_freq=2)
    pred.bind(data_shapes=[('data', (2, 1))], for_training=False)
    assert pred.binded and not pred._mod_aux.binded
    pred.init_params()
    pred.reshape([('data', (3, 1))])  # the unbound snapshot module is left alone
    pred.forward(mx.io.DataBatch([mx.nd.ones((3, 1))]))
    assert pred.get_outputs()[0].shape == (3, 1)


def test_reshape_forward_backward_update_on_two_devices():
    """MXNet's test_svrgmodule_reshape (skipped upstream as flaky), on two CPU contexts."""
    sym = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=4, name='fc')
    mod = SVRGModule(sym, data_names=['data'], label_names=None, context=[mx.cpu(0), mx.cpu(1)], update_freq=2)
    mod.bind(data_shapes=[('data', (3, 4))])
    mod.init_params()
    mod._mod_aux.init_params()
    mod.init_optimizer(optimizer_params={'learning_rate': 1.0})
    for shape in ((3, 4), (2, 4)):
        mod.reshape(data_shapes=[('data', shape)])
        mod.forward(mx.io.DataBatch(data=[mx.nd.ones(shape)], label=None))
        mod.backward([mx.nd.ones(shape)])
        mod.update()
        assert mod.get_outputs()[0].shape == shape
        assert mod._mod_aux._exec_group.data_shapes[0][1] == shape


def test_optimizer_routes_full_keys_to_assignment():
    """MXNet's test_kvstore_init_aux_keys: index 0 ('weight') takes SGD, index 1 ('weight_full') is assigned."""
    opt = _SVRGOptimizer(default_optimizer='sgd', param_idx2name={0: 'weight', 1: 'weight_full'}, learning_rate=1.0)
    assert isinstance(opt.default_opt, mx.optimizer.SGD) and isinstance(opt.aux_opt, _AssignmentOptimizer)
    kv = mx.kv.create('local')
    kv.set_optimizer(opt)
    w, w_full = mx.nd.array([0, 0, 0]), mx.nd.array([1, 1, 1])
    kv.init(0, w)
    kv.push(0, mx.nd.array([1, 1, 1]))
    kv.pull(0, w)
    kv.init(1, w_full)
    kv.push(1, mx.nd.array([2, 2, 2]))
    kv.pull(1, w_full)
    assert w.asnumpy().tolist() == [-1, -1, -1] and w_full.asnumpy().tolist() == [2, 2, 2]
    # names are accepted as indices too (the store's str keys); a name merely containing 'full' is a parameter
    opt2 = _SVRGOptimizer('sgd', param_idx2name={0: 'fullyconnected0_weight'}, learning_rate=1.0)
    assert opt2._rule_for('fullyconnected0_weight') is opt2.default_opt and opt2._rule_for(0) is opt2.default_opt


def test_optimizer_keeps_base_params_and_passes_all_to_the_inner_rule():
    opt = _SVRGOptimizer(default_optimizer='sgd', learning_rate=-1.0, momentum=0.9, rescale_grad=0.5)
    assert opt.default_opt.lr == -1.0 and opt.default_opt.momentum == 0.9 and opt.default_opt.rescale_grad == 0.5
    assert opt.lr == -1.0 and opt.rescale_grad == 0.5 and not hasattr(opt, 'momentum')
    inner = mx.optimizer.Adam()
    assert _SVRGOptimizer(default_optimizer=inner).default_opt is inner
    assert type(mx.optimizer.create('_SVRGOptimizer', default_optimizer='sgd')) is _SVRGOptimizer


def test_init_optimizer_installs_svrg_optimizer_and_full_keys():
    """MXNet's test_init_svrg_optimizer and test_accumulate_kvstore (the latter skipped upstream)."""
    x, y = svrg_scenarios.regression_data()
    mod = SVRGModule(svrg_scenarios.regression_sym(mx), data_names=['data'], label_names=['lin_reg_label'],
                     update_freq=2)
    it = svrg_scenarios.regression_iter(mx)
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params()
    kv = mx.kv.create('local')
    mod.init_optimizer(kvstore=kv, optimizer='sgd', optimizer_params=(('learning_rate', 0.01),))
    assert type(mod._optimizer) is _SVRGOptimizer and mod._kvstore is kv
    b = [mx.nd.ones((1, 2)) for _ in range(4)]
    mod._accumulate_kvstore('fc1_weight', b)
    assert len(mod._param_dict) == mod._ctx_len == 1
    assert mod._param_dict[0]['fc1_weight'].asnumpy().tolist() == b[0].asnumpy().tolist() == [[4, 4]]
    optimizer = mod._optimizer
    mod.init_optimizer(kvstore=kv)  # already initialised: ignored with a warning (MXNet re-inits the keys and fails)
    assert mod._optimizer is optimizer


def test_fixed_parameters_stay_out_of_the_svrg_sums():
    mod = SVRGModule(svrg_scenarios.regression_sym(mx), data_names=['data'], label_names=['lin_reg_label'],
                     fixed_param_names=['fc1_bias'], update_freq=1)
    mod.fit(svrg_scenarios.regression_iter(mx), eval_metric='mse', num_epoch=2,
            arg_params=svrg_scenarios.init_params(mx), optimizer_params={'learning_rate': 0.01})
    args = mod.get_params()[0]
    assert args['fc1_bias'].asnumpy().tolist() == [np.float32(0.1)]
    assert not np.allclose(args['fc1_weight'].asnumpy(), [[0.3, -0.2]])
    assert mod._param_dict[0]['fc1_bias'].asnumpy().tolist() == [0.0]


@pytest.mark.parametrize('freq, error', [(0, ValueError), (-2, ValueError), (None, TypeError), (2.0, TypeError),
                                         ('2', TypeError)])
def test_update_freq_must_be_a_positive_int(freq, error):
    with pytest.raises(error, match='update_freq') as info:
        SVRGModule(svrg_scenarios.regression_sym(mx), data_names=['data'], label_names=['lin_reg_label'],
                   update_freq=freq)
    assert isinstance(info.value, MXNetError)


def test_errors_before_setup_and_on_unknown_indices():
    mod = SVRGModule(svrg_scenarios.regression_sym(mx), data_names=['data'], label_names=['lin_reg_label'],
                     update_freq=1)
    with pytest.raises(MXNetError, match='bind'):
        mod.init_optimizer()
    it = svrg_scenarios.regression_iter(mx)
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params()
    with pytest.raises(MXNetError, match='init_optimizer'):
        mod.update_full_grads(it)
    mod.init_optimizer()
    empty = mx.io.NDArrayIter(np.zeros((6, 2)), np.zeros(6), batch_size=6, label_name='lin_reg_label')
    empty.next()
    empty.reset = lambda: None  # an iterator with nothing left
    with pytest.raises(MXNetError, match='no batch'):
        mod.update_full_grads(empty)
    with pytest.raises(KeyError, match='not in param_idx2name') as info:
        _SVRGOptimizer('sgd', param_idx2name={0: 'w'}).update(7, mx.nd.ones(1), mx.nd.ones(1), None)
    assert isinstance(info.value, MXNetError)
    with pytest.raises(TypeError, match='default_optimizer'):
        _SVRGOptimizer(default_optimizer=3)
