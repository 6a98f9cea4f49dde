"""``mx.rnn``: the legacy symbolic RNN cells (``rnn_cell``, ``conv_rnn_cell``), their checkpoint helpers and the
data side (``io``).

Differs from MXNet: the deprecated ``rnn_unroll`` (and the ``mx.rnn.rnn`` module holding it) is not provided; using
it raises an error naming it. (MXNet 1.9's own ``rnn_unroll`` passes ``input_prefix`` to ``unroll``, which no longer
takes it, so it fails there too.)
"""
from . import conv_rnn_cell  # noqa: F401
from . import io  # noqa: F401
from . import rnn_cell  # noqa: F401
from .conv_rnn_cell import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell  # noqa: F401
from .io import BucketSentenceIter, encode_sentences  # noqa: F401
from .rnn_cell import (RNNParams, BaseRNNCell, RNNCell, LSTMCell, GRUCell, FusedRNNCell,  # noqa: F401
                       SequentialRNNCell, DropoutCell, ModifierCell, ZoneoutCell, ResidualCell, BidirectionalCell,
                       save_rnn_checkpoint, load_rnn_checkpoint, do_rnn_checkpoint)
from ..base import unsupported

__all__ = ['io', 'rnn_cell', 'BucketSentenceIter', 'encode_sentences'] + rnn_cell.__all__ + conv_rnn_cell.__all__

# MXNet defines the convolutional cells in mxnet/rnn/rnn_cell.py; here they have their own module
for _cell in (BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell):
    setattr(rnn_cell, _cell.__name__, _cell)
del _cell

# MXNet 1.9.1 names of mxnet/rnn/rnn.py that are not provided here.
MISSING = ('rnn', 'rnn_unroll')


def __getattr__(name):
    if name in MISSING:
        what = ('the mxnet.rnn.rnn module' if name == 'rnn' else 'the deprecated symbolic unroll helper')
        raise unsupported('mx.rnn.' + name, what, 'it is not implemented; call cell.unroll(length, inputs, ...) '
                          'instead (the checkpoint helpers are in mx.rnn itself)')
    raise AttributeError("module 'mxnet.rnn' has no attribute %r" % name)
