"""``mxnet._numpy_op_doc``: in MXNet, the documented signatures of the ``_np_*`` / ``_npx_*`` operators its C++
registry defines (``mxnet.numpy_op_signature`` copies them onto the ``mx.np`` functions). mxcompat's registry has
no such operators: the ``mx.np`` and ``mx.npx`` functions are Python functions with their own signatures, so there
is nothing to document here."""
