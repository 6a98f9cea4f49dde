"""Porting tools (mxcompat only): ``python -m mxcompat check`` (a static report of the MXNet APIs a script uses)
and ``python -m mxcompat convert`` (MXNet model files to a standalone PyTorch module)."""
