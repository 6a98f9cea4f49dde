"""mx.gluon.data.vision.transforms against MXNet 1.9.1 on fixed images (goldens: image_cases whose expression uses a
transform, compose_hybrid); random transforms checked by their distributions under fixed seeds."""
import random

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetTypeError, MXNetValueError
from mxcompat.gluon import Block, HybridBlock, nn
from mxcompat.gluon.data.vision import transforms as T
from tests.operator.test_image_ops import assert_image, image_case

from ..golden import ARR, GOLD

I = mx.nd.image  # noqa: E741
CASES = sorted(n for n, (_, expr) in GOLD['image_cases'].items() if expr.startswith('T.'))
RESIZING = ('resize', 'center_crop_up', 'crop_resize_size', 'crop_resize_interp')


@pytest.mark.parametrize('name', CASES)
def test_matches_mxnet(name):
    ours, ref = image_case(name)
    if name == 'compose':  # resized then normalized: one uint8 step (1/255/0.2) on a few pixels
        diff = np.abs(ours.asnumpy() - ref)
        assert ours.shape == ref.shape and diff.max() < 0.0197 and (diff > 1e-5).mean() <= 0.05
        return
    assert_image(ours, ref, close=name.startswith(RESIZING) and 'interp0' not in name)


def test_compose_hybridizes_runs_of_hybrid_blocks():
    c = T.Compose([T.Resize(7), T.CenterCrop(5), T.ToTensor(), T.Normalize(0.5, 0.2), T.RandomApply(T.Cast(), p=1)])
    kinds = [type(b).__name__ for b in c._children.values()]
    assert kinds == ['Resize', 'CenterCrop', 'HybridSequential', 'RandomApply']
    assert c._children['2']._active
    net = T.Compose([T.ToTensor(), T.Normalize(0.3, 0.7)])
    np.testing.assert_array_equal(net(mx.nd.array(ARR['IMG'], dtype='uint8')).asnumpy(), ARR['compose_hybrid'])
    lst = [T.ToTensor()]
    T.Compose(lst)
    assert len(lst) == 1  # MXNet appends None to the caller's list


@pytest.mark.parametrize('name', ['resize_interp2', 'resize_batch', 'crop_resize_size', 'cast'])
def test_hybridized_transform_matches_eager(name):
    src, expr = GOLD['image_cases'][name]
    x = mx.nd.array(ARR[src], dtype=ARR[src].dtype)
    block = eval(expr[:expr.rindex('(x)')])  # noqa: S307
    eager = block(x).asnumpy()
    block.hybridize()
    np.testing.assert_array_equal(block(x).asnumpy(), eager)
    np.testing.assert_array_equal(block(x).asnumpy(), eager)


def test_transforms_are_blocks():
    for cls in (T.Cast, T.ToTensor, T.Normalize, T.Resize, T.RandomFlipLeftRight, T.RandomFlipTopBottom,
                T.RandomColorJitter, T.CropResize):
        assert issubclass(cls, HybridBlock)
    for cls in (T.CenterCrop, T.RandomResizedCrop, T.Rotate, T.RandomRotation):
        assert issubclass(cls, Block) and not issubclass(cls, HybridBlock)
    assert issubclass(T.Compose, nn.Sequential) and issubclass(T.RandomApply, nn.Sequential)
    for cls in (T.RandomBrightness, T.RandomContrast, T.RandomSaturation, T.RandomHue, T.RandomLighting):
        assert issubclass(cls, HybridBlock)


def test_in_a_dataloader_with_workers():
    ds = mx.gluon.data.ArrayDataset(mx.nd.array(np.stack([ARR['IMG']] * 4), dtype='uint8'), list(range(4)))
    tf = T.Compose([T.Resize((5, 4)), T.ToTensor()])
    batches = list(mx.gluon.data.DataLoader(ds.transform_first(tf), batch_size=2, num_workers=2))
    ref = T.ToTensor()(T.Resize((5, 4))(mx.nd.array(ARR['IMG'], dtype='uint8'))).asnumpy()
    assert batches[0][0].shape == (2, 3, 4, 5)
    np.testing.assert_array_equal(batches[1][0].asnumpy()[1], ref)


