"""Image transforms as Gluon Blocks (``mx.gluon.data.vision.transforms``).

The HybridBlocks call the ``mx.nd.image`` / ``mx.sym.image`` operators (see ``mxcompat/operator/image_ops.py`` for
how they differ from MXNet); the others use ``mx.image``. Differs from MXNet: ``Compose`` does not append ``None``
to the list it is given; ``CropResize(..., size=...)`` without ``interpolation`` resizes bilinearly (MXNet raises).
"""
import itertools
import random

import numpy as np

from ...block import Block, HybridBlock
from ...nn import Sequential, HybridSequential
from .... import image
from ....base import numeric_types, MXNetTypeError, MXNetValueError
from ..._npf import is_np, to_nd, to_np

__all__ = ['Compose', 'Cast', 'ToTensor', 'Normalize', 'Rotate', 'RandomRotation', 'RandomResizedCrop', 'CropResize',
           'CenterCrop', 'Resize', 'RandomFlipLeftRight', 'RandomFlipTopBottom', 'RandomBrightness', 'RandomContrast',
           'RandomSaturation', 'RandomHue', 'RandomColorJitter', 'RandomLighting', 'RandomApply']


class Compose(Sequential):
    """Apply ``transforms`` in order; each run of consecutive HybridBlocks is grouped into one hybridized
    HybridSequential (a lone HybridBlock is added as it is)."""

    def __init__(self, transforms):
        super().__init__()
        for all_hybrid, group in itertools.groupby(transforms, key=lambda t: isinstance(t, HybridBlock)):
            members = [t for t in group if t is not None]  # MXNet skips None entries
            if all_hybrid and len(members) > 1:
                chain = HybridSequential()
                chain.add(*members)
                chain.hybridize()
                members = [chain]
            self.add(*members)


class Cast(HybridBlock):
    """Cast to ``dtype`` (default float32)."""

    def __init__(self, dtype='float32'):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """HxWxC (or NxHxWxC) image in [0, 255] -> float32 CxHxW (NxCxHxW) in [0, 1]."""

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x - mean[c]) / std[c]`` for a CxHxW (NxCxHxW) tensor; a scalar mean/std applies to every channel."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


def _check_float32(x):
    if np.dtype(x.dtype) != np.float32:
        raise MXNetTypeError('This transformation only supports float32. Consider calling it after ToTensor')


class Rotate(Block):
    """Rotate a float32 CxHxW image (or NxCxHxW batch) by ``rotation_degrees``; ``zoom_in``/``zoom_out`` as
    ``mx.image.imrotate``."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        _check_float32(x)
        return _legacy_image(image.imrotate, x, *self._args)


class RandomRotation(Block):
    """With probability ``rotate_with_proba``, rotate by a random angle in ``angle_limits`` (lower, upper)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise MXNetValueError('`angle_limits` must be an ordered tuple')
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise MXNetValueError('Probability of rotating the image should be between 0 and 1')
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        _check_float32(x)
        return _legacy_image(image.random_rotate, x, *self._args)


def _legacy_image(fn, x, *args):
    """``fn`` (an ``mx.image`` function, written for NDArrays) on image ``x``; an ``mx.np`` image gives ``mx.np``
    results (sharing memory both ways)."""
    result = fn(to_nd(x), *args)
    return to_np(result) if is_np(x) else result


def _pair(size):
    return (size, size) if isinstance(size, numeric_types) else size


class RandomResizedCrop(Block):
    """Crop a random area (fraction ``scale`` of the image, aspect ratio in ``ratio``) of an HxWxC image and
    resize it to ``size`` (w, h) with ``interpolation`` (``mx.image.random_size_crop``)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._args = (_pair(size), scale, ratio, interpolation)

    def forward(self, x):
        return _legacy_image(image.random_size_crop, x, *self._args)[0]


class CropResize(HybridBlock):
    """Crop the ``width`` x ``height`` window at (x, y) of an HxWxC (NxHxWxC) image, then resize it to ``size``
    if given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._box = (x, y, width, height)
        self._size, self._interpolation = size, interpolation

    def hybrid_forward(self, F, x):
        cropped = F.image.crop(x, *self._box)
        if not self._size:
            return cropped
        # MXNet requires interpolation with size; we fall back to the resize op's own default (bilinear)
        extra = {'interp': self._interpolation} if self._interpolation is not None else {}
        return F.image.resize(cropped, self._size, False, **extra)


class CenterCrop(Block):
    """Crop the centre ``size`` (w, h) of an HxWxC image (shrunk to fit, then resized up to ``size``)."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._args = (_pair(size), interpolation)

    def forward(self, x):
        return _legacy_image(image.center_crop, x, *self._args)[0]


class Resize(HybridBlock):
    """Resize an HxWxC (NxHxWxC) image to ``size`` = (w, h), or to ``size`` x ``size`` (with ``keep_ratio``, the
    short edge to ``size``); ``interpolation`` as OpenCV (default 1, bilinear)."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._args = (size, keep_ratio, interpolation)

    def hybrid_forward(self, F, x):
        return F.image.resize(x, *self._args)


class RandomFlipLeftRight(HybridBlock):
    """Mirror an HxWxC image with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Flip an HxWxC image upside down with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomFactor(HybridBlock):
    """A random colour change by a factor in ``[max(0, 1 - amount), 1 + amount]``."""

    _op = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._op)(x, *self._args)


class RandomBrightness(_RandomFactor):
    """Scale an HxWxC image by a factor in ``[max(0, 1 - brightness), 1 + brightness]``."""
    _op = 'random_brightness'


class RandomContrast(_RandomFactor):
    """Blend an HxWxC image with its gray mean by a factor in ``[max(0, 1 - contrast), 1 + contrast]``."""
    _op = 'random_contrast'


class RandomSaturation(_RandomFactor):
    """Change the saturation of an HxWxC image by a factor in ``[max(0, 1 - saturation), 1 + saturation]``."""
    _op = 'random_saturation'


class RandomHue(_RandomFactor):
    """Rotate the hue of an HxWxC image by ``factor * 360`` degrees, factor in ``[max(0, 1 - hue), 1 + hue]``
    (as in MXNet, so a factor near 1 turns the hue almost a full circle)."""
    _op = 'random_hue'


class RandomColorJitter(HybridBlock):
    """Jitter brightness, contrast, saturation (factors ``1 +- amount``) and hue (``+- hue`` turns), in random
    order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """AlexNet-style PCA lighting noise, alphas drawn from N(0, ``alpha``)."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)


class RandomApply(Sequential):
    """Apply ``transforms`` (a Block) with probability ``p`` (Python's ``random``)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)
