"""mx.test_utils downloads (requests mocked) and datasets."""
import bz2
import gzip
import os
import struct
import zipfile
from unittest import mock

import numpy as np
import pytest

from mxcompat import test_utils as tu

def _offline(url, **kwargs):
    raise OSError('offline: ' + url)


class _Response:
    def __init__(self, status, content):
        self.status_code, self.content = status, content

    def iter_content(self, chunk_size=1024):
        for i in range(0, len(self.content), chunk_size):
            yield self.content[i:i + chunk_size]


def test_download_keeps_existing_files_and_fetches_missing_ones(tmp_path, monkeypatch):
    # MXNet 1.9.1: requests.get(url, stream=True) for a missing file (or overwrite=True); an existing one is kept
    monkeypatch.chdir(tmp_path)
    with mock.patch('requests.get', return_value=_Response(200, b'abc')) as get:
        assert tu.download('http://example.invalid/a.txt') == 'a.txt'
    get.assert_called_once_with('http://example.invalid/a.txt', stream=True)
    assert (tmp_path / 'a.txt').read_bytes() == b'abc'
    with mock.patch('requests.get') as get:
        assert tu.download('http://example.invalid/a.txt') == 'a.txt'
    get.assert_not_called()
    with mock.patch('requests.get', return_value=_Response(200, b'new')):
        tu.download('http://example.invalid/a.txt', overwrite=True)
    assert (tmp_path / 'a.txt').read_bytes() == b'new'
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'b.bin').write_text('y')
    assert tu.download('http://x/b.bin', dirname='sub') == os.path.join('sub', 'b.bin')
    with mock.patch('requests.get', return_value=_Response(200, b'c')):
        assert tu.download('http://x/c.bin', fname='d.bin', dirname='new_dir') == os.path.join('new_dir', 'd.bin')
    assert (tmp_path / 'new_dir' / 'd.bin').read_bytes() == b'c'


def test_download_retries_then_raises_the_last_error(tmp_path, monkeypatch, capsys):
    # MXNet: `retries` attempts in all; each failure but the last prints how many are left; the last one raises
    monkeypatch.chdir(tmp_path)
    with mock.patch('requests.get', return_value=_Response(404, b'')) as get:
        with pytest.raises(AssertionError, match='failed to open http://x/e.bin'):
            tu.download('http://x/e.bin', retries=3)
    assert get.call_count == 3
    assert capsys.readouterr().out == ('download failed, retrying, 2 attempts left\n'
                                       'download failed, retrying, 1 attempt left\n')
    with mock.patch('requests.get', side_effect=OSError('offline')) as get:
        with pytest.raises(OSError, match='offline'):
            tu.download('http://x/e.bin', retries=0)
    assert get.call_count == 1
    with pytest.raises(AssertionError, match='retries should be at least 0'):
        tu.download('http://x/e.bin', retries=-1)


class _Broken(_Response):
    def iter_content(self, chunk_size=1024):
        yield self.content
        raise OSError('connection reset')


def test_an_interrupted_download_leaves_no_partial_file(tmp_path, monkeypatch):
    # the body goes to a temporary file moved into place when complete: a later call must not take half a file for
    # the download (it would skip it as existing)
    monkeypatch.chdir(tmp_path)
    with mock.patch('requests.get', return_value=_Broken(200, b'half')), pytest.raises(OSError, match='reset'):
        tu.download('http://x/p.bin', retries=1)
    assert os.listdir(tmp_path) == []
    with mock.patch('requests.get', return_value=_Response(200, b'whole')):
        assert tu.download('http://x/p.bin') == 'p.bin'
    assert open('p.bin', 'rb').read() == b'whole' and os.listdir(tmp_path) == ['p.bin']


def test_download_model(tmp_path):
    assert tu.download_model('no-such-model', dst_dir=str(tmp_path)) == (None, 0)
    with mock.patch('requests.get', side_effect=_offline), pytest.raises(OSError, match='resnet-18-symbol.json'):
        tu.download_model('imagenet1k-resnet-18', dst_dir=str(tmp_path))
    for suffix in ('-symbol.json', '-0000.params'):
        (tmp_path / ('imagenet1k-resnet-18' + suffix)).write_text('{}')
    assert tu.download_model('imagenet1k-resnet-18', dst_dir=str(tmp_path)) == \
        (os.path.join(str(tmp_path), 'imagenet1k-resnet-18'), 0)


