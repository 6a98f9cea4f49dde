"""OpenCV's ``cv::resize`` rules computed with torch (nearest, bilinear, bicubic, area, Lanczos-4 on HxWxC tensors),
shared by the ``_image_resize`` operator, ``mx.image.imresize`` and the image record iterators."""
import functools
import math
import warnings

import numpy as np
import torch

_COEF_SCALE = 2048.0  # OpenCV's INTER_RESIZE_COEF_SCALE (11 fractional bits) for 8-bit images


def _cubic(fx):
    a = -0.75
    x = fx + 1
    c0 = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    c1 = ((a + 2) * fx - (a + 3)) * fx * fx + 1
    y = 1 - fx
    c2 = ((a + 2) * y - (a + 3)) * y * y + 1
    return np.stack([c0, c1, c2, 1 - c0 - c1 - c2], axis=1).astype(np.float32)


def _lanczos4(fx):
    t = fx[:, None] + 3 - np.arange(8)[None, :]
    w = np.sinc(t) * np.sinc(t / 4)
    w = w / w.sum(axis=1, keepdims=True)
    w[fx < np.finfo(np.float32).eps] = np.eye(8)[3]
    return w.astype(np.float32)


def _area_table(n_in, n_out, scale):
    """OpenCV's pixel-coverage weights for shrinking (computeResizeAreaTab), as a dense (n_out, n_in) matrix."""
    m = np.zeros((n_out, n_in), np.float64)
    for dx in range(n_out):
        f1 = dx * scale
        f2 = f1 + scale
        cell = min(scale, n_in - f1)
        s1, s2 = math.ceil(f1), min(math.floor(f2), n_in - 1)
        s1 = min(s1, s2)
        if s1 - f1 > 1e-3:
            m[dx, s1 - 1] = np.float32((s1 - f1) / cell)
        m[dx, s1:s2] = np.float32(1.0 / cell)
        if f2 - s2 > 1e-3:
            m[dx, s2] = np.float32(min(f2 - s2, 1.0, cell) / cell)
    return m


def _axis_taps(n_in, n_out, interp, area_mode, horizontal=True):
    """Per output pixel: the source indices (clamped to the image) and weights along one axis, as OpenCV computes
    them. OpenCV pins bilinear taps that fall outside the image to the edge pixel along x only; along y it keeps
    the weights and clamps the rows they read."""
    inv_scale = n_out / n_in
    scale = 1.0 / inv_scale
    dx = np.arange(n_out, dtype=np.float64)
    if interp == 0:
        src = np.minimum(np.floor(dx * scale).astype(np.int64), n_in - 1)
        return src[:, None], np.ones((n_out, 1), np.float32)
    if area_mode:
        sx = np.floor(dx * scale)
        fx = ((dx + 1) - (sx + 1) * inv_scale).astype(np.float32)
        fx = np.where(fx <= 0, np.float32(0), fx - np.floor(fx)).astype(np.float32)
    else:
        f = ((dx + 0.5) * scale - 0.5).astype(np.float32)
        sx = np.floor(f)
        fx = (f - sx).astype(np.float32)
    sx = sx.astype(np.int64)
    if interp in (1, 3):
        if horizontal:
            low, high = sx < 0, sx >= n_in - 1
            fx = np.where(low | high, np.float32(0), fx)
            sx = np.where(low, 0, np.where(high, n_in - 1, sx))
        coef, first = np.stack([1 - fx, fx], axis=1).astype(np.float32), 0
    elif interp == 2:
        coef, first = _cubic(fx), -1
    else:
        coef, first = _lanczos4(fx), -3
    idx = np.clip(sx[:, None] + first + np.arange(coef.shape[1])[None, :], 0, n_in - 1)
    return idx, coef


def _dense(idx, coef, n_in):
    m = np.zeros((idx.shape[0], n_in))
    np.add.at(m, (np.repeat(np.arange(idx.shape[0]), idx.shape[1]), idx.ravel()), coef.ravel().astype(np.float64))
    return m


def _csr(m):
    """A (mostly zero) weight matrix as a torch CSR tensor, torch's sparse-times-dense product being the fast
    banded matrix product on every device."""
    with warnings.catch_warnings():  # torch calls its CSR support beta; the product used here is stable
        warnings.simplefilter('ignore', UserWarning)
        return torch.from_numpy(m).to_sparse_csr()


