"""``mx.rnn``: the legacy symbolic RNN helpers. Only the data side (``io``) is provided.

Differs from MXNet: the symbolic cells (``mx.rnn.LSTMCell``, ``SequentialRNNCell`` ...) and the RNN checkpoint
helpers are not implemented; using one raises an error naming it (use ``mx.gluon.rnn`` instead).
"""
from . import io  # noqa: F401
from .io import BucketSentenceIter, encode_sentences  # noqa: F401

__all__ = ['io', 'BucketSentenceIter', 'encode_sentences']

# MXNet 1.9.1 names of mxnet/rnn/rnn_cell.py and mxnet/rnn/rnn.py that are not provided here.
MISSING = ('RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'FusedRNNCell', 'SequentialRNNCell',
           'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell', 'BidirectionalCell', 'BaseConvRNNCell',
           'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell', 'rnn_cell', 'rnn', 'rnn_unroll', 'save_rnn_checkpoint',
           'load_rnn_checkpoint', 'do_rnn_checkpoint')


def __getattr__(name):
    if name in MISSING:
        from ..base import unsupported
        raise unsupported('mx.rnn.' + name, 'the symbolic RNN cell API',
                          'it is not implemented; build the graph with mx.sym ops or use mx.gluon.rnn')
    raise AttributeError("module 'mxnet.rnn' has no attribute %r" % name)
