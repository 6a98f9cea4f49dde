"""``mx.rnn.io``: ``encode_sentences`` and ``BucketSentenceIter`` for bucketed language-model training.

Same batches as MXNet for the same seeds: ``reset()`` shuffles the batch order with Python's ``random`` and the
sentences of each bucket with numpy's global RNG, in MXNet's order.
"""
import bisect
import random

import numpy as np

from ..base import MXNetAssertionError, MXNetValueError
from ..io import DataBatch, DataDesc, DataIter
from .. import ndarray as nd

__all__ = ['encode_sentences', 'BucketSentenceIter']


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n', start_label=0, unknown_token=None):
    """Token lists -> index lists, plus the vocabulary (built here, or extended when ``unknown_token`` is set).

    As in MXNet, each unseen word takes the next free index from ``start_label`` (skipping ``invalid_label``);
    with ``unknown_token`` every unseen word re-points ``vocab[unknown_token]`` to a new index.
    An unknown word with a given vocabulary and no ``unknown_token`` raises ``MXNetAssertionError``.
    """
    may_grow = vocab is None
    table = {invalid_key: invalid_label} if may_grow else vocab
    counter = [start_label]  # next index to hand out, boxed so the helper below can advance it

    def code_of(token):
        if token in table:
            return table[token]
        if not (may_grow or unknown_token):
            raise MXNetAssertionError('encode_sentences: unknown token %s (pass unknown_token or no vocab)'
                                      % token)
        fresh = counter[0] + (counter[0] == invalid_label)
        counter[0] = fresh + 1
        table[unknown_token or token] = fresh
        return fresh

    return [[code_of(token) for token in sent] for sent in sentences], table


def _pad_into_buckets(sentences, buckets, fill, dtype):
    """Pad every sentence up to the smallest bucket that holds it; returns (kept buckets, arrays, dropped count)."""
    groups = {}
    dropped = 0
    for sent in sentences:
        slot = bisect.bisect_left(buckets, len(sent))
        if slot >= len(buckets):
            dropped += 1
            continue
        padded = np.full((buckets[slot],), fill, dtype=dtype)
        padded[:len(sent)] = sent
        groups.setdefault(slot, []).append(padded)
    kept = sorted(groups)
    return [buckets[s] for s in kept], [np.asarray(groups[s], dtype=dtype) for s in kept], dropped


class BucketSentenceIter(DataIter):
    """Batches of equal-length (padded with ``invalid_label``) sentences; the label is the next token.

    ``buckets`` (sorted in place, as MXNet does) default to every length that occurs at least ``batch_size``
    times; longer sentences are dropped with a printed warning. ``layout`` is 'NT' or 'TN'.
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name='data',
                 label_name='softmax_label', dtype='float32', layout='NT'):
        super().__init__()
        if not buckets:
            occurrences = np.bincount([len(s) for s in sentences])
            buckets = np.flatnonzero(occurrences >= batch_size).tolist()
        buckets.sort()
        batch_axis = layout.find('N')
        if batch_axis not in (0, 1):
            raise MXNetValueError('BucketSentenceIter: invalid layout %r: must be NT (batch major) or TN '
                                  '(time major)' % (layout,))

        kept, self.data, dropped = _pad_into_buckets(sentences, buckets, invalid_label, dtype)
        print('WARNING: discarded %d sentences longer than the largest bucket.' % dropped)

        vars(self).update(batch_size=batch_size, buckets=kept, data_name=data_name, label_name=label_name,
                          dtype=dtype, invalid_label=invalid_label, layout=layout, major_axis=batch_axis,
                          nddata=[], ndlabel=[], curr_idx=0, default_bucket_key=max(kept))
        full = [batch_size, self.default_bucket_key]
        if batch_axis:
            full.reverse()
        self.provide_data, self.provide_label = ([DataDesc(name=n, shape=tuple(full), layout=layout)]
                                                 for n in (data_name, label_name))
        # one (bucket, offset) entry per full batch; a bucket's remainder is never served
        self.idx = [(b, start) for b, arr in enumerate(self.data)
                    for start in range(0, len(arr) - batch_size + 1, batch_size)]
        self.reset()

    def reset(self):
        """Shuffle the batch order (``random``) and each bucket's sentences (``np.random``), then rewind."""
        random.shuffle(self.idx)
        for arr in self.data:
            np.random.shuffle(arr)
        shifted = []
        for arr in self.data:
            nxt = np.full_like(arr, self.invalid_label)
            nxt[:, :-1] = arr[:, 1:]
            shifted.append(nxt)
        self.nddata = [nd.array(a, dtype=self.dtype) for a in self.data]
        self.ndlabel = [nd.array(a, dtype=self.dtype) for a in shifted]
        self.curr_idx = 0

    def next(self):
        """The next batch, with ``bucket_key`` (its length) and its own ``provide_data``/``provide_label``."""
        if self.curr_idx >= len(self.idx):
            raise StopIteration
        bucket, start = self.idx[self.curr_idx]
        self.curr_idx += 1
        window = slice(start, start + self.batch_size)
        pair = [self.nddata[bucket][window], self.ndlabel[bucket][window]]
        if self.major_axis == 1:
            pair = [x.T for x in pair]
        descs = [[DataDesc(name=n, shape=x.shape, layout=self.layout)]
                 for n, x in zip((self.data_name, self.label_name), pair)]
        return DataBatch([pair[0]], [pair[1]], pad=0, bucket_key=self.buckets[bucket],
                         provide_data=descs[0], provide_label=descs[1])
