"""``mx.contrib.svrg_optimization``: ``SVRGModule`` (svrg_module) and its optimizers (svrg_optimizer)."""
from . import svrg_module, svrg_optimizer  # noqa: F401
