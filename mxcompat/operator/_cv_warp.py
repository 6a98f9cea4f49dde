"""OpenCV's ``cv::warpAffine`` (3.4, as MXNet 1.9.1's wheels link it) for 8-bit HxWxC images with a constant
border: nearest, bilinear (and area, which warpAffine computes as bilinear), bicubic and Lanczos-4 interpolation,
with OpenCV's fixed-point rules, so that every pixel equals OpenCV's.

OpenCV inverts the 2x3 matrix in double and steps the source coordinates in 1/1024 units (each step rounded to
nearest even). Nearest rounds them to whole pixels. The interpolating modes keep 5 fractional bits of each coordinate
and weigh the k x k neighbours (k = 2, 4, 8) with weights of 15 fractional bits from a 32 x 32 table, made to sum to
exactly 1 << 15; a neighbour outside the image takes the border value."""
import functools
import math

import numpy as np

_AB_BITS = 10        # source coordinates are stepped in 1 / 2**10 units
_INTER_BITS = 5      # fractional bits kept for the weight tables (32 x 32 entries)
_TAB = 1 << _INTER_BITS
_COEF_BITS = 15      # weights in 1 / 2**15 units
_NEAREST, _LINEAR, _CUBIC, _AREA, _LANCZOS4 = 0, 1, 2, 3, 4
_TAPS = {_LINEAR: 2, _CUBIC: 4, _LANCZOS4: 8}


def _linear_1d(x):
    return [np.float32(1) - x, x]


def _cubic_1d(x):
    a, one = np.float32(-0.75), np.float32(1)
    c0 = ((a * (x + one) - np.float32(5) * a) * (x + one) + np.float32(8) * a) * (x + one) - np.float32(4) * a
    c1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    y = one - x
    c2 = ((a + np.float32(2)) * y - (a + np.float32(3))) * y * y + one
    return [c0, c1, c2, one - c0 - c1 - c2]


def _lanczos4_1d(x):
    if x < np.finfo(np.float32).eps:
        return [np.float32(v) for v in (0, 0, 0, 1, 0, 0, 0, 0)]
    s45 = 0.70710678118654752440084436210485
    cs = ((1, 0), (-s45, -s45), (0, 1), (s45, -s45), (-1, 0), (s45, s45), (0, -1), (-s45, s45))
    y0 = -float(x + np.float32(3)) * math.pi * 0.25  # (x + 3 in float, the rest in double, as OpenCV's C++)
    s0, c0 = math.sin(y0), math.cos(y0)
    coeffs, total = [], np.float32(0)
    for i in range(8):
        y = -float(x + np.float32(3) - np.float32(i)) * math.pi * 0.25
        c = np.float32((cs[i][0] * s0 + cs[i][1] * c0) / (y * y))
        coeffs.append(c)
        total = np.float32(total + c)
    inv = np.float32(np.float32(1) / total)
    return [np.float32(c * inv) for c in coeffs]


@functools.lru_cache(maxsize=None)
def _weights(interp):
    """(32 * 32, k * k) int64: OpenCV's fixed-point weights of the k x k neighbours for the fractions
    (fy, fx) = (i, j) / 32, row by row; where their rounded sum misses 2**15, OpenCV's correction (the smallest or
    largest of four entries past the middle takes the difference)."""
    k = _TAPS[interp]
    one_d = {_LINEAR: _linear_1d, _CUBIC: _cubic_1d, _LANCZOS4: _lanczos4_1d}[interp]
    scale = np.float32(1.0 / _TAB)
    tab = [one_d(np.float32(i) * scale) for i in range(_TAB)]
    out = np.empty((_TAB * _TAB, k * k), np.int64)
    for i in range(_TAB):
        for j in range(_TAB):
            w = [int(np.rint(np.float32(tab[i][k1] * tab[j][k2]) * np.float32(1 << _COEF_BITS)))
                 for k1 in range(k) for k2 in range(k)]
            diff = sum(w) - (1 << _COEF_BITS)
            if diff:
                h = k // 2
                lo = hi = h * k + h
                for k1 in range(h, h + 2):
                    for k2 in range(h, h + 2):
                        at = k1 * k + k2
                        if w[at] < w[lo]:
                            lo = at
                        elif w[at] > w[hi]:
                            hi = at
                if diff < 0:
                    w[hi] -= diff
                else:
                    w[lo] -= diff
            out[i * _TAB + j] = w
    return out


