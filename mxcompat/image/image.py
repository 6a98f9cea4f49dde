"""``mx.image``: image decoding, resizing, cropping, augmenters and ``ImageIter``.

Differs from MXNet:

* Decoding and encoding use Pillow (``pip install pillow``) instead of OpenCV. PNG pixels are identical to MXNet's;
  a color PNG read as grayscale uses libpng's conversion, as OpenCV does. JPEG goes through libjpeg(-turbo) in
  both, but the two builds may round a few pixels differently. EXIF orientation is ignored, as in MXNet.
* Resizing is done here in torch, not by OpenCV. It follows OpenCV's ``cv::resize``: nearest takes
  ``floor(x * scale)``; bilinear, bicubic (a = -0.75) and Lanczos-4 use half-pixel centres, clamped borders
  and, for uint8, 11-bit fixed-point weights; area averages the covered pixels when shrinking and falls back
  to OpenCV's area-style bilinear when enlarging. OpenCV's SIMD paths round a few uint8 pixels differently
  (at most 1 apart). Pillow's own resize filters antialias when shrinking, which OpenCV does not, so they
  are not used.
"""
import functools
import json
import logging
import math
import os
import random
import warnings
from numbers import Number

import numpy as np
import torch

from .. import ndarray as nd
from .. import io
from .. import recordio
from ..base import MXNetError, MXNetValueError, MXNetTypeError, numeric_types
from ..context import current_context
from ..numpy.multiarray import _np_wrap
from ..util import is_np_array
from ..operator._cv_resize import resize_hwc
from .._imagecodec import decode_numpy, warm_up as _warm_up_codec

__all__ = ['imread', 'imdecode', 'imresize', 'scale_down', 'copyMakeBorder', 'resize_short', 'fixed_crop',
           'random_crop', 'center_crop', 'color_normalize', 'random_size_crop', 'imrotate', 'random_rotate',
           'Augmenter', 'SequentialAug', 'ResizeAug', 'ForceResizeAug', 'RandomCropAug', 'RandomSizedCropAug',
           'CenterCropAug', 'RandomOrderAug', 'BrightnessJitterAug', 'ContrastJitterAug', 'SaturationJitterAug',
           'HueJitterAug', 'ColorJitterAug', 'LightingAug', 'ColorNormalizeAug', 'RandomGrayAug',
           'HorizontalFlipAug', 'CastAug', 'CreateAugmenter', 'ImageIter']


def _image_array(t):
    """An image tensor as MXNet's image functions return it: an ``mx.np`` array under NumPy semantics
    (``npx.set_np()``), else an NDArray."""
    if is_np_array():
        return _np_wrap(t, current_context())
    return nd.NDArray(t)


def _uint8_image(arr):
    return _image_array(torch.from_numpy(np.array(arr if arr.ndim == 3 else arr[:, :, None])))


def _write_out(res, out):
    if out is None:
        return res
    out[:] = res
    return out


