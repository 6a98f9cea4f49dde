"""mx.gluon.data.vision datasets on tiny files in the standard formats (tiny_files.py), against what MXNet 1.9.1
reads from the same files (goldens: vision in gluon_data.json, ds_*/folder_*/record_* in gluon_data.npz)."""
import gzip
import os
import shutil
import tarfile
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.gluon.data import DataLoader, vision

from ..golden import ARR, GOLD, same, tiny_files

G = GOLD['vision']


@pytest.fixture(scope='module')
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp('datasets')
    tiny_files.write_mnist(str(r / 'mnist'))
    tiny_files.write_cifar10(str(r / 'cifar10'))
    tiny_files.write_cifar100(str(r / 'cifar100'))
    tiny_files.write_image_folder(str(r / 'folder'))
    tiny_files.write_record(str(r / 'imgs'), mx.recordio)
    return r


def check(name, ds):
    ref = G[name]
    d0, l0 = ds[0]
    assert len(ds) == ref['len']
    assert [type(d0).__name__, np.dtype(d0.dtype).name, list(d0.shape), type(l0).__name__] == \
        [ref['data_type'], ref['data_dtype'], ref['data_shape'], ref['label_type']]
    assert [int(ds[i][1]) for i in range(len(ds))] == ref['labels']
    np.testing.assert_array_equal(np.stack([ds[i][0].asnumpy() for i in range(len(ds))]), ARR['ds_' + name])


@pytest.mark.parametrize('train', [True, False])
def test_mnist_and_fashion(root, train):
    check('mnist_%s' % train, vision.MNIST(str(root / 'mnist'), train=train))
    check('fashion_%s' % train, vision.FashionMNIST(str(root / 'mnist'), train=train))


@pytest.mark.parametrize('train', [True, False])
def test_cifar(root, train):
    check('cifar10_%s' % train, vision.CIFAR10(str(root / 'cifar10'), train=train))
    for fine in (False, True):
        check('cifar100_%s_%s' % (train, fine), vision.CIFAR100(str(root / 'cifar100'), fine_label=fine, train=train))


def test_transform_argument(root):
    tr = vision.MNIST(str(root / 'mnist'), transform=lambda d, l: (d.astype('float32') / 255, l + 1))
    ref = G['mnist_transform']
    same(tr[1][0].sum(), ref[0], rtol=1e-5)
    assert int(tr[1][1]) == ref[1]


def test_mnist_unpacked_files(tmp_path):
    tiny_files.write_mnist(str(tmp_path))
    for name in os.listdir(tmp_path):
        with open(tmp_path / name, 'rb') as f, open(tmp_path / name[:-3], 'wb') as g:
            g.write(gzip.decompress(f.read()))
        os.remove(tmp_path / name)
    check('mnist_True', vision.MNIST(str(tmp_path)))


def test_cifar_python_batches_and_archives(tmp_path):
    tiny_files.write_cifar10(str(tmp_path / 'py'), python=True)
    check('cifar10_True', vision.CIFAR10(str(tmp_path / 'py')))
    tiny_files.write_cifar100(str(tmp_path / 'py100'), python=True)
    check('cifar100_False_True', vision.CIFAR100(str(tmp_path / 'py100'), fine_label=True, train=False))
    # the official binary archive, extracted on first use (no network)
    tiny_files.write_cifar10(str(tmp_path / 'src' / 'cifar-10-batches-bin'))
    os.makedirs(tmp_path / 'arch')
    with tarfile.open(tmp_path / 'arch' / 'cifar-10-binary.tar.gz', 'w:gz') as tar:
        tar.add(str(tmp_path / 'src' / 'cifar-10-batches-bin'), arcname='cifar-10-batches-bin')
    check('cifar10_False', vision.CIFAR10(str(tmp_path / 'arch'), train=False))
    assert os.path.isfile(tmp_path / 'arch' / 'cifar-10-batches-bin' / 'test_batch.bin')
    shutil.rmtree(tmp_path / 'src')


class _Served:
    """A stand-in for requests.get's answer: the bytes of a local file."""
    status_code = 200

    def __init__(self, data):
        self.data = data

    def iter_content(self, chunk_size=1024):
        for k in range(0, len(self.data), chunk_size):
            yield self.data[k:k + chunk_size]


