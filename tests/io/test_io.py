"""mxcompat.io: DataDesc/DataBatch/DataIter, NDArrayIter, ResizeIter, PrefetchingIter, CSVIter, MNISTIter.

References: batches recorded from the real MXNet 1.9.1 in tests/fixtures/io/io.json (see gen_io.py).
"""
import json
import os
import pathlib
import re
import threading
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'io'
GOLD = json.loads((FIX / 'io.json').read_text())


def collect(it, epochs):
    out = []
    for _ in range(epochs):
        ep = []
        for b in it:
            ep.append({'data': [d.asnumpy().tolist() for d in b.data],
                       'label': [lb.asnumpy().tolist() for lb in (b.label or [])],
                       'dtypes': [str(d.dtype) for d in b.data] + [str(lb.dtype) for lb in (b.label or [])],
                       'pad': b.pad, 'index': None if b.index is None else np.asarray(b.index).tolist()})
        out.append(ep)
        it.reset()
    return out


def check(it, gold, epochs):
    assert collect(it, epochs) == gold['batches']
    for key in ('provide_data', 'provide_label'):
        if key in gold:
            assert repr(getattr(it, key)) == gold[key]


DATA = np.arange(20, dtype=np.float32).reshape(10, 2)
LABEL = np.arange(10, dtype=np.float32)


@pytest.mark.parametrize('bs', [3, 4, 10, 25])
@pytest.mark.parametrize('shuffle', [False, True])
@pytest.mark.parametrize('mode', ['pad', 'discard', 'roll_over'])
def test_ndarrayiter_matches_mxnet(mode, shuffle, bs):
    gold = GOLD['ndarray_iter']['%s_%d_%d' % (mode, shuffle, bs)]
    np.random.seed(7)
    if 'error' in gold:  # MXNet cannot slice a batch larger than the data here
        with pytest.raises(MXNetError):
            it = mx.io.NDArrayIter(DATA, LABEL, bs, shuffle, last_batch_handle=mode)
            collect(it, 3)
        return
    it = mx.io.NDArrayIter(DATA, LABEL, bs, shuffle, last_batch_handle=mode)
    check(it, gold, 3)
    assert np.asarray(it.idx).tolist() == gold['idx']


def test_ndarrayiter_inputs_and_layouts():
    g = GOLD['ndarray_iter']
    np.random.seed(1)
    check(mx.io.NDArrayIter({'b': DATA, 'a': DATA * 10}, {'lab': LABEL}, 4, True, last_batch_handle='roll_over',
                            layout='NT'), g['dict'], 2)
    check(mx.io.NDArrayIter([DATA, DATA + 100], None, 4, data_name='x', label_name='y'), g['list_nolabel'], 1)
    np.random.seed(2)
    int_data = mx.nd.array(np.arange(6).reshape(6, 1), dtype='int32')
    check(mx.io.NDArrayIter(int_data, np.arange(6), 4, True), g['int32_shuffle'], 1)  # shuffling makes float32
    check(mx.io.NDArrayIter(int_data, np.arange(6), 4), g['int32'], 1)
    check(mx.io.NDArrayIter(np.arange(10), batch_size=25, last_batch_handle='pad'), g['corner'], 1)
    check(mx.io.NDArrayIter(np.arange(24, dtype=np.float32).reshape(2, 6, 2), batch_size=4, layout='TNC',
                            last_batch_handle='pad'), g['layout_tnc'], 1)
    check(mx.io.ResizeIter(mx.io.NDArrayIter(DATA, LABEL, 4), 5), g['resize_iter'], 2)


def test_ndarrayiter_protocol_and_errors():
    it = mx.io.NDArrayIter(DATA, LABEL, 4, last_batch_handle='pad')
    assert iter(it) is it
    assert it.iter_next() and it.getpad() == 0 and it.getindex() is None
    assert it.getdata()[0].asnumpy().tolist() == DATA[:4].tolist()
    assert it.getlabel()[0].asnumpy().tolist() == LABEL[:4].tolist()
    it.hard_reset()
    batches = list(it)
    assert len(batches) == 3 and batches[-1].pad == 2
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(TypeError, match='Invalid type'):
        mx.io.NDArrayIter({'data': object()}, batch_size=2)
    with pytest.raises(TypeError, match='Input must be'):
        mx.io.NDArrayIter(5, batch_size=2)
    with pytest.raises(NotImplementedError, match='discard'):  # CSR inputs: see test_ndarrayiter_csr.py
        sp = pytest.importorskip('scipy.sparse')
        mx.io.NDArrayIter({'data': sp.csr_matrix(DATA)}, DATA, 2, last_batch_handle='pad')
    with pytest.raises(ValueError, match='last_batch_handle'):
        mx.io.NDArrayIter(DATA, batch_size=2, last_batch_handle='wrap')


