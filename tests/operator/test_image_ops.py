"""The ``_image_*`` operators (mx.nd.image / mx.sym.image) against MXNet 1.9.1: outputs on fixed images (including
the random colour ops with min_factor == max_factor, which makes them deterministic), errors, Normalize's gradient,
the symbolic path, the random ops' distributions, and their draws from MXNet's single CPU engine after
``mx.random.seed``.

Goldens: tests/fixtures/gluon_data (gen_gluon_data.py, IMAGE_CASES / IMAGE_ERRORS) and tests/fixtures/image_random
(gen_image_random.py)."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.gluon.data.vision import transforms as T  # noqa: F401  (used by the golden expressions)
from mxcompat.operator import registry
from tests._fixtures import FIXTURES, load_generator
from tests.gluon.data.golden import ARR, GOLD

I = mx.nd.image  # noqa: E741

OPS = {'to_tensor': [], 'normalize': ['mean', 'std'], 'resize': ['size', 'keep_ratio', 'interp'],
       'crop': ['x', 'y', 'width', 'height'], 'flip_left_right': [], 'flip_top_bottom': [],
       'random_flip_left_right': [], 'random_flip_top_bottom': [], 'random_brightness': ['min_factor', 'max_factor'],
       'random_contrast': ['min_factor', 'max_factor'], 'random_saturation': ['min_factor', 'max_factor'],
       'random_hue': ['min_factor', 'max_factor'],
       'random_color_jitter': ['brightness', 'contrast', 'saturation', 'hue'], 'adjust_lighting': ['alpha'],
       'random_lighting': ['alpha_std']}


@pytest.mark.parametrize('name', sorted(OPS))
def test_names_params_and_namespaces(name):
    op = registry.get('_image_' + name)
    assert op.inputs == ('data',) and op.param_names == OPS[name]
    assert registry.get('_npx__image_' + name) is op
    assert getattr(I, name)._op is op and hasattr(mx.sym.image, name)


def image_case(name):
    """Our output for a golden case and MXNet's."""
    src, expr = GOLD['image_cases'][name]
    x = mx.nd.array(ARR[src], dtype=ARR[src].dtype)  # noqa: F841  (used by expr)
    return eval(expr), ARR['img_' + name]  # noqa: S307


def assert_image(ours, ref, close=False):
    """Exact, or (``close``: a resize in OpenCV) uint8 within 1 on at most 5% of the pixels, floats to 1e-5."""
    ours = ours.asnumpy()
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    if not close:
        np.testing.assert_array_equal(ours, ref)
    elif ref.dtype.kind in 'ui':
        diff = np.abs(ours.astype(np.int64) - ref)
        assert diff.max() <= 1 and (diff > 0).mean() <= 0.05, (diff.max(), (diff > 0).mean())
    else:
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-4)


OP_CASES = sorted(n for n, (_, expr) in GOLD['image_cases'].items() if expr.startswith('I.'))


