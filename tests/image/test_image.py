"""mxcompat.image: decoding (Pillow), OpenCV-style resizing, crops, augmenters and ImageIter.

References: MXNet 1.9.1 outputs in tests/fixtures/recordio (decoded.npz, resize.npz; see gen_recordio.py), numpy and
scipy for the rest.
"""
import json
import pathlib
import random
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'recordio'
IMAGES = sorted((FIX / 'images').iterdir())
DEC = np.load(FIX / 'decoded.npz')
RES = np.load(FIX / 'resize.npz')
GOLD = json.loads((FIX / 'recordio.json').read_text())


@pytest.mark.parametrize('to_rgb', [0, 1])
@pytest.mark.parametrize('flag', [0, 1])
@pytest.mark.parametrize('path', IMAGES, ids=lambda p: p.name)
def test_imdecode_matches_mxnet(path, flag, to_rgb):
    out = mx.image.imdecode(path.read_bytes(), flag=flag, to_rgb=to_rgb)
    ref = DEC['imdecode_%s_%d_%d' % (path.name, flag, to_rgb)]
    assert out.dtype == np.uint8 and out.shape == ref.shape
    if path.suffix == '.jpg':  # same libjpeg-turbo algorithms; another build may round a few pixels differently
        assert np.abs(out.asnumpy().astype(int) - ref).max() <= 3
    else:
        np.testing.assert_array_equal(out.asnumpy(), ref)


def test_imdecode_inputs_and_imread():
    path = FIX / 'images' / 'rgb.png'
    data = path.read_bytes()
    ref = mx.image.imdecode(data).asnumpy()
    np.testing.assert_array_equal(mx.image.imdecode(bytearray(data)).asnumpy(), ref)
    np.testing.assert_array_equal(mx.image.imdecode(np.frombuffer(data, np.uint8)).asnumpy(), ref)
    np.testing.assert_array_equal(mx.image.imdecode(mx.nd.array(np.frombuffer(data, np.uint8).copy(), dtype="uint8"))
                                  .asnumpy(), ref)
    np.testing.assert_array_equal(mx.img.image.imread(str(path)).asnumpy(), ref)
    np.testing.assert_array_equal(mx.image.imread(str(path), 0).asnumpy(), mx.image.imdecode(data, 0).asnumpy())
    out = mx.nd.zeros(ref.shape, dtype='uint8')
    assert mx.image.imdecode(data, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), ref)


def test_imdecode_errors():
    assert GOLD['errors'] == {'empty': 'MXNetError', 'garbage': 'MXNetError', 'str': 'ValueError',
                              'imread_missing': 'MXNetError'}
    with pytest.raises(MXNetError, match='empty buffer'):
        mx.image.imdecode(b'', to_rgb=0)
    with pytest.raises(MXNetError, match='Invalid image file'):
        mx.image.imdecode(b'clearly not image content')
    with pytest.raises(ValueError, match='buf must be of type bytes'):
        mx.image.imdecode('abc')
    with pytest.raises(MXNetError, match="couldn't open file"):
        mx.image.imread('/139810923jadjsajlskd.___adskj/blah.jpg')
    with pytest.raises(MXNetTypeError, match='uint8'):
        mx.image.imdecode(mx.nd.array([1, 2, 3]))
    with pytest.raises(MXNetValueError, match='flag'):
        mx.image.imdecode((FIX / 'images' / 'rgb.png').read_bytes(), flag=-1)


def test_pillow_missing_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, 'PIL', None)
    with pytest.raises(ImportError, match='pip install pillow'):
        mx.image.imdecode(b'abc')


def _resize_cases():
    return sorted(k for k in RES.files if k.startswith(('u8_', 'f32_')))


@pytest.mark.parametrize('key', _resize_cases())
def test_imresize_matches_opencv(key):
    kind, interp, wh = key.split('_')
    w, h = map(int, wh.split('x'))
    src = mx.nd.array(RES['src8'], dtype='uint8') if kind == 'u8' else mx.nd.array(RES['srcf'])
    out = mx.image.imresize(src, w, h, interp=int(interp))
    ref = RES[key]
    assert out.shape == ref.shape == (h, w, 3) and out.dtype == ref.dtype
    diff = np.abs(out.asnumpy().astype(np.float64) - ref)
    if kind == 'f32':
        assert diff.max() < 1e-3
    elif interp in ('0', '1', '2', '3'):
        assert diff.max() == 0  # nearest, bilinear and bicubic (incl. OpenCV's vector rounding) and area: bit-exact
    else:  # Lanczos-4: OpenCV rounds a few border pixels one step differently
        assert diff.max() <= 1 and (diff > 0).mean() < 0.05