def test_ndarrayiter_batches_are_copies_of_the_current_source():
    # MXNet's slice_axis copies: writing into a batch leaves the source alone, while the source array itself is
    # read at each batch (in-place writes and a shuffle are seen; so is a tensor swapped under the same NDArray)
    x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(6, 2))
    it = mx.io.NDArrayIter(x, mx.nd.arange(6), batch_size=2)
    first = it.next()
    first.data[0][:] = -1
    assert x.asnumpy()[0, 0] == 0
    x[2:4] = 7
    assert (it.next().data[0].asnumpy() == 7).all()
    x.attach_grad()  # the NDArray now holds another (detached) tensor on the same memory
    x[4:6] = 9
    last = it.next()
    assert (last.data[0].asnumpy() == 9).all() and last.label[0].asnumpy().tolist() == [4, 5]
    np.random.seed(0)
    shuffled = mx.io.NDArrayIter(x, mx.nd.arange(6), batch_size=2, shuffle=True)
    rows = np.concatenate([b.label[0].asnumpy() for b in shuffled])
    assert sorted(rows.tolist()) == list(range(6)) and rows.tolist() != list(range(6))


def test_upstream_last_batch_counts():
    data = np.ones((1000, 2, 2))
    labels = np.ones((1000, 1))
    for i in range(1000):
        data[i] = i / 100
        labels[i] = i / 100
    for mode, count, (c0, c8) in [('pad', 8, (124, 100)), ('discard', 7, (100, 96)), ('roll_over', 7, (100, 96))]:
        it = mx.io.NDArrayIter(data, labels, 128, False, last_batch_handle=mode)
        counts = np.zeros(10)
        n = 0
        for b in it:
            lab = b.label[0].asnumpy().ravel()
            assert (b.data[0].asnumpy()[:, 0, 0] == lab).all()
            np.add.at(counts, lab.astype(int), 1)
            n += 1
        assert n == count and (counts[0], counts[8]) == (c0, c8)


def test_databatch_datadesc_strings():
    g = GOLD['misc']
    b = mx.io.DataBatch(data=[mx.nd.ones((2, 3)), mx.nd.ones((7, 8))], label=[mx.nd.ones((4, 5))])
    assert str(b) == g['databatch']
    assert str(mx.io.DataBatch(data=[mx.nd.ones((2, 3))])) == g['databatch_nolabel']
    d = mx.io.DataDesc('x', (2, 3), np.int32, 'NTC')
    assert repr(d) == g['datadesc'] and d == ('x', (2, 3)) and d.dtype is np.int32 and d.layout == 'NTC'
    assert [mx.io.DataDesc.get_batch_axis(x) for x in (None, 'NCHW', 'TNC', 'C')] == g['batch_axis']
    assert repr(mx.io.DataDesc.get_list([('a', (1, 2)), ('b', (3,))], [('a', np.int32), ('b', np.float16)])) == \
        g['get_list']
    assert repr(mx.io.DataDesc.get_list([('a', (1, 2))], None)) == g['get_list_none']
    with pytest.raises(AssertionError):
        mx.io.DataBatch(data=mx.nd.ones(2))


def test_dataiter_base_protocol():
    class Count(mx.io.DataIter):
        def __init__(self):
            super().__init__(2)
            self.i = 0

        def iter_next(self):
            self.i += 1
            return self.i <= 2

        def getdata(self):
            return [mx.nd.full((2,), self.i)]

        def getlabel(self):
            return []

        def getpad(self):
            return 0

    batches = list(Count())
    assert [b.data[0].asnumpy().tolist() for b in batches] == [[1, 1], [2, 2]]
    assert batches[0].index is None and batches[0].pad == 0


