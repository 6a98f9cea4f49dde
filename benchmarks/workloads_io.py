"""Data input: ``mx.image.ImageIter`` over a .rec pack of JPEGs with the augmenters of MXNet's own
example/profiler/profiler_imageiter.py (``rand_crop``, ``rand_resize``, ``rand_mirror``: a random-sized crop resized
bicubically to 224x224, a random flip, float32 CHW batches of 32). Each step is one batch; the iterator starts a new
epoch when the pack runs out. Written once as MXNet code, so ``--mxnet-python`` times real MXNet 1.9.1 (OpenCV
decoding and resizing, its engine) on the same file.

The pack: 256x256 RGB JPEGs (quality 90) of gradients with noise, written with Pillow (the real MXNet's
environment has no JPEG encoder: a worker without Pillow uses the file another side made, or builds it with
``MXCOMPAT_BENCH_PYTHON`` / the repository's ``.venv``). It is kept in the temporary folder between runs.

The torch twin does the same work the way a torch user would without torchvision: Pillow decodes, the crop
parameters come from the same draws, ``torch.nn.functional.interpolate`` (bicubic, no antialias) resizes on float32,
then flip and CHW batch. Its pixels differ from MXNet's (torch's float bicubic, not OpenCV's 11-bit fixed point that
MXNet and mxcompat compute), so it is a yardstick for the cost, not for the values. Timed steady state: the first
epoch of a process also builds the resize tables of each new crop size (~60 us per size and axis).
No torch or mxcompat import at module level (see ``benchmarks/workloads.py``).

``imagerecorditer``: ``mx.io.ImageRecordIter`` over the same pack (plain .rec, no index), the usual ImageNet-style
configuration (``resize=256``, ``rand_crop`` 224x224, ``rand_mirror``, ``preprocess_threads=4``, batches of 32).
Each step is a whole epoch from a reset (10 batches at ``small``): mxcompat and MXNet decode in threads ahead of
``next()``, and a step of one batch would let that work fall between the timed blocks; an epoch ends with nothing
left to decode, so its CPU time is all of it. Its torch twin decodes with Pillow in the same order and
crops/flips/converts in torch, on one thread.
"""
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

import numpy as np

from benchmarks.workloads import ROOT, pick, workload

_MAGIC = 0xced7230a  # MXNet's RecordIO magic number


def _spec(size):
    """(images in the pack, image side, batch size, output side)."""
    return pick(size, (4, 32, 2, 24), (320, 256, 32, 224))


def _image(k, side, rng):
    yy, xx = np.mgrid[0:side, 0:side]
    base = np.stack([(xx * (1 + k % 3) + yy) % 256, (yy * 2 + k) % 256, (xx + yy * (k % 5)) % 256], axis=2)
    return np.clip(base + rng.randint(-20, 21, size=base.shape), 0, 255).astype(np.uint8)


def _record(payload):
    pad = (4 - len(payload) % 4) % 4
    return struct.pack('<II', _MAGIC, len(payload)) + payload + b'\0' * pad


def build_pack(rec_path, idx_path, count, side):
    """Write ``count`` JPEG records with labels ``k % 10`` (MXNet's IRHeader: flag 0, label, id k) and the index."""
    import io  # reason: only the builder needs Pillow
    from PIL import Image
    rng = np.random.RandomState(0)
    with open(rec_path + '.tmp', 'wb') as rec, open(idx_path + '.tmp', 'w') as idx:
        for k in range(count):
            buf = io.BytesIO()
            Image.fromarray(_image(k, side, rng)).save(buf, format='JPEG', quality=90)
            idx.write('%d\t%d\n' % (k, rec.tell()))
            rec.write(_record(struct.pack('<IfQQ', 0, float(k % 10), k, 0) + buf.getvalue()))
    os.replace(idx_path + '.tmp', idx_path)
    os.replace(rec_path + '.tmp', rec_path)


def _pack(size):
    """Paths (rec, idx) of the pack for ``size``, built on first use."""
    count, side, _, _ = _spec(size)
    stem = os.path.join(tempfile.gettempdir(), 'mxcompat-bench-imageiter-%d-%d-v1' % (count, side))
    rec, idx = stem + '.rec', stem + '.idx'
    if os.path.exists(rec) and os.path.exists(idx):
        return rec, idx
    try:
        import PIL  # noqa: F401  # reason: probe for the optional encoder
    except ImportError:
        pythons = [p for p in (os.environ.get('MXCOMPAT_BENCH_PYTHON'), os.path.join(ROOT, '.venv', 'bin', 'python'))
                   if p and os.path.exists(p)]
        if not pythons:
            raise RuntimeError('workloads_io needs Pillow to write its JPEG pack: run the mxcompat side first or set '
                               'MXCOMPAT_BENCH_PYTHON to a Python with Pillow') from None
        code = 'from benchmarks.workloads_io import build_pack; build_pack(%r, %r, %d, %d)' % (rec, idx, count, side)
        subprocess.run([pythons[0], '-c', code], cwd=ROOT, check=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get('PYTHONPATH'))
                                                                       if p)))
    else:
        build_pack(rec, idx, count, side)
    return rec, idx


