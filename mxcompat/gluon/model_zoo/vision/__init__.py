"""``mx.gluon.model_zoo.vision``: AlexNet, DenseNet, Inception V3, ResNet V1/V2, SqueezeNet, VGG, MobileNet V1/V2.

Constructors take ``pretrained``, ``ctx``, ``root`` and the architecture's keyword arguments (``classes``, ...) as
in MXNet; parameter names and ``save_parameters`` keys are MXNet's, so MXNet's published ``.params`` files load.
"""
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from ....base import MXNetValueError as _MXNetValueError


def _model_table():
    """{zoo name: constructor}, from the constructors imported above."""
    made = globals()
    depths = {'resnet': (18, 34, 50, 101, 152), 'vgg': (11, 13, 16, 19), 'densenet': (121, 161, 169, 201)}
    table = {'resnet%d_v%d' % (d, v): made['resnet%d_v%d' % (d, v)] for v in (1, 2) for d in depths['resnet']}
    table.update(('vgg%d%s' % (d, bn), made['vgg%d%s' % (d, bn)]) for bn in ('', '_bn') for d in depths['vgg'])
    table['alexnet'] = made['alexnet']
    table.update(('densenet%d' % d, made['densenet%d' % d]) for d in depths['densenet'])
    table.update(('squeezenet' + v, made['squeezenet' + v.replace('.', '_')]) for v in ('1.0', '1.1'))
    table['inceptionv3'] = made['inception_v3']
    widths = ('1.0', '0.75', '0.5', '0.25')
    table.update(('mobilenet' + w, made['mobilenet' + w.replace('.', '_')]) for w in widths)
    table.update(('mobilenetv2_' + w, made['mobilenet_v2_' + w.replace('.', '_')]) for w in widths)
    return table


_MODELS = _model_table()


def get_model(name, **kwargs):
    """The model called ``name`` (case-insensitive, e.g. 'resnet18_v1', 'mobilenet0.25', 'inceptionv3'), built
    with ``kwargs`` (``pretrained``, ``classes``, ``ctx``, ``root``, ...)."""
    key = name.lower()
    if key not in _MODELS:
        raise _MXNetValueError('Model %s is not supported. Available options are\n\t%s'
                               % (key, '\n\t'.join(sorted(_MODELS))))
    return _MODELS[key](**kwargs)
