"""``mx.contrib.text.utils``: counting the tokens of a string."""
import collections
import re

__all__ = ['count_tokens_from_str']


def count_tokens_from_str(source_str, token_delim=' ', seq_delim='\n', to_lower=False, counter_to_update=None):
    """A ``collections.Counter`` of the non-empty tokens of ``source_str`` split at either delimiter (both are
    regular expressions), lower-cased when ``to_lower``; ``counter_to_update`` is updated and returned if given."""
    pieces = re.split('%s|%s' % (token_delim, seq_delim), source_str)
    tokens = [p.lower() if to_lower else p for p in pieces if p]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
