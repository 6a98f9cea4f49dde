"""``mx.io.ImageDetRecordIter``: batches of images with variable-length object-detection labels from a .rec file.

The pipeline is MXNet 1.9.1's: records are read a chunk at a time (part ``part_index`` of ``num_parts``), decoded,
run through the detection augmenter (``det_aug_default``) in file order, optionally shuffled within the chunk,
normalized (mean/std/scale), then grouped into batches by the generic batch loader (``round_batch`` borrows from
the start of the data; without it the short last batch reports ``pad`` and its unfilled rows keep the previous
batch's values). The chunk is streamed as ImageRecordIter's is: decoding threads ahead, one thread augmenting in
file order at most ``prefetch_buffer`` batches ahead; a reset in the middle of a chunk still draws for all of it.

Each label row is ``[channels, rows, cols, n, raw[0:n], label_pad_value...]`` of width ``label_pad_width + 4``,
where ``raw`` is the record's detection label ``[A, B, header..., objects...]`` after augmentation (objects whose
box is empty are dropped, boxes cropped/padded/mirrored with the pixels) and ``rows``/``cols`` the size of the
augmented image inside the ``data_shape`` canvas (smaller with ``resize_mode`` ``shrink``/``fit``; the rest of the
canvas is 0 before normalization). Without ``label_pad_width`` the width is the largest label in the part (or
in ``path_imglist``), found by a pass over the file at construction.

Randomness follows MXNet's engines (one decoding thread, as on a 2-core machine): the augmenter draws from
``std::mt19937(233)`` and the shuffle from ``std::mt19937(233 + seed)``, both continuing across epochs (creating a
``mean_img`` consumes one epoch of them, as in MXNet).

Differs from MXNet:

* Pixels: Pillow decodes and mxcompat resizes with OpenCV's rules (see ``mx.image``); a JPEG or a
  cubic/lanczos resize can differ by 1 here and there.
* With more than one decoding thread MXNet draws from one engine per thread (other random choices); with a file
  larger than one read chunk (64 MB here, smaller in MXNet) ``shuffle`` mixes other groups of records, and
  MXNet's prefetching thread may consume draws for chunks it discards at a reset.
* Raise ``MXNetNotImplementedError``: ``aug_seq`` with ``aug_default``, ``shuffle_chunk_size`` large enough to split
  the file into shuffled parts, remote paths and directories.
* Raise ``MXNetError`` where MXNet 1.9.1 crashes: an unknown ``aug_seq`` name (segmentation fault), a crop window
  or resize of zero size (an OpenCV assertion); a ``dtype`` other than float32 is refused at construction
  (MXNet fails at the first batch with the same message).
* Unknown arguments give a warning; MXNet ignores them silently.
"""
import functools
import math
import os

import numpy as np

from ..base import MXNetError, cpp_log, unsupported
from ..operator._cv_hls import shift_hls
from . import _cxxrandom as R
from ._image_record import (_RecSplit, _Streams, _resize, decode_record, load_mean_image, pick_interp,
                            shorter_edge_to)
from .io import (MXDataIter, _BatchLoader, _open_local, _Params, _Prefetched, _REQUIRED, _BATCH, _PREFETCH,
                 _creator)
from ..recordio import unpack
from .. import ndarray as nd

API = 'ImageDetRecordIter'
_MAGIC = 233  # MXNet's kRandMagic for this iterator: the augmenter engine of thread 0 and the shuffle seed offset
_F = np.float32

