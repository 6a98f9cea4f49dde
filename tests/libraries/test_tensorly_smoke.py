"""TensorLy 0.7 with its MXNet backend (``mx.np``) on mxcompat: CP, Tucker and robust PCA, with the relative errors
MXNet 1.9.1 gives on the same tensor."""
from ._run import needs, run_script


def test_tensorly_mxnet_backend_decompositions(tmp_path):
    needs('tensorly')
    out = run_script(tmp_path, '''
        import numpy as onp
        import tensorly as tl
        tl.set_backend('mxnet')
        from tensorly.decomposition import parafac, tucker, robust_pca
        T = tl.tensor(onp.random.RandomState(0).random_sample((4, 5, 3)))
        cp = parafac(T, rank=2, init='svd', n_iter_max=50, tol=1e-10)
        print('parafac', round(float(tl.norm(T - tl.cp_to_tensor(cp)) / tl.norm(T)), 4))
        tk = tucker(T, rank=[2, 2, 2], init='svd')
        print('tucker', round(float(tl.norm(T - tl.tucker_to_tensor(tk)) / tl.norm(T)), 4))
        low, sparse = robust_pca(T, reg_E=0.5, n_iter_max=20)
        print('rpca', round(float(tl.norm(T - low - sparse) / tl.norm(T)), 3))
    ''')
    assert 'parafac 0.3658' in out and 'tucker 0.3656' in out and 'rpca 0.75' in out
