"""``mx.gluon.contrib``: ``nn``, ``rnn``, ``cnn`` and ``data``. ``estimator`` is not implemented: using it raises
``MXNetNotImplementedError``."""
from . import nn, rnn, cnn, data  # noqa: F401

_MISSING = {'estimator': 'the module (Estimator, BatchProcessor and the event handlers)'}


def __getattr__(attr):
    if attr in _MISSING:
        from ...base import unsupported
        raise unsupported('mx.gluon.contrib.' + attr, _MISSING[attr],
                          'it is not implemented in this version of mxcompat')
    raise AttributeError("module 'mxnet.gluon.contrib' has no attribute %r" % attr)
