"""OpenCV's ``cv::resize`` rules computed with torch (nearest, bilinear, bicubic, area, Lanczos-4 on HxWxC tensors),
shared by the ``_image_resize`` operator, ``mx.image.imresize`` and the image record iterators."""
import functools
import math
import threading
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


def _band(idx, coef, n_in):
    """The taps of each output pixel as a band: ``start`` (n_out,) and weights (n_out, width), the weight of column
    ``start[r] + q`` in row r at [r, q]. Clamped taps all lie in ``width`` = min(taps, n_in) consecutive pixels;
    taps naming one pixel are summed in float64 in tap order, as ``_dense`` does."""
    n_out, taps = idx.shape
    width = min(taps, n_in)
    start = np.clip(idx[:, 0], 0, n_in - width)
    weights = np.zeros((n_out, width))
    np.add.at(weights, (np.repeat(np.arange(n_out), taps), (idx - start[:, None]).ravel()),
              coef.astype(np.float64).ravel())
    return start, weights


def _csr(start, weights, n_in, dtype, c=1):
    """A band (``_band``) as a torch CSR matrix (torch's sparse-times-dense product is the fast banded matrix
    product), repeated for ``c`` interleaved channels: row ``r*c+k`` weighs column ``(start[r]+q)*c+k`` by
    ``weights[r, q]``."""
    n_out, width = weights.shape
    k = np.arange(c)[None, :, None]
    cols = (start[:, None, None] + np.arange(width)[None, None, :]) * c + k
    vals = np.broadcast_to(weights[:, None, :], cols.shape)
    with warnings.catch_warnings():  # torch calls its CSR support beta; the product used here is stable
        warnings.simplefilter('ignore', UserWarning)
        return torch.sparse_csr_tensor(torch.arange(0, n_out * c * width + 1, width),
                                       torch.from_numpy(cols.reshape(-1)),
                                       torch.tensor(vals.reshape(-1), dtype=dtype), (n_out * c, n_in * c))


@functools.lru_cache(maxsize=1024)
def _u8_rows(n_in, n_out, interp):
    """The vertical pass of an 8-bit Lanczos resize: OpenCV's 11-bit fixed-point weights, each tap
    rounded on its own (a row clamping names twice gets both rounded weights), as a float32 (n_out, n_in) matrix
    in units of 2**-11."""
    idx, coef = _axis_taps(n_in, n_out, interp, False, horizontal=False)
    start, beta = _band(idx, np.rint(coef.astype(np.float64) * _COEF_SCALE), n_in)
    return _csr(start, beta / _COEF_SCALE, n_in, torch.float32)


@functools.lru_cache(maxsize=1024)
def _u8_linear_taps(n_in, n_out, interp):
    """The vertical pass of an 8-bit bilinear (or enlarging area) resize: per tap, the source rows and OpenCV's
    11-bit fixed-point weights as int32 columns."""
    idx, coef = _axis_taps(n_in, n_out, interp, interp == 3, horizontal=False)
    beta = np.rint(coef.astype(np.float64) * _COEF_SCALE).astype(np.int32)
    return [(torch.from_numpy(idx[:, k]), torch.from_numpy(beta[:, k:k + 1])) for k in range(2)]


@functools.lru_cache(maxsize=1024)
def _u8_columns(n_in, n_out, interp, c):
    """The horizontal pass of an 8-bit resize as a (n_out*c, n_in*c) matrix on interleaved channels: the weights of
    the taps clamping sends to one source pixel are summed, then rounded to 11-bit fixed point. Bilinear gets
    them as float32 integers (it goes first), Lanczos as float64 in units of 2**-11 (second)."""
    start, alpha = _band(*_axis_taps(n_in, n_out, interp, interp == 3), n_in)
    alpha = np.rint(alpha * _COEF_SCALE)
    if interp in (1, 3):
        return _csr(start, alpha, n_in, torch.float32, c)
    return _csr(start, alpha / _COEF_SCALE, n_in, torch.float64, c)


@functools.lru_cache(maxsize=1024)
def _u8_cubic_columns(n_in, n_out, c):
    """The horizontal pass of an 8-bit bicubic resize (it goes first, as OpenCV's): each tap's 11-bit fixed-point
    weight rounded on its own, a border pixel that clamping names twice weighed by both, as float32 integers."""
    idx, coef = _axis_taps(n_in, n_out, 2, False)
    return _csr(*_band(idx, np.rint(coef.astype(np.float64) * _COEF_SCALE), n_in), n_in, torch.float32, c)


@functools.lru_cache(maxsize=1024)
def _u8_cubic_rows(n_in, n_out):
    """The vertical taps of an 8-bit bicubic resize: source rows (h, 4), the 11-bit fixed-point weights as float64
    (h, 4), and those weights times 2**-22 in float32, as OpenCV's vector pass scales them."""
    idx, coef = _axis_taps(n_in, n_out, 2, False, horizontal=False)
    beta = np.rint(coef.astype(np.float64) * _COEF_SCALE)
    scaled = beta.astype(np.float32) * np.float32(1.0 / (_COEF_SCALE * _COEF_SCALE))
    return torch.from_numpy(idx), torch.from_numpy(beta), torch.from_numpy(scaled)


