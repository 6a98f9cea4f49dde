"""mx.runtime: MXNet 1.9.1's feature names and error, values from torch."""
import json
import os

import pytest
import torch

import mxcompat.runtime as runtime

GOLD = json.load(open(os.path.join(os.path.dirname(__file__), 'fixtures', 'test_utils', 'test_utils.json')))


def test_feature_names_and_order_match_mxnet():
    assert [f.name for f in runtime.feature_list()] == GOLD['misc']['features']
    assert list(runtime.Features()) == GOLD['misc']['features']


def test_features_is_a_singleton_ordered_dict():
    f = runtime.Features()
    assert f is runtime.Features() and len(f) >= 30 and 'CUDA' in f
    assert repr(f).startswith('[') and ('✖ CUDA' in repr(f) or '✔ CUDA' in repr(f))
    for name in f:
        assert f.is_enabled(name) == f[name].enabled
        assert f.is_enabled(name.lower()) == f[name].enabled


def test_feature_repr_matches_mxnet():
    assert repr(runtime.Feature('CUDA', False)) == GOLD['misc']['feature_repr']
    assert repr(runtime.Feature('OPENMP', True)) == '✔ OPENMP'


def test_unknown_feature_raises_runtime_error_like_mxnet():
    kind, msg = GOLD['errors']['unknown_feature']
    with pytest.raises(RuntimeError) as e:
        runtime.Features().is_enabled('this girl is on fire')
    assert type(e.value).__name__ == kind and str(e.value) == msg


def test_values_come_from_torch():
    f = runtime.Features()
    assert f.is_enabled('CUDA') == torch.cuda.is_available()
    assert f.is_enabled('CUDNN') == (torch.cuda.is_available() and torch.backends.cudnn.is_available())
    assert f.is_enabled('MKLDNN') == torch.backends.mkldnn.is_available()
    assert f.is_enabled('OPENMP') == torch.backends.openmp.is_available()
    blas = [n for n in ('BLAS_OPEN', 'BLAS_ATLAS', 'BLAS_MKL', 'BLAS_APPLE') if f.is_enabled(n)]
    assert len(blas) <= 1
    if 'BLAS_INFO=mkl' in torch.__config__.show():
        assert blas == ['BLAS_MKL']
    for name in ('TVM_OP', 'TENSORRT', 'CUDA_RTC', 'INT64_TENSOR_SIZE', 'DEBUG', 'CAFFE'):
        assert not f.is_enabled(name)


def test_mxnet_runtime_is_importable_through_the_alias():
    import mxcompat
    mxcompat.install_alias()
    import mxnet.runtime
    assert mxnet.runtime.Features() is runtime.Features()
