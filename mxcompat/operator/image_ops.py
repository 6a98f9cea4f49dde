"""Image operators (``mx.nd.image`` / ``mx.sym.image``, MXNet's ``_image_*``): to_tensor, normalize, resize, crop,
flips and the random colour augmentations that ``gluon.data.vision.transforms`` call.

Differs from MXNet:

* ``resize`` is computed in torch with OpenCV's ``cv::resize`` rules (``mxcompat.image``'s resizer); a few uint8
  pixels may differ by 1 (and float32 ones by an ulp) from OpenCV's SIMD paths. Unsupported dtypes (float16, int8,
  int64, ...) raise ``MXNetTypeError``, as does int32 with an interpolation other than nearest (OpenCV's rule); MXNet
  rejects those too, or returns garbage.
* On the CPU the random ops draw MXNet 1.9.1's numbers from its single engine (``mshadow::Random<cpu>``, seeded
  by ``mx.random.seed``) with libstdc++'s distributions: the flips a ``bernoulli_distribution`` (a double canonical
  number below 0.5 keeps the image), the factors a ``uniform_real_distribution<float>``, the jitter's order a
  ``std::shuffle`` of the four adjustments, the lighting alphas one ``normal_distribution<float>``. On CUDA (or
  with ``mx.random.set_streams('torch')``) they come from torch's generator. Given the same factor the pixels are
  MXNet's, including its quirks: uint8 results are truncated (not rounded),
  ``random_saturation`` mixes each channel with ``0.114 * blue`` only, ``random_hue`` with the transform's
  factor near 1 rotates by about a full turn, and colour math is done in float32 even for float64 images.
* ``flip_*`` also copy the middle row/column of an odd-sized image (MXNet leaves it unwritten unless in place).
* Where MXNet leaves the output unwritten (``random_hue``/``adjust_lighting``/``random_lighting`` on 1-channel
  images, ``random_color_jitter`` with all factors 0) the input is returned unchanged.
* Gradients are torch's (``to_tensor`` scales by 1/255, ``crop`` and ``normalize`` as MXNet's, ``resize`` has
  none); MXNet passes the output gradient of the others through unchanged.
"""
import numpy as np
import torch

from ..base import MXNetValueError, MXNetTypeError, device_values, dtype_name
from .registry import defop, REQUIRED
from . import _mxrandom
from ._cv_resize import resize_hwc
from ._mt19937 import canonical_f32, canonical_f64

_X = ('data',)


def _err(op, msg, cls=MXNetValueError):
    return cls('Operator %s: %s' % (op, msg))


def _same(shapes, dtypes, attrs):  # noqa: ARG001
    return [tuple(shapes[0])], [dtypes[0]]


def _alias(name):
    return ('_npx_' + name,)


def _saturate(v, dtype):
    """MXNet's ``saturate_cast`` from float32: uint8 is clamped to [0, 255]; integers are truncated."""
    if dtype == torch.uint8:
        v = v.clamp(0, 255)
    return v.to(dtype)


# ---- to_tensor / normalize -----------------------------------------------------------------------------------------
def _to_tensor(x):
    op = '_image_to_tensor'
    if x.dim() not in (3, 4):
        raise _err(op, 'Input image must have shape (height, width, channels), or (N, height, width, channels) '
                       'but got %s' % (tuple(x.shape),))
    y = (x / 255.0).to(torch.float32) if x.dtype == torch.float64 else x.to(torch.float32) / 255.0
    return y.permute(2, 0, 1).contiguous() if x.dim() == 3 else y.permute(0, 3, 1, 2).contiguous()


defop('_image_to_tensor', _X, (), _to_tensor, aliases=_alias('_image_to_tensor'),
      doc='HxWxC (or NxHxWxC) image in [0, 255] -> float32 CxHxW (NxCxHxW) in [0, 1].')