@pytest.mark.parametrize('name', OP_CASES)
def test_matches_mxnet(name):
    ours, ref = image_case(name)
    if name == 'flip_tb':
        # MXNet never writes the middle row of an odd-height image when the output is a new array
        keep = [r for r in range(ref.shape[0]) if r != ref.shape[0] // 2]
        np.testing.assert_array_equal(ours.asnumpy()[keep], ref[keep])
        np.testing.assert_array_equal(ours.asnumpy()[ref.shape[0] // 2], ARR['GRAY'][ref.shape[0] // 2])
        return
    assert_image(ours, ref, close=name.startswith('resize') and 'i32' not in name)


def test_ops_return_new_arrays():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    y = I.crop(x, 1, 1, 3, 3)
    y[:] = 0
    assert x.asnumpy()[1:4, 1:4].any()


def _errors():
    import pathlib
    src = (pathlib.Path(__file__).resolve().parents[1] / 'fixtures' / 'gluon_data' / 'gen_gluon_data.py').read_text()
    start = src.index('IMAGE_ERRORS = [')
    ns = {}
    exec(src[start:src.index(']\n', start) + 2], ns)  # noqa: S102  (the table only; the generator imports mxnet)
    return dict(ns['IMAGE_ERRORS'])


ERRORS = _errors()


@pytest.mark.parametrize('name', sorted(GOLD['image_errors']))
def test_errors(name):
    expr = ERRORS[name]
    if name == 'crop_resize_no_interp':  # MXNet cannot parse interp=None; here it means bilinear
        assert eval(expr).shape == (4, 4, 3)  # noqa: S307
        return
    cls = {'TypeError': TypeError, 'ValueError': ValueError, 'MXNetError': MXNetError}[GOLD['image_errors'][name]]
    with pytest.raises(cls) as info:
        eval(expr)  # noqa: S307
    assert isinstance(info.value, (MXNetValueError, MXNetTypeError))
    if cls is MXNetError:
        assert 'Operator _image_' in str(info.value)


def test_normalize_gradient_matches_mxnet():
    x = mx.nd.array(ARR['grad_x'])
    x.attach_grad()
    with mx.autograd.record():
        y = I.normalize(x, mean=(0.1, 0.2, 0.3), std=(0.5, 2.0, 4.0))
    y.backward(mx.nd.array(ARR['grad_og']))
    np.testing.assert_allclose(x.grad.asnumpy(), ARR['grad_normalize'], rtol=1e-6)


def test_normalize_gradient_numeric():
    x = mx.nd.array(np.random.RandomState(0).rand(2, 3, 2, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = (I.normalize(x, mean=(0.1, 0.2, 0.3), std=(0.5, 2.0, 4.0)) ** 2).sum()
    y.backward()
    eps, base = 1e-3, x.asnumpy().astype(np.float64)
    num = np.zeros_like(base)
    f = lambda a: (((a - np.array([.1, .2, .3]).reshape(3, 1, 1)) / np.array([.5, 2., 4.]).reshape(3, 1, 1)) ** 2).sum()  # noqa: E731,E501
    for idx in np.ndindex(base.shape):
        d = np.zeros_like(base)
        d[idx] = eps
        num[idx] = (f(base + d) - f(base - d)) / (2 * eps)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-3, atol=1e-4)


def test_symbolic_graph_matches_eager():
    data = mx.sym.var('data')
    net = mx.sym.image.normalize(mx.sym.image.to_tensor(mx.sym.image.resize(data, size=(5, 4))), mean=0.5, std=0.2)
    assert net.list_arguments() == ['data']
    assert net.infer_shape(data=(6, 8, 3))[1] == [(3, 4, 5)]
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    ex = net.bind(mx.cpu(), {'data': x})
    out = ex.forward()[0]
    ref = I.normalize(I.to_tensor(I.resize(x, size=(5, 4))), mean=0.5, std=0.2)
    np.testing.assert_array_equal(out.asnumpy(), ref.asnumpy())


def test_resize_keep_ratio_shape_inference():
    data = mx.sym.var('data')
    assert mx.sym.image.resize(data, size=4, keep_ratio=True).infer_shape(data=(2, 6, 8, 3))[1] == [(2, 4, 5, 3)]


# ---- random operators --------------------------------------------------------------------------------------------
def test_random_flips_are_fair_coins():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    for op, axis in ((I.random_flip_left_right, 1), (I.random_flip_top_bottom, 0)):
        mx.random.seed(0)
        flipped = 0
        for _ in range(400):
            y = op(x).asnumpy()
            same = np.array_equal(y, ARR['IMG'])
            assert same or np.array_equal(y, np.flip(ARR['IMG'], axis))
            flipped += not same
        assert 140 < flipped < 260


def test_random_brightness_factor_range():
    x = mx.nd.array(ARR['FIMG'])
    mx.random.seed(1)
    ratios = []
    for _ in range(300):
        r = I.random_brightness(x, 0.5, 1.5).asnumpy() / ARR['FIMG']
        np.testing.assert_allclose(r, r.flat[0], rtol=1e-5)  # one factor per call
        ratios.append(r.flat[0])
    assert 0.5 <= min(ratios) < 0.55 and 1.45 < max(ratios) <= 1.5 and abs(np.mean(ratios) - 1) < 0.05


@pytest.mark.parametrize('op', ['contrast', 'saturation'])
def test_random_contrast_saturation_are_affine_with_factor_in_range(op):
    x = mx.nd.array(ARR['FIMG'])
    mx.random.seed(2)
    for _ in range(20):
        y = getattr(I, 'random_' + op)(x, 0.3, 0.9).asnumpy()
        # y = alpha * x + (something constant per pixel for saturation / per image for contrast)
        slope = np.polyfit(ARR['FIMG'][..., 0].ravel() - ARR['FIMG'][..., 1].ravel(),
                           y[..., 0].ravel() - y[..., 1].ravel(), 1)[0]
        assert 0.3 - 1e-4 <= slope <= 0.9 + 1e-4


def test_random_hue_factor_one_is_a_full_turn():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    np.testing.assert_array_equal(I.random_hue(x, 1.0, 1.0).asnumpy(), ARR['img_hue_IMG_1'])


def test_random_color_jitter():
    x = mx.nd.array(ARR['FIMG'])
    np.testing.assert_array_equal(I.random_color_jitter(x, 0, 0, 0, 0).asnumpy(), ARR['FIMG'])
    mx.random.seed(3)
    for _ in range(20):
        r = I.random_color_jitter(x, 0.4, 0, 0, 0).asnumpy() / ARR['FIMG']
        assert 0.6 - 1e-5 <= r.flat[0] <= 1.4 + 1e-5
        np.testing.assert_allclose(r, r.flat[0], rtol=1e-5)
    mx.random.seed(4)
    outs = {I.random_color_jitter(x, 0.3, 0.3, 0.3, 0.1).asnumpy().tobytes() for _ in range(5)}
    assert len(outs) == 5


def test_random_lighting_shift():
    x = mx.nd.array(ARR['FIMG'])
    np.testing.assert_array_equal(I.random_lighting(x, 0.0).asnumpy(), ARR['FIMG'])
    mx.random.seed(5)
    shifts = []
    for _ in range(200):
        d = I.random_lighting(x, 0.1).asnumpy() - ARR['FIMG']
        np.testing.assert_allclose(d, np.broadcast_to(d[0, 0], d.shape), atol=1e-3)  # one shift per channel
        shifts.append(d[0, 0])
    shifts = np.array(shifts)
    assert np.abs(shifts.mean(axis=0)).max() < 1.5 and 2 < shifts[:, 0].std() < 8  # eigval 55.46 * 0.1 * 0.57


def test_random_ops_follow_mx_random_seed():
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    mx.random.seed(11)
    a = I.random_color_jitter(x, 0.3, 0.3, 0.3, 0.3).asnumpy()
    mx.random.seed(11)
    np.testing.assert_array_equal(I.random_color_jitter(x, 0.3, 0.3, 0.3, 0.3).asnumpy(), a)


# ---- MXNet's random numbers ---------------------------------------------------------------------------------------
RANDOM_CASES = load_generator('image_random', 'gen_image_random.py')
RANDOM_GOLD = np.load(FIXTURES + '/image_random/image_random.npz')


@pytest.mark.parametrize('name', sorted(RANDOM_CASES.CASES))
def test_random_ops_draw_mxnet_numbers(name):
    """Seeded sequences of the random ops and transforms give MXNet 1.9.1's outputs: the same flips, factors,
    jitter orders and lighting alphas from the single engine, which mx.np.random shares and mx.nd.random does not."""
    ours = np.stack([o.asnumpy() for o in RANDOM_CASES.CASES[name](mx, mx.nd.image)])
    ref = RANDOM_GOLD[name]
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    if ref.dtype == np.uint8:
        np.testing.assert_array_equal(ours, ref)
    else:
        np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-4)


def test_random_ops_torch_streams():
    """With torch's streams the ops draw from torch's generator (seeded by mx.random.seed too)."""
    x = mx.nd.array(ARR['IMG'], dtype='uint8')
    prev = mx.random.set_streams('torch')
    try:
        mx.random.seed(1)
        a = [I.random_color_jitter(x, 0.3, 0.3, 0.3, 0.3).asnumpy() for _ in range(3)]
        torch.manual_seed(12345)
        mx.random.seed(1)
        b = [I.random_color_jitter(x, 0.3, 0.3, 0.3, 0.3).asnumpy() for _ in range(3)]
    finally:
        mx.random.set_streams(prev)
    np.testing.assert_array_equal(np.stack(a), np.stack(b))
