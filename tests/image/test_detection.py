"""mxcompat.image.detection: ImageDetIter and the detection augmenters.

References: MXNet 1.9.1's answers to the scenarios of tests/fixtures/image_det/scenarios.py (goldens.npz, made by
gen_image_det.py under the oracle), seeded so that the random augmenters must make MXNet's exact choices; and
invariants of the random crop and pad checked over many draws.
"""
import builtins
import pathlib
import random
import sys
import tempfile

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'image_det'
sys.path.insert(0, str(FIX))
import scenarios  # noqa: E402

GOLD = np.load(FIX / 'goldens.npz')
ROOT = str(FIX / 'images')

# MXNet's error class names and the mxcompat classes that must be (subclasses of) them
KINDS = {'TypeError': TypeError, 'ValueError': ValueError, 'RuntimeError': RuntimeError,
         'AssertionError': AssertionError, 'NotImplementedError': NotImplementedError}
# where mxcompat's message is deliberately its own: MXNet's says nothing useful (an empty assert, a crash inside
# warnings.warn) or is numpy/NDArray broadcasting wording
OWN_MESSAGE = ('', "category must be a Warning subclass, not 'tuple'")
OWN_MESSAGE_PREFIX = ('operands could not be broadcast together',)
# outputs that went through a uint8 resize other than nearest (OpenCV's SIMD rounding: at most 1 apart), then
# colour steps and normalization by std ~1
APPROX = {'iter_seeded_full/color_data0', 'iter_seeded_full/color_data1', 'iter_seeded_full/color_data2'}
# a scalar pad_val: MXNet leaves the border's other channels undefined, mxcompat fills them with 0
SCALAR_PAD = 'pads/img_2_'


ERROR_KEYS = {'errors', 'shape_errors', 'sync_errors', 'ctor', 'mixed_next', 'reshaped_data_next'}


def _check_error(ours, ref, key):
    kind, _, ref_msg = ref.partition(': ')
    our_kind, _, our_msg = ours.partition(': ')
    our_class = getattr(mx.base, our_kind, None) or getattr(builtins, our_kind)
    assert issubclass(our_class, KINDS[kind]), (key, ours, ref)
    if ref_msg in OWN_MESSAGE or ref_msg.startswith(OWN_MESSAGE_PREFIX):
        assert our_msg, key  # ours always says what went wrong
    else:
        assert our_msg == ref_msg, key


def _compare(ours, key):
    ref = GOLD[key]
    ours = np.asarray(ours)
    if key.split('/')[1] in ERROR_KEYS:
        assert ours.shape == ref.shape, key
        for o, r in zip(np.atleast_1d(ours).tolist(), np.atleast_1d(ref).tolist()):
            _check_error(o, r, key)
        return
    if ref.dtype.kind == 'U':
        assert str(ours) == str(ref), key
        return
    assert ours.shape == ref.shape and ours.dtype == ref.dtype, (key, ours.shape, ref.shape, ours.dtype, ref.dtype)
    if key in APPROX:
        np.testing.assert_allclose(ours, ref, atol=1.01, err_msg=key)
        assert np.mean(np.abs(ours - ref) > 1e-3) < 0.05, key
    elif key.startswith(SCALAR_PAD):
        np.testing.assert_array_equal(ours[..., 0], ref[..., 0], err_msg=key)
    else:
        np.testing.assert_array_equal(ours, ref, err_msg=key)


@pytest.mark.parametrize('scenario', scenarios.SCENARIOS, ids=lambda s: s.__name__)
def test_matches_mxnet(scenario, tmp_path):
    extra = (str(FIX),) if scenario is scenarios.iter_rec else ()
    with np.errstate(invalid='ignore', divide='ignore'):  # MXNet's own 0/0 for an inverted box
        res = scenario(mx, ROOT, str(tmp_path), *extra)
    name = scenario.__name__
    keys = sorted(k.split('/', 1)[1] for k in GOLD.files if k.startswith(name + '/'))
    assert sorted(res) == keys
    for k in keys:
        _compare(res[k], name + '/' + k)


