"""``mx.image.detection`` (also ``mx.image.det``): augmenters that move boxes with the pixels, and ``ImageDetIter``.

A detection label is a float vector ``[A, B, header..., obj_0..., obj_1..., ...]``: ``A`` (at least 2) is the width
of the header, ``B`` (at least 5) the width of one object, and each object starts ``[class, xmin, ymin, xmax, ymax]``
with coordinates as fractions of the image size. The augmenters take and return an HxWxC image and the parsed
(objects, B) numpy label.

Differs from MXNet:

* Random draws come from Python's ``random`` module in the order MXNet makes them, so a seeded run makes MXNet's
  choices; the pixels then go through mxcompat's own resizing (see :mod:`mxcompat.image.image`).
* Where MXNet 1.9.1 crashes inside ``warnings.warn`` (an invalid ``area_range`` or ``aspect_ratio_range`` for
  ``DetRandomCropAug``/``DetRandomPadAug`` raises ``TypeError: category must be a Warning subclass``), mxcompat
  raises an ``MXNetTypeError`` that names the argument.
* ``ImageDetIter`` over a source with no images raises an ``MXNetValueError`` saying so (MXNet 1.9.1 raises
  ``UnboundLocalError``).
* ``ImageDetIter.draw_next`` needs OpenCV (``cv2``) as in MXNet; without it, it raises an ImportError with an
  install hint (MXNet raises that same ``TypeError`` from ``warnings.warn``).
* A failed ``assert`` of MXNet's (a scalar range that is not a number, list arguments of
  ``CreateMultiRandCropAugmenter`` of different lengths, a ``mean``/``std`` that is not a numpy array,
  ``sync_label_shape`` checks) raises ``MXNetAssertionError`` (an ``AssertionError``) with a message; MXNet's asserts
  mostly have none.
* ``DetRandomCropAug`` and ``DetRandomPadAug`` also take an NDArray label (converted to numpy); MXNet's expect numpy.
* ``DetRandomPadAug`` with a scalar ``pad_val``, or fewer values than channels: the missing channels of the border are
  0 (MXNet's are undefined, see :func:`mxcompat.image.copyMakeBorder`).
"""
import json
import logging
import math
import random

import numpy as np

from .. import ndarray as nd
from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError, numeric_types
from .image import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug, HueJitterAug, ImageIter,
                    LightingAug, RandomGrayAug, ResizeAug, _PCA_EIGVAL, _PCA_EIGVEC, _plain, copyMakeBorder,
                    fixed_crop)

__all__ = ['DetAugmenter', 'DetBorrowAug', 'DetRandomSelectAug', 'DetHorizontalFlipAug', 'DetRandomCropAug',
           'DetRandomPadAug', 'CreateMultiRandCropAugmenter', 'CreateDetAugmenter', 'ImageDetIter']

_XS, _YS = [1, 3], [2, 4]  # label columns holding x (xmin, xmax) and y (ymin, ymax)


# ---- box arithmetic on (N, 4+) arrays of [xmin, ymin, xmax, ymax, ...] ---------------------------------------
def _areas(boxes):
    """Box areas; an inverted box counts 0."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _overlap_areas(boxes, xmin, ymin, xmax, ymax):
    """Area of each box inside the window; 0 where they do not meet."""
    dx = np.minimum(boxes[:, 2], xmax) - np.maximum(boxes[:, 0], xmin)
    dy = np.minimum(boxes[:, 3], ymax) - np.maximum(boxes[:, 1], ymin)
    return np.where((dx > 0) & (dy > 0), dy * dx, 0).astype(boxes.dtype)


def _numpy_label(label):
    return label.asnumpy() if isinstance(label, nd.NDArray) else label


def _as_range(value, what, owner):
    """A (low, high) pair; a single number means a fixed value."""
    if isinstance(value, (tuple, list)):
        return value
    if not isinstance(value, numeric_types):
        raise MXNetAssertionError('%s: %s must be a number or a (low, high) pair, got %r' % (owner, what, value))
    logging.info('Using fixed %s: %s in %s', what, value, owner)
    return (value, value)


def _bad_range(owner, what, value, rule):
    return MXNetTypeError('%s: invalid %s %s (%s); MXNet 1.9.1 fails on it too, inside warnings.warn'
                          % (owner, what, tuple(value), rule))


def _attempts(aug, height, width):
    """The draws shared by the random crop and pad: per attempt, an aspect ratio from ``aug.aspect_ratio_range``
    and the heights that give the smallest and largest area of ``aug.area_range`` at that ratio, with those areas
    (pixels). Nothing when the augmenter is off or the image is empty."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    area_lo = aug.area_range[0] * height * width
    area_hi = aug.area_range[1] * height * width
    for _attempt in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio > 0:
            yield (ratio, int(round(math.sqrt(area_lo / ratio))), int(round(math.sqrt(area_hi / ratio))), area_lo,
                   area_hi)


