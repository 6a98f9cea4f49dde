"""``mx.gluon.contrib.data``: IntervalSampler, and ``text`` (the WikiText2/WikiText103 datasets)."""
from . import text  # noqa: F401
from .sampler import *  # noqa: F401,F403