_SPEC = dict({
    # ImageDetRecParserParam
    'path_imglist': ('string', ''), 'path_imgrec': ('string', './data/imgrec.rec'),
    'aug_seq': ('string', 'det_aug_default'), 'label_width': ('int', -1), 'data_shape': ('Shape(tuple)', _REQUIRED),
    'preprocess_threads': ('int', 4), 'verbose': ('boolean', True), 'num_parts': ('int', 1),
    'part_index': ('int', 0), 'shuffle_chunk_size': ('int', 0), 'shuffle_chunk_seed': ('int', 0),
    'label_pad_width': ('int', 0), 'label_pad_value': ('float', -1.0),
    # ImageDetRecordParam
    'shuffle': ('boolean', False), 'seed': ('int', 0),
    # DefaultImageDetAugmentParam
    'resize': ('int', -1), 'rand_crop_prob': ('float', 0.0),
    'min_crop_scales': ('tuple of <float>', (0.0,)), 'max_crop_scales': ('tuple of <float>', (1.0,)),
    'min_crop_aspect_ratios': ('tuple of <float>', (1.0,)), 'max_crop_aspect_ratios': ('tuple of <float>', (1.0,)),
    'min_crop_overlaps': ('tuple of <float>', (0.0,)), 'max_crop_overlaps': ('tuple of <float>', (1.0,)),
    'min_crop_sample_coverages': ('tuple of <float>', (0.0,)),
    'max_crop_sample_coverages': ('tuple of <float>', (1.0,)),
    'min_crop_object_coverages': ('tuple of <float>', (0.0,)),
    'max_crop_object_coverages': ('tuple of <float>', (1.0,)),
    'num_crop_sampler': ('int', 1), 'crop_emit_mode': (('center', 'overlap'), 'center'),
    'emit_overlap_thresh': ('float', 0.3), 'max_crop_trials': ('tuple of <int>', (25,)),
    'rand_pad_prob': ('float', 0.0), 'max_pad_scale': ('float', 1.0),
    'max_random_hue': ('int', 0), 'random_hue_prob': ('float', 0.0),
    'max_random_saturation': ('int', 0), 'random_saturation_prob': ('float', 0.0),
    'max_random_illumination': ('int', 0), 'random_illumination_prob': ('float', 0.0),
    'max_random_contrast': ('float', 0.0), 'random_contrast_prob': ('float', 0.0),
    'rand_mirror_prob': ('float', 0.0), 'fill_value': ('int', 127), 'inter_method': ('int', 1),
    'resize_mode': (('force', 'shrink', 'fit'), 'force'),
    # ImageDetNormalizeParam
    'mean_img': ('string', ''), 'mean_r': ('float', 0.0), 'mean_g': ('float', 0.0), 'mean_b': ('float', 0.0),
    'mean_a': ('float', 0.0), 'std_r': ('float', 0.0), 'std_g': ('float', 0.0), 'std_b': ('float', 0.0),
    'std_a': ('float', 0.0), 'scale': ('float', 1.0),
}, **_BATCH, **_PREFETCH)

_CROP_TUPLES = ('min_crop_scales', 'max_crop_scales', 'min_crop_aspect_ratios', 'max_crop_aspect_ratios',
                'min_crop_overlaps', 'max_crop_overlaps', 'min_crop_sample_coverages', 'max_crop_sample_coverages',
                'min_crop_object_coverages', 'max_crop_object_coverages', 'max_crop_trials')


def _check(cond, what):
    if not cond:
        raise MXNetError('%s: Check failed: %s' % (API, what))


# ---- boxes: float32 (x, y, w, h) rectangles as OpenCV's Rect_<float> -------------------------------------------
def _intersect(a, b):
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    w, h = min(a[0] + a[2], b[0] + b[2]) - x1, min(a[1] + a[3], b[1] + b[3]) - y1
    return (x1, y1, w, h) if w > 0 and h > 0 else (_F(0),) * 4


def _area(r):
    return r[2] * r[3]


