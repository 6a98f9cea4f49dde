"""mx.rnn.encode_sentences and mx.rnn.BucketSentenceIter against MXNet 1.9.1 (seeded random + numpy)."""
import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetValueError

from .golden import as_json, assert_arrays_match, gold_json, run


def test_encode_sentences_match_mxnet():
    assert as_json(run('encode_cases')['json']) == gold_json('encode_cases')


def test_bucket_sentence_iter_batches_match_mxnet():
    """Buckets, discards (printed warning), padding, next-token labels, layouts, dtypes and shuffled order."""
    assert_arrays_match('sentence_iter_cases', rtol=0, atol=0)
    assert as_json(run('sentence_iter_cases')['json']) == gold_json('sentence_iter_cases')


def test_iter_basics(capsys):
    sents = [[1, 2, 3], [4, 5], [6, 7, 8], [9]]
    it = mx.rnn.BucketSentenceIter(sents, 2, buckets=[3], invalid_label=0)
    assert 'discarded 0 sentences' in capsys.readouterr().out
    assert it.default_bucket_key == 3 and it.batch_size == 2
    assert isinstance(it, mx.io.DataIter)
    desc = it.provide_data[0]
    assert (desc.name, desc.shape, desc.layout, desc.dtype) == ('data', (2, 3), 'NT', np.float32)
    batches = list(it)
    assert len(batches) == 2
    rows = sorted(tuple(r) for b in batches for r in b.data[0].asnumpy().tolist())
    assert rows == [(1, 2, 3), (4, 5, 0), (6, 7, 8), (9, 0, 0)]
    for b in batches:
        d, lab = b.data[0].asnumpy(), b.label[0].asnumpy()
        np.testing.assert_array_equal(lab[:, :-1], d[:, 1:])
        assert (lab[:, -1] == 0).all() and b.bucket_key == 3 and b.pad == 0
    with pytest.raises(StopIteration):
        it.next()


def test_iter_errors():
    with pytest.raises(MXNetValueError, match='layout'):
        mx.rnn.BucketSentenceIter([[1, 2]], 1, buckets=[2], layout='TC')


def test_namespace():
    with pytest.raises(AttributeError):
        mx.rnn.NoSuchThing  # noqa: B018
    assert mx.rnn.io.BucketSentenceIter is mx.rnn.BucketSentenceIter
