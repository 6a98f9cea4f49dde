"""``mx.gluon.contrib.data``: IntervalSampler. ``text`` (WikiText datasets) is not implemented: using it raises."""
from .sampler import *  # noqa: F401,F403


def __getattr__(attr):
    if attr == 'text':
        from ....base import unsupported
        raise unsupported('mx.gluon.contrib.data.text', 'the module (WikiText2/WikiText103 datasets)',
                          'it is not implemented in this version of mxcompat')
    raise AttributeError("module 'mxnet.gluon.contrib.data' has no attribute %r" % attr)