class _DetLabel:
    """A detection label split into its header and its objects (rows of ``B`` float32 values, boxes non-empty)."""

    def __init__(self, raw):
        raw = np.asarray(raw, _F)
        _check(len(raw) >= 7, 'label_width >= 7 (%d vs. 7): a detection label is a 2-value header and at least '
                              'one 5-value object' % len(raw))
        hw, self.width = int(raw[0]), int(raw[1])
        _check(hw >= 2, 'header_width >= 2 (%d vs. 2)' % hw)
        _check(self.width >= 5, 'object_width >= 5 (%d vs. 5)' % self.width)
        _check(hw <= len(raw) and (len(raw) - hw) % self.width == 0,
               '(label_width - header_width) %% object_width == 0 (label of %d values, header %d, object %d)'
               % (len(raw), hw, self.width))
        self.header = raw[:hw]
        objs = raw[hw:].reshape(-1, self.width)
        self.objects = [o.copy() for o in objs if o[3] > o[1] and o[4] > o[2]]

    def to_array(self):
        return np.concatenate([self.header] + self.objects) if self.objects else self.header.copy()

    @staticmethod
    def _project(o, box):
        o = o.copy()
        o[1] = max(_F(0), (o[1] - box[0]) / box[2])
        o[2] = max(_F(0), (o[2] - box[1]) / box[3])
        o[3] = min(_F(1), (o[3] - box[0]) / box[2])
        o[4] = min(_F(1), (o[4] - box[1]) / box[3])
        return o

    def pad(self, box):
        self.objects = [self._project(o, box) for o in self.objects]

    def mirror(self):
        for o in self.objects:
            o[1], o[3] = _F(1) - o[3], _F(1) - o[1]

    def try_crop(self, box, lo_ovp, hi_ovp, lo_sample, hi_sample, lo_obj, hi_obj, emit_center, emit_thresh):
        """Crop the labels to ``box`` if one object meets the constraints and some object survives."""
        if not self.objects:
            return True  # as MXNet: nothing to check, the image is cropped anyway
        constrained = lo_ovp > 0 or hi_ovp < 1 or lo_sample > 0 or hi_sample < 1 or lo_obj > 0 or hi_obj < 1
        if constrained and not any(self._meets(o, box, lo_ovp, hi_ovp, lo_sample, hi_sample, lo_obj, hi_obj)
                                   for o in self.objects):
            return False
        kept = []
        for o in self.objects:
            if emit_center:
                cx, cy = (o[1] + o[3]) * _F(0.5), (o[2] + o[4]) * _F(0.5)
                keep = box[0] <= cx < box[0] + box[2] and box[1] <= cy < box[1] + box[3]
            else:
                gt = (o[1], o[2], o[3] - o[1], o[4] - o[2])
                keep = _area(_intersect(box, gt)) / _area(gt) > emit_thresh
            if keep:
                kept.append(self._project(o, box))
        if not kept:
            return False
        self.objects = kept
        return True

    @staticmethod
    def _meets(o, box, lo_ovp, hi_ovp, lo_sample, hi_sample, lo_obj, hi_obj):
        gt = (o[1], o[2], o[3] - o[1], o[4] - o[2])
        inter = _area(_intersect(box, gt))
        if lo_ovp > 0 or hi_ovp < 1:
            iou = inter / (_area(box) + _area(gt) - inter) if inter > 0 else _F(0)
            if iou < lo_ovp or iou > hi_ovp:
                return False
        if lo_sample > 0 or hi_sample < 1:
            c = inter / _area(box)
            if c < lo_sample or c > hi_sample:
                return False
        if lo_obj > 0 or hi_obj < 1:
            c = inter / _area(gt)
            if c < lo_obj or c > hi_obj:
                return False
        return True