def test_our_recordio_writes_the_same_rec(tmp_path):
    sys.path.insert(0, str(FIX))
    import gen_image_det
    gen_image_det.write_rec(mx, str(tmp_path))
    for name in ('det.rec', 'det.idx'):
        assert (tmp_path / name).read_bytes() == (FIX / name).read_bytes(), name


def test_scalar_pad_val_fills_first_channel_only():
    img = mx.nd.ones((4, 5, 3), dtype='uint8')
    random.seed(0)
    out, _ = mx.image.DetRandomPadAug(area_range=(2.0, 3.0), pad_val=9)(img, np.array([[0, .1, .1, .9, .9]]))
    border = out.asnumpy()[0, 0]
    assert border.tolist() == [9, 0, 0]


# ---- invariants over many draws -----------------------------------------------------------------------------------
def _box_image(h, w, boxes):
    """An HxWx3 uint8 image, 0 except 255 inside each box (given in pixels), and its normalized label."""
    img = np.zeros((h, w, 3), np.uint8)
    label = []
    for cls, (x0, y0, x1, y1) in enumerate(boxes):
        img[y0:y1, x0:x1] = 255
        label.append([cls, x0 / w, y0 / h, x1 / w, y1 / h])
    return img, np.array(label, np.float32)


def _covered(img, row):
    """The share of the label box's pixels (in the output image) that are painted."""
    h, w, _ = img.shape
    x0, y0, x1, y1 = (int(round(v)) for v in (row[1] * w, row[2] * h, row[3] * w, row[4] * h))
    patch = img[y0:y1, x0:x1, 0]
    return (patch == 255).mean() if patch.size else 0.0


def test_random_crop_invariants():
    h, w = 40, 50
    img, label = _box_image(h, w, [(5, 5, 20, 25), (25, 10, 45, 35)])
    aug = mx.image.DetRandomCropAug(min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0), area_range=(0.2, 0.9),
                                    min_eject_coverage=0.4)
    cropped = 0
    for seed in range(60):
        random.seed(seed)
        found = aug._random_crop_proposal(label, h, w)
        random.seed(seed)
        out, new = aug(mx.nd.array(img, dtype='uint8'), label.copy())
        if not found:
            assert out.shape == img.shape and np.array_equal(new, label)
            continue
        cropped += 1
        x, y, cw, ch, lab = found
        assert 0.2 * h * w <= cw * ch <= 0.9 * h * w
        assert 0.5 - 1.0 / ch <= cw / ch <= 2.0 + 1.0 / ch  # the ratio up to rounding of the width
        assert 0 <= x and x + cw <= w and 0 <= y and y + ch <= h
        np.testing.assert_array_equal(out.asnumpy(), img[y:y + ch, x:x + cw])
        np.testing.assert_array_equal(new, lab)
        assert new.shape[0] >= 1 and new.dtype == np.float32
        assert (new[:, 1:5] >= 0).all() and (new[:, 1:5] <= 1).all()
        assert (new[:, 3] > new[:, 1]).all() and (new[:, 4] > new[:, 2]).all()
        for row in new:  # each kept box is where its pixels went, and kept enough of itself
            orig = label[int(row[0])]
            assert _covered(out.asnumpy(), row) > 0.9
            kept = (row[3] - row[1]) * (row[4] - row[2]) * cw * ch
            assert kept / ((orig[3] - orig[1]) * (orig[4] - orig[2]) * w * h) > 0.4
    assert cropped > 30


def test_random_pad_invariants():
    h, w = 20, 30
    img, label = _box_image(h, w, [(3, 4, 12, 15), (15, 2, 28, 18)])
    aug = mx.image.DetRandomPadAug(aspect_ratio_range=(0.6, 1.8), area_range=(1.2, 3.0), pad_val=(7, 7, 7))
    padded = 0
    for seed in range(40):
        random.seed(seed)
        out, new = aug(mx.nd.array(img, dtype='uint8'), label.copy())
        out = out.asnumpy()
        if out.shape == img.shape:
            continue
        padded += 1
        ph, pw, _ = out.shape
        assert ph - h >= 2 and pw - w >= 2 and ph * pw <= 3.0 * h * w + pw
        assert (new[:, 1:5] >= 0).all() and (new[:, 1:5] <= 1).all()
        y, x = int(round(new[0, 2] * ph - label[0, 2] * h)), int(round(new[0, 1] * pw - label[0, 1] * w))
        np.testing.assert_array_equal(out[y:y + h, x:x + w], img)
        assert (out == 7).sum() == 3 * (ph * pw - h * w)
        for row in new:
            assert _covered(out, row) > 0.9
    assert padded > 20


