"""Vision datasets read from their standard local files.

Differs from MXNet: nothing is downloaded. MNIST/FashionMNIST read the IDX files (``*-ubyte.gz`` or unpacked)
found in ``root``; CIFAR10/CIFAR100 read the binary batches (in ``root`` or in the official archive's folder, or
extracted from the archive if that is in ``root``) or else the python-pickle batches. Files are not checked against
MXNet's SHA-1 sums, so subsets and re-packed copies load too. A missing file raises ``MXNetError`` naming what to
put where.
"""
import gzip
import os
import pickle
import struct
import tarfile
import warnings

import numpy as np

from ..dataset import Dataset, RecordFileDataset, _DownloadedDataset
from ....base import MXNetError, data_dir
from .... import ndarray as nd

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100', 'ImageRecordDataset', 'ImageFolderDataset']

_REPO = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/'


def _missing(cls, root, names, where):
    return MXNetError('%s: cannot find %s in %s. mxcompat never downloads datasets: put %s there (%s)'
                      % (cls, ' and '.join(names), root, 'it' if len(names) == 1 else 'them', where))


# ---- MNIST ---------------------------------------------------------------------------------------------------------
def _read_idx(path, ndim):
    """An IDX file (optionally gzipped) of unsigned bytes -> numpy uint8 array of ``ndim`` dimensions."""
    opener = gzip.open if path.endswith('.gz') else open
    try:
        with opener(path, 'rb') as f:
            raw = f.read()
    except OSError as e:
        raise MXNetError('cannot read IDX file %s: %s' % (path, e)) from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 8 or raw[3] != ndim:
        raise MXNetError('%s is not an IDX file of %d-D unsigned bytes (header %r)' % (path, ndim, raw[:4]))
    dims = struct.unpack('>%dI' % ndim, raw[4:4 + 4 * ndim])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise MXNetError('IDX file %s: header says %s but it holds %d bytes of data' % (path, dims, body.size))
    return body.reshape(dims)


def _find(root, name):
    """``root/name``, or the unpacked file when ``name`` is a .gz that is not there."""
    path = os.path.join(root, name)
    if os.path.isfile(path):
        return path
    if name.endswith('.gz') and os.path.isfile(path[:-3]):
        return path[:-3]
    return None


class MNIST(_DownloadedDataset):
    """MNIST digits: samples are (uint8 NDArray of shape (28, 28, 1), int32 label). ``transform(data, label)``
    is applied to each sample when given. Reads ``train-images-idx3-ubyte.gz`` & co from ``root``."""

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'mnist'), train=True, transform=None):
        self._train = train
        self._train_data = ('train-images-idx3-ubyte.gz', '6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d')
        self._train_label = ('train-labels-idx1-ubyte.gz', '2a80914081dc54586dbdf242f9805a6b8d2a15fc')
        self._test_data = ('t10k-images-idx3-ubyte.gz', 'c3a25af1f52dad7f726cce8cacb138654b760d48')
        self._test_label = ('t10k-labels-idx1-ubyte.gz', '763e7fa3757d93b0cdec073cef058b2004252c17')
        self._namespace = 'mnist'
        super().__init__(root, transform)

    def _get_data(self):
        data, label = (self._train_data, self._train_label) if self._train else (self._test_data, self._test_label)
        data_file, label_file = _find(self._root, data[0]), _find(self._root, label[0])
        if data_file is None or label_file is None:
            raise _missing(type(self).__name__, self._root, [data[0], label[0]],
                           'from %s%s/ or any MNIST-format copy, gzipped or not' % (_REPO, self._namespace))
        labels = _read_idx(label_file, 1)
        images = _read_idx(data_file, 3)
        if len(images) != len(labels):
            raise MXNetError('%s: %s holds %d images but %s holds %d labels'
                             % (type(self).__name__, data_file, len(images), label_file, len(labels)))
        self._data = nd.array(images[..., None], dtype=np.uint8)
        self._label = labels.astype(np.int32)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando): MNIST's format and sample layout. Reads the IDX files from ``root``."""

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'fashion-mnist'), train=True, transform=None):
        self._train = train
        self._train_data = ('train-images-idx3-ubyte.gz', '0cf37b0d40ed5169c6b3aba31069a9770ac9043d')
        self._train_label = ('train-labels-idx1-ubyte.gz', '236021d52f1e40852b06a4c3008d8de8aef1e40b')
        self._test_data = ('t10k-images-idx3-ubyte.gz', '626ed6a7c06dd17c0eec72fa3be1740f146a2863')
        self._test_label = ('t10k-labels-idx1-ubyte.gz', '17f9ab60e7257a1620f4ad76bbbaf857c3920701')
        self._namespace = 'fashion-mnist'
        _DownloadedDataset.__init__(self, root, transform)


# ---- CIFAR ---------------------------------------------------------------------------------------------------------
def _extract(archive, root):
    with tarfile.open(archive) as tar:
        try:
            tar.extractall(root, filter='data')
        except TypeError:  # Python without extraction filters
            tar.extractall(root)


def _locate(root, names, subdir):
    """The paths of ``names`` in ``root`` or ``root/subdir``, or None if one is missing."""
    paths = []
    for name in names:
        for folder in (root, os.path.join(root, subdir)):
            if os.path.isfile(os.path.join(folder, name)):
                paths.append(os.path.join(folder, name))
                break
        else:
            return None
    return paths