def test_resize_short_copy_make_border_and_out():
    src8 = mx.nd.array(RES['src8'], dtype='uint8')
    short = mx.image.resize_short(src8, 12).asnumpy().astype(int)  # bicubic, as OpenCV's
    assert short.shape == RES['short_u8'].shape and np.abs(short - RES['short_u8']).max() == 0
    srcf = mx.nd.array(RES['srcf'])
    for t in range(5):
        out = mx.image.copyMakeBorder(srcf, 2, 3, 4, 1, type=t, values=[1, 2, 3])
        np.testing.assert_allclose(out.asnumpy(), RES['border'][t])
    out = mx.nd.zeros((5, 7, 3), dtype='uint8')
    assert mx.image.imresize(src8, 7, 5, interp=1, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), RES['u8_1_7x5'])
    with pytest.raises(MXNetValueError, match='_cvimresize'):
        mx.image.imresize(src8, 0, 5)
    with pytest.raises(MXNetValueError, match='interpolation'):
        mx.image.imresize(src8, 4, 5, interp=7)
    with pytest.raises(MXNetTypeError, match='float16'):
        mx.image.imresize(srcf.astype('float16'), 4, 5)


def test_copy_make_border_isolated_flag_and_scalar_values():
    # MXNet 1.9.1 (checked under the oracle): 16 is OpenCV's BORDER_ISOLATED flag, 16 = constant, 17 = replicate;
    # a scalar `values` is the first channel's value
    img = mx.nd.ones((1, 1, 3), dtype='uint8')
    assert mx.image.copyMakeBorder(img, 1, 0, 0, 0, type=16, values=5).asnumpy()[0, 0].tolist() == [5, 0, 0]
    assert mx.image.copyMakeBorder(img, 1, 0, 0, 0, type=16, values=(9, 8)).asnumpy()[0, 0].tolist() == [9, 8, 0]
    assert mx.image.copyMakeBorder(img, 1, 0, 0, 0, type=16, value=4).asnumpy()[0, 0].tolist() == [4, 4, 4]
    assert mx.image.copyMakeBorder(img * 3, 1, 0, 0, 0, type=17).asnumpy()[:, 0].tolist() == [[3, 3, 3]] * 2


def test_scale_down_and_crops():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    assert mx.image.scale_down((300, 400), (0, 0)) == (0, 0)
    src = mx.nd.array(np.arange(10 * 12 * 3).reshape(10, 12, 3))
    out, box = mx.image.center_crop(src, (6, 4))
    assert box == (3, 3, 6, 4)
    np.testing.assert_array_equal(out.asnumpy(), src.asnumpy()[3:7, 3:9])
    out = mx.image.fixed_crop(src, 1, 2, 4, 3)
    np.testing.assert_array_equal(out.asnumpy(), src.asnumpy()[2:5, 1:5])
    assert mx.image.fixed_crop(src, 1, 2, 4, 3, size=(8, 6)).shape == (6, 8, 3)
    random.seed(3)
    out, (x0, y0, w, h) = mx.image.random_crop(src, (5, 5))
    np.testing.assert_array_equal(out.asnumpy(), src.asnumpy()[y0:y0 + 5, x0:x0 + 5])
    out, box = mx.image.center_crop(src, (24, 20))  # larger than the image: scaled down then resized up
    assert box == (0, 0, 12, 10) and out.shape == (20, 24, 3)
    for seed in range(20):
        random.seed(seed)
        out, (x0, y0, w, h) = mx.image.random_size_crop(src, (6, 6), 0.3, (0.75, 1.33))
        assert out.shape == (6, 6, 3)
        if (x0, y0, w, h) != mx.image.center_crop(src, (6, 6))[1]:
            assert 0.7 <= w / h <= 1.4 and x0 + w <= 12 and y0 + h <= 10


def test_color_normalize_in_place():
    rng = np.random.RandomState(0)
    src = rng.rand(5, 6, 3) * 255
    mean, std = rng.rand(3) * 255, rng.rand(3) + 1
    x = mx.nd.array(src)
    out = mx.image.color_normalize(x, mx.nd.array(mean), mx.nd.array(std))
    assert out is x
    np.testing.assert_allclose(out.asnumpy(), (src - mean) / std, rtol=1e-4, atol=1e-3)
    aug = mx.image.ColorNormalizeAug(mean=mx.nd.array(mean), std=std)
    np.testing.assert_allclose(aug(mx.nd.array(src)).asnumpy(), (src - mean) / std, rtol=1e-4, atol=1e-3)