def _looping(next_batch, reset):
    def step():
        try:
            return next_batch()
        except StopIteration:
            reset()
            return next_batch()
    return step


@workload('io', target=1.0)
def imageiter(mx, size):
    """ImageIter batch of 32: .rec JPEGs decoded, random-size crop + bicubic resize to 224, random flip, CHW."""
    _, _, batch, out = _spec(size)
    rec, _ = _pack(size)
    random.seed(0)
    it = mx.image.ImageIter(batch_size=batch, data_shape=(3, out, out), path_imgrec=rec, rand_crop=True,
                            rand_resize=True, rand_mirror=True)
    return _looping(it.next, it.reset)


def _crop_box(w, h):
    """MXNet's random_size_crop draw (area 0.08..1, aspect 3/4..4/3, ten tries, then the centre crop)."""
    for _ in range(10):
        area = random.uniform(0.08, 1.0) * w * h
        ratio = math.exp(random.uniform(math.log(3 / 4), math.log(4 / 3)))
        cw, ch = int(round(math.sqrt(area * ratio))), int(round(math.sqrt(area / ratio)))
        if cw <= w and ch <= h:
            return random.randint(0, w - cw), random.randint(0, h - ch), cw, ch
    side = min(w, h)
    return (w - side) // 2, (h - side) // 2, side, side


class _Records:
    """The (label, JPEG bytes) records of a pack in file order; ``record()`` raises StopIteration at the end."""

    def __init__(self, rec_path):
        self.fh = open(rec_path, 'rb')

    def record(self):
        head = self.fh.read(8)
        if len(head) < 8:
            raise StopIteration
        _, length = struct.unpack('<II', head)
        data = self.fh.read(length)
        self.fh.read((4 - length % 4) % 4)
        return struct.unpack('<IfQQ', data[:24])[1], data[24:]

    def reset(self):
        self.fh.seek(0)


@imageiter.torch
def _(torch, size):
    import io  # reason: the twin's decoder is Pillow, as mxcompat's
    from PIL import Image
    _, _, batch, out = _spec(size)
    rec_path, _ = _pack(size)
    random.seed(0)
    fnn = torch.nn.functional
    records = _Records(rec_path)
    record = records.record

    def next_batch():
        data = torch.empty(batch, 3, out, out)
        labels = torch.empty(batch)
        for slot in range(batch):
            label, jpeg = record()
            img = torch.from_numpy(np.asarray(Image.open(io.BytesIO(jpeg)).convert('RGB')).copy())
            x0, y0, cw, ch = _crop_box(img.shape[1], img.shape[0])
            crop = img[y0:y0 + ch, x0:x0 + cw].permute(2, 0, 1)[None].float()
            res = fnn.interpolate(crop, size=(out, out), mode='bicubic', align_corners=False)[0]
            res = res.clamp_(0, 255).round_()  # back to 8-bit levels, as an 8-bit resize gives
            if random.random() < 0.5:
                res = res.flip(2)
            data[slot] = res
            labels[slot] = label
        return data, labels

    return _looping(next_batch, records.reset)


def _epoch(next_batch, reset):
    """A step that reads a whole epoch from a reset."""
    def step():
        reset()
        try:
            while True:
                next_batch()
        except StopIteration:
            return None
    return step


@workload('io', target=1.0)
def imagerecorditer(mx, size):
    """ImageRecordIter epoch, batches of 32: .rec JPEGs decoded in threads, resize 256, random 224 crop and flip."""
    _, side, batch, out = _spec(size)
    rec, _ = _pack(size)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, out, out), batch_size=batch, resize=side,
                               rand_crop=True, rand_mirror=True, preprocess_threads=4, verbose=False)
    return _epoch(it.next, it.reset)


@imagerecorditer.torch
def _(torch, size):
    import io  # reason: the twin's decoder is Pillow, as mxcompat's
    from PIL import Image
    _, _, batch, out = _spec(size)
    records = _Records(_pack(size)[0])
    gen = torch.Generator().manual_seed(0)

    def next_batch():
        data = torch.empty(batch, 3, out, out)
        labels = torch.empty(batch)
        for slot in range(batch):
            label, jpeg = records.record()
            img = torch.from_numpy(np.asarray(Image.open(io.BytesIO(jpeg)).convert('RGB')))
            y0, x0 = (int(torch.randint(0, n - out + 1, (), generator=gen)) for n in img.shape[:2])
            crop = img[y0:y0 + out, x0:x0 + out].permute(2, 0, 1)
            if torch.rand((), generator=gen) < 0.5:
                crop = crop.flip(2)
            data[slot] = crop
            labels[slot] = label
        return data, labels

    return _epoch(next_batch, records.reset)


if __name__ == '__main__':  # build the pack of a size: python -m benchmarks.workloads_io small
    print(*_pack(sys.argv[1] if len(sys.argv) > 1 else 'small'))
