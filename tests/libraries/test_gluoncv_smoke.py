"""GluonCV 0.10 on mxcompat: import (past its check for PyTorch<2), a model-zoo network, box utilities."""
from ._run import needs, run_script


def test_gluoncv_model_zoo_and_boxes(tmp_path):
    needs('gluoncv')
    out = run_script(tmp_path, '''
        import numpy as np
        import mxnet as mx
        import gluoncv
        from gluoncv.model_zoo import get_model
        from gluoncv.utils import bbox_iou
        from gluoncv.nn.bbox import BBoxCornerToCenter
        assert gluoncv._found_mxnet
        net = get_model('cifar_resnet20_v1', classes=10, pretrained=False)
        net.initialize(mx.init.Xavier())
        x = mx.nd.random.uniform(shape=(2, 3, 32, 32))
        eager = net(x)
        net.hybridize()
        print('resnet', eager.shape, np.allclose(eager.asnumpy(), net(x).asnumpy(), atol=1e-5))
        a = np.array([[0, 0, 10, 10], [5, 5, 15, 15]], dtype='float32')
        print('iou', [round(float(v), 4) for v in bbox_iou(a, a[:1]).ravel()])
        centers = BBoxCornerToCenter(split=False)(mx.nd.array(a)[None])
        print('center', centers.asnumpy()[0].tolist())
    ''')
    assert 'resnet (2, 10) True' in out
    assert 'iou [1.0, 0.1429]' in out  # 25 / 175
    assert 'center [[5.0, 5.0, 10.0, 10.0], [10.0, 10.0, 10.0, 10.0]]' in out