# ---- the augmenter ------------------------------------------------------------------------------------------------
class _DetAugmenter:
    """MXNet's ``det_aug_default`` on a BGR(A) uint8 HxWxC image and its raw label, drawing from the engine ``g``
    in MXNet's order: [resize], [colour: 4 + 4 draws], [mirror], [pad], [crop], fit to ``data_shape``."""

    def __init__(self, p):
        self.p = p
        if not (0 <= p.inter_method <= 4 or 9 <= p.inter_method <= 10):
            raise MXNetError('%s: invalid inter_method: valid value 0,1,2,3,9,10 (got %d)' % (API, p.inter_method))
        n = p.num_crop_sampler
        self.crop = {}
        for name in _CROP_TUPLES:
            t = tuple(getattr(p, name))
            if n == 1:
                _check(len(t) == 1, '%s has %d values for num_crop_sampler 1' % (name, len(t)))
            elif n > 1:
                if len(t) == 1:
                    t = t * n
                _check(len(t) == n, '# of parameters/crop_samplers mismatch: %s has %d values for '
                                    'num_crop_sampler %d' % (name, len(t), n))
            self.crop[name] = t if name == 'max_crop_trials' else tuple(_F(v) for v in t)
        c = self.crop
        for i in range(max(n, 0)):
            _check(c['min_crop_scales'][i] >= 0, 'min_crop_scales >= 0')
            _check(c['max_crop_scales'][i] <= 1, 'max_crop_scales <= 1')
            _check(c['max_crop_scales'][i] > c['min_crop_scales'][i], 'max_crop_scales > min_crop_scales')
            _check(c['min_crop_aspect_ratios'][i] >= 0, 'min_crop_aspect_ratios >= 0')
            for what in ('aspect_ratios', 'overlaps', 'sample_coverages', 'object_coverages'):
                _check(c['max_crop_' + what][i] >= c['min_crop_' + what][i],
                       'max_crop_%s >= min_crop_%s' % (what, what))
        _check(p.emit_overlap_thresh >= 0, 'emit_overlap_thresh >= 0')
        self.fill = p.fill_value

    def _resized(self, g, res, nw, nh):
        if nw <= 0 or nh <= 0:
            raise MXNetError('%s: cannot resize a %dx%d image to %dx%d' % (API, res.shape[1], res.shape[0], nw, nh))
        return _resize(res, nw, nh, pick_interp(self.p.inter_method, g, res.shape[1], res.shape[0], nw, nh))

    def __call__(self, res, raw_label, g):
        p = self.p
        if p.resize != -1:
            res = self._resized(g, res, *shorter_edge_to(p.resize, res.shape[0], res.shape[1]))
        label = _DetLabel(raw_label)
        if (p.random_hue_prob > 0 or p.random_saturation_prob > 0 or p.random_illumination_prob > 0
                or p.random_contrast_prob > 0):
            h, s, lum = (int(R.uniform_float(g, -1, 1) * _F(most)) for most in
                         (p.max_random_hue, p.max_random_saturation, p.max_random_illumination))
            c = R.uniform_float(g, -1, 1) * _F(p.max_random_contrast)
            h = h if R.uniform_float(g, 0, 1) < _F(p.random_hue_prob) else 0
            s = s if R.uniform_float(g, 0, 1) < _F(p.random_saturation_prob) else 0
            lum = lum if R.uniform_float(g, 0, 1) < _F(p.random_illumination_prob) else 0
            if not R.uniform_float(g, 0, 1) < _F(p.random_contrast_prob):
                c = _F(0)
            if h or s or lum:  # (offsets added to OpenCV's HLS bytes, clamped, converted back)
                if res.ndim != 3 or res.shape[2] != 3:
                    raise MXNetError('%s: the HLS jitter converts BGR images: got %s channels, the conversion '
                                     'needs 3' % (API, res.shape[2] if res.ndim == 3 else 1))
                res = shift_hls(res, h, lum, s)
            if abs(float(c)) > 1e-3:
                res = np.clip(np.rint(res.astype(_F) * (c + _F(1))), 0, 255).astype(np.uint8)
        if p.rand_mirror_prob > 0 and R.uniform_float(g, 0, 1) < _F(p.rand_mirror_prob):
            label.mirror()
            res = res[:, ::-1]
        if p.rand_pad_prob > 0 and p.max_pad_scale > 1 and R.uniform_float(g, 0, 1) < _F(p.rand_pad_prob):
            res = self._pad(res, label, g)
        if p.rand_crop_prob > 0 and p.num_crop_sampler > 0 and R.uniform_float(g, 0, 1) < _F(p.rand_crop_prob):
            res = self._crop(res, label, g)
        H, W = p.data_shape[1], p.data_shape[2]
        if p.resize_mode == 'force':
            res = self._resized(g, res, W, H)
        elif p.resize_mode == 'fit' or res.shape[0] > H or res.shape[1] > W:
            ratio = min(_F(H) / _F(res.shape[0]), _F(W) / _F(res.shape[1]))
            res = self._resized(g, res, int(ratio * _F(res.shape[1])), int(ratio * _F(res.shape[0])))
        return res, label.to_array()

    def _pad(self, res, label, g):
        scale = R.uniform_float(g, 1, self.p.max_pad_scale)
        if scale < _F(1.05):
            return res
        x0 = R.uniform_float(g, 0, scale - _F(1))
        y0 = R.uniform_float(g, 0, scale - _F(1))
        box = (-x0, -y0, scale, scale)
        label.pad(box)
        rows, cols = _F(res.shape[0]), _F(res.shape[1])
        left, top = int(x0 * cols), int(y0 * rows)
        right = int((box[2] + box[0] - _F(1)) * cols)
        bottom = int((box[3] + box[1] - _F(1)) * rows)
        c = res.shape[2]
        fill = np.array([self.fill] * 3 + [0], np.uint8)[:c] if c > 1 else np.array([self.fill], np.uint8)
        out = np.empty((res.shape[0] + top + bottom, res.shape[1] + left + right, c), np.uint8)
        out[...] = fill
        out[top:top + res.shape[0], left:left + res.shape[1]] = res
        return out

    def _crop_box(self, g, i, img_ar):
        c = self.crop
        scale = R.uniform_float(g, c['min_crop_scales'][i], c['max_crop_scales'][i]) + _F(1e-12)
        sq = scale * scale
        lo = max(c['min_crop_aspect_ratios'][i] / img_ar, sq)
        hi = min(c['max_crop_aspect_ratios'][i] / img_ar, _F(1.0 / float(sq)))
        with np.errstate(invalid='ignore'):
            ratio = np.sqrt(R.uniform_float(g, lo, hi))
        w, h = min(_F(1), scale * ratio), min(_F(1), scale / ratio)
        x0 = R.uniform_float(g, 0, _F(1) - w)
        y0 = R.uniform_float(g, 0, _F(1) - h)
        return (x0, y0, w, h)

    def _crop(self, res, label, g):
        c, p = self.crop, self.p
        order = R.shuffle(list(range(p.num_crop_sampler)), g)
        for i in order:
            for _ in range(c['max_crop_trials'][i]):
                box = self._crop_box(g, i, _F(res.shape[1]) / _F(res.shape[0]))
                if label.try_crop(box, c['min_crop_overlaps'][i], c['max_crop_overlaps'][i],
                                  c['min_crop_sample_coverages'][i], c['max_crop_sample_coverages'][i],
                                  c['min_crop_object_coverages'][i], c['max_crop_object_coverages'][i],
                                  p.crop_emit_mode == 'center', _F(p.emit_overlap_thresh)):
                    rows, cols = _F(res.shape[0]), _F(res.shape[1])
                    x, y = int(box[0] * cols), int(box[1] * rows)
                    w, h = int(box[2] * cols), int(box[3] * rows)
                    if w <= 0 or h <= 0 or x + w > res.shape[1] or y + h > res.shape[0]:
                        raise MXNetError('%s: crop window (%d, %d, %d, %d) does not fit in a %dx%d image'
                                         % (API, x, y, w, h, res.shape[1], res.shape[0]))
                    return res[y:y + h, x:x + w]
        return res


