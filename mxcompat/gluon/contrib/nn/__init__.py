"""``mx.gluon.contrib.nn``: extra layers (see ``basic_layers``)."""
from .basic_layers import *  # noqa: F401,F403