def _channel_values(op, what, values, nch, shape):
    if len(values) not in (1, nch):
        raise _err(op, 'Invalid %s for input with shape %s. %s must have either 1 or %d elements, but got %s'
                   % (what, shape, what, nch, tuple(values)))
    return list(values) * nch if len(values) == 1 else list(values)


def _normalize(x, mean, std):
    op = '_image_normalize'
    shape = tuple(x.shape)
    if x.dim() not in (3, 4):
        raise _err(op, 'Input tensor must have shape (channels, height, width), or (N, channels, height, width), '
                       'but got %s' % (shape,))
    nch = shape[0] if x.dim() == 3 else shape[1]
    if nch not in (1, 3):
        raise _err(op, 'The channel dimension of the input tensor must have either 1 or 3 elements, but got input '
                       'with shape %s' % (shape,))
    work = x.dtype if x.is_floating_point() else torch.float32
    m = device_values(_channel_values(op, 'mean', mean, nch, shape), torch.float32, x.device).to(work)
    s = device_values(_channel_values(op, 'std', std, nch, shape), torch.float32, x.device).to(work)
    m, s = m.view(nch, 1, 1), s.view(nch, 1, 1)
    return ((x.to(work) - m) / s).to(x.dtype)


defop('_image_normalize', _X, [('mean', 'floats', (0.0, 0.0, 0.0, 0.0)), ('std', 'floats', (1.0, 1.0, 1.0, 1.0))],
      _normalize, aliases=_alias('_image_normalize'),
      doc='(x - mean[c]) / std[c] per channel of a CxHxW (NxCxHxW) tensor; mean/std have 1 or C values.')


# ---- resize / crop -------------------------------------------------------------------------------------------------
_RESIZE_DTYPES = (torch.uint8, torch.int32, torch.float32, torch.float64)


def _resize_hw(op, shape, size, keep_ratio):
    """(height, width) of the resized image, as MXNet's GetHeightAndWidth."""
    if len(shape) not in (3, 4):
        raise _err(op, 'Input image dimension should be 3 or 4 but got %d' % len(shape))
    size = tuple(size or ())
    if len(size) not in (1, 2):
        raise _err(op, 'Input size dimension must be 1 or 2, but got %d' % len(size))
    h, w = shape[-3], shape[-2]
    if len(size) == 1:
        if size[0] <= 0:
            raise _err(op, 'Input size should be greater than 0, but got %d' % size[0])
        if not keep_ratio:
            return size[0], size[0]
        if h > w:
            return h * size[0] // w, size[0]
        return size[0], w * size[0] // h
    if size[0] <= 0 or size[1] <= 0:
        raise _err(op, 'Input width and height should be greater than 0, but got %s' % (size,))
    return size[1], size[0]


def _resize(x, size, keep_ratio, interp):
    op = '_image_resize'
    oh, ow = _resize_hw(op, tuple(x.shape), size, keep_ratio)
    if x.dtype not in _RESIZE_DTYPES:
        raise _err(op, "opencv resize doesn't support %s" % dtype_name(x.dtype), MXNetTypeError)
    if interp not in (0, 1, 2, 3, 4):
        raise _err(op, 'Unknown interpolation method %d (OpenCV takes 0-4)' % interp)
    if x.dtype == torch.int32 and interp != 0 and (oh, ow) != tuple(x.shape[-3:-1]):
        raise _err(op, 'opencv resize supports int32 images only with interp=0 (nearest), got interp=%d' % interp,
                   MXNetTypeError)
    src = x.detach().cpu()
    if x.dim() == 3:
        out = resize_hwc(src, ow, oh, interp)
    else:
        out = torch.stack([resize_hwc(img, ow, oh, interp) for img in src]) if len(src) else \
            src.new_empty((0, oh, ow, src.shape[3]))
    return out.to(x.device)


def _resize_infer(shapes, dtypes, attrs):
    oh, ow = _resize_hw('_image_resize', tuple(shapes[0]), attrs['size'], attrs['keep_ratio'])
    return [tuple(shapes[0][:-3]) + (oh, ow, shapes[0][-1])], [dtypes[0]]


