"""mxcompat.io.ImageRecordIter (+ UInt8/Int8): batches, shuffles and random augmentations against MXNet 1.9.1.

References: tests/fixtures/io/imagerec.npz and io.json (see gen_io.py; 11 PNG/JPEG records, data_shape (3, 8, 8),
batch 4, one decoding thread as MXNet uses on a 2-core machine).
"""
import json
import os
import pathlib

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'io'
ARR = np.load(FIX / 'imagerec.npz')
META = json.loads((FIX / 'io.json').read_text())['imagerec']


def _tables(generator, first, after, *names):
    """The configuration tables of a fixture generator (run alone: the generator itself imports mxnet)."""
    src = (FIX / generator).read_text()
    ns = {}
    exec(src[src.index(first):src.index(after)], ns)  # noqa: S102
    return [ns[n] for n in names]


CONFIGS, BASE = _tables('gen_io.py', 'IMAGEREC = [', '\n\n\ndef batches', 'IMAGEREC', 'IMAGEREC_BASE')


@pytest.fixture
def in_fixtures(monkeypatch):
    monkeypatch.chdir(FIX)


@pytest.mark.parametrize('ci', range(len(CONFIGS)))
def test_matches_mxnet(in_fixtures, ci):
    kw = dict(BASE, path_imgrec='imgs.rec', **CONFIGS[ci])
    if 'c%d_error' % ci in META:
        with pytest.raises(MXNetError):
            mx.io.ImageRecordIter(**kw)
        return
    it = mx.io.ImageRecordIter(**kw)
    assert repr(it.provide_data) + repr(it.provide_label) == META['c%d_desc' % ci]
    for ep in range(2):
        for bi, b in enumerate(it):
            key = 'c%d_e%d_b%d_' % (ci, ep, bi)
            if key + 'data' not in ARR:
                continue
            data, label = b.data[0].asnumpy(), b.label[0].asnumpy()
            ref = ARR[key + 'data']
            assert data.dtype == ref.dtype and data.shape == ref.shape
            assert b.pad == META[key + 'pad']
            n = data.shape[0] - (1 if CONFIGS[ci].get('round_batch') is False and bi == 2 else 0)
            # n: without round_batch MXNet leaves uninitialised rows in the short last batch
            np.testing.assert_allclose(data[:n].astype(np.float64), ref[:n], rtol=1e-5, atol=1e-4)
            np.testing.assert_array_equal(label[:n], ARR[key + 'label'][:n])
            assert b.index.tolist() == [0] * 4
        it.reset()


def test_variants_and_errors(in_fixtures):
    u8 = mx.io.ImageRecordUInt8Iter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4, rand_mirror=True)
    np.testing.assert_array_equal(u8.next().data[0].asnumpy(), ARR['c13_e0_b0_data'])
    i8 = mx.io.ImageRecordInt8Iter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4, mean_r=100,
                                   mean_g=50.5, mean_b=20)
    np.testing.assert_array_equal(i8.next().data[0].asnumpy(), ARR['c14_e0_b0_data'])
    v1 = mx.io.ImageRecordIter_v1(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4)
    np.testing.assert_allclose(v1.next().data[0].asnumpy(), ARR['c0_e0_b0_data'])
    errors = META['errors']
    cases = {'no_rec': dict(data_shape=(3, 8, 8), batch_size=2),
             'bad_channels': dict(path_imgrec='imgs.rec', data_shape=(2, 8, 8), batch_size=2),
             'label_width': dict(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=2, label_width=3),
             'bad_dtype': dict(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=2, dtype='float64'),
             'too_small': dict(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=30)}
    for name, kw in cases.items():
        assert errors[name]['error'] == 'MXNetError'
        with pytest.raises(MXNetError) as e:
            it = mx.io.ImageRecordIter(**kw)
            list(it)
        tail = errors[name]['message'].split(': ')[-1].rstrip('.')
        assert tail.split(' [')[0] in str(e.value), (name, str(e.value))


def test_hls_jitter_needs_three_channels(in_fixtures):
    # MXNet fails too (OpenCV's cvtColor assertion, at the first batch)
    with pytest.raises(MXNetError, match='needs 3'):
        list(mx.io.ImageRecordIter(path_imgrec='affine.rec', data_shape=(1, 24, 24), batch_size=4, random_h=10))


