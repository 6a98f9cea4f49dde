"""d2l 1.0.3 (Dive into Deep Learning) on mxcompat: ``import d2l.mxnet`` and its linear regression trained by its
Trainer, on mx.np."""
from ._run import needs, run_script


def test_d2l_linear_regression(tmp_path):
    needs('d2l', 'matplotlib', 'pandas', 'requests', 'IPython')
    out = run_script(tmp_path, '''
        from d2l import mxnet as d2l
        from mxnet import np, npx
        npx.set_np()
        data = d2l.SyntheticRegressionData(w=np.array([2, -3.4]), b=4.2)
        model = d2l.LinearRegression(lr=0.03)
        d2l.Trainer(max_epochs=3).fit(model, data)
        w, b = model.get_w_b()
        print('error', float(np.abs(data.w - w.reshape(data.w.shape)).max()), float(np.abs(data.b - b)))
    ''')
    werr, berr = (float(v) for v in out.split('error')[-1].split())
    assert werr < 0.5 and berr < 0.5