# ---- augmenters --------------------------------------------------------------------------------------------------
class DetAugmenter:
    """Base class of detection augmenters: ``aug(src, label)`` returns the new ``(src, label)``;
    ``dumps()`` gives ``[lowercase class name, kwargs]`` as JSON."""

    def __init__(self, **kwargs):
        self._kwargs = {name: _plain(value) for name, value in kwargs.items()}

    def dumps(self):
        """The augmenter as a JSON string."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError('Must override implementation.')


class DetBorrowAug(DetAugmenter):
    """Apply a classification ``Augmenter`` to the image; the label passes through unchanged."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise MXNetTypeError('Borrowing from invalid Augmenter')
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        """``['detborrowaug', <the borrowed augmenter's dumps()>]`` (a list, not a JSON string, as in MXNet)."""
        return [type(self).__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """With probability ``skip_prob`` pass the input through; otherwise apply one of ``aug_list`` at random.

    As in MXNet, the choice shuffles ``aug_list`` in place and applies its new first member.
    """

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        members = aug_list if isinstance(aug_list, (list, tuple)) else [aug_list]
        if not all(isinstance(member, DetAugmenter) for member in members):
            raise MXNetValueError('Allow DetAugmenter in list only')
        self.aug_list = members
        self.skip_prob = skip_prob if members else 1  # nothing to choose from: always skip

    def dumps(self):
        """``['detrandomselectaug', [each member's dumps()]]``."""
        return [type(self).__name__.lower(), [member.dumps() for member in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability ``p``, mirror the image left-right and the boxes with it (the label is changed in place)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            new_xmin = 1.0 - label[:, 3]
            label[:, 3] = 1.0 - label[:, 1]
            label[:, 1] = new_xmin
        return src, label


class DetRandomCropAug(DetAugmenter):
    """Crop a random window that keeps more than ``min_object_covered`` of every box it touches; boxes left with at
    most ``min_eject_coverage`` of their area are dropped. The image is unchanged when ``max_attempts`` draws fail.

    Window sizes: area in ``area_range`` (fractions of the image), aspect ratio w/h in ``aspect_ratio_range``.
    """

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 min_eject_coverage=0.3, max_attempts=50):
        owner = type(self).__name__
        aspect_ratio_range = _as_range(aspect_ratio_range, 'aspect ratio', owner)
        area_range = _as_range(area_range, 'area range', owner)
        super().__init__(min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
                         area_range=area_range, min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            raise _bad_range(owner, 'area_range', area_range, 'need 0 < high and low <= high')
        if aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            raise _bad_range(owner, 'aspect_ratio_range', aspect_ratio_range, 'need 0 < low <= high')
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = True

    def __call__(self, src, label):
        label = _numpy_label(label)
        found = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if not found:
            return src, label
        x, y, w, h, label = found
        return fixed_crop(src, x, y, w, h, None), label

    def _window_ok(self, label, xmin, ymin, xmax, ymax, width, height):
        """Whether every box the window (pixels) overlaps keeps more than ``min_object_covered`` of its area."""
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False  # a single pixel
        boxes = label[:, 1:]
        areas = _areas(boxes)
        sizable = np.where(areas * width * height > 2)[0]
        if sizable.size < 1:
            return False
        inside = _overlap_areas(boxes[sizable], float(xmin) / width, float(ymin) / height, float(xmax) / width,
                                float(ymax) / height)
        kept = inside / areas[sizable]
        kept = kept[kept > 0]
        return kept.size > 0 and np.amin(kept) > self.min_object_covered

    def _crop_label(self, label, window, height, width):
        """Boxes in the window's coordinates, clipped to it; None when no box keeps enough of itself."""
        left, top = float(window[0]) / width, float(window[1]) / height
        scale_x, scale_y = float(window[2]) / width, float(window[3]) / height
        out = label.copy()
        out[:, _XS] -= left
        out[:, _YS] -= top
        out[:, _XS] /= scale_x
        out[:, _YS] /= scale_y
        out[:, 1:5] = np.minimum(1, np.maximum(0, out[:, 1:5]))
        share = _areas(out[:, 1:]) * scale_x * scale_y / _areas(label[:, 1:])
        keep = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & (share > self.min_eject_coverage)
        return out[keep] if keep.any() else None

    def _random_crop_proposal(self, label, height, width):
        """(x, y, w, h, new label) of an accepted window, or () after ``max_attempts`` misses."""
        for ratio, h, h_cap, area_lo, area_hi in _attempts(self, height, width):
            if round(h_cap * ratio) > width:
                h_cap = int((width + 0.4999999) / ratio)  # tallest height whose rounded width still fits
            h_cap = min(h_cap, height)
            h = min(h, h_cap)
            if h < h_cap:
                h = random.randint(h, h_cap)
            w = int(round(h * ratio))
            assert w <= width
            # rounding may leave the area just outside the range: one step of height back in
            if w * h < area_lo:
                h += 1
                w = int(round(h * ratio))
            if w * h > area_hi:
                h -= 1
                w = int(round(h * ratio))
            if not (area_lo <= w * h <= area_hi and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._window_ok(label, x, y, x + w, y + h, width, height):
                new_label = self._crop_label(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return x, y, w, h, new_label
        return ()


class DetRandomPadAug(DetAugmenter):
    """Place the image at a random spot on a larger canvas filled with ``pad_val`` (area ``area_range`` times the
    image's, aspect ratio in ``aspect_ratio_range``) and shrink the boxes to match. A scalar ``pad_val`` fills
    only the first channel; the others get 0 (in MXNet they are undefined)."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0), max_attempts=50,
                 pad_val=(128, 128, 128)):
        owner = type(self).__name__
        if not isinstance(pad_val, (list, tuple)) and not isinstance(pad_val, numeric_types):
            raise MXNetAssertionError('%s: pad_val must be a number or a tuple of numbers, got %r' % (owner, pad_val))
        aspect_ratio_range = _as_range(aspect_ratio_range, 'aspect ratio', owner)
        area_range = _as_range(area_range, 'area range', owner)
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range, max_attempts=max_attempts,
                         pad_val=pad_val)
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            raise _bad_range(owner, 'area_range', area_range, 'need 1 < high and low <= high')
        if aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            raise _bad_range(owner, 'aspect_ratio_range', aspect_ratio_range, 'need 0 < low <= high')
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = True

    def __call__(self, src, label):
        label = _numpy_label(label)
        height, width, _ = src.shape
        found = self._random_pad_proposal(label, height, width)
        if not found:
            return src, label
        x, y, w, h, label = found
        return copyMakeBorder(src, y, h - y - height, x, w - x - width, 16, values=self.pad_val), label

    def _pad_label(self, label, canvas, height, width):
        """Boxes in the canvas's coordinates."""
        out = label.copy()
        out[:, _XS] = (out[:, _XS] * width + canvas[0]) / canvas[2]
        out[:, _YS] = (out[:, _YS] * height + canvas[1]) / canvas[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        """(x, y, w, h, new label) of the canvas, or () after ``max_attempts`` misses."""
        for ratio, h, h_cap, _area_lo, _area_hi in _attempts(self, height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)  # the canvas must be at least as wide as the image
            h = min(max(h, height), h_cap)
            if h < h_cap:
                h = random.randint(h, h_cap)
            w = int(round(h * ratio))
            if h - height < 2 or w - width < 2:
                continue  # a border this thin is not worth it
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return x, y, w, h, self._pad_label(label, (x, y, w, h), height, width)
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                                 min_eject_coverage=0.3, max_attempts=50, skip_prob=0):
    """A ``DetRandomSelectAug`` over several ``DetRandomCropAug``: each argument given as a *list* holds one value
    per crop augmenter (a tuple is one value); the others are shared. Lists must have one length (or length 1)."""
    columns = [value if isinstance(value, list) else [value]
               for value in (min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts)]
    count = max(len(column) for column in columns)
    for column in columns:
        if len(column) not in (1, count):
            raise MXNetAssertionError('CreateMultiRandCropAugmenter: the list arguments must have one length (or '
                                      'length 1), got lengths %s' % [len(c) for c in columns])
    columns = [column * count if len(column) == 1 else column for column in columns]
    crops = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                              min_eject_coverage=mec, max_attempts=ma)
             for moc, arr, ar, mec, ma in zip(*columns)]
    return DetRandomSelectAug(crops, skip_prob=skip_prob)


_DET_MEAN = (123.68, 116.28, 103.53)
_DET_STD = (58.395, 57.12, 57.375)


def _det_norm_stat(value, imagenet, name):
    """``True`` means ImageNet's statistic (as a float64 numpy array, as MXNet keeps it); else a numpy array."""
    if value is True:
        return np.array(imagenet)
    if value is not None and not (isinstance(value, np.ndarray) and value.shape[0] in [1, 3]):
        raise MXNetAssertionError('CreateDetAugmenter: %s must be True, None or a numpy array of 1 or 3 values, '
                                  'got %r' % (name, value))
    return value


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0, rand_mirror=False, mean=None,
                       std=None, brightness=0, contrast=0, saturation=0, pca_noise=0, hue=0, inter_method=2,
                       min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """The standard detection augmenter list, in MXNet's order: resize, random crops (``rand_crop`` is the
    probability; list arguments make several, see :func:`CreateMultiRandCropAugmenter`), mirror, random pad
    (probability ``rand_pad``, areas ``(1, area_range[1])``), force resize to ``data_shape``, cast to float32,
    colour jitter, hue, PCA noise, gray, normalization (``mean=True`` / ``std=True``: ImageNet's RGB values)."""
    steps = []
    if resize > 0:
        steps.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        steps.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range, area_range,
                                                  min_eject_coverage, max_attempts, skip_prob=1 - rand_crop))
    if rand_mirror > 0:
        steps.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:  # padding late keeps the earlier steps on the smaller image
        padder = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        steps.append(DetRandomSelectAug([padder], 1 - rand_pad))
    steps.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    steps.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        steps.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        steps.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        steps.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)))
    if rand_gray > 0:
        steps.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    mean = _det_norm_stat(mean, _DET_MEAN, 'mean')
    std = _det_norm_stat(std, _DET_STD, 'std')
    if mean is not None or std is not None:
        steps.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return steps


