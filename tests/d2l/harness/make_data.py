"""Synthetic stand-ins for the data sets the D2L chapters download, in their original formats.

Usage:  python make_data.py OUTDIR
For each size profile (see PROFILES) it writes
  OUTDIR/PROFILE/mxnet_home/datasets/fashion-mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz
      (Gluon's FashionMNIST reads $MXNET_HOME/datasets/fashion-mnist)
  OUTDIR/PROFILE/hub/timemachine.txt, fra-eng.zip, kaggle_house_pred_{train,test}.csv
      (served by the requests stand-in to d2l.download())
and then whatever the optional modules named in EXTRA write for each profile (``write(base, profile)``: the data
of D2L v0.17.6's chapters that v1.0.3 dropped). Everything is generated from fixed seeds, so the files are the same
on every run. Images are a per-class template plus noise, so that classifiers do learn something; texts are
pseudo-English sentences.
"""
import gzip
import io
import os
import random
import struct
import sys
import zipfile
import importlib

import numpy as np

# profile -> (FashionMNIST train images, test images, time machine characters, fra-eng pairs, house rows)
PROFILES = {
    'small': (2000, 500, 12000, 700, 200),
    'tiny': (256, 128, 3000, 700, 200),
    'micro': (128, 32, 3000, 700, 200),
    'nano': (32, 16, 3000, 700, 200),
}

WORDS = ('the time traveller said and of a to in was it that he i his you had my with as for but at be this '
         'on me is we not what all which have there so by one they were from an no or her up out into its '
         'some then now very little machine thing way here would could more said man like see back about '
         'them through again only these other than came upon came before our after over how been made under '
         'psychologist medical filby weena morlocks eloi sphinx white green porcelain light darkness dimension '
         'space future past hands sun night fire iron bars lever clock laboratory garden hall').split()
FR = ('le la les un une de du des et est je tu il elle nous vous ils suis es sommes va viens pars cours '
      'mange bois vois sais veux peux aime chat chien maison voiture arbre livre eau pain nuit jour ici '
      'bien tres pas plus oui non merci bonjour').split()


def write_zip(path, files):
    """A zip archive of ``files`` ({name: bytes or str}, in order) with fixed timestamps (the data modules' one
    way of packing what d2l downloads as .zip)."""
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data.encode('utf-8') if isinstance(data, str) else data)


def _idx(array):
    """An IDX file of unsigned bytes for ``array``."""
    head = struct.pack('>BBBB', 0, 0, 8, array.ndim) + struct.pack('>%dI' % array.ndim, *array.shape)
    return head + array.astype(np.uint8).tobytes()


def fashion_mnist(folder, n_train, n_test, seed=0):
    rng = np.random.RandomState(seed)
    templates = rng.randint(0, 256, size=(10, 28, 28)).astype(np.float64)
    os.makedirs(folder, exist_ok=True)
    for prefix, n in (('train', n_train), ('t10k', n_test)):
        labels = rng.randint(0, 10, size=n).astype(np.uint8)
        images = np.clip(0.6 * templates[labels] + rng.normal(0, 60, size=(n, 28, 28)), 0, 255).astype(np.uint8)
        for kind, arr in (('images-idx3', images), ('labels-idx1', labels)):
            with open(os.path.join(folder, '%s-%s-ubyte.gz' % (prefix, kind)), 'wb') as raw:
                with gzip.GzipFile(fileobj=raw, mode='wb', mtime=0) as f:
                    f.write(_idx(arr))


def _sentence(rng, words, lo, hi):
    n = rng.randint(lo, hi)
    weights = [1.0 / (i + 1) for i in range(len(words))]
    return ' '.join(rng.choices(words, weights=weights, k=n))


def time_machine(path, n_chars, seed=0):
    rng = random.Random(seed)
    lines = ['The Time Machine, by H. G. Wells [1898]', '', '']
    size = sum(len(x) + 1 for x in lines)
    while size < n_chars:
        s = _sentence(rng, WORDS, 4, 14)
        line = s[0].upper() + s[1:] + rng.choice(['.', ',', ';', '!', '?'])
        lines.append(line)
        size += len(line) + 1
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


def fra_eng(path, n_pairs, seed=0):
    rng = random.Random(seed)
    rows = ['go .\tva !', 'i lost .\tj\'ai perdu .', 'he\'s calm .\til est calme .', 'i\'m home .\tje suis chez moi .']
    while len(rows) < n_pairs:
        en = _sentence(rng, WORDS[:60], 1, 7).capitalize() + rng.choice(['.', '!', '?'])
        fr = _sentence(rng, FR, 1, 8).capitalize() + rng.choice(['.', '!', '?'])
        rows.append('%s\t%s' % (en, fr))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        info = zipfile.ZipInfo('fra-eng/fra.txt', date_time=(2020, 1, 1, 0, 0, 0))
        z.writestr(info, '\n'.join(rows) + '\n')
    with open(path, 'wb') as f:
        f.write(buf.getvalue())


def kaggle_house(train_path, test_path, n_rows, seed=0):
    rng = random.Random(seed)
    cols = ['MSSubClass', 'MSZoning', 'LotFrontage', 'LotArea', 'Street', 'YearBuilt', 'SaleType',
            'SaleCondition']

    def row(i, with_price):
        sub = rng.choice([20, 30, 50, 60, 70, 120])
        zoning = rng.choice(['RL', 'RM', 'FV', 'RH'])
        frontage = '' if rng.random() < 0.15 else str(rng.randint(30, 120))
        area = rng.randint(3000, 20000)
        street = rng.choice(['Pave', 'Grvl'])
        year = rng.randint(1900, 2010)
        stype = '' if rng.random() < 0.05 else rng.choice(['WD', 'New', 'COD'])
        cond = rng.choice(['Normal', 'Abnorml', 'Partial'])
        vals = [str(i), str(sub), zoning, frontage, str(area), street, str(year), stype, cond]
        if with_price:
            vals.append(str(int(50000 + 8 * area + 500 * (year - 1900) + rng.randint(-20000, 20000))))
        return ','.join(vals)

    with open(train_path, 'w') as f:
        f.write(','.join(['Id'] + cols + ['SalePrice']) + '\n')
        f.write(''.join(row(i + 1, True) + '\n' for i in range(n_rows)))
    with open(test_path, 'w') as f:
        f.write(','.join(['Id'] + cols) + '\n')
        f.write(''.join(row(n_rows + i + 1, False) + '\n' for i in range(n_rows)))


# modules beside this one that write more data sets into each profile folder: write(base, profile_name)
EXTRA = ('make_data_more', 'make_data_cv', 'make_data_nlp')


def main(argv):
    if len(argv) != 1:
        print(__doc__)
        return 2
    for name, (n_train, n_test, n_chars, n_pairs, n_rows) in PROFILES.items():
        base = os.path.join(argv[0], name)
        hub = os.path.join(base, 'hub')
        os.makedirs(hub, exist_ok=True)
        fashion_mnist(os.path.join(base, 'mxnet_home', 'datasets', 'fashion-mnist'), n_train, n_test)
        time_machine(os.path.join(hub, 'timemachine.txt'), n_chars)
        fra_eng(os.path.join(hub, 'fra-eng.zip'), n_pairs)
        kaggle_house(os.path.join(hub, 'kaggle_house_pred_train.csv'),
                     os.path.join(hub, 'kaggle_house_pred_test.csv'), n_rows)
        for mod in EXTRA:
            if os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), mod + '.py')):
                importlib.import_module(mod).write(base, name)
    print('data written under %s' % argv[0])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