def _write_idx(path, labels, images):
    with gzip.open(path[0], 'wb') as f:
        f.write(struct.pack('>II', 2049, len(labels)) + np.array(labels, np.int8).tobytes())
    with gzip.open(path[1], 'wb') as f:
        f.write(struct.pack('>IIII', 2051, len(labels), 28, 28) + images.astype(np.uint8).tobytes())


def test_get_mnist_from_local_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with mock.patch('requests.get', side_effect=_offline), pytest.raises(OSError, match='train-labels-idx1-ubyte.gz'):
        tu.get_mnist()
    imgs = np.arange(2 * 28 * 28).reshape(2, 28, 28) % 256
    _write_idx(('train-labels-idx1-ubyte.gz', 'train-images-idx3-ubyte.gz'), [3, 7], imgs)
    _write_idx(('t10k-labels-idx1-ubyte.gz', 't10k-images-idx3-ubyte.gz'), [1], imgs[:1])
    d = tu.get_mnist()
    assert d['train_data'].shape == (2, 1, 28, 28) and d['train_data'].dtype == np.float32
    np.testing.assert_allclose(d['train_data'][1, 0], imgs[1] / 255.0, rtol=1e-6)
    assert d['train_label'].tolist() == [3, 7] and d['test_label'].tolist() == [1]
    assert d['test_data'].shape == (1, 1, 28, 28)


def test_zip_and_bz2_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with mock.patch('requests.get', side_effect=_offline), pytest.raises(OSError, match='mnist.zip'):
        tu.get_mnist_ubyte()
    with zipfile.ZipFile('data/mnist.zip', 'w') as zf:
        for n in ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
                  't10k-labels-idx1-ubyte'):
            zf.writestr(n, 'x')
    tu.get_mnist_ubyte()
    assert (tmp_path / 'data' / 't10k-labels-idx1-ubyte').exists()
    with mock.patch('requests.get', side_effect=_offline), pytest.raises(OSError, match='cifar10.zip'):
        tu.get_cifar10()
    with mock.patch('requests.get', side_effect=_offline), pytest.raises(OSError, match='mnist.pkl.gz'):
        tu.get_mnist_pkl()
    (tmp_path / 'z').mkdir()
    with zipfile.ZipFile('z/arch.zip', 'w') as zf:
        zf.writestr('inner.txt', 'hello')
    tu.get_zip_data('z', 'http://x/arch.zip', 'arch.zip')  # the archive exists: nothing to do, as MXNet
    assert not (tmp_path / 'z' / 'inner.txt').exists()
    with mock.patch('requests.get', side_effect=_offline), pytest.raises(OSError, match='other.zip'):
        tu.get_zip_data('z2', 'http://x/other.zip', 'other.zip')
    with bz2.open('z/data.bz2', 'wb') as f:
        f.write(b'line1\nline2\n')
    tu.get_bz2_data('z', 'data.txt', 'http://x/data.bz2', 'data.bz2')
    assert (tmp_path / 'z' / 'data.txt').read_bytes() == b'line1\nline2\n'
    assert not (tmp_path / 'z' / 'data.bz2').exists()


def test_get_mnist_iterator_warns_nothing(tmp_path, monkeypatch):
    """MXNet's get_mnist_iterator hands MNISTIter an input_shape it ignores silently; ours warns about nothing."""
    import warnings
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'data').mkdir()
    imgs = np.arange(4 * 28 * 28).reshape(4, 28, 28) % 256
    for pre in ('train', 't10k'):
        with open('data/%s-labels-idx1-ubyte' % pre, 'wb') as f:
            f.write(struct.pack('>II', 2049, 4) + np.array([0, 1, 2, 3], np.int8).tobytes())
        with open('data/%s-images-idx3-ubyte' % pre, 'wb') as f:
            f.write(struct.pack('>IIII', 2051, 4, 28, 28) + imgs.astype(np.uint8).tobytes())
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        train, val = tu.get_mnist_iterator(2, (1, 28, 28))
    assert train.provide_data[0].shape == (2, 1, 28, 28)
    train, _ = tu.get_mnist_iterator(2, (784,))
    assert train.provide_data[0].shape == (2, 784)
