"""mx.contrib.quantization's entropy calibration helpers (_smooth_distribution, _get_optimal_threshold(s)), against
values MXNet 1.9.1 printed for the same histograms (the operator they call, calibrate_entropy, is checked bit for bit
in tests/operator/test_quantization.py)."""
import numpy as np
import pytest

import mxcompat as mx

# tools/oracle/mxrun: q._get_optimal_thresholds({'l': hist_data}, dtype) for the histograms of _layer(kind)
MXNET_THRESHOLDS = {'signed/int8': (-5.367552757263184, 5.367552757263184),
                    'signed/uint8': (-5.367552757263184, 5.367552757263184),
                    'signed/auto': (-5.367552757263184, 5.367552757263184),
                    'relu/int8': (-4.5368499755859375, 4.5368499755859375),
                    'relu/uint8': (0.0, 3.449631690979004), 'relu/auto': (0.0, 3.449631690979004)}


def _layers():
    rng = np.random.RandomState(7)
    out = {}
    for kind in ('signed', 'relu'):
        v = rng.normal(0, 1.5, 5000)
        if kind == 'relu':
            v = np.maximum(v, 0)
        th = float(np.abs(v).max())
        h, e = np.histogram(v, bins=1001, range=(-th, th))
        out[kind] = (h, e, float(v.min()), float(v.max()), th)
    return out


def test_smooth_distribution():
    q = mx.contrib.quantization
    got = q._smooth_distribution(np.array([0, 3, 0, 1, 0, 0.5]), eps=0.01)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([0.01, 2.99, 0.01, 0.99, 0.01, 0.49], dtype=np.float32))
    with pytest.raises(ValueError, match='All entries are 0'):
        q._smooth_distribution(np.zeros(3))


@pytest.mark.parametrize('key', sorted(MXNET_THRESHOLDS))
def test_get_optimal_thresholds(key):
    kind, dtype = key.split('/')
    hist_dict = {'l': _layers()[kind]}
    th = mx.contrib.quantization._get_optimal_thresholds(hist_dict, dtype)
    assert hist_dict == {}  # entries are released as they are done, as MXNet's
    lo, hi = (float(np.asarray(x).reshape(-1)[0]) for x in th['l'])
    assert (lo, hi) == MXNET_THRESHOLDS[key]


def test_get_optimal_threshold_returns_the_layer_range():
    data = _layers()['signed']
    min_val, max_val, th, div = mx.contrib.quantization._get_optimal_threshold(data, 'int8')
    assert (min_val, max_val) == data[2:4]
    assert th.shape == div.shape == (1,) and th.dtype == np.float32
    with pytest.raises(AssertionError, match='odd number'):
        mx.contrib.quantization._get_optimal_threshold((np.ones(4), np.arange(5.0), 0.0, 1.0, 1.0), 'int8')
