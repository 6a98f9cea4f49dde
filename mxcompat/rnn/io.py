"""``mx.rnn.io``: ``encode_sentences`` and ``BucketSentenceIter`` for bucketed language-model training.

Same batches as MXNet for the same seeds: ``reset()`` shuffles the batch order with Python's ``random`` and the
sentences of each bucket with numpy's global RNG, in MXNet's order.
"""
import bisect
import random

import numpy as np

from ..base import MXNetAssertionError, MXNetValueError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ['encode_sentences', 'BucketSentenceIter']


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n', start_label=0, unknown_token=None):
    """Token lists -> index lists, plus the vocabulary (built here, or extended when ``unknown_token`` is set).

    As in MXNet, each unseen word takes the next free index from ``start_label`` (skipping ``invalid_label``);
    with ``unknown_token`` every unseen word re-points ``vocab[unknown_token]`` to a new index.
    """
    next_idx = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    encoded = []
    for sent in sentences:
        codes = []
        for word in sent:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise MXNetAssertionError('encode_sentences: unknown token %s (pass unknown_token or no vocab)'
                                              % word)
                if next_idx == invalid_label:
                    next_idx += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = next_idx
                next_idx += 1
            codes.append(vocab[word])
        encoded.append(codes)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of equal-length (padded with ``invalid_label``) sentences; the label is the next token.

    ``buckets`` (sorted in place, as MXNet does) default to every length that occurs at least ``batch_size``
    times; longer sentences are dropped with a printed warning. ``layout`` is 'NT' or 'TN'.
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name='data',
                 label_name='softmax_label', dtype='float32', layout='NT'):
        super().__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, n in enumerate(counts) if n >= batch_size]
        buckets.sort()
        major_axis = layout.find('N')
        if major_axis not in (0, 1):
            raise MXNetValueError('BucketSentenceIter: invalid layout %r: must be NT (batch major) or TN '
                                  '(time major)' % (layout,))

        per_bucket = [[] for _ in buckets]
        used = [False] * len(buckets)
        ndiscard = 0
        for sent in sentences:
            b = bisect.bisect_left(buckets, len(sent))
            if b == len(buckets):
                ndiscard += 1
                continue
            used[b] = True
            row = np.full((buckets[b],), invalid_label, dtype=dtype)
            row[:len(sent)] = sent
            per_bucket[b].append(row)
        buckets = [length for length, u in zip(buckets, used) if u]
        self.data = [np.asarray(rows, dtype=dtype) for rows in per_bucket if rows]
        print('WARNING: discarded %d sentences longer than the largest bucket.' % ndiscard)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = major_axis
        self.layout = layout
        self.default_bucket_key = max(buckets)
        shape = (batch_size, self.default_bucket_key) if major_axis == 0 else (self.default_bucket_key, batch_size)
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]
        self.idx = [(i, j) for i, rows in enumerate(self.data)
                    for j in range(0, len(rows) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Shuffle the batch order (``random``) and each bucket's sentences (``np.random``), then rewind."""
        from .. import ndarray as nd
        self.curr_idx = 0
        random.shuffle(self.idx)
        for rows in self.data:
            np.random.shuffle(rows)
        self.nddata = []
        self.ndlabel = []
        for rows in self.data:
            label = np.empty_like(rows)
            label[:, :-1] = rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(nd.array(rows, dtype=self.dtype))
            self.ndlabel.append(nd.array(label, dtype=self.dtype))

    def next(self):
        """The next batch, with ``bucket_key`` (its length) and its own ``provide_data``/``provide_label``."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)])