def _check_flag(op, flag):
    flag = int(flag)
    if flag < 0:
        raise MXNetValueError('%s: value %d for Parameter flag should be greater equal to 0' % (op, flag))
    return flag


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decode an encoded image (bytes, bytearray, numpy or uint8 NDArray buffer) to a uint8 HxWxC NDArray.

    ``flag=0`` gives one gray channel, any other value three channels; ``to_rgb=0`` gives OpenCV's BGR order.
    """
    flag = _check_flag('_cvimdecode', flag)
    if isinstance(buf, nd.NDArray):
        if buf.dtype is not np.uint8:
            raise MXNetTypeError('_cvimdecode: Check failed: Input needs to be uint8 buffer')
        data = buf.asnumpy().tobytes()
    elif isinstance(buf, (bytes, bytearray, np.ndarray)):
        data = np.frombuffer(buf, dtype=np.uint8).tobytes() if isinstance(buf, np.ndarray) else bytes(buf)
    else:
        raise ValueError('buf must be of type bytes, bytearray or numpy.ndarray,'
                         'if you would like to input type str, please convert to bytes')
    if not data:
        raise MXNetError('_cvimdecode: Check failed: len > 0: Input cannot be an empty buffer')
    arr = decode_numpy(data, 0 if flag == 0 else 1, bgr=not to_rgb)
    return _write_out(_uint8_image(arr), out)


def imread(filename, flag=1, to_rgb=1, out=None):
    """Read and decode an image file (see :func:`imdecode`)."""
    flag = _check_flag('_cvimread', flag)
    try:
        with open(filename, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise MXNetError("Imread: '%s' couldn't open file: %s" % (filename, e.strerror)) from None
    return imdecode(data, flag, to_rgb, out)


# ---- resizing (OpenCV's cv::resize rules: operator/_cv_resize.py) -------------------------------------------
_RESIZE_DTYPES = (torch.uint8, torch.int32, torch.float32, torch.float64)


def imresize(src, w, h, interp=1, out=None):
    """Resize an HxWxC image to ``h`` x ``w``; ``interp``: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4.

    Differs from MXNet: computed with torch following OpenCV's rules (see the module docstring).
    """
    w, h, interp = int(w), int(h), int(interp)
    if w < 1 or h < 1:
        raise MXNetValueError('_cvimresize: w and h must be >= 1, got w=%d, h=%d' % (w, h))
    if src.ndim != 3:
        raise MXNetValueError('_cvimresize: expects an HxWxC image, got shape %s' % (src.shape,))
    if src._t.dtype not in _RESIZE_DTYPES:
        raise MXNetTypeError('_cvimresize: opencv resize does not support dtype %s' % np.dtype(src.dtype).name)
    if interp not in (0, 1, 2, 3, 4):
        raise MXNetValueError('_cvimresize: unknown interpolation method %d (0-4)' % interp)
    res = _image_array(resize_hwc(src._t.detach().cpu(), w, h, interp))
    return _write_out(res, out)


def scale_down(src_size, size):
    """Shrink a crop ``size`` (w, h) to fit into ``src_size`` (w, h), keeping its aspect ratio."""
    w, h = size
    src_w, src_h = src_size
    if h > src_h:  # too tall: clamp the height first, narrowing the width with it
        w = float(w * src_h) / h
        h = src_h
    if w > src_w:  # still too wide: clamp the width, lowering the height with it
        h = float(h * src_w) / w
        w = src_w
    return int(w), int(h)


_BORDER_MODES = {1: 'edge', 2: 'symmetric', 3: 'wrap', 4: 'reflect'}  # OpenCV's BORDER_* numbers
_BORDER_ISOLATED = 16  # OpenCV's flag: do not look outside an ROI (a whole image has no outside)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):  # noqa: A002
    """Pad an HxWxC image with OpenCV's border types: 0 constant (``values`` per channel, or ``value``),
    1 replicate, 2 reflect (``fedcba|abcdef``), 3 wrap, 4 reflect-101 (``fedcb|abcdef``). (MXNet's docstring lists
    another order; these are the numbers OpenCV, and so MXNet, actually use.) OpenCV's BORDER_ISOLATED flag (16,
    as in ``type=16``) changes nothing for a whole image and is accepted. A scalar ``values`` is one value, for the
    first channel. Differs from MXNet: channels past the ``values`` given are filled with 0; MXNet reads past the
    end of ``values`` there, so its fill is undefined (often 0)."""
    if src.ndim != 3:
        raise MXNetValueError('_cvcopyMakeBorder: expects an HxWxC image, got shape %s' % (src.shape,))
    if src._t.dtype not in _RESIZE_DTYPES:
        raise MXNetTypeError('_cvcopyMakeBorder: dtype %s is not supported' % np.dtype(src.dtype).name)
    a = src.asnumpy()
    pads = ((int(top), int(bot)), (int(left), int(right)), (0, 0))
    type = type & ~_BORDER_ISOLATED if isinstance(type, int) else type  # noqa: A001
    if type == 0:
        if isinstance(values, numeric_types):
            values = (values,)
        fill = list(values) if len(values) else [value] * 3
        fill = (fill + [0.0] * 4)[:a.shape[2]]
        res = np.empty((a.shape[0] + pads[0][0] + pads[0][1], a.shape[1] + pads[1][0] + pads[1][1], a.shape[2]),
                       a.dtype)
        res[...] = np.asarray(fill).round() if a.dtype.kind in 'iu' else np.asarray(fill)
        res[pads[0][0]:pads[0][0] + a.shape[0], pads[1][0]:pads[1][0] + a.shape[1]] = a
    elif type in _BORDER_MODES:
        res = np.pad(a, pads, mode=_BORDER_MODES[type])
    else:
        raise MXNetValueError('_cvcopyMakeBorder: unknown border type %r (0-4)' % (type,))
    return _write_out(nd.array(res, dtype=a.dtype), out)


_AUTO_INTERP, _RANDOM_INTERP = 9, 10


def _get_interp_method(interp, sizes=()):
    """Resolve 9 (auto: cubic to enlarge, area to shrink, else bilinear) and 10 (random) to 0-4."""
    if interp == _RANDOM_INTERP:
        return random.randint(0, 4)
    if interp == _AUTO_INTERP:
        if not sizes:
            return 2
        assert len(sizes) == 4
        old_h, old_w, new_h, new_w = sizes
        if new_h > old_h and new_w > old_w:
            return 2  # enlarging both ways
        return 3 if (new_h < old_h and new_w < old_w) else 1
    if interp in range(5):
        return interp
    raise ValueError('Unknown interp method %d' % interp)


def resize_short(src, size, interp=2):
    """Resize so that the shorter edge is ``size``, keeping the aspect ratio."""
    h, w, _ = src.shape
    target_w, target_h = (size, size * h // w) if h > w else (size * w // h, size)
    method = _get_interp_method(interp, (h, w, target_h, target_w))
    return imresize(src, target_w, target_h, interp=method)


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop ``src[y0:y0+h, x0:x0+w]``, then resize to ``size`` (w, h) if given."""
    window = src[y0:y0 + h, x0:x0 + w]
    if size is None or (w, h) == size:
        return window
    method = _get_interp_method(interp, (h, w, size[1], size[0]))
    return imresize(window, size[0], size[1], interp=method)


