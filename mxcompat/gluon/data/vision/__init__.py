"""``mx.gluon.data.vision``: MNIST, FashionMNIST, CIFAR10/100, image folder and record datasets; ``transforms``."""
from .datasets import *  # noqa: F401,F403
from . import transforms  # noqa: F401
