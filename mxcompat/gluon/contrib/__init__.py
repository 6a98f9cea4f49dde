"""``mx.gluon.contrib``: ``nn``, ``rnn``, ``cnn``, ``data`` and ``estimator``."""
from . import nn, rnn, cnn, data, estimator  # noqa: F401


def __getattr__(attr):
    raise AttributeError("module 'mxnet.gluon.contrib' has no attribute %r" % attr)
