"""``mx.gluon.model_zoo``: predefined vision models (``vision``) and their pretrained files (``model_store``)."""
from . import model_store  # noqa: F401
from . import vision  # noqa: F401
