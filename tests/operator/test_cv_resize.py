"""operator/_cv_resize.py: the 8-bit banded-product resize against OpenCV's fixed-point arithmetic written out
densely in int64 (numpy), and the layout of what every path returns. Goldens from OpenCV itself are in
tests/image/test_image.py (test_imresize_matches_opencv) and tests/operator/test_image_ops.py."""
import os
import threading

import numpy as np
import pytest
import torch

from mxcompat.operator import _cv_resize as R


def _reference_u8(a, w, h, interp):
    """OpenCV's 8-bit resize with dense weight matrices: 11-bit horizontal weights (taps clamped to one pixel
    summed, then rounded; bicubic: each tap rounded), then the vertical taps, rounded per tap (SSE2 bilinear) or
    once (Lanczos); bicubic: see _reference_u8_cubic."""
    if interp == 2:
        return _reference_u8_cubic(a, w, h)
    ih, iw, c = a.shape
    alpha = np.rint(R._dense(*R._axis_taps(iw, w, interp, interp == 3), iw) * 2048).astype(np.int64)
    hs = np.einsum('hwc,pw->hpc', a.astype(np.int64), alpha).reshape(ih, w * c)
    yidx, ycoef = R._axis_taps(ih, h, interp, interp == 3, horizontal=False)
    beta = np.rint(ycoef.astype(np.float64) * 2048).astype(np.int64)
    if interp in (1, 3):
        acc = ((hs[yidx[:, 0]] >> 4) * beta[:, :1]) >> 16
        acc += ((hs[yidx[:, 1]] >> 4) * beta[:, 1:]) >> 16
        res = (acc + 2) >> 2
    else:
        res = ((hs[yidx] * beta[:, :, None]).sum(axis=1) + (1 << 21)) >> 22
    return np.clip(res, 0, 255).astype(np.uint8).reshape(h, w, c)


def _reference_u8_cubic(a, w, h, step=8):
    """OpenCV's 8-bit bicubic (MXNet 1.9.1's cv::resize, INTER_CUBIC), written out: horizontal taps each rounded to
    11 bits, clamped ones weighing the border pixel once each, in int64; vertically, the first columns of each row
    that the vector loop (VResizeCubicVec_32s8u, ``step`` lanes) covers in float32 (int sums times beta * 2**-22,
    added from the last tap, rounded half to even), the rest in fixed point ((sum + 2**21) >> 22)."""
    ih, iw, c = a.shape
    xidx, xcoef = R._axis_taps(iw, w, 2, False)
    alpha = np.rint(xcoef.astype(np.float64) * 2048).astype(np.int64)
    hs = sum(a[:, xidx[:, k], :].astype(np.int64) * alpha[None, :, k:k + 1] for k in range(4)).reshape(ih, w * c)
    yidx, ycoef = R._axis_taps(ih, h, 2, False, horizontal=False)
    beta = np.rint(ycoef.astype(np.float64) * 2048).astype(np.int64)
    scaled = beta.astype(np.float32) * np.float32(2.0 ** -22)
    rows = [hs[yidx[:, k]] for k in range(4)]
    acc = rows[3].astype(np.float32) * scaled[:, 3:4]
    for k in (2, 1, 0):
        acc = (rows[k].astype(np.float32) * scaled[:, k:k + 1]).astype(np.float32) + acc
    res = np.rint(acc).astype(np.int64)
    vec = w * c - (w * c) % step
    res[:, vec:] = (sum(rows[k][:, vec:] * beta[:, k:k + 1] for k in range(4)) + (1 << 21)) >> 22
    return np.clip(res, 0, 255).astype(np.uint8).reshape(h, w, c)


def test_u8_bicubic_matches_mxnet():
    # MXNet 1.9.1's mx.image.imresize(interp=2) of these images (tests/fixtures/cv_resize/gen_cubic.py), bit-exact
    gold = np.load(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'cv_resize', 'cubic_u8.npz'))
    rng = np.random.RandomState(0)
    for i, (shape, (w, h)) in enumerate(CUBIC_CASES):
        a = rng.randint(0, 256, size=shape).astype(np.uint8)
        np.testing.assert_array_equal(R.resize_hwc(torch.from_numpy(a), w, h, 2).numpy(), gold['c%d' % i])
        np.testing.assert_array_equal(_reference_u8_cubic(a, w, h), gold['c%d' % i])


