"""The mx.sym namespaces built from the operator registry (symbol/register.py)."""
import json

import mxcompat as mx


def test_a_submodule_function_names_its_nodes_after_itself():
    # as MXNet 1.9.1 prints them (its contrib, linalg, image and sparse functions take the name without the
    # prefix as their hint; the Python wrappers of mx.sym.random call the _internal ops)
    d = mx.sym.var('d')
    with mx.name.NameManager():
        got = [mx.sym.contrib.interleaved_matmul_selfatt_qk(d, heads=2).name,
               mx.sym.contrib.BilinearResize2D(d, height=2, width=2).name, mx.sym.contrib.div_sqrt_dim(d).name,
               mx.sym.contrib.quantize(d, d, d).name, mx.sym.linalg.gemm2(d, d).name,
               mx.sym.image.to_tensor(d).name, mx.sym.sparse.retain(d, d).name,
               mx.sym.random.uniform(shape=(2,)).name, mx.sym.random.normal(d, d).name,
               mx.sym.sample_normal(d, d).name]
    assert got == ['interleaved_matmul_selfatt_qk0', 'bilinearresize2d0', 'div_sqrt_dim0', 'quantize0', 'gemm20',
                   'to_tensor0', 'retain0', '_random_uniform0', '_sample_normal0', 'sample_normal0']
    assert json.loads(mx.sym.contrib.div_sqrt_dim(d).tojson())['nodes'][-1]['op'] == '_contrib_div_sqrt_dim'
