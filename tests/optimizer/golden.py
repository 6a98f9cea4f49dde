"""Loads the optimizer fixtures and their driver (tests/fixtures/optimizer/gen_optimizer.py, run by real MXNet)."""
import importlib.util
import json
import os
import pickle

import numpy as np

DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'optimizer')


def _load_gen():
    spec = importlib.util.spec_from_file_location('gen_optimizer', os.path.join(DIR, 'gen_optimizer.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load_gen()
ARRAYS = np.load(os.path.join(DIR, 'optimizer_golden.npz'))
with open(os.path.join(DIR, 'optimizer_meta.json')) as _f:
    META = json.load(_f)
with open(os.path.join(DIR, 'updater_states.pkl'), 'rb') as _f:
    STATES = pickle.load(_f)
