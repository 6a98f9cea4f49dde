"""Graph passes: rewrites of a Symbol, or of its lowered ``torch.fx`` graph, that MXNet's executors apply too.

- ``cse``: common-subexpression elimination on the Symbol (MXNet's ``MXNET_ELIMINATE_COMMON_EXPR``);
- ``storage``: csr arguments kept compressed through the operators with a sparse rule (used while lowering);
- ``contiguous``: the results of view operators made contiguous, as eager calls return them;
- ``inplace``: activations and additions written into their input, as MXNet's memory planner runs them;
- ``subgraph``: MXNet's oneDNN (``MKLDNN``) convolution fusion.

``symbol/runner.py`` chooses and applies them for every caller (Executor, hybridized blocks, ``mx.nd.CachedOp``).
Nothing is imported here, so that lowering can import ``storage`` without the others.
"""