def test_prefetching_iter():
    it1 = mx.io.NDArrayIter({'data': DATA}, LABEL, 4)
    it2 = mx.io.NDArrayIter({'data': DATA * 2}, LABEL, 4)
    p = mx.io.PrefetchingIter([it1, it2], rename_data=[{'data': 'd1'}, {'data': 'd2'}])
    assert [x.name for x in p.provide_data] == ['d1', 'd2'] and p.batch_size == 4
    for _ in range(2):
        batches = list(p)
        assert len(batches) == 3 and batches[-1].pad == 2
        assert batches[1].data[1].asnumpy().tolist() == (DATA[4:8] * 2).tolist()
        assert [x.name for x in batches[0].provide_data] == ['d1', 'd2']
        p.reset()
    single = mx.io.PrefetchingIter(mx.io.NDArrayIter(DATA, LABEL, 5))
    assert single.provide_label[0].name == 'softmax_label' and len(list(single)) == 2

    class Broken(mx.io.NDArrayIter):
        def next(self):
            raise KeyError('boom')

    bad = mx.io.PrefetchingIter(Broken(DATA, LABEL, 4))
    with pytest.raises(KeyError, match='boom'):
        bad.next()
    del p, single, bad
    assert threading.active_count() < 20


@pytest.mark.parametrize('name', ['default', 'label', 'noround', 'int32', 'int64', 'label2', 'label11', 'big_batch',
                                  'bad_shape', 'bad_dtype', 'too_big'])
def test_csviter_matches_mxnet(name):
    gold = GOLD['csv'][name]
    kw = {'default': dict(data_shape=(2, 3), batch_size=2),
          'label': dict(data_shape=(6,), label_csv='label.csv', batch_size=3),
          'noround': dict(data_shape=(6,), label_csv='label.csv', batch_size=3, round_batch=False),
          'int32': dict(data_shape=(6,), batch_size=2, dtype='int32'),
          'int64': dict(data_shape=(3, 2), batch_size=4, dtype='int64', label_csv='label.csv'),
          'label2': dict(data_shape=(6,), label_csv='label2.csv', label_shape=(2,), batch_size=2),
          'label11': dict(data_shape=(6,), label_csv='label.csv', label_shape=(1, 1), batch_size=2),
          'big_batch': dict(data_shape=(6,), batch_size=7), 'bad_shape': dict(data_shape=(5,), batch_size=2),
          'bad_dtype': dict(data_shape=(6,), batch_size=2, dtype='float64'),
          'too_big': dict(data_shape=(6,), batch_size=12)}[name]
    if 'label_csv' in kw:
        kw['label_csv'] = str(FIX / kw['label_csv'])
    if name == 'big_batch':  # MXNet (oracle, by hand): two epochs, then too few rows left to complete a batch
        it = mx.io.CSVIter(data_csv=str(FIX / 'data.csv'), **kw)
        assert [(b.data[0].asnumpy()[:, 0].tolist(), b.pad) for b in it] == [([0, 10, 20, 30, 40, 0, 10], 2)]
        it.reset()
        assert [(b.data[0].asnumpy()[:, 0].tolist(), b.pad) for b in it] == [([20, 30, 40, 0, 10, 20, 30], 4)]
        it.reset()  # MXNet's prefetching thread already fails here; we fail at the next batch
    if 'error' in gold:
        with pytest.raises(MXNetError) as e:
            collect(mx.io.CSVIter(data_csv=str(FIX / 'data.csv'), **kw), 3)
        assert gold['message'].split(': ')[-1] in str(e.value)
        return
    check(mx.io.CSVIter(data_csv=str(FIX / 'data.csv'), **kw), gold, 2)


