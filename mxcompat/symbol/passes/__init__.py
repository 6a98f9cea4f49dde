"""Graph passes: rewrites of a Symbol, or of its lowered ``torch.fx`` graph, that MXNet's executors apply too.

- ``cse``: common-subexpression elimination on the Symbol (MXNet's ``MXNET_ELIMINATE_COMMON_EXPR``);
- ``storage``: csr arguments kept compressed through the operators with a sparse rule (used while lowering);
- ``contiguous``: the results of view operators made contiguous, as eager calls return them;
- ``inplace``: activations and additions written into their input, as MXNet's memory planner runs them;
- ``subgraph``: MXNet's oneDNN (``MKLDNN``) convolution fusion.

``symbol/runner.py`` chooses and applies those for every caller (Executor, hybridized blocks, ``mx.nd.CachedOp``).
Two more write graphs a user asks for, node for node as MXNet writes them (its JSON):

- ``mkldnn_backend``: ``Symbol.get_backend_symbol`` / ``optimize_for`` with MXNet's ``MKLDNN`` and
  ``MKLDNN_QUANTIZE`` subgraph backends (fused ``_sg_mkldnn_conv`` / ``_sg_mkldnn_fully_connected`` nodes);
- ``mkldnn_post_quantize``: the post-quantization properties ``MKLDNN_QUANTIZE`` applies to a quantized graph
  (``mx.contrib.quantization``'s MKL-DNN flow).
Nothing is imported here, so that lowering can import ``storage`` without the others.
"""
