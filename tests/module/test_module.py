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
