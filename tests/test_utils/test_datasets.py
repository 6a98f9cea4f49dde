"""mx.test_utils downloads and datasets: local files only."""
import bz2
import gzip
import os
import struct
import zipfile

import numpy as np
import pytest

from mxcompat import test_utils as tu
from mxcompat.base import MXNetError

def test_download_uses_existing_files_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetError, match='download.*http://example.invalid/a.txt.*network'):
        tu.download('http://example.invalid/a.txt')
    (tmp_path / 'a.txt').write_text('x')
    assert tu.download('http://example.invalid/a.txt') == 'a.txt'
    with pytest.raises(MXNetError):
        tu.download('http://example.invalid/a.txt', overwrite=True)
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'b.bin').write_text('y')
    assert tu.download('http://x/b.bin', dirname='sub') == os.path.join('sub', 'b.bin')
    with pytest.raises(MXNetError):
        tu.download('http://x/c.bin', dirname='new_dir')
    assert (tmp_path / 'new_dir').is_dir()  # created, as MXNet does before downloading


def test_download_model(tmp_path):
    assert tu.download_model('no-such-model', dst_dir=str(tmp_path)) == (None, 0)
    with pytest.raises(MXNetError, match='resnet-18-symbol.json'):
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
    with pytest.raises(MXNetError, match='train-labels-idx1-ubyte.gz'):
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
    with pytest.raises(MXNetError, match='mnist.zip'):
        tu.get_mnist_ubyte()
    with zipfile.ZipFile('data/mnist.zip', 'w') as zf:
        for n in ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
                  't10k-labels-idx1-ubyte'):
            zf.writestr(n, 'x')
    tu.get_mnist_ubyte()
    assert (tmp_path / 'data' / 't10k-labels-idx1-ubyte').exists()
    with pytest.raises(MXNetError, match='cifar10.zip'):
        tu.get_cifar10()
    with pytest.raises(MXNetError, match='mnist.pkl.gz'):
        tu.get_mnist_pkl()
    (tmp_path / 'z').mkdir()
    with zipfile.ZipFile('z/arch.zip', 'w') as zf:
        zf.writestr('inner.txt', 'hello')
    tu.get_zip_data('z', 'http://x/arch.zip', 'arch.zip')  # the archive exists: nothing to do, as MXNet
    assert not (tmp_path / 'z' / 'inner.txt').exists()
    with pytest.raises(MXNetError):
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
