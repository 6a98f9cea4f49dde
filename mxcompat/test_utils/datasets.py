"""Downloads (through ``requests``, as MXNet) and the data sets built on them."""
import bz2
import gzip
import logging
import os
import struct
import zipfile

import numpy as np

import mxcompat as mx
from ..gluon.utils import _http_get, _to_temp_file, replace_file

__all__ = ['download', 'download_model', 'get_mnist', 'get_mnist_pkl', 'get_mnist_ubyte', 'get_cifar10',
           'get_mnist_iterator', 'get_zip_data', 'get_bz2_data']


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """The local file name for ``url`` (``fname``, or the URL's last part, in ``dirname``): an existing file is kept
    unless ``overwrite``; otherwise it is fetched with ``requests``, ``retries`` more attempts after a failure."""
    assert retries >= 0, 'Number of retries should be at least 0'
    fname = url.split('/')[-1] if fname is None else fname
    if dirname is not None:
        fname = os.path.join(dirname, fname)
    folder = os.path.dirname(fname) if dirname is None else dirname
    if folder and not os.path.exists(folder):
        try:
            logging.info('create directory %s', folder)
            os.makedirs(folder, exist_ok=True)
        except OSError:
            raise OSError('failed to create ' + folder)
    if not overwrite and os.path.exists(fname):
        logging.info('%s exists, skipping download', fname)
        return fname
    while True:
        try:
            r = _http_get(url, fname)
            assert r.status_code == 200, 'failed to open %s' % url
            replace_file(_to_temp_file(r, fname), fname)
            break
        except Exception:  # noqa: BLE001 (retry on any failure, as MXNet)
            retries -= 1
            if retries <= 0:
                raise
            print('download failed, retrying, {} attempt{} left'.format(retries, 's' if retries > 1 else ''))
    logging.info('downloaded %s into %s successfully', url, fname)
    return fname


def _default_models():
    """MXNet's model name -> {'symbol': url, 'params': url} table (data.mxnet.io)."""
    base = 'http://data.mxnet.io/models/'
    paths = {'imagenet1k-inception-bn': ('imagenet/inception-bn/', 'Inception-BN', '0126')}
    for depth in (18, 34, 50, 101, 152):
        paths['imagenet1k-resnet-%d' % depth] = ('imagenet/resnet/%d-layers/' % depth, 'resnet-%d' % depth, '0000')
    for name in ('50', '101', '101-64x4d'):
        paths['imagenet1k-resnext-' + name] = ('imagenet/resnext/%s-layers/' % name.split('-')[0],
                                               'resnext-' + name, '0000')
    paths['imagenet11k-resnet-152'] = ('imagenet-11k/resnet-152/', 'resnet-152', '0000')
    for depth in ('152', '50'):
        paths['imagenet11k-place365ch-resnet-' + depth] = ('imagenet-11k-place365-ch/', 'resnet-' + depth, '0000')
    return {name: {'symbol': base + d + f + '-symbol.json', 'params': base + d + f + '-%s.params' % epoch}
            for name, (d, f, epoch) in paths.items()}


def download_model(model_name, dst_dir='./', meta_info=None):
    """(path prefix, 0) after ``<dst_dir>/<model_name>-symbol.json`` and ``-0000.params`` are there (downloaded
    when absent); (None, 0) for a name neither ``meta_info`` nor MXNet's model list has."""
    meta_info = dict(_default_models() if meta_info is None else meta_info)
    if model_name not in meta_info:
        return (None, 0)
    if not os.path.isdir(dst_dir):
        os.mkdir(dst_dir)
    urls = dict(meta_info[model_name])
    prefix = os.path.join(dst_dir, model_name)
    for key, suffix, complaint in (('symbol', '-symbol.json', 'missing symbol url'),
                                   ('params', '-0000.params', 'mssing parameter file url')):
        assert key in urls, complaint
        download(urls[key], prefix + suffix)
    return (prefix, 0)


_MNIST_URL = 'http://data.mxnet.io/data/mnist/'


