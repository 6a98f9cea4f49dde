"""Synthetic stand-ins for the data sets of D2L v0.17.6's computer-vision chapter, in the originals' formats and
folder layouts; make_data.py calls ``write(base, profile)`` for each size profile. Into base/hub (served to
d2l.download() by the requests stand-in, by URL basename):

  hotdog.zip                    hotdog/{train,test}/{hotdog,not-hotdog}/N.png (RGB PNGs of varied sizes)
  banana-detection.zip          banana-detection/bananas_{train,val}/images/N.png (256x256 RGB) and label.csv
                                ('img_name,label,xmin,ymin,xmax,ymax', pixel corners, class 0)
  VOCtrainval_11-May-2012.tar   VOCdevkit/VOC2012/JPEGImages/NAME.jpg, SegmentationClass/NAME.png (palette PNGs
                                with VOC's palette, objects outlined in the 'void' index 255 as the originals) and
                                ImageSets/Segmentation/{train,val}.txt; some images are smaller than the book's
                                320x480 crop, as in VOC, so the book's filter drops them
  kaggle_cifar10_tiny.zip       kaggle_cifar10_tiny/trainLabels.csv ('id,label'), train/ID.png, test/ID.png (32x32)
  kaggle_dog_tiny.zip           kaggle_dog_tiny/labels.csv ('id,breed'), train/ID.jpg, test/ID.jpg (hex ids)

and into base/mxnet_home:

  datasets/cifar10/data_batch_{1..5}.bin, test_batch.bin
                                CIFAR-10's binary batches (a label byte, then 3x32x32 bytes, per record), what
                                gluon.data.vision.CIFAR10 reads
  models/{resnet18_v2-a81db45f,resnet34_v2-9d6b80bb,vgg19-ad2f660d}.params
                                Gluon model-zoo files under the names MXNet's model_store expects: the zoo nets
                                initialized by REAL MXNet (the oracle) after mx.random.seed(0) with MSRA-scaled
                                Gaussian weights (so activations keep their scale through the depth), the ResNets'
                                BatchNorm running statistics from 30 training passes over a batch of noise, and
                                saved with save_parameters, so both sides load the same weights

Images are smooth class-dependent patterns with a little noise (they compress well and classifiers see something);
everything comes from fixed seeds. Sizes are the same in every profile (the chapter runs in 'small'). They are the
smallest that run each section's book code as far as it goes cheaply: the training loops of image-augmentation,
fine-tuning, fcn, kaggle-cifar10 and kaggle-dog compute ``(i + 1) % (num_batches // 5)`` and so stop with
ZeroDivisionError after their first step (on MXNet too) unless an epoch has at least 5 batches, which at the book's
batch sizes, image sizes and epochs costs MXNet 10 to 70 minutes a section on one CPU thread (FULL says what each
needs; ``D2L_CV_FULL=1`` writes those sizes). The banana set lets SSD train to its end (one batch an epoch); VOC's
has the segmentation section's batch of 64 and one test batch of 32 for FCN.
"""
import io
import os
import shutil
import subprocess
import sys
import tarfile

import numpy as np
from PIL import Image

from make_data import write_zip

# examples per split (FULL: what makes every training loop reach its end, >= 5 batches an epoch and a validation
# batch; written instead when D2L_CV_FULL=1, for runs with a long --timeout: MXNet needs about 10 to 70 minutes
# a section on one CPU thread; neural-style's 500 epochs of VGG-19 at 450x300 take about an hour whatever the data)
SIZES = dict(cifar10=(8, 16),            # train records in each of the 5 batches, test records
             hotdog=(8, 4),              # per class: train, test (the section shows 8 of each class)
             banana=(10, 4),             # train, val (the book shows 10 training images)
             voc=(66, 4, 34, 2),         # train kept, train too small, val kept, val too small
             kaggle_cifar10=(5, 5),      # train per class (10 classes), test
             kaggle_dog=(8, 5, 4))       # train per breed, breeds, test
FULL = dict(cifar10=(205, 256),          # 1025: 5 batches of 256 (resnet18, 10 epochs)
            hotdog=(257, 50),            # 514: 5 batches of 128 at 224x224 (resnet18_v2, 2 x 5 epochs)
            banana=(32, 8),
            voc=(160, 4, 34, 2),         # 5 batches of 32 at 320x480, one test batch (5 epochs)
            kaggle_cifar10=(40, 5),      # 4 per class held out: one validation batch of 32 (2 x 20 epochs)
            kaggle_dog=(40, 8, 8))       # 4 per breed held out: one validation batch (2 x 10 epochs)

