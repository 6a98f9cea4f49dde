"""``mx.sym.contrib``: operators filed under this namespace (filled from the registry by ``op.py``)."""