def test_absent_files_are_downloaded(tmp_path, monkeypatch):
    # MXNet 1.9.1 on the same tiny files, served by a stand-in requests (the generator: fetches and labels as here)
    repo = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/'
    src = tmp_path / 'src'
    tiny_files.write_mnist(str(src))
    tiny_files.write_cifar10(str(src / 'c10'))
    with tarfile.open(str(src / 'cifar-10-binary.tar.gz'), 'w:gz') as tar:
        for name in sorted(os.listdir(src / 'c10')):
            tar.add(str(src / 'c10' / name), arcname=name)
    urls = []

    def http_get(url, fname, **kwargs):
        urls.append(url)
        return _Served((src / url.split('/')[-1]).read_bytes())
    monkeypatch.delenv('MXNET_GLUON_REPO', raising=False)
    monkeypatch.setattr(mx.gluon.utils, '_http_get', http_get)
    ds = vision.MNIST(str(tmp_path / 'm' / 'sub'), train=False)  # the folder is made
    assert [int(ds[i][1]) for i in range(len(ds))] == [4, 4, 2]
    assert sorted(os.listdir(tmp_path / 'm' / 'sub')) == ['t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz']
    ds = vision.CIFAR10(str(tmp_path / 'c'), train=False)
    assert [int(ds[i][1]) for i in range(len(ds))] == [8, 7, 6]
    batches = ['data_batch_%d.bin' % k for k in range(1, 6)] + ['test_batch.bin']
    assert sorted(os.listdir(tmp_path / 'c')) == ['cifar-10-binary.tar.gz'] + batches
    assert urls == [repo + 'mnist/t10k-images-idx3-ubyte.gz', repo + 'mnist/t10k-labels-idx1-ubyte.gz',
                    repo + 'cifar10/cifar-10-binary.tar.gz']
    vision.MNIST(str(tmp_path / 'm' / 'sub'), train=False)  # there now: nothing fetched
    assert len(urls) == 3


def test_failed_downloads_name_what_to_put_where(tmp_path, monkeypatch):
    def http_get(url, fname, **kwargs):
        raise OSError('no network')
    monkeypatch.setattr(mx.gluon.utils, '_http_get', http_get)
    with pytest.raises(MXNetError, match=r'could not fetch .*mnist/t10k-images-idx3-ubyte.gz .*put the file at '):
        vision.MNIST(str(tmp_path), train=False)
    with pytest.raises(MXNetError, match=r'could not fetch .*fashion-mnist/train-images'):
        vision.FashionMNIST(str(tmp_path))
    with pytest.raises(MXNetError, match=r'could not fetch .*cifar10/cifar-10-binary.tar.gz'):
        vision.CIFAR10(str(tmp_path))
    with pytest.raises(MXNetError, match=r'could not fetch .*cifar100/cifar-100-binary.tar.gz'):
        vision.CIFAR100(str(tmp_path), train=False)


def test_corrupt_files(tmp_path):
    tiny_files.write_mnist(str(tmp_path))
    with open(tmp_path / 'train-labels-idx1-ubyte.gz', 'wb') as f:
        f.write(b'garbage!')
    with pytest.raises(MXNetError, match='train-labels-idx1-ubyte.gz'):
        vision.MNIST(str(tmp_path))
    with open(tmp_path / 'test.bin', 'wb') as f:
        f.write(b'\0' * 100)
    with open(tmp_path / 'train.bin', 'wb') as f:
        f.write(b'\0' * 100)
    with pytest.raises(MXNetError, match='not a CIFAR binary batch'):
        vision.CIFAR100(str(tmp_path))


def test_image_folder(root):
    ref = G['folder']
    folder = str(root / 'folder')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        ds = vision.ImageFolderDataset(folder)
        gray = vision.ImageFolderDataset(folder, flag=0)
    assert len(w) == 2 * ref['warnings']
    assert ds.synsets == ref['synsets']
    assert [[os.path.relpath(p, folder), l] for p, l in ds.items] == ref['items']
    assert [ds[i][1] for i in range(len(ds))] == ref['labels']
    for i in range(len(ds)):
        np.testing.assert_array_equal(ds[i][0].asnumpy(), ARR['folder_%d' % i])
        np.testing.assert_array_equal(gray[i][0].asnumpy(), ARR['folder_gray_%d' % i])
    # MXNet 1.9.1 lets os.listdir raise: FileNotFoundError for a missing root, NotADirectoryError for a file
    with pytest.raises(FileNotFoundError, match='No such file or directory'):
        vision.ImageFolderDataset(str(root / 'nope'))
    with pytest.raises(NotADirectoryError):
        vision.ImageFolderDataset(str(root / 'imgs.rec'))


def test_image_record(root):
    ref = G['record']
    ds = vision.ImageRecordDataset(str(root / 'imgs.rec'))
    assert len(ds) == ref['len']
    assert [np.asarray(ds[i][1]).tolist() for i in range(len(ds))] == ref['labels']
    assert [type(ds[i][1]).__name__ for i in range(len(ds))] == ref['label_types']
    gray = vision.ImageRecordDataset(str(root / 'imgs.rec'), flag=0)
    assert [list(gray[i][0].shape) for i in range(len(ds))] == ref['gray_shapes']
    for i in range(len(ds)):
        np.testing.assert_array_equal(ds[i][0].asnumpy(), ARR['record_%d' % i])
    loader = DataLoader(ds.transform_first(lambda x: x.astype('float32').sum()), batch_size=2)
    same([b for b in loader], G['record_loader'])


def _sum_first(x):
    return x.astype('float32').sum()


def test_image_record_with_worker_processes(root):
    ds = vision.ImageRecordDataset(str(root / 'imgs.rec')).transform_first(_sum_first)
    batches = list(DataLoader(ds, batch_size=2, num_workers=2))
    ref = G['record_loader']
    for b, r in zip(batches, ref):
        np.testing.assert_allclose(b[0].asnumpy(), np.asarray(r[0]['v']), rtol=1e-6)
        assert str(b[0].context) == 'cpu_shared(0)'
