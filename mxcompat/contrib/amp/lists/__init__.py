"""The operator lists that AMP uses, per target dtype (generated from MXNet 1.9.1's)."""
from . import symbol_fp16, symbol_bf16  # noqa: F401
