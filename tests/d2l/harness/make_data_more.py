"""Synthetic data for D2L v0.17.6's optimization, recommender-systems and GAN chapters, in the originals' formats.

``write(base, profile)`` (called by make_data.py for each size profile) writes into ``base/hub``, where the
requests stand-in serves d2l.download()'s files by URL basename:
  airfoil_self_noise.dat  NASA's airfoil table: 6 tab-separated numbers a row, no header (frequency Hz, angle of
                          attack, chord length, free-stream velocity, displacement thickness, sound pressure dB);
                          read by d2l.get_data_ch11 with np.genfromtxt(delimiter='\\t').
  ml-100k.zip             ml-100k/u.data: "user item rating timestamp" tab-separated, users 1..U and items 1..I all
                          present (read_data_ml100k counts unique ids and uses them as index bounds), U < I as in
                          MovieLens (evaluate_ranking draws item ids from range(num_users)), ratings 1..5, each
                          (user, item) once, timestamps distinct within a user. 40 users rating 100-140 of 300
                          items each: AutoRec batches items by 256 and Caser (seqrec) windows of 6 ratings by 4096,
                          both with last_batch='rollover', and d2l's trainers divide by the number of batches.
  ctr.zip                 ctr/train.csv and ctr/test.csv: a 0/1 label and 34 categorical fields (hex tokens, some
                          empty), tab-separated, no header (d2l.CTRDataset); the sections load them with
                          batch_size=2048 and last_batch='rollover', and d2l.train_ch13 needs 5 batches or more
                          (its progress test divides by num_batches // 5): 10300 training rows, 2100 test rows.
  pokemon.zip             pokemon/<class>/<n>.png: small RGB images in class folders (ImageFolderDataset); PNG, so
                          that MXNet's and mxcompat's decoders read the same pixels.
and into ``base/mxnet_home/datasets/mnist`` MNIST's four IDX files (gluon.data.vision.MNIST, read by the appendix's
naive-bayes section): make_data's FashionMNIST generator with another seed, 1000 training and 200 test images.
Everything comes from fixed seeds; zips are written by make_data.write_zip (fixed dates), so the files are the same on
every run.
"""
import os
import struct
import zlib

import numpy as np

import make_data  # (its IDX writer; make_data imports this module only when it runs)

# profile -> (airfoil rows, ml-100k users, items, ratings a user (lo, hi), ctr train rows, ctr test rows,
#             pokemon classes, images a class, image side)
SIZES = {
    'small': (400, 40, 300, (100, 140), 10300, 2100, 8, 4, 32),
    'tiny': (400, 40, 300, (100, 140), 10300, 2100, 4, 4, 32),
    'micro': (200, 40, 300, (100, 140), 10300, 2100, 4, 2, 24),
    'nano': (200, 40, 300, (100, 140), 10300, 2100, 2, 4, 16),
}


def airfoil(path, n_rows, seed=0):
    rng = np.random.RandomState(seed)
    freq = rng.choice([200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000,
                       6300, 8000, 10000], size=n_rows)
    angle = rng.choice([0.0, 1.5, 2.7, 3.0, 4.0, 5.3, 7.2, 9.9, 12.3, 15.4, 17.4, 19.7, 22.2], size=n_rows)
    chord = rng.choice([0.0254, 0.0508, 0.1016, 0.1524, 0.2286, 0.3048], size=n_rows)
    velocity = rng.choice([31.7, 39.6, 55.5, 71.3], size=n_rows)
    thickness = np.round(0.0004 + 0.002 * angle * chord * rng.uniform(0.5, 1.5, size=n_rows), 8)
    sound = (132.0 - 4.0 * np.log10(freq) + 0.05 * velocity - 20.0 * chord - 0.2 * angle
             - 300.0 * thickness + rng.normal(0, 2.0, size=n_rows))
    with open(path, 'w') as f:
        for row in zip(freq, angle, chord, velocity, thickness, sound):
            f.write('%d\t%g\t%g\t%g\t%.8g\t%.3f\n' % row)


