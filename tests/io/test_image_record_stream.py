"""ImageRecordIter / ImageDetRecordIter stream a chunk (decoding threads ahead, one augmenting thread in file order):
a reset in the middle of a chunk, a broken record, a dropped iterator and interpreter exit.

The values themselves are pinned against MXNet in test_image_record.py and test_image_det_record.py; here the
iterators are compared with themselves: a reset in the middle of a chunk must leave the random engine where a
whole parsed chunk leaves it (MXNet parses a chunk at once), whatever the background thread had reached.
"""
import gc
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'io'
ROOT = FIX.parent.parent.parent
# a window of two images (prefetch_buffer 1 x batch 2): the thread is well inside the chunk at a reset
KW = dict(data_shape=(3, 8, 8), batch_size=2, prefetch_buffer=1, rand_crop=True, rand_mirror=True,
          max_random_contrast=0.3, round_batch=False, verbose=False)


def _records(path=FIX / 'imgs.rec'):
    rec = mx.recordio.MXRecordIO(str(path), 'r')
    out = []
    while True:
        r = rec.read()
        if r is None:
            return out
        out.append(r)


def _write(path, records):
    w = mx.recordio.MXRecordIO(str(path), 'w')
    for r in records:
        w.write(r)
    w.close()
    return str(path)


def _epoch(it):
    return [b.data[0].asnumpy().copy() for b in it]


def _second_epoch(make):
    """The batches of a second epoch, after a first one read to its end."""
    whole = make()
    _epoch(whole)
    whole.reset()
    return _epoch(whole)


def _after_reset(make, taken):
    """The batches after a reset that follows ``taken`` next() calls (the first batch is read at construction)."""
    it = make()
    for _ in range(taken):
        it.next()
    it.reset()
    return _epoch(it)


def _assert_same(got, expected):
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('threads', [1, 3])
def test_reset_in_the_middle_of_a_chunk_draws_the_whole_chunk(tmp_path, threads):
    kw = dict(KW, path_imgrec=_write(tmp_path / 'x.rec', _records() * 3), preprocess_threads=threads)  # one chunk
    expected = _second_epoch(lambda: mx.io.ImageRecordIter(**kw))
    for taken in (0, 1, 5):
        _assert_same(_after_reset(lambda: mx.io.ImageRecordIter(**kw), taken), expected)


def test_reset_with_seed_aug_starts_over(tmp_path):
    kw = dict(KW, path_imgrec=_write(tmp_path / 'x.rec', _records() * 3), seed_aug=7)
    _assert_same(_after_reset(lambda: mx.io.ImageRecordIter(**kw), 1), _epoch(mx.io.ImageRecordIter(**kw)))


def test_det_reset_in_the_middle_of_a_chunk(tmp_path):
    path = _write(tmp_path / 'd.rec', _records(FIX.parent / 'image_det_rec' / 'det.rec') * 4)
    kw = dict(path_imgrec=path, data_shape=(3, 32, 32), batch_size=2, prefetch_buffer=1, rand_mirror_prob=0.5,
              rand_crop_prob=0.5, round_batch=False, verbose=False)
    _assert_same(_after_reset(lambda: mx.io.ImageDetRecordIter(**kw), 1),
                 _second_epoch(lambda: mx.io.ImageDetRecordIter(**kw)))


def _write_indexed(tmp_path, records):
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'i.idx'), str(tmp_path / 'i.rec'), 'w')
    for k, r in enumerate(records):
        w.write_idx(k, r)
    w.close()
    return dict(path_imgrec=str(tmp_path / 'i.rec'), path_imgidx=str(tmp_path / 'i.idx'))


@pytest.mark.parametrize('extra', [dict(shuffle=True), dict(seed_aug=3, shuffle=True)])
def test_reset_does_not_depend_on_how_far_the_threads_ran(tmp_path, extra):
    # with an index, a chunk is a batch: the next one is started ahead of need, and a reset gives its draws back
    kw = dict(KW, **_write_indexed(tmp_path, _records() * 3), **extra)

    def run(taken, wait, **more):
        it = mx.io.ImageRecordIter(**dict(kw, **more))
        got = [it.next().data[0].asnumpy().copy() for _ in range(taken)]
        time.sleep(wait)  # the threads run ahead meanwhile
        it.reset()
        return got + _epoch(it)

    for taken in (0, 2):
        _assert_same(run(taken, 0.3, prefetch_buffer=8, preprocess_threads=3),
                     run(taken, 0, prefetch_buffer=1, preprocess_threads=1))


def test_broken_record_raises_at_its_batch(tmp_path):
    good = _records()
    header, _ = mx.recordio.unpack(good[0])
    path = _write(tmp_path / 'bad.rec', good[:5] + [mx.recordio.pack(header, b'not an image')] + good[5:])
    kw = dict(data_shape=(3, 8, 8), batch_size=2, prefetch_buffer=1, path_imgrec=path, verbose=False,
              preprocess_threads=3)
    clean = _epoch(mx.io.ImageRecordIter(**dict(kw, path_imgrec=_write(tmp_path / 'ok.rec', good))))
    it = mx.io.ImageRecordIter(**kw)
    got = [it.next().data[0].asnumpy().copy(), it.next().data[0].asnumpy().copy()]
    with pytest.raises(MXNetError, match='Decoding failed'):
        it.next()  # records 4, 5: the broken one
    for a, b in zip(got, clean):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(StopIteration):  # the rest of the chunk is lost, as when a whole chunk failed
        it.next()
    it.reset()
    np.testing.assert_array_equal(it.next().data[0].asnumpy(), clean[0])


def _stream_threads():
    return [t for t in threading.enumerate() if t.name.startswith('mxcompat-image')]


def test_dropped_iterator_stops_its_threads(tmp_path):
    path = _write(tmp_path / 'x.rec', _records() * 3)
    before = set(_stream_threads())
    it = mx.io.ImageRecordIter(**dict(KW, path_imgrec=path, preprocess_threads=2))
    it.next()
    assert set(_stream_threads()) - before
    del it
    deadline = time.monotonic() + 10
    while set(_stream_threads()) - before and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert not set(_stream_threads()) - before


def test_interpreter_exits_in_the_middle_of_a_chunk(tmp_path):
    path = _write(tmp_path / 'x.rec', _records() * 20)
    code = ('import mxcompat as mx; it = mx.io.ImageRecordIter(path_imgrec=%r, data_shape=(3, 8, 8), batch_size=2, '
            'preprocess_threads=2, verbose=False); it.next(); print("ok")' % path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get('PYTHONPATH')) if p))
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'ok'
