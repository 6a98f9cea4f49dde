"""Loads the optimizer fixtures and their driver (tests/fixtures/optimizer/gen_optimizer.py, run by real MXNet)."""
import json
import os
import pickle

import numpy as np

from tests._fixtures import load_generator

DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'optimizer')

gen = load_generator('optimizer', 'gen_optimizer.py')
ARRAYS = np.load(os.path.join(DIR, 'optimizer_golden.npz'))
with open(os.path.join(DIR, 'optimizer_meta.json')) as _f:
    META = json.load(_f)
with open(os.path.join(DIR, 'updater_states.pkl'), 'rb') as _f:
    STATES = pickle.load(_f)
