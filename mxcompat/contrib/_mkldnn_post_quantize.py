"""MXNet 1.9.1's post-quantization subgraph properties of its ``MKLDNN_QUANTIZE`` backend, applied to a quantized
graph: ``apply(sym)`` returns the graph with them applied. (Not written yet: the graph is returned as it is.)"""


def apply(sym):
    """``sym`` with the post-quantization fusions of ``MKLDNN_QUANTIZE`` applied."""
    return sym
