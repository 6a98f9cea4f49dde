"""mx.gluon.model_zoo.model_store and ``pretrained=True``: file naming, loading a present file, the offline
error, purge."""
import hashlib
import logging
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetValueError
from mxcompat.gluon.model_zoo import model_store, vision

# a closed local port: downloads fail at once instead of waiting for the network
UNREACHABLE = 'http://127.0.0.1:9/'


def _sha1(path):
    with open(path, 'rb') as f:
        return hashlib.sha1(f.read()).hexdigest()


def test_short_hash_and_table():
    assert model_store.short_hash('resnet18_v1') == 'a0666292'
    assert model_store.short_hash('mobilenetv2_0.25') == 'ae8f9392'
    assert len(model_store._model_sha1) == 34
    assert set(model_store._model_sha1) == set(vision._MODELS)
    with pytest.raises(MXNetValueError, match='Pretrained model for resnet19_v1 is not available'):
        model_store.short_hash('resnet19_v1')


def test_offline_error_names_file_and_root(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_GLUON_REPO', UNREACHABLE)
    root = str(tmp_path / 'models')
    with pytest.raises(MXNetError) as info:
        model_store.get_model_file('squeezenet1.1', root=root)
    message = str(info.value)
    assert 'squeezenet1.1-33ba0f93.params' in message and root in message
    assert UNREACHABLE + 'gluon/models/squeezenet1.1-33ba0f93.zip' in message
    assert os.listdir(root) == []  # no temporary zip or folder left behind


def test_pretrained_offline_raises(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_GLUON_REPO', UNREACHABLE)
    with pytest.raises(MXNetError, match='mobilenet0.25-9f83e440.params'):
        vision.get_model('mobilenet0.25', pretrained=True, root=str(tmp_path))


def _saved_net(tmp_path, name, **kwargs):
    """A net of ``name`` with some weights saved under MXNet's structural keys; (net, file)."""
    with mx.name.NameManager():
        net = vision.get_model(name, **kwargs)
    net.initialize(mx.init.Normal(0.5))
    net(mx.nd.ones((1, 3, 32, 32)))
    path = str(tmp_path / 'saved.params')
    net.save_parameters(path)
    return net, path


@pytest.mark.parametrize('name, kwargs, file_name', [
    ('mobilenet0.25', {}, 'mobilenet0.25'),
    ('vgg11_bn', {}, 'vgg11_bn'),
    ('resnet18_v2', {}, 'resnet18_v2'),
])
def test_pretrained_loads_present_file(tmp_path, monkeypatch, name, kwargs, file_name):
    source, saved = _saved_net(tmp_path, name, **kwargs)
    monkeypatch.setitem(model_store._model_sha1, file_name, _sha1(saved))
    monkeypatch.setenv('MXNET_GLUON_REPO', UNREACHABLE)
    root = tmp_path / 'models'
    root.mkdir()
    target = root / ('%s-%s.params' % (file_name, _sha1(saved)[:8]))
    os.replace(saved, target)
    assert model_store.get_model_file(file_name, root=str(root)) == str(target)
    net = vision.get_model(name, pretrained=True, root=str(root), ctx=mx.cpu(), **kwargs)
    x = mx.nd.array(np.random.RandomState(0).uniform(size=(1, 3, 32, 32)))
    np.testing.assert_allclose(net(x).asnumpy(), source(x).asnumpy(), rtol=1e-5, atol=1e-5)


def test_changed_file_is_fetched_again(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv('MXNET_GLUON_REPO', UNREACHABLE)
    path = tmp_path / ('alexnet-%s.params' % model_store.short_hash('alexnet'))
    path.write_bytes(b'not the published file')
    with caplog.at_level(logging.WARNING), pytest.raises(MXNetError, match='not the published file'):
        model_store.get_model_file('alexnet', root=str(tmp_path))
    assert 'Mismatch in the content of model file' in caplog.text


def test_mobilenet_file_names(tmp_path, monkeypatch):
    """Widths map to MXNet's file names: 1.0 -> 'mobilenet1.0', 0.5 -> 'mobilenet0.5', 0.75 -> 'mobilenet0.75'."""
    asked = []
    monkeypatch.setattr(model_store, 'get_model_file', lambda name, root: asked.append(name) or 1 / 0)
    for getter, stem in ((vision.get_mobilenet, 'mobilenet'), (vision.get_mobilenet_v2, 'mobilenetv2_')):
        for width, suffix in ((1.0, '1.0'), (0.75, '0.75'), (0.5, '0.5'), (0.25, '0.25')):
            with pytest.raises(ZeroDivisionError):
                getter(width, pretrained=True, classes=3)
            assert asked.pop() == stem + suffix
    with pytest.raises(ZeroDivisionError):
        vision.vgg16_bn(pretrained=True)
    assert asked.pop() == 'vgg16_bn'
    with pytest.raises(ZeroDivisionError):
        vision.squeezenet1_0(pretrained=True)
    assert asked.pop() == 'squeezenet1.0'


def test_purge(tmp_path):
    for name in ('a.params', 'b.params', 'keep.txt'):
        (tmp_path / name).write_bytes(b'x')
    model_store.purge(root=str(tmp_path))
    assert os.listdir(str(tmp_path)) == ['keep.txt']


def test_defaults_follow_mxnet_home():
    assert model_store._DEFAULT_ROOT == os.path.join(mx.base.data_dir(), 'models')
    assert mx.gluon.model_zoo.model_store is model_store
    assert mx.gluon.model_zoo.vision.get_model is vision.get_model