defop('_image_resize', _X, [('size', 'shape', ()), ('keep_ratio', 'bool', False), ('interp', 'int', 1)], _resize,
      infer=_resize_infer, aliases=_alias('_image_resize'),
      doc='Resize an HxWxC (NxHxWxC) image to ``size`` = (width, height) or an edge length (OpenCV rules).')


def _check_channels(op, x, ndims):
    shape = tuple(x.shape)
    if x.dim() not in ndims:
        if ndims == (3,):
            raise _err(op, 'Input image must have shape (height, width, channels), but got %s' % (shape,))
        raise _err(op, 'expects inputs of 3D (h, w, c) or 4D (n, h, w, c), but got %dD' % x.dim())
    if shape[-1] not in (1, 3):
        raise _err(op, 'The last dimension of input image must be the channel dimension with either 1 or 3 '
                       'elements, but got input with shape %s' % (shape,))


def _crop(data, x, y, width, height):
    op = '_image_crop'
    _check_channels(op, data, (3, 4))
    if height <= 0 or width <= 0:
        raise _err(op, 'Input height and width must be greater than 0')
    if x + width > data.shape[-2]:
        raise _err(op, 'x + width should not be greater than input width')
    if y + height > data.shape[-3]:
        raise _err(op, 'y + height should not be greater than input height')
    if x < 0 or y < 0:
        raise _err(op, 'x and y must be non-negative, got x=%d, y=%d' % (x, y))
    return data[..., y:y + height, x:x + width, :]


defop('_image_crop', _X, [('x', 'int', REQUIRED), ('y', 'int', REQUIRED), ('width', 'int', REQUIRED),
                          ('height', 'int', REQUIRED)], _crop, view=True, aliases=_alias('_image_crop'),
      doc='The ``height`` x ``width`` window at (x, y) of an HxWxC (NxHxWxC) image.')


# ---- flips ---------------------------------------------------------------------------------------------------------
def _coin(device):
    """``std::bernoulli_distribution()(engine)``: true (MXNet keeps the image) when a double canonical number is
    below 0.5."""
    if _mxrandom.on(device):
        first, second = _mxrandom.SINGLE.draw(2)
        return bool(canonical_f64(first, second) < 0.5)
    return bool(torch.rand((), dtype=torch.float64) < 0.5)


def _flip(axis, random):
    name = '_image_%sflip_%s' % ('random_' if random else '', 'left_right' if axis == 1 else 'top_bottom')

    def impl(x):
        _check_channels(name, x, (3,))
        if random and _coin(x.device):
            return x.clone()
        return x.flip(axis)
    defop(name, _X, (), impl, aliases=_alias(name), infer=_same if random else None,
          doc='%s an HxWxC image%s.' % ('Mirror' if axis == 1 else 'Flip upside down',
                                        ' with probability 0.5' if random else ''))


for _axis in (1, 0):
    for _random in (False, True):
        _flip(_axis, _random)


# ---- colour adjustments (factor given), as MXNet's Adjust*Impl ----------------------------------------------------
_GRAY = torch.tensor([0.299, 0.587, 0.114], dtype=torch.float32)


def _brightness(x, alpha):
    return _saturate(x.to(torch.float32) * np.float32(alpha), x.dtype)


def _contrast(x, alpha):
    xf = x.to(torch.float32)
    h, w, c = x.shape
    terms = xf[..., :3] * _GRAY.to(x.device) if c > 1 else xf
    # MXNet sums in float32, pixel after pixel; numpy's accumulate adds in that same order and precision
    total = np.add.accumulate(terms.detach().cpu().numpy().ravel(), dtype=np.float32)[-1] if h * w else 0
    gray_mean = np.float32(np.float32(total) / np.float32(h * w))
    alpha = np.float32(alpha)
    beta = np.float32((np.float32(1) - alpha) * gray_mean)
    return _saturate(xf * alpha + beta, x.dtype)