class CIFAR10(_DownloadedDataset):
    """CIFAR-10: samples are (uint8 NDArray of shape (32, 32, 3), int32 label). Reads ``data_batch_1.bin`` ...
    ``test_batch.bin`` (or the python batches ``data_batch_1`` ... ``test_batch``) from ``root``."""

    _binary_dir, _python_dir, _python_archive = 'cifar-10-batches-bin', 'cifar-10-batches-py', 'cifar-10-python.tar.gz'
    _label_keys = (b'labels',)
    _n_labels = 1

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar10'), train=True, transform=None):
        self._train = train
        self._archive_file = ('cifar-10-binary.tar.gz', 'fab780a1e191a7eda0f345501ccd62d20f7ed891')
        self._train_data = [('data_batch_1.bin', 'aadd24acce27caa71bf4b10992e9e7b2d74c2540'),
                            ('data_batch_2.bin', 'c0ba65cce70568cd57b4e03e9ac8d2a5367c1795'),
                            ('data_batch_3.bin', '1dd00a74ab1d17a6e7d73e185b69dbf31242f295'),
                            ('data_batch_4.bin', 'aab85764eb3584312d3c7f65fd2fd016e36a258e'),
                            ('data_batch_5.bin', '26e2849e66a845b7f1e4614ae70f4889ae604628')]
        self._test_data = [('test_batch.bin', '67eb016db431130d61cd03c7ad570b013799c88c')]
        self._namespace = 'cifar10'
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, filename):
        n_labels = self._n_labels
        with open(filename, 'rb') as fin:
            raw = np.frombuffer(fin.read(), dtype=np.uint8)
        if raw.size % (3072 + n_labels):
            raise MXNetError('%s: %s is not a CIFAR binary batch (%d bytes is not a multiple of %d)'
                             % (type(self).__name__, filename, raw.size, 3072 + n_labels))
        raw = raw.reshape(-1, 3072 + n_labels)
        return raw[:, n_labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), \
            raw[:, self._label_column()].astype(np.int32)

    def _read_python_batch(self, filename):
        with open(filename, 'rb') as fin:
            batch = pickle.load(fin, encoding='bytes')
        data = np.asarray(batch[b'data'], dtype=np.uint8).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return data, np.asarray(batch[self._label_keys[self._label_column()]], dtype=np.int32)

    def _get_data(self):
        files = self._train_data if self._train else self._test_data
        names = [name for name, _ in files]
        py_names = [os.path.splitext(name)[0] for name in names]
        paths = _locate(self._root, names, self._binary_dir)
        if paths is None and os.path.isfile(os.path.join(self._root, self._archive_file[0])):
            _extract(os.path.join(self._root, self._archive_file[0]), self._root)
            paths = _locate(self._root, names, self._binary_dir)
        reader = self._read_batch
        if paths is None:
            paths = _locate(self._root, py_names, self._python_dir)
            if paths is None and os.path.isfile(os.path.join(self._root, self._python_archive)):
                _extract(os.path.join(self._root, self._python_archive), self._root)
                paths = _locate(self._root, py_names, self._python_dir)
            reader = self._read_python_batch
        if paths is None:
            raise _missing(type(self).__name__, self._root, names,
                           'or the python batches %s, or the archive %s from %s%s/ or %s'
                           % (', '.join(py_names), self._archive_file[0], _REPO, self._namespace, self._python_archive))
        data, label = zip(*(reader(p) for p in paths))
        data = np.concatenate(data)
        self._data = nd.array(data, dtype=data.dtype)
        self._label = np.concatenate(label)


class CIFAR100(CIFAR10):
    """CIFAR-100: samples are (uint8 NDArray (32, 32, 3), int32 label); ``fine_label`` picks the 100 fine classes
    instead of the 20 coarse ones. Reads ``train.bin``/``test.bin`` (or the python ``train``/``test``)."""

    _binary_dir, _python_dir, _python_archive = 'cifar-100-binary', 'cifar-100-python', 'cifar-100-python.tar.gz'
    _label_keys = (b'coarse_labels', b'fine_labels')
    _n_labels = 2

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar100'), fine_label=False, train=True,
                 transform=None):
        self._train = train
        self._archive_file = ('cifar-100-binary.tar.gz', 'a0bb982c76b83111308126cc779a992fa506b90b')
        self._train_data = [('train.bin', 'e207cd2e05b73b1393c74c7f5e7bea451d63e08e')]
        self._test_data = [('test.bin', '8fb6623e830365ff53cf14adec797474f5478006')]
        self._fine_label = fine_label
        self._namespace = 'cifar100'
        _DownloadedDataset.__init__(self, root, transform)

    def _label_column(self):
        return 1 if self._fine_label else 0


# ---- images in records / folders -----------------------------------------------------------------------------------
class ImageRecordDataset(RecordFileDataset):
    """Images packed in a RecordIO file: samples are (decoded HxWxC uint8 NDArray, header label). ``flag`` 1
    decodes to RGB, 0 to grayscale."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        from .... import image, recordio
        header, img = recordio.unpack(super().__getitem__(idx))
        img = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(Dataset):
    """Images in ``root/<class name>/<file>.{jpg,jpeg,png}``: samples are (HxWxC uint8 NDArray, class index).
    ``synsets`` lists the class names (sorted folders), ``items`` the (path, label) pairs."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = ['.jpg', '.jpeg', '.png']
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        if not os.path.isdir(root):
            raise MXNetError('ImageFolderDataset: %s is not a directory (expected root/<class>/<image> files)'
                             % root)
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn('Ignoring %s, which is not a directory.' % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn('Ignoring %s of type %s. Only support %s' % (filename, ext, ', '.join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        from .... import image
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
