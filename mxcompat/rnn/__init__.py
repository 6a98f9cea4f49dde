"""``mx.rnn``: the legacy symbolic RNN cells (``rnn_cell``), their checkpoint helpers and the data side (``io``).

Differs from MXNet: the convolutional cells (``ConvRNNCell`` ...) and the deprecated ``rnn_unroll`` are not
implemented; using one raises an error naming it.
"""
from . import io  # noqa: F401
from . import rnn_cell  # noqa: F401
from .io import BucketSentenceIter, encode_sentences  # noqa: F401
from .rnn_cell import (RNNParams, BaseRNNCell, RNNCell, LSTMCell, GRUCell, FusedRNNCell,  # noqa: F401
                       SequentialRNNCell, DropoutCell, ModifierCell, ZoneoutCell, ResidualCell, BidirectionalCell,
                       save_rnn_checkpoint, load_rnn_checkpoint, do_rnn_checkpoint)

__all__ = ['io', 'rnn_cell', 'BucketSentenceIter', 'encode_sentences'] + rnn_cell.__all__

# MXNet 1.9.1 names of mxnet/rnn/rnn_cell.py and mxnet/rnn/rnn.py that are not provided here.
MISSING = rnn_cell._NOT_PROVIDED + ('rnn', 'rnn_unroll')


def __getattr__(name):
    if name in MISSING:
        raise rnn_cell._not_provided(name)
    raise AttributeError("module 'mxnet.rnn' has no attribute %r" % name)