# ---- the iterator ------------------------------------------------------------------------------------------------
class ImageDetIter(ImageIter):
    """Batches of augmented images with detection labels, from a .rec file, a .lst file or an ``imglist`` (see
    :class:`ImageIter`; labels as described in this module's docstring).

    The label batch is (batch_size, most objects in any image, object width), rows past an image's objects hold
    -1. Extra keyword arguments go to :func:`CreateDetAugmenter` (they are ignored when ``aug_list`` is given,
    as in MXNet). An image whose label is malformed, or has no valid box left after augmentation, is skipped.
    """

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name='data', label_name='label', last_batch_handle='pad', **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root, path_imgidx=path_imgidx, shuffle=shuffle,
                         part_index=part_index, num_parts=num_parts, aug_list=[], imglist=imglist,
                         data_name=data_name, label_name=label_name, last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.label_shape = self._estimate_label_shape()
        self.provide_label = [(label_name, (self.batch_size,) + self.label_shape)]

    # -- labels
    def _parse_label(self, label):
        """The raw label vector as an (objects, width) array, boxes with no area removed."""
        raw = _numpy_label(label).ravel()
        if raw.size < 7:
            raise MXNetError('Label shape is invalid: ' + str(raw.shape))
        header_width, object_width = int(raw[0]), int(raw[1])
        if (raw.size - header_width) % object_width != 0:
            raise MXNetError('Label shape %s inconsistent with annotation width %d.' % (str(raw.shape), object_width))
        objects = raw[header_width:].reshape(-1, object_width)
        good = (objects[:, 3] > objects[:, 1]) & (objects[:, 4] > objects[:, 2])
        if not good.any():
            raise MXNetError('Encounter sample with no valid label.')
        return objects[good]

    def _check_valid_label(self, label):
        """Require an (objects >= 1, width >= 5) label with at least one real box (class >= 0, positive area)."""
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise MXNetError('Label with shape (1+, 5+) required, %s received.' % str(label))
        real = (label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])
        if not real.any():
            raise MXNetError('Invalid label occurs.')

    def _estimate_label_shape(self):
        """(most objects in one image, object width) over one pass of the data."""
        most, width = 0, None
        self.reset()
        try:
            while True:
                label = self._parse_label(self.next_sample()[0])
                most, width = max(most, label.shape[0]), label.shape[1]
        except StopIteration:
            pass
        self.reset()
        if width is None:
            raise MXNetValueError('ImageDetIter: the data source holds no images, so the label shape is unknown')
        return most, width

    # -- shapes
    def reshape(self, data_shape=None, label_shape=None):
        """Change the data shape (C, H, W) and/or the label shape (objects, width); objects may only grow."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size,) + tuple(data_shape))]
            self.data_shape = data_shape
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [(self.provide_label[0][0], (self.batch_size,) + tuple(label_shape))]
            self.label_shape = label_shape

    def check_label_shape(self, label_shape):
        """Require (objects, width) with no fewer objects than now and the same width."""
        if len(label_shape) != 2:
            raise MXNetValueError('label_shape should have length 2')
        if label_shape[0] < self.label_shape[0]:
            raise MXNetValueError('Attempts to reduce label count from %d to %d, not allowed.'
                                  % (self.label_shape[0], label_shape[0]))
        if label_shape[1] != self.provide_label[0][1][2]:
            raise MXNetValueError('label_shape object width inconsistent: %d vs %d.'
                                  % (self.provide_label[0][1][2], label_shape[1]))

    def sync_label_shape(self, it, verbose=False):
        """Give this iterator and ``it`` (another ImageDetIter) the larger object count of the two; returns ``it``."""
        if not isinstance(it, ImageDetIter):
            raise MXNetAssertionError('Synchronize with invalid iterator.')
        mine, theirs = self.label_shape, it.label_shape
        if mine[1] != theirs[1]:
            raise MXNetAssertionError('object width mismatch.')
        most = max(mine[0], theirs[0])
        if most > mine[0]:
            self.reshape(None, (most, mine[1]))
        if most > theirs[0]:
            it.reshape(None, (most, theirs[1]))
        if verbose and most > min(mine[0], theirs[0]):
            logging.info('Resized label_shape to (%d, %d).', most, mine[1])
        return it

    # -- batches
    def _new_batch(self):
        data, label = super()._new_batch()
        label[:] = -1
        return data, label

    def _checked_sample(self, img, label):
        # parsing and augmenting happen here, so that a sample they reject is skipped
        self.check_valid_image([img])
        img, label = self.augmentation_transform(img, self._parse_label(label))
        self._check_valid_label(label)
        return img, label

    def _store_sample(self, batch_data, batch_label, slot, img, label):
        batch_data[slot] = self.postprocess_data(img)
        rows = batch_label[slot]
        count = label.shape[0]
        rows[0:count] = nd.array(label)
        if count < rows.shape[0]:
            rows[count:] = -1

    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        """Apply the detection augmenters to an (image, label) pair."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True, waitKey=None,
                  window_name='draw_next', id2labels=None):
        """Yield the next images (HxWx3 uint8, BGR) with their boxes drawn, as MXNet does with OpenCV.

        Differs from MXNet: without OpenCV it raises an ImportError with an install hint (MXNet 1.9.1 raises a
        TypeError there).
        """
        try:
            import cv2  # reason: optional dependency, loaded on first use
        except ImportError:
            raise ImportError('ImageDetIter.draw_next draws with OpenCV, which is not installed: '
                              'pip install opencv-python-headless') from None
        shown = 0
        while True:
            try:
                label, raw = self.next_sample()
            except StopIteration:
                return
            data = self.imdecode(raw)
            try:
                self.check_valid_image([data])
                label = self._parse_label(label)
            except RuntimeError as err:
                logging.debug('Invalid image, skipping:  %s', str(err))
                continue
            shown += 1
            data, label = self.augmentation_transform(data, label)
            image = data.asnumpy()
            if std is True:
                std = np.array(_DET_STD)
            elif std is not None:
                assert isinstance(std, np.ndarray) and std.shape[0] in [1, 3]
            if std is not None:
                image *= std
            if mean is True:
                mean = np.array(_DET_MEAN)
            elif mean is not None:
                assert isinstance(mean, np.ndarray) and mean.shape[0] in [1, 3]
            if mean is not None:
                image += mean
            image[:, :, (0, 1, 2)] = image[:, :, (2, 1, 0)]  # RGB -> BGR for OpenCV
            if clip:
                image = np.maximum(0, np.minimum(255, image))
            if color:
                color = color[::-1]
            image = image.astype(np.uint8)
            yield self._draw_boxes(cv2, image, label, color, thickness, id2labels, waitKey, window_name)

    @staticmethod
    def _draw_boxes(cv2, image, label, color, thickness, id2labels, wait_key, window_name):
        height, width, _ = image.shape
        for obj in label:
            x1 = int(obj[1] * width)
            if x1 < 0:
                continue
            y1, x2, y2 = int(obj[2] * height), int(obj[3] * width), int(obj[4] * height)
            box_color = np.random.rand(3) * 255 if not color else color
            cv2.rectangle(image, (x1, y1), (x2, y2), box_color, thickness)
            if id2labels is not None and int(obj[0]) in id2labels:
                text = '{:s}'.format(id2labels[int(obj[0])])
                font = cv2.FONT_HERSHEY_SIMPLEX
                text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, 0.5, (255, 255, 255), 2)
        if wait_key is not None:
            cv2.imshow(window_name, image)
            cv2.waitKey(wait_key)
        return image