def test_flip_moves_boxes_with_pixels():
    img, label = _box_image(10, 16, [(2, 1, 6, 8)])
    out, new = mx.image.DetHorizontalFlipAug(1.0)(mx.nd.array(img, dtype='uint8'), label)
    assert new is label  # changed in place, as in MXNet
    assert _covered(out.asnumpy(), new[0]) == 1.0
    np.testing.assert_allclose(new[0, [1, 3]], [1 - 6 / 16, 1 - 2 / 16], rtol=1e-6)


def test_crop_takes_ndarray_labels():
    img, label = _box_image(20, 20, [(2, 2, 18, 18)])
    random.seed(1)
    out, new = mx.image.DetRandomCropAug(area_range=(0.5, 1.0))(mx.nd.array(img, dtype='uint8'), mx.nd.array(label))
    assert isinstance(new, np.ndarray) and new.shape[1] == 5


# ---- errors, names and the rest -----------------------------------------------------------------------------------
def test_names_and_modules():
    assert mx.image.det is mx.image.detection
    for name in mx.image.detection.__all__:
        assert getattr(mx.image, name) is getattr(mx.image.detection, name)
    assert not isinstance(mx.image.DetHorizontalFlipAug(0.5), mx.image.Augmenter)
    with pytest.raises(AttributeError):
        mx.image.no_such_name


def test_invalid_ranges_raise_clear_errors():
    with pytest.raises(MXNetTypeError, match='area_range'):
        mx.image.DetRandomCropAug(area_range=(0.5, 0.1))
    with pytest.raises(MXNetTypeError, match='aspect_ratio_range'):
        mx.image.DetRandomPadAug(aspect_ratio_range=(-1, 1))
    with pytest.raises(AssertionError, match='pad_val'):
        mx.image.DetRandomPadAug(pad_val='x')
    with pytest.raises(AssertionError, match='aspect ratio'):
        mx.image.DetRandomCropAug(aspect_ratio_range='x')


def test_empty_source_and_draw_next(monkeypatch):
    with pytest.raises(MXNetValueError, match='no images'):
        mx.image.ImageDetIter(1, (3, 8, 8), imglist=[], path_root=ROOT)
    it = mx.image.ImageDetIter(1, (3, 8, 8), imglist=scenarios.imglist(), path_root=ROOT)
    monkeypatch.setitem(sys.modules, 'cv2', None)
    with pytest.raises(ImportError, match='opencv'):
        next(it.draw_next())


def test_draw_next_with_opencv():
    pytest.importorskip('cv2')
    it = mx.image.ImageDetIter(1, (3, 8, 8), imglist=scenarios.imglist(), path_root=ROOT)
    images = list(it.draw_next(color=(255, 0, 0), id2labels={0: 'cat'}))
    assert len(images) == len(scenarios.IMAGES) and images[0].dtype == np.uint8 and images[0].shape == (8, 8, 3)


def test_broken_sample_is_skipped_or_named():
    lst = scenarios.imglist()[:2]
    it = mx.image.ImageDetIter(2, (3, 8, 8), imglist=lst, path_root=ROOT, aug_list=[])
    it.auglist = [mx.image.DetBorrowAug(mx.image.ForceResizeAug((8, 8), 0))]
    with tempfile.TemporaryDirectory() as tmp:
        bad = pathlib.Path(tmp) / 'bad.png'
        bad.write_bytes(b'not an image')
        broken = mx.image.ImageDetIter(1, (3, 8, 8), imglist=[scenarios.raw_label(0) + [str(bad)]], path_root='')
        with pytest.raises(RuntimeError, match='Broken image'):
            broken.next()
    batch = it.next()
    assert batch.label[0].shape == (2, 3, 6) and batch.label[0].asnumpy()[0, 2].tolist() == [-1] * 6
    with pytest.raises(MXNetError):
        it._parse_label(mx.nd.array([2, 5, 1, 2]))