def _saturation(x, alpha):
    if x.shape[2] == 1:
        return x.clone()
    xf = x.to(torch.float32)
    alpha = np.float32(alpha)
    # MXNet's loop assigns (rather than adds) each channel's term, so the "gray" is 0.114 * blue only.
    gray = xf[..., 2:3] * np.float32(0.114) * (np.float32(1) - alpha)
    return _saturate(gray + xf * alpha, x.dtype)


def _f(v):
    return v.to(torch.float32)


def _rgb_to_hls(r, g, b):
    r, g, b = r / 255.0, g / 255.0, b / 255.0
    vmax = torch.maximum(torch.maximum(r, g), b)
    vmin = torch.minimum(torch.minimum(r, g), b)
    diff = vmax - vmin
    l = (vmax + vmin) * 0.5  # noqa: E741
    s = _f(l < 0.5) * diff / (vmax + vmin)
    s = s + _f(l >= 0.5) * diff / (2.0 - vmax - vmin)
    d = torch.full_like(diff, 60.0) / diff  # (60.0 / diff would multiply by a reciprocal: not MXNet's rounding)
    is_r, is_g = vmax == r, vmax == g
    h = _f(is_r) * (g - b) * d
    h = h + _f(~is_r & is_g) * ((b - r) * d + 120.0)
    h = h + _f(~is_r & ~is_g) * ((r - g) * d + 240.0)
    h = h + _f(h < 0) * 360.0
    chroma = diff > np.finfo(np.float32).eps
    zero = torch.zeros_like(h)
    return torch.where(chroma, h, zero), l, torch.where(chroma, s, zero)


