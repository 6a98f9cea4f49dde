"""``mx.io.ImageRecordIter`` (and its uint8/int8 variants): batches of decoded, augmented images from a .rec file.

Follows MXNet 1.9.1's ImageRecordIter2 with one decoding thread (what MXNet uses on a 2-core machine): records are
read a chunk at a time (the whole part of a plain .rec file up to 64 MB, ``batch_size`` records with an .idx file)
and augmented in file order with MXNet's random engines, so random crops, mirrors and shuffles follow the same seeds
(``seed`` for shuffling, ``seed_aug`` to reseed augmentation per image). The chunk is streamed: ``preprocess_threads``
threads (at most the cores) decode ahead, one background thread augments in file order, staying at most
``prefetch_buffer`` batches ahead of ``next()``. A reset in the middle of a chunk lets that thread finish the chunk's
random draws in the background, as MXNet parses a whole chunk (not with ``seed_aug``, which reseeds per image).
Images are decoded with Pillow and resized following OpenCV's rules (see ``mx.image``), so JPEG pixels and resized
pixels can differ by a little.

Without ``round_batch`` the last, short batch reports ``pad`` 0, as MXNet does; its unfilled rows repeat the
previous batch (uninitialised memory in MXNet).

The affine augmentations (``max_rotate_angle``, ``rotate``, ``rotate_list``, ``max_shear_ratio``,
``max/min_random_scale``, aspect-ratio jitter without ``random_resized_crop``, ``max/min_img_size``) draw as MXNet
draws and warp as OpenCV's ``warpAffine`` does (``operator/_cv_warp.py``): the same pixels.

So does the HLS jitter (``random_h/s/l``, OpenCV's float32 BGR <-> HLS conversions in ``operator/_cv_hls.py``).

Not supported (raise): other ``aug_seq`` values, ``shuffle_chunk_size``, remote paths and directories of .rec
files.
"""
import atexit
import copy
import functools
import os
import re
import struct
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import torch

from ..base import MXNetError, cpp_log, unsupported
from ..operator._cv_resize import resize_hwc
from ..operator._cv_hls import shift_hls
from ..operator._cv_warp import warp_affine_u8
from ..recordio import _MAGIC, _MAGIC_BYTES, _LEN_MASK, unpack
from . import _cxxrandom as R
from .io import MXDataIter, _Params, _REQUIRED, _BATCH, _PREFETCH, _open_local, _creator
from .._imagecodec import decode_numpy
from .. import ndarray as nd

_MAGIC_SEED = 111  # MXNet's kRandMagic for the record parser and the indexed split
_CHUNK_BYTES = 64 << 20

_SPEC = dict({
    # ImageRecParserParam
    'path_imglist': ('string', ''), 'path_imgrec': ('string', ''), 'path_imgidx': ('string', ''),
    'aug_seq': ('string', 'aug_default'), 'label_width': ('int', 1), 'data_shape': ('Shape(tuple)', _REQUIRED),
    'preprocess_threads': ('int', 4), 'verbose': ('boolean', True), 'num_parts': ('int', 1),
    'part_index': ('int', 0), 'device_id': ('int', 0), 'shuffle_chunk_size': ('int', 0),
    'shuffle_chunk_seed': ('int', 0), 'seed_aug': ('int or None', None),
    # ImageRecordParam
    'shuffle': ('boolean', False), 'seed': ('int', 0),
    # DefaultImageAugmentParam
    'resize': ('int', -1), 'rand_crop': ('boolean', False), 'random_resized_crop': ('boolean', False),
    'max_rotate_angle': ('int', 0), 'max_aspect_ratio': ('float', 0.0), 'min_aspect_ratio': ('float or None', None),
    'max_shear_ratio': ('float', 0.0), 'max_crop_size': ('int', -1), 'min_crop_size': ('int', -1),
    'max_random_scale': ('float', 1.0), 'min_random_scale': ('float', 1.0), 'max_random_area': ('float', 1.0),
    'min_random_area': ('float', 1.0), 'max_img_size': ('float', 1e10), 'min_img_size': ('float', 0.0),
    'brightness': ('float', 0.0), 'contrast': ('float', 0.0), 'saturation': ('float', 0.0),
    'pca_noise': ('float', 0.0), 'random_h': ('int', 0), 'random_s': ('int', 0), 'random_l': ('int', 0),
    'rotate': ('int', -1), 'fill_value': ('int', 255), 'inter_method': ('int', 1), 'pad': ('int', 0),
    # ImageNormalizeParam
    'mirror': ('boolean', False), 'rand_mirror': ('boolean', False), 'mean_img': ('string', ''),
    'mean_r': ('float', 0.0), 'mean_g': ('float', 0.0), 'mean_b': ('float', 0.0), 'mean_a': ('float', 0.0),
    'std_r': ('float', 1.0), 'std_g': ('float', 1.0), 'std_b': ('float', 1.0), 'std_a': ('float', 1.0),
    'scale': ('float', 1.0), 'max_random_contrast': ('float', 0.0), 'max_random_illumination': ('float', 0.0),
}, **_BATCH, **_PREFETCH)

# eigenvalue * eigenvector, as MXNet stores them for the PCA noise
_EIGVEC = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                    [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                    [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], np.float32)