# ---- instances: decode, augment, shuffle, normalize ---------------------------------------------------------------
def _read_det_imglist(path, label_width, verbose):
    """``path_imglist``: ``index label... path`` lines; ``label_width`` values each, or all but the last (-1)."""
    labels = {}
    with _open_local(API, path, 'r') as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            if label_width > 0:
                if len(fields) < 1 + label_width:
                    raise MXNetError('%s: Bad ImageList format' % API)
                vals = fields[1:1 + label_width]
            else:
                if len(fields) < 3:
                    raise MXNetError('%s: Bad ImageList format: empty label' % API)
                vals = fields[1:-1]
            labels[int(float(fields[0]))] = np.array([float(v) for v in vals], _F)
    if verbose:
        cpp_log('../src/io/iter_image_det_recordio.cc:109',
                'Loaded ImageList from %s %d Image records', path, len(labels))
    return labels


class _DetInstances:
    """ImageDetRecordIter + ImageDetNormalizeIter: one (index, (CHW float32 image, padded label)) per call."""

    def __init__(self, p):
        self.p = p
        if p.data_shape is None or len(p.data_shape) != 3 or 0 in p.data_shape:
            raise MXNetError('%s: value %s for Parameter data_shape has wrong dimensions, expected dimension=3 '
                             '(C, H, W), all non-zero' % (API, p.data_shape))
        if p.data_shape[0] not in (1, 3, 4):
            raise MXNetError('%s: Invalid output shape %s' % (API, p.data_shape))
        if p.preprocess_threads < 1:
            raise MXNetError('%s: preprocess_threads should be >= 1' % API)
        if not (p.num_parts > 0 and 0 <= p.part_index < p.num_parts):
            raise MXNetError('%s: invalid part_index %d of num_parts %d' % (API, p.part_index, p.num_parts))
        names = p.aug_seq.split(',')
        for name in names:
            if name == 'aug_default':
                raise unsupported('mx.io.' + API, "the argument aug_seq='aug_default'",
                                  'only det_aug_default (the detection augmenter) is ported')
            if name != 'det_aug_default':
                raise MXNetError('%s: Unknown augmenter %r in aug_seq' % (API, name))
        self.augs = [_DetAugmenter(p) for _ in names]
        self.label_map = _read_det_imglist(p.path_imglist, p.label_width, p.verbose) if p.path_imglist else None
        if not p.path_imgrec:
            raise MXNetError('%s: ImageDetRecordIOIterator: must specify image_rec' % API)
        # MXNet decodes with at most (cores - 1) threads; the count does not change the output
        self.threads = max(1, min(p.preprocess_threads, (os.cpu_count() or 2) - 1))
        if p.verbose:
            cpp_log('../src/io/iter_image_det_recordio.cc:282',
                    'ImageDetRecordIOParser: %s, use %d threads for decoding..', p.path_imgrec, self.threads)
        self.split = _RecSplit(p, API)
        self.pad_width = self._label_pad_width()
        if p.shuffle_chunk_size > 0:
            size = self.split.f.seek(0, 2)
            if math.ceil(size * 1.1 / (p.num_parts * (p.shuffle_chunk_size << 20))) > 1:
                raise unsupported('mx.io.' + API, 'the argument shuffle_chunk_size=%d for a file of %d bytes'
                                  % (p.shuffle_chunk_size, size), 'chunk shuffling is not ported')
        self.prnd = R.MT19937(_MAGIC)
        self.rnd = R.MT19937(_MAGIC + p.seed)
        self.streams = _Streams(self.threads, p, functools.partial(decode_record, API, channels=p.data_shape[0]),
                                self._normalized)
        self.stream = None  # the chunk being handed out
        self.meanimg = None
        if p.mean_img:
            self._mean_image()

    def _label_pad_width(self):
        p = self.p
        if self.label_map is not None:
            widest = max((len(v) for v in self.label_map.values()), default=0)
        else:
            widest = 0
            while True:
                chunk = self.split.next_chunk(0)
                if chunk is None:
                    break
                for rec in chunk:
                    widest = max(widest, len(self._record_label(unpack(rec)[0])))
            self.split.before_first()
        width = p.label_pad_width
        if widest > width:
            if width > 0:
                raise MXNetError('%s: ImageDetRecordIOParser: label_pad_width: %d smaller than estimated width: %d'
                                 % (API, width, widest))
            width = widest
        if p.verbose:
            cpp_log('../src/io/iter_image_det_recordio.cc:339',
                    'ImageDetRecordIOParser: %s, label padding width: %d', p.path_imgrec, width)
        return width

    def _record_label(self, header):
        if header.flag <= 0:
            raise MXNetError('%s: Not enough label packed in img_list or rec file (record %d has none)'
                             % (API, header.id))
        if self.p.label_width > 0 and header.flag != self.p.label_width:
            raise MXNetError('%s: rec file provide %d-dimensional label but label_width is set to %d'
                             % (API, header.flag, self.p.label_width))
        return np.asarray(header.label, _F).reshape(-1)

    def _label(self, header):
        if self.label_map is None:
            return self._record_label(header)
        if header.id not in self.label_map:
            raise MXNetError('%s: fail to find imagelabel for id %d' % (API, header.id))
        return self.label_map[header.id]

    def _mean_image(self):
        if os.path.exists(self.p.mean_img):
            self.meanimg = load_mean_image(API, self.p.mean_img)
            return
        cpp_log('../src/io/iter_normalize.h:383',
                'Cannot find %s: create mean image, this will take some time...', self.p.mean_img)
        total, count = None, 0
        while True:  # MXNet averages the normalized images (std and scale applied), consuming one epoch of draws
            inst = self.next()
            if inst is None:
                break
            data = inst[1][0]
            total = data.copy() if total is None else total + data
            count += 1
        if total is None:
            raise MXNetError('%s: input iterator failed: no image to create the mean image from' % API)
        self.meanimg = total * _F(1.0 / count)
        nd.save(self.p.mean_img, {'mean_img': nd.array(self.meanimg)})
        cpp_log('../src/io/iter_normalize.h:408', 'Save mean image to %s..', self.p.mean_img)
        self.before_first()

    def _augment(self, k, header, img):
        """One decoded record -> (id, CHW float32 canvas, padded label row), on the stream's thread in file order
        (the augmenter's draws)."""
        label = self._label(header)
        for aug in self.augs:
            img, label = aug(img, label, self.prnd)
        c, rows, cols = img.shape[2], img.shape[0], img.shape[1]
        H, W = self.p.data_shape[1:]
        if rows > H or cols > W:
            raise MXNetError('%s: an augmented image is %dx%d, larger than data_shape %s'
                             % (API, rows, cols, self.p.data_shape))
        if len(label) > self.pad_width:
            raise MXNetError('%s: label of %d values is wider than label_pad_width %d'
                             % (API, len(label), self.pad_width))
        data = np.zeros((c, H, W), _F)
        data[:, :rows, :cols] = img.transpose(2, 0, 1)[[2, 1, 0, 3][:c] if c > 1 else [0]]
        row = np.full(self.pad_width + 4, self.p.label_pad_value, _F)
        row[:4] = (c, rows, cols, len(label))
        row[4:4 + len(label)] = label
        return header.id, data, row

    def _normalized(self, item):
        index, data, label = item
        return index, (self._normalize(data), label)

    def _normalize(self, data):
        p, c = self.p, data.shape[0]
        means = (p.mean_r, p.mean_g, p.mean_b, p.mean_a)
        if any(m > 0 for m in means):
            for k, m in enumerate(means[:{1: 1, 3: 3, 4: 4}[c]]):
                data[k] -= _F(m)
        elif self.meanimg is not None:
            if self.meanimg.shape != data.shape:
                raise MXNetError('%s: mean image of shape %s does not match images of shape %s'
                                 % (API, self.meanimg.shape, data.shape))
            data -= self.meanimg
        stds = (p.std_r, p.std_g, p.std_b, p.std_a)
        for k in range({1: 1, 3: 3, 4: 4}[c]):
            if stds[k] > 0:
                data[k] /= _F(stds[k])
        return data * _F(p.scale)

    def before_first(self):
        if self.stream is not None:  # MXNet has parsed the whole chunk: its draws happen
            self.stream.discard(drain=True)
            self.stream = None
        self.split.before_first()

    def next(self):
        while self.stream is None or not self.stream.remaining:
            chunk = self.split.next_chunk(0)
            if chunk is None:
                return None
            order = R.shuffle(list(range(len(chunk))), self.rnd) if self.p.shuffle else None
            self.stream = self.streams.start(chunk, self._augment, order)
        try:
            return self.stream.take(1)[0]
        except BaseException:
            self.stream = None  # the rest of this chunk is lost; the next call goes on with the next one
            raise