# OpenCV's HLS sector table: which of (p2, p1, falling, rising) feeds b, g, r in each 60-degree sector
_SECTORS = torch.tensor([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _hls_to_rgb(h, l, s):  # noqa: E741
    p2 = _f(l <= 0.5) * l * (1 + s)
    p2 = p2 + _f(l > 0.5) * (l + s - l * s)
    p1 = 2 * l - p2
    h = h * (np.float32(1) / np.float32(60))
    while bool((h < 0).any()):
        h = torch.where(h < 0, h + 6, h)
    while bool((h >= 6).any()):
        h = torch.where(h >= 6, h - 6, h)
    sector = h.to(torch.int64)
    h = h - _f(sector)
    tab = torch.stack([p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h], dim=-1)
    pick = _SECTORS.to(h.device)[sector.clamp(0, 5)]  # (..., 3): indices for b, g, r
    bgr = torch.gather(tab, -1, pick)
    gray = (s == 0).unsqueeze(-1)
    bgr = torch.where(gray, l.unsqueeze(-1).expand_as(bgr), bgr)
    return bgr[..., 2] * 255.0, bgr[..., 1] * 255.0, bgr[..., 0] * 255.0


def _hue(x, alpha):
    if x.shape[2] == 1:
        return x.clone()
    xf = x.to(torch.float32)
    h, l, s = _rgb_to_hls(xf[..., 0], xf[..., 1], xf[..., 2])  # noqa: E741
    h = h + np.float32(alpha) * np.float32(360.0)
    r, g, b = _hls_to_rgb(h, l, s)
    return _saturate(torch.stack([r, g, b], dim=-1), x.dtype)


_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=np.float32)


def _lighting(x, alpha):
    if x.shape[2] == 1:
        return x.clone()
    a = np.asarray(alpha[:3], dtype=np.float32)
    pca = [(_EIG[i, 0] * a[0] + _EIG[i, 1] * a[1]) + _EIG[i, 2] * a[2] for i in range(3)]
    shift = torch.tensor(np.array(pca, dtype=np.float32), device=x.device)
    return _saturate(x.to(torch.float32) + shift, x.dtype)


# ---- random colour operators ---------------------------------------------------------------------------------------
def _uniform(lo, hi, device):
    """``uniform_real_distribution<float>(lo, hi)(engine)``: u * (hi - lo) + lo in float32, u a float canonical
    number of the single engine (torch's generator where MXNet's streams are off)."""
    lo, hi = np.float32(lo), np.float32(hi)
    if _mxrandom.on(device):
        u = canonical_f32(_mxrandom.SINGLE.draw(1))[0]
    else:
        u = np.float32(torch.rand((), dtype=torch.float64).item())
    return float(u * (hi - lo) + lo)


def _nonneg(name):
    def parse(v):
        f = float(v)
        if f < 0:
            raise ValueError('%s must be >= 0, got %r' % (name, v))
        return f
    return parse


def _random_enhance(name, adjust, doc):
    def impl(x, min_factor, max_factor):
        _check_channels(name, x, (3,))
        return adjust(x, _uniform(min_factor, max_factor, x.device))
    defop(name, _X, [('min_factor', _nonneg('min_factor'), REQUIRED), ('max_factor', _nonneg('max_factor'), REQUIRED)],
          impl, infer=_same, aliases=_alias(name), doc=doc)


_random_enhance('_image_random_brightness', _brightness, 'Scale an HxWxC image by a random factor.')
_random_enhance('_image_random_contrast', _contrast, "Blend an HxWxC image with its gray mean by a random factor.")
_random_enhance('_image_random_saturation', _saturation, 'Change the saturation of an HxWxC image by a random factor.')
_random_enhance('_image_random_hue', _hue, 'Rotate the hue of an HxWxC image by factor * 360 degrees.')


def _random_color_jitter(x, brightness, contrast, saturation, hue):
    op = '_image_random_color_jitter'
    _check_channels(op, x, (3,))
    out, dev = x, x.device
    order = _mxrandom.shuffle_order(4, True).tolist() if _mxrandom.on(dev) else torch.randperm(4).tolist()
    for k in order:
        if k == 0 and brightness > 0:
            out = _brightness(out, 1.0 + _uniform(-brightness, brightness, dev))
        elif k == 1 and contrast > 0:
            out = _contrast(out, 1.0 + _uniform(-contrast, contrast, dev))
        elif k == 2 and saturation > 0:
            out = _saturation(out, 1.0 + _uniform(-saturation, saturation, dev))
        elif k == 3 and hue > 0:
            out = _hue(out, _uniform(-hue, hue, dev))
    return out.clone() if out is x else out


defop('_image_random_color_jitter', _X, [('brightness', 'float', REQUIRED), ('contrast', 'float', REQUIRED),
                                         ('saturation', 'float', REQUIRED), ('hue', 'float', REQUIRED)],
      _random_color_jitter, infer=_same, aliases=_alias('_image_random_color_jitter'),
      doc='Brightness, contrast, saturation and hue jitter of an HxWxC image, in random order.')


def _adjust_lighting(x, alpha):
    op = '_image_adjust_lighting'
    _check_channels(op, x, (3,))
    if len(alpha) < 3:
        raise _err(op, 'alpha needs 3 values (R, G, B), got %s' % (tuple(alpha),))
    return _lighting(x, alpha)


def _random_lighting(x, alpha_std):
    _check_channels('_image_random_lighting', x, (3,))
    if _mxrandom.on(x.device):  # one normal_distribution<float>(0, alpha_std) for the three alphas
        alpha = _mxrandom.single_normal(3) * np.float32(alpha_std)
    else:
        alpha = (torch.randn(3, dtype=torch.float64) * alpha_std).numpy()  # host: drawn on the CPU
    return _lighting(x, alpha)


defop('_image_adjust_lighting', _X, [('alpha', 'floats', REQUIRED)], _adjust_lighting,
      aliases=_alias('_image_adjust_lighting'), infer=_same,
      doc="AlexNet's PCA lighting shift of an HxWxC image with the given R, G, B alphas.")
defop('_image_random_lighting', _X, [('alpha_std', 'float', 0.05)], _random_lighting, infer=_same,
      aliases=_alias('_image_random_lighting'),
      doc="AlexNet's PCA lighting noise with alphas drawn from N(0, alpha_std).")