def test_csviter_arguments(tmp_path):
    with pytest.raises(MXNetError, match='Required parameter data_csv'):
        mx.io.CSVIter(data_shape=(6,), batch_size=2)
    with pytest.raises(TypeError, match='keyword arguments'):
        mx.io.CSVIter(str(FIX / 'data.csv'), data_csv=str(FIX / 'data.csv'), data_shape=(6,), batch_size=2)
    with pytest.warns(UserWarning, match='foo'):
        mx.io.CSVIter(data_csv=str(FIX / 'data.csv'), data_shape=(6,), batch_size=2, foo=3)
    with pytest.raises(MXNetError, match='No such file'):
        mx.io.CSVIter(data_csv=str(tmp_path / 'none.csv'), data_shape=(6,), batch_size=2)
    it = mx.io.CSVIter(data_csv=str(FIX / 'data.csv'), data_shape='(6,)', batch_size='2', round_batch='False')
    assert it.provide_data[0].shape == (2, 6)
    (tmp_path / 'dir').mkdir()
    for i in range(2):
        (tmp_path / 'dir' / ('%d.csv' % i)).write_text('%d,%d\n' % (i, i))
    it = mx.io.CSVIter(data_csv=str(tmp_path / 'dir'), data_shape=(2,), batch_size=2)
    assert it.next().data[0].asnumpy().tolist() == [[0, 0], [1, 1]]
    it.reset()
    assert it.iter_next() and it.getdata().shape == (2, 2) and it.getindex().tolist() == [0, 1]


@pytest.mark.parametrize('name', ['default', 'seed10_flat', 'noshuffle_part', 'big'])
def test_mnistiter_matches_mxnet(name):
    gold = GOLD['mnist'][name]
    kw = {'default': dict(batch_size=5), 'seed10_flat': dict(batch_size=4, seed=10, flat=True),
          'noshuffle_part': dict(batch_size=8, shuffle=False, num_parts=3, part_index=1),
          'big': dict(batch_size=40)}[name]
    make = lambda: mx.io.MNISTIter(image=str(FIX / 'mnist-images-idx3'), label=str(FIX / 'mnist-labels-idx1'),  # noqa
                                   silent=True, **kw)
    if 'error' in gold:
        with pytest.raises(StopIteration):
            make()
        return
    check(make(), gold, 2)


def test_known_gaps():
    # ImageDetRecordIter is implemented (tests/io/test_image_det_record.py); its unported augmenters still raise
    with pytest.raises(MXNetNotImplementedError, match='ImageDetRecordIter.*aug_default'):
        mx.io.ImageDetRecordIter(path_imgrec='x.rec', data_shape=(3, 8, 8), batch_size=2, aug_seq='aug_default')


def test_namespace():
    assert mx.io.io.CSVIter is mx.io.CSVIter and mx.io.utils._init_data is mx.io._init_data
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        import mxcompat.io.io  # noqa: F401


def test_c_core_log_lines_leave_python_logging_alone():
    """MXNet prints MNISTIter's 'load' line from C++ to stderr; a script that configures logging afterwards (as
    MXNet's examples do) still gets its INFO lines. Run in a fresh interpreter: pytest configures logging itself."""
    import subprocess
    import sys
    code = ('import logging, mxcompat as mx\n'
            'mx.io.MNISTIter(image=%r, label=%r, batch_size=10, flat=True)\n'
            'logging.basicConfig(level=logging.DEBUG)\n'
            'logging.info("after")\n' % (str(FIX / 'mnist-images-idx3'), str(FIX / 'mnist-labels-idx1')))
    res = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert re.fullmatch(r'\[\d\d:\d\d:\d\d\] \.\./src/io/iter_mnist\.cc:109: MNISTIter: load \d+ images, '
                        r'shuffle=1, shape=\(10,\d+\)', lines[0]), lines
    assert lines[-1] == 'INFO:root:after'


def test_mnist_load_line_of_4d_batches(capsys):
    """MXNet 1.9.1 logs a non-flat MNISTIter from iter_mnist.cc:112 with the TShape form
    '[10,1,h,w]'; a flat one from line 109 with '(10,h*w)'."""
    mx.io.MNISTIter(image=str(FIX / 'mnist-images-idx3'), label=str(FIX / 'mnist-labels-idx1'), batch_size=10,
                    flat=False, shuffle=False)
    line = capsys.readouterr().err.splitlines()[-1]
    assert re.fullmatch(r'\[\d\d:\d\d:\d\d\] \.\./src/io/iter_mnist\.cc:112: MNISTIter: load \d+ images, '
                        r'shuffle=0, shape=\[10,1,4,3\]', line), line