def image_det_record_iter(kwargs):
    """Build ``mx.io.ImageDetRecordIter`` from MXNet's keyword arguments."""
    p = _Params(API, kwargs, _SPEC)
    if p.dtype not in (None, 'float32'):  # MXNet 1.9.1 fails on the first batch: its images are float32 only
        raise MXNetError('%s: TBlob.get_with_shape: data type do not match specified type: dtype=%s, but this '
                         'iterator only outputs float32' % (API, p.dtype))
    loader = _BatchLoader(_DetInstances(p), p.batch_size, p.round_batch, API)
    return MXDataIter(_Prefetched(loader, p.dtype), **kwargs)


def _image_det_record_iter(**kwargs):
    """Batches of images and padded object-detection labels from a .rec file (MXNet's ImageDetRecordIter).

    Each label row is ``[channels, rows, cols, n, label[0:n], label_pad_value...]`` of width
    ``label_pad_width + 4`` (without ``label_pad_width``, the widest label of the file), where ``label`` is the
    record's ``[A, B, header..., objects...]`` after the detection augmenter (``resize``, ``rand_mirror_prob``,
    ``rand_pad_prob``, ``rand_crop_prob`` with its samplers, the HLS jitter and ``random_contrast_prob``,
    ``resize_mode``).

    Differs from MXNet: images are decoded with Pillow and resized by mxcompat's OpenCV-rule resizing, so JPEG
    and interpolated pixels can differ by a little; random draws follow MXNet's engines as with one decoding
    thread. ``aug_seq='aug_default'``, ``shuffle_chunk_size`` that splits the file, remote paths and directories
    raise ``MXNetNotImplementedError``. Unknown arguments warn (MXNet ignores them silently). With a
    .rec file larger than one read chunk (64 MB here, MXNet's is smaller), ``shuffle`` shuffles within other chunks.
    """
    return image_det_record_iter(kwargs)


ImageDetRecordIter = _creator('ImageDetRecordIter', _image_det_record_iter)