def _check_supported(api, p):
    gaps = [('shuffle_chunk_size', p.shuffle_chunk_size > 0), ('aug_seq', p.aug_seq != 'aug_default')]
    for name, bad in gaps:
        if bad:
            raise unsupported('mx.io.' + api, 'the argument %s=%r' % (name, getattr(p, name)),
                              'chunk shuffling and custom augmenters are not ported')
    if (p.random_h or p.random_s or p.random_l) and p.data_shape[0] != 3:  # (MXNet: OpenCV's assertion, first batch)
        raise MXNetError('%s: random_h/random_s/random_l convert BGR images to HLS: data_shape %s has %d channels, '
                         'the conversion needs 3' % (api, tuple(p.data_shape), p.data_shape[0]))


def _atoi(text):
    """C's ``atoi``: leading blanks, a sign and the digits that follow; 0 without digits."""
    m = re.match(r'\s*([+-]?\d+)', text)
    return int(m.group(1)) if m else 0


def _int_list(text):
    """MXNet's parse of ``rotate_list``: the comma-separated fields read with ``atoi`` (``'0,90'`` -> [0, 90])."""
    return [_atoi(field) for field in text.split(',')] if text else []


def _sat_u8(x):
    """OpenCV's saturate_cast<uchar> from a float: round half to even, clamp."""
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def _resize(img, w, h, interp):
    img = img if img.ndim == 3 else img[:, :, None]
    if img.shape[:2] == (h, w):  # OpenCV copies; a numpy copy does not start torch's thread team for it
        return img.copy()
    t = torch.from_numpy(np.require(img, requirements=['C', 'W']))
    return resize_hwc(t, int(w), int(h), int(interp)).numpy()  # host: from numpy