# ---- random transforms ---------------------------------------------------------------------------------------------
def _draws(block, x, n, seed=0):
    torch.manual_seed(seed)
    return [block(x).asnumpy() for _ in range(n)]


def test_random_flips():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    for block, axis in ((T.RandomFlipLeftRight(), 1), (T.RandomFlipTopBottom(), 0)):
        outs = _draws(block, x, 200)
        flipped = sum(np.array_equal(o, np.flip(ARR['IMG'], axis)) for o in outs)
        assert flipped + sum(np.array_equal(o, ARR['IMG']) for o in outs) == 200 and 65 < flipped < 135


def test_random_brightness_range():
    ratios = [o.flat[0] / ARR['FIMG'].flat[0] for o in _draws(T.RandomBrightness(0.4), mx.nd.array(ARR['FIMG']),
                                                                  200)]
    assert 0.6 - 1e-5 <= min(ratios) < 0.65 and 1.35 < max(ratios) <= 1.4 + 1e-5


def test_random_factor_transforms_without_amount_are_mxnets_factor_one():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    np.testing.assert_array_equal(T.RandomBrightness(0)(x).asnumpy(), ARR['IMG'])
    np.testing.assert_array_equal(T.RandomContrast(0)(x).asnumpy(), ARR['IMG'])
    np.testing.assert_array_equal(T.RandomHue(0)(x).asnumpy(), ARR['img_hue_IMG_1'])  # factor 1: a full turn
    np.testing.assert_array_equal(T.RandomSaturation(0)(x).asnumpy(), I.random_saturation(x, 1.0, 1.0).asnumpy())
    np.testing.assert_array_equal(T.RandomColorJitter()(x).asnumpy(), ARR['IMG'])
    np.testing.assert_array_equal(T.RandomLighting(0)(x).asnumpy(), ARR['IMG'])


def test_random_saturation_and_contrast_vary():
    x = mx.nd.array(ARR['FIMG'])
    for block in (T.RandomSaturation(0.5), T.RandomContrast(0.5), T.RandomHue(0.2), T.RandomLighting(0.1),
                  T.RandomColorJitter(0.2, 0.2, 0.2, 0.1)):
        outs = _draws(block, x, 4)
        assert len({o.tobytes() for o in outs}) == 4, type(block).__name__


def test_random_resized_crop():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    random.seed(0)
    shapes = {T.RandomResizedCrop((4, 3))(x).shape for _ in range(20)}
    assert shapes == {(3, 4, 3)}
    random.seed(1)
    a = T.RandomResizedCrop(5, scale=(0.3, 0.6))(x).asnumpy()
    random.seed(1)
    np.testing.assert_array_equal(T.RandomResizedCrop(5, scale=(0.3, 0.6))(x).asnumpy(), a)
    whole = T.RandomResizedCrop((8, 6), scale=(1, 1), ratio=(8 / 6, 8 / 6))(x)
    np.testing.assert_array_equal(whole.asnumpy(), ARR['IMG'])  # the whole image, not resized


def test_random_apply():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    assert T.RandomApply(T.Cast(), p=0)(x).dtype == np.uint8
    assert T.RandomApply(T.Cast(), p=1)(x).dtype == np.float32
    random.seed(0)
    n = sum(T.RandomApply(T.Cast(), p=0.3)(x).dtype == np.float32 for _ in range(300))
    assert 60 < n < 120


def test_rotate():
    x = T.ToTensor()(mx.nd.array(ARR['IMG'][:, :6], dtype='uint8'))
    np.testing.assert_allclose(T.Rotate(0)(x).asnumpy(), x.asnumpy(), atol=1e-6)
    assert T.Rotate(30, zoom_in=True)(x).shape == x.shape
    with pytest.raises(MXNetTypeError, match='only supports float32'):
        T.Rotate(10)(mx.nd.ones((3, 4, 4), dtype='uint8'))
    assert T.RandomRotation((10, 20), rotate_with_proba=0)(x) is x
    assert T.RandomRotation((10, 20))(x).shape == x.shape
    with pytest.raises(MXNetValueError, match='ordered tuple'):
        T.RandomRotation((10, 5))
    with pytest.raises(MXNetValueError, match='between 0 and 1'):
        T.RandomRotation((1, 5), rotate_with_proba=2)