@functools.lru_cache(maxsize=1024)
def _u8_rows(n_in, n_out, interp):
    """The vertical pass of an 8-bit resize: OpenCV's 11-bit fixed-point weights, each tap rounded on its own (a
    row clamping names twice gets both rounded weights), as a (n_out, n_in) matrix, and for bilinear the first two
    taps' rows and int32 weights."""
    idx, coef = _axis_taps(n_in, n_out, interp, interp == 3, horizontal=False)
    beta = np.rint(coef.astype(np.float64) * _COEF_SCALE)
    taps = [(torch.from_numpy(idx[:, k]), torch.from_numpy(beta[:, k:k + 1].astype(np.int32))) for k in range(2)]
    return taps, _csr(_dense(idx, beta, n_in))


@functools.lru_cache(maxsize=1024)
def _u8_columns(n_in, n_out, interp, c):
    """The horizontal pass of an 8-bit resize as a (n_out*c, n_in*c) matrix on interleaved channels: the weights
    of the taps clamping sends to one source pixel are summed, then rounded to 11-bit fixed point."""
    alpha = np.rint(_dense(*_axis_taps(n_in, n_out, interp, interp == 3), n_in) * _COEF_SCALE)
    return _csr(np.kron(alpha, np.eye(c)))


def _resize_u8(t, w, h, interp):
    """8-bit bilinear, bicubic, area (enlarging) and Lanczos-4 in OpenCV's fixed point, as two banded (sparse)
    matrix products in float64: every weight and pixel is an integer and every sum stays below 2**53, so the sums
    are exact integers whatever order the product adds them in. Bicubic and Lanczos round once at the end
    (a linear map, so the vertical pass can go first); bilinear rounds each vertical tap as OpenCV's SSE2 pass
    does, so it needs the horizontal sums first."""
    ih, iw, c = t.shape
    cols = _u8_columns(iw, w, interp, c)
    taps, rows = _u8_rows(ih, h, interp)
    flat = t.reshape(ih, iw * c).to(torch.float64)
    if interp in (1, 3):
        hs = (cols @ flat.T).T.to(torch.int32)  # (ih, w*c) 11-bit fixed point, >= 0
        hs16 = hs >> 4
        (i0, b0), (i1, b1) = taps
        acc = (hs16.index_select(0, i0) * b0) >> 16
        acc += (hs16.index_select(0, i1) * b1) >> 16
        res = (acc + 2) >> 2
    else:
        acc = (cols @ (rows @ flat).T).T  # (h, w*c) in 22-bit fixed point
        res = torch.floor((acc + (1 << 21)) * (1.0 / (1 << 22)))
    return res.clamp_(0, 255).to(torch.uint8).reshape(h, w, c)


def resize_hwc(t, w, h, interp):
    """Resize an HxWxC tensor (uint8, int32, float32 or float64) to h x w like OpenCV."""
    ih, iw, c = t.shape
    if (ih, iw) == (h, w):
        return t.clone()
    if interp == 0:
        ys = torch.from_numpy(_axis_taps(ih, h, 0, False)[0][:, 0])
        xs = torch.from_numpy(_axis_taps(iw, w, 0, False)[0][:, 0])
        return t.index_select(0, ys).index_select(1, xs)
    if interp == 3 and ih >= h and iw >= w:  # shrinking by area: coverage weights, float, rounded at the end
        res = torch.einsum('oh,hwc,pw->opc', torch.from_numpy(_area_table(ih, h, ih / h)), t.to(torch.float64),
                           torch.from_numpy(_area_table(iw, w, iw / w)))
        return _cast_back(res, t.dtype)
    if t.dtype == torch.uint8:
        return _resize_u8(t, w, h, interp)
    yidx, ycoef = _axis_taps(ih, h, interp, interp == 3, horizontal=False)
    mx = _dense(*_axis_taps(iw, w, interp, interp == 3), iw)
    res = torch.einsum('oh,hwc,pw->opc', torch.from_numpy(_dense(yidx, ycoef, ih)), t.to(torch.float64),
                       torch.from_numpy(mx))
    return _cast_back(res, t.dtype)


def _cast_back(res, dtype):
    if dtype in (torch.uint8, torch.int32):
        res = torch.round(res)  # OpenCV's saturate_cast rounds half to even, as torch.round does
        if dtype == torch.uint8:
            res = res.clamp(0, 255)
    return res.to(dtype)