def shorter_edge_to(size, rows, cols):
    """(width, height) with the shorter edge scaled to ``size`` (integer arithmetic, as MXNet's ``resize``)."""
    return (size, size * rows // cols) if rows > cols else (size * cols // rows, size)


def pick_interp(method, g, ow, oh, nw, nh):
    """MXNet's interpolation choice for a resize from ow x oh to nw x nh: 9 is cubic to enlarge, area to shrink,
    else bilinear; 10 draws one of 0-4 from ``g``; any other value is used as it is."""
    if method == 9:
        if nw > ow and nh > oh:
            return 2
        return 3 if (nw < ow and nh < oh) else 1
    if method == 10:
        return R.uniform_int(g, 0, 4)
    return method


class _Augmenter:
    """MXNet's DefaultImageAugmenter on a BGR(A) uint8 HxWxC image, with its random draws in the same order."""

    def __init__(self, p):
        self.p = p
        if p.min_aspect_ratio is not None:
            self.max_ar, self.min_ar = np.float32(p.max_aspect_ratio), np.float32(p.min_aspect_ratio)
        else:
            self.max_ar, self.min_ar = np.float32(1 + p.max_aspect_ratio), np.float32(1 - p.max_aspect_ratio)

        self._affine = (p.max_rotate_angle > 0 or p.max_shear_ratio > 0 or p.rotate > 0 or p.rotate_list
                        or p.max_random_scale != 1 or p.min_random_scale != 1
                        or (not p.random_resized_crop and (self.min_ar != 1 or self.max_ar != 1))
                        or p.max_img_size != np.float32(1e10) or p.min_img_size != 0)

    def _warp(self, res, g):
        """MXNet's random affine transform (shear, rotation, scale, aspect ratio; its draws in MXNet's order,
        its matrix in float) applied by OpenCV's warpAffine rules, the border filled with ``fill_value``."""
        p, f = self.p, np.float32
        s = R.uniform_float(g, 0, 1) * f(p.max_shear_ratio) * f(2) - f(p.max_shear_ratio)
        angle = R.uniform_int(g, -p.max_rotate_angle, p.max_rotate_angle)
        if p.rotate > 0:
            angle = p.rotate
        if p.rotate_list:
            angle = p.rotate_list[R.uniform_int(g, 0, len(p.rotate_list) - 1)]
        a, b = f(np.cos(angle / 180.0 * np.pi)), f(np.sin(angle / 180.0 * np.pi))
        scale = ratio = f(1)
        if not p.random_resized_crop:
            scale = R.uniform_float(g, 0, 1) * (f(p.max_random_scale) - f(p.min_random_scale)) + f(p.min_random_scale)
            ratio = R.uniform_float(g, 0, 1) * (self.max_ar - self.min_ar) + self.min_ar
        hs = f(2) * scale / (f(1) + ratio)
        ws = ratio * hs
        rows, cols = res.shape[:2]
        new_w = max(f(p.min_img_size), min(f(p.max_img_size), scale * f(cols)))
        new_h = max(f(p.min_img_size), min(f(p.max_img_size), scale * f(rows)))
        m = np.array([[hs * a - s * b * ws, hs * b + s * a * ws, 0], [-b * ws, a * ws, 0]], f)
        m[0, 2] = (new_w - (m[0, 0] * f(cols) + m[0, 1] * f(rows))) / f(2)
        m[1, 2] = (new_h - (m[1, 0] * f(cols) + m[1, 1] * f(rows))) / f(2)
        if p.inter_method not in (1, 2, 3, 4, 9, 10):
            raise MXNetError('ImageRecordIter: invalid inter_method: valid value 0,1,2,3,9,10')
        width, height = int(new_w), int(new_h)
        interp = self._interp(g, cols, rows, width, height)
        return warp_affine_u8(res, m, width, height, (p.fill_value,) * 3 + (0,), interp)

    def _interp(self, g, ow, oh, nw, nh):
        return pick_interp(self.p.inter_method, g, ow, oh, nw, nh)

    def __call__(self, res, g):  # noqa: C901 (one branch per augmenter option of MXNet's ImageRecordIter)
        p = self.p
        H, W = p.data_shape[1], p.data_shape[2]
        if p.resize != -1:
            rows, cols = res.shape[:2]
            nw, nh = shorter_edge_to(p.resize, rows, cols)
            if p.inter_method not in (0, 1, 2, 3, 4, 9, 10):
                raise MXNetError('ImageRecordIter: invalid inter_method: valid value 0,1,2,3,9,10')
            res = _resize(res, nw, nh, self._interp(g, cols, rows, nw, nh))
        if self._affine:
            res = self._warp(res, g)
        if p.pad > 0:
            fill = np.full((res.shape[0] + 2 * p.pad, res.shape[1] + 2 * p.pad) + res.shape[2:], p.fill_value,
                           np.uint8)
            fill[p.pad:p.pad + res.shape[0], p.pad:p.pad + res.shape[1]] = res
            res = fill
        cropped = False
        if p.random_resized_crop:
            if not (p.min_random_scale == 1 and p.max_random_scale == 1 and p.min_crop_size == -1
                    and p.max_crop_size == -1 and not p.rand_crop):
                raise MXNetError('ImageRecordIter: Setting random_resized_crop to true conflicts with '
                                 'min_random_scale, max_random_scale, min_crop_size, max_crop_size, and rand_crop.')
            if p.max_random_area != 1 or p.min_random_area != 1 or self.max_ar != 1 or self.min_ar != 1:
                if not (self.min_ar > 0 and p.min_random_area <= p.max_random_area and self.min_ar <= self.max_ar):
                    raise MXNetError('ImageRecordIter: invalid random_resized_crop area/aspect-ratio ranges')
                area = np.float32(res.shape[0] * res.shape[1])
                for _ in range(10):
                    rand_area = R.uniform_float(g, p.min_random_area, p.max_random_area)
                    ratio = R.uniform_float(g, self.min_ar, self.max_ar)
                    target = area * rand_area
                    y_area = int(np.floor(np.sqrt(target / ratio) + np.float32(0.5)))
                    x_area = int(np.floor(np.sqrt(target * ratio) + np.float32(0.5)))
                    if R.uniform_float(g, 0, 1) > 0.5:
                        y_area, x_area = x_area, y_area
                    if y_area <= res.shape[0] and x_area <= res.shape[1]:
                        y = R.uniform_int(g, 0, res.shape[0] - y_area)
                        x = R.uniform_int(g, 0, res.shape[1] - x_area)
                        interp = self._interp(g, x_area, y_area, W, H)
                        res = _resize(res[y:y + y_area, x:x + x_area], W, H, interp)
                        cropped = True
                        break
        elif p.max_crop_size != -1 or p.min_crop_size != -1:
            if not (res.shape[1] >= p.max_crop_size and res.shape[0] >= p.max_crop_size
                    and p.max_crop_size >= p.min_crop_size):
                raise MXNetError('ImageRecordIter: input image size smaller than max_crop_size')
            size = R.uniform_int(g, p.min_crop_size, p.max_crop_size)
            y, x = self._origin(g, res.shape[0] - size, res.shape[1] - size)
            interp = self._interp(g, size, size, W, H)
            res = _resize(res[y:y + size, x:x + size], W, H, interp)
            cropped = True
        if not cropped:
            interp = self._interp(g, res.shape[1], res.shape[0], W, H)
            if res.shape[0] < H:
                cols = int(np.float32(H) / np.float32(res.shape[0]) * np.float32(res.shape[1]))
                res = _resize(res, cols, H, interp)
            if res.shape[1] < W:
                rows = int(np.float32(W) / np.float32(res.shape[1]) * np.float32(res.shape[0]))
                res = _resize(res, W, rows, interp)
            if res.shape[0] < H or res.shape[1] < W:
                raise MXNetError('ImageRecordIter: input image size smaller than input shape')
            y, x = self._origin(g, res.shape[0] - H, res.shape[1] - W)
            res = res[y:y + H, x:x + W]
        if p.brightness > 0 or p.contrast > 0 or p.saturation > 0:
            res = self._color_jitter(res, g)
        if p.random_h or p.random_s or p.random_l:
            res = self._hls(res, g)
        if p.pca_noise > 0:
            res = self._pca(res, g)
        return res

    def _hls(self, res, g):
        """MXNet's HLS jitter: offsets of hue, lightness and saturation drawn as (u1 + 4 u2) / 5 scaled to
        +-random_h/l/s (hue, lightness, saturation drawn in that order), added in OpenCV's HLS bytes and clamped."""
        p, f = self.p, np.float32

        def offset(limit):
            r = R.uniform_float(g, 0, 1)
            r = r + f(4) * R.uniform_float(g, 0, 1)
            return int((r / f(5)) * f(limit) * f(2) - f(limit))
        h, s, lum = offset(p.random_h), offset(p.random_s), offset(p.random_l)
        return shift_hls(res, h, lum, s)

    def _origin(self, g, y, x):
        """The crop's top-left corner given the spare rows/cols: random (y drawn first) or centred."""
        if self.p.rand_crop:
            y = R.uniform_int(g, 0, y)
            return y, R.uniform_int(g, 0, x)
        return y // 2, x // 2

    def _color_jitter(self, res, g):
        p = self.p
        ab = 1 + float(R.uniform_float(g, -p.brightness, p.brightness))
        ac = 1 + float(R.uniform_float(g, -p.contrast, p.contrast))
        as_ = 1 + float(R.uniform_float(g, -p.saturation, p.saturation))
        for i in R.shuffle([0, 1, 2], g):
            if i == 0:
                res = _sat_u8(res.astype(np.float64) * ab)
            elif i == 1:  # MXNet converts its BGR data as if it were RGB
                gray_mean = float(_gray_first_is_red(res).mean())
                res = _sat_u8(res.astype(np.float64) * ac + (1 - ac) * gray_mean)
            else:
                gray = _gray_first_is_red(res).astype(np.float64)[:, :, None]
                res = _sat_u8(res.astype(np.float64) * as_ + gray * (1 - as_))
        return res

    def _pca(self, res, g):
        normal = R.NormalFloat(0, self.p.pca_noise)
        alpha = np.array([normal(g) for _ in range(3)], np.float32)
        rgb = _EIGVEC @ alpha
        bgr = np.array([rgb[2], rgb[1], rgb[0]], np.float32)
        return np.clip(np.trunc(res.astype(np.float32) + bgr), 0, 255).astype(np.uint8)


def _gray_first_is_red(img):
    c0, c1, c2 = (img[..., i].astype(np.int64) for i in range(3))
    return (c0 * 4899 + c1 * 9617 + c2 * 1868 + 8192) >> 14


def decode_record(api, rec, channels):
    """One record -> (header, HxWxC uint8 BGR(A) image), decoded as ``cv::imdecode`` with the flag MXNet's
    iterators pick from the channel count (1: gray, 3: colour, 4: unchanged and must have 4 channels)."""
    header, content = unpack(rec)
    img = decode_numpy(bytes(content), {1: 0, 3: 1, 4: -1}[channels], bgr=True)
    if channels == 4 and (img.ndim != 3 or img.shape[2] != 4):
        raise MXNetError('%s: Invalid image with index %d. Expected 4 channels, got %d'
                         % (api, header.id, 1 if img.ndim == 2 else img.shape[2]))
    return header, img if img.ndim == 3 else img[:, :, None]


def load_mean_image(api, path):
    """The one array of an ``nd.save`` file (MXNet's mean image), as float32 numpy."""
    data = nd.load(path)
    arrays = list(data.values()) if isinstance(data, dict) else data
    if len(arrays) != 1:
        raise MXNetError('%s: Invalid mean image file format' % api)
    return arrays[0].asnumpy().astype(np.float32)


# ---- record sources (dmlc's InputSplit for recordio and indexed_recordio) -------------------------------------------
def _read_record_at(f):
    """Read one (possibly split) record at the current position; None at the end."""
    parts = []
    while True:
        head = f.read(8)
        if len(head) < 8:
            if parts or head:
                raise MXNetError('ImageRecordIter: Invalid RecordIO File')
            return None
        magic, lrec = struct.unpack('<II', head)
        if magic != _MAGIC:
            raise MXNetError('ImageRecordIter: Invalid RecordIO Format')
        cflag, length = lrec >> 29, lrec & _LEN_MASK
        parts.append(f.read((length + 3) & ~3)[:length])
        if cflag in (0, 3):
            return _MAGIC_BYTES.join(parts)


def _seek_record_begin(f, pos, size):
    """The offset of the first record head (cflag 0 or 1) at or after ``pos`` (aligned), or ``size``."""
    f.seek(pos)
    while pos + 8 <= size:
        magic, lrec = struct.unpack('<II', f.read(8))
        if magic == _MAGIC and (lrec >> 29) in (0, 1):
            return pos
        pos += 4
        f.seek(pos)
    return size


class _RecSplit:
    """A plain .rec file (part ``part_index`` of ``num_parts`` by bytes), read in chunks of about 64 MB."""

    def __init__(self, p, api='ImageRecordIter'):
        self.f = _open_local(api, p.path_imgrec)
        size = os.fstat(self.f.fileno()).st_size
        step = (size + p.num_parts - 1) // p.num_parts
        step = (step + 3) // 4 * 4
        begin, end = min(step * p.part_index, size), min(step * (p.part_index + 1), size)
        self.begin = _seek_record_begin(self.f, begin, size) if begin not in (0, size) else begin
        self.end = _seek_record_begin(self.f, end, size) if end != size else end
        self.before_first()

    def before_first(self):
        self.pos = self.begin

    def tell(self):
        return self.pos

    def seek(self, state):
        self.pos = state

    def next_chunk(self, n_records):
        if self.pos >= self.end:
            return None
        self.f.seek(self.pos)
        out, nbytes = [], 0
        while self.f.tell() < self.end and nbytes < _CHUNK_BYTES:
            rec = _read_record_at(self.f)
            if rec is None:
                break
            out.append(rec)
            nbytes += len(rec)
        self.pos = self.f.tell()
        return out


class _IndexedSplit:
    """A .rec file with its .idx: parts by record count, ``batch_size`` records per chunk, optional shuffle of
    the record order at every epoch (``std::mt19937(111 + seed)``)."""

    def __init__(self, p):
        self.f = _open_local('ImageRecordIter', p.path_imgrec)
        with _open_local('ImageRecordIter', p.path_imgidx, 'r') as fi:
            offsets = sorted(int(line.split()[1]) for line in fi if line.strip())
        n = len(offsets)
        step = (n + p.num_parts - 1) // p.num_parts
        self.offsets = offsets[min(p.part_index * step, n):min((p.part_index + 1) * step, n)]
        self.shuffle = p.shuffle
        self.rng = R.MT19937(_MAGIC_SEED + p.seed)
        self.n_overflow = 0
        self.before_first()

    def before_first(self):
        self.order = list(range(len(self.offsets)))
        if self.shuffle:
            R.shuffle(self.order, self.rng)
        self.cur = 0

    def tell(self):
        return self.cur, self.n_overflow

    def seek(self, state):
        self.cur, self.n_overflow = state

    def next_chunk(self, n_records):
        n = self.n_overflow or n_records
        take = self.order[self.cur:self.cur + n]
        self.cur += len(take)
        self.n_overflow = n - len(take) if take else self.n_overflow
        out = []
        for i in take:
            self.f.seek(self.offsets[i])
            out.append(_read_record_at(self.f))
        return out or None


# ---- streaming a chunk: decoding threads ahead, one thread augmenting in file order ---------------------------------
class _StreamState:
    """What a stream's thread shares with the stream (the thread holds only this and a weak reference to the
    stream, so an iterator dropped in the middle of a chunk is collected and its thread told to stop)."""

    def __init__(self, n, limit):
        self.cond = threading.Condition()
        self.results = {}  # file position -> item, made and not yet taken
        self.limit = limit  # the thread may finish the records before this file position
        self.keep = True  # False once discarded: results are dropped
        self.stopped = self.exited = self.rollback = False
        self.restore = None  # gives back the stream's random draws (see _Stream.cancel)
        self.error = None
        self.n = n
        self.thread = None

    def stop(self):
        with self.cond:
            self.stopped, self.keep = True, False
            self.results.clear()
            self.cond.notify_all()


_RUNNING = set()  # the states of the stream threads alive


@atexit.register
def _stop_streams():
    """Stop the stream threads before the interpreter finalizes: a daemon thread that comes back from torch or
    Pillow code (which let go of the GIL) after that is ended inside C++ frames, and the process aborts."""
    for st in list(_RUNNING):
        st.stop()
    for st in list(_RUNNING):
        st.thread.join(5)


def _give_back(st):
    if st.restore is not None:
        st.restore()
        st.restore = None


def _run_stream(ref, st, after):
    """The stream's thread: wait for the previous stream's thread (they share the random engine), then finish the
    records in file order, each as its decoded image arrives, while the stream lets it."""
    pending = {}
    try:
        if after is not None:
            after.join()
        s = ref()
        if s is None:
            return
        s._prev = None
        restore = s._undo() if s._undo is not None else None
        del s
        with st.cond:
            st.restore = restore
        k = submitted = 0
        while k < st.n:
            with st.cond:
                while not st.stopped and k >= st.limit:
                    st.cond.wait()
                if st.stopped:
                    return
                limit = st.limit
            s = ref()
            if s is None:
                return
            if s._pool is None:
                decoded = s._decode(s._records[k])
            else:
                while submitted < min(limit, k + s._ahead):
                    pending[submitted] = s._pool.submit(s._decode, s._records[submitted])
                    s._records[submitted] = None
                    submitted += 1
                decoded = pending.pop(k).result()
            item = s._finish(k, *decoded)
            if s._post is not None and s._order is None and st.keep:  # off the ordered path: in the pool
                item = s._post(item) if s._pool is None else s._pool.submit(s._post, item)
            del s, decoded
            with st.cond:
                if st.keep:
                    st.results[k] = item
                st.cond.notify_all()
            del item
            k += 1
    except BaseException as e:  # noqa: BLE001  (handed to the caller of take())
        with st.cond:
            st.error = e
    finally:
        for f in pending.values():
            f.cancel()
        with st.cond:
            st.exited = True
            if st.rollback:
                _give_back(st)
            st.cond.notify_all()
        _RUNNING.discard(st)


class _Stream:
    """The items of one chunk of records, made in the background: ``decode(record) -> (header, image)`` runs in
    ``pool`` (Pillow releases the GIL) or, without a pool, in the stream's thread, which calls
    ``finish(k, header, image) -> item`` in file order (the random draws happen there, so they keep MXNet's order).
    ``take(m)`` hands out the next ``m`` items in ``order`` (file order, or a shuffled order of file positions),
    the thread making at most ``window`` items beyond those asked for; an error in either is raised there.
    ``discard(drain)`` stops the thread, or with ``drain`` lets it finish the remaining records and drop them (their
    random draws happen, as when MXNet parses a whole chunk). A stream started ``after`` another one (its thread
    waits for that one to end) keeps it alive until then. ``undo()``, called by the thread before its first record,
    returns what ``cancel()`` runs after stopping it (a stream started ahead of need gives its draws back).
    ``post(item)``, what needs no draw (normalization), runs in the pool as soon as an item is made, or, in a
    shuffled order, when it is taken (the chunk is held as the smaller items ``finish`` makes). ``ahead``: how many
    records the pool decodes ahead of the thread (more would queue the normalizations behind them)."""

    def __init__(self, records, decode, finish, pool, window, order=None, after=None, undo=None, post=None,
                 ahead=4):
        self.n, self.taken = len(records), 0
        self._records, self._decode, self._finish, self._pool = list(records), decode, finish, pool
        self._undo, self._post = undo, post
        self._ahead = ahead
        self._window = max(1, window)
        self._need = None if order is None else np.maximum.accumulate(np.asarray(order, np.int64)) + 1
        self._order = order
        self._prev = after
        self._st = st = _StreamState(self.n, self._limit(self._window))
        self._thread = st.thread = threading.Thread(
            target=_run_stream, daemon=True, name='mxcompat-imagerec',
            args=(weakref.ref(self), st, None if after is None else after._thread))
        weakref.finalize(self, st.stop)
        _RUNNING.add(st)
        self._thread.start()

    @property
    def remaining(self):
        return self.n - self.taken

    def _limit(self, count):
        """The file positions the first ``count`` items of the order need."""
        count = min(count, self.n)
        if count == 0:
            return 0
        return int(self._need[count - 1]) if self._need is not None else count

    def take(self, m):
        st, out = self._st, []
        with st.cond:
            limit = self._limit(self.taken + m + self._window)
            if limit > st.limit:
                st.limit = limit
                st.cond.notify_all()
            for j in range(self.taken, self.taken + m):
                k = self._order[j] if self._order is not None else j
                while k not in st.results:
                    if st.error is not None:
                        raise st.error
                    if st.exited:
                        raise MXNetError('ImageRecordIter: the decoding thread ended before record %d' % k)
                    st.cond.wait()
                out.append(st.results.pop(k))
                self.taken += 1
        if self._post is None:
            return out
        if self._order is None:
            return [item.result() if isinstance(item, Future) else item for item in out]
        return list(self._pool.map(self._post, out)) if self._pool is not None else [self._post(i) for i in out]

    def cancel(self):
        """Stop, and give the random draws back (now if the thread has ended, else as it ends)."""
        st = self._st
        with st.cond:
            st.rollback = True
            st.stop()
            if st.exited:
                _give_back(st)

    def discard(self, drain):
        st = self._st
        with st.cond:
            if drain and st.error is None:
                st.keep, st.limit = False, st.n
                st.results.clear()
                st.cond.notify_all()
            else:
                st.stop()


class _Streams:
    """Starts the streams of one iterator, each after the previous one: its decoding threads (none for one thread:
    the stream's thread decodes) and its window (``prefetch_buffer`` batches)."""

    def __init__(self, threads, p, decode, post=None):
        self.post, self.threads = post, threads
        self.pool = None
        if threads > 1:
            self.pool = ThreadPoolExecutor(threads, thread_name_prefix='mxcompat-imagerec-decode')
            weakref.finalize(self, self.pool.shutdown, wait=False, cancel_futures=True)
        self.window, self.decode, self.last = max(1, p.prefetch_buffer) * p.batch_size, decode, None

    def start(self, chunk, finish, order=None, undo=None):
        self.last = _Stream(chunk, self.decode, finish, self.pool, self.window, order, self.last, undo, self.post,
                            4 * self.threads)
        return self.last


class _ImageRecordParser:
    """ImageRecordIOParser2: turns chunks of records into batches of normalized CHW images and labels."""

    def __init__(self, api, p, out_dtype):
        self.api, self.p, self.dtype = api, p, out_dtype
        if p.data_shape is None or len(p.data_shape) != 3 or 0 in p.data_shape:
            raise MXNetError('%s: data_shape must have 3 non-zero dimensions (C, H, W), got %s'
                             % (api, p.data_shape))
        if p.data_shape[0] not in (1, 3, 4):
            raise MXNetError('%s: Invalid output shape %s' % (api, p.data_shape))
        if not p.path_imgrec:
            raise MXNetError('%s: ImageRecordIter2: must specify image_rec' % api)
        if os.path.isdir(p.path_imgrec):
            raise unsupported('mx.io.' + api, 'a directory as path_imgrec', 'pass one .rec file')
        if p.label_width < 1:
            raise MXNetError('%s: label_width should be >= 1' % api)
        self.label_map = self._read_imglist(p.path_imglist) if p.path_imglist else None
        self.split = _IndexedSplit(p) if p.path_imgidx else _RecSplit(p)
        self.legacy_shuffle = p.shuffle and not p.path_imgidx
        self.rnd = R.MT19937(_MAGIC_SEED + p.seed)
        self.prnd = R.MT19937(_MAGIC_SEED)
        self.aug = _Augmenter(p)
        self.threads = max(1, min(p.preprocess_threads, os.cpu_count() or 1))
        self.streams = _Streams(self.threads, p, functools.partial(decode_record, api, channels=p.data_shape[0]),
                                self._row)
        self.stream = self.ahead = None  # the chunk being handed out; (batch position, split state, stream) next
        self.overflow = False
        self.buffers = None
        self.meanimg = None
        if out_dtype != np.uint8 and p.mean_img:
            self._mean_image()
        if p.verbose:
            cpp_log('../src/io/iter_image_recordio_2.cc:177',
                    'ImageRecordIOParser2: %s, use %d threads for decoding..', p.path_imgrec, self.threads)

    def _read_imglist(self, path):
        labels = {}
        with _open_local(self.api, path, 'r') as f:
            for line in f:
                fields = line.split()
                if not fields:
                    continue
                if len(fields) < 1 + self.p.label_width:
                    raise MXNetError('%s: Bad ImageList format' % self.api)
                labels[int(fields[0])] = np.array(fields[1:1 + self.p.label_width], np.float32)
        return labels

    def _mean_image(self):
        if os.path.exists(self.p.mean_img):
            self.meanimg = load_mean_image(self.api, self.p.mean_img)
            return
        cpp_log('../src/io/iter_image_recordio_2.cc:663',
                'Cannot find %s: create mean image, this will take some time...', self.p.mean_img)
        total, count = None, 0
        while True:
            chunk = self.split.next_chunk(self.p.batch_size)
            if chunk is None:
                break
            for data, _ in self._parse_chunk(chunk, self.p.batch_size):
                total = data.astype(np.float32) if total is None else total + data
                count += 1
        self.meanimg = total * np.float32(1.0 / count)
        nd.save(self.p.mean_img, {'mean_img': nd.array(self.meanimg)})
        cpp_log('../src/io/iter_image_recordio_2.cc:700', 'Save mean image to %s..', self.p.mean_img)
        self.split.before_first()

    # -- one record -> (uint8 HxWxC image, label, draws) in file order -> (CHW array, label) in the pool --
    def _label(self, header):
        p = self.p
        if self.label_map is not None:
            if header.id not in self.label_map:
                raise MXNetError('%s: fail to find imagelabel for id %d' % (self.api, header.id))
            return self.label_map[header.id]
        if header.flag > 0:
            if header.flag != p.label_width:
                raise MXNetError('%s: rec file provide %d-dimensional label but label_width is set to %d'
                                 % (self.api, header.flag, p.label_width))
            return np.asarray(header.label, np.float32)
        if p.label_width != 1:
            raise MXNetError('%s: label_width must be 1 unless an imglist is provided or the rec file is packed '
                             'with multi dimensional label' % self.api)
        return np.array([header.label], np.float32)

    def _draws(self, g):
        """The normalization's random draws for one image: mirror, then contrast and illumination (every
        non-uint8 output type draws them)."""
        p, f32 = self.p, np.float32
        mirrored = (p.rand_mirror and R.bernoulli(g, 0.5)) or p.mirror
        if self.dtype == np.uint8:
            return mirrored, None, None
        contrast = (R.uniform_float(g, 0, 1) * f32(p.max_random_contrast) * f32(2)
                    - f32(p.max_random_contrast) + f32(1)) * f32(p.scale)
        illum = (R.uniform_float(g, 0, 1) * f32(p.max_random_illumination) * f32(2)
                 - f32(p.max_random_illumination)) * f32(p.scale)
        return mirrored, contrast, illum

    def _normalize(self, img, mirrored, contrast, illum):
        """The CHW output of an augmented image, given its draws."""
        p = self.p
        c = img.shape[2]
        flip = mirrored and self.meanimg is None  # every later step is the same across a row: flip first, once
        if c == 3:  # (BGR -> RGB and the flip as one view: read once by the conversion below)
            chw = (img[:, ::-1, ::-1] if flip else img[:, :, ::-1]).transpose(2, 0, 1)
        else:
            chw = img.transpose(2, 0, 1)[[2, 1, 0, 3][:c] if c > 1 else [0]]
            if flip:
                chw = chw[:, :, ::-1]
        if flip:
            mirrored = False
        if self.dtype == np.uint8:
            out = chw
        else:
            f32 = np.float32
            if self.meanimg is not None:
                mean = self.meanimg
            else:
                mean = np.array([p.mean_r, p.mean_g, p.mean_b, p.mean_a][:c] if c > 1 else [p.mean_r],
                                f32)[:, None, None]
            if self.dtype == np.int8:
                rounded = np.sign(mean) * np.floor(np.abs(mean) + 0.5)  # std::round: half away from zero
                out = np.clip(chw.astype(np.int64) - rounded.astype(np.int64), -128, 127).astype(np.int8)
            else:
                std = np.array([p.std_r, p.std_g, p.std_b, p.std_a][:c] if c > 1 else [p.std_r], f32)[:, None, None]
                out = chw.astype(f32, order='C')  # (x - mean) * (contrast / std) + illum / std, in place
                # (the passes that change no value are left out: subtracting a zero mean, multiplying by 1, adding
                # zero where a positive factor leaves no -0.0 to turn into +0.0; the defaults take none of them)
                if (mean != 0).any():
                    out -= mean
                factor, shift = contrast / std, illum / std
                if (factor != 1).any():
                    out *= factor
                if (shift != 0).any() or not (factor > 0).all():
                    out += shift
        return np.ascontiguousarray(out[:, :, ::-1] if mirrored else out)

    def _row(self, item):
        """(augmented image, label, draws) -> (CHW output, label)."""
        res, label, draws = item
        return self._normalize(res, *draws), label

    def _augment(self, start, k, header, img):
        """Record ``k`` of a chunk taken when ``start`` images of the batch were filled: label, augmentation and
        normalization draws, in file order on the stream's thread."""
        if self.p.seed_aug is not None:
            self.prnd.seed(start + k + self.p.seed_aug + _MAGIC_SEED)
        label = self._label(header)
        res = self.aug(img, self.prnd)
        if res.ndim == 2:
            res = res[:, :, None]
        return res, label, self._draws(self.prnd)

    def _parse_chunk(self, chunk, start):
        """A whole chunk of records, decoded, augmented and normalized: [(CHW array, label)]."""
        return self.streams.start(chunk, functools.partial(self._augment, start)).take(len(chunk))

    def _undo_draws(self):
        """What gives the augmentation engine back its present state (for a chunk started ahead of need)."""
        g = self.prnd
        saved = copy.deepcopy(g.__dict__)

        def restore():
            g.__dict__.clear()
            g.__dict__.update(saved)
        return restore

    def _start_ahead(self, length, start):
        """Start the chunk after one of ``length`` records taken at batch position ``start``, ahead of need; not
        when the order is shuffled per chunk (the shuffle draws from ``seed``'s engine when a chunk is taken)."""
        self.ahead = None
        if self.legacy_shuffle:
            return
        state = self.split.tell()
        chunk = self.split.next_chunk(self.p.batch_size)
        if chunk is None:
            self.split.seek(state)
            return
        at = (start + length) % self.p.batch_size
        self.ahead = (at, state, self.streams.start(chunk, functools.partial(self._augment, at), None,
                                                    self._undo_draws))

    def _next_stream(self, start):
        """The next chunk's stream for a batch filled up to ``start``: the one started ahead, or a new one; False
        at the end of the part."""
        if self.ahead is not None:
            at, state, stream = self.ahead
            self.ahead = None
            if at == start or self.p.seed_aug is None:  # without seed_aug the batch position is not used
                self.stream = stream
                self._start_ahead(stream.n, start)
                return True
            stream.cancel()
            self.split.seek(state)
        chunk = self.split.next_chunk(self.p.batch_size)
        if chunk is None:
            return False
        order = R.shuffle(list(range(len(chunk))), self.rnd) if self.legacy_shuffle else None
        self.stream = self.streams.start(chunk, functools.partial(self._augment, start), order)
        self._start_ahead(len(chunk), start)
        return True

    def _discard(self):
        if self.ahead is not None:  # not taken yet: its draws are given back, the split goes back before it
            self.ahead[2].cancel()
            self.split.seek(self.ahead[1])
            self.ahead = None
        if self.stream is not None:  # MXNet has parsed the whole chunk: its draws happen (not with seed_aug)
            self.stream.discard(drain=self.p.seed_aug is None)
            self.stream = None

    def before_first(self):
        if not self.p.round_batch or not self.overflow:
            self._discard()
            self.split.before_first()
        else:
            self.overflow = False

    def next(self):
        if self.overflow:
            return None
        B = self.p.batch_size
        batch, pad = [], 0
        while len(batch) < B:
            if self.stream is not None and self.stream.remaining:
                try:
                    batch += self.stream.take(min(self.stream.remaining, B - len(batch)))
                except BaseException:
                    self.stream = None  # the rest of this chunk is lost; the next call goes on with the next one
                    raise
                continue
            if self._next_stream(B if self.legacy_shuffle else len(batch)):
                continue
            if not batch:
                return None
            if self.overflow:
                raise MXNetError('%s: number of input images must be bigger than the batch size' % self.api)
            if self.p.round_batch:
                pad = B - len(batch)
                self.overflow = True
                self.split.before_first()
                continue
            break  # MXNet reports pad 0 here; the unfilled rows keep the previous batch's values
        return self._assemble(batch, pad)

    def _assemble(self, batch, pad):
        """The batch, in this parser's buffers: rows no image reached keep the previous batch's values (zeros at
        first), as MXNet's reused buffer does. MXDataIter hands out copies; a buffer allocated per batch (over
        glibc's mmap threshold at 224x224 x 64) costs its page faults at every batch."""
        p = self.p
        if self.buffers is None:
            self.buffers = (np.zeros((p.batch_size,) + tuple(p.data_shape), self.dtype),
                            np.zeros((p.batch_size, p.label_width), np.float32))
        data, label = self.buffers
        for i, (d, l) in enumerate(batch):
            if d.shape != data.shape[1:]:
                raise MXNetError('%s: an augmented image has shape %s, expected %s'
                                 % (self.api, d.shape, data.shape[1:]))
            data[i] = d
            label[i] = l
        return data, label, pad, np.zeros(p.batch_size, np.uint64)


_DTYPES = {None: np.float32, 'float32': np.float32, 'uint8': np.uint8, 'int8': np.int8}


def image_record_iter(api, kwargs, fixed_dtype=None):
    """Build the ImageRecordIter family (``fixed_dtype`` for the UInt8/Int8 variants)."""
    p = _Params(api, kwargs, _SPEC, extra=('rotate_list',))
    p.rotate_list = _int_list(str(kwargs['rotate_list'])) if 'rotate_list' in kwargs else []
    _check_supported(api, p)
    dtype = fixed_dtype or p.dtype
    if dtype not in _DTYPES:
        raise MXNetError('%s: unknown dtype for ImageRecordIter2: %s' % (api, dtype))
    return MXDataIter(_ImageRecordParser(api, p, _DTYPES[dtype]), **kwargs)


def _image_record(name, dtype=None):
    def create(**kwargs):
        return image_record_iter(name, kwargs, dtype)
    return create


ImageRecordIter = _creator('ImageRecordIter', _image_record('ImageRecordIter'))
ImageRecordUInt8Iter = _creator('ImageRecordUInt8Iter', _image_record('ImageRecordUInt8Iter', 'uint8'))
ImageRecordInt8Iter = _creator('ImageRecordInt8Iter', _image_record('ImageRecordInt8Iter', 'int8'))
ImageRecordIter_v1 = _creator('ImageRecordIter_v1', _image_record('ImageRecordIter_v1'))
ImageRecordUInt8Iter_v1 = _creator('ImageRecordUInt8Iter_v1', _image_record('ImageRecordUInt8Iter_v1', 'uint8'))
