"""Synthetic stand-ins for what MXNet 1.9.1's Python tutorials download, in the originals' formats.

Usage:  python make_data_tut.py BASE
writes
  BASE/mxnet_home/datasets/{mnist,fashion-mnist}   IDX files (Gluon's MNIST / FashionMNIST)
  BASE/mxnet_home/datasets/cifar10                 CIFAR-10 binary batches
  BASE/mxnet_home/models/NAME-SHORTHASH.params     model-zoo weights initialized by MXNet 1.9.1 (the oracle) after
                                                   mx.random.seed(0), so both sides load the same weights
  BASE/hub/<URL's last part>                       what mx.test_utils.download / gluon.utils.download fetch (the
                                                   requests stand-in of tests/d2l/harness/stubs serves them): small
                                                   generated pictures, ImageNet's label files, archives of pictures,
                                                   MNIST's IDX files (mx.test_utils.get_mnist), Omniglot's folders
Fixed seeds: the same files on every run.
"""
import io
import json
import gzip
import os
import subprocess
import sys
import tarfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'd2l', 'harness'))

import make_data  # noqa: E402
import make_data_cv  # noqa: E402

# Gluon datasets: (train images, test images); CIFAR-10: (records per batch file, test records)
SIZES = {'mnist': (1000, 200), 'fashion-mnist': (1000, 200), 'cifar10': (200, 100)}
# model-zoo files the tutorials load with pretrained=True: name -> MXNet's model_store short hash
ZOO = {'alexnet': '44335d1f', 'densenet121': 'f27dbf2d', 'mobilenet0.5': '8e9d539c', 'resnet18_v1': 'a0666292',
       'resnet50_v2': 'ecdde353'}
# downloaded pictures: URL's last part -> (height, width, format)
PICTURES = {
    'cat.jpg': (240, 320, 'JPEG'), 'cat.jpg?raw=true': (240, 320, 'JPEG'), '0.jpg': (300, 400, 'JPEG'),
    'dog.jpg?raw=true': (256, 320, 'JPEG'), '365px-Golden_Retriever_medium-to-light-coat.jpg': (240, 365, 'JPEG'),
    'super_res_input.jpg': (224, 224, 'JPEG'),
}


def synset():
    """ImageNet's synset.txt: 1000 lines 'nXXXXXXXX label, other label'."""
    return ''.join('n%08d class %d, thing %d\n' % (1440764 + i, i, i) for i in range(1000))


def picture_folders(n_classes, per_class, prefix, size, seed):
    """{path: JPEG bytes} of ``n_classes`` folders of pictures under ``prefix``."""
    rng = np.random.RandomState(seed)
    files = {}
    for c in range(n_classes):
        for k in range(per_class):
            img = make_data_cv._picture(rng, size, size, c, n_classes)
            files['%s/class_%03d/image_%04d.jpg' % (prefix, c, k)] = make_data_cv._encode(img, 'JPEG', quality=85)
    return files


def separable_mnist(folder, n_train, n_test, seed=4):
    """MNIST's four IDX .gz files, digits a per-class template plus light noise: the MNIST tutorial asserts a
    validation accuracy above 0.98 after its 10 epochs."""
    rng = np.random.RandomState(seed)
    templates = rng.randint(0, 256, size=(10, 28, 28)).astype(np.float64)
    for prefix, n in (('train', n_train), ('t10k', n_test)):
        labels = rng.randint(0, 10, size=n).astype(np.uint8)
        images = np.clip(templates[labels] + rng.normal(0, 20, size=(n, 28, 28)), 0, 255).astype(np.uint8)
        for kind, arr in (('images-idx3', images), ('labels-idx1', labels)):
            with gzip.GzipFile(os.path.join(folder, '%s-%s-ubyte.gz' % (prefix, kind)), 'wb', mtime=0) as f:
                f.write(make_data._idx(arr))


def omniglot(path, seed=3):
    """images_background.tar.gz: the two Omniglot alphabets the custom-loss tutorial reads (105x105 grey PNGs in
    ALPHABET/characterNN/ folders), which its reader unpacks by hand."""
    rng = np.random.RandomState(seed)
    files = {}
    for alphabet in ('Tifinagh', 'Inuktitut_(Canadian_Aboriginal_Syllabics)'):
        for c in range(4):
            for k in range(5):
                grey = make_data_cv._picture(rng, 105, 105, c, 4)[..., 0]
                files['images_background/%s/character%02d/%02d.png' % (alphabet, c + 1, k)] = \
                    make_data_cv._encode(grey, 'PNG')
    tar_gz(path, files)


def tar_gz(path, files):
    with tarfile.open(path, 'w:gz') as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 1336694400
            t.addfile(info, io.BytesIO(data))


def zoo_model(folder, name, short):
    """$MXNET_HOME/models/NAME-SHORT.params made by the oracle (make_data_cv.MODEL_SCRIPT)."""
    dest = os.path.join(folder, '%s-%s.params' % (name, short))
    if os.path.isfile(dest):
        return
    os.makedirs(folder, exist_ok=True)
    oracle = os.environ.get('D2L_ORACLE_PYTHON', '/root/.mxnet-oracle/bin/python')
    subprocess.run([oracle, '-c', make_data_cv.MODEL_SCRIPT, name, dest + '.tmp'],
                   env=dict(os.environ, OMP_NUM_THREADS='1'), check=True, stdout=subprocess.DEVNULL)
    os.replace(dest + '.tmp', dest)


def write(base, models=True):
    hub, home = os.path.join(base, 'hub'), os.path.join(base, 'mxnet_home')
    os.makedirs(hub, exist_ok=True)
    make_data.fashion_mnist(os.path.join(home, 'datasets', 'mnist'), *SIZES['mnist'], seed=1)
    make_data.fashion_mnist(os.path.join(home, 'datasets', 'fashion-mnist'), *SIZES['fashion-mnist'])
    make_data_cv.cifar10(os.path.join(home, 'datasets', 'cifar10'), *SIZES['cifar10'])
    rng = np.random.RandomState(0)
    for name, (h, w, fmt) in PICTURES.items():
        with open(os.path.join(hub, name), 'wb') as f:
            f.write(make_data_cv._encode(make_data_cv._picture(rng, h, w, 3, 10), fmt))
    with open(os.path.join(hub, 'synset.txt'), 'w') as f:
        f.write(synset())
    with open(os.path.join(hub, 'image_net_labels.json'), 'w') as f:
        json.dump(['class %d' % i for i in range(1000)], f)
    separable_mnist(hub, *SIZES['mnist'])  # mx.test_utils.get_mnist's files
    omniglot(os.path.join(hub, 'images_background.tar.gz'))
    tar_gz(os.path.join(hub, '101_ObjectCategories.tar.gz'), picture_folders(4, 6, '101_ObjectCategories', 64, 1))
    tar_gz(os.path.join(hub, 'lfw-deepfunneled.tgz'), picture_folders(8, 8, 'lfw-deepfunneled', 250, 2))
    if models:
        for name, short in ZOO.items():
            zoo_model(os.path.join(home, 'models'), name, short)


if __name__ == '__main__':
    write(sys.argv[1])
