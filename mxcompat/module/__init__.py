"""``mx.mod``: the Module API (training a Symbol with fit/score/predict)."""
from .base_module import BaseModule  # noqa: F401
from .module import Module  # noqa: F401