def test_augmenter_dumps_match_mxnet():
    augs = mx.image.CreateAugmenter((3, 4, 4), resize=5, rand_crop=True, rand_mirror=True, mean=True, std=True,
                                    brightness=0.1, hue=0.1, pca_noise=0.1, rand_gray=0.1)
    assert [type(a).__name__ for a in augs] == ['ResizeAug', 'RandomCropAug', 'HorizontalFlipAug', 'CastAug',
                                                'ColorJitterAug', 'HueJitterAug', 'LightingAug', 'RandomGrayAug',
                                                'ColorNormalizeAug']
    dumps = [a.dumps() for a in augs]
    assert dumps[0] == '["resizeaug", {"size": 5, "interp": 2}]'
    assert dumps[1] == '["randomcropaug", {"size": [4, 4], "interp": 2}]'
    assert dumps[3] == '["castaug", {"type": "float32"}]'
    assert dumps[4] == ['colorjitteraug', ['["brightnessjitteraug", {"brightness": 0.1}]']]
    assert dumps[8] == ('["colornormalizeaug", {"mean": [123.68000030517578, 116.27999877929688, 103.52999877929688],'
                        ' "std": [58.39500045776367, 57.119998931884766, 57.375]}]')
    assert mx.image.ColorNormalizeAug(mean=mx.nd.array([1, 2, 3]), std=np.array([1., 2, 3])).dumps() == \
        '["colornormalizeaug", {"mean": [1.0, 2.0, 3.0], "std": [1.0, 2.0, 3.0]}]'


def test_augmenters_apply():
    random.seed(0)
    np.random.seed(0)
    base = np.random.RandomState(1).rand(6, 5, 3).astype(np.float32) * 255
    gray = (base * [0.299, 0.587, 0.114]).sum(axis=2, keepdims=True)
    x = mx.nd.array(base)
    random.seed(5)
    alpha = 1.0 + random.uniform(-0.5, 0.5)
    random.seed(5)
    out = mx.image.SaturationJitterAug(0.5)(x)
    assert out is x
    np.testing.assert_allclose(out.asnumpy(), base * alpha + gray * (1 - alpha), rtol=1e-4, atol=1e-3)
    random.seed(5)
    out = mx.image.ContrastJitterAug(0.5)(mx.nd.array(base))
    np.testing.assert_allclose(out.asnumpy(), base * alpha + 3 * (1 - alpha) * gray.mean() / 3 * 1.0, rtol=1e-4,
                               atol=1e-2)
    random.seed(5)
    np.testing.assert_allclose(mx.image.BrightnessJitterAug(0.5)(mx.nd.array(base)).asnumpy(), base * alpha,
                               rtol=1e-5)
    np.testing.assert_allclose(mx.image.HorizontalFlipAug(1.0)(mx.nd.array(base)).asnumpy(), base[:, ::-1])
    np.testing.assert_allclose(mx.image.RandomGrayAug(1.0)(mx.nd.array(base)).asnumpy(),
                               np.repeat((base * [0.21, 0.72, 0.07]).sum(2, keepdims=True), 3, 2), rtol=1e-5)
    assert mx.image.CastAug()(mx.nd.array(base, dtype='uint8')).dtype == np.float32
    assert mx.image.ForceResizeAug((7, 3))(mx.nd.array(base)).shape == (3, 7, 3)
    assert mx.image.ResizeAug(10)(mx.nd.array(base)).shape == (12, 10, 3)
    assert mx.image.RandomSizedCropAug((4, 4), 0.5, (0.75, 1.33))(mx.nd.array(base)).shape == (4, 4, 3)
    aug = mx.image.HueJitterAug(0.0)  # zero rotation: the YIQ round trip (MXNet's rounded matrices)
    np.testing.assert_allclose(aug(mx.nd.array(base)).asnumpy(), base @ (aug.ityiq @ aug.tyiq).T, rtol=1e-4,
                               atol=1e-3)
    light = mx.image.LightingAug(0.1, np.array([55.46, 4.794, 1.148]), np.eye(3))(mx.nd.array(base))
    assert light.shape == base.shape
    seq = mx.image.SequentialAug([mx.image.CastAug(), mx.image.CenterCropAug((2, 2))])
    assert seq(mx.nd.array(base)).shape == (2, 2, 3) and seq.dumps()[0] == 'sequentialaug'


