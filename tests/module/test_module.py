"""mxcompat.module.module: Module's name checks at construction and bind, as MXNet 1.9.1 makes them."""
import warnings

import pytest

import mxcompat as mx


def _net():
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc'), name='softmax')


def test_bind_without_labels_warns_as_mxnet():
    # MXNet 1.9.1: UserWarning "Data provided by label_shapes don't match names specified by label_names
    # ([] vs. ['softmax_label'])" (example/image-classification/benchmark_score.py binds so)
    mod = mx.mod.Module(_net())
    with pytest.warns(UserWarning) as rec:
        mod.bind(data_shapes=[('data', (2, 4))], for_training=False)
    assert [str(w.message) for w in rec] == [
        "Data provided by label_shapes don't match names specified by label_names ([] vs. ['softmax_label'])"]
    assert mod.label_shapes is None


def test_bind_with_other_label_names_warns_then_fails():
    mod = mx.mod.Module(_net())
    with pytest.warns(UserWarning, match=r"label_names \(\[DataDesc\[lab,\(2,\),<class 'numpy.float32'>,NCHW\]\] "
                                         r"vs. \['softmax_label'\]\)"):
        with pytest.raises(mx.base.MXNetError):  # MXNet: KeyError 'lab' from its executor group
            mod.bind(data_shapes=[('data', (2, 4))], label_shapes=[('lab', (2,))])


def test_reshape_without_labels_warns():
    mod = mx.mod.Module(_net())
    mod.bind(data_shapes=[('data', (2, 4))], label_shapes=[('softmax_label', (2,))])
    mod.init_params()
    # (MXNet then fails to infer softmax_label's shape; mxcompat keeps the bound label shape)
    with pytest.warns(UserWarning, match=r"label_names \(\[\] vs. \['softmax_label'\]\)"):
        mod.reshape(data_shapes=[('data', (3, 4))])


def test_matching_labels_do_not_warn():
    mod = mx.mod.Module(_net())
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        mod.bind(data_shapes=[('data', (2, 4))], label_shapes=[('softmax_label', (2,))])
        mx.mod.Module(_net(), label_names=None).bind(data_shapes=[('data', (2, 4))], for_training=False)


def test_data_name_mismatch_raises_value_error():
    mod = mx.mod.Module(_net())
    with pytest.raises(ValueError, match=r"data_shapes don't match names specified by data_names "
                                         r"\(\[DataDesc\[x,\(2, 4\),<class 'numpy.float32'>,NCHW\]\] vs. \['data'\]\)"):
        mod.bind(data_shapes=[('x', (2, 4))])


def test_label_name_not_in_symbol_warns():
    with pytest.warns(UserWarning, match="label_names=\\['y'\\]\\) but input with name 'y' is not found"):
        mx.mod.Module(_net(), label_names=['y'])
    with pytest.raises(ValueError, match="input with name 'x' is not found"):
        mx.mod.Module(_net(), data_names=['x'])


def _prepared(ctx, kvstore, fn, sym=None, label='softmax_label', label_shape=(2,)):
    mod = mx.mod.Module(_net() if sym is None else sym, context=ctx, label_names=[label])
    mod.bind([('data', (2, 4))], [(label, label_shape)])
    mod.init_params()
    mod.init_optimizer(kvstore=kvstore)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter('always')
        mod.prepare(mx.io.DataBatch([mx.nd.ones((2, 4))], [mx.nd.ones(label_shape)]), fn)
    return [str(w.message) for w in rec]


def test_prepare_warns_as_mxnet():
    # what MXNet 1.9.1 warns and calls (example/sparse/linear_classification calls prepare with a row id
    # function on one device, where MXNet warns that the parameters are not updated in the KVStore)
    calls = []

    def row_ids(batch):
        calls.append(batch)
        return {'fc_weight': mx.nd.array([0, 1])}

    not_on_kv = ['Parameters are not updated in the KVStore. No need to call sparse_row_id_fn.']
    assert _prepared(mx.cpu(), 'local', row_ids) == not_on_kv  # one device: no KVStore
    assert _prepared(mx.cpu(), None, row_ids) == not_on_kv
    assert not calls
    two = [mx.cpu(0), mx.cpu(1)]
    assert _prepared(two, 'local', row_ids) == ["fc_weight.stype is not 'row_sparse'. No need to perform "
                                                'row_sparse_pull.']
    assert len(calls) == 1
    assert _prepared(two, 'local', None) == []
    with pytest.raises(AssertionError, match='Expected dict output from sparse_row_id_fn'):
        _prepared(two, 'local', lambda batch: [1])


def test_prepare_row_sparse_weight_and_base_module():
    w = mx.sym.var('w_weight', stype='row_sparse', shape=(4, 3))
    net = mx.sym.LinearRegressionOutput(mx.sym.sparse.dot(mx.sym.var('data', stype='csr'), w), name='out')
    assert _prepared([mx.cpu(0), mx.cpu(1)], 'local', lambda b: {'w_weight': mx.nd.array([0, 1])}, net,
                     'out_label', (2, 3)) == []
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(_net()))
    with pytest.warns(UserWarning, match='^sparse_row_id_fn is not invoked for BaseModule.$'):
        seq.prepare(None, lambda b: {})
