"""``mx.gluon.rnn``: recurrent cells (``rnn_cell``) and fused recurrent layers (``rnn_layer``)."""
from . import rnn_cell, rnn_layer  # noqa: F401
from .rnn_cell import *  # noqa: F401,F403
from .rnn_layer import *  # noqa: F401,F403