CIFAR_CLASSES = ['airplane', 'automobile', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck']
DOG_BREEDS = ['affenpinscher', 'afghan_hound', 'african_hunting_dog', 'airedale',
              'american_staffordshire_terrier', 'appenzeller', 'australian_terrier', 'basenji']
MODELS = {'resnet18_v2': 'a81db45f', 'resnet34_v2': '9d6b80bb', 'vgg19': 'ad2f660d'}


def _picture(rng, h, w, cls, n_classes, noise=6.0):
    """An (h, w, 3) uint8 image: a smooth background and a blob whose colour and place depend on ``cls``."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    hue = 2 * np.pi * cls / max(n_classes, 1)
    base = np.stack([np.cos(hue + k * 2.1) for k in range(3)]) * 60 + 128
    grad = (xx / w - 0.5)[..., None] * rng.uniform(-60, 60, 3) + (yy / h - 0.5)[..., None] * rng.uniform(-60, 60, 3)
    img = base + grad
    cy, cx = rng.uniform(0.3, 0.7) * h, rng.uniform(0.3, 0.7) * w
    r = rng.uniform(0.15, 0.3) * min(h, w)
    blob = ((yy - cy) ** 2 + (xx - cx) ** 2 < r * r)[..., None]
    img = np.where(blob, 255 - base, img) + rng.normal(0, noise, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def _encode(array, fmt, **kwargs):
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format=fmt, **kwargs)
    return buf.getvalue()




def _tar(path, files):
    """An uncompressed tar of ``files`` ({name: bytes}) with its folders, fixed times and owners."""
    with tarfile.open(path, 'w', format=tarfile.GNU_FORMAT) as t:
        dirs = sorted({os.path.dirname(name[:i]) for name in files for i in range(len(name)) if name[i] == '/'}
                      | {os.path.dirname(name) for name in files})
        for d in dirs:
            if d:
                info = tarfile.TarInfo(d)
                info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1336694400
                t.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 1336694400
            t.addfile(info, io.BytesIO(data))


def cifar10(folder, n_per_batch, n_test, seed=0):
    rng = np.random.RandomState(seed)
    os.makedirs(folder, exist_ok=True)
    names = ['data_batch_%d.bin' % k for k in range(1, 6)] + ['test_batch.bin']
    for name in names:
        n = n_test if name == 'test_batch.bin' else n_per_batch
        labels = rng.randint(0, 10, size=n)
        records = [np.concatenate([[lab], _picture(rng, 32, 32, lab, 10).transpose(2, 0, 1).ravel()])
                   for lab in labels]
        with open(os.path.join(folder, name), 'wb') as f:
            f.write(np.asarray(records, dtype=np.uint8).tobytes())


def hotdog(path, n_train, n_test, seed=0):
    rng = np.random.RandomState(seed)
    files = {}
    for split, n in (('train', n_train), ('test', n_test)):
        k = 0
        for cls, folder in enumerate(('hotdog', 'not-hotdog')):
            for _ in range(n):
                h, w = rng.randint(40, 72), rng.randint(40, 72)
                files['hotdog/%s/%s/%d.png' % (split, folder, k)] = _encode(_picture(rng, h, w, cls, 2), 'PNG')
                k += 1
    write_zip(path, files)


def bananas(path, n_train, n_val, seed=0):
    rng = np.random.RandomState(seed)
    files = {}
    for split, n in (('bananas_train', n_train), ('bananas_val', n_val)):
        rows = ['img_name,label,xmin,ymin,xmax,ymax']
        for i in range(n):
            img = _picture(rng, 256, 256, i % 7, 7, noise=0.0)
            bw, bh = rng.randint(30, 60), rng.randint(30, 60)
            x0, y0 = rng.randint(0, 256 - bw), rng.randint(0, 256 - bh)
            yy, xx = np.mgrid[0:bh, 0:bw]
            inside = ((yy - bh / 2) / (bh / 2)) ** 2 + ((xx - bw / 2) / (bw / 2)) ** 2 < 1
            patch = img[y0:y0 + bh, x0:x0 + bw]
            patch[inside] = (230, 200, 40)
            files['banana-detection/%s/images/%d.png' % (split, i)] = _encode(img, 'PNG')
            rows.append('%d.png,0,%d,%d,%d,%d' % (i, x0, y0, x0 + bw, y0 + bh))
        files['banana-detection/%s/label.csv' % split] = '\n'.join(rows) + '\n'
    write_zip(path, files)


def _voc_palette():
    """VOC's 256-entry palette: the bits of the index spread over R, G, B from the high bit down."""
    pal = []
    for i in range(256):
        r = g = b = 0
        c = i
        for j in range(8):
            r |= ((c >> 0) & 1) << (7 - j)
            g |= ((c >> 1) & 1) << (7 - j)
            b |= ((c >> 2) & 1) << (7 - j)
            c >>= 3
        pal += [r, g, b]
    return pal


def voc2012(path, n_train, n_train_small, n_val, n_val_small, seed=0):
    rng = np.random.RandomState(seed)
    palette = _voc_palette()
    root = 'VOCdevkit/VOC2012/'
    files, lists, k = {}, {}, 0
    for split, n, n_small in (('train', n_train, n_train_small), ('val', n_val, n_val_small)):
        names = []
        portrait = {j * (n + n_small) // n_small for j in range(n_small)}
        for i in range(n + n_small):
            # VOC's images are 500 wide (landscape, kept by the 320x480 crop) or 500 high (portrait, dropped)
            h, w = (500, 375) if i in portrait else (375, 500)
            name = '%d_%06d' % (2007 + k % 5, 32 + 7 * k)
            k += 1
            label = np.zeros((h, w), dtype=np.uint8)
            yy, xx = np.mgrid[0:h, 0:w]
            for _ in range(rng.randint(1, 4)):
                cls = rng.randint(1, 21)
                cy, cx = rng.randint(0, h), rng.randint(0, w)
                ry, rx = rng.randint(40, 160), rng.randint(40, 160)
                d = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2
                label[(d < 1.0) & (d >= 0.9)] = 255
                label[d < 0.9] = cls
            rgb = np.asarray(palette, dtype=np.float64).reshape(256, 3)[label]
            img = np.clip(0.5 * rgb + _picture(rng, h, w, i % 5, 5) * 0.5, 0, 255).astype(np.uint8)
            files[root + 'JPEGImages/%s.jpg' % name] = _encode(img, 'JPEG', quality=75)
            pimg = Image.fromarray(label, mode='P')
            pimg.putpalette(palette)
            buf = io.BytesIO()
            pimg.save(buf, format='PNG')
            files[root + 'SegmentationClass/%s.png' % name] = buf.getvalue()
            names.append(name)
        lists[split] = names
    for split in ('train', 'val'):
        files[root + 'ImageSets/Segmentation/%s.txt' % split] = ''.join(n + '\n' for n in lists[split]).encode()
    files[root + 'ImageSets/Segmentation/trainval.txt'] = ''.join(
        n + '\n' for n in sorted(lists['train'] + lists['val'])).encode()
    _tar(path, files)


def kaggle_cifar10(path, n_per_class, n_test, seed=0):
    rng = np.random.RandomState(seed)
    files, rows = {}, ['id,label']
    labels = [c for c in range(10) for _ in range(n_per_class)]
    rng.shuffle(labels)
    for i, cls in enumerate(labels):
        files['kaggle_cifar10_tiny/train/%d.png' % (i + 1)] = _encode(_picture(rng, 32, 32, cls, 10), 'PNG')
        rows.append('%d,%s' % (i + 1, CIFAR_CLASSES[cls]))
    for i in range(n_test):
        files['kaggle_cifar10_tiny/test/%d.png' % (i + 1)] = _encode(
            _picture(rng, 32, 32, rng.randint(10), 10), 'PNG')
    files['kaggle_cifar10_tiny/trainLabels.csv'] = '\n'.join(rows) + '\n'
    write_zip(path, files)


def kaggle_dog(path, n_per_breed, n_breeds, n_test, seed=0):
    rng = np.random.RandomState(seed)
    files, rows = {}, ['id,breed']
    breeds = [b for b in range(n_breeds) for _ in range(n_per_breed)]
    rng.shuffle(breeds)

    def ident():
        return ''.join('%02x' % v for v in rng.randint(0, 256, 16))

    for b in breeds:
        h, w = rng.randint(48, 80), rng.randint(48, 80)
        name = ident()
        files['kaggle_dog_tiny/train/%s.jpg' % name] = _encode(_picture(rng, h, w, b, n_breeds), 'JPEG', quality=85)
        rows.append('%s,%s' % (name, DOG_BREEDS[b]))
    for _ in range(n_test):
        h, w = rng.randint(48, 80), rng.randint(48, 80)
        files['kaggle_dog_tiny/test/%s.jpg' % ident()] = _encode(
            _picture(rng, h, w, rng.randint(n_breeds), n_breeds), 'JPEG', quality=85)
    files['kaggle_dog_tiny/labels.csv'] = '\n'.join(rows) + '\n'
    write_zip(path, files)


MODEL_SCRIPT = '''
import sys
import mxnet as mx
from mxnet.gluon.model_zoo import vision
name, out = sys.argv[1], sys.argv[2]
mx.random.seed(0)
net = vision.get_model(name)
net.initialize(mx.init.Xavier(rnd_type='gaussian', factor_type='in', magnitude=2))
net(mx.nd.zeros((1, 3, 224, 224)))
if 'resnet' in name:
    # BatchNorm's running statistics from training-mode passes over normalized noise, as a trained net's would
    # be: in inference the features keep their scale through the blocks instead of growing block after block
    # (MXNet updates them in the backward pass)
    x = mx.nd.random.normal(shape=(4, 3, 224, 224))
    for _ in range(30):
        with mx.autograd.record():
            y = net(x)
        y.backward()
net.save_parameters(out)
'''


def zoo_model(folder, name):
    """$MXNET_HOME/models/NAME-SHORTHASH.params made by the oracle (MODEL_SCRIPT)."""
    os.makedirs(folder, exist_ok=True)
    dest = os.path.join(folder, '%s-%s.params' % (name, MODELS[name]))
    oracle = os.environ.get('D2L_ORACLE_PYTHON', '/root/.mxnet-oracle/bin/python')
    tmp = dest + '.tmp'
    subprocess.run([oracle, '-c', MODEL_SCRIPT, name, tmp], env=dict(os.environ, OMP_NUM_THREADS='1'),
                   check=True, stdout=subprocess.DEVNULL)
    os.replace(tmp, dest)


def write(base, profile):
    sizes = FULL if os.environ.get('D2L_CV_FULL') == '1' else SIZES
    hub = os.path.join(base, 'hub')
    home = os.path.join(base, 'mxnet_home')
    os.makedirs(hub, exist_ok=True)
    cifar10(os.path.join(home, 'datasets', 'cifar10'), *sizes['cifar10'])
    hotdog(os.path.join(hub, 'hotdog.zip'), *sizes['hotdog'])
    bananas(os.path.join(hub, 'banana-detection.zip'), *sizes['banana'])
    voc2012(os.path.join(hub, 'VOCtrainval_11-May-2012.tar'), *sizes['voc'])
    kaggle_cifar10(os.path.join(hub, 'kaggle_cifar10_tiny.zip'), *sizes['kaggle_cifar10'])
    kaggle_dog(os.path.join(hub, 'kaggle_dog_tiny.zip'), *sizes['kaggle_dog'])
    # the oracle's weights do not depend on the profile: made once, linked (or copied) into the other profiles
    models = os.path.join(home, 'models')
    for name, short in MODELS.items():
        fname = '%s-%s.params' % (name, short)
        dest = os.path.join(models, fname)
        if os.path.isfile(dest) and os.path.getmtime(dest) > os.path.getmtime(__file__):
            continue
        for other in sorted(os.listdir(os.path.dirname(base))):
            made = os.path.join(os.path.dirname(base), other, 'mxnet_home', 'models', fname)
            if other != profile and os.path.isfile(made) and os.path.getmtime(made) > os.path.getmtime(__file__):
                os.makedirs(models, exist_ok=True)
                if os.path.exists(dest):
                    os.remove(dest)
                try:
                    os.link(made, dest)
                except OSError:
                    shutil.copyfile(made, dest)
                break
        else:
            zoo_model(models, name)


if __name__ == '__main__':
    write(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'small')