def ml100k(path, n_users, n_items, per_user, seed=0):
    rng = np.random.RandomState(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** 0.3
    popularity /= popularity.sum()
    taste = rng.normal(0, 1, size=(n_users, 3))
    traits = rng.normal(0, 1, size=(n_items, 3))
    rows = []
    for u in range(n_users):
        k = rng.randint(per_user[0], per_user[1] + 1)
        items = rng.choice(n_items, size=k, replace=False, p=popularity)
        if u < n_items:  # every item rated by someone: user u also rates item u
            items = np.unique(np.append(items, u))
        start = 874000000 + rng.randint(0, 10 ** 7)
        stamps = start + np.cumsum(rng.randint(1, 5000, size=len(items)))
        for i, t in zip(rng.permutation(items), stamps):
            score = 3.2 + taste[u] @ traits[i] * 0.6 + rng.normal(0, 0.7)
            rows.append((u + 1, i + 1, int(np.clip(np.rint(score), 1, 5)), int(t)))
    missing = set(range(1, n_items + 1)) - {r[1] for r in rows}
    for i in sorted(missing):  # items beyond n_users that no draw reached
        u = rng.randint(0, n_users)
        rows.append((u + 1, i, 3, 880000000 + i))
    order = rng.permutation(len(rows))
    text = ''.join('%d\t%d\t%d\t%d\n' % rows[j] for j in order)
    make_data.write_zip(path, {'ml-100k/': b'', 'ml-100k/u.data': text})


def ctr(path, n_train, n_test, seed=0):
    rng = np.random.RandomState(seed)
    n_feats = 34
    # field j has a vocabulary of a few tokens (Zipf-like use), so min_threshold=4 keeps the frequent ones
    vocab = [['%08x' % rng.randint(0, 2 ** 32) for _ in range(rng.randint(2, 40))] for _ in range(n_feats)]
    weights = [rng.normal(0, 1, size=len(v)) for v in vocab]

    def rows(n):
        out = []
        for _ in range(n):
            idx = [min(int(rng.zipf(1.6)) - 1, len(v) - 1) for v in vocab]
            logit = -1.2 + 0.4 * sum(w[i] for w, i in zip(weights[:8], idx[:8]))
            label = int(rng.uniform() < 1 / (1 + np.exp(-logit)))
            feats = ['' if (j % 7 == 3 and rng.uniform() < 0.2) else vocab[j][i] for j, i in enumerate(idx)]
            out.append('\t'.join([str(label)] + feats))
        return ('\n'.join(out) + '\n').encode()

    make_data.write_zip(path, {'ctr/': b'', 'ctr/train.csv': rows(n_train), 'ctr/test.csv': rows(n_test)})


def _png(rgb):
    """A PNG file (8-bit RGB, no interlace, filter 0 on every row) for a (H, W, 3) uint8 array."""
    h, w, _ = rgb.shape

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)

    raw = b''.join(b'\x00' + rgb[y].tobytes() for y in range(h))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def pokemon(path, n_classes, per_class, side, seed=0):
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    members = {'pokemon/': b''}
    for c in range(n_classes):
        members['pokemon/%d/' % c] = b''
        color = rng.randint(40, 256, size=3)
        cx, cy, r = rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), rng.uniform(0.15, 0.35)
        for k in range(per_class):
            dx, dy = rng.normal(0, 0.05, size=2)
            blob = ((xx - cx - dx) ** 2 + (yy - cy - dy) ** 2) < r ** 2
            img = np.full((side, side, 3), 255, dtype=np.float64)  # white background, as the sprites have
            img[blob] = color
            img += rng.normal(0, 12, size=img.shape)
            members['pokemon/%d/%d.png' % (c, k)] = _png(np.clip(img, 0, 255).astype(np.uint8))
    make_data.write_zip(path, members)


def write(base, profile):
    n_air, n_users, n_items, per_user, n_ctr_train, n_ctr_test, n_cls, per_cls, side = SIZES[profile]
    hub = os.path.join(base, 'hub')
    os.makedirs(hub, exist_ok=True)
    airfoil(os.path.join(hub, 'airfoil_self_noise.dat'), n_air)
    ml100k(os.path.join(hub, 'ml-100k.zip'), n_users, n_items, per_user)
    ctr(os.path.join(hub, 'ctr.zip'), n_ctr_train, n_ctr_test)
    pokemon(os.path.join(hub, 'pokemon.zip'), n_cls, per_cls, side)
    make_data.fashion_mnist(os.path.join(base, 'mxnet_home', 'datasets', 'mnist'), 1000, 200, seed=1)