def test_imrotate_matches_scipy():
    scipy_ndimage = pytest.importorskip('scipy.ndimage')
    xlin = np.expand_dims(np.linspace(0, 0.5, 30), axis=1)
    ylin = np.expand_dims(np.linspace(0, 0.5, 60), axis=0)
    np_img = np.expand_dims(xlin + ylin, axis=2)
    nd_img = mx.nd.array(np_img.transpose((2, 0, 1)))
    rot = mx.image.imrotate(nd_img, 6).asnumpy().transpose((1, 2, 0))
    ref = scipy_ndimage.rotate(np_img, 6, axes=(1, 0), reshape=False, order=1, mode='constant', prefilter=False)
    np.testing.assert_allclose(rot[10:20, 20:40], ref[10:20, 20:40], rtol=1e-4, atol=1e-5)
    batch = mx.nd.stack(nd_img, nd_img)
    for zoom in ({}, {'zoom_in': True}, {'zoom_out': True}):
        assert mx.image.imrotate(batch, mx.nd.array([1, 2]), **zoom).shape == (2, 1, 30, 60)
    out = mx.image.imrotate(batch, 6)
    np.testing.assert_allclose(out[1].asnumpy().transpose(1, 2, 0)[10:20, 20:40], ref[10:20, 20:40], rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError):
        mx.image.imrotate(batch, 3, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError):
        mx.image.imrotate(nd_img, mx.nd.array([1, 2]))
    with pytest.raises(TypeError):
        mx.image.imrotate(nd_img.astype('float64'), 3)
    assert mx.image.random_rotate(nd_img, (-5, 5)).shape == (1, 30, 60)
    assert mx.image.random_rotate(batch, (-5, 5)).shape == (2, 1, 30, 60)


def _imglist():
    return [[float(i), p.name] for i, p in enumerate(IMAGES)]  # 7 images


def test_imageiter_last_batch_modes(tmp_path):
    root = str(FIX / 'images')
    lst = tmp_path / 'l.lst'
    lst.write_text(''.join('%d\t%d\t%s\n' % (k, k % 3, p.name) for k, p in enumerate(IMAGES)))
    for kw in ({'imglist': _imglist()}, {'path_imglist': str(lst)}):
        it = mx.image.ImageIter(3, (3, 8, 8), path_root=root, last_batch_handle='discard', **kw)
        assert sum(1 for _ in it) == 2
        it = mx.image.ImageIter(3, (3, 8, 8), path_root=root, last_batch_handle='pad', **kw)
        batches = list(it)
        assert len(batches) == 3 and batches[-1].pad == 2
        np.testing.assert_array_equal(batches[0].data[0].asnumpy()[:2], batches[-1].data[0].asnumpy()[1:])
        it = mx.image.ImageIter(3, (3, 8, 8), path_root=root, last_batch_handle='roll_over', **kw)
        batches = list(it)
        assert len(batches) == 2
        it.reset()
        first = it.next()
        assert first.pad == 2
        np.testing.assert_array_equal(first.data[0].asnumpy()[1], batches[0].data[0].asnumpy()[0])
    it = mx.image.ImageIter(4, (3, 8, 8), imglist=_imglist(), path_root=root, dtype='int32')
    b = it.next()
    assert b.data[0].shape == (4, 3, 8, 8) and b.data[0].dtype == np.float32
    assert b.label[0].asnumpy().tolist() == [0, 1, 2, 3]
    # the default augmenters center-crop: compare with a hand-made crop of the decoded image
    img = mx.image.imdecode(IMAGES[0].read_bytes())
    ref = mx.image.center_crop(img, (8, 8))[0].astype('float32').transpose((2, 0, 1))
    np.testing.assert_array_equal(b.data[0][0].asnumpy(), ref.asnumpy())
    it = mx.image.ImageIter(2, (3, 8, 8), imglist=_imglist(), path_root=root, shuffle=True, rand_crop=True,
                            rand_resize=True, rand_mirror=True, mean=True, std=np.array([1.1, 1.03, 1.05]),
                            brightness=0.1, contrast=0.1, saturation=0.1, hue=0.1, pca_noise=0.1, rand_gray=0.2,
                            inter_method=10)
    assert all(b.data[0].shape == (2, 3, 8, 8) for b in it)
    with pytest.raises(ValueError, match='3 channels'):
        mx.image.ImageIter(2, (1, 8, 8), imglist=_imglist())


