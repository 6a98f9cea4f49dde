"""Keras-MXNet 2.2.4.3 on mxcompat: a Sequential model trained and run through Keras's MXNet backend (Module on
symbols), and backend ops."""
from ._run import needs, run_script

# Keras 2.2.4 imports the ABCs from ``collections`` (removed in Python 3.10): the user script restores them
COLLECTIONS_ABC = '''
import collections, collections.abc
for name in ('Iterable', 'Mapping', 'Sequence', 'Callable'):
    setattr(collections, name, getattr(collections, name, None) or getattr(collections.abc, name))
'''


def test_keras_sequential_fit_predict_and_backend(tmp_path):
    needs('keras', 'keras_applications', 'keras_preprocessing')
    out = run_script(tmp_path, COLLECTIONS_ABC + '''
import numpy as np
import keras
from keras import backend as K
from keras.models import Sequential
from keras.layers import Dense
print('backend', K.backend())
x = K.variable(np.arange(6, dtype='float32').reshape(2, 3))
print('sum', K.eval(K.sum(x, axis=1)).tolist(), K.int_shape(K.expand_dims(x, 0)))
rng = np.random.RandomState(0)
data = rng.rand(64, 4).astype('float32')
labels = (data.sum(axis=1) > 2).astype('float32')
model = Sequential([Dense(8, activation='relu', input_shape=(4,)), Dense(1, activation='sigmoid')])
model.compile(optimizer='adam', loss='binary_crossentropy', metrics=['accuracy'])
hist = model.fit(data, labels, epochs=3, batch_size=16, verbose=0)
print('fit', len(hist.history['loss']), model.predict(data[:5]).shape)
''', env={'KERAS_BACKEND': 'mxnet'})
    assert 'backend mxnet' in out
    assert 'sum [3.0, 12.0] (1, 2, 3)' in out
    assert 'fit 3 (5, 1)' in out
