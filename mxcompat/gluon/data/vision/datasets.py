"""Vision datasets read from their standard local files.

MNIST/FashionMNIST read the IDX files (``*-ubyte.gz`` or unpacked) found in ``root``; CIFAR10/CIFAR100 read the
binary batches (in ``root`` or in the official archive's folder, or extracted from the archive if that is in
``root``) or else the python-pickle batches. What is missing is downloaded as MXNet does, from MXNet's Gluon
repository (``$MXNET_GLUON_REPO``, gluon.utils.download): MNIST's files one by one, CIFAR's binary archive, extracted
into ``root``. Differs from MXNet: files are not checked against MXNet's SHA-1 sums (a file that is there is used,
so subsets and re-packed copies load too).
"""
import gzip
import os
import pickle
import struct
import warnings

import numpy as np

from ..dataset import Dataset, RecordFileDataset, _DownloadedDataset
from ...utils import download, _get_repo_file_url
from ...._fileio import extract_archive
from ....base import MXNetError, data_dir
from .... import ndarray as nd, image, recordio
from ....numpy import multiarray as _mx_np
from ....util import is_np_array

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100', 'ImageRecordDataset', 'ImageFolderDataset']

_REPO = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/'


def _arrays(images, labels):
    """(labels, images) as the datasets keep them: images an NDArray and labels a numpy array, or both ``mx.np``
    arrays under NumPy array semantics (as MXNet: items are then (mx.np image, 0-d mx.np label))."""
    if is_np_array():
        return _mx_np.array(labels, dtype=labels.dtype), _mx_np.array(images, dtype=images.dtype)
    return labels, nd.array(images, dtype=images.dtype)


def _missing(cls, root, names, where):
    return MXNetError('%s: cannot find %s in %s: put %s there (%s)'
                      % (cls, ' and '.join(names), root, 'it' if len(names) == 1 else 'them', where))


def _download(namespace, name, root):
    """MXNet's Gluon repository file ``gluon/dataset/<namespace>/<name>`` downloaded into ``root`` (made if
    absent, as MXNet's datasets make it); returns its path."""
    os.makedirs(root, exist_ok=True)
    return download(_get_repo_file_url('gluon/dataset/' + namespace, name), path=root)


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

    _namespace = 'mnist'
    # (images, labels) by `train`; MXNet's SHA-1 sums are not kept since nothing is verified
    _split_files = {True: ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
                    False: ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'mnist'), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        cls = type(self).__name__
        wanted = self._split_files[bool(self._train)]
        # the images, then the labels, each downloaded if absent (MXNet's order)
        found = [_find(self._root, name) or _download(self._namespace, name, self._root) for name in wanted]
        image_path, label_path = found
        images, labels = _read_idx(image_path, 3), _read_idx(label_path, 1)
        if images.shape[0] != labels.shape[0]:
            raise MXNetError('%s: %s holds %d images but %s holds %d labels'
                             % (cls, image_path, images.shape[0], label_path, labels.shape[0]))
        self._label, self._data = _arrays(np.expand_dims(images, -1), labels.astype(np.int32))


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando): MNIST's format, file names and sample layout. Reads the IDX files from ``root``."""

    _namespace = 'fashion-mnist'

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'fashion-mnist'), train=True, transform=None):
        super().__init__(root, train, transform)


