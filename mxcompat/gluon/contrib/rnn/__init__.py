"""``mx.gluon.contrib.rnn``: convolutional recurrent cells, LSTMPCell, VariationalDropoutCell, dynamic_unroll."""
from . import rnn_cell, conv_rnn_cell  # noqa: F401
from .rnn_cell import *  # noqa: F401,F403
from .conv_rnn_cell import *  # noqa: F401,F403