def _read_mnist(label_url, image_url):
    with gzip.open(download(label_url)) as flbl:
        struct.unpack('>II', flbl.read(8))
        label = np.frombuffer(flbl.read(), dtype=np.int8)
    with gzip.open(download(image_url), 'rb') as fimg:
        _, _, rows, cols = struct.unpack('>IIII', fimg.read(16))
        image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), rows, cols)
        image = image.reshape(image.shape[0], 1, 28, 28).astype(np.float32) / 255
    return label, image


def get_mnist():
    """MNIST as a dict of numpy arrays (train/test data and labels), from the four ``*-ubyte.gz`` files in the
    current directory (mxcompat does not download them)."""
    train_lbl, train_img = _read_mnist(_MNIST_URL + 'train-labels-idx1-ubyte.gz',
                                       _MNIST_URL + 'train-images-idx3-ubyte.gz')
    test_lbl, test_img = _read_mnist(_MNIST_URL + 't10k-labels-idx1-ubyte.gz', _MNIST_URL + 't10k-images-idx3-ubyte.gz')
    return {'train_data': train_img, 'train_label': train_lbl, 'test_data': test_img, 'test_label': test_lbl}


def get_mnist_pkl():
    """``data/mnist.pkl.gz``, downloaded when absent."""
    if not os.path.isdir('data'):
        os.makedirs('data')
    if not os.path.exists('data/mnist.pkl.gz'):
        download('http://deeplearning.net/data/mnist/mnist.pkl.gz', dirname='data')


def _extract_zip_into_data(url, wanted):
    if not os.path.isdir('data'):
        os.makedirs('data')
    if not all(os.path.exists(os.path.join('data', f)) for f in wanted):
        with zipfile.ZipFile(download(url, dirname='data')) as zf:
            zf.extractall('data')


def get_mnist_ubyte():
    """Unpacks ``data/mnist.zip`` (downloaded when absent) into ``data/`` unless the four ubyte files are there."""
    _extract_zip_into_data('http://data.mxnet.io/mxnet/data/mnist.zip',
                           ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
                            't10k-labels-idx1-ubyte'])


def get_cifar10():
    """Unpacks ``data/cifar10.zip`` into ``data/`` unless ``data/cifar/{train,test}.{rec,lst}`` exist."""
    _extract_zip_into_data('http://data.mxnet.io/mxnet/data/cifar10.zip',
                           ['cifar/train.rec', 'cifar/test.rec', 'cifar/train.lst', 'cifar/test.lst'])


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, val) ``mx.io.MNISTIter`` over the ubyte files of ``get_mnist_ubyte``."""
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    # MXNet also passes input_shape, which MNISTIter ignores; left out here so that it is not warned about
    common = dict(batch_size=batch_size, flat=flat, num_parts=num_parts, part_index=part_index)
    train = mx.io.MNISTIter(image='data/train-images-idx3-ubyte', label='data/train-labels-idx1-ubyte',
                            shuffle=True, **common)
    val = mx.io.MNISTIter(image='data/t10k-images-idx3-ubyte', label='data/t10k-labels-idx1-ubyte', **common)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """Download ``url`` into ``data_dir`` and unpack it, unless ``data_dir/data_origin_name`` exists."""
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(data_origin_name) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Decompress ``data_dir/data_origin_name`` into ``data_dir/data_name`` (then delete the former) unless the
    latter exists; the compressed file is downloaded from ``url`` when absent."""
    data_name = os.path.join(data_dir, data_name)
    if not os.path.exists(data_name):
        data_origin_name = download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(data_origin_name, 'rb') as src, open(data_name, 'wb') as dst:
            for line in src:
                dst.write(line)
        os.remove(data_origin_name)


def _make_dummy_iter():
    class DummyIter(mx.io.DataIter):
        """A data iterator that returns the first batch of ``real_iter`` forever (for speed tests)."""

        def __init__(self, real_iter):
            super().__init__()
            self.real_iter = real_iter
            # keep the wrapped iterator's description, then take its first batch once
            for attr in ('batch_size', 'provide_data', 'provide_label'):
                setattr(self, attr, getattr(real_iter, attr))
            self.the_batch = next(real_iter)

        def next(self):
            return self.the_batch

        def __iter__(self):
            return self

    return DummyIter