def _round_int(x):
    """``saturate_cast<int>`` of doubles: round half to even, clamped to int32."""
    return np.clip(np.rint(x), -2 ** 31, 2 ** 31 - 1).astype(np.int64)


def _inverse(m):
    """The inverse of the 2x3 affine map ``m`` (as float64 numbers), in OpenCV's arithmetic."""
    m = [float(v) for v in np.asarray(m, np.float64).ravel()]
    d = m[0] * m[4] - m[1] * m[3]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22 = m[4] * d, m[0] * d
    m[0], m[1], m[3], m[4] = a11, m[1] * -d, m[3] * -d, a22
    b1 = -m[0] * m[2] - m[1] * m[5]
    b2 = -m[3] * m[2] - m[4] * m[5]
    m[2], m[5] = b1, b2
    return m


def _source_coords(m, width, height, shift, round_delta):
    """OpenCV's source coordinates of every output pixel, in units of 2**-(10 - shift) pixels: (X, Y) int64."""
    scale = float(1 << _AB_BITS)
    xs = np.arange(width, dtype=np.float64)
    ys = np.arange(height, dtype=np.float64)
    adelta = _round_int(m[0] * xs * scale)
    bdelta = _round_int(m[3] * xs * scale)
    x0 = _round_int((m[1] * ys + m[2]) * scale) + round_delta
    y0 = _round_int((m[4] * ys + m[5]) * scale) + round_delta
    return (x0[:, None] + adelta[None, :]) >> shift, (y0[:, None] + bdelta[None, :]) >> shift


def warp_affine_u8(img, matrix, width, height, border, interp=_LINEAR):
    """``cv::warpAffine(img, out, matrix, Size(width, height), interp, BORDER_CONSTANT, border)`` for a uint8
    HxWxC (or HxW) numpy image; ``matrix``: the 2x3 forward map (float32 or float64); ``border``: OpenCV's 4-value
    Scalar (channel k takes ``border[k & 3]``); ``interp``: 0 nearest, 1 bilinear, 2 bicubic, 3 area (as bilinear),
    4 Lanczos-4."""
    src = img if img.ndim == 3 else img[:, :, None]
    rows, cols, cn = src.shape
    m = _inverse(matrix)
    fill = np.clip(np.rint(np.array([border[k & 3] for k in range(cn)], np.float64)), 0, 255).astype(np.int64)
    if interp == _AREA:
        interp = _LINEAR
    if interp == _NEAREST:
        X, Y = _source_coords(m, width, height, _AB_BITS, (1 << _AB_BITS) // 2)
        sx, sy = np.clip(X, -32768, 32767), np.clip(Y, -32768, 32767)
        inside = (sx >= 0) & (sx < cols) & (sy >= 0) & (sy < rows)
        out = np.where(inside[:, :, None], src[np.clip(sy, 0, rows - 1), np.clip(sx, 0, cols - 1)],
                       fill.astype(np.uint8)[None, None, :])
        return out if img.ndim == 3 else out[:, :, 0]
    k = _TAPS[interp]
    X, Y = _source_coords(m, width, height, _AB_BITS - _INTER_BITS, (1 << _AB_BITS) // _TAB // 2)
    sx = np.clip(X >> _INTER_BITS, -32768, 32767) - (k // 2 - 1)
    sy = np.clip(Y >> _INTER_BITS, -32768, 32767) - (k // 2 - 1)
    w = _weights(interp)[(Y & (_TAB - 1)) * _TAB + (X & (_TAB - 1))]          # (h, w, k * k)
    acc = np.zeros((height, width, cn), np.int64)
    for t in range(k * k):
        ty, tx = sy + t // k, sx + t % k
        inside = (ty >= 0) & (ty < rows) & (tx >= 0) & (tx < cols)
        tap = np.where(inside[:, :, None], src[np.clip(ty, 0, rows - 1), np.clip(tx, 0, cols - 1)], fill[None, None, :])
        acc += tap * w[:, :, t:t + 1]
    out = np.clip((acc + (1 << (_COEF_BITS - 1))) >> _COEF_BITS, 0, 255).astype(np.uint8)
    return out if img.ndim == 3 else out[:, :, 0]