@pytest.mark.parametrize('arg', [{'aug_seq': 'det_aug_default'},
                                 {'shuffle_chunk_size': 64}])
def test_unsupported_augmentations_raise(in_fixtures, arg):
    name = list(arg)[0]
    with pytest.raises(MXNetNotImplementedError, match=name):
        mx.io.ImageRecordIter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4, **arg)


def test_mean_image_is_created_then_loaded(tmp_path, in_fixtures):
    mean_file = str(tmp_path / 'mean.bin')
    it = mx.io.ImageRecordIter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4, mean_img=mean_file)
    assert os.path.exists(mean_file)
    mean = mx.nd.load(mean_file)['mean_img'].asnumpy()
    raw = mx.io.ImageRecordIter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=11)
    images = raw.next().data[0].asnumpy()
    np.testing.assert_allclose(mean, images.mean(axis=0), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(it.next().data[0].asnumpy(), images[:4] - mean, rtol=1e-5, atol=1e-3)
    again = mx.io.ImageRecordIter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4, mean_img=mean_file)
    np.testing.assert_allclose(again.next().data[0].asnumpy(), images[:4] - mean, rtol=1e-5, atol=1e-3)


def test_upstream_seed_aug_determinism(in_fixtures):
    kw = dict(path_imgrec='imgs.rec', shuffle=False, data_shape=(3, 8, 8), batch_size=3, rand_crop=True,
              rand_mirror=True, brightness=0.2, seed_aug=3)
    a = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**kw)]
    b = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**kw)]
    c = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**dict(kw, seed_aug=4))]
    assert all((x == y).all() for x, y in zip(a, b))
    assert any((x != y).any() for x, y in zip(a, c))


AFFINE, AFFINE_BASE = _tables('gen_affine.py', 'AFFINE = [', '\n\n\ndef png', 'AFFINE', 'AFFINE_BASE')
AFFINE_ARR = np.load(FIX / 'imagerec_affine.npz')


@pytest.mark.parametrize('ci', range(len(AFFINE)))
def test_affine_augmentation_matches_mxnet(in_fixtures, ci):
    # rotation, shear, scale, aspect ratio and image size bounds: MXNet's draws and OpenCV's warpAffine (nearest,
    # bilinear, bicubic, Lanczos-4), pixel for pixel
    it = mx.io.ImageRecordIter(**dict(AFFINE_BASE, **AFFINE[ci]))
    n = 0
    for bi, b in enumerate(it):
        np.testing.assert_array_equal(b.data[0].asnumpy(), AFFINE_ARR['c%d_b%d_data' % (ci, bi)].astype(np.float32))
        np.testing.assert_array_equal(b.label[0].asnumpy(), AFFINE_ARR['c%d_b%d_label' % (ci, bi)])
        n += 1
    assert n == len([k for k in AFFINE_ARR.files if k.startswith('c%d_' % ci) and k.endswith('_data')])


def test_short_batch_rows_keep_the_previous_batch(in_fixtures):
    # 11 records in batches of 4 without round_batch: the last batch fills 3 rows; the fourth keeps what the
    # previous batch had there (MXNet reuses its buffer; its memory there is the previous batch's), whatever the
    # caller did to the batch it was handed
    it = mx.io.ImageRecordIter(path_imgrec='imgs.rec', data_shape=(3, 8, 8), batch_size=4, round_batch=False)
    batches = []
    for b in it:
        batches.append((b.data[0].asnumpy().copy(), b.label[0].asnumpy().copy()))
        b.data[0][:] = -7
    assert len(batches) == 3
    np.testing.assert_array_equal(batches[2][0][3], batches[1][0][3])
    np.testing.assert_array_equal(batches[2][1][3], batches[1][1][3])
    assert (batches[2][0][:3] != batches[1][0][:3]).any()


def test_decoded_images_are_writable(in_fixtures):
    rec = mx.recordio.MXRecordIO('imgs.rec', 'r')
    header, img = mx.recordio.unpack_img(rec.read())
    img[0, 0] = 1  # OpenCV hands out its own array
    assert img.flags.writeable and img.dtype == np.uint8
