"""``mx.contrib.text.vocab``: ``Vocabulary``, the token <-> index mapping.

Differs from MXNet: failed checks raise ``MXNetAssertionError`` (an ``AssertionError``) and bad indices
``MXNetValueError``/``MXNetTypeError`` (``ValueError``/``TypeError``) with the same conditions and meaning.
"""
import collections
import numbers

from ...base import MXNetAssertionError, MXNetTypeError, MXNetValueError
from . import _constants as C

__all__ = ['Vocabulary']


def _check(cond, msg):
    if not cond:
        raise MXNetAssertionError(msg)


class Vocabulary(object):
    """Indexes ``unknown_token`` (index 0), then ``reserved_tokens`` in their order, then the keys of ``counter``
    with at least ``min_freq`` occurrences, most frequent first (ties in ascending key order), at most
    ``most_freq_count`` of them (reserved and unknown tokens found in ``counter`` are not counted again)."""

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token='<unk>',
                 reserved_tokens=None):
        _check(min_freq > 0, '`min_freq` must be set to a positive value, got %r.' % (min_freq,))
        if reserved_tokens is not None:
            distinct = set(reserved_tokens)
            _check(unknown_token not in distinct,
                   '`reserved_token` cannot contain `unknown_token` %r.' % (unknown_token,))
            _check(len(distinct) == len(reserved_tokens),
                   '`reserved_tokens` cannot contain duplicate reserved tokens, got %r.' % (reserved_tokens,))
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else reserved_tokens[:]
        self._idx_to_token = [unknown_token] + list(reserved_tokens or [])
        self._token_to_idx = {tok: i for i, tok in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter_keys(counter, most_freq_count, min_freq)

    def _index_counter_keys(self, counter, most_freq_count, min_freq):
        _check(isinstance(counter, collections.Counter),
               '`counter` must be an instance of collections.Counter, got %s.' % type(counter).__name__)
        special = set(self._idx_to_token)
        # The unknown and reserved tokens are indexed already; the cap counts the tokens taken from `counter`.
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        ranked = sorted(counter.items(), key=lambda kv: kv[0])
        ranked.sort(key=lambda kv: kv[1], reverse=True)  # stable: equal counts stay in key order
        for token, freq in ranked:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token in special:
                continue
            self._token_to_idx[token] = len(self._idx_to_token)
            self._idx_to_token.append(token)

    def __len__(self):
        return len(self._idx_to_token)

    token_to_idx = property(lambda self: self._token_to_idx, doc='dict: each indexed token -> its index.')
    idx_to_token = property(lambda self: self._idx_to_token, doc='list: the indexed tokens, position = index.')
    unknown_token = property(lambda self: self._unknown_token,
                             doc='The token every unindexed token maps to (index 0).')
    reserved_tokens = property(lambda self: self._reserved_tokens,
                               doc='The reserved tokens (a copy of the argument), or None.')

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens; unindexed tokens give 0."""
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, C.UNKNOWN_IDX)
        return [self._token_to_idx.get(tok, C.UNKNOWN_IDX) for tok in tokens]

    def to_tokens(self, indices):
        """The token at an index, or the list of tokens at a list of indices. As in MXNet, an index that is not an
        ``int`` or is past the end raises ``ValueError``; a negative ``int`` counts from the end."""
        single = not isinstance(indices, list)
        out = [self._token_at(idx) for idx in ([indices] if single else indices)]
        return out[0] if single else out

    def _token_at(self, idx):
        if isinstance(idx, int) and idx < len(self._idx_to_token):
            return self._idx_to_token[idx]
        if not isinstance(idx, numbers.Real):
            raise MXNetTypeError('Token index %r in the provided `indices` is not a number.' % (idx,))
        raise MXNetValueError('Token index %d in the provided `indices` is invalid (the vocabulary has %d tokens).'
                              % (idx, len(self._idx_to_token)))
