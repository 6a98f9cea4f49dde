"""The mx.gluon.data / gluon.utils goldens (tests/fixtures/gluon_data, written by gen_gluon_data.py under real
MXNet 1.9.1) and a comparison for batches recorded as JSON."""
import json
import pathlib
import sys

import numpy as np

import mxcompat as mx

FIX = pathlib.Path(__file__).resolve().parents[2] / 'fixtures' / 'gluon_data'
GOLD = json.loads((FIX / 'gluon_data.json').read_text())
ARR = np.load(FIX / 'gluon_data.npz')
sys.path.insert(0, str(FIX))
import tiny_files  # noqa: E402,F401


def same(ours, ref, rtol=1e-6):
    """``ours`` (NDArrays, lists, numbers) equals ``ref`` as gen_gluon_data.dump recorded it."""
    if isinstance(ref, dict) and 'dtype' in ref:
        assert isinstance(ours, mx.nd.NDArray), type(ours)
        assert np.dtype(ours.dtype).name == ref['dtype']
        assert list(ours.shape) == ref['shape']
        assert str(ours.context) == ref['ctx']
        np.testing.assert_allclose(ours.asnumpy().astype(np.float64),
                                   np.asarray(ref['v'], dtype=np.float64).reshape(ref['shape']), rtol=rtol)
    elif isinstance(ref, dict) and 'np' in ref:
        assert type(ours).__name__ == ref['np'] and ours.item() == ref['v']
    elif isinstance(ref, list):
        assert isinstance(ours, list) and len(ours) == len(ref), (ours, ref)
        for o, r in zip(ours, ref):
            same(o, r, rtol)
    else:
        assert ours == ref, (ours, ref)
