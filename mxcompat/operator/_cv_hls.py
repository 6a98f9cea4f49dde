"""OpenCV 3.4's 8-bit ``cvtColor`` between BGR and HLS (``COLOR_BGR2HLS`` / ``COLOR_HLS2BGR``: hue in 0..180), in
float32 as OpenCV computes it, so that every byte equals OpenCV's (MXNet's ImageRecordIter HSL jitter runs them).

OpenCV converts each row in blocks of 256 pixels; within a block, groups of 8 pixels take its SSE2 path and the rest
its scalar loop. The two compute the saturation of a pixel with lightness >= 0.5 in a different order
(``diff / (2 - (max + min))`` against ``diff / ((2 - max) - min)``), which can round differently: both are kept."""
import numpy as np

_BLOCK = 256
_F = np.float32


def _simd_columns(width):
    """Whether each pixel of a row takes OpenCV's vector path (whole groups of 8 from each 256-pixel block)."""
    x = np.arange(width)
    start = x - x % _BLOCK
    dn = np.minimum(width - start, _BLOCK)
    return (x - start) < dn // 8 * 8


def _to_u8(v):
    """``saturate_cast<uchar>`` of floats: round half to even, clamp."""
    return np.clip(np.rint(v), 0, 255).astype(np.uint8)


def bgr_to_hls(img):
    """``cvtColor(img, COLOR_BGR2HLS)`` of an HxWx3 uint8 image: (H in 0..180, L, S) as uint8."""
    c = img.astype(_F) * (_F(1) / _F(255))
    b, g, r = c[..., 0], c[..., 1], c[..., 2]
    vmax = np.maximum(np.maximum(r, g), b)
    vmin = np.minimum(np.minimum(r, g), b)
    diff = vmax - vmin
    total = vmax + vmin
    light = total * _F(0.5)
    simd = np.broadcast_to(_simd_columns(img.shape[1]), light.shape)
    with np.errstate(divide='ignore', invalid='ignore'):
        dark = diff / total
        bright = np.where(simd, diff / (_F(2) - total), diff / ((_F(2) - vmax) - vmin))
        sat = np.where(light < _F(0.5), dark, bright)
        step = _F(60) / diff
        hue = np.where(vmax == r, (g - b) * step,
                       np.where(vmax == g, (b - r) * step + _F(120), (r - g) * step + _F(240)))
    hue = np.where(hue < _F(0), hue + _F(360), hue) * _F(0.5)
    grey = ~(diff > _F(np.finfo(np.float32).eps))
    hue = np.where(grey, _F(0), hue)
    sat = np.where(grey, _F(0), sat)
    return np.stack([_to_u8(hue), _to_u8(light * _F(255)), _to_u8(sat * _F(255))], axis=-1)


def hls_to_bgr(img):
    """``cvtColor(img, COLOR_HLS2BGR)`` of an HxWx3 uint8 HLS image (hue in 0..180)."""
    h = img[..., 0].astype(_F) * (_F(6) / _F(180))
    lum = img[..., 1].astype(_F) * (_F(1) / _F(255))
    s = img[..., 2].astype(_F) * (_F(1) / _F(255))
    p2 = np.where(lum <= _F(0.5), lum * (_F(1) + s), (lum + s) - lum * s)
    p1 = _F(2) * lum - p2
    h = np.where(h >= _F(6), h - _F(6), h)  # (h <= 6 here: hue at most 180)
    sector = np.floor(h).astype(np.int64)
    frac = h - sector.astype(_F)
    tab = np.stack([p2, p1, p1 + (p2 - p1) * (_F(1) - frac), p1 + (p2 - p1) * frac], axis=-1)
    order = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])  # (b, g, r) per sector
    bgr = np.take_along_axis(tab, order[sector], axis=-1)
    grey = s == _F(0)
    bgr = np.where(grey[..., None], lum[..., None], bgr)
    return _to_u8(bgr * _F(255))


def shift_hls(img, hue, lightness, saturation):
    """MXNet's HLS jitter of a BGR uint8 image: the offsets added to OpenCV's HLS bytes, clamped to 0..180 (hue) and
    0..255, converted back."""
    hls = bgr_to_hls(np.ascontiguousarray(img)).astype(np.int64) + np.array([hue, lightness, saturation])
    return hls_to_bgr(np.clip(hls, 0, np.array([180, 255, 255])).astype(np.uint8))