def _crop_placed(src, size, interp, place):
    """Fit ``size`` into ``src``, put the window where ``place(slack_x, slack_y)`` says, crop and resize."""
    src_h, src_w, _ = src.shape
    cw, ch = scale_down((src_w, src_h), size)
    x0, y0 = place(src_w - cw, src_h - ch)
    return fixed_crop(src, x0, y0, cw, ch, size, interp), (x0, y0, cw, ch)


def random_crop(src, size, interp=2):
    """Crop a random ``size`` (w, h) window (shrunk to fit); returns the crop and (x0, y0, w, h)."""
    return _crop_placed(src, size, interp, lambda sx, sy: (random.randint(0, sx), random.randint(0, sy)))


def center_crop(src, size, interp=2):
    """Crop the central ``size`` (w, h) window (shrunk to fit); returns the crop and (x0, y0, w, h)."""
    return _crop_placed(src, size, interp, lambda sx, sy: (int(sx / 2), int(sy / 2)))


def color_normalize(src, mean, std=None):
    """``(src - mean) / std``, in place on ``src`` (as MXNet does); either may be None to skip it."""
    if mean is not None:
        src -= mean
    if std is None:
        return src
    src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """Random crop with random area fraction and aspect ratio, resized to ``size``; center crop after 10 misses."""
    if 'min_area' in kwargs:
        warnings.warn('`min_area` is deprecated. Please use `area` instead.', DeprecationWarning)
        area = kwargs.pop('min_area')
    assert not kwargs, 'unexpected keyword arguments for `random_size_crop`.'
    lo, hi = (area, 1.0) if isinstance(area, numeric_types) else (area[0], area[1])
    img_h, img_w, _ = src.shape
    total = img_h * img_w
    log_lo, log_hi = np.log(ratio[0]), np.log(ratio[1])
    for _attempt in range(10):
        wanted = random.uniform(lo, hi) * total
        aspect = np.exp(random.uniform(log_lo, log_hi))
        cw = int(round(np.sqrt(wanted * aspect)))
        ch = int(round(np.sqrt(wanted / aspect)))
        if cw > img_w or ch > img_h:
            continue  # does not fit: draw again
        x0 = random.randint(0, img_w - cw)
        y0 = random.randint(0, img_h - ch)
        return fixed_crop(src, x0, y0, cw, ch, size, interp), (x0, y0, cw, ch)
    return center_crop(src, size, interp)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate float32 CHW image(s) (or an NCHW batch) about their centre with bilinear sampling, zero fill.

    ``zoom_in`` scales so no padding shows; ``zoom_out`` so the whole image stays visible.
    """
    if zoom_in and zoom_out:
        raise ValueError('`zoom_in` and `zoom_out` cannot be both True')
    if src.dtype is not np.float32:
        raise TypeError('Only `float32` images are supported by this function')
    expanded = src.ndim == 3
    if expanded:
        if not isinstance(rotation_degrees, Number):
            raise TypeError('When a single image is passed the rotation angle is required to be a scalar.')
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError('Only 3D and 4D are supported by this function')
    n, _, h, w = src.shape
    if isinstance(rotation_degrees, Number):
        angles = torch.full((n,), float(rotation_degrees), dtype=torch.float32)
    else:
        angles = rotation_degrees._t.detach().to(torch.float32).cpu().reshape(-1)
    if len(angles) != n:
        raise ValueError('The number of images must be equal to the number of rotation angles')
    rad = (angles * (np.pi / 180)).view(n, 1, 1)
    hs, ws = (h - 1) / 2.0, (w - 1) / 2.0
    ys = (torch.arange(h, dtype=torch.float32) - hs).view(1, h, 1).expand(1, h, w)
    xs = (torch.arange(w, dtype=torch.float32) - ws).view(1, 1, w).expand(1, h, w)
    cos, sin = torch.cos(rad), torch.sin(rad)
    gx = (xs * cos - ys * sin) / ws
    gy = (xs * sin + ys * cos) / hs
    if zoom_in or zoom_out:
        rho = math.sqrt(h * h + w * w)
        corner = math.atan(h / w)
        a = rad.abs()
        max_x = torch.maximum((rho * torch.cos(corner + a)).abs(), (rho * torch.cos(corner - a)).abs())
        max_y = torch.maximum((rho * torch.sin(corner + a)).abs(), (rho * torch.sin(corner - a)).abs())
        if zoom_out:
            scale = torch.maximum(max_x / w, max_y / h)
        else:
            scale = torch.minimum(w / max_x, h / max_y)
        gx, gy = gx * scale, gy * scale
    grid = torch.stack([gx, gy], dim=1).to(src._t.device)
    rot = nd.BilinearSampler(src, nd.NDArray(grid, src.context))
    return rot[0] if expanded else rot


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """Rotate by angle(s) drawn uniformly from ``angle_limits`` (numpy's global RNG, as MXNet)."""
    batch = None if src.ndim == 3 else src.shape[0]  # one angle for an image, one per image for a batch
    drawn = np.random.uniform(*angle_limits, size=batch)
    angles = drawn if batch is None else nd.array(drawn)
    return imrotate(src, angles, zoom_in=zoom_in, zoom_out=zoom_out)


# ---- augmenters ---------------------------------------------------------------------------------------------------
def _plain(value):
    """A JSON-friendly form of an augmenter argument (arrays become nested lists)."""
    if isinstance(value, nd.NDArray):
        value = value.asnumpy()
    return value.tolist() if isinstance(value, np.ndarray) else value


def _run_chain(augmenters, img):
    """Feed ``img`` through ``augmenters`` one after another."""
    return functools.reduce(lambda acc, step: step(acc), augmenters, img)


def _jitter(amount):
    """A factor drawn from ``1 + U(-amount, amount)``."""
    return 1.0 + random.uniform(-amount, amount)


class Augmenter:
    """Base class of image augmenters; ``dumps()`` gives ``[lowercase class name, kwargs]`` as JSON."""

    def __init__(self, **kwargs):
        self._kwargs = {name: _plain(value) for name, value in kwargs.items()}

    def dumps(self):
        """The augmenter as a JSON string."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError('Must override implementation.')


class _ListAug(Augmenter):
    """An augmenter made of a list ``ts`` of augmenters; ``dumps()`` lists theirs."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [type(self).__name__.lower(), [member.dumps() for member in self.ts]]


class SequentialAug(_ListAug):
    """Apply augmenters ``ts`` in order."""

    def __call__(self, src):
        return _run_chain(self.ts, src)


class _SizedAug(Augmenter):
    """An augmenter parameterised by a size and an interpolation method."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp


class ResizeAug(_SizedAug):
    """Resize the shorter edge to ``size``."""

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(_SizedAug):
    """Resize to ``size`` (w, h), ignoring the aspect ratio."""

    def __call__(self, src):
        target_w, target_h = self.size[0], self.size[1]
        method = _get_interp_method(self.interp, (src.shape[0], src.shape[1], target_h, target_w))
        return imresize(src, target_w, target_h, interp=method)


class RandomCropAug(_SizedAug):
    """Random crop to ``size`` (w, h)."""

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Random crop with random area and aspect ratio, resized to ``size``."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        if 'min_area' in kwargs:
            warnings.warn('`min_area` is deprecated. Please use `area` instead.', DeprecationWarning)
            area = kwargs.pop('min_area')
        assert not kwargs, 'unexpected keyword arguments for `RandomSizedCropAug`.'
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(_SizedAug):
    """Center crop to ``size`` (w, h)."""

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(_ListAug):
    """Apply augmenters ``ts`` in a random order (shuffles ``ts`` in place with Python's ``random``)."""

    def __call__(self, src):
        random.shuffle(self.ts)
        return _run_chain(self.ts, src)


class BrightnessJitterAug(Augmenter):
    """Scale by ``1 + U(-brightness, brightness)``, in place."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        src *= _jitter(self.brightness)
        return src


_GRAY_COEF = [[[0.299, 0.587, 0.114]]]


class ContrastJitterAug(Augmenter):
    """Blend with the mean gray level by ``1 + U(-contrast, contrast)``, in place."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array(_GRAY_COEF)

    def __call__(self, src):
        factor = _jitter(self.contrast)
        weighted = src * self.coef
        # the mean luminance, scaled by the share (1 - factor) it contributes to every value
        shift = (3.0 * (1.0 - factor) / weighted.size) * nd.sum(weighted)
        src *= factor
        src += shift
        return src


class SaturationJitterAug(Augmenter):
    """Blend with the per-pixel gray by ``1 + U(-saturation, saturation)``, in place."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array(_GRAY_COEF)

    def __call__(self, src):
        factor = _jitter(self.saturation)
        luminance = nd.sum(src * self.coef, axis=2, keepdims=True) * (1.0 - factor)
        src *= factor
        src += luminance
        return src


class HueJitterAug(Augmenter):
    """Rotate the hue by ``U(-hue, hue) * pi`` in YIQ space (a linear approximation)."""

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
        self.ityiq = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __call__(self, src):
        theta = random.uniform(-self.hue, self.hue) * np.pi
        c, s = np.cos(theta), np.sin(theta)
        spin = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])  # rotation in the I-Q plane
        return nd.dot(src, nd.array(self.ityiq.dot(spin).dot(self.tyiq).T))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those > 0) in random order."""

    def __init__(self, brightness, contrast, saturation):
        wanted = ((brightness, BrightnessJitterAug), (contrast, ContrastJitterAug),
                  (saturation, SaturationJitterAug))
        super().__init__([kind(amount) for amount, kind in wanted if amount > 0])


class LightingAug(Augmenter):
    """Add AlexNet-style PCA color noise (numpy's global RNG), in place."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, eigval, eigvec

    def __call__(self, src):
        weights = np.random.normal(0, self.alphastd, size=(3,))
        src += nd.array(np.dot(self.eigvec * weights, self.eigval))
        return src


def _as_nd(value):
    return value if value is None or isinstance(value, nd.NDArray) else nd.array(value)


class ColorNormalizeAug(Augmenter):
    """Subtract ``mean`` and divide by ``std`` (in place)."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = _as_nd(mean)
        self.std = _as_nd(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace each channel by the gray level (0.21 R + 0.72 G + 0.07 B)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        return nd.dot(src, self.mat) if random.random() < self.p else src


class HorizontalFlipAug(Augmenter):
    """With probability ``p``, flip left-right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        return nd.flip(src, axis=1) if random.random() < self.p else src


class CastAug(Augmenter):
    """Cast to ``typ`` (float32)."""

    def __init__(self, typ='float32'):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])
_IMAGENET_MEAN = [123.68, 116.28, 103.53]
_IMAGENET_STD = [58.395, 57.12, 57.375]


def _norm_stat(value, imagenet):
    """``True`` means ImageNet's statistic; anything else given must be a 1- or 3-element array."""
    if value is True:
        return nd.array(imagenet)
    if value is not None:
        assert isinstance(value, (np.ndarray, nd.NDArray)) and value.shape[0] in [1, 3]
    return value


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False, mean=None,
                    std=None, brightness=0, contrast=0, saturation=0, hue=0, pca_noise=0, rand_gray=0,
                    inter_method=2):
    """The standard augmenter list; ``mean=True`` / ``std=True`` use ImageNet's RGB statistics."""
    crop_wh = (data_shape[2], data_shape[1])
    pipeline = [ResizeAug(resize, inter_method)] if resize > 0 else []
    if rand_resize:
        assert rand_crop
        pipeline.append(RandomSizedCropAug(crop_wh, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    else:
        cropper = RandomCropAug if rand_crop else CenterCropAug
        pipeline.append(cropper(crop_wh, inter_method))
    if rand_mirror:
        pipeline.append(HorizontalFlipAug(0.5))
    pipeline.append(CastAug())
    # colour steps, each only when asked for, in this fixed order
    extras = ((brightness or contrast or saturation, lambda: ColorJitterAug(brightness, contrast, saturation)),
              (hue, lambda: HueJitterAug(hue)),
              (pca_noise > 0, lambda: LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)),
              (rand_gray > 0, lambda: RandomGrayAug(rand_gray)))
    pipeline.extend(build() for enabled, build in extras if enabled)
    mean = _norm_stat(mean, _IMAGENET_MEAN)
    std = _norm_stat(std, _IMAGENET_STD)
    if mean is not None or std is not None:
        pipeline.append(ColorNormalizeAug(mean, std))
    return pipeline


# ---- ImageIter ----------------------------------------------------------------------------------------------------
class ImageIter(io.DataIter):
    """Batches of augmented images from a .rec file (``path_imgrec``, ``path_imgidx``), an image list file
    (``path_imglist`` + ``path_root``) or an in-memory ``imglist`` of ``[label(s)..., path]``.

    Extra keyword arguments go to :func:`CreateAugmenter`. Labels come in ``dtype``; data is float32 NCHW.
    """

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name='data', label_name='softmax_label', dtype='float32', last_batch_handle='pad',
                 **kwargs):
        super().__init__()
        assert path_imgrec or path_imglist or (isinstance(imglist, list))
        assert dtype in ['int32', 'float32', 'int64', 'float64'], dtype + ' label not supported'
        logging.info('Using %s threads for decoding...', str(os.environ.get('MXNET_CPU_WORKER_NTHREADS', 1)))
        self.imgrec, self.imgidx = self._open_records(path_imgrec, path_imgidx)
        self.imglist, list_keys = self._collect_list(path_imglist, imglist, dtype)
        self.path_root = path_root
        self.check_data_shape(data_shape)
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_data = [(data_name, (batch_size,) + data_shape)]
        self.provide_label = [(label_name, label_shape)]
        self.batch_size, self.data_shape, self.label_width = batch_size, data_shape, label_width
        self.shuffle = shuffle
        self.seq = self._reading_order(list_keys, shuffle or num_parts > 1 or path_imgidx, part_index, num_parts)
        self.auglist = aug_list if aug_list is not None else CreateAugmenter(data_shape, **kwargs)
        _warm_up_codec()
        self.last_batch_handle = last_batch_handle
        self.num_image = None if self.seq is None else len(self.seq)
        self.cur = 0
        self._allow_read = True
        self._clear_cache()
        self.reset()

    # -- construction helpers
    def _open_records(self, path_imgrec, path_imgidx):
        """(record reader, its keys or None); (None, None) without a .rec file."""
        if not path_imgrec:
            return None, None
        logging.info('%s: loading recordio %s...', type(self).__name__, path_imgrec)
        if not path_imgidx:
            return recordio.MXRecordIO(path_imgrec, 'r'), None
        reader = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, 'r')
        return reader, list(reader.keys)

    def _collect_list(self, path_imglist, imglist, dtype):
        """({key: (label NDArray, path)}, keys in order) from a list file or an in-memory list; (None, [])."""
        if path_imglist:
            logging.info('%s: loading image list %s...', type(self).__name__, path_imglist)
            with open(path_imglist) as handle:
                rows = [ln.strip().split('\t') for ln in iter(handle.readline, '')]
            entries = [(int(row[0]), nd.array(row[1:-1], dtype=dtype), row[-1]) for row in rows]
        elif isinstance(imglist, list):
            logging.info('%s: loading image list...', type(self).__name__)
            entries = [(str(pos), self._entry_label(item, dtype), item[-1]) for pos, item in enumerate(imglist, 1)]
        else:
            return None, []
        table = {}
        for key, label, path in entries:
            table[key] = (label, path)
        return table, [key for key, _, _ in entries]

    @staticmethod
    def _entry_label(item, dtype):
        if len(item) > 2:  # several label values before the path
            return nd.array(item[:-1], dtype=dtype)
        first = item[0]
        return nd.array([first] if isinstance(first, numeric_types) else first, dtype=dtype)

    def _reading_order(self, list_keys, need_index, part_index, num_parts):
        """The keys to visit (None: read the .rec file front to back), cut to this part."""
        if self.imgrec is None:
            order = list_keys
        elif need_index:
            assert self.imgidx is not None
            order = self.imgidx
        else:
            return None
        if num_parts > 1:
            assert part_index < num_parts
            share = len(order) // num_parts
            order = order[share * part_index:share * (part_index + 1)]
        return order

    # -- epoch control
    def _clear_cache(self):
        self._cache_data = self._cache_label = self._cache_idx = None

    def _rewind(self):
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)

    def _restart_reading(self):
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True

    def reset(self):
        """Start a new epoch (reshuffling if ``shuffle``); 'roll_over' keeps the cached partial batch."""
        self._rewind()
        keep_rolled = self.last_batch_handle == 'roll_over' and self._cache_data is not None
        if not keep_rolled:
            self._restart_reading()

    def hard_reset(self):
        """Start a new epoch and drop any rolled-over data."""
        self._rewind()
        self._restart_reading()
        self._clear_cache()

    # -- reading
    def next_sample(self):
        """The next (label, encoded image) pair; raises StopIteration at the end."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            return self._next_in_file()
        if self.cur >= self.num_image:
            if self.last_batch_handle != 'discard':
                self.cur = 0
            raise StopIteration
        key = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is None:
            label, fname = self.imglist[key]
            return label, self.read_image(fname)
        header, payload = recordio.unpack(self.imgrec.read_idx(key))
        return (header.label if self.imglist is None else self.imglist[key][0]), payload

    def _next_in_file(self):
        """Sequential read of the .rec file (no index)."""
        record = self.imgrec.read()
        if record is not None:
            header, payload = recordio.unpack(record)
            return header.label, payload
        if self.last_batch_handle != 'discard':
            self.imgrec.reset()
        raise StopIteration

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill slots ``start..`` of the batch; returns how many slots are filled (StopIteration if none)."""
        filled = start
        while filled < self.batch_size:
            try:
                label, raw = self.next_sample()
            except StopIteration:
                if filled == 0:
                    raise
                break
            img = self.imdecode(raw)
            try:
                img, label = self._checked_sample(img, label)
            except RuntimeError as err:
                logging.debug('Invalid image, skipping:  %s', str(err))
                continue
            self._store_sample(batch_data, batch_label, filled, img, label)
            filled += 1
        return filled

    def _checked_sample(self, img, label):
        """The decoded sample, or a RuntimeError if it must be skipped."""
        self.check_valid_image(img)
        return img, label

    def _store_sample(self, batch_data, batch_label, slot, img, label):
        """Augment a checked sample and write it into the batch (augmenter errors are not skipped, as in MXNet)."""
        datum = self.augmentation_transform(img)
        if type(self).postprocess_data is ImageIter.postprocess_data and isinstance(datum, nd.NDArray) \
                and datum.dtype is batch_data.dtype and datum.shape == batch_data.shape[2:] + batch_data.shape[1:2]:
            # HWC -> CHW straight into the batch: one copy, where transposing then assigning makes two
            batch_data._t[slot].copy_(datum._t.detach().permute(2, 0, 1))
        else:
            batch_data[slot] = self.postprocess_data(datum)
        batch_label[slot] = label

    def next(self):
        """The next DataBatch (``pad`` counts the filler images of the last batch)."""
        if self._cache_data is None:
            batch_data, batch_label = self._new_batch()
            filled = self._batchify(batch_data, batch_label)
        else:
            assert self._cache_label is not None, "_cache_label didn't have values"
            assert self._cache_idx is not None, "_cache_idx didn't have values"
            batch_data, batch_label, filled = self._cache_data, self._cache_label, self._cache_idx
        missing = self.batch_size - filled
        if missing:
            filled = self._finish_short_batch(batch_data, batch_label, filled)
        if filled < self.batch_size:
            batch_data._t[filled:] = 0  # slots no image reached hold zeros, as in MXNet's zero-filled batch
        return io.DataBatch([batch_data], [batch_label], pad=missing)

    def _new_batch(self):
        """Fresh (data, label) arrays for one batch. MXNet zero-fills the data; here ``next`` zeroes only the slots
        no image was written to, the same result without writing every slot twice."""
        shapes = ((self.batch_size,) + tuple(self.data_shape), self.provide_label[0][1])
        return tuple(_image_array(torch.empty(shape)) for shape in shapes)

    def _finish_short_batch(self, batch_data, batch_label, filled):
        """Handle a batch the epoch ran out on, as ``last_batch_handle`` asks; returns the slots filled."""
        mode = self.last_batch_handle
        if mode == 'discard':
            raise StopIteration
        if mode == 'roll_over' and self._cache_data is None:
            # keep the partial batch; the next epoch tops it up
            self._cache_data, self._cache_label, self._cache_idx = batch_data, batch_label, filled
            raise StopIteration
        filled = self._batchify(batch_data, batch_label, filled)  # wrap around into the next pass
        if mode == 'pad':
            self._allow_read = False
        else:
            self._clear_cache()
        return filled

    def check_data_shape(self, data_shape):
        """Require a (3, H, W) shape."""
        if len(data_shape) != 3:
            raise ValueError('data_shape should have length 3, with dimensions CxHxW')
        if data_shape[0] != 3:
            raise ValueError('This iterator expects inputs to have 3 channels.')

    def check_valid_image(self, data):
        """Reject images with an empty shape."""
        if isinstance(data, nd.NDArray) and data.ndim >= 2 and data.shape[0]:
            return  # data[0] has a shape: no need to index
        if not data[0].shape:
            raise RuntimeError('Data shape is wrong')

    def imdecode(self, s):
        """Decode bytes to an NDArray; a failure names the image (file name or record index)."""
        try:
            return imdecode(s)
        except Exception as e:  # noqa: BLE001
            raise RuntimeError('Broken image {}, {}'.format(self._describe_current(), e)) from None

    def _describe_current(self):
        """Which image was just read, for error messages."""
        if self.seq is not None:
            key = self.seq[(self.cur % self.num_image) - 1]
        elif self.num_image:
            key = (self.cur % self.num_image) - 1
        else:
            key = self.cur - 1
        if self.imglist is None:
            return 'index: %s' % key
        return 'filename: {}'.format(self.imglist[key][1])

    def read_image(self, fname):
        """The raw bytes of ``path_root/fname``."""
        with open(os.path.join(self.path_root, fname), 'rb') as fin:
            return fin.read()

    def augmentation_transform(self, data):
        """Apply the augmenter list."""
        return _run_chain(self.auglist, data)

    def postprocess_data(self, datum):
        """HWC -> CHW."""
        if is_np_array():
            return datum.transpose(2, 0, 1)
        return nd.transpose(datum, axes=(2, 0, 1))
