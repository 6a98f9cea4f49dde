"""``mx.gluon.contrib.estimator``: ``Estimator``, ``BatchProcessor`` and the event handlers, as in MXNet 1.9.1."""
from . import estimator, event_handler, batch_processor  # noqa: F401
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
from .batch_processor import *  # noqa: F401,F403