CUBIC_CASES = [((37, 53, 3), (24, 19)), ((64, 80, 3), (45, 33)), ((50, 50, 1), (37, 29)), ((20, 30, 3), (61, 47)),
               ((100, 90, 3), (31, 77)), ((33, 41, 1), (5, 7)), ((48, 64, 3), (16, 12)),
               ((300, 200, 3), (224, 150))]


def _cases(seed, n):
    rng = np.random.RandomState(seed)
    sizes = [1, 2, 3, 4, 5, 7, 9, 16, 31, 64, 100, 150, 224, 256]
    for _ in range(n):
        ih, iw, h, w = (int(rng.choice(sizes)) for _ in range(4))
        interp = int(rng.choice([1, 2, 3, 4]))
        if interp == 3 and ih >= h and iw >= w:
            h, w = ih + 1, iw + 3  # shrinking by area takes another path; enlarge instead
        yield rng.randint(0, 256, size=(ih, iw, int(rng.choice([1, 3, 4])))).astype(np.uint8), w, h, interp


@pytest.mark.parametrize('interp', [1, 2, 3, 4])
def test_u8_matches_dense_fixed_point(interp):
    rng = np.random.RandomState(interp)
    for ih, iw in [(150, 170), (256, 90), (7, 300), (1, 1), (2, 5), (224, 224 + 1)]:
        a = rng.randint(0, 256, size=(ih, iw, 3)).astype(np.uint8)
        a[::7] = 255  # saturated rows: overshooting bicubic/Lanczos sums must clamp
        a[3::11] = 0
        if interp == 3 and ih >= 224 and iw >= 224:
            continue
        out = R.resize_hwc(torch.from_numpy(a), 224, 224, interp)
        np.testing.assert_array_equal(out.numpy(), _reference_u8(a, 224, 224, interp))


def test_u8_random_shapes_match_dense_fixed_point():
    for a, w, h, interp in _cases(0, 80):
        if (a.shape[0], a.shape[1]) == (h, w):
            continue
        out = R.resize_hwc(torch.from_numpy(a), w, h, interp)
        np.testing.assert_array_equal(out.numpy(), _reference_u8(a, w, h, interp),
                                      err_msg='%s -> %dx%d interp %d' % (a.shape, h, w, interp))


def test_window_views_and_results_are_contiguous():
    big = torch.from_numpy(np.random.RandomState(1).randint(0, 256, size=(60, 70, 3)).astype(np.uint8))
    window = big[5:41, 9:50]  # a crop: a strided view, as fixed_crop hands it over
    for dtype in (torch.uint8, torch.int32, torch.float32, torch.float64):
        src = window.to(dtype) if dtype != torch.uint8 else window
        for interp in range(5):
            if dtype == torch.int32 and interp:
                continue
            for w, h in ((80, 50), (20, 10), (41, 36)):
                out = R.resize_hwc(src, w, h, interp)
                assert out.shape == (h, w, 3) and out.dtype == dtype and out.is_contiguous()
                if dtype == torch.uint8 and interp and (interp != 3 or (h, w) == (50, 80)) and (h, w) != (36, 41):
                    np.testing.assert_array_equal(out.numpy(), _reference_u8(window.numpy(), w, h, interp))


def test_threads_do_not_share_work_arrays():
    rng = np.random.RandomState(2)
    imgs = [rng.randint(0, 256, size=(int(rng.randint(20, 120)), int(rng.randint(20, 120)), 3)).astype(np.uint8)
            for _ in range(12)]
    want = [_reference_u8(a, 64, 48, 2) for a in imgs]
    errors = []

    def work():
        for _ in range(5):
            for a, ref in zip(imgs, want):
                if not np.array_equal(R.resize_hwc(torch.from_numpy(a), 64, 48, 2).numpy(), ref):
                    errors.append(a.shape)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_large_work_arrays_are_not_kept(monkeypatch):
    monkeypatch.setattr(R, '_SCRATCH_MAX', 8000)  # the 40x150 input fits, the 60x150 and 210x60 passes do not
    monkeypatch.setattr(R, '_SCRATCH', threading.local())
    a = np.random.RandomState(3).randint(0, 256, size=(40, 50, 3)).astype(np.uint8)
    out = R.resize_hwc(torch.from_numpy(a), 70, 60, 2)
    np.testing.assert_array_equal(out.numpy(), _reference_u8(a, 70, 60, 2))
    held = getattr(R._SCRATCH, 'arrays', {})
    assert [(role, buf.numel()) for (role, _), buf in held.items()] == [('src', 40 * 50 * 3)]
