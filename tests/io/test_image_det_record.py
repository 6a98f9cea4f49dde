"""mxcompat.io.ImageDetRecordIter against MXNet 1.9.1, plus invariants of its random augmenter.

References: tests/fixtures/image_det_rec/goldens.npz and goldens.json, made by gen_image_det_rec.py under MXNet from
the configurations of det_rec_configs.py (7 PNG records with detection labels of different header/object widths).
MXNet's draws are reproduced (one decoding thread, as MXNet uses on a 2-core machine), so the random
configurations are compared too; only ``inter_method=10`` can pick a resize whose rounding differs by 1.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'image_det_rec'
sys.path.insert(0, str(FIX))
import det_rec_configs as configs  # noqa: E402

sys.path.remove(str(FIX))
GOLD = np.load(FIX / 'goldens.npz')
META = json.loads((FIX / 'goldens.json').read_text())


@pytest.fixture
def in_fixtures(monkeypatch):
    monkeypatch.chdir(FIX)


def _make(**kw):
    return mx.io.ImageDetRecordIter(**dict(configs.BASE, **kw))


def _check_epochs(it, key, round_batch=True, atol=1e-4):
    assert repr(it.provide_data) + repr(it.provide_label) == META[key + '/desc']
    for ep in range(2):
        n = 0
        for bi, b in enumerate(it):
            k = '%s/e%d_b%d_' % (key, ep, bi)
            data, label = b.data[0].asnumpy(), b.label[0].asnumpy()
            ref = GOLD[k + 'data']
            assert data.dtype == ref.dtype and data.shape == ref.shape
            assert b.pad == META[k + 'pad']
            # without round_batch MXNet's short last batch keeps old rows in its padding
            rows = data.shape[0] - (0 if round_batch else b.pad)
            np.testing.assert_allclose(data[:rows], ref[:rows], rtol=1e-6, atol=atol)
            np.testing.assert_array_equal(label[:rows], GOLD[k + 'label'][:rows])
            assert b.index[:rows].tolist() == META[k + 'index'][:rows]
            n += 1
        assert n == META['%s/e%d_batches' % (key, ep)]
        it.reset()


@pytest.mark.parametrize('name', list(configs.CONFIGS))
def test_matches_mxnet(in_fixtures, name):
    kw = configs.CONFIGS[name]
    atol = 1 if kw.get('inter_method') == 10 else 1e-4  # a random lanczos/cubic resize may round a pixel apart
    _check_epochs(_make(**kw), name, kw.get('round_batch', True), atol)


def test_mean_image_created_then_loaded(in_fixtures, tmp_path):
    kw = dict(data_shape=(3, 10, 10), batch_size=3, mean_img=str(tmp_path / 'mean.bin'), std_r=2, scale=0.5,
              rand_mirror_prob=0.5)
    _check_epochs(_make(**kw), 'mean_img')  # creating the mean image consumed one epoch of random draws
    mean = mx.nd.load(str(tmp_path / 'mean.bin'))['mean_img'].asnumpy()
    np.testing.assert_allclose(mean, GOLD['mean_img/mean'], rtol=1e-6, atol=1e-5)
    _check_epochs(_make(**kw), 'mean_img_loaded')


# a phrase of MXNet's message that mxcompat's must contain too
PHRASES = {
    'missing_rec': 'missing.rec error: No such file or directory',
    'pad_too_small': 'label_pad_width: 5 smaller than estimated width: 19',
    'label_width': 'rec file provide 19-dimensional label but label_width is set to 14',
    'inter_method': 'invalid inter_method: valid value 0,1,2,3,9,10',
    'data_shape': 'expected dimension=3',
    'channels': 'Invalid output shape',
    'too_small': 'number of input must be bigger than batch size',
    'crop_scales': 'max_crop_scales',
    'sampler_mismatch': '# of parameters/crop_samplers mismatch',
    'no_label': 'Not enough label packed in img_list or rec file',
    'short_label': 'label_width >= 7 (6 vs. 7)',
    'float16': 'data type do not match',
}


@pytest.mark.parametrize('name', list(configs.ERRORS))
def test_errors_like_mxnet(in_fixtures, name):
    assert META['error/' + name].startswith('MXNetError') and PHRASES[name] in META['error/' + name]
    with pytest.raises(MXNetError) as e:
        list(_make(**configs.ERRORS[name]))
    assert PHRASES[name] in str(e.value)


def test_other_errors_and_gaps(in_fixtures):
    with pytest.raises(MXNetError, match='Unknown augmenter'):  # MXNet 1.9.1 crashes here
        _make(data_shape=(3, 8, 8), batch_size=2, aug_seq='nonexistent_aug')
    with pytest.raises(MXNetNotImplementedError, match='aug_default'):
        _make(data_shape=(3, 8, 8), batch_size=2, aug_seq='aug_default')
    with pytest.raises(MXNetError, match='needs 3'):  # (MXNet: OpenCV's cvtColor assertion)
        list(_make(data_shape=(1, 8, 8), batch_size=2, max_random_hue=10, random_hue_prob=1))
    with pytest.raises(MXNetError, match='Required parameter data_shape'):
        mx.io.ImageDetRecordIter(path_imgrec='det.rec', batch_size=2)
    with pytest.warns(UserWarning, match='rand_mirror'):  # an ImageRecordIter argument: MXNet ignores it silently
        _make(data_shape=(3, 8, 8), batch_size=2, rand_mirror=True)
    with pytest.raises(TypeError, match='keyword'):
        mx.io.ImageDetRecordIter(1, path_imgrec='det.rec', data_shape=(3, 8, 8), batch_size=2)
    # shuffle_chunk_size that does not split this small file changes nothing
    a = _make(data_shape=(3, 8, 8), batch_size=7, shuffle_chunk_size=4).next()
    b = _make(data_shape=(3, 8, 8), batch_size=7).next()
    np.testing.assert_array_equal(a.data[0].asnumpy(), b.data[0].asnumpy())


# ---- invariants of the random augmenter ---------------------------------------------------------------------------
def _one_batch(**kw):
    b = _make(data_shape=(3, 12, 12), batch_size=7, **kw).next()
    return b.data[0].asnumpy(), b.label[0].asnumpy()


def _objects(row):
    n = int(row[3])
    raw = row[4:4 + n]
    hw, ow = int(raw[0]), int(raw[1])
    return raw[hw:].reshape(-1, ow)


def test_probability_zero_is_identity(in_fixtures):
    data, label = _one_batch()
    for kw in (dict(rand_mirror_prob=0), dict(rand_pad_prob=0, max_pad_scale=3), dict(rand_crop_prob=0),
               dict(random_contrast_prob=0, max_random_contrast=0.5), dict(rand_pad_prob=1, max_pad_scale=1)):
        d, lab = _one_batch(**kw)
        np.testing.assert_array_equal(d, data)
        np.testing.assert_array_equal(lab, label)


def test_mirror_moves_boxes_with_pixels(in_fixtures):
    data, label = _one_batch()
    d, lab = _one_batch(rand_mirror_prob=1)
    np.testing.assert_array_equal(d, data[:, :, :, ::-1])
    for r0, r1 in zip(label, lab):
        o0, o1 = _objects(r0), _objects(r1)
        np.testing.assert_allclose(o1[:, 1], 1 - o0[:, 3], atol=1e-6)
        np.testing.assert_allclose(o1[:, 3], 1 - o0[:, 1], atol=1e-6)
        np.testing.assert_array_equal(o1[:, [0, 2, 4]], o0[:, [0, 2, 4]])


@pytest.mark.parametrize('kw', [dict(rand_pad_prob=1, max_pad_scale=3, fill_value=0),
                                dict(rand_crop_prob=1, min_crop_scales=0.3, min_crop_overlaps=0.2),
                                dict(rand_crop_prob=1, min_crop_scales=0.2, crop_emit_mode='overlap',
                                     num_crop_sampler=2, min_crop_overlaps=(0.1, 0.5)),
                                dict(rand_mirror_prob=0.5, rand_pad_prob=0.5, max_pad_scale=2, rand_crop_prob=0.5,
                                     random_contrast_prob=0.5, max_random_contrast=0.5, resize_mode='fit')])
def test_random_boxes_stay_normalized(in_fixtures, kw):
    data, label = _one_batch(**kw)
    assert data.shape == (7, 3, 12, 12) and label.shape == (7, 23)
    for row in label:
        assert row[0] == 3 and 0 < row[1] <= 12 and 0 < row[2] <= 12
        n = int(row[3])
        assert (row[4 + n:] == -1).all()
        boxes = _objects(row)[:, 1:5]
        assert len(boxes) >= 1 and (boxes >= 0).all() and (boxes <= 1).all()
        assert (boxes[:, 2] > boxes[:, 0]).all() and (boxes[:, 3] > boxes[:, 1]).all()


@pytest.mark.parametrize('kw', [dict(rand_mirror_prob=1), dict(rand_pad_prob=1, max_pad_scale=3),
                                dict(rand_crop_prob=1, min_crop_scales=0.3),
                                dict(rand_crop_prob=1, min_crop_scales=0.2, crop_emit_mode='overlap'),
                                dict(rand_mirror_prob=0.5, rand_pad_prob=0.7, max_pad_scale=2, rand_crop_prob=0.7,
                                     min_crop_scales=0.3)])
def test_boxes_move_with_the_pixels(kw):
    from mxcompat.io import _cxxrandom as R
    from mxcompat.io._image_det_record import API, _SPEC, _DetAugmenter
    from mxcompat.io.io import _Params
    p = _Params(API, dict(data_shape=(3, 400, 400), batch_size=1, resize_mode='shrink', fill_value=0, **kw), _SPEC)
    aug = _DetAugmenter(p)
    img = np.zeros((40, 60, 3), np.uint8)
    img[10:30, 10:40] = 255  # the object: a white box, off-centre
    changed = 0
    for seed in range(12):
        res, label = aug(img, np.array([2, 5, 0, 10 / 60, 10 / 40, 40 / 60, 30 / 40], np.float32), R.MT19937(seed))
        assert len(label) == 7 and label[0] == 2 and label[1] == 5
        ys, xs = np.nonzero(res[:, :, 0] > 127)
        rows, cols = res.shape[:2]
        white = np.array([xs.min() / cols, ys.min() / rows, (xs.max() + 1) / cols, (ys.max() + 1) / rows])
        np.testing.assert_allclose(label[3:7], white, atol=1.5 / min(rows, cols))
        changed += res.shape != img.shape or not np.array_equal(res, img)
    assert changed > 0