_CUBIC_STEP = 8  # elements of a row OpenCV's vertical bicubic pass takes per vector (v_uint16 lanes with SSE2)


def _resize_u8_cubic(t, w, h):
    """8-bit bicubic as OpenCV computes it: the horizontal pass in exact integers; the vertical pass, for the part of
    each row its vector loop covers, in float32 (VResizeCubicVec_32s8u: four products added from the last tap,
    rounded half to even), and the rest of the row in exact fixed point, (sum + 2**21) >> 22."""
    ih, iw, c = t.shape
    src = _scratch('src', (iw * c, ih), torch.float32).copy_(t.reshape(ih, iw * c).T)
    hs = torch.mm(_u8_cubic_columns(iw, w, c), src, out=_scratch('pass1', (w * c, ih), torch.float32)).T
    idx, beta, scaled = _u8_cubic_rows(ih, h)
    rows = [hs.index_select(0, idx[:, k]) for k in range(4)]
    acc = rows[3] * scaled[:, 3:4]
    for k in (2, 1, 0):
        acc = rows[k] * scaled[:, k:k + 1] + acc
    out = torch.round(acc)
    n = w * c
    vec = n - n % _CUBIC_STEP
    if vec < n:
        exact = sum(rows[k][:, vec:].to(torch.float64) * beta[:, k:k + 1] for k in range(4))
        out[:, vec:] = torch.floor((exact + 2.0 ** 21) / 2.0 ** 22).to(torch.float32)
    return out.clamp_(0, 255).to(torch.uint8).view(h, w, c)


_SCRATCH = threading.local()
_SCRATCH_MAX = 1 << 22  # elements: larger work arrays (a big photo) are not kept after the call


def _scratch(role, shape, dtype):
    """A per-thread work array for ``role``, reused across calls: arrays of a few MB allocated and freed per image
    make the C allocator hand pages back to the system and fault them in again on every call."""
    n = math.prod(shape)
    if n > _SCRATCH_MAX:
        return torch.empty(shape, dtype=dtype)
    held = _SCRATCH.__dict__.setdefault('arrays', {})
    buf = held.get((role, dtype))
    if buf is None or buf.numel() < n:
        buf = held[(role, dtype)] = torch.empty(n, dtype=dtype)
    return buf[:n].view(shape)


def _resize_u8(t, w, h, interp):
    """8-bit bilinear, area (enlarging) and Lanczos-4 in OpenCV's fixed point (bicubic: _resize_u8_cubic), as
    banded (sparse) matrix products. Every weight is an integer (or one times 2**-11) and every pixel an integer,
    so the sums are exact whatever order a product adds them in: a first pass stays below 2**24 * 2**-11 (exact in
    float32), the second below 2**53 (exact in float64). Lanczos rounds once at the end (a linear map, so the
    vertical pass can go first); bilinear rounds each vertical tap as OpenCV's SSE2 pass does, so the horizontal
    sums come first.
    """
    ih, iw, c = t.shape
    if interp == 2:
        return _resize_u8_cubic(t, w, h)
    flat = t.reshape(ih, iw * c)
    if interp in (1, 3):
        src = _scratch('src', (iw * c, ih), torch.float32).copy_(flat.T)
        hs_t = torch.mm(_u8_columns(iw, w, interp, c), src, out=_scratch('pass1', (w * c, ih), torch.float32))
        hs16 = _scratch('hs', (ih, w * c), torch.int32).copy_(hs_t.T) >> 4  # 11-bit fixed point, >= 0
        (i0, b0), (i1, b1) = _u8_linear_taps(ih, h, interp)
        acc = (hs16.index_select(0, i0) * b0) >> 16
        acc += (hs16.index_select(0, i1) * b1) >> 16
        return ((acc + 2) >> 2).clamp_(0, 255).to(torch.uint8).reshape(h, w, c)
    src = _scratch('src', (ih, iw * c), torch.float32).copy_(flat)
    v = torch.mm(_u8_rows(ih, h, interp), src, out=_scratch('pass1', (h, iw * c), torch.float32))
    v_t = _scratch('pass1_t', (iw * c, h), torch.float64).copy_(v.T)
    acc = torch.mm(_u8_columns(iw, w, interp, c), v_t, out=_scratch('pass2', (w * c, h), torch.float64))
    # the weights carry 2**-11 each, so the sums come out in pixel units; adding 0.5 and truncating after the
    # clamp is OpenCV's (sum + 2**21) >> 22
    return acc.add_(0.5).clamp_(0, 255).T.to(torch.uint8, memory_format=torch.contiguous_format).view(h, w, c)


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
    return res.to(dtype).contiguous()  # einsum may hand back a permuted layout