def test_imageiter_slots_no_image_reaches_are_zero():
    # one image, batches of 3, 'pad': the wrap-around fills slot 1, slot 2 stays as MXNet leaves it (zeros)
    it = mx.image.ImageIter(3, (3, 8, 8), imglist=[[1.0, 'rgb.png']], path_root=str(FIX / 'images'))
    b = it.next()
    data = b.data[0].asnumpy()
    ref = mx.image.center_crop(mx.image.imdecode((FIX / 'images' / 'rgb.png').read_bytes()), (8, 8))[0]
    assert b.pad == 2
    np.testing.assert_array_equal(data[0], ref.astype('float32').transpose((2, 0, 1)).asnumpy())
    np.testing.assert_array_equal(data[1], data[0])
    assert not data[2].any()
    with pytest.raises(StopIteration):
        it.next()


def test_imageiter_uses_overridden_postprocess_data():
    class Doubled(mx.image.ImageIter):
        def postprocess_data(self, datum):
            return super().postprocess_data(datum) * 2

    kw = dict(imglist=_imglist()[:2], path_root=str(FIX / 'images'))
    plain = mx.image.ImageIter(2, (3, 8, 8), **kw).next().data[0].asnumpy()
    np.testing.assert_array_equal(Doubled(2, (3, 8, 8), **kw).next().data[0].asnumpy(), plain * 2)
    # an augmenter list giving another shape than data_shape fails on assignment (MXNet: ValueError)
    with pytest.raises(ValueError):
        mx.image.ImageIter(2, (3, 8, 8), aug_list=[mx.image.CastAug()], **kw).next()


def test_imageiter_from_rec(tmp_path):
    rec, idx = tmp_path / 'i.rec', tmp_path / 'i.idx'
    w = mx.recordio.MXIndexedRecordIO(str(idx), str(rec), 'w')
    for i, p in enumerate(IMAGES):
        w.write_idx(i, mx.recordio.pack((0, float(i), i, 0), p.read_bytes()))
    w.close()
    it = mx.image.ImageIter(3, (3, 8, 8), path_imgrec=str(rec))
    labels = [b.label[0].asnumpy().tolist() for b in it]
    assert labels == [[0, 1, 2], [3, 4, 5], [6, 0, 1]]
    it = mx.image.ImageIter(3, (3, 8, 8), path_imgrec=str(rec), path_imgidx=str(idx), num_parts=2, part_index=1)
    assert [b.label[0].asnumpy().tolist() for b in it] == [[3, 4, 5]]
    w = mx.recordio.MXRecordIO(str(tmp_path / 'bad.rec'), 'w')
    w.write(mx.recordio.pack((0, 1.0, 0, 0), b'broken'))
    w.close()
    with pytest.raises(RuntimeError, match='Broken image'):
        mx.image.ImageIter(1, (3, 8, 8), path_imgrec=str(tmp_path / 'bad.rec')).next()


def test_detection_is_exported():
    assert mx.image.ImageDetIter is mx.image.detection.ImageDetIter  # no longer a gap: see test_detection.py
    with pytest.raises(AttributeError):
        mx.image.no_such_name


def test_numpy_mode_gives_mx_np_arrays(tmp_path):
    # MXNet 1.9.1 under npx.set_np(): imdecode, imresize, the crops and ImageIter's batches are mx.np arrays
    import io as _io
    from PIL import Image
    buf = _io.BytesIO()
    Image.fromarray(np.arange(10 * 12 * 3, dtype=np.uint8).reshape(10, 12, 3)).save(buf, format='PNG')
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'a.idx'), str(tmp_path / 'a.rec'), 'w')
    for i in range(3):
        rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), buf.getvalue()))
    rec.close()
    mx.npx.set_np()
    try:
        img = mx.image.imdecode(buf.getvalue())
        assert isinstance(img, mx.np.ndarray) and img.dtype == np.uint8
        assert isinstance(mx.image.imresize(img, 5, 6), mx.np.ndarray)
        assert isinstance(mx.image.center_crop(img, (4, 4))[0], mx.np.ndarray)
        it = mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=str(tmp_path / 'a.rec'))
        batch = it.next()
        assert isinstance(batch.data[0], mx.np.ndarray) and isinstance(batch.label[0], mx.np.ndarray)
        assert batch.data[0].shape == (2, 3, 8, 8)
    finally:
        mx.npx.reset_np()
    assert type(mx.image.imdecode(buf.getvalue())) is mx.nd.NDArray