# ---- CIFAR ---------------------------------------------------------------------------------------------------------
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

    _namespace = 'cifar10'
    _binary_dir, _python_dir, _python_archive = 'cifar-10-batches-bin', 'cifar-10-batches-py', 'cifar-10-python.tar.gz'
    _binary_archive = 'cifar-10-binary.tar.gz'
    _split_files = {True: ['data_batch_%d.bin' % k for k in range(1, 6)], False: ['test_batch.bin']}
    _label_keys = (b'labels',)  # python batches: the label lists, by label column

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar10'), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, filename):
        # a binary record: one label byte per label key, then the 3x32x32 image
        head = len(self._label_keys)
        with open(filename, 'rb') as fin:
            flat = np.frombuffer(fin.read(), dtype=np.uint8)
        if flat.size % (head + 3072):
            raise MXNetError('%s: %s is not a CIFAR binary batch (%d bytes is not a multiple of %d)'
                             % (type(self).__name__, filename, flat.size, head + 3072))
        records = flat.reshape(-1, head + 3072)
        return _hwc(records[:, head:]), records[:, self._label_column()].astype(np.int32)

    def _read_python_batch(self, filename):
        with open(filename, 'rb') as fin:
            batch = pickle.load(fin, encoding='bytes')
        labels = batch[self._label_keys[self._label_column()]]
        return _hwc(np.asarray(batch[b'data'], dtype=np.uint8)), np.asarray(labels, dtype=np.int32)

    def _find_batches(self, names, folder, archive):
        """Paths of the batches (binary or python), extracting ``archive`` first if only that is in root."""
        paths = _locate(self._root, names, folder)
        packed = os.path.join(self._root, archive)
        if paths is None and os.path.isfile(packed):
            extract_archive(packed, self._root)
            paths = _locate(self._root, names, folder)
        return paths

    def _get_data(self):
        names = self._split_files[bool(self._train)]
        py_names = [os.path.splitext(name)[0] for name in names]
        # binary batches first, python pickles as the fallback
        for reader, wanted, folder, archive in (
                (self._read_batch, names, self._binary_dir, self._binary_archive),
                (self._read_python_batch, py_names, self._python_dir, self._python_archive)):
            paths = self._find_batches(wanted, folder, archive)
            if paths is not None:
                break
        else:  # none there: MXNet's binary archive, downloaded into root and extracted
            _download(self._namespace, self._binary_archive, self._root)
            reader, paths = self._read_batch, self._find_batches(names, self._binary_dir, self._binary_archive)
        if paths is None:
            raise _missing(type(self).__name__, self._root, names,
                           'or the python batches %s, or the archive %s from %s%s/ or %s'
                           % (', '.join(py_names), self._binary_archive, _REPO, self._namespace,
                              self._python_archive))
        images, labels = [], []
        for path in paths:
            img, lab = reader(path)
            images.append(img)
            labels.append(lab)
        self._label, self._data = _arrays(np.concatenate(images), np.concatenate(labels))


class CIFAR100(CIFAR10):
    """CIFAR-100: samples are (uint8 NDArray (32, 32, 3), int32 label); ``fine_label`` picks the 100 fine classes
    instead of the 20 coarse ones. Reads ``train.bin``/``test.bin`` (or the python ``train``/``test``)."""

    _namespace = 'cifar100'
    _binary_dir, _python_dir, _python_archive = 'cifar-100-binary', 'cifar-100-python', 'cifar-100-python.tar.gz'
    _binary_archive = 'cifar-100-binary.tar.gz'
    _split_files = {True: ['train.bin'], False: ['test.bin']}
    _label_keys = (b'coarse_labels', b'fine_labels')

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar100'), fine_label=False, train=True,
                 transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_column(self):
        return int(bool(self._fine_label))


def _hwc(rows):
    """Flat CHW rows of 32x32 RGB images -> an (N, 32, 32, 3) view."""
    return rows.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)


# ---- images in records / folders -----------------------------------------------------------------------------------
def _apply(transform, img, label):
    return (img, label) if transform is None else transform(img, label)


class ImageRecordDataset(RecordFileDataset):
    """Images packed in a RecordIO file: samples are (decoded HxWxC uint8 NDArray, header label). ``flag`` 1
    decodes to RGB, 0 to grayscale."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag, self._transform = flag, transform

    def __getitem__(self, idx):
        header, payload = recordio.unpack(super().__getitem__(idx))
        return _apply(self._transform, image.imdecode(payload, self._flag), header.label)


class ImageFolderDataset(Dataset):
    """Images in ``root/<class name>/<file>.{jpg,jpeg,png}``: samples are (HxWxC uint8 NDArray, class index).
    ``synsets`` lists the class names (sorted folders), ``items`` the (path, label) pairs."""

    def __init__(self, root, flag=1, transform=None):
        self._exts = ['.jpg', '.jpeg', '.png']
        self._flag, self._transform = flag, transform
        self._root = os.path.expanduser(root)
        self._list_images(self._root)

    def _images_in(self, folder):
        """The image files of one class folder, sorted; others are skipped with a warning (as MXNet)."""
        for entry in sorted(os.listdir(folder)):
            path = os.path.join(folder, entry)
            ext = os.path.splitext(path)[1]
            if ext.lower() in self._exts:
                yield path
            else:
                warnings.warn('Ignoring %s of type %s. Only support %s' % (path, ext, ', '.join(self._exts)))

    def _list_images(self, root):
        self.synsets, self.items = [], []
        # (a missing root or a file raises os.listdir's FileNotFoundError / NotADirectoryError, as in MXNet)
        for entry in sorted(os.listdir(root)):
            folder = os.path.join(root, entry)
            if os.path.isdir(folder):
                # the class index is the folder's rank among the (sorted) class folders
                self.items.extend((path, len(self.synsets)) for path in self._images_in(folder))
                self.synsets.append(entry)
            else:
                warnings.warn('Ignoring %s, which is not a directory.' % folder, stacklevel=3)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        path, label = self.items[idx]
        return _apply(self._transform, image.imread(path, self._flag), label)
